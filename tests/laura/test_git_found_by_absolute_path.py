"""Laura started in a clone that ships its own `git`, by a person whose PATH
has a relative entry (`.`, `bin`, or the empty entry a stray colon makes):
the `git diff` Laura runs for a file pane is the person's git, never the
clone's. Before, opening any file ran the clone's `git`. The real `laura`
in tmux, started in the clone."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.laura.git_helpers import committed
from tests.laura.tmux import BIN, LauraSession

SPELLINGS = {
    "an empty entry (a leading colon)": ("", ":{path}"),
    "a dot": ("", ".:{path}"),
    "a relative directory": ("bin", "bin:{path}"),
}


@pytest.mark.tmux
@pytest.mark.parametrize("spelling", list(SPELLINGS))
def test_a_file_panes_git_is_never_the_clones(tmp_path: Path, spelling: str) -> None:
    path = committed(tmp_path, "notes.txt", "one\ntwo\n")
    path.write_text("one\nTWO\n")
    clone = path.parent
    folder, path_value = SPELLINGS[spelling]
    ran = tmp_path / "ran"
    planted = clone / folder / "git"
    planted.parent.mkdir(exist_ok=True)
    planted.write_text(f'#!/bin/sh\necho "git $*" >> {ran}\nexec /usr/bin/git "$@"\n')
    planted.chmod(0o755)
    env = {"PATH": path_value.format(path=f"{BIN}:/usr/local/bin:/usr/bin:/bin")}
    session = LauraSession(tmp_path, command=["cat"], env=env, cwd=clone)
    try:
        session.start()
        opened = session.cli("open", str(path))
        assert opened.returncode == 0, opened.stderr
        session.wait_for("+1 -1")  # the person's git answered: the marks show
    finally:
        session.close()
    assert not ran.exists(), ran.read_text()


@pytest.mark.parametrize("spelling", list(SPELLINGS))
def test_laura_agent_never_hosts_the_clones_luxe(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, spelling: str
) -> None:
    """`laura --agent` run in a clone that ships a `luxe`: the one found is
    the person's (or none), never the clone's."""
    from laura.cli import find_luxe

    folder, path_value = SPELLINGS[spelling]
    clone = tmp_path / "clone"
    planted = clone / folder / "luxe"
    planted.parent.mkdir(parents=True, exist_ok=True)
    planted.write_text("#!/bin/sh\necho planted\n")
    planted.chmod(0o755)
    monkeypatch.chdir(clone)
    monkeypatch.setenv("PATH", path_value.format(path="/usr/local/bin:/usr/bin:/bin"))
    found = find_luxe()
    assert found is None or (os.path.isabs(found) and not found.startswith(str(clone))), found


@pytest.mark.tmux
@pytest.mark.parametrize("spelling", list(SPELLINGS))
def test_no_module_of_the_clone_runs_in_laura(tmp_path: Path, spelling: str) -> None:
    """A clone that ships `trio.py` and `attrs.py`, and a PYTHONPATH with a
    relative entry: Laura started there imports its own, and opens a file."""
    from tests.laura.tmux import CHECKOUT

    path = committed(tmp_path, "notes.txt", "one\ntwo\n")
    clone = path.parent
    folder, value = SPELLINGS[spelling]
    ran = tmp_path / "ran"
    (clone / folder).mkdir(exist_ok=True)
    for name in ("trio", "attrs", "blessed"):
        (clone / folder / f"{name}.py").write_text(f"open({str(ran)!r}, 'a').write('{name}\\n')\n")
    session = LauraSession(
        tmp_path, command=["cat"], env={"PYTHONPATH": value.format(path=CHECKOUT)}, cwd=clone
    )
    try:
        session.start()
        assert session.cli("open", str(path)).returncode == 0
        session.wait_for("two")
    finally:
        session.close()
    assert not ran.exists(), ran.read_text()
