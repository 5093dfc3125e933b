"""Palace Poker: rules as Numba kernels (``kernels``, ``showdown``, constants in ``layout``),
the pyspiel game (``game``), what players see (``encoding``), resampling (``resample``) and
random playouts (``rollout``, drawing from ``gamut.envs.rng``)."""
