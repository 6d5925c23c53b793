"""The journal: an append-only NDJSON log of what an agent did in a tab.

`ready` opens one per tab session at
`$XDG_STATE_HOME/laura/sessions/<session>.ndjson` (default state home
`~/.local/state`); the host then logs `ready`, `open`, `close`, `focus`,
`highlight`, `diff`, `comment` and `review` events, one compact JSON object
per line, each with `ts` (unix milliseconds), `session` and `version`.
`laura journal` reads every session back, filtered, oldest first, with no tab
needed.

Standard library only: `laura journal` runs as a short-lived client, and
importing trio or attrs would cost more than the work.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import private_files
from laura import __version__

DEFAULT_LIMIT = 50
_UNITS_MS = {"s": 1_000, "m": 60_000, "h": 3_600_000, "d": 86_400_000, "w": 604_800_000}
_DURATION = re.compile(r"(\d+)([smhdw])")
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")


def state_home(env: dict[str, str] | os._Environ[str] | None = None) -> Path:
    """`$XDG_STATE_HOME` if set and absolute (the XDG rule: a relative value
    is ignored), else `$HOME/.local/state`, `$HOME` as private_files.home
    reads it (never a shared temp directory: `/tmp/laura` is any local
    user's to make first)."""
    env = os.environ if env is None else env
    configured = env.get("XDG_STATE_HOME", "")
    if configured and os.path.isabs(configured):
        return Path(configured)
    return private_files.home(env) / ".local" / "state"


def sessions_dir(env: dict[str, str] | os._Environ[str] | None = None) -> Path:
    return state_home(env) / "laura" / "sessions"


def sanitize_session(session: str) -> str:
    """A session id safe as a file name: `[A-Za-z0-9._-]` kept, anything
    else `_`; empty becomes `session`. Dots alone cannot climb out of the
    directory since no separator survives."""
    cleaned = _UNSAFE.sub("_", session)
    return cleaned if cleaned.strip(".") else "session"


def default_session(pid: int, tab_number: int) -> str:
    """`laura-<host pid>-<tab n>`: the session a tab logs to when `ready`
    names none."""
    return f"laura-{pid}-{tab_number}"


def now_ms() -> int:
    return time.time_ns() // 1_000_000


def encode_event(event: dict[str, Any]) -> str:
    """One compact JSON line, keys sorted (stable to diff and to grep)."""
    text = json.dumps(event, separators=(",", ":"), sort_keys=True, ensure_ascii=False)
    try:
        text.encode()
    except UnicodeEncodeError:
        # A path that is not UTF-8 (lone surrogates): \u escapes keep it.
        text = json.dumps(event, separators=(",", ":"), sort_keys=True)
    return text + "\n"


class Journal:
    """One session's log file. Created lazily on the first event, appended
    with one `write` per event (so each line reaches the file whole and at
    once, and lines from several writers never interleave), and best-effort:
    a write that fails is dropped, never raised into the host's loop.

    Writes are small and synchronous; a journal is written a few times a
    second at most, so it does not need a thread.
    """

    def __init__(
        self, path: Path, session: str, agent: str | None = None, base: Path | None = None
    ) -> None:
        self.path = path
        self.session = session
        self.agent = agent
        # The state home: private_files checks each directory below it.
        self.base = base if base is not None else path.parent

    @classmethod
    def open(
        cls,
        session: str,
        agent: str | None = None,
        env: dict[str, str] | os._Environ[str] | None = None,
    ) -> Journal:
        """The journal for `session` (sanitised) under the state home."""
        name = sanitize_session(session)
        return cls(sessions_dir(env) / f"{name}.ndjson", session, agent, state_home(env))

    def log(self, event_type: str, **fields: Any) -> bool:
        """Append one event; True when it reached the file."""
        event: dict[str, Any] = {"ts": now_ms(), "session": self.session, "version": __version__}
        if self.agent is not None:
            event["agent"] = self.agent
        event.update(fields)
        event["type"] = event_type
        line = encode_event(event).encode("utf-8")
        try:
            # 0600 in 0700 directories whatever the umask; another user's
            # directory or link is refused (the event is dropped).
            fd = private_files.open_file(self.path, os.O_RDWR | os.O_APPEND, self.base)
            try:
                # A writer that died mid-line left a torn tail; start on a
                # fresh line so this event does not join it and get lost too.
                size = os.fstat(fd).st_size
                if size and os.pread(fd, 1, size - 1) != b"\n":
                    line = b"\n" + line
                os.write(fd, line)
            finally:
                os.close(fd)
        except OSError:
            return False
        return True


# -- reading ----------------------------------------------------------------


def read_events(directory: Path) -> list[dict[str, Any]]:
    """Every event of every `*.ndjson` in `directory`, sorted by `ts` (file
    order within a tie). Unreadable files, torn or malformed lines and lines
    that are not JSON objects are skipped."""
    events: list[dict[str, Any]] = []
    try:
        files = sorted(directory.glob("*.ndjson"))
    except OSError:
        return events
    for file in files:
        try:
            raw = file.read_bytes()
        except OSError:
            continue
        for line in raw.decode("utf-8", errors="replace").split("\n"):
            if not line.strip():
                continue
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if isinstance(event, dict):
                events.append(event)
    events.sort(key=_timestamp)
    return events


def _timestamp(event: dict[str, Any]) -> float:
    value = event.get("ts")
    return value if isinstance(value, int | float) and not isinstance(value, bool) else 0


def parse_filter(text: str) -> tuple[str, str]:
    """`FIELD=VALUE` -> (field, value); ValueError worded for the user."""
    field, sep, value = text.partition("=")
    if not sep or not field:
        raise ValueError(f"expected FIELD=VALUE, got `{text}`")
    return field, value


def parse_since(text: str) -> int:
    """`30m`, `24h`, `7d` (also `s` and `w`) -> milliseconds."""
    match = _DURATION.fullmatch(text.strip())
    if match is None:
        raise ValueError(f"expected a duration like 30m, 24h, 7d, got `{text}`")
    return int(match.group(1)) * _UNITS_MS[match.group(2)]


def _as_filter_text(value: Any) -> str:
    """How a field's value compares against a filter: strings literally,
    anything else (numbers, booleans, null, a missing field) as JSON text."""
    if isinstance(value, str):
        return value
    return json.dumps(value, separators=(",", ":"), sort_keys=True, ensure_ascii=False)


def select(
    events: Iterable[dict[str, Any]],
    filters: Sequence[tuple[str, str]] = (),
    since_ms: int | None = None,
    now: int | None = None,
) -> list[dict[str, Any]]:
    """The events that pass every field's filter (one value of a repeated
    field is enough) and are no older than `since_ms`."""
    wanted: dict[str, set[str]] = {}
    for field, value in filters:
        wanted.setdefault(field, set()).add(value)
    cutoff = None if since_ms is None else (now_ms() if now is None else now) - since_ms
    chosen = []
    for event in events:
        if cutoff is not None and _timestamp(event) < cutoff:
            continue
        if all(_as_filter_text(event.get(field)) in values for field, values in wanted.items()):
            chosen.append(event)
    return chosen


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="laura journal",
        description=(
            "Print journal events (what agents did in Laura tabs), oldest first. "
            "Works outside a tab."
        ),
        epilog=(
            "Filters match top-level fields: strings literally, other values as JSON "
            "(pane=2, body=null; a missing field is null). A field given twice matches "
            "either value; different fields must all match."
        ),
    )
    parser.add_argument("filters", nargs="*", metavar="FIELD=VALUE", type=_arg(parse_filter))
    parser.add_argument(
        "--since",
        type=_arg(parse_since),
        metavar="DURATION",
        help="only events newer than this (30m, 24h, 7d)",
    )
    parser.add_argument(
        "-n",
        type=int,
        default=DEFAULT_LIMIT,
        metavar="N",
        help=f"print the newest N matching events (default {DEFAULT_LIMIT})",
    )
    return parser


def _arg(parse: Any) -> Any:
    """Adapt a parser raising ValueError to argparse, keeping our message."""

    def convert(text: str) -> Any:
        try:
            return parse(text)
        except ValueError as error:
            raise argparse.ArgumentTypeError(str(error)) from None

    return convert


def journal_main(argv: Sequence[str], env: dict[str, str] | None = None) -> int:
    """`laura journal [FIELD=VALUE ...] [--since 30m] [-n N]`: print the
    newest N matching events oldest first, one compact JSON object a line; say
    on stderr when some were left out. Usage errors exit 2."""
    args = _parser().parse_args(list(argv))
    if args.n < 0:
        print("laura journal: error: -n must be 0 or more", file=sys.stderr)
        return 2
    matching = select(read_events(sessions_dir(env)), args.filters, args.since)
    shown = matching[-args.n :] if args.n else []
    out = sys.stdout
    for event in shown:
        out.write(encode_event(event))
    out.flush()
    if len(shown) < len(matching):
        print(f"showing {len(shown)} of {len(matching)} events; pass -n for more", file=sys.stderr)
    return 0


if __name__ == "__main__":  # pragma: no cover - `python -m laura.journal`
    raise SystemExit(journal_main(sys.argv[1:]))
