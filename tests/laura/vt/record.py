"""Record the byte streams the differential tests replay (run by hand:
`.venv/bin/python tests/laura/vt/record.py`; writes `fixtures/*.bin`).

Every stream is what a real program wrote to a real terminal:
- `ls`, `git log --graph`, pygments run in a pty of the fixture's size;
- less and vim are driven in a private tmux server (`tmux -L <unique>`),
  their output captured with `pipe-pane`;
- the TUI loop is a scripted full-screen redraw (alt screen, margins,
  insert/delete, colours), written by this script itself.
Fixture names carry the screen size: `<name>.<lines>x<columns>.bin`.
"""

from __future__ import annotations

import fcntl
import os
import pty
import random
import struct
import subprocess
import sys
import tempfile
import termios
import time
import uuid
from pathlib import Path

HERE = Path(__file__).parent / "fixtures"
LINES, COLUMNS = 24, 80


def run_in_pty(argv: list[str], cwd: Path, lines: int = LINES, columns: int = COLUMNS) -> bytes:
    """Everything `argv` writes to a pty of the given size (onlcr on, as usual)."""
    pid, master = pty.fork()
    if pid == 0:
        os.chdir(cwd)
        os.environ.update(TERM="xterm-256color", COLUMNS=str(columns), LINES=str(lines),
                          GIT_PAGER="cat", PAGER="cat", LC_ALL="C.UTF-8")
        os.execvp(argv[0], argv)
    fcntl.ioctl(master, termios.TIOCSWINSZ, struct.pack("HHHH", lines, columns, 0, 0))
    out = bytearray()
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:
            break
        if not data:
            break
        out += data
    os.waitpid(pid, 0)
    return bytes(out)


def make_tree(root: Path) -> Path:
    tree = root / "tree"
    for name in ("src", "docs", "build", "node_modules"):
        (tree / name).mkdir(parents=True)
    for name in ("main.py", "README.md", "data.csv", "archive.tar.gz", "photo.jpg", "setup.cfg"):
        (tree / name).write_text("x\n")
    script = tree / "run.sh"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    (tree / "link").symlink_to("README.md")
    (tree / "dangling").symlink_to("nowhere")
    return tree


def make_repo(root: Path) -> Path:
    repo = root / "repo"
    repo.mkdir()
    env = dict(os.environ, GIT_AUTHOR_DATE="2026-01-01T00:00:00Z",
               GIT_COMMITTER_DATE="2026-01-01T00:00:00Z")

    def git(*args: str) -> None:
        subprocess.run(["git", "-c", "user.name=T", "-c", "user.email=t@example.invalid",
                        "-c", "init.defaultBranch=main", *args], cwd=repo, check=True,
                       env=env, capture_output=True)

    git("init")
    for i in range(6):
        (repo / f"f{i}.txt").write_text(f"{i}\n")
        git("add", ".")
        git("commit", "-m", f"commit {i}: some change to f{i}")
        if i == 2:
            git("checkout", "-b", "topic")
        if i == 4:
            git("checkout", "main")
    git("merge", "--no-ff", "topic", "-m", "Merge topic")
    git("tag", "v1.0")
    return repo


def tui_loop(seed: int = 7) -> bytes:
    """A full-screen program redrawing in place: what agent UIs do."""
    rnd = random.Random(seed)
    out = ["\x1b[?1049h\x1b[?25l\x1b[H\x1b[2J"]
    for frame in range(30):
        out.append(f"\x1b[1;1H\x1b[7m{' status frame ' + str(frame):<80}\x1b[0m")
        out.append("\x1b[2;23r")
        for _ in range(5):
            y, x = rnd.randint(2, 23), rnd.randint(1, 70)
            colour = rnd.choice(["31", "1;32", "38;5;208", "48;5;24", "38;2;10;200;30", "4;35"])
            out.append(f"\x1b[{y};{x}H\x1b[{colour}m{rnd.choice(['alpha', 'β-test', 'wide 漢字', 'x'])}\x1b[0m")
        action = frame % 6
        if action == 0:
            out.append("\x1b[23;1H\r\n" + "scrolled line " + str(frame))
        elif action == 1:
            out.append("\x1b[5;1H\x1b[2L\x1b[5;3Hinserted")
        elif action == 2:
            out.append("\x1b[7;1H\x1b[1M")
        elif action == 3:
            # (The row's end is cleared first: tmux keeps half of a wide
            # character that ICH pushes against the edge; see test_units.)
            out.append("\x1b[10;70H\x1b[K\x1b[10;5H\x1b[3@ICH\x1b[10;20H\x1b[2P")
        elif action == 4:
            out.append("\x1b[12;1H\x1b[44m\x1b[K\x1b[0m\x1b[13;10H\x1b[1K\x1b[14;4H\x1b[5X")
        else:
            out.append("\x1b[3;1H\x1bM\x1b[20;1H\x1bD\x1b[S\x1b[2T")
        out.append("\x1b[r\x1b[24;1H\x1b[2Kprompt> " + "typed"[: frame % 6])
    out.append("\x1b[?25h")
    return "".join(out).encode()


class TmuxSession:
    """A program in a private tmux server with its output captured raw."""

    def __init__(self, argv: str, workdir: Path, capture: Path) -> None:
        self.name = f"rec-{uuid.uuid4().hex[:8]}"
        self.env = dict(os.environ, TMUX="", HOME=str(workdir), TERM="xterm-256color")
        self.capture = capture
        # The program starts only after pipe-pane is in place.
        self.tmux("new-session", "-d", "-x", str(COLUMNS), "-y", str(LINES), "-s", "r",
                  f"tmux -L {self.name} wait-for go; TERM=xterm-256color exec {argv}")
        self.tmux("set", "-g", "default-terminal", "xterm-256color")
        self.tmux("pipe-pane", "-o", "-t", "r", f"cat > {capture}")
        self.tmux("wait-for", "-S", "go")
        self.settle()

    def tmux(self, *args: str) -> str:
        return subprocess.run(["tmux", "-L", self.name, "-f", "/dev/null", *args],
                              capture_output=True, text=True, env=self.env).stdout

    def settle(self) -> None:
        """Wait until the program's output has stopped growing."""
        size, still = -1, 0
        while still < 5:
            time.sleep(0.05)
            now = self.capture.stat().st_size if self.capture.exists() else 0
            still = still + 1 if now == size else 0
            size = now

    def keys(self, *keys: str, literal: bool = False) -> None:
        self.tmux("send-keys", "-t", "r", *(["-l"] if literal else []), *keys)
        self.settle()

    def close(self) -> None:
        self.tmux("kill-server")


def record_less(workdir: Path, source: Path) -> bytes:
    capture = workdir / "less.raw"
    session = TmuxSession(f"less -R {source}", workdir, capture)
    try:
        for key in ("Space", "Space", "b", "/", "def", "Enter", "n", "G", "g", "q"):
            session.keys(key)
    finally:
        session.close()
    return capture.read_bytes()


def record_vim(workdir: Path, source: Path) -> bytes:
    capture = workdir / "vim.raw"
    session = TmuxSession(f"vim -u NONE -N -i NONE -c 'syntax on' -c 'set number' {source}",
                          workdir, capture)
    try:
        session.keys("Enter")
        session.keys("2", "0", "j")
        session.keys("o")
        session.keys("inserted line with ünïcödé and 漢字", literal=True)
        session.keys("Escape")
        session.keys("G", "d", "d", "g", "g", "x")
        session.keys(":", "q", "!", "Enter")
    finally:
        session.close()
    return capture.read_bytes()


def main() -> None:
    HERE.mkdir(exist_ok=True)
    size = f"{LINES}x{COLUMNS}"
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        tree = make_tree(root)
        repo = make_repo(root)
        sample = root / "sample.py"
        sample.write_text(Path(__file__).read_text())
        streams = {
            "ls": run_in_pty(["ls", "--color=always", "-l", "-F", "--time-style=+x", "."], tree),
            "git-log": run_in_pty(["git", "log", "--graph", "--color=always", "--all",
                                   "--decorate", "--stat"], repo),
            "pygments256": run_in_pty([sys.executable, "-m", "pygments", "-f", "terminal256",
                                       "-l", "python", str(sample)], root),
            "pygments16m": run_in_pty([sys.executable, "-m", "pygments", "-f", "terminal16m",
                                       "-O", "style=monokai", "-l", "python", str(sample)], root),
            "tui": tui_loop(),
        }
        for tool, record in (("less", record_less), ("vim", record_vim)):
            try:
                streams[tool] = record(root, sample)
            except FileNotFoundError:
                print(f"skipping {tool}: not installed")
        for name, data in streams.items():
            (HERE / f"{name}.{size}.bin").write_bytes(data)
            print(f"{name}: {len(data)} bytes")


if __name__ == "__main__":
    main()
