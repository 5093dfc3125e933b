"""The table of the Poker Squares agents, registered with the toolkit's agent registry (``gamut.solvers.bots``).

- ``greedy``, ``learned``, ``crossline``, ``expectimax`` (``_deep``,
  ``_cross``) and ``mc`` (``_learned``, ``_cross``): bots valuing the grid by
  its points, its learned line values and search
  (:mod:`gamut.solvers.poker_squares.grid_bots`);
- ``net`` and ``net_search``: bots on the learned afterstate value network
  (:mod:`gamut.solvers.poker_squares.net_bots`), refused in the open variant.
- every search agent (``expectimax*``, ``mc*``, ``net_search``) takes
  ``endgame`` = K: exact play once K cells or fewer are empty
  (:mod:`gamut.solvers.poker_squares.endgame`).
- ``random``: the registry's generic uniformly random agent plays Poker
  Squares as well; its placements are those of ``kernels.rollout_scores``
  without ``greedy``, whose American mean the tests check against the
  published 14.42.

Factories are ``"module:Class"`` references, imported when an agent is first
made: reading the table loads no learned table, network or search.

    >>> import gamut
    >>> bot = gamut.make_bot("poker_squares", "greedy", player=0, seed=1)
"""

from __future__ import annotations

import pyspiel

from gamut.solvers.bots import MAX_ITERATIONS_PER_MOVE, MAX_SECONDS_PER_GAME, Option, register_bot

_GRID_BOTS = "gamut.solvers.poker_squares.grid_bots"
_NET_BOTS = "gamut.solvers.poker_squares.net_bots"

TABLE_OPTION = Option(str, "", "learned table file (default: the game's point system under results/poker_squares/)")
CROSSLINE_WEIGHTS_OPTION = Option(str, "", "cross-line correction file (default: the game's point system under "
                                  "results/poker_squares/)")
NET_WEIGHTS_OPTION = Option(str, "", "value-network file (default: results/poker_squares/net_<scoring>.npz)")
ENDGAME_OPTION = Option(int, 0, "play exactly (solvers.poker_squares.endgame) once this many cells or fewer are empty: "
                        "0 (off) or 1..8; a move takes about 1.6 s at 6, minutes at 8")


def refuse_open(game: pyspiel.Game) -> str | None:
    """Why the value-network agents cannot play ``game``: the open variant, or None."""
    if game.get_parameters().get("variant", "standard") == "open":
        return ("the value network assumes every unseen card may come next; in the open variant the cards "
                "to come are known (use expectimax or mc)")
    return None


def _expectimax_options(depth: int, keep: int, crossline: bool = False) -> dict:
    return {
        "table": TABLE_OPTION,
        "crossline": Option(bool, crossline, "add the cross-line correction to the learned grid values"),
        "weights": CROSSLINE_WEIGHTS_OPTION,
        "depth": Option(int, depth, "plies: 2 (each next card placed at its best cell), 3 or 4 (and the cards "
                        "after it)"),
        "width": Option(int, 3, "with depth 3 or 4: cells tried per later card, those of highest learned gain"),
        "keep": Option(int, keep, "with depth 3 or 4: only the cells two plies rank highest, this many (0: all)"),
        "deepen_at": Option(int, 0, "cards on the grid from which the full depth is searched (one ply less before)"),
        "seconds_per_game": Option(float, 0.0, "time budget per game: sample the next card until each move's "
                                   "share runs out (0: every next card, exact)", maximum=MAX_SECONDS_PER_GAME),
        "endgame": ENDGAME_OPTION,
    }


def _mc_options(seconds: float, policy: str, depth: int, keep: int, blend: float, crossline: bool = False) -> dict:
    return {
        "table": TABLE_OPTION,
        "simulations": Option(int, 100, "rollouts per candidate cell and move (when seconds_per_game is 0)",
                              maximum=MAX_ITERATIONS_PER_MOVE),
        "seconds_per_game": Option(float, seconds, "time budget per game in seconds (0: use simulations)",
                                   maximum=MAX_SECONDS_PER_GAME),
        "policy": Option(str, policy, "rollout policy: 'greedy' (the game's greedy kernel) or 'learned'"),
        "depth": Option(int, depth, "placements per rollout before the learned table values the grid "
                        "(-1: to the end)"),
        "keep": Option(int, keep, "roll out only the cells two-ply expectimax ranks highest, this many (0: all)"),
        "share": Option(str, "even", "time per move: 'even' (equal shares) or 'cells' (in proportion to the "
                        "cells tried)"),
        "blend": Option(float, blend, "weight of three-ply expectimax values averaged with the rollout means "
                        "(0: none)"),
        "crossline": Option(bool, crossline, "add the cross-line correction to the learned values (policy, cut, "
                            "ranking)"),
        "weights": CROSSLINE_WEIGHTS_OPTION,
        "endgame": ENDGAME_OPTION,
    }


register_bot("greedy", "poker_squares", f"{_GRID_BOTS}:GreedyBot",
             "places each card where its row and column gain the most points as they stand (ties at random)")
register_bot("learned", "poker_squares", f"{_GRID_BOTS}:LearnedBot",
             "places each card where the learned value of the grid (sum of learned line values) is highest",
             {"table": TABLE_OPTION})
register_bot("crossline", "poker_squares", f"{_GRID_BOTS}:CrosslineBot",
             "places each card where the learned grid value plus its cross-line correction is highest",
             {"table": TABLE_OPTION, "weights": CROSSLINE_WEIGHTS_OPTION})

register_bot("expectimax", "poker_squares", f"{_GRID_BOTS}:ExpectimaxBot",
             "expectimax over every next card (two plies, or more), leaves valued by the learned line values",
             _expectimax_options(depth=2, keep=0))
register_bot("expectimax_deep", "poker_squares", f"{_GRID_BOTS}:ExpectimaxBot",
             "the strongest setting of expectimax: three plies for the 6 best two-ply cells, 3 cells per next card",
             _expectimax_options(depth=3, keep=6))
register_bot("expectimax_cross", "poker_squares", f"{_GRID_BOTS}:ExpectimaxBot",
             "two-ply expectimax on the learned grid values with their cross-line correction",
             _expectimax_options(depth=2, keep=0, crossline=True))

register_bot("mc", "poker_squares", f"{_GRID_BOTS}:MonteCarloBot",
             "flat Monte Carlo over cells, the same sampled card orders for every cell",
             _mc_options(seconds=0.0, policy="greedy", depth=-1, keep=0, blend=0.0))
register_bot("mc_learned", "poker_squares", f"{_GRID_BOTS}:MonteCarloBot",
             "the strongest setting of mc: the 6 best expectimax cells, learned rollouts cut after 3 placements, "
             "4.5 s per game", _mc_options(seconds=4.5, policy="learned", depth=3, keep=6, blend=0.0))
register_bot("mc_cross", "poker_squares", f"{_GRID_BOTS}:MonteCarloBot",
             "mc_learned on the learned values with their cross-line correction (ranking, rollouts and cut), "
             "4.5 s per game", _mc_options(seconds=4.5, policy="learned", depth=3, keep=6, blend=0.0, crossline=True))

register_bot("net", "poker_squares", f"{_NET_BOTS}:NetBot",
             "places each card where the learned value network rates the grid highest (one ply)",
             {"weights": NET_WEIGHTS_OPTION}, supports=refuse_open)
register_bot("net_search", "poker_squares", f"{_NET_BOTS}:NetSearchBot",
             "two-ply expectimax over every next card (or those a time budget allows) on the value network",
             {"weights": NET_WEIGHTS_OPTION,
              "seconds_per_game": Option(float, 0.0, "time budget per game: sample the next cards until each "
                                         "move's share runs out (0: every next card, exact)",
                                         maximum=MAX_SECONDS_PER_GAME),
              "endgame": ENDGAME_OPTION},
             supports=refuse_open)
