"""Files of named arrays under SHA-256 digests: checkpoints, weights and strategies.

One ``.npz`` archive (read with ``allow_pickle=False``) holds the arrays and a
JSON header. The header records the SHA-256 digest of every array and, in
``header_sha256``, the digest of the header itself (the array digests
included), so an edited count or configuration in the header is caught like a
changed array. A file is written whole or not at all
(:func:`gamut.solvers.atomic_file.write_atomically`): a kill or a full disk
while writing leaves the previous file intact and no temporary file behind.

    >>> import numpy as np, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "run.npz")
    >>> _ = write_hashed_npz(path, {"format": "demo-1", "steps": 3}, {"weights": np.zeros(2)})
    >>> header, arrays = read_npz_with_header(path, "demo file")
    >>> digest_problem(header, arrays) is None, header["steps"]
    (True, 3)
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import numpy as np

from gamut.solvers.atomic_file import write_atomically


def array_digest(array: np.ndarray) -> str:
    """SHA-256 of an array's dtype, shape and bytes."""
    hasher = hashlib.sha256(str(array.dtype).encode() + str(array.shape).encode())
    hasher.update(array.tobytes())
    return hasher.hexdigest()


def header_digest(header: dict) -> str:
    """SHA-256 of a JSON header without its own ``header_sha256`` field (keys sorted, compact)."""
    body = {key: value for key, value in header.items() if key != "header_sha256"}
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def write_hashed_npz(path: str | os.PathLike, header: dict, arrays: dict, header_key: str = "__header__") -> Path:
    """Write ``arrays`` and ``header`` (plus every digest) to ``path`` atomically; return the path.

    A failed write raises :class:`gamut.solvers.atomic_file.FileWriteError` naming the file.
    """
    header = {**header, "digests": {name: array_digest(a) for name, a in arrays.items()}}
    header["header_sha256"] = header_digest(header)
    return write_atomically(path, lambda handle: np.savez(handle, **{header_key: np.array(json.dumps(header))},
                                                          **arrays))


def read_npz_with_header(path: str | os.PathLike, what: str, header_key: str = "__header__",
                         error: type[ValueError] = ValueError) -> tuple[dict, dict]:
    """Header and arrays of ``path``, unverified; ``error`` names the file when it is missing or unreadable."""
    path = Path(path)
    if not path.is_file():
        raise error(f"no {what} at {path}")
    try:
        with np.load(path, allow_pickle=False) as data:
            header = json.loads(str(data[header_key]))
            arrays = {name: data[name] for name in data.files if name != header_key}
    except Exception as err:  # zipfile, zlib, numpy and JSON each raise their own types on damage
        raise error(f"{path} is corrupt or not a {what} ({type(err).__name__}: {err})") from None
    if not isinstance(header, dict):
        raise error(f"{path} is corrupt: its header is not a JSON object")
    return header, arrays


def digest_problem(header: dict, arrays: dict) -> str | None:
    """What fails the digests recorded in ``header`` (a phrase), or None when every digest holds."""
    if header.get("header_sha256") != header_digest(header):
        return "its header (its counts, settings and array digests) fails its SHA-256 check"
    digests = header.get("digests")
    if not isinstance(digests, dict) or set(digests) != set(arrays):
        recorded = sorted(digests) if isinstance(digests, dict) else None
        return f"its arrays {sorted(arrays)} are not the recorded ones {recorded}"
    for name, array in arrays.items():
        if array_digest(array) != digests[name]:
            return f"array {name!r} fails its SHA-256 check"
    return None
