"""Review sessions on disk, under `<repo>/.luxe/reviews/`, one file per review.

Each file holds the session and the review it was saved against (the review
is what re-maps anchors when a newer revision loads). Writes are atomic:
write a temporary file in the same directory, fsync it, rename it over the
old one, fsync the directory. A crash leaves the old file or the new one,
never half of either.

The methods block on the file system; async callers run them in a thread
(`trio.to_thread.run_sync`), which finishes the write even on cancel.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from pathlib import Path

from luxe.record import record
from luxe.regular_file import read_regular
from luxe.review.model import Review, ReviewSession, WireError, from_wire, to_wire

FORMAT_VERSION = 1
# A stored session is some kilobytes per finding; a review's own diff is at
# most luxe.review.diff.DIFF_CAP.
MAX_STORED_BYTES = 64 << 20
_REVIEW_ID = re.compile(r"^review:([0-9a-f]{8,64})$")
# The store is the user's working data, never part of their change.
_IGNORE_ALL = "# Luxe's review sessions: never committed.\n*\n"


class StoreError(Exception):
    """A stored session that cannot be read or written; says which and why."""


class LinkedStore(StoreError):
    """The store, or `.luxe/` above it, is a symbolic link: nothing is read
    or written there (and nothing there is set aside)."""


@record
class StoredReview:
    session: ReviewSession
    review: Review


class ReviewStore:
    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def path_for(self, review_id: str) -> Path:
        match = _REVIEW_ID.match(review_id)
        if match is None:  # ids become file names: nothing else may
            raise StoreError(f"{review_id!r} is not a review id")
        return self.directory / f"{match.group(1)}.json"

    def _refuse_links(self) -> None:
        """The store and the folder holding it (`.luxe/`) are in the
        repository: a symbolic link its author put there would send the
        sessions (and the `.gitignore`) wherever it points."""
        for folder in (self.directory.parent, self.directory):
            if folder.is_symlink():
                raise LinkedStore(
                    f"{folder} is a symbolic link; review sessions are not stored through one"
                )

    def save(self, session: ReviewSession, review: Review) -> None:
        """Write the session atomically (see the module doc)."""
        path = self.path_for(session.review_id)
        self._refuse_links()
        self.directory.mkdir(parents=True, exist_ok=True)
        ignore = self.directory / ".gitignore"
        if not ignore.exists():
            _write_atomically(ignore, _IGNORE_ALL.encode())
        data = {"version": FORMAT_VERSION, "session": to_wire(session), "review": to_wire(review)}
        _write_atomically(path, json.dumps(data, ensure_ascii=False).encode("utf-8"))

    def load(self, review_id: str) -> StoredReview | None:
        """The stored session of `review_id`, or None if there is none.
        Raises StoreError when the file is there but unreadable."""
        path = self.path_for(review_id)
        self._refuse_links()
        if not os.path.lexists(path):
            return None
        # The store is inside the repository, whose author may have put a
        # FIFO, a link to /dev/zero or a huge file where a session would be.
        read = read_regular(path, MAX_STORED_BYTES)
        if read is None:
            raise StoreError(f"{path} is not a regular file, or cannot be read")
        raw, more = read
        if more:
            raise StoreError(f"{path} is over {MAX_STORED_BYTES >> 20} MB")
        try:
            data = json.loads(raw)
            if not isinstance(data, dict) or data.get("version") != FORMAT_VERSION:
                raise WireError("unknown format version")
            stored = StoredReview(
                from_wire(data["session"], ReviewSession), from_wire(data["review"], Review)
            )
        except (ValueError, KeyError) as error:  # WireError is a ValueError, so is bad JSON
            raise StoreError(f"{path} is not a review session: {error}") from None
        if stored.session.review_id != review_id:
            raise StoreError(f"{path} holds {stored.session.review_id}, not {review_id}")
        return stored


def _write_atomically(path: Path, data: bytes) -> None:
    fd, temp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as temp:
            temp.write(data)
            temp.flush()
            os.fsync(temp.fileno())
        os.replace(temp_name, path)
    except BaseException:
        try:
            os.unlink(temp_name)
        except FileNotFoundError:
            pass
        raise
    directory = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(directory)  # the rename itself survives a crash
    finally:
        os.close(directory)
