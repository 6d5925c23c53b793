"""The `LUXE_*_S` knobs: a value that is not a positive, finite number of
seconds means the default, in every one of them, so a word in one never
ends a session (LUXE_GITHUB_POLL_S=soon ended the real luxe with an
internal error, LUXE_REVIEW_GH_TIMEOUT_S=soon every pull-request review)."""

from __future__ import annotations

from pathlib import Path

import pytest

from luxe.env_seconds import seconds_from
from luxe.providers.retry import RetryPolicy
from tests.luxe.conftest import SpawnLuxe

KNOBS = (
    "LUXE_GITHUB_POLL_S",
    "LUXE_REVIEW_GH_TIMEOUT_S",
    "LUXE_STREAM_IDLE_TIMEOUT_S",
    "LUXE_LSP_TIMEOUT_S",
    "LUXE_START_TIMEOUT_S",
    # Not seconds, but read by the same kind of rule (0 is allowed there).
    "LUXE_MAX_RETRIES",
    "LUXE_RETRY_BASE_DELAY_S",
)


@pytest.mark.parametrize(
    ("value", "seconds"),
    [(None, 7.0), ("2", 2.0), ("0.5", 0.5), ("1e1", 10.0), ("0", 7.0), ("-1", 7.0),
     ("nan", 7.0), ("inf", 7.0), ("-inf", 7.0), ("soon", 7.0), ("", 7.0), ("1_0", 10.0)],
)
def test_seconds_from(value: str | None, seconds: float) -> None:
    env = {} if value is None else {"LUXE_X_S": value}
    assert seconds_from(env, "LUXE_X_S", 7.0) == seconds


@pytest.mark.parametrize("word", ["soon", "", "-5", "inf"])
def test_a_word_in_every_knob_changes_nothing_a_person_sees(
    spawn: SpawnLuxe, repo: Path, word: str
) -> None:
    luxe = spawn([{"text": "still here"}], env_extra=dict.fromkeys(KNOBS, word))
    luxe.handshake()
    assert luxe.expect("workspace_updated")["branch"]
    luxe.send("submit_user_message", {"text": "hello"})
    frames = luxe.collect_until("turn_ended")
    assert "still here" in str(frames)
    assert luxe.close() == 0
    assert "internal error" not in luxe.stderr_text()


@pytest.mark.parametrize("word", ["inf", "nan", "-1", "many", "1e999"])
def test_retry_knobs_take_the_same_rule(word: str) -> None:
    """LUXE_MAX_RETRIES=inf raised OverflowError where the provider is built."""
    policy = RetryPolicy.from_env({"LUXE_MAX_RETRIES": word, "LUXE_RETRY_BASE_DELAY_S": word})
    assert (policy.max_retries, policy.base_delay_s) == (4, 1.0)
