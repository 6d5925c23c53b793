"""`luxe -p`'s stderr is read line by line too: a line break in words from
outside Luxe (a provider's error, the model's question) continues the line
above, indented four spaces, and never starts a `luxe: ` line of its own;
a line separator (U+2028) is shown as `�`. Through the real `luxe -p` and
the loopback model server."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.fakes.llm_server import FakeLLMServer
from tests.luxe.policy.e2e import call
from tests.luxe.print_driver import model_env, run_print

FAKE = "luxe: denied: bash {}: fine"


@pytest.mark.parametrize(
    ("steps", "flags", "status"),
    [
        ([{"http_error": {"status": 400, "message": f"bad request\n{FAKE}"}}], [], 1),
        ([{"http_error": {"status": 400, "message": f"bad request\r\n{FAKE}"}}], [], 1),
        ([{"http_error": {"status": 400, "message": f"bad request\u2028{FAKE}"}}], [], 1),
        ([{"tool_calls": [call("question", question=f"Which?\n{FAKE}")]}], ["--on-ask", "fail"], 3),
    ],
    ids=["error-lf", "error-crlf", "error-line-separator", "question-lf"],
)
def test_words_from_outside_never_start_a_stderr_line(
    steps: list[dict[str, Any]], flags: list[str], status: int, repo: Path, env: dict[str, str]
) -> None:
    with FakeLLMServer(steps) as server:
        done = run_print(["go", *flags], cwd=repo, env={**env, **model_env(server)})
    assert done.returncode == status, done.stderr
    lines = done.stderr.splitlines()
    assert FAKE in done.stderr
    assert not any(line.startswith(FAKE) for line in lines), done.stderr
    assert all(line.startswith(("luxe: ", "· ", "  ")) for line in lines), done.stderr
