"""The table of the Poke agents, registered with the toolkit's agent registry (``gamut.solvers.bots``).

- ``heuristic``: draw to the best hand, draw/double by category thresholds,
  simple trick play (``gamut.solvers.poke.heuristic``);
- ``cfr``: exact CFR+ policy of the small-deck deal (``gamut.solvers.poke.policies``);
- ``mccfr``: abstracted external-sampling MCCFR draw policy for the full deck;
- ``ismcts``: the generic ISMCTS (``gamut.solvers.ismcts``) over the current deal with
  compiled heuristic play-outs (``gamut.solvers.poke.search``); it takes the place of
  the generic ``ismcts`` agent for Poke;
- ``nn_ismcts``: that search with PUCT selection under the priors of a policy
  network trained by ``gamut train`` (``gamut.solvers.poke.nn_search``).

Factories are ``"module:function"`` references, imported when an agent is
first made: reading the table imports neither the search nor the solved
policies. The option defaults here are the agents' defaults
(``tests/test_poke_agents.py`` checks those shared with the modules that play them).
"""

from __future__ import annotations

from gamut.envs.poke.game import SMALL_EXACT_PARAMS
from gamut.solvers.bots import MAX_ITERATIONS_PER_MOVE, Option, prior_options, register_bot, search_options
from gamut.solvers.poke.heuristic import DEFAULT_PARAMS, PARAM_NAMES

DEFAULT_TRICK_VALUE = 34.0  # as gamut.solvers.poke.policies.DEFAULT_TRICK_VALUE
DEFAULT_ITERATIONS = 200
DEFAULT_UCT_C = 0.3  # in units of the observed payoff spread
DEFAULT_ROLLOUTS = 4
# nn_ismcts: chosen in short paired matches against ismcts (results/nn_ismcts/README.md); the
# shipped policy is nearly deterministic, and a larger c_puct made the search follow it and lose.
DEFAULT_C_PUCT = 0.5  # in units of the observed payoff spread
DEFAULT_TEMPERATURE = 10.0
DEFAULT_MIX = 0.25
MAX_BELIEFS = 4096  # a fresh pool of 128 network-judged states takes about 0.165 s a move (results/nn_ismcts/README.md)

_DECK = ("num_ranks", "num_suits", "hand_size")
_FULL_DECK = {"num_ranks": 13, "num_suits": 4, "hand_size": 5}


def _small_deck_only(game) -> str | None:
    wanted = {key: SMALL_EXACT_PARAMS[key] for key in _DECK}
    if {key: game.params[key] for key in _DECK} != wanted or game.params["trick_unit"] != "card":
        return f"its policy is solved for the small deck {wanted} with trick_unit=card"
    return None


def _full_deck_only(game) -> str | None:
    if {key: game.params[key] for key in _DECK} != _FULL_DECK:
        return "its draw policy is trained for the full 52-card deck with hands of 5"
    return None


def _shipped_prior_rules(game) -> str | None:
    """Where the shipped prior of ``nn_ismcts`` applies: its deck and its trick rules (``weights`` lifts this)."""
    tricks = {"trick_unit": "card", "follow": "must_beat"}
    if _full_deck_only(game) is not None or any(game.params[key] != value for key, value in tricks.items()):
        return "its shipped prior network is trained for the full deck with trick_unit=card and follow=must_beat"
    return None


_THRESHOLD_HELP = {
    "double_below": "non-dealer's first draw (doubles) when the hand's category is below this (0 high card .. 9)",
    "redouble_below": "non-dealer's second draw (redoubles) below this category",
    "free_below": "dealer's free draw below this category",
    "dealer_double_below": "dealer's second draw (doubles) below this category",
    "dealer_redouble_below": "dealer's third draw (redoubles) below this category",
}

register_bot(
    "heuristic",
    "poke",
    "gamut.solvers.poke.heuristic:make_heuristic",
    "draws to the best hand with category thresholds per draw, beats leads as cheaply as it can",
    {name: Option(int, default, _THRESHOLD_HELP[name]) for name, default in zip(PARAM_NAMES, DEFAULT_PARAMS)},
)

register_bot(
    "cfr",
    "poke",
    "gamut.solvers.poke.policies:make_cfr_bot",
    "exact CFR+ policy of the small-deck deal (Q, K, A in two suits, hands of two), any mode; solved on first use",
    {"trick_value": Option(float, DEFAULT_TRICK_VALUE, "above-the-line value of a below-the-line point in training")},
    supports=_small_deck_only,
)

register_bot(
    "mccfr",
    "poke",
    "gamut.solvers.poke.policies:make_mccfr_bot",
    "external-sampling MCCFR draw policy over abstract hand buckets (full deck), heuristic trick play",
    {"path": Option(str, "", "policy file from 'gamut poke train --algo mccfr' "
                             "(default: results/poke/mccfr_draw.npz)")},
    supports=_full_deck_only,
)

register_bot(
    "ismcts",
    "poke",
    "gamut.solvers.poke.search:make_ismcts_bot",
    "ISMCTS over the current deal (solvers.ismcts) with compiled heuristic play-outs; deal valued above the "
    "line plus trick_value per point below",
    {
        **search_options(DEFAULT_ITERATIONS, uct_c=DEFAULT_UCT_C),
        "trick_value": Option(float, DEFAULT_TRICK_VALUE, "above-the-line value of a below-the-line point"),
        "playout": Option(str, "heuristic", "play-out policy: heuristic, random"),
        "opponent": Option(str, "heuristic", "opponent inside the search: heuristic (a model) or search "
                                             "(its own nodes)"),
        "rollouts": Option(int, DEFAULT_ROLLOUTS, "compiled play-outs averaged per leaf",
                           maximum=MAX_ITERATIONS_PER_MOVE),
    },
)

register_bot(
    "nn_ismcts",
    "poke",
    "gamut.solvers.poke.nn_search:make_nn_ismcts_bot",
    "the ismcts search with PUCT selection: priors over its candidate actions from a policy network trained by "
    "gamut train (default: the shipped ppo policy of the full-deck deal)",
    {
        **search_options(DEFAULT_ITERATIONS),
        **prior_options(DEFAULT_C_PUCT, DEFAULT_TEMPERATURE, DEFAULT_MIX,
                        "prior network: a gamut train weights file of poke(mode=deal) with this deck "
                        "(default: the shipped ppo weights)"),
        "trick_value": Option(float, DEFAULT_TRICK_VALUE, "above-the-line value of a below-the-line point"),
        "playout": Option(str, "heuristic", "play-out policy: heuristic, random"),
        "rollouts": Option(int, DEFAULT_ROLLOUTS, "compiled play-outs averaged per leaf",
                           maximum=MAX_ITERATIONS_PER_MOVE),
        "value_weight": Option(float, 0.0, "weight in [0, 1] of the network's value (dmc weights) in the leaves' "
                                           "above-the-line part; 0: play-outs only"),
        "beliefs": Option(int, 0, "determinizations kept in a belief pool that explains the opponent's draws "
                                  "(0: uniform determinizations)", maximum=MAX_BELIEFS),
        "belief_model": Option(str, "network", "what explains the opponent's draws: network (the prior "
                                               "network) or heuristic"),
        "belief_keep": Option(bool, False, "carry the belief pool along the moves of a deal instead of drawing "
                                           "it afresh at every move"),
    },
    supports=_shipped_prior_rules,
    lifted_by="weights",
)
