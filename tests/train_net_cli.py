"""Driving ``gamut squares train-net`` through the CLI for the tests of its choice-valued settings."""

from pathlib import Path

from gamut.experiments.cli import main

SMALL_FLAGS = ["--games-per-chunk", "2", "--updates", "1", "--batch", "4", "--buffer", "200", "--quiet"]


def train_then_refuse(tmp_path: Path, flag: str, value: str, bad: str, flags=SMALL_FLAGS) -> tuple[Path, Path]:
    """Train one chunk with ``flag value`` and export it; then ask for ``flag bad``, which must exit 2.

    Returns the checkpoint and the weight file of the first run. The refused
    run's ``--out`` (``tmp_path / "x.npz"``) must not exist: the caller checks
    the message on stderr.
    """
    out, weights = tmp_path / "ck.npz", tmp_path / "w.npz"
    assert main(["squares", "train-net", "--positions", "1", "--out", str(out), flag, value,
                 "--export", str(weights), *flags]) == 0
    assert main(["squares", "train-net", "--positions", "1", "--out", str(tmp_path / "x.npz"), flag, bad,
                 *flags]) == 2
    assert not (tmp_path / "x.npz").exists()
    return out, weights
