"""Terminal play: scripted sessions through the API and through a real pseudo-terminal."""

import sys
from pathlib import Path

import pexpect
import pyspiel
import pytest

from experiments.terminal_play import PlaySession, TableView, register_view

GAMUT = str(Path(sys.executable).parent / "gamut")


def scripted(game, lines, **kwargs):
    pending, output = list(lines), []

    def read(prompt):
        if not pending:
            raise EOFError
        return pending.pop(0)

    session = PlaySession(game, read=read, write=output.append, **kwargs)
    return session, session.run(), "\n".join(output)


def test_a_full_kuhn_game_against_an_agent_ends_with_returns():
    game = pyspiel.load_game("kuhn_poker")
    session, returns, text = scripted(game, ["1", "1", "1"], seed=3)
    assert returns is not None and sum(returns) == 0
    assert "game over: you" in text


def test_same_seed_same_deal_and_same_opponent_play():
    game = pyspiel.load_game("kuhn_poker")
    first = scripted(game, ["2", "2"], seed=8)[2]
    second = scripted(game, ["2", "2"], seed=8)[2]
    assert first == second


def test_bad_input_is_explained_and_changes_nothing():
    game = pyspiel.load_game("kuhn_poker")
    session, returns, text = scripted(game, ["fold", "9", "help"], seed=1)
    assert "'fold' is not a legal action here" in text and "'9' is not a legal action here" in text
    assert "Commands:" in text and returns is None
    assert session.state.current_player() == 0 and len(session.state.history()) == 2


def test_undo_where_allowed_restores_the_position_and_is_refused_elsewhere():
    register_view("tic_tac_toe", TableView(allows_undo=True))
    game = pyspiel.load_game("tic_tac_toe")
    session, _, text = scripted(game, ["x(1,1)", "undo"], seed=0)
    assert "your last move was taken back" in text
    assert session.state.history() == []
    kuhn = scripted(pyspiel.load_game("kuhn_poker"), ["undo"], seed=0)[2]
    assert "undo is not available" in kuhn


def test_hint_names_a_legal_action():
    _, _, text = scripted(pyspiel.load_game("kuhn_poker"), ["hint"], seed=0)
    hint_line = next(line for line in text.splitlines() if line.startswith("hint:"))
    assert hint_line.split()[1] in ("Pass", "Bet")


def test_bad_seat_is_rejected():
    with pytest.raises(ValueError, match="seat 5 is not a seat"):
        PlaySession(pyspiel.load_game("kuhn_poker"), human=5)


def test_play_through_a_pseudo_terminal_with_ctrl_d_exit():
    child = pexpect.spawn(GAMUT, ["play", "kuhn_poker", "--seed", "3"], encoding="utf-8", timeout=60)
    child.expect("Type 'help' for commands")
    child.expect("Your move:")
    child.sendline("hint")
    child.expect("hint: (Pass|Bet)")
    child.sendline("nonsense")
    child.expect("not a legal action here")
    child.sendeof()
    child.expect("bye: the game was left unfinished")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_cli_rejects_a_bad_game_string():
    child = pexpect.spawn(GAMUT, ["play", "no_such_game"], encoding="utf-8", timeout=60)
    child.expect("does not load")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 2


@pytest.mark.parametrize("short_name", ["poke", "poker_squares", "palace_poker"])
def test_toolkit_games_get_their_own_view_through_gamut_play(short_name):
    from experiments.terminal_play import view_for

    assert view_for(pyspiel.load_game(short_name)) != TableView()
