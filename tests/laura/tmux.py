"""Drive the real `laura` inside a private tmux server, for end-to-end tests.

API (reusable by every Laura test):

    session = LauraSession(tmp_path, command=None, width=120, height=40,
                           as_user=None, umask=None)
        Not started yet. `as_user` runs laura as that uid (root only;
        tmp_path must be reachable by it); `umask` ("022") is set before
        laura starts. `command` is what tab 1 hosts (`laura -- CMD`); None
        hosts $SHELL, which is /bin/sh with PS1='$ '. Everything the session
        spawns gets a private HOME, XDG_*_HOME, XDG_RUNTIME_DIR and
        LAURA_RUNTIME under tmp_path, and PATH starts with the venv's bin
        (so `laura` inside a tab is the one under test).
    session.start()                  start tmux + laura; wait for the footer
    session.screen() -> list[str]    the visible rows (capture-pane)
    session.text() -> str            the same joined with newlines
    session.footer() -> str          the last row (the hint line)
    session.send_keys(*keys)         tmux key names: "C-p", "Enter", "PPage", "M-x"
    session.type(text)               literal text (send-keys -l)
    session.send_bytes(data)         raw bytes as the terminal would send them
    session.paste(text)              a bracketed paste, as a terminal sends one
    session.wait_for(text_or_predicate, timeout=WAIT_S) -> str
                                     poll the screen until it holds text
    session.wait_footer(text, timeout=WAIT_S) -> str
                                     poll until the hint line holds text
    session.laura_pid -> int         the laura host process
    session.tabs() -> list[str]      every LAURA_TAB the host serves, tab order
    session.tab -> str               the first tab's LAURA_TAB
    session.cli(*args, tab=None, cwd=None) -> CompletedProcess
                                     run the real `laura` client verb
    session.request(frame, tab=None) -> bytes
                                     raw socket: send bytes, return the reply
    session.wait_exit(timeout=WAIT_S) -> int
                                     wait for laura to exit; its status
    session.after_exit() -> str      what the wrapper shell recorded after exit
                                     (`stty -a`, tmux alternate/mouse flags)
    session.close()                  kill the tmux server and every process

`laura_session` (a pytest fixture in conftest.py) makes sessions and closes
them at teardown. Module helpers (from tests/helpers): `wait_until(predicate,
timeout)` polls any condition; `descendants_of(pid)`, `alive(pid)` and
`command_name(pid)` read /proc (to prove no process survives); `abstract_sockets(prefix)` lists listening tab sockets;
`send_frame(name, frame)` is a raw one-shot client; `RECORDER` is
tests/laura/recorder.py, a child that records every byte it reads (run it
with `command=[sys.executable, RECORDER, OUT, "--alt"|"--paste"|"--mouse"|"--dsr"]`).
"""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.helpers.procs import alive as alive
from tests.helpers.procs import children_of
from tests.helpers.procs import command_name as command_name
from tests.helpers.procs import descendants_of as descendants_of
from tests.helpers.wait import wait_until as wait_until

BIN = Path(sys.executable).parent
# The checkout these tests belong to: its code is the laura under test, even
# when the venv's editable install points at another worktree.
CHECKOUT = Path(__file__).resolve().parents[2]
LAURA = str(BIN / "laura")
RECORDER = str(Path(__file__).with_name("recorder.py"))

# Default bound for every wait here. It only guards against a hang (pytest-
# timeout is the backstop), so it is generous: on a loaded 2-core CI machine
# starting laura, tmux and a shell can take seconds. Speed is never asserted.
WAIT_S = 30.0


def abstract_sockets(prefix: str) -> list[str]:
    """Listening abstract Unix socket names starting with `prefix`."""
    names = []
    for line in Path("/proc/net/unix").read_text().splitlines()[1:]:
        parts = line.split()
        if len(parts) >= 8 and parts[7].startswith("@" + prefix):
            names.append(parts[7][1:])
    return sorted(set(names), key=lambda name: int(name.rsplit("-", 1)[1]))


def send_frame(name: str, frame: bytes, timeout: float = WAIT_S) -> bytes:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(timeout)
        sock.connect("\0" + name)
        try:
            sock.sendall(frame)
            sock.shutdown(socket.SHUT_WR)
        except BrokenPipeError:
            pass  # the tab answered early (e.g. an oversized line); read the answer
        chunks = []
        try:
            while data := sock.recv(65536):
                chunks.append(data)
        except ConnectionResetError:
            pass  # refused before our frame was read: the answer came first
    return b"".join(chunks)


class PrivateTmux:
    """A program in a private tmux server (`tmux -L socket`), seen as a
    person sees it: the screen's rows, keys, pastes, waits on the screen.
    Subclasses set `socket`, `env` and `height` and start the session."""

    socket: str
    env: dict[str, str]
    height: int

    def tmux(self, *args: str, check: bool = True) -> str:
        result = subprocess.run(
            ["tmux", "-L", self.socket, "-f", "/dev/null", *args],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=WAIT_S,
        )
        if check and result.returncode != 0:
            raise AssertionError(f"tmux {args} failed: {result.stderr}")
        return result.stdout

    def screen(self) -> list[str]:
        return self.tmux("capture-pane", "-p").split("\n")[: self.height]

    def text(self) -> str:
        return "\n".join(self.screen())

    def footer(self) -> str:
        rows = self.screen()
        return rows[-1] if rows else ""

    def send_keys(self, *keys: str) -> None:
        self.tmux("send-keys", *keys)

    def type(self, text: str) -> None:
        self.tmux("send-keys", "-l", text)

    def send_bytes(self, data: bytes) -> None:
        self.tmux("send-keys", "-H", *(f"{byte:02x}" for byte in data))

    def paste(self, text: str) -> None:
        self.tmux("set-buffer", "-b", "t", text)
        self.tmux("paste-buffer", "-p", "-b", "t")

    def wait_for(self, expect: str | Callable[[str], Any], timeout: float = WAIT_S) -> str:
        def check() -> str | None:
            text = self.text()
            ok = expect(text) if callable(expect) else expect in text
            return text if ok else None

        try:
            return str(wait_until(check, timeout))
        except AssertionError:
            what = expect if isinstance(expect, str) else getattr(expect, "__doc__", None) or expect
            raise AssertionError(
                f"screen never showed {what!r} within {timeout} s; footer {self.footer()!r};"
                f" screen:\n{self.text()}"
            ) from None

    def wait_footer(self, text: str, timeout: float = WAIT_S) -> str:
        """Poll until the hint line (the last row) contains `text`."""
        try:
            return str(wait_until(lambda: text in self.footer() and self.footer(), timeout))
        except AssertionError:
            raise AssertionError(
                f"footer never showed {text!r} within {timeout} s; footer {self.footer()!r};"
                f" screen:\n{self.text()}"
            ) from None


class LauraSession(PrivateTmux):
    """One laura host inside a private tmux server (see the module docstring)."""

    def __init__(
        self,
        tmp_path: Path,
        command: list[str] | None = None,
        width: int = 120,
        height: int = 40,
        env: dict[str, str] | None = None,
        as_user: int | None = None,
        cwd: Path | None = None,
        umask: str | None = None,
    ) -> None:
        self.as_user = as_user
        self.umask = umask
        self.cwd = cwd
        self.root = tmp_path / f"laura-{uuid.uuid4().hex[:8]}"
        self.root.mkdir(parents=True)
        self.socket = f"lt-{uuid.uuid4().hex[:12]}"
        self.command = command
        self.width, self.height = width, height
        home = self.root / "home"
        runtime = self.root / "run"
        for path in (home, runtime, self.root / "config", self.root / "data", self.root / "state"):
            path.mkdir(mode=0o700)
        self.env = {
            "PATH": f"{BIN}:/usr/local/bin:/usr/bin:/bin",
            "HOME": str(home),
            "XDG_CONFIG_HOME": str(self.root / "config"),
            "XDG_DATA_HOME": str(self.root / "data"),
            "XDG_STATE_HOME": str(self.root / "state"),
            "XDG_RUNTIME_DIR": str(runtime),
            "LAURA_RUNTIME": str(runtime / "laura"),
            "SHELL": "/bin/sh",
            "PS1": "$ ",
            "TERM": "xterm-256color",
            "LANG": "C.UTF-8",
            "LC_ALL": "C.UTF-8",
            "TMUX_TMPDIR": tmux_socket_dir(),
            "PYTHONPATH": str(CHECKOUT),
        }
        self.env.update(env or {})
        self.after_path = self.root / "after-exit.txt"
        self._pid: int | None = None
        self.started = False

    def start(self) -> LauraSession:
        laura = [LAURA] if self.command is None else [LAURA, "--", *self.command]
        own_tty = ""
        if self.as_user is not None:
            laura, own_tty = self._as_user(self.as_user, laura)
        after = shlex.quote(str(self.after_path))
        # After laura exits the wrapper records what a user would notice: its
        # status, the tty modes and whether tmux still sees alt-screen/mouse on.
        mask = f"umask {shlex.quote(self.umask)}; " if self.umask is not None else ""
        script = (
            f"{own_tty}{mask}{shlex.join(laura)}; status=$?; "
            f"stty -a > {after}.stty 2>&1; "
            f"tmux -L {self.socket} display -p "
            f"'alt=#{{alternate_on}} mouse=#{{mouse_any_flag}} sgr=#{{mouse_sgr_flag}}' > {after}.flags; "
            f"echo $status > {after}; exec sleep 600"
        )
        where = ["-c", str(self.cwd)] if self.cwd else []
        self.tmux(
            "new-session", "-d", *where, "-x", str(self.width), "-y", str(self.height),
            "sh", "-c", script,
        )
        self.started = True
        self.wait_for(lambda screen: "Ctrl+P panes" in screen or "locked" in screen)
        return self

    def _as_user(self, uid: int, laura: list[str]) -> tuple[list[str], str]:
        """laura run as `uid` (which then owns the session's files and its
        terminal, as a person owns theirs), and the shell step that gives
        it the terminal. tmux and the test stay root."""
        for path in [self.root, *self.root.rglob("*")]:
            os.chown(path, uid, uid, follow_symlinks=False)
        user = ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups"]
        return [*user, *laura], f'chown {uid} "$(tty)"; '

    # --- the host -------------------------------------------------------------

    @property
    def laura_pid(self) -> int:
        if self._pid is None:
            wrapper = int(self.tmux("display", "-p", "#{pane_pid}").strip())

            def find() -> int | None:
                for pid in children_of(wrapper):
                    try:
                        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
                    except OSError:  # it exited between the listing and the read
                        continue
                    if any(part.endswith(b"/laura") for part in cmdline):
                        return pid
                return None

            self._pid = int(wait_until(find))
        return self._pid

    def resident_bytes(self) -> int:
        """laura's resident memory now (VmRSS in /proc)."""
        for line in Path(f"/proc/{self.laura_pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
        raise AssertionError(f"no VmRSS for laura ({self.laura_pid})")

    def tabs(self) -> list[str]:
        return abstract_sockets(f"laura-{self.laura_pid}-")

    @property
    def tab(self) -> str:
        return str(wait_until(self.tabs)[0])

    def client_env(self, tab: str | None) -> dict[str, str]:
        env = dict(self.env)
        env["LAURA_TAB"] = tab if tab is not None else self.tab
        return env

    def cli(self, *args: str, tab: str | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [LAURA, *args],
            env=self.client_env(tab),
            cwd=cwd or self.root,
            capture_output=True,
            text=True,
            timeout=30,
        )

    def request(self, frame: bytes, tab: str | None = None) -> bytes:
        return send_frame(tab or self.tab, frame)

    def wait_exit(self, timeout: float = WAIT_S) -> int:
        wait_until(lambda: self.after_path.exists() and self.after_path.read_text().strip(), timeout)
        return int(self.after_path.read_text().strip())

    def after_exit(self) -> str:
        parts = []
        for suffix in (".flags", ".stty"):
            path = Path(str(self.after_path) + suffix)
            if path.exists():
                parts.append(path.read_text())
        return "\n".join(parts)

    def close(self) -> None:
        """Kill the tmux server and anything laura left (nothing should be left)."""
        close_tmux(self.socket, self.env, self.tmux if self.started else None)


def tmux_socket_dir() -> str:
    """A private TMUX_TMPDIR with a short path. tmux's socket is
    `$TMUX_TMPDIR/tmux-UID/NAME`, and a socket's path holds at most 107
    bytes: under pytest's tmp_path (longer still in an xdist worker's
    `popen-gwN/`) a long test name made tmux fail "File name too long".
    `close_tmux` removes it."""
    return tempfile.mkdtemp(prefix=SOCKET_DIR_PREFIX, dir="/tmp")


SOCKET_DIR_PREFIX = "tmux-test-"


def close_tmux(socket: str, env: dict[str, str], tmux: Callable[..., str] | None) -> None:
    """Kill a private tmux server (`tmux -L socket`) and every process of its
    pane; `tmux` runs a tmux command on it (None: the server never started).
    The socket's directory goes too, if `tmux_socket_dir` made it."""
    pids: list[int] = []
    if tmux is not None:
        try:
            wrapper = int(tmux("display", "-p", "#{pane_pid}", check=False).strip() or 0)
        except (ValueError, subprocess.TimeoutExpired):
            wrapper = 0
        if wrapper:
            pids = [wrapper, *descendants_of(wrapper)]
    subprocess.run(["tmux", "-L", socket, "kill-server"], env=env, capture_output=True, timeout=WAIT_S)
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    socket_dir = Path(env.get("TMUX_TMPDIR", ""))
    if socket_dir.parent == Path("/tmp") and socket_dir.name.startswith(SOCKET_DIR_PREFIX):
        shutil.rmtree(socket_dir, ignore_errors=True)
