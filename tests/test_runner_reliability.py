"""The runner never loses or mixes results: one writer per folder, whole publishes, workers that die with the run.

These tests use real processes: a real ``gamut run`` holding the lock, a real
``kill -9`` in the middle of a rerun, and the process table to check that no
worker outlives the run.
"""

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gamut.experiments.cli import main
from gamut.experiments.runner import run_experiment

REPO = Path(__file__).resolve().parent.parent
TOY = "tests.toy_experiment"


def write_config(path: Path, trials=4, samples=1000, sleep=0.0, log="") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        f'experiment = "toy_sums"\n[params]\nseed = 5\ntrials = {trials}\nsamples = {samples}\nsleep = {sleep}\n'
        f'log = "{log}"\nlabel = ""\n'
    )
    return path


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def published(tmp_path: Path) -> Path:
    """A finished toy run with a hand-written file beside its results, as committed results have."""
    summary = run_experiment(TOY, config_path=write_config(tmp_path / "first.toml"), results_root=tmp_path / "out",
                             workers=1, progress=False)
    (summary.folder / "README.md").write_text("notes kept by hand\n")
    return summary.folder


def process_table() -> dict[int, tuple[int, str]]:
    """pid -> (parent pid, state) of every process, from /proc."""
    table = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        table[int(stat.parent.name)] = (int(fields[1]), fields[0])
    return table


def descendants(pid: int) -> set[int]:
    table = process_table()
    found, todo = set(), [pid]
    while todo:
        parent = todo.pop()
        children = [child for child, (ppid, _) in table.items() if ppid == parent]
        found.update(children)
        todo.extend(children)
    return found


def running(pids: set[int]) -> set[int]:
    table = process_table()
    return {pid for pid in pids if pid in table and table[pid][1] not in ("Z", "X")}


@contextlib.contextmanager
def killed_on_exit(process: subprocess.Popen):
    """Run the block, then SIGKILL ``process`` and reap it, whatever the block did."""
    try:
        yield process
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait()


def outlived(workers: set[int], seconds: float) -> set[int]:
    """Which of ``workers`` (of a run just killed) still run after waiting up to ``seconds`` for them to end."""
    deadline = time.time() + seconds
    while running(workers) and time.time() < deadline:
        time.sleep(0.1)
    return running(workers)


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the process table from /proc")
def test_kill_9_of_a_rerun_keeps_the_published_results_refuses_a_second_writer_and_leaves_no_worker(
        tmp_path, capsys):
    folder = published(tmp_path)
    before = snapshot(folder)
    log = tmp_path / "starts.log"
    config = write_config(tmp_path / "second.toml", trials=6, samples=2000, sleep=1.5, log=str(log))
    command = [sys.executable, "-m", "gamut.experiments.cli", "run", TOY, "--config", str(config),
               "--workers", "2", "--out", str(tmp_path / "out"), "--no-progress"]
    process = subprocess.Popen(command, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    journal = folder.with_name(".toy_sums.partial") / "trials.jsonl"
    deadline = time.time() + 180
    while time.time() < deadline and process.poll() is None:
        if journal.exists() and journal.read_text().count("\n") >= 1:
            break
        time.sleep(0.05)
    with killed_on_exit(process):
        # A second writer, while the first is alive, is refused and told who holds the folder.
        assert main(["run", TOY, "--config", str(config), "--workers", "1", "--out", str(tmp_path / "out"),
                     "--no-progress"]) == 2
        err = capsys.readouterr().err
        assert f"being written by another run (pid {process.pid} on host" in err and "Traceback" not in err
        workers = descendants(process.pid)
        assert process.poll() is None and len(workers) >= 2, "the run must be killed while its workers work"
    assert not outlived(workers, 30), "pool workers or the resource tracker outlived the killed run"
    assert snapshot(folder) == before, "a killed rerun changed the published results"

    # The next run takes over the dead run's lock, names it, and resumes its staging folder.
    summary = run_experiment(TOY, config_path=config, results_root=tmp_path / "out", workers=1, resume=True,
                             progress=False)
    err = capsys.readouterr().err
    assert "stale lock" in err and f"pid {process.pid}" in err
    assert summary.trials == 6 and summary.trials_resumed >= 1
    meta = json.loads((folder / "metadata.json").read_text())
    assert meta["config"]["params"]["samples"] == 2000 and meta["trials"] == 6
    assert (folder / "README.md").read_text() == "notes kept by hand\n"
    assert sorted(p.name for p in folder.parent.iterdir()) == ["toy_sums"], "lock or staging left behind"


@pytest.mark.parametrize("address, message", [
    ("not_an_address", "--address 'not_an_address' is not a Ray address"),
    ("127.0.0.1:1", "cannot reach a Ray cluster at --address 127.0.0.1:1"),
])
def test_an_unusable_ray_address_fails_before_touching_a_finished_folder(tmp_path, capsys, address, message):
    if address == "127.0.0.1:1":
        pytest.importorskip("ray")
    folder = published(tmp_path)
    before = snapshot(folder)
    status = main(["run", TOY, "--config", str(tmp_path / "first.toml"), "--backend", "ray", "--address", address,
                   "--out", str(tmp_path / "out"), "--no-progress"])
    err = capsys.readouterr().err
    assert status == 2 and message in err and "Traceback" not in err
    assert snapshot(folder) == before
    assert sorted(p.name for p in folder.parent.iterdir()) == ["toy_sums"]
    # A failed join leaves none of its short Ray time limits behind for a later local start.
    assert not any(name.startswith("RAY_gcs") for name in os.environ)


def test_a_new_run_replaces_what_the_old_one_made_and_keeps_hand_written_files(tmp_path):
    folder = published(tmp_path)
    # A figure the old run made (listed in its metadata) that the new run does not make.
    meta = json.loads((folder / "metadata.json").read_text())
    (folder / "old_figure.png").write_bytes(b"png")
    (folder / "metadata.json").write_text(json.dumps({**meta, "files": meta["files"] + ["old_figure.png"]}))
    again = run_experiment(TOY, config_path=write_config(tmp_path / "third.toml", trials=3), workers=1,
                           results_root=tmp_path / "out", progress=False)
    assert again.trials_run == 3 and json.loads((folder / "metadata.json").read_text())["trials"] == 3
    assert not (folder / "old_figure.png").exists()
    assert (folder / "README.md").read_text() == "notes kept by hand\n"
    assert sorted(p.name for p in folder.parent.iterdir()) == ["toy_sums"]


def test_resume_names_every_changed_field_on_its_own_line(tmp_path):
    published(tmp_path)
    with pytest.raises(ValueError) as err:
        run_experiment(TOY, config_path=write_config(tmp_path / "changed.toml", samples=50, sleep=0.01),
                       results_root=tmp_path / "out", workers=1, resume=True, progress=False)
    lines = str(err.value).splitlines()
    assert "  samples: 1000 -> 50" in lines and "  sleep: 0.0 -> 0.01" in lines
    assert "run.json" in lines[0]


def test_garbage_run_json_and_journal_are_named(tmp_path, capsys):
    folder = published(tmp_path)
    command = ["run", TOY, "--config", str(tmp_path / "first.toml"), "--out", str(tmp_path / "out"),
               "--workers", "1", "--no-progress", "--resume"]
    (folder / "run.json").write_text("{not json")
    assert main(command) == 2
    err = capsys.readouterr().err
    assert f"{folder / 'run.json'}: not valid JSON" in err and "Traceback" not in err
    run_experiment(TOY, config_path=tmp_path / "first.toml", results_root=tmp_path / "out", workers=1,
                   progress=False)
    with (folder / "trials.jsonl").open("a") as handle:
        handle.write("garbage\n")
    assert main(command) == 2
    err = capsys.readouterr().err
    assert f"{folder / 'trials.jsonl'}: line 5 is not a trial record" in err and "Traceback" not in err


@pytest.mark.parametrize("case, message", [
    ("params_not_a_table", "'params' must be a table"),
    ("config_is_a_directory", "is a directory"),
    ("path_as_experiment", "unknown experiment '../../etc/passwd'"),
    ("out_is_a_file", "is not a folder"),
    ("nan_field", "field 'sleep': expected a finite number, got nan"),
])
def test_malformed_input_exits_2_with_a_message_and_writes_nothing(tmp_path, capsys, case, message):
    config = write_config(tmp_path / "cfg" / "toy.toml")
    out = tmp_path / "out"
    experiment = TOY
    if case == "params_not_a_table":
        config.write_text('experiment = "toy_sums"\nparams = 3\n')
    elif case == "config_is_a_directory":
        config = tmp_path / "cfg"
    elif case == "path_as_experiment":
        experiment = "../../etc/passwd"
    elif case == "out_is_a_file":
        out.write_text("not a folder")
        out = out / "results"
    elif case == "nan_field":
        config.write_text(config.read_text().replace("sleep = 0.0", "sleep = nan"))
    before = sorted(p.name for p in tmp_path.iterdir())
    assert main(["run", experiment, "--config", str(config), "--out", str(out), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_publish_by_two_renames_and_a_crash_between_them_is_repaired(tmp_path, monkeypatch):
    from gamut.experiments import store

    folder = published(tmp_path)
    before = snapshot(folder)
    # Killed between the two renames of a publish: the old folder retired, the new one not yet in place.
    folder.rename(folder.with_name(".toy_sums.old"))
    store.recover_interrupted_publish(folder)
    assert snapshot(folder) == before
    # Where the file system cannot swap two folders atomically, publish falls back to the two renames.
    monkeypatch.setattr(store, "_exchange", lambda a, b: False)
    again = run_experiment(TOY, config_path=write_config(tmp_path / "fourth.toml", trials=2), workers=1,
                           results_root=tmp_path / "out", progress=False)
    assert again.trials_run == 2 and json.loads((folder / "metadata.json").read_text())["trials"] == 2
    assert (folder / "README.md").read_text() == "notes kept by hand\n"
    assert sorted(p.name for p in folder.parent.iterdir()) == ["toy_sums"]
