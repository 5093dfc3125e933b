"""Ranking game solver: one seat's turn against explicit enumeration; win shares by simulation."""

import numpy as np
import pyspiel
import pytest

import gamut.envs.poker_dice.game  # noqa: F401  (registers poker_dice)
from gamut.envs import dice
from gamut.envs.poker_dice import kernels as K
from gamut.solvers.poker_dice.ranking import seat_policy, seat_turn, solve_ranking
from tests.chance import play_game


def _contains(big, small):
    return all(b >= s for b, s in zip(dice.KEEP_COUNTS[big], dice.KEEP_COUNTS[small]))


def _reference_turn_value(u):
    """Expectimax written out: third-roll keeps via the dense transition matrix, every
    second keep checked for containing the first."""
    ev3 = dice.TRANSITION @ u
    short = [k for k in range(dice.NUM_KEEPS) if dice.KEEP_SIZE[k] < 5]
    second = np.zeros(dice.NUM_KEEPS)
    for F in short:
        after = np.array([
            max([u[r]] + [ev3[k] for k in dice.legal_keeps(r)
                          if dice.KEEP_SIZE[k] < 5 and _contains(k, F)])
            for r in range(dice.NUM_ROLLS)
        ])
        second[F] = dice.TRANSITION[F] @ after
    first = np.array([max([u[r]] + [second[k] for k in dice.legal_keeps(r) if dice.KEEP_SIZE[k] < 5])
                      for r in range(dice.NUM_ROLLS)])
    return dice.TRANSITION[0] @ first


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.slow
def test_seat_turn_matches_explicit_expectimax(seed):
    rng = np.random.default_rng(seed)
    u = rng.random(dice.NUM_ROLLS) * (rng.random(dice.NUM_ROLLS) < 0.3)
    value, first, second, dist = seat_turn(u)
    assert value == pytest.approx(_reference_turn_value(u), abs=1e-12)
    assert dist.sum() == pytest.approx(1.0, abs=1e-12)
    assert dist @ u == pytest.approx(value, abs=1e-12)
    for r in range(dice.NUM_ROLLS):
        if first[r] >= 0:
            assert _contains(dice.ROLL_TO_KEEP[r], first[r])
    F, r = np.nonzero(second >= 0)
    assert all(_contains(second[f, x], f) for f, x in zip(F[:2000], r[:2000]))


def test_win_shares_sum_to_one_and_favour_later_seats():
    for n in (2, 3, 5):
        shares = solve_ranking(n)["win_share"]
        assert sum(shares) == pytest.approx(1.0, abs=1e-12)
        assert all(a < b for a, b in zip(shares, shares[1:]))
    with pytest.raises(ValueError, match="players=1"):
        solve_ranking(1)


@pytest.mark.slow
def test_two_seat_shares_match_simulated_games_with_the_solved_policies():
    solved = solve_ranking(2)
    W = solved["leader_share"]
    rank = dice.ROLL_RANK + 1
    policies = {0: seat_policy(W, 2, None, 0)}
    game = pyspiel.load_game("poker_dice(variant=ranking,players=2)")
    rng = np.random.default_rng(2)
    games = 20_000

    def choose(state):
        st = state.state
        if st[K.S_PLAYER] == 0:
            first, second = policies[0]
        else:
            b = int(rank[st[K.S_PLAYERS + K.F_HAND]])
            if b not in policies:
                policies[b] = seat_policy(W, 1, int(st[K.S_PLAYERS + K.F_HAND]), 1)
                if len(policies) == 2:  # the last seat: win 1, tie 1/2, lose 0
                    u = np.where(rank > b, 1.0, np.where(rank == b, 0.5, 0.0))
                    assert all(np.array_equal(x, y)
                               for x, y in zip(policies[b], seat_turn(u)[1:3]))
            first, second = policies[b]
        roll = st[K.S_ROLL]
        keep = first[roll] if st[K.S_ROLLS] == 1 else second[st[K.S_FROZEN], roll]
        return K.STOP if keep < 0 else int(keep)

    wins = np.zeros(2)
    for _ in range(games):
        wins += play_game(game, rng, choose).returns()
    share = wins / games
    se = np.sqrt(share * (1 - share) / games)
    assert np.all(np.abs(share - solved["win_share"]) < 4 * se + 1e-3), (share, solved["win_share"])
