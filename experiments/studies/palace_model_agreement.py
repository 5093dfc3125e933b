"""How often each model of the other seats in Palace Poker's search makes the move ``ismcts`` made, and at what cost.

    python -m gamut.experiments.studies.palace_model_agreement --deals 100 --iterations 300 --seed 7 \\
        --weights results/rl/dmc_palace_poker_4.npz --out results/nn_ismcts/palace_model_agreement.json

``ismcts`` (``--iterations`` a decision, one seed per seat and deal) plays
every seat of ``--deals`` hands of ``palace_poker(players=4)``. At each of
its decisions, with the mover's true cards, each model is asked its move:

- ``heuristic``: the threshold heuristic with the search's own settings
  (``search.DEFAULT_ROLLOUT_SAMPLES`` palace draws an equity), the model
  that plays the other seats in the search's tree and decides which hidden
  palaces explain their moves (``search.ModelledState``);
- ``network``: the legal move of highest Q-value of the ``dmc`` network
  ``--weights`` (``nn_search.palace_prior``'s scores).

The report gives each model's share of decisions where its move is the one
``ismcts`` made, with its 95% interval (``proportion_ci``), overall and by
phase (a turn, a battle, a discard), and the mean wall seconds of one call
(the network's includes its action features and forward pass). In a match
the other seats are searchers, not the heuristic; a model that agrees with
them more often would keep better determinizations and play their seats
in the tree more as they play, at the price of its calls.
"""

from __future__ import annotations

import sys
import time

import numpy as np

from gamut.experiments.studies.agreement import (agreement, agreement_parser, checked_args, uniform_chance,
                                                write_report)

GAME = "palace_poker(players=4)"
PHASES = ("turn", "battle", "discard")


def measure(deals: int, iterations: int, seed: int, weights: str) -> dict:
    """The agreement of each model with ``ismcts``'s moves, and the cost of a call (module docstring)."""
    import gamut.envs  # noqa: F401  (registers the games)
    from gamut.envs.hands import HAND_TABLE
    from gamut.envs.loading import load_game
    from gamut.envs.palace_poker import kernels as K
    from gamut.envs.palace_poker import layout as L
    from gamut.envs.rng import rng_state
    from gamut.solvers.bots import make_bot
    from gamut.solvers.palace_poker.heuristic import WORK_SIZE, heuristic_action, make_params
    from gamut.solvers.palace_poker.nn_search import palace_prior
    from gamut.solvers.palace_poker.search import DEFAULT_ROLLOUT_SAMPLES

    game = load_game(GAME)
    cfg = game.cfg
    params = make_params(samples=DEFAULT_ROLLOUT_SAMPLES)
    network = palace_prior(game, weights)
    legal_buf = np.empty(int(cfg[L.C_NUM_ACTIONS]), dtype=np.int64)
    work = np.empty(WORK_SIZE, dtype=np.int64)
    phase_names = {L.PH_TURN: "turn", L.PH_BATTLE: "battle", L.PH_DISCARD: "discard"}
    agree = {name: {phase: [] for phase in PHASES} for name in ("heuristic", "network")}
    seconds: dict[str, list[float]] = {"heuristic": [], "network": []}
    for deal in range(deals):
        rng = np.random.default_rng([seed, deal])
        model_rng = rng_state(seed * 1_000_003 + deal)
        bots = [make_bot(game, "ismcts", p, seed * 1_000_003 + 4 * deal + p, iterations=iterations)
                for p in range(game.num_players())]
        state = game.new_initial_state()
        while not state.is_terminal():
            if uniform_chance(state, rng):
                continue
            player = state.current_player()
            action = bots[player].step(state)
            phase = phase_names.get(int(state.state[L.S_PHASE]))
            if phase is not None:
                array = state.state.copy()
                start = time.perf_counter()
                guess = heuristic_action(array, cfg, params, model_rng, HAND_TABLE, legal_buf, work)
                seconds["heuristic"].append(time.perf_counter() - start)
                agree["heuristic"][phase].append(int(guess) == action)
                n = K.legal_actions(array, cfg, legal_buf)
                legal = [int(a) for a in legal_buf[:n]]
                start = time.perf_counter()
                scores = network.scores(state, player, legal)
                seconds["network"].append(time.perf_counter() - start)
                agree["network"][phase].append(legal[int(np.argmax(scores))] == action)
            state.apply_action(action)
    out = {"game": GAME, "deals": deals, "iterations": iterations, "seed": seed, "weights": weights,
           "decisions": {phase: len(agree["heuristic"][phase]) for phase in PHASES}}
    for name, by_phase in agree.items():
        every = [hit for phase in PHASES for hit in by_phase[phase]]
        rows = {"all": every, **{phase: by_phase[phase] for phase in PHASES if by_phase[phase]}}
        out[name] = {key: agreement(hits) for key, hits in rows.items()}
        out[name]["seconds_per_call"] = float(np.mean(seconds[name]))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = agreement_parser(__doc__.split("\n\n")[0], 100, "results/rl/dmc_palace_poker_4.npz",
                              "dmc network of the network model")
    args = checked_args(parser, argv)
    write_report(args.out, "gamut.experiments.studies.palace_model_agreement",
                 sys.argv[1:] if argv is None else argv,
                 measure(args.deals, args.iterations, args.seed, args.weights), ("decisions", "heuristic", "network"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
