"""GitHub's data reaches the interface's terminal drawn, never obeyed: a
pull request's state, branches, review decision, mergeability and check
conclusions, read by the real gh from the fake GitHub, each holding a
control that moves the cursor over what is shown (gh passes those on),
show as `�` in `/pr N` and in `/pr merge`'s confirmation, and the bytes
written hold no control but the interface's own."""

from __future__ import annotations

from pathlib import Path

from tests.fakes.github.model import Check, Comment, Thread
from tests.fakes.github.server import FakeGitHub
from tests.helpers.github import Checkout, needs_gh, open_fix_retry
from tests.luxe.interface.conftest import StartUi, ui  # noqa: F401 -- the fixture
from tests.luxe.interface.hostile import OVERWRITES, foreign_controls

pytestmark = needs_gh


def test_pull_request_fields_are_drawn_not_obeyed(
    ui: StartUi, github: FakeGitHub, checkout: Checkout, tmp_path: Path  # noqa: F811
) -> None:
    cr, backspace, form_feed = OVERWRITES
    pull = open_fix_retry(github, checkout)
    pull.threads.append(Thread("src/retry.py", 2, [Comment("Why 2?")]))
    pull.headRefName = f"fix-retry-{cr}"
    pull.baseRefName = f"main-{backspace}"
    pull.reviewDecision = f"APPROVED-{form_feed}"
    pull.mergeable = f"MERGEABLE-{cr}"
    pull.checks.extend([Check("ci", "COMPLETED", f"SUCCESS-{backspace}"),
                        Check("lint", "COMPLETED", f"FAILURE-{form_feed}")])
    # luxe lowercases the state, review decision, mergeability and conclusions.
    asked = [f"approved-{OVERWRITES[form_feed]}".lower(), f"mergeable-{OVERWRITES[cr]}".lower()]
    shown = [*asked, f"fix-retry-{OVERWRITES[cr]}", f"main-{OVERWRITES[backspace]}",
             f"success-{OVERWRITES[backspace]}".lower(), f"failure-{OVERWRITES[form_feed]}".lower(),
             f"open-{OVERWRITES[cr]}".lower()]
    written = tmp_path / "written"
    session = ui([], "--github-writes", width=200, env_extra={"LUXE_TUI_WRITE_LOG": str(written)})

    session.type("/pr merge #1")
    session.send_keys("Enter")
    screen = session.wait_for("y merge #1 (merge)")  # the confirmation, in the live region
    missing = [seen for seen in asked if seen not in screen]
    assert missing == [], f"not shown as �: {missing}; screen:\n{screen}"
    session.send_keys("n")
    session.wait_for("not merged: #1 is unchanged")

    pull.state = f"OPEN-{cr}"
    session.type("/pr 1")
    session.send_keys("Enter")
    session.wait_for("thread 1 src/retry.py:2")
    history = "\n".join(session.history())
    missing = [seen for seen in shown if seen not in history]
    assert missing == [], f"not shown as �: {missing}; screen:\n{history}"
    assert foreign_controls(written.read_bytes()) == []
