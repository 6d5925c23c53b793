"""The host's own log: events a person may need to audit later (a refused
connection from another user), one compact JSON object per line.

The host owns the terminal, so it cannot print diagnostics; they go to
`$XDG_STATE_HOME/laura/host.log` (see `laura.journal.state_home`). Writing
is best effort and synchronous (one short append): a full disk must never
cost the host.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import private_files
from laura.journal import state_home


def log_path() -> Path:
    return state_home() / "laura" / "host.log"


def log_event(event_type: str, **fields: Any) -> None:
    """Append `{"ts", "type", "pid", **fields}`; errors are swallowed."""
    record = {"ts": int(time.time() * 1000), "type": event_type, "host_pid": os.getpid(), **fields}
    path = log_path()
    try:
        with private_files.open_append(path, state_home()) as handle:
            handle.write(json.dumps(record, separators=(",", ":")) + "\n")
    except OSError:
        pass
