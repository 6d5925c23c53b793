"""What a hosted program can read of Laura: the real `laura`, run as a user
without privileges over other processes, hosts a program (an agent's tool
call, as far as Laura knows) that looks for the provider's key in Laura's
environment and memory. It keeps the key itself; Laura's is closed to it."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.laura.tmux import LauraSession

NOBODY = 65534
# The reader runs as `nobody`, who may not reach every interpreter (this
# venv's may live under /root); the system's needs only the standard library.
PYTHON = "/usr/bin/python3" if os.access("/usr/bin/python3", os.X_OK) else sys.executable
DOCS = Path(__file__).resolve().parents[2] / "docs" / "laura.md"

# Finds Laura among its ancestors (as a script several shells deep would),
# then reads what argv[1] names, looking for the value of the variable
# argv[2] (which it was given too), and prints one line a person can read:
# "<spelling>: closed <why>", "<spelling>: FOUND THE KEY" or "<spelling>: no key".
READER = r"""
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)

def laura_pid():
    pid = os.getppid()
    while pid > 1:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            if any(part.endswith(b"/laura") for part in f.read().split(b"\0")):
                return pid
        with open(f"/proc/{pid}/stat", "rb") as f:
            pid = int(f.read().rsplit(b")", 1)[1].split()[1])
    raise LookupError("laura is not an ancestor")

def regions(pid):
    with open(f"/proc/{pid}/maps") as f:
        for line in f:
            span, perms = line.split()[:2]
            if perms.startswith("r"):
                start, end = (int(x, 16) for x in span.split("-"))
                yield start, end

def environ(pid):
    with open(f"/proc/{pid}/environ", "rb") as f:
        return f.read()

def mem(pid):
    found = b""
    with open(f"/proc/{pid}/mem", "rb", buffering=0) as f:
        for start, end in regions(pid):
            try:
                f.seek(start)
                chunk = f.read(end - start)
            except (OSError, OverflowError, ValueError):
                continue
            if key in chunk:
                found = key
    return found

class IoVec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]

def vm_readv(pid):
    readv = libc.process_vm_readv
    readv.restype = ctypes.c_ssize_t
    readv.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_ulong, ctypes.c_void_p, ctypes.c_ulong, ctypes.c_ulong]
    # Where the environment block lies, from stat (zeros when closed).
    with open(f"/proc/{pid}/stat", "rb") as f:
        fields = f.read().rsplit(b")", 1)[1].split()
    start, end = int(fields[47]), int(fields[48])
    if start == end:  # stat shows zeros when closed: any address will do,
        start, end = 0x10000, 0x11000  # as the kernel judges permission first
    buf = ctypes.create_string_buffer(max(end - start, 1))
    local, remote = IoVec(ctypes.addressof(buf), end - start), IoVec(start, end - start)
    if readv(pid, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0) < 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
    return buf.raw

def ptrace(pid):
    call = libc.ptrace
    call.restype = ctypes.c_long
    call.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
    if call(16, pid, None, None) != 0:  # PTRACE_ATTACH
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
    call(17, pid, None, None)  # PTRACE_DETACH
    return b"attached"

def main():
    global key
    spelling, key = sys.argv[1], os.environ[sys.argv[2]].encode()
    print("own key:", "kept" if len(key) > 20 else "missing")
    read = {"environ": environ, "mem": mem, "vm_readv": vm_readv, "ptrace": ptrace}[spelling]
    try:
        data = read(laura_pid())
    except OSError as exc:
        print(f"{spelling}: closed", exc.strerror)
    else:
        found = "FOUND THE KEY" if key in data else ("ATTACHED" if data == b"attached" else "no key")
        print(f"{spelling}:", found)

try:
    main()
except BaseException as exc:  # shown, so that a broken reader is never a pass
    print("reader failed:", repr(exc))
print("done")
sys.stdin.readline()
"""


@pytest.fixture
def unprivileged_tree() -> Iterator[Path]:
    """A directory `nobody` may reach (pytest's own is root's alone), holding
    the reader script."""
    if os.geteuid() != 0:
        pytest.skip("needs root, to run laura as a user without privileges over other processes")
    tree = Path(tempfile.mkdtemp(prefix="laura-environ-"))
    os.chmod(tree, 0o755)
    (tree / "reader.py").write_text(READER)
    os.chmod(tree / "reader.py", 0o644)
    try:
        yield tree
    finally:
        subprocess.run(["rm", "-rf", str(tree)], check=False)


@pytest.mark.tmux
@pytest.mark.parametrize(
    ("spelling", "closed"),
    [
        ("environ", "environ: closed Permission denied"),
        ("mem", "mem: closed Permission denied"),
        ("vm_readv", "vm_readv: closed Operation not permitted"),
        ("ptrace", "ptrace: closed Operation not permitted"),
    ],
)
@pytest.mark.parametrize("hosted", ["directly", "under a shell"])
def test_a_hosted_program_keeps_the_key_but_cannot_read_lauras(
    unprivileged_tree: Path, spelling: str, closed: str, hosted: str
) -> None:
    """The person exported the key and ran `laura --agent`: the agent's tool
    calls run as the same user, Laura's grandchildren. Laura is
    non-dumpable, so /proc/<laura>/environ and mem, process_vm_readv and
    ptrace are closed to them; its tab's program still gets the key."""
    key = "sk-ant-" + secrets.token_hex(24)
    screen, environ = _read_by_a_hosted_program(
        unprivileged_tree, spelling, hosted, "ANTHROPIC_API_KEY", key
    )
    assert "own key: kept" in screen
    assert closed in screen, screen
    assert "FOUND THE KEY" not in screen and "ATTACHED" not in screen
    assert key not in screen
    # Root passes the flag: for root, the value is blanked in the block.
    assert b"ANTHROPIC_API_KEY=xxxx" in environ and key.encode() not in environ


@pytest.mark.tmux
def test_what_else_the_person_exported_is_closed_too(unprivileged_tree: Path) -> None:
    """Not only the provider's key: Laura's whole environment (a cloud
    token the person exported) is closed to a hosted program."""
    secret = secrets.token_hex(20)
    screen, _ = _read_by_a_hosted_program(
        unprivileged_tree, "environ", "directly", "AWS_SECRET_ACCESS_KEY", secret
    )
    assert "own key: kept" in screen
    assert "environ: closed Permission denied" in screen, screen


def _read_by_a_hosted_program(
    tree: Path, spelling: str, hosted: str, variable: str, value: str
) -> tuple[str, bytes]:
    """What the reader printed, run by a `nobody` laura started with
    `variable=value`, and Laura's environ as root reads it."""
    reader = [PYTHON, str(tree / "reader.py"), spelling, variable]
    command = reader if hosted == "directly" else ["sh", "-c", '"$@"; exit $?', "sh", *reader]
    session = LauraSession(tree, command=command, env={variable: value}, as_user=NOBODY)
    try:
        session.start()
        screen = session.wait_for("done")
        assert _uid_of(session.laura_pid) == NOBODY
        return screen, Path(f"/proc/{session.laura_pid}/environ").read_bytes()
    finally:
        session.close()


def _uid_of(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("Uid:"):
            return int(line.split()[1])
    raise AssertionError(f"no Uid line for {pid}")


def test_docs_say_what_a_hosted_program_cannot_read() -> None:
    text = DOCS.read_text()
    assert "/proc/<laura>/environ" in text and "non-dumpable" in text
