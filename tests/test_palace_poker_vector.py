"""Palace Poker batched environment: replay against pyspiel for every documented variant, determinism,
auto-reset, bad actions, and the Numba tensor kernel against a slow Python encoder."""

from __future__ import annotations

import math

import numpy as np
import pytest

import gamut.envs.palace_poker.game  # noqa: F401  (registers palace_poker)
from gamut.envs.hands import HAND_TABLE
from gamut.envs.loading import load_game
from gamut.envs.palace_poker import kernels as K
from gamut.envs.palace_poker import layout as L
from gamut.envs.palace_poker.tensors import tensor_blocks, tensor_size, write_tensor
from gamut.envs.vector import make_vector, observation_bounds
from gamut.envs.versions import game_variants
from tests.vector_replay import drive, replay_check

VARIANTS = game_variants()["palace_poker"]
# Beyond the documented variants: ten seats (three banner groups), short
# stacks (all-ins, levels cut by the stack), one raise, few turns.
EXTRA = ("palace_poker(players=10)", "palace_poker(betting=no_limit,players=3,stack=6,max_raises=1)",
         "palace_poker(players=5,max_turns=6,small_bet=3,big_bet=5)")


def reference_tensor(state, cfg, player, private, perfect_recall):
    """The tensor written the slow, obvious way: named views filled from the state array."""
    n = int(cfg[L.C_PLAYERS])
    blocks = tensor_blocks(n, perfect_recall)
    tensor = np.zeros(sum(math.prod(shape) for _, shape in blocks), np.float32)
    views, start = {}, 0
    for name, shape in blocks:
        size = math.prod(shape)
        views[name] = tensor[start:start + size].reshape(shape)
        start += size
    chips, turns = float(cfg[L.C_STACK]), float(cfg[L.C_MAX_TURNS])
    raises = float(max(1, int(cfg[L.C_MAX_RAISES])))
    views["observer"][player] = 1
    mover = int(K.current_player(state))
    if mover >= 0:
        views["to_move"][mover] = 1
    views["phase"][int(state[L.S_PHASE])] = 1
    seats = np.arange(n)
    views["in_hand"][:] = (state[L.S_IN] >> seats) & 1
    views["quiet"][:] = (state[L.S_QUIET] >> seats) & 1
    views["stack"][:] = state[L.S_STACK:L.S_STACK + n] / chips
    views["contribution"][:] = state[L.S_CONTRIB:L.S_CONTRIB + n] / chips
    known = state[L.S_PUBLIC] | (state[L.S_KNOWN + player] if private else 0)
    known_cards = np.flatnonzero((known >> np.arange(L.NUM_CARDS)) & 1)
    locs = state[L.S_LOC:L.S_LOC + L.NUM_CARDS]
    # Piles keep their location code as column; banner, palace and soldier of
    # seat q are columns 3 + q, 3 + n + q and 3 + 2n + q.
    kind, seat = np.divmod(locs - L.LOC_BANNER, L.MAX_PLAYERS)
    column = np.where(locs < L.LOC_BANNER, locs, 3 + kind * n + seat)
    views["cards"][known_cards, column[known_cards]] = 1
    if state[L.S_PHASE] == L.PH_BATTLE:
        views["attacker"][int(state[L.S_ATTACKER])] = 1
        views["defender"][int(state[L.S_DEFENDER])] = 1
        views["battle"][:] = (state[L.S_TO_CALL] / chips, state[L.S_RAISES] / raises)
    if state[L.S_PHASE] == L.PH_DISCARD:
        views["discard_phase"][int(state[L.S_DISC_KIND])] = 1
        views["discard_phase"][3] = (state[L.S_DISC_LAST] + 1) / float(L.NUM_CARDS)
        views["discard_phase"][4] = state[L.S_DISC_COUNT] / float(L.MAX_HELD_SOLDIERS)
    locs = state[L.S_LOC:L.S_LOC + L.NUM_CARDS]
    views["piles"][:] = (state[L.S_TURNS] / turns, np.sum(locs == L.LOC_DRAW) / float(L.NUM_CARDS),
                         np.sum(locs == L.LOC_DISCARD) / float(L.NUM_CARDS), state[L.S_RESHUFFLES] / turns)
    if perfect_recall:
        counts = state[L.S_COUNTS:L.S_COUNTS + L.NUM_COUNTS * L.MAX_PLAYERS].reshape(L.MAX_PLAYERS, L.NUM_COUNTS)[:n]
        views["action_counts"][:, :-1] = counts[:, :-1] / turns
        views["action_counts"][:, -1] = counts[:, -1] / (turns * raises)
    return tensor


def random_positions(cfg, rng, count):
    """``count`` positions of random hands (chance, decision and final ones), played by the kernels."""
    state = np.zeros(L.STATE_SIZE, np.int64)
    buf = np.zeros(max(int(cfg[L.C_NUM_ACTIONS]), L.NUM_CARDS), np.int64)
    positions = []
    while len(positions) < count:
        K.init_state(state, cfg)
        stay = rng.random() < 0.5  # staying and buying more often makes long hands with reshuffles
        while True:
            if rng.random() < 0.15:
                positions.append(state.copy())
            if state[L.S_PHASE] == L.PH_OVER:
                positions.append(state.copy())
                break
            if K.current_player(state) == L.CHANCE_PLAYER:
                n = K.chance_outcomes(state, buf)
            else:
                n = K.legal_actions(state, cfg, buf)
                quiet = [a for a in buf[:n] if a in (L.STAY, L.BUY, L.DONE)]
                if stay and quiet and rng.random() < 0.8:
                    K.apply_action(state, cfg, quiet[rng.integers(len(quiet))], HAND_TABLE)
                    continue
            K.apply_action(state, cfg, buf[rng.integers(n)], HAND_TABLE)
    return positions[:count]


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.slow
def test_replay_matches_pyspiel(variant):
    finished = replay_check(variant, num_envs=64, steps=40, seed=11, info_state=True)
    assert finished > 0


@pytest.mark.slow
@pytest.mark.parametrize("variant", EXTRA)
def test_replay_matches_pyspiel_on_more_variants(variant):
    assert replay_check(variant, num_envs=32, steps=60, seed=5, info_state=True) > 0


@pytest.mark.parametrize("game_string", ["palace_poker(players=4)", "palace_poker(betting=no_limit,players=6)"])
@pytest.mark.slow
def test_tensor_kernel_matches_the_python_encoder(game_string):
    cfg = load_game(game_string).cfg
    n = int(cfg[L.C_PLAYERS])
    rng = np.random.default_rng(n)
    sizes = {pr: tensor_size(n, pr) for pr in (False, True)}
    cases = 0
    for state in random_positions(cfg, rng, 250):
        for player in range(n):
            for private in (True, False):
                for perfect_recall in (False, True):
                    out = np.full(sizes[perfect_recall], 7.0, np.float32)  # every entry must be written
                    write_tensor(state, cfg, player, private, perfect_recall, out)
                    expected = reference_tensor(state, cfg, player, private, perfect_recall)
                    np.testing.assert_array_equal(out, expected)
                    assert 0.0 <= out.min() and out.max() <= 1.0
                    cases += 1
    assert cases == 250 * n * 4


@pytest.mark.slow
def test_tensor_kernel_matches_the_python_encoder_on_100000_cases():
    rng = np.random.default_rng(2026)
    cases = 0
    games = ["palace_poker()", "palace_poker(players=10)", "palace_poker(betting=no_limit,players=5,stack=8)",
             "palace_poker(players=3,max_turns=5,max_raises=0)"]
    for k in range(1000):
        cfg = load_game(games[k % len(games)]).cfg
        n = int(cfg[L.C_PLAYERS])
        for state in random_positions(cfg, rng, 20):
            for player in range(n):  # every seat's view, with random flags
                private, perfect_recall = bool(rng.integers(2)), bool(rng.integers(2))
                out = np.empty(tensor_size(n, perfect_recall), np.float32)
                write_tensor(state, cfg, player, private, perfect_recall, out)
                expected = reference_tensor(state, cfg, player, private, perfect_recall)
                if not np.array_equal(out, expected):
                    np.testing.assert_array_equal(out, expected)
                cases += 1
    assert cases == 1000 // 4 * 20 * (2 + 10 + 5 + 3) == 100_000


@pytest.mark.slow
def test_rows_do_not_depend_on_the_batch_size_or_the_threads():
    game = "palace_poker(betting=no_limit,players=4)"
    small = drive(make_vector(game, 8, seed=3, info_state=True), 150, policy_seed=1)
    large = drive(make_vector(game, 64, seed=3, info_state=True), 150, policy_seed=1)
    threaded = drive(make_vector(game, 64, seed=3, info_state=True, threads=2), 150, policy_seed=1)
    for a, b, c in zip(small, large, threaded):
        for field in ("obs", "info_state", "legal_mask", "current_player", "rewards", "terminated", "returns"):
            np.testing.assert_array_equal(getattr(a, field), getattr(b, field)[:8], err_msg=field)
            np.testing.assert_array_equal(getattr(b, field), getattr(c, field), err_msg=field)


def test_hands_end_restart_and_pay_zero_sum_returns():
    env = make_vector("palace_poker(players=3)", 32, seed=9)
    records = drive(env, 120, policy_seed=1)
    ended = sum(int(r.terminated.sum()) for r in records)
    assert ended > 32  # most rows finished more than one hand
    for r in records:
        np.testing.assert_array_equal(r.returns[~r.terminated], 0.0)
        np.testing.assert_allclose(r.returns.sum(axis=1), 0.0, atol=1e-6)
        np.testing.assert_array_equal(r.rewards, r.returns)
        assert (r.current_player >= 0).all() and r.legal_mask.any(axis=1).all()
    # After every call each row waits at a decision (a finished hand already restarted).
    assert all(K.current_player(state) >= 0 for state in env.states)
    assert observation_bounds("palace_poker(players=3)") == (0.0, 1.0)
    assert (env.obs_low, env.obs_high) == (0.0, 1.0)


def _bad_call(env, actions, match):
    before = env.states.copy()
    with pytest.raises(ValueError, match=match):
        env.step(actions)
    np.testing.assert_array_equal(env.states, before)


def test_bad_action_arrays_are_refused_and_change_nothing():
    game = "palace_poker(players=4)"
    env, twin = make_vector(game, 6, seed=4), make_vector(game, 6, seed=4)
    step = env.reset()
    twin.reset()
    legal = np.argmax(step.legal_mask, axis=1)
    _bad_call(env, legal[:5], r"shape \(6,\)")
    _bad_call(env, legal.astype(np.float64), "must be integers")
    _bad_call(env, np.where(np.arange(6) == 2, 500, legal), r"row 2: action 500 \(outside 0\.\.67\)")
    illegal = legal.copy()
    illegal[3] = L.CALL  # seat 0 opens the hand: there is no bet to call
    _bad_call(env, illegal, r"row 3: action 4 \(call\) is not legal for player 0; legal actions: 0 \(stay\), "
                            r"1 \(fold\), 2 \(buy\)")
    after, expected = env.step(legal), twin.step(legal)
    np.testing.assert_array_equal(after.obs, expected.obs)
    np.testing.assert_array_equal(after.legal_mask, expected.legal_mask)
    np.testing.assert_array_equal(env.states, twin.states)


def test_action_strings_carry_chip_amounts():
    env = make_vector("palace_poker(betting=no_limit,players=4)", 1, seed=0)
    step = env.reset()
    names = [env.action_string(0, int(a)) for a in np.flatnonzero(step.legal_mask[0])]
    assert names[:3] == ["stay", "fold", "buy"]
    assert any(name.startswith("bet 2 on seat") for name in names)
