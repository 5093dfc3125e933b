"""This machine's physical memory, and byte counts in words: for refusing sizes that cannot fit.

    >>> format_bytes(3 * 1024**3)
    '3.0 GB'
"""

from __future__ import annotations

import os


def physical_memory() -> int | None:
    """Bytes of physical memory of this machine, or None where the system does not say."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return None


def format_bytes(n: float) -> str:
    """``n`` bytes in the largest unit under 1024 of it (``'512 bytes'``, ``'1.5 KB'``, ..., ``'2.0 PB'``)."""
    for unit in ("bytes", "KB", "MB", "GB", "TB"):
        if n < 1024:
            return f"{n:,.0f} {unit}" if unit == "bytes" else f"{n:,.1f} {unit}"
        n /= 1024
    return f"{n:,.1f} PB"
