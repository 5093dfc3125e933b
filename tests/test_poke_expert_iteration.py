"""Expert iteration for Poke's nn_ismcts: the search's root values as targets, the fit, the file, the command."""

from __future__ import annotations

import json

import numpy as np
import pytest

import gamut.envs  # noqa: F401  (registers the games)
from gamut.envs.loading import load_game
from gamut.solvers.poke.expert_iteration import (SearchTargets, fit_to_targets, save_fitted, search_targets,
                                                 weighted_loss)
from gamut.solvers.rl.checkpoint import load_weights

WEIGHTS = "results/nn_ismcts/networks/dmc_poke_deal_tv34.npz"
GAME = "poke(mode=deal,trick_value=34.0)"
ITERATIONS = 30


@pytest.fixture(scope="module")
def three_deals() -> SearchTargets:
    return search_targets(GAME, WEIGHTS, 0, 3, ITERATIONS, seed=5)


def _same(a: SearchTargets, b: SearchTargets) -> bool:
    return all(np.array_equal(x, y) for x, y in zip(a.arrays().values(), b.arrays().values()))


def test_targets_are_the_searchs_root_values_with_every_iteration_counted(three_deals):
    data = three_deals
    assert len(data.x) > 10 and set(data.deals.tolist()) == {0, 1, 2}
    assert data.x.shape[1] + data.feats.shape[1] == load_weights(WEIGHTS)[0]["q/w0"].shape[0]
    # Each decision's candidates share out the search's iterations; unvisited ones are left out.
    assert np.array_equal(np.bincount(data.rows, weights=data.visits), np.full(len(data.x), ITERATIONS))
    assert (data.visits > 0).all() and np.isfinite(data.target).all()
    # A one-deal margin is at most a few hundred points: in network units (value_scale 193) a few at most.
    assert np.abs(data.target).max() < 5


def test_targets_are_seeded_by_deal_so_chunks_do_not_matter(three_deals):
    again = search_targets(GAME, WEIGHTS, 0, 3, ITERATIONS, seed=5)
    assert _same(three_deals, again)
    split = SearchTargets.concatenate([search_targets(GAME, WEIGHTS, 0, 1, ITERATIONS, seed=5),
                                       search_targets(GAME, WEIGHTS, 1, 2, ITERATIONS, seed=5)])
    assert _same(three_deals, split)
    assert not _same(three_deals, search_targets(GAME, WEIGHTS, 0, 3, ITERATIONS, seed=6))


def test_where_keeps_the_chosen_decisions_with_their_pairs(three_deals):
    keep = three_deals.deals != 1
    part = three_deals.where(keep)
    assert len(part.x) == keep.sum() and np.array_equal(part.x, three_deals.x[keep])
    assert np.array_equal(part.target, three_deals.target[keep[three_deals.rows]])
    # Each pair still points at its own decision's input.
    assert np.array_equal(part.x[part.rows], three_deals.x[three_deals.rows][keep[three_deals.rows]])


def test_bad_inputs_are_refused():
    with pytest.raises(ValueError, match="one-deal Poke"):
        search_targets("poke(mode=rubber)", WEIGHTS, 0, 1, ITERATIONS, seed=0)
    with pytest.raises(ValueError, match="range of indices"):
        search_targets(GAME, WEIGHTS, 0, -1, ITERATIONS, seed=0)
    with pytest.raises(ValueError, match="trick_value must agree"):
        search_targets("poke(mode=deal)", WEIGHTS, 0, 1, ITERATIONS, seed=0)
    with pytest.raises(ValueError, match="Q-network over action features"):
        search_targets("poke(mode=deal)", "results/rl/ppo_poke_deal.npz", 0, 1, ITERATIONS, seed=0)


def test_the_fit_lowers_the_loss_keeps_the_best_held_out_epoch_and_changes_nothing_at_zero(three_deals):
    params, _ = load_weights(WEIGHTS)
    train, held_out = three_deals.where(three_deals.deals < 2), three_deals.where(three_deals.deals == 2)
    same, curve = fit_to_targets(params, train, held_out, 0, 1e-3, 64, seed=0)
    assert all(np.array_equal(same[k], params[k]) for k in params) and len(curve) == 1
    fitted, curve = fit_to_targets(params, train, held_out, 4, 1e-4, 16, seed=0)
    assert [row["epoch"] for row in curve] == [0, 1, 2, 3, 4]
    assert curve[-1]["train_loss"] < curve[0]["train_loss"]
    best = min(curve, key=lambda row: row["held_out_loss"])
    assert weighted_loss(fitted, held_out) == pytest.approx(best["held_out_loss"], rel=1e-5)
    assert weighted_loss(fitted, train) == pytest.approx(best["train_loss"], rel=1e-5)
    with pytest.raises(ValueError, match="learning_rate > 0"):
        fit_to_targets(params, train, held_out, 1, 0.0, 64, seed=0)


def test_the_fitted_file_is_an_nn_ismcts_network(three_deals, tmp_path):
    from gamut.solvers.bots import make_bot

    params, _ = load_weights(WEIGHTS)
    fitted, curve = fit_to_targets(params, three_deals, three_deals.where(three_deals.deals > 9), 1, 1e-3, 64, 0)
    path = tmp_path / "exit.npz"
    save_fitted(path, WEIGHTS, fitted, {"curve": curve})
    loaded, header = load_weights(path, GAME, algorithm="dmc")
    assert header["heuristic_share"] == 0.0 and header["expert_iteration"]["source_weights"] == WEIGHTS
    assert all(np.array_equal(loaded[k], fitted[k]) for k in fitted)
    game = load_game(GAME)
    state = game.new_initial_state()
    rng = np.random.default_rng(0)
    while state.is_chance_node():
        outcomes = state.chance_outcomes()
        state.apply_action(outcomes[int(rng.integers(len(outcomes)))][0])
    bot = make_bot(game, "nn_ismcts", state.current_player(), 0, weights=str(path), iterations=20, value_weight=0.5)
    assert bot.step(state) in state.legal_actions()


@pytest.mark.slow
def test_the_command_writes_chunks_resumes_and_refuses_other_settings(tmp_path, capsys):
    from gamut.experiments.studies.poke_expert_iteration import load_data, main

    out = tmp_path / "data"
    args = ["data", "--weights", WEIGHTS, "--deals", "2", "--chunk", "1", "--iterations", str(ITERATIONS),
            "--seed", "5", "--out", str(out)]
    main(args)
    assert sorted(p.name for p in out.glob("chunk_*.npz")) == ["chunk_0000000.npz", "chunk_0000001.npz"]
    assert json.loads((out / "settings.json").read_text())["iterations"] == ITERATIONS
    main(args)
    assert "2 of 2 chunks already written; playing 0" in capsys.readouterr().out
    assert _same(load_data(out), search_targets(GAME, WEIGHTS, 0, 2, ITERATIONS, seed=5))
    with pytest.raises(SystemExit, match="other settings"):
        main([("6" if previous == "--seed" else item) for previous, item in zip(["", *args], args)])
    with pytest.raises(SystemExit):
        main(["data", "--weights", WEIGHTS, "--deals", "0", "--out", str(out)])
    assert "--deals must be >= 1" in capsys.readouterr().err
    fitted = tmp_path / "exit.npz"
    main(["fit", "--weights", WEIGHTS, "--data", str(out), "--epochs", "1", "--held-out", "0.5", "--out",
          str(fitted)])
    record = json.loads(fitted.with_suffix(".json").read_text())
    assert record["train_deals"] == 1 and record["held_out_deals"] == 1 and len(record["curve"]) == 2
    # A share too small to hold out a whole deal holds out none, and every deal is trained on.
    main(["fit", "--weights", WEIGHTS, "--data", str(out), "--epochs", "1", "--held-out", "0.1", "--out",
          str(fitted)])
    record = json.loads(fitted.with_suffix(".json").read_text())
    assert record["train_deals"] == 2 and record["held_out_deals"] == 0
    assert [row["held_out_loss"] for row in record["curve"]] == [None, None]
    with pytest.raises(SystemExit, match="no chunk_"):
        main(["fit", "--weights", WEIGHTS, "--data", str(tmp_path / "nothing"), "--out", str(fitted)])
