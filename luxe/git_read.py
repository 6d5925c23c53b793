"""Git run by Luxe for itself, not by the agent's tools: the system prompt's
status, the edits pane's changed lines, the interface's branch and its
`@path` completion. One way to run it, so none of them can hang a session
or fill its memory.

Each call goes through the one child runner (`luxe.child_process.run`: its
own process group, ended whole on cancel), under a deadline, reading at most
`stdout_cap` bytes: a repository's pack of a few kilobytes can make git print
gigabytes (one huge file of a repeated line, replaced by an edit). Paths are
read literally (a file named `*` or `:!x` is that file, not a pattern) and
git starts no pager.
"""

from __future__ import annotations

from pathlib import Path

import trio

from luxe import child_process

GLOBAL_OPTIONS = ("--no-pager", "--literal-pathspecs", "--no-optional-locks")


async def git_read(
    *args: str, cwd: Path, timeout_s: float, stdout_cap: int
) -> child_process.Completed | None:
    """git's answer (`truncated` past `stdout_cap`, its group ended there),
    or None when `timeout_s` passed first (its group ended before this
    returns). Raises OSError when git is not installed or cannot start."""
    with trio.move_on_after(timeout_s):
        return await child_process.run(("git", *GLOBAL_OPTIONS, *args), cwd=cwd, stdout_cap=stdout_cap)
    return None


def whole_lines(done: child_process.Completed, separator: str = "\n") -> list[str]:
    """The output's entries, without the piece a cap cut in two."""
    entries = done.stdout.decode("utf-8", "replace").split(separator)
    if done.truncated or entries[-1] == "":
        entries.pop()  # cut mid-entry, or the empty piece after the last separator
    return entries
