"""Palace Poker: rules as Numba kernels (``kernels``, ``showdown``, constants in ``layout``),
the pyspiel game (``game``), what players see (``encoding``, the tensor kernel ``tensors``),
resampling (``resample``), random playouts (``rollout``, drawing from ``gamut.envs.rng``)
and the batched environment (``vector``)."""
