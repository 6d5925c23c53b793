"""Prompt history, persisted per project.

One JSON string per line in `$XDG_STATE_HOME/luxe/history/<hash of cwd>.jsonl`;
the newest entry last, at most MAX_ENTRIES kept. `Browse` walks it with
Up/Down (keeping the draft the user was typing) and searches it (Ctrl+R).
Reading never fails the interface: an unreadable file is an empty history.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from pathlib import Path

import attrs

import private_files
from luxe.record import state

log = logging.getLogger("luxe.tui")

MAX_ENTRIES = 1000


def history_file(state_dir: Path, cwd: Path) -> Path:
    digest = hashlib.sha256(str(cwd).encode("utf-8", "surrogateescape")).hexdigest()[:16]
    return state_dir / "history" / f"{digest}.jsonl"


@state
class History:
    path: Path | None
    entries: list[str] = attrs.Factory(list)

    @classmethod
    def load(cls, path: Path | None) -> History:
        entries: list[str] = []
        if path is not None:
            try:
                for line in path.read_bytes().splitlines():
                    try:
                        value = json.loads(line)  # not UTF-8 or not JSON: that line is skipped
                    except ValueError:
                        continue
                    if isinstance(value, str):
                        entries.append(value)
            except OSError:
                pass
        return cls(path, entries[-MAX_ENTRIES:])

    def add(self, text: str) -> None:
        if not text.strip() or (self.entries and self.entries[-1] == text):
            return
        self.entries.append(text)
        if self.path is None:
            return
        # The prompts are the person's: 0600 in a 0700 directory, whatever
        # the umask, never written through another user's link.
        base = self.path.parents[2]  # $XDG_STATE_HOME, above luxe/history/
        try:
            if len(self.entries) > MAX_ENTRIES * 2:
                self.entries = self.entries[-MAX_ENTRIES:]
                body = "".join(json.dumps(e) + "\n" for e in self.entries)
                flags = os.O_WRONLY | os.O_TRUNC
            else:
                body = json.dumps(text) + "\n"
                flags = os.O_WRONLY | os.O_APPEND
            with os.fdopen(private_files.open_file(self.path, flags, base), "w", encoding="utf-8") as f:
                f.write(body)
        except OSError as exc:
            log.info("history not saved: %s", exc)

    def search(self, query: str, before: int | None = None) -> int | None:
        """Index of the newest entry containing `query`, older than `before`."""
        start = len(self.entries) if before is None else before
        for i in range(start - 1, -1, -1):
            if query in self.entries[i]:
                return i
        return None


@state
class Browse:
    """Up/Down through history; the draft is kept and comes back at the end."""

    history: History
    index: int | None = None
    draft: str = ""

    def older(self, current: str) -> str | None:
        if not self.history.entries:
            return None
        if self.index is None:
            self.draft = current
            self.index = len(self.history.entries)
        if self.index == 0:
            return None
        self.index -= 1
        return self.history.entries[self.index]

    def newer(self) -> str | None:
        if self.index is None:
            return None
        self.index += 1
        if self.index >= len(self.history.entries):
            self.index = None
            return self.draft
        return self.history.entries[self.index]

    def reset(self) -> None:
        self.index = None
        self.draft = ""
