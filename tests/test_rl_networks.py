"""Masked sampling, self-play credit and advantages of gamut.solvers.rl (against slow obvious references)."""

import numpy as np
import pytest

from gamut.solvers.rl.networks import forward, init_mlp, masked_log_softmax, policy_input, sample_masked
from gamut.solvers.rl.rollout import gae, player_chains


def test_masked_sampling_never_draws_an_illegal_action():
    rng = np.random.default_rng(0)
    for _ in range(200):
        mask = rng.random((64, 20)) < rng.uniform(0.05, 0.9)
        mask[np.arange(64), rng.integers(0, 20, 64)] = True
        # Illegal actions get the largest logits: a leak would show at once.
        logits = np.where(mask, rng.normal(size=mask.shape), 50.0).astype(np.float32)
        for greedy in (False, True):
            actions, logp = sample_masked(logits, mask, rng, greedy=greedy)
            assert mask[np.arange(64), actions].all()
            assert np.isfinite(logp).all()


def test_masked_probabilities_are_zero_off_the_mask_and_sum_to_one():
    rng = np.random.default_rng(1)
    mask = rng.random((50, 7)) < 0.5
    mask[:, 3] = True
    p = np.exp(masked_log_softmax(rng.normal(size=(50, 7)) * 10, mask))
    assert (p[~mask] == 0).all()
    np.testing.assert_allclose(p.sum(axis=1), 1.0)


def test_an_all_illegal_row_is_refused():
    with pytest.raises(ValueError, match="at least one legal action"):
        masked_log_softmax(np.zeros((2, 3)), np.array([[True, False, False], [False, False, False]]))


def test_sampling_follows_the_masked_softmax():
    rng = np.random.default_rng(2)
    logits = np.array([[0.0, np.log(3.0), 5.0, 0.0]])
    mask = np.array([[True, True, False, True]])
    draws = sample_masked(np.repeat(logits, 100_000, axis=0), np.repeat(mask, 100_000, axis=0), rng)[0]
    freq = np.bincount(draws, minlength=4) / draws.size
    np.testing.assert_allclose(freq, [0.2, 0.6, 0.0, 0.2], atol=0.006)


def test_forward_matches_numpy_by_hand_and_jax():
    jnp = pytest.importorskip("jax.numpy")
    params = init_mlp("pi", [4, 5, 3], np.random.default_rng(3))
    x = np.random.default_rng(4).normal(size=(6, 4)).astype(np.float32)
    by_hand = np.maximum(x @ params["pi/w0"] + params["pi/b0"], 0) @ params["pi/w1"] + params["pi/b1"]
    np.testing.assert_allclose(forward(params, "pi", x), by_hand, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(forward(params, "pi", jnp.asarray(x), jnp)), by_hand, rtol=1e-5, atol=1e-6)


def test_policy_input_appends_the_seat():
    out = policy_input(np.zeros((3, 2), np.float32), np.array([1, 0, 1]), 2)
    assert out[:, 2:].tolist() == [[0, 1], [1, 0], [0, 1]]
    assert policy_input(np.zeros((3, 2), np.float32), np.zeros(3, np.int64), 1).shape == (3, 2)


def test_worked_example_of_the_module_docstring():
    player = np.array([[0], [1], [0], [1]])
    terminated = np.array([[False], [False], [False], [True]])
    returns = np.zeros((4, 1, 2), np.float32)
    returns[3, 0] = (1.0, -1.0)
    reward, done, nxt = player_chains(player, terminated, returns)
    assert nxt[:, 0].tolist() == [2, 3, -1, -1]
    assert reward[:, 0].tolist() == [0, 0, 1, -1] and done[:, 0].tolist() == [False, False, True, True]


def _chains_reference(player, terminated, returns):
    steps, rows = player.shape
    reward, done, nxt = np.zeros((steps, rows)), np.zeros((steps, rows), bool), -np.ones((steps, rows), int)
    for n in range(rows):
        for t in range(steps):
            p = player[t, n]
            for u in range(t + 1, steps):  # the same player's next move, unless the game ends first
                if terminated[u - 1, n]:
                    break
                if player[u, n] == p:
                    nxt[t, n] = u
                    break
            if nxt[t, n] < 0:
                end = next((u for u in range(t, steps) if terminated[u, n]), None)
                if end is not None:
                    reward[t, n], done[t, n] = returns[end, n, p], True
    return reward, done, nxt


def _gae_reference(reward, done, nxt, value, gamma, lam):
    adv = np.zeros_like(value)
    for n in range(value.shape[1]):
        for t in reversed(range(value.shape[0])):
            following = 0.0 if done[t, n] else (value[nxt[t, n], n] if nxt[t, n] >= 0 else value[t, n])
            carry = adv[nxt[t, n], n] if (nxt[t, n] >= 0 and not done[t, n]) else 0.0
            adv[t, n] = reward[t, n] + gamma * following - value[t, n] + gamma * lam * carry
    return adv


@pytest.mark.parametrize("players", [1, 2, 4])
def test_chains_and_advantages_match_the_references(players):
    rng = np.random.default_rng(players)
    steps, rows = 40, 30
    player = rng.integers(0, players, (steps, rows))
    terminated = rng.random((steps, rows)) < 0.15
    returns = np.where(terminated[:, :, None], rng.normal(size=(steps, rows, players)), 0).astype(np.float32)
    reward, done, nxt = player_chains(player, terminated, returns)
    ref = _chains_reference(player, terminated, returns)
    np.testing.assert_allclose(reward, ref[0], rtol=1e-6)
    assert (done == ref[1]).all() and (nxt == ref[2]).all()
    value = rng.normal(size=(steps, rows)).astype(np.float32)
    np.testing.assert_allclose(gae(reward, done, nxt, value, value, 0.99, 0.9),
                               _gae_reference(reward, done, nxt, value, 0.99, 0.9), rtol=1e-4, atol=1e-5)
