"""Network agents limit NumPy's BLAS to one thread, unless the user chose a count."""

import json
import os
import subprocess
import sys

import pytest

PROBE = """
import json
from threadpoolctl import threadpool_info
import gamut
from gamut.solvers.blas_threads import one_blas_thread
game = gamut.load_game("poker_dice(variant=yacht12,players=1)")
gamut.make_bot(game, "ppo", seed=0)
print(json.dumps([pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"]))
print(json.dumps(one_blas_thread()))
"""


def _probe(**env) -> tuple[list[int], bool]:
    clean = {k: v for k, v in os.environ.items()
             if k not in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS")}
    out = subprocess.run([sys.executable, "-c", PROBE], env={**clean, **env}, capture_output=True, text=True,
                         check=True).stdout.splitlines()
    return json.loads(out[-2]), json.loads(out[-1])


@pytest.mark.slow
def test_making_a_network_agent_leaves_one_blas_thread():
    threads, limited = _probe()
    assert threads and set(threads) == {1} and limited


@pytest.mark.slow
def test_a_thread_count_the_user_set_is_kept():
    # OpenBLAS caps a count at the machine's cores.
    threads, limited = _probe(OPENBLAS_NUM_THREADS="2")
    assert set(threads) == {min(2, os.cpu_count())} and not limited
