"""The gamut command line: help, version, and clear errors for bad flags."""

import json
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

from gamut.experiments.cli import main

GAMUT = str(Path(sys.executable).parent / "gamut")


@pytest.mark.slow
def test_console_script_help_lists_subcommands():
    result = subprocess.run([GAMUT, "--help"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0
    for command in ("run", "reproduce", "list", "bench"):
        assert command in result.stdout


def test_version_flag(capsys):
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"gamut {version('gamut')}"


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--bogus"], "unrecognized arguments: --bogus"),
        ([], "a COMMAND is required"),
        (["frobnicate"], "invalid choice: 'frobnicate'"),
        (["run", "toy", "--workers", "0"], "expected a whole number >= 1"),
        (["run", "toy", "--backend", "spark"], "invalid choice: 'spark'"),
    ],
)
def test_bad_input_exits_2_with_a_message(argv, message, capsys):
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_value_errors_become_exit_2_without_traceback(capsys, tmp_path):
    assert main(["run", "nonesuch", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "unknown experiment 'nonesuch'" in err and "Traceback" not in err


def test_json_flag_prints_one_object_last(capsys, tmp_path):
    config = tmp_path / "toy.toml"
    config.write_text(
        'experiment = "toy_sums"\n[params]\nseed = 1\ntrials = 2\nsamples = 10\nsleep = 0.0\nlog = ""\n'
        'label = ""\n'
    )
    status = main([
        "run", "tests.toy_experiment", "--config", str(config), "--out", str(tmp_path / "r"),
        "--workers", "1", "--no-progress", "--json",
    ])
    assert status == 0
    payload = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert payload["experiment"] == "toy_sums" and payload["trials"] == 2


def test_list_names_every_registered_experiment(capsys, tmp_path):
    from gamut.experiments.experiment import EXPERIMENTS

    assert main(["list", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    for name in EXPERIMENTS:
        assert name in out and "no results yet" in out
