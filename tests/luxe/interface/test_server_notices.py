"""A language server that fails, stops or is not started is told to the
person once, in the interface as in print mode: its name, state and why
(before, only print mode and the model said so)."""

from __future__ import annotations

import sys

from luxe.frontends.server_notices import ServerNotices
from luxe.protocol import events as ev
from tests.fakes import LSP_SERVER as FAKE
from tests.luxe.interface.conftest import StartUi
from tests.luxe.policy.e2e import global_config, write_json

CRASHED = "exited with status 3: fake server crashed on start"


def state(name: str, state: str, detail: str | None = None, root: str = "/r") -> ev.DiagnosticsServerState:
    return ev.DiagnosticsServerState(name, root, state, detail)


def test_each_failure_and_stop_is_told_once() -> None:
    notices = ServerNotices()
    frame = lambda *servers: ev.DiagnosticsServers(list(servers))  # noqa: E731
    assert notices.news(frame(state("a", "starting"))) == []
    assert notices.news(frame(state("a", "failed", "boom"))) == ["a failed: boom"]
    assert notices.news(frame(state("a", "failed", "boom"), state("b", "running"))) == []
    assert notices.news(frame(state("a", "starting"))) == []
    assert notices.news(frame(state("a", "failed", "boom"))) == ["a failed: boom"]  # failed again
    assert notices.news(frame(state("a", "stopped"), state("a", "stopped", root="/s"))) == [
        "a stopped",
        "a stopped",
    ]


def test_the_interface_and_plain_mode_say_a_server_failed_and_stopped(
    ui: StartUi, env: dict[str, str]
) -> None:
    write_json(
        global_config(env) / "settings.json",
        {"lsp": {"crashy": {"ext": [".cr"], "command": [sys.executable, FAKE, "crash"]}}},
    )
    steps = [
        {"tool_calls": [{"name": "write", "args": {"path": "a.cr", "content": "x\n"}}]},
        {"text": "written"},
    ]
    session = ui(steps, "--yolo", env_extra={"LUXE_LSP_ON_EDIT": "1"})
    session.type("write it")
    session.send_keys("Enter")
    session.wait_for("written")
    screen = "\n".join(session.history())
    assert f"  crashy failed: {CRASHED}" in screen
    assert f"  crashy stopped: {CRASHED}" in screen
    assert screen.count("crashy failed") == 2  # each failure (it is started again twice), once

    plain = ui(steps, "--yolo", "--plain", env_extra={"LUXE_LSP_ON_EDIT": "1"}, wait="Type a prompt")
    plain.type("write it")
    plain.send_keys("Enter")
    screen = plain.wait_for("luxe: done.")
    assert f"diagnostics: crashy stopped: {CRASHED}" in screen
