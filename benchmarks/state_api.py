"""The baseline of the game-speed benchmarks: uniformly random play through the pyspiel State API.

:func:`time_against_state_api` is the harness the per-game playout
benchmarks share: it warms both sides up (compiling or loading the kernels),
then times ``--repeats`` rounds of ours beside the State API loop and reports
the medians; :func:`add_playout_arguments` declares their common flags, and
:func:`target_fields` judges a speed ratio against its target.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

import numpy as np
import pyspiel


def random_games_through_state_api(game: pyspiel.Game, num_games: int, rng: np.random.Generator) -> int:
    """Play ``num_games`` uniformly random games (chance uniform over its outcomes); return the moves made."""
    moves = 0
    for _ in range(num_games):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[int(rng.integers(len(outcomes)))][0])
            else:
                legal = state.legal_actions()
                state.apply_action(legal[int(rng.integers(len(legal)))])
            moves += 1
    return moves


def add_playout_arguments(parser, game: str, ours: tuple[str, int, str], api: tuple[str, int]) -> None:
    """The flags of a playout benchmark: ``--game``, ours' and the API's counts, ``--repeats``, ``--seed``.

    ``ours`` is ``(flag, default, what is counted)`` of the kernel side, e.g.
    ``("--deals", 200_000, "random deals")``; ``api`` is ``(flag, default)``
    of the State API side, counting the same things.
    """
    flag, default, unit = ours
    parser.add_argument("--game", default=game, help="game string (default: %(default)s)")
    parser.add_argument(flag, type=int, default=default, help=f"{unit} per repeat for the kernels (default: %(default)s)")
    parser.add_argument(api[0], type=int, default=api[1],
                        help=f"{unit} per repeat through the pyspiel API (default: %(default)s)")
    parser.add_argument("--repeats", type=int, default=3, help="timed repeats; medians are reported "
                                                                "(default: %(default)s)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default: %(default)s)")


def playout_game(args, short_name: str, counts: dict[str, int]) -> pyspiel.Game:
    """The game of ``--game``, after checking that ``counts`` (flag -> value) and ``--repeats`` are >= 1.

    Raises ValueError naming the flag, or a game string of another game.
    """
    from gamut.experiments.validate import load_game_flag

    if min(*counts.values(), args.repeats) < 1:
        raise ValueError(f"{', '.join(counts)} and --repeats must be >= 1")
    game = load_game_flag(args.game, "--game")
    if game.get_type().short_name != short_name:
        raise ValueError(f"--game must be a {short_name} game string, got {args.game!r}")
    return game


def target_fields(ratio: float, target: float) -> dict:
    """A record's ``ratio`` of our speed to the baseline's, its ``target_ratio`` and whether it ``meets_target``."""
    return {"ratio": ratio, "target_ratio": target, "meets_target": ratio >= target}


def time_against_state_api(game: pyspiel.Game, ours: Callable[[int, int], float], count: int, api_count: int,
                           repeats: int, seed: int) -> dict:
    """Medians of ``repeats`` timed rounds: ``ours(count, seed + repeat)`` beside ``api_count`` State API games.

    ``ours(count, seed)`` plays ``count`` random games through the kernels and
    returns a number it measured (moves made, a mean score), reported from
    the last round. Both sides are warmed up first on a few games.

    Returns ``{"ours_per_s", "api_per_s", "ratio", "ours_last", "api_moves"}``
    (``api_moves``: moves of the last API round).
    """
    rng = np.random.default_rng(seed)
    ours(10, seed)  # warm-up: load or compile the kernels
    random_games_through_state_api(game, 3, rng)
    ours_seconds, api_seconds = [], []
    ours_last = api_moves = 0
    for repeat in range(repeats):
        start = time.perf_counter()
        ours_last = ours(count, seed + repeat)
        ours_seconds.append(time.perf_counter() - start)
        start = time.perf_counter()
        api_moves = random_games_through_state_api(game, api_count, rng)
        api_seconds.append(time.perf_counter() - start)
    ours_rate, api_rate = count / statistics.median(ours_seconds), api_count / statistics.median(api_seconds)
    return {"ours_per_s": ours_rate, "api_per_s": api_rate, "ratio": ours_rate / api_rate, "ours_last": ours_last,
            "api_moves": api_moves}
