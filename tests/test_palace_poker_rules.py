"""Palace Poker: scripted deals built from chosen chance outcomes, one rule at a time.

Seats: seat 0 is the dealer's left (acts first); banner groups are seats
0-3, 4-7, 8-9. Moves are given by name (``action_to_string``), chance
outcomes by card name, so each scenario reads like a hand record.
"""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest

import gamut.envs.palace_poker.game  # noqa: F401  (registers palace_poker)
from gamut.envs.cards import card_str, parse_card, parse_cards
from gamut.envs.palace_poker import layout as L


def new_game(**params):
    return pyspiel.load_game("palace_poker", params)


def play(state, *moves):
    """Apply moves by name: a card at chance nodes, an action string otherwise."""
    for move in moves:
        if state.is_chance_node():
            state.apply_action(parse_card(move))
            continue
        player = state.current_player()
        names = {state.action_to_string(player, a): a for a in state.legal_actions()}
        if move not in names:
            raise AssertionError(f"{move!r} is not legal for seat {player}; legal: {sorted(names)}")
        state.apply_action(names[move])
    return state


def deal(game, banners, palaces):
    """State after the banner cards (set-aside cards included, in order) and the palaces."""
    state = game.new_initial_state()
    play(state, *banners.split())
    for cards in palaces:
        play(state, *cards.split())
    assert state.current_player() == 0
    return state


def cards_at(state, loc):
    return set(np.flatnonzero(state.state[L.S_LOC:L.S_LOC + 52] == loc).tolist())


def legal_names(state):
    player = state.current_player()
    return [state.action_to_string(player, a) for a in state.legal_actions()]


def test_antes_and_banner_groups_set_aside_repeated_suits():
    game = new_game(players=5)
    state = game.new_initial_state()
    assert state.returns() == [0.0] * 5
    assert list(state.state[L.S_CONTRIB:L.S_CONTRIB + 5]) == [1] * 5  # ante floor(2 / 2)
    play(state, "Ac", "Kc")  # Kc repeats seat 0's suit: set aside, seat 1 is dealt again
    assert state.state[L.S_LOC + parse_card("Kc")] == L.LOC_SET_ASIDE
    assert state.state[L.S_DEAL_SEAT] == 1 and len(state.chance_outcomes()) == 50
    play(state, "Kd", "Kh", "As")
    # Seat 4 starts a new group: clubs is allowed again.
    assert parse_card("2c") in [c for c, _ in state.chance_outcomes()]
    play(state, "2c")
    assert state.state[L.S_PHASE] == L.PH_PALACE
    # The set-aside Kc is gathered back with every other non-banner card.
    assert len(state.chance_outcomes()) == 47 and state.state[L.S_LOC + parse_card("Kc")] == L.LOC_DRAW


def test_deck_running_out_during_banners_reshuffles_the_set_aside_cards():
    game = new_game(players=8)
    state = game.new_initial_state()
    spades = [f"{r}s" for r in "23456789TJQK"]
    play(state, "As", *spades, "Kc", "Kd", "Kh", "Qc", "Qd", "Qh")
    # Seat 7 needs a spade but every spade left is set aside: the deck runs out.
    rest = [c for c, _ in state.chance_outcomes()]
    assert all(c % 4 != 3 for c in rest) and len(rest) == 52 - 13 - 6
    for card in rest[:-1]:
        state.apply_action(card)
    assert len(cards_at(state, L.LOC_SET_ASIDE)) == 12 + len(rest) - 1
    state.apply_action(rest[-1])
    # The deck is empty: every set-aside card is shuffled into a new deck.
    outcomes = [c for c, _ in state.chance_outcomes()]
    assert len(outcomes) == 12 + len(rest) and not cards_at(state, L.LOC_SET_ASIDE)
    play(state, "2s")
    assert state.state[L.S_BANNER + 7] == parse_card("2s") and state.state[L.S_PHASE] == L.PH_PALACE


def test_banner_suit_exclusion_decides_a_battle():
    game = new_game(players=2)
    # Seat 0 holds three hearts, which do not count against seat 1's heart banner.
    state = deal(game, "2c 3h", ["Ah Kh Qh", "4d 5s 7c"])
    assert legal_names(state) == ["fold", "bet 2 on seat 1"]  # forced battle: no stay/buy/discard
    play(state, "bet 2 on seat 1", "call")
    assert state.is_terminal() and state.returns() == [-3.0, 3.0]
    assert state.state[L.S_END] == L.END_LAST


def test_banner_suit_tie_rule_and_ties():
    # Equal hands K K 7 5; seat 0 has three clubs (its banner suit) against two diamonds.
    game = new_game(players=2)
    state = deal(game, "5c 5d", ["Kc Kh 7c", "Kd Ks 7s"])
    play(state, "bet 2 on seat 1", "call")
    assert state.returns() == [3.0, -3.0]
    # Fully tied (two own-suit cards each): the last two split the pot.
    state = deal(game, "5c 5d", ["Kc Kh 7h", "Kd Ks 7s"])
    play(state, "bet 2 on seat 1", "call")
    assert state.returns() == [0.0, 0.0] and state.state[L.S_END] == L.END_BATTLE_SPLIT
    # With a third player still in, a tie puts both battlers out.
    game3 = new_game(players=3)
    state = deal(game3, "5c 5d 2h", ["Kc Kh 7h", "Kd Ks 7s", "3c 4c 9d"])
    play(state, "bet 2 on seat 1", "call")
    assert state.is_terminal() and state.state[L.S_END] == L.END_LAST
    assert state.returns() == [-3.0, -3.0, 6.0]
    assert cards_at(state, L.LOC_DISCARD) == set(parse_cards("Kc Kh 7h Kd Ks 7s").tolist())


def test_fold_gives_banner_and_soldiers_to_the_other_battler():
    game = new_game(players=3)
    state = deal(game, "2c 3d 4h", ["5c 6c 7c", "8d 9d Td", "Jh Qh Kh"])
    play(state, "stay", "buy", "Ac", "done")
    play(state, "bet 2 on seat 1", "fold")
    assert state.state[L.S_IN] == 0b101
    assert cards_at(state, L.LOC_SOLDIER + 2) == set(parse_cards("3d Ac").tolist())
    assert cards_at(state, L.LOC_DISCARD) == set(parse_cards("8d 9d Td").tolist())
    # The taker may discard any of the new soldiers, then play goes on after seat 2.
    assert legal_names(state) == ["done", "discard 3d", "discard Ac"]
    play(state, "discard 3d", "done")
    assert state.current_player() == 0 and cards_at(state, L.LOC_SOLDIER + 2) == {parse_card("Ac")}


def _five_soldiers(state):
    # Seat 0 buys five soldiers (keeping each) while seats 1 and 2 stay.
    for card in ("2d", "3d", "4d", "5d", "6d"):
        play(state, "buy", card, "done", "stay", "stay")


def test_discard_down_to_five_after_a_buy_and_after_taking():
    game = new_game(players=3)
    state = deal(game, "As Ac Ah", ["Kc Qc Jc", "Kd Qd Jd", "Kh Qh Jh"])
    _five_soldiers(state)
    play(state, "buy", "7d")
    # Six soldiers: done is not legal; discarding in increasing order only.
    assert "done" not in legal_names(state)
    assert legal_names(state) == [f"discard {c}" for c in ("2d", "3d", "4d", "5d", "6d", "7d")]
    play(state, "discard 6d")
    assert legal_names(state) == ["done", "discard 7d"]
    play(state, "done", "buy", "8d", "done", "stay")
    # Seat 0 (5 soldiers) attacks seat 1 (1 soldier), who folds: 5 + banner + 1 = 7 soldiers.
    assert "bet 12 on seat 1" in legal_names(state)
    play(state, "bet 12 on seat 1", "fold")
    assert state.state[L.S_NSOLD] == 7
    # Two must go; a card is offered only if enough higher soldiers remain after it.
    names = legal_names(state)
    assert "done" not in names and "discard Ac" not in names and "discard 8d" in names
    play(state, "discard 2d")
    assert "discard Ac" in legal_names(state) and "done" not in legal_names(state)
    play(state, "discard 3d", "done")
    assert state.state[L.S_NSOLD] == 5


def test_paid_discard_needs_one_discard_and_counts_as_quiet():
    game = new_game(players=3)
    state = deal(game, "2c 3d 4h", ["5c 6c 7c", "8d 9d Td", "Jh Qh Kh"])
    assert "discard" not in legal_names(state)  # no soldiers yet
    play(state, "buy", "Ac", "done", "stay", "stay", "discard")
    assert legal_names(state) == ["discard Ac"]
    play(state, "discard Ac")
    assert not state.is_terminal()
    play(state, "done")
    assert state.state[L.S_CONTRIB] == 1 + 2 + 2
    # Seats 1 and 2 stayed since the buy and seat 0 discarded: a quiet round.
    assert state.is_terminal() and state.state[L.S_END] == L.END_QUIET


def test_quiet_round_showdown_ignores_banner_suits():
    game = new_game(players=3)
    # Seat 2's pair of aces needs the Ac; without clubs (seat 0's banner suit)
    # it would be ace-high and lose to seat 1's A K Q 9. A showdown excludes nothing.
    state = deal(game, "2c 9d 4h", ["5c 6c 7s", "Ad Kd Qd", "Ah Ac 8s"])
    play(state, "stay", "stay")
    assert not state.is_terminal()
    play(state, "stay")
    assert state.is_terminal() and state.state[L.S_END] == L.END_QUIET
    assert state.returns() == [-1.0, -1.0, 2.0]


def test_buy_and_bet_restart_the_quiet_round_and_fold_leaves_it():
    game = new_game(players=4)
    state = deal(game, "2c 3d 4h 5s", ["6c 7c 8c", "6d 7d 8d", "6h 7h 8h", "6s 7s 8s"])
    play(state, "stay", "stay", "buy", "Ac", "done", "stay", "stay", "stay")
    assert not state.is_terminal()
    play(state, "fold")  # seat 2 folds; 0, 1 and 3 stayed since the buy
    assert state.is_terminal() and state.state[L.S_END] == L.END_QUIET


def test_forced_battles_between_the_last_two():
    game = new_game(players=3)
    state = deal(game, "2c 3d 4h", ["5c 6c 7c", "8d 9d Td", "Jh Qh Kh"])
    play(state, "stay", "buy", "Ac", "done", "fold")
    assert legal_names(state) == ["fold", "bet 2 on seat 1"]
    play(state, "bet 2 on seat 1")
    assert legal_names(state) == ["fold", "call", "raise 4"]


def test_same_suit_ending_splits_with_odd_chips_to_the_dealers_left():
    game = new_game(players=5)
    state = deal(game, "2c 3d 4h 5s 6c", ["7c 8c 9c", "7d 8d 9d", "7h 8h 9h", "7s 8s 9s", "Tc Jc Qc"])
    play(state, "stay", "fold", "fold")
    assert not state.is_terminal()
    play(state, "fold")  # seats 0 and 4 remain, both clubs: split 5 chips as 3 + 2
    assert state.is_terminal() and state.state[L.S_END] == L.END_SAME_SUIT
    assert state.returns() == [2.0, -1.0, -1.0, -1.0, 1.0]


def test_three_way_same_suit_split_gives_odd_chips_to_the_lowest_seats():
    game = new_game(players=9)
    state = deal(game, "2c 3d 4h 5s 6c 7d 8h 9s Tc",
                 ["Jc Jd Jh", "2d 2h 2s", "3c 3h 3s", "4c 4d 4s", "5c 5d 5h", "6d 6h 6s", "7c 7h 7s",
                  "8c 8d 8s", "9c 9d 9h"])
    play(state, "stay", "buy", "Ac", "done", "fold", "fold", "stay", "fold", "fold", "fold", "stay", "stay")
    assert not state.is_terminal()
    play(state, "fold")  # seats 0, 4 and 8 remain, all clubs: 11 chips split 4 + 4 + 3
    assert state.is_terminal() and state.state[L.S_END] == L.END_SAME_SUIT
    assert state.returns() == [3.0, -3.0, -1.0, -1.0, 3.0, -1.0, -1.0, -1.0, 2.0]


def test_max_turns_cap_ends_with_a_showdown():
    game = new_game(players=3, max_turns=4)
    state = deal(game, "2c 3d 4h", ["5c 6c 7c", "Ad Ac As", "Jh Qh Kh"])
    play(state, "buy", "9s", "done", "stay", "stay")
    assert not state.is_terminal()
    play(state, "buy", "9d", "done")
    assert state.is_terminal() and state.state[L.S_END] == L.END_MAX_TURNS
    assert state.state[L.S_TURNS] == 4
    assert state.returns() == [-5.0, 6.0, -1.0]  # seat 1's three aces win the pot of 7


def test_discard_pile_becomes_the_draw_pile():
    game = new_game(players=10)
    banners = "2c 2d 2h 2s 3c 3d 3h 3s 4c 4d"
    palaces = ["5c 5d 5h", "5s 6c 6d", "6h 6s 7c", "7d 7h 7s", "8c 8d 8h", "8s 9c 9d", "9h 9s Tc",
               "Td Th Ts", "Jc Jd Jh", "Js Qc Qd"]
    state = deal(game, banners, palaces)
    pile = sorted(cards_at(state, L.LOC_DRAW))
    assert len(pile) == 12
    for card in pile:  # every buyer throws the bought card away
        play(state, "buy", card_str(card), f"discard {card_str(card)}", "done")
    assert not cards_at(state, L.LOC_DRAW) and len(cards_at(state, L.LOC_DISCARD)) == 12
    play(state, "buy")
    assert state.state[L.S_RESHUFFLES] == 1
    assert [c for c, _ in state.chance_outcomes()] == pile


def test_buy_is_illegal_when_both_piles_are_empty():
    game = new_game(players=10)
    state = deal(game, "2c 2d 2h 2s 3c 3d 3h 3s 4c 4d",
                 ["5c 5d 5h", "5s 6c 6d", "6h 6s 7c", "7d 7h 7s", "8c 8d 8h", "8s 9c 9d", "9h 9s Tc",
                  "Td Th Ts", "Jc Jd Jh", "Js Qc Qd"])
    for card in sorted(cards_at(state, L.LOC_DRAW)):
        play(state, "buy", card_str(card), "done")
    assert "buy" not in legal_names(state) and "stay" in legal_names(state)


def test_illegal_action_names_the_action_and_the_legal_ones():
    game = new_game(players=3)
    state = deal(game, "2c 3d 4h", ["5c 6c 7c", "8d 9d Td", "Jh Qh Kh"])
    with pytest.raises(ValueError, match=r"action 4 \(call\) is not legal.*0 \(stay\).*1 \(fold\)"):
        state.apply_action(L.CALL)
    with pytest.raises(ValueError, match="not legal"):
        game.new_initial_state().apply_action(52)


def test_limit_raises_stop_at_max_raises():
    game = new_game(players=2)
    state = deal(game, "2c 3d", ["5c 6c 7c", "8d 9d Td"])
    play(state, "bet 2 on seat 1", "raise 4")  # seat 1 calls 2 and raises 4 (2 s, no soldiers)
    assert legal_names(state) == ["fold", "call", "raise 4"]
    play(state, "raise 4", "raise 4")
    assert state.state[L.S_RAISES] == 3 and legal_names(state) == ["fold", "call"]
    play(state, "call")
    assert list(state.state[L.S_CONTRIB:L.S_CONTRIB + 2]) == [1 + 2 + 8 + 4, 1 + 6 + 8]
    assert state.is_terminal()


def test_no_limit_levels_and_all_in_for_less():
    game = new_game(players=2, betting="no_limit", stack=10)  # 20 chips, 19 after the ante
    state = deal(game, "2c 3d", ["5c 6c 7c", "8d 9d Td"])
    assert legal_names(state) == ["fold", "bet 2 on seat 1", "bet 4 on seat 1", "bet 8 on seat 1",
                                  "bet 16 on seat 1", "bet all-in on seat 1"]
    play(state, "bet 16 on seat 1")
    assert legal_names(state) == ["fold", "call", "raise 4", "raise 8", "raise 16", "raise all-in"]
    play(state, "raise 16")  # pays 2 + 16
    assert legal_names(state) == ["fold", "call"]  # 3 chips left: cannot raise, calls all-in for less
    play(state, "call")
    assert list(state.state[L.S_STACK:L.S_STACK + 2]) == [0, 1]
    assert list(state.state[L.S_CONTRIB:L.S_CONTRIB + 2]) == [20, 19]


def test_no_raise_against_an_all_in_bet_and_betting_with_nothing_left():
    game = new_game(players=4, betting="no_limit", stack=5)  # 10 chips, 9 after the ante
    state = deal(game, "2c 3d 4h 5s", ["Ac Ad As", "5d 6d 7d", "8h 9h Th", "8s 9s Ts"])
    play(state, "bet all-in on seat 1")
    assert legal_names(state) == ["fold", "call"]
    play(state, "call")  # seat 0's three aces win; seat 0 has no chips left
    assert state.state[L.S_STACK] == 0 and state.state[L.S_IN] == 0b1101
    play(state, "done", "stay", "stay")
    # With nothing left seat 0 cannot buy or discard; it can still bet all-in for 0 chips.
    assert legal_names(state) == ["stay", "fold", "bet all-in on seat 2", "bet all-in on seat 3"]
    play(state, "bet all-in on seat 2")
    assert state.state[L.S_CONTRIB] == 10 and legal_names(state) == ["fold", "call"]


def _chips(state, n):
    return (list(state.state[L.S_STACK:L.S_STACK + n]), list(state.state[L.S_CONTRIB:L.S_CONTRIB + n]))


def test_fold_to_a_raise_returns_the_uncalled_raise_to_the_raiser():
    game = new_game(players=3)  # 200 chips, 199 after the ante
    state = deal(game, "2c 3d 4h", ["5c 6c 7c", "8d 9d Td", "Jh Qh Kh"])
    play(state, "bet 2 on seat 1", "raise 4")  # seat 1 calls 2 and raises 4: 6 chips
    assert _chips(state, 3) == ([197, 193, 199], [3, 7, 1])
    play(state, "fold")  # seat 0 folds to the raise: seat 1 takes its 4 chips back
    assert _chips(state, 3) == ([197, 197, 199], [3, 3, 1])
    # Seat 1 took seat 0's banner (one soldier: its bet is 4); the last two battle and
    # seat 2 wins the same way: seat 1 loses its bet, not seat 2's raise.
    play(state, "done", "bet 4 on seat 2", "raise 4", "fold")
    assert state.is_terminal()
    assert _chips(state, 3) == ([197, 193, 197], [3, 7, 3])
    assert state.returns() == [-3.0, -7.0, 10.0]  # the rule of version 1 gave [-3, -11, 14]


def test_fold_to_a_re_raise_returns_it_to_the_attacker_and_chips_are_conserved():
    game = new_game(players=3)
    state = deal(game, "2c 3d 4h", ["5c 6c 7c", "8d 9d Td", "Jh Qh Kh"])
    play(state, "bet 2 on seat 1", "raise 4", "raise 4")  # seat 0 calls 4 and re-raises 4
    assert _chips(state, 3) == ([189, 193, 199], [11, 7, 1])
    play(state, "fold")
    assert _chips(state, 3) == ([193, 193, 199], [7, 7, 1])
    stacks, put = _chips(state, 3)
    assert sum(stacks) + sum(put) == 3 * 200


def test_fold_to_an_all_in_raise_returns_what_the_folder_did_not_call():
    game = new_game(players=3, betting="no_limit", stack=10)  # 20 chips, 19 after the ante
    state = deal(game, "2c 3d 4h", ["5c 6c 7c", "8d 9d Td", "Jh Qh Kh"])
    play(state, "bet 2 on seat 1", "raise all-in")  # seat 1 pays 19: 2 to call, 17 raised
    play(state, "fold")
    assert _chips(state, 3) == ([17, 17, 19], [3, 3, 1])
