"""Words of a bash command line, normalised the way bash will read them. Pure.

Not a shell, but close enough for judging names: line continuations are
joined, quotes removed, backslash escapes and ANSI-C quoting (`$'\\x2eenv'`)
decoded, brace expansion (`.{e,x}nv`) expanded, and variables assigned
earlier on the same line substituted. What cannot be known without running
the line (`$VAR` from the environment, `$(cmd)`, backticks, arithmetic) is
kept as an *unresolved* part of its word: `pattern` shows it as `*`, so a
caller can ask whether the word could name a secret file. An unresolved
`${x:-word}` (`-`, `=`, `+`, with or without `:`) may also be its literal
`word`: the word's forms include that reading too (`sort ${x:--oF}` is
`sort -oF`, `cat ${x:-.env}` names `.env`). A variable assigned on the line
and expanded unquoted is split into words as bash splits it (`x="-exec rm
{} ;"; find . $x` gives find four words).

The commands inside `$(…)`, backticks, `<(…)` and `${…}` are lexed too, and
their words reach the caller (a `.env` hidden in a substitution still
counts).
"""

from __future__ import annotations

import itertools
import re

from luxe.record import record

# Markers for unquoted brace-expansion syntax and for unresolved parts.
_LBRACE, _COMMA, _RBRACE, _UNRESOLVED = "\ue000", "\ue001", "\ue002", "\ue003"
_BRACE_MARKS = {_LBRACE: "{", _COMMA: ",", _RBRACE: "}"}
MAX_EXPANSIONS = 256

SEPARATORS = (";;&", ";&", ";;", "&&", "||", "|&", ";", "&", "|", "(", ")", "\n")
REDIRECTIONS = ("&>>", "&>", "<<<", "<<-", "<<", ">>", ">|", "<>", "<&", ">&", "<", ">")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Parameter expansions that only read a variable; any other operator
# (`@P`, `!`, `:offset`, `/pat/rep`...) may evaluate text as code.
_PLAIN_PARAMETER = re.compile(r"#?[A-Za-z_][A-Za-z0-9_]*|[A-Za-z_][A-Za-z0-9_]*:?[-+=?][^$`]*|[0-9@*#?$!-]")
# `${x:-word}`, `${x=word}`, `${x:+word}`: the expansion may be `word`.
_WITH_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*:?[-+=]([^$`]*)", re.S)
_GLOB_CHARS = frozenset("*?[")
# Default IFS: what an unquoted expansion is split on.
_IFS = re.compile(r"[ \t\n]+")

_ANSI_C = {
    "n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b",
    "f": "\f", "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?",
}


@record
class Word:
    """One shell word after quote removal (before brace expansion)."""

    value: str  # literal text; _UNRESOLVED marks each unresolved part; brace marks kept
    sources: tuple[str, ...]  # the unresolved parts as written, in order
    # Per unresolved part, the literal it may also be (`${x:-word}`), or None.
    alternatives: tuple[str | None, ...] = ()
    # An unquoted `*`, `?` or `[`: bash may expand the word to any names in
    # the directory, options too (a repository can hold a file named `-oF`).
    globs: bool = False

    @property
    def resolved(self) -> bool:
        return not self.sources

    def forms(self) -> list[str]:
        """The word after brace expansion, unresolved parts as written, and
        with their literal alternatives where they have some."""
        out = [self._fill(form, self.sources) for form in brace_expand(self.value)]
        if any(a is not None for a in self.alternatives):
            out += [self._fill(form, self._alternative_or(self.sources))
                    for form in brace_expand(self.value)]  # fmt: skip
        return out

    def patterns(self) -> list[str]:
        """The word after brace expansion as globs: each unresolved part is
        `*`, and also its literal alternative where it has one."""
        out = [f.replace(_UNRESOLVED, "*") for f in brace_expand(self.value)]
        if any(a is not None for a in self.alternatives):
            stars = self._alternative_or(("*",) * len(self.sources))
            out += [self._fill(form, stars) for form in brace_expand(self.value)]
        return out

    def _alternative_or(self, fallback: tuple[str, ...]) -> tuple[str, ...]:
        alternatives = (*self.alternatives, *(None,) * len(fallback))[: len(fallback)]
        return tuple(a if a is not None else f for a, f in zip(alternatives, fallback, strict=True))

    @staticmethod
    def _fill(form: str, parts: tuple[str, ...]) -> str:
        pieces = form.split(_UNRESOLVED)
        text = pieces[0]
        for k, piece in enumerate(pieces[1:]):
            text += (parts[k] if k < len(parts) else "") + piece
        return text


@record
class Operator:
    text: str  # a separator, or a redirection operator


@record
class Lexed:
    tokens: tuple[Word | Operator, ...]
    nested: tuple[str, ...]  # text of command substitutions, lexed by the caller
    evaluates: bool  # an expansion that may run text as code (arithmetic, `${x@P}`...)
    substitutes: bool  # command or process substitution, backticks
    complete: bool  # False when a quote or substitution never closed


def brace_expand(value: str) -> list[str]:
    """Bash brace expansion over the unquoted brace marks (`a{b,c}` -> ab ac,
    `{1..3}`), capped at MAX_EXPANSIONS; marks left over become literal."""
    results = [value]
    for _ in range(MAX_EXPANSIONS):
        changed = False
        out: list[str] = []
        for item in results:
            expanded = _expand_once(item)
            if expanded is None:
                out.append(item)
            else:
                out.extend(expanded)
                changed = True
        results = out[:MAX_EXPANSIONS]
        if not changed:
            break
    return ["".join(_BRACE_MARKS.get(c, c) for c in r) for r in results]


def _expand_once(value: str) -> list[str] | None:
    for start, ch in enumerate(value):
        if ch != _LBRACE:
            continue
        depth, commas = 0, list[int]()
        for i in range(start, len(value)):
            c = value[i]
            if c == _LBRACE:
                depth += 1
            elif c == _RBRACE:
                depth -= 1
                if depth == 0:
                    inner = value[start + 1 : i]
                    head, tail = value[:start], value[i + 1 :]
                    if commas:
                        parts, last = [], start + 1
                        for comma in commas:
                            parts.append(value[last:comma])
                            last = comma + 1
                        parts.append(value[last:i])
                        return [head + p + tail for p in parts]
                    seq = _sequence(inner)
                    if seq is not None:
                        return [head + p + tail for p in seq]
                    break
            elif c == _COMMA and depth == 1:
                commas.append(i)
    return None


def _sequence(inner: str) -> list[str] | None:
    m = re.fullmatch(r"(-?\d+)\.\.(-?\d+)(?:\.\.(-?\d+))?|([A-Za-z])\.\.([A-Za-z])", inner)
    if not m:
        return None
    if m.group(4):
        a, b = ord(m.group(4)), ord(m.group(5))
        step = 1 if b >= a else -1
        return [chr(c) for c in range(a, b + step, step)][:MAX_EXPANSIONS]
    a, b = int(m.group(1)), int(m.group(2))
    step = abs(int(m.group(3) or 1)) or 1
    step = step if b >= a else -step
    return [str(n) for n in itertools.islice(range(a, b + (1 if step > 0 else -1), step), MAX_EXPANSIONS)]


def _matching(text: str, i: int, opening: str, closing: str) -> int:
    """Index of the `closing` that matches an `opening` just before `i`,
    skipping quotes; -1 when it never closes."""
    depth = 1
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == "'":
            end = text.find("'", i + 1)
            if end < 0:
                return -1
            i = end + 1
            continue
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            if j >= n:
                return -1
            i = j + 1
            continue
        if text.startswith(opening, i):
            depth += 1
            i += len(opening)
            continue
        if text.startswith(closing, i):
            depth -= 1
            if depth == 0:
                return i
            i += len(closing)
            continue
        i += 1
    return -1


def _ansi_c(text: str, i: int) -> tuple[str, int]:
    """Decode `$'…'` from just past the quote; returns (value, index past it)."""
    out: list[str] = []
    n = len(text)
    while i < n:
        c = text[i]
        if c == "'":
            return "".join(out), i + 1
        if c == "\\" and i + 1 < n:
            e = text[i + 1]
            if e in _ANSI_C:
                out.append(_ANSI_C[e])
                i += 2
            elif e == "x":
                m = re.match(r"[0-9A-Fa-f]{1,2}", text[i + 2 :])
                if m:
                    out.append(chr(int(m.group(0), 16)))
                    i += 2 + len(m.group(0))
                else:
                    out.append("\\x")
                    i += 2
            elif e in "uU":
                digits = 4 if e == "u" else 8
                m = re.match(rf"[0-9A-Fa-f]{{1,{digits}}}", text[i + 2 :])
                if m:
                    try:
                        out.append(chr(int(m.group(0), 16)))
                    except ValueError:
                        pass
                    i += 2 + len(m.group(0))
                else:
                    out.append("\\" + e)
                    i += 2
            elif e in "01234567":
                m = re.match(r"[0-7]{1,3}", text[i + 1 :])
                assert m is not None
                out.append(chr(int(m.group(0), 8) & 0xFF))
                i += 1 + len(m.group(0))
            elif e == "c" and i + 2 < n:
                out.append(chr(ord(text[i + 2]) & 0x1F))
                i += 3
            else:
                out.append("\\" + e)
                i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out), -1


class _Lexer:
    def __init__(self, line: str, variables: dict[str, str]) -> None:
        self.text = line
        self.variables = variables
        self.tokens: list[Word | Operator] = []
        self.nested: list[str] = []
        self.evaluates = False
        self.substitutes = False
        self.complete = True
        self._value: list[str] = []
        self._sources: list[str] = []
        self._alternatives: list[str | None] = []
        self._globs = False
        self._in_word = False
        self._command: list[Word] = []

    # -- word building ---------------------------------------------------------

    def _lit(self, s: str) -> None:
        self._value.append(s)
        self._in_word = True

    def _unresolved(self, source: str, alternative: str | None = None) -> None:
        self._value.append(_UNRESOLVED)
        self._sources.append(source)
        self._alternatives.append(alternative)
        self._in_word = True

    def _expanded(self, value: str, quoted: bool) -> None:
        """A known variable's value: unquoted, split on whitespace as bash
        splits it (an empty piece makes no word)."""
        if quoted:
            self._lit(value)
            return
        self._globs = self._globs or bool(_GLOB_CHARS & set(value))
        for k, piece in enumerate(_IFS.split(value)):
            if k:
                self._end_word()
            if piece:
                self._lit(piece)

    def _end_word(self) -> None:
        if self._in_word:
            value = "".join(self._value)
            if value in (_LBRACE, _RBRACE):  # `{ cmd; }`: a group, not a word
                self.tokens.append(Operator(_BRACE_MARKS[value]))
            else:
                # `[` and `]` on their own (`[ -f x ]`) match nothing: no glob.
                globs = self._globs and value not in ("[", "]", "[[", "]]")
                word = Word(value, tuple(self._sources), tuple(self._alternatives), globs)
                self.tokens.append(word)
                self._command.append(word)
        self._value, self._sources, self._alternatives, self._in_word = [], [], [], False
        self._globs = False

    def _end_command(self) -> None:
        """A command of assignments only (`X=.env;`) sets variables for the
        rest of the line (a prefix assignment, `X=1 cmd`, does not)."""
        words, self._command = self._command, []
        pairs = [w.value.split("=", 1) for w in words]
        if not words or not all(
            len(p) == 2 and _NAME.fullmatch(p[0]) and _UNRESOLVED not in p[0] for p in pairs
        ):
            return
        for (name, _), word in zip(pairs, words, strict=True):
            value = word.value.split("=", 1)[1]
            if _UNRESOLVED in value:
                self.variables.pop(name, None)
            else:
                self.variables[name] = "".join(_BRACE_MARKS.get(c, c) for c in value)

    # -- expansions ------------------------------------------------------------

    def _dollar(self, i: int, quoted: bool) -> int:
        """Handle `$…` at `i`; returns the index past it."""
        text, n = self.text, len(self.text)
        nxt = text[i + 1] if i + 1 < n else ""
        if text.startswith("$((", i):
            end = _matching(text, i + 3, "((", "))")
            self.evaluates = True
            if end < 0:
                self.complete = False
                self._unresolved(text[i:])
                return n
            self.nested.append(text[i + 3 : end])
            self._unresolved(text[i : end + 2])
            return end + 2
        if nxt == "(":
            end = _matching(text, i + 2, "(", ")")
            self.substitutes = True
            if end < 0:
                self.complete = False
                self.nested.append(text[i + 2 :])
                self._unresolved(text[i:])
                return n
            self.nested.append(text[i + 2 : end])
            self._unresolved(text[i : end + 1])
            return end + 1
        if nxt == "{":
            end = _matching(text, i + 2, "{", "}")
            if end < 0:
                self.complete = False
                self._unresolved(text[i:])
                return n
            inner = text[i + 2 : end]
            if _NAME.fullmatch(inner) and inner in self.variables:
                self._expanded(self.variables[inner], quoted)
            else:
                if not _PLAIN_PARAMETER.fullmatch(inner):
                    self.evaluates = True
                if "$" in inner or "`" in inner:
                    self.nested.append(inner)
                    self.substitutes = self.substitutes or "$(" in inner or "`" in inner
                with_word = _WITH_WORD.fullmatch(inner)
                # The word with its quotes and escapes removed, as bash reads it.
                alternative = re.sub(r"\\(.)|[\"']", r"\1", with_word.group(1)) if with_word else None
                self._unresolved(text[i : end + 1], alternative)
            return end + 1
        if nxt == "'" and not quoted:
            value, end = _ansi_c(text, i + 2)
            if end < 0:
                self.complete = False
                self._lit(value)
                return n
            self._lit(value)
            return end
        if nxt == '"' and not quoted:
            return i + 1  # `$"…"`: a double-quoted string
        m = _NAME.match(text, i + 1)
        if m:
            name = m.group(0)
            if name in self.variables:
                self._expanded(self.variables[name], quoted)
            else:
                self._unresolved(text[i : m.end()])
            return m.end()
        if nxt and nxt in "0123456789@*#?$!-":
            self._unresolved(text[i : i + 2])
            return i + 2
        self._lit("$")
        return i + 1

    def _backtick(self, i: int) -> int:
        text = self.text
        j = i + 1
        while j < len(text) and text[j] != "`":
            j += 2 if text[j] == "\\" else 1
        self.substitutes = True
        if j >= len(text):
            self.complete = False
            self.nested.append(text[i + 1 :])
            self._unresolved(text[i:])
            return len(text)
        self.nested.append(text[i + 1 : j].replace("\\`", "`"))
        self._unresolved(text[i : j + 1])
        return j + 1

    def _double_quoted(self, i: int) -> int:
        text, n = self.text, len(self.text)
        self._in_word = True
        while i < n:
            c = text[i]
            if c == '"':
                return i + 1
            if c == "\\" and i + 1 < n:
                e = text[i + 1]
                if e == "\n":
                    i += 2
                    continue
                self._lit(e if e in '$`"\\' else "\\" + e)
                i += 2
                continue
            if c == "$":
                i = self._dollar(i, quoted=True)
                continue
            if c == "`":
                i = self._backtick(i)
                continue
            self._lit(c)
            i += 1
        self.complete = False
        return n

    # -- the line --------------------------------------------------------------

    def run(self) -> Lexed:
        text, n = self.text, len(self.text)
        i = 0
        while i < n:
            c = text[i]
            if c == "\\" and i + 1 < n and text[i + 1] == "\n":
                i += 2  # a line continuation joins the word
                continue
            if c in " \t":
                self._end_word()
                i += 1
                continue
            if c == "#" and not self._in_word:
                end = text.find("\n", i)
                i = n if end < 0 else end
                continue
            if c == "\\":
                if i + 1 < n:
                    self._lit(text[i + 1])
                i += 2
                continue
            if c == "'":
                end = text.find("'", i + 1)
                if end < 0:
                    self.complete = False
                    self._lit(text[i + 1 :])
                    i = n
                else:
                    self._lit(text[i + 1 : end])
                    i = end + 1
                continue
            if c == '"':
                i = self._double_quoted(i + 1)
                continue
            if c == "$":
                i = self._dollar(i, quoted=False)
                continue
            if c == "`":
                i = self._backtick(i)
                continue
            if c in "<>" and text.startswith("(", i + 1) and not self._in_word:
                end = _matching(text, i + 2, "(", ")")
                self.substitutes = True
                if end < 0:
                    self.complete = False
                    self.nested.append(text[i + 2 :])
                    i = n
                else:
                    self.nested.append(text[i + 2 : end])
                    self._unresolved(text[i : end + 1])
                    i = end + 1
                continue
            op = next((o for o in REDIRECTIONS if text.startswith(o, i)), None)
            if op is not None:
                # `2>`: a word of digits just before the operator names the fd.
                if self._in_word and "".join(self._value).isdigit():
                    self._value, self._sources, self._alternatives = [], [], []
                    self._in_word = False
                self._end_word()
                self.tokens.append(Operator(op))
                i += len(op)
                continue
            op = next((o for o in SEPARATORS if text.startswith(o, i)), None)
            if op is not None:
                self._end_word()
                self._end_command()
                if op == "(" and text.startswith("((", i):
                    self.evaluates = True  # `(( … ))`: arithmetic
                self.tokens.append(Operator(op))
                i += len(op)
                continue
            if c in "{,}":
                self._lit({"{": _LBRACE, ",": _COMMA, "}": _RBRACE}[c])
                i += 1
                continue
            self._globs = self._globs or c in _GLOB_CHARS
            self._lit(c)
            i += 1
        self._end_word()
        self._end_command()
        return Lexed(
            tuple(self.tokens), tuple(self.nested), self.evaluates, self.substitutes, self.complete
        )


def lex(line: str, variables: dict[str, str] | None = None) -> Lexed:
    """The tokens of one command line. `variables` (name -> value) are
    substituted where they are expanded."""
    return _Lexer(line, dict(variables or {})).run()
