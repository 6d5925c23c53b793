"""redacted: every string of a GitHub frame, however nested, passes the
redactor; the client's own request_id comes back as it was sent."""

from __future__ import annotations

from luxe.github.redacted import redacted
from luxe.protocol import events as ev
from luxe.protocol import github as gp


def _redact(text: str) -> str:
    return text.replace("s3cret", "[REDACTED:KEY]")


def _pull(word: str) -> gp.PullRequestInfo:
    return gp.PullRequestInfo(
        number=7, url=f"https://ghe.test/o/r/pull/7?{word}", title=f"Title {word}", state="open",
        draft=False, base=f"base-{word}", head=f"head-{word}", review_decision=None,
        mergeable=None, checks=[gp.Check(f"ci {word}", "completed", "success", None)],
    )


def test_every_string_of_a_frame_is_redacted_and_nothing_else_changes() -> None:
    thread = gp.ReviewThread("PRRT_1", f"src/{'s3cret'}.py", 2, "right", False, False,
                             [gp.ThreadComment("1", "bot-s3cret", "key s3cret", "u", "t")])
    loaded = gp.PullRequestLoaded("s3cret-request", _pull("s3cret"), [thread])
    shown = redacted(loaded, _redact)
    assert shown == gp.PullRequestLoaded("s3cret-request", _pull("[REDACTED:KEY]"), [
        gp.ReviewThread("PRRT_1", "src/[REDACTED:KEY].py", 2, "right", False, False, [
            gp.ThreadComment("1", "bot-[REDACTED:KEY]", "key [REDACTED:KEY]", "u", "t")])])


def test_workspace_and_failures() -> None:
    update = gp.WorkspaceUpdated("head-s3cret", None, 0, 0, False, _pull("s3cret"), "ok")
    assert redacted(update, _redact) == gp.WorkspaceUpdated(
        "head-[REDACTED:KEY]", None, 0, 0, False, _pull("[REDACTED:KEY]"), "ok")
    failed = gp.PullRequestLoadFailed("r", "GraphQL: no s3cret")
    assert redacted(failed, _redact) == gp.PullRequestLoadFailed("r", "GraphQL: no [REDACTED:KEY]")
    rejected = ev.ActionRejected("load_pull_request", "internal error: s3cret")
    assert redacted(rejected, _redact).reason == "internal error: [REDACTED:KEY]"
