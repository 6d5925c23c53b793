"""Secret files: which paths nothing may read or write, and redaction of
their values from tool output.

Everything here is pure except `collect_secret_values`, the one startup step
that walks the project and reads the denied files (it never follows symlinks
out of the project and stops after a bounded number of entries).
"""

from __future__ import annotations

import base64
import fnmatch
import os
import re
from collections.abc import Iterable
from pathlib import PurePosixPath

import attrs

# `.env` and `.env.*` hold secrets by convention; these suffixes are the
# conventional *templates* checked into repositories, so they stay readable.
ENV_TEMPLATE_SUFFIXES = frozenset({"example", "sample", "template"})

# Private SSH keys by their default names (the `.pub` halves are public).
SSH_PRIVATE_KEY_NAMES = frozenset(
    {"id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "id_ecdsa_sk", "id_ed25519_sk", "identity"}
)

# Files that hold credentials as plainly as a `.env` does.
CREDENTIAL_FILE_NAMES = frozenset({".netrc", "_netrc", ".pgpass", ".git-credentials"})

# Private key material by extension (TLS keys, PKCS#12 bundles).
PRIVATE_KEY_SUFFIXES = (".key", ".p12", ".pfx")

# Dot-file secret names a shell glob is tested against: `cat .e*` could expand
# to one of these. Only globs that start with a literal `.` can (the shell
# never expands `*` to a dot-file); other globs are expanded against the
# filesystem instead (see `facts.py`).
SAMPLE_SECRET_DOTFILES = (
    ".env",
    ".env.local",
    ".env.production",
    ".env.development",
    ".env.test",
    ".netrc",
    ".pgpass",
    ".git-credentials",
)

GLOB_CHARS = frozenset("*?[")


def is_secret_name(name: str) -> bool:
    """True when a file called `name` (a basename) is a hard-denied secret.

    Case-insensitive, since `.ENV` is the same file on a case-insensitive
    filesystem and means the same thing everywhere else.
    """
    lower = name.lower()
    if lower == ".env":
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
    if len(lower_parts) >= 2 and lower_parts[-2] == ".aws" and lower_parts[-1] == "credentials":
        return True
    # Any non-public file in ~/.ssh other than the well-known public ones.
    return (
        len(lower_parts) >= 2
        and lower_parts[-2] == ".ssh"
        and lower_parts[-1].startswith("id_")
        and not lower_parts[-1].endswith(".pub")
    )


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

# Values shorter than this are left alone: redacting `true` or `5432` from
# every tool output would garble it while protecting nothing.
MIN_SECRET_LENGTH = 6

_ENV_LINE = re.compile(r"^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*[=:]\s*(.*?)\s*$")


def secret_values_from_env(text: str) -> list[tuple[str, str]]:
    """(name, value) pairs of a dotenv file, quotes stripped, comments skipped."""
    found: list[tuple[str, str]] = []
    for line in text.splitlines():
        if line.lstrip().startswith("#"):
            continue
        m = _ENV_LINE.match(line)
        if not m:
            continue
        name, value = m.group(1), m.group(2)
        if value[:1] in "\"'" and value.endswith(value[:1]) and len(value) >= 2:
            value = value[1:-1]
        elif " #" in value:
            value = value.split(" #", 1)[0].rstrip()
        if len(value) >= MIN_SECRET_LENGTH:
            found.append((name, value))
    return found


def secret_values_from_other(name: str, text: str) -> list[tuple[str, str]]:
    """Values worth redacting from a key or credentials file: each long
    token (key bodies, passwords, tokens), labelled by the file's name."""
    found: list[tuple[str, str]] = []
    body = "\n".join(line for line in text.splitlines() if not line.startswith("-----"))
    for token in re.split(r"[\s:=]+", body):
        if len(token) < MIN_SECRET_LENGTH:
            continue
        if token.isalpha() and len(token) < 20:
            continue  # words like `password`, `machine`, `default`
        found.append((name, token))
    return found


def secret_values_from_file(path: str, text: str) -> list[tuple[str, str]]:
    name = os.path.basename(path)
    if name.lower() == ".env" or name.lower().startswith(".env."):
        return secret_values_from_env(text)
    return secret_values_from_other(name, text)


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


def encoded_forms(value: str) -> tuple[list[str], list[str]]:
    """(forms matched case-insensitively, forms matched exactly) of a secret
    value as it may appear in output: itself in any case, reversed, hex, and
    base64 at the three alignments. Forms shorter than `MIN_SECRET_LENGTH`
    are dropped (they would garble unrelated output)."""
    raw = value.encode()
    loose = [value, value[::-1], raw.hex()]
    exact = _base64_forms(raw)
    return (
        [f for f in loose if len(f) >= MIN_SECRET_LENGTH],
        [f for f in exact if len(f) >= MIN_SECRET_LENGTH],
    )


@attrs.frozen
class Redactor:
    """Replaces every known secret value in a text with `[REDACTED:<name>]`:
    the value in any case, reversed, in hex, or in base64. Defence in depth,
    not a guarantee: any other transform (`rev | tr`, `od -c`) gets through."""

    values: tuple[tuple[str, str], ...] = ()
    _pattern: re.Pattern[str] | None = attrs.field(init=False, default=None)
    _names: dict[str, str] = attrs.field(init=False, factory=dict)
    # Every form matched, for the stream redactor's hold-back.
    forms: tuple[str, ...] = attrs.field(init=False, default=())

    def __attrs_post_init__(self) -> None:
        names: dict[str, str] = {}  # a form (lower-cased if loose) -> its secret's name
        loose: set[str] = set()
        exact: set[str] = set()
        for name, value in self.values:
            names.setdefault(value, name)
            ci, cs = encoded_forms(value)
            for form in ci:
                names.setdefault(form.lower(), name)
                loose.add(form)
            for form in cs:
                names.setdefault(form, name)
                exact.add(form)
        if loose or exact:
            # Longest first, so a value containing another is replaced whole.
            alternatives = sorted(
                [(f, f"(?i:{re.escape(f)})") for f in loose] + [(f, re.escape(f)) for f in exact],
                key=lambda pair: len(pair[0]),
                reverse=True,
            )
            pattern = re.compile("|".join(a for _, a in alternatives))
            object.__setattr__(self, "_pattern", pattern)
            object.__setattr__(self, "forms", tuple(f for f, _ in alternatives))
        object.__setattr__(self, "_names", names)

    def _name(self, found: str) -> str:
        return self._names.get(found) or self._names.get(found.lower(), "secret")

    def redact(self, text: str) -> str:
        if self._pattern is None or not text:
            return text
        return self._pattern.sub(lambda m: f"[REDACTED:{self._name(m.group(0))}]", text)

    @property
    def count(self) -> int:
        return len({v for _, v in self.values})


class StreamRedactor:
    """Redacts a stream of chunks (live tool output) so that a secret split
    across two chunks is still caught: the tail of a chunk that could be the
    start of a secret (in any of its forms) is held back until the next chunk
    (or `flush`)."""

    def __init__(self, redactor: Redactor) -> None:
        self._redactor = redactor
        self._pending = ""
        forms = redactor.forms
        self._longest = max((len(v) for v in forms), default=0)
        # Lower-cased: a held-back tail may be a prefix of a form in any case.
        self._prefixes = frozenset(v[:i].lower() for v in forms for i in range(1, len(v)))

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
        return self._redactor.redact(rest)


SKIPPED_DIRS = frozenset({".git", "node_modules", ".venv", "venv", "__pycache__", ".mypy_cache"})
MAX_WALK_ENTRIES = 50_000
MAX_SECRET_FILE_BYTES = 1 << 20


def find_secret_files(root: str) -> Iterable[str]:
    """Secret files under `root` (bounded walk, symlinks not followed)."""
    seen = 0
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in SKIPPED_DIRS]
        seen += len(dirnames) + len(filenames)
        for name in filenames:
            full = os.path.join(dirpath, name)
            if is_secret_path(full) and not os.path.islink(full):
                yield full
        if seen > MAX_WALK_ENTRIES:
            return


def collect_secret_values(root: str) -> Redactor:
    """Read every secret file in the project once, at startup, and build the
    redactor from their values. Unreadable files are skipped."""
    values: list[tuple[str, str]] = []
    for path in find_secret_files(root):
        try:
            with open(path, "rb") as f:
                data = f.read(MAX_SECRET_FILE_BYTES)
        except OSError:
            continue
        values.extend(secret_values_from_file(path, data.decode("utf-8", "replace")))
    return Redactor(tuple(values))


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


def _signature(path: str) -> _Signature | None:
    try:
        st = os.stat(path, follow_symlinks=False)
    except (OSError, ValueError):
        return None
    return (st.st_dev, st.st_ino, st.st_mtime_ns, st.st_size)


def _walk_project(root: str) -> tuple[list[str], dict[int, list[str]]]:
    """Secret files by name, and every other regular file by inode number
    (free from `scandir` on Linux), so hard links to a secret can be found
    without a `stat` per file. Bounded like `find_secret_files`."""
    named: list[str] = []
    by_inode: dict[int, list[str]] = {}
    stack, seen = [root], 0
    while stack and seen <= MAX_WALK_ENTRIES:
        try:
            entries = list(os.scandir(stack.pop()))
        except OSError:
            continue
        seen += len(entries)
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    if entry.name not in SKIPPED_DIRS:
                        stack.append(entry.path)
                elif entry.is_file(follow_symlinks=False):
                    if is_secret_path(entry.path):
                        named.append(entry.path)
                    else:
                        by_inode.setdefault(entry.inode(), []).append(entry.path)
            except OSError:
                continue
    return named, by_inode


class SecretFiles:
    """The project's secret files: their identities (so a hard link to one is
    recognised as the secret it is) and their values (for redaction).

    Kept fresh cheaply: `refresh_known` re-stats the files already known (one
    `stat` each, before every redaction pass); `rescan` walks the project again
    for new ones (after a call that may have written files). Either rereads the
    values only when something changed. Not thread-safe: the engine calls it
    from its one trio thread.
    """

    def __init__(self, root: str) -> None:
        self.root = root
        self._stats: dict[str, _Signature] = {}
        self.keys: frozenset[FileKey] = frozenset()
        # Every path in the project holding a secret: the files named as
        # secrets and the hard links to them under other names.
        self.paths: tuple[str, ...] = ()
        self.redactor = Redactor()
        self.rescan()

    def is_secret(self, path: str) -> bool:
        """True when `path` names a secret file by its name or is (a hard link
        to, or a symlink to) a known secret file."""
        if is_secret_path(path):
            return True
        return bool(self.keys) and file_key(path) in self.keys

    def rescan(self) -> bool:
        """Walk the project for secret files; True when the set or any of
        them changed (the values were then reread)."""
        named, by_inode = _walk_project(self.root)
        stats = {p: s for p in named if (s := _signature(p)) is not None}
        changed = self._update(stats)
        links = [
            p
            for _dev, ino in self.keys
            for p in by_inode.get(ino, ())
            if file_key(p) in self.keys
        ]
        self.paths = (*stats, *links)
        return changed

    def refresh_known(self) -> bool:
        """Re-stat the known secret files; True when one changed or vanished."""
        stats = {p: s for p in self._stats if (s := _signature(p)) is not None}
        return self._update(stats)

    def _update(self, stats: dict[str, _Signature]) -> bool:
        if stats == self._stats:
            return False
        values: list[tuple[str, str]] = []
        for path in stats:
            try:
                with open(path, "rb") as f:
                    data = f.read(MAX_SECRET_FILE_BYTES)
            except OSError:
                continue
            values.extend(secret_values_from_file(path, data.decode("utf-8", "replace")))
        self._stats = stats
        self.keys = frozenset((s[0], s[1]) for s in stats.values())
        self.redactor = Redactor(tuple(values))
        return True
