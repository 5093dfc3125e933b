"""Poker dice: scorecard variants as data, scoring and turn kernels, the observation
encoder, the pyspiel game and its batched environment."""

from gamut.envs.declaration import GameDeclaration

GAME = GameDeclaration(
    name="poker_dice",
    version=2,
    variants=("poker_dice(variant=classic,players=2)", "poker_dice(variant=classic_banked,players=2)",
              "poker_dice(variant=yacht12,players=1)", "poker_dice(variant=yahtzee,players=1)",
              "poker_dice(variant=ranking,players=3)"),
    game="gamut.envs.poker_dice.game",
    vector="gamut.envs.poker_dice.vector:PokerDiceVector",
    # Scores are scaled by their largest magnitude; the classic boxes score below 0, so entries reach -1.
    observation_bounds=(-1.0, 1.0),
    agents=("gamut.solvers.poker_dice.agents",),
    view="gamut.experiments.dice_view:VIEW",
    commands=("gamut.experiments.commands.dice",),
    benchmarks={"dice": "gamut.benchmarks.dice"},
    bench_variant="poker_dice(variant=yacht12,players=1)",
    bench_steps_per_s=2_000_000,
    play_baselines={"poker_dice(variant=yacht12,players=2)": "optimal", "poker_dice(variant=ranking,players=2)": "mcts"},
    running_score="gamut.envs.poker_dice.vector:running_score",
)
