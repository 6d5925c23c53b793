"""gh's token kept in the system keyring (gh's default since 2.40: its
hosts.yml names the hosts and users, no token): no file or variable holds
it, so redaction did not know it, and `gh auth token` put it in the prompt.
Luxe now asks gh for its tokens when it settles, and redacts them.

The `gh` here is a stand-in on PATH that answers as a gh with a keyring
does (this machine's gh has no keyring to keep one in, and the suite runs
offline); it answers `auth token` for each host, `auth status -t` and
`auth git-credential get`. Through the real `luxe --rpc`."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from tests.luxe.rpc_driver import processes_with_marker

from .e2e import call, executable, tool_results
from .hostile import everything_written, one_turn_leaks_nothing

GITHUB_TOKEN = "gho_Kr7vXq2LmN9pT4wZ8yB3cD6fH1jS5uA0eG"
ENTERPRISE_TOKEN = "gho_Ent3rpr1seZ9yX8wV7uT6sR5qP4oN3mL"

GH = f"""#!/bin/sh
host=github.com
case " $* " in *" --hostname ghe.example.com "*) host=ghe.example.com ;; esac
token={GITHUB_TOKEN}
[ "$host" = ghe.example.com ] && token={ENTERPRISE_TOKEN}
case "$1 $2" in
  "auth token") echo "$token" ;;
  "auth status") printf 'github.com\\n  Logged in to github.com as octo (keyring)\\n  Token: %s\\n' "$token" ;;
  "auth git-credential") cat >/dev/null; printf 'protocol=https\\nhost=%s\\nusername=octo\\npassword=%s\\n' "$host" "$token" ;;
  *) echo "unknown command" >&2; exit 1 ;;
esac
"""
HOSTS = """github.com:
    git_protocol: https
    user: octo
ghe.example.com:
    git_protocol: https
    user: octo
"""


def with_keyring_gh(env: dict[str, str], tmp_path: Path) -> dict[str, str]:
    executable(tmp_path / "bin" / "gh", GH)
    hosts = Path(env["XDG_CONFIG_HOME"]) / "gh" / "hosts.yml"
    hosts.parent.mkdir(parents=True)
    hosts.write_text(HOSTS)
    return {**env, "PATH": f"{tmp_path / 'bin'}:{env['PATH']}"}


@pytest.mark.parametrize(
    "command",
    [
        "gh auth token",
        "gh auth status -t",
        "printf 'protocol=https\\nhost=github.com\\n\\n' | gh auth git-credential get",
        "gh auth token --hostname ghe.example.com | rev | rev",
    ],
)
def test_a_token_gh_keeps_in_the_keyring_never_reaches_the_model(
    command: str, repo: Path, env: dict[str, str], tmp_path: Path
) -> None:
    full = with_keyring_gh(env, tmp_path)
    _done, body = one_turn_leaks_nothing(
        [call("bash", command=command)], "yolo", (GITHUB_TOKEN, ENTERPRISE_TOKEN), cwd=repo, env=full
    )
    assert "[REDACTED:" in tool_results(body)[0], tool_results(body)
    written = everything_written(env)
    assert written and GITHUB_TOKEN not in written and ENTERPRISE_TOKEN not in written


def test_without_gh_a_session_goes_on(repo: Path, env: dict[str, str], tmp_path: Path) -> None:
    executable(tmp_path / "bin" / "gh", "#!/bin/sh\nexit 1\n")  # logged in nowhere
    full = {**env, "PATH": f"{tmp_path / 'bin'}:{env['PATH']}"}
    _done, body = one_turn_leaks_nothing(
        [call("bash", command="echo still-here")], "yolo", (), cwd=repo, env=full
    )
    assert "still-here" in tool_results(body)[0]


def test_a_gh_that_never_answers_holds_the_first_turn_only_briefly_and_is_ended(
    repo: Path, env: dict[str, str], tmp_path: Path
) -> None:
    """A keyring waiting for someone to unlock it: gh never answers. The
    turn waits at most the deadline (3 s), and no gh is left running."""
    executable(tmp_path / "bin" / "gh", "#!/bin/sh\nexec sleep 300 # gh-waiting-for-keyring\n")
    full = {**env, "PATH": f"{tmp_path / 'bin'}:{env['PATH']}"}
    started = time.monotonic()
    _done, body = one_turn_leaks_nothing(
        [call("bash", command="echo still-here")], "yolo", (), cwd=repo, env=full
    )
    assert "still-here" in tool_results(body)[0]
    assert time.monotonic() - started < 20
    assert processes_with_marker("gh-waiting-for-keyring", scope=full) == []
    assert processes_with_marker("sleep 300", scope=full) == []


@pytest.mark.parametrize("where", ["GH_CONFIG_DIR", "no hosts.yml (gh's default host)"])
def test_the_token_is_asked_for_wherever_gh_keeps_its_hosts(
    where: str, repo: Path, env: dict[str, str], tmp_path: Path
) -> None:
    executable(tmp_path / "bin" / "gh", GH)
    full = {**env, "PATH": f"{tmp_path / 'bin'}:{env['PATH']}"}
    if where == "GH_CONFIG_DIR":
        (tmp_path / "ghconf").mkdir()
        (tmp_path / "ghconf" / "hosts.yml").write_text(HOSTS)
        full["GH_CONFIG_DIR"] = str(tmp_path / "ghconf")
    command = "gh auth token; gh auth token --hostname ghe.example.com"
    values = (GITHUB_TOKEN, ENTERPRISE_TOKEN) if where == "GH_CONFIG_DIR" else (GITHUB_TOKEN,)
    _done, body = one_turn_leaks_nothing(
        [call("bash", command=command)], "yolo", values, cwd=repo, env=full
    )
    assert "[REDACTED:" in tool_results(body)[0], tool_results(body)


@pytest.mark.parametrize("spelling", ["a FIFO", "a link to a FIFO", "a FIFO in GH_CONFIG_DIR"])
def test_a_hosts_file_that_is_no_file_never_holds_the_first_turn(
    spelling: str, repo: Path, env: dict[str, str], tmp_path: Path
) -> None:
    """gh's hosts.yml is read only when it is a regular file: opening a FIFO
    there waited for a writer for good, and the first turn with it."""
    executable(tmp_path / "bin" / "gh", GH)
    full = {**env, "PATH": f"{tmp_path / 'bin'}:{env['PATH']}"}
    folder = Path(env["XDG_CONFIG_HOME"]) / "gh"
    if spelling == "a FIFO in GH_CONFIG_DIR":
        folder = tmp_path / "ghconf"
        full["GH_CONFIG_DIR"] = str(folder)
    folder.mkdir(parents=True)
    if spelling == "a link to a FIFO":
        os.mkfifo(tmp_path / "pipe")
        (folder / "hosts.yml").symlink_to(tmp_path / "pipe")
    else:
        os.mkfifo(folder / "hosts.yml")
    _done, body = one_turn_leaks_nothing(
        [call("bash", command="gh auth token")], "yolo", (GITHUB_TOKEN,), cwd=repo, env=full
    )
    assert "[REDACTED:" in tool_results(body)[0]  # gh's default host was asked
