"""Wall seconds that Numba spends compiling, so published timings can leave them out.

A solve timed on a cold Numba cache includes the compilation of every kernel
it calls, seconds that a second run, or a user with a warm cache, never
pays. :class:`CompileClock` listens to Numba's ``numba:compile`` event while
it is open and adds up the wall time of the outermost compilations (a kernel
that compiles the kernels it calls is counted once). Loading a kernel from
the on-disk cache is not a compilation and adds nothing.

    >>> import numba
    >>> @numba.njit
    ... def twice(x):
    ...     return 2 * x
    >>> with CompileClock() as clock:
    ...     _ = twice(3)
    >>> clock.seconds > 0
    True
    >>> with CompileClock() as warm:
    ...     _ = twice(4)
    >>> warm.seconds
    0.0
"""

from __future__ import annotations

import threading
import time

from numba.core import event


class CompileClock(event.Listener):
    """Context manager: ``seconds`` is the wall time Numba spent compiling inside it (this thread)."""

    def __init__(self):
        super().__init__()
        self.seconds = 0.0
        self._depth = 0
        self._started = 0.0
        self._thread = threading.get_ident()

    def on_start(self, _event) -> None:
        if threading.get_ident() != self._thread:
            return
        if self._depth == 0:
            self._started = time.perf_counter()
        self._depth += 1

    def on_end(self, _event) -> None:
        if threading.get_ident() != self._thread or self._depth == 0:
            return
        self._depth -= 1
        if self._depth == 0:
            self.seconds += time.perf_counter() - self._started

    def __enter__(self) -> CompileClock:
        event.register("numba:compile", self)
        return self

    def __exit__(self, *exc) -> None:
        event.unregister("numba:compile", self)


def timed(function, *args, **kwargs):
    """``(result, seconds, compile_seconds)`` of ``function(*args, **kwargs)``: wall seconds without compilation.

    ``seconds`` is the call's wall time minus ``compile_seconds``, the time
    Numba spent compiling during it.
    """
    with CompileClock() as clock:
        start = time.perf_counter()
        result = function(*args, **kwargs)
        wall = time.perf_counter() - start
    return result, max(wall - clock.seconds, 0.0), clock.seconds
