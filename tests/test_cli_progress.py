"""Progress on long commands: bars on a terminal only, the same numbers with or without them, compile notices."""

from __future__ import annotations

import argparse
import importlib.util
import io
import json
import sys

import pyspiel
import pytest

import gamut.envs  # noqa: F401  (registers the toolkit's games)
import gamut.experiments.cli_output as cli_output
import gamut.experiments.terminal_play as terminal_play
from gamut.experiments.cli import main

# Wall-clock figures differ between any two runs; everything else must not.
TIMINGS = {"seconds", "seconds_per_game", "iterations_per_s", "extraction_seconds"}


class Terminal(io.StringIO):
    """A stream that says it is a terminal."""

    def isatty(self):
        return True


def _run(argv, monkeypatch, stdout_tty: bool, stderr_tty: bool) -> tuple[dict, str]:
    out = Terminal() if stdout_tty else io.StringIO()
    err = Terminal() if stderr_tty else io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stderr", err)
    status = main(argv)
    monkeypatch.undo()
    assert status == 0, err.getvalue()
    result = json.loads(out.getvalue().strip().splitlines()[-1])
    return {k: v for k, v in result.items() if k not in TIMINGS}, err.getvalue()


@pytest.mark.parametrize("argv, unit", [
    (["squares", "eval", "--agent", "greedy", "--deals", "5", "--seed", "3"], "deal"),
    (["palace", "match", "--agents", "heuristic", "random", "--hands", "3", "--seed", "2"], "deal"),
    (["poke", "match", "--agents", "heuristic", "heuristic", "--rubbers", "2100", "--seed", "1",
      "--b-option", "double_below=2"], "pair"),
    (["poke", "match", "--agents", "random", "heuristic", "--rubbers", "3", "--seed", "1"], "pair"),
    (["cfr", "--game", "kuhn_poker", "--iterations", "40"], "it"),
    (["dice", "ranking", "--players", "2"], "situation"),
    (["dice", "regret", "--variant", "yacht12", "--agent", "greedy", "--games", "4", "--seed", "2"], "game"),
])
@pytest.mark.slow
def test_json_result_is_the_same_with_and_without_the_bar(argv, unit, monkeypatch):
    argv = [*argv, "--json"]
    shown, bar = _run(argv, monkeypatch, stdout_tty=True, stderr_tty=True)
    assert "100%" in bar and f"{unit}/s" in bar, bar
    piped, silent = _run(argv, monkeypatch, stdout_tty=False, stderr_tty=True)
    assert silent == ""
    quiet, nothing = _run([*argv, "--quiet"], monkeypatch, stdout_tty=True, stderr_tty=True)
    assert nothing == ""
    assert shown == piped == quiet


def test_chunked_heuristic_match_equals_one_call(monkeypatch):
    from gamut.solvers.poke.heuristic import make_params
    from gamut.solvers.poke.match import compare, heuristic_margins, match_seeds

    result, _ = _run(["poke", "match", "--agents", "heuristic", "heuristic", "--rubbers", "2100", "--seed", "4",
                      "--a-option", "double_below=2", "--json"], monkeypatch, stdout_tty=False, stderr_tty=False)
    game = pyspiel.load_game("poke(mode=rubber)")
    whole = compare(heuristic_margins(game.cfg, make_params(double_below=2), make_params(), match_seeds(4, 2100)))
    assert (result["mean_diff"], result["ci95_low"], result["n"]) == (whole.value, whole.ci95_low, 2100)


def test_no_bar_when_stderr_is_not_a_terminal(monkeypatch):
    _, err = _run(["squares", "eval", "--agent", "random", "--deals", "2", "--json"], monkeypatch,
                  stdout_tty=True, stderr_tty=False)
    assert err == ""


def test_progress_wanted_follows_quiet_json_and_terminals(monkeypatch):
    cases = [((True, True, False, False), True), ((True, True, True, False), False),
             ((True, False, False, True), False), ((False, True, False, True), True),
             ((True, False, False, False), True)]
    for (err_tty, out_tty, quiet, as_json), wanted in cases:
        monkeypatch.setattr(sys, "stderr", Terminal() if err_tty else io.StringIO())
        monkeypatch.setattr(sys, "stdout", Terminal() if out_tty else io.StringIO())
        args = argparse.Namespace(quiet=quiet, json=as_json)
        assert cli_output.progress_wanted(args) is (wanted and err_tty)
        monkeypatch.undo()


def _load_kernel_module(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_compile_notice_only_when_numba_compiles(tmp_path):
    source = tmp_path / "cached_kernel.py"
    source.write_text("import numba\n\n\n@numba.njit(cache=True)\ndef triple(x):\n    return 3 * x\n")
    said = []
    try:
        cli_output.announce_compiling(argparse.Namespace(), write=said.append)
        first = _load_kernel_module(source, "cached_kernel_first")
        assert first.triple(2) == 6 and first.triple(5) == 15
        assert said == ["compiling kernels (first run only)..."]
        said.clear()
        cli_output.announce_compiling(argparse.Namespace(), write=said.append)
        # A fresh dispatcher of the same source loads the machine code Numba cached on disk.
        again = _load_kernel_module(source, "cached_kernel_again")
        assert again.triple(4) == 12
        assert again.triple.stats.cache_hits and said == []
    finally:
        cli_output.announce_compiling(argparse.Namespace(quiet=True))


def test_terminal_play_says_thinking_before_a_slow_answer(monkeypatch):
    import gamut.experiments.squares_view  # noqa: F401  (registers the grid view)

    def play(after):
        monkeypatch.setattr(terminal_play, "THINKING_AFTER", after)
        lines = iter(["hint", "quit"])
        out = []
        terminal_play.PlaySession(pyspiel.load_game("poker_squares"), hint="greedy", seed=1,
                                  read=lambda prompt: next(lines), write=out.append).run()
        return out

    slow = play(0.0)
    at = slow.index("thinking...")
    assert slow[at + 1].startswith("hint: ")
    assert "thinking..." not in play(60.0)
