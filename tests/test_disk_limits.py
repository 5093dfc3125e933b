"""Writing on a full disk or a read-only folder: one error line naming the file, no temporary file left.

Each test mounts a small tmpfs of its own (root only; skipped where mounting is
not permitted), so a full disk is a real ``ENOSPC`` from the kernel rather than
a patched function.
"""

from __future__ import annotations

import errno
import re
import subprocess
from pathlib import Path

import numpy as np
import pytest

from gamut.experiments.cli import main
from gamut.solvers.atomic_file import FileWriteError, write_atomically
from gamut.solvers.hashed_npz import write_hashed_npz


def _mounted(where: Path, options: str):
    """Fixture body: a tmpfs mounted at ``where`` with ``options``, unmounted after the test."""
    where.mkdir()
    try:
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(where)],
                              capture_output=True, text=True, timeout=30)
    except OSError as err:
        pytest.skip(f"cannot run mount: {err}")
    if done.returncode != 0:
        pytest.skip(f"mounting a tmpfs is not permitted here: {done.stderr.strip()}")
    yield where
    subprocess.run(["umount", str(where)], check=False, timeout=30)


@pytest.fixture
def small_disk(tmp_path):
    """A 64 KB tmpfs, unmounted after the test."""
    yield from _mounted(tmp_path / "disk", "size=64k")


@pytest.fixture
def read_only_disk(tmp_path):
    """A read-only tmpfs, unmounted after the test."""
    yield from _mounted(tmp_path / "ro", "ro,size=64k")


def _fill(folder: Path) -> None:
    """Take all the free space of ``folder``'s device with one file."""
    with open(folder / "filler", "wb", buffering=0) as handle:
        try:
            while True:
                handle.write(b"\0" * 4096)
        except OSError:
            pass


def test_a_full_disk_keeps_the_previous_file_and_leaves_no_temporary(small_disk, tmp_path):
    path = small_disk / "run.npz"
    write_hashed_npz(path, {"format": "demo-1"}, {"weights": np.zeros(10)})
    before = path.read_bytes()
    _fill(small_disk)
    with pytest.raises(FileWriteError, match=r"run\.npz: no space left") as refused:
        write_hashed_npz(path, {"format": "demo-1"}, {"weights": np.zeros(200)})
    # The size named is the file's, give or take the zip's per-member descriptors.
    size = write_hashed_npz(tmp_path / "run.npz", {"format": "demo-1"}, {"weights": np.zeros(200)}).stat().st_size
    named = float(re.search(r"needs about ([\d.]+) KB", str(refused.value)).group(1)) * 1024
    assert abs(named - size) < 0.05 * size
    assert path.read_bytes() == before
    assert sorted(p.name for p in small_disk.iterdir()) == ["filler", "run.npz"]
    with pytest.raises(FileWriteError, match=r"note\.txt: no space left.*needs about 100\.0 KB"):
        write_atomically(small_disk / "note.txt", b"x" * 102_400)
    assert sorted(p.name for p in small_disk.iterdir()) == ["filler", "run.npz"]


def test_cfr_resume_on_a_full_disk_is_one_error_line_and_the_checkpoint_intact(small_disk, capsys):
    checkpoint = small_disk / "ck.npz"
    assert main(["cfr", "--game", "kuhn_poker", "--iterations", "10", "--checkpoint", str(checkpoint),
                 "--quiet"]) == 0
    before = checkpoint.read_bytes()
    _fill(small_disk)
    capsys.readouterr()
    status = main(["cfr", "--game", "kuhn_poker", "--iterations", "20", "--checkpoint", str(checkpoint),
                   "--resume", "--quiet"])
    err = capsys.readouterr().err
    assert status == 2
    assert err.splitlines() == [err.strip()] and str(checkpoint) in err and "needs about" in err
    assert "Traceback" not in err
    assert checkpoint.read_bytes() == before
    assert sorted(p.name for p in small_disk.iterdir()) == ["ck.npz", "filler"]


def test_train_on_a_full_disk_leaves_no_temporary_checkpoint(small_disk, capsys):
    # The checkpoint of this run is over a megabyte: larger than the whole disk.
    out = small_disk / "run"
    status = main(["train", "--game", "poker_dice(variant=yacht12,players=1)", "--algo", "ppo", "--steps", "1",
                   "--out", str(out), "--set", "num_envs=2", "--set", "rollout=2", "--set", "minibatches=1",
                   "--quiet"])
    err = capsys.readouterr().err
    assert status == 2
    assert f"cannot write {out / 'checkpoint.npz'}: no space left" in err and "Traceback" not in err
    assert [p.name for p in out.iterdir()] == []


@pytest.mark.parametrize("argv, flag", [
    (["cfr", "--game", "kuhn_poker", "--iterations", "1", "--checkpoint", "{ro}/ck.npz"], "--checkpoint"),
    (["cfr", "--game", "kuhn_poker", "--iterations", "1", "--save-policy", "{ro}/sub/p.npz"], "--save-policy"),
    (["squares", "eval", "--agent", "greedy", "--deals", "2", "--save-scores", "{ro}/s.json"], "--save-scores"),
    (["run", "hand_frequencies", "--quick", "--out", "{ro}"], "--out"),
])
def test_a_read_only_folder_is_refused_before_any_work(read_only_disk, argv, flag, capsys):
    status = main([a.format(ro=read_only_disk) for a in argv])
    err = capsys.readouterr().err
    assert status == 2 and flag in err and "not writable" in err and "Traceback" not in err
    assert list(read_only_disk.iterdir()) == []


def test_a_full_disk_under_another_librarys_writer_is_one_error_line(monkeypatch, capsys):
    from gamut.experiments import terminal_play

    def full(self):
        raise OSError(errno.ENOSPC, "No space left on device", "/results/staging/scores.csv")

    monkeypatch.setattr(terminal_play.PlaySession, "run", full)
    assert main(["play", "kuhn_poker"]) == 2
    err = capsys.readouterr().err
    assert err.splitlines() == [err.strip()] and "/results/staging/scores.csv" in err and "no space left" in err

    def broken(self):
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(terminal_play.PlaySession, "run", broken)
    with pytest.raises(OSError, match="Input/output"):
        main(["play", "kuhn_poker"])
