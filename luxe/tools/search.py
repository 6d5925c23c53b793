"""The grep tool: ripgrep when installed, a Python fallback otherwise.

Both give `path:line:text` lines relative to the cwd, capped; each line is
redacted before it is cut. Luxe judges every file it reads by the
descriptor it opened: its own search's, and, behind ripgrep, its own read
of each file ripgrep reported a line from (a line is shown only when that
read holds it). The model's arguments reach ripgrep only as the
values of `--regexp=`/`--glob=` and as a path after `--`, never as options
(a file named `--pre=sh` is a path). The fallback
walks the tree in a worker thread (skipping .git, virtualenvs and binary
files); on cancel the thread is abandoned and stops at its next file.
"""

from __future__ import annotations

import fnmatch
import re
import subprocess
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import trio

import program_path
from luxe import children
from luxe.engine.model import ToolSpec
from luxe.engine.tooling import ToolContext, ToolError, ToolResult
from luxe.regular_file import open_regular
from luxe.tools.confirmed_matches import confirmed_lines, reported_lines
from luxe.tools.paths import SKIP_DIRS, resolve, shown, walk_files
from luxe.wording import counted
from process_group import terminate_group

MAX_MATCHES = 200
MAX_LINE = 300
RG_OUTPUT_CAP = 4 * 1024 * 1024
# How much of a matching line is kept for redaction before the cut to MAX_LINE.
MAX_SCANNED_LINE = 64 * 1024
# How much of one file luxe's own search reads.
FILE_CAP = 4 * 1024 * 1024


class GrepTool:
    name = "grep"
    spec = ToolSpec(
        "grep",
        "Search file contents with a regular expression. Optional path (file or directory, "
        "default the cwd) and glob (file name filter, e.g. *.py). Shows path:line:text.",
        {
            "type": "object",
            "properties": {
                "pattern": {"type": "string"},
                "path": {"type": "string"},
                "glob": {"type": "string"},
            },
            "required": ["pattern"],
        },
    )

    def __init__(self, ripgrep: str | None = None) -> None:
        self.ripgrep = ripgrep if ripgrep is not None else program_path.which("rg")

    async def run(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        pattern = args["pattern"]
        try:
            regex = re.compile(pattern)
        except re.error as exc:
            raise ToolError(f"bad regular expression {pattern!r}: {exc}") from None
        root = resolve(ctx.cwd, args.get("path") or ".")
        if not root.exists():
            raise ToolError(f"{shown(ctx.cwd, root)} does not exist")
        glob = args.get("glob")
        # Secret files are never searched: even a match count would let a
        # model guess a value one character at a time. The gate knows them by
        # name and by identity (hard links); without a gate, by name.
        is_secret: Callable[[str], bool] = ctx.is_secret_file
        skipped: set[str] = set()
        if self.ripgrep:
            lines = await self._ripgrep(
                pattern, root, glob, ctx.cwd, is_secret, skipped, ctx.is_secret_opened
            )
        else:
            stop = threading.Event()
            try:
                lines = await trio.to_thread.run_sync(
                    _python_grep, regex, root, glob, ctx.cwd, stop, is_secret, skipped,
                    ctx.is_secret_opened,
                    abandon_on_cancel=True,
                )
            finally:
                stop.set()  # an abandoned search ends at its next file
        note = (
            f"[{counted(len(skipped), 'secret file')} skipped]"
            if skipped
            else ""
        )
        if not lines:
            return ToolResult("\n".join(filter(None, ("no matches", note))), summary="0 matches")
        lines = [_cut(ctx.redact(line, cut_end=len(line) >= MAX_SCANNED_LINE)) for line in lines]
        shown_lines = lines[:MAX_MATCHES]
        if len(lines) > MAX_MATCHES:
            shown_lines.append(f"[more than {MAX_MATCHES} matches; narrow the pattern or path]")
        if note:
            shown_lines.append(note)
        count = f"{len(lines)}{'+' if len(lines) > MAX_MATCHES else ''}"
        return ToolResult("\n".join(shown_lines), summary=f"{count} matches")

    async def _ripgrep(
        self,
        pattern: str,
        root: Path,
        glob: str | None,
        cwd: Path,
        is_secret: Callable[[str], bool],
        skipped: set[str],
        is_secret_opened: Callable[[int], bool],
    ) -> list[str]:
        """ripgrep's matches, minus every line from a secret file (`--null`
        makes the file name unambiguous), each confirmed by Luxe's own read
        of its file (see confirmed_matches). Every secret file the listing
        finds in the search's scope goes to `skipped`, whether or not it
        matched: a count that moved with the pattern would let a model guess
        a value. A file refused only by that read (its descriptor a secret)
        is not counted, for the same reason: it is read only if it matched."""
        assert self.ripgrep is not None
        # The same files as the Python search: hidden ones too (a `.env` is
        # found, then skipped and counted), minus the same skipped directories.
        # A later glob overrides an earlier one: the model's comes first.
        skip_dirs = [f"--glob=!{name}/" for name in sorted(SKIP_DIRS)]
        scope = ["--hidden", "--no-config", *([f"--glob={glob}"] if glob else []), *skip_dirs]
        where = ["--", shown(cwd, root)]
        listing = await self._run([self.ripgrep, "--files", "--null", *scope, *where], cwd)
        for raw in listing.split(b"\0"):
            shown_name = raw.decode("utf-8", "replace").removeprefix("./")
            if shown_name and is_secret(str(cwd / shown_name)):
                skipped.add(shown_name)
        # The search never opens them: an ignore file names each one, and so
        # does a glob after the model's (any glob overrides ignore files).
        excluded = [f"--glob=!/{_gitignore_literal(n)}" for n in sorted(skipped)] if glob else []
        with tempfile.TemporaryDirectory(prefix="luxe-grep-") as scratch:
            ignore = trio.Path(scratch, "ignore")
            await ignore.write_text("".join(f"/{_gitignore_literal(n)}\n" for n in skipped))
            data = await self._run(
                [
                    self.ripgrep, "--line-number", "--no-heading", "--color=never", "--null",
                    "--with-filename", f"--ignore-file={ignore}", f"--regexp={pattern}",
                    *scope, *excluded, *where,
                ],
                cwd,
            )
        stop = threading.Event()
        try:
            return await trio.to_thread.run_sync(
                _confirmed_ripgrep_lines, data, cwd, is_secret, skipped, is_secret_opened, stop,
                abandon_on_cancel=True,
            )
        finally:
            stop.set()  # an abandoned check ends at its next file

    async def _run(self, argv: list[str], cwd: Path) -> bytes:
        """rg's output, capped at RG_OUTPUT_CAP (a line cut by the cap is
        dropped); its process group always ends with the call."""
        process = await children.open_process(
            argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, cwd=cwd, start_new_session=True,
        )
        chunks: list[bytes | bytearray] = []
        size = 0
        try:
            assert process.stdout is not None
            while size < RG_OUTPUT_CAP:
                data = await process.stdout.receive_some(65536)
                if not data:
                    break
                chunks.append(data)
                size += len(data)
        finally:
            await terminate_group(process)
            children.forget(process.pid)
            assert process.stdout is not None
            with trio.CancelScope(shield=True):
                await process.stdout.aclose()
        data = b"".join(chunks)
        if size >= RG_OUTPUT_CAP:
            data = data[: max(data.rfind(b"\n"), data.rfind(b"\0")) + 1]
        return data


def _confirmed_ripgrep_lines(
    output: bytes,
    cwd: Path,
    is_secret: Callable[[str], bool],
    skipped: set[str],
    is_secret_opened: Callable[[int], bool],
    stop: threading.Event,
) -> list[str]:
    """`path:line:text` for each line of rg's `output` that Luxe's own read
    of its file confirms, up to one past MAX_MATCHES. A file named in
    `skipped`, or secret by its name now, is not opened."""

    def refused(name: str) -> bool:
        return name in skipped or is_secret(str(cwd / name))

    lines: list[str] = []
    reported = reported_lines(output)
    for name, number, text in confirmed_lines(reported, str(cwd), refused, is_secret_opened, stop, FILE_CAP):
        lines.append(f"{name}:{number}:{text[:MAX_SCANNED_LINE]}")
        if len(lines) > MAX_MATCHES:
            break
    return lines


def _gitignore_literal(name: str) -> str:
    """`name` as a gitignore pattern (or a glob) matching itself: only itself, unless it
    holds a line break, which no pattern can say: each is then `?` (any
    character), so that the one line still covers the name."""
    escaped = re.sub(r"([\\*?\[\]{}!#])", r"\\\1", name)
    escaped = escaped.replace("\n", "?").replace("\r", "?")
    return escaped[:-1] + "\\ " if escaped.endswith(" ") else escaped


def _cut(line: str) -> str:
    return line if len(line) <= MAX_LINE else line[:MAX_LINE]


def _python_grep(
    regex: re.Pattern[str],
    root: Path,
    glob: str | None,
    cwd: Path,
    stop: threading.Event,
    is_secret: Callable[[str], bool],
    skipped: set[str],
    is_secret_opened: Callable[[int], bool],
) -> list[str]:
    """Matches under `root`; secret files are not opened (their names go to
    `skipped`), and a file whose name was swapped for a secret's after that
    look is judged again by its descriptor, before a byte of it is read."""
    found: list[str] = []
    files: Iterable[Path] = [root] if root.is_file() else _walk(root)
    for path in files:
        if stop.is_set():
            break
        if is_secret(str(path)):
            skipped.add(shown(cwd, path))
            continue
        if glob and not fnmatch.fnmatch(path.name, glob) and not fnmatch.fnmatch(
            shown(cwd, path), glob
        ):
            continue
        # Only a regular file is read (a FIFO a repository ships would hold
        # the open for good; a link to /dev/zero never ends).
        try:
            with open_regular(path) as f:
                if is_secret_opened(f.fileno()):
                    skipped.add(shown(cwd, path))
                    continue
                data = f.read(FILE_CAP)
        except (OSError, ValueError):
            continue  # missing, unreadable or not a regular file
        if b"\0" in data[:8192]:
            continue
        text = data.decode("utf-8", "replace")
        for number, line in enumerate(text.splitlines(), 1):
            if regex.search(line):
                found.append(f"{shown(cwd, path)}:{number}:{line[:MAX_SCANNED_LINE]}")
                if len(found) > MAX_MATCHES:
                    return found
    return found


def _walk(root: Path) -> Iterator[Path]:
    """Files under root, lazily (so a stopped search stops walking too)."""
    return walk_files(root, lambda name: name not in SKIP_DIRS)
