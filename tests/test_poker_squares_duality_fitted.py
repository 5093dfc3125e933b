"""The shipped (fitted) duality penalty: its gradient, its zero mean, and the bound against exact endgames."""

from itertools import permutations
import json
from pathlib import Path
import tomllib

import numpy as np
import pytest

import gamut.envs  # noqa: F401
from gamut.envs.hands import HAND_TABLE, best_strength, category_of
from gamut.envs.poker_squares import kernels as K
from gamut.solvers.poker_squares import partition as P
from gamut.solvers.poker_squares.bounds import anneal
from gamut.solvers.poker_squares.duality import duality_bound, line_penalties, played_penalty, positions_grid
from gamut.solvers.poker_squares.endgame import endgame_value
from gamut.solvers.poker_squares.evaluation import deals
from gamut.solvers.poker_squares.penalty_fit import bound_and_gradient, fit_values, key_groups, set_gradient
from gamut.solvers.poker_squares.penalty_fit import main as penalty_fit_main
from gamut.solvers.poker_squares.penalty_table import NUM_KEYS, load_penalty_values
from gamut.solvers.poker_squares.training import file_sha256

POINTS = {"american": (0, 2, 5, 10, 15, 20, 25, 50, 75, 100), "english": (0, 1, 3, 6, 12, 5, 10, 16, 30, 30)}
CONFIG = tomllib.loads((Path(__file__).resolve().parents[1] / "experiments" / "configs"
                        / "poker_squares_bounds.toml").read_text())["params"]


def _cfg(scoring):
    return K.make_config(1, False, False, POINTS[scoring])


def _shipped(scoring):
    """The table and scale the bounds experiment ships for ``scoring``."""
    return load_penalty_values(scoring, CONFIG["penalty"]), CONFIG[f"scale_{scoring}"]


def _score(card_grid, points):
    return sum(points[category_of(best_strength(np.asarray(card_grid)[K.LINES[line]], 5, -1, HAND_TABLE))]
               for line in range(K.NUM_LINES))


def test_set_gradient_is_the_derivative_of_the_line_penalty():
    # The penalty is linear in the table, so the derivative times any change is the change, exactly.
    cfg = _cfg("american")
    values = load_penalty_values("american")
    rng = np.random.default_rng(1)
    shift = rng.normal(size=NUM_KEYS)
    deal = deals(5, 1)[0]
    before, after = line_penalties(deal, cfg, values, 1.5), line_penalties(deal, cfg, values + shift, 1.5)
    for side, j in ((0, 0), (1, 777), (0, 30_000), (1, P.NUM_SETS - 1)):
        assert set_gradient(deal, side, j, 1.5) @ shift == pytest.approx(after[side, j] - before[side, j], abs=1e-9)


def test_key_groups_and_bad_input():
    keys = np.arange(NUM_KEYS)
    line = key_groups("line")
    assert line.max() == 26 * 2 * 5 - 1
    # One group: same cards placed, orientation and line size, which the key's leading digits hold.
    assert np.array_equal(line, ((keys // 240) // 5) * 5 + (keys // 240) % 5)
    assert key_groups("draw").max() == 26 * 2 * 5 * 4 - 1
    assert np.array_equal(key_groups("key"), keys)
    with pytest.raises(ValueError, match="line"):
        key_groups("suit")
    with pytest.raises(ValueError, match="learned"):
        load_penalty_values("american", "guessed")
    with pytest.raises(ValueError, match="epochs"):
        fit_values(deals(1, 1), _cfg("american"), load_penalty_values("american"), 1.5, np.zeros((1, 25)), 0)


def _adaptive_grid(deal, rng):
    """A policy that sees only the cards so far: a suit's row, a rank's column, else a random empty cell."""
    grid = np.full(25, -1)
    for pos, card in enumerate(deal):
        empty = np.flatnonzero(grid < 0)
        scores = []
        for cell in empty:
            row, col = K.LINES[cell // 5], K.LINES[5 + cell % 5]
            same_suit = sum(grid[c] >= 0 and deal[grid[c]] & 3 == card & 3 for c in row)
            same_rank = sum(grid[c] >= 0 and deal[grid[c]] >> 2 == card >> 2 for c in col)
            scores.append(same_suit + 2 * same_rank + rng.random())
        grid[empty[int(np.argmax(scores))]] = pos
    return grid


@pytest.mark.slow
@pytest.mark.parametrize("scoring", ["american", "english"])
def test_shipped_penalty_has_mean_zero_under_policies_that_do_not_look_ahead(scoring):
    values, scale = _shipped(scoring)
    cfg = _cfg(scoring)
    rng = np.random.default_rng(8)
    for policy in ("blind", "adaptive"):
        paid = np.array([played_penalty(d, rng.permutation(25) if policy == "blind" else _adaptive_grid(d, rng),
                                        cfg, values, scale) for d in deals(21, 2000)])
        se = paid.std(ddof=1) / np.sqrt(len(paid))
        low, high = paid.mean() - 1.96 * se, paid.mean() + 1.96 * se
        # The 95% interval should hold 0; 4 standard errors keep a false alarm below 1 in 10,000.
        assert se > 0.01 and abs(paid.mean()) < 4 * se, f"{policy}: mean {paid.mean():.3f} ({low:.3f} .. {high:.3f})"
    # A player who sees every card pays a clearly positive penalty: the test can tell.
    seeing = np.array([played_penalty(d, positions_grid(d, anneal(d, cfg, 3000, 1, 0)[1]), cfg, values, scale)
                       for d in deals(22, 200)])
    assert seeing.mean() > 4 * seeing.std(ddof=1) / np.sqrt(len(seeing))


def _relaxed_endgame_bound(deal, grid_positions, k, cfg, values, scale):
    """Exact mean, over every order of the last k cards, of the best completion's score minus penalty."""
    placed = K.NUM_CELLS - k
    empty = [cell for cell in range(25) if grid_positions[cell] >= placed]
    seen = set(int(c) for c in deal[:placed])
    unseen = [c for c in range(52) if c not in seen]
    points = np.asarray(cfg)[K.C_POINTS:]
    total, count = 0.0, 0
    for future in permutations(unseen, k):
        d = np.concatenate([deal[:placed], future])
        best = -np.inf
        for order in permutations(range(placed, K.NUM_CELLS)):
            g = np.array(grid_positions)
            g[empty] = order
            value = _score(d[g], points) - played_penalty(d, g, cfg, values, scale, first_step=placed - 1)
            best = max(best, value)
        total += best
        count += 1
    return total / count


@pytest.mark.parametrize("scoring", ["american", "english"])
def test_relaxed_bound_is_at_least_the_exact_endgame_value(scoring):
    # A position with two empty cells from an annealed arrangement: the information relaxation with the
    # shipped penalty, averaged exactly over the cards to come, cannot fall below the exact optimum.
    values, scale = _shipped(scoring)
    cfg = _cfg(scoring)
    for seed in (31, 32):
        deal = deals(seed, 1)[0]
        grid = positions_grid(deal, anneal(deal, cfg, 2000, 1, seed)[1])
        card_grid = np.where(grid < 23, deal[grid], -1)
        unseen = np.setdiff1d(np.arange(52), deal[:23])
        exact = endgame_value(card_grid, unseen, cfg)
        bound = _relaxed_endgame_bound(deal, grid, 2, cfg, values, scale)
        assert bound >= exact - 1e-9
        # Without a penalty the relaxation is the clairvoyant mean, a bound as well.
        clairvoyant = _relaxed_endgame_bound(deal, grid, 2, cfg, values, 0.0)
        assert clairvoyant >= exact - 1e-9


@pytest.mark.parametrize("scoring", ["american", "english"])
def test_shipped_duality_bound_is_above_the_relaxed_arrangements_found(scoring):
    values, scale = _shipped(scoring)
    cfg = _cfg(scoring)
    deal = deals(41, 1)[0]
    grid = anneal(deal, cfg, 5000, 1, 0)[1]
    res = duality_bound(deal, cfg, values, scale, grid, time_limit=10.0)
    weights = P.set_points(deal, cfg)[None, :] - line_penalties(deal, cfg, values, scale)
    assert res["upper"] >= res["value"] == pytest.approx(P.arrangement_value(weights, res["grid"]))
    assert res["value"] == pytest.approx(res["score"] - res["penalty"])


@pytest.mark.parametrize("inner", ["lp", "dw"])
def test_a_fit_is_deterministic_and_moves_only_the_groups_it_meets(inner):
    cfg = _cfg("english")
    values = load_penalty_values("english")
    the_deals = deals(51, 2)
    grids = np.array([anneal(d, cfg, 2000, 1, i)[1] for i, d in enumerate(the_deals)])
    groups = key_groups("line")
    runs = [fit_values(the_deals, cfg, values, 1.5, grids, epochs=1, batch=1, lr=0.05, groups=groups, inner=inner)
            for _ in range(2)]
    assert np.array_equal(runs[0][0], runs[1][0]) and runs[0][1] == runs[1][1]
    ratio = np.divide(runs[0][0], values, out=np.ones(NUM_KEYS), where=values != 0)
    moved = np.unique(groups[~np.isclose(ratio, 1.0)])
    assert 0 < len(moved) < groups.max() + 1
    # Within a group every key is scaled by the same multiplier.
    for g in moved[:20]:
        in_group = (groups == g) & (values != 0)
        assert np.allclose(ratio[in_group], ratio[in_group][0])


def test_dw_bound_gradient_is_a_subgradient():
    # The Dantzig-Wolfe bound is convex in the table: f(v') >= f(v) + g . (v' - v) for any other table v'.
    cfg = _cfg("american")
    values = load_penalty_values("american", "fitted")
    deal = deals(52, 1)[0]
    start = positions_grid(deal, anneal(deal, cfg, 2000, 1, 0)[1])
    bound, grad, start = bound_and_gradient(deal, cfg, values, 1.5, start, inner="dw")
    assert np.abs(grad).sum() > 0
    rng = np.random.default_rng(53)
    for _ in range(2):
        other = values * rng.uniform(0.7, 1.3, NUM_KEYS)
        moved, _, _ = bound_and_gradient(deal, cfg, other, 1.5, start, inner="dw")
        assert moved >= bound + grad @ (other - values) - 1e-6
    with pytest.raises(ValueError, match="inner must be"):
        bound_and_gradient(deal, cfg, values, 1.5, start, inner="mip")


def test_fit_command_chains_from_a_start_table_and_records_its_checksum(tmp_path):
    # The shipped table is fitted in two stages; the second must name the first by content, not by path.
    first = tmp_path / "first.npz"
    args = ["--scoring", "english", "--seed", "54", "--deals", "1", "--epochs", "1", "--batch", "1", "--lr", "0.05"]
    penalty_fit_main([*args, "--out", str(first)])
    second = tmp_path / "second.npz"
    penalty_fit_main([*args, "--groups", "draw", "--start", str(first), "--out", str(second)])
    record = json.loads(second.with_suffix(".json").read_text())
    assert record["start_sha256"] == file_sha256(first) and record["args"]["groups"] == "draw"
    assert json.loads(first.with_suffix(".json").read_text())["start_sha256"] is None
    assert len(record["history"]) == 1 and (tmp_path / "second_epoch0.npz").exists()
    with pytest.raises(SystemExit, match="reported deals"):
        penalty_fit_main([*args[:3], "2026", "--out", str(tmp_path / "x.npz")])


@pytest.mark.parametrize("scoring", ["american", "english"])
def test_shipped_table_records_the_three_commands_that_fitted_it_each_from_the_one_before(scoring):
    from gamut.solvers.poker_squares.penalty_table import (
        FITTED_COMMANDS, FITTED_FORMAT, RESULTS_DIR, SHA256_FITTED, SHA256_FITTED_DRAW, SHA256_FITTED_LINE)

    names = (f"penalty_fitted_line_{scoring}", f"penalty_fitted_draw_{scoring}", f"penalty_fitted_{scoring}")
    checksums = (SHA256_FITTED_LINE[scoring], SHA256_FITTED_DRAW[scoring], SHA256_FITTED[scoring])
    start = None
    for command, name, checksum in zip(FITTED_COMMANDS, names, checksums, strict=True):
        assert file_sha256(RESULTS_DIR / f"{name}.npz") == checksum
        record = json.loads((RESULTS_DIR / f"{name}.json").read_text())
        words = command.format(**FITTED_FORMAT[scoring]).split()
        flags = dict(zip(words[3::2], words[4::2]))
        assert {f"--{k}": v for k, v in record["args"].items() if v != "None"} == flags
        assert flags["--out"] == f"results/poker_squares_bounds/{name}.npz"
        assert record.get("start_sha256") == start  # the first stage (fitted before the field existed) has none
        start = checksum
