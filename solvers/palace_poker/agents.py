"""The table of the Palace Poker agents, registered with the toolkit's agent registry (``gamut.solvers.bots``).

- ``heuristic``: battle equity from visible cards with thresholds for
  attacking the weakest-looking opponent, calling, raising and buying
  (``gamut.solvers.palace_poker.heuristic``);
- ``ismcts``: the generic ISMCTS with Numba play-outs and Palace defaults
  (``gamut.solvers.palace_poker.search``); it takes the place of the generic
  ``ismcts`` agent for this game;
- ``nn_ismcts``: that search with PUCT selection under the priors of a
  network trained by ``gamut train`` and its determinizations drawn from a
  belief pool a second network judges (``gamut.solvers.palace_poker.nn_search``).

Factories are ``"module:function"`` references, imported when an agent is
first made: reading the table does not import the search. The search's
defaults are repeated here as the agent's option defaults
(``tests/test_palace_agents.py`` checks that they agree).
"""

from __future__ import annotations

from gamut.solvers.bots import MAX_ITERATIONS_PER_MOVE, Option, prior_options, register_bot, search_options
from gamut.solvers.palace_poker.heuristic import DEFAULTS
from gamut.solvers.rl.shipped import shipped_refusal

DEFAULT_ITERATIONS = 300
DEFAULT_UCT_C = 0.5
DEFAULT_C_PUCT = 0.25  # as gamut.solvers.palace_poker.nn_search.DEFAULT_C_PUCT
DEFAULT_TEMPERATURE = 0.2
DEFAULT_MIX = 0.25
DEFAULT_BELIEFS = 128
MAX_BELIEFS = 4096


def _prior_refusal(game) -> str | None:
    # The defaults read two shipped files: the dmc prior and the ppo policy that judges the pool.
    return shipped_refusal("dmc", game) or shipped_refusal("ppo", game)


_HEURISTIC_HELP = {
    "attack": "bet on the weakest-looking opponent when the battle equity against it is at least this",
    "call": "in a battle, call when the equity is at least this (else fold)",
    "raise": "in a battle, raise when the equity is at least this",
    "forced": "with two players left, bet when the equity is at least this (else fold)",
    "buy_below": "buy while the own hand level (16 * category + top rank) is below this",
    "samples": "opponent palaces drawn per equity estimate",
}

register_bot(
    "heuristic",
    "palace_poker",
    "gamut.solvers.palace_poker.heuristic:make_heuristic",
    "battle equity from visible cards; attacks the weakest-looking opponent, calls and raises by "
    "thresholds, buys with weak hands, keeps the soldiers of its best hand",
    {name: Option(int if name in ("buy_below", "samples") else float, value, _HEURISTIC_HELP[name])
     for name, value in DEFAULTS.items()},
)

register_bot(
    "ismcts",
    "palace_poker",
    "gamut.solvers.palace_poker.search:PalaceISMCTSBot",
    "information-set MCTS (solvers.ismcts) with Numba play-outs of the heuristic (or random) at every seat",
    {
        **search_options(DEFAULT_ITERATIONS, uct_c=DEFAULT_UCT_C),
        "rollout": Option(str, "heuristic", "play-out policy of every seat: heuristic or random"),
        "rollouts": Option(int, 1, "play-outs averaged per leaf", maximum=MAX_ITERATIONS_PER_MOVE),
    },
)

register_bot(
    "nn_ismcts",
    "palace_poker",
    "gamut.solvers.palace_poker.nn_search:PalaceNNISMCTSBot",
    "the ismcts search with PUCT selection at its own decisions under a network trained by gamut train "
    "(default: the shipped dmc network) and determinizations from a pool of deals a second network judges "
    "(default: the shipped ppo policy)",
    {
        **search_options(DEFAULT_ITERATIONS),
        **prior_options(DEFAULT_C_PUCT, DEFAULT_TEMPERATURE, DEFAULT_MIX,
                        "prior network: a gamut train weights file of this game (default: the shipped dmc weights)"),
        "rollout": Option(str, "heuristic", "play-out policy of every seat: heuristic or random"),
        "rollouts": Option(int, 1, "play-outs averaged per leaf", maximum=MAX_ITERATIONS_PER_MOVE),
        "value_weight": Option(float, 0.0, "weight in [0, 1] of the network's value (dmc weights) in the "
                                           "searcher's leaf values; 0: play-outs only"),
        "beliefs": Option(int, DEFAULT_BELIEFS, "determinizations dealt once per move into a belief pool that "
                                                "every iteration draws from (0: a fresh deal per iteration)",
                          maximum=MAX_BELIEFS),
        "belief_model": Option(str, "network", "what picks the pool's deals: network (belief_weights judges the "
                                               "other seats' turns, the heuristic the rest) or heuristic"),
        "belief_weights": Option(str, "", "network of belief_model=network: a gamut train weights file of this "
                                          "game (default: the shipped ppo weights)"),
    },
    supports=_prior_refusal,
    lifted_by="weights",
)
