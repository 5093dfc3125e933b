"""Imports every agent module of the toolkit so that its agents are registered.

The generic agents (CFR policies, ISMCTS, learned networks) are listed here;
each game's own agents are named by its declaration (``GAME.agents`` in its
package, see ``gamut.envs.declaration``), so a new game adds its agents
without editing this module.
"""

import importlib

from gamut.envs.registry import declarations

GENERIC_AGENT_MODULES = (
    "gamut.solvers.cfr.agents",
    "gamut.solvers.search.ismcts_bot",
    "gamut.solvers.rl.agents",
)

for _module in GENERIC_AGENT_MODULES + tuple(m for d in declarations().values() for m in d.agents):
    importlib.import_module(_module)
