"""Sessions on disk: resume with -c / --resume, kill -9 loses nothing
completed, list_sessions, compaction."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

from tests.luxe.conftest import SpawnLuxe
from tests.luxe.rpc_driver import (
    call,
    processes_with_env_marker,
    processes_with_marker,
    session_records,
    unique_duration,
    wait_until,
)

WAIT_FOREVER = "while true; do sleep 0.05; done"


def test_continue_and_resume_keep_the_session_id(spawn: SpawnLuxe, repo: Path, tmp_path: Path) -> None:
    luxe = spawn([{"text": "first answer"}])
    ready = luxe.handshake()
    luxe.send("submit_user_message", {"text": "remember the number 7"})
    assert luxe.expect("turn_ended")["reason"] == "end_turn"
    assert luxe.close() == 0
    session_id = ready["session_id"]

    for flags in (["-c"], ["--resume", session_id]):
        again = spawn([{"text": "second answer"}], *flags)
        first = again.next_frame()
        assert first["kind"] == "ready"
        assert first["content"]["session_id"] == session_id
        assert first["content"]["resumed"] is True
        assert again.next_frame()["kind"] == "state_changed"
        info = again.next_frame()
        assert info["kind"] == "session_info"
        assert info["content"]["session_id"] == session_id
        assert info["content"]["title"] == "remember the number 7"
        assert info["content"]["messages"] >= 2
        assert again.close() == 0

    # -c in another directory starts a new session.
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    fresh = spawn([{"text": "x"}], "-c", cwd=elsewhere)
    ready2 = fresh.handshake()
    assert ready2["resumed"] is False and ready2["session_id"] != session_id
    assert fresh.close() == 0


def test_resume_of_an_unknown_id_is_refused(spawn: SpawnLuxe) -> None:
    luxe = spawn([], "--resume", "no-such-session")
    assert luxe.wait_exit() == 2
    assert "no session" in luxe.stderr_text()


def test_kill_9_mid_turn_loses_nothing_completed(spawn: SpawnLuxe, repo: Path, env: dict[str, str]) -> None:
    # A marker of this test only: its bash is found by its command line.
    forever = f": {unique_duration()}; {WAIT_FOREVER}"
    luxe = spawn(
        [
            {"text": "answer one"},
            {"tool_calls": [call("read", path="README.md")]},
            {"tool_calls": [call("bash", command=forever)]},
        ],
        "--yolo",
    )
    ready = luxe.handshake()
    luxe.send("submit_user_message", {"text": "one"})
    assert luxe.expect("turn_ended")["reason"] == "end_turn"
    luxe.send("submit_user_message", {"text": "two"})
    luxe.expect("tool_started", where=lambda c: c["name"] == "bash")
    # tool_started may precede the spawn: kill luxe only once bash runs, so
    # no child of luxe is caught half-started (between fork and exec) and
    # the orphan to clean up surely exists and is found.
    (bash,) = wait_until(
        lambda: _group_leaders(processes_with_marker(forever, scope=env)), what="the bash to run"
    )
    os.killpg(luxe.pid, signal.SIGKILL)
    luxe.wait_exit()
    # kill -9 gave luxe no chance to end the bash group: end the orphan here.
    _kill_leftover_bash(bash, env["XDG_DATA_HOME"])
    path = Path(env["XDG_DATA_HOME"]) / "luxe" / "sessions" / f"{ready['session_id']}.jsonl"
    # Simulate a torn last line as a crash mid-write would leave it.
    with path.open("a") as f:
        f.write('{"type": "message", "message": {"role": "us')
    records = session_records_tolerant(path)
    texts = [json.dumps(r) for r in records]
    assert any("answer one" in t for t in texts)
    assert any('"tool_result"' in t and "demo" in t for t in texts), "the read result was on disk"

    again = spawn([{"text": "resumed fine"}], "--resume", ready["session_id"], "--yolo")
    info = again.handshake()
    assert info["resumed"] is True
    session_info = next(f["content"] for f in again.frames if f["kind"] == "session_info")
    # one, answer one, two, read call, read result, bash call (its result never came)
    assert session_info["messages"] == 6
    again.send("submit_user_message", {"text": "three"})
    assert again.expect("turn_ended")["reason"] == "end_turn"
    assert again.close() == 0
    records = session_records(env, ready["session_id"])
    last_user = [r for r in records if r["type"] == "message" and r["message"]["role"] == "user"][-1]
    assert last_user["message"]["content"][0]["text"] == "three"


def session_records_tolerant(path: Path) -> list[dict]:  # type: ignore[type-arg]
    out = []
    for line in path.read_text().splitlines():
        try:
            out.append(json.loads(line))
        except ValueError:
            pass
    return out


def _group_leaders(pids: list[int]) -> list[int]:
    """The pids that lead their process group: the tool's bash, not a child
    it has just forked (which shows the same command line until it execs)."""
    leaders = []
    for pid in pids:
        try:
            if os.getpgid(pid) == pid:
                leaders.append(pid)
        except ProcessLookupError:
            pass
    return leaders


def _kill_leftover_bash(bash: int, private_dir: str) -> None:
    """Kill the orphaned bash's group (it leads its own session) and wait
    until no process of this test's luxe is left (found by its private dir
    in their environment, so never another test's processes)."""
    try:
        os.killpg(bash, signal.SIGKILL)
    except ProcessLookupError:
        pass
    wait_until(lambda: processes_with_env_marker(private_dir) == [], what="orphans to die")


def test_list_sessions(spawn: SpawnLuxe) -> None:
    luxe = spawn([{"text": "a"}])
    ready = luxe.handshake()
    luxe.send("submit_user_message", {"text": "the first session"})
    luxe.expect("turn_ended")
    luxe.send("list_sessions", {})
    listed = luxe.expect("sessions_listed")["sessions"]
    assert [s["id"] for s in listed] == [ready["session_id"]]
    assert listed[0]["title"] == "the first session"
    assert listed[0]["messages"] == 2
    assert listed[0]["cwd"] == ready["cwd"]
    assert listed[0]["updated_at"]
    assert luxe.close() == 0


def test_compact_summarises_older_messages(spawn: SpawnLuxe, env: dict[str, str]) -> None:
    luxe = spawn([{"text": "one"}, {"text": "two"}, {"text": "SUMMARY: we said one and two"}, {"text": "three"}])
    ready = luxe.handshake()
    for text in ("first", "second"):
        luxe.send("submit_user_message", {"text": text})
        luxe.expect("turn_ended")
    luxe.send("compact", {})
    started = luxe.expect("compaction_started")
    done = luxe.expect("compacted")
    assert done["tokens_before"] == started["tokens_before"]
    assert done["tokens_after"] > 0
    luxe.send("submit_user_message", {"text": "third"})
    assert luxe.expect("turn_ended")["reason"] == "end_turn"
    assert luxe.close() == 0
    again = spawn([], "--resume", ready["session_id"])
    again.handshake()
    info = next(f["content"] for f in again.frames if f["kind"] == "session_info")
    # summary pair + "second"/"two" + "third"/"three"
    assert info["messages"] == 6
    assert again.close() == 0
    assert any(r["type"] == "compaction" for r in session_records(env, ready["session_id"]))


def test_after_close_the_session_and_the_log_are_on_disk(spawn: SpawnLuxe, env: dict[str, str]) -> None:
    """luxe --rpc ends with os._exit (no interpreter teardown, luxe.exit_now):
    what it recorded and logged must be complete when its exit is seen."""
    luxe = spawn([{"text": "the answer"}])
    session_id = luxe.handshake()["session_id"]
    luxe.send("submit_user_message", {"text": "ask"})
    assert luxe.expect("turn_ended")["reason"] == "end_turn"
    assert luxe.close() == 0
    messages = [r["message"] for r in session_records(env, session_id) if r["type"] == "message"]
    assert [m["role"] for m in messages] == ["user", "assistant"]
    assert messages[-1]["content"][0]["text"] == "the answer"
    log = (Path(env["XDG_STATE_HOME"]) / "luxe" / "luxe.log").read_text()
    assert f"session {session_id} ended" in log.splitlines()[-1]
