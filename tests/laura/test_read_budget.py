"""File panes share a read budget (`max_open_bytes`): one big file opened in
pane after pane, by any name, cannot make laura hold more than the budget's
worth of files. A pane past it shows the start of its file, says so in its
title and in the `open` reply, and a closed pane gives its share back."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from laura.panes.read_budget import MIN_SHARE, ReadBudget
from laura.panes.source import Loader
from laura.settings import Settings, load_settings
from tests.laura.other_names import SPELLINGS, reached_by
from tests.laura.tab_driver import ask, tab_at
from tests.laura.tmux import LauraSession

Make = Callable[..., LauraSession]

MiB = 1 << 20


def test_a_pane_reads_what_the_others_leave_and_gives_it_back_on_close() -> None:
    budget = ReadBudget(10 * MiB)
    first, second, third = object(), object(), object()
    assert budget.share(first, 8 * MiB, 6 * MiB) == 8 * MiB  # its file's cap: it holds 6
    assert budget.share(second, 8 * MiB, 9 * MiB) == 4 * MiB  # what is left
    assert budget.held == 10 * MiB
    assert budget.share(third, 8 * MiB, 9 * MiB) == MIN_SHARE  # nothing left: its start
    # A reload: its own share aside, what the others hold now (the third's
    # start took the budget past its total, so the first reads less).
    assert budget.share(first, 8 * MiB, 6 * MiB) == 10 * MiB - 4 * MiB - MIN_SHARE
    budget.release(second)
    budget.release(second)  # twice is harmless
    assert budget.held == 5 * MiB + MIN_SHARE
    assert budget.share(object(), 8 * MiB, 9 * MiB, keep=False) == 5 * MiB - MIN_SHARE
    assert budget.held == 5 * MiB + MIN_SHARE  # a dry run keeps nothing


@pytest.mark.parametrize(
    ("written", "expected"),
    [
        ({"max_open_bytes": 5_000_000}, Settings(max_open_bytes=5_000_000)),
        ({"max_open_bytes": 0, "max_file_bytes": 1000}, Settings(max_file_bytes=1000)),
        ({"max_open_bytes": True}, Settings()),
        ({"max_open_bytes": "1e9"}, Settings()),
        ({"max_open_bytes": 2**40, "max_file_bytes": -1}, Settings(max_open_bytes=2**40)),
    ],
)
def test_max_open_bytes_is_read_beside_max_file_bytes(
    tmp_path: Path, written: dict[str, object], expected: Settings
) -> None:
    """A bad value means that key's default, never the other key's loss."""
    (tmp_path / "laura").mkdir()
    (tmp_path / "laura" / "settings.json").write_text(json.dumps(written))
    assert load_settings({"XDG_CONFIG_HOME": str(tmp_path)}) == expected


def test_the_budget_is_never_less_than_one_files_cap() -> None:
    assert Settings(max_file_bytes=100 * MiB, max_open_bytes=10 * MiB).read_budget == 100 * MiB
    assert Settings().read_budget == 256 * MiB


def test_closing_a_pane_or_the_whole_tab_or_replacing_a_file_gives_its_share_back(
    tmp_path: Path,
) -> None:
    budget = ReadBudget(3 * MiB)
    tab = tab_at(tmp_path)
    tab.loader = Loader(cap=2 * MiB, budget=budget)
    path = tmp_path / "app.log"
    path.write_bytes((b"x" * 99 + b"\n") * 20_000)  # 1.9 MiB
    first = ask(tab, {"type": "open", "path": str(path), "focus": False})
    second = ask(tab, {"type": "open", "path": str(path), "focus": False})
    assert "showing its first" not in " ".join(first["warnings"])
    assert any("showing its first 1.1 MiB (the open panes share" in w for w in second["warnings"])
    assert budget.held == 3 * MiB
    # The second pane's file replaced by itself: the old share is given back first.
    replaced = ask(tab, {"type": "open", "path": str(path), "panel": second["pane"], "focus": False})
    assert replaced["type"] == "opened" and budget.held == 3 * MiB
    assert ask(tab, {"type": "close", "pane": first["pane"]})["type"] == "ok"
    assert budget.held == 3 * MiB - path.stat().st_size
    assert ask(tab, {"type": "open", "path": str(path), "dry_run": True})["type"] == "report"
    assert budget.held == 3 * MiB - path.stat().st_size  # a dry run holds nothing
    tab.close_all()  # the tab ends
    assert budget.held == 0


def session_with(laura_session: Make, tmp_path: Path, **settings: int) -> LauraSession:
    config = tmp_path / "config"
    (config / "laura").mkdir(parents=True)
    (config / "laura" / "settings.json").write_text(json.dumps(settings))
    return laura_session(command=["cat"], env={"XDG_CONFIG_HOME": str(config)})


@pytest.mark.tmux
def test_a_pane_past_the_budget_shows_its_files_start_and_says_so(
    laura_session: Make, tmp_path: Path
) -> None:
    log = tmp_path / "app.log"
    log.write_bytes(b"".join(b"line %07d\n" % n for n in range(1_200_000)))  # 14.9 MiB
    session = session_with(laura_session, tmp_path, max_file_bytes=16 * MiB, max_open_bytes=24 * MiB)
    first = session.cli("open", "--no-focus", str(log))
    assert first.returncode == 0 and "showing its first" not in first.stderr, first.stderr
    second = session.cli("open", "--no-focus", str(log))
    assert second.returncode == 0, second.stderr
    assert f"{log} is 14.9 MiB: showing its first 9.1 MiB (the open panes share max_open_bytes, 24 MiB" in second.stderr
    session.wait_for(lambda screen: screen.count("[first part]") == 1 and "loading" not in screen, timeout=60)
    # Its last line is the last whole line within its share.
    last = (24 * MiB - log.stat().st_size) // 13 - 1
    session.cli("focus", second.stdout.strip())
    session.send_keys("End")
    session.wait_for(f"line {last:07d}", timeout=60)
    assert f"line {last + 1:07d}" not in session.text()
    # The first pane closed, its share is free: the file opens whole again.
    assert session.cli("close", first.stdout.strip()).returncode == 0
    third = session.cli("open", "--no-focus", str(log))
    assert third.returncode == 0 and "showing its first" not in third.stderr, third.stderr


@pytest.mark.tmux
def test_one_big_file_opened_in_pane_after_pane_by_other_names_holds_the_budget_at_most(
    laura_session: Make, tmp_path: Path
) -> None:
    """Six panes of a 12 MiB log of short lines, reached as a symlink, a
    hard link and an option-looking name, each followed to its end (so its
    rows are counted), under a 24 MiB budget: laura holds about two of them.
    Measured: 93 MB above idle; unbudgeted, the six took 166."""
    target = tmp_path / "target.log"
    target.write_bytes(b"ab\n" * (12 * MiB // 3))
    names = {"symlink": "link.log", "hard link": "hard.log", "option-looking name": "--follow=1.log"}
    paths = [reached_by(target, spelling, names[spelling]) for spelling in SPELLINGS]
    session = session_with(laura_session, tmp_path, max_file_bytes=16 * MiB, max_open_bytes=24 * MiB)
    idle = session.resident_bytes()
    for path in paths * 2:
        opened = session.cli("open", "--no-focus", "--follow", "--", str(path))
        assert opened.returncode == 0, opened.stderr

    def every_file_counted(_screen: str) -> bool:
        panes = json.loads(session.cli("layout").stdout)["panes"]
        files = [pane for pane in panes if pane["id"] != 0]
        return len(files) == 6 and all(pane["content_rows"] is not None for pane in files)

    session.wait_for(every_file_counted, timeout=90)
    held = session.resident_bytes() - idle
    assert held < 125 * MiB, f"six panes of a 12 MiB log held {held / MiB:.0f} MB"
