"""The Poke doubling advisor: determinizations, the two rollout engines, exact values on the small deal, CLI, hint."""

import json

import numpy as np
import pyspiel
import pytest

import gamut.envs  # noqa: F401  (registers poke)
from gamut.envs.poke import kernels as K
from gamut.experiments.cli import main
from gamut.solvers.poke.advisor import (
    _Seat, _bot_returns, _substituted_deal, advise, advise_array, deal_position, draw_options,
)
from gamut.solvers.poke.advisor_kernels import determinize, rollout_key, rollout_returns
from gamut.solvers.poke.policies import cfr_strategy, small_game_string
from gamut.solvers.poke.search import information_key
from tests.chance import states_along_random_games

RUBBER = "poke(mode=rubber)"


def _draw_decisions(game, count, seed):
    """Draw decisions (pyspiel states) met in random play of ``game``, ``count`` of them."""
    return states_along_random_games(game, count, seed, lambda state: state.state[K.S_PHASE] == K.PH_DRAW)


def _bits(cards) -> int:
    out = 0
    for c in cards:
        out |= 1 << int(c)
    return out


def _splitmix64(x: int) -> int:
    """splitmix64 on Python integers (64-bit wrap-around by masking)."""
    mask = 2**64 - 1
    z = (x + 0x9E3779B97F4A7C15) & mask
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
    return z ^ (z >> 31)


def _reference_determinization(st, cfg, player, key):
    """Slow, obvious Python version of ``determinize`` from the same stream of random numbers."""
    opp = 1 - player
    seen = int(st[K.S_DEALT + player])
    for k in range(3):
        seen |= int(st[K.S_DRAWN + 3 * player + k])
    order = [c for c in range(52) if (int(cfg[K.C_DECK]) >> c) & 1 and not (seen >> c) & 1]
    x = _splitmix64(int(key))
    for i in range(len(order) - 1, 0, -1):
        x = _splitmix64(x)
        j = x % (i + 1)
        order[i], order[j] = order[j], order[i]
    out = st.copy()
    size = bin(int(st[K.S_HAND + opp])).count("1")
    hand = set(order[:size])
    used = size
    discards = set()
    for k in range(3):
        discards |= {c for c in range(52) if (int(st[K.S_DISC + 3 * player + k]) >> c) & 1}
        out[K.S_DISC + 3 * opp + k] = out[K.S_DRAWN + 3 * opp + k] = 0
    out[K.S_HAND + opp] = _bits(hand)
    for k in reversed(range(int(st[K.S_NDRAWS + opp]))):
        count = bin(int(st[K.S_DISC + 3 * opp + k])).count("1")
        held = sorted(hand)
        for i in range(count):
            x = _splitmix64(x)
            j = i + x % (len(held) - i)
            held[i], held[j] = held[j], held[i]
        drawn = set(held[:count])
        discarded = set(order[used:used + count])
        used += count
        out[K.S_DISC + 3 * opp + k] = _bits(discarded)
        out[K.S_DRAWN + 3 * opp + k] = _bits(drawn)
        discards |= discarded
        hand = (hand - drawn) | discarded
    out[K.S_DEALT + opp] = _bits(hand)
    out[K.S_DISCARDS] = _bits(discards)
    return out, order


def _check_determinizations(states, keys_each):
    det = np.empty(K.STATE_SIZE, dtype=np.int64)
    order = np.empty(52, dtype=np.int64)
    cases = 0
    for state in states:
        cfg, st = state.get_game().cfg, state.state
        player = int(st[K.S_DRAWER])
        for r in range(keys_each):
            key = np.uint64(rollout_key(np.uint64(cases), r))
            n = determinize(st, cfg, player, key, det, order)
            expected, expected_order = _reference_determinization(st, cfg, player, key)
            assert np.array_equal(det, expected) and order[:n].tolist() == expected_order
            assert information_key(det, player) == information_key(st, player)
            cases += 1
    return cases


def test_determinizations_match_the_reference_and_keep_the_drawers_information():
    states = _draw_decisions(pyspiel.load_game(RUBBER), 100, 1)
    states += _draw_decisions(pyspiel.load_game(small_game_string()), 50, 2)
    assert _check_determinizations(states, 40) == 6000


@pytest.mark.slow
def test_determinizations_match_the_reference_on_100000_cases():
    states = _draw_decisions(pyspiel.load_game(RUBBER), 1000, 3)
    assert _check_determinizations(states, 100) == 100_000


def test_the_opponents_hidden_hand_is_uniform_over_the_unseen_cards():
    game = pyspiel.load_game(RUBBER)
    state = deal_position(game, 11)
    st = state.state
    det = np.empty(K.STATE_SIZE, dtype=np.int64)
    order = np.empty(52, dtype=np.int64)
    counts = np.zeros(52)
    draws = 20_000
    for r in range(draws):
        determinize(st, game.cfg, 0, np.uint64(rollout_key(np.uint64(5), r)), det, order)
        counts += [(int(det[K.S_HAND + 1]) >> c) & 1 for c in range(52)]
    unseen = [c for c in range(52) if not (int(st[K.S_HAND]) >> c) & 1]
    assert counts[[c for c in range(52) if c not in unseen]].sum() == 0
    # Each of the 47 unseen cards is in the 5-card hand with probability 5/47; a binomial sd is about 43.
    expected = draws * 5 / 47
    assert np.abs(counts[unseen] - expected).max() < 5 * np.sqrt(expected)


def test_the_pyspiel_engine_replays_the_determinization_and_plays_as_the_compiled_one():
    game = pyspiel.load_game(RUBBER)
    # A dealer's draw decision a few deals into a rubber, after the non-dealer drew.
    state = next(s for s in _draw_decisions(game, 400, 4)
                 if s.state[K.S_DEALS_DONE] >= 2 and s.state[K.S_DRAWER] == s.state[K.S_DEALER]
                 and s.state[K.S_NDRAWS + 1 - s.state[K.S_DEALER]] > 0)
    st, cfg = state.state, game.cfg
    player = int(st[K.S_DRAWER])
    det = np.empty(K.STATE_SIZE, dtype=np.int64)
    order = np.empty(52, dtype=np.int64)
    history = state.history()
    start = int(st[K.S_DEAL_START])
    for r in range(20):
        determinize(st, cfg, player, np.uint64(rollout_key(np.uint64(9), r)), det, order)
        replayed = game.new_initial_state()
        for action in history[:start] + _substituted_deal(history[start:], st, det, cfg, player):
            replayed.apply_action(action)
        assert np.array_equal(replayed.state, det)
        assert replayed.information_state_string(player) == state.information_state_string(player)
    actions = draw_options(st, cfg)
    seats = {p: _Seat(game, "heuristic", {}, p) for p in (0, 1)}
    by_bots = _bot_returns(state, player, actions, seats, 9, 12, None)
    params = np.array([[2, 1, 4, 1, 0]] * 2)
    compiled = rollout_returns(st, cfg, player, actions, params, 0.0, 9, 0, 12)
    assert np.array_equal(by_bots, compiled)


def test_rollouts_do_not_depend_on_chunking_and_repeat_with_the_seed():
    game = pyspiel.load_game(RUBBER)
    state = deal_position(game, 3)
    actions = draw_options(state.state, game.cfg)[:4]
    params = np.array([[2, 1, 4, 1, 0], [0, 0, 4, 0, 0]])
    whole = rollout_returns(state.state, game.cfg, 0, actions, params, 0.0, 21, 0, 30)
    parts = np.concatenate([rollout_returns(state.state, game.cfg, 0, actions, params, 0.0, 21, first, 10)
                            for first in (0, 10, 20)])
    assert np.array_equal(whole, parts)
    assert not np.array_equal(whole, rollout_returns(state.state, game.cfg, 0, actions, params, 0.0, 22, 0, 30))
    a, b = advise(state, rollouts=250, seed=4), advise(state, rollouts=250, seed=4)
    assert a.as_dict() == b.as_dict() and np.array_equal(a.samples, b.samples)


def test_the_advice_ranks_options_and_pairs_the_differences():
    game = pyspiel.load_game(RUBBER)
    state = deal_position(game, 7)
    advice = advise(state, rollouts=300, seed=1)
    means = [o.value.value for o in advice.options]
    assert means == sorted(means, reverse=True) and len(means) == len(draw_options(state.state, game.cfg))
    assert advice.best.versus_best.value == 0.0
    for j, option in enumerate(advice.options):
        assert option.value.n == 300
        assert option.versus_best.value == pytest.approx(option.value.value - advice.best.value.value)
        assert np.allclose(advice.samples[:, j].mean(), option.value.value)
    # Common random numbers: a difference between options varies far less than either option.
    worst = advice.options[-1]
    assert worst.versus_best.half_width < 0.8 * worst.value.half_width
    # Score context enters the values: the same cards one point short of winning the rubber.
    st = state.state.copy()
    st[K.S_BELOW] = 19
    st[K.S_GAMES] = 1
    late = advise_array(st, game.cfg, rollouts=300, seed=1)
    assert late.value_of(0).value.value != advice.value_of(0).value.value


def _exact_option_values(game, state, strategy):
    """Each draw option's exact value at ``state`` when both players then follow ``strategy``.

    The opponent has not acted in the deal yet, so the states the drawer
    cannot tell apart are equally likely: every dealing sequence is
    enumerated from the root, the drawer's own moves and draws replayed on
    it, and those giving the drawer the same information state are kept.
    """
    player = state.current_player()
    target = state.information_state_string(player)
    dealing = 2 * game.params["hand_size"]
    after_deal = state.history()[dealing:]

    def value(s):
        if s.is_terminal():
            return s.returns()[player]
        if s.is_chance_node():
            return sum(p * value(_child(s, a)) for a, p in s.chance_outcomes())
        legal = s.legal_actions()
        probs = strategy.action_probabilities(s.information_state_string(s.current_player()), legal)
        return sum(probs.get(a, 0.0) * value(_child(s, a)) for a in legal)

    matches = []

    def deal(s, depth):
        if depth == dealing:
            try:
                for a in after_deal:
                    s.apply_action(a)
            except ValueError:  # a card the drawer drew went to the opponent in this dealing
                return
            if s.information_state_string(player) == target:
                matches.append(s)
            return
        for a, _ in s.chance_outcomes():
            deal(_child(s, a), depth + 1)

    deal(game.new_initial_state(), 0)
    assert matches
    return {a: float(np.mean([value(_child(m, a)) for m in matches])) for a in state.legal_actions()}


def _child(state, action):
    child = state.clone()
    child.apply_action(action)
    return child


def _small_deal_position(draw: int):
    """The non-dealer's first draw of the small deal dealt by seed 5, or its second after discarding its ace."""
    game = pyspiel.load_game(small_game_string(34.0))
    state = deal_position(game, 5)
    if draw == 2:
        state.apply_action(2)  # discard the ace (slot 1 of Kc Ad): the double
        while state.is_chance_node():
            state.apply_action(state.chance_outcomes()[0][0])
    assert state.current_player() == 1 - state.state[K.S_DEALER]
    return game, state


@pytest.mark.slow
@pytest.mark.parametrize("draw", [1, 2])
def test_on_the_small_exact_deal_the_advice_agrees_with_the_equilibriums_exact_values(draw):
    game, state = _small_deal_position(draw)
    strategy = cfr_strategy(34.0)
    exact = _exact_option_values(game, state, strategy)
    advice = advise(state, opponent="cfr", policy="cfr", rollouts=1500, seed=0)
    assert {o.action for o in advice.options} == set(exact)
    for option in advice.options:
        assert option.value.ci95_low <= exact[option.action] <= option.value.ci95_high, (option, exact)
    # The test can tell a wrong answer: the intervals are narrow against the spread of the exact values.
    values = sorted(exact.values())
    assert max(o.value.half_width for o in advice.options) < (values[-1] - values[0]) / 4


def test_bad_requests_are_refused():
    game = pyspiel.load_game(RUBBER)
    state = deal_position(game, 2)
    with pytest.raises(ValueError, match="unknown agent 'nobody'"):
        advise(state, opponent="nobody", rollouts=10)
    with pytest.raises(ValueError, match="rollouts=1 must be"):
        advise(state, rollouts=1)
    with pytest.raises(ValueError, match="legal draw actions"):
        advise(state, rollouts=10, actions=[40])
    with pytest.raises(ValueError, match="deal seed -1"):
        deal_position(game, -1)
    state.apply_action(0)
    state.apply_action(0)  # both stand: trick play
    with pytest.raises(ValueError, match="not at a draw decision.*trick play"):
        advise(state, rollouts=10)


def _cli(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_the_advise_command_prints_every_option_and_json(tmp_path, capsys):
    state = deal_position(pyspiel.load_game(RUBBER), 8)
    path = tmp_path / "position.txt"
    path.write_text(state.serialize())
    code, out, _ = _cli(["poke", "advise", str(path), "--rollouts", "40", "--seed", "2", "--json", "--quiet"],
                        capsys)
    assert code == 0
    result = json.loads(out.splitlines()[-1])
    assert result["rollouts"] == 40 and result["player"] == 0 and result["opponent"] == "heuristic"
    assert len(result["options"]) == len(draw_options(state.state, state.get_game().cfg))
    assert all(o["ci95_low"] <= o["value"] <= o["ci95_high"] for o in result["options"])
    assert result["best"] == result["options"][0]["option"]
    code, again, _ = _cli(["poke", "advise", "--deal-seed", "8", "--rollouts", "40", "--seed", "2", "--json",
                           "--quiet"], capsys)
    assert code == 0 and again.splitlines()[-1] == out.splitlines()[-1]


def test_the_advise_command_refuses_bad_input_with_status_2(tmp_path, capsys):
    bad = tmp_path / "bad.txt"
    bad.write_text("not a position")
    state = deal_position(pyspiel.load_game(RUBBER), 1)
    state.apply_action(0)
    state.apply_action(0)
    tricks = tmp_path / "tricks.txt"
    tricks.write_text(state.serialize())
    for argv, message in (([str(bad)], "saved state has 1 line(s)"),
                          ([str(tricks)], "not at a draw decision"),
                          (["--deal-seed", "1", "--opponent", "nobody"], "unknown agent 'nobody'"),
                          (["--deal-seed", "1", "--opponent-option", "bogus=1"], "no option 'bogus'"),
                          ([], "either a saved position file or --deal-seed"),
                          ([str(bad), "--deal-seed", "1"], "either a saved position file or --deal-seed")):
        code, out, err = _cli(["poke", "advise", *argv, "--rollouts", "10", "--quiet"], capsys)
        assert code == 2 and message in err and out == ""
    code, _, err = _cli(["poke", "advise", "--deal-seed", "-5"], capsys)
    assert code == 2 and "--deal-seed: expected a whole number" in err


@pytest.mark.parametrize("hint", [None, "heuristic"])
def test_the_hint_of_terminal_play_is_the_advisor_at_draw_decisions_unless_an_agent_is_named(hint):
    import gamut.experiments.poke_view  # noqa: F401  (registers the view)
    from gamut.experiments.terminal_play import PlaySession

    lines = []
    answers = iter(["hint", "quit"])
    session = PlaySession(pyspiel.load_game(RUBBER), human=0, opponent="heuristic", hint=hint, seed=3,
                          read=lambda prompt: next(answers), write=lines.append)
    session.run()
    text = "\n".join(lines)
    if hint is None:
        assert "where the game's own advice does not" in text
        assert "hint: " in text and "(the doubling advisor)" in text and "95% CI over 1,000 rollouts" in text
    else:  # the agent the player named answers, at draws too
        assert "agents: heuristic answers 'hint'; seat 1" in text
        assert "hint: " in text and "(heuristic" in text and "the doubling advisor" not in text


def test_point_values_by_score_are_the_same_samples_with_the_sheet_they_were_taken_at():
    from gamut.solvers.poke.heuristic import heuristic_action, make_params
    from gamut.solvers.poke.match import deal_order, match_seeds, next_card
    from gamut.solvers.poke.point_value import context_moments, point_value_contexts, point_value_samples
    from gamut.solvers.stats import combine_moments

    game = pyspiel.load_game(RUBBER)
    seeds = match_seeds(3, 400)
    samples, context = point_value_contexts(game.cfg, make_params(), seeds)
    assert np.array_equal(samples, point_value_samples(game.cfg, make_params(), seeds))
    # Reference: each rubber replayed through pyspiel, the sheet read at the start of every deal.
    params = make_params()
    for i in range(0, 400, 40):
        seed = int(seeds[i])
        full = game.new_initial_state()
        sheets = []
        while not full.is_terminal():
            st = full.state
            if full.is_chance_node():
                if st[K.S_NUM_DEALT] == 0 and st[K.S_PHASE] == K.PH_DEAL:
                    sheets.append((int(st[K.S_BELOW]), int(st[K.S_BELOW + 1]), int(st[K.S_GAMES]),
                                   int(st[K.S_GAMES + 1])))
                order = deal_order(game.cfg, seed, int(st[K.S_DEALS_DONE]))
                full.apply_action(int(next_card(st, game.cfg, order, len(order))))
            else:
                full.apply_action(int(heuristic_action(st, game.cfg, params)))
        x = _splitmix64(seed ^ 0x5DEECE66D)
        deal, seat = x % len(sheets), (x >> 32) & 1
        b0, b1, g0, g1 = sheets[deal]
        expected = (b0, b1, g0, g1) if seat == 0 else (b1, b0, g1, g0)
        assert tuple(context[i]) == expected
    rows = context_moments(samples, context)
    assert sum(r["n"] for r in rows) == 400
    n, mean, _ = combine_moments([r["n"] for r in rows], [r["mean"] for r in rows], [r["m2"] for r in rows])
    assert n == 400 and mean == pytest.approx(samples.mean())


def test_first_draw_positions_hold_the_hand_and_the_score():
    from gamut.solvers.poke.advisor import first_draw_position

    game = pyspiel.load_game(RUBBER)
    st = first_draw_position(game.cfg, "Kc Kd 3h 7s 9d", below=(4, 18), games=(1, 0), above=(150, 50))
    assert st[K.S_PHASE] == K.PH_DRAW and st[K.S_DRAWER] == 0 and st[K.S_DEALER] == 1
    assert K.popcount(st[K.S_HAND]) == K.popcount(st[K.S_HAND + 1]) == 5
    assert [st[K.S_BELOW], st[K.S_BELOW + 1], st[K.S_GAMES], st[K.S_GAMES + 1]] == [4, 18, 1, 0]
    advice = advise_array(st, game.cfg, rollouts=20)
    assert advice.position["hand"] == "3h 7s 9d Kc Kd" and advice.position["below"] == [4, 18]
    for hand, kwargs, message in (("Kc Kd 3h 7s", {}, "5 different cards"), ("Kc Kc 3h 7s 9d", {}, "more than once"),
                                  ("Kc Kd 3h 7s 9d", {"below": (20, 0)}, "below"),
                                  ("Kc Kd 3h 7s 9d", {"games": (2, 0)}, "games")):
        with pytest.raises(ValueError, match=message):
            first_draw_position(game.cfg, hand, **kwargs)


def test_the_studys_hands_and_scores_are_checked():
    from gamut.experiments.trials.poke_doubling import parse_contexts, parse_hands

    assert parse_hands(["high pair=Kc Kd 3h 7s 9d"]) == {"high pair": "Kc Kd 3h 7s 9d"}
    assert parse_contexts(["rubber game=0,18,1,1"]) == {"rubber game": (0, 18, 1, 1)}
    for bad in ("high pair=Kc Kd 3h 7s", "Kc Kd 3h 7s 9d", "x=Kc Kd 3h 7s Zz"):
        with pytest.raises(ValueError, match="decision hand"):
            parse_hands([bad])
    for bad in ("a=0,0,0", "a=20,0,0,0", "a=0,0,2,0", "0,0,0,0", "a=x,0,0,0"):
        with pytest.raises(ValueError, match="decision context"):
            parse_contexts([bad])


def test_the_commands_defaults_are_the_advisors():
    from gamut.experiments.commands import poke as command
    from gamut.solvers.poke import advisor

    assert (command.ADVISOR_AGENT, command.ADVISOR_ROLLOUTS, command.ADVISOR_MAX_ROLLOUTS) == (
        advisor.DEFAULT_AGENT, advisor.DEFAULT_ROLLOUTS, advisor.MAX_ROLLOUTS)
