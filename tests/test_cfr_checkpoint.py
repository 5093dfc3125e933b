"""Checkpoints: exact resume, and clear errors that change nothing."""

import json
import zipfile

import numpy as np
import pyspiel
import pytest

from gamut.solvers.cfr.checkpoint import CheckpointError, load_checkpoint, read_checkpoint, save_checkpoint, train
from gamut.solvers.cfr.extract import extract_game
from gamut.solvers.cfr.mccfr import MCCFR
from gamut.solvers.cfr.tabular import TabularCFR


@pytest.fixture(scope="module")
def leduc():
    return extract_game("leduc_poker", report=None)


def _same_state(a, b):
    assert a.iteration == b.iteration
    left, right = a.state_arrays(), b.state_arrays()
    assert left.keys() == right.keys()
    for name in left:
        assert np.array_equal(left[name], right[name]), name


@pytest.mark.parametrize("algorithm", ["cfr", "cfr+", "dcfr", "linear"])
@pytest.mark.slow
def test_resumed_tabular_run_equals_uninterrupted_bit_for_bit(tmp_path, leduc, algorithm):
    path = tmp_path / "run.npz"
    whole = TabularCFR(leduc, algorithm)
    train(whole, 90)
    first = TabularCFR(leduc, algorithm)
    train(first, 37, checkpoint=path, every_iterations=10)
    resumed = TabularCFR(leduc, algorithm)
    summary = train(resumed, 90, checkpoint=path, resume=True)
    assert summary["resumed_from"] == 37 and summary["iterations_run"] == 53
    _same_state(whole, resumed)
    np.testing.assert_array_equal(whole.average_policy(), resumed.average_policy())


@pytest.mark.parametrize("scheme", ["external", "outcome"])
def test_resumed_mccfr_run_equals_uninterrupted(tmp_path, scheme):
    game = pyspiel.load_game("kuhn_poker")
    path = tmp_path / "mccfr.npz"
    whole = MCCFR(game, scheme, seed=9)
    train(whole, 400)
    first = MCCFR(game, scheme, seed=9)
    train(first, 150, checkpoint=path, every_seconds=1e-6)
    resumed = MCCFR(game, scheme, seed=9)
    train(resumed, 400, checkpoint=path, resume=True)
    assert resumed.tables == whole.tables
    assert resumed.rng.bit_generator.state == whole.rng.bit_generator.state


def test_periodic_checkpoints_are_written(tmp_path, leduc):
    path = tmp_path / "periodic.npz"
    seen = []

    class Recording(TabularCFR):
        def run(self, iterations):
            super().run(iterations)
            if path.exists():
                seen.append(read_checkpoint(path)[0]["iteration"])

    train(Recording(leduc, "cfr+"), 35, checkpoint=path, every_iterations=10)
    assert seen[-1] == 30 and {10, 20, 30} <= set(seen)
    header, _ = read_checkpoint(path)
    assert header["iteration"] == 35
    assert header["algorithm"] == "cfr+" and header["game"] == "leduc_poker()"
    assert header["toolkit_version"]


def _snapshot(solver):
    return solver.iteration, {k: np.array(v, copy=True) for k, v in solver.state_arrays().items()}


def _assert_unchanged(solver, snapshot):
    iteration, arrays = snapshot
    assert solver.iteration == iteration
    for name, array in solver.state_arrays().items():
        assert np.array_equal(array, arrays[name])


def test_corrupt_checkpoint_is_a_clear_error_and_changes_nothing(tmp_path, leduc):
    path = tmp_path / "good.npz"
    source = TabularCFR(leduc, "cfr+")
    source.run(5)
    save_checkpoint(path, source)
    target = TabularCFR(leduc, "cfr+")
    target.run(2)
    before = _snapshot(target)

    flipped = bytearray(path.read_bytes())
    flipped[len(flipped) // 2] ^= 0xFF
    (tmp_path / "flipped.npz").write_bytes(bytes(flipped))
    (tmp_path / "truncated.npz").write_bytes(path.read_bytes()[:200])
    (tmp_path / "text.npz").write_text("not a checkpoint")
    for name in ("flipped.npz", "truncated.npz", "text.npz", "missing.npz"):
        with pytest.raises(CheckpointError, match="corrupt|no checkpoint"):
            load_checkpoint(tmp_path / name, target)
        _assert_unchanged(target, before)


def test_tampered_array_fails_its_digest(tmp_path, leduc):
    path = tmp_path / "good.npz"
    solver = TabularCFR(leduc, "cfr")
    solver.run(3)
    save_checkpoint(path, solver)
    with np.load(path) as data:
        contents = {name: data[name] for name in data.files}
    contents["regret"] = contents["regret"] + 1e-9  # a valid archive with a changed array
    np.savez(tmp_path / "tampered.npz", **contents)
    target = TabularCFR(leduc, "cfr")
    before = _snapshot(target)
    with pytest.raises(CheckpointError, match="regret.*SHA-256"):
        load_checkpoint(tmp_path / "tampered.npz", target)
    _assert_unchanged(target, before)


def test_mismatched_checkpoint_is_rejected(tmp_path, leduc):
    path = tmp_path / "dcfr.npz"
    save_checkpoint(path, TabularCFR(leduc, "dcfr"))
    other_algorithm = TabularCFR(leduc, "cfr+")
    with pytest.raises(CheckpointError, match="algorithm is 'dcfr'"):
        load_checkpoint(path, other_algorithm)
    other_parameters = TabularCFR(leduc, "dcfr", alpha=2.0)
    with pytest.raises(CheckpointError, match="config"):
        load_checkpoint(path, other_parameters)
    kuhn = TabularCFR(extract_game("kuhn_poker", report=None), "dcfr")
    with pytest.raises(CheckpointError, match="game"):
        load_checkpoint(path, kuhn)
    seeded = MCCFR(pyspiel.load_game("kuhn_poker"), "external", seed=1)
    save_checkpoint(tmp_path / "seed1.npz", seeded)
    with pytest.raises(CheckpointError, match="config"):
        load_checkpoint(tmp_path / "seed1.npz", MCCFR(pyspiel.load_game("kuhn_poker"), "external", seed=2))


def test_unknown_format_is_rejected(tmp_path, leduc):
    path = tmp_path / "other.npz"
    np.savez(path, __header__=np.array(json.dumps({"format": "something-else"})))
    with pytest.raises(CheckpointError, match="unknown format"):
        load_checkpoint(path, TabularCFR(leduc, "cfr"))
    assert zipfile.is_zipfile(path)


def test_a_fresh_run_never_overwrites_an_existing_checkpoint(tmp_path, leduc):
    path = tmp_path / "kept.npz"
    train(TabularCFR(leduc, "cfr"), 3, checkpoint=path)
    before = path.read_bytes()
    with pytest.raises(ValueError, match="already exists"):
        train(TabularCFR(leduc, "cfr"), 5, checkpoint=path)
    assert path.read_bytes() == before


def test_train_argument_checks(leduc):
    solver = TabularCFR(leduc, "cfr")
    with pytest.raises(ValueError, match="checkpoint"):
        train(solver, 10, resume=True)
    with pytest.raises(ValueError, match="every_iterations"):
        train(solver, 10, every_iterations=0)
    with pytest.raises(ValueError, match="iterations"):
        train(solver, -1)
    assert solver.iteration == 0


def test_progress_bar_goes_to_stderr(capsys, leduc):
    summary = train(TabularCFR(leduc, "cfr"), 20, progress=True)
    assert summary["iterations"] == 20
    captured = capsys.readouterr()
    assert "20/20" in captured.err and captured.out == ""
