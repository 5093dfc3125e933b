"""Poke (Sackson): rules as Numba kernels (``kernels``), the pyspiel game (``game``), what players see (``encoding``)."""

from gamut.envs.declaration import GameDeclaration

GAME = GameDeclaration(
    name="poke",
    version=2,
    variants=("poke()", "poke(hand_size=2,num_ranks=3,num_suits=2)", "poke(mode=game)", "poke(mode=rubber)",
              "poke(follow=free)"),
    game="gamut.envs.poke.game",
    vector="gamut.envs.poke.vector:PokeVector",
    agents=("gamut.solvers.poke.agents",),
    view="gamut.experiments.poke_view:VIEW",
    commands=("gamut.experiments.commands.poke",),
    benchmarks={"poke": "gamut.benchmarks.poke", "poke_mccfr": "gamut.benchmarks.poke_mccfr"},
    bench_variant="poke",
    bench_steps_per_s=500_000,
    play_baselines={"poke": "heuristic", "poke(mode=rubber)": "heuristic"},
    replots={"poke_matches": "gamut.experiments.poke_matches:replot_poke_matches"},
    heuristic="gamut.solvers.poke.batched_heuristic:batched_heuristic",
    paired_match="gamut.solvers.poke.match:PAIRED_RUBBERS",
    action_features="gamut.envs.poke.action_features:action_features",
)
