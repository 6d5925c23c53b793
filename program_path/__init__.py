"""Where Luxe and Laura look for the programs they start: PATH's absolute
entries only, the one rule both programs share.

An entry of PATH that is not absolute (`.`, `bin`, `node_modules/.bin`, and
the empty entry a stray colon makes: `PATH=:/usr/bin`, `PATH=/usr/bin:`)
names a directory relative to wherever the lookup happens, and both programs
start their children in a repository someone else wrote. With one, starting
Luxe in a clone ran the clone's own `git` five times before any turn, and a
read-only `cat README.md` ran its `cat`. So every child is started with
PATH cut to its absolute entries (its own lookups and its children's too),
and each program Luxe looks up itself (bash, rg, a language server) is
looked for there; the other search paths a child resolves the same way
(PYTHONPATH, LD_LIBRARY_PATH...) are cut alike. A tab's own shell keeps the
person's environment: what they type there is theirs.

Luxe's and Laura's own imports are guarded by their packages' `__init__`
(it runs before they import anything else, so it cannot import this).

Imports nothing of either program; pure.
"""

from __future__ import annotations

import os
from collections.abc import Mapping


def absolute_entries(path: str | None) -> str:
    """`path` (a PATH value) without its relative and empty entries."""
    return os.pathsep.join(p for p in (path or "").split(os.pathsep) if os.path.isabs(p))


# The search paths a child resolves against its working directory: its
# programs, Python's modules (a `json.py` of the repository's imported by a
# hook's Python script), the dynamic loader's libraries, Node's, Perl's and
# Ruby's modules.
SEARCH_PATHS = ("PATH", "PYTHONPATH", "LD_LIBRARY_PATH", "NODE_PATH", "PERL5LIB", "RUBYLIB")


def environment(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """A copy of `env` (default: this process's) for a child: each of
    SEARCH_PATHS cut to its absolute entries. A missing one stays missing
    (PATH's system default is absolute). One left empty would name the
    working directory itself: PATH becomes the system default, any other
    is removed."""
    copy = dict(os.environ if env is None else env)
    for name in SEARCH_PATHS:
        if name in copy:
            cut = absolute_entries(copy[name])
            if cut:
                copy[name] = cut
            elif name == "PATH":
                copy[name] = os.defpath
            else:
                del copy[name]
    return copy


def which(
    program: str, env: Mapping[str, str] | None = None, *, also: tuple[str, ...] = ()
) -> str | None:
    """The absolute path of `program` in PATH's absolute entries, then in the
    directories `also` names, or None: never a directory relative to where
    the lookup happens, and never a name with a `/` that is not absolute.
    As shutil.which, without loading shutil (and its compressors) before a
    first frame."""
    if os.path.isabs(program):
        return program if os.access(program, os.X_OK) and os.path.isfile(program) else None
    if os.sep in program:
        return None  # relative to what? Never to the repository being worked in.
    path = (os.environ if env is None else env).get("PATH", os.defpath)
    for directory in (*absolute_entries(path).split(os.pathsep), *also):
        candidate = os.path.join(directory, program)
        if directory and os.access(candidate, os.X_OK) and os.path.isfile(candidate):
            return candidate
    return None
