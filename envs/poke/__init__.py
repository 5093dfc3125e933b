"""Poke (Sackson): rules as Numba kernels (``kernels``), the pyspiel game (``game``), what players see (``encoding``)."""
