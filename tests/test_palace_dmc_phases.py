"""The Palace Poker phase-split study: each hybrid hands the named decisions to the heuristic."""

from pathlib import Path

import numpy as np
import pytest

from gamut.envs.loading import load_game
from gamut.envs.palace_poker import layout as L
from gamut.experiments.studies.palace_dmc_phases import MODES, PhaseHybrid, main
from gamut.solvers.bots import make_bot
from tests.chance import states_along_random_games

GAME = load_game("palace_poker(players=4)")
WEIGHTS = str(Path(__file__).resolve().parent.parent / "results" / "rl" / "dmc_palace_poker_4.npz")


def _decision(state) -> bool:
    return not state.is_chance_node() and len(state.legal_actions()) > 1


@pytest.mark.parametrize("mode", ["turn", "battle", "discard"])
def test_a_phase_mode_plays_the_heuristic_there_and_the_network_elsewhere(mode):
    phase = {"turn": L.PH_TURN, "battle": L.PH_BATTLE, "discard": L.PH_DISCARD}[mode]
    seen = set()
    for state in states_along_random_games(GAME, 60, 3, _decision):
        player = state.current_player()
        hybrid = PhaseHybrid(GAME, mode, WEIGHTS, player, 5)
        expected = make_bot(GAME, "heuristic" if int(state.state[L.S_PHASE]) == phase else "dmc", player, 5,
                            **({} if int(state.state[L.S_PHASE]) == phase else {"weights": WEIGHTS}))
        assert hybrid.step(state) == expected.step(state)
        seen.add(int(state.state[L.S_PHASE]) == phase)
    assert seen == {True, False}


def test_every_mode_plays_legal_moves_and_the_command_prints_a_record(capsys):
    for mode in MODES:
        for state in states_along_random_games(GAME, 20, 4, _decision):
            player = state.current_player()
            assert PhaseHybrid(GAME, mode, WEIGHTS, player, 1).step(state) in state.legal_actions(player)
    assert main(["network", "--weights", WEIGHTS, "--deals", "2", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert '"mode": "network"' in out and '"n": 2' in out and np.isfinite(float(out.split('"mean": ')[1].split(",")[0]))


def test_an_unknown_mode_is_refused():
    with pytest.raises(ValueError, match="unknown mode 'bluff'"):
        PhaseHybrid(GAME, "bluff", WEIGHTS, 0, 0)
