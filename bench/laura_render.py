"""Laura file panes: open + first paint and page scrolling of 10,000-line files.

Prints milliseconds for Laura's renderer beside the libraries it is built on,
run alone on the same text in the same process:
- markdown: markdown-it-py parsing the whole file (tokens only, no output);
- Python: Pygments lexing the whole file (tokens only, no output);
- a plain-text log (what a tail pane follows): textwrap wrapping every line.
Targets (not asserted): first paint under 300 ms, a page scroll under 16 ms.
Run: .venv/bin/python bench/laura_render.py
"""

from __future__ import annotations

import json
import os
import random
import statistics
import tempfile
import textwrap
import time
from collections.abc import Callable

from markdown_it import MarkdownIt
from pygments.lexers import PythonLexer

from laura.commands import answer
from laura.panes.file import COLOUR_FIRST_LINES, COLOUR_FIRST_SECONDS, FilePane
from laura.protocol import Rect
from laura.render.canvas import Canvas
from laura.render.document import Document
from laura.steps import run_steps
from laura.tab import Tab, inner

LINES = 10_000
WIDTH = 100  # text columns of a wide pane
PAGE = 45  # visible rows of a tall pane
REPEATS = 5


def markdown_text() -> str:
    rng = random.Random(7)
    words = [
        "the",
        "quick",
        "brown",
        "fox",
        "jumps",
        "over",
        "a",
        "lazy",
        "dog",
        "while",
        "seven",
        "wizards",
        "quietly",
        "judge",
    ]

    def prose(lines: int) -> str:
        return "\n".join(" ".join(rng.choice(words) for _ in range(11)) for _ in range(lines))

    parts: list[str] = []
    count = 0
    section = 0
    while count < LINES:
        section += 1
        block = "\n".join(
            [
                f"## Section {section}",
                "",
                prose(4) + " with `code`, **bold** and a [link](http://example.invalid).",
                "",
                "- first item\n- second item\n  - nested item\n- [x] done task",
                "",
                "```python\ndef f(x):\n    return x + 1\n```",
                "",
                "| name | value |\n|------|------:|\n| a | 1 |\n| b | 22 |",
                "",
                "> a quoted line\n> and another",
                "",
            ]
        )
        parts.append(block)
        count += block.count("\n") + 1
    return "\n".join("\n".join(parts).split("\n")[:LINES]) + "\n"


def python_text() -> str:
    lines: list[str] = []
    n = 0
    while len(lines) < LINES:
        lines += [
            f"def function_{n}(alpha, beta=2):",
            f'    """Return a list for case {n}."""',
            "    values = [alpha * beta for _ in range(10)]  # a comment",
            "    return {'key': values, 'none': None, 'n': 3.5}",
            "",
        ]
        n += 1
    return "\n".join(lines[:LINES]) + "\n"


def best_ms(run: Callable[[], object]) -> float:
    times = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        run()
        times.append((time.perf_counter() - start) * 1000)
    return min(times)


def spread(samples: list[float]) -> str:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
    return f"{statistics.median(ordered):8.2f} / {p95:.2f} / {max(ordered):.2f} ms"


def log_text() -> str:
    rng = random.Random(3)
    levels = ["INFO", "WARN", "DEBUG", "ERROR"]
    return "".join(
        f"2026-01-01T00:00:{n % 60:02d} {rng.choice(levels)} worker-{n % 7} "
        + "processed request " * rng.randint(1, 12)
        + "\n"
        for n in range(LINES)
    )


def interleaved_best_ms(*runs: Callable[[], object]) -> list[float]:
    """Best-of-REPEATS milliseconds for each of `runs`, taken in turns so a
    busy moment on the machine hits them alike."""
    best = [float("inf")] * len(runs)
    for _ in range(REPEATS):
        for index, run in enumerate(runs):
            start = time.perf_counter()
            run()
            best[index] = min(best[index], (time.perf_counter() - start) * 1000)
    return best


def measure(name: str, text: str, baseline_name: str, baseline: Callable[[], object]) -> None:
    def first_paint() -> object:
        document = Document(name, text)
        document.colour(COLOUR_FIRST_LINES, COLOUR_FIRST_SECONDS)  # as a pane does at load
        return document.view(WIDTH).window(0, PAGE)

    def colour_all() -> object:
        colouring = Document(name, text).colouring
        if colouring is not None:
            run_steps(colouring.steps(lambda: None, lambda: True, 1.0))
        return colouring

    def colour_at_end() -> object:
        """As a pane jumped to the end: the last page's lines wanted, steps
        until they are coloured."""
        colouring = Document(name, text).colouring
        if colouring is not None:
            count = len(text.splitlines())
            colouring.want(count - PAGE + 1, count)
            met: list[bool] = []
            steps = colouring.steps(lambda: met.append(True), lambda: True, 3600.0)
            while not met:
                next(steps)
        return colouring

    def whole() -> object:
        return Document(name, text).view(WIDTH).content_rows()

    def jump_to_end() -> object:
        view = Document(name, text).view(WIDTH)
        return view.window(max(0, view.content_rows() - PAGE), PAGE)

    base, paint, full, end, colour, colour_end = interleaved_best_ms(
        baseline, first_paint, whole, jump_to_end, colour_all, colour_at_end
    )

    view = Document(name, text).view(WIDTH)
    view.window(0, PAGE)
    pages: list[float] = []
    top = 0
    for _ in range(200):  # two hundred pages down (about 9,000 rows)
        top += PAGE
        start = time.perf_counter()
        view.window(top, PAGE)
        pages.append((time.perf_counter() - start) * 1000)
    cached = []
    for _ in range(50):  # back up over pages laid out already
        top = max(0, top - PAGE)
        start = time.perf_counter()
        view.window(top, PAGE)
        cached.append((time.perf_counter() - start) * 1000)

    print(f"{name}: {LINES} lines, width {WIDTH}, page {PAGE} rows")
    print(f"  baseline {baseline_name:<28} {base:8.1f} ms")
    print(
        f"  open + first paint                    {paint:8.1f} ms  ({paint / base:.2f}x baseline)"
    )
    print(f"  page scroll, new rows  median/p95/max {spread(pages)}")
    print(f"  page scroll, cached    median/p95/max {spread(cached)}")
    print(f"  content_rows (whole layout)           {full:8.1f} ms  ({full / base:.2f}x baseline)")
    print(f"  open + jump to the end (follow)       {end:8.1f} ms  ({end / base:.2f}x baseline)")
    if Document(name, text).colouring is not None:
        print(
            f"  colour every line (background steps)  {colour:8.1f} ms  ({colour / base:.2f}x baseline)"
        )
        print(
            f"  colour the last page (after a jump)   {colour_end:8.1f} ms  ({colour_end / base:.2f}x baseline)"
        )


def measure_pane(name: str, text: str, baseline: Callable[[], object]) -> None:
    """The whole path in the host: a tab answers `open` (whose reply carries
    the overflow warning, laying out a screenful and a bit to word it) and
    the pane draws its first screen."""
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, name)
        with open(path, "w") as handle:
            handle.write(text)

        def open_and_draw() -> object:
            tab = Tab(0, "bench", directory, "bench")
            tab.area = Rect(0, 1, 2 * WIDTH, PAGE + 2)
            tab.ready = True
            reply = json.loads(answer(tab, json.dumps({"type": "open", "path": path}).encode()))
            file_pane = tab.panes[reply["pane"]]
            canvas = Canvas(2 * WIDTH, PAGE + 4)
            file_pane.draw(canvas, inner(tab.rects()[file_pane.id]), True, directory)
            return canvas

        base, took = interleaved_best_ms(baseline, open_and_draw)
    print(f"  {name:<10} open reply + first draw    {took:8.1f} ms  ({took / base:.2f}x baseline)")


def measure_growing_log(text: str) -> None:
    """A followed log grows by ten lines: the pane reloads and redraws.
    Baseline: laying the whole grown file out afresh."""
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "tail-1.txt")
        with open(path, "w") as handle:
            handle.write(text)
        area = Rect(1, 1, WIDTH, PAGE)
        pane = FilePane(1, path, "tail-1.txt")
        pane.set_follow(True, area)
        pane.fit(area)
        pane.draw(Canvas(WIDTH + 2, PAGE + 2), area, True)
        times = []
        for round_ in range(20):
            with open(path, "a") as handle:
                handle.write("".join(f"appended {round_}.{n}\n" for n in range(10)))
            start = time.perf_counter()
            pane.reload_if_changed()
            pane.fit(area)  # as the host settles a pane after a reload
            pane.draw(Canvas(WIDTH + 2, PAGE + 2), area, True)
            times.append((time.perf_counter() - start) * 1000)
        with open(path) as handle:
            grown = handle.read()
        fresh = best_ms(lambda: Document(path, grown).view(pane.text_width(WIDTH)).content_rows())
    print(f"tail-1.txt growing by 10 lines, followed ({LINES} lines)")
    print(f"  baseline: lay the grown file out afresh  {fresh:8.1f} ms")
    print(f"  reload + redraw          median/p95/max {spread(times)}")


def main() -> None:
    markdown = markdown_text()
    python = python_text()
    parser = MarkdownIt("commonmark").enable(["table", "strikethrough"])
    lexer = PythonLexer(stripnl=False)
    # Warm imports and caches both sides use, so neither pays them in the figures.
    Document("warm.md", "# x\n\n```python\nx\n```\n").view(WIDTH).window(0, PAGE)
    Document("warm.py", "x = 1\n").view(WIDTH).window(0, PAGE)
    # Headline first: what a person waits for when `laura open` shows a file.
    print(f"HEADLINE in a tab: open reply + first draw ({LINES} lines, target < 300 ms)")
    measure_pane("bench.md", markdown, lambda: parser.parse(markdown))
    measure_pane("bench.py", python, lambda: list(lexer.get_tokens(python)))
    log = log_text()
    measure_pane(
        "tail-1.txt", log, lambda: [textwrap.wrap(line, WIDTH) for line in log.splitlines()]
    )
    measure("bench.md", markdown, "markdown-it parse (tokens)", lambda: parser.parse(markdown))
    measure("bench.py", python, "pygments lex (tokens)", lambda: list(lexer.get_tokens(python)))
    measure(
        "tail-1.txt",
        log,
        "textwrap.wrap every line",
        lambda: [textwrap.wrap(line, WIDTH) for line in log.splitlines()],
    )
    measure_growing_log(log)


if __name__ == "__main__":
    main()
