"""Refitting the cross-line correction on games that two-ply search plays with it (Numba).

The greedy rounds of ``crossline.fit_rounds`` fit the correction to the
afterstates greedy play chooses, and the correction then serves two-ply
``expectimax_cross``, which plays better than greedy play and so reaches
afterstates greedy play seldom does. The refit is one step of expert
iteration: ``games`` games are played by two-ply expectimax on the greedy
fit (``search.two_ply_cell``, the agent's own choice), their afterstates give
normal equations ``S_xtx``, ``S_xty`` exactly as a greedy round's do, and the
refitted weights are::

    weights = crossline.fit(scale * xtx + S_xtx, scale * xty + S_xty, ridge)

with ``xtx``, ``xty`` the pooled equations of the greedy rounds. ``scale``
sets how much of the greedy rounds' data is kept beside the search games (the
ten default rounds hold two million games, so 0.03 weighs them as 60,000).

The games are played in chunks of ``chunk`` games, chunk ``c`` seeded by
``training.stream_seed(seed, c)``; each chunk's equations are summed alone
and added to the total in chunk order, so any number of worker processes
gives the same bits. The refit lives in the correction's own file beside the
greedy fit, which it keeps (``greedy_weights``, the weights the games are
played with) and checkpoints after every chunk: an interrupted refit resumes
at its last finished chunk. Extra keys: ``search_settings`` int64 (games,
chunk, seed), ``search_scale`` float64, ``search_xtx`` (26, 295, 295),
``search_xty`` (26, 295), ``search_scores`` float64 (games played so far).
"""

from __future__ import annotations

import multiprocessing
import time
from pathlib import Path

import numba
import numpy as np

from gamut.envs.cards import NUM_CARDS
from gamut.envs.rng import rng_state, shuffle
from gamut.envs.poker_squares import kernels as K
from gamut.solvers.poker_squares import crossline as C
from gamut.solvers.poker_squares.learned import card_seen_word
from gamut.solvers.poker_squares.search import two_ply_cell
from gamut.solvers.poker_squares.training import save_npz, stream_seed, table_path


@numba.njit(cache=True)
def _play_chunk(cfg, table, values, weights, num_games, seed, xtx, xty, scores):
    rng = rng_state(seed)
    deck = np.arange(NUM_CARDS)
    state = np.empty(K.STATE_SIZE, np.int64)
    phis = np.zeros((C.NUM_PLACED, C.NUM_FEATURES), np.float64)
    base = np.zeros(C.NUM_PLACED, np.float64)
    for g in range(num_games):
        K.init_state(state)
        shuffle(deck, NUM_CARDS, rng)
        seen = 0
        for step in range(K.NUM_CELLS):
            K.deal_card(state, deck[step])
            K.place_card(state, 0, two_ply_cell(state, 0, cfg, table, values, weights))
            seen += card_seen_word(deck[step])
            C.record_afterstate(state, step + 1, seen, cfg, table, values, phis, base)
        scores[g] = float(K.grid_score(state, 0, cfg, table))
        C.add_game(phis, base, scores[g], xtx, xty)


def play_chunk(cfg, values, weights, num_games: int, seed: int):
    """Play ``num_games`` one-player games by two-ply expectimax on ``weights``; return their equations.

    Returns
    -------
    (xtx, xty, scores) : float64 (NUM_PLACED, NUM_FEATURES, NUM_FEATURES), (NUM_PLACED, NUM_FEATURES), (num_games,)
        The chunk's own sums (``crossline.add_game``) and final scores.
    """
    from gamut.envs.hands import HAND_TABLE

    xtx = np.zeros((C.NUM_PLACED, C.NUM_FEATURES, C.NUM_FEATURES))
    xty = np.zeros((C.NUM_PLACED, C.NUM_FEATURES))
    scores = np.zeros(int(num_games))
    _play_chunk(cfg, HAND_TABLE, values, C.checked_weights(weights), int(num_games), int(seed), xtx, xty, scores)
    return xtx, xty, scores


_WORKER: dict = {}


def _worker_init(cfg, values, weights) -> None:
    _WORKER.update(cfg=cfg, values=values, weights=weights)


def _worker_chunk(job):
    num_games, seed = job
    return play_chunk(_WORKER["cfg"], _WORKER["values"], _WORKER["weights"], num_games, seed)


def refit_on_search(points, games: int = 48_000, chunk: int = 1000, seed: int = 0, scale: float = 0.03,
                    workers: int = 1, path: Path | None = None, table: Path | None = None, progress=None) -> dict:
    """Refit (or resume refitting) the correction of ``points`` on ``games`` games of two-ply search.

    The file at ``path`` (default: the correction's own) must hold a finished
    greedy fit of the current learned table. ``workers`` processes play
    chunks at once; the result does not depend on their number. ``progress``
    is called as ``progress(games_done, games, mean_score, seconds)``.
    """
    from gamut.solvers.poker_squares.training import load_values

    if games < 1 or chunk < 1 or scale < 0 or workers < 1:
        raise ValueError(f"games, chunk and workers must be >= 1 and scale >= 0, got games {games}, chunk {chunk}, "
                         f"workers {workers}, scale {scale}")
    points = tuple(int(p) for p in points)
    path = Path(path) if path else C.weights_path(points)
    table = Path(table) if table else table_path(points)
    saved = dict(C.load_fit(points, path, table))  # a finished greedy fit of this table, or a clear refusal
    greedy = saved.get("greedy_weights", saved["weights"])
    settings = np.array([games, chunk, seed], dtype=np.int64)
    xtx = np.zeros((C.NUM_PLACED, C.NUM_FEATURES, C.NUM_FEATURES))
    xty = np.zeros((C.NUM_PLACED, C.NUM_FEATURES))
    scores = np.zeros(0)
    if "search_settings" in saved:
        if not np.array_equal(saved["search_settings"], settings):
            raise ValueError(f"{path} holds a search refit with other settings (games, chunk, seed): pass the same "
                             "ones to resume (scale may differ: it only refits), or refit the greedy rounds anew")
        xtx, xty, scores = saved["search_xtx"].copy(), saved["search_xty"].copy(), saved["search_scores"].copy()
    values = load_values(points, table)
    cfg = K.make_config(1, False, False, points)
    sizes = [min(chunk, games - start) for start in range(0, games, chunk)]
    done = len(scores) // chunk if len(scores) < games else len(sizes)
    jobs = [(sizes[c], stream_seed(seed, c)) for c in range(done, len(sizes))]
    started = time.perf_counter()

    def absorb(result) -> None:
        nonlocal xtx, xty, scores
        if result is not None:
            xtx, xty, scores = xtx + result[0], xty + result[1], np.concatenate([scores, result[2]])
        weights = C.fit(scale * saved["xtx"] + xtx, scale * saved["xty"] + xty, float(saved["ridge"]))
        save_npz(path, **{**saved, "weights": weights, "greedy_weights": greedy, "search_settings": settings,
                          "search_scale": np.float64(scale), "search_xtx": xtx, "search_xty": xty,
                          "search_scores": scores})
        if progress:
            progress(len(scores), games, float(scores.mean()), time.perf_counter() - started)

    if not jobs:  # every game played: only the scale may have changed
        absorb(None)
    elif workers == 1 or len(jobs) == 1:
        for job in jobs:
            absorb(play_chunk(cfg, values, greedy, *job))
    else:
        context = multiprocessing.get_context("spawn")
        with context.Pool(min(workers, len(jobs)), _worker_init, (cfg, values, greedy)) as pool:
            for result in pool.imap(_worker_chunk, jobs):
                absorb(result)
    return {"path": str(path), "games": len(scores), "mean": float(scores.mean())}
