"""Luxe hosted in a Laura tab: its edits show themselves in one pane beside
it, the `show` tool points at files (never a secret one), a pane the person
closed stays closed until the next turn, and a Laura that goes away costs
Luxe nothing. The real `laura` in tmux, the real `luxe --rpc` on pipes with
LAURA_TAB naming the tab, a scripted model."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.llm_server import FakeLLMServer
from tests.laura.tmux import LauraSession
from tests.luxe.in_laura import file_panes
from tests.luxe.rpc_driver import LuxeProcess, call, make_env, make_repo, wait_until, write_script

pytestmark = pytest.mark.tmux

MAIN = "".join(f"line {n}\n" for n in range(1, 41))


def edit(old: str, new: str) -> dict[str, Any]:
    return call("edit", path="main.py", old_string=old, new_string=new)


@pytest.fixture
def laura(tmp_path: Path) -> Iterator[LauraSession]:
    session = LauraSession(tmp_path / "laura", width=160, height=50)
    try:
        yield session.start()
    finally:
        session.close()


def start_luxe(tmp_path: Path, laura: LauraSession, steps: list[dict[str, Any]]) -> LuxeProcess:
    repo = make_repo(tmp_path / "repo", {"main.py": MAIN, ".env": "TOKEN=s3cr3t-value-123\n"})
    script = write_script(tmp_path, steps)
    env = make_env(tmp_path, LAURA_TAB=laura.tab)
    luxe = LuxeProcess.start(
        ["--model", f"scripted:{script}", "--permission-mode", "accept-edits"], cwd=repo, env=env
    )
    luxe.handshake()
    return luxe


REVERSE = re.compile(r"\x1b\[(?:[0-9;]*;)?7(?:;[0-9;]*)?m")
SGR = re.compile(r"\x1b\[[0-9;:]*m")


def lit_rows(laura: LauraSession) -> list[str]:
    """The text of the rows below the tab bar drawn partly in reverse video
    (a highlight), as a person sees them lit."""
    raw = laura.tmux("capture-pane", "-p", "-e").split("\n")[1:]
    return [SGR.sub("", row) for row in raw if REVERSE.search(row)]


def turn(luxe: LuxeProcess, text: str) -> None:
    luxe.send("submit_user_message", {"text": text})


def test_edits_show_in_one_reused_pane_with_the_change_lit(
    tmp_path: Path, laura: LauraSession
) -> None:
    luxe = start_luxe(
        tmp_path,
        laura,
        [
            {"tool_calls": [edit("line 12\n", "line twelve CHANGED\n")]},
            {"tool_calls": [call("question", question="go on?")]},
            {"tool_calls": [edit("line 30\n", "line thirty CHANGED\n")]},
            {"text": "done"},
        ],
    )
    turn(luxe, "change things")
    asked = luxe.expect("question_asked")
    (pane,) = wait_until(lambda: file_panes(laura), what="the edits pane")
    assert pane["path"].endswith("main.py")
    laura.wait_for("line twelve CHANGED")
    wait_until(lambda: any("twelve" in row for row in lit_rows(laura)), what="the edit lit")
    # The edits pane never takes the person's focus from the agent.
    assert "Ctrl+P panes" in laura.footer() or "shell" in laura.footer().lower()
    luxe.send("answer_question", {"id": asked["id"], "reply": {"answered": ["yes"]}})
    luxe.expect("turn_ended")
    # The second edit moved the same pane: still one file pane, same id.
    wait_until(lambda: any("thirty" in row for row in lit_rows(laura)), what="the 2nd edit lit")
    assert [p["id"] for p in file_panes(laura)] == [pane["id"]]
    assert luxe.close() == 0


def test_a_pane_the_person_closed_stays_closed_until_the_next_turn(
    tmp_path: Path, laura: LauraSession
) -> None:
    luxe = start_luxe(
        tmp_path,
        laura,
        [
            {"tool_calls": [edit("line 5\n", "line five CHANGED\n")]},
            {"tool_calls": [call("question", question="closed it?")]},
            {"tool_calls": [edit("line 6\n", "line six CHANGED\n")]},
            {"text": "turn one done"},
            {"tool_calls": [edit("line 7\n", "line seven CHANGED\n")]},
            {"text": "turn two done"},
        ],
    )
    turn(luxe, "one")
    asked = luxe.expect("question_asked")
    (pane,) = wait_until(lambda: file_panes(laura), what="the edits pane")
    assert laura.cli("close", str(pane["id"])).returncode == 0
    luxe.send("answer_question", {"id": asked["id"], "reply": {"answered": ["yes"]}})
    luxe.expect("file_changed")
    luxe.expect("turn_ended")
    turn(luxe, "two")
    luxe.expect("turn_ended")
    # The next turn's edit shows in a new pane; the one after the close, in
    # the turn the person closed it, opened nothing (one pane, not two).
    laura.wait_for("line seven CHANGED")
    (again,) = file_panes(laura)
    assert again["id"] != pane["id"]
    assert luxe.close() == 0


@pytest.mark.parametrize("target", [".env", "link-to-env", "./.env", "hard-link-to-env", "sub/../.env"])
def test_show_points_at_files_but_never_a_secret_one(
    tmp_path: Path, laura: LauraSession, target: str
) -> None:
    luxe = start_luxe(
        tmp_path,
        laura,
        [
            {"tool_calls": [call("show", path=target)]},
            {"tool_calls": [call("show", path="main.py", start=20, end=22)]},
            {"text": "shown"},
        ],
    )
    (tmp_path / "repo" / "link-to-env").symlink_to(".env")
    os.link(tmp_path / "repo" / ".env", tmp_path / "repo" / "hard-link-to-env")
    (tmp_path / "repo" / "sub").mkdir()
    turn(luxe, "show me")
    refused = luxe.expect("tool_finished", where=lambda c: c["name"] == "show")
    assert refused["is_error"] and refused["denied"]
    shown = luxe.expect("tool_finished", where=lambda c: c["name"] == "show")
    assert not shown["is_error"], shown
    luxe.expect("turn_ended")
    (pane,) = file_panes(laura)
    assert pane["path"].endswith("main.py")
    wait_until(lambda: any("line 21" in row for row in lit_rows(laura)), what="lines 20-22 lit")
    assert "s3cr3t" not in laura.text()
    assert luxe.close() == 0


@pytest.mark.parametrize("hosted", [True, False])
def test_show_is_offered_to_the_model_only_when_hosted(
    tmp_path: Path, laura: LauraSession, hosted: bool
) -> None:
    repo = make_repo(tmp_path / "repo")
    with FakeLLMServer([{"text": "hello"}]) as server:
        env = make_env(
            tmp_path,
            ANTHROPIC_BASE_URL=server.base_url,
            ANTHROPIC_API_KEY="test-key",
            LUXE_MODEL="anthropic/claude-sonnet-4-5",
        )
        if hosted:
            env["LAURA_TAB"] = laura.tab
        luxe = LuxeProcess.start([], cwd=repo, env=env)
        luxe.handshake()
        turn(luxe, "hi")
        luxe.expect("turn_ended")
        assert luxe.close() == 0
        (body,) = server.bodies
    tools = {tool["name"] for tool in body["tools"]}
    system = json.dumps(body.get("system"))
    assert ("show" in tools) is hosted
    assert ("- show:" in system) is hosted
    assert {"read", "edit", "bash"} <= tools


def test_luxe_carries_on_when_laura_is_gone(tmp_path: Path, laura: LauraSession) -> None:
    luxe = start_luxe(
        tmp_path,
        laura,
        [
            {"tool_calls": [edit("line 3\n", "line three CHANGED\n")]},
            {"text": "first"},
            {"tool_calls": [edit("line 4\n", "line four CHANGED\n"), call("show", path="main.py")]},
            {"text": "second"},
        ],
    )
    turn(luxe, "one")
    luxe.expect("turn_ended")
    wait_until(lambda: file_panes(laura), what="the edits pane")
    laura.close()  # Laura exits under a running luxe
    turn(luxe, "two")
    shown = luxe.expect("tool_finished", where=lambda c: c["name"] == "show")
    assert shown["is_error"] and "Laura" in shown["summary"] + json.dumps(shown)
    ended = luxe.expect("turn_ended")
    assert ended["reason"] == "end_turn"
    assert "line four CHANGED" in (tmp_path / "repo" / "main.py").read_text()
    assert luxe.close() == 0


def test_show_edits_false_in_settings_keeps_edits_out_of_panes(
    tmp_path: Path, laura: LauraSession
) -> None:
    config = tmp_path / "xdg" / "config" / "luxe"
    config.mkdir(parents=True)
    (config / "settings.json").write_text('{"laura": {"show_edits": false}}')
    luxe = start_luxe(
        tmp_path,
        laura,
        [
            {"tool_calls": [edit("line 9\n", "line nine CHANGED\n")]},
            {"tool_calls": [call("show", path=".gitignore")]},
            {"text": "done"},
        ],
    )
    (tmp_path / "repo" / ".gitignore").write_text("*.pyc\n")
    turn(luxe, "edit")
    luxe.expect("file_changed")
    # The edit opened nothing; the file `show` asked for is the only pane.
    assert not luxe.expect("tool_finished", where=lambda c: c["name"] == "show")["is_error"]
    luxe.expect("turn_ended")
    (pane,) = file_panes(laura)
    assert pane["path"].endswith(".gitignore")
    assert luxe.close() == 0


@pytest.mark.parametrize("target", ["fifo", "sub", "/dev/zero", "missing.py"])
def test_show_refuses_what_is_not_a_regular_file_and_opens_nothing(
    tmp_path: Path, laura: LauraSession, target: str
) -> None:
    luxe = start_luxe(
        tmp_path, laura, [{"tool_calls": [call("show", path=target)]}, {"text": "no"}]
    )
    os.mkfifo(tmp_path / "repo" / "fifo")
    (tmp_path / "repo" / "sub").mkdir()
    turn(luxe, "show it")
    refused = luxe.expect("tool_finished", where=lambda c: c["name"] == "show")
    assert refused["is_error"], refused
    luxe.expect("turn_ended")  # a FIFO was never opened: the turn did not block
    assert file_panes(laura) == []
    assert luxe.close() == 0
