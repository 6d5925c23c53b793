"""Redaction of known secret values from text: `Redactor` replaces each
value (in any case, reversed, in hex, in base64) with `[REDACTED:<name>]`,
and `StreamRedactor` does the same over a stream of chunks. Pure.
"""

from __future__ import annotations

import base64
import bisect
import re

import attrs

from luxe.policy.secret_values import MIN_SECRET_LENGTH
from luxe.record import record


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
    itself only: a key's lines are not shown one by one in hex; one longer
    than MAX_FORM as pieces of about equal length (see `_pieces`)."""
    if len(value) >= ENCODED_UP_TO:
        return _pieces(value), []
    raw = value.encode()
    loose = [value, value[::-1], raw.hex()]
    exact = _base64_forms(raw)
    return (
        [f for f in loose if len(f) >= MIN_SECRET_LENGTH],
        [f for f in exact if len(f) >= MIN_SECRET_LENGTH],
    )


# The longest form matched whole. The pieces of every form a stream may hold
# back, or a cut edge show, are kept in sets: of all lengths, so a form of n
# characters costs n*n/2 of them, and a 100 KB value in a repository's
# `.env` would take gigabytes at the first bash call.
MAX_FORM = 1024


def _pieces(value: str) -> list[str]:
    """`value` as pieces of at most MAX_FORM characters and about equal
    length (none short), each matched on its own: the whole value, printed,
    is redacted piece by piece."""
    count = -(-len(value) // MAX_FORM)
    size = -(-len(value) // count)
    return [value[i : i + size] for i in range(0, len(value), size)]


Trie = dict[str, "Trie"]


# A word enters the trie by its first TRIE_DEPTH characters, its rest a
# literal after them: building and compiling the regex recurse once per level,
# and a credential of a thousand characters (a PEM key, an AWS session token,
# a JSON document) or a ladder of values each one longer than the last ended
# Luxe with a RecursionError.
TRIE_DEPTH = 64
_TAILS = "tails"  # a key no character is: the rests of the longer words


def _trie_regex(words: set[str] | frozenset[str]) -> str:
    """A regex matching any of `words`, longest first, built as a trie."""
    trie: Trie = {}
    for word in words:
        node = trie
        for ch in word[:TRIE_DEPTH]:
            node = node.setdefault(ch, {})
        if len(word) > TRIE_DEPTH:
            node.setdefault(_TAILS, {})[word[TRIE_DEPTH:]] = {}
        else:
            node[""] = {}  # the end of a word

    def build(node: Trie) -> str:
        ends = "" in node
        children = [re.escape(ch) + build(child) for ch, child in sorted(node.items()) if len(ch) == 1]
        children += [re.escape(tail) for tail in sorted(node.get(_TAILS, {}), key=len, reverse=True)]
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


class FormStarts:
    """Which pieces begin a longer form (or, with `ends`, end one): the forms
    lower-cased (reversed for ends) and sorted, asked by bisection. Its
    memory is the forms' own length; a set of every prefix grew with the
    square of it, and a repository's `.env` of a thousand values of a
    thousand characters took 1.2 GB and 4 s at the first bash call."""

    def __init__(self, forms: tuple[str, ...], *, ends: bool = False) -> None:
        self._ends = ends
        self._sorted = sorted({f.lower()[::-1] if ends else f.lower() for f in forms})

    def __bool__(self) -> bool:
        return bool(self._sorted)

    def proper(self, piece: str) -> bool:
        """Whether the lower-cased `piece` begins (ends) a form longer than
        itself. The forms that begin with it follow it in sorted order."""
        key = piece[::-1] if self._ends else piece
        i = bisect.bisect_left(self._sorted, key)
        if i < len(self._sorted) and self._sorted[i] == key:
            i += 1
        return i < len(self._sorted) and self._sorted[i].startswith(key)


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
    _edges: dict[str, FormStarts] = attrs.field(init=False, factory=dict)

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

    def starts(self, kind: str = "prefix") -> FormStarts:
        """What begins (`prefix`) or ends (`suffix`) a form: what a stream
        holds back at a chunk's end, and what a cut edge may show. Built
        once per redactor and kind."""
        cached = self._edges.get(kind)
        if cached is None:
            cached = self._edges[kind] = FormStarts(self.forms, ends=kind == "suffix")
        return cached

    def _edge_length(self, text: str, kind: str) -> int:
        """The longest piece of MIN_EDGE_PIECE characters or more at that
        edge of `text` that a form begins (`prefix`: the text's end) or ends
        (`suffix`: its start) with."""
        starts = self.starts(kind)
        if not starts:
            return 0
        longest = max(len(f) for f in self.forms) - 1
        for k in range(min(len(text), longest), MIN_EDGE_PIECE - 1, -1):
            piece = text[-k:] if kind == "prefix" else text[:k]
            if starts.proper(piece.lower()):
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
        self._starts = redactor.starts()

    def _hold_length(self, text: str) -> int:
        for k in range(min(len(text), self._longest - 1), 0, -1):
            if self._starts.proper(text[-k:].lower()):
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
