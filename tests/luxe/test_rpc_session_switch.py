"""Actions the interface needed and every client now has: a new session and
a resumed one in the same process, and the permission mode at run time."""

from __future__ import annotations

from pathlib import Path

from tests.luxe.conftest import SpawnLuxe


def test_new_session_then_resume_the_first_in_the_same_process(spawn: SpawnLuxe) -> None:
    luxe = spawn([{"text": "first answer"}, {"text": "second answer"}, {"text": "third"}])
    first_id = luxe.handshake()["session_id"]
    luxe.send("submit_user_message", {"text": "remember 7"})
    assert luxe.expect("turn_ended")["reason"] == "end_turn"

    luxe.send("new_session")
    info = luxe.expect("session_info")
    assert info["session_id"] != first_id and info["messages"] == 0
    luxe.send("submit_user_message", {"text": "a fresh start"})
    assert luxe.expect("turn_ended")["reason"] == "end_turn"

    luxe.send("resume_session", {"session_id": first_id})
    back = luxe.expect("session_info")
    assert back["session_id"] == first_id and back["messages"] == 2
    luxe.send("list_sessions")
    listed = {s["id"]: s["messages"] for s in luxe.expect("sessions_listed")["sessions"]}
    assert listed[first_id] == 2 and listed[info["session_id"]] == 2
    assert luxe.close() == 0


def test_switching_is_refused_while_a_turn_runs_and_for_unknown_ids(spawn: SpawnLuxe) -> None:
    luxe = spawn([{"text": "slow", "delay_s": 30}])
    luxe.handshake()
    luxe.send("resume_session", {"session_id": "no-such-session"})
    assert "no-such-session" in luxe.expect("action_rejected")["reason"]
    luxe.send("submit_user_message", {"text": "go"})
    luxe.expect("turn_started")
    luxe.send("new_session")
    rejected = luxe.expect("action_rejected")
    assert rejected["kind"] == "new_session" and "turn is running" in rejected["reason"]
    assert luxe.close() == 0


def test_resuming_a_file_that_is_not_a_session_is_refused(spawn: SpawnLuxe, env: dict[str, str]) -> None:
    sessions = Path(env["XDG_DATA_HOME"]) / "luxe" / "sessions"
    sessions.mkdir(parents=True, exist_ok=True)
    (sessions / "20261201-000000-0bad0bad.jsonl").write_bytes(b"\x00\xffnot json\n")
    luxe = spawn([{"text": "still here"}])
    luxe.handshake()
    luxe.send("resume_session", {"session_id": "20261201-000000-0bad0bad"})
    rejected = luxe.expect("action_rejected")
    assert rejected["reason"] == "resume_session: 20261201-000000-0bad0bad is not a session file"
    luxe.send("submit_user_message", {"text": "and now?"})
    assert luxe.expect("turn_ended")["reason"] == "end_turn"
    assert luxe.close() == 0


def test_permission_mode_changes_but_never_to_yolo(spawn: SpawnLuxe) -> None:
    luxe = spawn([])
    luxe.handshake()
    luxe.send("set_permission_mode", {"mode": "accept-edits"})
    assert luxe.expect("state_changed")["permission_mode"] == "accept-edits"
    luxe.send("set_permission_mode", {"mode": "yolo"})
    assert "command line" in luxe.expect("action_rejected")["reason"]
    luxe.send("set_permission_mode", {"mode": "maybe"})
    assert luxe.expect("action_rejected")["kind"] == "set_permission_mode"
    assert luxe.close() == 0


def test_a_read_only_session_stays_read_only(spawn: SpawnLuxe) -> None:
    luxe = spawn([], "--read-only")
    luxe.handshake()
    luxe.send("set_permission_mode", {"mode": "ask"})
    assert "read-only" in luxe.expect("action_rejected")["reason"]
    assert luxe.close() == 0


def test_run_shell_goes_through_the_gate_and_joins_the_context(spawn: SpawnLuxe) -> None:
    luxe = spawn([{"text": "I saw the output"}])
    luxe.handshake()
    luxe.send("run_shell", {"command": "echo shell-said-hi"})
    assert luxe.expect("turn_started")["text"] == "!echo shell-said-hi"
    asked = luxe.expect("permission_requested")
    assert asked["tool"] == "bash"
    luxe.send("respond_permission", {"id": asked["id"], "reply": "once"})
    assert "shell-said-hi" in luxe.expect("tool_output_delta")["delta"]
    assert luxe.expect("turn_ended")["reason"] == "end_turn"
    luxe.send("submit_user_message", {"text": "what did it print?"})
    assert luxe.expect("turn_ended")["reason"] == "end_turn"
    luxe.send("run_shell", {"command": "  "})
    assert luxe.expect("action_rejected")["kind"] == "run_shell"
    assert luxe.close() == 0
    kinds = luxe.kinds()
    assert "token_delta" not in kinds[: kinds.index("turn_ended")]  # no model call for the shell


def test_file_changed_carries_a_diff_and_usage_updates_mid_turn(spawn: SpawnLuxe, repo: Path) -> None:
    (repo / "notes.txt").write_text("alpha\nbeta\n")
    edit = {"name": "edit", "args": {"path": "notes.txt", "old_string": "beta", "new_string": "gamma"}}
    luxe = spawn([{"tool_calls": [edit], "usage": {"input_tokens": 100, "output_tokens": 7}}, {"text": "done"}],
                 "--yolo")
    luxe.handshake()
    luxe.send("submit_user_message", {"text": "edit it"})
    usage = luxe.expect("usage_updated")
    assert usage["prompt_tokens"] == 100 and usage["completion_tokens"] == 7
    changed = luxe.expect("file_changed")
    assert "-beta\n+gamma\n" in changed["diff"]
    assert luxe.expect("turn_ended")["reason"] == "end_turn"
    assert luxe.close() == 0


def test_list_messages_gives_the_conversation_as_text(spawn: SpawnLuxe) -> None:
    read = {"tool_calls": [{"name": "read", "args": {"path": "README.md"}}]}
    luxe = spawn([read, {"text": "It is a demo."}])
    luxe.handshake()
    luxe.send("submit_user_message", {"text": "what is this?"})
    assert luxe.expect("turn_ended")["reason"] == "end_turn"
    luxe.send("list_messages", {"limit": 20})
    listed = luxe.expect("messages_listed")
    assert listed["total"] == 4  # prompt, tool call, its result, the answer
    assert listed["messages"] == [
        {"role": "user", "text": "what is this?", "tools": []},
        {"role": "assistant", "text": "", "tools": ["read README.md"]},
        {"role": "assistant", "text": "It is a demo.", "tools": []},
    ]
    luxe.send("list_messages", {"limit": 1})
    assert [m["text"] for m in luxe.expect("messages_listed")["messages"]] == ["It is a demo."]
    luxe.send("list_messages", {"limit": 0})
    assert luxe.expect("action_rejected")["kind"] == "list_messages"
    assert luxe.close() == 0
