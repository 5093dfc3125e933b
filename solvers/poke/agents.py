"""Registers the Poke agents with the toolkit's agent registry (``solvers.bots``).

- ``heuristic``: draw to the best hand, draw/double by category thresholds,
  simple trick play (``solvers.poke.heuristic``).
"""

from __future__ import annotations

from solvers.bots import Option, register_bot
from solvers.poke.bots import make_heuristic
from solvers.poke.heuristic import DEFAULT_PARAMS, PARAM_NAMES

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
    make_heuristic,
    "draws to the best hand with category thresholds per draw, beats leads as cheaply as it can",
    {name: Option(int, default, _THRESHOLD_HELP[name]) for name, default in zip(PARAM_NAMES, DEFAULT_PARAMS)},
)
