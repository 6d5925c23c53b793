"""A clone of a repository that plants bare repositories in its folders.

A bare repository is only files (HEAD, config, objects/, refs/), so any
repository can carry one in a folder, and a clone brings it along. Git run in
or below that folder takes it for the repository and obeys its config: a
`core.fsmonitor` command runs at the first `git status` or `git diff`. Each
plant here spells the payload differently and writes its own marker file
into `markers` (outside the clone) when it runs; `live_payloads` proves
that plain git runs every one, so a test that finds no marker shows a guard
at work, not a broken plant.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from tests.helpers.gitrepo import git

# Where each plant sits, and a git command run in or below it that makes
# plain git run the plant's payload.
PLANTS = ("evil", "docs/deep/x.git", "tools/vendor")
TRIGGERS = {
    "evil": ("evil", ("status",)),
    "docs/deep/x.git": ("docs/deep/x.git/sub", ("status", "--short")),
    "tools/vendor": ("tools/vendor", ("diff", "HEAD", "--", "notes.txt")),
}
_CORE = "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = .\n"


def _plant(folder: Path, name: str, markers: Path) -> None:
    """A repository with one commit, its git directory's files moved up into
    `folder` (it becomes its own work tree), its config replaced by one that
    runs a payload writing `markers/<name>`."""
    marker = markers / name.replace("/", "_")
    folder.mkdir(parents=True)
    (folder / "notes.txt").write_text("notes of a vendored tool\n")
    if name == "docs/deep/x.git":
        (folder / "sub").mkdir()
        (folder / "sub" / "page.md").write_text("# a page\n")
    git(folder, "init", "-q", "-b", "main")
    git(folder, "add", "-A")
    git(folder, "commit", "-q", "-m", "the tool")
    gitdir = folder / ".git"
    shutil.rmtree(gitdir / "hooks")
    for part in gitdir.iterdir():
        part.rename(folder / part.name)
    gitdir.rmdir()
    for part in ("objects", "refs"):  # a clone brings no empty folder
        (folder / part / ".keep").write_text("")
    if name == "evil":  # the command right in the config
        (folder / "config").write_text(f'{_CORE}\tfsmonitor = "touch {marker}; false"\n')
    elif name == "docs/deep/x.git":  # the config includes a file that holds it
        (folder / "config").write_text(f"{_CORE}[include]\n\tpath = settings\n")
        (folder / "settings").write_text(f'[core]\n\tfsmonitor = "touch {marker}; false"\n')
    else:  # a script shipped beside it, named by a relative path
        hook = folder / "watch.sh"
        hook.write_text(f"#!/bin/sh\ntouch '{marker}'\nexit 1\n")
        hook.chmod(0o755)
        (folder / "config").write_text(f"{_CORE}\tfsmonitor = ./watch.sh\n")


def planted_clone(base: Path, markers: Path) -> Path:
    """`base/clone`: a fresh clone of a repository with the PLANTS, plus a
    symlink `linked` -> `evil`. Their payloads write into `markers`."""
    markers.mkdir(parents=True, exist_ok=True)
    source = base / "planted-source"
    source.mkdir(parents=True)
    git(source, "init", "-q", "-b", "main")
    (source / "README.md").write_text("a project\n")
    for name in PLANTS:
        _plant(source / name, name, markers)
    (source / "linked").symlink_to("evil")
    git(source, "add", "-A")
    git(source, "commit", "-q", "-m", "vendor some tools")
    clone = base / "clone"
    git(base, "clone", "-q", str(source), str(clone))
    return clone


def live_payloads(base: Path) -> list[str]:
    """The markers written when plain git (no guard) runs each TRIGGER in a
    clone of its own: every plant's name when the plants work."""
    markers = base / "control-markers"
    clone = planted_clone(base / "control", markers)
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_CONFIG")}
    for where, args in TRIGGERS.values():
        subprocess.run(["git", *args], cwd=clone / where, env=env, capture_output=True, check=False)
    return sorted(p.name for p in markers.iterdir())
