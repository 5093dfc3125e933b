"""The pyspiel game poker_dice: conformance, scripted turns, kernels against references."""

from itertools import combinations

import numpy as np
import pyspiel
import pytest

import gamut.envs.poker_dice.game  # noqa: F401  (registers poker_dice)
from gamut.envs import dice
from gamut.envs.poker_dice import kernels as K
from gamut.envs.poker_dice.scorecard import box_names, make_variant
from gamut.envs.versions import game_variants
from tests.test_poker_dice_reference import normal_score, turn_outcomes

GAMES = game_variants()["poker_dice"] + (
    "poker_dice(variant=yahtzee,players=2,joker=forced)", "poker_dice(variant=yahtzee,joker=none)",
    "poker_dice(variant=ranking,players=8,zero_sum=true)", "poker_dice(variant=classic,players=1)",
)


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.slow
def test_random_sim_test(name):
    pyspiel.random_sim_test(pyspiel.load_game(name), num_sims=3, serialize=True, verbose=False)


def _keep(faces):
    return dice.keep_id(faces)


def _roll(faces):
    return dice.roll_id(faces)


def test_yacht12_scripted_game_scores_like_the_reference():
    game = pyspiel.load_game("poker_dice(variant=yacht12,players=1)")
    names = box_names(make_variant("yacht12"))
    state = game.new_initial_state()
    rng = np.random.default_rng(0)
    expect = 0
    for b, box in enumerate(names):
        faces = tuple(sorted(int(f) for f in rng.integers(1, 7, size=5)))
        state.apply_action(_roll(faces))
        assert K.BOX_BASE + b in state.legal_actions()
        state.apply_action(K.BOX_BASE + b)
        expect += normal_score("yacht12", box, faces, False)
    assert state.is_terminal() and state.returns() == [expect]


def test_classic_first_roll_doubling_and_zero_sum_returns():
    game = pyspiel.load_game("poker_dice(variant=classic,players=2)")
    names = box_names(make_variant("classic"))
    state = game.new_initial_state()
    for turn in range(6):  # stage 1: both players record three dice of each face
        for _ in range(2):
            face = turn + 1
            state.apply_action(_roll((face, face, face, 1 if face != 1 else 2, 6 if face != 6 else 5)))
            state.apply_action(K.BOX_BASE + turn)
    # Stage 2 only allows stage-2 boxes now.
    state.apply_action(_roll((2, 2, 4, 4, 6)))
    assert all(a >= K.BOX_BASE + 6 or a < K.NUM_KEEPS for a in state.legal_actions())
    pair = K.BOX_BASE + names.index("pair")
    state.apply_action(pair)  # player 0: first-roll pair of fours doubled = 16
    state.apply_action(_roll((1, 2, 3, 5, 6)))
    state.apply_action(_keep((5, 6)))
    state.apply_action(_roll((5, 6, 6, 1, 2)))
    state.apply_action(pair)  # player 1: pair of sixes on the second roll = 12
    p0 = K.S_PLAYERS + K.F_SCORE
    p1 = K.S_PLAYERS + K.PLAYER_FIELDS + K.F_SCORE
    # Stage 1 totals: 1 + ... all zero (three of each face), so both got the +50 bonus.
    assert (state.state[p0], state.state[p1]) == (50 + 16, 50 + 12)


def test_banked_rolls_are_banked_and_spent():
    game = pyspiel.load_game("poker_dice(variant=classic_banked,players=1)")
    state = game.new_initial_state()
    aux = K.S_PLAYERS + K.F_AUX
    for face in range(1, 7):  # record every stage-1 box after one roll: bank two each
        state.apply_action(_roll((face,) * 3 + ((face % 6) + 1,) * 2))
        state.apply_action(K.BOX_BASE + face - 1)
    assert state.state[aux] == 12
    state.apply_action(_roll((1, 2, 3, 4, 6)))
    for _ in range(2):
        state.apply_action(_keep((1, 2, 3, 4)))
        state.apply_action(_roll((1, 2, 3, 4, 6)))
    # Three base rolls used: stage 2 may spend banked rolls.
    assert _keep((1, 2, 3, 4)) in state.legal_actions()
    state.apply_action(_keep((1, 2, 3, 4)))
    state.apply_action(_roll((1, 2, 3, 4, 5)))
    state.apply_action(K.BOX_BASE + box_names(make_variant("classic_banked")).index(
        "large straight"))
    assert state.state[aux] == 11
    assert state.state[K.S_PLAYERS + K.F_SCORE] == 50 + 15  # stage-1 bonus + the straight


def test_ranking_second_reroll_keeps_the_first_keep_and_shares_ties():
    game = pyspiel.load_game("poker_dice(variant=ranking,players=3)")
    state = game.new_initial_state()
    state.apply_action(_roll((1, 1, 2, 5, 6)))
    state.apply_action(_keep((1, 1)))
    state.apply_action(_roll((1, 1, 3, 4, 6)))
    legal = state.legal_actions()
    kept = [dice.keep_faces(a) for a in legal if a < K.NUM_KEEPS]
    expect = {s for n in range(5) for s in combinations((1, 1, 3, 4, 6), n)
              if s[:2] == (1, 1) and len(s) >= 2}
    assert set(kept) == expect and legal[-1] == K.STOP
    state.apply_action(_keep((1, 1, 6)))
    state.apply_action(_roll((1, 1, 6, 6, 2)))  # third roll ends the turn: two pairs
    state.apply_action(_roll((6, 6, 1, 1, 2)))  # player 1: the same hand, stops
    state.apply_action(K.STOP)
    state.apply_action(_roll((1, 2, 3, 4, 6)))  # player 2: high, stops
    state.apply_action(K.STOP)
    assert state.is_terminal() and state.returns() == [0.5, 0.5, 0.0]


def test_illegal_action_names_the_legal_ones():
    state = pyspiel.load_game("poker_dice(variant=ranking,players=2)").new_initial_state()
    state.apply_action(_roll((1, 2, 3, 4, 5)))
    with pytest.raises(ValueError, match="not legal here; legal actions: .*stop"):
        state.apply_action(_keep((6,)))


def _reference_legal(variant, family, joker, st, cfg):
    roll = st[K.S_ROLL]
    faces = dice.roll_faces(roll)
    rolls = st[K.S_ROLLS]
    base = K.S_PLAYERS + K.PLAYER_FIELDS * st[K.S_PLAYER]
    actions = set()
    names = box_names(variant)
    stages = {b.name: b.stage for b in variant.boxes}
    mask = st[base + K.F_MASK]
    filled = {n: 0 for i, n in enumerate(names) if (mask >> i) & 1}
    if "yahtzee" in filled:
        filled["yahtzee"] = 50 if st[base + K.F_AUX] == 1 else 0
    stage = min(stages[n] for n in names if n not in filled)
    extra = family == "classic_banked" and stage == 1 and rolls - 3 < st[base + K.F_AUX]
    if rolls < 3 or extra:
        actions |= {dice.keep_id(s) for n in range(5) for s in combinations(faces, n)}
    outcomes = turn_outcomes(family, joker, names, stages, filled, faces, rolls == 1)
    actions |= {K.BOX_BASE + names.index(n) for n in outcomes}
    return sorted(actions)


@pytest.mark.parametrize("family, joker", [("classic", "free"), ("classic_banked", "free"),
                                           ("yahtzee", "forced"), ("yahtzee", "free")])
@pytest.mark.slow
def test_legal_actions_match_reference_along_random_games(family, joker):
    game = pyspiel.load_game(f"poker_dice(variant={family},players=2,joker={joker})")
    variant = make_variant(family, joker)
    t = game.tables
    rng = np.random.default_rng(11)
    out = np.empty(K.NUM_ACTIONS, dtype=np.int64)
    allowed = np.zeros(t.num_boxes, dtype=np.bool_)
    st = np.zeros(K.STATE_SIZE, dtype=np.int64)
    checked = 0
    while checked < 25_000:
        K.init_state(st, game.cfg, t.params)
        while st[K.S_PHASE] != K.PH_OVER:
            if st[K.S_PHASE] == K.PH_CHANCE:
                # Five alike often, to reach jokers and extra Yahtzees.
                keep = st[K.S_KEEP]
                face = int(rng.integers(1, 7))
                if rng.random() < 0.3 and all(f == face for f in dice.keep_faces(keep)):
                    roll = dice.roll_id((face,) * 5)
                else:
                    roll = int(K.sample_roll(keep, np.array([rng.integers(1, 2**63)],
                                                            dtype=np.uint64)))
                K.apply_action(st, game.cfg, t.params, t.box_data, t.roll_data, roll)
                continue
            n = K.legal_actions(st, game.cfg, t.params, t.box_data, t.roll_data, out, allowed)
            assert out[:n].tolist() == _reference_legal(variant, family, joker, st, game.cfg)
            # The playout's list-free sampler indexes the same actions.
            assert K.num_legal_actions(st, game.cfg, t.params, t.box_data, t.roll_data,
                                       allowed) == n
            assert [K.legal_action_at(st, game.cfg, t.params, t.box_data, t.roll_data, i, allowed)
                    for i in range(n)] == out[:n].tolist()
            checked += 1
            K.apply_action(st, game.cfg, t.params, t.box_data, t.roll_data,
                           int(out[rng.integers(n)]))


def test_sampled_rolls_follow_the_transition_probabilities():
    rng = np.array([12345], dtype=np.uint64)
    for keep in (0, _keep((6,)), _keep((2, 2, 5)), _keep((1, 2, 3, 4))):
        counts = np.zeros(dice.NUM_ROLLS)
        draws = 200_000
        for _ in range(draws):
            counts[K.sample_roll(keep, rng)] += 1
        p = dice.TRANSITION[keep]
        support = p > 0
        assert counts[~support].sum() == 0
        chi2 = (((counts - draws * p) ** 2)[support] / (draws * p[support])).sum()
        dof = support.sum() - 1
        assert chi2 < dof + 5 * np.sqrt(2 * dof) + 10, (keep, chi2, dof)


def test_random_games_are_deterministic_per_seed():
    game = pyspiel.load_game("poker_dice(variant=yahtzee,players=2)")
    t = game.tables
    a, b, c = (np.zeros((500, 2)) for _ in range(3))
    K.random_games(game.cfg, t.params, t.box_data, t.roll_data, 500, 7, a)
    K.random_games(game.cfg, t.params, t.box_data, t.roll_data, 500, 7, b)
    K.random_games(game.cfg, t.params, t.box_data, t.roll_data, 500, 8, c)
    assert np.array_equal(a, b) and not np.array_equal(a, c)
    np.testing.assert_allclose(a.sum(axis=1), 0.0, atol=1e-9)


def test_python_mcts_and_evaluate_bots_run():
    from open_spiel.python.algorithms import mcts

    game = pyspiel.load_game("poker_dice(variant=ranking,players=2)")
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(0))
    bots = [mcts.MCTSBot(game, 2, 20, evaluator, random_state=np.random.RandomState(i))
            for i in range(2)]
    returns = pyspiel.evaluate_bots(game.new_initial_state(), bots, 3)
    assert sorted(returns) in ([0.0, 1.0], [0.5, 0.5])
    uniform = [pyspiel.make_uniform_random_bot(i, 5) for i in range(2)]
    single = pyspiel.load_game("poker_dice(variant=yacht12,players=2)")
    assert sum(pyspiel.evaluate_bots(single.new_initial_state(), uniform, 5)) == \
        pytest.approx(0.0)
