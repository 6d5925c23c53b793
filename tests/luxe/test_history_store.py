"""History shaping and the session file, in isolation."""

from __future__ import annotations

import json
import os
import re
from datetime import UTC, datetime
from pathlib import Path

from luxe.engine.history import CANCELLED_RESULT, History
from luxe.engine.model import (
    AssistantMessage,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    Usage,
    UserMessage,
)
from luxe.engine.store import SessionStore, new_session_id


def test_requests_alternate_roles_and_answer_every_tool_use() -> None:
    history = History(
        [
            UserMessage((TextBlock("one"),)),
            AssistantMessage((ToolUseBlock("a", "ls", {}), ToolUseBlock("b", "ls", {})), "tool_use"),
            UserMessage((ToolResultBlock("a", "files"),)),
            UserMessage((TextBlock("next prompt"),)),
            AssistantMessage((ToolUseBlock("c", "ls", {}),), "tool_use"),
        ]
    )
    messages = history.for_request()
    assert [m.role for m in messages] == ["user", "assistant", "user", "assistant", "user"]
    merged = messages[2].content
    assert [type(b).__name__ for b in merged] == ["ToolResultBlock", "ToolResultBlock", "TextBlock"]
    assert merged[1] == ToolResultBlock("b", CANCELLED_RESULT, is_error=True)
    assert messages[4].content == (ToolResultBlock("c", CANCELLED_RESULT, is_error=True),)


def test_session_file_round_trip_and_torn_lines(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "sessions")
    session = store.create("/work/app")
    messages = [
        UserMessage((TextBlock("hello\nworld"),)),
        AssistantMessage(
            (ThinkingBlock("hmm", "sig"), TextBlock("hi"), ToolUseBlock("t1", "read", {"path": "x"})),
            "tool_use",
            Usage(10, 5, 2, 1),
        ),
        UserMessage((ToolResultBlock("t1", "\ud800 odd", True),)),
    ]
    for message in messages:
        session.append_message(message)
    session.close()
    path = session.path
    # A foreign line in the middle and a torn last line are skipped.
    lines = path.read_text().splitlines()
    lines.insert(2, "not json")
    path.write_text("\n".join(lines) + "\n" + '{"type": "message", "mess')
    loaded = store.open(session.id)
    assert loaded.messages[:2] == messages[:2]
    assert loaded.messages[2].content[0].content.endswith("odd")  # type: ignore[union-attr]
    assert loaded.title == "hello"
    assert path.read_text().endswith("\n"), "the torn line was cut off"
    loaded.append_message(UserMessage((TextBlock("after"),)))
    loaded.close()
    again = store.open(session.id)
    assert again.messages[-1] == UserMessage((TextBlock("after"),))
    assert json.loads(path.read_text().splitlines()[0])["cwd"] == "/work/app"
    assert store.latest_for("/work/app") == session.id
    assert store.latest_for("/elsewhere") is None


def test_compaction_record_replays_on_load(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    session = store.create("/w")
    for text in ("a", "b", "c"):
        session.append_message(UserMessage((TextBlock(text),)))
    summary = [UserMessage((TextBlock("summary"),)), AssistantMessage((TextBlock("ok"),), "end_turn")]
    session.append_compaction(summary, kept=1)
    session.close()
    loaded = store.open(session.id)
    assert [m.content[0].text for m in loaded.messages] == ["summary", "ok", "c"]  # type: ignore[union-attr]


def test_session_times_are_utc_iso_seconds_as_datetime_writes_them(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "sessions")
    file = store.create(str(tmp_path))
    file.append_message(UserMessage((TextBlock("q"),)))
    file.close()
    for stamp in (0.0, 1.5, 951_782_400.999, 4_102_444_799.0):
        os.utime(file.path, (stamp, stamp))
        assert file.updated_at == datetime.fromtimestamp(stamp, UTC).isoformat(timespec="seconds")
    created = datetime.fromisoformat(file.created_at)
    assert created.utcoffset() is not None and abs(created.timestamp() - datetime.now(UTC).timestamp()) < 60
    ids = {new_session_id() for _ in range(200)}
    assert len(ids) == 200 and all(re.fullmatch(r"\d{8}-\d{6}-[0-9a-f]{8}", i) for i in ids)
