"""History shaping and the session file, in isolation."""

from __future__ import annotations

import json
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
from luxe.engine.store import SessionStore


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
