"""A repository that ships a Python environment: basedpyright (and pyright)
run the `.venv/bin/python` they find at the project's root to learn its
import paths, and that Python runs the `.pth` files of its site-packages,
so a committed `.venv` ran the repository's program as soon as the agent
edited a Python file. In an untrusted project the server now gets an
installed Python (`python.pythonPath`), unless the `.venv` is the person's
own (untracked in the git work tree: made here, not cloned). Real
basedpyright, through the session's diagnostics service."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.luxe.lsp.edit_diagnostics import edit_session, only
from tests.luxe.rpc_driver import make_env

pytestmark = pytest.mark.skipif(
    shutil.which("basedpyright-langserver", path=str(Path(sys.executable).parent)) is None
    and shutil.which("basedpyright-langserver") is None,
    reason="the test extras install basedpyright",
)
# A Python of this machine, and the repository's "Python": running it
# leaves a mark, then does the work.
REAL = os.path.realpath(sys.executable)
EVIL = '#!/bin/sh\necho "$0 $*" >> "{ran}"\nexec {real} "$@"\n'


def script_venv(root: Path, ran: Path, where: str = ".venv") -> None:
    bin_dir = root / where / "bin"
    bin_dir.mkdir(parents=True)
    for program in ("python", "python3"):
        (bin_dir / program).write_text(EVIL.format(ran=ran, real=REAL))
        (bin_dir / program).chmod(0o755)
    (root / where / "pyvenv.cfg").write_text(f"home = {os.path.dirname(REAL)}\n")


def pth_venv(root: Path, ran: Path) -> None:
    """A genuine interpreter (a symlink git keeps) and a `.pth` file that
    any Python started from this environment runs."""
    version = f"{sys.version_info[0]}.{sys.version_info[1]}"
    (root / ".venv" / "bin").mkdir(parents=True)
    (root / ".venv" / "bin" / "python").symlink_to(REAL)
    (root / ".venv" / "bin" / "python3").symlink_to("python")
    (root / ".venv" / "pyvenv.cfg").write_text(f"home = {os.path.dirname(REAL)}\nversion = {version}\n")
    site = root / ".venv" / "lib" / f"python{version}" / "site-packages"
    site.mkdir(parents=True)
    (site / "evil.pth").write_text(f"import os; open({str(ran)!r}, 'a').write('pth ran\\n')\n")


def linked_venv(root: Path, ran: Path) -> None:
    script_venv(root, ran, where="tools/env")
    (root / ".venv").symlink_to("tools/env")


SHIPPED = {"a script as its python": script_venv, "a .pth file": pth_venv,
           "a symlink to a folder of the repository": linked_venv}  # fmt: skip


def project(root: Path, plant, ran: Path, *, git: bool, track: bool) -> Path:  # type: ignore[no-untyped-def]
    root.mkdir()
    (root / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    if git:
        subprocess.run(["git", "init", "-q", str(root)], check=True)
        subprocess.run(["git", "-C", str(root), "add", "-A"], check=True)
    plant(root, ran)
    if track:
        subprocess.run(["git", "-C", str(root), "add", "-A"], check=True)
    source = root / "app.py"
    source.write_text("count: int = 'one'\n")
    return source


async def diagnose(tmp_path: Path, source: Path) -> str | None:
    async with edit_session(source.parent, only("basedpyright"), make_env(tmp_path)) as (diag, _):
        return await diag.after_edit(str(source))


@pytest.mark.parametrize("spelling", list(SHIPPED))
async def test_a_venv_the_repository_ships_never_runs(tmp_path: Path, spelling: str) -> None:
    ran = tmp_path / "ran"
    source = project(tmp_path / "repo", SHIPPED[spelling], ran, git=True, track=True)
    found = await diagnose(tmp_path, source)
    assert found is not None and "reportAssignmentType" in found, found
    assert not ran.exists(), ran.read_text()


async def test_a_venv_outside_any_git_work_tree_never_runs(tmp_path: Path) -> None:
    """An unpacked archive: nothing says the `.venv` is the person's."""
    ran = tmp_path / "ran"
    source = project(tmp_path / "repo", script_venv, ran, git=False, track=False)
    found = await diagnose(tmp_path, source)
    assert found is not None and "reportAssignmentType" in found, found
    assert not ran.exists(), ran.read_text()


async def test_the_persons_own_venv_is_used(tmp_path: Path) -> None:
    """Made here (`uv sync`, `python -m venv .venv`), untracked: the server
    runs it as it always did, so the project's imports resolve."""
    ran = tmp_path / "ran"
    source = project(tmp_path / "repo", script_venv, ran, git=True, track=False)
    found = await diagnose(tmp_path, source)
    assert found is not None and "reportAssignmentType" in found, found
    assert ran.exists()
