"""Permission rule patterns: parsing `tool` / `tool(glob)` and matching them.

Pure: no I/O. Paths reach this module already resolved (see `facts.py`).

Glob semantics:
- bash: the glob is matched against each simple command of the line
  (`git status --short`), with `*` matching anything, `/` included.
- path tools: `**` spans directories (`**/` also matches none), `*` and `?`
  stay within one path segment. A relative pattern is matched against the
  path relative to the project root; a pattern with no `/` against the file
  name at any depth (as in .gitignore); `/abs/...` and `~/...` against the
  absolute path.
- other tools: against their main argument (`pattern` for glob, `url`, ...).
"""

from __future__ import annotations

import fnmatch
import functools
import os
import re
from collections.abc import Iterable

from luxe.record import record

_RULE = re.compile(r"^\s*(\*|[A-Za-z_][A-Za-z0-9_.:-]*)\s*(?:\((.*)\))?\s*$", re.DOTALL)


class RuleError(ValueError):
    """A pattern that does not parse; the message says why."""


@record
class Rule:
    tool: str  # lower-case tool name, or "*" for every tool
    glob: str | None  # None: every call of the tool
    text: str  # as the user wrote it, for messages
    source: str = "session"  # where it came from: a file path, "flag", "session"

    def __str__(self) -> str:
        return self.text


def parse_rule(text: str, source: str = "session") -> Rule:
    if not isinstance(text, str) or not text.strip():
        raise RuleError("a rule must be a non-empty string like `bash(git status*)`")
    m = _RULE.match(text)
    if not m:
        if "(" in text and not text.rstrip().endswith(")"):
            raise RuleError(f"`{text}`: missing `)` at the end")
        raise RuleError(f"`{text}`: expected `tool` or `tool(glob)`")
    tool, glob = m.group(1).lower(), m.group(2)
    if glob is not None:
        if not glob.strip():
            raise RuleError(f"`{text}`: empty glob; write `{tool}` to match every call")
        if glob.count("[") != glob.count("]"):
            raise RuleError(f"`{text}`: unbalanced `[` in the glob")
    return Rule(tool, glob, text.strip(), source)


@functools.lru_cache(maxsize=1024)
def path_glob_regex(glob: str, fold_case: bool = False) -> re.Pattern[str]:
    """Compile a path glob (`src/**`, `**/*.lock`, `*.py`) to a regex."""
    out: list[str] = []
    i, n = 0, len(glob)
    while i < n:
        if glob.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif glob.startswith("**", i):
            out.append(".*")
            i += 2
        elif glob[i] == "*":
            out.append("[^/]*")
            i += 1
        elif glob[i] == "?":
            out.append("[^/]")
            i += 1
        elif glob[i] == "[" and (end := glob.find("]", i + 2)) != -1:
            body = glob[i + 1 : end]
            if body.startswith("!"):
                body = "^" + body[1:]
            out.append("[" + body.replace("\\", "\\\\") + "]")
            i = end + 1
        else:
            out.append(re.escape(glob[i]))
            i += 1
    return re.compile("".join(out), re.DOTALL | (re.IGNORECASE if fold_case else 0))


@record
class PathName:
    """One name of a file: absolute (normalised) and, when it lies under the
    project root, relative to it (posix form)."""

    absolute: str
    relative: str | None


def path_name(absolute: str, root: str) -> PathName:
    absolute = os.path.normpath(absolute)
    rel = os.path.relpath(absolute, root)
    inside = rel != ".." and not rel.startswith("../") and not os.path.isabs(rel)
    return PathName(absolute, rel if inside else None)


def path_matches(glob: str, name: PathName, home: str, *, fold_case: bool = False) -> bool:
    """`fold_case` (deny and ask rules): `SECRET.txt` is the same file as
    `secret.txt` on a case-insensitive filesystem, so a deny covers both."""
    if glob.startswith("~/"):
        glob = home.rstrip("/") + glob[1:]
    if glob.startswith("/"):
        return bool(path_glob_regex(glob.rstrip("/") or "/", fold_case).fullmatch(name.absolute))
    glob = glob.removeprefix("./")
    if "/" not in glob.rstrip("/"):
        base = os.path.basename(name.absolute)
        return bool(path_glob_regex(glob.rstrip("/"), fold_case).fullmatch(base))
    if name.relative is None:
        return False
    return bool(path_glob_regex(glob.rstrip("/"), fold_case).fullmatch(name.relative))


def text_matches(glob: str, text: str) -> bool:
    """bash and other tools: `*` matches anything, `/` included."""
    return fnmatch.fnmatchcase(text, glob)


def rules_for(rules: Iterable[Rule], tool: str) -> list[Rule]:
    return [r for r in rules if r.tool in (tool, "*")]
