"""Palace Poker agents: heuristic kernels against references, common deals, ISMCTS adapter, matches."""

from __future__ import annotations

import itertools

import numpy as np
import pyspiel
import pytest

import gamut.envs.palace_poker.game  # noqa: F401  (registers palace_poker)
from gamut.envs import hands
from gamut.envs.hands import HAND_TABLE
from gamut.envs.palace_poker import kernels as K
from gamut.envs.palace_poker import layout as L
from gamut.envs.palace_poker import showdown
from gamut.envs.rng import rng_state
from gamut.solvers.bots import make_bot
from gamut.solvers.palace_poker import heuristic as H
from gamut.solvers.palace_poker import match as M
from gamut.solvers.palace_poker import search as S
from tests.chance import decision_positions, positions_where, random_position


# --- heuristic -----------------------------------------------------------------------------

def test_make_params_defaults_and_errors():
    params = H.make_params()
    assert params.shape == (H.NUM_PARAMS,)
    assert dict(zip(H.PARAM_NAMES, params)) == {k: float(v) for k, v in H.DEFAULTS.items()}
    for bad in ({"attack": -0.1}, {"buy_below": 200}, {"samples": 0}, {"samples": 2.5}, {"colour": 1}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            H.make_params(**bad)


def test_hand_level_examples():
    pair_nines = hands.best_strengths(np.array([[28, 29, 0, 8, 48]]))[0]  # 9c 9d 2c 4c Ac
    assert H.hand_level(pair_nines) == 16 + 9
    assert H.hand_level(0) == 0


def _random_battle_states(rng, count):
    """Random positions of two seats (0 attacks 1) with every card placed at random, as arrays."""
    states = np.zeros((count, L.STATE_SIZE), dtype=np.int64)
    for i in range(count):
        st = states[i]
        K.init_state(st, CFG2)
        deck = rng.permutation(L.NUM_CARDS)
        suits = rng.permutation(4)
        banners = [int(c) for c in deck if c & 3 == suits[0]][:1] + [int(c) for c in deck if c & 3 == suits[1]][:1]
        rest = [int(c) for c in deck if c not in banners]
        for q in range(2):
            st[L.S_BANNER + q] = banners[q]
            st[L.S_LOC + banners[q]] = L.LOC_BANNER + q
        k = 0
        for q in range(2):
            for _ in range(3):
                st[L.S_LOC + rest[k]] = L.LOC_PALACE + q
                st[L.S_KNOWN + q] |= 1 << rest[k]
                k += 1
            for _ in range(rng.integers(0, 6)):
                st[L.S_LOC + rest[k]] = L.LOC_SOLDIER + q
                st[L.S_NSOLD + q] += 1
                st[L.S_PUBLIC] |= 1 << rest[k]
                k += 1
        st[L.S_PHASE] = L.PH_TURN
    return states


CFG2 = L.make_config(2, 2, 4, False, 200, 3, 400)


@pytest.mark.slow
def test_battle_equity_with_shown_palace_matches_the_battle_rule():
    # With the opponent's palace shown, equity is 1, 0.5 or 0 exactly as the
    # rules kernel settles the battle (100,000 random positions).
    rng = np.random.default_rng(11)
    states = _random_battle_states(rng, 100_000)
    work = np.empty(H.WORK_SIZE, dtype=np.int64)
    gen = rng_state(1)
    for st in states:
        st[L.S_KNOWN + 0] |= showdown.palace_mask(st, 1)
        winner = showdown.battle_winner(st, 0, 1, HAND_TABLE)
        expected = {0: 1.0, 1: 0.0, -1: 0.5}[int(winner)]
        assert H.battle_equity(st, 0, 1, 4, gen, HAND_TABLE, work) == expected


def _exact_equity(st, p, o):
    # Slow reference: every palace the opponent may hold, from the cards p has not seen.
    known = int(st[L.S_PUBLIC]) | int(st[L.S_KNOWN + p])
    pool = [c for c in range(52) if not (known >> c) & 1]
    base = st.copy()
    for c in range(52):
        if base[L.S_LOC + c] == L.LOC_PALACE + o:
            base[L.S_LOC + c] = L.LOC_DRAW
    total = 0.0
    combos = list(itertools.combinations(pool, 3))
    for combo in combos:
        trial = base.copy()
        for c in combo:
            trial[L.S_LOC + c] = L.LOC_PALACE + o
        winner = showdown.battle_winner(trial, p, o, HAND_TABLE)
        total += {p: 1.0, o: 0.0, -1: 0.5}[int(winner)]
    return total / len(combos)


def test_battle_equity_converges_to_the_exact_equity():
    rng = np.random.default_rng(5)
    work = np.empty(H.WORK_SIZE, dtype=np.int64)
    for st in _random_battle_states(rng, 3):
        exact = _exact_equity(st, 0, 1)
        estimate = H.battle_equity(st, 0, 1, 20_000, rng_state(3), HAND_TABLE, work)
        assert abs(estimate - exact) < 0.015  # 4 standard errors of 20,000 draws at most


@pytest.mark.parametrize("spec", ["palace_poker()", "palace_poker(players=4)",
                                  "palace_poker(players=6,betting=no_limit)"])
@pytest.mark.slow
def test_heuristic_moves_are_legal_and_seeded(spec):
    game, states = decision_positions(spec, 300, 2)
    for state in states:
        player = state.current_player()
        a = make_bot(game, "heuristic", player, 7).step(state)
        assert a in state.legal_actions()
        assert make_bot(game, "heuristic", player, 7).step(state) == a


def _play_discards(state, bot):
    while not state.is_terminal() and state.state[L.S_PHASE] == L.PH_DISCARD:
        state.apply_action(bot.step(state))


@pytest.mark.slow
def test_discards_keep_the_best_hand_and_at_most_five_soldiers():
    # Reference: the strength of all the seat's cards before discarding (the best
    # five never need more than five soldiers, so keeping it is always possible).
    game = pyspiel.load_game("palace_poker(players=4)")
    checked = 0
    for state in positions_where(game, np.random.default_rng(3), 10, 120,
                                 lambda s: s.state[L.S_PHASE] == L.PH_DISCARD and not s.state[L.S_DISC_COUNT]):
        p = state.current_player()
        cards = np.empty(H.MAX_HELD, dtype=np.int64)
        before = hands.best_strength(cards, showdown.player_cards(state.state, p, cards), -1, HAND_TABLE)
        paid = state.state[L.S_DISC_KIND] == L.DK_PAID
        _play_discards(state, make_bot(game, "heuristic", p, 0))
        if state.is_terminal():
            continue
        assert state.state[L.S_NSOLD + p] <= L.MAX_SOLDIERS
        after = hands.best_strength(cards, showdown.player_cards(state.state, p, cards), -1, HAND_TABLE)
        if not paid:
            assert after == before
        checked += 1
        if checked == 150:
            break


@pytest.mark.slow
def test_heuristic_attacks_the_opponent_it_beats_most_often():
    game = pyspiel.load_game("palace_poker(players=3)")
    seen = 0
    for state in positions_where(game, np.random.default_rng(9), 10, 60,
                                 lambda s: s.state[L.S_PHASE] == L.PH_TURN and showdown.popcount(s.state[L.S_IN]) == 3):
        st = state.state
        p = state.current_player()
        action = make_bot(game, "heuristic", p, 1, samples=4000).step(state)
        if action < game.cfg[L.C_BET_BASE]:
            continue
        target, _ = K.bet_target_level(game.cfg, action)
        work = np.empty(H.WORK_SIZE, dtype=np.int64)
        others = [t for t in range(3) if t not in (p, target) and (st[L.S_IN] >> t) & 1
                  and showdown.banner_suit(st, t) != showdown.banner_suit(st, p)]
        mine = H.battle_equity(st, p, target, 4000, rng_state(2), HAND_TABLE, work)
        for t in others:
            assert mine >= H.battle_equity(st, p, t, 4000, rng_state(2), HAND_TABLE, work) - 0.05
        seen += 1
        if seen == 40:
            break


# --- common random deals --------------------------------------------------------------------

def _splitmix_ref(x):
    # splitmix64 on uint64 arrays (numpy wraps around like the 64-bit arithmetic it models).
    with np.errstate(over="ignore"):
        z = x + np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def test_card_key_matches_a_numpy_splitmix_on_100000_cases():
    rng = np.random.default_rng(0)
    n = 100_000
    seed = rng.integers(0, 2**62, n, dtype=np.uint64)
    deal = rng.integers(0, 10**6, n, dtype=np.uint64)
    epoch = rng.integers(0, 5, n, dtype=np.uint64)
    card = rng.integers(0, 52, n, dtype=np.uint64)
    expected = _splitmix_ref(_splitmix_ref(seed ^ _splitmix_ref(deal ^ _splitmix_ref(epoch))) ^ card)
    got = np.array([M.card_key(int(a), int(b), int(c), int(d)) for a, b, c, d in zip(seed, deal, epoch, card)],
                   dtype=np.uint64)
    np.testing.assert_array_equal(got, expected)


def test_replay_reaches_the_state_of_the_history():
    game = pyspiel.load_game("palace_poker(players=5,betting=no_limit)")
    rng = np.random.default_rng(2)
    out = np.zeros(L.STATE_SIZE, dtype=np.int64)
    for _ in range(200):
        state = random_position(game, rng, 5, 150)
        S.replay(np.asarray(state.history(), dtype=np.int64), game.cfg, out, HAND_TABLE)
        np.testing.assert_array_equal(out, state.state)


def test_common_chance_deals_the_smallest_key_of_the_pile_and_counts_epochs():
    game = pyspiel.load_game("palace_poker(players=4)")
    rng = np.random.default_rng(4)
    for deal in range(60):
        state = game.new_initial_state()
        track = M.new_track()
        epoch, last = 0, 52
        while not state.is_terminal():
            if state.is_chance_node():
                pile = [c for c, _ in state.chance_outcomes()]
                if len(pile) > last:
                    epoch += 1
                expected = min(pile, key=lambda c: int(M.card_key(9, deal, epoch, c)))
                got = int(M.common_chance(state.state, 9, deal, track))
                assert got == expected and int(track[0]) == epoch
                last = len(pile) - 1
                state.apply_action(got)
            else:
                legal = state.legal_actions()
                state.apply_action(legal[rng.integers(len(legal))])


@pytest.mark.slow
def test_common_deals_are_uniform():
    # Seat 0's banner and first palace card over 20,000 deals: chi-square against uniform.
    from scipy.stats import chisquare

    game = pyspiel.load_game("palace_poker()")
    banner, palace = np.zeros(52), np.zeros(52)
    for deal in range(20_000):
        state = game.new_initial_state()
        track = M.new_track()
        while state.state[L.S_PHASE] == L.PH_BANNER:
            state.apply_action(int(M.common_chance(state.state, 1, deal, track)))
        banner[state.state[L.S_BANNER]] += 1
        first = int(M.common_chance(state.state, 1, deal, track))
        palace[first] += 1
    assert chisquare(banner).pvalue > 1e-3
    assert chisquare(palace[palace > 0]).pvalue > 1e-3 and np.count_nonzero(palace) == 52


def test_rotations_share_the_deal_and_returns_sum_to_zero():
    game = pyspiel.load_game("palace_poker(players=3)")
    deals = []
    for r in range(3):
        bots = [make_bot(game, "random", s, M.bot_seed(5, 0, r, s)) for s in range(3)]
        state = game.new_initial_state()
        track = M.new_track()
        while state.state[L.S_PHASE] in (L.PH_BANNER, L.PH_PALACE):
            state.apply_action(int(M.common_chance(state.state, 5, 0, track)))
        deals.append(state.history())
        assert abs(sum(M.play_hand(game, bots, 5, 0))) < 1e-9
    assert deals[0] == deals[1] == deals[2]


def test_rotated_match_is_seeded_and_zero_sum():
    game = pyspiel.load_game("palace_poker(players=4)")
    lineup = M.lineup_for(["heuristic", "random"], 4)
    assert lineup == ["heuristic", "random", "heuristic", "random"]

    def make(name, seat, seed):
        return make_bot(game, name, seat, seed)

    first = M.rotated_match(game, lineup, make, 3, range(20))
    again = M.rotated_match(game, lineup, make, 3, range(20))
    np.testing.assert_array_equal(first["heuristic"], again["heuristic"])
    np.testing.assert_allclose(first["heuristic"], -first["random"])
    with pytest.raises(ValueError, match="3 agents do not fit 2 seats"):
        M.lineup_for(["a", "b", "c"], 2)


@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.slow
def test_heuristic_beats_random(players):
    game = pyspiel.load_game(f"palace_poker(players={players})")
    samples = M.rotated_match(game, M.lineup_for(["heuristic", "random"], players),
                              lambda name, seat, seed: make_bot(game, name, seat, seed), 1, range(150))
    est = M.summarize_samples(samples)
    assert est["heuristic"].ci95_low > est["random"].ci95_high


# --- ISMCTS adapter ---------------------------------------------------------------------------

@pytest.mark.parametrize("policy", S.ROLLOUT_POLICIES)
def test_rollout_evaluator_is_seeded_zero_sum_and_leaves_the_state(policy):
    game, states = decision_positions("palace_poker(players=4)", 30, 6)
    evaluate = S.PalaceRollout(game, policy)
    for state in states:
        before = state.state.copy()
        out = evaluate(state, 123)
        assert out.shape == (4,) and abs(out.sum()) < 1e-9
        np.testing.assert_array_equal(evaluate(state, 123), out)
        np.testing.assert_array_equal(state.state, before)


def test_modelled_state_offers_other_seats_the_heuristic_move():
    game, states = decision_positions("palace_poker(players=4)", 40, 8)
    params = H.make_params()
    for state in states:
        player = state.current_player()
        searcher = (player + 1) % 4
        model = S.ModelledState.from_history(game, state.history(), searcher, params, 5)
        np.testing.assert_array_equal(model.state, state.state)
        offered = model.legal_actions()
        assert len(offered) == 1 and offered[0] in state.legal_actions()
        own = S.ModelledState.from_history(game, state.history(), player, params, 5)
        if state.state[L.S_PHASE] != L.PH_DISCARD:
            assert own.legal_actions() == state.legal_actions()


def test_modelled_resampling_keeps_what_the_searcher_knows():
    game, states = decision_positions("palace_poker(players=4)", 20, 10)
    sampler = pyspiel.UniformProbabilitySampler(3, 0.0, 1.0)
    for state in states:
        p = state.current_player()
        root = S.ModelledState.from_history(game, state.history(), p, H.make_params(), 1)
        for _ in range(3):
            det = root.resample_from_infostate(p, sampler)
            assert isinstance(det, S.ModelledState)
            np.testing.assert_array_equal(det.legal_actions(), root.legal_actions())
            assert det.information_state_string(p) == root.information_state_string(p)
            for c in range(52):
                if (int(state.state[L.S_PUBLIC] | state.state[L.S_KNOWN + p]) >> c) & 1:
                    assert det.state[L.S_LOC + c] == state.state[L.S_LOC + c]


def test_model_disagreements_match_a_replay_through_the_bots():
    game = pyspiel.load_game("palace_poker(players=3)")
    params = H.make_params(samples=8)
    for deal in range(10):
        history = []
        state = game.new_initial_state()
        track = M.new_track()
        bots = [make_bot(game, "heuristic" if s else "random", s, deal) for s in range(3)]
        while not state.is_terminal():
            if state.is_chance_node():
                action = int(M.common_chance(state.state, 2, deal, track))
            else:
                action = bots[state.current_player()].step(state)
            history.append(action)
            state.apply_action(action)
        arr = np.asarray(history, dtype=np.int64)
        # Reference: a Python replay asking the heuristic kernel at every move of seats 1 and 2.
        replay = game.new_initial_state()
        rng = rng_state(77)
        legal = np.empty(int(game.cfg[L.C_NUM_ACTIONS]), dtype=np.int64)
        work = np.empty(H.WORK_SIZE, dtype=np.int64)
        misses = 0
        for action in history:
            if replay.current_player() > 0:
                misses += H.heuristic_action(replay.state, game.cfg, params, rng, HAND_TABLE, legal, work) != action
            replay.apply_action(action)
        assert S.model_disagreements(arr, game.cfg, 0, params, 77, HAND_TABLE, len(arr) + 1) == misses
        # Without the turns: only battle decisions and discards are asked.
        replay = game.new_initial_state()
        rng = rng_state(77)
        misses = 0
        for action in history:
            if replay.current_player() > 0 and replay.state[L.S_PHASE] != L.PH_TURN:
                misses += H.heuristic_action(replay.state, game.cfg, params, rng, HAND_TABLE, legal, work) != action
            replay.apply_action(action)
        assert S.model_disagreements(arr, game.cfg, 0, params, 77, HAND_TABLE, len(arr) + 1, False) == misses


def test_ismcts_agent_is_registered_for_palace_seeded_and_legal():
    game, states = decision_positions("palace_poker(players=3)", 6, 12)
    for state in states:
        p = state.current_player()
        bot = make_bot(game, "ismcts", p, 4, iterations=60)
        assert isinstance(bot, S.PalaceISMCTSBot)
        action = bot.step(state)
        assert action in state.legal_actions()
        assert make_bot(game, "ismcts", p, 4, iterations=60).step(state) == action
    with pytest.raises(ValueError, match="rollout policy"):
        make_bot(game, "ismcts", 0, 0, rollout="greedy")


def test_the_agent_table_defaults_are_those_of_the_search_bot():
    import inspect

    from gamut.solvers.bots import bot_specs

    options = bot_specs("palace_poker")["ismcts"].options
    signature = inspect.signature(S.PalaceISMCTSBot).parameters
    assert {name: opt.default for name, opt in options.items()} == {name: signature[name].default for name in options}


def test_a_modelled_seat_given_a_move_illegal_in_this_deal_plays_the_model_move():
    # A node keeps the move of the determinization that made it; in another deal it may be illegal.
    game, states = decision_positions("palace_poker(players=4)", 40, 8)
    params = H.make_params()
    checked = 0
    for state in states:
        player = state.current_player()
        illegal = sorted(set(range(game.num_distinct_actions())) - set(state.legal_actions()))
        if not illegal:
            continue
        model = S.ModelledState.from_history(game, state.history(), (player + 1) % 4, params, 5)
        expected = S.ModelledState.from_history(game, state.history(), (player + 1) % 4, params, 5)
        expected.apply_action(expected.legal_actions()[0])
        model.apply_action(illegal[-1])
        np.testing.assert_array_equal(model.state, expected.state)
        own = S.ModelledState.from_history(game, state.history(), player, params, 5)
        if state.state[L.S_PHASE] != L.PH_DISCARD:
            with pytest.raises(ValueError, match="is not legal here"):
                own.apply_action(illegal[-1])
        checked += 1
    assert checked >= 20


def test_a_belief_pool_replaces_fresh_deals_for_its_player_only():
    game, states = decision_positions("palace_poker(players=4)", 20, 10)
    sampler = pyspiel.UniformProbabilitySampler(5, 0.0, 1.0)
    spread = 0
    for state in states:
        p = state.current_player()
        root = S.ModelledState.from_history(game, state.history(), p, H.make_params(), 1)
        pool = [root.modelled_deal(p, seed) for seed in (11, 12, 13)]
        for position in pool:
            check = S.ModelledState.from_history(game, state.history(), p, H.make_params(), 1)
            check.state[:] = position
            assert check.information_state_string(p) == root.information_state_string(p)
        root.with_beliefs(pool, p)
        distinct = {position.tobytes() for position in pool}
        drawn = set()
        for _ in range(30):
            det = root.resample_from_infostate(p, sampler)
            assert isinstance(det, S.ModelledState) and det.searcher == p
            drawn.add(det.state.tobytes())
        assert drawn == distinct
        spread += len(distinct) > 1
        # Another seat's determinizations are dealt afresh, consistent with that seat's information.
        other = (p + 1) % 4
        det = root.resample_from_infostate(other, sampler)
        for c in range(52):
            if (int(state.state[L.S_PUBLIC] | state.state[L.S_KNOWN + other]) >> c) & 1:
                assert det.state[L.S_LOC + c] == state.state[L.S_LOC + c]
        root.with_beliefs([], p)
        draws = iter([0.25, 0.75])
        np.testing.assert_array_equal(root.resample_from_infostate(p, lambda: next(draws)).state,
                                      root.modelled_deal(p, int(0.25 * 2**31) << 31 | int(0.75 * 2**31)))
    assert spread >= 10


def test_a_fresh_determinization_is_the_modelled_deal_of_its_seed():
    game, states = decision_positions("palace_poker(players=4)", 6, 14)
    for state in states:
        p = state.current_player()
        root = S.ModelledState.from_history(game, state.history(), p, H.make_params(), 1)
        draws = iter([0.25, 0.75])
        det = root.resample_from_infostate(p, lambda: next(draws))
        seed = int(0.25 * 2**31) << 31 | int(0.75 * 2**31)
        np.testing.assert_array_equal(det.state, root.modelled_deal(p, seed))


def test_the_search_key_of_the_searcher_fixes_its_legal_actions():
    # Within one search, every state the searcher's key names must offer the same moves:
    # battles between other seats are decided by the hidden palaces a determinization deals,
    # so who is still in the hand can differ after the same moves. The continuations differ
    # only in those palaces: chance gives its first outcome, the searcher stays when it may
    # (leaving the battles to the others), else makes a fixed choice.
    game, states = decision_positions("palace_poker(players=4)", 60, 21, min_moves=4, max_moves=30)
    sampler = pyspiel.UniformProbabilitySampler(9, 0.0, 1.0)
    seen, compared = {}, 0
    for index, state in enumerate(states):
        p = state.current_player()
        root = S.ModelledState.from_history(game, state.history(), p, H.make_params(), index)
        for _ in range(40):
            det = root.resample_from_infostate(p, sampler)
            while not det.is_terminal():
                if det.is_chance_node():
                    det.apply_action(det.chance_outcomes()[0][0])
                    continue
                legal = det.legal_actions()
                if det.current_player() == p and det.state[L.S_PHASE] != L.PH_DISCARD:
                    key = (index, det.information_state_string(p))
                    public = (tuple(legal), int(det.state[L.S_IN]))
                    compared += key in seen
                    assert seen.setdefault(key, public) == public
                det.apply_action(L.STAY if L.STAY in legal else legal[len(det.moves) % len(legal)])
    assert compared >= 1000
