"""``gamut bench dice`` runs on a tiny size and reports every figure."""

import json

from gamut.experiments.cli import main


def test_dice_benchmark_tiny(capsys, tmp_path):
    args = ["bench", "dice", "--variants", "yacht12", "--games", "200", "--openspiel-games", "3",
            "--repeats", "1", "--out", str(tmp_path), "--json"]
    assert main(args) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert abs(result["expected_score_yacht12"] - 185.9716927) < 1e-6
    assert result["dp_seconds_yacht12"] > 0 and result["ours_games_per_s"] > 0
    assert result["rollout_speedup"] == result["ours_games_per_s"] / \
        result["openspiel_yacht_games_per_s"]
    record = json.loads((tmp_path / "dice.jsonl").read_text().splitlines()[-1])
    # Every benchmark record names its machine and how loaded it was, beside the figures.
    assert record["machine"]["cpu_count"] >= 1 and record["git_commit"]
    assert record["load_average_1min_before"] >= 0 and record["load_average_1min_after"] >= 0


def test_dice_benchmark_rejects_unknown_variant(capsys):
    assert main(["bench", "dice", "--variants", "nope", "--out", ""]) == 2
    assert "unknown ['nope']" in capsys.readouterr().err
