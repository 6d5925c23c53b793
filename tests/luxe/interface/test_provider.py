"""The interface against the fake model server (a real provider's streaming
API on loopback): the answer streams in while the person types, and the
thinking level switches live."""

from __future__ import annotations

from tests.fakes.llm_server import FakeLLMServer
from tests.laura.tmux import wait_until
from tests.luxe.interface.conftest import StartUi


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
