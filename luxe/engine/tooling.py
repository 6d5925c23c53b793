"""The seam between the engine and its tools.

A tool is a name, a spec for the model and an async `run`. The engine owns
the call around it (permission, hooks, events, redaction); the tool owns only
its own work, and whatever it starts (a process, a thread) is finished or
killed before `run` returns or raises, including on cancel.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol

from luxe.engine.model import ToolSpec
from luxe.engine.ports import StreamRedaction
from luxe.record import record


class ToolError(Exception):
    """A tool failed in a way the model should read (bad path, no match, ...)."""


def secret_opened(name: str) -> str:
    """Why a call was refused when the file opened at `name` is a secret
    file (a name swapped for one after the gate's check)."""
    return (
        f"refused: {name} is a secret file (the file opened is one); reading or writing "
        "secret files is never allowed"
    )


@record
class ToolResult:
    content: str  # what the model reads
    is_error: bool = False
    summary: str = ""  # one short line for the client
    # Files the call changed: (absolute path, "write" | "edit" | "delete").
    changed: tuple[tuple[str, str], ...] = ()


class ToolContext(Protocol):
    """What a running tool may use from its turn."""

    cwd: Path
    call_id: str
    # A per-call value in the environment of every process the call starts,
    # which their descendants inherit: what finds them after the call.
    call_token: str

    def redact(self, text: str, *, cut_start: bool = False, cut_end: bool = False) -> str:
        """`text` without secret values. A tool redacts before it truncates;
        `cut_start`/`cut_end` say an edge of `text` is where it was cut."""
        ...

    def redacting_stream(self) -> StreamRedaction:
        """A redactor for a stream of output (a value split across chunks is
        caught), for a tool that keeps part of a long output."""
        ...

    async def output(self, delta: str) -> None:
        """Stream live output to the client (`tool_output_delta`)."""
        ...

    async def ask_question(
        self, question: str, options: list[str], multiple: bool
    ) -> dict[str, Any]:
        """Ask the client; returns `{answered: [...]}` or `{dismissed: true}`."""
        ...

    def is_secret_file(self, path: str) -> bool:
        """Whether a file is a secret; tools that walk directories (grep)
        skip such files (the gate may know more than names: hard links)."""
        ...

    def is_secret_opened(self, fd: int) -> bool:
        """Whether the file open on `fd` is a secret (by its identity or
        the kernel's name for it): a tool that reads a file the gate
        allowed by its path asks this before reading. Safe in a worker
        thread."""
        ...


class Tool(Protocol):
    name: str
    spec: ToolSpec

    async def run(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """Do the call; raise ToolError for an outcome the model should read."""
        ...


_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
}


def check_args(spec: ToolSpec, args: Mapping[str, Any]) -> str | None:
    """None when `args` fits the spec's schema (required keys, simple types),
    else a message for the model naming the problem."""
    schema = spec.input_schema
    if "_invalid_json" in args:  # set by the provider (luxe/providers/anthropic.py)
        return f"{spec.name}: the arguments are not valid JSON (cut off, or nested too deeply)"
    for name in schema.get("required", []):
        if name not in args:
            return f"{spec.name}: missing argument `{name}`"
    for name, value in args.items():
        prop = schema.get("properties", {}).get(name)
        if prop is None:
            continue
        expected = prop.get("type")
        types = _JSON_TYPES.get(expected or "")
        if types is None:
            continue
        bad_bool = isinstance(value, bool) and expected in ("integer", "number")
        if not isinstance(value, types) or bad_bool:
            return f"{spec.name}: argument `{name}` must be {'an' if expected == 'integer' else 'a'} {expected}"
    return None


# Linux's bounds: a path of at most PATH_MAX bytes with its NUL, a name in
# it of at most NAME_MAX. A longer one names no file: said once, here.
PATH_MAX_BYTES = 4095
NAME_MAX_BYTES = 255


def path_problem(path: Path) -> str | None:
    """Why no file can have the name `path` (a call's path, as call_path
    made it), for the model; None when one may. (For a NUL the system calls
    raise ValueError, not OSError, and a tool crashed on it.)"""
    text = str(path)
    if "\0" in text:
        return "the path holds a NUL byte, which no file name can hold"
    try:
        encoded = os.fsencode(text)
    except UnicodeEncodeError:  # a lone surrogate (the wire makes it U+FFFD first)
        encoded = text.encode("utf-8", "surrogatepass")
    if len(encoded) > PATH_MAX_BYTES:
        return f"the path is {len(encoded)} bytes long; a path has at most {PATH_MAX_BYTES}"
    longest = max(map(len, encoded.split(b"/")))
    if longest > NAME_MAX_BYTES:
        return f"a name in the path is {longest} bytes long; a name has at most {NAME_MAX_BYTES}"
    return None


def call_path(cwd: Path, path: str) -> Path:
    """A tool call's `path` argument as every tool (and the engine, for a
    write's or edit's diff) resolves it: `~` expanded, made absolute against
    `cwd`, normalized; never touches disk."""
    candidate = Path(os.path.expanduser(path))
    if not candidate.is_absolute():
        candidate = cwd / candidate
    return Path(os.path.normpath(candidate))
