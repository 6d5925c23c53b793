"""The edit -> verify -> fix loop through the real `luxe --rpc` and real
language servers: a tool edit that introduces an error makes the next model
request carry it, fixing it clears it, and closing the session leaves no
server process behind (node and tsserver children included)."""

from __future__ import annotations

import json
import shutil
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.fakes import LSP_SERVER as FAKE
from tests.fakes.llm_server import FakeLLMServer
from tests.luxe.policy.e2e import call, global_config, luxe_on_fake_model, tool_results, write_json
from tests.luxe.print_driver import model_env, run_print
from tests.luxe.rpc_driver import LuxeProcess, processes_with_marker, wait_until

BIN = Path(sys.executable).parent
# Real servers: generous, since a cold type checker on a loaded machine is slow.
ON = {"LUXE_LSP_ON_EDIT": "1", "LUXE_LSP_TIMEOUT_S": "90"}
TURN_TIMEOUT_S = 110


def installed(program: str) -> bool:
    return shutil.which(program) is not None or shutil.which(program, path=str(BIN)) is not None


needs_python_servers = pytest.mark.skipif(
    not (installed("ruff") and installed("basedpyright-langserver")),
    reason="ruff and basedpyright come with the test extra",
)
needs_typescript = pytest.mark.skipif(
    not (installed("typescript-language-server") and installed("tsserver")),
    reason=".ci/run installs typescript-language-server and typescript with npm",
)


@contextmanager
def session(
    steps: list[dict[str, Any]], repo: Path, env: dict[str, str]
) -> Iterator[tuple[LuxeProcess, FakeLLMServer, dict[str, Any]]]:
    """A luxe on the fake model that runs `steps` for one prompt; yields it
    after the turn ended, with the `ready` content."""
    with luxe_on_fake_model(steps, "--yolo", cwd=repo, env=env) as (luxe, server):
        ready = luxe.frames[0]["content"]
        luxe.send("submit_user_message", {"text": "go"})
        assert luxe.expect("turn_ended", timeout=TURN_TIMEOUT_S)["reason"] == "end_turn"
        yield luxe, server, ready


def results_of(server: FakeLLMServer, request: int) -> list[str]:
    """The tool results request number `request` (0-based) carried."""
    return tool_results(server.bodies[request])


def server_states(luxe: LuxeProcess) -> dict[str, str]:
    last = [f for f in luxe.frames if f["kind"] == "diagnostics_servers"][-1]["content"]
    return {s["name"]: s["state"] for s in last["servers"]}


def ours(env: dict[str, str], marker: str = "") -> list[int]:
    return processes_with_marker(marker, scope=env)


@needs_python_servers
def test_python_errors_from_ruff_and_basedpyright_reach_the_model_and_clear_when_fixed(
    repo: Path, env: dict[str, str]
) -> None:
    env = {**env, **ON}
    bad = "def half(n: int) -> int:\n    return n / 2\n\nprint(half('4'), missing)\n"
    good = "def half(n: int) -> int:\n    return n // 2\n\nprint(half(4))\n"
    steps = [
        {"tool_calls": [call("write", path="calc.py", content=bad)]},
        {"tool_calls": [call("write", path="calc.py", content=good)]},
        {"text": "fixed"},
    ]
    with session(steps, repo, env) as (luxe, server, ready):
        assert "diagnostics" in ready["capabilities"]
        found = {s["name"] for s in ready["diagnostics"]}
        assert {"ruff", "basedpyright"} <= found
        carried = results_of(server, 1)[0]
        assert "Diagnostics for calc.py (ruff, basedpyright):" in carried
        assert "calc.py:4:18: error [Ruff F821] Undefined name `missing`" in carried
        assert "calc.py:2:12: error [basedpyright reportReturnType]" in carried
        assert "calc.py:4:12: error [basedpyright reportArgumentType]" in carried
        assert "Diagnostics" not in results_of(server, 2)[-1]
        assert server_states(luxe) == {"ruff": "running", "basedpyright": "running"}
        assert ours(env, "ruff") and ours(env, "basedpyright")
        assert luxe.close() == 0
    assert wait_until(lambda: not ours(env), what="no process of the session left")


@needs_typescript
def test_a_typescript_error_reaches_the_model_and_clears_when_fixed(
    repo: Path, env: dict[str, str]
) -> None:
    env = {**env, **ON}
    steps = [
        {
            "tool_calls": [
                call(
                    "write",
                    path="web/src/app.ts",
                    content="const n: number = 'one';\nexport { n };\n",
                )
            ]
        },
        {"tool_calls": [call("edit", path="web/src/app.ts", old_string="'one'", new_string="1")]},
        {"text": "fixed"},
    ]
    (repo / "web").mkdir()
    (repo / "web" / "tsconfig.json").write_text('{"compilerOptions": {"strict": true}}\n')
    with session(steps, repo, env) as (luxe, server, ready):
        assert "typescript-language-server" in {s["name"] for s in ready["diagnostics"]}
        carried = results_of(server, 1)[0]
        assert "Diagnostics for web/src/app.ts (typescript-language-server):" in carried
        assert (
            "web/src/app.ts:1:7: error [typescript 2322] "
            "Type 'string' is not assignable to type 'number'." in carried
        )
        assert "Diagnostics" not in results_of(server, 2)[-1]
        last = [f for f in luxe.frames if f["kind"] == "diagnostics_servers"][-1]["content"]
        assert last["servers"] == [
            {
                "name": "typescript-language-server",
                "root": str(repo / "web"),
                "state": "running",
                "detail": None,
            }
        ]
        assert ours(env, "tsserver"), "typescript-language-server runs tsserver as its child"
        assert luxe.close() == 0
    assert wait_until(lambda: not ours(env), what="no node or tsserver process left")


def test_settings_add_a_server_turn_one_off_and_a_failing_one_is_told_once(
    repo: Path, env: dict[str, str]
) -> None:
    """One session: ruff and basedpyright turned off, a server added for .zz,
    one that crashes on start (.cr)."""
    env = {**env, "LUXE_LSP_ON_EDIT": "1", "LUXE_LSP_TIMEOUT_S": "60"}
    write_json(
        global_config(env) / "settings.json",
        {
            "lsp": {
                "ruff": {"disabled": True},
                "basedpyright": {"disabled": True},
                "zz": {"ext": [".zz"], "command": [sys.executable, FAKE, "serve"]},
                "crashy": {"ext": [".cr"], "command": [sys.executable, FAKE, "crash"]},
            }
        },
    )
    steps = [
        {"tool_calls": [call("write", path="bad.py", content="print(undefined_name)\n")]},
        {"tool_calls": [call("write", path="a.zz", content="ok\nBAD\n")]},
        {"tool_calls": [call("write", path="a.cr", content="x\n")]},
        {"tool_calls": [call("write", path="b.cr", content="x\n")]},
        {"text": "done"},
    ]
    with session(steps, repo, env) as (luxe, server, ready):
        found = {s["name"] for s in ready["diagnostics"]}
        assert {"zz", "crashy"} <= found and not {"ruff", "basedpyright"} & found
        assert "Diagnostics" not in results_of(server, 1)[0]
        assert results_of(server, 2)[-1].endswith(
            "Diagnostics for a.zz (zz): 1 error(s), 0 warning(s)\na.zz:2:1: error [fake F1] bad word"
        )
        assert results_of(server, 3)[-1].endswith("\n\ncrashy stopped; diagnostics off for .cr")
        assert "crashy" not in results_of(server, 4)[-1]  # said once
        assert server_states(luxe) == {"zz": "running", "crashy": "stopped"}
        assert luxe.close() == 0
    assert wait_until(lambda: not ours(env), what="no server left")


def test_a_server_that_never_answers_costs_the_edit_the_timeout(
    repo: Path, env: dict[str, str]
) -> None:
    env = {**env, "LUXE_LSP_ON_EDIT": "1", "LUXE_LSP_TIMEOUT_S": "1"}
    write_json(
        global_config(env) / "settings.json",
        {"lsp": {"mute": {"ext": [".mu"], "command": [sys.executable, FAKE, "silent"]}}},
    )
    steps = [{"tool_calls": [call("write", path="a.mu", content="x\n")]}, {"text": "done"}]
    with session(steps, repo, env) as (luxe, server, _):
        assert results_of(server, 1)[0].endswith("\n\n(mute is still starting; skipped this time)")
        assert server_states(luxe) == {"mute": "starting"}
        assert ours(env, FAKE)
        assert luxe.close() == 0
    assert wait_until(lambda: not ours(env), what="no server left, the silent one included")


def test_diagnostics_on_edit_can_be_turned_off(repo: Path, env: dict[str, str]) -> None:
    steps = [
        {"tool_calls": [call("write", path="bad.py", content="print(undefined_name)\n")]},
        {"text": "ok"},
    ]
    with session(steps, repo, env) as (luxe, server, ready):  # make_env says LUXE_LSP_ON_EDIT=0
        assert "diagnostics" not in ready["capabilities"] and ready["diagnostics"] == []
        assert "Diagnostics" not in results_of(server, 1)[0]
        assert "diagnostics_servers" not in luxe.kinds()
        assert luxe.close() == 0


def test_a_bad_lsp_setting_refuses_to_start(repo: Path, env: dict[str, str]) -> None:
    settings = write_json(
        global_config(env) / "settings.json", {"lsp": {"zls": {"command": ["zls"]}}}
    )
    luxe = LuxeProcess.start(["--model", "scripted:/nonexistent"], cwd=repo, env={**env, **ON})
    with luxe:
        assert luxe.wait_exit() == 2
        assert f"luxe: {settings}: `lsp.zls` is a new server: it needs `command` and `ext`" in (
            luxe.stderr_text()
        )
    assert json.loads(settings.read_text())  # untouched


def test_a_signal_ends_luxe_and_every_server_with_it(repo: Path, env: dict[str, str]) -> None:
    env = {**env, **ON}
    write_json(
        global_config(env) / "settings.json",
        {"lsp": {"zz": {"ext": [".zz"], "command": [sys.executable, FAKE, "serve"]}}},
    )
    steps = [{"tool_calls": [call("write", path="a.zz", content="BAD\n")]}, {"text": "done"}]
    with session(steps, repo, env) as (luxe, server, _):
        assert "a.zz:1:1: error [fake F1] bad word" in results_of(server, 1)[0]
        assert ours(env, FAKE)
        luxe.process.send_signal(signal.SIGTERM)
        assert luxe.wait_exit() == 0
    assert wait_until(lambda: not ours(env), what="no server left after SIGTERM")


def test_print_mode_says_on_stderr_that_a_server_stopped(repo: Path, env: dict[str, str]) -> None:
    env = {**env, **ON}
    write_json(
        global_config(env) / "settings.json",
        {"lsp": {"crashy": {"ext": [".cr"], "command": [sys.executable, FAKE, "crash"]}}},
    )
    steps = [{"tool_calls": [call("write", path="a.cr", content="x\n")]}, {"text": "Done."}]
    with FakeLLMServer(steps) as server:
        done = run_print(["go", "--yolo", "--verbose"], cwd=repo, env={**env, **model_env(server)})
        assert "crashy stopped; diagnostics off for .cr" in results_of(server, 1)[0]
    assert (done.returncode, done.stdout) == (0, b"Done.\n")
    lines = done.stderr.splitlines()
    # Two failures (each then started again), then stopped.
    assert lines.count("  crashy failed: exited with status 3: fake server crashed on start") == 2
    assert "  crashy stopped: exited with status 3: fake server crashed on start" in lines
    assert wait_until(lambda: not ours(env), what="no server left")
