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
PALACE_BENCH_GAME = "palace_poker(betting=limit,big_bet=4,max_raises=3,max_turns=400,players=4,small_bet=2,stack=100)"
BEST_AGENT = "lower: best agent (mc_cross, 4.5 s/game, gamut squares eval --seed 2026, first n deals)"
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
YACHT12_OPTIMUM, YAHTZEE_OPTIMUM = 185.9717, 254.5896  # the exact optima claimed above
BY_SCORE = "poke_doubling/point_value_by_score.csv"
NO_GAME = {"games_seat": 0, "games_other": 0}
IMITATION_YACHT12, IMITATION_YAHTZEE = "rl/imitation_yacht12.json", "rl/imitation_yahtzee.json"
NN_PALACE, NN_POKE = "nn_ismcts/palace_final.json", "nn_ismcts/poke_final.json"
ENDGAME = "poker_squares_endgame/summary.csv"
MC_CROSS_REGRET = {"scoring": "american", "quantity": "regret", "of": "mc_cross (in its game)"}
CLAIRVOYANT_SLACK = {"scoring": "american", "quantity": "slack", "of": "clairvoyant bound"}

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
    ("CFR+ on Leduc", "47", "benchmarks/cfr.jsonl", {}, "ratio", 1),
    ("CFR+ on Leduc", "2.5715e-4", "benchmarks/cfr.jsonl", {}, "ours_exploitability", 1),
    ("CFR+ on Leduc", "1,000", "benchmarks/cfr.jsonl", {}, "iterations", 1),
    ("Poke: value of a point", "34.55", POINT, {}, "value", 1),
    ("Poke: value of a point", "33.78", POINT, {}, "ci95_low", 1),
    ("Poke: value of a point", "35.33", POINT, {}, "ci95_high", 1),
    ("Poke: value of a point", "400,000", POINT, {}, "n", 1),
    ("Poke: `ismcts` vs", "326", "poke/matches.jsonl", ISMCTS_MATCH, "mean_diff", 1),
    ("Poke: `ismcts` vs", "274", "poke/matches.jsonl", ISMCTS_MATCH, "ci95_low", 1),
    ("Poke: `ismcts` vs", "378", "poke/matches.jsonl", ISMCTS_MATCH, "ci95_high", 1),
    ("Poke: `ismcts` vs", "1,000", "poke/matches.jsonl", ISMCTS_MATCH, "rubbers_played", 1),
    ("Palace Poker, 4 players", "1.79", STANDINGS, PALACE_4, "a_mean_chips", 1),
    ("Palace Poker, 4 players", "1.41", STANDINGS, PALACE_4, "a_ci95_low", 1),
    ("Palace Poker, 4 players", "2.17", STANDINGS, PALACE_4, "a_ci95_high", 1),
    ("Palace Poker, 4 players", "200", STANDINGS, PALACE_4, "deals", 1),
    ("Palace Poker, 4 players", "4", STANDINGS, PALACE_4, "players", 1),
    ("Poker Squares, American mean", "125.65", BOUNDS, {"scoring": "american", "quantity": BEST_AGENT}, "mean", 1),
    ("Poker Squares, American mean", "122.87", BOUNDS, {"scoring": "american", "quantity": BEST_AGENT}, "ci95_low", 1),
    ("Poker Squares, American mean", "128.44", BOUNDS, {"scoring": "american", "quantity": BEST_AGENT}, "ci95_high", 1),
    ("Poker Squares, American mean", "500", BOUNDS, {"scoring": "american", "quantity": BEST_AGENT}, "n", 1),
    ("Poker Squares, American mean", "54.69", BOUNDS, {"scoring": "english", "quantity": BEST_AGENT}, "mean", 1),
    ("Poker Squares, American mean", "53.72", BOUNDS, {"scoring": "english", "quantity": BEST_AGENT}, "ci95_low", 1),
    ("Poker Squares, American mean", "55.66", BOUNDS, {"scoring": "english", "quantity": BEST_AGENT}, "ci95_high", 1),
    ("Poker Squares, two-ply", "125.18", SQUARES_PAGE, {"scoring": "American", "agent": "expectimax_cross"}, "mean", 1),
    ("Poker Squares, two-ply", "122.34", SQUARES_PAGE, {"scoring": "American", "agent": "expectimax_cross"}, "95% CI low", 1),
    ("Poker Squares, two-ply", "128.02", SQUARES_PAGE, {"scoring": "American", "agent": "expectimax_cross"}, "95% CI high", 1),
    ("Poker Squares, two-ply", "53.77", SQUARES_PAGE, {"scoring": "English", "agent": "expectimax_cross"}, "mean", 1),
    ("Poker Squares, two-ply", "52.79", SQUARES_PAGE, {"scoring": "English", "agent": "expectimax_cross"}, "95% CI low", 1),
    ("Poker Squares, two-ply", "54.74", SQUARES_PAGE, {"scoring": "English", "agent": "expectimax_cross"}, "95% CI high", 1),
    ("Poker Squares, two-ply", "500", SQUARES_PAGE, {"scoring": "English", "agent": "expectimax_cross"}, "n", 1),
    ("Poker Squares, upper bounds", "242.3", BOUNDS, {"scoring": "american", "quantity": "upper: clairvoyant bound"}, "mean", 1),
    ("Poker Squares, upper bounds", "107.4", BOUNDS, {"scoring": "english", "quantity": "upper: clairvoyant bound"}, "mean", 1),
    ("Poker Squares, upper bounds", "190.7", BOUNDS, {"scoring": "american", "quantity": "upper: duality bound (scale 1.5)"}, "mean", 1),
    ("Poker Squares, upper bounds", "86.7", BOUNDS, {"scoring": "english", "quantity": "upper: duality bound (scale 1.5)"}, "mean", 1),
    ("Poker Squares, upper bounds", "44", BOUNDS, {"scoring": "american", "quantity": GAP_SHARE}, "mean", 100),
    ("Poker Squares, upper bounds", "39", BOUNDS, {"scoring": "english", "quantity": GAP_SHARE}, "mean", 100),
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
    ("Hand evaluator", "189", "benchmarks/hands.jsonl", {}, "ours_5card_per_s", 1e-6),
    ("Hand evaluator", "78", "benchmarks/hands.jsonl", {}, "ours_7card_per_s", 1e-6),
    ("Hand evaluator", "167", "benchmarks/hands.jsonl", {}, "ours_vs_treys_5card", 1),
    ("Hand evaluator", "107", "benchmarks/hands.jsonl", {}, "ours_vs_phevaluator_5card", 1),
    ("Poker Squares value network", "119.89", SQUARES_PAGE, {"scoring": "American", "agent": "`net`"}, "mean", 1),
    ("Poker Squares value network", "123.03", SQUARES_PAGE, NET_SEARCH_US, "mean", 1),
    ("Poker Squares value network", "51.69", SQUARES_PAGE, {"scoring": "English", "agent": "`net`"}, "mean", 1),
    ("Poker Squares value network", "52.72", SQUARES_PAGE, NET_SEARCH_UK, "mean", 1),
    ("Poker Squares value network", "500", SQUARES_PAGE, NET_SEARCH_US, "n", 1),
    ("`ppo_turn` on one-player", "184.71", TURN_YACHT12, {}, "mean_score", 1),
    ("`ppo_turn` on one-player", "184.11", TURN_YACHT12, {}, "score_ci95.0", 1),
    ("`ppo_turn` on one-player", "185.30", TURN_YACHT12, {}, "score_ci95.1", 1),
    ("`ppo_turn` on one-player", "99.3", TURN_YACHT12, {}, "mean_score", 100 / YACHT12_OPTIMUM),
    ("`ppo_turn` on one-player", "185.97", TURN_YACHT12, {}, "optimum", 1),
    ("`ppo_turn` on one-player", "246.47", TURN_YAHTZEE, {}, "mean_score", 1),
    ("`ppo_turn` on one-player", "245.41", TURN_YAHTZEE, {}, "score_ci95.0", 1),
    ("`ppo_turn` on one-player", "247.52", TURN_YAHTZEE, {}, "score_ci95.1", 1),
    ("`ppo_turn` on one-player", "96.8", TURN_YAHTZEE, {}, "mean_score", 100 / YAHTZEE_OPTIMUM),
    ("`ppo_turn` on one-player", "254.59", TURN_YAHTZEE, {}, "optimum", 1),
    ("`ppo_turn` on one-player", "10,000", TURN_YAHTZEE, {}, "games", 1),
    ("`ppo_turn` on one-player", "10,000", TURN_YACHT12, {}, "games", 1),
    ("PPO on one-player", "172.90", PPO_YACHT12, {}, "evaluation.final_mean_return", 1),
    ("PPO on one-player", "172.46", PPO_YACHT12, {}, "evaluation.ci95_low", 1),
    ("PPO on one-player", "173.34", PPO_YACHT12, {}, "evaluation.ci95_high", 1),
    ("PPO on one-player", "93.0", PPO_YACHT12, {}, "evaluation.final_mean_return", 100 / YACHT12_OPTIMUM),
    ("PPO on one-player", "185.97", "benchmarks/dice.jsonl", {}, "expected_score_yacht12", 1),
    ("PPO on one-player", "215.45", PPO_YAHTZEE, {}, "evaluation.final_mean_return", 1),
    ("PPO on one-player", "214.70", PPO_YAHTZEE, {}, "evaluation.ci95_low", 1),
    ("PPO on one-player", "216.20", PPO_YAHTZEE, {}, "evaluation.ci95_high", 1),
    ("PPO on one-player", "84.6", PPO_YAHTZEE, {}, "evaluation.final_mean_return", 100 / YAHTZEE_OPTIMUM),
    ("PPO on one-player", "254.59", RULES, {"variant": "yahtzee-free", "rule": "upper_bonus"}, "with_rule", 1),
    ("PPO on one-player", "10,000", PPO_YAHTZEE, {}, "evaluation.n", 1),
    ("PPO on one-player", "30,007,296", PPO_YACHT12, {}, "budget.steps", 1),
    ("PPO on one-player", "35,004,416", PPO_YAHTZEE, {}, "budget.steps", 1),
    ("PPO on Poker Squares", "103.28", PPO_SQUARES_2M, {}, "evaluation.final_mean_return", 1),
    ("PPO on Poker Squares", "102.70", PPO_SQUARES_2M, {}, "evaluation.ci95_low", 1),
    ("PPO on Poker Squares", "103.85", PPO_SQUARES_2M, {}, "evaluation.ci95_high", 1),
    ("PPO on Poker Squares", "2,007,040", PPO_SQUARES_2M, {}, "budget.steps", 1),
    ("PPO on Poker Squares", "722", PPO_SQUARES_2M, {}, "budget.cpu_seconds", 1),
    ("PPO on Poker Squares", "115.50", PPO_SQUARES, {}, "evaluation.final_mean_return", 1),
    ("PPO on Poker Squares", "114.96", PPO_SQUARES, {}, "evaluation.ci95_low", 1),
    ("PPO on Poker Squares", "116.05", PPO_SQUARES, {}, "evaluation.ci95_high", 1),
    ("PPO on Poker Squares", "1,007,616", PPO_SQUARES, {}, "budget.steps", 1),
    ("PPO on Poker Squares", "312", PPO_SQUARES, {}, "budget.cpu_seconds", 1),
    ("PPO on Poker Squares", "10,000", PPO_SQUARES, {}, "evaluation.n", 1),
    ("NFSP on Poke's small", "17.0", RL_PAGE, {"seed": "0", "method": "nfsp"}, "exploitability", 1),
    ("NFSP on Poke's small", "17.4", RL_PAGE, {"seed": "1", "method": "nfsp"}, "exploitability", 1),
    ("NFSP on Poke's small", "14.0", RL_PAGE, {"seed": "0", "method": "tabular Q-learning"}, "exploitability", 1),
    ("NFSP on Poke's small", "14.4", RL_PAGE, {"seed": "1", "method": "tabular Q-learning"}, "exploitability", 1),
    ("Self-play agents", "6.03", RL_PAGE, PPO_POKE, "mean return", 1),
    ("Self-play agents", "3.04", RL_PAGE, PPO_POKE, "95% CI low", 1),
    ("Self-play agents", "9.01", RL_PAGE, PPO_POKE, "95% CI high", 1),
    ("Self-play agents", "0.34", RL_PAGE, PPO_PALACE, "mean return", 1),
    ("Self-play agents", "0.25", RL_PAGE, PPO_PALACE, "95% CI low", 1),
    ("Self-play agents", "0.44", RL_PAGE, PPO_PALACE, "95% CI high", 1),
    ("Self-play agents", "5,000", RL_PAGE, PPO_PALACE, "deals", 1),
    ("Self-play agents", "5,000", RL_PAGE, PPO_POKE, "deals", 1),
    ("Self-play agents", "91.1", RL_PAGE, NFSP_POKE, "mean return", -1),
    ("Self-play agents", "98.0", RL_PAGE, NFSP_POKE, "95% CI low", -1),
    ("Self-play agents", "84.2", RL_PAGE, NFSP_POKE, "95% CI high", -1),
    ("Self-play agents", "1,000", RL_PAGE, NFSP_POKE, "deals", 1),
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
    ("`nn_ismcts`", "0.03", NN_PALACE, {}, "mean_diff", 1),
    ("`nn_ismcts`", "0.50", NN_PALACE, {}, "ci95_low", -1),
    ("`nn_ismcts`", "0.56", NN_PALACE, {}, "ci95_high", 1),
    ("`nn_ismcts`", "150", NN_PALACE, {}, "n", 1),
    ("`nn_ismcts`", "114.6", NN_POKE, {}, "mean_diff", -1),
    ("`nn_ismcts`", "268.7", NN_POKE, {}, "ci95_low", -1),
    ("`nn_ismcts`", "39.5", NN_POKE, {}, "ci95_high", 1),
    ("`nn_ismcts`", "60", NN_POKE, {}, "n", 1),
    ("Poker Squares, exact endgames", "0.121", ENDGAME, MC_CROSS_REGRET, "mean", 1),
    ("Poker Squares, exact endgames", "0.085", ENDGAME, MC_CROSS_REGRET, "ci95_low", 1),
    ("Poker Squares, exact endgames", "0.156", ENDGAME, MC_CROSS_REGRET, "ci95_high", 1),
    ("Poker Squares, exact endgames", "10.55", ENDGAME, CLAIRVOYANT_SLACK, "mean", 1),
    ("Poker Squares, exact endgames", "10.31", ENDGAME, CLAIRVOYANT_SLACK, "ci95_low", 1),
    ("Poker Squares, exact endgames", "10.78", ENDGAME, CLAIRVOYANT_SLACK, "ci95_high", 1),
    ("Poker Squares, exact endgames", "1,000", ENDGAME, CLAIRVOYANT_SLACK, "n", 1),
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
        cells = [c.strip().strip("*").strip() for c in line.strip().strip("|").split("|")]
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
