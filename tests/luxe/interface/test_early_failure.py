"""Luxe failing early, before the interface's output task starts: what a
person sees (one line saying why, never a traceback), the terminal as it
was (cooked, echo, cursor shown) and no process of ours left.

The real inputs that fail this early are read before the terminal is
taken: a session file that is not one (`--resume ID`), a stored message
that is not what luxe writes (`-c`), and a prompt-history file that is not
UTF-8. Nothing a person or a repository controls raises between taking the
terminal (the handshake) and the output task's start."""

from __future__ import annotations

import json
from pathlib import Path

from tests.laura.tmux import wait_until
from tests.luxe.interface.conftest import StartUi
from tests.luxe.interface.tmux import LuxeTmux
from tests.luxe.rpc_driver import SCOPE_VAR, processes_with_env_marker

COOKED = {"icanon", "echo", "isig", "icrnl", "ixon"}


def _sessions(env: dict[str, str]) -> Path:
    path = Path(env["XDG_DATA_HOME"]) / "luxe" / "sessions"
    path.mkdir(parents=True, exist_ok=True)
    return path


def _restored(session: LuxeTmux, env: dict[str, str]) -> None:
    modes = set(session.after_exit().split())
    assert modes >= COOKED, modes
    assert session.cursor_shown()
    wait_until(lambda: session.leftovers(processes_with_env_marker(env[SCOPE_VAR])) == set(), 10)
    assert "Traceback" not in session.text()


def test_a_session_file_that_is_not_one_is_refused_and_the_terminal_is_as_it_was(
    ui: StartUi, env: dict[str, str]
) -> None:
    (_sessions(env) / "20261201-000000-0bad0bad.jsonl").write_bytes(b"\x00\xffnot json\n")
    session = ui([], "--resume", "20261201-000000-0bad0bad", wait=None)
    assert session.wait_exit() == 2
    session.wait_for("luxe: --resume: 20261201-000000-0bad0bad is not a session file")
    _restored(session, env)


def test_a_stored_message_of_the_wrong_shape_is_skipped_on_resume(
    ui: StartUi, env: dict[str, str], repo: Path
) -> None:
    header = {"type": "session", "id": "20261201-000000-0bad0bad", "cwd": str(repo),
              "created_at": "2026-12-01T00:00:00+00:00"}
    odd = {"type": "message", "message": {"role": "user", "content": [{"type": "text", "text": 5}]}}
    good = {"type": "message", "message": {"role": "user", "content": [{"type": "text", "text": "kept"}]}}
    lines = [json.dumps(header), json.dumps(odd), json.dumps(good)]
    (_sessions(env) / "20261201-000000-0bad0bad.jsonl").write_text("\n".join(lines) + "\n")
    session = ui([], "-c")
    session.wait_for("─── resumed here")
    assert "› kept" in session.text()
    session.send_keys("C-d")
    assert session.wait_exit() == 0
    _restored(session, env)


def test_a_history_file_that_is_not_utf8_is_an_empty_history(
    ui: StartUi, env: dict[str, str], repo: Path
) -> None:
    from luxe.frontends.tui.history import history_file

    path = history_file(Path(env["XDG_STATE_HOME"]) / "luxe", repo)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b'"earlier"\n\xff\xfe\x00garbage\n"last one"\n')
    session = ui([])
    assert not session.cursor_shown()  # the interface draws its own cursor
    session.send_keys("Up")
    session.wait_editor("› last one")  # what could be read still is
    session.send_keys("C-u", "C-d")
    assert session.wait_exit() == 0
    _restored(session, env)
