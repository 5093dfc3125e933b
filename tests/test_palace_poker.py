"""Palace Poker as a pyspiel game: conformance, parameters, information, tensors, resampling, playouts."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import numpy as np
import pyspiel
import pytest

import gamut.envs.palace_poker.game  # noqa: F401  (registers palace_poker)
from gamut.benchmarks import palace_poker as bench
from gamut.envs.cards import parse_card
from gamut.envs.palace_poker import rollout, tensors
from gamut.envs.palace_poker import layout as L
from gamut.envs.palace_poker import GAME
from gamut.envs.palace_poker.game import DEFAULT_PARAMS, check_params
from gamut.envs.versions import game_versions
from tests.chance import apply_uniform_chance, play_game, random_move

DOC = Path(__file__).resolve().parents[1] / "docs" / "games" / "palace_poker.md"


def random_state(game, rng, min_moves, stay_bias=0.0, max_moves=10_000):
    """Play random moves (preferring stay/buy/done with probability ``stay_bias``)."""
    state = game.new_initial_state()
    target = rng.integers(min_moves, max_moves + 1)
    while not state.is_terminal() and len(state.history()) < target:
        if state.is_chance_node():
            random_move(state, rng)
        else:
            legal = state.legal_actions()
            quiet = [a for a in legal if a in (L.STAY, L.BUY, L.DONE)]
            pool = quiet if quiet and rng.random() < stay_bias else legal
            state.apply_action(pool[rng.integers(len(pool))])
    return state


@pytest.mark.parametrize("betting", ["limit", "no_limit"])
@pytest.mark.parametrize("players,sims", [(2, 40), (3, 20), (5, 12), (10, 8)])
@pytest.mark.slow
def test_random_sim_test(players, sims, betting):
    game = pyspiel.load_game("palace_poker", {"players": players, "betting": betting})
    pyspiel.random_sim_test(game, num_sims=sims, serialize=True, verbose=False)


def test_parameters_defaults_and_validation():
    game = pyspiel.load_game("palace_poker")
    assert game.get_parameters() == DEFAULT_PARAMS
    assert game_versions()["palace_poker"] == GAME.version
    bad = [({"players": 1}, "players"), ({"players": 11}, "players"), ({"betting": "pot"}, "betting"),
           ({"small_bet": 0}, "small_bet"), ({"big_bet": 1}, "big_bet"), ({"stack": 0}, "stack"),
           ({"max_raises": -1}, "max_raises"), ({"max_turns": 0}, "max_turns"), ({"colour": 1}, "colour"),
           ({"players": True}, "players")]
    for params, name in bad:
        with pytest.raises(ValueError, match=name):
            check_params(params)


@pytest.mark.parametrize("players,betting", [(2, "limit"), (4, "no_limit"), (10, "no_limit")])
def test_declared_sizes(players, betting):
    game = pyspiel.load_game("palace_poker", {"players": players, "betting": betting})
    cfg = game.cfg
    # no_limit defaults: bet levels 2, 4, ..., 128 < 200 (7), raise levels 4, ..., 128 (6).
    bet_levels, raise_levels = (7, 6) if betting == "no_limit" else (1, 1)
    assert (cfg[L.C_BET_LEVELS], cfg[L.C_RAISE_LEVELS]) == (bet_levels, raise_levels)
    assert game.num_distinct_actions() == 59 + raise_levels + players * (bet_levels + 1)
    assert game.max_game_length() == 400 * (1 + 1 + 12 + 3)
    assert game.min_utility() == -200 and game.max_utility() == (players - 1) * 200
    assert game.observation_tensor_size() == 164 * players + 174
    assert game.information_state_tensor_size() == 169 * players + 174


def test_documented_sizes_and_parameters_match_the_game():
    text = DOC.read_text()
    for players in (2, 3, 5, 10):
        game = pyspiel.load_game("palace_poker", {"players": players, "betting": "no_limit"})
        n = players
        # The doc's formulas, evaluated for this n.
        obs = int(eval(re.search(r"observation tensor size:\s*`([^`]*)`", text).group(1)))
        info = int(eval(re.search(r"information-state tensor size:\s*`([^`]*)`", text).group(1)))
        assert (obs, info) == (game.observation_tensor_size(), game.information_state_tensor_size())
        assert f"| {n} | {game.num_distinct_actions()} |" in text
    for name, value in DEFAULT_PARAMS.items():
        assert f"| `{name}` | `{value}` |" in text


def test_serialization_round_trip_keeps_everything():
    rng = np.random.default_rng(5)
    for params in ({"players": 3}, {"players": 6, "betting": "no_limit"}):
        game = pyspiel.load_game("palace_poker", params)
        for _ in range(10):
            state = random_state(game, rng, 12, stay_bias=0.6, max_moves=150)
            text = pyspiel.serialize_game_and_state(game, state)
            game2, state2 = pyspiel.deserialize_game_and_state(text)
            assert state2.history() == state.history()
            np.testing.assert_array_equal(state2.state, state.state)
            assert str(state2) == str(state)
            for p in range(game.num_players()):
                assert state2.information_state_string(p) == state.information_state_string(p)
                assert state2.observation_tensor(p) == state.observation_tensor(p)
            if not state.is_terminal():
                assert state2.legal_actions() == state.legal_actions()


def test_information_state_strings_have_perfect_recall_and_hide_palaces():
    rng = np.random.default_rng(11)
    game = pyspiel.load_game("palace_poker", {"players": 4})
    for _ in range(5):
        state = game.new_initial_state()
        previous = [state.information_state_string(p) for p in range(4)]
        while not state.is_terminal():
            random_move(state, rng)
            current = [state.information_state_string(p) for p in range(4)]
            for p in range(4):
                assert current[p].startswith(previous[p])  # nothing observed is ever forgotten
            previous = current
    # Another seat's palace card is invisible; one's own is not.
    deal = [parse_card(c) for c in "2c 3d 4h 5s Ac Kc Qc Ad Kd Qd Ah Kh Qh As Ks Qs".split()]
    other = deal[:-1] + [parse_card("Js")]
    strings = []
    for cards in (deal, other):
        state = game.new_initial_state()
        for c in cards:
            state.apply_action(c)
        strings.append([state.information_state_string(p) for p in range(4)])
    assert [a == b for a, b in zip(*strings)] == [True, True, True, False]


def _battle_state():
    game = pyspiel.load_game("palace_poker", {"players": 3})
    state = game.new_initial_state()
    for c in "2c 3d 4h Ac Ad As 5d 6d 7s 8h 9h Th".split():
        state.apply_action(parse_card(c))
    bet = next(a for a in state.legal_actions() if state.action_to_string(0, a) == "bet 2 on seat 1")
    state.apply_action(bet)
    state.apply_action(L.CALL)  # seat 0's three aces beat seat 1
    return game, state


def test_called_battle_shows_palaces_to_the_battlers_only():
    game, state = _battle_state()
    assert "shown:1:5d,6d,7s" in state.information_state_string(0)
    assert "shown:0:Ac,Ad,As" in state.information_state_string(1)
    assert "shown" not in state.information_state_string(2)
    assert "out:1" in state.information_state_string(2)
    observer = game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=False))
    loser_palace = [parse_card(c) for c in ("5d", "6d", "7s")]
    discard_column = L.LOC_DISCARD
    observer.set_from(state, 0)
    assert all(observer.dict["cards"][c, discard_column] == 1 for c in loser_palace)
    observer.set_from(state, 2)
    assert not observer.dict["cards"][loser_palace].any()
    # Seat 2 knows only its own palace among the palaces (3 + 2 + 2 = columns of seat 2).
    palace_of_2 = observer.dict["cards"][:, 3 + 3 + 2]
    assert sorted(np.flatnonzero(palace_of_2)) == [parse_card(c) for c in ("8h", "9h", "Th")]
    assert not observer.dict["cards"][:, 3 + 3 + 0].any()


def test_tensor_views_and_values():
    game = pyspiel.load_game("palace_poker", {"players": 4})
    rng = np.random.default_rng(2)
    for perfect_recall in (False, True):
        observer = game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=perfect_recall))
        names = [name for name, _ in tensors.tensor_blocks(4, perfect_recall)]
        assert list(observer.dict) == names
        for _ in range(20):
            state = random_state(game, rng, 12, stay_bias=0.5, max_moves=120)
            for p in range(4):
                observer.set_from(state, p)
                cards = observer.dict["cards"]
                assert cards.sum(axis=1).max() <= 1  # one known location at most
                assert observer.dict["observer"][p] == 1 and observer.dict["observer"].sum() == 1
                np.testing.assert_allclose(observer.dict["contribution"] * 200.0,
                                           state.state[L.S_CONTRIB:L.S_CONTRIB + 4], rtol=1e-6)
                assert observer.tensor.min() >= 0.0 and observer.tensor.max() <= 1.0
                own = np.flatnonzero(state.state[L.S_LOC:L.S_LOC + 52] == L.LOC_PALACE + p)
                assert cards[own, 3 + 4 + p].all()
                if perfect_recall:
                    np.testing.assert_array_equal(observer.tensor, state.information_state_tensor(p))
                else:
                    np.testing.assert_array_equal(observer.tensor, state.observation_tensor(p))


@pytest.mark.parametrize("params", [{"players": 2}, {"players": 5, "betting": "no_limit"}, {"players": 10}])
def test_resample_keeps_the_information_state(params):
    game = pyspiel.load_game("palace_poker", params)
    n = game.num_players()
    rng = np.random.default_rng(n)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    changed = 0
    for k in range(12):
        state = random_state(game, rng, 4 * n + 2, stay_bias=0.85 if k % 2 else 0.3, max_moves=400)
        for p in range(n):
            new = state.resample_from_infostate(p, sampler)
            assert new.information_state_string(p) == state.information_state_string(p)
            assert new.observation_tensor(p) == state.observation_tensor(p)
            assert new.information_state_tensor(p) == state.information_state_tensor(p)
            own = state.state[L.S_LOC:L.S_LOC + 52] == L.LOC_PALACE + p
            np.testing.assert_array_equal(new.state[L.S_LOC:L.S_LOC + 52] == L.LOC_PALACE + p, own)
            changed += new.history() != state.history()
    assert changed > 0


def test_resample_after_reshuffles_and_battles_between_others():
    # Ten players who mostly buy and stay empty the 12-card draw pile often.
    game = pyspiel.load_game("palace_poker", {"players": 10})
    rng = np.random.default_rng(3)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    reshuffled = 0
    for _ in range(6):
        state = random_state(game, rng, 150, stay_bias=0.9, max_moves=600)
        reshuffled += state.state[L.S_RESHUFFLES] > 0
        for p in range(10):
            new = state.resample_from_infostate(p, sampler)
            assert new.information_state_string(p) == state.information_state_string(p)
    assert reshuffled >= 2


def test_resampled_hidden_card_is_uniform():
    # Two players right after the deal: seat 0 sees 2 banners and 3 palace cards,
    # so each opponent palace card is uniform over the 47 others.
    game = pyspiel.load_game("palace_poker", {"players": 2})
    state = game.new_initial_state()
    for c in "2c 3d Ac Ad As Kc Kd Ks".split():
        state.apply_action(parse_card(c))
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    counts = np.zeros(52)
    draws = 1500
    for _ in range(draws):
        new = state.resample_from_infostate(0, sampler)
        counts[np.flatnonzero(new.state[L.S_LOC:L.S_LOC + 52] == L.LOC_PALACE + 1)] += 1
    seen = [parse_card(c) for c in "2c 3d Ac Ad As".split()]
    assert counts[seen].sum() == 0
    expected = 3 * draws / 47
    chi2 = ((np.delete(counts, seen) - expected) ** 2 / expected).sum()
    assert chi2 < 85  # 46 degrees of freedom: P(chi2 > 85) < 0.001


def test_random_playouts_are_seeded_and_zero_sum():
    game = pyspiel.load_game("palace_poker", {"players": 6, "betting": "no_limit"})
    a, moves_a = rollout.random_hands(game.cfg, 300, seed=9)
    b, moves_b = rollout.random_hands(game.cfg, 300, seed=9)
    c, _ = rollout.random_hands(game.cfg, 300, seed=10)
    np.testing.assert_array_equal(a, b)
    assert moves_a == moves_b and not np.array_equal(a, c)
    assert (a.sum(axis=1) == 0).all() and a.min() >= -200 and a.max() <= 5 * 200


def test_benchmark_runs_on_a_tiny_size():
    parser = argparse.ArgumentParser()
    bench.add_arguments(parser)
    args = parser.parse_args(["--numba-hands", "50", "--api-hands", "3", "--repeats", "1"])
    result = bench.run(args)
    assert result["numba_hands_per_s"] > 0 and result["api_hands_per_s"] > 0
    assert result["ratio"] == pytest.approx(result["numba_hands_per_s"] / result["api_hands_per_s"])


def test_resample_puts_cards_bought_after_a_reshuffle_back_in_the_folded_palace():
    # Seat 0 folds (palace 5c 5d 5h to the discard pile); twelve buys empty the
    # draw pile, each bought card discarded; the next buy reshuffles and draws
    # the 5c, which can only have come from seat 0's palace.
    game = pyspiel.load_game("palace_poker", {"players": 10})
    state = game.new_initial_state()
    deal = ("2c 2d 2h 2s 3c 3d 3h 3s 4c 4d 5c 5d 5h 5s 6c 6d 6h 6s 7c 7d 7h 7s 8c 8d 8h 8s 9c 9d 9h 9s Tc "
            "Td Th Ts Jc Jd Jh Js Qc Qd")
    for c in deal.split():
        state.apply_action(parse_card(c))
    state.apply_action(L.FOLD)
    pile = sorted(np.flatnonzero(state.state[L.S_LOC:L.S_LOC + 52] == L.LOC_DRAW).tolist())
    for card in pile:
        state.apply_action(L.BUY)
        state.apply_action(card)
        state.apply_action(L.DISCARD_CARD + card)
        state.apply_action(L.DONE)
    state.apply_action(L.BUY)
    assert state.state[L.S_RESHUFFLES] == 1
    state.apply_action(parse_card("5c"))
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    others = set()
    for _ in range(40):
        new = state.resample_from_infostate(5, sampler)
        assert new.information_state_string(5) == state.information_state_string(5)
        palace = set(int(c) for c in new.history()[10:13])  # seat 0's palace chance outcomes
        assert parse_card("5c") in palace and not palace & set(pile)
        others |= palace
    assert len(others) > 10


def test_xorshift_draws_are_uniform_and_seeded():
    from gamut.envs import rng as xorshift

    rng = xorshift.rng_state(123)
    draws = np.array([xorshift.below(rng, 7) for _ in range(100_000)])
    counts = np.bincount(draws, minlength=7)
    chi2 = ((counts - 100_000 / 7) ** 2 / (100_000 / 7)).sum()
    assert chi2 < 22.5  # 6 degrees of freedom: P(chi2 > 22.5) < 0.001
    again = xorshift.rng_state(123)
    assert [xorshift.below(again, 7) for _ in range(50)] == draws[:50].tolist()
    arr = np.arange(20)
    xorshift.shuffle(arr, 20, rng)
    assert sorted(arr.tolist()) == list(range(20)) and arr.tolist() != list(range(20))


def test_openspiel_python_ismcts_plays_through_resampling():
    from open_spiel.python.algorithms import ismcts, mcts

    game = pyspiel.load_game("palace_poker", {"players": 3})
    evaluator = mcts.RandomRolloutEvaluator(1, np.random.RandomState(0))
    bot = ismcts.ISMCTSBot(game, evaluator, uct_c=2.0, max_simulations=8, random_state=np.random.RandomState(1))
    state = play_game(game, np.random.default_rng(0), bot.step, chance=apply_uniform_chance)
    assert sum(state.returns()) == 0


def test_public_observers_leave_out_private_cards():
    game, state = _battle_state()
    for perfect_recall in (False, True):
        obs_type = pyspiel.IIGObservationType(perfect_recall=perfect_recall, public_info=True,
                                              private_info=pyspiel.PrivateInfoType.NONE)
        observer = game.make_py_observer(obs_type)
        observer.set_from(state, 0)
        palaces = observer.dict["cards"][:, 3 + 3:3 + 6]
        assert not palaces.any()  # not even seat 0's own palace
        text = observer.string_from(state, 0)
        assert "Ac" not in text and "5d" not in text
        if perfect_recall:
            assert "0:bet_2_on_seat_1:2" in text and "out:1" in text


def test_resampled_palaces_reproduce_a_battle_between_other_players():
    game, state = _battle_state()  # seat 0 (Ac Ad As) beat seat 1 (5d 6d 7s); seat 2 watched
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    seen = set()
    for _ in range(30):
        new = state.resample_from_infostate(2, sampler)
        assert new.information_state_string(2) == state.information_state_string(2)
        assert new.state[L.S_IN] == state.state[L.S_IN]  # seat 1 is out again
        palaces = new.history()[3:9]  # seats 0 and 1
        seen.add(tuple(palaces))
        assert not set(palaces) & {parse_card(c) for c in ("2c", "3d", "4h", "8h", "9h", "Th")}
    assert len(seen) > 20
