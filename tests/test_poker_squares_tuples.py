"""Poker Squares n-tuple residual: entries against their definition, the incremental best placement, training and
its files, and the study that plays the search on it."""

import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from gamut.envs.hands import HAND_TABLE
from gamut.envs.poker_squares import kernels as K
from gamut.experiments.studies import poker_squares_tuples as study
from gamut.solvers.poker_squares import learned as L
from gamut.solvers.poker_squares import tuples as T
from gamut.solvers.poker_squares.crossline import load_weights
from gamut.solvers.poker_squares.training import NAMED_SYSTEMS, load_values
from tests.squares_states import reference_lines
from tests.test_runner_reliability import descendants, killed_on_exit, outlived

REPO = Path(__file__).resolve().parent.parent
AMERICAN = NAMED_SYSTEMS["american"]
CFG = K.make_config(1, False, False, AMERICAN)


def reference_entries(grid, seen, placed):
    """The active entries of ``tuples``, counted plainly from the module docstring: a sorted list."""
    seen_ranks = [sum(1 for c in seen if c >> 2 == r) for r in range(13)]
    seen_suits = [sum(1 for c in seen if c & 3 == s) for s in range(4)]
    facts = reference_lines(grid, seen)
    desc = []
    for f in facts:
        refine = 0
        if f["cls"] in (5, 6, 7, 11):
            spare = 13 - seen_suits[f["suit"]] - f["empty"]
            refine = 0 if spare <= 1 else 1 if spare <= 4 else 2
        elif f["cls"] >= 12:
            outs = sum(4 - seen_ranks[r] for r in f["held"])
            refine = 0 if outs == 0 else 1 if outs <= 2 else 2
        elif f["cls"] >= 8:
            refine = min(f["windows"], 3) - 1
        desc.append(51 if f["cls"] < 0 else 3 * f["cls"] + refine)
    entries = []
    for cell in range(25):
        if grid[cell] < 0:
            row, col = cell // 5, 5 + cell % 5
            same = int(facts[row]["suit"] >= 0 and facts[row]["suit"] == facts[col]["suit"])
            entries.append(((placed * 52 + desc[row]) * 52 + desc[col]) * 2 + same)
    for s in range(4):
        rows = sum(1 for i in range(5) if facts[i]["suit"] == s)
        cols = sum(1 for i in range(5, 10) if facts[i]["suit"] == s)
        need = sum(f["empty"] for f in facts if f["suit"] == s)
        entries.append(140_608 + (((placed * 6 + min(rows, 5)) * 6 + min(cols, 5)) * 16 + min(need, 15)) * 14
                       + 13 - seen_suits[s])
    for r in range(13):
        paired = sum(1 for f in facts if f["cls"] >= 12 and r in f["held"])
        single = sum(1 for f in facts if 1 <= f["cls"] < 12 and r in f["ranks"])
        entries.append(350_272 + ((placed * 6 + min(paired, 5)) * 6 + min(single, 5)) * 5 + 4 - seen_ranks[r])
    return sorted(entries)


def _entries(st, placed, seen):
    idx = np.empty(T.MAX_ACTIVE, np.int64)
    _, n = T.tuple_terms(st, placed, seen, T.NO_TUPLES, idx)
    return sorted(int(i) for i in idx[:n])


def _random_grid(rng, pools, trial):
    st = np.full(K.STATE_SIZE, -1, dtype=np.int64)
    k = int(rng.integers(1, 25))
    cards = rng.permutation(pools[trial % len(pools)])[:k]
    st[rng.choice(25, size=k, replace=False)] = cards
    st[K.S_NUM_PLACED] = k
    return st, k, [int(c) for c in cards]


def test_entries_match_their_definition_on_random_grids():
    rng = np.random.default_rng(1)
    # All cards, two suits only (flush draws, competing suits), seven ranks only (pairs, trips, dead windows).
    pools = [np.arange(52), np.array([c for c in range(52) if c & 3 < 2]), np.arange(28)]
    for trial in range(400):
        st, k, cards = _random_grid(rng, pools, trial)
        assert _entries(st, k, L.seen_word(st, 0)) == reference_entries(st[:25], cards, k), trial


def test_the_worked_example_of_the_module_docstring():
    st = np.full(K.STATE_SIZE, -1, dtype=np.int64)
    st[0], st[1] = 4 * 12 + 2, 4 * 11 + 2  # Ah, Kh in row 0
    entries = _entries(st, 2, L.seen_word(st, 0))
    assert {14_456, 10_822, 158_133, 350_645} <= set(entries)
    assert len(entries) == 23 + 4 + 13 and T.NUM_TUPLES == 354_952


@pytest.fixture(scope="module")
def committed():
    return load_values(AMERICAN), load_weights(AMERICAN)


def test_the_best_placement_is_the_best_of_the_values_of_every_cell(committed):
    values, weights = committed
    rng = np.random.default_rng(2)
    tuples = rng.normal(size=T.NUM_TUPLES)
    idx, best_idx = np.empty(T.MAX_ACTIVE, np.int64), np.empty(T.MAX_ACTIVE, np.int64)
    for trial in range(60):
        deck = rng.permutation(52)
        st = np.empty(K.STATE_SIZE, np.int64)
        K.init_state(st)
        for step in range(int(rng.integers(0, 25))):
            K.deal_card(st, deck[step])
            K.place_card(st, 0, int(rng.choice(np.flatnonzero(st[K.S_GRID:K.S_GRID + 25] < 0))))
        card = int(deck[st[K.S_NUM_PLACED]])
        K.deal_card(st, card)
        before = st.copy()
        best, cell, n = T.best_placement(st, card, CFG, HAND_TABLE, values, weights, tuples, idx, best_idx)
        np.testing.assert_array_equal(st, before)
        each = {}
        for c in np.flatnonzero(st[K.S_GRID:K.S_GRID + 25] < 0):
            after = st.copy()
            K.place_card(after, 0, int(c))
            each[int(c)] = T.grid_value(after, CFG, HAND_TABLE, values, weights, tuples)
        assert best == pytest.approx(max(each.values()), abs=1e-9)
        assert each[cell] == pytest.approx(best, abs=1e-9)
        after = st.copy()
        K.place_card(after, 0, cell)
        placed = int(after[K.S_NUM_PLACED])
        if placed < 25:
            assert sorted(best_idx[:n]) == _entries(after, placed, L.seen_word(after, 0))


def test_without_tuples_the_best_placement_is_the_corrected_one(committed):
    from gamut.solvers.poker_squares.crossline import corrected_cell

    values, weights = committed
    rng = np.random.default_rng(3)
    idx = np.empty(T.MAX_ACTIVE, np.int64)
    for _ in range(10):
        deck = rng.permutation(52)
        st = np.empty(K.STATE_SIZE, np.int64)
        K.init_state(st)
        for step in range(25):
            K.deal_card(st, deck[step])
            cell = T.best_placement(st, int(deck[step]), CFG, HAND_TABLE, values, weights, T.NO_TUPLES, idx, idx)[1]
            assert cell == corrected_cell(st, 0, CFG, HAND_TABLE, values, weights)
            K.place_card(st, 0, cell)


def test_schedules_are_checked():
    assert T.parse_schedule("0.01:1300000,0.002:500000") == [(0.01, 1_300_000), (0.002, 500_000)]
    for bad in ("0.01", "0:100000", "0.01:150000", "x:100000", "0.01:100000,"):
        with pytest.raises(ValueError, match="schedule|stage"):
            T.parse_schedule(bad)


@pytest.mark.slow
def test_training_resumes_to_the_same_tuples_and_files_are_checked(tmp_path):
    schedule = [(0.05, 400), (0.01, 200)]
    whole = T.train(AMERICAN, schedule, seed=3, path=tmp_path / "whole.npz", chunk=200)
    assert whole["games"] == 600 and len(whole["chunk_means"]) == 3

    class Stop(Exception):
        pass

    def stop_after_one(done, *_):
        if done == 200:
            raise Stop

    with pytest.raises(Stop):
        T.train(AMERICAN, schedule, seed=3, path=tmp_path / "cut.npz", chunk=200, progress=stop_after_one)
    with pytest.raises(ValueError, match="unfinished run"):
        T.load_tuples(AMERICAN, tmp_path / "cut.npz")
    with pytest.raises(ValueError, match="other settings"):
        T.train(AMERICAN, schedule, seed=4, path=tmp_path / "cut.npz", chunk=200)
    resumed = T.train(AMERICAN, schedule, seed=3, path=tmp_path / "cut.npz", chunk=200)
    assert resumed["chunk_means"] == whole["chunk_means"]
    tuples = T.load_tuples(AMERICAN, tmp_path / "cut.npz")
    np.testing.assert_array_equal(tuples, T.load_tuples(AMERICAN, tmp_path / "whole.npz"))
    assert np.count_nonzero(tuples) > 0
    with pytest.raises(ValueError, match="trained for points"):
        T.load_tuples(NAMED_SYSTEMS["english"], tmp_path / "whole.npz")
    with pytest.raises(ValueError, match="no n-tuple residual"):
        T.load_tuples(AMERICAN, tmp_path / "absent.npz")
    (tmp_path / "bad.npz").write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="not a readable n-tuple file"):
        T.load_tuples(AMERICAN, tmp_path / "bad.npz")


def _play(tmp_path, name, *extra):
    out = tmp_path / f"{name}.jsonl"
    code = study.main(["play", "--scoring", "american", "--tuples", "none", "--deals", "3", "--simulations", "2",
                       "--out", str(out), *extra])
    return code, out


def _lines(path):
    return sorted((json.loads(line)["deal"], json.loads(line)["score"]) for line in path.read_text().splitlines())


@pytest.mark.slow
def test_the_study_plays_resumes_and_summarises(tmp_path, capsys):
    code, whole = _play(tmp_path, "whole")
    assert code == 0 and len(_lines(whole)) == 3
    # An interrupted run: one finished deal and a cut-off line; resuming plays the other two only.
    cut = tmp_path / "cut.jsonl"
    first = whole.read_text().splitlines()[0]
    cut.write_text(first + "\n" + '{"deal": 1, "sco')
    (tmp_path / "cut.meta.json").write_text((tmp_path / "whole.meta.json").read_text())
    assert _play(tmp_path, "cut")[0] == 0
    assert _lines(cut) == _lines(whole)
    assert _play(tmp_path, "cut", "--simulations", "3")[0] == 2
    assert "other settings" in capsys.readouterr().err
    reference = tmp_path / "reference.json"
    reference.write_text(json.dumps({"scores": [s + 1 for _, s in _lines(whole)]}))
    out = tmp_path / "summary.jsonl"
    assert study.main(["summary", "--pair", str(whole), str(reference), "--pair", str(cut), str(whole),
                       "--out", str(out)]) == 0
    row, same = map(json.loads, out.read_text().splitlines())
    assert row["n"] == 3 and row["minus_reference"] == pytest.approx(-1.0)
    assert row["reference_mean"] == pytest.approx(row["mean"] + 1) and same["minus_reference"] == 0
    assert row["settings"]["simulations"] == 2 and "git_commit" in row["provenance"]


def test_bad_flags_are_refused_before_anything_is_written(tmp_path, capsys):
    code, out = _play(tmp_path, "bad", "--endgame", "9")
    assert code == 2 and not out.exists() and "--endgame" in capsys.readouterr().err
    code, out = _play(tmp_path, "bad", "--scoring", "dutch")
    assert code == 2 and not out.exists() and "--scoring" in capsys.readouterr().err
    code, out = _play(tmp_path / "new", "bad", "--tuples", str(tmp_path / "absent.npz"))
    assert code == 2 and not (tmp_path / "new").exists() and "no n-tuple residual" in capsys.readouterr().err


def test_the_committed_residuals_load_over_the_committed_table_and_correction():
    for scoring in ("american", "english"):
        tuples = T.load_tuples(NAMED_SYSTEMS[scoring])
        assert tuples.shape == (T.NUM_TUPLES,) and np.isfinite(tuples).all() and np.count_nonzero(tuples) > 1000


def test_the_summary_pairs_a_run_with_one_budget_of_the_lower_bound_trials(tmp_path, capsys):
    run = tmp_path / "run.jsonl"
    run.write_text("".join(json.dumps({"deal": d, "score": 100 + d}) + "\n" for d in range(3)))
    trials = tmp_path / "trials.csv"
    trials.write_text("scoring,seconds,deal,score\n" + "".join(
        f"{scoring},{seconds},{d},{90 + d + (seconds == 30)}\n"
        for scoring in ("american", "english") for seconds in (1.0, 30.0) for d in range(4)))
    out = tmp_path / "summary.jsonl"
    assert study.main(["summary", "--pair", str(run), f"{trials}:american:30", "--out", str(out)]) == 0
    row = json.loads(out.read_text())
    assert row["paired_n"] == 3 and row["minus_reference"] == pytest.approx(9.0)
    assert study.main(["summary", "--pair", str(run), f"{trials}:american:5", "--out", str(out)]) == 2
    assert "no american trials at 5 s" in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the process table from /proc")
def test_a_killed_run_leaves_no_worker_playing_on(tmp_path):
    # Deals of full rollouts take a minute each: a worker that outlived the run would still be in one.
    command = [sys.executable, "-m", "gamut.experiments.studies.poker_squares_tuples", "play", "--scoring",
               "american", "--tuples", "none", "--deals", "2", "--depth", "25", "--simulations", "3000",
               "--workers", "2", "--out", str(tmp_path / "killed.jsonl")]
    process = subprocess.Popen(command, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with killed_on_exit(process):
        deadline = time.time() + 120
        while time.time() < deadline and process.poll() is None and len(descendants(process.pid)) < 2:
            time.sleep(0.05)
        time.sleep(5)  # the workers load the search and start their deals
        workers = descendants(process.pid)
        assert process.poll() is None and len(workers) >= 2, "the run must be killed while its workers play"
    assert not outlived(workers, 5), "pool workers outlived the killed run"
    assert not (tmp_path / "killed.jsonl").read_text()
