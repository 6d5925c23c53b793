"""Who may use a tab's socket and how much of it: another uid is refused and
logged, a connection flood is capped, idle connections are closed, and
running out of descriptors never spins (the real `laura` in tmux)."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import pwd
import resource
import socket
import subprocess
import time
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from laura.peercred import Peer, admits
from laura.server import MAX_CONNECTIONS, READ_TIMEOUT
from tests.laura.tmux import LAURA, WAIT_S, LauraSession, wait_until

pytestmark = pytest.mark.tmux

Make = Callable[..., LauraSession]

# A stdlib-only client run as the other user: connects, sends one frame,
# prints its pid and the reply.
INTRUDER = """
import os, socket, sys
sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
sock.settimeout(20)
sock.connect("\\0" + sys.argv[1])
try:
    sock.sendall(sys.argv[2].encode() + b"\\n")
except OSError:
    pass
reply = b""
try:
    while data := sock.recv(65536):
        reply += data
except OSError:
    pass
print(os.getpid())
print(reply.decode(errors="replace").strip())
"""


@pytest.fixture
def other_user() -> Iterator[tuple[int, int]]:
    """A throwaway system user (uid, gid), removed afterwards."""
    if os.geteuid() != 0:
        pytest.skip("creating a second user needs root (CI runs as root)")
    name = f"lauratest{uuid.uuid4().hex[:8]}"
    with user_database_lock():
        subprocess.run(
            ["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", name],
            check=True,
            capture_output=True,
        )
    try:
        entry = pwd.getpwnam(name)
        yield entry.pw_uid, entry.pw_gid
    finally:
        with user_database_lock():
            subprocess.run(["userdel", name], check=False, capture_output=True)


@contextlib.contextmanager
def user_database_lock() -> Iterator[None]:
    """One useradd or userdel at a time across test workers (`make test`
    runs several): two at once contend for shadow's lock on /etc/passwd,
    and the loser may fail."""
    with open("/tmp/laura-tests-users.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def run_as(uid: int, gid: int, tab: str, frame: str) -> tuple[int, str]:
    """Run INTRUDER as uid/gid (setpriv drops every group); its pid and reply."""
    setpriv = ["setpriv", f"--reuid={uid}", f"--regid={gid}", "--clear-groups"]
    result = subprocess.run(
        [*setpriv, "/usr/bin/python3", "-I", "-c", INTRUDER, tab, frame],
        capture_output=True,
        text=True,
        timeout=WAIT_S,
        cwd="/",
    )
    assert result.returncode == 0, result.stderr
    pid, reply = result.stdout.split("\n", 1)
    return int(pid), reply.strip()


def layout(session: LauraSession) -> dict:
    result = session.cli("layout")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def host_log(session: LauraSession) -> list[dict]:
    path = session.root / "state" / "laura" / "host.log"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_another_uid_is_refused_logged_and_changes_nothing(
    laura_session: Make, tmp_path: Path, other_user: tuple[int, int]
) -> None:
    uid, gid = other_user
    session = laura_session()
    secret = tmp_path / "secret.txt"
    secret.write_text("root only\n")
    secret.chmod(0o600)
    tmp_path.chmod(0o755)  # the other user may see the path; it must still not get in
    # The input: open a root-only file on root's screen.
    pid, reply = run_as(uid, gid, session.tab, json.dumps({"type": "open", "path": str(secret)}))
    refused = json.loads(reply)
    assert refused["type"] == "error"
    assert refused["message"].startswith(f"connection refused: uid {uid} may not use this tab")
    # One of our own: plant a comment the agent would read, and mark the tab ready.
    pid2, reply2 = run_as(uid, gid, session.tab, '{"type":"ready","agent":"intruder"}')
    assert json.loads(reply2)["type"] == "error"
    assert [pane["id"] for pane in layout(session)["panes"]] == [0]
    assert "root only" not in session.text()
    entries = [e for e in host_log(session) if e["type"] == "connection_refused"]
    assert [(e["peer_uid"], e["peer_pid"]) for e in entries] == [(uid, pid), (uid, pid2)]
    assert all(e["tab"] == session.tab for e in entries)
    # Laura's own user is still served.
    opened = session.cli("open", str(secret), "--no-focus")
    assert opened.returncode == 0 and opened.stdout.strip() == "1"


def test_only_the_owner_or_root_is_admitted() -> None:
    assert admits(Peer(pid=5, uid=1000, gid=1000), own_uid=1000)
    assert admits(Peer(pid=5, uid=0, gid=0), own_uid=1000)  # root acting for it
    assert not admits(Peer(pid=5, uid=1001, gid=1000), own_uid=1000)
    assert not admits(None, own_uid=1000)


def _connect_many(tab: str, count: int) -> list[socket.socket]:
    sockets = []
    for _ in range(count):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.connect("\0" + tab)  # blocking: waits while the backlog is full
        sock.settimeout(WAIT_S)
        sockets.append(sock)
    return sockets


def _reply(sock: socket.socket) -> bytes:
    data = b""
    try:
        while chunk := sock.recv(65536):
            data += chunk
    except OSError:
        pass
    return data


def test_a_connection_flood_is_capped_and_idle_connections_are_closed(laura_session: Make) -> None:
    session = laura_session()
    tab = session.tab
    flood = _connect_many(tab, MAX_CONNECTIONS + 40)
    try:
        # The ones over the cap are told so at once, not left hanging.
        over = flood[MAX_CONNECTIONS:]
        for sock in over:
            reply = json.loads(_reply(sock))
            assert reply["type"] == "error" and "too many connections" in reply["message"]
        # Silent connections are closed with an error within a few seconds,
        # after which a real request is answered.
        started = time.monotonic()
        first = json.loads(_reply(flood[0]))
        assert first == {
            "type": "error",
            "message": f"no request line received within {READ_TIMEOUT:g} s",
        }
        assert time.monotonic() - started < READ_TIMEOUT + WAIT_S
        reply = wait_until(lambda: json.loads(session.request(b'{"type":"layout"}\n'))["type"] == "report")
        assert reply
        # keys still echo
        session.type("echo after-flood")
        session.send_keys("Enter")
        session.wait_for("│after-flood")
    finally:
        for sock in flood:
            sock.close()


def _fill_with_panes(session: LauraSession, count: int) -> None:
    """Open `count` panes of long (missing) paths, each splitting the biggest
    pane, so a report runs to hundreds of kilobytes."""
    path = "/" + "/".join(["d" * 250] * 15) + "/f.txt"
    for _ in range(count):
        panes = layout(session)["panes"]
        biggest = max(panes, key=lambda pane: pane["rect"]["width"] * pane["rect"]["height"])
        rect = biggest["rect"]
        frame = {
            "type": "open",
            "path": path,
            "split": biggest["id"],
            "dir": "horizontal" if rect["width"] > 2 * rect["height"] else "vertical",
            "focus": False,
        }
        reply = json.loads(session.request(json.dumps(frame).encode() + b"\n"))
        assert reply["type"] == "opened", reply


def test_clients_that_never_read_their_answers_do_not_lock_the_tab_out(laura_session: Make) -> None:
    """A client sends a request whose answer is big and never reads it: each
    one held its connection for ever, so 256 of them locked every later
    client out (`too many connections`) for as long as they lived."""
    session = laura_session(width=160, height=50)
    _fill_with_panes(session, 80)
    assert len(session.request(b'{"type":"layout"}\n')) > 300_000
    frames = [b'{"type":"layout"}\n', b'{"type":"ready"}\n', b'{"type":"open","path":"x","dry_run":true}\n']
    hoarders = _connect_many(session.tab, MAX_CONNECTIONS)
    try:
        for number, sock in enumerate(hoarders):
            sock.sendall(frames[number % len(frames)])
        # Past the write deadline the tab serves others again, while the
        # hoarders still hold their sockets open, unread.
        said: list[str] = []

        def served() -> bool:
            result = session.cli("layout")
            said.append(result.stderr.strip())
            return result.returncode == 0 and json.loads(result.stdout)["panes"][0]["id"] == 0

        try:
            wait_until(served, WAIT_S)
        except AssertionError:
            raise AssertionError(f"`laura layout` was still refused after {WAIT_S} s: {said[-1]}") from None
        session.type("echo Q7")
        session.send_keys("Enter")
        session.wait_for("│Q7 ")  # the shell pane is narrow now
    finally:
        for sock in hoarders:
            sock.close()


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_running_out_of_descriptors_refuses_without_spinning(laura_session: Make) -> None:
    session = laura_session()
    tab = session.tab
    pid = session.laura_pid
    # Our own input: a host with only 64 descriptors, flooded by 150 clients.
    soft, hard = resource.prlimit(pid, resource.RLIMIT_NOFILE)
    resource.prlimit(pid, resource.RLIMIT_NOFILE, (64, hard))
    cpu_before = _cpu_seconds(pid)
    flood = _connect_many(tab, 150)
    try:
        # Some are refused for want of descriptors (each told why)...
        refused = wait_until(
            lambda: [
                reply
                for reply in (_peek(sock) for sock in flood[100:])
                if reply and b"out of file descriptors" in reply
            ]
        )
        assert refused
        # ...and the host does not spin while the rest wait to be accepted.
        time.sleep(1.0)  # a measurement window, not synchronisation
        assert _cpu_seconds(pid) - cpu_before < 0.9
    finally:
        for sock in flood:
            sock.close()
    resource.prlimit(pid, resource.RLIMIT_NOFILE, (soft, hard))
    wait_until(lambda: json.loads(session.request(b'{"type":"layout"}\n'))["type"] == "report")


def _peek(sock: socket.socket) -> bytes:
    sock.setblocking(False)
    try:
        return sock.recv(65536)
    except OSError:
        return b""
    finally:
        sock.settimeout(WAIT_S)



# A socket another user binds under a tab's name (free once its Laura has
# exited): prints "ready", then for each connection the bytes it received.
SQUATTER = """
import socket, sys
server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
server.bind("\\0" + sys.argv[1])
server.listen(8)
print("ready", flush=True)
while True:
    conn, _ = server.accept()
    conn.settimeout(2)
    got = b""
    try:
        while data := conn.recv(65536):
            got += data
    except OSError:
        pass
    print(len(got), flush=True)
    conn.close()
"""


def test_clients_send_nothing_to_a_socket_another_user_holds(
    other_user: tuple[int, int], tmp_path: Path
) -> None:
    """`laura open` and a hosted Luxe both check who listens before sending."""
    from tests.luxe.rpc_driver import LuxeProcess, make_env, make_repo, write_script

    uid, gid = other_user
    name = f"laura-squat-{uuid.uuid4().hex[:8]}"
    setpriv = ["setpriv", f"--reuid={uid}", f"--regid={gid}", "--clear-groups"]
    squatter = subprocess.Popen(
        [*setpriv, "/usr/bin/python3", "-I", "-c", SQUATTER, name],
        stdout=subprocess.PIPE, text=True, cwd="/",
    )  # fmt: skip
    try:
        assert squatter.stdout is not None
        assert squatter.stdout.readline().strip() == "ready"
        secret = tmp_path / "notes.txt"
        secret.write_text("private\n")
        # Three verbs: a path, a comment's text, and a plain query.
        for verb in (["open", str(secret)], ["comment", "1", "private note"], ["layout"]):
            done = subprocess.run(
                [LAURA, *verb], env={**os.environ, "LAURA_TAB": name},
                capture_output=True, text=True, timeout=WAIT_S,
            )  # fmt: skip
            assert done.returncode != 0, verb
            assert f"belongs to uid {uid}, not to you" in done.stderr, (verb, done.stderr)
            assert "nothing was sent" in done.stderr
            assert squatter.stdout.readline().strip() == "0"  # it connected, and got nothing

        # A Luxe told it runs in that tab edits a file (which would open a
        # pane): the turn goes on, without panes, and nothing reaches the socket.
        repo = make_repo(tmp_path / "repo", {"main.py": "x = 1\n"})
        edit = {"name": "edit", "args": {"path": "main.py", "old_string": "x = 1", "new_string": "x = 2"}}
        script = write_script(tmp_path, [{"tool_calls": [edit]}, {"text": "done"}])
        luxe = LuxeProcess.start(
            ["--model", f"scripted:{script}", "--yolo"], cwd=repo,
            env=make_env(tmp_path, LAURA_TAB=name),
        )  # fmt: skip
        with luxe:
            luxe.handshake()
            luxe.send("submit_user_message", {"text": "edit"})
            assert luxe.expect("turn_ended")["reason"] == "end_turn"
            assert (repo / "main.py").read_text() == "x = 2\n"
            # The edit's pane follower runs beside the turn: wait for its
            # connection before closing (a close could cancel it first).
            reader = ThreadPoolExecutor(1)
            try:
                line = reader.submit(squatter.stdout.readline).result(timeout=WAIT_S)
            finally:
                reader.shutdown(wait=False)  # a reader still blocked ends with the squatter
            assert line.strip() == "0"
            assert luxe.close() == 0
    finally:
        squatter.kill()
        squatter.wait()
