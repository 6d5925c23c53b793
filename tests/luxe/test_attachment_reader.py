"""The attachment reader judges the file it opened, not the path it was
given: the descriptor's identity (st_dev, st_ino) against the known secret
files' (SecretFiles, which knows them for hard links already), and the
kernel's name for it. A name that is no secret's, checked before the open,
can come to name a secret by the open; what is refused is what was opened.
(End to end, with a real swap: tests/luxe/test_rpc_attachments.py.)"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from luxe.engine.attachments import attachment_text
from luxe.policy.secrets import SecretFiles

ENV = "# ENV FILE MARKER\nAPI_KEY=sk-live-Zr81Qw7Tn3\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    (root / ".env").write_text(ENV)
    (root / "plain.md").write_text("PLAIN\n")
    os.link(root / ".env", root / "notes.txt")  # a hard link under a plain name
    (root / "link.md").symlink_to(".env")
    sibling = tmp_path / "sibling"
    sibling.mkdir()
    (sibling / ".env").write_text(ENV)  # a secret no walk of the project finds
    (root / "away.md").symlink_to(sibling / ".env")
    return root


def test_the_descriptor_opened_is_what_is_judged(project: Path) -> None:
    files = SecretFiles(str(project))
    files.settle()
    seen: list[tuple[int, int]] = []

    def judge(fd: int) -> bool:
        st = os.fstat(fd)
        seen.append((st.st_dev, st.st_ino))
        return files.is_secret_opened(fd)

    env = os.stat(project / ".env")
    for name in ("notes.txt", "link.md", "away.md"):
        seen.clear()
        block = attachment_text(project, name, judge)
        assert block.startswith(f"<attachment path={name!r}>refused: `{name}` is a secret file"), block
        assert "MARKER" not in block
        assert len(seen) == 1  # judged once, on the descriptor, before any read
    assert seen == [(os.stat(project / "away.md").st_dev, os.stat(project / "away.md").st_ino)]
    seen.clear()
    assert attachment_text(project, "plain.md", judge) == "<attachment path='plain.md'>\nPLAIN\n\n</attachment>"
    assert seen == [(os.stat(project / "plain.md").st_dev, os.stat(project / "plain.md").st_ino)]
    # The hard link is known only by its identity: its name is no secret's.
    assert (env.st_dev, env.st_ino) in files.keys
    assert not files.is_secret(str(project / "plain.md"))


def test_a_hard_link_is_refused_by_identity_and_a_link_out_by_its_real_name(project: Path) -> None:
    """With no identity known, a hard link reads (nothing on the descriptor
    says .env); the link to a sibling's .env is still refused, by the name
    the kernel gives the file opened."""
    files = SecretFiles(str(project))  # not settled: the project's walk not done
    assert "MARKER" in attachment_text(project, "notes.txt", files.is_secret_opened)
    assert "refused:" in attachment_text(project, "away.md", files.is_secret_opened)
    files.settle()
    assert "refused:" in attachment_text(project, "notes.txt", files.is_secret_opened)
