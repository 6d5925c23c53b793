"""What the providers' stream readers themselves cost per delta, in process.

Each case streams one block of one-character deltas (Anthropic and OpenAI
shapes; text, thinking, a tool call's arguments) through
`_StreamReader.on_sse`, `emit` a no-op. The events' JSON is parsed once
beforehand and `json.loads` answered from that cache, so the figure is the
reader's own work: what the answer's budget (luxe.providers.bounds) adds
to a delta shows here, where in `bench/luxe_stream.py` it is a few percent
of luxe's whole cost per frame. Baseline in the same run: `json.loads` of
the same events, which every delta costs before the reader's work.

With --other DIR, a directory holding another checkout's `luxe` package,
e.g.

    git archive d343cc2 luxe | tar -x -C /tmp/luxe-before
    python bench/luxe_stream_readers.py --other /tmp/luxe-before [--pairs 6]

this checkout and the other alternate in fresh processes, pair by pair (the
machine is shared: read the ratios of pairs, not the absolute figures; a
process's layout alone moves them by some 5%). With --instructions the
figure is instead the instructions a delta costs, counted by valgrind's
cachegrind (the difference between two stream lengths, so start-up cancels
out): the same in every run and on any load, which suits a difference of a
few percent.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CASES = [f"{f} {k}" for f in ("anthropic", "openai") for k in ("text", "thinking", "args")]

_CHILD = r"""
import gc, json, sys, time, types
from luxe.providers import anthropic, openai
from luxe.providers.sse import ServerSentEvent as E

N, REPEATS, CASES, PARTS = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:-1], sys.argv[-1]


def anthropic_events(kind):
    block, delta_type, field = {
        "text": ({"type": "text", "text": ""}, "text_delta", "text"),
        "thinking": ({"type": "thinking", "thinking": ""}, "thinking_delta", "thinking"),
        "args": ({"type": "tool_use", "id": "t", "name": "write"}, "input_json_delta", "partial_json"),
    }[kind]
    start = {"type": "content_block_start", "index": 0, "content_block": block}
    delta = {"type": "content_block_delta", "index": 0, "delta": {"type": delta_type, field: "x"}}
    return [E(json.dumps(start), "content_block_start")] + [E(json.dumps(delta), "content_block_delta")] * N


def openai_events(kind):
    def chunk(delta):
        return E(json.dumps({"choices": [{"index": 0, "delta": delta}]}))

    if kind == "args":
        call = {"index": 0, "id": "c", "function": {"name": "write", "arguments": ""}}
        return [chunk({"tool_calls": [call]})] + [
            chunk({"tool_calls": [{"index": 0, "function": {"arguments": "x"}}]})
        ] * N
    return [chunk({{"text": "content", "thinking": "reasoning_content"}[kind]: "x"})] * N


class Parsed(dict):
    def __missing__(self, data):
        value = self[data] = json.loads(data)
        return value


async def emit(event):
    pass


async def drive(reader, events):
    for sse in events:
        await reader.on_sse(sse)
    reader.message()


def best_ns(run):
    best = float("inf")
    for _ in range(REPEATS):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best / max(N, 1) * 1e9


def read(make, events):
    def run():
        coro = drive(make(), events)
        try:
            coro.send(None)
        except StopIteration:
            pass
    return run


parsed = Parsed()
anthropic.json = openai.json = types.SimpleNamespace(loads=parsed.__getitem__)
gc.disable()
readers = {
    "anthropic": (anthropic_events, lambda: anthropic._StreamReader("u", emit)),
    "openai": (openai_events, lambda: openai._StreamReader("u", "OpenAI", emit)),
}
figures = {}
for case in CASES:
    flavour, kind = case.split()
    events_of, make = readers[flavour]
    events = events_of(kind)
    if PARTS in ("reader", "both"):
        figures[case] = best_ns(read(make, events))
    if PARTS in ("json", "both"):
        data = [sse.data for sse in events]
        figures[case + " json.loads"] = best_ns(lambda: [json.loads(d) for d in data])
print(json.dumps(figures))
"""


def child(checkout: Path, deltas: int, repeats: int, cases: list[str], parts: str) -> list[str]:
    script = f"import sys; sys.path.insert(0, {str(checkout)!r})\n" + _CHILD
    return [sys.executable, "-c", script, str(deltas), str(repeats), *cases, parts]


def measure(checkout: Path, deltas: int, repeats: int) -> dict[str, float]:
    out = subprocess.run(
        child(checkout, deltas, repeats, CASES, "both"),
        check=True,
        capture_output=True,
        text=True,
        cwd="/",
    ).stdout
    figures: dict[str, float] = json.loads(out)
    return figures


def instructions(command: list[str]) -> int:
    """The instructions `command` executes, as cachegrind counts them."""
    done = subprocess.run(
        [
            "valgrind",
            "--tool=cachegrind",
            "--cache-sim=no",
            "--cachegrind-out-file=/dev/null",
            *command,
        ],
        check=True,
        capture_output=True,
        text=True,
        cwd="/",
        env={**os.environ, "PYTHONHASHSEED": "0"},
    )
    found = re.search(r"I\s+refs:\s+([\d,]+)", done.stderr)
    if found is None:
        sys.exit(f"no instruction count from valgrind:\n{done.stderr}")
    return int(found.group(1).replace(",", ""))


def per_delta(checkout: Path, case: str, parts: str, short: int, long: int) -> float:
    counts = [instructions(child(checkout, n, 1, [case], parts)) for n in (short, long)]
    return (counts[1] - counts[0]) / (long - short)


def count_instructions(sides: dict[str, Path], deltas: int) -> None:
    short, long = deltas // 5, deltas
    print(f"instructions per delta (cachegrind, {long:,} deltas less {short:,})")
    header = f"{'':20}{'json.loads':>12}" + "".join(f"{side:>10}" for side in sides)
    print(header + ("   other/this" if "other" in sides else ""))
    for case in CASES:
        floor = per_delta(sides["this"], case, "json", short, long)
        counts = {
            side: per_delta(path, case, "reader", short, long) for side, path in sides.items()
        }
        line = f"{case:20}{floor:12.0f}" + "".join(f"{c:10.0f}" for c in counts.values())
        if "other" in counts:
            line += f"{counts['other'] / counts['this']:13.3f}"
        print(line, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--other", type=Path, help="directory holding another checkout's luxe")
    parser.add_argument("--pairs", type=int, default=6)
    parser.add_argument("--deltas", type=int, default=50_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument(
        "--instructions", action="store_true", help="count instructions (valgrind) instead"
    )
    args = parser.parse_args()
    sides = {"this": ROOT}
    if args.other is not None:
        if not (args.other / "luxe" / "providers" / "anthropic.py").exists():
            sys.exit(f"{args.other} holds no luxe package")
        sides["other"] = args.other.resolve()
    if args.instructions:
        count_instructions(sides, min(args.deltas, 25_000))
        return
    runs: dict[str, list[dict[str, float]]] = {side: [] for side in sides}
    for pair in range(args.pairs if args.other is not None else 1):
        order = list(sides) if pair % 2 == 0 else list(reversed(sides))
        for side in order:
            runs[side].append(measure(sides[side], args.deltas, args.repeats))
    print(
        f"ns per delta, median of {len(runs['this'])} process(es), each the best of {args.repeats}"
    )
    header = f"{'':20}{'json.loads':>12}{'this':>8}{'/json':>7}"
    print(header + (f"{'other':>8}{'other/this, per pair':>22}" if "other" in runs else ""))
    for case in CASES:
        floor = statistics.median(r[case + " json.loads"] for r in runs["this"])
        this = statistics.median(r[case] for r in runs["this"])
        line = f"{case:20}{floor:12.0f}{this:8.0f}{this / floor:7.2f}"
        if "other" in runs:
            ratios = [o[case] / t[case] for t, o in zip(runs["this"], runs["other"], strict=True)]
            line += f"{statistics.median(r[case] for r in runs['other']):8.0f}"
            line += f"{statistics.median(ratios):22.3f}"
        print(line)


if __name__ == "__main__":
    main()
