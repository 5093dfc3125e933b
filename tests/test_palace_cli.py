"""gamut palace match / play, the Palace terminal view and the palace_tournament experiment (quick settings)."""

from __future__ import annotations

import json

import numpy as np
import pyspiel
import pytest

import gamut.envs.palace_poker.game  # noqa: F401  (registers palace_poker)
import gamut.experiments.palace_view as view
from gamut.envs.cards import card_str
from gamut.envs.palace_poker import layout as L
from gamut.experiments.cli import main
from gamut.experiments.commands.palace import parse_options
from gamut.experiments.terminal_play import PlaySession, view_for
from tests.chance import random_move


def _last_json(capsys):
    return json.loads(capsys.readouterr().out.strip().splitlines()[-1])


def test_match_reports_each_agent_with_a_ci(capsys):
    argv = ["palace", "match", "--agents", "heuristic", "random", "--players", "4", "--hands", "12",
            "--seed", "3", "--json"]
    assert main(argv) == 0
    out = _last_json(capsys)
    assert out["n"] == 12 and out["hands_played"] == 48
    assert out["lineup"] == ["heuristic", "random", "heuristic", "random"]
    for name in ("heuristic", "random"):
        est = out[name]
        assert est["ci95_low"] <= est["mean_chips"] <= est["ci95_high"]
    assert out["heuristic"]["mean_chips"] == pytest.approx(-out["random"]["mean_chips"])
    assert main(argv) == 0
    again = _last_json(capsys)
    assert again["heuristic"] == out["heuristic"]


def test_match_passes_agent_options(capsys):
    assert main(["palace", "match", "--agents", "ismcts", "heuristic", "--hands", "2", "--seed", "1",
                 "--option", "ismcts.iterations=20", "--option", "heuristic.attack=0.6", "--json"]) == 0
    out = _last_json(capsys)
    assert out["n"] == 2 and set(out) >= {"ismcts", "heuristic"}


@pytest.mark.parametrize("argv, message", [
    (["--agents", "heuristic", "nonesuch"], "unknown agent 'nonesuch'"),
    (["--agents", "heuristic", "random", "--hands", "0"], "argument --hands: expected a whole number in 1.."),
    (["--agents", "heuristic", "--players", "11"], "argument --players: expected a whole number in 2..10"),
    (["--agents", "a", "b", "c", "--players", "2"], "3 agents do not fit 2 seats"),
    (["--agents", "heuristic", "random", "--option", "heuristic.colour=1"], "no option 'colour'"),
    (["--agents", "heuristic", "random", "--option", "ismcts.iterations=5"], "not one of --agents"),
])
def test_match_bad_input_exits_2(argv, message, capsys):
    assert main(["palace", "match", *argv]) == 2
    assert message in capsys.readouterr().err


def test_parse_options_types():
    assert parse_options(["a.x=3", "a.y=0.5", "b.z=random"], ["a", "b"]) == {"a": {"x": 3, "y": 0.5},
                                                                            "b": {"z": "random"}}
    with pytest.raises(ValueError, match="AGENT.NAME=VALUE"):
        parse_options(["x=3"], ["a"])


def _scripted(lines):
    queue = list(lines)
    written = []

    def read(prompt):
        if not queue:
            raise EOFError
        return queue.pop(0)

    return read, written.append, written


def test_play_a_hand_to_the_end_against_the_heuristic():
    game = pyspiel.load_game("palace_poker(players=3)")
    read, write, written = _scripted(["hint", "actions"] + ["1"] * 200)
    returns = PlaySession(game, human=0, seed=4, read=read, write=write).run()
    assert returns is not None and abs(sum(returns)) < 1e-9
    text = "\n".join(written)
    assert "hint: " in text and "your palace:" in text and "hand over" in text


def test_view_shows_the_table_but_no_hidden_palace():
    game = pyspiel.load_game("palace_poker(players=4)")
    assert view_for(game).render is view.render
    rng = np.random.default_rng(1)
    for _ in range(30):
        state = game.new_initial_state()
        while not state.is_terminal() and len(state.history()) < rng.integers(20, 60):
            random_move(state, rng)
        text = view.render(state, 1)
        st = state.state
        assert f"pot {int(st[L.S_CONTRIB:L.S_CONTRIB + 4].sum())}" in text
        known = int(st[L.S_PUBLIC]) | int(st[L.S_KNOWN + 1])
        for c in range(52):
            loc = int(st[L.S_LOC + c])
            if loc in (L.LOC_PALACE + 0, L.LOC_PALACE + 2, L.LOC_PALACE + 3) and not (known >> c) & 1:
                assert card_str(c) not in text
            if loc == L.LOC_PALACE + 1 or loc == L.LOC_SOLDIER + 2:
                assert card_str(c) in text
        for q in range(4):
            assert ("out" in text.splitlines()[2 + q]) == (not (st[L.S_IN] >> q) & 1)


@pytest.mark.slow
def test_palace_tournament_quick_profile(tmp_path, capsys):
    assert main(["run", "palace_tournament", "--quick", "--out", str(tmp_path), "--workers", "1",
                 "--no-progress", "--json"]) == 0
    folder = tmp_path / "quick" / "palace_tournament"
    import pandas as pd

    standings = pd.read_csv(folder / "standings.csv")
    assert set(standings["players"]) == {2, 4}
    assert (standings["a_mean_chips"] + standings["b_mean_chips"]).abs().max() < 1e-9
    assert (folder / "standings.png").exists()
