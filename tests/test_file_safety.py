"""Files the toolkit reads: never unpickled, headers inside the digest, damage named with the file."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import numpy as np
import pyspiel
import pytest

from gamut.experiments.cli import main
from gamut.solvers.cfr.checkpoint import CheckpointError, read_checkpoint, save_checkpoint, train
from gamut.solvers.cfr.extract import extract_game
from gamut.solvers.cfr.policy_io import TabularStrategy, load_strategy, save_strategy
from gamut.solvers.cfr.tabular import TabularCFR
from gamut.solvers.poker_squares.training import load_npz

from tests.pickle_payload import PAYLOAD_RUNS, Payload

ROOT = Path(__file__).resolve().parents[1]
LIBRARY_FOLDERS = ("envs", "solvers", "experiments", "benchmarks", "gamut")
UNPICKLERS = {"pickle", "cPickle", "dill", "joblib", "marshal", "shelve", "cloudpickle"}
TAG = "CODE RAN DURING load"


def _library_modules():
    for folder in LIBRARY_FOLDERS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            yield path, ast.parse(path.read_text(), filename=str(path))


@pytest.mark.slow
def test_every_numpy_load_refuses_pickles_and_nothing_imports_an_unpickler():
    loads = 0
    for path, tree in _library_modules():
        for node in ast.walk(tree):
            where = f"{path}:{getattr(node, 'lineno', '?')}"
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [alias.name for alias in node.names]
                names += [node.module] if isinstance(node, ast.ImportFrom) else []
                assert not UNPICKLERS & {str(n).split(".")[0] for n in names}, f"{where} imports an unpickler"
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "load" \
                    and isinstance(node.func.value, ast.Name) and node.func.value.id in ("np", "numpy"):
                loads += 1
                flag = {k.arg: k.value for k in node.keywords}.get("allow_pickle")
                assert isinstance(flag, ast.Constant) and flag.value is False, \
                    f"{where} calls np.load without allow_pickle=False"
    assert loads >= 5  # the audit saw the loaders (checkpoints, strategies, tables)


@pytest.fixture(scope="module")
def kuhn():
    return extract_game("kuhn_poker", report=None)


def _rewrite_header(path: Path, out: Path, key: str, change) -> None:
    with np.load(path, allow_pickle=False) as data:
        contents = {name: data[name] for name in data.files}
    header = json.loads(str(contents[key]))
    change(header)
    contents[key] = np.array(json.dumps(header))
    np.savez(out, **contents)


@pytest.mark.parametrize("field, value", [("iteration", 30_000), ("config", {"alpha": 2.0}), ("game", "leduc_poker()")])
def test_a_changed_checkpoint_header_fails_its_digest(tmp_path, kuhn, field, value):
    path = tmp_path / "ck.npz"
    solver = TabularCFR(kuhn, "cfr+")
    solver.run(7)
    save_checkpoint(path, solver)
    _rewrite_header(path, tmp_path / "edited.npz", "__header__", lambda h: h.__setitem__(field, value))
    with pytest.raises(CheckpointError, match=r"edited\.npz is corrupt: its header .* fails its SHA-256 check"):
        read_checkpoint(tmp_path / "edited.npz")


def test_a_format_1_checkpoint_is_refused_with_the_reason(tmp_path, kuhn):
    path = tmp_path / "ck.npz"
    save_checkpoint(path, TabularCFR(kuhn, "cfr"))
    _rewrite_header(path, tmp_path / "old.npz", "__header__",
                    lambda h: h.__setitem__("format", "gamut-cfr-checkpoint-1"))
    with pytest.raises(CheckpointError, match="old.npz has format 'gamut-cfr-checkpoint-1', whose header"):
        read_checkpoint(tmp_path / "old.npz")


def test_resume_below_the_checkpoints_count_is_refused_naming_both(tmp_path, kuhn, capsys):
    checkpoint = tmp_path / "ck.npz"
    train(TabularCFR(kuhn, "cfr+"), 30, checkpoint=checkpoint)
    before = checkpoint.read_bytes()
    with pytest.raises(ValueError, match=f"iterations 10 .* below the 30 iterations checkpoint {checkpoint}"):
        train(TabularCFR(kuhn, "cfr+"), 10, checkpoint=checkpoint, resume=True)
    status = main(["cfr", "--game", "kuhn_poker", "--algo", "cfr+", "--iterations", "10",
                   "--checkpoint", str(checkpoint), "--resume", "--quiet"])
    err = capsys.readouterr().err
    assert status == 2 and "10" in err and "30" in err and "--iterations" in err and "Traceback" not in err
    assert checkpoint.read_bytes() == before
    # The same total reports the checkpoint as it is, without training.
    assert train(TabularCFR(kuhn, "cfr+"), 30, checkpoint=checkpoint, resume=True)["iterations_run"] == 0


def _damaged_copies(path: Path, folder: Path) -> list[Path]:
    data = path.read_bytes()
    rng = np.random.default_rng(7)
    flipped = bytearray(data)
    flipped[len(data) // 2] ^= 0xFF
    variants = {
        "empty": b"", "random": rng.integers(0, 256, 4096, dtype=np.uint8).tobytes(),
        "truncated": data[: len(data) // 3], "flipped": bytes(flipped), "text": b"not an archive\n",
        "trailing": data + b"garbage",
    }
    out = []
    for name, content in variants.items():
        target = folder / f"{name}.npz"
        target.write_bytes(content)
        out.append(target)
    pickled = folder / "pickled.npz"  # a valid archive whose array is a pickle
    np.savez(pickled, header=np.array([Payload(TAG)], dtype=object), __header__=np.array([Payload(TAG)], dtype=object),
             keys=np.array([Payload(TAG)], dtype=object), values=np.array([Payload(TAG)], dtype=object))
    out.append(pickled)
    npy = folder / "object.npy.npz"  # a bare .npy holding a pickle, named like an archive
    np.save(npy.with_suffix(""), np.array([Payload(TAG)], dtype=object))
    npy.with_suffix("").rename(npy)
    out.append(npy)
    return out


def _strategy(kuhn) -> TabularStrategy:
    solver = TabularCFR(kuhn, "cfr+")
    solver.run(20)
    return TabularStrategy.from_tree(kuhn, solver.average_policy(), {"algorithm": "cfr+"})


def _readers(kuhn, folder: Path) -> dict:
    checkpoint, strategy_file, table = folder / "ck.npz", folder / "strategy.npz", folder / "table.npz"
    save_checkpoint(checkpoint, TabularCFR(kuhn, "cfr"))
    save_strategy(strategy_file, _strategy(kuhn))
    np.savez_compressed(table, version=np.int64(1), points=np.arange(10), values=np.zeros(5))
    # Each reader gives something comparable: what a damaged file must either equal or fail.
    return {"checkpoint": (lambda p: read_checkpoint(p)[0], checkpoint),
            "strategy": (lambda p: (lambda s: (s.keys, s.probs.tolist(), s.metadata))(load_strategy(p)), strategy_file),
            "table": (lambda p: {k: v.tolist() for k, v in load_npz(p, ("points", "values")).items()}, table)}


def test_damaged_files_are_a_value_error_naming_the_file_and_never_unpickled(tmp_path, kuhn):
    PAYLOAD_RUNS.clear()
    for name, (read, good) in _readers(kuhn, tmp_path).items():
        written = read(good)
        folder = tmp_path / name
        folder.mkdir()
        for damaged in _damaged_copies(good, folder) + [folder / "missing.npz", folder]:
            try:
                content = read(damaged)
            except ValueError as err:
                assert str(damaged) in str(err), (name, damaged.name, str(err))
            else:
                # Bytes after the archive's end, or a flip in its padding, can leave
                # every array intact: then what is read is exactly what was written.
                assert content == written, (name, damaged.name)
    assert PAYLOAD_RUNS == []


def test_a_strategy_whose_probabilities_changed_fails_its_digest(tmp_path, kuhn):
    path = tmp_path / "s.npz"
    save_strategy(path, _strategy(kuhn))
    with np.load(path, allow_pickle=False) as data:
        contents = {name: data[name] for name in data.files}
    contents["probs"] = contents["probs"][::-1].copy()
    np.savez(tmp_path / "edited.npz", **contents)
    with pytest.raises(ValueError, match=r"edited\.npz is not a valid strategy file: array 'probs' fails its SHA-256"):
        load_strategy(tmp_path / "edited.npz")


def test_a_format_1_strategy_is_still_checked_for_distributions(tmp_path, kuhn):
    path = tmp_path / "s.npz"
    save_strategy(path, _strategy(kuhn))
    with np.load(path, allow_pickle=False) as data:
        contents = {name: data[name] for name in data.files}
    header = json.loads(str(contents["header"]))
    header["format"] = "gamut-tabular-strategy-1"
    contents["header"] = np.array(json.dumps(header))
    np.savez(tmp_path / "old.npz", **contents)
    assert load_strategy(tmp_path / "old.npz").keys == load_strategy(path).keys
    contents["probs"] = contents["probs"] * 0.5
    np.savez(tmp_path / "halved.npz", **contents)
    with pytest.raises(ValueError, match=r"halved\.npz .* sum to 0\.5, not 1"):
        load_strategy(tmp_path / "halved.npz")


def test_committed_strategy_files_load_and_play():
    files = sorted((ROOT / "results").rglob("*.npz"))
    strategies = [p for p in files if "header" in np.load(p, allow_pickle=False).files]
    assert strategies, "results/ holds the Poke policy files"
    for path in strategies:
        strategy = load_strategy(path)
        pyspiel.load_game(strategy.game_string)


def test_a_damaged_dice_solution_cache_is_named(tmp_path):
    from gamut.envs.poker_dice.scorecard import compile_variant, make_variant
    from gamut.solvers.poker_dice import solution

    variant = make_variant("yacht12")
    path = solution._cache_path(tmp_path, variant, compile_variant(variant))
    path.parent.mkdir(parents=True, exist_ok=True)
    np.save(path.with_suffix(""), np.array([Payload(TAG)], dtype=object))  # np.save appends .npy
    PAYLOAD_RUNS.clear()
    with pytest.raises(ValueError, match=f"the cached solution {path} is unreadable"):
        solution.solve("yacht12", cache_dir=tmp_path)
    assert PAYLOAD_RUNS == []
