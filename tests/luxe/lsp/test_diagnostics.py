"""Diagnostics on edit with a real language server (ruff's), in-process and
through `luxe --rpc`."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
import trio

from luxe.lsp.diagnostics import format_diagnostics, serve_edit_diagnostics
from tests.helpers.procs import live_pids_with
from tests.helpers.wait import wait_until
from tests.luxe.policy.e2e import call, luxe_on_fake_model, tool_results

RUFF = shutil.which("ruff", path=str(Path(sys.executable).parent))
needs_ruff = pytest.mark.skipif(
    RUFF is None, reason="ruff (the test extra) provides the language server"
)


def diag(line: int, severity: int, code: str, message: str) -> dict[str, object]:
    return {
        "range": {"start": {"line": line, "character": 0}},
        "severity": severity,
        "code": code,
        "message": message,
    }


def test_format_errors_first_capped_hints_left_out() -> None:
    items = [diag(1, 2, "W1", "a warning"), diag(9, 1, "E1", "an error"), diag(3, 4, "H", "a hint")]
    assert format_diagnostics("x.py", items, "ruff") == (
        "Diagnostics for x.py (ruff): 1 error(s), 1 warning(s)\n"
        "x.py:10:1: error E1 an error\n"
        "x.py:2:1: warning W1 a warning"
    )
    assert format_diagnostics("x.py", [diag(0, 4, "H", "hint")], "ruff") is None
    many = format_diagnostics("x.py", [diag(i, 1, "E", "e") for i in range(25)], "ruff")
    assert many is not None and many.endswith("(and 5 more)")


@needs_ruff
async def test_fresh_diagnostics_after_each_edit_and_server_ends_with_the_session(
    tmp_path: Path,
) -> None:
    source = tmp_path / "app.py"
    env = {"PATH": str(Path(sys.executable).parent)}
    async with trio.open_nursery() as nursery:
        diagnostics = await nursery.start(serve_edit_diagnostics, tmp_path, env)
        assert diagnostics is not None
        source.write_text("import os\nvalue = undefined_name\n")
        found = await diagnostics.after_edit(str(source))
        assert found is not None
        assert found.splitlines()[1] == "app.py:2:9: error F821 Undefined name `undefined_name`"
        assert "F401" in found
        source.write_text("value = 1\n")
        assert await diagnostics.after_edit(str(source)) is None  # not stale
        assert await diagnostics.after_edit(str(tmp_path / "notes.md")) is None  # no server for it
        assert servers_in(tmp_path)
        nursery.cancel_scope.cancel()
    assert wait_until(lambda: not servers_in(tmp_path))


def servers_in(directory: Path) -> list[int]:
    """Live `ruff server` processes working in `directory` (ours, not another test's)."""
    found = []
    for pid in live_pids_with("ruff server"):
        try:
            if Path(f"/proc/{pid}/cwd").resolve() == directory.resolve():
                found.append(pid)
        except OSError:
            continue
    return found


@needs_ruff
def test_edit_diagnostics_reach_the_model(repo: Path, env: dict[str, str]) -> None:
    steps = [
        {"tool_calls": [call("write", path="bad.py", content="print(undefined_name)\n")]},
        {"tool_calls": [call("write", path="good.py", content="print(1)\n")]},
        {"text": "ok"},
    ]
    with luxe_on_fake_model(steps, "--yolo", cwd=repo, env=env) as (luxe, server):
        luxe.send("submit_user_message", {"text": "write"})
        assert luxe.expect("turn_ended", timeout=30)["reason"] == "end_turn"
        results = tool_results(server.bodies[-1])
        assert "error F821 Undefined name `undefined_name`" in results[0]
        assert "Diagnostics" not in results[1]
        assert servers_in(repo)
        assert luxe.close() == 0
    assert wait_until(lambda: not servers_in(repo))


@needs_ruff
def test_lsp_on_edit_can_be_turned_off(repo: Path, env: dict[str, str]) -> None:
    steps = [
        {"tool_calls": [call("write", path="bad.py", content="print(undefined_name)\n")]},
        {"text": "ok"},
    ]
    with luxe_on_fake_model(steps, "--yolo", cwd=repo, env={**env, "LUXE_LSP_ON_EDIT": "0"}) as (
        luxe,
        server,
    ):
        luxe.send("submit_user_message", {"text": "write"})
        assert luxe.expect("turn_ended", timeout=30)["reason"] == "end_turn"
        assert "Diagnostics" not in tool_results(server.bodies[-1])[0]
        assert luxe.close() == 0
