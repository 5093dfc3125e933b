"""Results record the config and code that made them; `gamut list` says fresh or stale, and why."""

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gamut.experiments import provenance
from gamut.experiments.cli import main
from gamut.experiments.experiment import load_experiment
from gamut.experiments.runner import run_experiment

REPO = Path(__file__).resolve().parent.parent
TOY = "tests.toy_experiment"


def toy_results(tmp_path):
    config = tmp_path / "toy.toml"
    config.write_text('experiment = "toy_sums"\n[params]\nseed = 3\ntrials = 2\nsamples = 100\nsleep = 0.0\n'
                      'log = ""\nlabel = ""\n')
    summary = run_experiment(TOY, config_path=config, results_root=tmp_path / "out", workers=1, progress=False)
    return json.loads((summary.folder / "metadata.json").read_text()), load_experiment(TOY, "full", config)


def test_metadata_fingerprints_the_config_and_every_module_behind_the_trials(tmp_path):
    meta, experiment = toy_results(tmp_path)
    code = meta["fingerprints"]["code"]
    # The trial module and what it imports from the toolkit, not the runner's own modules.
    assert {"tests.toy_experiment", "gamut.solvers.stats"} <= set(code)
    assert not set(code) & provenance.RUNNER_MODULES
    assert meta["fingerprints"]["config"] == experiment.fingerprint()
    assert provenance.staleness(meta, experiment.config.params, experiment.version, code) == []


def test_staleness_names_a_changed_field_a_changed_module_and_an_older_toolkit(tmp_path):
    meta, experiment = toy_results(tmp_path)
    params, version = experiment.config.params, experiment.version
    code = dict(meta["fingerprints"]["code"])
    assert provenance.staleness(meta, {**params, "samples": 200}, version, code) == [
        "config changed (samples: 100 -> 200)"]
    edited = {**code, "gamut.solvers.stats": provenance.source_hash("def mean_ci(x):\n    return 0\n")}
    assert provenance.staleness(meta, params, version, edited) == ["code of gamut.solvers.stats changed"]
    assert provenance.staleness(meta, params, version + 1, code) == [
        f"made by an older toolkit (experiment version {version}, now {version + 1})"]
    # Recorded before the experiment module's summary part was kept apart: the whole module is compared.
    whole = {k: v for k, v in code.items() if not k.endswith(provenance.SUMMARY_PART)}
    whole[TOY] = provenance.source_hash((REPO / "tests" / "toy_experiment.py").read_text())
    assert provenance.staleness({**meta, "fingerprints": {"code": whole}}, params, version, code) == []
    assert provenance.staleness({**meta, "fingerprints": {"code": {**whole, TOY: "0"}}}, params, version, code) == [
        f"code of {TOY} changed"]
    resumed_legacy = {**meta, "fingerprints": {**meta["fingerprints"], "code": {}}}
    assert provenance.staleness(resumed_legacy, params, version, code) == [
        "made by an older toolkit (its trials were started before code fingerprints were recorded)"]
    legacy = {k: v for k, v in meta.items() if k != "fingerprints"} | {"git_commit": None}
    assert provenance.staleness(legacy, params, version, code)[0].startswith(
        "made by an older toolkit (no code fingerprint recorded")


def test_a_result_depends_on_the_code_of_its_own_games_and_agents_only():
    def modules(name):
        experiment = load_experiment(name)
        return set(provenance.code_fingerprint(experiment.module.__name__, experiment.config.params))

    poke = modules("poke_doubling")
    assert {"gamut.envs.poke.kernels", "gamut.envs.poke.game", "gamut.solvers.poke.match", "gamut.envs.hands"} <= poke
    assert not [m for m in poke if "palace_poker" in m or "poker_squares" in m or "poker_dice" in m]
    # Agents made by name through the registry: the game's own agent modules count, other games' do not.
    palace = modules("palace_tournament")
    assert {"gamut.envs.palace_poker.game", "gamut.solvers.palace_poker.agents", "gamut.solvers.bots"} <= palace
    assert not [m for m in palace if m.startswith(("gamut.envs.poke", "gamut.solvers.poker_squares"))]
    # A game named only by a game string in the config counts whole.
    assert "gamut.envs.poke.game" in modules("rl_learning_curve")
    assert modules("hand_frequencies") >= {"gamut.envs.hands", "gamut.envs.cards"}
    assert not [m for m in modules("hand_frequencies") if m.startswith("gamut.envs.poke")]


def test_code_fingerprints_ignore_comments_and_docstrings_but_not_code():
    source = (REPO / "tests" / "toy_experiment.py").read_text()
    assert provenance.source_hash(source) == provenance.source_hash(source.replace('"""A small', '"""A tiny'))
    assert provenance.source_hash(source) == provenance.source_hash(source + "\n# a comment\n")
    assert provenance.source_hash(source) != provenance.source_hash(source.replace("x.max()", "x.min()"))


def test_results_older_than_code_fingerprints_are_stale_with_the_modules_changed_since_their_commit():
    meta = json.loads((REPO / "results" / "hand_frequencies" / "metadata.json").read_text())
    commit = meta["git_commit"].removesuffix("-dirty")
    if subprocess.run(["git", "cat-file", "-e", commit], cwd=REPO, capture_output=True).returncode != 0:
        pytest.skip(f"this clone does not hold commit {commit}")
    experiment = load_experiment("hand_frequencies")
    code = provenance.code_fingerprint(experiment.module.__name__, experiment.config.params)
    changed = provenance.code_changed_since(meta["git_commit"], code)
    assert changed is not None
    # A module is reported changed exactly when its code at that commit hashes differently from today's.
    for name in code:
        module = name.removesuffix(provenance.SUMMARY_PART)
        path = Path(provenance._module_file(module)).relative_to(REPO).as_posix()
        then = provenance._sources_at(commit, {module: path})[module]
        if then is not None and module == experiment.module.__name__:
            then_hash = provenance.split_experiment_hash(then)[name.endswith(provenance.SUMMARY_PART)]
        else:
            then_hash = then and provenance.source_hash(then)
        assert (name in changed) == (then_hash != code[name]), name


def test_gamut_list_marks_fresh_and_stale_results_with_the_reason(tmp_path, capsys):
    out = tmp_path / "results"
    experiment = load_experiment("hand_frequencies")
    fresh = out / "hand_frequencies"
    fresh.mkdir(parents=True)
    (fresh / "metadata.json").write_text(json.dumps({
        "experiment_version": experiment.version, "git_commit": "abc", "finished_utc": "2026-12-01T00:00:00Z",
        "config": {"params": experiment.config.params},
        "fingerprints": {"config": experiment.fingerprint(),
                         "code": provenance.code_fingerprint(experiment.module.__name__,
                                                             experiment.config.params)},
    }))
    changed = load_experiment("dice_ranking")
    stale = out / "dice_ranking"
    stale.mkdir()
    params = {**changed.config.params, "trials": changed.config.params["trials"] + 1}
    (stale / "metadata.json").write_text(json.dumps({
        "experiment_version": changed.version, "git_commit": None, "finished_utc": "2026-12-01T00:00:00Z",
        "config": {"params": params},
    }))
    shutil.copytree(stale, out / "quick" / "dice_ranking")
    (out / "quick" / "dice_ranking" / "metadata.json").write_text("{garbage")

    assert main(["list", "--out", str(out), "--json"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    listing = {e["experiment"]: e["results"] for e in json.loads(lines[-1])["experiments"]}
    assert listing["hand_frequencies"][0]["fresh"] is True
    full, quick = listing["dice_ranking"]
    reasons = full["reasons"]
    assert full["fresh"] is False and quick["fresh"] is False
    assert "quick/dice_ranking/metadata.json: not valid JSON" in quick["reasons"][0]
    assert reasons[0] == f"config changed (trials: {params['trials']} -> {params['trials'] - 1})"
    assert reasons[1].startswith("made by an older toolkit (no code fingerprint recorded")
    assert listing["cfr_convergence"] == []
    text = "\n".join(lines)
    assert "    full: fresh (made 2026-12-01T00:00:00Z" in text and "    no results yet" in text
    assert "    full: stale (made 2026-12-01T00:00:00Z, commit None): config changed (trials:" in text


def test_a_changed_summary_is_redone_by_resume_and_a_changed_trial_is_not(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    package = tmp_path / "fresh_check"
    package.mkdir()
    (package / "__init__.py").write_text("")
    source = (REPO / "tests" / "toy_experiment.py").read_text()
    module = package / "toy.py"
    config = tmp_path / "toy.toml"
    config.write_text('experiment = "toy_sums"\n[params]\nseed = 3\ntrials = 2\nsamples = 100\nsleep = 0.0\n'
                      'log = ""\nlabel = ""\n')

    def write(text):
        module.write_text(text)
        stamp = module.stat().st_mtime_ns + 10**9
        os.utime(module, ns=(stamp, stamp))
        sys.modules.pop("fresh_check.toy", None)

    def reasons():
        experiment = load_experiment("fresh_check.toy", "full", config)
        meta = json.loads((tmp_path / "out" / "toy_sums" / "metadata.json").read_text())
        code = provenance.code_fingerprint("fresh_check.toy")
        return provenance.staleness(meta, experiment.config.params, experiment.version, code)

    def run(resume):
        return run_experiment("fresh_check.toy", config_path=config, results_root=tmp_path / "out", workers=1,
                              resume=resume, progress=False)

    write(source)
    run(False)
    assert reasons() == []
    write(source.replace("Mean of trial means", "Mean of the trial means"))
    assert reasons() == ["summary code of fresh_check.toy changed (the trials stand: `--resume` with the run's "
                         "journal redoes the summary)"]
    assert run(True).trials_run == 0 and reasons() == []
    write(source.replace("x.max()", "x.min()"))
    assert reasons() == ["code of fresh_check.toy changed"]
    assert run(True).trials_run == 0 and reasons() == ["code of fresh_check.toy changed"]
    assert run(False).trials_run == 2 and reasons() == []


def test_gamut_list_reports_an_unfinished_run_and_whether_resume_continues_it(tmp_path, capsys):
    from gamut.experiments.runner import _manifest

    out = tmp_path / "results"
    experiment = load_experiment("hand_frequencies")
    code = provenance.code_fingerprint(experiment.module.__name__, experiment.config.params)
    staging = out / ".hand_frequencies.partial"
    staging.mkdir(parents=True)
    (staging / "run.json").write_text(json.dumps(_manifest(experiment, code, None)))
    # Two finished trials (one twice, as after a resume that re-ran it), then a line cut short by a kill.
    (staging / "trials.jsonl").write_text('{"trial": 0}\n{"trial": 2}\n{"trial": 2}\n{"tri')
    total = len(experiment.trial_specs())

    assert main(["list", "--out", str(out), "--json"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert (f"    full: unfinished run in {staging}, 2 of {total} trials finished; "
            "`gamut run hand_frequencies --resume` continues it") in lines
    listing = {e["experiment"]: e for e in json.loads(lines[-1])["experiments"]}
    assert listing["hand_frequencies"]["results"] == []
    assert listing["hand_frequencies"]["unfinished"][0]["finished"] == 2
    # Listing is read-only: the cut line stays for --resume to drop.
    assert (staging / "trials.jsonl").read_text().endswith('{"tri')

    params = {**experiment.config.params, "trials": experiment.config.params["trials"] + 1}
    (staging / "run.json").write_text(json.dumps({**_manifest(experiment, code, None), "params": params}))
    assert main(["list", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert (f"--resume refuses it: the config changed since its trials were run: trials: {params['trials']} -> "
            f"{params['trials'] - 1}") in printed

    # A manifest without its config is named as such, not as a changed config.
    (staging / "run.json").write_text(json.dumps({"experiment": "hand_frequencies"}))
    assert main(["list", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "--resume refuses it: " in printed and "no 'params' object" in printed
    assert "the config changed" not in printed


def test_gamut_list_finds_runs_made_with_another_config_in_another_folder(tmp_path, capsys):
    out = tmp_path / "results"
    default = load_experiment("hand_frequencies")
    text = (REPO / "experiments" / "configs" / "hand_frequencies.toml").read_text().replace(
        "trials = 20 ", "trials = 3 ")
    custom = out / "studies" / "three_batches"
    custom.mkdir(parents=True)
    (custom / "config.toml").write_text(text)
    experiment = load_experiment("hand_frequencies", "full", custom / "config.toml")
    assert experiment.config.params["trials"] == 3 != default.config.params["trials"]

    def metadata(params):
        return json.dumps({
            "experiment": "hand_frequencies", "profile": "full", "experiment_version": experiment.version,
            "git_commit": "abc", "finished_utc": "2026-12-01T00:00:00Z", "config": {"params": params},
            "fingerprints": {"code": provenance.code_fingerprint(experiment.module.__name__, params)}})

    (custom / "metadata.json").write_text(metadata(experiment.config.params))
    # Without a config beside it, a run is judged by the parameters it records: only code or version stale it.
    recorded = out / "studies" / "no_config"
    recorded.mkdir()
    (recorded / "metadata.json").write_text(metadata({**default.config.params, "trials": 5}))
    # A config beside it that no longer matches what the run recorded stales it, naming the field.
    changed = out / "studies" / "changed"
    changed.mkdir()
    (changed / "config.toml").write_text(text.replace("trials = 3 ", "trials = 4 "))
    (changed / "metadata.json").write_text(metadata(experiment.config.params))
    hidden = out / ".hand_frequencies.partial"
    hidden.mkdir()
    (hidden / "metadata.json").write_text(metadata(experiment.config.params))

    assert main(["list", "--out", str(out), "--json"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    entry = next(e for e in json.loads(lines[-1])["experiments"] if e["experiment"] == "hand_frequencies")
    runs = {Path(run["folder"]).name: run for run in entry["other_runs"]}
    assert set(runs) == {"three_batches", "no_config", "changed"} and entry["results"] == []
    assert runs["three_batches"]["fresh"] and runs["no_config"]["fresh"] and runs["no_config"]["config"] is None
    assert not runs["changed"]["fresh"] and runs["changed"]["reasons"] == ["config changed (trials: 3 -> 4)"]
    text_out = "\n".join(lines)
    assert "    no results yet in its own folder" in text_out
    assert f"    full, another config: {custom}: fresh against its {custom / 'config.toml'}" in text_out
    assert f"    full, another config: {recorded}: fresh against the config it records" in text_out


def test_a_recorded_command_runs_as_written_for_gamut_and_for_a_study():
    import doctest

    runner = doctest.DocTestRunner()
    for test in doctest.DocTestFinder().find(provenance.command_record, globs=vars(provenance)):
        runner.run(test)
    assert tuple(runner.summarize(verbose=False)) == (0, 1)
    assert provenance.command_record(["squares", "eval", "--agent", "a b"])["command"] == \
        "gamut squares eval --agent 'a b'"
    # Every command a committed result records starts with a program a shell runs.
    recorded = [command for path in (REPO / "results").rglob("*.json*") if path.suffix in {".json", ".jsonl"}
                for command in re.findall(r'"command": "([^"]*)"', path.read_text())]
    wrong = sorted({c for c in recorded if not c.startswith(("gamut ", "python -m gamut."))})
    assert recorded and not wrong, wrong[:3]
