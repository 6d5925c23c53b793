"""The signals that stop luxe (SIGTERM, SIGINT, SIGHUP) and what each does
before the session's event loop runs, where trio's watcher takes them.

- Until the interface takes the terminal: the default action.
- From the interface's prompt to the handshake (luxe.frontends.tui.entry):
  `end_at_once` raises SystemExit(128 + signal), so luxe ends there and
  then, and gives the terminal back on the way out.
- From the handshake to the loop (luxe.app): `remember` keeps the signal,
  and the loop's watcher honours it as soon as it runs (a client may stop
  luxe right after `ready`).

While `--issue`/`--from-pr`/`--worktree` prepare the session (before the
handshake, luxe.github.start), that start's trio run takes them: it ends
its gh or git (the process group) and then gives the signal the action
above.
"""

from __future__ import annotations

import signal
from collections.abc import Callable
from types import FrameType

STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)

# What `remember` kept, for the loop's watcher.
remembered: list[int] = []

Handler = Callable[[int, FrameType | None], None]


def handle_with(handler: Handler) -> None:
    """Let `handler` take every stop signal from now on."""
    for signum in STOP_SIGNALS:
        signal.signal(signum, handler)


def end_at_once(signum: int, frame: FrameType | None) -> None:
    raise SystemExit(128 + signum)


def remember(signum: int, frame: FrameType | None) -> None:
    remembered.append(signum)
