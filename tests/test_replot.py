"""Figures redrawn from the committed trials tables, and the figure helpers' labels."""

import json
import shutil
from pathlib import Path

import pytest

from gamut.experiments.poke_matches import _deck, replot_poke_matches
from gamut.experiments.replot import replot
from gamut.experiments.store import METADATA

RESULTS = Path(__file__).resolve().parent.parent / "results"


@pytest.mark.parametrize("name, figures", [
    ("palace_tournament", ["standings"]),
    ("poker_squares_bounds", ["bounds"]),
    ("poker_squares_lower_bound", ["score_vs_budget"]),
])
def test_replot_draws_from_the_published_trials_without_touching_the_tables(tmp_path, name, figures):
    shutil.copytree(RESULTS / name, tmp_path / name)
    for figure in figures:
        for suffix in (".png", ".svg"):
            (tmp_path / name / f"{figure}{suffix}").unlink(missing_ok=True)
    tables = {p.name: p.read_bytes() for p in (tmp_path / name).glob("*.parquet")}
    written = replot(name, results_root=tmp_path)
    assert sorted(written) == sorted(f"{f}{s}" for f in figures for s in (".png", ".svg"))
    for figure in figures:
        assert (tmp_path / name / f"{figure}.png").stat().st_size > 10_000
        assert f"]({figure}.png)" in (tmp_path / name / "report.md").read_text()
    meta = json.loads((tmp_path / name / METADATA).read_text())
    assert set(written) <= set(meta["files"])
    assert {p.name: p.read_bytes() for p in (tmp_path / name).glob("*.parquet")} == tables


def test_replot_refuses_what_it_cannot_draw(tmp_path):
    with pytest.raises(ValueError, match="unknown experiment 'nope'"):
        replot("nope", results_root=tmp_path)
    with pytest.raises(ValueError, match="no published results to redraw; run `gamut run palace_tournament`"):
        replot("palace_tournament", results_root=tmp_path)
    with pytest.raises(ValueError, match="no match records to plot"):
        replot_poke_matches(tmp_path)


def test_poke_matches_figure_from_match_records(tmp_path):
    (tmp_path / "poke").mkdir()
    record = {"game": "poke(follow=must_beat,hand_size=2,mode=rubber,num_ranks=3,num_suits=2)", "agent_a": "cfr",
              "agent_b": "heuristic", "mean_diff": 779.3, "ci95_low": 687.8, "ci95_high": 870.9, "n": 300,
              "seed": 1}
    (tmp_path / "poke" / "matches.jsonl").write_text(json.dumps(record) + "\n")
    assert replot_poke_matches(tmp_path) == ["matches.png", "matches.svg"]
    assert (tmp_path / "poke" / "matches.png").stat().st_size > 5_000


def test_agents_are_named_with_their_options_where_the_record_keeps_them():
    from gamut.experiments.poke_matches import _agent

    record = {"agent_a": "ismcts", "agent_b": "heuristic", "a_options": {"opponent": "search"}, "b_options": {}}
    assert (_agent(record, "a"), _agent(record, "b")) == ("ismcts (opponent=search)", "heuristic")
    assert _agent({"agent_a": "mccfr"}, "a") == "mccfr"  # records made before options were kept


def test_deck_names_the_deck_and_the_follow_rule():
    assert _deck("poke(follow=must_beat,num_ranks=13,num_suits=4)") == "full deck, follow=must_beat"
    assert _deck("poke(hand_size=2,num_ranks=3,num_suits=2)") == \
        "small deck (3 ranks x 2 suits), version 1 (follow=free)"


def test_policies_are_labelled_in_words():
    from gamut.experiments.trials.poke_doubling import policy_in_words

    assert policy_in_words("2,1,4,1,0") == ("double < two pair, redouble < one pair, free < straight, "
                                            "dealer double < one pair, dealer redouble never")
    assert policy_in_words("10,10,10,10,10").count("always") == 5


def test_budget_axis_is_labelled_in_seconds():
    import matplotlib
    import pandas as pd

    matplotlib.use("Agg")
    from gamut.experiments.trials.poker_squares_agents import budget_figure

    budgets = pd.DataFrame({"scoring": ["american"] * 3 + ["english"] * 3,
                            "agent": ["mc_cross", "mc_cross", "net_search"] * 2,
                            "budget_seconds": [0.05, 5.0, 0.05] * 2, "mean": [120.0, 125.0, 119.0] * 2,
                            "ci95_low": [118.0, 123.0, 117.0] * 2, "ci95_high": [122.0, 127.0, 121.0] * 2,
                            "n": [100, 100, 100] * 2, "seconds_per_game": [0.05, 5.0, 0.05] * 2})
    fig = budget_figure(budgets)
    assert len(fig.axes) == 2
    for ax, scoring in zip(fig.axes, ("american", "english")):
        assert [t.get_text() for t in ax.get_xticklabels()] == ["0.05 s", "5 s"]
        assert ax.get_title() == f"{scoring} scoring, n = 100 games per point"
        assert [t.get_text() for t in ax.get_legend().get_texts()] == ["mc_cross", "net_search"]
