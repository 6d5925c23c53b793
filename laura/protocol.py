"""The per-tab wire: NDJSON requests and responses, internally tagged on "type".

One connection carries one request line and one response line. Every field
but a few has a default, so shorter frames parse; unknown extra fields are
ignored. A malformed frame decodes to a `ProtocolError` whose message says
what was wrong, and the server answers it with an `error` response.

This module is on the client path (`laura open ...` must cost little more than
starting Python), so it imports only the standard library: the messages are
`NamedTuple`s whose annotations double as the schema the decoder checks.
"""

from __future__ import annotations

import json
import os
from typing import Any, NamedTuple

PaneId = int
PathReq = str
# How many bytes one request line may hold; longer lines are refused.
MAX_FRAME = 1 << 20
# Linux's PATH_MAX: the kernel names no file by a longer path, and a path of
# a megabyte took seconds to resolve, component by component.
MAX_PATH = 4096

# Annotation names double as schema tags for the decoder (see _CHECKS); to
# mypy they are plain aliases.
PaneIdOpt = int | None
PaneIdReq = int
LineReq = int
RatioOpt = int | None
DirOpt = str | None
SideOpt = str | None
StrOpt = str | None
BoolOpt = bool | None
LineRangeOpt = tuple[int, int] | None


class ProtocolError(ValueError):
    """A frame that does not decode; the message is what the client is told."""


# --- requests -------------------------------------------------------------


class Open(NamedTuple):
    path: PathReq
    split: PaneIdOpt = None
    dir: DirOpt = None
    ratio: RatioOpt = None
    side: SideOpt = None
    focus: bool = True
    follow: bool = False
    dry_run: bool = False
    highlight: LineRangeOpt = None
    diff: bool = False
    panel: PaneIdOpt = None
    edit: bool = False
    # Set only by `laura tail`: the file is a spool it created, so the tab may
    # delete it when the pane goes (an extension; absent means false).
    spool: bool = False


class Close(NamedTuple):
    pane: PaneIdOpt = None
    all: bool = False


class Focus(NamedTuple):
    pane: PaneIdReq


class Highlight(NamedTuple):
    """`range` None clears. The spec's `start`/`end` fold into `range` on decode."""

    pane: PaneIdOpt = None
    range: LineRangeOpt = None


class DiffView(NamedTuple):
    pane: PaneIdOpt = None
    on: BoolOpt = None


class Layout(NamedTuple):
    pass


class Ready(NamedTuple):
    session: StrOpt = None
    agent: StrOpt = None


class Update(NamedTuple):
    """Reserved re-render nudge; `path` is required, as in the original."""

    path: PathReq


class Comment(NamedTuple):
    line: LineReq
    pane: PaneIdOpt = None
    body: StrOpt = None
    author: StrOpt = None


Request = Open | Close | Focus | Highlight | DiffView | Layout | Ready | Update | Comment

REQUEST_TYPES: dict[str, type[Any]] = {
    "open": Open,
    "close": Close,
    "focus": Focus,
    "highlight": Highlight,
    "diffview": DiffView,
    "layout": Layout,
    "ready": Ready,
    "update": Update,
    "comment": Comment,
}

# --- responses ------------------------------------------------------------


class Rect(NamedTuple):
    x: int
    y: int
    width: int
    height: int


class PaneReport(NamedTuple):
    id: int
    kind: str  # "pty" | "panel"
    path: str | None
    rect: Rect
    content_rows: int | None
    visible_rows: int
    overflow_rows: int
    clipped: bool


class Ok(NamedTuple):
    pass


class Opened(NamedTuple):
    pane: int
    warnings: list[str] = []  # noqa: RUF012 - never mutated; encoded as a JSON list


class Report(NamedTuple):
    area: Rect
    panes: list[PaneReport]


class Error(NamedTuple):
    message: str


class ReadyReply(NamedTuple):
    journal: str | None
    experimental: list[str]
    layout: Report


Response = Ok | Opened | Report | Error | ReadyReply

RESPONSE_TYPES: dict[type[Any], str] = {
    Ok: "ok",
    Opened: "opened",
    Report: "report",
    Error: "error",
    ReadyReply: "ready",
}

# --- field checkers: annotation text -> (value -> normalised value) --------


def _describe(value: Any) -> str:
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _int(value: Any, low: int, high: int | None, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ProtocolError(f"must be {what}, got {_describe(value)}")
    if value < low or (high is not None and value > high):
        raise ProtocolError(f"must be {what}, got {value}")
    return value


def _pane(value: Any) -> int:
    return _int(value, 0, None, "a pane id (an integer >= 0)")


def _line(value: Any) -> int:
    return _int(value, 1, None, "a 1-based line number")


def _ratio(value: Any) -> int:
    return _int(value, 1, 99, "a percent from 1 to 99")


def _bool(value: Any) -> bool:
    if not isinstance(value, bool):
        raise ProtocolError(f"must be true or false, got {_describe(value)}")
    return value


def _str(value: Any) -> str:
    if not isinstance(value, str):
        raise ProtocolError(f"must be a string, got {_describe(value)}")
    try:
        value.encode()
    except UnicodeEncodeError as exc:
        # JSON's \ud800 escapes decode to text no UTF-8 can hold: it could be
        # journaled, submitted or printed by nothing.
        raise ProtocolError(f"must be text, got a lone surrogate at character {exc.start}") from None
    return value


def _path(value: Any) -> str:
    """A file's name: any string the OS can take, so a name that is not
    UTF-8 (lone surrogates from \udc80 to \udcff, as Python spells its
    bytes) passes, and nothing no file can be named."""
    if not isinstance(value, str):
        raise ProtocolError(f"must be a string, got {_describe(value)}")
    if "\0" in value:
        raise ProtocolError("must be a file path, got one with a NUL character")
    try:
        size = len(os.fsencode(value))
    except UnicodeEncodeError as exc:
        raise ProtocolError(f"must be a file path, got a lone surrogate at character {exc.start}") from None
    if size > MAX_PATH:
        raise ProtocolError(f"must be a file path of at most {MAX_PATH} bytes, got {size}")
    return value


_DIRS = {"horizontal": "horizontal", "h": "horizontal", "vertical": "vertical", "v": "vertical"}


def _dir(value: Any) -> str:
    if value not in _DIRS:
        raise ProtocolError(f'must be "horizontal" or "vertical", got {_describe(value)}')
    return _DIRS[value]


def _side(value: Any) -> str:
    if value not in ("first", "second"):
        raise ProtocolError(f'must be "first" or "second", got {_describe(value)}')
    return str(value)


def _line_range(value: Any) -> tuple[int, int]:
    if not isinstance(value, list) or not 1 <= len(value) <= 2:
        raise ProtocolError(f"must be [start, end] (1-based lines), got {_describe(value)}")
    start = _line(value[0])
    end = _line(value[-1])
    if end < start:
        raise ProtocolError(f"must have start <= end, got {_describe(value)}")
    return (start, end)


def _optional(check: Any) -> Any:
    return lambda value: None if value is None else check(value)


_CHECKS: dict[str, Any] = {
    "str": _str,
    "PathReq": _path,
    "StrOpt": _optional(_str),
    "bool": _bool,
    "BoolOpt": _optional(_bool),
    "PaneIdReq": _pane,
    "PaneIdOpt": _optional(_pane),
    "LineReq": _line,
    "RatioOpt": _optional(_ratio),
    "DirOpt": _optional(_dir),
    "SideOpt": _optional(_side),
    "LineRangeOpt": _optional(_line_range),
}


def _annotation(cls: type[Any], name: str) -> str:
    # NamedTuple wraps string annotations in ForwardRef objects.
    annotation = cls.__annotations__[name]
    return str(getattr(annotation, "__forward_arg__", annotation))


def _type_name(value: Any) -> str:
    return {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null"}.get(
        type(value), "number"
    )


def _fold_highlight(fields: dict[str, Any]) -> dict[str, Any]:
    """The spec's `start`/`end` and the original's `range` both name the range;
    `range` wins when present (null clears); a bare `{"type":"highlight"}` clears."""
    if "range" in fields or "start" not in fields:
        return fields
    start = fields["start"]
    end = fields.get("end")
    folded = dict(fields)
    folded["range"] = None if start is None else [start, start if end is None else end]
    return folded


def decode_request(line: bytes | str) -> Request:
    """Parse one request line; raise ProtocolError naming what is wrong."""
    try:
        frame = json.loads(line)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ProtocolError(f"malformed request: not JSON ({exc})") from None
    except RecursionError:
        raise ProtocolError("malformed request: nested too deeply") from None
    if not isinstance(frame, dict):
        raise ProtocolError(f"malformed request: expected a JSON object, got {_type_name(frame)}")
    kind = frame.get("type")
    if kind is None:
        raise ProtocolError("malformed request: missing field `type`")
    cls = REQUEST_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        known = ", ".join(REQUEST_TYPES)
        raise ProtocolError(
            f"malformed request: unknown type {_describe(kind)} (expected one of: {known})"
        )
    if cls is Highlight:
        frame = _fold_highlight(frame)
    values: dict[str, Any] = {}
    for name in cls._fields:
        if name not in frame:
            if name not in cls._field_defaults:
                raise ProtocolError(f"malformed request: `{kind}` needs field `{name}`")
            continue
        try:
            values[name] = _CHECKS[_annotation(cls, name)](frame[name])
        except ProtocolError as exc:
            raise ProtocolError(f"malformed request: `{kind}` field `{name}` {exc}") from None
    request: Request = cls(**values)
    return request


def _plain(value: Any) -> Any:
    if isinstance(value, tuple) and hasattr(value, "_asdict"):
        return {key: _plain(item) for key, item in value._asdict().items()}
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    return value


def encode_request(request: Request) -> bytes:
    """One compact line: every field, `null` for absent options."""
    kind = next(name for name, cls in REQUEST_TYPES.items() if isinstance(request, cls))
    return _line_of({"type": kind, **_plain(request)})


def encode_response(response: Response) -> bytes:
    return _line_of({"type": RESPONSE_TYPES[type(response)], **_plain(response)})


def response_body(response: Response) -> dict[str, Any]:
    """The response's fields without `type` (what the CLI pretty-prints)."""
    body: dict[str, Any] = _plain(response)
    return body


def decode_response(line: bytes) -> dict[str, Any]:
    """Responses stay plain dicts on the client: it only prints them."""
    try:
        frame = json.loads(line)
    except ValueError as exc:
        raise ProtocolError(f"malformed response: not JSON ({exc})") from None
    if not isinstance(frame, dict) or not isinstance(frame.get("type"), str):
        raise ProtocolError("malformed response: expected an object tagged with `type`")
    return frame


def _line_of(frame: dict[str, Any]) -> bytes:
    text = json.dumps(frame, separators=(",", ":"), ensure_ascii=False)
    try:
        return text.encode() + b"\n"
    except UnicodeEncodeError:
        # A file name that is not UTF-8 holds lone surrogates (os's
        # surrogateescape): written as \u escapes they read back as the name.
        return json.dumps(frame, separators=(",", ":")).encode() + b"\n"


def _check_schema() -> None:
    # Every request annotation must name a checker: a typo fails at import.
    for cls in REQUEST_TYPES.values():
        for name in cls._fields:
            _CHECKS[_annotation(cls, name)]


_check_schema()
