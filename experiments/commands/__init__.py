"""Subcommands of the ``gamut`` CLI, one module each.

Each module defines ``register(subparsers)``, which adds its parser and sets
``handler`` (a function of the parsed arguments returning an exit code) as a
default. Modules import heavy dependencies (Numba kernels, pyspiel, Ray) inside
their handlers so that ``gamut --help`` stays instant.
"""

COMMAND_MODULES = (
    "experiments.commands.run",
    "experiments.commands.bench",
    "experiments.commands.play",
    "experiments.commands.cfr",
    "experiments.commands.dice",
    "experiments.commands.poke",
    "experiments.commands.squares",
    "experiments.commands.palace",
)
