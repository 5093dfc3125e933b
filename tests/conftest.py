"""Test-session settings shared by every test file."""

import os
import tempfile

# Caches that commands build (e.g. solved dice tables) go to one folder per test
# session, never to the user's own cache; notebooks and subprocesses inherit it.
os.environ.setdefault("GAMUT_CACHE_DIR", tempfile.mkdtemp(prefix="gamut-test-cache-"))
