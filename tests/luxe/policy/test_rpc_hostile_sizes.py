"""A repository sized to exhaust Luxe: a file of hundreds of megabytes kept
in a pack of a few (a repeated line compresses to almost nothing), in git's
history or in a change under review. Luxe reads a bounded part of what git
prints, so its memory stays near an ordinary session's, and refuses what it
cannot show with a clear answer. Through the real `luxe --rpc`."""

from __future__ import annotations

import base64
import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers.procs import peak_rss_kb

from .e2e import call, tool_results
from .hostile import hostile_luxe, leaked, run_turn

LINE = b"SOME_TOKEN=abcdefghijklmnopqrstuvwxyz0123456789\n"
HUGE = 160 << 20  # bytes of the file; its pack is under 2 MB
# Luxe's peak resident memory in an ordinary session is some 40 MB; reading
# the huge file whole took it past 600 MB.
PEAK_LIMIT_KB = 160 << 10


def _git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.email=t@example.invalid", "-c", "user.name=t", *args],
        cwd=repo, check=True, capture_output=True,
    )  # fmt: skip


def _huge(path: Path) -> None:
    with path.open("wb") as f:
        f.write(LINE * (HUGE // len(LINE)))



def _grown_then_removed(repo: Path, name: str) -> None:
    """`name` committed small, then huge, then removed: only history has it."""
    _huge(repo / name)
    _git(repo, "add", "-f", name)
    _git(repo, "commit", "-qm", f"grow {name}")
    _git(repo, "rm", "-q", name)
    _git(repo, "commit", "-qm", f"remove {name}")


def _staged_huge(repo: Path, name: str) -> None:
    """`name` huge in the index only (`git cat-file` would print it)."""
    _huge(repo / name)
    _git(repo, "add", "-f", name)
    (repo / name).unlink()


@pytest.mark.parametrize(
    ("name", "plant"),
    [
        (".env", _grown_then_removed),  # `git log -p` prints it
        ("svc/deploy/.env.production", _grown_then_removed),  # nested, another name
        (".env.local", _staged_huge),  # only in the index: `git cat-file` prints it
    ],
)
def test_a_huge_secret_file_in_history_costs_no_memory_and_hides_nothing(
    repo: Path, env: dict[str, str], name: str, plant: Callable[[Path, str], None]
) -> None:
    """An old .env with a secret, then a huge secret file over it in git
    (removed from the checkout): the secret search reads git's history and
    index as before, but never the huge file whole."""
    secret = "removed-Fk3Lz8Qw"
    (repo / ".env").write_text(f"REMOVED={secret}\n")
    _git(repo, "add", "-f", ".env")
    _git(repo, "commit", "-qm", "add env")
    _git(repo, "rm", "-q", ".env")
    _git(repo, "commit", "-qm", "remove env")
    (repo / name).parent.mkdir(parents=True, exist_ok=True)
    plant(repo, name)
    # Prints the old secret without naming it: only redaction can hide it.
    printed = f"echo {base64.b64encode(secret.encode()).decode()} | base64 -d"
    steps = [{"tool_calls": [call("bash", command=printed)]}, {"text": "done"}]
    with hostile_luxe(steps, "yolo", cwd=repo, env=env) as (luxe, server):
        run_turn(luxe)
        assert peak_rss_kb(luxe.pid) < PEAK_LIMIT_KB
        assert tool_results(server.bodies[-1]) == ["[REDACTED:REMOVED]\n[exit status 0]"]
        assert not leaked(secret, luxe, server)
        assert luxe.close() == 0


def test_a_huge_change_under_review_is_refused_and_the_session_goes_on(
    repo: Path, env: dict[str, str]
) -> None:
    """A commit, a range, the index and the working tree (an untracked file)
    each holding a huge file: each load is refused with the reason, memory
    stays low, and a review of an ordinary commit still loads after."""
    _huge(repo / "generated.py")
    _git(repo, "add", "generated.py")
    _git(repo, "commit", "-qm", "vendor a generated file")
    _huge(repo / "staged.py")
    _git(repo, "add", "staged.py")
    _huge(repo / "untracked.py")
    targets = [
        {"kind": "commit", "sha": "HEAD"},
        {"kind": "range", "base": "HEAD~1", "head": "HEAD"},
        {"kind": "staged"},
        {"kind": "working_tree"},
    ]
    with hostile_luxe([], "ask", cwd=repo, env=env) as (luxe, _server):
        for index, target in enumerate(targets):
            luxe.send("load_guided_review", {"request_id": f"r{index}", "target": target})
            failed = luxe.expect(
                "guided_review_load_failed", where=lambda c, i=index: c["request_id"] == f"r{i}"
            )
            assert "too large to review" in failed["reason"], (target, failed)
        luxe.send("load_guided_review", {"request_id": "ok", "target": {"kind": "commit", "sha": "HEAD~1"}})
        loaded = luxe.expect("guided_review_loaded", where=lambda c: c["request_id"] == "ok")
        assert loaded["review"]["target"] == {"kind": "commit", "sha": "HEAD~1"}
        assert peak_rss_kb(luxe.pid) < PEAK_LIMIT_KB
        assert luxe.close() == 0


def _begin_lines(repo: Path) -> None:
    (repo / "deploy").mkdir()
    (repo / "deploy" / "server.pem").write_text("-----BEGIN A-----\n" * 50_000)


def _alternating_labels(repo: Path) -> None:
    (repo / "id_rsa").write_text("-----BEGIN A-----\n-----BEGIN B-----\n-----END C-----\n" * 20_000)


def _values_in_history(repo: Path) -> None:
    # Up to 8 MB of history is read (a bigger file counts as binary): 7 MB.
    (repo / ".env").write_text("".join(f"K{n}=value-{n:010d}\n" for n in range(300_000)))
    _git(repo, "add", "-f", ".env")
    _git(repo, "commit", "-qm", "env")
    _git(repo, "rm", "-q", ".env")
    _git(repo, "commit", "-qm", "no env")


@pytest.mark.parametrize("plant", [_begin_lines, _alternating_labels, _values_in_history])
def test_files_built_to_slow_the_secret_search_do_not(
    repo: Path, env: dict[str, str], plant: Callable[[Path], None]
) -> None:
    """A key file of nothing but BEGIN lines, or of BEGINs and ENDs that never
    pair (a PEM regex searched on from each: minutes), and a .env of
    hundreds of thousands of values in history (kept unique in a list:
    quadratic). The first tool call waits for the secret search; it answers
    within the driver's timeouts, and a real private key beside them is still
    redacted."""
    plant(repo)
    key = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC"
    (repo / "keys").mkdir()
    (repo / "keys" / "id_ed25519").write_text(
        f"-----BEGIN OPENSSH PRIVATE KEY-----\n{key}\n-----END OPENSSH PRIVATE KEY-----\n"
    )
    printed = f"echo {base64.b64encode(key.encode()).decode()} | base64 -d"
    steps = [{"tool_calls": [call("bash", command=printed)]}, {"text": "done"}]
    with hostile_luxe(steps, "yolo", cwd=repo, env=env) as (luxe, server):
        run_turn(luxe)
        assert tool_results(server.bodies[-1]) == ["[REDACTED:id_ed25519]\n[exit status 0]"]
        assert luxe.close() == 0


def _one_big_env(repo: Path) -> None:
    (repo / ".env").write_text("".join(f"K{n}=value-{n:010d}\n" for n in range(3000)))


def _many_env_files(repo: Path) -> None:
    for d in range(40):
        (repo / f"svc{d}").mkdir()
        (repo / f"svc{d}" / ".env").write_text(
            "".join(f"K{n}=value-{d:03d}-{n:06d}\n" for n in range(100))
        )


def _history_only(repo: Path) -> None:
    _one_big_env(repo)
    _git(repo, "add", "-f", ".env")
    _git(repo, "commit", "-qm", "env")
    _git(repo, "rm", "-q", ".env")
    _git(repo, "commit", "-qm", "no env")


@pytest.mark.parametrize("plant", [_one_big_env, _many_env_files, _history_only])
def test_a_repository_full_of_values_cannot_push_the_persons_credentials_out(
    repo: Path, env: dict[str, str], plant: Callable[[Path], None]
) -> None:
    """Redaction keeps a bounded number of values. A repository's .env of
    thousands came first and pushed the person's own credentials out; a
    program that computes their file's name (which no policy can see) then
    showed the token to the model."""
    token = "gho_Zx81mQ3vT6yL0pR9sW2nK5"
    hosts = Path(env["HOME"]) / ".config" / "gh" / "hosts.yml"
    hosts.parent.mkdir(parents=True)
    hosts.write_text(f"github.com:\n    oauth_token: {token}\n    user: me\n")
    plant(repo)
    computed = "python3 -c \"import os; print(open(os.path.expanduser('~/.config/gh/ho' + 'sts.yml')).read())\""
    steps = [{"tool_calls": [call("bash", command=computed)]}, {"text": "done"}]
    with hostile_luxe(steps, "yolo", cwd=repo, env=env) as (luxe, server):
        run_turn(luxe)
        shown = tool_results(server.bodies[-1])[0]
        assert "oauth_token: [REDACTED:" in shown, shown
        assert not leaked(token, luxe, server)
        assert luxe.close() == 0


@pytest.mark.parametrize(
    ("head", "offset"),
    [
        (b"x" * 9000, 2),
        (b"x" * 9000, 1_000_000),
        # A million short lines before the hole: the skip passes them one
        # by one, then meets the line without end.
        (b"x\n" * 1_000_000, 2_000_000),
    ],
    ids=["past-the-first-line", "far-past-it", "past-a-million-lines"],
)
def test_reading_far_into_a_huge_file_never_holds_the_session(
    head: bytes, offset: int, repo: Path, env: dict[str, str]
) -> None:
    """A sparse file of 1 TiB, some text and then no line end: `read` past
    the text skipped all of the rest on the event loop, so for the best part
    of an hour nothing else happened (not even the call's tool_started
    frame, nor a cancel). A cancel now ends the call at once."""
    with (repo / "huge.log").open("wb") as f:
        f.write(head)
        f.truncate(1 << 40)
    steps = [{"tool_calls": [call("read", path="huge.log", offset=offset)]}, {"text": "done"}]
    with hostile_luxe(steps, "ask", cwd=repo, env=env) as (luxe, _server):
        luxe.send("submit_user_message", {"text": "go"})
        luxe.expect("tool_started", timeout=20)
        luxe.send("cancel_turn")
        assert luxe.expect("turn_ended", timeout=20)["reason"] == "cancelled"
        assert luxe.close() == 0


def test_a_glob_never_follows_a_link_nor_recurses_out_of_its_stack(
    repo: Path, env: dict[str, str]
) -> None:
    """Ten links to their own directory made `a/*/*/*/*/*/*/f` a million
    matches (500 MB, 21 s; each `*` more, ten times that), and 1,500 nested
    directories made glob crash (RecursionError). A glob now enters no
    linked directory and walks with its own stack."""
    (repo / "a").mkdir()
    (repo / "a" / "f").write_text("x\n")
    for n in range(10):
        (repo / "a" / f"l{n}").symlink_to(".")
    fd = os.open(repo, os.O_RDONLY)
    for _ in range(1500):  # by descriptor: the path grows past PATH_MAX
        os.mkdir("d", dir_fd=fd)
        inner = os.open("d", os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = inner
    with os.fdopen(os.open("f.txt", os.O_WRONLY | os.O_CREAT, dir_fd=fd), "w") as f:
        f.write("bottom\n")
    os.close(fd)
    calls = [
        call("glob", pattern="a/*/*/*/*/*/*/f"),
        call("glob", pattern="a/l?/l?/l?/l?/l?/l?/f"),
        call("glob", pattern="**/f.txt"),
    ]
    try:
        with hostile_luxe(
            [{"tool_calls": calls}, {"text": "done"}], "ask", cwd=repo, env=env
        ) as (luxe, server):
            run_turn(luxe)
            assert peak_rss_kb(luxe.pid) < PEAK_LIMIT_KB
            loops, loops_again, bottom = tool_results(server.bodies[-1])
            assert loops == loops_again == "no files match"
            assert bottom.startswith("d/d/") and bottom.endswith("/d/f.txt"), bottom[:80]
            assert luxe.close() == 0
    finally:
        # rm walks any depth; pytest's own clean-up (shutil.rmtree) recurses.
        subprocess.run(["rm", "-rf", str(repo / "d")], check=True)
