"""The credentials the person's tools hold where no file shows them: gh's
tokens in the system keyring (gh's default since 2.40; its hosts.yml then
names the hosts and users, not the tokens). `gh auth token`, `gh auth
status -t` and gh as git's credential helper print such a token, and
redaction, which knows a credential only by a file or a variable holding
it, did not know it.

`StoredTokens.start` asks gh, one `gh auth token` per host (those gh's
hosts.yml names, or gh's default host), in children that run while the
caller goes on (SecretFiles walks the project meanwhile); `collect` reads
their answers under one deadline and ends every group still running (a
keyring that waits for someone to unlock it answers nothing). `stop`, from
any thread, ends that wait at once (the session is closing: no answer is
needed any more). Nothing runs when gh is not installed. Blocking; run in a
worker thread.
"""

from __future__ import annotations

import os
import re
import subprocess
import threading
import time
from collections.abc import Mapping

import program_path
from luxe.env_seconds import seconds_from
from luxe.policy.secret_values import MIN_SECRET_LENGTH
from luxe.regular_file import read_regular

TIMEOUT_S = 3.0  # LUXE_GH_TOKEN_TIMEOUT_S
# How often `collect` looks whether `stop` was called while gh says nothing.
STOP_POLL_S = 0.05
MAX_HOSTS = 8
MAX_ANSWER_BYTES = 4096
# A top-level key of hosts.yml: a host name, alone on its line.
_HOST_LINE = re.compile(r"^([A-Za-z0-9][A-Za-z0-9.-]*(?::[0-9]+)?):\s*$", re.MULTILINE)


def gh_hosts_file(env: Mapping[str, str], home: str) -> str:
    """Where gh keeps hosts.yml: $GH_CONFIG_DIR, else $XDG_CONFIG_HOME/gh,
    else ~/.config/gh."""
    if env.get("GH_CONFIG_DIR"):
        return os.path.join(env["GH_CONFIG_DIR"], "hosts.yml")
    config = env.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
    return os.path.join(config, "gh", "hosts.yml")


def gh_hosts(env: Mapping[str, str], home: str) -> list[str]:
    """The hosts gh is logged in to, by its hosts.yml (at most MAX_HOSTS).
    Read only when it is a regular file: a FIFO there would hold the first
    turn for good."""
    read = read_regular(gh_hosts_file(env, home), 1 << 16)
    text = read[0].decode("utf-8", "replace") if read else ""
    return list(dict.fromkeys(_HOST_LINE.findall(text)))[:MAX_HOSTS]


class StoredTokens:
    """One round of asking gh for its tokens: `start`, then `collect`."""

    def __init__(self, env: Mapping[str, str], home: str) -> None:
        self.env = env
        self.home = home
        self._asked: list[tuple[str, subprocess.Popen[bytes]]] = []
        self._deadline = 0.0
        self._stopped = threading.Event()

    def stop(self) -> None:
        """No answer is wanted any more: `collect` (now or later) ends every
        gh it asked without waiting for the deadline. From any thread."""
        self._stopped.set()

    def start(self) -> None:
        from luxe import children  # in the worker thread, not before the first frame

        gh = program_path.which("gh", self.env)
        if gh is None:
            return
        hosts = gh_hosts(self.env, self.home)
        for host in hosts or [""]:
            argv = [gh, "auth", "token", *(["--hostname", host] if host else [])]
            try:
                process = children.popen(
                    argv,
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.DEVNULL,
                    env={**self.env, "GH_PROMPT_DISABLED": "1", "GH_NO_UPDATE_NOTIFIER": "1"},
                    cwd=self.home if os.path.isdir(self.home) else "/",
                    start_new_session=True,
                )
            except OSError:
                break  # gh will not start: it holds nothing Luxe could ask for
            self._asked.append((host or "default", process))
        self._deadline = time.monotonic() + seconds_from(self.env, "LUXE_GH_TOKEN_TIMEOUT_S", TIMEOUT_S)

    def collect(self) -> list[tuple[str, str]]:
        """(where, token) for each token gh printed; every child reaped."""
        from luxe import children
        from process_group import terminate_group_blocking

        found: list[tuple[str, str]] = []
        for host, process in self._asked:
            try:
                out = self._answer(process)
            finally:
                terminate_group_blocking(process)
                children.forget(process.pid)
            token = out[:MAX_ANSWER_BYTES].decode("utf-8", "replace").strip()
            if process.returncode == 0 and len(token) >= MIN_SECRET_LENGTH and not any(
                c.isspace() for c in token
            ):
                found.append((f"gh auth token ({host})", token))
        self._asked = []
        return found

    def _answer(self, process: subprocess.Popen[bytes]) -> bytes:
        """What `process` printed by the deadline (b"" if it was still
        running then, or `stop` came first)."""
        while not self._stopped.is_set():
            left = self._deadline - time.monotonic()
            try:
                out, _ = process.communicate(timeout=min(max(left, 0.01), STOP_POLL_S))
            except subprocess.TimeoutExpired:
                if left <= STOP_POLL_S:
                    return b""
                continue
            return out
        return b""
