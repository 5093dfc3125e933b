"""Palace Poker action features: checked against a slow reference written from the rules, on random positions."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import numpy as np
import pytest
from gamut.envs import hands
from gamut.envs.cards import parse_cards
from gamut.envs.palace_poker import layout as L
from gamut.envs.palace_poker.action_features import NUM_FEATURES, PalaceFeatures
from gamut.solvers.rl.features import action_features
from gamut.solvers.rl.networks import policy_input

from tests.chance import decision_positions

SCALE = 10 * 2**20  # a hand level is strength / (10 * 2**20)


def _level(cards: list[int], exclude_suit: int) -> float:
    """The best hand of at most five of ``cards`` without ``exclude_suit`` (-1: none), tried combination by combination."""
    counted = [c for c in cards if c & 3 != exclude_suit]
    if len(counted) < 5:
        return hands.best_strength(np.array(counted + [-1], np.int64), len(counted), -1, hands.HAND_TABLE) / SCALE
    return max(hands.hand_strength5(*combo, hands.HAND_TABLE) for combo in combinations(counted, 5)) / SCALE


def _cards_of(st, q: int, viewer: int) -> list[int]:
    """Seat ``q``'s banner, soldiers and the palace cards ``viewer`` has seen (all of them for itself)."""
    out = []
    for c in range(L.NUM_CARDS):
        loc = st[L.S_LOC + c]
        if loc in (L.LOC_BANNER + q, L.LOC_SOLDIER + q):
            out.append(c)
        elif loc == L.LOC_PALACE + q and (q == viewer or (st[L.S_KNOWN + viewer] >> c) & 1):
            out.append(c)
    return out


def _equity(st, p: int, o: int) -> float:
    """Seat ``p``'s chance of beating ``o``: every possible hidden palace of ``o`` from the cards ``p`` has not seen.

    All combinations are valued at once by ``hands.best_strengths``: each hand without the other's banner
    suit, then the own-suit tie-break, a full tie counting one half.
    """
    known = int(st[L.S_PUBLIC]) | int(st[L.S_KNOWN + p])
    suit_p, suit_o = int(st[L.S_BANNER + p]) & 3, int(st[L.S_BANNER + o]) & 3
    seen = _cards_of(st, o, p)
    hidden = 3 - sum(1 for c in seen if st[L.S_LOC + c] == L.LOC_PALACE + o)
    unseen = [c for c in range(L.NUM_CARDS) if not (known >> c) & 1]
    combos = list(combinations(unseen, hidden))
    theirs = np.hstack([np.tile(np.array(seen, np.int64), (len(combos), 1)),
                        np.array(combos, np.int64).reshape(len(combos), hidden)])
    mine = np.array([_cards_of(st, p, p)], np.int64)
    v_me = int(hands.best_strengths(mine, suit_o)[0])
    v_o = hands.best_strengths(theirs, suit_p).astype(np.int64)
    own_me = int((mine & 3 == suit_p).sum())
    own_o = (theirs & 3 == suit_o).sum(axis=1)
    score = np.where(v_me != v_o, (v_me > v_o).astype(float),
                     np.where(own_me != own_o, (own_me > own_o).astype(float), 0.5))
    return float(score.mean())


def _reference(cfg, st, legal: list[int], recall: bool) -> np.ndarray:
    """Features float32 ``(A, 38)`` of the mover's legal actions, from the rules in docs/games/palace_poker.md."""
    n, s, b = int(cfg[L.C_PLAYERS]), int(cfg[L.C_SMALL]), int(cfg[L.C_BIG])
    no_limit, chips = bool(cfg[L.C_NO_LIMIT]), float(cfg[L.C_STACK])
    bet_levels, raise_levels, bet_base = int(cfg[L.C_BET_LEVELS]), int(cfg[L.C_RAISE_LEVELS]), int(cfg[L.C_BET_BASE])
    phase = int(st[L.S_PHASE])
    p = int(st[L.S_TURN_PLAYER] if phase == L.PH_TURN else st[L.S_ACTOR])
    live = [q for q in range(n) if (st[L.S_IN] >> q) & 1]
    stack = int(st[L.S_STACK + p])
    sold = [int(st[L.S_NSOLD + q]) for q in range(n)]
    suit = [int(st[L.S_BANNER + q]) & 3 for q in range(n)]
    pot = sum(int(st[L.S_CONTRIB + q]) for q in range(n))
    mine_all = _cards_of(st, p, p)
    my_level = _level(mine_all, -1)
    best_other = max([_level(_cards_of(st, q, p), -1) for q in live if q != p], default=0.0)
    targets = [q for q in live if q != p and suit[q] != suit[p]]
    weakest = min([_level(_cards_of(st, q, p), suit[p]) for q in targets], default=2.0)
    bet_on = {(a - bet_base) // (bet_levels + 1) for a in legal if phase == L.PH_TURN and a >= bet_base}
    equity = {q: _equity(st, p, q) for q in bet_on}
    if phase == L.PH_BATTLE:
        q = int(st[L.S_ATTACKER] + st[L.S_DEFENDER]) - p
        equity[q] = _equity(st, p, q)
    out = np.zeros((int(cfg[L.C_NUM_ACTIONS]), NUM_FEATURES), np.float32)
    for a in legal:
        row = out[a]
        opp, paid, size, soldiers, ends, still_in = -1, 0, 0.0, sold[p], False, len(live)
        after = my_level
        if phase == L.PH_TURN and a >= bet_base:
            kind = 4
            opp, level = divmod(a - bet_base, bet_levels + 1)
            minimum = (sold[p] + 1) * s
            paid = stack if level == bet_levels else min(stack, minimum * 2**level)
            size = (level + 1) / (bet_levels + 1)
        elif phase == L.PH_TURN:
            kind = a  # stay 0, fold 1, buy 2, paid discard 3
            paid = s if a in (L.BUY, L.DISCARD) else 0
            quiet = [q for q in live if (st[L.S_QUIET] >> q) & 1 or (q == p and a == L.STAY)]
            turns_over = st[L.S_TURNS] + 1 >= cfg[L.C_MAX_TURNS]
            if a == L.FOLD:
                still_in -= 1
                left = [q for q in live if q != p]
                # One player left, one banner suit left, or a quiet round closed by the fold.
                ends = (len(left) == 1 or len({suit[q] for q in left}) == 1
                        or all((st[L.S_QUIET] >> q) & 1 for q in left) or turns_over)
            elif a == L.STAY:
                ends = len(quiet) == len(live) or turns_over
        elif phase == L.PH_BATTLE:
            opp = int(st[L.S_ATTACKER] + st[L.S_DEFENDER]) - p
            to_call = int(st[L.S_TO_CALL])
            if a == L.FOLD:
                kind = 5
            elif a == L.CALL:
                kind, paid = 6, min(stack, to_call)
            else:
                kind, level = 7, a - L.RAISE_BASE
                if level == raise_levels:
                    paid = stack
                else:
                    raise_by = b * 2**level if no_limit else (b if sold[p] else 2 * s)
                    paid = min(stack, to_call + raise_by)
                size = (level + 1) / (raise_levels + 1)
        elif a == L.DONE:
            kind = 8
            quiet = [q for q in live if (st[L.S_QUIET] >> q) & 1]
            ends = len(quiet) == len(live) or st[L.S_TURNS] >= cfg[L.C_MAX_TURNS]
        else:
            kind = 9
            card = a - L.DISCARD_CARD
            soldiers -= 1
            after = _level([c for c in mine_all if c != card], -1)
            row[27] = my_level - after
            row[29] = ((card >> 2) + 1) / 13
            row[30] = card & 3 == suit[p]
            row[31] = after < my_level
        row[kind] = 1
        if paid:
            row[10], row[11], row[12], row[13] = paid / chips, paid / (pot + paid), paid / stack, paid == stack
        row[14] = size
        row[28] = soldiers / 5
        row[34] = still_in / n
        if opp >= 0:
            theirs = _level(_cards_of(st, opp, p), suit[p])
            mine = _level(mine_all, suit[opp])
            shown = sum(1 for c in range(L.NUM_CARDS)
                        if st[L.S_LOC + c] == L.LOC_PALACE + opp and (st[L.S_KNOWN + p] >> c) & 1)
            own = [sum(1 for c in _cards_of(st, q, p) if c & 3 == suit[q]) for q in (p, opp)]
            row[15:22] = [1, theirs, mine, mine - theirs, (3 - shown) / 3, sold[opp] / 5, st[L.S_STACK + opp] / chips]
            row[22] = (own[0] - own[1]) / 9
            row[23] = kind == 4 and theirs <= weakest
            if recall:
                row[24] = min(5, st[L.S_COUNTS + 5 * opp + 3]) / 5
                row[25] = min(5, st[L.S_COUNTS + 5 * opp + 4]) / 5
            row[35] = (sold[opp] + 1) * s / chips
            row[36] = equity[opp]
            row[37] = kind == 4 and equity[opp] == max(equity.values())
        else:
            row[26] = after
            row[32] = after - best_other
            row[33] = ends
    return out


# Moves before a position: past the deal (a banner and three palace cards a seat, with set-aside banners).
@pytest.mark.parametrize("spec, min_moves", [("palace_poker(players=4)", 20),
                                             ("palace_poker(betting=no_limit,players=3,stack=20)", 15),
                                             ("palace_poker()", 8)])
@pytest.mark.parametrize("recall", [True, False])
def test_features_match_a_slow_reference_on_random_positions(spec, min_moves, recall):
    game, states = decision_positions(spec, 80, seed=7, min_moves=min_moves, max_moves=6 * min_moves)
    features = action_features(game)
    assert isinstance(features, PalaceFeatures) and features.size == NUM_FEATURES and not features.one_hot
    n = game.num_players()
    kinds = Counter()
    for state in states:
        p = state.current_player()
        tensor = state.information_state_tensor(p) if recall else state.observation_tensor(p)
        x = policy_input(np.asarray(tensor, np.float32)[None], np.array([p]), n)
        legal = state.legal_actions()
        mask = np.zeros((1, game.num_distinct_actions()), bool)
        mask[0, legal] = True
        got = features(x, mask)
        assert got.shape == (1, game.num_distinct_actions(), NUM_FEATURES) and got.dtype == np.float32
        expected = _reference(game.cfg, state.state, legal, recall)
        np.testing.assert_allclose(got[0], expected, atol=1e-6, err_msg=f"{spec}: {state}")
        kinds.update(np.flatnonzero(expected[:, :10].any(axis=0)).tolist())
    # The positions cover turns and battles; at four seats also stays, buys and discard phases.
    wanted = (0, 1, 2, 4, 5, 6, 8, 9) if n == 4 else (1, 4, 5, 6)
    assert all(kinds[k] for k in wanted), kinds


def test_the_documented_example():
    # Seat 0 (banner Kh, palace Ah Ad 7s, no soldiers) moves first; seat 1 flies 9s.
    from gamut.envs.palace_poker import kernels as K

    from gamut.envs.hands import HAND_TABLE
    from gamut.envs.loading import load_game
    from gamut.envs.palace_poker.tensors import tensor_size, write_tensor

    game = load_game("palace_poker(players=4)")
    st = np.zeros(L.STATE_SIZE, np.int64)
    K.init_state(st, game.cfg)
    for card in parse_cards("Kh 9s 2c 3d"):
        K.apply_action(st, game.cfg, int(card), HAND_TABLE)
    for card in parse_cards("Ah Ad 7s 4c 5c 6c 4d 5d 6d Tc Jc Qc"):
        K.apply_action(st, game.cfg, int(card), HAND_TABLE)
    assert K.current_player(st) == 0
    tensor = np.zeros(tensor_size(4, True), np.float32)
    write_tensor(st, game.cfg, 0, True, True, tensor)
    mask = np.zeros((1, game.num_distinct_actions()), bool)
    legal = np.zeros(game.num_distinct_actions(), np.int64)
    mask[0, legal[:K.legal_actions(st, game.cfg, legal)]] = True
    feats = action_features(game)(policy_input(tensor[None], np.array([0]), 4), mask)[0]
    bet = feats[62]  # bet base 60 in limit (58 + L_r + 1), two ids a seat
    assert bet[4] == 1 and bet[15] == 1
    np.testing.assert_allclose(bet[[10, 11, 12, 19, 20, 35]], [2 / 200, 2 / 6, 2 / 199, 1, 0, 2 / 200], rtol=1e-6)
    assert 0 < bet[16] < 0.1 and 0.1 < bet[17] < 0.2
    assert bet[36] == pytest.approx(0.99224806) and bet[37] == 0 and feats[64, 37] == 1
    assert not feats[~mask[0]].any()


def test_the_return_scale():
    from gamut.envs.loading import load_game

    assert action_features(load_game("palace_poker(players=4)")).return_scale == pytest.approx(20.0)


def test_the_shipped_palace_weights_still_load_and_play():
    # The shipped PPO agent has a flat policy head: the declared features must not change how it loads or plays.
    import gamut
    from tests.chance import play_game

    game = gamut.load_game("palace_poker(players=4)")
    bots = [gamut.make_bot(game, "ppo", player=p, seed=p) for p in range(4)]
    final = play_game(game, np.random.default_rng(3), lambda state: bots[state.current_player()].step(state))
    assert final.is_terminal() and sum(final.returns()) == pytest.approx(0.0)


def test_the_shipped_dmc_weights_play_and_older_feature_widths_are_refused_by_name():
    # The shipped dmc agent reads the 38 features; a file of the earlier 36 is refused naming both sizes.
    import gamut
    from gamut.solvers.rl.checkpoint import RLFileError
    from gamut.solvers.rl.features import features_name, recorded_features
    from tests.chance import play_game

    game = gamut.load_game("palace_poker(players=4)")
    bots = [gamut.make_bot(game, "dmc", player=p, seed=p) for p in range(4)]
    assert bots[0].metadata["feature_size"] == NUM_FEATURES and bots[0].metadata["heuristic_share"] == 0
    final = play_game(game, np.random.default_rng(5), lambda state: bots[state.current_player()].step(state))
    assert final.is_terminal() and sum(final.returns()) == pytest.approx(0.0)
    with pytest.raises(RLFileError, match="of size 36.*of size 38"):
        recorded_features(game, {"action_features": features_name(game), "feature_size": 36}, "old.npz")
