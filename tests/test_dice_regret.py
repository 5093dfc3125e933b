"""Regret of a solitaire policy against the exact optimum: values checked by hand, the identity, refusals, CLI."""

import json

import numpy as np
import pyspiel
import pytest

import gamut.envs  # noqa: F401  (registers the games)
from gamut.envs.poker_dice import kernels as K
from gamut.experiments.cli import main
from gamut.solvers.bots import make_bot
from gamut.solvers.poker_dice.table_bot import TableBot
from gamut.solvers.poker_dice.regret import choice_values, policy_regret
from gamut.solvers.poker_dice.solution import solve
from gamut.solvers.stats import mean_ci
from tests.chance import apply_sampled_chance

YACHT12 = "poker_dice(variant=yacht12,players=1)"


@pytest.fixture(scope="module")
def yacht12():
    return solve("yacht12")


def _record_value(solution, state, box_action) -> float:
    """Points of recording now plus the optimal value of the next turn, from the kernels and the value table."""
    after = state.clone()
    before = int(after.state[K.S_PLAYERS + K.F_SCORE])
    after.apply_action(box_action)
    if after.is_terminal():
        return float(after.returns()[0] - before)
    base = K.S_PLAYERS
    points = int(after.state[base + K.F_SCORE]) - before
    return points + solution.value(int(after.state[base + K.F_MASK]), int(after.state[base + K.F_TOTAL]),
                                   int(after.state[base + K.F_AUX]))


def _reference_keep_value(solution, state, keep) -> float:
    """Q* of a keep after the second roll: the mean over the dice it rolls of the best recording value."""
    after = state.clone()
    after.apply_action(keep)
    total = 0.0
    for outcome, prob in after.chance_outcomes():
        rolled = after.child(outcome)
        total += prob * max(_record_value(solution, rolled, a) for a in rolled.legal_actions())
    return total


def test_choice_values_match_values_built_from_the_kernels_and_the_value_table(yacht12):
    game = pyspiel.load_game(YACHT12)
    oracle = TableBot(game, 0, yacht12)
    rng = np.random.default_rng(4)
    checked_boxes = checked_keeps = 0
    for _ in range(12):
        state = game.new_initial_state()
        while not state.is_terminal() and checked_keeps < 6:
            if state.is_chance_node():
                apply_sampled_chance(state, rng)
                continue
            values = choice_values(oracle, state)
            assert sorted(values) == sorted(state.legal_actions())
            for action in state.legal_actions():
                if action >= K.BOX_BASE:
                    assert values[action] == pytest.approx(_record_value(yacht12, state, action), abs=1e-9)
                    checked_boxes += 1
            if state.state[K.S_ROLLS] == 2:
                keeps = [a for a in state.legal_actions() if a < K.BOX_BASE]
                for keep in rng.choice(keeps, size=min(2, len(keeps)), replace=False):
                    assert values[int(keep)] == pytest.approx(_reference_keep_value(yacht12, state, int(keep)),
                                                              abs=1e-9)
                    checked_keeps += 1
            state.apply_action(int(rng.choice(state.legal_actions())))
    assert checked_boxes > 50 and checked_keeps >= 6


@pytest.mark.parametrize("variant, boxes", [("yacht12", 12), ("yahtzee", 13), ("classic_banked", 15)])
@pytest.mark.slow
def test_the_optimal_policy_has_no_regret(variant, boxes):
    # classic_banked: banked rolls add keeps after the third roll; yahtzee: the joker and the repeat bonus.
    game = pyspiel.load_game(f"poker_dice(variant={variant},players=1)")
    report = policy_regret(solve(variant), game, make_bot(game, "optimal", player=0, seed=0), 10, seed=1)
    assert report.mean_regret == 0.0 and report.optimal_share_of_decisions == 1.0
    assert report.decisions.sum() >= 10 * boxes


@pytest.mark.parametrize("agent, low, high", [("random", 100, 180), ("greedy", 5, 25)])
@pytest.mark.slow
def test_summed_regret_plus_score_averages_the_optimum(yacht12, agent, low, high):
    # optimum - regret - score is a zero-mean sum of dice terms in every game (performance difference),
    # so over 300 games its mean is 0 within its CI, whatever the policy's regret.
    game = pyspiel.load_game(YACHT12)
    report = policy_regret(yacht12, game, make_bot(game, agent, player=0, seed=2), 300, seed=7)
    gap = mean_ci(report.optimum - report.per_game.sum(axis=1) - report.scores)
    assert gap.ci95_low < 0 < gap.ci95_high
    assert low < report.mean_regret < high
    if agent == "greedy":  # near the optimum the regrets estimate the value far more tightly than the scores
        assert report.regret_ci().half_width < mean_ci(report.scores).half_width / 3


def test_games_other_than_the_solved_one_player_variant_are_refused(yacht12):
    two = pyspiel.load_game("poker_dice(variant=yacht12,players=2)")
    with pytest.raises(ValueError, match="needs a one-player game"):
        policy_regret(yacht12, two, make_bot(two, "random", player=0, seed=0), 1)
    other = pyspiel.load_game("poker_dice(variant=yahtzee,players=1)")
    with pytest.raises(ValueError, match="is not the solved variant yacht12"):
        policy_regret(yacht12, other, make_bot(other, "random", player=0, seed=0), 1)


def test_cli_reports_the_split_and_refuses_an_unknown_agent(capsys):
    assert main(["dice", "regret", "--variant", "yacht12", "--agent", "greedy", "--games", "30", "--seed", "2",
                 "--json"]) == 0
    out = capsys.readouterr().out
    result = json.loads(out.strip().splitlines()[-1])
    assert result["games"] == 30 and [g["rolls"] for g in result["groups"]] == [1, 2, 3]
    assert result["regret_per_game"] == pytest.approx(sum(g["regret_per_game"] for g in result["groups"]))
    assert "after the third roll" in out
    assert main(["dice", "regret", "--variant", "yacht12", "--agent", "nobody"]) == 2
    assert "--agent: unknown agent 'nobody'" in capsys.readouterr().err


def test_cli_writes_the_report_with_its_provenance_and_refuses_an_unwritable_file(tmp_path, capsys):
    out = tmp_path / "regret.json"
    assert main(["dice", "regret", "--variant", "yacht12", "--agent", "greedy", "--games", "20", "--seed", "2",
                 "--json", "--out", str(out)]) == 0
    printed = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    written = json.loads(out.read_text())
    assert {k: written[k] for k in printed} == printed
    record = written["provenance"]
    assert record["command"] == f"gamut dice regret --variant yacht12 --agent greedy --games 20 --seed 2 --json --out {out}"
    assert record["game_versions"]["poker_dice"] >= 1
    assert {"toolkit_version", "git_commit", "machine", "finished_utc"} <= set(record)
    assert written["seconds"] > 0
    assert main(["dice", "regret", "--variant", "yacht12", "--agent", "greedy", "--games", "20",
                 "--out", str(out / "r.json")]) == 2
    assert "--out" in capsys.readouterr().err
