"""Poker Squares: rules as Numba kernels (``kernels``) and the pyspiel game (``game``)."""

from gamut.envs.declaration import GameDeclaration

GAME = GameDeclaration(
    name="poker_squares",
    version=1,
    variants=("poker_squares()", "poker_squares(scoring=english)", "poker_squares(variant=open)",
              "poker_squares(players=2)", "poker_squares(players=2,two_player_return=difference,variant=open)"),
    game="gamut.envs.poker_squares.game",
    vector="gamut.envs.poker_squares.vector:PokerSquaresVector",
    agents=("gamut.solvers.poker_squares.agents",),
    view="gamut.experiments.squares_view:VIEW",
    commands=("gamut.experiments.commands.squares",),
    benchmarks={"poker_squares": "gamut.benchmarks.poker_squares"},
    bench_variant="poker_squares",
    bench_steps_per_s=1_000_000,
    play_baselines={"poker_squares": "expectimax"},
    running_score="gamut.envs.poker_squares.vector:running_score",
    action_features="gamut.envs.poker_squares.action_features:action_features",
)
