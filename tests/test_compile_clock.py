"""Published timings leave out Numba's compilation: the clock counts it, once, and only while open."""

from __future__ import annotations

import time

import numba

from gamut.solvers.compile_clock import CompileClock, timed


def _fresh_kernels():
    """An outer kernel calling an inner one, both new (no cache), so the first call compiles both."""

    @numba.njit
    def inner(x):
        return x * 3 + 1

    @numba.njit
    def outer(n):
        total = 0
        for i in range(n):
            total += inner(i)
        return total

    return outer


def test_a_first_call_counts_its_compilation_and_a_second_counts_none():
    outer = _fresh_kernels()
    start = time.perf_counter()
    with CompileClock() as cold:
        assert outer(10) == sum(3 * i + 1 for i in range(10))
    wall = time.perf_counter() - start
    # Nested compilations (outer compiles inner) are counted once: never more than the wall time.
    assert 0 < cold.seconds <= wall
    with CompileClock() as warm:
        outer(20)
    assert warm.seconds == 0.0


def test_timed_returns_the_result_and_the_seconds_without_compilation():
    outer = _fresh_kernels()
    start = time.perf_counter()
    result, seconds, compiling = timed(outer, 5)
    wall = time.perf_counter() - start
    assert result == sum(3 * i + 1 for i in range(5))
    assert compiling > 0 and seconds >= 0 and seconds + compiling <= wall
    result, seconds, compiling = timed(outer, 5)
    assert compiling == 0.0


def test_a_closed_clock_hears_nothing():
    with CompileClock() as clock:
        pass
    _fresh_kernels()(3)
    assert clock.seconds == 0.0
