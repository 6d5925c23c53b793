"""Every test that times keys against the idle baseline (EchoProbe,
keys_while_cli, assert_keys_echoed) carries the `timing` mark, so `make
test` runs it alone after the parallel pass: beside another worker's
CPU-bound test its latency is the other test's, not laura's."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent
PROBES = {"EchoProbe", "keys_while_cli", "assert_keys_echoed"}


def marked_timing(node: ast.FunctionDef | ast.AsyncFunctionDef, module: ast.Module) -> bool:
    marks = [*node.decorator_list]
    for statement in module.body:
        if isinstance(statement, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == "pytestmark" for target in statement.targets
        ):
            marks.append(statement.value)
    return any("pytest.mark.timing" in ast.unparse(mark) for mark in marks)


def unmarked_probes(path: Path, root: Path = TESTS.parent) -> list[str]:
    """`file:line name` of each test in `path` that probes keys unmarked."""
    module = ast.parse(path.read_text(), str(path))
    found = []
    for node in ast.walk(module):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test_"):
            called = {
                call.func.id if isinstance(call.func, ast.Name) else getattr(call.func, "attr", "")
                for call in ast.walk(node)
                if isinstance(call, ast.Call)
            }
            if called & PROBES and not marked_timing(node, module):
                found.append(f"{path.relative_to(root)}:{node.lineno} {node.name}")
    return found


def test_every_test_that_times_keys_is_marked_timing() -> None:
    offenders = [line for path in sorted(TESTS.rglob("test_*.py")) for line in unmarked_probes(path)]
    assert not offenders, "mark these @pytest.mark.timing:\n" + "\n".join(offenders)


def test_the_guard_sees_an_unmarked_probe(tmp_path: Path) -> None:
    module = tmp_path / "test_example.py"
    module.write_text("def test_keys(session):\n    probe = EchoProbe(session)\n")
    assert unmarked_probes(module, tmp_path) == ["test_example.py:1 test_keys"]
    module.write_text("import pytest\n@pytest.mark.timing\ndef test_keys(session):\n    EchoProbe(session)\n")
    assert unmarked_probes(module, tmp_path) == []
    module.write_text("import pytest\npytestmark = pytest.mark.timing\ndef test_keys(s):\n    keys_while_cli(s)\n")
    assert unmarked_probes(module, tmp_path) == []
