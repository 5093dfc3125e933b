"""The learning-curve figures of results/rl/: one per game, from the shipped and the recorded runs."""

from __future__ import annotations

import json

import numpy as np

from gamut.experiments.replot import main as replot_main
from gamut.experiments.rl_curves import draw, record_run, recorded_runs
from gamut.solvers.rl.checkpoint import save_weights


def _curve(points: int, level: float) -> list[dict]:
    return [{"steps": 1000 * k, "seconds": float(k), "mean_return": level * k, "ci95_low": level * k - 1,
             "ci95_high": level * k + 1, "n": 100, "exploitability": None} for k in range(points)]


def test_a_run_is_recorded_without_its_parameters_and_each_game_gets_one_figure(tmp_path):
    weights = tmp_path / "weights.npz"
    save_weights(weights, {"q/w0": np.ones((3, 2), np.float32)},
                 {"algorithm": "dmc", "game": "poker_dice(joker=free,players=1,variant=yacht12,zero_sum=False)",
                  "input": "observation", "curve": _curve(4, 10.0), "evaluation_opponent": "random"})
    recorded = record_run(weights, "dmc_yacht12", tmp_path)
    header = json.loads(recorded.read_text())
    assert header["algorithm"] == "dmc" and len(header["curve"]) == 4 and "q/w0" not in json.dumps(header)
    # A shipped run's readable header sits beside its weights; files without a curve are not runs.
    (tmp_path / "rl" / "ppo_poke.json").write_text(json.dumps(
        {"algorithm": "ppo", "game": "poke(mode=deal)", "curve": _curve(3, 2.0), "evaluation_opponent": "heuristic"}))
    (tmp_path / "rl" / "manifest.json").write_text(json.dumps({"ppo": {}}))
    assert [name for name, _ in recorded_runs(tmp_path)] == ["ppo_poke", "dmc_yacht12"]
    written = draw(tmp_path)
    figures = [str(tmp_path / "rl" / f"curves_{game}.png") for game in ("poke", "poker_dice")]
    assert sorted(written) == figures
    assert all((tmp_path / "rl" / name).stat().st_size > 1000 for name in ("curves_poke.png", "curves_poker_dice.png"))


def test_replot_names_rl_curves(capsys):
    assert replot_main([]) == 2
    assert "rl_curves" in capsys.readouterr().err
