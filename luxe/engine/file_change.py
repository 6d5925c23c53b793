"""What `write` and `edit` do to a file, as text: the edit itself
(`edited`, which the edit tool applies), the change a permission prompt
previews before the call runs (`planned_diff`), and the diff `file_changed`
carries after it (`snapshot`, `diff_since`).

Plain functions, no trio and no state, each done in a bounded time: a file
is read only if it is a regular UTF-8 file of at most DIFF_MAX_BYTES (opened
without blocking, so a FIFO or a device named by a call can hold nothing;
anything else has no diff), and lines are matched only up to MATCH_LIMIT
pairs. Which file a path names is asked of the kernel (luxe.real_path): a
symlink loop, a chain of links or a NUL that a repository or a call plants
gives no diff, never an exception. Callers redact what they send.

The gate judged the call's path, and a repository may swap that name for
a secret file (a hard link to `.env`, a symlink to it or to a sibling
project's) before the diff reads it. So the file is opened once
(luxe.regular_file.open_regular) and the caller's `is_secret` (the gate's
`is_secret_opened`) judges the descriptor before a byte is read: a secret
gives no lines. `planned_diff` raises SecretOpened (the caller refuses
the call, as edit and write refuse such a file); `snapshot` and
`diff_since` give no diff.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from luxe.engine.tooling import ToolError, call_path, path_problem
from luxe.real_path import real_path
from luxe.regular_file import open_regular

# Files (and planned contents) larger than this get no diff.
DIFF_MAX_BYTES = 256 * 1024
CHANGING_TOOLS = ("write", "edit")

# Whether the file open on a descriptor is a secret (the gate's is_secret_opened).
SecretCheck = Callable[[int], bool]


class SecretOpened(Exception):
    """The file opened for a diff is a secret file (its name was swapped
    for one after the gate's check): nothing of it was read."""


def check_edit(args: Mapping[str, Any]) -> None:
    """Raise ToolError, for the model, when the edit call's strings could
    change no file (checked before the file is read)."""
    if not args["old_string"]:
        raise ToolError("old_string is empty; use write to create a file")
    if args["old_string"] == args["new_string"]:
        raise ToolError("old_string and new_string are the same; nothing to change")


def edited(text: str, args: Mapping[str, Any], name: str) -> tuple[str, int]:
    """`text` with the edit call's `old_string` replaced by `new_string`
    (every occurrence with `replace_all`), and how many were replaced.
    Raises ToolError, for the model, when the edit cannot apply; `name` is
    the file as the model knows it."""
    check_edit(args)
    old, new = args["old_string"], args["new_string"]
    count = text.count(old)
    if count == 0:
        raise ToolError(f"old_string was not found in {name}; read the file and copy the exact text")
    if count > 1 and not args.get("replace_all"):
        raise ToolError(
            f"old_string occurs {count} times in {name}; include more surrounding "
            "lines to make it unique, or set replace_all"
        )
    if args.get("replace_all"):
        return text.replace(old, new), count
    return text.replace(old, new, 1), 1


def read_small(path: Path, is_secret: SecretCheck) -> str | None:
    """A small regular UTF-8 file's content; "" when it does not exist;
    None when it is anything else (a symlink loop included). Opened once,
    and the descriptor judged by `is_secret` before it is read: raises
    SecretOpened, with nothing read, for a secret file."""
    try:
        f = open_regular(path)
    except FileNotFoundError:  # a new file (or a link to where one will be)
        return ""
    except (OSError, ValueError):
        return None
    with f:
        if is_secret(f.fileno()):
            raise SecretOpened(str(path))
        try:
            data = f.read(DIFF_MAX_BYTES + 1)
        except OSError:
            return None
    if len(data) > DIFF_MAX_BYTES:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def unified(name: str, old: str, new: str) -> str:
    """A unified diff (three lines of context) from `old` to `new`; a last
    line without a newline is marked as git marks it. In time linear in
    the texts past MATCH_LIMIT (see `_changed_block`)."""
    a, b = _LINES.findall(old), _LINES.findall(new)
    head, tail = _common_ends(a, b)
    if (len(a) - head - tail) * (len(b) - head - tail) <= MATCH_LIMIT:
        import difflib  # with the first diff, not at start-up

        lines = list(difflib.unified_diff(a, b, f"a/{name}", f"b/{name}"))
    else:
        lines = _changed_block(a, b, head, tail, name)
    return "".join(
        line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines
    )


def hunk_lines(diff: str) -> list[str]:
    """A diff's lines from its first hunk header on (the `---`/`+++` file
    header left out), split only at `\n` like the diff itself."""
    lines = diff.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line for line in lines if not line.startswith(("--- ", "+++ "))]


# A line as git counts one: up to and with its `\n` (a lone `\r` or a form
# feed is inside a line, as in `read`), or the last one without it.
_LINES = re.compile(r"[^\n]*\n|[^\n]+")

# The most line pairs difflib may match: (old lines) x (new lines) between
# the texts' common head and tail. Its matching is quadratic (a 256 KiB file
# of short lines repeating a few hundred values took seconds, on the event
# loop); past this (some 20 ms of it) the lines between are one hunk.
MATCH_LIMIT = 4_000_000
CONTEXT = 3


def _common_ends(a: list[str], b: list[str]) -> tuple[int, int]:
    """How many lines `a` and `b` share at their start, and then at their end."""
    head = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        head += 1
    tail = 0
    for x, y in zip(reversed(a[head:]), reversed(b[head:]), strict=False):
        if x != y:
            break
        tail += 1
    return head, tail


def _changed_block(a: list[str], b: list[str], head: int, tail: int, name: str) -> list[str]:
    """A unified diff of one hunk: every line between the common head and
    tail removed and added, with CONTEXT lines of each around it."""
    start = max(head - CONTEXT, 0)
    after = min(tail, CONTEXT)
    a_end, b_end = len(a) - tail, len(b) - tail
    return [
        f"--- a/{name}\n",
        f"+++ b/{name}\n",
        f"@@ -{_range(start, a_end + after)} +{_range(start, b_end + after)} @@\n",
        *(" " + line for line in a[start:head]),
        *("-" + line for line in a[head:a_end]),
        *("+" + line for line in b[head:b_end]),
        *(" " + line for line in a[a_end : a_end + after]),
    ]


def _range(start: int, stop: int) -> str:
    """A hunk header's range for lines [start, stop), as difflib writes it."""
    length = stop - start
    if length == 1:
        return str(start + 1)
    return f"{start + 1 if length else start},{length}"


def target(cwd: Path, tool: str, args: Mapping[str, Any]) -> Path | None:
    """The file a write or edit call changes, as the tools resolve it; None
    for a name no file can have (the tool refuses it)."""
    path = args.get("path") if tool in CHANGING_TOOLS else None
    if not isinstance(path, str) or not path:
        return None
    full = call_path(cwd, path)
    return None if path_problem(full) else full


def planned_diff(cwd: Path, tool: str, args: Mapping[str, Any], is_secret: SecretCheck) -> str | None:
    """The diff the call would make if it ran now, or None: not a write or
    edit, an edit that would not apply, or a file (or content) with no diff.
    Raises SecretOpened when the file its name leads to now is a secret."""
    path = target(cwd, tool, args)
    if path is None:
        return None
    old = read_small(path, is_secret)
    if old is None:
        return None
    if tool == "write":
        new = args.get("content")
        if not isinstance(new, str) or len(new) > DIFF_MAX_BYTES:
            return None
    else:
        try:
            new, _ = edited(old, args, path.name)
        except (ToolError, KeyError, TypeError):
            return None
    return unified(path.name, old, new)


def snapshot(cwd: Path, tool: str, args: Mapping[str, Any], is_secret: SecretCheck) -> dict[str, str | None]:
    """Before a write or edit: the target's content, for `diff_since`
    (None, so no diff, for a secret file)."""
    path = target(cwd, tool, args)
    return {} if path is None else {real_path(path): _no_secret(path, is_secret)}


def diff_since(path: str, before: Mapping[str, str | None], is_secret: SecretCheck) -> str | None:
    """A unified diff of `path` from its snapshot to now, or None (also
    when the file there, then or now, is a secret)."""
    old = before.get(real_path(path))
    if old is None:
        return None
    new = _no_secret(Path(path), is_secret)
    if new is None:
        return None
    return unified(Path(path).name, old, new)


def _no_secret(path: Path, is_secret: SecretCheck) -> str | None:
    """read_small, with None for a secret file."""
    try:
        return read_small(path, is_secret)
    except SecretOpened:
        return None
