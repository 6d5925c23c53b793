"""Handshake, a streamed turn, usage, and the frames around them."""

from __future__ import annotations

from tests.luxe.conftest import SpawnLuxe


def test_ready_comes_first_then_state(spawn: SpawnLuxe) -> None:
    luxe = spawn([{"text": "hi"}])
    first = luxe.next_frame()
    assert first["kind"] == "ready"
    ready = first["content"]
    assert ready["protocol_version"] == 2
    assert ready["luxe_version"] == "0.1.0"
    assert ready["resumed"] is False
    assert ready["github_writes"] is False
    assert ready["session_id"]
    assert "steer" in ready["capabilities"]
    second = luxe.next_frame()
    assert second["kind"] == "state_changed"
    state = second["content"]
    assert state["model"]["provider"] == "scripted"
    assert "script" in state["model"]["label"]
    assert state["streaming"] is False
    assert state["mode"] == "build"
    assert state["thinking"] == "off"
    assert luxe.close() == 0


def test_github_writes_flag_is_reported(spawn: SpawnLuxe) -> None:
    luxe = spawn([], "--github-writes")
    assert luxe.expect("ready")["github_writes"] is True
    assert luxe.close() == 0


def test_a_turn_streams_deltas_then_usage_then_turn_ended(spawn: SpawnLuxe) -> None:
    answer = "It is a small demo project that prints greetings to whoever asks."
    luxe = spawn(
        [
            {
                "text": answer,
                "thinking": "Look at it.",
                "usage": {"input_tokens": 120, "output_tokens": 30},
            }
        ]
    )
    luxe.expect("ready")
    luxe.send("submit_user_message", {"text": "what is this?"})
    started = luxe.expect("turn_started")
    assert started["text"] == "what is this?"
    frames = luxe.collect_until("turn_ended")
    deltas = [f["content"]["delta"] for f in frames if f["kind"] == "token_delta"]
    assert len(deltas) > 1, "the answer streams in several deltas"
    assert "".join(deltas) == answer
    thinking = [f["content"]["delta"] for f in frames if f["kind"] == "thinking_delta"]
    assert "".join(thinking) == "Look at it."
    kinds = [f["kind"] for f in frames]
    assert kinds.index("turn_usage") < kinds.index("turn_ended")
    usage = next(f["content"] for f in frames if f["kind"] == "turn_usage")
    assert usage["prompt_tokens"] == 120
    assert usage["completion_tokens"] == 30
    assert usage["context_used"] == 150
    assert usage["context_window"] > 0
    assert "cost_usd" in usage and "session_cost_usd" in usage
    ended = frames[-1]["content"]
    answer = "It is a small demo project that prints greetings to whoever asks."
    assert ended == {"turn_id": started["turn_id"], "reason": "end_turn", "error": None, "text": answer}
    assert luxe.close() == 0


def test_the_scripted_model_streams_its_text_exactly(spawn: SpawnLuxe) -> None:
    """Indentation, runs of spaces, tabs and blank lines survive the split
    into deltas (code in an answer is shown as written)."""
    answer = (
        "  Indented start.\n\n```python\ndef f(x):\n    return x * 2  # doubled\n\tpass\n```\n\n"
        "Two  spaces,   three, and a trailing one "
    )
    luxe = spawn([{"text": answer, "thinking": "  look   closer  "}])
    luxe.expect("ready")
    luxe.send("submit_user_message", {"text": "code?"})
    frames = luxe.collect_until("turn_ended")
    deltas = [f["content"]["delta"] for f in frames if f["kind"] == "token_delta"]
    assert len(deltas) > 3 and "".join(deltas) == answer
    thinking = [f["content"]["delta"] for f in frames if f["kind"] == "thinking_delta"]
    assert "".join(thinking) == "  look   closer  "
    assert frames[-1]["content"]["text"] == answer
    assert luxe.close() == 0


def test_provider_error_ends_the_turn_with_its_message(spawn: SpawnLuxe) -> None:
    luxe = spawn(
        [
            {
                "retry": {"message": "overloaded (529), retrying", "retry_in_s": 0.01},
                "error": "gave up after retries",
            }
        ]
    )
    luxe.expect("ready")
    luxe.send("submit_user_message", {"text": "hello"})
    retry = luxe.expect("error")
    assert retry == {"message": "overloaded (529), retrying", "retryable": True, "retry_in_s": 0.01}
    ended = luxe.expect("turn_ended")
    assert ended["reason"] == "error"
    assert ended["error"] == "gave up after retries"
    # The session goes on: an exhausted script is a clear error too.
    luxe.send("submit_user_message", {"text": "again"})
    ended = luxe.expect("turn_ended")
    assert ended["reason"] == "error"
    assert "has no step 2" in ended["error"]
    assert luxe.close() == 0


def test_attachments_are_added_to_the_prompt(spawn: SpawnLuxe, env: dict[str, str]) -> None:
    from tests.luxe.rpc_driver import session_records

    luxe = spawn([{"text": "seen"}])
    ready = luxe.handshake()
    luxe.send("submit_user_message", {"text": "look", "attachments": [{"path": "README.md"}]})
    assert luxe.expect("turn_ended")["reason"] == "end_turn"
    first = next(r["message"] for r in session_records(env, ready["session_id"]) if r["type"] == "message")
    assert "# demo" in first["content"][1]["text"]
    assert luxe.close() == 0
