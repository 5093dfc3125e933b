"""Bad input to every CLI subcommand: exit status 2, a message naming the flag, no traceback, nothing written.

Most cases are generated from the parser itself: every flag whose type is one
of ``gamut.experiments.validate``'s carries its kind and bounds, and gets the
values just outside them, wrong types, NaN and infinities, int64 overflow,
sizes beyond memory, and paths that cannot be written or read. A table adds the
cases that need the game or several flags (unknown agents and games, game
strings that overflow or do not parse, unreachable dice totals). Cases run in
process (``main`` returns the exit status); a few run the installed ``gamut``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gamut.experiments.cli import build_parser, main

GAMUT = str(Path(sys.executable).parent / "gamut")

# A valid command line of each subcommand, small enough to finish quickly were a bad value let through.
BASES = {
    ("cfr",): ["--game", "kuhn_poker", "--iterations", "1"],
    ("dice", "solve"): ["--variant", "yacht12"],
    ("dice", "advise"): ["--variant", "yacht12", "--dice", "1,2,3,4,5", "--rolls-left", "0"],
    ("dice", "play"): ["--variant", "yacht12"],
    ("dice", "ranking"): ["--players", "2"],
    ("dice", "regret"): ["--variant", "yacht12", "--agent", "random", "--games", "1"],
    ("poke", "match"): ["--agents", "heuristic", "heuristic", "--rubbers", "1"],
    ("poke", "train"): ["--algo", "cfr+", "--iterations", "1", "--out", "{tmp}/policy.npz"],
    ("poke", "play"): [],
    ("palace", "match"): ["--agents", "random", "random", "--hands", "1"],
    ("palace", "play"): [],
    ("squares", "eval"): ["--agent", "random", "--deals", "1"],
    ("squares", "bound"): ["--deals", "1", "--time-limit", "1"],
    ("squares", "train"): ["--games", "100000", "--out", "{tmp}/values.npz"],
    ("squares", "train-crossline"): ["--rounds", "1", "--games", "1", "--out", "{tmp}/cross.npz"],
    ("squares", "train-net"): ["--positions", "1", "--games-per-chunk", "1", "--updates", "0", "--out",
                               "{tmp}/net.npz"],
    ("squares", "play"): [],
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
            values.append(str(kind_of.high + 1))
        if kind == "count":
            values.append("99999999999999999")  # fits int64, not in memory
        return values
    if kind == "real":
        values = ["abc", "nan", "inf", "-inf"]
        if kind_of.low is not None:
            values.append(str(kind_of.low) if kind_of.above else str(kind_of.low - 1))
        if kind_of.high is not None:
            values.append(str(kind_of.high + 1))
        return values
    if kind == "output_file":
        return ["{file}/out.npz", "{tmp}"]
    if kind == "output_folder":
        return ["{file}", "{file}/below"]
    if kind == "input_file":
        return ["{tmp}/missing.npz", "{tmp}"]
    return []


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
]


def _fill(argv, tmp_path):
    places = {"tmp": str(tmp_path / "out"), "file": str(tmp_path / "out" / "a_file")}
    return [a.format(**places) for a in argv]


@pytest.fixture
def workspace(tmp_path, monkeypatch):
    """A working folder holding a sub-folder with one file; returns a snapshot function of everything in it."""
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "a_file").write_text("keep me\n")
    monkeypatch.chdir(tmp_path)

    def snapshot():
        return {str(p): (p.stat().st_size, p.stat().st_mtime_ns) for p in tmp_path.rglob("*")}

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


GENERATED = _generated()


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
