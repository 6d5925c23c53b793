"""What hosting Luxe's interface in Laura costs a keystroke, against tmux.

The same `luxe` interface is run three ways on a pseudo-terminal of 100x30,
interleaved round by round: on the pty itself (the baseline), inside
`laura -- luxe`, and inside tmux (a tmux client on the pty, its server
hosting luxe). A keystroke is written to the pty and timed until its echo
comes back out of it, as the person's terminal would see it. Reported: p50
and p99 of each, and what Laura and tmux add to the baseline at p99.
Target: Laura adds at most 3 ms at p99.

Run: .venv/bin/python bench/laura_hosting_luxe.py [--rounds 3] [--keys 60]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _luxe_rpc import LUXE, isolated_env, project_dir
from luxe_interface import PtyLuxe, keystrokes, p

LAURA = Path(sys.executable).parent / "laura"


def measure(argv: list[str], project: Path, env: dict[str, str], keys: int) -> list[float]:
    ui = PtyLuxe(argv, project, env)
    try:
        ui.read_until("›".encode(), timeout=60)
        ui.drain(2.0)  # past the warm-up (provider import, system prompt, Laura's first frames)
        return keystrokes(ui, keys, 0.03)
    finally:
        ui.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--keys", type=int, default=60)
    args = parser.parse_args()
    tmux = shutil.which("tmux")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        script = root / "empty.jsonl"
        script.write_text("")
        env = isolated_env(root, {"LAURA_RUNTIME": str(root / "run" / "laura")})
        env.pop("TMUX", None)
        project = project_dir(root)
        luxe = [str(LUXE), "--model", f"scripted:{script}"]
        ways: dict[str, list[str]] = {"alone": luxe, "laura": [str(LAURA), "--", *luxe]}
        if tmux:
            socket = f"bench-{uuid.uuid4().hex[:8]}"
            ways["tmux"] = [tmux, "-L", socket, "-f", "/dev/null", "new-session", *luxe]
        results: dict[str, list[float]] = {way: [] for way in ways}
        for _ in range(args.rounds):
            for way, argv in ways.items():
                results[way] += measure(argv, project, env, args.keys)
        base = p(results["alone"], 0.99)
        print(f"keystroke -> echo of the luxe interface, {args.rounds} rounds x {args.keys} keys")
        for way, values in results.items():
            added = "" if way == "alone" else f"   adds {p(values, 0.99) - base:+6.2f} ms at p99"
            print(f"  {way:6s} p50 {p(values, .5):6.2f}  p99 {p(values, .99):6.2f} ms{added}")
        print("  target: laura adds <= 3 ms at p99")


if __name__ == "__main__":
    main()
