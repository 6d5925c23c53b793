"""No module under tests/ imports from a test module (test_*.py): shared
helpers live in tests/helpers, in a folder's own helper or driver module,
or, as fixtures, in its conftest.py (tests/helpers/__init__.py). A test
module imported by another is a second home for its helpers, and the two
drift apart."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def imports(path: Path) -> Iterator[tuple[int, list[str]]]:
    """Each import statement anywhere in `path`, as (line, the dotted names
    it may load): `import a.b` loads a.b; `from a import b` loads a, and a.b
    when b is a module. Relative imports are resolved against the package
    of `path`."""
    package = path.relative_to(TESTS.parent).with_suffix("").parts[:-1]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            yield node.lineno, [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = list(package[: len(package) - node.level + 1]) if node.level else []
            module = [*base, *node.module.split(".")] if node.module else base
            names = [".".join([*module, alias.name]) for alias in node.names]
            yield node.lineno, [".".join(module), *names]


def is_test_module(name: str) -> bool:
    """`name` is, or is in, a test module of ours (a bare `test_x` too:
    pytest can put a test's folder on sys.path)."""
    parts = name.split(".")
    if parts[0] != "tests":
        return parts[0].startswith("test_")
    return any(part.startswith("test_") for part in parts)


def imports_of_test_modules(path: Path) -> list[str]:
    """`file:line imports module` for each statement of `path` that imports
    a test module."""
    found = []
    for line, names in imports(path):
        tests = [name for name in names if is_test_module(name)]
        if tests:
            found.append(f"{path.relative_to(TESTS.parent)}:{line} imports {tests[0]}")
    return found


def test_no_module_under_tests_imports_a_test_module() -> None:
    offenders = [line for path in sorted(TESTS.rglob("*.py")) for line in imports_of_test_modules(path)]
    assert not offenders, "move what they share out of the test module:\n" + "\n".join(offenders)
