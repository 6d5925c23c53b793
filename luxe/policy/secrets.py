"""Secret files: which paths nothing may read or write, and redaction of
their values from tool output.

Everything here is pure except `SecretFiles`, which walks the project
(bounded, symlinks not followed), stats the user's well-known credential
files, asks git for the values in its history, and reads them all.
"""

from __future__ import annotations

import base64
import fnmatch
import os
import re
import stat
import threading
import time
from itertools import zip_longest
from pathlib import PurePosixPath

import attrs

from luxe.policy.secret_sources import (
    git_history_secrets,
    git_url_credentials,
    history_signature,
    home_secret_files,
)
from luxe.policy.secret_values import MIN_SECRET_LENGTH, secret_values_from_file
from luxe.real_path import real_path
from luxe.record import record
from luxe.regular_file import read_regular

# `.env` and `.env.*` hold secrets by convention; these suffixes are the
# conventional *templates* checked into repositories, so they stay readable.
ENV_TEMPLATE_SUFFIXES = frozenset({"example", "sample", "template"})

# Private SSH keys by their default names (the `.pub` halves are public).
SSH_PRIVATE_KEY_NAMES = frozenset(
    {"id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "id_ecdsa_sk", "id_ed25519_sk", "identity"}
)

# Files that hold credentials as plainly as a `.env` does.
CREDENTIAL_FILE_NAMES = frozenset(
    {".netrc", "_netrc", ".pgpass", ".git-credentials", ".npmrc", ".pypirc", "credentials.json"}
)

# Private key material by extension (TLS keys and certificates with their
# keys, PKCS#12 bundles).
PRIVATE_KEY_SUFFIXES = (".key", ".pem", ".p12", ".pfx")

# Credential files known by their directory and name (lower case).
CREDENTIAL_PATHS = frozenset(
    {
        (".aws", "credentials"),
        (".docker", "config.json"),
        ("gh", "hosts.yml"),
        (".kube", "config"),
        ("git", "credentials"),
        (".cargo", "credentials"),
        (".cargo", "credentials.toml"),
        (".gem", "credentials"),
    }
)

# Dot-file secret names a shell glob is tested against: `cat .e*` could expand
# to one of these. Only globs that start with a literal `.` can (the shell
# never expands `*` to a dot-file); other globs are expanded against the
# filesystem instead (see `facts.py`).
SAMPLE_SECRET_DOTFILES = (
    ".env",
    ".envrc",
    ".env.local",
    ".env.production",
    ".env.development",
    ".env.test",
    ".netrc",
    ".pgpass",
    ".git-credentials",
    ".npmrc",
    ".pypirc",
)

GLOB_CHARS = frozenset("*?[")


def is_secret_name(name: str) -> bool:
    """True when a file called `name` (a basename) is a hard-denied secret.

    Case-insensitive, since `.ENV` is the same file on a case-insensitive
    filesystem and means the same thing everywhere else.
    """
    lower = name.lower()
    if lower in (".env", ".envrc"):  # .envrc: direnv's, `export KEY=value`
        return True
    if lower.startswith(".env."):
        suffix = lower[len(".env.") :]
        return bool(suffix) and suffix not in ENV_TEMPLATE_SUFFIXES
    if lower in SSH_PRIVATE_KEY_NAMES or lower in CREDENTIAL_FILE_NAMES:
        return True
    return lower.endswith(PRIVATE_KEY_SUFFIXES) and len(lower) > 4


def is_secret_path(path: str) -> bool:
    """True when `path` (any form: relative, absolute, with `..`) names a
    secret file by its last component, or lies in `.aws/credentials` or a
    `.ssh` directory's private keys."""
    parts = PurePosixPath(path.rstrip("/") or "/").parts
    if not parts:
        return False
    name = parts[-1]
    if name in (".", ".."):
        return False
    if is_secret_name(name):
        return True
    lower_parts = [p.lower() for p in parts]
    if len(lower_parts) >= 2 and (lower_parts[-2], lower_parts[-1]) in CREDENTIAL_PATHS:
        return True
    # Any non-public file in ~/.ssh other than the well-known public ones.
    return (
        len(lower_parts) >= 2
        and lower_parts[-2] == ".ssh"
        and lower_parts[-1].startswith("id_")
        and not lower_parts[-1].endswith(".pub")
    )


# Secret file names a glob with an unknown part (`*nv` from `${X}nv`) is
# tested against.
SAMPLE_SECRET_NAMES = (
    *SAMPLE_SECRET_DOTFILES,
    *sorted(SSH_PRIVATE_KEY_NAMES),
    "_netrc",
    "credentials.json",
    "server.pem",
    "server.key",
    "bundle.p12",
    "bundle.pfx",
)


def could_name_secret(pattern: str) -> bool:
    """True when a file-name glob (`*nv`, `.e*`, `id_*`) matches some secret
    file name. Case-insensitive. Pure."""
    lower = pattern.lower()
    return any(fnmatch.fnmatchcase(name, lower) for name in SAMPLE_SECRET_NAMES)


def glob_may_name_secret(word: str) -> bool:
    """True when a shell glob that starts with a dot (`.e*`, `.en?`,
    `.[e]nv`) could expand to a secret dot-file name. Pure."""
    if not GLOB_CHARS & set(word):
        return False
    base = word.rstrip("/").rsplit("/", 1)[-1]
    if not base.startswith("."):
        return False
    return any(
        fnmatch.fnmatchcase(sample, base) or fnmatch.fnmatchcase(sample, base.lower())
        for sample in SAMPLE_SECRET_DOTFILES
    )


# -- redaction ---------------------------------------------------------------

def _base64_forms(value: bytes) -> list[str]:
    """The parts of `value`'s base64 that do not depend on its neighbours,
    at each of the three alignments it can have in a longer text."""
    forms = []
    for align in range(3):
        encoded = base64.b64encode(b"\0" * align + value).decode().rstrip("=")
        first = -(-8 * align // 6)  # the first character made only of value bits
        last = 8 * (align + len(value)) // 6
        forms.append(encoded[first:last])
    return forms


ENCODED_UP_TO = 48
# At most this many values are redacted (the first given first: the
# provider's key and the user's credentials come before the project's secret
# files and git's history): the matcher stays fast.
MAX_VALUES = 2000


def encoded_forms(value: str) -> tuple[list[str], list[str]]:
    """(forms matched case-insensitively, forms matched exactly) of a secret
    value as it may appear in output: itself in any case, reversed, hex, and
    base64 at the three alignments. Forms shorter than `MIN_SECRET_LENGTH`
    are dropped (they would garble unrelated output). A value of
    ENCODED_UP_TO characters or more (a line of a key's body) is matched as
    itself only: a key's lines are not shown one by one in hex."""
    if len(value) >= ENCODED_UP_TO:
        return [value], []
    raw = value.encode()
    loose = [value, value[::-1], raw.hex()]
    exact = _base64_forms(raw)
    return (
        [f for f in loose if len(f) >= MIN_SECRET_LENGTH],
        [f for f in exact if len(f) >= MIN_SECRET_LENGTH],
    )


Trie = dict[str, "Trie"]


def _trie_regex(words: set[str] | frozenset[str]) -> str:
    """A regex matching any of `words`, longest first, built as a trie."""
    trie: Trie = {}
    for word in words:
        node = trie
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = {}  # the end of a word

    def build(node: Trie) -> str:
        ends = "" in node
        children = [re.escape(ch) + build(child) for ch, child in sorted(node.items()) if ch]
        if not children:
            return ""
        body = children[0] if len(children) == 1 else "(?:" + "|".join(children) + ")"
        if ends:
            return f"(?:{body})?" if len(children) > 1 or len(body) > 1 else f"{body}?"
        return body

    return build(trie)


# A cut edge (where output was truncated) may show the start or the end of a
# value: a piece this long of a value's form at an edge counts as the value.
MIN_EDGE_PIECE = 8


def _in_turn(sources: list[list[tuple[str, str]]]) -> list[tuple[str, str]]:
    """The sources' values, the first of each, then the second of each..."""
    return [value for row in zip_longest(*sources) for value in row if value is not None]


@record
class Redactor:
    """Replaces every known secret value in a text with `[REDACTED:<name>]`:
    the value in any case, reversed, in hex, or in base64. A value spanning
    lines keeps its line breaks (line numbers stay right). With `cut_start`
    / `cut_end`, a piece of a value of `MIN_EDGE_PIECE` characters or more at
    that edge of the text (where it was truncated) is redacted too. Defence
    in depth, not a guarantee: any other transform (`od -c`) gets through."""

    values: tuple[tuple[str, str], ...] = ()
    _pattern: re.Pattern[str] | None = attrs.field(init=False, default=None)
    _names: dict[str, str] = attrs.field(init=False, factory=dict)
    # Every form matched, for the stream redactor's hold-back.
    forms: tuple[str, ...] = attrs.field(init=False, default=())
    _edges: dict[str, frozenset[str]] = attrs.field(init=False, factory=dict)

    def __attrs_post_init__(self) -> None:
        names: dict[str, str] = {}  # a form (lower-cased if loose) -> its secret's name
        loose: set[str] = set()
        exact: set[str] = set()
        for name, value in self.values[:MAX_VALUES]:
            names.setdefault(value, name)
            ci, cs = encoded_forms(value)
            for form in ci:
                names.setdefault(form.lower(), name)
                loose.add(form)
            for form in cs:
                names.setdefault(form, name)
                exact.add(form)
        if loose or exact:
            # One trie per kind: the regex engine then follows one branch per
            # character instead of trying every value at every position (a
            # few thousand values stay fast), and prefers the longest match,
            # so a value containing another is replaced whole.
            branches = []
            if loose:
                branches.append(f"(?i:{_trie_regex({f.lower() for f in loose})})")
            if exact:
                branches.append(_trie_regex(exact))
            object.__setattr__(self, "_pattern", re.compile("|".join(branches)))
            forms = sorted({*loose, *exact}, key=len, reverse=True)
            object.__setattr__(self, "forms", tuple(forms))
        object.__setattr__(self, "_names", names)

    def _name(self, found: str) -> str:
        return self._names.get(found) or self._names.get(found.lower(), "secret")

    def _marker(self, found: str) -> str:
        return f"[REDACTED:{self._name(found)}]" + "\n" * found.count("\n")

    def redact(self, text: str, *, cut_start: bool = False, cut_end: bool = False) -> str:
        if self._pattern is None or not text:
            return text
        out = self._pattern.sub(lambda m: self._marker(m.group(0)), text)
        if cut_end and (k := self._edge_length(out, "prefix")):
            out = out[:-k] + f"[REDACTED:{self._edge_name(out[-k:], 'prefix')}]"
        if cut_start and (k := self._edge_length(out, "suffix")):
            out = f"[REDACTED:{self._edge_name(out[:k], 'suffix')}]" + out[k:]
        return out

    def hold_prefixes(self) -> frozenset[str]:
        """Lower-cased proper prefixes of every form (what a stream holds
        back at a chunk's end), computed once per redactor."""
        cached = self._edges.get("hold")
        if cached is None:
            cached = self._edges["hold"] = frozenset(
                f[:i].lower() for f in self.forms for i in range(1, len(f))
            )
        return cached

    def _edge_set(self, kind: str) -> frozenset[str]:
        """Lower-cased prefixes (or suffixes) of every form, from
        MIN_EDGE_PIECE characters up to one short of the whole form."""
        cached = self._edges.get(kind)
        if cached is None:
            pieces = set()
            for form in self.forms:
                for i in range(MIN_EDGE_PIECE, len(form)):
                    pieces.add(form[:i].lower() if kind == "prefix" else form[-i:].lower())
            cached = self._edges[kind] = frozenset(pieces)
        return cached

    def _edge_length(self, text: str, kind: str) -> int:
        pieces = self._edge_set(kind)
        if not pieces:
            return 0
        longest = max(len(f) for f in self.forms) - 1
        for k in range(min(len(text), longest), MIN_EDGE_PIECE - 1, -1):
            piece = text[-k:] if kind == "prefix" else text[:k]
            if piece.lower() in pieces:
                return k
        return 0

    def _edge_name(self, piece: str, kind: str) -> str:
        lower = piece.lower()
        for form in self.forms:
            f = form.lower()
            if (f.startswith(lower) if kind == "prefix" else f.endswith(lower)):
                return self._name(form)
        return "secret"

    def plus(self, values: tuple[tuple[str, str], ...]) -> Redactor:
        return Redactor(self.values + values) if values else self

    @property
    def count(self) -> int:
        return len({v for _, v in self.values})


class StreamRedactor:
    """Redacts a stream of chunks (live tool output) so that a secret split
    across two chunks is still caught: the tail of a chunk that could be the
    start of a secret (in any of its forms) is held back until the next chunk
    (or `flush`). The end of the stream counts as a cut edge: a long enough
    start of a value still held back at `flush` is redacted."""

    def __init__(self, redactor: Redactor) -> None:
        self._redactor = redactor
        self._pending = ""
        forms = redactor.forms
        self._longest = max((len(v) for v in forms), default=0)
        # Lower-cased: a held-back tail may be a prefix of a form in any case.
        self._prefixes = redactor.hold_prefixes()

    def _hold_length(self, text: str) -> int:
        for k in range(min(len(text), self._longest - 1), 0, -1):
            if text[-k:].lower() in self._prefixes:
                return k
        return 0

    def feed(self, text: str) -> str:
        """The part of the stream so far that is safe to show, redacted."""
        pattern = self._redactor._pattern
        if pattern is None:
            return text
        buf = self._pending + text
        cut = len(buf) - self._hold_length(buf)
        for m in pattern.finditer(buf):
            if m.start() < cut < m.end():
                cut = m.start()  # never split a complete secret
        self._pending = buf[cut:]
        return self._redactor.redact(buf[:cut])

    def flush(self) -> str:
        """Whatever was held back, redacted: call when the stream ends."""
        rest, self._pending = self._pending, ""
        return self._redactor.redact(rest, cut_end=True)


# Directories the walk for hard links skips (big, and not the project's own
# files). Secret files *named* as such are still looked for inside them,
# with a budget of their own.
SKIPPED_DIRS = frozenset({".git", "node_modules", ".venv", "venv", "__pycache__", ".mypy_cache"})
MAX_WALK_ENTRIES = 50_000
MAX_SKIPPED_WALK_ENTRIES = 200_000
MAX_SECRET_FILE_BYTES = 1 << 20


def collect_secret_values(root: str) -> Redactor:
    """The redactor for the project's secret files as they are now."""
    files = SecretFiles(root, home=None)
    files.refresh_known()
    return files.redactor


# -- the project's secret files, by name and by identity -----------------------

FileKey = tuple[int, int]  # (st_dev, st_ino): what every hard link of a file shares
_Signature = tuple[int, int, int, int]  # (st_dev, st_ino, st_mtime_ns, st_size)


def file_key(path: str) -> FileKey | None:
    """The identity of the file `path` names (symlinks followed), or None."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return (st.st_dev, st.st_ino)


def opened_is_secret(fd: int, keys: frozenset[FileKey]) -> bool:
    """Whether the file open on `fd` is a secret file: its identity is one
    of `keys` (a hard link under any name, or a known secret swapped in
    under a name that was checked), or the kernel's name for it (the path
    it was opened by, every link resolved) names a secret (a link swapped
    in to a secret nobody walked: a sibling project's `.env`). A descriptor
    that cannot be judged is a secret."""
    try:
        st = os.fstat(fd)
    except OSError:
        return True
    if (st.st_dev, st.st_ino) in keys:
        return True
    try:
        name = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return False
    return is_secret_path(name)


def _signature(path: str, *, follow: bool = False) -> _Signature | None:
    try:
        st = os.stat(path, follow_symlinks=follow)
    except (OSError, ValueError):
        return None
    return (st.st_dev, st.st_ino, st.st_mtime_ns, st.st_size)


def _found_signature(path: str) -> _Signature | None:
    """The signature of a secret file the walk found: its own, or, when it
    is a symlink (`.env -> config/dev.txt`, `.env -> ../shared.env`), its
    target's if that is a regular file: the target holds the values, and
    is the file to refuse by identity. A link to anything else (a device, a
    FIFO) counts for nothing: `.env -> /dev/null` must not make /dev/null a
    secret file."""
    try:
        st = os.stat(path, follow_symlinks=False)
        if stat.S_ISLNK(st.st_mode):
            st = os.stat(path)
            if not stat.S_ISREG(st.st_mode):
                return None
    except (OSError, ValueError):
        return None
    return (st.st_dev, st.st_ino, st.st_mtime_ns, st.st_size)


@record
class _Listing:
    """What one directory holds, for the walk: its subdirectories to enter,
    the skipped directories in it, its symlinks to directories, its files
    named as secrets, and every other regular file with its inode number."""

    entries: int
    subdirs: list[str]
    skipped: list[str]
    linked: list[str]
    named: list[str]
    files: list[tuple[int, str]]


@record
class _Kept:
    """A directory's listing, valid while the directory is the same inode
    with the same ctime. An entry added, removed or renamed changes it, and
    unlike the mtime no one but the clock sets it: `touch -d` to put a
    directory's mtime back after hiding a hard link in it moves the ctime."""

    ino: int
    ctime_ns: int
    listing: _Listing


# Listings are kept only for directories last changed this long before they
# were listed: a change in the same clock tick as the listing would leave
# the ctime as it was (filesystem clocks tick in milliseconds).
RACY_NS = 2_000_000_000

# The kept listings of the last walk, by directory (only the walk of the
# project itself keeps them; a skipped directory has SkippedCache).
Listings = dict[str, _Kept]


def _list(
    directory: str,
    skip: frozenset[str],
    with_files: bool,
    previous: Listings | None,
    kept: Listings | None,
) -> _Listing | None:
    """`directory`'s listing (other files only `with_files`): the one kept
    from the last walk while the directory is unchanged, else read now (and
    kept for the next walk unless it changed too recently to tell a later
    change apart)."""
    st = None
    if kept is not None:
        try:
            st = os.stat(directory, follow_symlinks=False)
        except OSError:
            return None
        old = previous.get(directory) if previous is not None else None
        if old is not None and old.ino == st.st_ino and old.ctime_ns == st.st_ctime_ns:
            kept[directory] = old
            return old.listing
    listed_at = time.time_ns()
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return None
    listing = _Listing(len(entries), [], [], [], [], [])
    for entry in entries:
        try:
            if entry.is_symlink():
                if entry.is_dir():
                    listing.linked.append(entry.path)
                elif is_secret_path(entry.path) and entry.is_file():
                    listing.named.append(entry.path)  # its values are its target's
            elif entry.is_dir(follow_symlinks=False):
                if entry.name not in skip:
                    listing.subdirs.append(entry.path)
                elif entry.name != ".git":
                    listing.skipped.append(entry.path)
            elif entry.is_file(follow_symlinks=False):
                if is_secret_path(entry.path):
                    listing.named.append(entry.path)
                elif with_files:
                    listing.files.append((entry.inode(), entry.path))
        except OSError:
            continue
    if kept is not None and st is not None and st.st_ctime_ns < listed_at - RACY_NS:
        kept[directory] = _Kept(st.st_ino, st.st_ctime_ns, listing)
    return listing


def _scan(
    root: str,
    budget: int,
    named: list[str],
    by_inode: dict[int, list[str]] | None,
    skip: frozenset[str] = SKIPPED_DIRS,
    listings: tuple[Listings, Listings] | None = None,
) -> tuple[list[str], list[str], int]:
    """Walk `root` (symlinks not followed, directories named in `skip` not
    entered) for secret files by name, and with `by_inode` every other
    regular file by inode number (free from `scandir` on Linux). Returns the
    skipped directories met (`.git` aside), the symlinks to directories met,
    and how many entries it saw.
    With `listings` (the last walk's, and an empty dict for this one's), an
    unchanged directory is not read again (see _list)."""
    previous, kept = listings if listings is not None else (None, None)
    skipped: list[str] = []
    linked: list[str] = []
    stack, seen = [root], 0
    while stack and seen <= budget:
        listing = _list(stack.pop(), skip, by_inode is not None, previous, kept)
        if listing is None:
            continue
        seen += listing.entries
        stack += listing.subdirs
        skipped += listing.skipped
        linked += listing.linked
        named += listing.named
        if by_inode is not None:
            for ino, path in listing.files:
                by_inode.setdefault(ino, []).append(path)
    return skipped, linked, seen


def _outside(links: list[str], root: str) -> list[str]:
    """The real directories `links` lead to that lie outside `root`: a link
    out of the project (`vend -> ../other`, `up -> ..`) puts the person's
    other secret files within a tool's reach, so they are walked like a
    skipped directory (symlinks in them are not followed)."""
    inside = real_path(root).rstrip("/") + "/"
    out = []
    for link in links:
        target = real_path(link)  # a chain of links raised RecursionError
        if not (target + "/").startswith(inside):
            out.append(target)
    return out


# A skipped directory's walk, kept while the directory's own mtime stays:
# path -> (mtime_ns, the secret files found under it).
SkippedCache = dict[str, tuple[int, list[str]]]


def _walk_project(
    root: str,
    cache: SkippedCache | None = None,
    *,
    deep: bool = True,
    listings: tuple[Listings, Listings] | None = None,
) -> tuple[list[str], dict[int, list[str]]]:
    """Secret files by name (also inside `node_modules` and the other
    skipped directories, and in the directories outside the project its
    symlinks lead to: walked again only when their own entries changed,
    as `npm install` changes them), and every other regular file outside
    those by inode number, so hard links to a secret are found without a
    `stat` each."""
    cache = {} if cache is None else cache
    named: list[str] = []
    by_inode: dict[int, list[str]] = {}
    skipped, linked, _ = _scan(root, MAX_WALK_ENTRIES, named, by_inode, listings=listings)
    skipped += _outside(linked, root)
    if not deep:
        skipped = []
    budget = MAX_SKIPPED_WALK_ENTRIES
    for directory in dict.fromkeys(skipped):
        try:
            mtime = os.stat(directory).st_mtime_ns
        except OSError:
            continue
        cached = cache.get(directory)
        if cached is not None and cached[0] == mtime:
            named += cached[1]
            continue
        if budget <= 0:
            break
        inner: list[str] = []
        # Inside, everything is walked (nested node_modules too) but `.git`.
        _, _, seen = _scan(directory, budget, inner, None, skip=frozenset({".git"}))
        budget -= seen
        cache[directory] = (mtime, inner)
        named += inner
    return named, by_inode


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
    credential files in `home` (`~/.ssh/*`, `~/.aws/credentials`, ...), each
    known by its identity (device, inode) so a hard link to it anywhere is
    recognised; and the values of all of them, plus those git can show from
    the project's history and `extra_values` (the provider's API key), for
    redaction.

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
        extra_values: tuple[tuple[str, str], ...] = (),
    ) -> None:
        self.root = root
        self.home = home
        self.extra_values = tuple((n, v) for n, v in extra_values if len(v) >= MIN_SECRET_LENGTH)
        self._stats: dict[str, _Signature] = {}
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
        # Before the handshake only the user's credential files are stat'ed
        # (and the provider's key known): the walk of the project and git's
        # history wait for `settle`, run in a worker thread after the
        # handshake and awaited by everything that reads through the gate
        # (a turn, the system prompt, a review), or for the first redaction
        # if that comes first. A big checkout no longer delays the first frame.
        self._deferred = True
        self._update(self._home_stats())

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

    def _home_stats(self) -> dict[str, _Signature]:
        """The user's credential files that exist, by their signatures (and
        kept as the ones whose values come first)."""
        files = home_secret_files(self.home) if self.home else []
        found = {p: s for p in files if (s := _signature(p, follow=True)) is not None}
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
            return self.rescan()

    def rescan(self, *, history: bool = True, deep: bool = True) -> bool:
        """Walk the project for secret files (and, with `history`, ask git
        again if HEAD, the refs or the index moved); True when the set or any
        of them changed (the values were then reread)."""
        with self._lock:
            return self._rescan(history=history, deep=deep)

    def _rescan(self, *, history: bool, deep: bool) -> bool:
        kept: Listings = {}
        named, by_inode = _walk_project(
            self.root, self._skipped_cache, deep=deep, listings=(self._listings, kept)
        )
        self._listings = kept
        stats = {p: s for p in named if (s := _found_signature(p)) is not None}
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
        values = git_history_secrets(self.root, is_secret_path)
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

    def _restat(self, path: str) -> _Signature | None:
        """A known secret file's signature now: the user's own by the file
        their path leads to, the project's as the walk found them."""
        return _signature(path, follow=True) if path in self._home_paths else _found_signature(path)

    def _update(self, stats: dict[str, _Signature], *, force: bool = False) -> bool:
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
