"""A file reached by another name, as a hostile checkout would name it: a
symlink to it, a hard link to it, or a name that looks like an option."""

from __future__ import annotations

import os
from pathlib import Path

SPELLINGS = ["symlink", "hard link", "option-looking name"]


def reached_by(target: Path, spelling: str, name: str) -> Path:
    """`target`'s content at `name` beside it: a symlink or a hard link to
    it, or `target` itself renamed (for an option-looking name)."""
    path = target.with_name(name)
    if spelling == "symlink":
        path.symlink_to(target)
    elif spelling == "hard link":
        os.link(target, path)
    else:
        target.rename(path)
    return path
