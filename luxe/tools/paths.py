"""Path handling shared by the file tools: resolve against the session cwd."""

from __future__ import annotations

from pathlib import Path

from luxe.engine.tooling import ToolError, call_path


def resolve(cwd: Path, path: str) -> Path:
    """`path` made absolute against `cwd` (`~` expands); never touches disk."""
    if not path:
        raise ToolError("empty path")
    return call_path(cwd, path)


def shown(cwd: Path, path: Path) -> str:
    """A path as the model should see it: relative to cwd when inside it."""
    try:
        return str(path.relative_to(cwd))
    except ValueError:
        return str(path)


SKIP_DIRS = frozenset({".git", "node_modules", "__pycache__", ".venv", ".mypy_cache", ".ruff_cache"})
