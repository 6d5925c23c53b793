"""Issue 17, secrets by side doors: project instruction files, hard links to
the user's credentials, the provider's key, and values the redactor missed.
Each through the real `luxe --rpc` and the loopback model server, in every
permission mode (asks are answered by --auto-approve, so a refusal is the
policy's, never the client's)."""

from __future__ import annotations

import os
import signal
import subprocess
import tempfile
from pathlib import Path

import pytest

from tests.fakes.llm_server import FakeLLMServer
from tests.luxe.rpc_driver import LUXE, LuxeProcess, make_env, make_repo

from .e2e import MODEL, call, tool_results
from .hostile import (
    MODES,
    PROVIDER_KEY,
    everything_written,
    hostile_luxe,
    leaked,
    one_turn_leaks_nothing,
    run_turn,
)

ENV_VALUE = "envval-Q7xK2mP9wR4tZ8"
SSH_BODY = "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ7Gh2"
AWS_SECRET = "wJalrXUtnFEMI7K7MDENGbPxRfiCYEXAMPLEKEY42"
GH_TOKEN = "gho_Zx81mQ3vT6yL0pR9sW2nK5"
NETRC_PASSWORD = "netrc-pw-4T9vB2xL7"


def _home_secrets(env: dict[str, str]) -> dict[str, Path]:
    home = Path(env["HOME"])
    files = {
        ".ssh/id_rsa": (
            "-----BEGIN OPENSSH PRIVATE KEY-----\n" + SSH_BODY + "\n-----END OPENSSH PRIVATE KEY-----\n"
        ),
        ".aws/credentials": f"[default]\naws_access_key_id = AKIAEXAMPLE1234\naws_secret_access_key = {AWS_SECRET}\n",
        ".config/gh/hosts.yml": f"github.com:\n    oauth_token: {GH_TOKEN}\n    user: me\n",
        ".netrc": f"machine example.invalid login me password {NETRC_PASSWORD}\n",
    }
    out = {}
    for rel, text in files.items():
        path = home / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        out[rel] = path
    return out


# -- 1: project instruction files ---------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_instruction_files_never_carry_a_secret(
    mode: str, repo: Path, env: dict[str, str]
) -> None:
    """AGENTS.md as a symlink to .env, LUXE.md as a hard link to ~/.ssh/id_rsa;
    a nested AGENTS.md is not read at all (only the cwd's)."""
    (repo / ".env").write_text(f"API_KEY={ENV_VALUE}\n")
    home = _home_secrets(env)
    (repo / "AGENTS.md").symlink_to(".env")
    os.link(home[".ssh/id_rsa"], repo / "LUXE.md")
    with hostile_luxe([{"text": "ok"}], mode, "--auto-approve", cwd=repo, env=env) as (luxe, server):
        run_turn(luxe)
        system = str(server.bodies[0].get("system"))
        assert ENV_VALUE not in system and SSH_BODY[:20] not in system
        assert not leaked(ENV_VALUE, luxe, server) and not leaked(SSH_BODY, luxe, server)
        assert luxe.close() == 0


@pytest.mark.parametrize("mode", MODES)
def test_instruction_file_linked_to_another_secret_is_left_out(
    mode: str, repo: Path, env: dict[str, str]
) -> None:
    """A third spelling: AGENTS.md -> ~/.aws/credentials (absolute symlink)."""
    home = _home_secrets(env)
    (repo / "AGENTS.md").symlink_to(home[".aws/credentials"])
    (repo / "LUXE.md").write_text(f"Build with make. The token {GH_TOKEN} is ours.\n")
    with hostile_luxe([{"text": "ok"}], mode, "--auto-approve", cwd=repo, env=env) as (luxe, server):
        run_turn(luxe)
        system = str(server.bodies[0].get("system"))
        assert "Build with make" in system  # a plain LUXE.md is read, its values redacted
        assert AWS_SECRET not in system and GH_TOKEN not in system
        assert luxe.close() == 0


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("target", ["/dev/stdin", "/dev/zero", "fifo"])
def test_instruction_file_that_is_not_a_regular_file_is_skipped(
    mode: str, target: str, repo: Path, env: dict[str, str]
) -> None:
    """AGENTS.md -> /dev/stdin would swallow the client's frames, -> /dev/zero
    never ends, a FIFO blocks: none is read, and cancel and close still work."""
    if target == "fifo":
        os.mkfifo(repo / "pipe")
        target = str(repo / "pipe")
    (repo / "AGENTS.md").symlink_to(target)
    # `cat $F` asks in every mode: the turn waits on the prompt until cancelled.
    steps = [{"tool_calls": [call("bash", command="cat $F")]}, {"text": "ok"}]
    with hostile_luxe(steps, mode, cwd=repo, env=env) as (luxe, server):
        luxe.send("submit_user_message", {"text": "go"})
        luxe.expect("permission_requested")
        luxe.send("cancel_turn")
        assert luxe.expect("turn_ended")["reason"] == "cancelled"
        assert "<AGENTS.md>" not in str(server.bodies[0].get("system"))
        assert luxe.close() == 0


# -- 2: hard links to the user's credentials, and the missing names -------------------


@pytest.mark.parametrize("mode", MODES)
def test_hard_links_to_home_credentials_are_secrets(
    mode: str, repo: Path, env: dict[str, str]
) -> None:
    home = _home_secrets(env)
    os.link(home[".ssh/id_rsa"], repo / "notes.txt")
    (repo / "docs").mkdir()
    os.link(home[".aws/credentials"], repo / "docs" / "setup.ini")
    os.link(home[".config/gh/hosts.yml"], repo / "hosts.txt")
    os.link(home[".netrc"], repo / "machines")
    calls = [
        call("read", path="notes.txt"),
        call("read", path="docs/setup.ini"),
        call("bash", command="cat hosts.txt"),
        call("bash", command="base64 machines"),
        call("grep", pattern="oauth|aws_secret|password|b3Bl", path="."),
    ]
    values = (SSH_BODY, AWS_SECRET, GH_TOKEN, NETRC_PASSWORD)
    done, last = one_turn_leaks_nothing(calls, mode, values, cwd=repo, env=env)
    assert [d["denied"] for d in done[:4]] == [True] * 4, done
    assert "secret file" in tool_results(last)[4]


@pytest.mark.parametrize("mode", MODES)
def test_missing_secret_names_are_refused(mode: str, repo: Path, env: dict[str, str]) -> None:
    names = {
        "server.pem": "-----BEGIN PRIVATE KEY-----\nMIIEpemBODYq8Zr31\n",
        "deploy.key": "keybody-Y6tN2wQ81\n",
        ".npmrc": "//registry.npmjs.org/:_authToken=npm_T0kEn8812xq\n",
        ".pypirc": "[pypi]\npassword = pypi-AgEIcHlwaS5vcmc9\n",
        "credentials.json": '{"client_secret": "GOCSPX-cr3dJsonS3cret"}\n',
        "cert.p12": "p12body-H8kL3mN0\n",
    }
    for name, text in names.items():
        (repo / name).write_text(text)
    calls = [call("read", path=name) for name in names]
    calls.append(call("bash", command="cat server.pem deploy.key"))
    calls.append(call("grep", pattern="T0kEn|S3cret|BODY|body", path="."))
    values = ("MIIEpemBODYq8Zr31", "keybody-Y6tN2wQ81", "npm_T0kEn8812xq",
              "pypi-AgEIcHlwaS5vcmc9", "GOCSPX-cr3dJsonS3cret", "p12body-H8kL3mN0")  # fmt: skip
    done, _ = one_turn_leaks_nothing(calls, mode, values, cwd=repo, env=env)
    assert [d["denied"] for d in done[: len(names) + 1]] == [True] * (len(names) + 1), done


ENVRC_VALUE = "direnvSecret-Qz81Lw5"
OLD_ENVRC_VALUE = "direnvOld-Hm27Vc4"


@pytest.mark.parametrize("mode", MODES)
def test_direnvs_envrc_is_a_secret_file(mode: str, repo: Path, env: dict[str, str]) -> None:
    """direnv's `.envrc` exports secrets as plainly as a `.env`: by name,
    through `sub/..`, to a recursive search, and in git's history (a key
    committed once, then rotated and the file untracked)."""
    (repo / ".envrc").write_text(f"export AWS_SECRET_ACCESS_KEY={OLD_ENVRC_VALUE}\n")
    subprocess.run(["git", "add", "-f", ".envrc"], cwd=repo, check=True)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@e.invalid", "commit", "-qm",
                    "envrc"], cwd=repo, check=True)  # fmt: skip
    subprocess.run(["git", "rm", "-q", "--cached", ".envrc"], cwd=repo, check=True)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@e.invalid", "commit", "-qm",
                    "untrack"], cwd=repo, check=True)  # fmt: skip
    (repo / ".envrc").write_text(f"use nix\nexport AWS_SECRET_ACCESS_KEY={ENVRC_VALUE}\n")
    (repo / "sub").mkdir()
    calls = [
        call("read", path=".envrc"),
        call("bash", command="cat sub/../.envrc"),
        call("bash", command="grep -r AWS ."),
        call("bash", command="git log -p --all"),
        call("grep", pattern="AWS", path="."),
    ]
    done, _ = one_turn_leaks_nothing(calls, mode, (ENVRC_VALUE, OLD_ENVRC_VALUE), cwd=repo, env=env)
    assert [d["denied"] for d in done[:3]] == [True] * 3, done


URL_TOKEN = "ghp_R3aLt0kenInUrl8812Xq"
URL_PASSWORD = "gl-pass-Tq84Zm2W"
INSTEAD_TOKEN = "ghp_InsteadOfT0ken5521"


@pytest.mark.parametrize("mode", MODES)
def test_a_credential_in_a_git_remote_url_is_redacted(
    mode: str, repo: Path, env: dict[str, str]
) -> None:
    """A clone made with `https://TOKEN@github.com/…` keeps the token in
    .git/config, and `git remote -v` (a reader, allowed in read-only mode)
    printed it; so did `read .git/config` and the user's ~/.gitconfig's
    `insteadOf` URL through `git config --list`."""
    for name, url in (("origin", f"https://{URL_TOKEN}@github.com/me/repo.git"),
                      ("mirror", f"https://me:{URL_PASSWORD}@gitlab.example/me/repo.git")):
        subprocess.run(["git", "remote", "add", name, url], cwd=repo, check=True)
    (Path(env["HOME"]) / ".gitconfig").write_text(
        f'[url "https://{INSTEAD_TOKEN}@github.com/"]\n\tinsteadOf = https://github.com/\n'
    )
    calls = [
        call("bash", command="git remote -v"),
        call("read", path=".git/config"),
        call("bash", command="git config --list"),
    ]
    _done, body = one_turn_leaks_nothing(
        calls, mode, (URL_TOKEN, URL_PASSWORD, INSTEAD_TOKEN), cwd=repo, env=env
    )
    assert "[REDACTED:" in str(tool_results(body))


# -- 3: the provider's API key ---------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_provider_key_is_in_no_tool_environment_frame_or_file(
    mode: str, repo: Path, env: dict[str, str]
) -> None:
    calls = [
        call("bash", command="cat /proc/$PPID/environ"),
        call("bash", command="env | grep -i key"),
        call("bash", command="tr '\\0' '\\n' < /proc/$PPID/environ"),
        call("bash", command="printenv ANTHROPIC_API_KEY"),
    ]
    with hostile_luxe(
        [{"tool_calls": calls}, {"text": "done"}], mode, "--auto-approve", cwd=repo, env=env
    ) as (luxe, server):
        run_turn(luxe)
        # The test itself may read luxe's environment as any process could
        # (root can: luxe is non-dumpable, which hides it from the rest).
        try:
            with open(f"/proc/{luxe.pid}/environ", "rb") as f:
                assert PROVIDER_KEY.encode() not in f.read()
        except PermissionError:
            pass
        assert not leaked(PROVIDER_KEY, luxe, server)
        assert luxe.close() == 0
    assert PROVIDER_KEY not in everything_written(env)
    assert PROVIDER_KEY[:12] not in everything_written(env)


# A tool's program that finds luxe among its ancestors and searches its memory
# for the key, printed with a space between its characters (no redaction
# knows that form). Each reader says `<way> closed: <why>` where the kernel
# refuses it.
FIND_LUXE = r"""
import ctypes, os, re, sys
pid = os.getppid()
while pid > 1 and b"luxe" not in open(f"/proc/{pid}/cmdline", "rb").read():
    pid = int(open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[1])
KEY = rb"sk-ant-test-[0-9a-f]+"
libc = ctypes.CDLL(None, use_errno=True)

def regions():
    try:
        maps = open(f"/proc/{pid}/maps").read().splitlines()
    except OSError as exc:
        print("maps closed:", exc.strerror)
        return [(0x400000, 0x401000)]  # an address to ask about all the same
    out = []
    for line in maps:
        span, perms = line.split()[:2]
        start, end = (int(x, 16) for x in span.split("-"))
        if "r" in perms and "[v" not in line and end - start <= 256 << 20:
            out.append((start, end))
    return out

def show(found):
    print(" ".join(" ".join(k.decode()) for k in found) or "no key found")
"""
# Two spellings of the same file: the process's and its main thread's.
PROC_MEM = FIND_LUXE + r"""
found = set()
for mem_path in (f"/proc/{pid}/mem", f"/proc/{pid}/task/{pid}/mem"):
    try:
        mem = open(mem_path, "rb", 0)
    except OSError as exc:
        print(mem_path, "closed:", exc.strerror)
        continue
    for start, end in regions():
        try:
            mem.seek(start)
            found.update(re.findall(KEY, mem.read(end - start)))
        except OSError:
            continue
show(found)
"""
# No /proc file: the system call that copies another process's memory.
PROCESS_VM_READV = FIND_LUXE + r"""
class IoVec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]
readv = libc.process_vm_readv
readv.restype = ctypes.c_ssize_t
readv.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_ulong, ctypes.c_void_p, ctypes.c_ulong, ctypes.c_ulong]
found = set()
for start, end in regions():
    buf = ctypes.create_string_buffer(end - start)
    local, remote = IoVec(ctypes.addressof(buf), end - start), IoVec(start, end - start)
    n = readv(pid, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0)
    if n < 0:
        if ctypes.get_errno() in (1, 3):  # EPERM, ESRCH: none of it is ours to read
            print("process_vm_readv closed:", os.strerror(ctypes.get_errno()))
            break
        continue
    found.update(re.findall(KEY, buf.raw[:n]))
show(found)
"""
# A debugger's way: attached, the tracer may read (and write) every word of
# luxe's memory; it reads one to show it.
PTRACE_ATTACH = FIND_LUXE + r"""
ptrace = libc.ptrace
ptrace.restype = ctypes.c_long
ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
if ptrace(16, pid, None, None) != 0:  # PTRACE_ATTACH
    print("ptrace closed:", os.strerror(ctypes.get_errno()))
else:
    os.waitpid(pid, 0x40000000)  # __WALL: luxe has stopped for its tracer
    start = regions()[0][0]
    word = ptrace(2, pid, start, None)  # PTRACE_PEEKDATA
    print(f"ptrace attached: read {word & (1 << 64) - 1:#x} at {start:#x}")
    ptrace(17, pid, None, None)  # PTRACE_DETACH
"""
# The environment block (blanked besides) and the map of luxe's memory.
ENVIRON = FIND_LUXE + r"""
try:
    show(set(re.findall(KEY, open(f"/proc/{pid}/environ", "rb").read())))
except OSError as exc:
    print("environ closed:", exc.strerror)
regions()
"""


def _as_a_plain_user(tree: Path) -> list[str]:
    """The command that starts luxe as a user without privileges over other
    processes (as root: `nobody`, owning `tree`), where /proc honours the
    process's dumpable flag."""
    if os.geteuid() != 0:
        return LUXE
    for path in [tree, *tree.rglob("*")]:
        os.chown(path, 65534, 65534, follow_symlinks=False)
    return ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", *LUXE]


@pytest.mark.parametrize("mode", ["ask", "yolo"])
@pytest.mark.parametrize(
    ("reader", "refused"),
    [
        (PROC_MEM, ["mem closed: Permission denied"]),
        (PROCESS_VM_READV, ["maps closed: Permission denied", "process_vm_readv closed: Operation not permitted"]),
        (PTRACE_ATTACH, ["ptrace closed: Operation not permitted"]),
        (ENVIRON, ["environ closed: Permission denied", "maps closed: Permission denied"]),
    ],
    ids=["proc-mem", "process-vm-readv", "ptrace-attach", "environ-and-maps"],
)
def test_provider_key_is_not_in_reach_of_a_tool_reading_luxes_memory(
    mode: str, reader: str, refused: list[str]
) -> None:
    """The key is gone from the environment, but the provider holds it in
    memory: a bash call's program (a script the repository ships) read it
    from /proc/<luxe>/mem and printed it spaced out. Luxe is non-dumpable,
    so no other process of the user may open that file, nor copy luxe's
    memory with process_vm_readv, attach to it as a debugger, or read its
    environ and maps."""
    tree = Path(tempfile.mkdtemp(prefix="luxe-mem-"))
    try:
        env = make_env(tree)
        repo = make_repo(tree / "repo")
        (repo / "tool.py").write_text(reader)
        command = _as_a_plain_user(tree)
        steps = [{"tool_calls": [call("bash", command="python3 tool.py")]}, {"text": "ok"}]
        with FakeLLMServer(steps) as server:
            full = {**env, "ANTHROPIC_BASE_URL": server.base_url, "ANTHROPIC_API_KEY": PROVIDER_KEY}
            args = ["--model", MODEL, "--permission-mode", mode, "--auto-approve"]
            with LuxeProcess.start(args, cwd=repo, env=full, command=command) as luxe:
                luxe.handshake()
                run_turn(luxe)
                [result] = tool_results(server.bodies[-1])
                assert all(line in result for line in refused), result
                spaced = " ".join(PROVIDER_KEY)
                assert spaced not in str(server.bodies) and spaced not in str(luxe.frames)
                assert luxe.close() == 0
    finally:
        subprocess.run(["rm", "-rf", str(tree)], check=False)


# The kernel's way: lift luxe's limit on a core's size (a process of the same
# user may, with prlimit) and abort it. A dumpable luxe leaves its memory in
# a core file where it runs, in the project: the key with it.
CORE_DUMP = FIND_LUXE + r"""
import signal, subprocess
subprocess.run(["prlimit", f"--pid={pid}", "--core=unlimited"], check=True)
os.kill(pid, signal.SIGABRT)
"""


def _cores_in_the_working_directory() -> bool:
    """Whether the kernel writes a core to the dying process's directory
    (`core`, `core.%p`): elsewhere, or to a program, the tool cannot read it."""
    pattern = Path("/proc/sys/kernel/core_pattern").read_text().strip()
    return bool(pattern) and not pattern.startswith("|") and "/" not in pattern


@pytest.mark.skipif(not _cores_in_the_working_directory(), reason="the kernel writes cores elsewhere")
def test_provider_key_is_in_no_core_a_tool_makes_luxe_dump() -> None:
    """A tool aborts luxe after lifting its core limit: luxe dies (a tool
    may end it), but non-dumpable, it leaves no core for the tool to read."""
    tree = Path(tempfile.mkdtemp(prefix="luxe-core-"))
    try:
        env = make_env(tree)
        repo = make_repo(tree / "repo")
        (repo / "tool.py").write_text(CORE_DUMP)
        command = _as_a_plain_user(tree)
        steps = [{"tool_calls": [call("bash", command="python3 tool.py")]}, {"text": "ok"}]
        with FakeLLMServer(steps) as server:
            full = {**env, "ANTHROPIC_BASE_URL": server.base_url, "ANTHROPIC_API_KEY": PROVIDER_KEY}
            args = ["--model", MODEL, "--permission-mode", "yolo"]
            with LuxeProcess.start(args, cwd=repo, env=full, command=command) as luxe:
                luxe.handshake()
                luxe.send("submit_user_message", {"text": "go"})
                assert luxe.wait_exit() == -signal.SIGABRT
        cores = [p for p in tree.rglob("core*") if p.is_file()]
        assert [p for p in cores if PROVIDER_KEY.encode() in p.read_bytes()] == []
        assert cores == []
    finally:
        subprocess.run(["rm", "-rf", str(tree)], check=False)


# -- 5: values the redactor missed ------------------------------------------------------

DOTENV = (
    'QUOTED="dq-Ka9vX3mB7" # the comment\n'
    "MULTI=\"line-one-Pz4Lq8\nline-two-Rw6Ty1\"\n"
    'ESCAPED="esc\\"ape-Nv2Cz5"\n'
    "PLAIN=plain-Hs8Dj3 # trailing\n"
)
PRINTED = ["dq-Ka9vX3mB7", "line-one-Pz4Lq8", "line-two-Rw6Ty1", 'esc"ape-Nv2Cz5', "plain-Hs8Dj3"]


@pytest.mark.parametrize("mode", MODES)
def test_dotenv_values_are_parsed_as_applications_read_them(
    mode: str, repo: Path, env: dict[str, str]
) -> None:
    """An app that prints its own config: quotes and comments stripped,
    escapes undone, a multi-line value line by line."""
    (repo / ".env").write_text(DOTENV)
    (repo / "app.log").write_text("config:\n" + "\n".join(PRINTED) + "\n")
    calls = [call("read", path="app.log"), call("bash", command="cat app.log")]
    with hostile_luxe(
        [{"tool_calls": calls}, {"text": "done"}], mode, "--auto-approve", cwd=repo, env=env
    ) as (luxe, server):
        run_turn(luxe)
        for value in PRINTED:
            assert value not in str(server.bodies[-1]), value
            assert value not in str(luxe.frames), value
        assert luxe.close() == 0


CUT_VALUE = "cutval-M4xT9qL2wZ7r"


@pytest.mark.parametrize("mode", MODES)
def test_a_cut_never_leaves_a_piece_of_a_value(mode: str, repo: Path, env: dict[str, str]) -> None:
    """bash's head/tail cut, read's line cut and grep's line cut each fall
    inside the value (its first 10 characters before the cut)."""
    (repo / ".env").write_text(f"TOKEN={CUT_VALUE}\n")
    head = 16 * 1024
    (repo / "bash.out").write_text("x" * (head - 10) + CUT_VALUE + "y" * 40000)
    (repo / "long.txt").write_text("x" * (2000 - 10) + CUT_VALUE + "\n")
    (repo / "grep.txt").write_text("needle " + "x" * (300 - 17 - len("grep.txt:1:")) + CUT_VALUE + "\n")
    calls = [
        call("bash", command="cat bash.out"),
        call("read", path="long.txt"),
        call("grep", pattern="needle", path="grep.txt"),
    ]
    with hostile_luxe(
        [{"tool_calls": calls}, {"text": "done"}], mode, "--auto-approve", cwd=repo, env=env
    ) as (luxe, server):
        run_turn(luxe)
        results = tool_results(server.bodies[-1])
        assert len(results) == 3
        for result in results:
            assert CUT_VALUE[:8] not in result, result[-400:]
        assert not leaked(CUT_VALUE, luxe, server)
        assert luxe.close() == 0


def _git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.email=t@example.invalid", "-c", "user.name=t", *args],
        cwd=repo, check=True, capture_output=True,
    )  # fmt: skip


@pytest.mark.parametrize("mode", MODES)
def test_values_in_git_history_are_redacted(mode: str, repo: Path, env: dict[str, str]) -> None:
    """A removed .env (`git log -p`), a rotated key (`git diff` shows the old
    one being deleted) and a key only in an old commit of a nested file."""
    (repo / ".env").write_text("REMOVED=removed-Fk3Lz8Qw\n")
    (repo / "svc").mkdir()
    (repo / "svc" / ".env.production").write_text("ROTATED=old-rot-Vb7Nc2Xa\n")
    _git(repo, "add", "-f", ".env", "svc/.env.production")
    _git(repo, "commit", "-qm", "add env")
    _git(repo, "rm", "-q", ".env")
    _git(repo, "commit", "-qm", "remove env")
    (repo / "svc" / ".env.production").write_text("ROTATED=new-rot-Hy5Jm0Pe\n")
    calls = [
        call("bash", command="git log -p"),
        call("bash", command="git diff"),
        call("bash", command="git log --all --format=%H -p -- svc | cat"),
    ]
    values = ("removed-Fk3Lz8Qw", "old-rot-Vb7Nc2Xa", "new-rot-Hy5Jm0Pe")
    _, last = one_turn_leaks_nothing(calls, mode, values, cwd=repo, env=env)
    assert "[REDACTED:REMOVED]" in str(tool_results(last)), tool_results(last)[0][:500]


@pytest.mark.parametrize("mode", MODES)
def test_secret_files_under_skipped_directories_are_redacted(
    mode: str, repo: Path, env: dict[str, str]
) -> None:
    for where, value in (("node_modules/pkg", "nm-Wq4Ez7Ty"), (".venv/lib", "venv-Rt8Yu2Io"),
                         ("__pycache__", "pyc-Op6As1Df")):  # fmt: skip
        (repo / where).mkdir(parents=True)
        (repo / where / ".env").write_text(f"KEY={value}\n")
        (repo / where / "printed.txt").write_text(f"the key is {value}\n")
    calls = [
        call("bash", command="cat node_modules/pkg/printed.txt"),
        call("read", path=".venv/lib/printed.txt"),
        call("bash", command="cat __pycache__/printed.txt"),
    ]
    values = ("nm-Wq4Ez7Ty", "venv-Rt8Yu2Io", "pyc-Op6As1Df")
    one_turn_leaks_nothing(calls, mode, values, cwd=repo, env=env)


@pytest.mark.parametrize("mode", MODES)
def test_the_deferred_walk_is_done_before_anything_is_checked(
    mode: str, repo: Path, env: dict[str, str]
) -> None:
    """The project's walk for secret files runs after the handshake, in a
    worker thread; nothing of the first turn may be checked before it ends.
    Hard links to secrets found only by that walk (deep in the tree, and in a
    skipped directory), as an attachment, as AGENTS.md and as the first tool
    call's file, right after ready."""
    deep = repo / "a" / "b" / "c"
    deep.mkdir(parents=True)
    (deep / ".env.local").write_text(f"DEEP={ENV_VALUE}\n")
    skipped = repo / "node_modules" / "pkg"
    skipped.mkdir(parents=True)
    (skipped / ".env").write_text("NM_TOKEN=nm-deferred-Zq81Xw\n")
    os.link(deep / ".env.local", repo / "notes.txt")
    os.link(skipped / ".env", repo / "AGENTS.md")
    os.link(deep / ".env.local", repo / "summary.md")
    steps = [{"tool_calls": [call("read", path="summary.md")]}, {"text": "ok"}]
    with hostile_luxe(steps, mode, "--auto-approve", cwd=repo, env=env) as (luxe, server):
        luxe.send("submit_user_message", {"text": "go", "attachments": [{"path": "notes.txt"}]})
        assert luxe.collect_until("turn_ended")[-1]["content"]["reason"] == "end_turn"
        first = server.bodies[0]
        attachment = str(first["messages"][0]["content"])
        assert "refused: refused" not in attachment and "secret file" in attachment, attachment
        assert "NM_TOKEN" not in str(first.get("system"))  # AGENTS.md left out
        results = tool_results(server.bodies[1])
        assert "secret" in results[0], results
        for value in (ENV_VALUE, "nm-deferred-Zq81Xw"):
            assert not leaked(value, luxe, server), value
        assert luxe.close() == 0


@pytest.mark.parametrize("mode", MODES)
def test_a_shell_command_right_after_ready_waits_for_the_walk(
    mode: str, repo: Path, env: dict[str, str]
) -> None:
    """`!cat notes.txt` (run_shell) as the first thing: the hard link to a
    deep .env is refused as a secret file, as it is later in the session."""
    deep = repo / "x" / "y"
    deep.mkdir(parents=True)
    (deep / ".env").write_text(f"DEEP={ENV_VALUE}\n")
    os.link(deep / ".env", repo / "notes.txt")
    with hostile_luxe([{"text": "ok"}], mode, "--auto-approve", cwd=repo, env=env) as (luxe, server):
        luxe.send("run_shell", {"command": "cat notes.txt"})
        frames = luxe.collect_until("turn_ended")
        finished = next(f["content"] for f in frames if f["kind"] == "tool_finished")
        assert finished["denied"] and "secret" in finished["reason"], finished
        assert not leaked(ENV_VALUE, luxe, server)
        assert luxe.close() == 0


@pytest.mark.parametrize("mode", MODES)
def test_more_spellings_right_after_ready(mode: str, repo: Path, env: dict[str, str]) -> None:
    """Attached at once after ready, before the walk may have ended: an
    option-looking hard link and one with no extension to a deep secret, an
    absolute and a relative symlink to it, and a FIFO (answered, never read:
    the turn does not freeze). The first tool call reads the option-looking
    name."""
    deep = repo / "p" / "q" / "r"
    deep.mkdir(parents=True)
    (deep / ".env.production").write_text(f"PROD={ENV_VALUE}\n")
    os.link(deep / ".env.production", repo / "--config.md")
    os.link(deep / ".env.production", repo / "Makefile2")
    (repo / "abs.md").symlink_to(deep / ".env.production")
    (repo / "rel.md").symlink_to("p/q/r/.env.production")
    os.mkfifo(repo / "pipe.md")
    names = ["--config.md", "Makefile2", "abs.md", "rel.md"]
    steps = [{"tool_calls": [call("read", path="--config.md")]}, {"text": "ok"}]
    with hostile_luxe(steps, mode, "--auto-approve", cwd=repo, env=env) as (luxe, server):
        attached = [{"path": name} for name in [*names, "pipe.md"]]
        luxe.send("submit_user_message", {"text": "go", "attachments": attached})
        assert luxe.collect_until("turn_ended")[-1]["content"]["reason"] == "end_turn"
        content = str(server.bodies[0]["messages"][0]["content"])
        assert content.count("names a secret file") == len(names), content
        assert "not a regular file" in content  # the FIFO
        assert "secret" in tool_results(server.bodies[1])[0]
        assert not leaked(ENV_VALUE, luxe, server)
        assert luxe.close() == 0


@pytest.mark.parametrize("mode", ["accept-edits", "yolo"])
@pytest.mark.parametrize(
    "made",
    ["svc/deep/.env.production", "node_modules/pkg/.env", "conf/.npmrc"],
)
def test_a_secret_a_call_creates_is_known_to_the_next_call(
    made: str, mode: str, repo: Path, env: dict[str, str]
) -> None:
    """A repository script (its text hidden from the policy) writes a new
    secret file and a log holding its value; the look after the call, now in
    a worker thread, must know the value before the next call's output."""
    value = "made-by-script-Hq2Wz9Lp"
    line = f"//registry.example.invalid/:_authToken={value}" if made.endswith(".npmrc") else f"KEY={value}"
    (repo / "gen.sh").write_text(
        f"mkdir -p {Path(made).parent}\nprintf '%s\\n' '{line}' > {made}\n"
        f"printf 'the value is %s\\n' '{value}' > out.log\n"
    )
    steps = [
        {"tool_calls": [call("bash", command="sh gen.sh")]},
        {"tool_calls": [call("read", path="out.log")]},
        {"text": "ok"},
    ]
    with hostile_luxe(steps, mode, "--auto-approve", cwd=repo, env=env) as (luxe, server):
        frames = run_turn(luxe)
        assert frames[-1]["content"]["reason"] == "end_turn"
        assert (repo / made).exists()
        assert "[REDACTED" in tool_results(server.bodies[2])[-1], tool_results(server.bodies[2])
        assert not leaked(value, luxe, server)
        assert luxe.close() == 0
