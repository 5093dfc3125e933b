"""The ``cfr-policy`` agent: plays a strategy saved by ``gamut cfr --save-policy``.

Registered in the agent registry (``gamut.solvers.bots``) for every game; the file's
game string must match the game the bot is made for::

    >>> bot = make_bot(pyspiel.load_game("kuhn_poker"), "cfr-policy", player=0, seed=1,
    ...                path="kuhn.npz")   # doctest: +SKIP
"""

from __future__ import annotations

from gamut.solvers.bots import ANY_GAME, Option, register_bot
from gamut.solvers.cfr.policy_io import StrategyBot, load_strategy


def make_strategy_bot(game, player: int, seed: int, path: str) -> StrategyBot:
    """A ``StrategyBot`` for ``game`` from the strategy file at ``path``."""
    strategy = load_strategy(path)
    if strategy.game_string != str(game):
        raise ValueError(f"strategy file {path} is for {strategy.game_string}, not {game}")
    return StrategyBot(strategy, player, seed)


register_bot(
    "cfr-policy",
    ANY_GAME,
    make_strategy_bot,
    "samples from a saved CFR/MCCFR average policy (uniform at unseen information states)",
    {"path": Option(str, "", "strategy file (.npz) from 'gamut cfr --save-policy'", required=True)},
)
