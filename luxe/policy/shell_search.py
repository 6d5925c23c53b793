"""Recursive search commands in bash (`grep -r`, `rg`, `ag`, `git grep`):
which directories they search and which file names they exclude. Pure.

Why: a recursive search over a directory holding `.env` reads the secret
without naming it, and even a match count lets a model guess a value one
character at a time. The engine refuses such a search unless it excludes
every secret file by name (see docs/permissions.md).
"""

from __future__ import annotations

from luxe.record import record

_GREPS = frozenset({"grep", "egrep", "fgrep"})
_ALWAYS_RECURSIVE = frozenset({"rg", "ag"})
# Options of grep that take a value as the next word (when not attached).
_GREP_VALUE_SHORT = frozenset("efmABCDd")
_RG_VALUE_SHORT = frozenset("efmABCgtTjEMr")
_LONG_WITH_VALUE = frozenset(
    {
        "exclude-dir",
        "include",
        "type",
        "type-not",
        "max-count",
        "context",
        "before-context",
        "after-context",
        "color",
        "colors",
        "encoding",
    }
)


@record
class RecursiveSearch:
    roots: tuple[str, ...]  # directories (or files) searched, as written; () = the cwd
    excludes: tuple[str, ...]  # file-name globs the command leaves out


def _grep_like(prog: str, args: tuple[str, ...]) -> RecursiveSearch | None:
    value_short = _RG_VALUE_SHORT if prog in _ALWAYS_RECURSIVE else _GREP_VALUE_SHORT
    recursive = prog in _ALWAYS_RECURSIVE
    excludes: list[str] = []
    operands: list[str] = []
    pattern_given = False  # by -e/-f: then every operand is a root
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--":
            operands.extend(args[i + 1 :])
            break
        if a.startswith("--"):
            name, eq, value = a[2:].partition("=")
            recurse_flag = name in ("recursive", "dereference-recursive")
            if recurse_flag or (name == "directories" and value == "recurse"):
                recursive = True
            elif name in ("exclude", "glob", "iglob"):
                if not eq and i + 1 < len(args):
                    i += 1
                    value = args[i]
                if name == "exclude":
                    excludes.append(value)
                elif value.startswith("!"):  # rg: `--glob '!.env'` leaves it out
                    excludes.append(value[1:])
            elif name in ("regexp", "file"):
                pattern_given = True
                if not eq:
                    i += 1
            elif not eq and name in _LONG_WITH_VALUE:
                i += 1
        elif a.startswith("-") and len(a) > 1:
            for j, ch in enumerate(a[1:], 1):
                if ch in "rR" and prog in _GREPS:
                    recursive = True
                if ch in value_short:
                    value = a[j + 1 :]
                    if not value and i + 1 < len(args):
                        i += 1
                        value = args[i]
                    if ch == "d" and prog in _GREPS and value == "recurse":
                        recursive = True
                    if ch in "ef":
                        pattern_given = True
                    if ch == "g" and value.startswith("!"):
                        excludes.append(value[1:])
                    break
        else:
            operands.append(a)
        i += 1
    if not recursive:
        return None
    roots = operands if pattern_given else operands[1:]
    return RecursiveSearch(tuple(roots), tuple(excludes))


def _git_grep(args: tuple[str, ...]) -> RecursiveSearch | None:
    # `git grep` searches tracked files only; an untracked `.env` is reached
    # only with --untracked or --no-index.
    if not any(a in ("--untracked", "--no-index") for a in args):
        return None
    excludes = [
        a.split(")", 1)[1] if a.startswith(":(exclude)") else a[2:]
        for a in args
        if a.startswith((":!", ":^", ":(exclude)"))
    ]
    return RecursiveSearch((), tuple(excludes))


def recursive_search(words: tuple[str, ...]) -> RecursiveSearch | None:
    """What a simple command searches recursively, or None if it does not."""
    if not words:
        return None
    prog, args = words[0].rsplit("/", 1)[-1], words[1:]
    if prog in _GREPS or prog in _ALWAYS_RECURSIVE:
        return _grep_like(prog, args)
    if prog == "git":
        rest = [a for a in args if not a.startswith("-")]
        if rest[:1] == ["grep"]:
            return _git_grep(args)
    return None
