"""Tools through the real `luxe --rpc`: permissions, parallel calls, questions,
refusals. Each test scripts the model's tool calls and checks what a client sees."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from tests.luxe.conftest import SpawnLuxe
from tests.luxe.rpc_driver import LuxeProcess, call, tool_results


def finished(luxe: LuxeProcess) -> dict[str, Any]:
    return luxe.expect("tool_finished")


def test_parallel_bash_calls_run_concurrently(spawn: SpawnLuxe, repo: Path) -> None:
    # Each command waits for the file the other creates: only concurrency ends them.
    a = "touch a.flag; while [ ! -f b.flag ]; do sleep 0.01; done; echo A done"
    b = "touch b.flag; while [ ! -f a.flag ]; do sleep 0.01; done; echo B done"
    luxe = spawn(
        [
            {"tool_calls": [call("bash", command=a, timeout_s=20), call("bash", command=b, timeout_s=20)]},
            {"text": "both finished"},
        ],
        "--yolo",
    )
    luxe.handshake()
    luxe.send("submit_user_message", {"text": "run both"})
    frames = luxe.collect_until("turn_ended")
    done = [f["content"] for f in frames if f["kind"] == "tool_finished"]
    assert sorted(d["summary"] for d in done) == ["exit 0", "exit 0"]
    outputs = "".join(f["content"]["delta"] for f in frames if f["kind"] == "tool_output_delta")
    assert "A done" in outputs and "B done" in outputs
    assert frames[-1]["content"]["reason"] == "end_turn"
    assert luxe.close() == 0


def test_permission_once_always_reject(spawn: SpawnLuxe, repo: Path, env: dict[str, str]) -> None:
    luxe = spawn(
        [
            {"tool_calls": [call("write", path="one.txt", content="1\n")]},
            {"tool_calls": [call("write", path="two.txt", content="2\n")]},
            {"tool_calls": [call("write", path="two.txt", content="3\n")]},
            {"tool_calls": [call("bash", command="touch never.txt")]},
            {"text": "done"},
        ]
    )
    ready = luxe.handshake()
    luxe.send("submit_user_message", {"text": "write files"})

    asked = luxe.expect("permission_requested")
    assert asked["tool"] == "write"
    assert asked["args"] == {"path": "one.txt", "content": "1\n"}
    assert asked["options"] == ["once", "always", "reject"]
    assert asked["reason"]
    new_file = "--- a/one.txt\n+++ b/one.txt\n@@ -0,0 +1 @@\n+1\n"
    assert asked["diff"] == new_file  # the change previewed before it is made
    luxe.send("respond_permission", {"id": asked["id"], "reply": "once"})
    assert luxe.expect("permission_resolved") == {"id": asked["id"], "reply": "once"}
    assert finished(luxe)["is_error"] is False
    changed = luxe.frames[-2]["content"] if luxe.frames[-2]["kind"] == "file_changed" else None
    assert changed == {"path": str(repo / "one.txt"), "operation": "write", "diff": new_file,
                       "call_id": asked["call_id"]}
    assert (repo / "one.txt").read_text() == "1\n"

    asked = luxe.expect("permission_requested")
    luxe.send("respond_permission", {"id": asked["id"], "reply": "always"})
    assert finished(luxe)["is_error"] is False
    # "always" covers the next write of the same file without asking (it is
    # never wider than what was asked: another file would ask again).
    frames = luxe.collect_until("tool_finished")
    assert "permission_requested" not in [f["kind"] for f in frames]
    assert (repo / "two.txt").read_text() == "3\n"

    asked = luxe.expect("permission_requested")
    assert asked["tool"] == "bash"
    luxe.send("respond_permission", {"id": asked["id"], "reply": "reject", "message": "not now"})
    assert luxe.expect("permission_resolved")["reply"] == "reject"
    denied = finished(luxe)
    assert denied["denied"] is True and denied["is_error"] is True
    assert not (repo / "never.txt").exists()
    assert luxe.expect("turn_ended")["reason"] == "end_turn"
    # A reply to an id already resolved is refused.
    luxe.send("respond_permission", {"id": asked["id"], "reply": "once"})
    assert "no pending permission prompt" in luxe.expect("action_rejected")["reason"]
    results = tool_results(env, ready["session_id"])
    assert "rejected" in results[-1]["content"] and "not now" in results[-1]["content"]
    assert luxe.close() == 0


def test_auto_approve_answers_prompts_with_auto(spawn: SpawnLuxe, repo: Path) -> None:
    luxe = spawn(
        [
            {"tool_calls": [call("bash", command="echo hi > auto.txt")]},
            {"text": "ok"},
            {"tool_calls": [call("bash", command="echo hi > auto2.txt")]},
            {"text": "ok"},
        ],
        "--auto-approve",
    )
    luxe.handshake()
    luxe.send("submit_user_message", {"text": "go"})
    asked = luxe.expect("permission_requested")
    assert luxe.expect("permission_resolved") == {"id": asked["id"], "reply": "auto"}
    assert luxe.expect("turn_ended")["reason"] == "end_turn"
    assert (repo / "auto.txt").exists()
    luxe.send("set_permission_auto_approve", {"enabled": False})
    luxe.expect("state_changed", where=lambda c: c["auto_approve"] is False)
    luxe.send("submit_user_message", {"text": "again"})
    asked = luxe.expect("permission_requested")
    # Turning auto-approve on answers the prompt already waiting.
    luxe.send("set_permission_auto_approve", {"enabled": True})
    assert luxe.expect("permission_resolved") == {"id": asked["id"], "reply": "auto"}
    assert luxe.expect("turn_ended")["reason"] == "end_turn"
    assert (repo / "auto2.txt").exists()
    assert luxe.close() == 0


def test_read_only_mode_denies_writes_without_asking(spawn: SpawnLuxe, repo: Path) -> None:
    luxe = spawn([{"tool_calls": [call("write", path="x.txt", content="x")]}, {"text": "ok"}], "--read-only")
    luxe.handshake()
    luxe.send("submit_user_message", {"text": "write"})
    frames = luxe.collect_until("turn_ended")
    assert "permission_requested" not in [f["kind"] for f in frames]
    done = next(f["content"] for f in frames if f["kind"] == "tool_finished")
    assert done["denied"] is True
    assert not (repo / "x.txt").exists()
    assert luxe.close() == 0


def test_question_tool_round_trip(spawn: SpawnLuxe, env: dict[str, str]) -> None:
    luxe = spawn(
        [
            {"tool_calls": [call("question", question="Proceed?", options=["yes", "no"])]},
            {"tool_calls": [call("question", question="Really?")]},
            {"text": "ok"},
        ]
    )
    ready = luxe.handshake()
    luxe.send("submit_user_message", {"text": "ask me"})
    asked = luxe.expect("question_asked")
    assert asked["question"] == "Proceed?" and asked["options"] == ["yes", "no"]
    assert asked["multiple"] is False and asked["call_id"]
    luxe.send("answer_question", {"id": asked["id"], "reply": {"answered": ["yes"]}})
    assert luxe.expect("question_resolved") == {"id": asked["id"], "reply": {"answered": ["yes"]}}
    assert finished(luxe)["is_error"] is False
    asked = luxe.expect("question_asked")
    luxe.send("answer_question", {"id": asked["id"], "reply": {"whatever": 1}})
    assert "answered" in luxe.expect("action_rejected")["reason"]
    luxe.send("answer_question", {"id": asked["id"], "reply": {"dismissed": True}})
    assert finished(luxe)["is_error"] is True
    assert luxe.expect("turn_ended")["reason"] == "end_turn"
    results = tool_results(env, ready["session_id"])
    assert results[0]["content"] == "the user answered: yes"
    assert "dismissed" in results[1]["content"]
    assert luxe.close() == 0


def test_edit_refuses_missing_and_ambiguous_matches(spawn: SpawnLuxe, repo: Path) -> None:
    (repo / "twice.txt").write_text("same\nsame\n")
    (repo / "blob.bin").write_bytes(b"\x00\x01\x02binary")
    os.mkfifo(repo / "pipe")
    luxe = spawn(
        [
            {"tool_calls": [
                call("edit", path="twice.txt", old_string="absent", new_string="x"),
                call("edit", path="twice.txt", old_string="same", new_string="x"),
                call("read", path="blob.bin"),
                call("read", path="nope.txt"),
                call("read", path="bad\u0000path"),
                call("read", path="pipe"),
            ]},
            {"tool_calls": [call("edit", path="twice.txt", old_string="same", new_string="new", replace_all=True)]},
            {"text": "done"},
        ],
        "--yolo",
    )
    luxe.handshake()
    luxe.send("submit_user_message", {"text": "edit"})
    frames = luxe.collect_until("turn_ended")
    done = {}
    started = {f["content"]["call_id"]: f["content"] for f in frames if f["kind"] == "tool_started"}
    for f in frames:
        if f["kind"] == "tool_finished":
            c = f["content"]
            done[(c["name"], json.dumps(started[c["call_id"]]["args"], sort_keys=True))] = c
    by_summary = [c["summary"] for c in done.values()]
    assert any("not found" in s for s in by_summary), by_summary
    assert any("occurs 2 times" in s for s in by_summary), by_summary
    assert any("binary" in s for s in by_summary), by_summary
    assert any("does not exist" in s for s in by_summary), by_summary
    # A NUL crashed the tool (ValueError, not OSError); now it is said.
    assert "the path holds a NUL byte, which no file name can hold" in by_summary, by_summary
    assert any("not a regular file" in s for s in by_summary), by_summary  # a FIFO never blocks
    assert frames[-1]["content"]["reason"] == "end_turn"
    assert (repo / "twice.txt").read_text() == "new\nnew\n"
    assert luxe.close() == 0


def test_edit_of_a_file_past_the_read_cap_keeps_all_of_it(spawn: SpawnLuxe, repo: Path) -> None:
    """Edit writes the whole text back: a file bigger than what read shows at
    once (256 KB) is read whole, so nothing past that is lost, and a match
    past it is found; a file over edit's own cap is refused and unchanged."""
    lines = [f"x_{n} = {n}\n" for n in range(40_000)]  # some 600 KB
    (repo / "big.py").write_text("".join(lines))
    (repo / "huge.txt").write_bytes(b"y = 1\n" * (17 * 1024 * 1024 // 6))  # over 16 MB
    huge = (repo / "huge.txt").read_bytes()
    luxe = spawn(
        [
            {"tool_calls": [call("edit", path="big.py", old_string="x_1 = 1\n", new_string="x_1 = 'one'\n")]},
            {"tool_calls": [call("edit", path="big.py", old_string="x_39999 = 39999\n", new_string="last = 0\n")]},
            {"tool_calls": [call("edit", path="big.py", old_string=" = ", new_string=" := ", replace_all=True)]},
            {"tool_calls": [call("edit", path="huge.txt", old_string="y = 1", new_string="z")]},
            {"text": "done"},
        ],
        "--yolo",
    )
    luxe.handshake()
    luxe.send("submit_user_message", {"text": "edit"})
    frames = luxe.collect_until("turn_ended")
    summaries = [f["content"]["summary"] for f in frames if f["kind"] == "tool_finished"]
    assert summaries[:3] == ["edited big.py"] * 3, summaries
    assert "huge.txt is over 16 MB" in summaries[3], summaries
    lines[1], lines[-1] = "x_1 = 'one'\n", "last = 0\n"
    assert (repo / "big.py").read_text() == "".join(lines).replace(" = ", " := ")
    assert (repo / "huge.txt").read_bytes() == huge
    assert luxe.close() == 0


def test_read_reaches_every_line_of_a_big_file(
    spawn: SpawnLuxe, repo: Path, env: dict[str, str]
) -> None:
    """Lines past the first 256 KiB are read by offset (they were out of
    reach: read said the file ended there), numbered as grep numbers them
    (only `\\n` ends a line, CRLF shows no `\\r`), counted to the end, and
    redacted; a line longer than the cap says where to read on."""
    (repo / ".env").write_text("KEY=tail-secret-Vq81zX\n")
    lines = [f"x_{n} = {n}" for n in range(1, 40_001)]  # line n holds x_n
    lines[29_999] = "a form\x0cfeed and a \x1c separator stay in line 30000"
    lines[34_999] = "token = 'tail-secret-Vq81zX'"
    (repo / "big.py").write_text("\r\n".join(lines))  # no newline at the end
    (repo / "long.txt").write_text("first\n" + "y" * (300 * 1024) + "\nlast\n")
    luxe = spawn(
        [
            {"tool_calls": [
                call("read", path="big.py", offset=29_999, limit=3),
                call("read", path="big.py", offset=35_000, limit=1),
                call("read", path="big.py", offset=39_999),
                call("read", path="big.py", offset=40_001),
                call("read", path="long.txt"),
                call("read", path="long.txt", offset=3),
            ]},
            {"text": "done"},
        ]
    )
    ready = luxe.handshake()
    luxe.send("submit_user_message", {"text": "look"})
    luxe.collect_until("turn_ended")
    results = [r["content"] for r in tool_results(env, ready["session_id"])]
    assert results[0] == (
        " 29999\tx_29999 = 29999\n"
        " 30000\ta form\x0cfeed and a \x1c separator stay in line 30000\n"
        " 30001\tx_30001 = 30001\n"
        "[9999 more lines; read with offset=30002]"
    )
    assert results[1] == " 35000\ttoken = '[REDACTED:KEY]'\n[5000 more lines; read with offset=35001]"
    assert results[2] == " 39999\tx_39999 = 39999\n 40000\tx_40000 = 40000"
    assert results[3] == "big.py has 40000 lines; offset 40001 is past the end"
    first, second, more = results[4].split("\n")
    assert first == "     1\tfirst"
    assert second == "     2\t" + "y" * 2000 + " [line cut]"
    assert more == "[cut at 256 KiB of text; read on with offset=2]"
    assert results[5] == "     3\tlast"
    assert luxe.close() == 0


def test_grep_glob_ls_read(spawn: SpawnLuxe, repo: Path, env: dict[str, str]) -> None:
    (repo / "src").mkdir()
    (repo / "src" / "app.py").write_text("def main():\n    return 42\n")
    luxe = spawn(
        [
            {"tool_calls": [
                call("grep", pattern="return \\d+"),
                call("glob", pattern="**/*.py"),
                call("ls", path="src"),
                call("read", path="src/app.py", offset=2, limit=1),
            ]},
            {"text": "done"},
        ]
    )
    ready = luxe.handshake()
    luxe.send("submit_user_message", {"text": "look"})
    frames = luxe.collect_until("turn_ended")
    assert "permission_requested" not in [f["kind"] for f in frames]
    results = [r["content"] for r in tool_results(env, ready["session_id"])]
    assert results[0] == "src/app.py:2:    return 42"
    assert results[1] == "src/app.py"
    assert results[2] == "app.py"
    assert results[3] == "     2\t    return 42"
    assert luxe.close() == 0


def test_bash_timeout_kills_the_group_and_says_so(spawn: SpawnLuxe, env: dict[str, str]) -> None:
    from tests.luxe.rpc_driver import processes_with_marker, unique_duration

    marker = unique_duration()
    # The timeout must leave bash time to start and echo, even on a loaded
    # machine: output written before the timeout is what the result keeps.
    luxe = spawn(
        [{"tool_calls": [call("bash", command=f"echo start; sleep {marker}", timeout_s=3)]}, {"text": "ok"}],
        "--yolo",
    )
    ready = luxe.handshake()
    luxe.send("submit_user_message", {"text": "slow"})
    done = luxe.expect("tool_finished")
    assert done["is_error"] is True and done["summary"] == "timed out"
    assert processes_with_marker(marker, scope=env) == []
    assert luxe.expect("turn_ended")["reason"] == "end_turn"
    result = tool_results(env, ready["session_id"])[0]["content"]
    assert result.startswith("start\n") and "timed out after 3s" in result
    assert luxe.close() == 0


def test_long_output_is_capped_in_the_result_but_streamed(spawn: SpawnLuxe, env: dict[str, str]) -> None:
    luxe = spawn([{"tool_calls": [call("bash", command="seq 1 20000")]}, {"text": "ok"}], "--yolo")
    ready = luxe.handshake()
    luxe.send("submit_user_message", {"text": "count"})
    frames = luxe.collect_until("turn_ended")
    streamed = "".join(f["content"]["delta"] for f in frames if f["kind"] == "tool_output_delta")
    assert streamed.splitlines() == [str(i) for i in range(1, 20001)]
    result = tool_results(env, ready["session_id"])[0]["content"]
    assert result.startswith("1\n2\n") and result.endswith("20000\n[exit status 0]")
    assert "characters omitted" in result and len(result) < 40_000
    assert luxe.close() == 0


def test_read_shows_8bit_text_and_says_bytes_were_replaced(
    spawn: SpawnLuxe, repo: Path, env: dict[str, str]
) -> None:
    legacy = "name = 'café'\n# résumé\n".encode("latin-1")
    (repo / "legacy.py").write_bytes(legacy)
    (repo / "noise.dat").write_bytes(bytes(range(128, 256)) * 40)  # no NUL, mostly not UTF-8
    luxe = spawn(
        [
            {"tool_calls": [call("read", path="legacy.py")]},
            {"tool_calls": [call("read", path="noise.dat")]},
            {"tool_calls": [call("edit", path="legacy.py", old_string="name", new_string="title")]},
            {"text": "done"},
        ],
        "--yolo",
    )
    ready = luxe.handshake()
    luxe.send("submit_user_message", {"text": "read the legacy file"})
    frames = luxe.collect_until("turn_ended")
    assert frames[-1]["content"]["reason"] == "end_turn"
    finished = [f["content"] for f in frames if f["kind"] == "tool_finished"]
    assert finished[0]["is_error"] is False
    assert finished[0]["summary"] == "legacy.py (2 lines, 3 bytes not UTF-8)"
    assert finished[1]["is_error"] is True and "binary" in finished[1]["summary"]
    assert finished[2]["is_error"] is True and "not UTF-8" in finished[2]["summary"]
    results = [r["content"] for r in tool_results(env, ready["session_id"])]
    assert "     1\tname = 'caf\ufffd'" in results[0]
    assert "     2\t# r\ufffdsum\ufffd" in results[0]
    assert "3 bytes of this file are not UTF-8" in results[0] and "Latin-1" in results[0]
    assert (repo / "legacy.py").read_bytes() == legacy  # edit never rewrote it
    assert luxe.close() == 0


def test_ls_of_a_huge_directory_reads_a_bounded_part(
    spawn: SpawnLuxe, repo: Path, env: dict[str, str]
) -> None:
    """A directory of more entries than `ls` reads (100,000): the first ones
    found, sorted, and a line saying so; a small one whole, directories
    marked and sorted among the files by name."""
    from luxe.tools.files import LIST_MAX, SCAN_MAX

    huge = repo / "huge"
    huge.mkdir()
    for n in range(SCAN_MAX + 5):
        os.close(os.open(huge / f"f{n:06}", os.O_CREAT | os.O_WRONLY, 0o644))
    (repo / "small").mkdir()
    for name in ("b.txt", "a.txt", "a"):
        (repo / "small" / name).mkdir() if name == "a" else (repo / "small" / name).write_text("")
    (repo / "link").symlink_to(huge)
    # The huge directory four ways: by name, through a symlink, as `huge/.`, absolute.
    spellings = ["huge", "link", "huge/.", str(huge)]
    calls = [call("ls", path=path) for path in [*spellings, "small"]]
    luxe = spawn([{"tool_calls": calls}, {"text": "done"}])
    ready = luxe.handshake()
    luxe.send("submit_user_message", {"text": "list"})
    frames = luxe.collect_until("turn_ended", timeout=120)
    summaries = sorted(f["content"]["summary"] for f in frames if f["kind"] == "tool_finished")
    assert summaries == ["3 entries", *[f"over {SCAN_MAX} entries"] * len(spellings)]
    results = [r["content"] for r in tool_results(env, ready["session_id"])]
    huge_lists = [r.split("\n") for r in results if "more than" in r]
    assert len(huge_lists) == len(spellings)
    for listed in huge_lists:
        assert len(listed) == LIST_MAX + 1 and listed[:-1] == sorted(listed[:-1])
        assert listed[-1].startswith(f"[more than {SCAN_MAX} entries: these are the first {LIST_MAX}")
    assert "a/\na.txt\nb.txt" in results
    assert luxe.close() == 0


def test_counts_are_said_in_the_singular_for_one(
    spawn: SpawnLuxe, repo: Path, env: dict[str, str]
) -> None:
    """A one-line file reads, writes and edits as "1 line" and "1
    occurrence", to the client and to the model, not "1 lines"."""
    (repo / "one.txt").write_text("only\n")
    (repo / "three.txt").write_text("a\nb\nc\n")
    luxe = spawn(
        [
            {"tool_calls": [call("read", path="one.txt")]},
            {"tool_calls": [call("read", path="three.txt")]},
            {"tool_calls": [call("read", path="three.txt", limit=1)]},
            {"tool_calls": [call("write", path="new.txt", content="hello\n")]},
            {"tool_calls": [call("edit", path="one.txt", old_string="only", new_string="just")]},
            {"text": "done"},
        ],
        "--yolo",
    )
    ready = luxe.handshake()
    luxe.send("submit_user_message", {"text": "count"})
    frames = luxe.collect_until("turn_ended")
    summaries = [f["content"]["summary"] for f in frames if f["kind"] == "tool_finished"]
    assert summaries[:3] == ["one.txt (1 line)", "three.txt (3 lines)", "three.txt (1 line)"], summaries
    said = [r["content"] for r in tool_results(env, ready["session_id"])]
    assert "[2 more lines; read with offset=2]" in said[2], said[2]
    assert said[3].startswith("created new.txt (1 line)"), said[3]
    assert said[4] == "edited one.txt: replaced 1 occurrence", said[4]
    assert luxe.close() == 0
