"""The table of the agents that play any game: ``random``, ``ismcts``, ``cfr-policy``, ``ppo``, ``nfsp`` and ``dmc``.

Each agent's factory is a ``"module:function"`` reference that
:func:`gamut.solvers.bots.make_bot` imports when the agent is first made, so
reading this table imports no search, network or policy file. Each game's own
agents are in its own table (``gamut.solvers.<game>.agents``, named by
``GAME.agents`` in its declaration), which the registry reads beside this one.
The option defaults here are the agents' defaults (``tests/test_bots.py``
checks them against the constants of the modules that play them).
"""

from __future__ import annotations

from gamut.envs.registry import declarations
from gamut.solvers.bots import ANY_GAME, MAX_ITERATIONS_PER_MOVE, Option, register_bot, search_options
from gamut.solvers.rl.shipped import shipped_refusal

# The networks play through the batched environments: every declared game that has one.
NETWORK_GAMES = tuple(name for name, d in declarations().items() if d.vector)


def _ppo_refusal(game) -> str | None:
    return shipped_refusal("ppo", game)


def _nfsp_refusal(game) -> str | None:
    return shipped_refusal("nfsp", game)


def _dmc_refusal(game) -> str | None:
    return shipped_refusal("dmc", game)


def _network_options(default_greedy: bool) -> dict[str, Option]:
    return {"weights": Option(str, "", "weights file from gamut train (default: the shipped weights)"),
            "greedy": Option(bool, default_greedy, "play the most probable legal action instead of sampling")}


register_bot("random", ANY_GAME, "gamut.solvers.bots:make_random_bot", "uniformly random legal action")

register_bot(
    "ismcts",
    ANY_GAME,
    "gamut.solvers.search.ismcts_bot:make_ismcts_bot",
    "information-set MCTS with random play-outs (the game's kernel when it has one); "
    "needs resample_from_infostate in imperfect-information games",
    {
        **search_options(200, uct_c=1.0),
        "rollout": Option(str, "auto", "leaf play-outs: auto (the game's rollout_returns kernel when its "
                                       "states have one, else api), api (random play through pyspiel), "
                                       "state (require the kernel)"),
        "rollouts": Option(int, 1, "play-outs averaged per leaf", maximum=MAX_ITERATIONS_PER_MOVE),
    },
)

register_bot(
    "cfr-policy",
    ANY_GAME,
    "gamut.solvers.cfr.policy_io:make_strategy_bot",
    "samples from a saved CFR/MCCFR average policy (uniform at unseen information states)",
    {"path": Option(str, "", "strategy file (.npz) from 'gamut cfr --save-policy'", required=True)},
)

register_bot("ppo", NETWORK_GAMES, "gamut.solvers.rl.neural_bot:make_ppo_bot",
             "policy network trained by PPO with action masking (self-play in multi-player games); NumPy forward "
             "pass", _network_options(True), supports=_ppo_refusal, lifted_by="weights")
register_bot("nfsp", NETWORK_GAMES, "gamut.solvers.rl.neural_bot:make_nfsp_bot",
             "average policy of neural fictitious self-play; NumPy forward pass",
             _network_options(False), supports=_nfsp_refusal, lifted_by="weights")
register_bot("dmc", NETWORK_GAMES, "gamut.solvers.rl.neural_bot:make_dmc_bot",
             "greedy action of a Deep Monte-Carlo Q-network over action features; NumPy forward pass",
             {"weights": Option(str, "", "weights file from gamut train --algo dmc")},
             supports=_dmc_refusal, lifted_by="weights")
