"""`@path` in a prompt names a file to attach: a symbolic link loop the
repository planted where a person may mention it made resolving the name
raise, and the interface ended with an internal error, the prompt lost.
Now such a name is simply not attached. Through the real `luxe --plain` on
a pty and the loopback model server."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.luxe.interface.plain_pty import plain_on_fake_model


def _itself(repo: Path) -> str:
    (repo / "notes.md").symlink_to("notes.md")
    return "notes.md"


def _two_links(repo: Path) -> str:
    (repo / "a.md").symlink_to("b.md")
    (repo / "b.md").symlink_to("a.md")
    return "a.md"


def _directory_loop(repo: Path) -> str:
    (repo / "docs").symlink_to("docs")
    return "docs/guide.md"


@pytest.mark.parametrize("plant", [_itself, _two_links, _directory_loop], ids=lambda f: f.__name__[1:])
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
    assert os.path.islink(repo / name.split("/")[0])
