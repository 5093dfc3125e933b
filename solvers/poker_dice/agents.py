"""Registers the poker-dice agents with the toolkit's agent registry (``gamut.solvers.bots``).

- ``optimal``: plays the exact solitaire DP policy of its own scorecard (table lookup);
- ``greedy``: the same tables with every future value zero (best immediate score);
- ``mcts``: OpenSpiel's Python MCTS with random roll-outs.

``optimal`` and ``greedy`` play the scorecard variants, not the ranking game.
"""

from __future__ import annotations

from gamut.solvers.bots import Option, register_bot
from gamut.solvers.poker_dice.bots import make_bot


def _scorecard_only(game) -> str | None:
    return "it plays scorecard variants, not the ranking game" if game.variant is None else None


for _name, _description in (
    ("optimal", "exact optimal solitaire policy of its own scorecard (DP tables, cached on disk)"),
    ("greedy", "best immediate score: the DP tables with every future value zero"),
):
    register_bot(
        _name,
        "poker_dice",
        lambda game, player, seed, _bot=_name: make_bot(_bot, game, player, seed),
        _description,
        supports=_scorecard_only,
    )

register_bot(
    "mcts",
    "poker_dice",
    lambda game, player, seed, simulations: make_bot("mcts", game, player, seed, simulations=simulations),
    "OpenSpiel's Python MCTS (UCT constant 2, one random roll-out per leaf)",
    {"simulations": Option(int, 200, "simulations per move")},
)
