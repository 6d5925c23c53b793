"""A model endpoint's own failure may quote a secret: an endpoint that
echoes the key it refused (`invalid x-api-key: sk-ant-…`), or a value the
request carried. Its text went as it came to `turn_ended.error`, to the
retry `error` frames and to a failed compaction's `error` frame. Now every
failure of a session's provider is redacted (luxe/engine/redacted_model.py).
Through the real `luxe --rpc` on the loopback model server."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import pytest

from .hostile import PROVIDER_KEY, everything_written, hostile_luxe, leaked, run_turn

ENV_VALUE = "sk_live_Zq8pT3vN7mX2kL9wB4cR6yH1"
GITHUB_TOKEN = "ghp_Pr0v1derEch0T0ken9aBcDeFgHiJkLmN"


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


# One failure for good per case: (the step, the secret its text carries).
FAILURES = {
    "401 echoing the key": (
        {"http_error": {"status": 401, "message": f"invalid x-api-key: {PROVIDER_KEY}"}},
        PROVIDER_KEY,
    ),
    "400 echoing a .env value in capitals": (
        {"http_error": {"status": 400, "message": f"bad field {ENV_VALUE.upper()}"}},
        ENV_VALUE,
    ),
    "a mid-stream error with the key in base64": (
        {"stream_error": {"type": "invalid_request_error", "message": f"auth {b64(PROVIDER_KEY)}"}},
        PROVIDER_KEY,
    ),
    "a JSON page instead of a stream, with an exported token": (
        {"json_body": {"error": {"message": f"proxy said: token {GITHUB_TOKEN} reversed {GITHUB_TOKEN[::-1]}"}}},
        GITHUB_TOKEN,
    ),
}


def hostile_env(repo: Path, env: dict[str, str]) -> dict[str, str]:
    (repo / ".env").write_text(f"STRIPE_KEY={ENV_VALUE}\n")
    return {**env, "GITHUB_TOKEN": GITHUB_TOKEN}


def nothing_leaked(luxe: Any, server: Any, env: dict[str, str]) -> None:
    spellings = (ENV_VALUE, ENV_VALUE.upper(), PROVIDER_KEY, b64(PROVIDER_KEY), GITHUB_TOKEN)
    for value in spellings:
        assert not leaked(value, luxe, server), value
    written = everything_written(env)
    assert written and not any(value in written for value in spellings)


@pytest.mark.parametrize("case", list(FAILURES))
def test_a_provider_failure_quoting_a_secret_ends_the_turn_redacted(
    case: str, repo: Path, env: dict[str, str]
) -> None:
    step, secret = FAILURES[case]
    full = hostile_env(repo, env)
    with hostile_luxe([step], "yolo", cwd=repo, env=full) as (luxe, server):
        ended = run_turn(luxe)[-1]["content"]
        assert ended["reason"] == "error"
        assert "[REDACTED:" in ended["error"] and secret not in ended["error"], ended
        assert luxe.close() == 0
    nothing_leaked(luxe, server, env)


def test_a_retry_notice_quoting_the_key_is_redacted(repo: Path, env: dict[str, str]) -> None:
    full = hostile_env(repo, env)
    steps = [
        {"http_error": {"status": 429, "retry_after": 0, "message": f"slow down, {PROVIDER_KEY}"}},
        {"http_error": {"status": 529, "retry_after": 0, "message": f"busy {ENV_VALUE.lower()[::-1]}"}},
        {"text": "done"},
    ]
    with hostile_luxe(steps, "yolo", cwd=repo, env=full) as (luxe, server):
        frames = run_turn(luxe)
        assert frames[-1]["content"]["text"] == "done"
        notices = [f["content"]["message"] for f in frames if f["kind"] == "error"]
        assert len(notices) == 2 and all("[REDACTED:" in n for n in notices), notices
        assert luxe.close() == 0
    nothing_leaked(luxe, server, env)


def test_a_failed_compaction_quoting_the_key_is_redacted(repo: Path, env: dict[str, str]) -> None:
    full = hostile_env(repo, env)
    steps = [
        {"text": "first answer"},
        {"text": "second answer"},
        {"http_error": {"status": 403, "message": f"forbidden for {PROVIDER_KEY.upper()}"}},
    ]
    with hostile_luxe(steps, "yolo", cwd=repo, env=full) as (luxe, server):
        run_turn(luxe, "hello")
        run_turn(luxe, "again")
        luxe.send("compact", {})
        failed = luxe.expect("error")
        assert "compaction failed" in failed["message"] and "[REDACTED:" in failed["message"], failed
        assert luxe.close() == 0
    nothing_leaked(luxe, server, env)
