"""``gamut bench vector`` on tiny sizes: the fields it reports, and a game without a batched environment."""

import argparse
import dataclasses

import pytest

from gamut.benchmarks import vector as bench
from gamut.envs.registry import declarations


def run(*argv):
    parser = argparse.ArgumentParser()
    bench.add_arguments(parser)
    return bench.run(parser.parse_args(list(argv)))


@pytest.mark.slow
def test_reports_every_rate_and_ratio_of_a_game():
    result = run("--games", "poker_squares", "--num-envs", "16", "--steps", "3", "--baseline-steps", "30",
                 "--repeats", "1")
    entry = result["games"]["poker_squares"]
    for key in ("ours_steps_per_s", "pyspiel_steps_per_s", "rl_env_steps_per_s", "ours_steps_per_s_all_cores"):
        assert entry[key] > 0
    assert entry["ratio_vs_rl_env"] == pytest.approx(entry["ours_steps_per_s"] / entry["rl_env_steps_per_s"])
    assert entry["game"].startswith("poker_squares(players=1,") and result["missing"] == []


def test_a_game_without_a_batched_environment_is_reported_missing(monkeypatch):
    poke = declarations()["poke"]
    monkeypatch.setitem(declarations(), "poke", dataclasses.replace(poke, vector="gamut.envs.poke.no_such_module:X"))
    result = run("--games", "poke", "--steps", "1", "--baseline-steps", "1", "--repeats", "1")
    assert result["missing"] == ["poke"]
    assert "ours_steps_per_s" not in result["games"]["poke"] and "no batched environment" in result["games"]["poke"][
        "missing"]


def test_bad_sizes_are_refused():
    with pytest.raises(ValueError, match="--baseline-steps must be >= 1"):
        run("--games", "poker_squares", "--baseline-steps", "0")
