"""Every figure quoted in the README's "Results at a glance" matches the committed result it comes from.

Each number of the table's ``figure`` column is claimed below with its source:
a committed table (CSV), a benchmark or match record (JSON lines, the last
record that matches the filters), a shipped weights file's metadata (JSON) or
a results page's Markdown table. A quoted
number matches when it is its source rounded to the digits it shows. A number
in the column that no claim covers fails the test, so a new figure in the
README needs its source here.
"""

import json
import re
from pathlib import Path

import pandas as pd
import pytest

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "results"
NUMBER = re.compile(r"(?<![\w.])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:e-?\d+)?")

RULES, BOUNDS, SQUARES_PAGE = "dice_optimal/rule_values.csv", "poker_squares_bounds/bounds.csv", "poker_squares/README.md"
STANDINGS, POINT = "palace_tournament/standings.csv", "poke_doubling/point_value.csv"
GAP_SHARE = "share of the clairvoyant-to-agent gap closed"
FITTED_US = "upper: duality bound (fitted penalty, scale 1.75, Dantzig-Wolfe inner bound)"
FITTED_UK = "upper: duality bound (fitted penalty, scale 1.75, Dantzig-Wolfe inner bound)"
DW_GAIN = "duality bound, Dantzig-Wolfe minus LP inner bound (paired)"
PALACE_BENCH_GAME = "palace_poker(betting=limit,big_bet=4,max_raises=3,max_turns=400,players=4,small_bet=2,stack=100)"
BEST_AGENT = "lower: best agent"
MC_CROSS_US = {"scoring": "American", "agent": "mc_cross (4.5 s budget)"}
MC_CROSS_UK = {"scoring": "English", "agent": "mc_cross (4.5 s budget)"}
PALACE_4 = {"players": 4, "a": "ismcts", "b": "heuristic"}
VECTOR_RUN = {"time_utc": "2026-12-01T18:03:59Z"}
POKE_VECTOR_RUN = {"time_utc": "2026-12-03T08:51:55Z"}  # after the Poke step was made faster
ISMCTS_MATCH = {"agent_a": "ismcts", "agent_b": "heuristic", "seed": 1, "n": 500}
NET_SEARCH_US = {"scoring": "American", "agent": "`net_search`, 5 s budget"}
NET_SEARCH_UK = {"scoring": "English", "agent": "`net_search`, 5 s budget"}
RL_PAGE, PPO_YACHT12, PPO_YAHTZEE = "rl/README.md", "rl/ppo_yacht12.json", "rl/ppo_yahtzee.json"
PPO_SQUARES, PPO_SQUARES_2M = "rl/ppo_poker_squares.json", "rl/curves/ppo_poker_squares_seed0_2m.json"
TURN_YACHT12, TURN_YAHTZEE = "rl/regret_ppo_turn_yacht12.json", "rl/regret_ppo_turn_yahtzee.json"
PPO_PALACE = {"agent": "ppo", "game": "`palace_poker`", "opponent": "heuristic"}
PPO_POKE = {"agent": "ppo", "game": "`poke`", "opponent": "heuristic"}
NFSP_POKE = {"agent": "nfsp", "opponent": "heuristic"}
DMC_POKE, DMC_POKE_WEIGHTS = {"agent": "dmc", "game": "`poke`", "opponent": "heuristic"}, "rl/dmc_poke_deal.json"
DMC_PALACE = {"agent": "dmc", "game": "`palace_poker`", "opponent": "heuristic"}
DMC_PALACE_WEIGHTS = "rl/dmc_palace_poker_4.json"
GAINS, ROUND_ROBIN = "poke_doubling/best_response_gains.csv", "poke_doubling/round_robin.csv"
YACHT12_OPTIMUM, YAHTZEE_OPTIMUM = 185.9717, 254.5896  # the exact optima claimed above
BY_SCORE = "poke_doubling/point_value_by_score.csv"
NO_GAME = {"games_seat": 0, "games_other": 0}
IMITATION_YACHT12, IMITATION_YAHTZEE = "rl/imitation_yacht12.json", "rl/imitation_yahtzee.json"
NN_PALACE, NN_POKE = "nn_ismcts/palace_final_beliefs.json", "nn_ismcts/poke_final_beliefs_450.json"
NN_POKE_PLAY, NN_PALACE_PLAY = "nn_ismcts/poke_play_budget.json", "nn_ismcts/palace_play_budget.json"
NN_PAGE, NN_CONTROL = "nn_ismcts/README.md", {"`nn_ismcts` (the same prior, a kept pool of 32)": "network pool minus heuristic pool (paired)"}
ENDGAME = "poker_squares_endgame/summary.csv"
BOUNDS_LOG = "poker_squares_bounds/README.md"
UPPER_BOUND = "poker_squares_upper_bound/upper_bound.csv"
LOWER_BOUND = "poker_squares_lower_bound/lower_bound.csv"
ROLLOUTS_343 = "poker_squares/mc_cross_343_rollouts_%s.json"
ROLLOUTS_343_RUN = "343 rollouts (1 s), all 1000 deals"  # the paired check in the bounds research log
BNP_GAIN_ROW = "this run minus the second-stage run, same deals, paired"
BNP_GAIN_US = {"quantity, all 1000 American deals, shipped (third-stage) penalty, 120 nodes a deal": BNP_GAIN_ROW}
BNP_GAIN_UK = {"quantity, all 1000 English deals, shipped (third-stage) penalty, 40 nodes a deal": BNP_GAIN_ROW}
TUPLES = "poker_squares_tuples/summary.jsonl"
TUPLES_RUN = "results/poker_squares_tuples/%s.jsonl"
MC_CROSS_REGRET = {"scoring": "american", "quantity": "regret", "of": "mc_cross (in its game)"}
CLAIRVOYANT_SLACK = {"scoring": "american", "quantity": "slack", "of": "clairvoyant bound"}

def claims(row: str, source: str, filters: dict, figures: list[tuple]) -> list[tuple]:
    """The claims of one source row: each ``(quoted, column)`` or ``(quoted, column, scale)`` of ``figures``."""
    return [(row, quoted, source, filters, column, rest[0] if rest else 1) for quoted, column, *rest in figures]


# (row: start of the "what" cell, quoted number, source under results/, row filters, column, scale)
CLAIMS = [
    ("Standard Yahtzee", "254.5896095", RULES, {"variant": "yahtzee-free", "rule": "upper_bonus"}, "with_rule", 1),
    ("Standard Yahtzee", "254.5877287", RULES, {"variant": "yahtzee-forced", "rule": "upper_bonus"}, "with_rule", 1),
    ("Standard Yahtzee", "253.9702412", RULES, {"variant": "yahtzee-none", "rule": "upper_bonus"}, "with_rule", 1),
    ("Twelve-box", "185.9717", "benchmarks/dice.jsonl", {}, "expected_score_yacht12", 1),
    ("Twelve-box", "182.6026", RULES, {"variant": "classic", "rule": "stage_bonus"}, "with_rule", 1),
    ("Twelve-box", "280.2216", RULES, {"variant": "classic_banked", "rule": "stage_bonus"}, "with_rule", 1),
    ("Full Yahtzee DP time", "6.2", "benchmarks/dice.jsonl", {"time_utc": "2026-12-03T12:51:29Z"}, "dp_seconds_yahtzee", 1),
    ("Full Yahtzee DP time", "3.5", "benchmarks/dice.jsonl", {"time_utc": "2026-11-29T17:44:40Z"}, "dp_seconds_yahtzee", 1),
    ("Full Yahtzee DP time", "5.5", "benchmarks/dice.jsonl", {"time_utc": "2026-11-29T17:49:06Z"}, "dp_seconds_yahtzee", 1),
    ("Poker-dice ranking", "0.4683", "dice_ranking/seat_advantage.csv", {"players": 2, "seat": 1}, "win_share", 1),
    ("Poker-dice ranking", "0.5317", "dice_ranking/seat_advantage.csv", {"players": 2, "seat": 2}, "win_share", 1),
    *claims("CFR+ on Leduc", "benchmarks/cfr.jsonl", {}, [("47", "ratio"), ("2.5715e-4", "ours_exploitability"),
            ("1,000", "iterations")]),
    *claims("Poke: value of a point", POINT, {}, [("34.55", "value"), ("33.78", "ci95_low"), ("35.33", "ci95_high"),
            ("400,000", "n")]),
    *claims("Poke: best-response draw/double", GAINS, {"opponent": "heuristic", "policy": "best response"}, [
            ("346.6", "margin"), ("330.6", "ci95_low"), ("362.7", "ci95_high"), ("5,000", "n_pairs")]),
    *claims("Poke: best-response draw/double", GAINS, {"opponent": "heuristic", "policy": "never_double"}, [
            ("29.7", "gain"), ("22.3", "gain_ci95_low"), ("37.2", "gain_ci95_high")]),
    *claims("Poke: best-response draw/double", GAINS, {"opponent": "equilibrium", "policy": "best response"}, [
            ("113.4", "margin"), ("97.8", "ci95_low"), ("128.9", "ci95_high")]),
    *claims("Poke: best-response draw/double", ROUND_ROBIN, {"a": "equilibrium", "b": "never_double"}, [
            ("105.2", "mean_margin", -1), ("139.5", "ci95_low", -1), ("70.8", "ci95_high", -1), ("1,000", "n_pairs")]),
    *claims("Poke: `ismcts` vs", "poke/matches.jsonl", ISMCTS_MATCH, [("326", "mean_diff"), ("274", "ci95_low"),
            ("378", "ci95_high"), ("1,000", "rubbers_played")]),
    *claims("Palace Poker, 4 players", STANDINGS, PALACE_4, [("1.79", "a_mean_chips"), ("1.41", "a_ci95_low"),
            ("2.17", "a_ci95_high"), ("200", "deals"), ("4", "players")]),
    *claims("Poker Squares, American mean", SQUARES_PAGE, MC_CROSS_US, [
            ("125.65", "mean"), ("122.87", "95% CI low"), ("128.44", "95% CI high"), ("500", "n")]),
    *claims("Poker Squares, American mean", SQUARES_PAGE, MC_CROSS_UK, [
            ("54.69", "mean"), ("53.72", "95% CI low"), ("55.66", "95% CI high")]),
    *claims("Poker Squares, two-ply", SQUARES_PAGE, {"scoring": "American", "agent": "expectimax_cross"}, [
            ("125.18", "mean"), ("122.34", "95% CI low"), ("128.02", "95% CI high")]),
    *claims("Poker Squares, two-ply", SQUARES_PAGE, {"scoring": "English", "agent": "expectimax_cross"}, [
            ("53.77", "mean"), ("52.79", "95% CI low"), ("54.74", "95% CI high"), ("500", "n")]),
    *[("Poker Squares, upper bounds", quoted, BOUNDS, {"scoring": scoring, "quantity": quantity}, column, scale)
      for scoring, quantity, figures in (
          ("american", "upper: clairvoyant bound", (("241.7", "mean"),)),
          ("english", "upper: clairvoyant bound", (("106.8", "mean"),)),
          ("american", FITTED_US, (("171.0", "mean"), ("169.6", "ci95_low"), ("172.4", "ci95_high"))),
          ("english", FITTED_UK, (("74.6", "mean"), ("74.2", "ci95_low"), ("75.0", "ci95_high"))),
          ("american", DW_GAIN, (("11.23", "mean", -1),)), ("english", DW_GAIN, (("8.48", "mean", -1),)),
          ("american", GAP_SHARE, (("61", "mean", 100),)), ("english", GAP_SHARE, (("61", "mean", 100),)),
          ("american", BEST_AGENT, (("126.2", "mean"),)), ("english", BEST_AGENT, (("54.3", "mean"),)))
      for quoted, column, *rest in figures for scale in (rest[0] if rest else 1,)],
    *claims("Poker Squares, upper bounds", BOUNDS_LOG, BNP_GAIN_US, [("1.49", "mean", -1)]),
    *claims("Poker Squares, upper bounds", BOUNDS_LOG, BNP_GAIN_UK, [("0.38", "mean", -1)]),
    *claims("Poker Squares, upper bounds", UPPER_BOUND, {"scoring": "american"}, [("167.50", "upper"),
            ("166.07", "upper_ci95_low"), ("168.94", "upper_ci95_high"), ("3.51", "root_minus_upper"),
            ("167.5", "upper")]),
    *claims("Poker Squares, upper bounds", UPPER_BOUND, {"scoring": "english"}, [("73.53", "upper"),
            ("73.12", "upper_ci95_low"), ("73.93", "upper_ci95_high"), ("1.08", "root_minus_upper"),
            ("73.5", "upper")]),
    *claims("Poker Squares, lower bound", LOWER_BOUND, {"scoring": "american"}, [("126.19", "mean"),
            ("124.11", "ci95_low"), ("128.27", "ci95_high"), ("1,000", "n")]),
    *claims("Poker Squares, lower bound", LOWER_BOUND, {"scoring": "english"}, [("54.30", "mean"),
            ("53.63", "ci95_low"), ("54.97", "ci95_high")]),
    *claims("Poker Squares, lower bound", ROLLOUTS_343 % "american", {}, [("126.43", "mean"),
            ("124.38", "ci95_low"), ("128.48", "ci95_high")]),
    *claims("Poker Squares, lower bound", ROLLOUTS_343 % "english", {}, [("54.42", "mean"),
            ("53.73", "ci95_low"), ("55.10", "ci95_high")]),
    *claims("Poker Squares, an n-tuple", TUPLES, {"run": TUPLES_RUN % "greedy_tuples_american"}, [
            ("2.12", "minus_reference"), ("0.79", "minus_reference_ci95.0"), ("3.45", "minus_reference_ci95.1")]),
    *claims("Poker Squares, an n-tuple", TUPLES, {"run": TUPLES_RUN % "mc_tuples_american"}, [
            ("1.10", "minus_reference", -1), ("2.46", "minus_reference_ci95.0", -1),
            ("0.26", "minus_reference_ci95.1")]),
    *claims("Poker Squares, an n-tuple", TUPLES, {"run": TUPLES_RUN % "mc_tuples_english"}, [
            ("0.12", "minus_reference", -1), ("0.64", "minus_reference_ci95.0", -1),
            ("0.40", "minus_reference_ci95.1")]),
    *claims("Poker Squares, an n-tuple", TUPLES, {"run": TUPLES_RUN % "two_ply_none_american"}, [
            ("126.13", "mean"), ("124.09", "ci95.0"), ("128.17", "ci95.1")]),
    *claims("Poker Squares, an n-tuple", LOWER_BOUND, {"scoring": "american"}, [("126.19", "mean")]),
    *claims("Poker Squares, lower bound", BOUNDS_LOG, {"scoring": "American", "run": ROLLOUTS_343_RUN}, [
            ("0.24", "minus the 30 s run, paired"), ("0.94", "95% CI of the difference low", -1),
            ("1.42", "95% CI of the difference high")]),
    *claims("Poker Squares, lower bound", BOUNDS_LOG, {"scoring": "English", "run": ROLLOUTS_343_RUN}, [
            ("0.12", "minus the 30 s run, paired"), ("0.17", "95% CI of the difference low", -1),
            ("0.41", "95% CI of the difference high")]),
    ("Random play speed", "271", "benchmarks/poke.jsonl", {}, "ratio", 1),
    ("Random play speed", "492", "benchmarks/poker_squares.jsonl", {}, "ratio", 1),
    ("Random play speed", "247", "benchmarks/palace_poker.jsonl", {"game": PALACE_BENCH_GAME}, "ratio", 1),
    ("Random play speed", "56", "benchmarks/dice.jsonl", {}, "rollout_speedup", 1),
    *[("Batched environments", quoted, "benchmarks/vector.jsonl", VECTOR_RUN, f"games.{game}.{column}", scale)
      for game, quoted, column, scale in (
          ("poker_squares", "4.16", "ours_steps_per_s", 1e-6), ("poker_squares", "350", "ratio_vs_rl_env", 1),
          ("poker_dice", "2.72", "ours_steps_per_s", 1e-6), ("poker_dice", "262", "ratio_vs_rl_env", 1),
          ("palace_poker", "1.44", "ours_steps_per_s", 1e-6), ("palace_poker", "315", "ratio_vs_rl_env", 1))],
    *[("Batched environments", quoted, "benchmarks/vector.jsonl", POKE_VECTOR_RUN, f"games.poke.{column}", scale)
      for quoted, column, scale in (
          ("1.42", "ours_steps_per_s", 1e-6), ("579", "ratio_vs_rl_env", 1),
          ("2.82", "ours_steps_per_cpu_s", 1e-6), ("7.53", "rl_env_steps_per_cpu_s", 1e-3))],
    *claims("Hand evaluator", "benchmarks/hands.jsonl", {}, [("189", "ours_5card_per_s", 1e-6),
            ("78", "ours_7card_per_s", 1e-6), ("167", "ours_vs_treys_5card"), ("107", "ours_vs_phevaluator_5card")]),
    ("Poker Squares value network", "119.89", SQUARES_PAGE, {"scoring": "American", "agent": "`net`"}, "mean", 1),
    ("Poker Squares value network", "123.03", SQUARES_PAGE, NET_SEARCH_US, "mean", 1),
    ("Poker Squares value network", "51.69", SQUARES_PAGE, {"scoring": "English", "agent": "`net`"}, "mean", 1),
    ("Poker Squares value network", "52.72", SQUARES_PAGE, NET_SEARCH_UK, "mean", 1),
    ("Poker Squares value network", "500", SQUARES_PAGE, NET_SEARCH_US, "n", 1),
    *claims("`ppo_turn` on one-player", TURN_YACHT12, {}, [("184.71", "mean_score"), ("184.11", "score_ci95.0"),
            ("185.30", "score_ci95.1"), ("99.3", "mean_score", 100 / YACHT12_OPTIMUM), ("185.97", "optimum")]),
    *claims("`ppo_turn` on one-player", TURN_YAHTZEE, {}, [("246.47", "mean_score"), ("245.41", "score_ci95.0"),
            ("247.52", "score_ci95.1"), ("96.8", "mean_score", 100 / YAHTZEE_OPTIMUM), ("254.59", "optimum"),
            ("10,000", "games")]),
    ("`ppo_turn` on one-player", "10,000", TURN_YACHT12, {}, "games", 1),
    *claims("PPO on one-player", PPO_YACHT12, {}, [("172.90", "evaluation.final_mean_return"),
            ("172.46", "evaluation.ci95_low"), ("173.34", "evaluation.ci95_high"),
            ("93.0", "evaluation.final_mean_return", 100 / YACHT12_OPTIMUM)]),
    ("PPO on one-player", "185.97", "benchmarks/dice.jsonl", {}, "expected_score_yacht12", 1),
    *claims("PPO on one-player", PPO_YAHTZEE, {}, [("215.45", "evaluation.final_mean_return"),
            ("214.70", "evaluation.ci95_low"), ("216.20", "evaluation.ci95_high"),
            ("84.6", "evaluation.final_mean_return", 100 / YAHTZEE_OPTIMUM)]),
    ("PPO on one-player", "254.59", RULES, {"variant": "yahtzee-free", "rule": "upper_bonus"}, "with_rule", 1),
    ("PPO on one-player", "10,000", PPO_YAHTZEE, {}, "evaluation.n", 1),
    ("PPO on one-player", "30,007,296", PPO_YACHT12, {}, "budget.steps", 1),
    ("PPO on one-player", "35,004,416", PPO_YAHTZEE, {}, "budget.steps", 1),
    *claims("PPO on Poker Squares", PPO_SQUARES_2M, {}, [("103.28", "evaluation.final_mean_return"),
            ("102.70", "evaluation.ci95_low"), ("103.85", "evaluation.ci95_high"), ("2,007,040", "budget.steps"),
            ("722", "budget.cpu_seconds")]),
    *claims("PPO on Poker Squares", PPO_SQUARES, {}, [("115.50", "evaluation.final_mean_return"),
            ("114.96", "evaluation.ci95_low"), ("116.05", "evaluation.ci95_high"), ("1,007,616", "budget.steps"),
            ("312", "budget.cpu_seconds"), ("10,000", "evaluation.n")]),
    ("NFSP on Poke's small", "17.0", RL_PAGE, {"seed": "0", "method": "nfsp"}, "exploitability", 1),
    ("NFSP on Poke's small", "17.4", RL_PAGE, {"seed": "1", "method": "nfsp"}, "exploitability", 1),
    ("NFSP on Poke's small", "8.9", RL_PAGE, {"seed": "0", "method": "tabular Q-learning"}, "exploitability", 1),
    ("NFSP on Poke's small", "24.2", RL_PAGE, {"seed": "1", "method": "tabular Q-learning"}, "exploitability", 1),
    *claims("Self-play agents", RL_PAGE, DMC_POKE, [("27.67", "mean return"), ("23.82", "95% CI low"),
            ("31.52", "95% CI high"), ("3,000", "deals")]),
    *claims("Self-play agents", DMC_POKE_WEIGHTS, {"heuristic_share": 0.0}, [("4,000,768", "budget.steps"),
            ("895", "budget.cpu_seconds"), ("0", "heuristic_share")]),
    *claims("Self-play agents", RL_PAGE, DMC_PALACE, [("0.96", "mean return"), ("0.77", "95% CI low"),
            ("1.14", "95% CI high"), ("1,500", "deals")]),
    *claims("Self-play agents", DMC_PALACE_WEIGHTS, {"heuristic_share": 0.0}, [("500,224", "budget.steps"),
            ("355", "budget.cpu_seconds")]),
    *claims("Self-play agents", RL_PAGE, PPO_POKE, [("6.03", "mean return"), ("3.04", "95% CI low"),
            ("9.01", "95% CI high")]),
    *claims("Self-play agents", RL_PAGE, PPO_PALACE, [("0.34", "mean return"), ("0.25", "95% CI low"),
            ("0.44", "95% CI high"), ("5,000", "deals")]),
    ("Self-play agents", "5,000", RL_PAGE, PPO_POKE, "deals", 1),
    *claims("Self-play agents", RL_PAGE, NFSP_POKE, [("91.1", "mean return", -1), ("98.0", "95% CI low", -1),
            ("84.2", "95% CI high", -1), ("1,000", "deals")]),
    *[("Poke: a below-the-line point", quoted, BY_SCORE, {**NO_GAME, "below_seat_bin": seat, "below_other_bin": other},
       column, 1)
      for seat, other, figures in (("0-4", "0-4", ("28.6", "26.4", "30.7", "54,575")),
                                   ("15+", "15+", ("67.6", "60.3", "74.9", "8,185")),
                                   ("0-4", "15+", ("5.4", "1.3", "9.4", "2,179")))
      for quoted, column in zip(figures, ("value", "ci95_low", "ci95_high", "n"))],
    *[("Poker dice, a policy network alone", quoted, source, {}, column, scale)
      for source, optimum, figures in (
          (IMITATION_YACHT12, YACHT12_OPTIMUM, ("185.77", "185.16", "186.37", "99.9", "2,002,944")),
          (IMITATION_YAHTZEE, YAHTZEE_OPTIMUM, ("251.23", "250.04", "252.42", "98.7", "3,002,368")))
      for quoted, column, scale in zip(figures, ("evaluation.final_mean_return", "evaluation.ci95_low",
                                                  "evaluation.ci95_high", "evaluation.final_mean_return",
                                                  "budget.steps"), (1, 1, 1, 100 / optimum, 1))],
    ("Poker dice, a policy network alone", "185.97", "benchmarks/dice.jsonl", {}, "expected_score_yacht12", 1),
    ("Poker dice, a policy network alone", "254.59", RULES, {"variant": "yahtzee-free", "rule": "upper_bonus"},
     "with_rule", 1),
    ("Poker dice, a policy network alone", "10,000", IMITATION_YAHTZEE, {}, "evaluation.n", 1),
    ("Poker dice, a policy network alone", "10,000", IMITATION_YACHT12, {}, "evaluation.n", 1),
    *claims("`nn_ismcts`", NN_PALACE, {}, [("0.29", "mean_diff"), ("0.11", "ci95_low"), ("0.47", "ci95_high"),
            ("1,500", "n"), ("128", "options.nn_ismcts.beliefs")]),
    *claims("`nn_ismcts`", NN_PALACE_PLAY, {}, [("300", "iterations_per_move"), ("0.58", "mean_diff"),
            ("0.17", "ci95_low"), ("1.00", "ci95_high"), ("240", "n")]),
    *claims("`nn_ismcts`", NN_POKE, {}, [("95.8", "mean_diff"), ("47.0", "ci95_low"), ("144.7", "ci95_high"),
            ("450", "n"), ("32", "options.nn_ismcts.beliefs")]),
    *claims("`nn_ismcts`", NN_POKE_PLAY, {}, [("200", "iterations_per_move"), ("32.1", "mean_diff", -1),
            ("104.3", "ci95_low", -1), ("40.1", "ci95_high"), ("240", "n")]),
    *claims("`nn_ismcts`", NN_PAGE, NN_CONTROL, [("10.0", "mean difference against `ismcts` (points a deal)"),
            ("1.1", "95% CI low"), ("18.8", "95% CI high"), ("300", "n (pairs of deals)")]),
    *claims("Poker Squares, exact endgames", ENDGAME, MC_CROSS_REGRET, [("0.031", "mean"), ("0.020", "ci95_low"),
            ("0.042", "ci95_high")]),
    *claims("Poker Squares, exact endgames", ENDGAME, CLAIRVOYANT_SLACK, [("10.67", "mean"), ("10.42", "ci95_low"),
            ("10.91", "ci95_high"), ("1,000", "n")]),
    ("Poker Squares, exact endgames", "0.53", "poker_squares_endgame/solver_speed.jsonl",
     {"scoring": "american", "empties": 6}, "median_cpu_s", 1),
    ("Poker Squares, exact endgames", "20", "poker_squares_endgame/solver_speed.jsonl",
     {"scoring": "american", "empties": 6}, "positions", 1),
]

# Numbers in the figure column that are not measurements: (row, number, what it is).
NOT_MEASURED = [
    ("Hand evaluator", "5", "'on 5 cards' names the hand size"),
    ("Self-play agents", "4", "'(4 players)' names the table size"),
    ("Poke: a below-the-line point", "0", "'0-4' bounds a score bin"),
    ("Poke: a below-the-line point", "4", "'0-4' bounds a score bin"),
    ("Poke: a below-the-line point", "15", "'15+' bounds a score bin"),
    ("`nn_ismcts`", "4", "'(4 players)' and '4 rotations' name the table"),
    ("Poke: best-response draw/double", "2", "'2 M iterations' is the equilibrium's configured budget"),
    ("Poker Squares, upper bounds", "120", "'120 nodes a deal' is the branch-and-price run's node limit"),
    ("Poker Squares, upper bounds", "40", "'40 nodes' names the American run paired against and the English node limit"),
    ("Poker Squares, upper bounds", "30", "'30 s a game' names the budget of the bracket's lower end"),
]


def glance_rows() -> dict[str, str]:
    """The README's "Results at a glance" table: what -> figure."""
    text = (REPO / "README.md").read_text()
    section = text.split("## Results at a glance", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and len(cells) == 3 and cells[0] not in ("what", "---"):
            rows[cells[0]] = cells[1]
    return rows


def markdown_rows(path: Path) -> list[dict]:
    """Rows of every Markdown table in ``path`` as header -> cell; a ``a .. b`` cell also gives ``<header> low/high``."""
    rows, header = [], None
    for line in path.read_text().splitlines():
        if not line.startswith("|"):
            header = None
            continue
        cells = [c.replace("**", "").strip() for c in line.strip().strip("|").split("|")]
        if header is None:
            header = cells
        elif not set("".join(cells)) <= set("-: "):
            row = dict(zip(header, cells))
            for name, cell in list(row.items()):
                if " .. " in cell:
                    row[f"{name} low"], row[f"{name} high"] = cell.split(" .. ")
            rows.append(row)
    return rows


def source_value(source: str, filters: dict, column: str) -> float:
    path = RESULTS / source
    if path.suffix == ".csv":
        frame = pd.read_csv(path)
        for key, value in filters.items():
            frame = frame[frame[key] == value]
        assert len(frame) == 1, f"{source} {filters}: {len(frame)} rows"
        return float(frame.iloc[0][column])
    if path.suffix in (".jsonl", ".json"):
        if path.suffix == ".json":  # one record (a shipped weights file's metadata)
            records = [json.loads(path.read_text())]
        else:
            records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        matching = [r for r in records if all(r.get(k) == v for k, v in filters.items())]
        assert matching, f"{source}: no record with {filters}"
        value = matching[-1]
        for key in column.split("."):  # a nested field: "games.poke.ours_steps_per_s", "score_ci95.0"
            value = value[int(key)] if isinstance(value, list) else value[key]
        return float(value)
    matching = [r for r in markdown_rows(path) if all(r.get(k) == v for k, v in filters.items())]
    assert len(matching) == 1, f"{source} {filters}: {len(matching)} rows"
    return float(matching[0][column].replace(",", ""))


def find_row(rows: dict[str, str], start: str) -> str:
    found = [what for what in rows if what.startswith(start)]
    assert len(found) == 1, f"README's results table has {len(found)} rows starting {start!r}"
    return found[0]


@pytest.mark.parametrize("row, quoted, source, filters, column, scale", CLAIMS,
                         ids=[f"{c[0][:24]}:{c[1]}" for c in CLAIMS])
def test_a_quoted_figure_is_its_source_rounded_as_shown(row, quoted, source, filters, column, scale):
    figure = glance_rows()[find_row(glance_rows(), row)]
    assert quoted in NUMBER.findall(figure), f"the README no longer quotes {quoted} for {row!r}: {figure}"
    mantissa, _, exponent = quoted.replace(",", "").partition("e")
    digits = len(mantissa.partition(".")[2])
    tolerance = 0.5 * 10.0 ** (int(exponent or 0) - digits)
    value = source_value(source, filters, column) * scale
    assert abs(value - float(quoted.replace(",", ""))) <= tolerance * (1 + 1e-9), \
        f"README quotes {quoted} for {row!r}; results/{source} {column} is {value}"


def test_every_number_in_the_figure_column_is_claimed():
    rows = glance_rows()
    claimed = {(find_row(rows, c[0]), c[1]) for c in CLAIMS}
    claimed |= {(find_row(rows, row), number) for row, number, _ in NOT_MEASURED}
    unclaimed = [(what, number) for what, figure in rows.items() for number in NUMBER.findall(figure)
                 if (what, number) not in claimed]
    assert not unclaimed, f"README figures without a source in this test: {unclaimed}"
