"""Building blocks of the tree searches (:mod:`gamut.solvers.ismcts`).

- ``leaf``: leaf evaluators (play-outs through the pyspiel API or a game's kernel).
- ``ismcts_bot``: the bot of the ``ismcts`` agent.
"""
