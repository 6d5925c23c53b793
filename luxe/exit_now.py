"""End the luxe process at once, skipping the interpreter's teardown.

Called by `luxe --rpc` and `luxe -p` after `luxe.app.run` has returned: by
then every frame is written (the writer writes fd 1 directly and returns
only when the event channel has closed), the session file is closed and
synced, and no child of ours is left (`kill_descendants`). What remains is
the interpreter's teardown (module and GC cleanup, 65-450 ms on a loaded
machine, see docs/performance.md), which a client waiting for our exit
status gains nothing from. The log and stderr are flushed here; stdout is
flushed too in case anything buffered was written to it.
"""

from __future__ import annotations

import logging
import os
import sys
from typing import NoReturn


def exit_now(status: int) -> NoReturn:
    """Flush what Python buffers (log handlers, stdout, stderr), then _exit."""
    logging.shutdown()
    for stream in (sys.__stdout__, sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):
            pass  # a closed or broken stream: nothing more can reach it
    os._exit(status)
