"""Subcommands of the ``gamut`` CLI, one module each.

Each module defines ``register(subparsers)``, which adds its parser and sets
``handler`` (a function of the parsed arguments returning an exit code) as a
default. Modules import heavy dependencies (Numba kernels, pyspiel, Ray) inside
their handlers so that ``gamut --help`` stays instant.
"""

from gamut.envs.registry import declarations

# The commands of every game; each game's own (``gamut poke ...``) come from its declaration.
GENERIC_COMMAND_MODULES = (
    "gamut.experiments.commands.run",
    "gamut.experiments.commands.bench",
    "gamut.experiments.commands.play",
    "gamut.experiments.commands.cfr",
    "gamut.experiments.commands.train",
)


def command_modules() -> tuple[str, ...]:
    """Modules of every subcommand: the generic ones, then each declared game's."""
    return GENERIC_COMMAND_MODULES + tuple(m for d in declarations().values() for m in d.commands)
