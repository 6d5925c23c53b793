"""Luxe failing early, before the interface's output task starts: what a
person sees (one line saying why, never a traceback), the terminal as it
was (cooked, echo, cursor shown) and no process of ours left.

The prompt is drawn before the session is read (luxe.frontends.tui.entry),
so the real inputs that fail this early are read after the terminal is
taken: a settings file that is not JSON, a session file that is not one
(`--resume ID`), a stored message that is not what luxe writes (`-c`), and
a prompt-history file that is not UTF-8. A refusal gives the terminal back,
prompt erased, before it says why; a stop signal before the session is
known ends luxe there and then, the same way."""

from __future__ import annotations

import json
import os
import signal
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


def _no_prompt_left(session: LuxeTmux) -> None:
    assert "›" not in session.text(), session.text()


def test_a_refusal_after_the_prompt_showed_erases_it_then_says_why(
    ui: StartUi, env: dict[str, str], tmp_path: Path
) -> None:
    settings = Path(env["XDG_CONFIG_HOME"]) / "luxe" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text("{not json")
    written = tmp_path / "written"
    session = ui([], env_extra={"LUXE_TUI_WRITE_LOG": str(written)}, wait=None)
    assert session.wait_exit() == 2
    session.wait_for("luxe: ")
    assert "settings.json: not valid JSON" in session.text().replace("\n", "")
    # The prompt was drawn (before the settings were read), then erased.
    drawn = written.read_bytes().decode("utf-8", "replace")
    assert "›" in drawn
    _no_prompt_left(session)
    _restored(session, env)


def test_a_stop_signal_while_the_session_loads_ends_luxe_at_once(
    ui: StartUi, env: dict[str, str], repo: Path
) -> None:
    # A session this long takes seconds to read, after the prompt is drawn.
    sid = "20261201-000000-0b190b19"
    header = {"type": "session", "id": sid, "cwd": str(repo), "created_at": "2026-12-01T00:00:00+00:00"}
    message = json.dumps({"type": "message", "message": {"role": "user", "content": [{"type": "text", "text": "x" * 20}]}})
    (_sessions(env) / f"{sid}.jsonl").write_text(json.dumps(header) + "\n" + (message + "\n") * 100_000)
    for signum in (signal.SIGTERM, signal.SIGHUP):
        session = ui([], "--resume", sid, wait="›")
        os.kill(session.luxe_pid, signum)
        assert session.wait_exit() == 128 + signum  # not after reading the session (exit 0)
        _no_prompt_left(session)
        _restored(session, env)
        session.close()  # its tmux carries the test's marker too
