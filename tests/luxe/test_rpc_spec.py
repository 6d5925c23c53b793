"""Where `luxe --rpc` differed from the user's spec texts
(/work/shared/spec/luxe-rpc-protocol.txt, luxe-command-hooks.txt): each test
drives the real program and asserts what the spec says."""

from __future__ import annotations

import json
from pathlib import Path

from tests.luxe.conftest import SpawnLuxe
from tests.luxe.rpc_driver import session_records, wait_until


def _log_hooks(env: dict[str, str], log: Path, *points: str) -> None:
    """Global hooks at `points` that append `POINT <stdin event>` to `log`."""
    line = f'printf "%s %s\\n" "$LUXE_HOOK_POINT" "$(cat)" >> {log}'
    config = Path(env["XDG_CONFIG_HOME"]) / "luxe"
    config.mkdir(parents=True, exist_ok=True)
    (config / "hooks.json").write_text(
        json.dumps({p: [{"command": ["sh", "-c", line]}] for p in points})
    )


def _points(log: Path) -> list[str]:
    return [row.split(" ", 1)[0] for row in log.read_text().splitlines()] if log.exists() else []


def _wait_for_runs(log: Path, count: int) -> None:
    wait_until(lambda: len(_points(log)) >= count, timeout=15, what=f"{count} hook runs")


def test_session_hooks_fire_for_a_session_created_or_resumed_in_the_process(
    spawn: SpawnLuxe, env: dict[str, str], tmp_path: Path
) -> None:
    # Hooks spec: SessionStart fires when a session is "created/resumed",
    # SessionEnd when a session is "closing" -- new_session and resume_session
    # close one session and create or resume another.
    log = tmp_path / "hooks.log"
    _log_hooks(env, log, "SessionStart", "SessionEnd")
    luxe = spawn([{"text": "first"}])
    first_id = luxe.handshake()["session_id"]
    luxe.send("submit_user_message", {"text": "hi"})  # a session is stored once it has a message
    assert luxe.expect("turn_ended")["reason"] == "end_turn"
    wait_until(lambda: _points(log) == ["SessionStart"], what="the first SessionStart")

    expected = ["SessionStart"]
    for action, content in (("new_session", None), ("resume_session", {"session_id": first_id})):
        luxe.send(action, content)
        luxe.expect("session_info")
        expected += ["SessionEnd", "SessionStart"]
        _wait_for_runs(log, len(expected))
        assert _points(log) == expected, action
    assert luxe.close() == 0
    assert _points(log)[-1] == "SessionEnd"
    assert all(row.split(" ", 1)[1] == '{"Other": null}' for row in log.read_text().splitlines())


def test_a_turns_agent_end_hooks_finish_before_session_end_hooks_start(
    spawn: SpawnLuxe, env: dict[str, str], tmp_path: Path
) -> None:
    # Hooks spec: AgentEnd fires when "a turn finished", SessionEnd when the
    # "session closing": closing mid-turn ends the turn, then the session.
    # The AgentEnd hook is slower than the SessionEnd hook, within the bound
    # a closing session gives its hooks.
    log = tmp_path / "hooks.log"
    config = Path(env["XDG_CONFIG_HOME"]) / "luxe"
    config.mkdir(parents=True, exist_ok=True)
    (config / "hooks.json").write_text(json.dumps({
        "AgentEnd": [{"command": ["sh", "-c", f"cat >/dev/null; sleep 0.1; echo AgentEnd >> {log}"]}],
        "SessionEnd": [{"command": ["sh", "-c", f"cat >/dev/null; echo SessionEnd >> {log}"]}],
    }))
    luxe = spawn([{"tool_calls": [{"name": "bash", "args": {"command": "sleep 60"}}]}], "--yolo")
    luxe.handshake()
    luxe.send("submit_user_message", {"text": "go"})
    luxe.expect("tool_started")
    assert luxe.close() == 0
    assert _points(log) == ["AgentEnd", "SessionEnd"]


def test_a_message_sent_right_behind_the_first_waits_at_position_one(spawn: SpawnLuxe) -> None:
    # message_queued's position is 1 for the message that runs next
    # (docs/rpc.md); the first message is the running turn even when both
    # arrive together, before its turn_started.
    luxe = spawn([{"text": "a", "delay_s": 1}, {"text": "b"}, {"text": "c"}])
    luxe.handshake()
    line = '{"kind":"submit_user_message","content":{"text":"%s"}}\n'
    luxe.send_raw(b"".join((line % t).encode() for t in ("one", "two", "three")))
    assert luxe.expect("message_queued") == {"text": "two", "position": 1}
    assert luxe.expect("message_queued") == {"text": "three", "position": 2}
    for text in ("one", "two", "three"):
        assert luxe.expect("turn_started")["text"] == text
        assert luxe.expect("turn_ended")["reason"] == "end_turn"
    assert luxe.close() == 0


def test_cancel_sent_right_behind_the_message_cancels_its_turn(spawn: SpawnLuxe) -> None:
    # cancel_turn: "the running turn stops at once" -- the turn of a message
    # sent while idle is the running one, even before its turn_started.
    luxe = spawn([{"text": "should never be answered", "delay_s": 5}])
    luxe.handshake()
    luxe.send_raw(
        b'{"kind":"submit_user_message","content":{"text":"go"}}\n{"kind":"cancel_turn"}\n'
    )
    ended = luxe.expect("turn_ended")
    assert ended["reason"] == "cancelled"
    assert "action_rejected" not in luxe.kinds()
    assert luxe.close() == 0


def test_steering_sent_right_behind_the_message_goes_with_its_prompt(
    spawn: SpawnLuxe, env: dict[str, str]
) -> None:
    # steer_turn is "delivered to the running turn before its next model
    # call": the turn of a message sent while idle runs from its acceptance.
    luxe = spawn([{"text": "one answer"}])  # a second model request would fail
    session_id = luxe.handshake()["session_id"]
    luxe.send_raw(
        b'{"kind":"submit_user_message","content":{"text":"go"}}\n'
        b'{"kind":"steer_turn","content":{"text":"in French"}}\n'
    )
    assert luxe.expect("turn_ended")["reason"] == "end_turn"
    assert "action_rejected" not in luxe.kinds()
    assert luxe.close() == 0
    first = next(r for r in session_records(env, session_id) if r["type"] == "message")
    assert [b["text"] for b in first["message"]["content"]] == ["go", "in French"]


def test_close_sent_right_behind_the_message_ends_its_turn_as_eof_does(spawn: SpawnLuxe) -> None:
    # close: "a running turn is cancelled", EOF "is the same as close", and
    # turn_ended ends every turn -- also the turn of a message sent while
    # idle whose close arrived in the same read, before its turn_started.
    luxe = spawn([{"text": "should never be answered", "delay_s": 5}])
    luxe.handshake()
    luxe.send_raw(b'{"kind":"submit_user_message","content":{"text":"go"}}\n{"kind":"close"}\n')
    assert luxe.wait_exit() == 0
    luxe.read_to_eof()
    ended = [f["content"] for f in luxe.frames if f["kind"] == "turn_ended"]
    assert [e["reason"] for e in ended] == ["cancelled"]
    assert "turn_started" in luxe.kinds()
