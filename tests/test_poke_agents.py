"""Poke agents: matches with common random deals, MCCFR walkers, the cfr and mccfr agents, the CLI."""

import json
import subprocess
import sys

import numpy as np
import pyspiel
import pytest

import gamut.envs  # noqa: F401  (registers poke)
from gamut.envs.poke import kernels as K
from gamut.envs.poke.game import SMALL_EXACT_PARAMS
from gamut.solvers.bots import make_bot
from gamut.solvers.poke.heuristic import HeuristicBot, heuristic_action, make_params
from gamut.solvers.poke.match import (
    compare, deal_order, heuristic_margins, match_seeds, next_card, play_pyspiel, pyspiel_margins,
)

RUBBER = "poke(mode=rubber)"


def test_deal_order_is_a_seeded_permutation_of_the_deck():
    game = pyspiel.load_game("poke", SMALL_EXACT_PARAMS)
    order = deal_order(game.cfg, 5, 2)
    assert sorted(order.tolist()) == sorted(c for c in range(52) if (int(game.cfg[K.C_DECK]) >> c) & 1)
    assert np.array_equal(order, deal_order(game.cfg, 5, 2))
    assert not np.array_equal(deal_order(pyspiel.load_game("poke").cfg, 5, 2),
                              deal_order(pyspiel.load_game("poke").cfg, 5, 3))


def test_deal_order_deals_each_card_uniformly():
    # First card of the small deck over many seeds: each of the 6 cards about 1/6 of the time.
    cfg = pyspiel.load_game("poke", SMALL_EXACT_PARAMS).cfg
    firsts = np.array([deal_order(cfg, s, 0)[0] for s in range(6000)])
    counts = np.unique(firsts, return_counts=True)[1]
    assert len(counts) == 6 and counts.min() > 850 and counts.max() < 1150


def test_next_card_takes_the_first_card_still_in_the_stock():
    game = pyspiel.load_game("poke")
    state = game.new_initial_state()
    order = deal_order(game.cfg, 1, 0)
    state.apply_action(int(order[0]))
    assert next_card(state.state, game.cfg, order, len(order)) == order[1]


def test_compiled_heuristic_matches_equal_matches_through_pyspiel():
    game = pyspiel.load_game(RUBBER)
    a, b = make_params(), make_params(double_below=0, free_below=10)
    seeds = match_seeds(3, 6)
    fast = heuristic_margins(game.cfg, a, b, seeds)
    slow = pyspiel_margins(game, lambda p, s: HeuristicBot(game, p, a), lambda p, s: HeuristicBot(game, p, b), seeds)
    assert np.array_equal(fast, slow)
    # Swapping the agents negates every margin (same deals, same seats).
    assert np.array_equal(heuristic_margins(game.cfg, b, a, seeds), -fast[:, ::-1])


def test_heuristic_beats_random_over_rubbers():
    game = pyspiel.load_game(RUBBER)
    margins = pyspiel_margins(game, lambda p, s: make_bot(game, "heuristic", p, s),
                              lambda p, s: make_bot(game, "random", p, s), match_seeds(0, 40))
    est = compare(margins)
    assert est.n == 40 and est.ci95_low > 0


def test_play_pyspiel_is_deterministic_for_a_seed():
    game = pyspiel.load_game("poke(mode=game)")

    def bots():
        return [make_bot(game, "random", 0, 4), make_bot(game, "heuristic", 1, 0)]

    assert play_pyspiel(game, bots(), 11) == play_pyspiel(game, bots(), 11)


def test_kernel_walker_reproduces_mccfr_through_pyspiel():
    from gamut.solvers.cfr.mccfr import MCCFR
    from gamut.solvers.poke.walker import PokeWalker

    game = pyspiel.load_game("poke", {**SMALL_EXACT_PARAMS, "trick_value": 5.0})
    ours, theirs = MCCFR(PokeWalker(game), seed=9), MCCFR(game, seed=9)
    ours.run(30)
    theirs.run(30)
    assert ours.tables == theirs.tables and len(ours.tables) > 100


def test_draw_walker_values_a_deal_with_heuristic_tricks():
    from gamut.solvers.poke.walker import DRAW, DrawWalker, draw_key

    game = pyspiel.load_game("poke(trick_value=2.0)")
    walker = DrawWalker(game)
    state = walker.root()
    rng = np.random.default_rng(0)
    while walker.is_chance(state):
        outcomes = walker.chance_outcomes(state)
        state = walker.child(state, outcomes[int(rng.integers(len(outcomes)))][0])
    assert walker.current_player(state) == 0 and walker.legal_actions(state) in ([0], [0, DRAW])
    assert draw_key(state, 0).startswith("N|0|-|c")
    state = walker.child(walker.child(state, 0), 0)
    # Both stood: the trick phase is the heuristic's, the value is the deal's return.
    assert walker.is_terminal(state)
    work = state.copy()
    while work[K.S_PHASE] != K.PH_OVER:
        K.apply_action(work, game.cfg, heuristic_action(work, game.cfg, make_params()))
    out = np.zeros(2)
    K.returns(work, game.cfg, 2.0, out)
    assert walker.returns(state) == out.tolist()


def test_cfr_agent_is_the_cached_near_equilibrium_and_plays_small_rubbers():
    from gamut.solvers.poke.policies import DEFAULT_TRICK_VALUE, cfr_policy_path, cfr_strategy

    assert cfr_policy_path(DEFAULT_TRICK_VALUE).stat().st_size < 5_000_000
    strategy = cfr_strategy()
    assert strategy.metadata["exploitability"] < 0.01
    game = pyspiel.load_game("poke", {**SMALL_EXACT_PARAMS, "mode": "rubber"})
    margins = pyspiel_margins(game, lambda p, s: make_bot(game, "cfr", p, s),
                              lambda p, s: make_bot(game, "random", p, s), match_seeds(1, 10))
    assert compare(margins).value > 0
    with pytest.raises(ValueError, match="small deck"):
        make_bot(pyspiel.load_game(RUBBER), "cfr", 0, 0)


def test_mccfr_agent_plays_from_its_policy_file(tmp_path):
    from gamut.solvers.cfr.checkpoint import train
    from gamut.solvers.poke.policies import make_mccfr_solver, mccfr_strategy_of, save_policy

    solver = make_mccfr_solver(seed=1)
    train(solver, 200, tmp_path / "ck.npz")
    resumed = make_mccfr_solver(seed=1)
    train(resumed, 300, tmp_path / "ck.npz", resume=True)
    straight = make_mccfr_solver(seed=1)
    straight.run(300)
    assert resumed.tables == straight.tables
    path = save_policy(tmp_path / "p.npz", mccfr_strategy_of(straight))
    game = pyspiel.load_game(RUBBER)
    bot = make_bot(game, "mccfr", 0, 3, path=str(path))
    assert play_pyspiel(game, [bot, make_bot(game, "heuristic", 1, 0)], 5) == \
        play_pyspiel(game, [make_bot(game, "mccfr", 0, 3, path=str(path)), make_bot(game, "heuristic", 1, 0)], 5)


def test_mccfr_draw_training_does_not_depend_on_the_follow_rule():
    # The draw walker plays tricks by the heuristic, which beats whenever it can,
    # so the committed version-1 draw policy is also version 2's.
    from gamut.solvers.cfr.mccfr import MCCFR
    from gamut.solvers.poke.policies import full_deal_string
    from gamut.solvers.poke.walker import DrawWalker

    tables = []
    for follow in ("must_beat", "free"):
        game = pyspiel.load_game(full_deal_string().replace("follow=must_beat", f"follow={follow}"))
        assert game.get_parameters()["follow"] == follow
        solver = MCCFR(DrawWalker(game), "external", seed=4)
        solver.run(300)
        tables.append(solver.tables)
    assert tables[0] == tables[1] and len(tables[0]) > 100


def test_point_value_is_positive_and_zero_without_the_extra_point():
    from gamut.solvers.poke.point_value import _play_with_bonus, point_value_samples
    from gamut.solvers.poke.match import play_heuristic_match
    from gamut.solvers.stats import mean_ci

    game = pyspiel.load_game(RUBBER)
    params = np.stack([make_params()] * 2)
    state, order = np.empty(K.STATE_SIZE, np.int64), np.empty(52, np.int64)
    for seed in match_seeds(2, 20):
        base = play_heuristic_match(game.cfg, params, seed, state, order)
        assert _play_with_bonus(game.cfg, params, seed, -1, 0, 1, state, order)[0] == base
    est = mean_ci(point_value_samples(game.cfg, make_params(), match_seeds(4, 20000)))
    assert est.ci95_low > 5


def _gamut(*args):
    out = subprocess.run([sys.executable, "-m", "gamut.experiments.cli", *args], capture_output=True, text=True,
                         check=False)
    return out.returncode, out.stdout, out.stderr


@pytest.mark.slow
def test_cli_match_prints_the_margin_as_json():
    code, out, err = _gamut("poke", "match", "--agents", "heuristic", "random", "--rubbers", "8", "--seed", "2",
                            "--json")
    assert code == 0, err
    result = json.loads(out.splitlines()[-1])
    assert result["n"] == 8 and result["ci95_low"] <= result["mean_diff"] <= result["ci95_high"]
    code, _, err = _gamut("poke", "match", "--agents", "heuristic", "nobody", "--rubbers", "2")
    assert code == 2 and "unknown agent" in err


@pytest.mark.slow
def test_cli_match_of_heuristics_uses_the_compiled_engine_with_options():
    code, out, err = _gamut("poke", "match", "--agents", "heuristic", "heuristic", "--rubbers", "50",
                            "--a-option", "double_below=0", "--json")
    assert code == 0, err
    game = pyspiel.load_game(RUBBER)
    est = compare(heuristic_margins(game.cfg, make_params(double_below=0), make_params(), match_seeds(0, 50)))
    result = json.loads(out.splitlines()[-1])
    assert result["mean_diff"] == pytest.approx(est.value)
    assert (result["a_options"], result["b_options"]) == ({"double_below": 0}, {})  # the record names its options


def test_cli_play_shows_the_score_sheet_and_hides_discards():
    from gamut.experiments.poke_view import describe_action, render, score_sheet
    from gamut.experiments.terminal_play import PlaySession

    game = pyspiel.load_game(RUBBER)
    shown = []
    # Typed numbers are action ids: always play the lowest legal one.
    session = PlaySession(game, human=0, opponent="heuristic", seed=1,
                          read=lambda _: str(min(session.state.legal_actions())), write=shown.append)
    session.run()
    text = "\n".join(shown)
    assert "above the line" in text and "below the line" in text and "game over" in text
    assert "discards" not in " ".join(s for s in shown if s.startswith("seat 1: discards ["))
    state = game.new_initial_state()
    for c in deal_order(game.cfg, 0, 0)[:10]:
        state.apply_action(int(c))
    assert describe_action(state, 0, 7, 1) == "discards 3 and draws 3"
    assert "you" in score_sheet(state.state, 0) and "your cards" in render(state, 0)


def test_compact_keys_split_states_into_the_same_information_sets():
    from gamut.solvers.cfr.mccfr import MCCFR
    from gamut.solvers.poke.walker import PokeWalker

    game = pyspiel.load_game("poke", {**SMALL_EXACT_PARAMS, "trick_value": 3.0})
    compact, strings = MCCFR(PokeWalker(game, keys="compact"), seed=4), MCCFR(PokeWalker(game), seed=4)
    compact.run(40)
    strings.run(40)
    # Same sampling, same updates, in the same order: the two keyings merge exactly the same states.
    assert list(compact.tables.values()) == list(strings.tables.values())


@pytest.mark.slow
def test_cli_train_mccfr_checkpoints_and_resumes(tmp_path):
    from gamut.solvers.cfr.policy_io import load_strategy

    ck, out = str(tmp_path / "ck.npz"), str(tmp_path / "policy.npz")
    code, _, err = _gamut("poke", "train", "--algo", "mccfr", "--iterations", "100", "--checkpoint", ck, "--out", out)
    assert code == 0, err
    code, stdout, err = _gamut("poke", "train", "--algo", "mccfr", "--iterations", "250", "--checkpoint", ck,
                               "--resume", "--out", out, "--json")
    assert code == 0, err
    assert json.loads(stdout.splitlines()[-1])["iterations"] == 250
    assert load_strategy(out).metadata["abstraction"] == "draw_key"
    code, _, err = _gamut("poke", "train", "--algo", "mccfr", "--iterations", "10", "--resume", "--out", out)
    assert code == 2 and "--resume needs --checkpoint" in err


def test_mccfr_benchmark_runs_on_a_tiny_budget():
    from argparse import Namespace

    from gamut.benchmarks import poke_mccfr

    result = poke_mccfr.run(Namespace(game=poke_mccfr.DEFAULT_GAME, iterations=3, repeats=1, warmup=1))
    assert result["ours_iterations_per_s"] > 0 and result["openspiel_python_iterations_per_s"] > 0
    assert result["ratio_vs_openspiel"] == pytest.approx(
        result["ours_iterations_per_s"] / result["openspiel_python_iterations_per_s"])


def _splitmix_reference(x):
    mask = (1 << 64) - 1
    z = (x + 0x9E3779B97F4A7C15) & mask
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
    return z ^ (z >> 31)


def test_splitmix_and_deal_orders_match_a_python_reference():
    from gamut.solvers.poke.match import splitmix64

    rng = np.random.default_rng(8)
    xs = rng.integers(0, 2**63, size=100_000, dtype=np.uint64)
    assert all(int(splitmix64(np.uint64(x))) == _splitmix_reference(int(x)) for x in xs)
    cfg = pyspiel.load_game("poke").cfg
    for seed, deal in zip(rng.integers(0, 2**62, 500).tolist(), rng.integers(0, 40, 500).tolist()):
        cards = list(range(52))
        x = _splitmix_reference(seed ^ _splitmix_reference(deal))
        for i in range(51, 0, -1):
            x = _splitmix_reference(x)
            j = x % (i + 1)
            cards[i], cards[j] = cards[j], cards[i]
        assert deal_order(cfg, seed, deal).tolist() == cards


def test_the_agent_table_defaults_agree_with_the_search_and_the_policies():
    from gamut.solvers.bots import bot_specs
    from gamut.solvers.poke.policies import DEFAULT_TRICK_VALUE
    from gamut.solvers.poke.search import OPPONENT_MODELS, PLAYOUTS

    ismcts = bot_specs("poke")["ismcts"].options
    cfr = bot_specs(pyspiel.load_game("poke", SMALL_EXACT_PARAMS))["cfr"].options
    assert ismcts["trick_value"].default == cfr["trick_value"].default == DEFAULT_TRICK_VALUE
    assert ismcts["playout"].default == PLAYOUTS[0] and ", ".join(PLAYOUTS) in ismcts["playout"].help
    assert ismcts["opponent"].default == OPPONENT_MODELS[0]
