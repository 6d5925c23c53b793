"""The diff view of a file with a big diff turns on without holding keys:
the real `laura` draws it as promptly as any key's echo (before, setting
out where each of 200,000-400,000 hunks goes held keys 0.3-0.6 s first)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.laura.echo_probe import EchoProbe, assert_keys_echoed
from tests.laura.git_helpers import committed
from tests.laura.tmux import LauraSession

Make = Callable[..., LauraSession]


@pytest.mark.timing
@pytest.mark.tmux
@pytest.mark.parametrize("deleting", [False, True], ids=["changes", "changes and deletions"])
def test_the_diff_view_of_a_big_diff_turns_on_promptly(laura_session: Make, deleting: bool) -> None:
    # Every 4th line changed (200,000 hunks), and with deletions also the
    # line after the next (400,000 hunks).
    session = laura_session(command=["cat"])
    lines = [f"value_{n} = {n}\n" for n in range(800_000)]
    path = committed(session.root, "table.txt", "".join(lines))
    edited = [
        line.replace("value", "VALUE") if n % 4 == 0 else line
        for n, line in enumerate(lines)
        if not (deleting and n % 4 == 2)
    ]
    path.write_text("".join(edited))
    probe = EchoProbe(session)
    try:
        idle = [probe.key("Z") for _ in range(20)]
        opened = session.cli("open", str(path), "--no-focus")
        assert opened.returncode == 0, opened.stderr
        session.wait_for("+200000 -400000" if deleting else "+200000 -200000")
        assert session.cli("focus", opened.stdout.strip()).returncode == 0
        session.wait_for(lambda text: "d diff" in session.footer())
        shown = probe.press("d", shows="[diff]")
    finally:
        probe.close()
    session.wait_for("-value_2 = 2" if deleting else "+VALUE_0 = 0")
    assert_keys_echoed(idle, [shown], "when the diff view of a big diff was turned on")
