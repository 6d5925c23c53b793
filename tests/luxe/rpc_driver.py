"""A small driver for a real `luxe --rpc` process, for tests of any helper.

    from tests.luxe.rpc_driver import LuxeProcess, write_script, make_env

    env = make_env(tmp_path)                       # private HOME and XDG dirs
    script = write_script(tmp_path, [{"text": "hello"}])
    with LuxeProcess.start(["--model", f"scripted:{script}"], cwd=repo, env=env) as luxe:
        luxe.handshake()                           # ready, state_changed
        luxe.send("submit_user_message", {"text": "hi"})
        ended = luxe.expect("turn_ended")          # content dict of the frame
        assert ended["reason"] == "end_turn"
        luxe.close()                               # sends close, waits for exit 0

`expect(kind, timeout)` returns the content of the next frame of that kind,
skipping (but keeping) others; `luxe.frames` holds every frame read so far,
in order, as `{"kind", "content"}` dicts. A reader thread parses stdout; a
line that is not JSON fails the next `expect` (stdout must carry only frames).
"""

from __future__ import annotations

import json
import os
import queue
import secrets
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from tests.fakes.llm_server import FakeLLMServer
from tests.helpers.gitrepo import make_repo as make_repo
from tests.helpers.procs import kill_group, live_pids_with_env, processes
from tests.helpers.procs import live_descendants as live_descendants
from tests.helpers.procs import live_processes_in_group as live_processes_in_group
from tests.helpers.wait import wait_until as wait_until

LUXE = [sys.executable, "-m", "luxe"]

# Default bounds for reading a frame and for luxe to exit. They only guard
# against a hang (pytest-timeout is the backstop), so they are generous: on a
# loaded 2-core CI machine starting Python and importing luxe alone can take
# seconds. Tests never assert speed (bench/ measures it).
FRAME_TIMEOUT_S = 60.0
EXIT_TIMEOUT_S = 30.0

# The environment variable that marks a test's processes (value per make_env).
SCOPE_VAR = "LUXE_TEST_PROCESS_SCOPE"


def make_env(base: Path, **extra: str) -> dict[str, str]:
    """Environment with private HOME/XDG dirs under `base` (created)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "LUXE_"))}
    for var, name in (
        ("HOME", "home"),
        ("XDG_CONFIG_HOME", "config"),
        ("XDG_DATA_HOME", "data"),
        ("XDG_STATE_HOME", "state"),
        ("XDG_RUNTIME_DIR", "runtime"),
    ):
        path = base / "xdg" / name
        path.mkdir(parents=True, exist_ok=True)
        env[var] = str(path)
    env.pop("ANTHROPIC_API_KEY", None)
    env.pop("OPENAI_API_KEY", None)
    env.pop("LAURA_TAB", None)  # a suite run inside Laura must not host its luxes there
    # Every process luxe starts inherits this: /proc checks and kills in a
    # test look only at processes carrying its value (see processes_with_marker).
    env[SCOPE_VAR] = uuid.uuid4().hex
    # Language servers start only where a test asks for them (tests/luxe/lsp):
    # elsewhere a type checker's cold start would add seconds to each test
    # that writes a .py file, and its words to the tool results.
    env["LUXE_LSP_ON_EDIT"] = "0"
    env.update(extra)
    return env


# -- what many luxe tests build or read ------------------------------------------


def call(name: str, **args: Any) -> dict[str, Any]:
    """A scripted tool call: `{"name", "args"}`."""
    return {"name": name, "args": args}


def session_records(env: dict[str, str], session_id: str) -> list[dict[str, Any]]:
    """The records of a session file (under the env's XDG_DATA_HOME)."""
    path = Path(env["XDG_DATA_HOME"]) / "luxe" / "sessions" / f"{session_id}.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


def tool_results(env: dict[str, str], session_id: str) -> list[dict[str, Any]]:
    """Every tool_result block a session recorded, in order."""
    out = []
    for record in session_records(env, session_id):
        if record["type"] == "message":
            out += [b for b in record["message"]["content"] if b["type"] == "tool_result"]
    return out


def provider_env(server: FakeLLMServer, provider: str) -> dict[str, str]:
    """Environment for luxe to talk to the fake server as `provider`."""
    if provider == "anthropic":
        return {
            "ANTHROPIC_BASE_URL": server.base_url,
            "ANTHROPIC_API_KEY": "test-key",
            "LUXE_MODEL": "anthropic/claude-sonnet-4-5",
        }
    return {
        "OPENAI_BASE_URL": server.openai_base_url,
        "OPENAI_API_KEY": "test-key",
        "LUXE_MODEL": "openai/gpt-4.1-mini",
    }


def unique_duration() -> str:
    """A long `sleep` duration (10-16 minutes) with digits no other test or
    concurrent test run uses, e.g. '731.504193847'. `sleep <it>` then marks
    its process for processes_with_marker: fixed markers would match the
    processes of another run of the suite on the same machine."""
    return f"{600 + secrets.randbelow(400)}.{secrets.randbelow(10**9):09d}"


def write_script(
    directory: Path, steps: Iterable[Mapping[str, Any]], name: str = "script.jsonl"
) -> Path:
    """A `scripted:` model script, one step per model request."""
    path = directory / name
    path.write_text("".join(json.dumps(s) + "\n" for s in steps))
    return path


class FrameTimeout(AssertionError):
    pass


class LuxeProcess:
    """One spawned `luxe --rpc` with its pipes. Use as a context manager:
    on exit a still-running process is killed (whole group) and reaped."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self.process = process
        self.frames: list[dict[str, Any]] = []
        self._queue: queue.Queue[dict[str, Any] | Exception | None] = queue.Queue()
        self._pending: list[dict[str, Any]] = []
        self._at_eof = False
        self._stderr = bytearray()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        # Drain stderr too: a full stderr pipe would block luxe mid-write.
        self._stderr_reader = threading.Thread(target=self._read_stderr, daemon=True)
        self._stderr_reader.start()

    @classmethod
    def start(
        cls,
        args: Sequence[str] = (),
        *,
        cwd: Path,
        env: Mapping[str, str],
        command: Sequence[str] = LUXE,
    ) -> LuxeProcess:
        process = subprocess.Popen(
            [*command, "--rpc", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env=dict(env),
            start_new_session=True,
        )
        return cls(process)

    @property
    def pid(self) -> int:
        return self.process.pid

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            try:
                frame = json.loads(line)
                assert isinstance(frame, dict) and "kind" in frame, line
            except Exception as exc:
                self._queue.put(AssertionError(f"stdout line is not a frame: {line!r} ({exc})"))
                continue
            self._queue.put(frame)
        self._queue.put(None)

    def _read_stderr(self) -> None:
        assert self.process.stderr is not None
        for chunk in iter(lambda: self.process.stderr.read1(65536), b""):  # type: ignore[union-attr]
            self._stderr += chunk

    # -- sending ----------------------------------------------------------------

    def send(self, kind: str, content: Mapping[str, Any] | None = None) -> None:
        frame: dict[str, Any] = {"kind": kind}
        if content is not None:
            frame["content"] = dict(content)
        self.send_raw(json.dumps(frame).encode() + b"\n")

    def send_raw(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def close_stdin(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()

    def stop(self, how: str) -> None:
        """End the session as a client or an operator would: `close` (the
        action), `stdin EOF`/`eof`, or a signal's name (`SIGTERM`...)."""
        if how == "close":
            self.send("close")
        elif how in ("stdin EOF", "eof"):
            self.close_stdin()
        else:
            os.kill(self.pid, getattr(signal, how))

    # -- receiving --------------------------------------------------------------

    def next_frame(self, timeout: float = FRAME_TIMEOUT_S) -> dict[str, Any]:
        """The next frame of any kind, as `{kind, content?}`."""
        if self._pending:
            return self._pending.pop(0)
        try:
            item = self._queue.get(timeout=timeout)
        except queue.Empty:
            raise FrameTimeout(
                f"no frame within {timeout}s; last frames: {self.frames[-5:]}"
            ) from None
        if item is None:
            self._queue.put(None)  # stay at EOF for later calls
            self._at_eof = True
            raise FrameTimeout(f"luxe closed stdout; stderr: {self.stderr_text()[-2000:]}")
        if isinstance(item, Exception):
            raise item
        self.frames.append(item)
        return item

    def expect(
        self,
        kind: str,
        timeout: float = FRAME_TIMEOUT_S,
        where: Callable[[dict[str, Any]], bool] | None = None,
    ) -> dict[str, Any]:
        """Content of the next `kind` frame (matching `where`), skipping others."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise FrameTimeout(
                    f"no {kind} frame within {timeout}s; last frames: {self.frames[-8:]}"
                )
            frame = self.next_frame(left)
            content = frame.get("content", {})
            if frame["kind"] == kind and (where is None or where(content)):
                return content

    def handshake(self, timeout: float = FRAME_TIMEOUT_S) -> dict[str, Any]:
        """Read `ready`, `state_changed` (and `session_info` when resumed);
        returns the ready content."""
        first = self.next_frame(timeout)
        assert first["kind"] == "ready", first
        ready: dict[str, Any] = first["content"]
        assert self.next_frame(timeout)["kind"] == "state_changed"
        if ready.get("resumed"):
            assert self.next_frame(timeout)["kind"] == "session_info"
        return ready

    def collect_until(self, kind: str, timeout: float = FRAME_TIMEOUT_S) -> list[dict[str, Any]]:
        """Every frame up to and including the next `kind` frame."""
        out = []
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise FrameTimeout(f"no {kind} frame within {timeout}s")
            frame = self.next_frame(left)
            out.append(frame)
            if frame["kind"] == kind:
                return out

    def read_to_eof(self, timeout: float = FRAME_TIMEOUT_S) -> list[dict[str, Any]]:
        """Every frame left on stdout until luxe closes it (e.g. after it
        exited); fails if stdout is still open after `timeout` seconds."""
        out = []
        deadline = time.monotonic() + timeout
        while True:
            try:
                out.append(self.next_frame(max(deadline - time.monotonic(), 0.0)))
            except FrameTimeout:
                if self._at_eof:
                    return out
                raise

    def kinds(self) -> list[str]:
        return [f["kind"] for f in self.frames]

    # -- ending -----------------------------------------------------------------

    def wait_exit(self, timeout: float = EXIT_TIMEOUT_S) -> int:
        return self.process.wait(timeout=timeout)

    def close(self, timeout: float = EXIT_TIMEOUT_S) -> int:
        """Send `close`, wait for the exit status (expected 0)."""
        self.send("close")
        return self.wait_exit(timeout)

    def stderr_text(self) -> str:
        """What luxe wrote to stderr so far (all of it once it has exited)."""
        if self.process.poll() is not None:
            self._stderr_reader.join(timeout=EXIT_TIMEOUT_S)
        return bytes(self._stderr).decode("utf-8", "replace")

    def kill(self) -> None:
        kill_group(self.process, EXIT_TIMEOUT_S)

    def __enter__(self) -> LuxeProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.kill()
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass


def processes_with_env_marker(marker: str) -> list[int]:
    """Living processes whose environment contains `marker` (e.g. a test's
    private XDG_DATA_HOME): everything a test's luxe started, even a child
    caught between fork and exec, and nothing of another test."""
    return live_pids_with_env(marker)


def processes_with_marker(marker: str, *, scope: Mapping[str, str]) -> list[int]:
    """Living processes of one test whose command line contains `marker`.

    `scope` is the environment the test gave luxe (from make_env): only
    processes that inherited its SCOPE_VAR value count, so a test never sees
    (or kills) another test run's processes that happen to run the same
    command. Processes of other users are never readable, so never counted.
    """
    tag = f"{SCOPE_VAR}={scope[SCOPE_VAR]}".encode()
    return [
        p.pid for p in processes() if p.alive and marker in p.cmdline() and tag in p.environ()
    ]


def kill_processes_with_marker(marker: str, *, scope: Mapping[str, str]) -> None:
    """SIGKILL this test's processes running `marker` (see processes_with_marker)
    until none is left; for orphans a `kill -9` of luxe left behind (a loop
    may start another one while the first is being killed)."""

    def none_left() -> bool:
        for pid in processes_with_marker(marker, scope=scope):
            try:
                os.kill(pid, 9)
            except ProcessLookupError:
                pass
        return processes_with_marker(marker, scope=scope) == []

    wait_until(none_left, what=f"{marker!r} to die")
