"""`luxe -p`'s prompt: from the command line, from stdin, or both.

Runs before the session exists (blocking, no trio), so a refused input
changes nothing: no session file, no model request. Piped stdin is read to
EOF, at most `STDIN_CAP` bytes: past the cap the run is refused with a
message, never silently truncated. With a PROMPT argument, stdin becomes the
turn's context (marked as such for the model); without one, stdin is the
prompt. A terminal on stdin is never read.
"""

from __future__ import annotations

import os
import select
import stat
import time
from typing import NamedTuple

STDIN_CAP = 1024 * 1024  # bytes; about 250k tokens, past any model's window
READ_SIZE = 65536


class InputRefused(Exception):
    """The prompt cannot be used; the message says why (exit 2)."""


class InputTimedOut(Exception):
    """`--timeout` ran out while stdin was still being written (exit 124)."""


class PromptInput(NamedTuple):
    prompt: str
    context: str | None = None  # piped stdin under a PROMPT argument


def read_prompt(argument: str | None, deadline: float | None, fd: int = 0) -> PromptInput:
    """The prompt and context of a `luxe -p` run. `deadline` is a
    time.monotonic() value (`--timeout`) or None."""
    piped = _stdin_is_piped(fd)
    data = _read_capped(fd, deadline) if piped else b""
    if b"\0" in data:
        raise InputRefused("stdin holds binary data (a NUL byte); pipe text")
    text = data.decode("utf-8", "replace")
    if argument is not None:
        if not text.strip():
            return PromptInput(argument)
        return PromptInput(argument, f"(piped to luxe on stdin, {len(data)} bytes)\n{text}")
    if not piped:
        raise InputRefused("no prompt: give PROMPT, or pipe it on stdin (`echo hi | luxe -p`)")
    if not text.strip():
        raise InputRefused("no prompt: stdin was empty")
    return PromptInput(text)


def _stdin_is_piped(fd: int) -> bool:
    """A pipe, socket or file on stdin; not a terminal, /dev/null or nothing."""
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or stat.S_ISREG(mode)


def _read_capped(fd: int, deadline: float | None) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while True:
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise InputTimedOut("--timeout reached while reading stdin")
        chunk = os.read(fd, READ_SIZE)
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > STDIN_CAP:
            raise InputRefused(
                f"stdin holds more than {STDIN_CAP // 1024} KiB, the cap for piped input; "
                "nothing was sent. Pipe less (e.g. `git diff -- PATH`), or save it to a file "
                "and name the file in the prompt"
            )
        chunks.append(chunk)
