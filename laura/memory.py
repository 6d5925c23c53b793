"""Giving memory the process has freed back to the system.

When a pane closes, reference counting frees all it held at once, but
glibc's allocator keeps the freed pages for reuse: after a 32 MB log of
short lines was shown to its end and closed, laura stayed 65 MB above idle,
and a diff view of an 8 MB file 40 MB, until the next big allocation reused
them. `give_back` asks glibc to return its free pages (`malloc_trim`: a few
milliseconds after such a close); with another C library it does nothing.
"""

from __future__ import annotations

import ctypes
import functools
from collections.abc import Callable


@functools.cache
def _trim() -> Callable[[int], int] | None:
    try:
        trim: Callable[[int], int] = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):  # not glibc
        return None
    return trim


def give_back() -> bool:
    """Return the allocator's free pages to the system; whether it could."""
    trim = _trim()
    if trim is None:
        return False
    trim(0)
    return True
