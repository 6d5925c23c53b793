"""The values worth redacting in a secret file's text. Pure.

A `.env` is parsed the way dotenv loaders read it (quotes, `# comments`
after a value, values over several lines, escapes), so the value an
application prints is the value Luxe knows. Any other secret file (keys,
credentials, tokens in JSON or YAML) gives its long token-like words.
"""

from __future__ import annotations

import os
import re

# Values shorter than this are left alone: redacting `true` or `5432` from
# every tool output would garble it while protecting nothing.
MIN_SECRET_LENGTH = 6

_KEY = re.compile(r"\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*[=:]\s*")
_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", '"': '"', "\\": "\\", "$": "$", "'": "'", "`": "`"}


def _unescape(raw: str) -> str:
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), "\\" + m.group(1)), raw, flags=re.S)


def _quoted(text: str, start: int, quote: str) -> tuple[str, int] | None:
    """The raw inside of a quoted value starting at `start` (just past the
    opening quote) and the index past the closing quote, or None when it
    never closes."""
    i = start
    while i < len(text):
        ch = text[i]
        if ch == "\\" and quote == '"':
            i += 2
            continue
        if ch == quote:
            return text[start:i], i + 1
        i += 1
    return None


def _forms(value: str) -> list[str]:
    """A value, its escaped and unescaped spellings, and each of its lines."""
    out = [value]
    for line in value.splitlines():
        out.append(line.strip())
    return [v for v in dict.fromkeys(out) if len(v) >= MIN_SECRET_LENGTH]


def secret_values_from_env(text: str) -> list[tuple[str, str]]:
    """(name, value) pairs of a dotenv file: quotes stripped (a quoted value
    may span lines; `\\"` and `\\n` inside double quotes are unescaped, and the
    escaped spelling is kept too), a `# comment` after a value dropped,
    comment lines skipped. A multi-line value also gives each of its lines."""
    found: dict[tuple[str, str], None] = {}  # in order, each once
    pos = 0
    n = len(text)
    while pos < n:
        end = text.find("\n", pos)
        end = n if end < 0 else end
        line = text[pos:end]
        if line.lstrip().startswith("#"):
            pos = end + 1
            continue
        m = _KEY.match(line)
        if not m:
            pos = end + 1
            continue
        name = m.group(1)
        start = pos + m.end()
        quote = text[start] if start < n else ""
        values: list[str] = []
        if quote in ("'", '"', "`"):
            got = _quoted(text, start + 1, quote)
            if got is not None:
                raw, after = got
                values = [_unescape(raw), raw] if quote == '"' else [raw]
                nl = text.find("\n", after)
                pos = n if nl < 0 else nl + 1
            else:  # an unclosed quote: the rest of the line, as written
                values = [line[m.end() :].strip(), line[m.end() + 1 :].strip()]
                pos = end + 1
        else:
            raw = re.split(r"\s#", line[m.end() :], maxsplit=1)[0].strip()
            values = [raw]
            pos = end + 1
        for value in values:
            for form in _forms(value):
                found.setdefault((name, form))
        if len(found) >= MAX_VALUES_PER_FILE:
            break
    return list(found)[:MAX_VALUES_PER_FILE]


# A word of a credentials file: split on whitespace and the punctuation of
# INI, netrc, JSON, YAML and XML (Maven's `<password>…</password>`, whose
# value a program that parses it prints alone), and on JSON's escaped line breaks (a service
# account's private key is one JSON string: `"-----BEGIN…\nMIIE…\n…"`, whose
# lines a program that parses it prints alone).
_TOKEN_SPLIT = re.compile(r"(?:[\s:=,\"'{}\[\]<>]|\\[nrt])+")
_HOSTISH = re.compile(r"^[\w.-]*\.[A-Za-z]{2,}(/[\w./-]*)?$")


def is_token(word: str) -> bool:
    """Long and token-like: not a plain word (`password`, `oauth_token`), not
    a host or a path (`github.com`, `//registry.npmjs.org/`)."""
    if len(word) < MIN_SECRET_LENGTH or word.startswith("/"):
        return False
    if _HOSTISH.match(word) and not any(c.isdigit() for c in word.split(".")[0]):
        return False
    return not (len(word) < 20 and re.fullmatch(r"[A-Za-z_]+", word))


_PEM_MARKER = re.compile(r"-----(BEGIN|END) ([A-Z0-9 ]+)-----")
# Values taken from one file at most: a real one holds a few dozen, and a
# file a repository wrote with a hundred thousand would slow every redaction.
MAX_VALUES_PER_FILE = 4096


def _pem_blocks(text: str) -> list[tuple[str, str]]:
    """(label, body) of each `-----BEGIN X-----` ... `-----END X-----` block,
    in one pass over the markers: a BEGIN pairs with the first END of its
    label after it (a regex that searched on from every BEGIN took minutes
    over a file of BEGIN lines)."""
    blocks = []
    open_at: dict[str, int] = {}
    for marker in _PEM_MARKER.finditer(text):
        kind, label = marker.groups()
        if kind == "BEGIN":
            open_at.setdefault(label, marker.end())
        elif label in open_at:
            blocks.append((label, text[open_at.pop(label) : marker.start()]))
    return blocks


def secret_values_from_other(name: str, text: str) -> list[tuple[str, str]]:
    """Values worth redacting from a key or credentials file: each long
    token (key bodies, passwords, tokens), labelled by the file's name. In
    a PEM file only private-key blocks count: a certificate (a CA bundle
    such as certifi's cacert.pem) is public."""
    blocks = _pem_blocks(text)
    if blocks:
        body = "\n".join(inner for label, inner in blocks if "PRIVATE KEY" in label)
    else:
        body = "\n".join(line for line in text.splitlines() if not line.startswith("-----"))
    tokens = [t for t in dict.fromkeys(_TOKEN_SPLIT.split(body)) if is_token(t)]
    return [(name, t) for t in tokens[:MAX_VALUES_PER_FILE]]


def is_env_name(name: str) -> bool:
    lower = name.lower()
    return lower in (".env", ".envrc") or lower.startswith(".env.")


# A key of a Java properties file that holds a credential: Gradle's
# `signing.password`, `mavenCentralPassword`, `gpr.key`, `gpr.token`...
_PROPERTIES_CREDENTIAL = re.compile(r"pass|secret|token|key|auth|credential", re.IGNORECASE)


def secret_values_from_properties(text: str) -> list[tuple[str, str]]:
    """The values of a properties file's credential keys only: the rest of
    it (`org.gradle.jvmargs=-Xmx2048m`) is settings, whose words would
    garble every output that shows them."""
    return [(k, v) for k, v in secret_values_from_env(text) if _PROPERTIES_CREDENTIAL.search(k)]


def secret_values_from_file(path: str, text: str) -> list[tuple[str, str]]:
    name = os.path.basename(path)
    if is_env_name(name):
        return secret_values_from_env(text)
    if name.endswith(".properties"):
        return secret_values_from_properties(text)
    return secret_values_from_other(name, text)
