"""Laura's layers as the folders show them: nothing imports upward.

Read from the source (the import statements), so a new upward import fails
here rather than in review. The layers are docs/architecture.md's, Laura
section: wire and pure parts, panes, the tab, the host.
"""

from __future__ import annotations

import ast
from pathlib import Path

LAURA = Path(__file__).resolve().parents[2] / "laura"

# A module under the first may not import any module named in the second.
FORBIDDEN = {
    "panes": ("laura.tab", "laura.review_ui", "laura.commands", "laura.bindings", "laura.app"),
    "review": ("laura.panes", "laura.tab", "laura.review_ui", "laura.commands", "laura.app"),
    "render": ("laura.panes", "laura.tab", "laura.review", "laura.commands", "laura.app"),
    # vt shares only the cell style type (laura.render.style) with render.
    "vt": ("laura.panes", "laura.review", "laura.tab", "laura.commands", "laura.app"),
    "tab.py": ("laura.review_ui", "laura.commands", "laura.bindings", "laura.app"),
    "commands.py": ("laura.bindings", "laura.app"),
    "bindings.py": ("laura.app",),
}


def imports_of(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def modules_under(part: str) -> list[Path]:
    target = LAURA / part
    return sorted(target.rglob("*.py")) if target.is_dir() else [target]


def test_no_layer_imports_one_above_it() -> None:
    upward = []
    for part, above in FORBIDDEN.items():
        for path in modules_under(part):
            for name in imports_of(path):
                if any(name == bad or name.startswith(bad + ".") for bad in above):
                    upward.append(f"{path.relative_to(LAURA)} imports {name}")
    assert upward == []


def test_laura_never_imports_luxe() -> None:
    found = [
        f"{path.relative_to(LAURA)} imports {name}"
        for path in sorted(LAURA.rglob("*.py"))
        for name in imports_of(path)
        if name == "luxe" or name.startswith("luxe.")
    ]
    assert found == []


def test_the_shared_process_group_package_imports_neither_program() -> None:
    shared = LAURA.parent / "process_group"
    found = [
        f"{path.name} imports {name}"
        for path in sorted(shared.rglob("*.py"))
        for name in imports_of(path)
        if name.split(".")[0] in ("luxe", "laura")
    ]
    assert list(shared.rglob("*.py")) and found == []
