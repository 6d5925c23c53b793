"""The session files luxe wrote under the test's XDG_DATA_HOME, read back:
the user messages they store, which are what the model was sent."""

from __future__ import annotations

import json
from pathlib import Path


def user_texts(session_dir: Path) -> list[str]:
    """The user messages stored in the session files (what the model got)."""
    texts = []
    for path in sorted(session_dir.rglob("*.jsonl")):
        for line in path.read_text().splitlines():
            record = json.loads(line)
            message = record.get("message", record)
            if message.get("role") == "user":
                content = message.get("content")
                if isinstance(content, str):
                    texts.append(content)
                else:
                    texts.extend(b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text")
    return texts


def luxe_sessions(env: dict[str, str]) -> Path:
    return Path(env["XDG_DATA_HOME"]) / "luxe" / "sessions"
