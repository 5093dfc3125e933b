"""Palace Poker: where a ``dmc`` network gains or loses against the heuristic, split by decision kind.

    python -m gamut.experiments.studies.palace_dmc_phases --weights results/rl/dmc_palace_poker_4.npz \\
        --deals 500 --seed 2 network turn battle discard attack buy

Each MODE seats a hybrid in every seat of one side of ``paired_returns``
against ``heuristic`` (``--deals`` hands x every seat rotation, paired): it
plays the ``dmc`` agent's move (``--weights``) except where the mode hands a
decision to the heuristic:

- ``network``: never (the network alone);
- ``turn``, ``battle``, ``discard``: while the kernel state's phase is
  ``PH_TURN``, ``PH_BATTLE`` or ``PH_DISCARD`` (``gamut.envs.palace_poker.layout``);
- ``attack``: at a turn, the heuristic's bet when it bets, else the
  network's best move other than a bet;
- ``buy``: at a turn, the network's bet when its best move is one, else the
  move of a heuristic that never attacks on its own (``attack=2``,
  ``forced=2``) among buy, stay and fold.

Prints one JSON line a mode: the mean chips a hand of the hybrid minus the
heuristic's with its 95% CI, n and CPU seconds.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np
import pyspiel

MODES = ("network", "turn", "battle", "discard", "attack", "buy")
GAME_STRING = "palace_poker(players=4)"


class PhaseHybrid(pyspiel.Bot):
    """The ``dmc`` agent with the decisions of ``mode`` (module docstring) taken by the heuristic."""

    def __init__(self, game, mode: str, weights: str, player: int, seed: int):
        from gamut.solvers.bots import make_bot

        pyspiel.Bot.__init__(self)
        if mode not in MODES:
            raise ValueError(f"unknown mode {mode!r}; choose from {', '.join(MODES)}")
        self._mode, self._player = mode, player
        self._network = make_bot(game, "dmc", player, seed, weights=weights)
        self._heuristic = make_bot(game, "heuristic", player, seed)
        self._no_attack = make_bot(game, "heuristic", player, seed + 7, attack=2.0, forced=2.0)
        self._bet_base = int(game.cfg[_layout().C_BET_BASE])

    def restart_at(self, state) -> None:
        """Nothing to reset: both agents read the whole state at every move."""

    def player_id(self) -> int:
        return self._player

    def step(self, state) -> int:
        L = _layout()
        phase = int(state.state[L.S_PHASE])
        handed = {"turn": L.PH_TURN, "battle": L.PH_BATTLE, "discard": L.PH_DISCARD}.get(self._mode)
        if phase == handed:
            return int(self._heuristic.step(state))
        if phase != L.PH_TURN or self._mode not in ("attack", "buy"):
            return int(self._network.step(state))
        legal, q = self._network.q_values(state)
        legal = np.asarray(legal)
        bets = legal >= self._bet_base
        if self._mode == "attack":
            move = int(self._heuristic.step(state))
            if move >= self._bet_base:
                return move
            rest = legal[~bets] if (~bets).any() else legal
            return int(rest[np.argmax(q[rest])])
        best = int(legal[np.argmax(q[legal])])
        return best if best >= self._bet_base else int(self._no_attack.step(state))


def _layout():
    from gamut.envs.palace_poker import layout

    return layout


def phase_split(weights: str, modes, deals: int, seed: int, game_string: str = GAME_STRING) -> list[dict]:
    """One record a mode: the hybrid minus ``heuristic``, paired and seat-rotated over ``deals`` hands."""
    from gamut.envs.loading import load_game
    from gamut.solvers.bots import make_bot
    from gamut.solvers.rl.evaluation import paired_returns
    from gamut.solvers.stats import mean_ci

    game = load_game(game_string)
    records = []
    for mode in modes:
        started = time.process_time()
        returns = paired_returns(game, lambda p, s, m=mode: PhaseHybrid(game, m, weights, p, s),
                                 lambda p, s: make_bot(game, "heuristic", p, s), deals, seed)
        estimate = mean_ci(returns)
        records.append({"game": game_string, "weights": weights, "mode": mode, "deals": deals, "seed": seed,
                        "mean": estimate.value, "ci95_low": estimate.ci95_low, "ci95_high": estimate.ci95_high,
                        "n": estimate.n, "cpu_seconds": round(time.process_time() - started, 1)})
    return records


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gamut.experiments.studies.palace_dmc_phases",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("modes", nargs="+", choices=MODES, metavar="MODE", help=f"one of {', '.join(MODES)}")
    parser.add_argument("--weights", required=True, help="dmc weights file of the game")
    parser.add_argument("--deals", type=int, default=500, help="hands, each played in every seat rotation")
    parser.add_argument("--seed", type=int, default=2)
    parser.add_argument("--game", default=GAME_STRING, help="Palace Poker game string (default: %(default)s)")
    args = parser.parse_args(argv)
    if args.deals < 1:
        parser.error(f"--deals must be >= 1, got {args.deals}")
    for record in phase_split(args.weights, args.modes, args.deals, args.seed, args.game):
        print(json.dumps(record), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
