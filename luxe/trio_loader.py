"""Import trio without the subprocess its import starts.

trio names its worker threads with pthread_setname_np and looks the library
up with `ctypes.util.find_library("pthread")`, which on Linux runs
`/sbin/ldconfig -p` (a fork, an exec, some 40 KB of output parsed). That is
about a tenth of importing trio, and much more wall time on a busy machine,
on the path of every `luxe` start. For the length of that one import the
lookup of "pthread" answers `libpthread.so.0` without the subprocess: the
library itself on older glibc, a stub whose dependency (libc) holds the
function on glibc 2.34+; where it does not exist (musl) trio's own fallback
leaves the threads unnamed, as it would anyway. Every other lookup, and
every lookup after the import, goes to the real find_library.
"""

from __future__ import annotations

import sys
from types import ModuleType


def import_trio() -> ModuleType:
    """trio, imported as described above (or as already imported)."""
    if "trio" in sys.modules or not sys.platform.startswith("linux"):
        import trio

        return trio
    import ctypes.util

    real = ctypes.util.find_library

    def find_library(name: str) -> str | None:
        return "libpthread.so.0" if name == "pthread" else real(name)

    ctypes.util.find_library = find_library
    try:
        import trio
    finally:
        ctypes.util.find_library = real
    return trio
