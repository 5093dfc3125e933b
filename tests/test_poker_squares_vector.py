"""Poker Squares batched environment: replay against pyspiel, determinism, auto-reset, bad actions, encoders."""

from __future__ import annotations

import re
from pathlib import Path

import numba
import numpy as np
import pyspiel
import pytest

import gamut.envs  # noqa: F401  (registers the toolkit's games)
from gamut.envs.cards import NUM_RANKS
from gamut.envs.poker_squares import kernels as K
from gamut.envs.poker_squares.observer import (
    CELL_FEATURES,
    tensor_blocks,
    update_after_placement,
    write_tensor,
)
from gamut.envs.poker_squares.vector import PokerSquaresVector
from gamut.envs.vector import game_streams, make_vector, observation_bounds, random_legal_actions
from gamut.envs.versions import game_variants
from tests.vector_replay import replay_check

VARIANTS = game_variants()["poker_squares"]


def reference_tensor(state: np.ndarray, cfg: np.ndarray, player: int, perfect_recall: bool) -> np.ndarray:
    """The observation (or information-state) tensor written plainly into named views, block by block."""
    players = int(cfg[K.C_PLAYERS])
    blocks = tensor_blocks(players, perfect_recall)
    out = np.zeros(sum(int(np.prod(shape)) for _, shape in blocks), np.float32)
    views, start = {}, 0
    for name, shape in blocks:
        views[name] = out[start:start + int(np.prod(shape))].reshape(shape)
        start += int(np.prod(shape))
    order = [player] + [q for q in range(players) if q != player]
    for slot, q in enumerate(order):
        grid = state[K.S_GRID + K.NUM_CELLS * q:K.S_GRID + K.NUM_CELLS * (q + 1)]
        for cell, card in enumerate(grid.tolist()):
            if card < 0:
                views["grids"][slot, cell, CELL_FEATURES - 1] = 1
            else:
                views["grids"][slot, cell, card >> 2] = 1
                views["grids"][slot, cell, NUM_RANKS + (card & 3)] = 1
    dealt = int(state[K.S_NUM_DEALT])
    placed = int(state[K.S_NUM_PLACED + player])
    deal = state[K.S_DEAL:K.S_DEAL + dealt].tolist()
    if placed < dealt:
        views["current_card"][deal[placed]] = 1
        for card in deal[placed + 1:]:
            views["upcoming"][card] = 1
    views["unseen"][:] = 1
    views["unseen"][deal] = 0
    if perfect_recall:
        views["deal_order"][np.arange(dealt), deal] = 1
    return out


def random_positions(variant: str, count: int, seed: int):
    """``count`` states of random games of ``variant`` at random points (every node kind, the end included)."""
    game = pyspiel.load_game(variant)
    rng = np.random.default_rng(seed)
    positions = []
    while len(positions) < count:
        state = game.new_initial_state()
        stop = rng.integers(0, 25 * (1 + game.num_players()) + 1)
        for _ in range(stop):
            if state.is_terminal():
                break
            if state.is_chance_node():
                outcomes = [a for a, _ in state.chance_outcomes()]
                state.apply_action(int(rng.choice(outcomes)))
            else:
                state.apply_action(int(rng.choice(state.legal_actions())))
        positions.append(state)
    return game, positions


@pytest.mark.parametrize("variant", VARIANTS)
def test_njit_encoder_matches_the_plain_reference(variant):
    game, positions = random_positions(variant, 400, seed=len(variant))
    for state in positions:
        for player in range(game.num_players()):
            for perfect_recall in (False, True):
                expected = reference_tensor(state.state, game.cfg, player, perfect_recall)
                out = np.full(expected.shape, 7.0, np.float32)  # stale contents must be overwritten
                write_tensor(state.state, game.cfg, player, perfect_recall, out)
                np.testing.assert_array_equal(out, expected)
    state = positions[-1]
    np.testing.assert_array_equal(state.observation_tensor(0), reference_tensor(state.state, game.cfg, 0, False))


@pytest.mark.parametrize("variant", ["poker_squares()", "poker_squares(variant=open)"])
@pytest.mark.parametrize("perfect_recall", [False, True])
def test_update_after_placement_equals_a_fresh_write(variant, perfect_recall):
    game = pyspiel.load_game(variant)
    rng = np.random.default_rng(11)
    size = game.information_state_tensor_size() if perfect_recall else game.observation_tensor_size()
    for _ in range(40):
        state = game.new_initial_state()
        while state.is_chance_node():
            state.apply_action(int(rng.choice([a for a, _ in state.chance_outcomes()])))
        out = np.zeros(size, np.float32)
        write_tensor(state.state, game.cfg, 0, perfect_recall, out)
        while True:
            placed, dealt = int(state.state[K.S_NUM_PLACED]), int(state.state[K.S_NUM_DEALT])
            cell = int(rng.choice(state.legal_actions()))
            state.apply_action(cell)
            while state.is_chance_node():
                state.apply_action(int(rng.choice([a for a, _ in state.chance_outcomes()])))
            if state.is_terminal():
                break
            update_after_placement(state.state, cell, placed, dealt, perfect_recall, out)
            np.testing.assert_array_equal(out, reference_tensor(state.state, game.cfg, 0, perfect_recall))


@pytest.mark.parametrize("variant", VARIANTS)
def test_replay_against_pyspiel(variant):
    players = pyspiel.load_game(variant).num_players()
    finished = replay_check(variant, num_envs=64, steps=50 * players + 10, seed=3, info_state=True)
    assert finished >= 64  # every row finished a game and went on with the next


def test_replay_on_two_threads():
    assert replay_check("poker_squares(players=2)", num_envs=32, steps=60, seed=5, threads=2) >= 32


def _drive(variant, num_envs, steps, seed=0, threads=None, rows=None):
    """Observations and returns of ``rows`` (default all) after each of ``steps`` random calls."""
    env = make_vector(variant, num_envs, seed, threads=threads)
    policy = game_streams(seed + 100, num_envs)
    actions = np.zeros(num_envs, np.int64)
    step = env.reset()
    rows = slice(None) if rows is None else rows
    seen = [step.obs[rows].copy()]
    for _ in range(steps):
        random_legal_actions(step.legal_mask, policy, actions)
        step = env.step(actions)
        seen += [step.obs[rows].copy(), step.returns[rows].copy(), step.current_player[rows].copy()]
    return seen


@pytest.mark.parametrize("variant", ["poker_squares()", "poker_squares(players=2,two_player_return=difference,"
                                     "variant=open)"])
def test_rows_do_not_depend_on_batch_size_or_threads(variant):
    small = _drive(variant, 8, 70)
    large = _drive(variant, 64, 70, rows=slice(0, 8))
    threaded = _drive(variant, 64, 70, threads=2, rows=slice(0, 8))
    for a, b, c in zip(small, large, threaded):
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(a, c)
    assert not all(np.array_equal(a, b) for a, b in zip(small, _drive(variant, 8, 70, seed=1)))


def test_auto_reset_final_observation_and_returns():
    game = pyspiel.load_game("poker_squares")
    env = make_vector(game, 4, seed=9, trace=True)
    states = [game.new_initial_state() for _ in range(4)]
    step = env.reset()
    for i, state in enumerate(states):
        for card in env.chance_trace[i, :env.chance_count[i]]:
            state.apply_action(int(card))
    for t in range(25):
        actions = np.argmax(step.legal_mask, axis=1)  # fill the grid in cell order
        step = env.step(actions)
        for i, state in enumerate(states):
            state.apply_action(int(actions[i]))
            if t < 24:  # after the last placement the trace holds the next game's first deal
                state.apply_action(int(env.chance_trace[i, 0]))
        assert step.terminated.all() == (t == 24)
    for i, state in enumerate(states):
        assert state.is_terminal()
        np.testing.assert_array_equal(env.final_obs_buf[i], state.observation_tensor(0))
        assert step.returns[i, 0] == state.returns()[0] == step.rewards[i, 0]
    # Every row starts a fresh game in the same call: empty grid, one card to place, 51 unseen.
    grids = step.obs[:, :450].reshape(4, 25, CELL_FEATURES)
    assert (grids[:, :, -1] == 1).all() and (step.obs[:, 450:502].sum(axis=1) == 1).all()
    assert (step.obs[:, 554:606].sum(axis=1) == 51).all() and step.legal_mask.all()


def test_bad_action_arrays_raise_and_change_nothing():
    env = make_vector("poker_squares", 3, seed=4)
    twin = make_vector("poker_squares", 3, seed=4)
    step = env.reset()
    twin.reset()
    env.step(np.array([0, 1, 2]))
    twin.step(np.array([0, 1, 2]))
    bad = [
        (np.array([3, 4]), "shape"),
        (np.array([3.0, 4.0, 5.0]), "integers"),
        (np.array([3, 25, 5]), r"row 1: action 25 \(outside 0..24\)"),
        (np.array([3, 4, 2]), r"row 2: action 2 \(r0c2\) is not legal .* legal actions: 0 \(r0c0\), 1 \(r0c1\), "
                              r"3 \(r0c3\)"),
    ]
    for actions, message in bad:
        with pytest.raises(ValueError, match=message):
            env.step(actions)
    a, b = env.step(np.array([3, 4, 5])), twin.step(np.array([3, 4, 5]))
    np.testing.assert_array_equal(a.obs, b.obs)
    np.testing.assert_array_equal(a.legal_mask, b.legal_mask)
    assert step.obs.dtype == np.float32 and step.legal_mask.dtype == np.bool_


def test_options_and_bounds():
    assert observation_bounds("poker_squares(players=2)") == (0.0, 1.0)
    assert PokerSquaresVector.max_chance_per_step == 25
    env = make_vector("poker_squares", 2, copy=False)
    step = env.reset()
    assert np.shares_memory(step.obs, env.obs_buf) and not step.obs.flags.writeable and step.info_state is None
    with pytest.raises(ValueError, match="steps poker_squares games"):
        PokerSquaresVector("kuhn_poker", 2)
    with pytest.raises(RuntimeError, match="reset"):
        make_vector("poker_squares", 2).step(np.zeros(2, np.int64))


def test_the_pages_batched_environment_example_runs(capsys):
    page = (Path(__file__).resolve().parent.parent / "docs" / "games" / "poker_squares.md").read_text()
    section = page.split("## Batched environment", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert len(blocks) == 1
    exec(compile(blocks[0], "poker_squares.md", "exec"), {})
    count, mean = capsys.readouterr().out.split()
    assert int(count) >= 256 and 0 <= float(mean) <= 300


# ---------------------------------------------------------------- 100,000 random kernel states
CHUNK = 2_500  # states per batch: small arrays are reused by the allocator (100,000 at once: gigabytes)


def random_kernel_states(rng, count: int, players: int):
    """Random deals of 0..25 cards, each player's first cards in random cells.

    Returns the states, int64 (count, STATE_SIZE), and the whole deal each was
    cut from, int64 (count, 25).
    """
    states = np.full((count, K.STATE_SIZE), -1, np.int64)
    deals = np.argsort(rng.random((count, 52)), axis=1)[:, :K.NUM_CELLS]
    dealt = rng.integers(0, K.NUM_CELLS + 1, count)
    states[:, K.S_DEAL:K.S_DEAL + K.NUM_CELLS] = np.where(np.arange(K.NUM_CELLS) < dealt[:, None], deals, -1)
    states[:, K.S_NUM_DEALT] = dealt
    rows = np.arange(count)
    for q in range(K.MAX_PLAYERS):
        placed = np.floor(rng.random(count) * (dealt + 1)).astype(np.int64) if q < players else np.zeros(count, int)
        cells = np.argsort(rng.random((count, K.NUM_CELLS)), axis=1)
        for k in range(K.NUM_CELLS):
            on = k < placed
            states[rows[on], K.S_GRID + K.NUM_CELLS * q + cells[on, k]] = deals[on, k]
        states[:, K.S_NUM_PLACED + q] = placed
    return states, deals


def reference_tensors(states: np.ndarray, players: int, player: int, perfect_recall: bool) -> np.ndarray:
    """The tensors of many states at once, block by block with numpy (the layout of the observer's docstring).

    A second, vectorised reference beside ``reference_tensor``: fast enough for 100,000 states.
    """
    count = len(states)
    grids = np.zeros((count, players, K.NUM_CELLS, CELL_FEATURES), np.float32)
    order = [player] + [q for q in range(players) if q != player]
    rows, cells = np.meshgrid(np.arange(count), np.arange(K.NUM_CELLS), indexing="ij")
    for slot, q in enumerate(order):
        cards = states[:, K.S_GRID + K.NUM_CELLS * q:K.S_GRID + K.NUM_CELLS * (q + 1)]
        full = cards >= 0
        grids[rows[~full], slot, cells[~full], CELL_FEATURES - 1] = 1
        grids[rows[full], slot, cells[full], cards[full] >> 2] = 1
        grids[rows[full], slot, cells[full], NUM_RANKS + (cards[full] & 3)] = 1
    deal = states[:, K.S_DEAL:K.S_DEAL + K.NUM_CELLS]
    position = np.arange(K.NUM_CELLS)
    dealt = (position < states[:, K.S_NUM_DEALT, None])
    placed = states[:, K.S_NUM_PLACED + player, None]
    cards = np.zeros((count, 3, 52), np.float32)
    for block, chosen in enumerate([dealt & (position == placed), dealt & (position > placed)]):
        cards[rows[chosen], block, deal[chosen]] = 1
    cards[:, 2] = 1
    cards[rows[dealt], 2, deal[dealt]] = 0
    parts = [grids.reshape(count, -1), cards.reshape(count, -1)]
    if perfect_recall:
        order_block = np.zeros((count, K.NUM_CELLS, 52), np.float32)
        order_block[rows[dealt], cells[dealt], deal[dealt]] = 1
        parts.append(order_block.reshape(count, -1))
    return np.concatenate(parts, axis=1)


@numba.njit(cache=True)
def _write_all(states, cfg, player, perfect_recall, out):
    for i in range(states.shape[0]):
        write_tensor(states[i], cfg, player, perfect_recall, out[i])


@numba.njit(cache=True)
def _sets_of_all(states, player, cells_out, cards_out, counts):
    for i in range(states.shape[0]):
        counts[i, 0] = K.legal_cells(states[i], player, cells_out[i])
        counts[i, 1] = K.unseen_cards(states[i], cards_out[i])


@pytest.mark.slow
@pytest.mark.parametrize("players", [1, 2])
def test_kernels_on_100000_random_states(players):
    rng = np.random.default_rng(players)
    cfg = K.make_config(players, False, False, np.zeros(10, np.int64))
    for _ in range(100_000 // CHUNK):
        states, _ = random_kernel_states(rng, CHUNK, players)
        player = int(rng.integers(players))
        # The information state is the observation followed by the deal order.
        expected = reference_tensors(states, players, player, True)
        for size in (expected.shape[1] - K.NUM_CELLS * 52, expected.shape[1]):
            out = np.full((CHUNK, size), 5.0, np.float32)  # stale contents must be overwritten
            _write_all(states, cfg, player, size == expected.shape[1], out)
            np.testing.assert_array_equal(out, expected[:, :size])
        cells, cards = np.zeros((CHUNK, 25), np.int64), np.zeros((CHUNK, 52), np.int64)
        counts = np.zeros((CHUNK, 2), np.int64)
        _sets_of_all(states, player, cells, cards, counts)
        grid = states[:, K.S_GRID + K.NUM_CELLS * player:K.S_GRID + K.NUM_CELLS * (player + 1)]
        dealt = np.zeros((CHUNK, 52), bool)
        deal = states[:, K.S_DEAL:K.S_DEAL + K.NUM_CELLS]
        dealt[np.nonzero(deal >= 0)[0], deal[deal >= 0]] = True
        np.testing.assert_array_equal(counts[:, 0], (grid < 0).sum(axis=1))
        np.testing.assert_array_equal(counts[:, 1], 52 - dealt.sum(axis=1))
        # The listed ids, ascending, in the first count entries.
        listed_cells = np.where(np.arange(25) < counts[:, :1], cells, 99)
        np.testing.assert_array_equal(listed_cells, np.sort(np.where(grid < 0, np.arange(25), 99), axis=1))
        listed_cards = np.where(np.arange(52) < counts[:, 1:], cards, 99)
        np.testing.assert_array_equal(listed_cards, np.sort(np.where(dealt, 99, np.arange(52)), axis=1))


@numba.njit(cache=True)
def _update_all(before, after, cells, perfect_recall, cfg, updated, fresh):
    for i in range(before.shape[0]):
        write_tensor(before[i], cfg, 0, perfect_recall, updated[i])
        update_after_placement(after[i], cells[i], before[i, K.S_NUM_PLACED], before[i, K.S_NUM_DEALT],
                               perfect_recall, updated[i])
        write_tensor(after[i], cfg, 0, perfect_recall, fresh[i])


@pytest.mark.slow
@pytest.mark.parametrize("perfect_recall", [False, True])
def test_update_after_placement_on_100000_random_moves(perfect_recall):
    rng = np.random.default_rng(7 + perfect_recall)
    cfg = K.make_config(1, False, False, np.zeros(10, np.int64))
    checked = 0
    while checked < 100_000:
        states, deals = random_kernel_states(rng, CHUNK, 1)
        placed, dealt = states[:, K.S_NUM_PLACED], states[:, K.S_NUM_DEALT]
        keep = (placed < dealt) & (placed < K.NUM_CELLS - 1)  # a card to place, and the game goes on after it
        before, deals = states[keep], deals[keep]
        count = len(before)
        rows = np.arange(count)
        # A random empty cell gets the card to place; then 0 or more further cards of the deal come out.
        empty = before[:, :K.NUM_CELLS] < 0
        cells = np.argmax(np.where(empty, rng.random((count, K.NUM_CELLS)), -1.0), axis=1)
        after = before.copy()
        after[rows, cells] = before[rows, K.S_DEAL + before[:, K.S_NUM_PLACED]]
        after[:, K.S_NUM_PLACED] += 1
        now = np.floor(before[:, K.S_NUM_DEALT] + rng.random(count) * (K.NUM_CELLS + 1 - before[:, K.S_NUM_DEALT]))
        after[:, K.S_NUM_DEALT] = now.astype(np.int64)
        after[:, K.S_DEAL:K.S_DEAL + K.NUM_CELLS] = np.where(np.arange(K.NUM_CELLS) < now[:, None], deals, -1)
        size = 1906 if perfect_recall else 606
        updated, expected = np.zeros((count, size), np.float32), np.zeros((count, size), np.float32)
        _update_all(before, after, cells, perfect_recall, cfg, updated, expected)
        np.testing.assert_array_equal(updated, expected)
        checked += count
