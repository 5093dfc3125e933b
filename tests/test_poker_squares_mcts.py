"""Poker Squares MCTS: the tree kernel against a plain dict-based reference, exact end-game choices, agent."""

import numpy as np
import pyspiel
import pytest

import gamut.envs  # noqa: F401
from gamut.envs.hands import HAND_TABLE
from gamut.envs.rng import rng_state, shuffle
from gamut.envs.poker_squares import kernels as K
from gamut.solvers.bots import make_bot
from gamut.solvers.poker_squares import crossline as X
from gamut.solvers.poker_squares import learned as L
from gamut.solvers.poker_squares import mcts as M
from gamut.solvers.poker_squares import search as S
from gamut.solvers.poker_squares.crossline import NO_WEIGHTS
from gamut.solvers.poker_squares.evaluation import deals, evaluate, play_deal
from tests.squares_states import dealt_state

AMERICAN = (0, 2, 5, 10, 15, 20, 25, 50, 75, 100)
CUSTOM = (-1, 0, 3, 6, 12, -5, 10, 16, 30, 30)


def _reference_search(state, cfg, values, weights, rng, uct_c, depth, iterations):
    """The same search with a dict keyed by the path (cells and cards) and plain Python loops."""
    visits, totals, children = {}, {}, {}
    unseen = np.empty(52, dtype=np.int64)
    nunseen = K.unseen_cards(state, unseen)
    dealt = int(state[K.S_NUM_DEALT])
    cands = np.empty(25, dtype=np.int64)
    ret_sum = ret_sq = 0.0
    for _ in range(iterations):
        work = state.copy()
        shuffle(unseen, nunseen, rng)
        work[K.S_DEAL + dealt:K.S_DEAL + 25] = unseen[:25 - dealt]
        work[K.S_NUM_DEALT] = 25
        n0 = visits.get((), 0)
        sd = 0.0
        if n0 > 1:
            mean = ret_sum / n0
            sd = np.sqrt(max(ret_sq / n0 - mean * mean, 0.0))
        key, path = (), [()]
        while True:
            if key not in children:
                children[key] = [int(c) for c in cands[:S.candidate_cells(work, 0, cands)]]
            unvisited = [c for c in children[key] if visits.get(key + (c,), 0) == 0]
            if unvisited:
                cell = unvisited[0]
            else:
                log_n = np.log(max(visits.get(key, 0), 1))
                scores = [totals[key + (c,)] / visits[key + (c,)]
                          + uct_c * sd * np.sqrt(log_n / visits[key + (c,)]) for c in children[key]]
                cell = children[key][int(np.argmax(scores))]
            K.place_card(work, 0, cell)
            key = key + (cell,)
            path.append(key)
            if visits.get(key, 0) == 0 or work[K.S_NUM_PLACED] == 25:
                ret = S.rollout_value(work, 0, cfg, HAND_TABLE, values, weights, rng, S.POLICY_LEARNED, depth)
                break
            key = key + (int(K.card_to_place(work, 0)),)
            path.append(key)
        for k in path:
            visits[k] = visits.get(k, 0) + 1
            totals[k] = totals.get(k, 0.0) + ret
        ret_sum += ret
        ret_sq += ret * ret
    return children[()], [visits.get((c,), 0) for c in children[()]], [
        totals[(c,)] / visits[(c,)] if visits.get((c,), 0) else np.nan for c in children[()]]


@pytest.mark.parametrize("placed,depth,uct_c,crossline", [(6, 3, 1.0, False), (15, 0, 0.5, False),
                                                          (20, -1, 2.0, False), (9, 2, 1.0, True)])
def test_tree_kernel_matches_the_dict_reference(placed, depth, uct_c, crossline):
    values = np.random.default_rng(placed).normal(size=L.NUM_KEYS) * 5
    weights = np.random.default_rng(placed + 1).normal(size=(26, X.NUM_FEATURES)) if crossline else NO_WEIGHTS
    cfg = K.make_config(1, False, False, AMERICAN)
    rng = np.random.default_rng(placed + 100)
    st = dealt_state(rng.permutation(52)[:25], list(rng.permutation(25)[:placed]))
    iterations = 300
    tree = M.new_tree(M.NODES_PER_ITERATION * (iterations + 1))
    M.reset_tree(tree)
    M.search(st, 0, cfg, HAND_TABLE, values, rng_state(5), uct_c, depth, iterations, tree, weights)
    cells, visits, means = M.root_children(tree)
    ref_cells, ref_visits, ref_means = _reference_search(st, cfg, values, weights, rng_state(5), uct_c, depth,
                                                         iterations)
    assert list(cells) == ref_cells and list(visits) == ref_visits
    assert np.allclose(means, ref_means, equal_nan=True)
    # Every iteration passes the root and one of its children; the root mean is the mean of all returns.
    assert tree.visits[0] == iterations == visits.sum()
    assert tree.total[0] == pytest.approx(tree.root_stats[0])
    assert tree.total[0] == pytest.approx(np.nansum(means * visits))


def test_a_full_pool_stops_growing_but_keeps_iterating():
    values = np.zeros(L.NUM_KEYS)
    cfg = K.make_config(1, False, False, AMERICAN)
    st = dealt_state(np.random.default_rng(8).permutation(52)[:25], [0, 6, 12, 18, 24, 1, 7, 13])
    tree = M.new_tree(M.NODES_PER_ITERATION)
    M.reset_tree(tree)
    M.search(st, 0, cfg, HAND_TABLE, values, rng_state(1), 1.0, 2, 500, tree)
    cells, visits, _ = M.root_children(tree)
    assert tree.meta[0] <= M.NODES_PER_ITERATION and visits.sum() == 500 and len(cells) == 17


def _exact_values(st, cfg):
    """Expected final score of each empty cell with 22 or 23 cards placed, by enumerating the unseen cards."""
    unseen = [c for c in range(52) if c not in set(st[K.S_DEAL:K.S_DEAL + st[K.S_NUM_DEALT]])]

    def best_after(after, rest):
        empty = [c for c in range(25) if after[c] < 0]
        if not empty:
            return K.grid_score(after, 0, cfg, HAND_TABLE)
        total = 0.0
        for card in rest:
            best = -np.inf
            for cell in empty:
                nxt = after.copy()
                nxt[cell] = card
                best = max(best, best_after(nxt, [c for c in rest if c != card]))
            total += best
        return total / len(rest)

    out = {}
    for cell in (c for c in range(25) if st[c] < 0):
        after = st.copy()
        after[cell] = st[K.S_DEAL + st[K.S_NUM_PLACED]]
        out[cell] = best_after(after, unseen)
    return out


@pytest.mark.parametrize("placed", [22, 23])
def test_many_iterations_find_the_exact_best_end_game_cell(placed):
    cfg = K.make_config(1, False, False, AMERICAN)
    values = np.zeros(L.NUM_KEYS)
    rng = np.random.default_rng(placed)
    checked = 0
    for _ in range(200):
        st = dealt_state(rng.permutation(52)[:25], list(rng.permutation(25)[:placed]))
        exact = _exact_values(st, cfg)
        ranked = sorted(exact.values(), reverse=True)
        if ranked[0] - ranked[1] < 1.0:
            continue  # too close to call for a sampled search: a different position is drawn
        tree = M.new_tree(M.NODES_PER_ITERATION * 20001)
        M.reset_tree(tree)
        M.search(st, 0, cfg, HAND_TABLE, values, rng_state(checked), 1.0, -1, 20000, tree)
        cells, visits, _ = M.root_children(tree)
        assert cells[np.argmax(visits)] == max(exact, key=exact.get)
        checked += 1
        if checked == 3:
            break
    assert checked == 3


def _custom_table(tmp_path):
    cfg = K.make_config(1, False, False, CUSTOM)
    values, visits = np.zeros(L.NUM_KEYS), np.zeros(L.NUM_KEYS, dtype=np.int64)
    L.train_games(values, visits, cfg, 3000, 1, 0.5, 0.0, 0, 3000)
    path = tmp_path / "custom.npz"
    np.savez(path, version=L.TABLE_VERSION, values=values, points=np.array(CUSTOM))
    return str(path)


class _LegalityChecked(pyspiel.Bot):
    """A bot that asserts every action of the wrapped bot is legal where it is chosen."""

    def __init__(self, bot):
        pyspiel.Bot.__init__(self)
        self._bot = bot

    def restart_at(self, state):
        self._bot.restart_at(state)

    def step(self, state):
        action = self._bot.step(state)
        assert action in state.legal_actions()
        return action


@pytest.mark.parametrize("scoring", ["american", "english", ",".join(map(str, CUSTOM))])
def test_plays_legal_full_games_for_any_point_system(scoring, tmp_path):
    game = pyspiel.load_game("poker_squares", {"scoring": scoring})
    table = _custom_table(tmp_path) if scoring.startswith("-") else ""
    bot = _LegalityChecked(make_bot(game, "mcts", seed=3, iterations=60, table=table))
    for deal in deals(21, 2):
        score, grid = play_deal(game, bot, deal)
        final = np.empty(K.STATE_SIZE, dtype=np.int64)
        K.init_state(final)
        final[K.S_GRID:K.S_GRID + 25] = grid
        assert sorted(grid) == sorted(deal) and score == K.grid_score(final, 0, game.cfg, HAND_TABLE)


def test_same_seed_same_moves_and_time_budget_kept():
    game = pyspiel.load_game("poker_squares")
    the_deals = deals(22, 3)
    runs = [evaluate(game, make_bot(game, "mcts", seed=4, iterations=80), the_deals)["grids"] for _ in range(2)]
    assert np.array_equal(runs[0], runs[1])
    result = evaluate(game, make_bot(game, "mcts", seed=4, seconds_per_game=0.3), deals(23, 2))
    assert np.all(result["seconds"] < 0.8)
    with pytest.raises(ValueError, match="iterations"):
        make_bot(game, "mcts", seed=1, iterations=0)


def test_a_single_candidate_cell_is_played():
    game = pyspiel.load_game("poker_squares")
    bot = make_bot(game, "mcts", seed=5, iterations=10)
    deal = deals(24, 1)[0]
    st = game.new_initial_state()
    st.apply_action(int(deal[0]))
    assert bot.step(st) == 0  # empty grid: every cell is equivalent to the first
    for cell in range(24):
        st.apply_action(cell)
        st.apply_action(int(deal[cell + 1]))
    assert bot.step(st) == 24
    score, grid = play_deal(game, bot, deal)
    assert sorted(grid) == sorted(deal) and score >= 0


def test_two_player_open_game_plays_through_evaluate_bots():
    game = pyspiel.load_game("poker_squares", {"players": 2, "variant": "open"})
    bots = [make_bot(game, "mcts", player=p, seed=p, iterations=20) for p in range(2)]
    returns = pyspiel.evaluate_bots(game.new_initial_state(), bots, 3)
    assert returns[0] == -returns[1]


def test_cross_line_option_plays_and_refuses_what_it_cannot_use(tmp_path):
    game = pyspiel.load_game("poker_squares")
    bot = _LegalityChecked(make_bot(game, "mcts", seed=3, iterations=60, crossline=True))
    deal = deals(25, 1)[0]
    score, grid = play_deal(game, bot, deal)
    assert sorted(grid) == sorted(deal) and score >= 0
    with pytest.raises(ValueError, match="needs crossline=true"):
        make_bot(game, "mcts", seed=1, weights=str(tmp_path / "w.npz"))
    custom = pyspiel.load_game("poker_squares", {"scoring": ",".join(map(str, CUSTOM))})
    with pytest.raises(ValueError, match="no cross-line correction"):
        make_bot(custom, "mcts", seed=1, table=_custom_table(tmp_path), crossline=True)
    st = dealt_state(np.arange(25), [0, 1, 2])
    with pytest.raises(ValueError, match="weights must be float64"):
        M.search(st, 0, game.cfg, HAND_TABLE, np.zeros(L.NUM_KEYS), rng_state(1), 1.0, 2, 5, M.new_tree(200),
                 np.zeros((26, 3)))
