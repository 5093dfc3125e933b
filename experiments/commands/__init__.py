"""Subcommands of the ``gamut`` CLI, one module each.

Each module defines ``register(subparsers)``, which adds its parser and sets
``handler`` (a function of the parsed arguments returning an exit code) as a
default. Modules import heavy dependencies (Numba kernels, pyspiel, Ray) inside
their handlers so that ``gamut --help`` stays instant.
"""

COMMAND_MODULES = (
    "gamut.experiments.commands.run",
    "gamut.experiments.commands.bench",
    "gamut.experiments.commands.play",
    "gamut.experiments.commands.cfr",
    "gamut.experiments.commands.dice",
    "gamut.experiments.commands.poke",
    "gamut.experiments.commands.squares",
    "gamut.experiments.commands.palace",
    "gamut.experiments.commands.train",
)
