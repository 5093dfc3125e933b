"""Seat advantage in the ranking game of poker dice, 2..8 players.

``exact`` trials solve the game by backward induction
(:func:`gamut.solvers.poker_dice.ranking.solve_ranking`): every seat plays to
maximise its own win share knowing the hands before it, and the solver gives
each seat's exact win share. ``simulate`` trials check those shares by playing
games with the game kernels (:mod:`gamut.envs.poker_dice.kernels`), each seat
following the solved policy (:func:`gamut.solvers.poker_dice.ranking.seat_policy`,
looked up for the seats left, the best hand so far and its number of holders);
each seat's mean win share carries a 95% t interval, which should contain the
exact share.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from gamut.experiments.store import markdown_table
from gamut.solvers.stats import combine_moments, moments_ci

NAME = "dice_ranking"
VERSION = 1
MIN_PLAYERS, MAX_PLAYERS = 2, 8
PARAMS = {"players": list, "games": int, "games_per_trial": int}


def validate(params: dict) -> None:
    bad = [n for n in params["players"] if isinstance(n, bool) or not isinstance(n, int)
           or not MIN_PLAYERS <= n <= MAX_PLAYERS]
    if bad:
        raise ValueError(f"field 'players': {bad[0]!r} is not a player count in {MIN_PLAYERS}..{MAX_PLAYERS}")
    if params["games"] < 0:
        raise ValueError(f"field 'games' must be >= 0 (0: no simulation), got {params['games']}")
    if params["games_per_trial"] < 1:
        raise ValueError(f"field 'games_per_trial' must be >= 1, got {params['games_per_trial']}")


def trial_specs(params: dict) -> list[dict]:
    """One exact solve per player count, then simulation batches of ``games_per_trial`` games."""
    specs = [{"kind": "exact", "players": n} for n in params["players"]]
    for n in params["players"]:
        for batch, start in enumerate(range(0, params["games"], params["games_per_trial"])):
            specs.append({"kind": "simulate", "players": n, "batch": batch,
                          "games": min(params["games_per_trial"], params["games"] - start)})
    return [{"trial": i, **spec} for i, spec in enumerate(specs)]


def simulate_shares(players: int, games: int, seed: int, leader_share: np.ndarray | None = None) -> np.ndarray:
    """Win shares ``(games, players)`` float64 of games where every seat plays its solved policy.

    ``leader_share`` is ``solve_ranking(players)["leader_share"]`` (solved when
    omitted). Same seed, same games.
    """
    from gamut.envs import dice
    from gamut.envs.poker_dice import kernels as K
    from gamut.envs.poker_dice.scorecard import ranking_tables
    from gamut.solvers.poker_dice.ranking import seat_policy, solve_ranking

    if games < 1:
        raise ValueError(f"games must be >= 1, got {games}")
    W = solve_ranking(players)["leader_share"] if leader_share is None else leader_share
    t = ranking_tables()
    p, bx, rd = t.params, t.box_data, t.roll_data
    cfg = K.make_config(players, True, False)
    state = np.zeros(K.STATE_SIZE, dtype=np.int64)
    rng = np.array([np.random.SeedSequence(seed).generate_state(1, dtype=np.uint64)[0] | np.uint64(1)])
    rank = dice.ROLL_RANK
    hand = K.S_PLAYERS + K.F_HAND
    policies: dict[tuple[int, int, int], tuple[np.ndarray, np.ndarray]] = {}
    shares = np.zeros((games, players))
    for g in range(games):
        K.init_state(state, cfg, p)
        seat, key = -1, (0, 0, 0)
        while state[K.S_PHASE] != K.PH_OVER:
            if state[K.S_PHASE] == K.PH_CHANCE:
                K.apply_action(state, cfg, p, bx, rd, K.sample_roll(state[K.S_KEEP], rng))
                continue
            if state[K.S_PLAYER] != seat:
                seat = int(state[K.S_PLAYER])
                hands = state[hand: hand + K.PLAYER_FIELDS * seat: K.PLAYER_FIELDS]
                if seat == 0:
                    key, best = (players, -1, 0), None
                else:
                    best = int(hands[np.argmax(rank[hands])])
                    key = (players - seat, int(rank[best]), int(np.sum(rank[hands] == rank[best])))
                if key not in policies:
                    policies[key] = seat_policy(W, key[0], best, key[2])
            first, second = policies[key]
            roll = state[K.S_ROLL]
            keep = first[roll] if state[K.S_ROLLS] == 1 else second[state[K.S_FROZEN], roll]
            K.apply_action(state, cfg, p, bx, rd, K.STOP if keep < 0 else int(keep))
        K.returns(state, cfg, shares[g])
    return shares


def run_trial(params: dict, spec: dict, seed: int) -> list[dict]:
    from gamut.solvers.compile_clock import CompileClock
    from gamut.solvers.poker_dice.ranking import solve_ranking

    with CompileClock() as compiling:
        solved = solve_ranking(spec["players"])
    if spec["kind"] == "exact":
        # The solve's seconds without the kernels' compilation (a cold Numba cache's, not the solver's).
        return [{"seat": s + 1, "win_share": share, "solve_seconds": solved["seconds"] - compiling.seconds,
                 "compile_seconds": compiling.seconds} for s, share in enumerate(solved["win_share"])]
    shares = simulate_shares(spec["players"], spec["games"], seed, solved["leader_share"])
    means = shares.mean(axis=0)
    m2 = ((shares - means) ** 2).sum(axis=0)
    return [{"seat": s + 1, "n": spec["games"], "mean": float(means[s]), "m2": float(m2[s])}
            for s in range(spec["players"])]


def seat_table(table: pd.DataFrame) -> pd.DataFrame:
    """One row per (players, seat): exact win share, its edge over 1/n, and the simulated check."""
    exact = table[table["kind"] == "exact"]
    sims = table[table["kind"] == "simulate"]
    rows = []
    for (n, seat), part in exact.groupby(["players", "seat"]):
        share = float(part["win_share"].iloc[0])
        row = {"players": int(n), "seat": int(seat), "win_share": share, "fair_share": 1 / n,
               "edge": share - 1 / n, "relative_to_seat1": share / float(
                   exact[(exact["players"] == n) & (exact["seat"] == 1)]["win_share"].iloc[0])}
        sim = sims[(sims["players"] == n) & (sims["seat"] == seat)] if len(sims) else sims
        if len(sim):
            games, mean, m2 = combine_moments(sim["n"].astype(int), sim["mean"], sim["m2"])
            est = moments_ci(games, mean, m2)
            se = np.sqrt(m2 / (games - 1) / games) if games > 1 else np.inf
            row.update({"simulated": est.value, "ci95_low": est.ci95_low, "ci95_high": est.ci95_high,
                        "games": est.n, "exact_in_ci": bool(est.ci95_low <= share <= est.ci95_high),
                        "z": (est.value - share) / se})
        rows.append(row)
    return pd.DataFrame(rows)


def _figure(seats: pd.DataFrame):
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.2))
    for n, part in seats.groupby("players"):
        line, = ax.plot(part["seat"], part["edge"], marker="o", ms=3, label=f"{n} players")
        if "simulated" in part and part["simulated"].notna().all():
            err = np.vstack([part["simulated"] - part["ci95_low"], part["ci95_high"] - part["simulated"]])
            ax.errorbar(part["seat"] + 0.08, part["simulated"] - part["fair_share"], yerr=err, fmt="none",
                        color=line.get_color(), alpha=0.6, capsize=2)
    ax.axhline(0, color="grey", lw=0.8)
    sims = int(seats["games"].max()) if "games" in seats else 0
    ax.set(xlabel="seat (order of play)", ylabel="win share minus 1/n",
           title="Seat advantage in the ranking game, optimal play"
                 + (f"\n(lines exact; bars: simulated 95% CI, n = {sims:,} games each)" if sims else ""))
    ax.legend(fontsize=8, ncol=2)
    fig.tight_layout()
    return fig


def summarize(table: pd.DataFrame, params: dict, writer) -> str:
    seats = seat_table(table)
    writer.table("seat_advantage", seats)
    writer.figure("seat_advantage", _figure(seats))
    wide = seats.pivot(index="players", columns="seat", values="win_share")
    wide.columns = [f"seat {c}" for c in wide.columns]
    wide = wide.reset_index().astype(object).where(wide.reset_index().notna(), "")
    last = seats.loc[seats.groupby("players")["seat"].idxmax()]
    lines = [
        "Exact win share of each seat when every seat plays optimally (backward induction; "
        "a seat sees the hands before it).", "", markdown_table(wide, "{:.4f}"), "",
        "Last seat against first: " + ", ".join(
            f"{int(r.players)} players x{r.relative_to_seat1:.3f}" for r in last.itertuples()) + ".",
    ]
    if "exact_in_ci" in seats:
        covered = int(seats["exact_in_ci"].sum())
        games = int(seats["games"].max())
        lines += ["", f"Simulated check ({games:,} games per player count, seats on the solved "
                  f"policies): the exact share lies inside {covered} of {len(seats)} 95% intervals "
                  f"(largest |z| = {seats['z'].abs().max():.2f})."]
    return "\n".join(lines + ["", "![seat advantage](seat_advantage.png)"])
