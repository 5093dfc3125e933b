"""Files written whole or not at all: every checkpoint, table, policy and result file of the toolkit.

:func:`write_atomically` writes to ``NAME.tmp`` beside the target, flushes it
to the disk and renames it over the target, so a kill while writing leaves the
previous file intact. When the write fails (a full disk, a quota, a read-only
or vanished folder) the temporary file is removed, the previous file is left
as it was, and :class:`FileWriteError` names the file; on a full disk it also
says how much space the file needs and how much is free.

    >>> import os, tempfile
    >>> path = write_atomically(os.path.join(tempfile.mkdtemp(), "note.txt"), b"kept whole\\n")
    >>> path.read_text(), sorted(os.listdir(path.parent))
    ('kept whole\\n', ['note.txt'])
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from gamut.envs.memory import format_bytes

# Errors that mean the file does not fit where it is written.
NO_SPACE = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)


class FileWriteError(OSError):
    """A file could not be written; the message names it (and, on a full disk, the space it needs)."""


class _CountingSink:
    """A write-only stream that keeps nothing and counts the bytes written to it (not seekable)."""

    def __init__(self):
        self.size = 0

    def write(self, data) -> int:
        self.size += len(data)
        return len(data)

    def read(self, size: int = -1) -> bytes:
        # Present because numpy takes an object with ``read`` for an open file (and a path otherwise).
        raise OSError("a counting sink cannot be read")

    def tell(self) -> int:
        return self.size

    def flush(self) -> None:
        """Nothing is buffered."""

    def seekable(self) -> bool:
        return False


def _free_bytes(folder: Path) -> int | None:
    try:
        stats = os.statvfs(folder)
    except OSError:
        return None
    return stats.f_bavail * stats.f_frsize


def write_atomically(path: str | os.PathLike, content: bytes | Callable[[BinaryIO], object]) -> Path:
    """Write ``content`` to ``path`` whole or not at all; return the path.

    Parameters
    ----------
    path : str or os.PathLike
        The file to write; its folder is created when missing.
    content : bytes or callable
        The bytes of the file, or a function writing them to the binary file
        handle it is given (``lambda handle: np.savez(handle, **arrays)``).

    Raises
    ------
    FileWriteError
        When the folder cannot be created or the file cannot be written; no
        temporary file is left and a previous file at ``path`` is unchanged.
    """
    path = Path(path)
    temporary = path.with_name(path.name + ".tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with temporary.open("wb") as handle:
            if isinstance(content, bytes):
                handle.write(content)
            else:
                content(handle)
            handle.flush()
            # On disk before the rename: a crash then leaves the old file or the new one, never an empty one.
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except OSError as err:
        temporary.unlink(missing_ok=True)
        failure = FileWriteError(_explain(path, content, err))
        failure.errno = err.errno
        raise failure from None
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    return path


def _explain(path: Path, content, err: OSError) -> str:
    """One line on why writing ``path`` failed; for a full disk, the file's size and the space free."""
    if err.errno not in NO_SPACE:
        return f"cannot write {path}: {err.strerror or err}"
    if isinstance(content, bytes):
        size = len(content)
    else:
        # Written again to a counter rather than kept in memory: only a failed write pays for the measure.
        sink = _CountingSink()
        content(sink)
        size = sink.size
    free = _free_bytes(path.parent)
    where = "" if free is None else f"; {format_bytes(free)} is free there"
    return f"cannot write {path}: no space left on its device: the file needs about {format_bytes(size)}{where}"
