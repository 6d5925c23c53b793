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
looked for there. A tab's own shell keeps the person's PATH: what they type
there is theirs.

Imports nothing of either program; pure.
"""

from __future__ import annotations

import os
from collections.abc import Mapping


def absolute_entries(path: str | None) -> str:
    """`path` (a PATH value) without its relative and empty entries."""
    return os.pathsep.join(p for p in (path or "").split(os.pathsep) if os.path.isabs(p))


def environment(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """A copy of `env` (default: this process's) for a child: PATH cut to
    its absolute entries. A missing PATH stays missing (the system's
    default path is absolute)."""
    copy = dict(os.environ if env is None else env)
    if "PATH" in copy:
        copy["PATH"] = absolute_entries(copy["PATH"])
    return copy


def which(program: str, env: Mapping[str, str] | None = None) -> str | None:
    """`shutil.which(program)` over PATH's absolute entries only."""
    import shutil  # it loads the compressors: not before a first frame

    path = (os.environ if env is None else env).get("PATH", os.defpath)
    return shutil.which(program, path=absolute_entries(path))
