"""Luxe hosted in the real `laura` in tmux (tests/laura/tmux.py), for the
tests of the two together: `start` runs the luxe interface as a tab's
program on the loopback model server, `file_panes` lists the tab's file
panes, `comment` comments on a line as a person does, and `last_user_text`
is what a model request carried as the person's last message."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from tests.fakes.llm_server import FakeLLMServer
from tests.laura.tmux import LauraSession
from tests.luxe.rpc_driver import provider_env


def start(
    tmp_path: Path, repo: Path, server: FakeLLMServer, *args: str, env: dict[str, str] | None = None
) -> LauraSession:
    luxe = [sys.executable, "-m", "luxe", *args]
    command = ["sh", "-c", f"cd '{repo}' && exec \"$@\"", "sh", *luxe]
    base = {**provider_env(server, "anthropic"), **(env or {})}
    session = LauraSession(tmp_path / "laura", command=command, width=200, height=50, env=base)
    session.start()
    session.wait_for("›")
    return session


def file_panes(laura: LauraSession) -> list[dict[str, Any]]:
    result = laura.cli("layout")
    assert result.returncode == 0, result.stderr
    return [p for p in json.loads(result.stdout)["panes"] if p["kind"] == "panel"]


def last_user_text(body: dict[str, Any]) -> str:
    message = [m for m in body["messages"] if m["role"] == "user"][-1]
    content = message["content"]
    if isinstance(content, str):
        return content
    return "".join(block["text"] for block in content if block.get("type") == "text")


def comment(laura: LauraSession, pane: int, line: int, text: str) -> None:
    """The person puts the cursor on `line` and comments on it."""
    assert laura.cli("highlight", str(line), "--pane", str(pane)).returncode == 0
    laura.send_keys("c")
    laura.wait_footer(f"comment L{line}")
    laura.type(text)
    laura.send_keys("Enter")
    laura.wait_for(text)
