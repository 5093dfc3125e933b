"""A small seeded random generator for the toolkit's kernels (xorshift64*), and splitmix64.

Numba kernels draw from a one-element ``uint64`` array so a generator can be
passed around and advanced in place without allocating; the same seed gives
the same numbers. ``splitmix64`` is a stateless mix: it keys streams and
deals by integers (seed, game, deal) without carrying a generator along.
"""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True)
def rng_state(seed):
    """A one-element ``uint64`` generator state seeded from the integer ``seed`` (never zero)."""
    rng = np.empty(1, dtype=np.uint64)
    x = np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(1)
    x ^= x >> np.uint64(31)
    rng[0] = x | np.uint64(1)
    return rng


@numba.njit(cache=True)
def splitmix64(x):
    """One splitmix64 output for the ``uint64`` counter ``x`` (a counter-based stream: feed it its output)."""
    z = x + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@numba.njit(cache=True)
def next_random(rng):
    """Advance ``rng`` in place and return 53 random bits as a ``uint64``."""
    x = rng[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    rng[0] = x
    return (x * np.uint64(2685821657736338717)) >> np.uint64(11)


@numba.njit(cache=True)
def uniform(rng):
    """Advance ``rng`` in place and return a float64 uniform on ``[0, 1)`` (53 random bits)."""
    return next_random(rng) * (1.0 / 9007199254740992.0)


@numba.njit(cache=True)
def below(rng, n):
    """A random integer in ``0..n-1`` (``n >= 1``); the modulo bias is below ``n / 2**53``."""
    return np.int64(next_random(rng) % np.uint64(n))


@numba.njit(cache=True)
def shuffle(arr, n, rng):
    """Shuffle the first ``n`` entries of ``arr`` in place (Fisher-Yates)."""
    for i in range(n - 1, 0, -1):
        j = below(rng, i + 1)
        arr[i], arr[j] = arr[j], arr[i]
