"""A review's cards over a long file are placed among rows made as they are
read: a comment on a file of hundreds of thousands of lines shows its card
without laying every row out, and the real `laura` keeps echoing keys while
an agent comments on such a file (before, every row of the file was made on
the UI loop, and then walked again, for the first card)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.laura.echo_probe import EchoProbe, assert_keys_echoed, keys_while_cli
from tests.laura.git_helpers import committed
from tests.laura.other_names import SPELLINGS, reached_by
from tests.laura.tmux import LauraSession

Make = Callable[..., LauraSession]

FILES = {
    # name: (one line's text, lines, the line commented on)
    "generated.py": ("total = total + 1\n", 400_000, 399_990),
    "server.log": ("GET /index.html 200 " + "x" * 160 + "\n", 200_000, 3),
    "notes.md": ("A paragraph of prose, long enough to wrap at least once " * 3 + "\n\n", 60_000, 5),
    "blank.txt": ("\n", 2_000_000, 1_999_990),
}


def agent_comment_while_typing(session: LauraSession, pane: str, line: int, during: str) -> None:
    """An agent comments on `line` of `pane` while keys are typed into the
    shell; every key echoes in time, and the card shows."""
    idle, busy = keys_while_cli(session, "comment", str(line), "FAR_CARD", "--pane", pane)
    session.wait_for("bot · FAR_CARD")
    assert_keys_echoed(idle, busy, during)


@pytest.mark.tmux
@pytest.mark.parametrize("name", list(FILES))
def test_keys_keep_echoing_while_an_agent_comments_on_a_long_file(
    laura_session: Make, tmp_path: Path, name: str
) -> None:
    line, count, commented = FILES[name]
    path = tmp_path / name
    path.write_text(line * count)
    session = laura_session(command=["cat"])
    assert session.cli("ready", "--agent", "bot").returncode == 0
    opened = session.cli("open", str(path), "--no-focus", "--highlight", str(commented))
    assert opened.returncode == 0, opened.stderr
    session.wait_for(f"{commented} ")
    agent_comment_while_typing(session, opened.stdout.strip(), commented, f"while an agent commented on {name}")


@pytest.mark.tmux
def test_keys_keep_echoing_while_an_agent_comments_in_the_diff_view_of_a_long_file(
    laura_session: Make, tmp_path: Path
) -> None:
    session = laura_session(command=["cat"])
    # Plain text: no colouring runs meanwhile, so the keys time the card alone.
    path = committed(session.root, "table.txt", "".join(f"value_{n} = {n}\n" for n in range(200_000)))
    path.write_text("".join(f"value_{n} = {n * (2 if n % 100 == 0 else 1)}\n" for n in range(200_000)))
    assert session.cli("ready", "--agent", "bot").returncode == 0
    opened = session.cli("open", str(path), "--no-focus", "--diff", "--highlight", "3")
    assert opened.returncode == 0, opened.stderr
    session.wait_for(lambda text: "[diff]" in text and "value_2 = 2" in text)
    agent_comment_while_typing(session, opened.stdout.strip(), 3, "while an agent commented in a diff view")


@pytest.mark.timing
@pytest.mark.tmux
def test_the_persons_comment_on_a_long_file_shows_at_once(laura_session: Make, tmp_path: Path) -> None:
    path = tmp_path / "generated.py"
    path.write_text("total = total + 1\n" * 400_000)
    session = laura_session(command=["cat"])
    assert session.cli("ready", "--agent", "bot").returncode == 0
    probe = EchoProbe(session)
    try:
        idle = [probe.key("Z") for _ in range(20)]
        assert session.cli("open", str(path), "--highlight", "399990").returncode == 0
        session.wait_for("399990 ")
        session.send_keys("c")
        session.wait_for(lambda text: "comment L399990" in session.footer())
        session.type("MY_NOTE")
        session.wait_for("MY_NOTE")
        shown = probe.press("Enter", shows="MY_NOTE")
    finally:
        probe.close()
    session.wait_for("You · MY_NOTE")
    assert_keys_echoed(idle, [shown], "for the person's comment on a long file")


@pytest.mark.tmux
@pytest.mark.parametrize("spelling", SPELLINGS)
def test_the_long_file_reached_by_another_name_keeps_keys_echoing(
    laura_session: Make, tmp_path: Path, spelling: str
) -> None:
    target = tmp_path / "generated.py"
    target.write_text("total = total + 1\n" * 400_000)
    names = {"symlink": "vendor.min.py", "hard link": "copy.py", "option-looking name": "--highlight=1.py"}
    name = reached_by(target, spelling, names[spelling])
    session = laura_session(command=["cat"])
    assert session.cli("ready", "--agent", "bot").returncode == 0
    opened = session.cli("open", "--no-focus", "--highlight", "399990", "--", str(name))
    assert opened.returncode == 0, opened.stderr
    session.wait_for("399990 ")
    agent_comment_while_typing(session, opened.stdout.strip(), 399_990, f"while an agent commented via a {spelling}")


@pytest.mark.timing
@pytest.mark.tmux
@pytest.mark.parametrize(
    "name, line, count",
    [("blank.txt", "\n", 2_000_000), ("generated.py", "total = total + 1\n", 1_500_000)],
)
def test_submitting_the_review_of_a_long_file_is_prompt(
    laura_session: Make, tmp_path: Path, name: str, line: str, count: int
) -> None:
    path = tmp_path / name
    path.write_text(line * count)
    commented = count - 10
    session = laura_session(command=["cat"])
    assert session.cli("ready", "--agent", "bot").returncode == 0
    probe = EchoProbe(session)
    try:
        idle = [probe.key("Z") for _ in range(20)]
        assert session.cli("open", str(path), "--highlight", str(commented)).returncode == 0
        session.wait_for(f"{commented} ")
        session.send_keys("c")
        session.wait_for(lambda text: f"comment L{commented}" in session.footer())
        session.type("MY_NOTE")
        session.send_keys("Enter")
        session.wait_for("You · MY_NOTE")
        session.send_keys("S")
        session.wait_for(lambda text: "review body" in session.footer())
        submitted = probe.press("Enter", shows="laura review")
        after = [probe.key("Z") for _ in range(10)]
    finally:
        probe.close()
    session.wait_for(f"L{commented}")
    assert_keys_echoed(idle, [submitted, *after], f"when the review of {name} was submitted")
