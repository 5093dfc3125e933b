"""Terminal play: scripted sessions through the API and through a real pseudo-terminal."""

import re
import sys
from pathlib import Path

import pexpect
import pyspiel
import pytest

from gamut.experiments.terminal_play import PlaySession, TableView, register_view

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
    child.expect("GAME: unknown game .no_such_game.")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 2


@pytest.mark.parametrize("short_name", ["poke", "poker_squares", "palace_poker", "poker_dice"])
def test_toolkit_games_get_their_own_view_through_gamut_play(short_name):
    from gamut.experiments.terminal_play import view_for

    assert view_for(pyspiel.load_game(short_name)) != TableView()


def _random_dice_state(game_string, seed, stop_after=None):
    import numpy as np

    import gamut.envs.poker_dice.game  # noqa: F401

    game = pyspiel.load_game(game_string)
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    while not state.is_terminal() and (stop_after is None or len(state.history()) < stop_after):
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(outcomes, p=probs)))
        else:
            legal = state.legal_actions()
            state.apply_action(legal[rng.integers(len(legal))])
    return state


@pytest.mark.parametrize("game_string", [
    "poker_dice(variant=classic,players=2)", "poker_dice(variant=classic_banked,players=1)",
    "poker_dice(variant=yahtzee,players=2)", "poker_dice(variant=yacht12,players=3)",
])
def test_dice_sheet_adds_up_to_each_players_score(game_string):
    from gamut.envs.poker_dice import kernels as K
    from gamut.experiments.dice_view import render, sheet_entries

    for seed in range(20):
        state = _random_dice_state(game_string, seed)
        t, entries = state.get_game().tables, sheet_entries(state)
        for i in range(state.get_game().num_players()):
            base = K.S_PLAYERS + K.PLAYER_FIELDS * i
            bank = int(state.state[base + K.F_AUX]) * t.bank_value if t.aux_kind == 2 else 0
            boxes = entries["boxes"][i]
            assert None not in boxes
            total = sum(boxes) + (entries["upper_bonus"][i] or 0) + entries["repeat"][i] + bank
            assert total == state.state[base + K.F_SCORE]
        sheet = render(state, 0)
        assert "total" in sheet and "[" not in sheet and "dice:" not in sheet


def test_dice_sheet_shows_what_the_dice_would_score_in_each_open_box():
    from gamut.envs import dice
    from gamut.experiments.dice_view import render

    game = pyspiel.load_game("poker_dice(variant=yacht12,players=1)")
    state = game.new_initial_state()
    state.apply_action(dice.roll_id((2, 2, 2, 5, 5)))
    state.apply_action(game.box_names.index("twos") + 462)  # twos: 6
    state.apply_action(dice.roll_id((2, 2, 2, 5, 5)))
    sheet = render(state, 0)
    rows = {line[:28].strip(): line[28:].strip() for line in sheet.splitlines()[2:14]}
    assert rows["twos"] == "6" and rows["fives"] == "[10]" and rows["full house"] == "[16]"
    assert rows["poker"] == "[0]" and rows["chance"] == "[16]"
    assert "total                            6" in sheet
    assert sheet.endswith("your dice: 2 2 2 5 5   roll 1 of 3: 2 rerolls left")


def test_classic_stage_and_banked_rolls_are_shown():
    from gamut.envs import dice
    from gamut.experiments.dice_view import render

    game = pyspiel.load_game("poker_dice(variant=classic_banked,players=1)")
    state = game.new_initial_state()
    state.apply_action(dice.roll_id((6, 6, 6, 6, 1)))
    sheet = render(state, 0)
    # Lower boxes wait for the upper ones: shown open ('.'), not with points.
    assert [line.split()[-1] for line in sheet.splitlines() if line.startswith("  poker ")] == ["."]
    rows = {line[:28].strip(): line[28:].strip() for line in sheet.splitlines()[2:]}
    # Banked upper boxes score min(0, (n - 3) * face): four sixes 0, one one -2.
    assert rows["sixes"] == "[0]" and rows["ones"] == "[-2]" and rows["upper bonus (+50 if 0+)"] == "-"
    assert rows["banked rolls (3 pts each)"] == "0"
    assert "(+0 banked, usable once the upper boxes are filled)" in sheet


@pytest.mark.parametrize("text, expected", [
    ("keep 3 3 5", (3, 3, 5)), ("keep 533", (3, 3, 5)), ("Keep 5,3,3", (3, 3, 5)), ("hold 1", (1,)),
    ("keep", ()), ("keep nothing", ()), ("reroll all", ()), ("reroll 1 4", (3, 3, 5)),
])
def test_dice_keeps_typed_in_friendly_forms(text, expected):
    from gamut.envs import dice
    from gamut.experiments.dice_view import parse_action

    game = pyspiel.load_game("poker_dice(variant=yacht12,players=1)")
    state = game.new_initial_state()
    state.apply_action(dice.roll_id((1, 3, 3, 4, 5)))
    assert parse_action(state, 0, text) == dice.keep_id(expected)


@pytest.mark.parametrize("text, message", [
    ("keep 6", "cannot keep 6: the dice showing are 1 3 3 4 5"),
    ("keep 3 3 3", "cannot keep 3 3 3"),
    ("keep 7", "'7' is not a die face"),
    ("keep 1 3 3 4 5", "keeping all five dice rerolls nothing; record them in a box"),
    ("reroll 6", "cannot reroll 6"),
    ("four", "'four' could be fours or four of a kind"),
])
def test_dice_moves_that_are_not_legal_are_explained(text, message):
    from gamut.envs import dice
    from gamut.experiments.dice_view import parse_action

    game = pyspiel.load_game("poker_dice(variant=yacht12,players=1)")
    state = game.new_initial_state()
    state.apply_action(dice.roll_id((1, 3, 3, 4, 5)))
    with pytest.raises(ValueError, match=re.escape(message)):
        parse_action(state, 0, text)


def test_dice_boxes_by_name_or_unique_start_and_why_not():
    from gamut.envs import dice
    from gamut.experiments.dice_view import parse_action

    game = pyspiel.load_game("poker_dice(variant=classic,players=1)")
    state = game.new_initial_state()
    state.apply_action(dice.roll_id((1, 3, 3, 4, 5)))
    assert parse_action(state, 0, "box threes") == 462 + game.box_names.index("threes")
    assert parse_action(state, 0, "six") == 462 + game.box_names.index("sixes")
    assert parse_action(state, 0, "sevens") is None
    with pytest.raises(ValueError, match="box small straight may not take these dice now; boxes that may: ones"):
        parse_action(state, 0, "small_straight")
    with pytest.raises(ValueError, match="box full house may not take these dice now"):
        parse_action(state, 0, "Full-House")
    for _ in range(2):
        state.apply_action(dice.keep_id(()))
        state.apply_action(dice.roll_id((1, 3, 3, 4, 5)))
    with pytest.raises(ValueError, match="no rerolls left this turn"):
        parse_action(state, 0, "keep 3 3")
    state.apply_action(462 + game.box_names.index("threes"))
    state.apply_action(dice.roll_id((1, 3, 3, 4, 5)))
    with pytest.raises(ValueError, match="box threes is already filled"):
        parse_action(state, 0, "threes")


def test_dice_ranking_game_stop_and_the_dice_that_must_stay():
    from gamut.envs import dice
    from gamut.envs.poker_dice import kernels as K
    from gamut.experiments.dice_view import parse_action, render

    game = pyspiel.load_game("poker_dice(variant=ranking,players=2)")
    state = game.new_initial_state()
    state.apply_action(dice.roll_id((2, 2, 4, 5, 6)))
    state.apply_action(dice.keep_id((2, 2)))
    state.apply_action(dice.roll_id((1, 2, 2, 2, 6)))
    assert parse_action(state, 0, "stand") == K.STOP
    with pytest.raises(ValueError, match=re.escape("the dice kept at the first reroll (2 2) must stay kept")):
        parse_action(state, 0, "keep 6")
    assert "kept at the first reroll, must stay: 2 2" in render(state, 1)
    assert render(state, 1).startswith("Poker dice, ranking game: 2 players")


def test_preferred_agents_fall_back_and_say_why(monkeypatch):
    import gamut.experiments.terminal_play as terminal_play

    real = terminal_play.make_bot

    def make_bot(game, name, **kwargs):
        if name == "optimal":
            raise ValueError("its table is stale")
        return real(game, name, **kwargs)

    monkeypatch.setattr(terminal_play, "make_bot", make_bot)
    game = pyspiel.load_game("poker_dice(variant=yacht12,players=2)")
    session, _, text = scripted(game, [], seed=0)
    assert session.hint_name == "mcts" and session.bot_names == {1: "mcts"}
    assert text.count("hint agent skipped (optimal: its table is stale)") == 1
    assert "agents: mcts answers 'hint'; seat 1 is mcts" in text
    # An agent the person names must work: no silent substitute.
    with pytest.raises(ValueError, match="optimal: its table is stale"):
        PlaySession(game, hint="optimal")


def test_the_ranking_game_gets_the_next_best_agent_and_long_listings_use_columns():
    game = pyspiel.load_game("poker_dice(variant=ranking,players=2)")
    session, _, text = scripted(game, [], seed=2)
    assert session.hint_name == "mcts"  # 'optimal' plays scorecards only
    yacht = scripted(pyspiel.load_game("poker_dice(variant=yacht12,players=1)"), [], seed=1)[2]
    assert "    1. keep nothing         16. keep 5,6             31. keep 3,4,5,6\n" in yacht
