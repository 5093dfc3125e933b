"""The poker dice experiments: trial functions against exact values, specs and config checks."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyspiel
import pytest

import gamut.envs  # noqa: F401  (registers poker_dice)
from gamut.envs import dice
from gamut.experiments.config import ConfigError
from gamut.experiments.experiment import load_experiment
from gamut.experiments.trials import dice_optimal as D
from gamut.experiments.trials import dice_ranking as R
from gamut.solvers.bots import make_bot
from gamut.solvers.poker_dice.ranking import solve_ranking

QUICK_OPTIMAL = load_experiment("dice_optimal", "quick").config.params


def _exact_and_simulated(key: str, rule_off: str, games: int, seed: int) -> pd.DataFrame:
    rows = [{"kind": "exact", "variant": key, "rule_off": rule_off,
             **D.run_trial({}, {"kind": "exact", "variant": key, "rule_off": rule_off}, 0)[0]}]
    spec = {"kind": "simulate", "variant": key, "games": games}
    if rule_off:
        from gamut.solvers.poker_dice.simulate import optimal_scores

        hist = D.score_histogram(optimal_scores(D.solution_of(key, rule_off), games, seed))
    else:
        hist = D.run_trial({}, spec, seed)
    rows += [{"kind": "simulate", "variant": key, "rule_off": "", **row} for row in hist]
    return pd.DataFrame(rows)


@pytest.mark.slow
def test_simulated_optimal_mean_is_within_its_ci_of_the_exact_value():
    summary = D.distribution_summary(_exact_and_simulated("yacht12", "", 3000, 11))
    row = summary.iloc[0]
    assert row["n"] == 3000 and row["exact_mean"] == pytest.approx(185.9716927, abs=1e-6)
    assert row["exact_in_ci"], row.to_dict()
    assert row["q01"] <= row["q50"] <= row["q99"] and row["min"] <= row["q01"]


def test_a_rule_switched_off_as_data_plays_as_the_dp_values_it():
    # The DP and the game kernels both read the edited table: the simulated mean of
    # optimal play must agree with the exact value of the variant without the rule.
    frame = _exact_and_simulated("classic", "stage_bonus", 2000, 3)
    frame.loc[frame["kind"] == "exact", "rule_off"] = ""
    row = D.distribution_summary(frame).iloc[0]
    assert row["exact_mean"] < D.solution_of("classic").expected_score - 10
    assert abs(row["mean"] - row["exact_mean"]) < 4 * row["sd"] / np.sqrt(row["n"])


def test_rule_values_are_the_exact_differences():
    rows = [{"kind": "exact", "variant": "classic", "rule_off": rule,
             **D.run_trial({}, {"kind": "exact", "variant": "classic", "rule_off": rule}, 0)[0]}
            for rule in ("", "first_roll_doubling")]
    values = D.rule_values(pd.DataFrame(rows))
    assert list(values["rule"]) == ["first_roll_doubling"]
    expected = D.solution_of("classic").expected_score - D.solution_of("classic", "first_roll_doubling").expected_score
    assert values["value"].iloc[0] == pytest.approx(expected) and expected > 0


def test_switching_off_a_rule_a_variant_lacks_is_refused_by_name():
    with pytest.raises(ValueError, match="'banked_rolls' is not a rule of yacht12"):
        D.variant_table("yacht12", "banked_rolls")
    with pytest.raises(ValueError, match="rule 'tea'"):
        D.variant_table("classic", "tea")
    with pytest.raises(ValueError, match="variant 'yahtzee-maybe'"):
        D.split_key("yahtzee-maybe")


def test_common_dice_feed_every_agent_the_same_rolls():
    game = pyspiel.load_game("poker_dice(variant=yacht12,players=1)")
    sixes = np.full((12, 3 + 24, 5), 6)
    # Five sixes on every roll: sixes 30, four of a kind 30, poker 50, chance 30, the rest 0.
    for agent in ("optimal", "greedy"):
        assert D.play_common_dice(game, make_bot(game, agent, 0, seed=1), sixes) == 140.0
    faces = np.random.default_rng(4).integers(1, 7, size=(12, 27, 5))
    greedy = make_bot(game, "greedy", 0, seed=1)
    assert D.play_common_dice(game, greedy, faces) == D.play_common_dice(game, greedy, faces)


def test_agent_batches_share_streams_and_mcts_plays_only_its_games():
    params = dict(QUICK_OPTIMAL, agent_games=50, agent_batch=20, mcts_games=25)
    specs = [s for s in D.trial_specs(params) if s["kind"] == "agents"]
    by_batch = {}
    for spec in specs:
        by_batch.setdefault(spec["batch"], []).append(spec)
    assert all(len({s["stream"] for s in group}) == 1 for group in by_batch.values())
    assert len({group[0]["stream"] for group in by_batch.values()}) == len(by_batch) == 3
    mcts = [(s["first_game"], s["games"]) for s in specs if s["agent"] == "mcts"]
    assert mcts == [(0, 20), (20, 5)]
    other = {s["stream"] for s in D.trial_specs(params) if s["kind"] != "agents"}
    assert not other & {s["stream"] for s in specs}


def test_agent_summary_pairs_games_with_the_optimal_agent():
    table = pd.DataFrame(
        [{"kind": "agents", "variant": "yacht12", "agent": "optimal", "game": g, "score": 200.0 + g} for g in range(4)]
        + [{"kind": "agents", "variant": "yacht12", "agent": "greedy", "game": g, "score": 190.0 + g + g % 2}
           for g in range(4)])
    summary = D.agent_summary(table).set_index("agent")
    assert summary.loc["greedy", "minus_optimal"] == pytest.approx(-9.5)
    assert summary.loc["greedy", "pairs"] == 4 and np.isnan(summary.loc["optimal", "minus_optimal"])


def test_opening_keeps_average_to_the_optimal_expected_score():
    rolls = [dice.roll_faces(r) for r in range(dice.NUM_ROLLS)]
    best = D.opening_keeps("yacht12", rolls, top=1)
    first_roll = dice.TRANSITION[0]  # probability of each roll id
    assert len(best) == dice.NUM_ROLLS
    assert best["value"].to_numpy() @ first_roll == pytest.approx(D.solution_of("yacht12").expected_score)
    assert best.loc[best["roll"] == "6,6,6,6,6", "choice"].item() == "box poker"


@pytest.mark.parametrize(("text", "field"), [
    ('variants = ["classic", "yatzy"]', "variants"),
    ('rules = ["stage_bonus", "dragons"]', "rules"),
    ("mcts_games = 999", "mcts_games"),
])
def test_bad_optimal_config_fields_are_named(tmp_path, text, field):
    source = (load_experiment("dice_optimal").config.source)
    lines = open(source).read().split("[quick]")[0].splitlines()
    key = text.split(" = ")[0]
    path = tmp_path / "dice_optimal.toml"
    path.write_text("\n".join(text if line.startswith(f"{key} =") else line for line in lines) + "\n")
    with pytest.raises(ConfigError, match=field):
        load_experiment("dice_optimal", config_path=path)


def test_simulated_ranking_shares_match_the_exact_ones():
    solved = solve_ranking(3)
    shares = R.simulate_shares(3, 3000, 7, solved["leader_share"])
    assert shares.shape == (3000, 3) and np.allclose(shares.sum(axis=1), 1.0)
    assert np.array_equal(shares[:100], R.simulate_shares(3, 100, 7, solved["leader_share"]))
    table = pd.DataFrame(
        [{"kind": "exact", "players": 3, "seat": s + 1, "win_share": w} for s, w in enumerate(solved["win_share"])]
        + [{"kind": "simulate", "players": 3, **row}
           for row in R.run_trial({}, {"kind": "simulate", "players": 3, "games": 3000}, 7)])
    seats = R.seat_table(table)
    se = np.sqrt(seats["win_share"] * (1 - seats["win_share"]) / 3000)
    assert np.all(np.abs(seats["simulated"] - seats["win_share"]) < 4 * se)
    assert seats["edge"].is_monotonic_increasing and seats["games"].eq(3000).all()


def test_bad_ranking_players_are_named(tmp_path):
    path = tmp_path / "dice_ranking.toml"
    path.write_text('experiment = "dice_ranking"\n[params]\nseed = 1\ntrials = 1\n'
                    "players = [2, 9]\ngames = 10\ngames_per_trial = 5\n")
    with pytest.raises(ConfigError, match="field 'players': 9"):
        load_experiment("dice_ranking", config_path=path)


def test_opening_keeps_at_the_start_of_stage_two_and_unknown_boxes():
    faces = ("ones", "twos", "threes", "fours", "fives", "sixes")
    best = D.opening_keeps("classic", [(1, 2, 3, 4, 5)], top=1, filled=faces)
    # A large straight on the turn's first roll scores double (30), the most of any choice.
    assert best["choice"].item() == "box large straight"
    with pytest.raises(ValueError, match="'pears' is not a box of classic"):
        D.opening_keeps("classic", [(1, 2, 3, 4, 5)], filled=("pears",))
