"""`@path` in a prompt names a file to attach: a symbolic link loop the
repository planted where a person may mention it made resolving the name
raise, and the interface ended with an internal error, the prompt lost.
So did a chain of 1,200 links (os.path.realpath raised RecursionError).
Now such a name is simply not attached. Through the real `luxe --plain` on
a pty and the loopback model server, and the full interface in tmux."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers.link_chains import (
    long_chain,
    long_chain_to_a_folder,
    two_links,
)
from tests.luxe.interface.conftest import StartUi
from tests.luxe.interface.plain_pty import plain_on_fake_model
from tests.luxe.interface.session_files import luxe_sessions, user_texts


def _itself(repo: Path) -> str:
    (repo / "notes.md").symlink_to("notes.md")
    return "notes.md"


def _directory_loop(repo: Path) -> str:
    (repo / "docs").symlink_to("docs")
    return "docs/guide.md"


@pytest.mark.parametrize(
    "plant",
    [_itself, two_links, _directory_loop, long_chain, long_chain_to_a_folder],
    ids=lambda f: f.__name__.lstrip("_"),
)
def test_a_mention_of_a_link_loop_is_not_attached_and_the_prompt_goes(
    plant: Callable[[Path], str], repo: Path, env: dict[str, str]
) -> None:
    name = plant(repo)
    (repo / "real.md").write_text("REAL TEXT\n")
    prompt = f"look at @{name} and @real.md"
    with plain_on_fake_model([{"text": "ok"}], prompt, cwd=repo, env=env) as (luxe, server):
        luxe.wait_line("luxe: done.")
        luxe.finish()
        content = server.bodies[0]["messages"][0]["content"]
    texts = [block["text"] for block in content]
    assert texts[0] == f"look at @{name} and @real.md"
    assert [t.split(">", 1)[0] for t in texts[1:]] == ["<attachment path='real.md'"], texts
    parts = name.split("/")
    assert any(os.path.islink(repo.joinpath(*parts[:n])) for n in (1, 2))  # still planted


def test_mentions_of_link_chains_and_loops_in_the_full_interface(
    ui: StartUi, repo: Path, env: dict[str, str]
) -> None:
    names = [long_chain(repo), long_chain_to_a_folder(repo), two_links(repo)]
    (repo / "real.md").write_text("REAL TEXT\n")
    session = ui([{"text": "first answer"}, {"text": "second answer"}])
    session.type(" ".join(f"@{name}" for name in names) + " and @real.md")
    session.send_keys("Enter")
    session.wait_for("first answer")
    session.type("still here?")
    session.send_keys("Enter")
    session.wait_for("second answer")
    texts = user_texts(luxe_sessions(env))
    assert [t.split(">", 1)[0] for t in texts if t.startswith("<attachment")] == ["<attachment path='real.md'"]
