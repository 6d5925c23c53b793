"""Keys and socket requests land on one table of named commands: a key that
does what a request does takes its path, refusals and journal included."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from laura import bindings
from laura.commands import COMMANDS
from laura.protocol import REQUEST_TYPES
from tests.laura.git_helpers import committed
from tests.laura.tmux import LauraSession, wait_until

Make = Callable[..., LauraSession]


def test_every_request_and_every_key_binding_names_a_command() -> None:
    assert set(REQUEST_TYPES) <= set(COMMANDS)
    tables = (bindings.HOST_KEYS, bindings.FILE_PANE_KEYS, bindings.TAB_MENU_KEYS)
    named = {name for table in tables for name, _ in table.values()}
    assert named <= set(COMMANDS)


def journal_events(path: Path, expect: int) -> list[dict[str, object]]:
    """The journal once it holds `expect` events (each is flushed as it happens)."""

    def events() -> list[dict[str, object]] | None:
        lines = path.read_text().splitlines() if path.exists() else []
        return [json.loads(line) for line in lines] if len(lines) >= expect else None

    found: list[dict[str, object]] = wait_until(events)
    return found


def without_time(event: dict[str, object]) -> dict[str, object]:
    return {key: value for key, value in event.items() if key != "ts"}


@pytest.mark.tmux
def test_the_d_key_is_the_diffview_request_refused_and_journaled_alike(laura_session: Make) -> None:
    session = laura_session(width=240)
    path = committed(session.root, "a.txt", "alpha\nbeta\n")
    ready = session.cli("ready", "--session", "keys")
    journal = Path(json.loads(ready.stdout)["journal"])
    assert session.cli("open", str(path)).returncode == 0  # focused
    session.wait_for("beta")

    # Refused: the request's error is the key's toast; neither is journaled.
    refused = session.cli("diff")
    assert refused.stderr.strip() == "Error: no changes vs HEAD — nothing to diff"
    session.send_keys("d")
    session.wait_for("no changes vs HEAD — nothing to diff")

    path.write_text("alpha\nbeta two\n")
    session.wait_for("+1 -1")
    session.send_keys("d")  # the key turns the view on ...
    session.wait_for("+beta two")
    assert session.cli("diff").returncode == 0  # ... the request toggles it off
    session.wait_for(lambda screen: "+beta two" not in screen)
    session.send_keys("h")  # clears the highlight: the `highlight` request's path
    session.send_keys("Escape")  # back to the shell: the `focus` request's path

    events = journal_events(journal, 6)
    assert [event["type"] for event in events] == ["ready", "open", "diff", "diff", "highlight", "focus"]
    by_key, by_request = without_time(events[2]), without_time(events[3])
    assert by_key == {**by_request, "on": True} and by_request["on"] is False
    assert {key: events[4][key] for key in ("pane", "cleared")} == {"pane": 1, "cleared": True}
    assert events[5]["pane"] == 0
