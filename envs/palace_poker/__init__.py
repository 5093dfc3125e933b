"""Palace Poker: rules as Numba kernels (``kernels``, ``showdown``, constants in ``layout``),
the pyspiel game (``game``), what players see (``encoding``, the tensor kernel ``tensors``),
resampling (``resample``), random playouts (``rollout``, drawing from ``gamut.envs.rng``)
and the batched environment (``vector``)."""

from gamut.envs.declaration import GameDeclaration

GAME = GameDeclaration(
    name="palace_poker",
    version=2,
    variants=("palace_poker()", "palace_poker(players=4)", "palace_poker(betting=no_limit,players=6)"),
    game="gamut.envs.palace_poker.game",
    vector="gamut.envs.palace_poker.vector:PalacePokerVector",
    agents=("gamut.solvers.palace_poker.agents",),
    view="gamut.experiments.palace_view:VIEW",
    commands=("gamut.experiments.commands.palace",),
    benchmarks={"palace_poker": "gamut.benchmarks.palace_poker"},
    bench_variant="palace_poker(players=4)",
    bench_steps_per_s=200_000,
    play_baselines={"palace_poker": "heuristic", "palace_poker(players=4)": "heuristic"},
    heuristic="gamut.solvers.palace_poker.batched_heuristic:batched_heuristic",
    paired_match="gamut.solvers.palace_poker.match:PAIRED_DEALS",
    action_features="gamut.envs.palace_poker.action_features:action_features",
)
