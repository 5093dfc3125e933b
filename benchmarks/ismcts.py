"""ISMCTS iterations per second: ours vs OpenSpiel's Python ``ismcts.ISMCTSBot`` on the same positions.

Both search the same decision positions (reached by seeded random play, each
with at least two legal actions) for the same number of iterations, with
random play-outs through the pyspiel API (ours: ``evaluator="api"``; theirs:
``RandomRolloutEvaluator(n_rollouts=1)``), one determinization per iteration
and a fresh tree per search. Each side is warmed up first; the rate of a
repeat is total iterations over total time across the positions, and medians
over repeats are reported. With ``--kernel`` ours also runs with the game's
``rollout_returns`` fast path when its states have one.
"""

from __future__ import annotations

import statistics
import time

from gamut.experiments.validate import load_game_flag

DESCRIPTION = "ISMCTS on leduc_poker: ours vs OpenSpiel's Python ISMCTSBot (iterations/s, same positions)"


def add_arguments(parser) -> None:
    parser.add_argument("--game", default="leduc_poker", help="pyspiel game string (default: %(default)s)")
    parser.add_argument("--iterations", type=int, default=2000,
                        help="iterations per search (default: %(default)s)")
    parser.add_argument("--positions", type=int, default=5,
                        help="decision positions searched per repeat (default: %(default)s)")
    parser.add_argument("--repeats", type=int, default=3,
                        help="timed repeats; medians are reported (default: %(default)s)")
    parser.add_argument("--uct-c", type=float, default=1.0,
                        help="exploration constant given to both searches (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=0,
                        help="seed of the positions and searches (default: %(default)s)")


def decision_positions(game, count: int, seed: int) -> list:
    """``count`` decision states with >= 2 legal actions, reached by seeded uniform random play."""
    import numpy as np

    rng = np.random.default_rng(seed)
    positions = []
    attempts = 0
    while len(positions) < count:
        attempts += 1
        if attempts > 100 * count:
            raise ValueError(f"{game} rarely reaches a decision with two legal actions; cannot benchmark it")
        state = game.new_initial_state()
        # Stop after a random number of decisions, so positions come from every stage of the game.
        stop = int(rng.integers(0, 8))
        decisions = 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes())
                state.apply_action(int(rng.choice(outcomes, p=probs)))
                continue
            legal = state.legal_actions()
            if len(legal) >= 2 and decisions >= stop:
                positions.append(state)
                break
            state.apply_action(int(rng.choice(legal)))
            decisions += 1
    return positions


def _rate(search_one, positions, iterations: int) -> float:
    start = time.perf_counter()
    for state in positions:
        search_one(state)
    return iterations * len(positions) / (time.perf_counter() - start)


def run(args) -> dict:
    import numpy as np
    import pyspiel
    from open_spiel.python.algorithms import ismcts as openspiel_ismcts
    from open_spiel.python.algorithms import mcts as openspiel_mcts

    import gamut.envs  # noqa: F401  (registers the toolkit's games)
    from gamut.solvers.ismcts import ISMCTS

    if args.iterations < 1 or args.positions < 1 or args.repeats < 1 or args.uct_c < 0:
        raise ValueError("--iterations, --positions and --repeats must be >= 1 and --uct-c >= 0")
    game = load_game_flag(args.game, "--game")
    if game.get_type().information != pyspiel.GameType.Information.IMPERFECT_INFORMATION:
        raise ValueError(
            f"OpenSpiel's ISMCTSBot only searches imperfect-information games; {args.game} is not one"
        )
    positions = decision_positions(game, args.positions, args.seed)
    ours_api = ISMCTS(game, uct_c=args.uct_c, evaluator="api")
    has_kernel = callable(getattr(game.new_initial_state(), "rollout_returns", None))
    ours_kernel = ISMCTS(game, uct_c=args.uct_c, evaluator="state") if has_kernel else None
    rng = np.random.default_rng(args.seed)

    def ours(search):
        return lambda state: search.search(state, rng, iterations=args.iterations)

    def theirs(state):
        random_state = np.random.RandomState(int(rng.integers(1 << 31)))
        evaluator = openspiel_mcts.RandomRolloutEvaluator(1, random_state)
        bot = openspiel_ismcts.ISMCTSBot(game, evaluator, args.uct_c, args.iterations,
                                         random_state=random_state)
        bot.run_search(state)

    contenders = {"ours": ours(ours_api), "openspiel_python": theirs}
    if ours_kernel is not None:
        contenders["ours_kernel"] = ours(ours_kernel)
    for search_one in contenders.values():  # warm-up: imports, kernel compilation, caches
        search_one(positions[0])
    rates = {name: [] for name in contenders}
    for _ in range(args.repeats):
        for name, search_one in contenders.items():
            rates[name].append(_rate(search_one, positions, args.iterations))
    ours_rate = statistics.median(rates["ours"])
    theirs_rate = statistics.median(rates["openspiel_python"])
    result = {
        "game": str(game),
        "iterations": args.iterations,
        "positions": args.positions,
        "repeats": args.repeats,
        "uct_c": args.uct_c,
        "ours_iterations_per_s": ours_rate,
        "openspiel_python_iterations_per_s": theirs_rate,
        "ratio": ours_rate / theirs_rate,
    }
    if ours_kernel is not None:
        kernel_rate = statistics.median(rates["ours_kernel"])
        result["ours_kernel_iterations_per_s"] = kernel_rate
        result["kernel_ratio"] = kernel_rate / theirs_rate
    return result
