"""Caches go to the user's cache directory, records to the checkout's results/ only from a checkout."""

from pathlib import Path

from gamut.envs import paths
from gamut.solvers.poker_dice import solution


def test_cache_dir_follows_the_environment_variable(monkeypatch, tmp_path):
    monkeypatch.setenv(paths.CACHE_ENV, str(tmp_path))
    assert paths.cache_dir("poker_dice") == tmp_path / "poker_dice"
    assert solution.default_cache_dir() == tmp_path / "poker_dice"
    monkeypatch.delenv(paths.CACHE_ENV)
    assert "gamut" in str(paths.cache_dir()) and not str(paths.cache_dir()).startswith(str(paths._SOURCE_ROOT))


def test_a_solve_caches_outside_the_package(monkeypatch, tmp_path):
    monkeypatch.setenv(paths.CACHE_ENV, str(tmp_path))
    first = solution.solve("yacht12")
    assert not first.from_cache and len(list((tmp_path / "poker_dice").glob("*.npy"))) == 1
    assert solution.solve("yacht12").from_cache


def test_records_go_to_results_in_a_checkout_and_to_the_data_dir_otherwise(monkeypatch, tmp_path):
    root = Path(__file__).resolve().parents[1]
    assert paths.checkout_root() == root
    assert paths.records_dir("benchmarks") == root / "results" / "benchmarks"
    monkeypatch.setattr(paths, "_SOURCE_ROOT", tmp_path)  # as if installed: no .git beside the package
    monkeypatch.setenv(paths.DATA_ENV, str(tmp_path / "data"))
    assert paths.checkout_root() is None
    assert paths.records_dir("benchmarks") == tmp_path / "data" / "benchmarks"
