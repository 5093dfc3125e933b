"""The Poker Squares lower-bound experiment: its config checks, its reproducible trials and its summary tables."""

import pandas as pd
import pytest

from gamut.experiments.config import CONFIG_DIR, load_config
from gamut.experiments.trials import poker_squares_lower_bound as T


def _params(profile="quick"):
    schema = {"seed": int, "trials": int, **T.PARAMS}
    return dict(load_config(CONFIG_DIR / "poker_squares_lower_bound.toml", profile, schema,
                            "poker_squares_lower_bound").params)


def test_config_validates_and_bad_fields_are_named():
    params = _params()
    T.validate(params)
    T.validate(_params("full"))
    for field, value, words in (("runs", [[0.1, 8, 5]], "each entry"), ("runs", [[0.1, 8, 5, 2]], "1..trials"),
                                ("runs", [[0.1, 8, 5, 1], [0.1, 9, 5, 1]], "must differ"),
                                ("runs", [[0.1, 8, 9, 1]], "endgame"), ("targets", [127.5], "one target"),
                                ("agent", "expectimax", "rollout count")):
        with pytest.raises(ValueError, match=words):
            T.validate({**params, field: value})


def test_trials_play_the_bound_deals_on_a_count_and_repeat_with_the_seed():
    params = {**_params(), "deals_per_trial": 2}
    spec = T.trial_specs({**params, "runs": [[0.11, 4, 3, 2]]})[3]
    assert (spec["batch"], spec["scoring"], spec["simulations"], spec["endgame"]) == (1, "english", 4, 3)
    first = T.run_trial(params, spec, seed=11)
    again = T.run_trial(params, spec, seed=11)
    assert [r["deal"] for r in first] == [2, 3]
    assert [r["score"] for r in first] == [r["score"] for r in again]


def _two_runs() -> pd.DataFrame:
    """A 1 s run on 4 deals and a 5 s run on 8, the longer 2 points higher on the deals both played."""
    rows = []
    for seconds, sims, deals, shift in ((1.0, 10, 4, 0), (5.0, 50, 8, 2)):
        for deal in range(deals):
            rows.append({"scoring": "american", "seconds": seconds, "simulations": sims, "endgame": 5, "deal": deal,
                         "score": 100 + deal + shift + (deal % 2), "cpu_seconds": seconds, "wall_seconds": seconds})
    return pd.DataFrame(rows)


def test_summary_pairs_each_run_with_the_largest_on_common_deals_and_names_the_bound():
    table = _two_runs()
    curve = T.curve_table(table)
    assert curve["n"].tolist() == [4, 8]
    paired = T.paired_table(table)
    assert paired["n"].tolist() == [4] and paired["difference"].tolist() == [-2.0]
    bound = T.bound_table(curve, {"scorings": ["american"], "targets": [105.0]})
    row = bound.iloc[0]
    assert row["seconds"] == 5.0 and row["n"] == 8 and row["mean"] == pytest.approx(106.0)
    assert row["met"] and not row["met_at_95"]


def test_figure_draws_the_paired_differences_under_the_means():
    import matplotlib.pyplot as plt

    table = _two_runs()
    params = {"scorings": ["american"], "targets": [105.0], "agent": "mc_cross"}
    fig = T.curve_figure(T.curve_table(table), params, T.paired_table(table))
    means, paired = fig.axes
    xs, ys = means.containers[0].lines[0].get_data()
    assert list(xs) == [1.0, 5.0] and list(ys) == pytest.approx([102.0, 106.0])
    xs, ys = paired.containers[0].lines[0].get_data()
    assert list(xs) == [1.0] and list(ys) == [-2.0]
    assert "minus 5 s" in paired.get_title()
    plt.close(fig)
    alone = T.curve_figure(T.curve_table(table), params)
    assert len(alone.axes) == 1
    plt.close(alone)
