"""The prompt history is the person's alone: the real `luxe` in tmux.

Under a permissive umask (022, 002, 000) the history of what the person
typed, `$XDG_STATE_HOME/luxe/history/<hash>.jsonl`, was 0644, 0664 or 0666
in 0755/0775/0777 folders: any local user read every prompt. Now 0600 in
0700 folders.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from tests.luxe.interface.conftest import StartUi


def mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


@pytest.mark.parametrize("umask", ["022", "002", "000"])
def test_the_prompt_history_is_the_users_alone_whatever_the_umask(
    ui: StartUi, env: dict[str, str], repo: Path, umask: str
) -> None:
    from luxe.frontends.tui.history import history_file

    session = ui([{"text": "noted"}], umask=umask)
    session.type("my private prompt")
    session.send_keys("Enter")
    session.wait_for("noted")
    session.send_keys("C-d")
    assert session.wait_exit() == 0
    state = Path(env["XDG_STATE_HOME"]) / "luxe"
    history = history_file(state, repo)
    assert history.read_text() == '"my private prompt"\n'
    assert {
        "state/luxe": mode(state),
        "state/luxe/history": mode(history.parent),
        "the history": mode(history),
        "luxe.log": mode(state / "luxe.log"),
    } == {"state/luxe": 0o700, "state/luxe/history": 0o700, "the history": 0o600, "luxe.log": 0o600}
