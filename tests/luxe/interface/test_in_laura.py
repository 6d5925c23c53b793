"""The loop Luxe and Laura exist for, as a person lives it: the real `laura`
in tmux hosts the real `luxe` interface (the loopback model server answers);
the agent edits a tracked file, the diff shows beside it with the change lit,
the person comments on two lines and presses S, and the next model request
carries Laura's review payload byte for byte, at once when the agent is
idle, queued (and shown in the queue) when a turn is running."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes.llm_server import FakeLLMServer
from tests.laura.tmux import LauraSession
from tests.luxe.in_laura import comment, file_panes, last_user_text, start
from tests.luxe.rpc_driver import call, make_repo, wait_until

pytestmark = pytest.mark.tmux

MAIN = "".join(f"line {n}\n" for n in range(1, 41))


EDIT = call("edit", path="main.py", old_string="line 12\n", new_string="line twelve CHANGED\n")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", {"main.py": MAIN})


def review_two_lines(laura: LauraSession, pane: int) -> None:
    assert laura.cli("focus", str(pane)).returncode == 0
    laura.wait_footer("c comment")  # the tab is ready: luxe said so at start
    comment(laura, pane, 12, "why twelve?")
    comment(laura, pane, 30, "and thirty too")
    laura.send_keys("S")
    laura.wait_footer("review body")
    laura.send_keys("Enter")


def expected_payload(repo: Path) -> str:
    return (
        f"[laura review · {repo / 'main.py'}]\n"
        "\nL12  line twelve CHANGED\n      > why twelve?\n"
        "\nL30  line 30\n      > and thirty too\n"
    )


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer([]) as fake:
        yield fake


def test_the_agents_edit_shows_beside_it_and_the_persons_review_is_its_next_prompt(
    tmp_path: Path, repo: Path
) -> None:
    steps = [
        {"tool_calls": [EDIT]},
        {"text": "Edited line 12."},
        {"tool_calls": [call("edit", path="main.py", old_string="line 20\n", new_string="line twenty\n")]},
        {"text": "Edited line 20 too."},
        {"text": "Thanks for the review."},
    ]
    with FakeLLMServer(steps) as server:
        laura = start(tmp_path, repo, server, "--permission-mode", "accept-edits")
        try:
            laura.type("change line 12")
            laura.send_keys("Enter")
            laura.wait_for("Edited line 12.")
            (pane,) = wait_until(lambda: file_panes(laura), what="the diff pane")
            assert pane["path"] == str(repo / "main.py")
            laura.wait_for("line twelve CHANGED")
            # A second edit moves the same pane.
            laura.type("and line 20")
            laura.send_keys("Enter")
            laura.wait_for("Edited line 20 too.")
            laura.wait_for("line twenty")
            assert [p["id"] for p in file_panes(laura)] == [pane["id"]]
            review_two_lines(laura, pane["id"])
            wait_until(lambda: len(server.bodies) == 5, what="the review's model request")
            assert last_user_text(server.bodies[4]) == (
                f"[laura review · {repo / 'main.py'}]\n"
                "\nL12  line twelve CHANGED\n      > why twelve?\n"
                "\nL30  line 30\n      > and thirty too\n"
            )
            laura.wait_for("Thanks for the review.")
        finally:
            laura.close()


def test_a_review_submitted_while_a_turn_runs_is_queued_then_sent(
    tmp_path: Path, repo: Path
) -> None:
    gate = tmp_path / "go"
    wait = f"while [ ! -f '{gate}' ]; do sleep 0.05; done; echo waited"
    steps = [
        {"tool_calls": [EDIT]},
        {"text": "Edited line 12."},
        {"tool_calls": [call("bash", command=wait)]},
        {"text": "Done waiting."},
        {"text": "Thanks for the review."},
    ]
    with FakeLLMServer(steps) as server:
        laura = start(tmp_path, repo, server, "--yolo")
        try:
            laura.type("change line 12")
            laura.send_keys("Enter")
            laura.wait_for("Edited line 12.")
            (pane,) = wait_until(lambda: file_panes(laura), what="the diff pane")
            laura.wait_for("line twelve CHANGED")
            laura.type("now wait")
            laura.send_keys("Enter")
            wait_until(lambda: len(server.bodies) == 3, what="the waiting turn")
            review_two_lines(laura, pane["id"])
            # The turn still runs (bash waits for the gate): the review waits
            # in the queue, where the person sees it.
            laura.wait_for("queued 1: [laura review")
            assert len(server.bodies) == 3
            gate.write_text("")
            laura.wait_for("Done waiting.")
            wait_until(lambda: len(server.bodies) == 5, what="the queued review sent")
            assert last_user_text(server.bodies[4]) == expected_payload(repo)
            laura.wait_for("Thanks for the review.")
        finally:
            laura.close()


def test_guided_review_follows_the_persons_chapter_in_one_laura_pane(
    tmp_path: Path
) -> None:
    files = {"src/a.py": MAIN, "lib/b.py": MAIN}
    repo = make_repo(tmp_path / "repo", files)
    for name in files:
        (repo / name).write_text(MAIN.replace("line 5\n", f"line five of {name}\n"))
    # The chapters request gets no proposal: the review falls back to one
    # chapter per directory, two here.
    with FakeLLMServer([{"text": "no chapters today"}]) as server:
        laura = start(tmp_path, repo, server)
        try:
            laura.type("/review")
            laura.send_keys("Enter")
            (pane,) = wait_until(lambda: file_panes(laura), what="the chapter's pane")
            first = pane["path"]
            assert first in (str(repo / "src/a.py"), str(repo / "lib/b.py"))
            laura.wait_for(f"line five of {Path(first).relative_to(repo)}")
            laura.type("/review next")
            laura.send_keys("Enter")
            (moved,) = wait_until(
                lambda: [p for p in file_panes(laura) if p["path"] != first], what="the next chapter"
            )
            assert moved["id"] == pane["id"]  # the same pane, moved to the next chapter's file
            assert len(file_panes(laura)) == 1
            laura.wait_for(f"line five of {Path(moved['path']).relative_to(repo)}")
        finally:
            laura.close()


@pytest.mark.parametrize("newline", [["C-j"], ["\\", "Enter"]], ids=["Ctrl+J", "backslash Enter"])
def test_a_new_line_in_the_draft_reaches_the_hosted_luxe(
    tmp_path: Path, repo: Path, newline: list[str]
) -> None:
    """Ctrl+J (and `\\` Enter) starts a new line in luxe's draft inside
    Laura too: Laura read the \\n byte as Enter, so a hosted luxe got \\r
    and sent the half-written draft."""
    with FakeLLMServer([{"text": "two lines read"}]) as server:
        laura = start(tmp_path, repo, server)
        try:
            laura.type("first line")
            for key in newline:
                if key == "\\":
                    laura.type(key)
                else:
                    laura.send_keys(key)
            laura.type("second line")
            laura.wait_for(lambda screen: "second line" in screen and "  second line" in screen)
            assert server.requests == []  # nothing sent yet
            laura.send_keys("Enter")
            body = server.wait_for_requests(1)[0].body
            assert last_user_text(body) == "first line\nsecond line"
        finally:
            laura.close()
