"""Imports every agent module of the toolkit so that its agents are registered.

Add a module here when it defines agents with :func:`gamut.solvers.bots.register_bot`.
"""

import importlib

AGENT_MODULES = (
    "gamut.solvers.cfr.agents",
    "gamut.solvers.poker_squares.agents",
    "gamut.solvers.poker_squares.search_agents",
    "gamut.solvers.poker_squares.net_agents",
    "gamut.solvers.search.ismcts_bot",
    "gamut.solvers.poke.agents",
    "gamut.solvers.palace_poker.agents",
    "gamut.solvers.poker_dice.agents",
    "gamut.solvers.rl.agents",
)

for _module in AGENT_MODULES:
    importlib.import_module(_module)
