"""Test-session settings shared by every test file."""

import os
import tempfile
from pathlib import Path

import pytest

try:
    import fcntl
except ImportError:  # Windows: no advisory locks; the Ray tests then just run as they come
    fcntl = None

# Caches that commands build (e.g. solved dice tables) go to one folder per test
# session, never to the user's own cache; notebooks and subprocesses inherit it.
# Under pytest-xdist the workers inherit the controller's folder and share it:
# a cache file is written atomically (temporary file, then rename), so a worker
# reads either no file or a whole one.
if not os.environ.get("GAMUT_CACHE_DIR"):
    os.environ["GAMUT_CACHE_DIR"] = tempfile.mkdtemp(prefix="gamut-test-cache-")


@pytest.fixture
def ray_instance_lock(monkeypatch):
    """Serialise the tests that start a real Ray instance, across xdist workers and concurrent sessions.

    A local ``ray.init()`` joins whatever instance another process started on this
    machine, and ``ray stop --force`` stops every instance on it, so two such tests
    at once would join or kill each other's cluster. Each holds this lock while
    its instance runs.

    Ray (2.5x and later) turns token authentication on for a local cluster whenever
    ``~/.ray/auth_token`` exists, and its first local cluster writes that file: a
    later test's head then refused the driver ("InvalidAuthToken"). The test
    instances live on this machine only, so they run with authentication off.
    """
    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")
    if fcntl is None:
        yield
        return
    with open(Path(tempfile.gettempdir()) / "gamut-tests-ray.lock", "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config, items):
    """Under pytest-xdist, start the slow tests first, so that the fast ones fill in at the end.

    Every worker collects the same items and sorts them the same way (a stable sort), so the
    workers agree on the collection; a serial run keeps the files' order.
    """
    if os.environ.get("PYTEST_XDIST_WORKER"):
        items.sort(key=lambda item: item.get_closest_marker("slow") is None)
