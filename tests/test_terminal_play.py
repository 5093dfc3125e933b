"""Terminal play: scripted sessions through the API and through a real pseudo-terminal."""

import re
import sys
from pathlib import Path

import pexpect
import pyspiel
import pytest

from gamut.experiments.terminal_play import HELP, PlaySession, TableView, register_view
from tests.chance import apply_sampled_chance

GAMUT = str(Path(sys.executable).parent / "gamut")


def scripted(game, lines, **kwargs):
    pending, output = list(lines), []

    def read(prompt):
        if not pending:
            raise EOFError
        return pending.pop(0)

    session = PlaySession(game, read=read, write=output.append, **kwargs)
    return session, session.run(), "\n".join(output)


def play_lowest(game, **kwargs):
    """A whole session in which the person always types the lowest legal action id."""
    output, holder = [], []

    def read(prompt):
        return str(min(holder[0].state.legal_actions()))

    session = PlaySession(game, read=read, write=output.append, **kwargs)
    holder.append(session)
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


def _ends_with(child, message, status):
    """Wait for ``message`` from ``child``, then for its end, which must be exit status ``status``."""
    child.expect(message)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == status


@pytest.mark.slow
def test_play_through_a_pseudo_terminal_with_ctrl_d_exit():
    child = pexpect.spawn(GAMUT, ["play", "kuhn_poker", "--seed", "3"], encoding="utf-8", timeout=60)
    child.expect("Type 'help' for commands")
    child.expect("Your move")
    child.sendline("hint")
    child.expect("hint: (Pass|Bet)")
    child.sendline("nonsense")
    child.expect("not a legal action here")
    child.sendeof()
    _ends_with(child, "bye: the game was left unfinished", 0)


def test_cli_rejects_a_bad_game_string():
    child = pexpect.spawn(GAMUT, ["play", "no_such_game"], encoding="utf-8", timeout=60)
    _ends_with(child, "GAME: unknown game .no_such_game.", 2)


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
            apply_sampled_chance(state, rng)
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
    from gamut.experiments.dice_view import FACES_NOTE, render

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
    assert sheet.endswith("your dice: 2 2 2 5 5   roll 1 of 3: 2 rerolls left\n" + FACES_NOTE)


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
    assert "    0. keep nothing         26. keep 5,6            189. keep 3,4,5,6\n" in yacht


def test_numbers_are_action_ids_and_the_listing_shows_them():
    import gamut.envs  # noqa: F401

    game = pyspiel.load_game("poker_squares")
    session, _, text = scripted(game, ["12"], seed=5)
    assert session.state.history()[1] == 12  # the card went to cell 12 (r2c2), as apply_action(12) would
    assert "   12. r2c2" in text and "    0. r0c0" in text
    assert "Your move (its number, which is the action id, or its name):" in text
    kuhn = scripted(pyspiel.load_game("kuhn_poker"), ["2"], seed=0)[2]
    assert "'2' is not a legal action here" in kuhn  # kuhn's actions are 0 and 1: 2 is no move
    assert "<number>     play the action with that number in the list: its OpenSpiel action id" in HELP


def test_tab_completes_commands_and_legal_action_names():
    import gamut.envs  # noqa: F401

    session = PlaySession(pyspiel.load_game("palace_poker"), seed=4, opponent="heuristic", hint="heuristic")
    assert session._completions("") == sorted(["actions", "board", "help", "hint", "quit", "undo"])  # not our turn
    while session.state.is_chance_node():
        session._apply(pyspiel.PlayerId.CHANCE, session._chance_outcome())
    assert session._completions("h") == ["help", "hint"]
    assert session._completions("BET") == ["bet 2 on seat 1"]
    assert session._completions("") == sorted(["actions", "board", "help", "hint", "quit", "undo", "fold",
                                                "bet 2 on seat 1"])


def test_poke_deal_ends_by_showing_the_opponents_hand():
    import gamut.envs  # noqa: F401
    from gamut.envs.poke import kernels as K
    from gamut.experiments.poke_view import hand_words

    game = pyspiel.load_game("poke")
    session, returns, text = play_lowest(game, seed=4, opponent="heuristic", hint="heuristic")
    assert returns is not None
    line = next(line for line in text.splitlines() if line.startswith("end of deal 1:"))
    # The hands of the settled deal, rebuilt from the history: the opponent's is named with its category.
    replay = game.new_initial_state()
    for action in session.state.history()[:-1]:
        replay.apply_action(action)
    opponent = hand_words(replay.state[K.S_HAND + 1])
    assert line == f"end of deal 1: the opponent held {opponent}; you held {hand_words(replay.state[K.S_HAND])}"
    assert opponent.endswith(")") and "(" in opponent


def test_hand_words_names_the_category():
    from gamut.envs.cards import parse_cards
    from gamut.experiments.poke_view import hand_words

    mask = sum(1 << int(c) for c in parse_cards("9h 9s Kd Kc 2c"))
    assert hand_words(mask) == "2c 9h 9s Kc Kd (two pair)"


@pytest.mark.slow
def test_up_recalls_the_last_line_and_tab_completes_at_a_terminal():
    child = pexpect.spawn(GAMUT, ["play", "kuhn_poker", "--seed", "3"], encoding="utf-8", timeout=60)
    child.expect("Your move")
    child.expect_exact("> ")
    child.send("boa\t\r")  # Tab completes 'board'
    child.expect("Your move")
    child.expect_exact("> ")
    child.send("\x1b[A\r")  # Up recalls 'board'
    child.expect("Your move")
    child.expect_exact("> ")
    child.send("h\t\t")  # two candidates: readline lists them
    child.expect("help +hint")
    child.sendcontrol("u")
    child.sendeof()
    _ends_with(child, "bye: the game was left unfinished", 0)


def _first_call(game, seed):
    """``(state, player, call)`` at the first battle call of a Palace Poker hand, or None.

    The hand is seeded by ``seed``: chance is sampled, and each seat bets on the first
    seat it may, or else plays a random move, until someone may call.
    """
    import numpy as np

    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            apply_sampled_chance(state, rng)
            continue
        legal = state.legal_actions()
        names = {state.action_to_string(state.current_player(), a): a for a in legal}
        if "call" in names:
            return state, state.current_player(), names["call"]
        bets = [a for name, a in names.items() if name.startswith("bet")]
        state.apply_action(bets[0] if bets else legal[rng.integers(len(legal))])
    return None


def _palace_after_call(seed):
    """A 2-seat Palace Poker state at a called battle, and the state just before the call."""
    import gamut.envs  # noqa: F401

    return _first_call(pyspiel.load_game("palace_poker"), seed)


@pytest.mark.parametrize("seed", range(6))
def test_palace_called_battle_is_narrated_with_both_hands_exclusions_and_winner(seed):
    from gamut.envs.hands import CATEGORY_NAMES, HAND_TABLE, category_of
    from gamut.envs.palace_poker import layout as L
    from gamut.envs.palace_poker.showdown import battle_winner, player_hand_value
    from gamut.experiments.palace_view import narrate

    found = _palace_after_call(seed)
    assert found is not None
    before, actor, call = found
    after = before.clone()
    after.apply_action(call)
    st = before.state
    a, d = int(st[L.S_ATTACKER]), int(st[L.S_DEFENDER])
    lines = narrate(before, actor, call, after, a)
    assert lines[0] == f"battle called: seat {a} (you) attacks seat {d}"
    for line, q, other in ((lines[1], a, d), (lines[2], d, a)):
        suit = int(st[L.S_BANNER + other]) & 3
        category = CATEGORY_NAMES[category_of(player_hand_value(st, q, suit, HAND_TABLE))]
        assert line.endswith(f": {category}")
        cards = [c for c in range(52) if st[L.S_LOC + c] in (L.LOC_PALACE + q, L.LOC_BANNER + q, L.LOC_SOLDIER + q)]
        if any(c & 3 == suit for c in cards):
            assert "not counting" in line and "the other's banner suit" in line
        else:
            assert "not counting" not in line
    winner = int(battle_winner(st, a, d, HAND_TABLE))
    if winner >= 0:
        loser = a + d - winner
        assert lines[3].startswith(f"  seat {winner}{' (you)' if winner == a else ''} wins the battle")
        assert lines[3].endswith(f"seat {loser}{' (you)' if loser == a else ''} is out")
    # A seat outside the battle is not shown the palaces.
    if before.get_game().num_players() > 2:
        assert "shown to the two players in the battle only" in narrate(before, actor, call, after, 3 - a - d)[1]


def test_palace_battles_of_others_hide_the_palaces_and_the_pot_line_names_the_winner():
    import gamut.envs  # noqa: F401
    from gamut.envs.palace_poker import layout as L
    from gamut.experiments.palace_view import narrate, pot_line

    game = pyspiel.load_game("palace_poker(players=3)")
    before, actor, call = _palace_3(game)
    after = before.clone()
    after.apply_action(call)
    a, d = int(before.state[L.S_ATTACKER]), int(before.state[L.S_DEFENDER])
    outsider = 3 - a - d
    lines = narrate(before, actor, call, after, outsider)
    assert lines[1] == "  (the palaces are shown to the two players in the battle only)"
    assert "wins the battle" in lines[2] or "equal hands" in lines[2]

    st = after.state.copy()
    st[L.S_PAYOUT:L.S_PAYOUT + 3] = [0, 58, 0]
    st[L.S_END] = L.END_LAST
    assert pot_line(st, 3, 0) == "hand over (last player): seat 1 wins the pot of 58 chips"
    assert pot_line(st, 3, 1) == "hand over (last player): seat 1 (you) wins the pot of 58 chips"
    st[L.S_PAYOUT:L.S_PAYOUT + 3] = [30, 29, 0]
    assert pot_line(st, 3, 0).endswith("the pot of 59 chips is split: seat 0 (you) 30, seat 1 29")


def _palace_3(game):
    for seed in range(50):
        found = _first_call(game, seed)
        if found is not None:
            return found
    raise AssertionError("no called battle in 50 seeded hands")


def test_a_whole_palace_session_narrates_and_ends_with_the_pot():
    import gamut.envs  # noqa: F401

    _, returns, text = play_lowest(pyspiel.load_game("palace_poker"), seed=2, opponent="heuristic",
                                   hint="heuristic")
    assert returns is not None
    assert re.search(r"hand over \([a-z_ ]+\): (seat \d( \(you\))? wins the pot of \d+ chips|the pot of \d+ chips "
                     r"is split: .*)\n", text)
    assert "pot won by" not in text


def test_dice_positions_pick_dice_by_place_and_faces_are_stated():
    from gamut.envs import dice
    from gamut.experiments.dice_view import FACES_NOTE, MOVES_HELP, parse_action, render

    game = pyspiel.load_game("poker_dice(variant=yacht12,players=1)")
    state = game.new_initial_state()
    state.apply_action(dice.roll_id((1, 3, 3, 4, 5)))
    assert parse_action(state, 0, "reroll positions 1 2") == dice.keep_id((3, 4, 5))
    assert parse_action(state, 0, "keep pos 2 3") == dice.keep_id((3, 3))
    assert parse_action(state, 0, "reroll 1 3") == dice.keep_id((3, 4, 5))  # faces: a 1 and one 3
    with pytest.raises(ValueError, match="'6' is not a position; positions are 1..5"):
        parse_action(state, 0, "keep positions 6")
    with pytest.raises(ValueError, match="position 2 is named twice"):
        parse_action(state, 0, "reroll positions 2 2")
    assert "Numbers after keep and reroll are faces, not positions" in MOVES_HELP
    assert render(state, 0).endswith("your dice: 1 3 3 4 5   roll 1 of 3: 2 rerolls left\n" + FACES_NOTE)
    state.apply_action(game.box_names.index("chance") + 462)
    state.apply_action(dice.roll_id((1, 3, 3, 4, 5)))
    for _ in range(2):
        state.apply_action(dice.keep_id(()))
        state.apply_action(dice.roll_id((1, 3, 3, 4, 5)))
    assert FACES_NOTE not in render(state, 0)  # no rerolls left: nothing to pick


def test_dice_hint_shows_the_optimal_values():
    from gamut.envs import dice

    game = pyspiel.load_game("poker_dice(variant=yacht12,players=1)")
    session = PlaySession(game, seed=0)
    session.state.apply_action(dice.roll_id((6, 6, 6, 6, 6)))
    hint = session._hint()
    assert hint.startswith("hint: box poker   (optimal; expected points to come: box poker ")
    values = [float(v) for v in re.findall(r" (\d+\.\d\d)", hint)]
    assert values == sorted(values, reverse=True) and len(values) == 5


def test_ismcts_hint_shows_search_values_and_visits():
    import gamut.envs  # noqa: F401

    game = pyspiel.load_game("palace_poker")
    session = PlaySession(game, seed=4, opponent="heuristic", hint="ismcts")
    while session.state.is_chance_node():
        session._apply(pyspiel.PlayerId.CHANCE, session._chance_outcome())
    hint = session._hint()
    match = re.fullmatch(r"hint: (.+?)   \(ismcts; mean chips won in the search \((\d+) iterations\) and visits: "
                         r"(.+)\)", hint)
    assert match
    shown = re.findall(r"([a-z0-9 ]+?) ([+-]\d+\.\d\d) \((\d+)\)(?:, |$)", match.group(3))
    assert shown[0][0] == match.group(1)  # the hint is the most visited action
    assert sum(int(v) for _, _, v in shown) == int(match.group(2))


def test_poker_squares_full_lines_name_their_hands():
    import gamut.envs  # noqa: F401
    from gamut.envs.hands import CATEGORY_NAMES

    _, returns, text = play_lowest(pyspiel.load_game("poker_squares"), seed=5, hint="greedy")
    final = text.rsplit("    r0 ", 1)[1]
    rows = re.findall(r"\|  +(\d+)  ([a-z ]+)\n", final)
    assert len(rows) == 5 and all(name in CATEGORY_NAMES for _, name in rows)
    columns = re.search(r"columns: (.*)\n", final).group(1).split(", ")
    assert [c.split()[0] for c in columns] == ["c0", "c1", "c2", "c3", "c4"]
    points = sum(int(p) for p, _ in rows) + sum(int(c.rsplit(" ", 1)[1]) for c in columns)
    assert f"score {points}\n" in final and returns == [points]


@pytest.mark.parametrize("game_string, opponent", [
    ("poke", "ismcts"), ("palace_poker", "ismcts"), ("palace_poker(players=4)", "nn_ismcts"),
    ("poker_squares(players=2)", "mc_cross"),
    ("poker_dice(variant=yacht12,players=2)", "optimal"), ("poker_dice(variant=ranking,players=2)", "mcts"),
])
def test_default_opponents_are_the_strongest_quick_agents(game_string, opponent):
    import gamut.envs  # noqa: F401

    session = PlaySession(pyspiel.load_game(game_string), seed=0)
    assert set(session.bot_names.values()) == {opponent}


def test_palace_showdown_shows_every_hand_still_in_best_first():
    import numpy as np

    import gamut.envs  # noqa: F401
    from gamut.envs.hands import HAND_TABLE
    from gamut.envs.palace_poker import layout as L
    from gamut.envs.palace_poker.showdown import player_hand_value
    from gamut.experiments.palace_view import narrate

    game = pyspiel.load_game("palace_poker(players=3)")
    rng = np.random.default_rng(0)
    state = game.new_initial_state()
    while not state.is_terminal():  # everyone stays: a quiet round ends the hand with a showdown
        if state.is_chance_node():
            apply_sampled_chance(state, rng)
            continue
        names = {state.action_to_string(state.current_player(), a): a for a in state.legal_actions()}
        before, actor = state.clone(), state.current_player()
        state.apply_action(names.get("stay", min(names.values())))
        lines = narrate(before, actor, names.get("stay", min(names.values())), state, 0)
    assert state.state[L.S_END] == L.END_QUIET
    live = [q for q in range(3) if (state.state[L.S_IN] >> q) & 1]
    assert lines[0] == "showdown (the best hand takes the pot):" and len(lines) == 1 + len(live)
    order = sorted(live, key=lambda q: -player_hand_value(state.state, q, -1, HAND_TABLE))
    assert [int(re.match(r"  seat (\d)", line).group(1)) for line in lines[1:]] == order


def test_openspiel_mcts_hint_shows_mean_returns_and_visits():
    import gamut.envs  # noqa: F401

    game = pyspiel.load_game("poker_dice(variant=ranking,players=2)")
    session = PlaySession(game, seed=1, opponent="random")
    while session.state.is_chance_node():
        session._apply(pyspiel.PlayerId.CHANCE, session._chance_outcome())
    assert session.hint_name == "mcts"
    hint = session._hint()
    match = re.fullmatch(r"hint: (.+?)   \(mcts; mean return in the search \((\d+) simulations\) and visits: (.+)\)",
                         hint)
    assert match
    shown = re.findall(r"(.+?) ([+-]\d+\.\d\d) \((\d+)\)(?:, |$)", match.group(3))
    assert shown[0][0] == match.group(1)  # the hint is the most visited action
    visits = [int(v) for _, _, v in shown]
    assert visits == sorted(visits, reverse=True) and sum(visits) <= int(match.group(2))
    assert all(-1.0 <= float(m) <= 1.0 for _, m, _ in shown)
