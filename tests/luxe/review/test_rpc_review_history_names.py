"""A secret file in git's history under a name git quotes (a folder named
with a byte outside ASCII, a tab, a quote or a newline: `"a/d\\303\\251/.env"`)
is still a secret file: its values are redacted when a review shows the
commit that moved them into code. Through the real `luxe --rpc`, the model
on the loopback server."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.gitrepo import Repo
from tests.luxe.policy.hostile import hostile_luxe
from tests.luxe.review.rpc_helpers import load

VALUE = "histval-Qm7Zx2Kp9"


@pytest.mark.parametrize("folder", ["dé", "a\tb", 'q"x', "n\nl", "plain"])
def test_a_secret_only_in_history_under_a_quoted_name_is_redacted(
    repo: Repo, env: dict[str, str], folder: str
) -> None:
    """The first commit adds `<folder>/.env`; the second deletes it and puts
    its value in settings.py. The working tree has no `.env`: the value is
    known only from git's history, which Luxe read by cutting the name out
    of the quoted "diff --git" line, so it never knew this file was one."""
    _review_of_the_key_moved_into_code(repo, env, folder)


@pytest.mark.parametrize("setting", ["noprefix = true", "mnemonicPrefix = true"])
def test_a_secret_only_in_history_is_redacted_whatever_the_persons_diff_prefixes(
    repo: Repo, env: dict[str, str], setting: str
) -> None:
    """The person's own git config may drop or change the `a/` `b/` prefixes
    of every diff git prints (`diff.noprefix`); the history is read with
    Luxe's own."""
    Path(env["HOME"], ".gitconfig").write_text(f"[diff]\n\t{setting}\n")
    _review_of_the_key_moved_into_code(repo, env, "svc")


def _review_of_the_key_moved_into_code(repo: Repo, env: dict[str, str], folder: str) -> None:
    """`folder`/.env added, then deleted with its value put in settings.py:
    the review of that commit shows the value redacted, and it reaches
    neither the model nor the client."""
    repo.write("a.txt", "x\n")
    repo.write(f"{folder}/.env", f"KEY={VALUE}\n")
    repo.commit("add the key")
    repo.git("rm", "-q", f"{folder}/.env")
    repo.write("settings.py", f'KEY = "{VALUE}"\n')
    sha = repo.commit("move the key into code")
    with hostile_luxe([{"text": "no chapters"}], "read-only", cwd=repo.path, env=env) as (
        luxe,
        server,
    ):
        review, _ = load(luxe, "r1", {"kind": "commit", "sha": sha})
        shown = [line["text"] for hunk in review["hunks"] for line in hunk["lines"]]
        assert 'KEY = "[REDACTED:KEY]"' in shown, shown
        assert len(server.bodies) == 1  # the chapters request
        assert VALUE not in str(server.bodies)
        assert VALUE not in str(luxe.frames)
        assert luxe.close() == 0
