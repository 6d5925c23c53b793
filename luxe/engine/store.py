"""Session persistence: one JSONL file per session, fsynced per message.

A file is `$XDG_DATA_HOME/luxe/sessions/<id>.jsonl`: a header line
`{"type": "session", id, cwd, created_at}`, then one line per completed
message (`{"type": "message", "message": {...}}`) and one per compaction
(`{"type": "compaction", "summary": ..., "kept": N}`). Every line is written
whole and fsynced before the engine takes its next step, so a `kill -9`
loses at most the line being written; on load a torn last line is ignored
(and cut off, so the next append starts on a clean line).

Everything here is synchronous file I/O; the session calls it through a
worker thread.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import attrs

import private_files
from luxe.engine.history import message_from_data, message_to_data
from luxe.engine.model import Message, TextBlock, UserMessage
from luxe.protocol.text import scrub, scrub_data
from luxe.record import state


class SessionNotFound(Exception):
    pass


def _iso(seconds: float) -> str:
    """UTC, as `datetime.isoformat(timespec="seconds")` writes it (with
    time's functions: datetime and uuid stay off the path to the first frame)."""
    return time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime(seconds))


def _now() -> str:
    return _iso(time.time())


def new_session_id() -> str:
    # Time first so ids sort by creation; the random tail keeps them unique.
    return time.strftime("%Y%m%d-%H%M%S-", time.gmtime()) + os.urandom(4).hex()


@state
class SessionFile:
    """One session's file and the messages it holds (after compactions)."""

    path: Path
    id: str
    cwd: str
    created_at: str
    messages: list[Message] = attrs.Factory(list)
    record_count: int = 0  # message lines ever written (compaction keeps counting)
    # Where the directories checked by private_files start ($XDG_DATA_HOME);
    # None: the sessions directory's parent.
    base: Path | None = None
    _exists: bool = False
    _fd: int | None = None

    @property
    def title(self) -> str:
        for message in self.messages:
            if isinstance(message, UserMessage):
                for block in message.content:
                    if isinstance(block, TextBlock) and block.text.strip():
                        return block.text.strip().splitlines()[0][:80]
        return ""

    @property
    def updated_at(self) -> str:
        try:
            mtime = self.path.stat().st_mtime
        except FileNotFoundError:
            return self.created_at
        return _iso(mtime)

    def append_message(self, message: Message) -> None:
        """Write one completed message and fsync it (creates the file first)."""
        self._write({"type": "message", "message": message_to_data(message)})
        self.messages.append(message)
        self.record_count += 1

    def append_compaction(self, summary: list[Message], kept: int) -> None:
        """Record that all but the last `kept` messages became `summary`."""
        self._write(
            {
                "type": "compaction",
                "summary": [message_to_data(m) for m in summary],
                "kept": kept,
            }
        )
        tail = self.messages[len(self.messages) - kept :] if kept else []
        self.messages = [*summary, *tail]

    def _write(self, record: dict[str, Any]) -> None:
        lines = []
        if not self._exists:
            header = {"type": "session", "id": self.id, "cwd": self.cwd, "created_at": self.created_at}
            lines.append(json.dumps(header))
        lines.append(json.dumps(record, ensure_ascii=False))
        # scrub: a lone surrogate would fail the encoding (or, escaped, poison a resume).
        data = scrub("\n".join(lines) + "\n").encode("utf-8")
        if self._fd is None:
            # Kept open for the session: an open per message costs more than the write.
            # 0600 in 0700 directories whatever the umask, never through another's link.
            base = self.base if self.base is not None else self.path.parent.parent
            self._fd = private_files.open_file(self.path, os.O_WRONLY | os.O_APPEND, base)
        view = memoryview(data)
        while view:
            view = view[os.write(self._fd, view) :]
        # fdatasync: the data and the size are what a reader needs after a crash.
        os.fdatasync(self._fd)
        self._exists = True

    def close(self) -> None:
        """Release the file (everything written is already on disk)."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


class SessionStore:
    """The directory of session files."""

    def __init__(self, directory: Path, base: Path | None = None) -> None:
        self.directory = directory
        self.base = base  # see SessionFile.base

    def create(self, cwd: str) -> SessionFile:
        """A new, empty session; its file appears with the first message."""
        sid = new_session_id()
        return SessionFile(self.directory / f"{sid}.jsonl", sid, cwd, _now(), base=self.base)

    def open(self, session_id: str) -> SessionFile:
        """Load a session by id; raises SessionNotFound with a clear message
        (also for a file that is not a session, or cannot be read)."""
        if not session_id or "/" in session_id or session_id.startswith("."):
            raise SessionNotFound(f"no session {session_id!r}")
        path = self.directory / f"{session_id}.jsonl"
        if not path.is_file():
            raise SessionNotFound(f"no session {session_id!r} in {self.directory}")
        try:
            session = _load(path, repair=True)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise SessionNotFound(f"{session_id} is not a session file") from exc
        session.base = self.base
        return session

    def latest_for(self, cwd: str) -> str | None:
        """The id of the most recently updated session started in `cwd`."""
        best: tuple[float, str] | None = None
        for path in self._files():
            header = _header(path)
            if header is None or header.get("cwd") != cwd:
                continue
            mtime = path.stat().st_mtime
            if best is None or mtime > best[0]:
                best = (mtime, str(header["id"]))
        return best[1] if best else None

    def list_sessions(self) -> list[SessionFile]:
        """Every readable session, most recently updated first."""
        sessions = []
        for path in self._files():
            try:
                sessions.append(_load(path, repair=False))
            except (OSError, ValueError, KeyError, TypeError):
                continue
        sessions.sort(key=lambda s: s.updated_at, reverse=True)
        return sessions

    def _files(self) -> list[Path]:
        try:
            return sorted(self.directory.glob("*.jsonl"))
        except OSError:
            return []


def _header(path: Path) -> dict[str, Any] | None:
    try:
        with path.open("rb") as f:
            header = json.loads(f.readline())
    except (OSError, ValueError):
        return None
    return header if isinstance(header, dict) and header.get("type") == "session" else None


def _load(path: Path, *, repair: bool) -> SessionFile:
    raw = path.read_bytes()
    if repair and raw and not raw.endswith(b"\n"):
        # A crash cut the last line short: drop it so appends start clean.
        cut = raw.rfind(b"\n") + 1
        with path.open("r+b") as f:
            f.truncate(cut)
            os.fsync(f.fileno())
        raw = raw[:cut]
    lines = raw.split(b"\n")
    header = json.loads(lines[0])
    if not isinstance(header, dict) or header.get("type") != "session":
        raise ValueError(f"{path}: not a session file")
    session = SessionFile(path, str(header["id"]), str(header["cwd"]), str(header["created_at"]))
    session._exists = True
    for line in lines[1:]:
        if not line.strip():
            continue
        try:
            # scrub: an older file may hold a lone surrogate escape; as U+FFFD
            # it can go to the model again.
            record = scrub_data(json.loads(line))
            if record["type"] == "message":
                session.messages.append(message_from_data(record["message"]))
                session.record_count += 1
            elif record["type"] == "compaction":
                summary = [message_from_data(m) for m in record["summary"]]
                kept = int(record["kept"])
                tail = session.messages[len(session.messages) - kept :] if kept else []
                session.messages = [*summary, *tail]
        except (ValueError, KeyError, TypeError):
            # A torn or foreign line: what came before it is still good.
            continue
    return session
