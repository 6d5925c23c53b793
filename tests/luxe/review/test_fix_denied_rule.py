"""The rule that tells a fix whose every change was denied from a real one."""

from __future__ import annotations

from luxe.engine.turn import CallRecord
from luxe.review.agent import why_fix_denied

REJECTED = CallRecord("write", True, "the user rejected this call")
BLOCKED = CallRecord("edit", True, "blocked by a hook: edits wait for CI")


def test_every_mutating_call_denied_fails_the_fix_and_names_each_reason() -> None:
    read = CallRecord("read", False, "")
    secret = CallRecord("read", True, "denied: a secret file")  # a denied read changes nothing either way
    why = why_fix_denied([read, secret, REJECTED, BLOCKED, REJECTED])
    assert why == (
        "The fix was not applied: every change the agent tried was denied (write: the user "
        "rejected this call; edit: blocked by a hook: edits wait for CI), so no file changed."
    )


def test_a_fix_is_not_failed_when_something_could_have_changed() -> None:
    wrote = CallRecord("write", False, "", ("/repo/a.py",))
    ran = CallRecord("bash", False, "")  # a shell that ran may have changed files
    assert why_fix_denied([REJECTED, wrote]) is None
    assert why_fix_denied([REJECTED, ran]) is None
    # Nothing tried: the agent may rightly report there is nothing to change.
    assert why_fix_denied([]) is None
    assert why_fix_denied([CallRecord("read", False, ""), CallRecord("grep", True, "denied")]) is None
