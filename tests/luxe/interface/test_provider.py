"""The interface against the fake model server (a real provider's streaming
API on loopback): the answer streams in while the person types, and the
thinking level switches live."""

from __future__ import annotations

from tests.fakes.llm_server import FakeLLMServer
from tests.laura.tmux import wait_until
from tests.luxe.interface.conftest import StartUi
from tests.luxe.interface.tmux import LuxeTmux


def test_typing_while_a_real_stream_arrives(ui: StartUi) -> None:
    words = " ".join(f"word{i}" for i in range(120))
    steps = [{"text": f"{words}\n\nThe end of the stream.", "chunk_size": 6, "chunk_delay_s": 0.02},
             {"text": "second answer"}]
    with FakeLLMServer(steps) as server:
        session = ui(None, "--model", "anthropic/claude-sonnet-4-5",
                     env_extra={"ANTHROPIC_BASE_URL": server.base_url, "ANTHROPIC_API_KEY": "test"})
        session.send_keys("M-t")
        wait_until(lambda: "thinking low" in session.status_line())
        session.type("stream something long")
        session.send_keys("Enter")
        session.wait_for("word1 ")
        session.type("typed during the stream")
        session.wait_for("› typed during the stream")
        assert "working" in session.status_line()
        session.wait_for("The end of the stream.")
        wait_until(lambda: "working" not in session.status_line())
        session.send_keys("Enter")
        session.wait_for("second answer")
        assert server.bodies[0]["thinking"]["type"] == "enabled"  # the level reached the request
        assert server.bodies[1]["messages"][-1]["content"][0]["text"] == "typed during the stream"


OVERLOADED = "the upstream model is overloaded right now; please slow down and try again in a moment " * 2


def _retrying(ui: StartUi, server: FakeLLMServer, wait_s: int) -> LuxeTmux:
    """The interface against `server`, a prompt sent, its retry line shown."""
    session = ui(None, "--model", "anthropic/claude-sonnet-4-5",
                 env_extra={"ANTHROPIC_BASE_URL": server.base_url, "ANTHROPIC_API_KEY": "test"})  # fmt: skip
    session.type("hello")
    session.send_keys("Enter")
    session.wait_for(f"retrying in {wait_s}s · ")
    return session


def test_a_retry_says_when_before_why_and_goes_once_the_answer_streams(ui: StartUi) -> None:
    """An 80-column terminal cuts a long error message, never the wait; the
    line is gone as soon as the retried request streams."""
    steps = [{"http_error": {"status": 529, "retry_after": 2, "message": OVERLOADED}},
             {"text": "recovered answer"}]  # fmt: skip
    with FakeLLMServer(steps) as server:
        session = _retrying(ui, server, 2)
        row = next(r for r in session.rows() if "retrying" in r)
        assert row.startswith("retrying in 2s · ") and row.rstrip().endswith("…"), row
        session.wait_for("recovered answer")
        wait_until(lambda: not any("retrying" in r for r in session.rows()))


def test_a_retry_line_does_not_outlive_a_cancelled_turn(ui: StartUi) -> None:
    steps = [{"http_error": {"status": 529, "retry_after": 30, "message": "overloaded"}},
             {"text": "never needed"}]  # fmt: skip
    with FakeLLMServer(steps) as server:
        session = _retrying(ui, server, 30)
        session.send_keys("Escape")
        session.wait_for("cancelled")
        wait_until(lambda: not any("retrying" in r for r in session.rows()))
        assert "working" not in session.status_line()
