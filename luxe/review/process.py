"""Run git and gh for the review: one child process per call, in its own
process group, always reaped.

`run` owns the process it starts. On cancel the whole group gets SIGTERM, a
short grace, then SIGKILL (luxe.tools.process.terminate_group, as for tools),
and every member is gone before the Cancelled propagates.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from functools import partial
from pathlib import Path

import trio

from luxe.record import record
from luxe.tools.process import terminate_group

TERM_GRACE_S = 1.0


@record
class Completed:
    returncode: int
    stdout: bytes
    stderr: bytes

    @property
    def text(self) -> str:
        return self.stdout.decode("utf-8", "surrogateescape")

    @property
    def error_line(self) -> str:
        """The child's complaint in one line, for a person."""
        lines = [line.strip() for line in self.stderr.decode("utf-8", "replace").splitlines()]
        lines = [line for line in lines if line and not line.startswith("hint:")]
        return "; ".join(lines[:2]) or f"exit status {self.returncode}"


def child_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment for git/gh: the user's, minus what would redirect
    output to a pager or an external diff tool, with C-locale messages."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("GIT_EXTERNAL_DIFF", "GIT_PAGER", "PAGER", "GIT_DIFF_OPTS", "GH_PAGER")
    }
    env.update(LC_ALL="C", GIT_TERMINAL_PROMPT="0", NO_COLOR="1", GH_NO_UPDATE_NOTIFIER="1")
    env.update(GH_PROMPT_DISABLED="1", GIT_OPTIONAL_LOCKS="0")
    if extra:
        env.update(extra)
    return env


async def run(
    argv: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str] | None = None,
    stdin: bytes | None = None,
) -> Completed:
    """Run `argv` to completion and capture its output. Raises
    FileNotFoundError when the program is not installed."""
    result = await trio.run_process(
        list(argv),
        cwd=str(cwd),
        env=child_env(env),
        stdin=stdin if stdin is not None else b"",
        capture_stdout=True,
        capture_stderr=True,
        check=False,
        start_new_session=True,  # its own process group, so a cancel reaches its children
        # The shared group ending: SIGTERM, grace, SIGKILL to whatever is
        # left of the group (not only while the leader lives), then reaped.
        deliver_cancel=partial(terminate_group, grace_s=TERM_GRACE_S),
    )
    return Completed(result.returncode, result.stdout or b"", result.stderr or b"")
