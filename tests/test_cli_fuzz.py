"""Bad input to every CLI subcommand: exit status 2, a message naming the flag, no traceback, nothing written.

Most cases are generated from the parser itself: every flag whose type is one
of ``gamut.experiments.validate``'s carries its kind and bounds, and gets the
values just outside them, wrong types, NaN and infinities, int64 overflow,
sizes beyond memory and budgets beyond their documented maximum, paths that
cannot be written (under a file, under ``/proc`` and ``/sys``, where
``os.access`` says yes to root) or read, and every single-valued flag given
twice. A table adds the cases that need the game or several flags (unknown
agents and games, game strings that overflow or do not parse, unreachable dice
totals, runs too long for no checkpoint). Cases run in process (``main``
returns the exit status); a few run the installed ``gamut``. Tests that mount a
small or read-only tmpfs (root only) check a full disk and a read-only folder.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gamut.experiments.cli import REPEATABLE, build_parser, main

GAMUT = str(Path(sys.executable).parent / "gamut")

# A valid command line of each subcommand, small enough to finish quickly were a bad value let through.
BASES = {
    ("cfr",): ["--game", "kuhn_poker", "--iterations", "1"],
    ("dice", "solve"): ["--variant", "yacht12"],
    ("dice", "advise"): ["--variant", "yacht12", "--dice", "1,2,3,4,5", "--rolls-left", "0"],
    ("dice", "play"): ["--variant", "yacht12"],
    ("dice", "ranking"): ["--players", "2"],
    ("dice", "regret"): ["--variant", "yacht12", "--agent", "random", "--games", "1"],
    ("dice", "imitate"): ["--variant", "yacht12", "--steps", "1", "--out", "{tmp}/imitation", "--set", "num_envs=2",
                          "--set", "rollout=2", "--set", "minibatches=1", "--set", "hidden=8"],
    ("poke", "match"): ["--agents", "heuristic", "heuristic", "--rubbers", "1"],
    ("poke", "train"): ["--algo", "cfr+", "--iterations", "1", "--out", "{tmp}/policy.npz"],
    ("poke", "play"): [],
    ("poke", "advise"): ["--deal-seed", "1", "--rollouts", "2", "--quiet"],
    ("palace", "match"): ["--agents", "random", "random", "--hands", "1"],
    ("palace", "play"): [],
    ("squares", "eval"): ["--agent", "random", "--deals", "1"],
    ("squares", "bound"): ["--deals", "1", "--time-limit", "1"],
    ("squares", "train"): ["--games", "100000", "--out", "{tmp}/values.npz"],
    ("squares", "train-crossline"): ["--rounds", "1", "--games", "1", "--out", "{tmp}/cross.npz"],
    ("squares", "train-net"): ["--positions", "1", "--games-per-chunk", "1", "--updates", "0", "--out",
                               "{tmp}/net.npz"],
    ("squares", "play"): [],
    ("squares", "endgame"): ["--position", "{tmp}/position.txt"],
    ("play",): ["kuhn_poker"],
    ("train",): ["--game", "poker_dice(variant=yacht12,players=1)", "--algo", "ppo", "--steps", "1", "--out",
                 "{tmp}/run", "--set", "num_envs=2", "--set", "rollout=2", "--set", "minibatches=1"],
}
# The experiment runner's subcommands (run, reproduce, list) are checked by its own tests.
RUNNER = {"run", "reproduce", "list"}


def _subcommands(parser, path=()):
    """(path, parser) of every leaf subcommand."""
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        yield path, parser
        return
    for name, sub in subs[0].choices.items():
        if not path and name in RUNNER:
            continue
        yield from _subcommands(sub, path + (name,))


def _bad_values(kind_of) -> list[str]:
    kind = getattr(kind_of, "kind", None)
    if kind in ("whole", "count"):
        values = ["abc", "1.5", "nan", str(kind_of.low - 1), "99999999999999999999999"]
        if kind_of.high < 2**63 - 1:
            values += [str(kind_of.high + 1), str(2**40)] if kind_of.high < 2**40 else [str(kind_of.high + 1)]
        if kind == "count":
            values.append("99999999999999999")  # fits int64, not in memory
        return values
    if kind == "real":
        values = ["abc", "nan", "inf", "-inf"]
        if kind_of.low is not None:
            values.append(str(kind_of.low) if kind_of.above else str(kind_of.low - 1))
        if kind_of.high is not None:
            values += [str(kind_of.high + 1), "1e308"]
        return values
    if kind == "output_file":
        return ["{file}/out.npz", "{tmp}", *PSEUDO_FILES]
    if kind in ("output_folder", "output_root"):
        return ["{file}", "{file}/below", *PSEUDO_FOLDERS]
    if kind == "input_file":
        return ["{tmp}/missing.npz", "{tmp}"]
    return []


# Where root may "write" by os.access but creating anything fails (proc and sysfs).
PSEUDO_FILES = ["/proc/nope/x.json", "/proc/x.npz", "/proc/self/x.npz", "/sys/x.npz", "/sys/kernel/nope/x.npz"]
PSEUDO_FOLDERS = ["/proc/nope", "/proc/self/nope", "/sys/nope"]


def _generated() -> dict[str, list[tuple[list[str], str]]]:
    """Subcommand -> its generated cases ``(argv, flag the message must name)``."""
    cases = {}
    for path, parser in _subcommands(build_parser()):
        base = ["--out", "{tmp}/bench"] if path[0] == "bench" else BASES[path]
        for action in parser._actions:
            if not action.option_strings or action.nargs == 0:
                continue
            flag = max(action.option_strings, key=len)
            for value in _bad_values(action.type):
                cases.setdefault(" ".join(path), []).append(([*path, *base, flag, value], flag))
    return cases


# Cases that need the game, the registry or several flags: (argv, the flag the message must name).
TABLE = [
    (["cfr", "--game", "nosuchgame"], "--game"),
    (["cfr", "--game", "kuhn_poker(players=99999999999999999999)"], "--game"),
    (["cfr", "--game", "leduc_poker(players=3)"], "--game"),
    (["cfr", "--game", "kuhn_poker", "--resume", "--checkpoint", "{tmp}/none.npz"], "--resume"),
    (["cfr", "--game", "kuhn_poker", "--algo", "cfr+", "--alpha", "2"], "--alpha"),
    (["cfr", "--game", "kuhn_poker", "--algo", "dcfr", "--beta", "nan"], "--beta"),
    (["bench", "cfr", "--game", "nosuchgame", "--out", ""], "--game"),
    (["bench", "poke", "--game", "poke(", "--out", ""], "--game"),
    (["dice", "advise", "--variant", "classic", "--dice", "1,2,3,4,5", "--stage-sum", "500"], "--stage-sum"),
    (["dice", "advise", "--variant", "classic", "--dice", "1,2,3,4,5", "--stage-sum", "-1"], "--stage-sum"),
    (["dice", "advise", "--variant", "classic", "--dice", "1,2,3,4,5", "--stage-sum", "3"], "--stage-sum"),
    (["dice", "advise", "--variant", "yacht12", "--dice", "1,2,3"], "--dice"),
    (["dice", "advise", "--variant", "yacht12", "--dice", "a,b,c,d,e"], "--dice"),
    (["dice", "advise", "--variant", "yacht12", "--dice", "1,2,3,4,5", "--open", "sevens"], "--open"),
    (["dice", "advise", "--variant", "classic_banked", "--dice", "1,2,3,4,5", "--bank", "1", "--bank-left", "2"],
     "--bank-left"),
    (["dice", "solve", "--variant", "yacht12", "--joker", "forced"], "--joker"),
    (["dice", "play", "--variant", "yacht12", "--opponent", "nosuchbot"], "--opponent"),
    (["poke", "match", "--agents", "nosuchbot", "heuristic", "--rubbers", "1"], "--agents"),
    (["poke", "match", "--agents", "heuristic", "heuristic", "--game", "nosuchgame"], "--game"),
    (["poke", "match", "--agents", "heuristic", "heuristic", "--game", "poke(num_ranks=99999999999999999999)"],
     "--game"),
    (["poke", "match", "--agents", "heuristic", "heuristic", "--game", "kuhn_poker"], "--game"),
    (["poke", "match", "--agents", "heuristic", "heuristic", "--a-option", "noequals"], "--a-option"),
    (["poke", "match", "--agents", "heuristic", "heuristic", "--b-option", "x=nan"], "--b-option"),
    (["poke", "match", "--agents", "heuristic", "heuristic", "--a-option", "x=99999999999999999999"],
     "--a-option"),
    (["poke", "train", "--algo", "cfr+", "--resume", "--checkpoint", "{tmp}/none.npz"], "--resume"),
    (["poke", "play", "--opponent", "nosuchbot"], "--opponent"),
    (["poke", "play", "--hint", "nosuchbot"], "--hint"),
    (["palace", "match", "--agents", "nosuchbot", "random"], "--agents"),
    (["palace", "match", "--agents", "random", "random", "--option", "random.x=inf"], "--option"),
    (["palace", "play", "--opponent", "nosuchbot"], "--opponent"),
    (["squares", "eval", "--agent", "nosuchbot", "--deals", "1"], "--agent"),
    (["squares", "eval", "--agent", "random", "--deals", "1", "--option", "x=nan"], "--option"),
    (["squares", "eval", "--agent", "random", "--deals", "1", "--option", "x"], "--option"),
    (["squares", "eval", "--agent", "random", "--deals", "1", "--scoring", "1,2,3"], "--scoring"),
    (["squares", "eval", "--agent", "random", "--deals", "1",
      "--scoring", "0,1,2,3,4,5,6,7,8,99999999999999999999"], "--scoring"),
    (["squares", "bound", "--deals", "1", "--scale", "nan"], "--scale"),
    (["squares", "play", "--hint", "nosuchbot"], "--hint"),
    (["squares", "train-net", "--positions", "1", "--out", "{tmp}/net.npz", "--address", "127.0.0.1:6379"],
     "--address"),
    (["squares", "train-net", "--positions", "1", "--out", "{tmp}/net.npz", "--backend", "ray", "--address", "x"],
     "--address"),
    (["play", "nosuchgame"], "GAME"),
    (["play", "poke("], "GAME"),
    (["play", "poker_squares(scoring=1;2)"], "GAME"),
    (["play", "kuhn_poker", "--opponent", "nosuchbot"], "--opponent"),
    (["play", "poker_squares", "--opponent", "random"], "--opponent"),
    (["play", "kuhn_poker", "--hint", "nosuchbot"], "--hint"),
    (["play", "kuhn_poker", "--seat", "2"], "--seat"),
    (["palace", "play", "--players", "3", "--seat", "5"], "--seat"),
    (["dice", "play", "--variant", "yacht12", "--players", "2", "--seat", "3"], "--seat"),
    # Budgets beyond their maximum, and runs too long to go without a checkpoint.
    (["squares", "eval", "--agent", "mc", "--deals", "1", "--seconds-per-game", "1e308"], "--seconds-per-game"),
    (["squares", "eval", "--agent", "mc", "--deals", "1", "--option", "seconds_per_game=1e308"], "--agent"),
    (["palace", "match", "--agents", "ismcts", "random", "--hands", "1", "--option", "ismcts.iterations=10000000"],
     "--agents"),
    (["cfr", "--game", "kuhn_poker", "--iterations", "1099511627776"], "--iterations"),
    (["cfr", "--game", "leduc_poker", "--iterations", "100000000"], "--iterations"),
    (["cfr", "--game", "leduc_poker", "--algo", "es-mccfr", "--iterations", "100000000"], "--iterations"),
    (["poke", "train", "--algo", "cfr+", "--iterations", "100000000", "--out", "{tmp}/p.npz"], "--iterations"),
    (["poke", "train", "--algo", "mccfr", "--iterations", "1000000000", "--out", "{tmp}/p.npz"], "--iterations"),
    (["train", "--game", "poker_dice(variant=yacht12,players=1)", "--algo", "ppo", "--steps", "100000000000"],
     "--steps"),
    # Outputs where nothing can be created, found before the deals are played.
    (["squares", "eval", "--agent", "greedy", "--deals", "2", "--save-scores", "/proc/nope/x.json"], "--save-scores"),
    (["dice", "regret", "--variant", "yacht12", "--agent", "random", "--games", "1", "--out", "/proc/nope/r.json"],
     "--out"),
    (["run", "hand_frequencies", "--quick", "--out", "/proc/nope"], "--out"),
    (["run", "hand_frequencies", "--quick", "--out", "{file}/below"], "--out"),
    (["reproduce", "--quick", "--out", "/sys/nope"], "--out"),
    # Single-valued flags given twice, among them flags of several values and of the runner.
    (["poke", "match", "--agents", "random", "random", "--agents", "heuristic", "heuristic"], "--agents"),
    (["palace", "match", "--agents", "random", "random", "--agents", "random"], "--agents"),
    (["run", "hand_frequencies", "--quick", "--quick"], "--quick"),
    (["run", "hand_frequencies", "--out", "{tmp}/a", "--out", "{tmp}/b"], "--out"),
]


def _fill(argv, tmp_path):
    places = {"tmp": str(tmp_path / "out"), "file": str(tmp_path / "out" / "a_file")}
    return [a.format(**places) for a in argv]


@pytest.fixture
def workspace(tmp_path, monkeypatch):
    """A working folder holding a sub-folder with one file; returns a snapshot function of everything in it."""
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "a_file").write_text("keep me\n")
    # A Poker Squares position with two empty cells, for gamut squares endgame.
    (tmp_path / "position.txt").write_text(
        "Ac Kc Qc Jc ..\n2d 3d 4d 5d 6d\n7h 8h 9h Th Jh\n2s 3s 4s 5s 6s\n7c 8c 9c Tc ..\n")
    monkeypatch.chdir(tmp_path)

    def snapshot():
        # A folder's own timestamp is left out: checking an output path creates and removes a file in it.
        return {str(p): None if p.is_dir() else (p.stat().st_size, p.stat().st_mtime_ns) for p in tmp_path.rglob("*")}

    return tmp_path, snapshot


def _check_refused(argv, flag, workspace, capsys):
    tmp_path, snapshot = workspace
    before = snapshot()
    status = main(_fill(argv, tmp_path))
    out, err = capsys.readouterr()
    assert status == 2, f"exit {status} for {argv}; stderr: {err[-400:]}"
    assert flag in err, f"the message does not name {flag}: {err}"
    assert "Traceback" not in err + out
    assert snapshot() == before


def _values_in(base: list[str], flag: str, nargs) -> list[str] | None:
    """The values ``flag`` has in the command line ``base``, or None when it is not there."""
    if flag not in base:
        return None
    at = base.index(flag) + 1
    if nargs in (None, "?"):
        return base[at:at + 1]
    if isinstance(nargs, int):
        return base[at:at + nargs]
    end = next((i for i in range(at, len(base)) if base[i].startswith("--")), len(base))
    return base[at:end]


def _repeated() -> dict[str, list[tuple[list[str], str]]]:
    """Subcommand -> command lines giving one of its single-valued flags twice (each time a valid value)."""
    cases = {}
    for path, parser in _subcommands(build_parser()):
        base = ["--out", "{tmp}/bench"] if path[0] == "bench" else BASES[path]
        for action in parser._actions:
            if not action.option_strings or isinstance(action, (*REPEATABLE, argparse._HelpAction)):
                continue
            flag = max(action.option_strings, key=len)
            if flag in base:
                again = [flag, *_values_in(base, flag, action.nargs)]
            elif action.nargs == 0:
                again = [flag, flag]
            elif action.nargs is None and action.default is not None:
                again = [flag, str(action.default), flag, str(action.default)]
            else:
                continue
            cases.setdefault(" ".join(path), []).append(([*path, *base, *again], flag))
    return cases


GENERATED = _generated()
REPEATED = _repeated()


def test_every_subcommand_and_typed_flag_is_covered():
    for path, _ in _subcommands(build_parser()):
        assert path in BASES or path[0] == "bench", f"no valid base command line for {path}"
        assert " ".join(path) in GENERATED or any(tuple(argv[:len(path)]) == path for argv, _ in TABLE), \
            f"no bad input to {path} is tried"
    assert sum(map(len, GENERATED.values())) > 300


@pytest.mark.parametrize("command", sorted(GENERATED))
def test_generated_bad_values_are_refused(command, workspace, capsys):
    # One test per subcommand (its cases in a loop) keeps hundreds of cases fast.
    for argv, flag in GENERATED[command]:
        _check_refused(argv, flag, workspace, capsys)


@pytest.mark.parametrize("command", sorted(REPEATED))
def test_a_single_valued_flag_given_twice_is_refused(command, workspace, capsys):
    for argv, flag in REPEATED[command]:
        _check_refused(argv, flag, workspace, capsys)


def test_every_subcommand_has_a_repeated_flag_case():
    assert {" ".join(path) for path, _ in _subcommands(build_parser())} == set(REPEATED)
    assert sum(map(len, REPEATED.values())) > 50


@pytest.mark.parametrize("argv, flag", TABLE, ids=[" ".join(a) for a, _ in TABLE])
def test_bad_input_needing_the_game_is_refused(argv, flag, workspace, capsys):
    _check_refused(argv, flag, workspace, capsys)


@pytest.mark.parametrize("argv, flag", [
    (["squares", "eval", "--agent", "random", "--deals", "99999999999999"], "--deals"),
    (["poke", "match", "--agents", "heuristic", "heuristic", "--game", "nosuchgame"], "--game"),
])
@pytest.mark.slow
def test_the_installed_entry_point_refuses_bad_input(argv, flag, tmp_path):
    result = subprocess.run([GAMUT, *argv], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert result.returncode == 2
    assert flag in result.stderr and "Traceback" not in result.stderr
    assert [line for line in result.stderr.splitlines() if "error" in line] == result.stderr.splitlines()[-1:], \
        "one error line, after the usage"
    assert os.listdir(tmp_path) == []


# Agent budgets beyond their option's maximum: let through, each would search for ages on its first move.
HUGE_AGENT_BUDGETS = [
    ("kuhn_poker", "ismcts", {"iterations": 10**15}),
    ("kuhn_poker", "ismcts", {"seconds": 1e308}),
    ("poker_squares", "mc", {"seconds_per_game": 1e308}),
    ("poker_squares", "mc", {"simulations": 10**15}),
    ("palace_poker", "ismcts", {"seconds": 1e308}),
    ("poke", "ismcts", {"iterations": 10**15}),
    ("poker_dice", "mcts", {"simulations": 10**15}),
    ("kuhn_poker", "ismcts", {"seconds": float("nan")}),
]


@pytest.mark.parametrize("game, agent, options", HUGE_AGENT_BUDGETS,
                         ids=[f"{g} {a} {next(iter(o))}" for g, a, o in HUGE_AGENT_BUDGETS])
def test_an_agent_budget_beyond_its_maximum_is_refused_when_the_agent_is_made(game, agent, options):
    import gamut

    # Only made, never asked to move: a budget let through would not return.
    with pytest.raises(ValueError, match=next(iter(options))):
        gamut.make_bot(game, agent, **options)


def _every_parser(parser):
    """Every parser of the command tree: the top level, each command, each action."""
    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                yield from _every_parser(sub)


def test_every_help_page_formats():
    # A bare '%' in a help string breaks the listing of the level above, not the action's own page.
    pages = [p.format_help() for p in _every_parser(build_parser())]
    assert len(pages) > 30 and all(page.startswith("usage: gamut") for page in pages)
