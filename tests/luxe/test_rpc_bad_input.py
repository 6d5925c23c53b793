"""One bad line never ends a session: each is answered by one action_rejected."""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

from tests.luxe.conftest import SpawnLuxe


def test_each_class_of_bad_line_is_answered(spawn: SpawnLuxe) -> None:
    luxe = spawn([{"text": "still here"}])
    luxe.handshake()
    luxe.expect("workspace_updated")  # sent once after ready, on its own
    cases = [
        (b"this is not json", None, "not JSON"),
        (b"[1, 2]", None, "JSON object"),
        (b"\xff\xfe\x00garbage", None, "UTF-8"),
        (b"{}", None, "missing field `kind`"),
        (b'{"kind": 7}', None, "`kind` must be a string"),
        (b'{"kind": "fly_to_the_moon"}', "fly_to_the_moon", "unknown kind `fly_to_the_moon`"),
        (b'{"kind":"steer_turn","content":{}}', "steer_turn", "steer_turn: missing field `text`"),
        (b'{"kind":"submit_user_message","content":{"text":5}}', "submit_user_message", "field `text` must be a string"),
        (b'{"kind":"submit_user_message","content":"hi"}', "submit_user_message", "`content` must be an object"),
        (b'{"kind":"set_mode","content":{"mode":"turbo"}}', "set_mode", 'must be one of "build", "plan"'),
        (b'{"kind":"respond_permission","content":{"id":"perm_99","reply":"once"}}', "respond_permission", "no pending permission prompt"),
        (b'{"kind":"answer_question","content":{"id":"q","reply":{"answered":["x"]}}}', "answer_question", "no pending question"),
        (b'{"kind":"steer_turn","content":{"text":"go left"}}', "steer_turn", "no turn is running"),
        (b'{"kind":"cancel_turn"}', "cancel_turn", "no turn is running"),
        (b"   ", None, "empty line"),
        (b'{"kind":"set_model","content":{"model":"nonsense"}}', "set_model", "expected provider/name"),
    ]
    for line, kind, reason in cases:
        luxe.send_raw(line + b"\n")
        rejected = luxe.next_frame()
        assert rejected["kind"] == "action_rejected", (line, rejected)
        assert rejected["content"]["kind"] == kind, line
        assert reason in rejected["content"]["reason"], (line, rejected)
    # The spec's exact wording.
    luxe.send_raw(b'{"kind":"steer_turn","content":{}}\n')
    assert luxe.next_frame() == {
        "kind": "action_rejected",
        "content": {"kind": "steer_turn", "reason": "steer_turn: missing field `text`"},
    }
    luxe.send("submit_user_message", {"text": "are you alive?"})
    assert luxe.expect("turn_ended")["reason"] == "end_turn"
    assert luxe.close() == 0


def test_a_huge_line_is_answered_and_the_session_goes_on(spawn: SpawnLuxe) -> None:
    luxe = spawn([{"text": "fine"}])
    luxe.handshake()
    big = json.dumps({"kind": "steer_turn", "content": {"text": "x" * 3_000_000}}).encode()
    luxe.send_raw(big + b"\n")
    assert luxe.expect("action_rejected")["reason"] == "steer_turn: no turn is running"
    luxe.send("submit_user_message", {"text": "ok?"})
    assert luxe.expect("turn_ended")["reason"] == "end_turn"
    assert luxe.close() == 0


def _random_line(rng: random.Random) -> bytes:
    choice = rng.randrange(6)
    if choice == 0:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 200))).replace(b"\n", b"")
    if choice == 1:
        kind = rng.choice(["steer_turn", "respond_permission", "answer_question", "set_mode",
                           "set_thinking", "set_model", "set_permission_auto_approve", "bogus"])
        junk = rng.choice([{}, {"text": 1}, {"id": None}, {"mode": "x"}, {"level": []},
                           {"enabled": "yes"}, {"model": 3}, {"reply": "maybe", "id": "z"}])
        return json.dumps({"kind": kind, "content": junk}).encode()
    if choice == 2:
        return json.dumps(rng.choice([1, "s", None, [], [{}], 2.5, True])).encode()
    if choice == 3:
        return b'{"kind":' + bytes(rng.randrange(32, 127) for _ in range(rng.randrange(0, 40)))
    if choice == 4:
        return json.dumps({"kind": "".join(chr(rng.randrange(0x20, 0x3000)) for _ in range(8))}).encode()
    return b'{"kind":"steer_turn","content":{"text":"' + b"\xc3" * rng.randrange(1, 5) + b'"}}'


def test_fuzz_every_random_line_gets_exactly_one_rejection(spawn: SpawnLuxe) -> None:
    rng = random.Random(20261129)
    lines = [_random_line(rng) for _ in range(300)]
    luxe = spawn([{"text": "survived"}])
    luxe.handshake()
    luxe.expect("workspace_updated")  # sent once after ready, on its own
    luxe.send_raw(b"".join(line + b"\n" for line in lines))
    for line in lines:
        frame = luxe.next_frame()
        assert frame["kind"] == "action_rejected", (line, frame)
    luxe.send("submit_user_message", {"text": "still there?"})
    frames = luxe.collect_until("turn_ended")
    assert [f for f in frames if f["kind"] == "action_rejected"] == []
    assert frames[-1]["content"]["reason"] == "end_turn"
    assert luxe.close() == 0


def test_a_line_over_the_cap_is_refused_without_being_kept(spawn: SpawnLuxe) -> None:
    luxe = spawn([{"text": "fine"}])
    luxe.handshake()
    chunk = b"x" * (1 << 20)
    for _ in range(17):  # 17 MiB, over the 16 MiB cap
        luxe.send_raw(chunk)
    luxe.send_raw(b"\n")
    assert "line longer than" in luxe.expect("action_rejected")["reason"]
    luxe.send("submit_user_message", {"text": "ok?"})
    assert luxe.expect("turn_ended")["reason"] == "end_turn"
    assert luxe.close() == 0


def test_a_script_that_is_not_a_regular_file_is_refused(spawn: SpawnLuxe, tmp_path: Path) -> None:
    """`set_model scripted:PATH` naming a FIFO held the event loop in its
    open for good (no frame, no close), and /dev/zero would fill memory:
    a script is read only from a regular file, and the session goes on."""
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "link.jsonl").symlink_to(tmp_path / "fifo")
    luxe = spawn([{"text": "fine"}])
    luxe.handshake()
    for path in (tmp_path / "fifo", tmp_path / "link.jsonl", Path("/dev/null")):
        luxe.send("set_model", {"model": f"scripted:{path}"})
        luxe.expect("state_changed", where=lambda c, p=path: c["model"]["id"] == f"scripted:{p}")
        luxe.send("submit_user_message", {"text": "go"})
        ended = luxe.expect("turn_ended", timeout=20)
        assert ended["reason"] == "error" and "not a regular file" in ended["error"], ended
    assert luxe.close() == 0
