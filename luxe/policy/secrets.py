"""The set of secret files Luxe guards, kept fresh: `SecretFiles` knows
the project's secret files and the user's credential files by identity,
and holds the redactor for all their values (and git's history's).

It composes the rest of the family: secret_names.py (which paths are
secrets), secret_walk.py (walking the project for them, bounded, symlinks
not followed), secret_identity.py (their keys and signatures),
secret_sources.py (the user's credential files, git's history and remote
URLs), stored_tokens.py (gh's tokens in the keyring), secret_values.py (the
values in a file's text) and secret_redaction.py (the redactor).
"""

from __future__ import annotations

import threading
from itertools import zip_longest

from luxe.policy.secret_identity import (
    FileKey,
    FileSignature,
    file_key,
    file_signature,
    found_signature,
    opened_is_secret,
)
from luxe.policy.secret_names import is_secret_path
from luxe.policy.secret_redaction import Redactor
from luxe.policy.secret_sources import (
    git_history_secrets,
    git_url_credentials,
    history_signature,
    home_secret_files,
)
from luxe.policy.secret_values import MIN_SECRET_LENGTH, secret_values_from_file
from luxe.policy.secret_walk import Listings, SkippedCache, walk_project
from luxe.policy.stored_tokens import StoredTokens
from luxe.regular_file import read_regular

MAX_SECRET_FILE_BYTES = 1 << 20


def collect_secret_values(root: str) -> Redactor:
    """The redactor for the project's secret files as they are now."""
    files = SecretFiles(root, home=None)
    files.refresh_known()
    return files.redactor


def _in_turn(sources: list[list[tuple[str, str]]]) -> list[tuple[str, str]]:
    """The sources' values, the first of each, then the second of each..."""
    return [value for row in zip_longest(*sources) for value in row if value is not None]


def _read_values(path: str) -> list[tuple[str, str]]:
    """The values in the secret file `path` (its first MB), or none when it
    is no longer a regular file: a `.env` replaced by a FIFO must not hold
    the lock every redaction waits on."""
    read = read_regular(path, MAX_SECRET_FILE_BYTES)
    if read is None:
        return []
    return secret_values_from_file(path, read[0].decode("utf-8", "replace"))


class SecretFiles:
    """The secret files Luxe guards: the project's (named as secrets, and the
    hard links to them under other names) and the user's well-known
    credential files in `home` (`~/.ssh/*`, `~/.aws/credentials`, ...) and
    `elsewhere` (where the environment moved them), each
    known by its identity (device, inode) so a hard link to it anywhere is
    recognised; and the values of all of them, plus those git can show from
    the project's history, `extra_values` (the credentials in Luxe's
    environment, the provider's API key among them) and what `stored` finds
    (gh's tokens in the keyring), for redaction.

    Kept fresh cheaply: `refresh_known` re-stats the files already known (one
    `stat` each, before every redaction pass); `rescan` walks the project again
    for new ones and asks git again when HEAD, the refs or the index moved
    (after a call that may have written files). Either rereads the values
    only when something changed. The engine calls it from its one trio
    thread, except `settle`, which the gate runs in a worker thread: every
    method that walks or rereads holds one lock, so a redaction that comes
    while the deferred first scan runs waits for its values rather than go
    without them.
    """

    def __init__(
        self,
        root: str,
        *,
        home: str | None = None,
        elsewhere: tuple[str, ...] = (),
        extra_values: tuple[tuple[str, str], ...] = (),
        stored: StoredTokens | None = None,
    ) -> None:
        self.root = root
        self.home = home
        self.elsewhere = elsewhere
        self.stored = stored
        self.extra_values = tuple((n, v) for n, v in extra_values if len(v) >= MIN_SECRET_LENGTH)
        self._stats: dict[str, FileSignature] = {}
        self._home_paths: frozenset[str] = frozenset()
        self._skipped_cache: SkippedCache = {}
        self._listings: Listings = {}
        self._history_signature: tuple[int, ...] | None = None
        self._history_values: list[tuple[str, str]] = []
        self.keys: frozenset[FileKey] = frozenset()
        # Every path in the project holding a secret: the files named as
        # secrets and the hard links to them under other names.
        self.paths: tuple[str, ...] = ()
        self.redactor = Redactor()
        self._lock = threading.RLock()
        self._stopped = threading.Event()  # the session is closing: `stop`
        # Before the handshake only the user's credential files are stat'ed
        # (and the provider's key known): the walk of the project and git's
        # history wait for `settle`, run in a worker thread after the
        # handshake and awaited by everything that reads through the gate
        # (a turn, the system prompt, a review), or for the first redaction
        # if that comes first. A big checkout no longer delays the first frame.
        self._deferred = True
        # Forced: with no credential file at all the stats match the empty
        # ones above, and the extra values would wait for a file to appear.
        self._update(self._home_stats(), force=True)

    def is_secret(self, path: str) -> bool:
        """True when `path` names a secret file by its name or is (a hard link
        to, or a symlink to) a known secret file."""
        if is_secret_path(path):
            return True
        return bool(self.keys) and file_key(path) in self.keys

    def is_secret_opened(self, fd: int) -> bool:
        """True when the file open on `fd` is a known secret file, or the
        kernel names it as one (opened_is_secret)."""
        return opened_is_secret(fd, self.keys)

    def _home_stats(self) -> dict[str, FileSignature]:
        """The user's credential files that exist, by their signatures (and
        kept as the ones whose values come first)."""
        files = [*(home_secret_files(self.home) if self.home else []), *self.elsewhere]
        found = {p: s for p in files if (s := file_signature(p, follow=True)) is not None}
        self._home_paths = frozenset(found)
        return found

    def settle(self) -> bool:
        """Do what start-up left out, once: the walk of skipped directories
        and git's history (True when that changed the values). Safe in a
        worker thread; a second call, or one after the first redaction,
        does nothing."""
        with self._lock:
            if not self._deferred:
                return False
            self._deferred = False
            if self.stored is None:
                return self.rescan()
            self.stored.start()  # gh answers while the project is walked
            try:
                changed = self.rescan()
            finally:
                learned = tuple(self.stored.collect())  # every gh reaped, whatever happened
            if not learned:
                return changed
            self.extra_values = (*self.extra_values, *learned)
            return self._update(self._stats, force=True)

    def stop(self) -> None:
        """The session is closing: a `settle` or `rescan` running in another
        thread stops waiting for gh's answers and git's, and ends every gh
        and git at once; none runs from then on. From any thread (it takes
        no lock: `settle` holds it)."""
        self._stopped.set()
        if self.stored is not None:
            self.stored.stop()

    def rescan(self, *, history: bool = True, deep: bool = True) -> bool:
        """Walk the project for secret files (and, with `history`, ask git
        again if HEAD, the refs or the index moved); True when the set or any
        of them changed (the values were then reread)."""
        with self._lock:
            return self._rescan(history=history, deep=deep)

    def _rescan(self, *, history: bool, deep: bool) -> bool:
        kept: Listings = {}
        named, by_inode = walk_project(
            self.root, self._skipped_cache, deep=deep, listings=(self._listings, kept)
        )
        self._listings = kept
        stats = {p: s for p in named if (s := found_signature(p)) is not None}
        for p, s in self._home_stats().items():
            stats.setdefault(p, s)
        changed = self._update(stats, force=history and self._refresh_history())
        links = [
            p
            for _dev, ino in self.keys
            for p in by_inode.get(ino, ())
            if p not in stats and file_key(p) in self.keys
        ]
        # The secret files a search may reach: the project's, and those
        # behind its symlinks out of it (the user's own, by path, are not).
        self.paths = (*(p for p in stats if p not in self._home_paths), *links)
        return changed

    def _refresh_history(self) -> bool:
        signature = history_signature(self.root)
        if signature == self._history_signature:
            return False
        self._history_signature = signature
        values = git_history_secrets(self.root, is_secret_path, self._stopped)
        values += git_url_credentials(self.root, self.home)
        if values == self._history_values:
            return False
        self._history_values = values
        return True

    def refresh_known(self) -> bool:
        """Re-stat the known secret files; True when one changed or vanished
        (the first call does what start-up left out, unless `settle` has)."""
        with self._lock:
            if self._deferred:
                return self.settle()
            stats = {p: s for p in self._stats if (s := self._restat(p)) is not None}
            return self._update(stats)

    def _restat(self, path: str) -> FileSignature | None:
        """A known secret file's signature now: the user's own by the file
        their path leads to, the project's as the walk found them."""
        return file_signature(path, follow=True) if path in self._home_paths else found_signature(path)

    def _update(self, stats: dict[str, FileSignature], *, force: bool = False) -> bool:
        if stats == self._stats and not force:
            return False
        # The person's own secrets first (the provider's key, then their
        # credentials), the repository's after, one value from each of its
        # files (and git's history) in turn: MAX_VALUES bounds the matcher,
        # and no .env of thousands of values may push a credential of the
        # person's, or another file's key, out of it.
        values: list[tuple[str, str]] = list(self.extra_values)
        for path in [p for p in stats if p in self._home_paths]:
            values.extend(_read_values(path))
        project = [_read_values(p) for p in stats if p not in self._home_paths]
        values.extend(_in_turn([*project, self._history_values]))
        self._stats = stats
        self.keys = frozenset((s[0], s[1]) for s in stats.values())
        self.redactor = Redactor(tuple(dict.fromkeys(values)))
        return True
