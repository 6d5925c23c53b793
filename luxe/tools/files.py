"""File tools: read, write, edit, ls, glob. Paths resolve against the session cwd.

Each returns text the model reads; a refusal (missing file, binary file, an
edit whose match is missing or ambiguous) is a ToolError with a message that
says what to do instead. File I/O here is small and synchronous (reads are
capped), except glob's walk, ls's scan and read's window, which run in a
worker thread.
"""

from __future__ import annotations

import os
import stat
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import trio

from luxe.engine.file_change import check_edit, edited
from luxe.engine.model import ToolSpec
from luxe.engine.tooling import ToolContext, ToolError, ToolResult
from luxe.tools.glob_walk import MAX_MATCHES, glob_files
from luxe.tools.paths import SKIP_DIRS, resolve, shown
from luxe.tools.text_file import line_window, open_text_file, read_whole, rewrite, write_text_file
from luxe.wording import counted

READ_MAX_BYTES = 256 * 1024
# Edit writes the whole text back, so it reads the whole file: this much at
# most, and refuses a bigger one (a cut text written back loses the rest).
EDIT_MAX_BYTES = 16 * 1024 * 1024
READ_DEFAULT_LINES = 2000
READ_MAX_LINE = 2000
LIST_MAX = 500
SCAN_MAX = 100_000  # the most entries `ls` reads of one directory


def _refuse_special(path: Path, name: str) -> None:
    """A FIFO or device would block the event loop (or never end): refuse it."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return  # missing: the caller reports it
    if not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):
        raise ToolError(f"{name} is not a regular file (a pipe, socket or device)")


def _make_parent(path: Path, cwd: Path) -> None:
    """Create the directories `path` goes in, or say why they cannot be."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        why = exc
        try:
            os.stat(path.parent)
        except OSError as found:  # a symlink loop says so, not "File exists"
            why = found
        where = shown(cwd, path.parent)
        raise ToolError(f"cannot write {shown(cwd, path)}: {where}: {why.strerror}") from None


class ReadTool:
    name = "read"
    spec = ToolSpec(
        "read",
        "Read a text file. Lines are numbered from 1. Use offset (first line, 1-based) "
        "and limit (number of lines) for large files. Binary files are refused.",
        {
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "file path, relative to the cwd or absolute"},
                "offset": {"type": "integer", "description": "first line to show (1-based)"},
                "limit": {"type": "integer", "description": "how many lines to show"},
            },
            "required": ["path"],
        },
    )

    async def run(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        path = resolve(ctx.cwd, args["path"])
        name = shown(ctx.cwd, path)
        offset = max(int(args.get("offset") or 1), 1)
        limit = max(int(args.get("limit") or READ_DEFAULT_LINES), 1)
        stop = threading.Event()
        try:
            # Off the event loop: skipping to an offset reads the file up to
            # it, a terabyte in a sparse file; a cancel abandons the thread,
            # which stops at its next chunk.
            window = await trio.to_thread.run_sync(
                line_window, path, name, offset, limit, READ_MAX_BYTES, stop, ctx.is_secret_opened,
                abandon_on_cancel=True,
            )  # fmt: skip
        finally:
            stop.set()
        if window.count == 0 and window.lines_before and offset > window.lines_before:
            raise ToolError(f"{name} has {window.lines_before} lines; offset {offset} is past the end")
        # Redacted before any cut (a long line, the size cap), so a cut never
        # shows a piece of a secret; the size cap's edge counts as a cut.
        text = ctx.redact(window.text, cut_end=window.cut)
        lines = [line.removesuffix("\r") for line in text.removesuffix("\n").split("\n")]
        chosen = lines[: window.count] if window.count else []
        out = []
        for number, line in enumerate(chosen, offset):
            if len(line) > READ_MAX_LINE:
                line = line[:READ_MAX_LINE] + " [line cut]"
            out.append(f"{number:6d}\t{line}")
        last = offset - 1 + len(chosen)
        if window.cut:
            again = last if window.partial else last + 1
            out.append(f"[cut at {READ_MAX_BYTES >> 10} KiB of text; read on with offset={again}]")
        elif window.lines_after is None:
            out.append(f"[more lines; read with offset={last + 1}]")
        elif window.lines_after:
            out.append(f"[{counted(window.lines_after, 'more line')}; read with offset={last + 1}]")
        if not chosen:
            out.append("[empty file]")
        summary = f"{name} ({counted(len(chosen), 'line')})"
        if window.replaced:
            out.append(
                f"[note: {window.replaced} bytes of this file are not UTF-8 (it may use another "
                "encoding, such as Latin-1) and are shown as \ufffd; edit refuses such a "
                "file, change it with bash]"
            )
            summary = f"{name} ({counted(len(chosen), 'line')}, {window.replaced} bytes not UTF-8)"
        return ToolResult("\n".join(out), summary=summary)


class WriteTool:
    name = "write"
    spec = ToolSpec(
        "write",
        "Create or overwrite a file with the given content (parent directories are created).",
        {
            "type": "object",
            "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
            "required": ["path", "content"],
        },
    )

    async def run(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        path = resolve(ctx.cwd, args["path"])
        if path.is_dir():
            raise ToolError(f"{shown(ctx.cwd, path)} is a directory")
        _refuse_special(path, shown(ctx.cwd, path))
        existed = path.exists()
        _make_parent(path, ctx.cwd)
        write_text_file(path, shown(ctx.cwd, path), args["content"], ctx.is_secret_opened)
        verb = "overwrote" if existed else "created"
        lines = args["content"].count("\n") + (0 if args["content"].endswith("\n") else 1)
        return ToolResult(
            f"{verb} {shown(ctx.cwd, path)} ({counted(lines, 'line')})",
            summary=f"{verb} {shown(ctx.cwd, path)}",
            changed=((str(path), "write"),),
        )


class EditTool:
    name = "edit"
    spec = ToolSpec(
        "edit",
        "Replace old_string with new_string in a file. old_string must occur exactly once "
        "(include surrounding lines to make it unique) unless replace_all is true.",
        {
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "old_string": {"type": "string"},
                "new_string": {"type": "string"},
                "replace_all": {"type": "boolean"},
            },
            "required": ["path", "old_string", "new_string"],
        },
    )

    async def run(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        path = resolve(ctx.cwd, args["path"])
        name = shown(ctx.cwd, path)
        check_edit(args)
        # One open, read and write: the text written back is computed from
        # the very file it goes to, judged by its descriptor first (a name
        # swapped after the gate's check, or between the read and the write,
        # cannot send it into another file).
        with open_text_file(path, name, ctx.is_secret_opened, to_edit=True) as f:
            text, replaced, cut = read_whole(f, name, EDIT_MAX_BYTES)
            if cut:
                raise ToolError(
                    f"{name} is over {EDIT_MAX_BYTES >> 20} MB; edit rewrites a file whole and "
                    "refuses one this big. Change it with bash (e.g. sed)"
                )
            if replaced:
                raise ToolError(
                    f"{name} is not UTF-8 text ({replaced} bytes in another encoding, such as "
                    "Latin-1); edit would replace them with U+FFFD, so it refuses. Change this "
                    "file with bash (e.g. sed), which keeps its bytes"
                )
            updated, done = edited(text, args, name)
            rewrite(f, name, updated)
        return ToolResult(
            f"edited {name}: replaced {counted(done, 'occurrence')}",
            summary=f"edited {name}",
            changed=((str(path), "edit"),),
        )


class LsTool:
    name = "ls"
    spec = ToolSpec(
        "ls",
        "List a directory (default: the cwd). Directories end with /.",
        {"type": "object", "properties": {"path": {"type": "string"}}, "required": []},
    )

    async def run(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        path = resolve(ctx.cwd, args.get("path") or ".")
        try:
            # Off the event loop, and never past SCAN_MAX entries: a
            # directory of millions would hold the loop, and the memory.
            names, more = await trio.to_thread.run_sync(_scan, path, abandon_on_cancel=True)
        except FileNotFoundError:
            raise ToolError(f"{shown(ctx.cwd, path)} does not exist") from None
        except NotADirectoryError:
            raise ToolError(f"{shown(ctx.cwd, path)} is a file; use read") from None
        except OSError as exc:
            raise ToolError(f"cannot list {shown(ctx.cwd, path)}: {exc.strerror}") from None
        extra = len(names) - LIST_MAX
        if more:
            tail = [f"[more than {SCAN_MAX} entries: these are the first {LIST_MAX} of the first "
                    f"{SCAN_MAX} found, sorted; use glob or grep to narrow]"]  # fmt: skip
            summary = f"over {SCAN_MAX} entries"
        else:
            tail = [f"[{extra} more entries]"] if extra > 0 else []
            summary = f"{len(names)} entries"
        return ToolResult("\n".join(names[:LIST_MAX] + tail) or "[empty directory]", summary=summary)


class GlobTool:
    name = "glob"
    spec = ToolSpec(
        "glob",
        "Find files by glob pattern relative to the cwd, e.g. **/*.py. Newest first.",
        {"type": "object", "properties": {"pattern": {"type": "string"}}, "required": ["pattern"]},
    )

    async def run(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        pattern = args["pattern"]
        if not pattern or os.path.isabs(pattern):
            raise ToolError("pattern must be a relative glob such as **/*.py")
        stop = threading.Event()
        try:
            # A walk of a big tree must not hold the event loop (or a cancel).
            found, more = await trio.to_thread.run_sync(
                _glob, ctx.cwd, pattern, stop, abandon_on_cancel=True
            )
        except (ValueError, OSError) as exc:
            raise ToolError(f"bad pattern {pattern!r}: {exc}") from None
        finally:
            stop.set()
        names = [shown(ctx.cwd, p) for p in found[:LIST_MAX]]
        if more:
            names.append(f"[more than {MAX_MATCHES} files match: these are the newest {LIST_MAX} "
                         f"of the first {MAX_MATCHES} found; narrow the pattern]")  # fmt: skip
            return ToolResult("\n".join(names), summary=f"over {MAX_MATCHES} files")
        if len(found) > LIST_MAX:
            names.append(f"[{len(found) - LIST_MAX} more files]")
        return ToolResult("\n".join(names) or "no files match", summary=f"{len(found)} files")


def _scan(path: Path) -> tuple[list[str], bool]:
    """Up to SCAN_MAX entries of directory `path`, sorted (directories end
    with /), and whether it holds more."""
    found: list[tuple[str, bool]] = []
    more = False
    with os.scandir(path) as entries:
        for entry in entries:
            if len(found) == SCAN_MAX:
                more = True
                break
            found.append((entry.name, entry.is_dir()))
    found.sort()
    return [name + "/" if is_dir else name for name, is_dir in found], more


def _glob(cwd: Path, pattern: str, stop: threading.Event) -> tuple[list[Path], bool]:
    """Matching files, newest first, and whether there were more than
    MAX_MATCHES (luxe.tools.glob_walk); ends early once `stop` is set."""
    found, more = glob_files(cwd, pattern, stop, SKIP_DIRS)
    found.sort(key=_mtime, reverse=True)
    return found, more


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:  # gone since the walk saw it
        return 0.0
