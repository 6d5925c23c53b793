"""A repository sized to exhaust Luxe: a file of hundreds of megabytes kept
in a pack of a few (a repeated line compresses to almost nothing), in git's
history or in a change under review. Luxe reads a bounded part of what git
prints, so its memory stays near an ordinary session's, and refuses what it
cannot show with a clear answer. Through the real `luxe --rpc`."""

from __future__ import annotations

import base64
import subprocess
from pathlib import Path

from tests.luxe.rpc_driver import LuxeProcess

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


def _peak_kb(luxe: LuxeProcess) -> int:
    for line in Path(f"/proc/{luxe.pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise AssertionError("no VmHWM")


def test_a_huge_secret_file_in_history_costs_no_memory_and_hides_nothing(
    repo: Path, env: dict[str, str]
) -> None:
    """An old .env with a secret, then a huge one over it, then removed: the
    secret search reads git's history as before, but never the huge file."""
    secret = "removed-Fk3Lz8Qw"
    (repo / ".env").write_text(f"REMOVED={secret}\n")
    _git(repo, "add", "-f", ".env")
    _git(repo, "commit", "-qm", "add env")
    _huge(repo / ".env")
    _git(repo, "commit", "-qam", "grow env")
    _git(repo, "rm", "-q", ".env")
    _git(repo, "commit", "-qm", "remove env")
    # Prints the old secret without naming it: only redaction can hide it.
    printed = f"echo {base64.b64encode(secret.encode()).decode()} | base64 -d"
    steps = [{"tool_calls": [call("bash", command=printed)]}, {"text": "done"}]
    with hostile_luxe(steps, "yolo", cwd=repo, env=env) as (luxe, server):
        run_turn(luxe)
        assert _peak_kb(luxe) < PEAK_LIMIT_KB
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
        assert _peak_kb(luxe) < PEAK_LIMIT_KB
        assert luxe.close() == 0


def test_files_built_to_slow_the_secret_search_do_not(repo: Path, env: dict[str, str]) -> None:
    """A key file of nothing but BEGIN lines (a PEM regex searched on from
    each: minutes) and a .env of 60,000 values (kept unique in a list:
    quadratic). The first tool call waits for the secret search; it answers
    within the driver's timeouts, and a real private key beside them is still
    redacted."""
    (repo / "deploy").mkdir()
    (repo / "deploy" / "server.pem").write_text("-----BEGIN A-----\n" * 50_000)
    (repo / ".env").write_text("".join(f"K{n}=value-{n:010d}\n" for n in range(60_000)))
    key = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC"
    (repo / "deploy" / "id_ed25519").write_text(
        f"-----BEGIN OPENSSH PRIVATE KEY-----\n{key}\n-----END OPENSSH PRIVATE KEY-----\n"
    )
    printed = f"echo {base64.b64encode(key.encode()).decode()} | base64 -d"
    steps = [{"tool_calls": [call("bash", command=printed)]}, {"text": "done"}]
    with hostile_luxe(steps, "yolo", cwd=repo, env=env) as (luxe, server):
        run_turn(luxe)
        assert tool_results(server.bodies[-1]) == ["[REDACTED:id_ed25519]\n[exit status 0]"]
        assert luxe.close() == 0


def test_a_repository_full_of_values_cannot_push_the_persons_credentials_out(
    repo: Path, env: dict[str, str]
) -> None:
    """Redaction keeps a bounded number of values. A repository's .env of
    thousands came first and pushed the person's own credentials out; a
    program that computes their file's name (which no policy can see) then
    showed the token to the model."""
    token = "gho_Zx81mQ3vT6yL0pR9sW2nK5"
    hosts = Path(env["HOME"]) / ".config" / "gh" / "hosts.yml"
    hosts.parent.mkdir(parents=True)
    hosts.write_text(f"github.com:\n    oauth_token: {token}\n    user: me\n")
    (repo / ".env").write_text("".join(f"K{n}=value-{n:010d}\n" for n in range(3000)))
    computed = "python3 -c \"import os; print(open(os.path.expanduser('~/.config/gh/ho' + 'sts.yml')).read())\""
    steps = [{"tool_calls": [call("bash", command=computed)]}, {"text": "done"}]
    with hostile_luxe(steps, "yolo", cwd=repo, env=env) as (luxe, server):
        run_turn(luxe)
        shown = tool_results(server.bodies[-1])[0]
        assert "oauth_token: [REDACTED:" in shown, shown
        assert not leaked(token, luxe, server)
        assert luxe.close() == 0
