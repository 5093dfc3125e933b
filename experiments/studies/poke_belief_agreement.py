"""How often each draw model of Poke's belief pools discards as many cards as ``ismcts`` did, on its true hands.

    python -m gamut.experiments.studies.poke_belief_agreement --deals 150 --iterations 300 --seed 7 \\
        --weights results/nn_ismcts/networks/dmc_poke_deal_tv34.npz --pool-sizes 32,128 \\
        --kept-sizes 64,128 --out results/nn_ismcts/belief_agreement.json

``ismcts`` plays both seats of ``--deals`` one-deal games of
``poke(mode=deal,trick_value=34.0)`` (``--iterations`` a decision, seeded by
the deal index) up to the first trick. At each of its draw decisions, each
model of ``gamut.solvers.poke.beliefs`` (the threshold heuristic; the
network ``--weights``) is asked how many cards it would discard with the
drawer's true hand; the report is the share of decisions where the count is
the one ``ismcts`` chose, with its 95% interval (``proportion_ci``). A belief pool keeps the
determinizations under which the model explains the opponent's draws, so a
model that agrees with the opponent rarely keeps hands the opponent does
not hold.

With ``--pool-sizes``, the wall seconds a belief pool of each size (``4 *
size`` tries at most) takes for each model are also timed, once per deal,
at the first trick decision (the opponent's draws all made); the report
gives their mean and median.

With ``--kept-sizes``, a pool of each size kept along the deal
(``KeptBeliefs``, the network model, ``nn_ismcts`` option ``belief_keep``)
is built at that decision, and ``ismcts`` then plays the deal out; at each
later decision of the same player the kept pool is asked again. The report
gives the seconds of the first call and of the later ones, and the share of
each later pool carried from the one before (its states whose opponent was
dealt the cards of a state of the previous pool; a fresh state all but
never matches).
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from gamut.experiments.studies.agreement import (agreement, agreement_parser, checked_args, uniform_chance,
                                                write_report)

GAME = "poke(mode=deal,trick_value=34.0)"


def _kept_pool_costs(state, bots, player, rng, kept, out) -> None:
    """Ask ``kept`` at ``player``'s decisions from ``state`` (the first trick) on; ``bots`` play the deal out."""
    import time

    from gamut.envs.poke import kernels as K
    from gamut.solvers.poke.heuristic import DEFAULT_PARAMS
    from gamut.solvers.poke.search import DealState

    params = np.array(DEFAULT_PARAMS, dtype=np.int64)
    previous = None
    while not state.is_terminal():
        mover = state.current_player()
        if mover == player:
            start = time.perf_counter()
            pool = kept.pool(DealState.of(state, 1 - player, params), player, rng)
            out["first" if previous is None else "later"].append(time.perf_counter() - start)
            if previous is not None and pool:
                dealt = {int(s.state[K.S_DEALT + 1 - player]) for s in previous}
                out["carried"].append(sum(int(s.state[K.S_DEALT + 1 - player]) in dealt for s in pool) / len(pool))
            previous = pool
        state.apply_action(bots[mover].step(state))


def measure(deals: int, iterations: int, seed: int, weights: str, pool_sizes: tuple[int, ...] = (),
            kept_sizes: tuple[int, ...] = ()) -> dict:
    """The agreement of each draw model with ``ismcts``'s draws, and the time of its pools (module docstring)."""
    import time

    import gamut.envs  # noqa: F401  (registers the games)
    from gamut.envs.loading import load_game
    from gamut.envs.poke import kernels as K
    from gamut.solvers.bots import make_bot
    from gamut.solvers.poke.beliefs import HeuristicDraws, KeptBeliefs, NetworkDraws, belief_pool
    from gamut.solvers.poke.heuristic import DEFAULT_PARAMS
    from gamut.solvers.poke.nn_search import BELIEF_TRIES, deal_prior
    from gamut.solvers.poke.search import DealState

    game = load_game(GAME)
    models = {"heuristic": HeuristicDraws(game.cfg, np.array(DEFAULT_PARAMS, dtype=np.int64)),
              "network": NetworkDraws(game.cfg, deal_prior(game, weights))}
    agree: dict[str, list[bool]] = {name: [] for name in models}
    seconds: dict[str, list[float]] = {f"{name}_{size}": [] for name in models for size in pool_sizes}
    kept_costs = {size: {"first": [], "later": [], "carried": []} for size in kept_sizes}
    for deal in range(deals):
        rng = np.random.default_rng([seed, deal])
        def ismcts_bots():
            return [make_bot(game, "ismcts", p, seed * 1_000_003 + 2 * deal + p, iterations=iterations)
                    for p in (0, 1)]

        bots = ismcts_bots()
        state = game.new_initial_state()
        while not state.is_terminal() and state.state[K.S_PHASE] != K.PH_TRICK:
            if uniform_chance(state, rng):
                continue
            player = state.current_player()
            action = bots[player].step(state)
            if state.state[K.S_PHASE] == K.PH_DRAW:
                for name, model in models.items():
                    agree[name].append(model.discards(state.state, player) == K.popcount(action))
            state.apply_action(action)
        if pool_sizes and not state.is_terminal():
            player = state.current_player()
            root = DealState.of(state, 1 - player, np.array(DEFAULT_PARAMS, dtype=np.int64))
            for name, model in models.items():
                for size in pool_sizes:
                    start = time.perf_counter()
                    belief_pool(root, player, rng, size, BELIEF_TRIES * size, model)
                    seconds[f"{name}_{size}"].append(time.perf_counter() - start)
        if kept_sizes and not state.is_terminal():
            player = state.current_player()
            for size in kept_sizes:
                kept = KeptBeliefs(size, BELIEF_TRIES * size, models["network"])
                _kept_pool_costs(state.clone(), ismcts_bots(), player, np.random.default_rng([seed, deal, size]), kept,
                                 kept_costs[size])
    out = {"game": GAME, "deals": deals, "iterations": iterations, "seed": seed, "weights": weights,
           "draw_decisions": len(agree["heuristic"])}
    for name, values in agree.items():
        out[name] = agreement(values)
    out["pool_seconds"] = {key: {"mean": float(np.mean(v)), "median": float(np.median(v)), "n": len(v)}
                           for key, v in seconds.items() if v}
    if kept_sizes:
        out["kept_pools"] = {str(size): {key: {"mean": float(np.mean(v)), "median": float(np.median(v)), "n": len(v)}
                                         for key, v in costs.items() if v}
                             for size, costs in kept_costs.items()}
    return out


def _sizes(parser: argparse.ArgumentParser, flag: str, text: str) -> tuple[int, ...]:
    """The whole numbers >= 1 of a comma-separated flag, or a usage error naming it."""
    try:
        sizes = tuple(int(word) for word in text.split(",") if word.strip())
    except ValueError:
        parser.error(f"{flag} takes whole numbers separated by commas, got {text!r}")
    if any(size < 1 for size in sizes):
        parser.error(f"{flag} must all be >= 1, got {text!r}")
    return sizes


def main(argv: list[str] | None = None) -> int:
    parser = agreement_parser(__doc__.split("\n\n")[0], 150, "results/nn_ismcts/networks/dmc_poke_deal_tv34.npz",
                              "network of the network model")
    parser.add_argument("--pool-sizes", default="", help="belief pool sizes to time, comma-separated (e.g. 32,128)")
    parser.add_argument("--kept-sizes", default="",
                        help="sizes of pools kept along the deal to time, comma-separated (e.g. 64,128)")
    args = checked_args(parser, argv)
    sizes, kept = (_sizes(parser, flag, text) for flag, text in (("--pool-sizes", args.pool_sizes),
                                                                  ("--kept-sizes", args.kept_sizes)))
    write_report(args.out, "gamut.experiments.studies.poke_belief_agreement", sys.argv[1:] if argv is None else argv,
                 measure(args.deals, args.iterations, args.seed, args.weights, sizes, kept),
                 ("draw_decisions", "heuristic", "network", "pool_seconds", "kept_pools"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
