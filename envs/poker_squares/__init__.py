"""Poker Squares: rules as Numba kernels (``kernels``) and the pyspiel game (``game``)."""
