"""Imports every agent module of the toolkit so that its agents are registered.

Add a module here when it defines agents with :func:`solvers.bots.register_bot`.
"""

import importlib

AGENT_MODULES = (
    "solvers.cfr.agents",
    "solvers.poker_squares.agents",
    "solvers.poker_squares.search_agents",
    "solvers.poker_squares.mcts",
    "solvers.search.ismcts_bot",
    "solvers.poke.agents",
    "solvers.palace_poker.agents",
    "solvers.poker_dice.agents",
)

for _module in AGENT_MODULES:
    importlib.import_module(_module)
