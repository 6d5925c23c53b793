"""Luxe's interface (`luxe` in a terminal), against baselines in the same run.

Each measure drives the real `luxe` in a pseudo-terminal, as a terminal
would, with the fake model server (tests/fakes/llm_server.py) behind it:

  start -> prompt visible                          target <= 150 ms
      baseline: `luxe --version` in the same pty (interpreter + argv)
  instructions executed before the first frame, the prompt, and before
  the handshake's frame, the status line (valgrind's cachegrind;
  deterministic where the wall time above swings with the machine)
      baseline: `luxe --version`'s instructions
  keystroke -> echo while 100 tokens/s stream into a session of
  2,000 messages                                    target p99 <= 16 ms
      baseline: the same keystrokes at an idle prompt
  bytes written per streamed token                  target <= token + 64
      baseline: the token's own bytes
  a 1 MiB bracketed paste -> its chip on screen     target <= 100 ms
      baseline: the same bytes through the pty into a raw reader
  idle CPU at the prompt                            target 0 %
      baseline: an idle interpreter blocked in select
  RSS after 200 turns                               target <= 60 MiB
      baseline: `luxe --rpc` after the same 200 turns

Run: .venv/bin/python bench/luxe_interface.py [--idle-s 30] [--turns 200]
"""

from __future__ import annotations

import argparse
import os
import pty
import select
import shutil
import signal
import statistics
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _luxe_rpc import LUXE, Luxe, check_interpreter, isolated_env, project_dir, workspace

from luxe.engine.model import AssistantMessage, TextBlock, UserMessage
from luxe.engine.store import SessionStore
from tests.fakes.llm_server import FakeLLMServer

KEY = "Ж"  # never in a streamed answer: its echo is unambiguous


class PtyLuxe:
    """`luxe ARGS` on a pseudo-terminal of 100x30; reads on this thread."""

    def __init__(self, argv: Sequence[str], cwd: Path, env: Mapping[str, str]) -> None:
        self.started_at = time.monotonic()
        pid, fd = pty.fork()
        if pid == 0:
            os.chdir(cwd)
            os.execve(argv[0], list(argv), dict(env, TERM="xterm-256color", COLUMNS="100", LINES="30"))
        self.pid, self.fd = pid, fd
        import fcntl
        import struct
        import termios

        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
        self.out = bytearray()

    def read_until(self, needle: bytes, start: int = 0, timeout: float = 60.0) -> float:
        """Read until `needle` appears at or after `start`; the time it was read."""
        deadline = time.monotonic() + timeout
        while self.out.find(needle, start) < 0:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"never saw {needle!r}")
            ready, _, _ = select.select([self.fd], [], [], left)
            if ready:
                try:
                    self.out += os.read(self.fd, 1 << 16)
                except OSError:
                    raise EOFError("luxe exited") from None
        return time.monotonic()

    def drain(self, seconds: float) -> None:
        end = time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0:
            ready, _, _ = select.select([self.fd], [], [], left)
            if ready:
                try:
                    self.out += os.read(self.fd, 1 << 16)
                except OSError:
                    return

    def send(self, text: str) -> None:
        os.write(self.fd, text.encode())

    def write_all(self, data: bytes) -> None:
        """Write `data`, reading the output meanwhile (a full pty never blocks us)."""
        view = memoryview(data)
        while view:
            readable, writable, _ = select.select([self.fd], [self.fd], [])
            if readable:
                self.out += os.read(self.fd, 1 << 16)
            if writable:
                view = view[os.write(self.fd, view[: 1 << 16]) :]

    def cpu_s(self) -> float:
        fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def rss_mib(self) -> float:
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return float("nan")

    def close(self) -> None:
        try:
            os.kill(self.pid, signal.SIGTERM)
            os.waitpid(self.pid, 0)
        except OSError:
            pass
        os.close(self.fd)


def p(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))]


def big_session(env: Mapping[str, str], cwd: Path, messages: int) -> str:
    store = SessionStore(Path(env["XDG_DATA_HOME"]) / "luxe" / "sessions")
    file = store.create(str(cwd))
    for i in range(messages // 2):
        file.append_message(UserMessage((TextBlock(f"question {i}: " + "words " * 20),)))
        file.append_message(AssistantMessage((TextBlock(f"answer {i}: " + "text " * 40),)))
    file.close()
    return file.id


def startup(root: Path, runs: int) -> None:
    env = isolated_env(root, {})
    project = project_dir(root)
    script = root / "empty.jsonl"
    script.write_text("")
    luxe_ms, version_ms = [], []
    for _ in range(runs):
        ui = PtyLuxe([str(LUXE), "--model", f"scripted:{script}"], project, env)
        luxe_ms.append((ui.read_until(b"\x1b[?2026l") - ui.started_at) * 1000)
        ui.close()
        base = PtyLuxe([str(LUXE), "--version"], project, env)
        version_ms.append((base.read_until(b"luxe ") - base.started_at) * 1000)
        base.close()
    med, base_med = statistics.median(luxe_ms), statistics.median(version_ms)
    print(f"start -> prompt visible     median {med:7.1f} ms   baseline `luxe --version` {base_med:7.1f} ms"
          f"   ratio {med / base_med:4.2f}   target <= 150 ms")


def _instructions(argv: Sequence[str], cwd: Path, env: Mapping[str, str]) -> int:
    """Instructions `argv` executes (cachegrind), in a pseudo-terminal."""
    pid, fd = pty.fork()
    if pid == 0:
        os.chdir(cwd)
        command = ["valgrind", "--tool=cachegrind", "--cache-sim=no",
                   "--cachegrind-out-file=/dev/null", "--log-fd=9", *argv]
        # valgrind reports on fd 9 (the pty); the program's own stderr is dropped.
        os.execve("/bin/sh", ["sh", "-c", 'exec "$@" 9>&2 2>/dev/null', "sh", *command],
                  dict(env, TERM="xterm-256color"))
    out = bytearray()
    while True:
        try:
            chunk = os.read(fd, 1 << 16)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    os.waitpid(pid, 0)
    os.close(fd)
    for line in out.decode("utf-8", "replace").splitlines():
        if "I   refs:" in line or "I refs:" in line:
            return int(line.rsplit(":", 1)[1].replace(",", "").strip())
    raise RuntimeError("cachegrind printed no instruction count")


def instructions(root: Path) -> None:
    if shutil.which("valgrind") is None:
        print("instructions to the first frame: skipped (valgrind is not installed)")
        return
    env = isolated_env(root, {})
    project = project_dir(root)
    script = root / "empty.jsonl"
    script.write_text("")
    python = str(Path(sys.executable))
    argv = [python, str(Path(__file__).resolve().parent / "_first_frame_exit.py"),
            "--model", f"scripted:{script}"]
    first_frame = _instructions(argv, project, env)
    handshake = _instructions(argv, project, {**env, "LUXE_BENCH_EXIT_AT": "handshake"})
    version = _instructions([str(LUXE), "--version"], project, env)
    print(f"instructions to the first frame  {first_frame / 1e6:7.1f} M   baseline `luxe --version` "
          f"{version / 1e6:7.1f} M   ratio {first_frame / version:4.2f}   "
          f"(to the status line: {handshake / 1e6:.1f} M, ratio {handshake / version:4.2f})")


def keystrokes(ui: PtyLuxe, count: int, gap_s: float) -> list[float]:
    latencies = []
    for _ in range(count):
        mark = len(ui.out)
        sent = time.monotonic()
        ui.send(KEY)
        latencies.append((ui.read_until(KEY.encode(), mark) - sent) * 1000)
        ui.drain(gap_s)
    ui.send("\x15")  # Ctrl+U: clear the draft
    return latencies


def echo_while_streaming(root: Path) -> None:
    tokens = 1500
    text = "".join(f"w{i % 10} " for i in range(tokens))  # 3-byte tokens
    steps = [{"text": text, "chunk_size": 3, "chunk_delay_s": 0.01}] * 2
    with FakeLLMServer(steps) as server:
        env = isolated_env(root, {"ANTHROPIC_BASE_URL": server.base_url, "ANTHROPIC_API_KEY": "bench"})
        project = project_dir(root)
        session = big_session(env, project, 2000)
        ui = PtyLuxe([str(LUXE), "--model", "anthropic/claude-sonnet-4-5", "--resume", session], project, env)
        ui.read_until(b"\x1b[?2026l")
        ui.drain(3.0)  # past the warm-up (provider import, system prompt)
        idle = keystrokes(ui, 60, 0.02)
        ui.send("stream please\r")
        ui.read_until(b"w9 ", len(ui.out))
        busy = keystrokes(ui, 100, 0.03)
        ui.close()
    print(f"keystroke -> echo, idle      p50 {p(idle, .5):6.2f}  p99 {p(idle, .99):6.2f} ms")
    print(f"keystroke -> echo, streaming p50 {p(busy, .5):6.2f}  p99 {p(busy, .99):6.2f} ms"
          f"   ratio p99 {p(busy, .99) / max(p(idle, .99), 0.001):4.2f}   target p99 <= 16 ms"
          f"   (100 tok/s into 2,000 messages)")


def bytes_per_token(root: Path) -> None:
    tokens = 600
    text = "".join(f"w{i % 10} " for i in range(tokens))
    with FakeLLMServer([{"text": text, "chunk_size": 3, "chunk_delay_s": 0.005}]) as server:
        env = isolated_env(root, {"ANTHROPIC_BASE_URL": server.base_url, "ANTHROPIC_API_KEY": "bench"})
        ui = PtyLuxe([str(LUXE), "--model", "anthropic/claude-sonnet-4-5"], project_dir(root), env)
        ui.read_until(b"\x1b[?2026l")
        ui.drain(0.3)
        ui.send("go\r")
        ui.read_until(b"w9 ", len(ui.out))
        start = len(ui.out)
        ui.read_until(f"w{(tokens - 1) % 10} ".encode() * 1, start)
        ui.drain(1.0)
        written = len(ui.out) - start
        ui.close()
    per = written / tokens
    print(f"bytes per streamed token     {per:6.1f} B   baseline the token {3} B   overhead {per - 3:5.1f} B"
          f"   target <= token + 64")


READER = """
import os, sys, tty
tty.setraw(0)
want, got = int(sys.argv[1]), 0
while got < want:
    got += len(os.read(0, 1 << 20))
os.write(1, b"all-read")
"""


def paste_megabyte(root: Path) -> None:
    line = "0123456789abcdef" * 4 + " text ✓\n"
    body = (line * (1_048_576 // len(line.encode())))[:-1]
    data = ("\x1b[200~" + body + "\x1b[201~").encode()
    label = f"[pasted {body.count(chr(10)) + 1} lines #1]".encode()
    env = isolated_env(root, {})
    script = root / "paste.jsonl"
    script.write_text("")
    ui = PtyLuxe([str(LUXE), "--model", f"scripted:{script}"], project_dir(root), env)
    ui.read_until(b"\x1b[?2026l")
    ui.drain(2.0)
    start = time.monotonic()
    ui.write_all(data)
    took = (ui.read_until(label) - start) * 1000
    ui.close()
    base = PtyLuxe([sys.executable, "-c", READER, str(len(data))], project_dir(root), env)
    time.sleep(0.3)
    start = time.monotonic()
    base.write_all(data)
    base_ms = (base.read_until(b"all-read") - start) * 1000
    base.close()
    print(f"1 MiB bracketed paste -> chip {took:7.1f} ms   baseline a raw reader {base_ms:7.1f} ms"
          f"   ratio {took / base_ms:4.2f}   target <= 100 ms")


def idle_cpu(root: Path, seconds: float) -> None:
    env = isolated_env(root, {})
    script = root / "idle.jsonl"
    script.write_text("")
    ui = PtyLuxe([str(LUXE), "--model", f"scripted:{script}"], project_dir(root), env)
    ui.read_until(b"\x1b[?2026l")
    ui.drain(5.0)  # the warm-up (provider import, system prompt) is done by then
    before = ui.cpu_s()
    ui.drain(seconds)
    used = ui.cpu_s() - before
    ui.close()
    base = subprocess.Popen([sys.executable, "-c", "import select,sys; select.select([sys.stdin],[],[])"],
                            stdin=subprocess.PIPE)
    time.sleep(0.5)
    fields = Path(f"/proc/{base.pid}/stat").read_text().rsplit(")", 1)[1].split()
    b0 = int(fields[11]) + int(fields[12])
    time.sleep(min(seconds, 5))
    fields = Path(f"/proc/{base.pid}/stat").read_text().rsplit(")", 1)[1].split()
    b1 = int(fields[11]) + int(fields[12])
    base.kill()
    base.wait()
    print(f"idle CPU over {seconds:.0f} s          {100 * used / seconds:5.2f} %   baseline idle interpreter"
          f" {100 * (b1 - b0) / os.sysconf('SC_CLK_TCK') / min(seconds, 5):5.2f} %   target 0 %")


def rss_after_turns(root: Path, turns: int) -> None:
    steps = [{"text": f"answer number {i} with a few words"} for i in range(turns)]
    env = isolated_env(root, {})
    script = root / "turns.jsonl"
    import json

    script.write_text("".join(json.dumps(s) + "\n" for s in steps))
    ui = PtyLuxe([str(LUXE), "--model", f"scripted:{script}"], project_dir(root), env)
    ui.read_until(b"\x1b[?2026l")
    for i in range(turns):
        mark = len(ui.out)
        ui.send(f"prompt {i}\r")
        ui.read_until(f"answer number {i} ".encode(), mark)
    ui.drain(0.5)
    rss = ui.rss_mib()
    ui.close()
    rpc = Luxe(["--model", f"scripted:{script}"], cwd=project_dir(root), env=env)
    rpc.until("ready")
    for i in range(turns):
        rpc.send("submit_user_message", {"text": f"prompt {i}"})
        rpc.until("turn_ended")
    rpc_rss = 0.0
    for line in Path(f"/proc/{rpc.proc.pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            rpc_rss = int(line.split()[1]) / 1024
    rpc.close()
    print(f"RSS after {turns} turns          {rss:6.1f} MiB   baseline `luxe --rpc` {rpc_rss:6.1f} MiB"
          f"   ratio {rss / rpc_rss:4.2f}   target <= 60 MiB")


def main() -> None:
    check_interpreter()
    parser = argparse.ArgumentParser()
    parser.add_argument("--idle-s", type=float, default=30.0)
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--only", nargs="*", help="measure only these (startup, instructions, echo, bytes, paste, idle, rss)")
    args = parser.parse_args()
    with workspace() as tmp:
        root = Path(tmp)
        for name, run in (
            ("startup", lambda r: startup(r, args.runs)),
            ("instructions", instructions),
            ("echo", echo_while_streaming),
            ("bytes", bytes_per_token),
            ("paste", paste_megabyte),
            ("idle", lambda r: idle_cpu(r, args.idle_s)),
            ("rss", lambda r: rss_after_turns(r, args.turns)),
        ):
            if args.only and name not in args.only:
                continue
            (root / name).mkdir()
            run(root / name)


if __name__ == "__main__":
    main()
