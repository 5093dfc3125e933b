"""Batched Poke (gamut.envs.poke.vector) against pyspiel, and its Numba tensor encoder against the slow one."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest

import gamut.envs  # noqa: F401  (registers the games)
from gamut.envs.poke import kernels as K
from gamut.envs.poke.game import score_maxima
from gamut.envs.poke.tensors import piece_offsets, write_tensor
from gamut.envs.vector import make_vector, observation_bounds
from gamut.envs.versions import game_variants
from tests.chance import random_move
from tests.poke_reference import reference_tensor
from tests.vector_replay import drive, replay_check

VARIANTS = game_variants()["poke"]


def test_every_documented_variant_is_covered_with_both_follow_rules():
    params = [pyspiel.load_game(v).get_parameters() for v in VARIANTS]
    assert {p["follow"] for p in params} == {"must_beat", "free"}
    assert {p["mode"] for p in params} == {"deal", "game", "rubber"}
    assert observation_bounds("poke()") == (0.0, 1.0)


@pytest.mark.parametrize("variant", VARIANTS)
def test_replay_matches_pyspiel(variant):
    one_deal = pyspiel.load_game(variant).get_parameters()["mode"] == "deal"
    finished = replay_check(variant, num_envs=64, steps=20 if one_deal else 10, seed=3, info_state=True)
    if one_deal:
        assert finished > 20  # games end inside the check and restart


def _same(a, b, rows):
    for name in ("obs", "info_state", "legal_mask", "current_player", "rewards", "terminated", "returns"):
        if getattr(a, name) is not None or getattr(b, name) is not None:
            np.testing.assert_array_equal(getattr(a, name)[:rows], getattr(b, name)[:rows], err_msg=name)


@pytest.mark.parametrize("variant", ["poke()", "poke(mode=rubber,follow=free)"])
def test_rows_do_not_depend_on_batch_size_or_threads(variant):
    small = drive(make_vector(variant, 8, seed=11, info_state=True), 40, policy_seed=2)
    large = drive(make_vector(variant, 64, seed=11, info_state=True), 40, policy_seed=2)
    threaded = drive(make_vector(variant, 64, seed=11, info_state=True, threads=2), 40, policy_seed=2)
    for s, big, thr in zip(small, large, threaded):
        _same(s, big, 8)
        _same(big, thr, 64)
    assert any(s.terminated.any() for s in large) or "rubber" in variant


def test_finished_games_report_returns_and_restart():
    env = make_vector("poke(hand_size=2,num_ranks=3,num_suits=2)", 32, seed=5)
    ended = 0
    for step in drive(env, 30, policy_seed=1)[1:]:
        done = np.flatnonzero(step.terminated)
        ended += len(done)
        np.testing.assert_array_equal(step.returns.sum(axis=1), 0.0)
        assert not step.returns[~step.terminated].any()
        np.testing.assert_array_equal(step.rewards, step.returns)
        # A restarted deal waits for the non-dealer's first draw: phase "draw" (index 5), no draws yet.
        assert (step.current_player[done] == 0).all()
        assert (step.obs[done, 4:8] == [0, 1, 0, 0]).all()
        assert not step.obs[done, 41:65].any()  # the draws piece of the small deck (D = 6)
    assert ended > 50


def test_bad_actions_raise_and_change_nothing():
    variant = "poke()"
    env = make_vector(variant, 4, seed=8)
    twin = make_vector(variant, 4, seed=8)
    step = env.reset()
    twin.reset()
    legal = np.argmax(step.legal_mask, axis=1)
    illegal = legal.copy()
    illegal[2] = int(np.flatnonzero(~step.legal_mask[2])[0])
    bad_calls = [
        (np.zeros(3, np.int64), "shape"),
        (legal.astype(np.float64), "integers"),
        (np.where(np.arange(4) == 1, 64, legal), "row 1"),
        (illegal, "row 2"),
    ]
    for actions, words in bad_calls:
        with pytest.raises(ValueError, match=words):
            env.step(actions)
    with pytest.raises(ValueError, match=r"legal actions: 0 \(stand\)"):
        env.step(illegal)
    _same(env.step(legal), twin.step(legal), 4)
    np.testing.assert_array_equal(env.states, twin.states)


@pytest.mark.parametrize("variant,deals,seed", [
    ("poke()", 40, 1), ("poke(follow=free,trick_unit=play)", 25, 2), ("poke(mode=rubber,max_deals=4)", 2, 3),
    ("poke(hand_size=2,num_ranks=3,num_suits=2,mode=game)", 12, 4),
])
@pytest.mark.slow
def test_numba_encoder_matches_the_slow_reference(variant, deals, seed):
    game = pyspiel.load_game(variant)
    layout = game.layout
    kinds = [(recall, private) for recall in (False, True) for private in (False, True)]
    offsets = {kind: piece_offsets(layout.pieces(*kind)) for kind in kinds}
    rng = np.random.default_rng(seed)
    checked = 0
    for _ in range(deals):
        state = game.new_initial_state()
        while not state.is_terminal():
            st = state.state
            for kind in kinds:
                expected = reference_tensor(layout, st, checked % 2, *kind)
                out = np.full(expected.shape, 0.5, np.float32)  # write_tensor zeroes what it does not set
                write_tensor(st, checked % 2, layout.index, layout.num_cards, layout.hand_size,
                             layout.score_maxima, offsets[kind], out)
                np.testing.assert_array_equal(out, expected)
            checked += 1
            random_move(state, rng)
    assert checked > 150  # states (observed by each player in turn), each in four observer kinds


def test_scores_are_scaled_into_the_unit_interval_at_their_maxima():
    game = pyspiel.load_game("poke(mode=rubber)")
    maxima = score_maxima(game.get_parameters())
    state = game.new_initial_state()
    st = state.state
    st[K.S_BELOW:K.S_BELOW + 2] = int(maxima[2])
    st[K.S_ABOVE:K.S_ABOVE + 2] = int(maxima[4])
    st[K.S_GAMES:K.S_GAMES + 2] = 1
    st[K.S_DEALS_DONE] = int(maxima[8])
    scores = np.asarray(state.information_state_tensor(0))[306:315]
    np.testing.assert_array_equal(scores, [0, 0, 1, 1, 1, 1, 0.5, 0.5, 1])
    assert maxima.tolist() == [5, 5, 2000, 2000, 125950, 125950, 2, 2, 100]
    assert score_maxima(pyspiel.load_game("poke()").get_parameters()).tolist() == [5, 5, 20, 20, 1250, 1250, 2, 2, 1]
