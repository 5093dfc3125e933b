"""The experiment runner: backends agree, interrupted runs resume, bad configs fail early."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from gamut.experiments.config import ConfigError
from gamut.experiments.runner import run_experiment
from gamut.experiments.store import results_dir

REPO = Path(__file__).resolve().parent.parent
TOY = "tests.toy_experiment"


def write_config(folder: Path, trials=6, samples=1000, sleep=0.0, log="", extra="", seed=11, label="") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "toy.toml"
    path.write_text(
        f'experiment = "toy_sums"\ndescription = "toy"\n\n[params]\nseed = {seed}\ntrials = {trials}\n'
        f'samples = {samples}\nsleep = {sleep}\nlog = "{log}"\nlabel = "{label}"\n{extra}\n'
        f'[quick]\ntrials = 3\n'
    )
    return path


def run_toy(tmp_path, config, **kwargs):
    return run_experiment(TOY, config_path=config, results_root=tmp_path / "results", progress=False, **kwargs)


def trials_of(summary) -> pd.DataFrame:
    return pd.read_parquet(summary.folder / "trials.parquet")


def test_local_run_writes_tables_metadata_and_report(tmp_path):
    summary = run_toy(tmp_path, write_config(tmp_path), workers=1)
    assert summary.trials == summary.trials_run == 6
    table = trials_of(summary)
    assert list(table["trial"]) == list(range(6)) and table["seed"].nunique() == 6
    meta = json.loads((summary.folder / "metadata.json").read_text())
    for key in ("toolkit_version", "game_versions", "git_commit", "config", "seeds", "backend", "wall_seconds", "machine"):
        assert key in meta
    assert meta["config"]["params"]["trials"] == 6
    assert meta["seeds"]["base_seed"] == 11 and len(meta["seeds"]["trial_seeds"]) == 6
    assert (summary.folder / "summary.csv").exists()
    assert "Mean of trial means" in (summary.folder / "report.md").read_text()


def test_metadata_records_the_commit_as_it_was_before_the_run_wrote_its_results(tmp_path, monkeypatch):
    from gamut.experiments import provenance

    states = iter(["abc123", "abc123-dirty"])  # the results the run writes would make the checkout dirty
    monkeypatch.setattr(provenance, "git_commit", lambda: next(states))
    summary = run_toy(tmp_path, write_config(tmp_path), workers=1)
    assert json.loads((summary.folder / "metadata.json").read_text())["git_commit"] == "abc123"


def test_quick_profile_is_kept_apart_and_smaller(tmp_path):
    summary = run_toy(tmp_path, write_config(tmp_path), profile="quick", workers=1)
    assert summary.trials == 3
    assert summary.folder == results_dir(tmp_path / "results", "toy_sums", "quick")


@pytest.mark.slow
def test_same_seed_same_table_across_worker_counts(tmp_path):
    config = write_config(tmp_path)
    one = trials_of(run_toy(tmp_path / "a", config, workers=1))
    two = trials_of(run_toy(tmp_path / "b", config, workers=2))
    pd.testing.assert_frame_equal(one, two)
    other_seed = trials_of(run_toy(tmp_path / "c", write_config(tmp_path / "c", seed=12), workers=1))
    assert not one["mean"].equals(other_seed["mean"])


@pytest.mark.slow
@pytest.mark.usefixtures("ray_instance_lock")
def test_ray_backend_matches_local_on_a_real_ray_instance(tmp_path):
    ray = pytest.importorskip("ray")
    config = write_config(tmp_path)
    local = trials_of(run_toy(tmp_path / "local", config, workers=1))
    port = 26379 + os.getpid() % 1000
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0"}
    ray_bin = str(Path(sys.executable).parent / "ray")
    subprocess.run(
        # On loopback: the test's instance is reached at 127.0.0.1, never at the machine's other addresses.
        [ray_bin, "start", "--head", f"--port={port}", "--node-ip-address=127.0.0.1", "--num-cpus=2",
         "--include-dashboard=false", "--disable-usage-stats"],
        check=True, capture_output=True, env=env, timeout=180,
    )
    try:
        remote = trials_of(run_toy(tmp_path / "ray", config, backend="ray", address=f"127.0.0.1:{port}"))
    finally:
        if ray.is_initialized():
            ray.shutdown()
        subprocess.run([ray_bin, "stop", "--force"], capture_output=True, env=env, timeout=180)
    pd.testing.assert_frame_equal(local, remote)


@pytest.mark.slow
def test_killed_run_resumes_without_losing_or_repeating_trials(tmp_path):
    log = tmp_path / "starts.log"
    config = write_config(tmp_path, trials=12, sleep=0.25, log=str(log))
    out = tmp_path / "results"
    command = [
        sys.executable, "-m", "gamut.experiments.cli", "run", TOY, "--config", str(config),
        "--workers", "1", "--out", str(out), "--no-progress",
    ]
    process = subprocess.Popen(command, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    journal = out / ".toy_sums.partial" / "trials.jsonl"  # a run writes into its staging folder
    deadline = time.time() + 120
    while time.time() < deadline:
        if journal.exists() and len(journal.read_text().splitlines()) >= 4:
            break
        time.sleep(0.05)
    process.send_signal(signal.SIGKILL)
    process.wait()
    finished_before = {json.loads(line)["trial"] for line in journal.read_text().splitlines() if line.endswith("}")}
    assert 4 <= len(finished_before) < 12, "the run must be killed midway"
    starts_before = len(log.read_text().splitlines())

    resumed = subprocess.run(command + ["--resume"], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    started_after = [int(x) for x in log.read_text().splitlines()[starts_before:]]
    assert not finished_before & set(started_after), "a finished trial ran again"
    assert finished_before | set(started_after) == set(range(12))
    metadata = json.loads((out / "toy_sums" / "metadata.json").read_text())
    assert metadata["trials_resumed"] == len(finished_before)

    fresh = run_toy(tmp_path / "fresh", write_config(tmp_path / "fresh", trials=12, sleep=0.0, log=str(log)), workers=1)
    resumed_table = pd.read_parquet(out / "toy_sums" / "trials.parquet")
    pd.testing.assert_frame_equal(resumed_table, trials_of(fresh))


def test_resume_refuses_a_changed_config_and_names_the_field(tmp_path):
    run_toy(tmp_path, write_config(tmp_path, samples=1000), workers=1)
    with pytest.raises(ValueError, match="samples: 1000 -> 2000"):
        run_toy(tmp_path, write_config(tmp_path, samples=2000), workers=1, resume=True)


def test_resume_after_a_summary_only_change_keeps_the_trials_and_redoes_the_summary(tmp_path):
    log = tmp_path / "starts.log"
    first = run_toy(tmp_path, write_config(tmp_path, log=str(log), label="first. "), workers=1)
    again = run_toy(tmp_path, write_config(tmp_path, log=str(log), label="second. "), workers=1, resume=True)
    assert again.trials_resumed == 6 and again.trials_run == 0
    assert len(log.read_text().split()) == 6  # no trial ran twice
    pd.testing.assert_frame_equal(trials_of(again), trials_of(first))
    assert "second. Mean of trial means" in (again.folder / "report.md").read_text()
    manifest = json.loads((again.folder / "run.json").read_text())
    assert manifest["params"]["label"] == "second. "
    # A field that decides the trials still refuses, and names only that field.
    with pytest.raises(ValueError, match=r"run\.json\):\n  samples: 1000 -> 2000\nrun without"):
        run_toy(tmp_path, write_config(tmp_path, log=str(log), samples=2000, label="third. "), workers=1, resume=True)


def test_resume_of_a_finished_run_recomputes_nothing(tmp_path):
    config = write_config(tmp_path)
    first = run_toy(tmp_path, config, workers=1)
    assert json.loads((first.folder / "metadata.json").read_text())["trials_resumed"] == 0
    again = run_toy(tmp_path, config, workers=1, resume=True)
    assert again.trials_resumed == 6 and again.trials_run == 0
    # The metadata says the trials were resumed, so a report does not pass the last wall time off as the run's.
    assert json.loads((again.folder / "metadata.json").read_text())["trials_resumed"] == 6


def test_the_report_line_of_a_resumed_run_says_so():
    import doctest

    from gamut.experiments import report

    result = doctest.testmod(report)
    assert result.attempted == 3 and result.failed == 0


@pytest.mark.parametrize(
    "extra, message",
    [
        ("colour = 3", "unknown field 'colour'"),
        ("game = 3", "unknown field 'game'"),
    ],
)
def test_unknown_fields_fail_before_any_work(tmp_path, extra, message):
    with pytest.raises(ConfigError, match=message):
        run_toy(tmp_path, write_config(tmp_path, extra=extra))
    assert not (tmp_path / "results").exists()


def test_missing_and_mistyped_fields_are_named(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text('experiment = "toy_sums"\n[params]\nseed = 1\ntrials = 2\nsamples = 10\nsleep = 0.0\n')
    with pytest.raises(ConfigError, match="missing field 'log'"):
        run_toy(tmp_path, path)
    path.write_text('experiment = "toy_sums"\n[params]\nseed = 1\ntrials = "two"\nsamples = 10\nsleep = 0.0\nlog = ""\n'
                    'label = ""\n')
    with pytest.raises(ConfigError, match="field 'trials'"):
        run_toy(tmp_path, path)
    path.write_text('experiment = "toy_sums"\n[params]\nseed = 1\ntrials = 2\nsamples = 10\nsleep = 0.0\nlog = ""\n'
                    'label = ""\n[quick]\nagents = 1\n')
    with pytest.raises(ConfigError, match=r"\[quick\] overrides 'agents'"):
        run_toy(tmp_path, path, profile="quick")
    assert not (tmp_path / "results").exists()


def test_unknown_experiment_and_bad_game_string_fail_clearly(tmp_path):
    from gamut.experiments.config import game_string

    with pytest.raises(ConfigError, match="unknown experiment 'nonesuch'"):
        run_experiment("nonesuch", results_root=tmp_path)
    with pytest.raises(ValueError, match="does not load"):
        game_string("kuhn_poker(players=x)")
    assert game_string("kuhn_poker") == "kuhn_poker"


@pytest.mark.slow
def test_cli_bad_config_exits_2_and_names_the_field(tmp_path):
    config = write_config(tmp_path, extra="colour = 3")
    result = subprocess.run(
        [sys.executable, "-m", "gamut.experiments.cli", "run", TOY, "--config", str(config), "--out", str(tmp_path / "r")],
        cwd=REPO, capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 2
    assert "unknown field 'colour'" in result.stderr
    assert not (tmp_path / "r").exists()
