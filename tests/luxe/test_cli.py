"""The command line: every flag is handled or refused with a message."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.luxe.conftest import SpawnLuxe


def luxe(*args: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "luxe", *args], env=env, cwd=cwd,
        capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL,
    )


def test_version_and_help(env: dict[str, str], repo: Path) -> None:
    done = luxe("--version", env=env, cwd=repo)
    assert (done.returncode, done.stdout.strip()) == (0, "luxe 0.1.0")
    done = luxe("--help", env=env, cwd=repo)
    assert done.returncode == 0
    for flag in ("--rpc", "--model", "--permission-mode", "--continue", "--resume", "--github-writes",
                 "--read-only", "--yolo", "--auto-approve", "--trust-project", "--verbose", "--max-turns"):
        assert flag in done.stdout, flag


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--rpc", "--on-ask", "deny"], "your client answers permission prompts"),
        ([], "the interface needs a terminal on stdin and stdout"),
        (["--rpc", "--read-only", "--yolo"], "contradict"),
        (["--rpc", "-c", "--resume", "x"], "contradict"),
        (["--rpc", "--model", "nonsense"], "expected provider/name"),
        (["--rpc", "--permission-mode", "maybe"], "invalid choice"),
        (["--rpc", "--max-turns", "0"], "at least 1"),
    ],
)
def test_refused_command_lines_exit_2_with_a_message(
    args: list[str], message: str, env: dict[str, str], repo: Path
) -> None:
    done = luxe(*args, env=env, cwd=repo)
    assert done.returncode == 2
    assert message in done.stderr
    assert done.stdout == ""


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ('{"max_turns": "many"}', "max_turns"),
        ('{"laura": {"show_edits": "yes"}}', "laura"),
        ('{"laura": true}', "laura"),
    ],
)
def test_bad_settings_file_is_refused(env: dict[str, str], repo: Path, text: str, key: str) -> None:
    settings = Path(env["XDG_CONFIG_HOME"]) / "luxe" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(text)
    done = luxe("--rpc", env=env, cwd=repo)
    assert done.returncode == 2 and key in done.stderr and str(settings) in done.stderr


def test_settings_choose_model_and_max_turns(spawn: SpawnLuxe, env: dict[str, str], tmp_path: Path) -> None:
    script = tmp_path / "s.jsonl"
    script.write_text('{"tool_calls": [{"name": "ls", "args": {}}]}\n' * 3)
    settings = Path(env["XDG_CONFIG_HOME"]) / "luxe" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps({"model": f"scripted:{script}", "max_turns": 1}))
    proc = spawn(None)
    proc.handshake()
    assert proc.frames[1]["content"]["model"]["id"] == f"scripted:{script}"
    proc.send("submit_user_message", {"text": "loop"})
    assert proc.expect("turn_ended")["reason"] == "max_turns"
    assert proc.close() == 0
    # Logs went to the state dir, never stdout.
    assert (Path(env["XDG_STATE_HOME"]) / "luxe" / "luxe.log").exists()


@pytest.mark.parametrize(
    "rule",
    ["nosuchtool\x1b]0;owned\x07(x)", "nosuchtool\rforged line(x)", "nosuchtool\x9b2J(x)"],
)
def test_a_refusal_quoting_a_projects_file_writes_no_control_character(
    env: dict[str, str], repo: Path, rule: str
) -> None:
    # A trusted project's rules are quoted in the refusal, on a terminal's stderr.
    (repo / ".luxe").mkdir()
    (repo / ".luxe" / "permissions.json").write_text(json.dumps({"allow": [rule]}))
    for face in (["-p", "hi"], ["--rpc"]):
        done = luxe(*face, "--trust-project", "--model", "scripted:/dev/null", env=env, cwd=repo)
        assert done.returncode == 2, done.stderr
        assert "invalid permissions file" in done.stderr
        assert "nosuchtool\ufffd" in done.stderr
        controls = [c for c in done.stderr if (c < " " and c != "\n") or "\x7f" <= c <= "\x9f"]
        assert controls == [], done.stderr
