"""One BLAS thread for the network agents' NumPy forward passes.

An agent that plays a network multiplies a few rows by its weights at every
move. OpenBLAS spreads even such small products over every core, and on a
busy machine its threads wait for one another. ``gamut bench
network_agents`` times every shipped network agent both ways in one run; on
the 2-core machine of the results with a load average near 6.5
(``results/benchmarks/network_agents.jsonl``), the shipped ``dmc`` agent,
whose action features make the largest products, took a median 37.0 ms a
move with NumPy's default threads and 0.64 ms with one in one run, 0.90 and
0.57 ms in another; the other agents moved at the same speed either way.
"""

from __future__ import annotations

import functools
import os

# A thread count the user chose for BLAS in the environment is kept.
USER_SETTINGS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS")


@functools.cache
def one_blas_thread() -> bool:
    """Limit NumPy's BLAS to one thread in this process, once; False (nothing changed) when the user chose.

    Process-wide, as BLAS threads are: called by the network agents when
    they are made. Set ``OPENBLAS_NUM_THREADS`` (or ``OMP_NUM_THREADS``) to
    keep a count of your own.
    """
    if any(name in os.environ for name in USER_SETTINGS):
        return False
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=1, user_api="blas")
    return True
