"""Read-only runs only readers: git forms that passed for readers but wrote
or ran a program. Through the real `luxe --rpc`, read-only, every call
approved:

- `git stash -m list` (and `-m show`, `-- show`) is a `stash push`: git
  takes the first word for the subcommand and `push` when it is an option,
  so the person's changes were stashed away and the files reverted;
- `git remote show NAME` asks the remote: a `helper::address` runs the
  `git-remote-helper` program (`-n` asks nothing, and stays a reader);
- verifying a signature (`--show-signature`, `%G?`/`%GS`/`%GK` in a format)
  runs gpg, which creates `~/.gnupg` and a keyring in the person's home;
- `git cat-file --filters` runs the filter a repository's .gitattributes
  names for the path, from the person's own config (git-lfs's smudge, which
  downloads into .git/lfs).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from .e2e import call, tool_results
from .hostile import hostile_luxe, run_turn

# A commit signed with a throwaway key (its public key is nowhere: gpg still
# runs, and says it cannot check the signature).
SIGNED_COMMIT = """\
tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904
author Signer <signer@example.invalid> 1767225600 +0000
committer Signer <signer@example.invalid> 1767225600 +0000
gpgsig -----BEGIN PGP SIGNATURE-----
{blank}
 iQG4BAABCgAiFiEEclmnUfRjaeaj/eeUhKlw5GibIf0FAmsXQ4wEHHhAeQAKCRCE
 qXDkaJsh/cBzC/4riOEzpmK2EYa+lfIQ0UyDgMzvwyRNaCVNSaOHTDwBLPPr8b7S
 9Y9mmjO0rS5goRYNwZL+Ai9vr/2R76s/XWOA9X4/6cp+aQMeilpgVXHUaSmOsPuJ
 KHG2Gz+JZ1jNlGWcqbztP8N//dTzg4A0MMOz7VRTE0zHlysEFMCBVreRZW1UJtmI
 dQWo5ifHdvDeZu9LMSZvJ5qBgbekj3kKTNECAFqt16LO1NZlzErcyNh90B8oVyml
 AxQlZ10wPP12RkODPooz9c0UvW6ZF2KPIjVis2L++ZNlmr9ZwjleAYwf7nOdem9N
 87ezVj/BW1wRU8OGgNGaicBfS6+TLp8tBpo6pY4koVYwuf2wtD2ixbi6Y95rdxAl
 t5T8vCO/h9jgaU2+qp7WRBnpALoigTikcu+t/LLGm6Om1HX5Hw8DLSjWPuw9ZbPr
 Oq4BnbhlukUBfYtWDkIjrlQN3c7l28esngIq29M0oHCtF27otbpT8eTUExQhbFph
 KKFpMo/vgyFUkYU=
 =2O84
 -----END PGP SIGNATURE-----

A signed commit
""".format(blank=" ")  # a line of one space: no trailing blank in the source


def git(repo: Path, *args: str, stdin: str | None = None) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), *args], input=stdin, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def one_call(command: str, repo: Path, env: dict[str, str], **kw: str) -> dict[str, object]:
    """The tool_finished content of one read-only, auto-approved bash call."""
    steps = [{"tool_calls": [call("bash", command=command)]}, {"text": "done"}]
    with hostile_luxe(steps, "read-only", "--auto-approve", cwd=repo, env=env, **kw) as (
        luxe,
        _server,
    ):
        frames = run_turn(luxe)
        assert luxe.close() == 0
    finished = [f["content"] for f in frames if f["kind"] == "tool_finished"]
    assert len(finished) == 1, frames
    return finished[0]


@pytest.mark.parametrize("command", ["git stash -m list", "git stash -q -m show", "git stash -- show"])
def test_a_stash_push_spelled_as_list_or_show_is_refused(
    command: str, repo: Path, env: dict[str, str]
) -> None:
    (repo / "show").write_text("tracked\n")
    git(repo, "add", "show")
    git(repo, "-c", "user.name=T", "-c", "user.email=t@example.invalid", "commit", "-qm", "show")
    (repo / "README.md").write_text("the person's unsaved work\n")
    (repo / "show").write_text("more of it\n")
    done = one_call(command, repo, env)
    assert (repo / "README.md").read_text() == "the person's unsaved work\n"
    assert (repo / "show").read_text() == "more of it\n"
    assert not (repo / ".git" / "refs" / "stash").exists()
    assert done["denied"], done


@pytest.fixture
def helper(tmp_path: Path) -> tuple[str, Path]:
    """A directory holding `git-remote-luxetest`, which leaves a mark."""
    bin_dir = tmp_path / "helpers"
    bin_dir.mkdir()
    mark = tmp_path / "helper-ran"
    program = bin_dir / "git-remote-luxetest"
    program.write_text(f"#!/bin/sh\necho ran >> '{mark}'\nexit 1\n")
    program.chmod(0o755)
    return str(bin_dir), mark


@pytest.mark.parametrize(
    "command",
    [
        "git remote show luxetest::a",
        "git remote -v show luxetest::b",
        "git --no-pager remote show origin",
    ],
)
def test_remote_show_that_would_ask_the_remote_is_refused(
    command: str, helper: tuple[str, Path], repo: Path, env: dict[str, str]
) -> None:
    bin_dir, mark = helper
    git(repo, "remote", "add", "origin", "luxetest::c")
    done = one_call(command, repo, env, path_extra=bin_dir)
    assert not mark.exists()
    assert done["denied"], done


def test_remote_show_without_asking_stays_a_reader(
    helper: tuple[str, Path], repo: Path, env: dict[str, str]
) -> None:
    bin_dir, mark = helper
    git(repo, "remote", "add", "origin", "luxetest::c")
    steps = [{"tool_calls": [call("bash", command="git remote show -n origin")]}, {"text": "done"}]
    with hostile_luxe(
        steps, "read-only", "--auto-approve", cwd=repo, env=env, path_extra=bin_dir
    ) as (luxe, server):
        run_turn(luxe)
        results = tool_results(server.bodies[-1])
        assert luxe.close() == 0
    assert "Fetch URL: luxetest::c" in results[0], results
    assert not mark.exists()


@pytest.mark.skipif(shutil.which("gpg") is None, reason="needs gpg")
@pytest.mark.parametrize(
    "command",
    [
        "git log --show-signature -1 signed",
        "git show -s --format='%G? %GS' signed",
        "git log -1 --pretty=format:%GK signed",
    ],
)
def test_verifying_a_signature_is_refused_and_the_home_keeps_no_gnupg(
    command: str, repo: Path, env: dict[str, str]
) -> None:
    signed = git(repo, "hash-object", "-t", "commit", "-w", "--stdin", stdin=SIGNED_COMMIT)
    git(repo, "update-ref", "refs/heads/signed", signed)
    env = {k: v for k, v in env.items() if k != "GNUPGHOME"}
    home = Path(env["HOME"])
    assert not (home / ".gnupg").exists()
    done = one_call(command, repo, env)
    assert not (home / ".gnupg").exists(), os.listdir(home / ".gnupg")
    assert done["denied"], done


@pytest.mark.parametrize(
    "command",
    [
        "git cat-file --filters HEAD:README.md",
        "git cat-file --filt HEAD:README.md",
        "git cat-file --path=README.md --filters {blob}",
    ],
)
def test_cat_file_filters_is_refused_and_runs_no_filter(
    command: str, tmp_path: Path, repo: Path, env: dict[str, str]
) -> None:
    mark = tmp_path / "smudge-ran"
    smudge = tmp_path / "smudge"
    smudge.write_text(f"#!/bin/sh\necho ran >> '{mark}'\nexec cat\n")
    smudge.chmod(0o755)
    # The person's own filter (as `git lfs install` writes one), which the
    # repository's .gitattributes applies to its README.
    (Path(env["HOME"]) / ".gitconfig").write_text(f'[filter "mine"]\n\tsmudge = {smudge}\n')
    (repo / ".gitattributes").write_text("README.md filter=mine\n")
    git(repo, "add", ".gitattributes")
    git(repo, "-c", "user.name=T", "-c", "user.email=t@example.invalid", "commit", "-qm", "attrs")
    blob = git(repo, "rev-parse", "HEAD:README.md")
    done = one_call(command.format(blob=blob), repo, env)
    assert not mark.exists()
    assert done["denied"], done
