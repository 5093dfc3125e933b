"""The exact Poker Squares endgame solver against brute-force expectimax, and the agents' ``endgame`` option."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest

import gamut.envs  # noqa: F401
from gamut.envs.cards import parse_card
from gamut.envs.hands import HAND_TABLE
from gamut.envs.poker_squares import kernels as K
from gamut.envs.poker_squares.game import POINT_SYSTEMS
from gamut.solvers.bots import make_bot
from gamut.solvers.poker_squares.endgame import (card_classes, clairvoyant_scores, endgame_move_values,
                                                 endgame_value, state_move_values)

SCORINGS = {**POINT_SYSTEMS, "negative": (-3, 1, -2, 4, 7, -5, 9, 11, 3, -8)}


def _score(grid, cfg) -> int:
    state = np.full(K.STATE_SIZE, -1, dtype=np.int64)
    state[:K.NUM_CELLS] = grid
    return int(K.grid_score(state, 0, cfg, HAND_TABLE))


def _brute(grid, unseen, cfg, known=()) -> float:
    """Expectimax over every order of the cards and every cell, no reduction: the obvious reference."""
    empty = [cell for cell in range(K.NUM_CELLS) if grid[cell] < 0]
    if not empty:
        return float(_score(grid, cfg))
    if known:
        outcomes, rest = [(known[0], list(unseen), known[1:])], None
    else:
        outcomes = [(card, [x for x in unseen if x != card], ()) for card in unseen]
    total = 0.0
    for card, rest, later in outcomes:
        best = -np.inf
        for cell in empty:
            grid[cell] = card
            best = max(best, _brute(grid, rest, cfg, later))
            grid[cell] = -1
        total += best
    return total / len(outcomes)


def _grid(rows: list[str]) -> np.ndarray:
    """A grid from five rows of five cards, ``..`` for an empty cell."""
    cards = [token for row in rows for token in row.split()]
    return np.array([-1 if token == ".." else parse_card(token) for token in cards], dtype=np.int64)


# Positions chosen to reach each reduction: flush draws (live suits), straights, cells sharing a line,
# three empty cells in one line, a line with two cards only, pairs and trips to fill.
POSITIONS = [
    _grid(["2c 5c 9c Kc ..", "3d 3h 7s .. Qd", "4h 8d Jc 9h 2s", "6s 6d Td Ts 4c", "Ah 7c 8s Kd Js"]),
    _grid(["9c Tc Jd Qh ..", "2h .. 2d 5s 7d", "3c 3s .. 8h Kd", "4d 4h 6c 6h Ah", "5c 8c 9s Ts As"]),
    _grid(["Ac Kc Qc .. ..", "2d 3d 4d 5d ..", "7h 7s 9h Th Jh", "8c 8d 6s 6h Qs", "Ks 3s 4c 5h 9d"]),
    _grid(["Qs .. .. .. 2h", "Qd Jc 3h 4s 5c", "Td 9d 8c 7c 6d", "Ad Kh 3c 4h 5s", "Ah Kd Js Tc 9s"]),
    _grid(["As 2s 3s 4s ..", "Ks Qs Js Ts ..", "Ac Ad 5h 6h 7h", "Kc Kd 8h 9h Jh", "2c 2d .. 3c 3d"]),
]
UNSEEN = ["Jd", "Qc", "5d", "6c", "9h", "2s", "Ah", "Kh", "Th", "4c", "7s", "3h", "8d"]


def _unseen(grid, names=UNSEEN, size=11) -> np.ndarray:
    cards = [parse_card(name) for name in names if parse_card(name) not in set(grid.tolist())]
    return np.array(cards[:size], dtype=np.int64)


@pytest.mark.parametrize("scoring", sorted(SCORINGS))
@pytest.mark.parametrize("index", range(len(POSITIONS)))
def test_chance_value_matches_brute_force(index, scoring):
    grid = POSITIONS[index]
    unseen = _unseen(grid)
    cfg = K.make_config(1, False, False, SCORINGS[scoring])
    assert endgame_value(grid, unseen, SCORINGS[scoring]) == pytest.approx(_brute(grid.copy(), list(unseen), cfg),
                                                                            abs=1e-9)


@pytest.mark.parametrize("scoring", ["american", "english"])
@pytest.mark.parametrize("index", range(len(POSITIONS)))
def test_move_values_match_brute_force(index, scoring):
    grid = POSITIONS[index]
    unseen = _unseen(grid)
    card, unseen = unseen[0], unseen[1:]
    cfg = K.make_config(1, False, False, POINT_SYSTEMS[scoring])
    cells, values = endgame_move_values(grid, card, unseen, POINT_SYSTEMS[scoring])
    assert cells.tolist() == np.flatnonzero(grid < 0).tolist()
    for cell, value in zip(cells, values):
        work = grid.copy()
        work[cell] = card
        assert value == pytest.approx(_brute(work, list(unseen), cfg), abs=1e-9)


def test_known_cards_are_placed_in_order():
    grid = POSITIONS[2]
    cfg = K.make_config(1, False, False, POINT_SYSTEMS["american"])
    unseen = _unseen(grid)
    known = [int(unseen[0]), int(unseen[1])]
    value = endgame_value(grid, unseen[2:], POINT_SYSTEMS["american"], known=known)
    assert value == pytest.approx(_brute(grid.copy(), list(unseen[2:]), cfg, tuple(known)), abs=1e-9)


def test_random_full_deck_positions_match_brute_force():
    # The whole rest of the deck unseen, as in play: three random positions per size up to 2 empty cells
    # and one with 3 (its brute force enumerates 29 * 3 * 28 * 2 * 27 orders).
    rng = np.random.default_rng(11)
    cfg = K.make_config(1, False, False, POINT_SYSTEMS["english"])
    for k in (1, 1, 1, 2, 2, 2, 3):
        perm = rng.permutation(52)
        grid = perm[:K.NUM_CELLS].copy()
        grid[rng.choice(K.NUM_CELLS, k, replace=False)] = -1
        unseen = np.sort(perm[K.NUM_CELLS:])
        assert endgame_value(grid, unseen, POINT_SYSTEMS["english"]) == pytest.approx(
            _brute(grid.copy(), list(unseen), cfg), abs=1e-9)


def test_card_classes_merge_only_dead_suits_of_one_rank():
    grid = POSITIONS[0]  # row 0 holds clubs alone: clubs may still make a flush
    unseen = np.array([parse_card(c) for c in ("Jd", "Jh", "Jc", "Qd", "Qs", "5h")], dtype=np.int64)
    open_lines = np.array(sorted({int(x) for cell in np.flatnonzero(grid < 0) for x in K.CELL_LINES[cell]}))
    out = np.empty(len(unseen), dtype=np.int64)
    num = card_classes(grid, unseen, open_lines, out)
    assert num == 4 and out[0] == out[1] and out[3] == out[4] and len({out[0], out[2], out[3], out[5]}) == 4
    empty_line = POSITIONS[3].copy()  # row 0 with three empty cells; emptying it entirely makes every suit live
    empty_line[0] = empty_line[4] = -1
    open_lines = np.array(sorted({int(x) for cell in np.flatnonzero(empty_line < 0) for x in K.CELL_LINES[cell]}))
    assert card_classes(empty_line, unseen, open_lines, out) == len(unseen)


def test_bad_input_is_refused():
    grid = POSITIONS[0]
    with pytest.raises(ValueError, match="1..8 empty cells"):
        endgame_value(np.arange(25), np.arange(25, 52), POINT_SYSTEMS["american"])
    with pytest.raises(ValueError, match="distinct"):
        endgame_value(grid, np.array([grid[0], 50]), POINT_SYSTEMS["american"])
    with pytest.raises(ValueError, match="need at least"):
        endgame_value(grid, np.array([], dtype=np.int64), POINT_SYSTEMS["american"])


def _position(game, empties: int, seed: int = 3):
    """A standard-deal state of ``game`` with ``empties`` empty cells and the card to place dealt (greedy play)."""
    state = game.new_initial_state()
    rng = np.random.default_rng(seed)
    bot = make_bot(game, "greedy", player=0, seed=seed)
    while True:
        if state.is_chance_node():
            outcomes = [a for a, _ in state.chance_outcomes()]
            state.apply_action(int(rng.choice(outcomes)))
        elif K.NUM_CELLS - state.state[K.S_NUM_PLACED] == empties:
            return state
        else:
            state.apply_action(bot.step(state))


@pytest.mark.parametrize("agent", ["expectimax", "mc"])
def test_endgame_option_plays_the_exact_best_move_only_from_k_empty_cells(agent):
    game = pyspiel.load_game("poker_squares")
    options = {"simulations": 3} if agent == "mc" else {}
    changed = False
    for seed in range(12):
        at_k = _position(game, 3, seed)
        cells, values = state_move_values(at_k.state, 0, game.cfg)
        exact = make_bot(game, agent, seed=1, endgame=3, **options)
        move = exact.step(at_k)
        assert values[list(cells).index(move)] == values.max()
        changed |= move != make_bot(game, agent, seed=1, **options).step(at_k)
        above = _position(game, 4, seed)
        assert (make_bot(game, agent, seed=1, endgame=3, **options).step(above)
                == make_bot(game, agent, seed=1, **options).step(above))
    assert changed  # on some of these positions the plain agent's move is not the exact best


def test_exact_values_are_the_hint_of_expectimax():
    game = pyspiel.load_game("poker_squares")
    state = _position(game, 2)
    bot = make_bot(game, "expectimax", seed=1, endgame=2)
    bot.step(state)
    cells, values = state_move_values(state.state, 0, game.cfg)
    assert bot.last_values == [(int(c), float(v)) for c, v in zip(cells, values)]


@pytest.mark.parametrize("bad", [-1, 9, 100])
def test_bad_endgame_is_refused_naming_the_allowed_values(bad):
    game = pyspiel.load_game("poker_squares")
    for agent in ("expectimax_cross", "mc_cross", "net_search"):
        with pytest.raises(ValueError, match=r"endgame takes 0 \(off\) or a number of empty cells 1\.\.8"):
            make_bot(game, agent, seed=0, endgame=bad)


def test_cli_solves_a_saved_position(tmp_path, capsys):
    import json

    from gamut.experiments.cli import main

    position = tmp_path / "position.txt"
    position.write_text("# three empty cells, the 9 of clubs to place\nAc Kc Qc .. ..\n2d 3d 4d 5d ..\n"
                        "7h 7s 9h Th Jh\n8c 8d 6s 6h Qs\nKs 3s 4c 5h 9d\nnext: 9c\n")
    assert main(["squares", "endgame", "--position", str(position), "--scoring", "english", "--json"]) == 0
    out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    grid = POSITIONS[2]
    unseen = np.array([c for c in range(52) if c not in set(grid.tolist()) | {parse_card("9c")}])
    cells, values = endgame_move_values(grid, parse_card("9c"), unseen, POINT_SYSTEMS["english"])
    assert out["value"] == pytest.approx(values.max())
    assert out["cell r0c3"] == pytest.approx(values[0]) and out["empty_cells"] == 3
    position.write_text("Ac Kc Qc .. ..\n2d 3d 4d 5d\n")
    assert main(["squares", "endgame", "--position", str(position)]) == 2
    assert "line 2" in capsys.readouterr().err


@pytest.mark.slow
def test_ground_truth_experiment_runs_its_quick_profile(tmp_path):
    import pandas as pd

    from gamut.experiments.runner import run_experiment

    run_experiment("poker_squares_endgame", profile="quick", results_root=tmp_path, workers=1, progress=False)
    folder = tmp_path / "quick" / "poker_squares_endgame"
    trials = pd.read_csv(folder / "trials.csv")
    assert len(trials) == 4 and (trials.filter(like="regret_") >= -1e-9).all().all()
    summary = pd.read_csv(folder / "summary.csv")
    assert {"regret", "error", "slack"} <= set(summary["quantity"])


def test_clairvoyant_scores_bound_the_exact_value_and_repeat_with_the_seed():
    grid = POSITIONS[1]
    unseen = _unseen(grid)
    card, unseen = unseen[0], unseen[1:]
    exact = endgame_move_values(grid, card, unseen, POINT_SYSTEMS["american"])[1].max()
    scores = clairvoyant_scores(grid, card, unseen, POINT_SYSTEMS["american"], 4000, seed=5)
    assert scores.mean() - 3 * scores.std() / np.sqrt(len(scores)) > exact
    assert (scores == clairvoyant_scores(grid, card, unseen, POINT_SYSTEMS["american"], 4000, seed=5)).all()
    # Each completion's best arrangement is at least the score of putting its cards in cell order.
    cells = np.flatnonzero(grid < 0)
    cfg = K.make_config(1, False, False, POINT_SYSTEMS["american"])
    one = clairvoyant_scores(grid, card, unseen[:len(cells) - 1], POINT_SYSTEMS["american"], 1, seed=0)[0]
    work = grid.copy()
    work[cells] = [card, *unseen[:len(cells) - 1]]
    assert one >= _score(work, cfg)


def test_ground_truth_refuses_agents_on_a_clock():
    from gamut.experiments.config import CONFIG_DIR, load_config
    from gamut.experiments.trials import poker_squares_endgame as T

    schema = {"seed": int, "trials": int, **T.PARAMS}
    params = dict(load_config(CONFIG_DIR / "poker_squares_endgame.toml", "quick", schema,
                              "poker_squares_endgame").params)
    T.validate(params)
    # mc_cross's own default is a clock budget (4.5 s a game): without the options it is refused too.
    for field, value in (("options", ["mc_cross.seconds_per_game=0.25"]), ("options", []),
                         ("sampler_options", ["mc_cross.simulations=72"])):
        with pytest.raises(ValueError, match="seconds_per_game"):
            T.validate({**params, field: value})
