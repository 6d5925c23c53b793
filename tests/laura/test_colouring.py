"""A code file is coloured in bounded steps: a file written to make
Pygments scan to its end from every position (unclosed `/*`, `<!--`,
`=begin`, CDATA) costs a bounded half second and is then shown plain, while
ordinary code is coloured exactly as lexing the whole file would colour it,
and a coloured line always spells its source line."""

from __future__ import annotations

import gc
import itertools
import random
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from pygments.lexers import PythonLexer

from laura.render import colouring, theme
from laura.render.code import (
    CHUNK,
    TAB,
    lexer_class_for_filename,
    lexer_for_language,
    lexer_of,
    source_lines,
    style_for,
)
from laura.render.colouring import GRACE_SECONDS, Colouring, plain
from laura.render.document import Document
from laura.render.style import PLAIN, Span
from laura.steps import run_steps

REPO = Path(__file__).resolve().parents[2]

# Each of these makes one Pygments pattern scan to the end of the text from
# every line: lexing the whole file took minutes.
HOSTILE = [
    ("bundle.js", "/*\n", 100_000),
    ("site.css", "/*\n", 100_000),
    ("page.html", "<!--\n", 60_000),
    ("feed.xml", "<![CDATA[\n", 40_000),
    ("tool.rb", "=begin\n", 50_000),
    ("one-line.js", "/*", 400_000),  # all on one line, longer than a window
]


def whole_file_colours(name: str, lines: list[str]) -> list[tuple[Span, ...]]:
    """What lexing the whole file at once gives (the colours before windows)."""
    lexer = lexer_class_for_filename(name)
    assert lexer is not None
    out: list[tuple[Span, ...]] = []
    current: list[Span] = []
    for ttype, value in lexer_of(lexer).get_tokens("\n".join(lines).expandtabs(TAB) + "\n"):
        style = style_for(ttype)
        for index, part in enumerate(value.split("\n")):
            if index:
                out.append(tuple(current))
                current = []
            if part:
                if current and current[-1].style == style:
                    current[-1] = Span(current[-1].text + part, style)
                else:
                    current.append(Span(part, style))
    return out[: len(lines)]


def spelled(spans: tuple[Span, ...]) -> str:
    return "".join(span.text for span in spans)


@pytest.mark.parametrize(("name", "unit", "count"), HOSTILE, ids=[case[0] for case in HOSTILE])
def test_a_file_that_makes_the_lexer_rescan_is_coloured_in_bounded_steps(
    name: str, unit: str, count: int
) -> None:
    lines = source_lines(unit * count) if unit.endswith("\n") else [unit * count]
    lexer = lexer_class_for_filename(name)
    assert lexer is not None
    work = Colouring(lexer, lines)
    work.compile()  # as a file pane does, in a worker thread
    steps = work.steps(lambda: None, lambda: True, 0.1)
    started = time.thread_time()
    longest = 0.0
    gc.disable()  # the steps' own work: a collection of this test process's heap is not theirs
    try:
        while True:
            before = time.thread_time()
            try:
                next(steps)
            except StopIteration:
                break
            longest = max(longest, time.thread_time() - before)
    finally:
        gc.enable()
    spent = time.thread_time() - started
    assert work.done
    # The stop rule holds the lexer's own time to GRACE_SECONDS + what it
    # lexed / MIN_RATE (2 s at most here); the steps' bookkeeping around it
    # took 0.5-0.6 s more on a slow machine. Before windows: minutes.
    assert spent < GRACE_SECONDS + 4.0, f"colouring took {spent:.1f} s of CPU"
    assert longest < 0.1, f"one step held the loop {longest * 1000:.0f} ms"
    # every line is shown with its own text, coloured or plain
    document = Document(name, "\n".join(lines) + "\n")
    document.colouring = work
    view = document.view(120)
    last = view.window(len(lines) - 3, 3)
    assert [spelled(row.spans).rstrip("›") for row in last] == [
        plain(line)[0].text[: 120 - 1] if len(line) > 119 else line for line in lines[-3:]
    ]


def test_ordinary_code_is_coloured_as_lexing_the_whole_file_would(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Across window ends too: a window ends after a line that ended outside
    strings and comments (docstrings and comments cross many of them here)."""
    sources = sorted((REPO / "laura").rglob("*.py"))
    text = "".join(path.read_text() for path in sources)
    lines = source_lines(text)
    monkeypatch.setattr(colouring, "WINDOW", 20_000)
    lexer = lexer_class_for_filename("all.py")
    assert lexer is not None
    work = Colouring(lexer, lines)
    run_steps(work.steps(lambda: None, lambda: True, 1.0))
    assert work.lines_ready == len(lines) and not work.stopped
    assert len(text) > 10 * colouring.WINDOW  # many windows
    want = whole_file_colours("all.py", lines)
    got = [work.line(number) for number in range(1, len(lines) + 1)]
    for number, (mine, whole) in enumerate(zip(got, want, strict=True), 1):
        assert mine == whole, f"line {number}: {lines[number - 1]!r}"


@pytest.mark.parametrize(
    "name", ["a.py", "a.js", "a.html", "a.c", "a.rb", "a.yaml", "a.json", "a.sh"]
)
def test_a_coloured_line_always_spells_its_source_line(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(colouring, "WINDOW", 300)  # windows end often, and cut long lines
    pieces = ["x", " ", "\t", '"', "'", "`", "/*", "*/", "<!--", "-->", "#", "//", "\\", "{", "}",
              "def ", "<a>", "\ufeff", "\ufffd", "界", "é", "=begin", "=end", "'''", "y" * 400]  # fmt: skip
    rng = random.Random(name)
    lexer = lexer_class_for_filename(name)
    assert lexer is not None
    for _ in range(40):
        lines = [
            "".join(rng.choice(pieces) for _ in range(rng.randrange(12)))
            for _ in range(rng.randrange(1, 30))
        ]
        work = Colouring(lexer, lines)
        run_steps(work.steps(lambda: None, lambda: True, 1.0))
        for number, line in enumerate(lines, 1):
            spans = work.line(number)
            if spans is not None:
                assert spelled(spans) == line.expandtabs(TAB), (number, lines)


def test_coloured_lines_are_kept_as_data_the_garbage_collector_does_not_walk() -> None:
    """Kept as spans, the colours of a 7 MB Python file took 299 MB and 3
    million objects that every middle pass of the collector walked (one
    took 580 ms); as style runs they are ints, walked once."""
    lines = source_lines("def f(a, b):\n    return (a + b) * 2  # sum\n" * 10_000)
    lexer = lexer_class_for_filename("big.py")
    assert lexer is not None
    work = Colouring(lexer, lines)
    gc.collect()
    before = len(gc.get_objects())
    run_steps(work.steps(lambda: None, lambda: True, 1.0))
    gc.collect()
    assert work.lines_ready == len(lines) and not work.stopped
    added = len(gc.get_objects()) - before
    assert added < 1_000, f"{added:,} objects for the collector to walk, for {len(lines):,} lines"
    assert spelled(work.spans(2)) == "    return (a + b) * 2  # sum"
    assert {span.style for span in work.spans(2)} >= {theme.KEYWORD, theme.COMMENT}


def test_a_code_file_shows_plain_lines_until_their_colours_are_ready() -> None:
    text = "".join(f"def f{n}(x):\n    return x + {n}  # add\n" for n in range(500))
    document = Document("module.py", text)
    view = document.view(80)
    plain_rows = view.window(0, 4)
    assert [spelled(row.spans) for row in plain_rows] == source_lines(text)[:4]
    assert all(span.style == PLAIN for row in plain_rows for span in row.spans)
    document.colour(CHUNK, 1.0)  # a block's lines are coloured together
    rows = view.window(0, 4)
    assert [spelled(row.spans) for row in rows] == source_lines(text)[:4]
    assert {span.text: span.style for span in rows[0].spans}["def"] == theme.KEYWORD
    far = view.window(990, 4)  # not coloured yet: plain, the same rows
    assert [spelled(row.spans) for row in far] == source_lines(text)[990:994]
    assert all(span.style == PLAIN for row in far for span in row.spans)
    document.colour(document.line_count, 5.0)
    assert {span.text: span.style for span in view.window(990, 1)[0].spans}["def"] == theme.KEYWORD
    assert len(view) == document.line_count and view.mismatches == 0


@pytest.mark.parametrize("language", ["js", "html", "css"])
def test_a_fence_that_makes_the_lexer_rescan_does_not_hold_a_markdown_file(language: str) -> None:
    """Measured against the same fence without a language, in the same run."""
    opener = {"js": "/*", "html": "<!--", "css": "/*"}[language]
    body = (opener + "\n") * 20_000

    def first_screen(info: str) -> float:
        document = Document("README.md", f"# Title\n\n```{info}\n{body}```\n")
        # A collection of this test process's heap is not the fence's work
        # (in a full run one added 0.26 s to a single measurement).
        gc.collect()
        gc.disable()
        try:
            started = time.thread_time()
            document.view(100).window(0, 40)
            return time.thread_time() - started
        finally:
            gc.enable()

    assert lexer_for_language(language) is not None
    first_screen("")  # warm up, and compile the lexer (CSS's took 0.25 s in a loaded CI run)
    first_screen(language)
    hostile, bare = first_screen(language), first_screen("")
    assert hostile < bare + 0.25, f"{hostile:.2f} s against {bare:.2f} s without a language"


def test_a_lexer_that_fails_midway_leaves_the_rest_of_the_file_plain() -> None:
    class Failing(PythonLexer):
        def get_tokens_unprocessed(self, text: str, stack: Sequence[str] = ("root",)) -> Iterator[Any]:
            for count, token in enumerate(super().get_tokens_unprocessed(text, stack)):
                if count == 40:
                    raise RuntimeError("a lexer's bug")
                yield token

    lines = [f"x{n} = {n}" for n in range(100)]
    work = Colouring(Failing, lines)
    run_steps(work.steps(lambda: None, lambda: True, 1.0))
    assert work.stopped and 0 < work.lines_ready < len(lines)
    assert [spelled(work.spans(number)) for number in range(1, 101)] == lines


def documented_python(functions: int, docstring_lines: int) -> list[str]:
    """Functions with long indented docstrings (a run started inside one
    would colour code as string and strings as code)."""
    return source_lines(
        "".join(
            f"def step{n}(x):\n"
            + f'    """Step {n}.\n\n'
            + "".join(f"    return x + {k}  # not code: inside the docstring\n" for k in range(docstring_lines))
            + '    """\n'
            + f"    # a comment\n    return x + {n}\n\n"
            for n in range(functions)
        )
    )


def run_until(work: Colouring, steps: Iterator[None], lines: range) -> int:
    """Step until every line in `lines` shows colours; how many steps it took."""
    taken = 0
    while not all(work.ready(number) for number in lines):
        next(steps)
        taken += 1
    return taken


@pytest.mark.parametrize(("functions", "docstring_lines"), [(4_000, 3), (300, 120)])
def test_lines_wanted_far_down_are_coloured_first_and_as_the_whole_file_colours_them(
    functions: int, docstring_lines: int
) -> None:
    """A jump far into a big file: the lines on screen take colours long
    before the run from the top reaches them, the same colours that run
    gives them (its start is a top-level line above them, not the middle of
    a docstring), and a notice goes out as soon as they are ready."""
    lines = documented_python(functions, docstring_lines)
    lexer = lexer_class_for_filename("module.py")
    assert lexer is not None
    work = Colouring(lexer, lines)
    work.compile()
    notices: list[int] = []
    steps = work.steps(lambda: notices.append(work.added), lambda: True, every=3600)
    far = len(lines) - 90
    # The lines just below a docstring's middle: SYNC_LINES up is inside it.
    far = next(n for n in range(far, 0, -1) if lines[n - 1].startswith("    # a comment")) - 2
    shown = range(far, far + 40)
    work.want(shown.start, shown.stop - 1)
    taken = run_until(work, steps, shown)
    assert work.lines_ready < len(lines) // 20, "the run from the top got there first"
    assert notices, "no notice when the wanted lines were coloured"
    whole = whole_file_colours("module.py", lines)
    assert [work.spans(number) for number in shown] == [whole[number - 1] for number in shown]
    assert not any(work.final(number) for number in shown)  # until the run from the top is there
    run_steps(steps)
    assert work.done and not work.stopped
    assert [work.spans(number) for number in range(1, len(lines) + 1)] == whole
    assert taken < 10_000, f"{taken} steps to colour the wanted lines"


def test_jumps_keep_a_bounded_number_of_runs_and_scrolling_extends_one() -> None:
    lines = documented_python(3_000, 3)
    lexer = lexer_class_for_filename("module.py")
    assert lexer is not None
    work = Colouring(lexer, lines)
    steps = work.steps(lambda: None, lambda: True, every=3600)
    for far in (9_000, 3_000, 14_000, 6_000, 11_000):
        work.want(far, far + 40)
        run_until(work, steps, range(far, far + 41))
    assert len(work._jumps) == colouring.JUMP_RUNS
    kept = sum(len(run.lines) for run in work._jumps)
    for top in range(11_000, 11_400, 40):  # paging down from the last jump
        work.want(top, top + 80)
        run_until(work, steps, range(top, top + 81))
    assert len(work._jumps) == colouring.JUMP_RUNS
    assert sum(len(run.lines) for run in work._jumps) - kept < 1_000
    run_steps(steps)
    assert work._jumps == [] and work.lines_ready == len(lines)


def test_a_wanted_range_past_the_end_or_empty_changes_nothing() -> None:
    lines = [f"x{n} = {n}" for n in range(3_000)]
    lexer = lexer_class_for_filename("module.py")
    assert lexer is not None
    for first, last in [(2_990, 9_999), (5_000, 6_000), (40, 10), (0, 0), (-5, 3)]:
        work = Colouring(lexer, lines)
        work.want(first, last)
        run_steps(work.steps(lambda: None, lambda: True, 1.0))
        assert work.lines_ready == len(lines) and not work.stopped


def test_a_lexer_that_fails_in_a_jump_leaves_those_lines_plain_and_tries_no_more() -> None:
    class FailingMidFile(PythonLexer):
        def get_tokens_unprocessed(self, text: str, stack: Sequence[str] = ("root",)) -> Iterator[Any]:
            if text.startswith("x3"):  # a run begun in lines 3000-3999 (the one from the top never is)
                raise RuntimeError("a lexer's bug")
            yield from super().get_tokens_unprocessed(text, stack)

    lines = [f"x{n} = {n}" for n in range(5_000)]
    work = Colouring(FailingMidFile, lines)
    steps = work.steps(lambda: None, lambda: True, 1.0)
    work.want(4_000, 4_040)
    for _ in range(50):
        next(steps)
    assert [spelled(work.spans(number)) for number in range(4_000, 4_041)] == lines[3_999:4_040]
    assert len(work._jumps) == 1
    work.want(2_000, 2_040)  # another jump: no new run
    run_steps(steps)
    assert len(work._jumps) <= 1 and not work.stopped and work.lines_ready == len(lines)


@pytest.mark.parametrize("wanted", [True, False])
def test_lines_coloured_off_screen_ask_for_no_frame(wanted: bool) -> None:
    """Each notice is a frame: while the run from the top colours lines
    above the ones on screen, none is asked for (a frame every 0.1 s for
    the half minute a big file takes); it is when the wanted lines are
    ready, when that run goes over them, and at the end. With nothing
    wanted (no screen yet), progress is told as it comes."""
    lines = documented_python(2_000, 3)
    lexer = lexer_class_for_filename("module.py")
    assert lexer is not None
    work = Colouring(lexer, lines)
    told: list[int] = []
    steps = work.steps(lambda: told.append(work.lines_ready), lambda: True, every=0.0)
    if wanted:
        work.want(8_000, 8_080)
    run_steps(steps)
    assert told[-1] == len(lines)
    between = [ready for ready in told if 0 < ready < 7_999]
    if wanted:
        assert told[0] == 0  # the wanted lines, by a run of their own
        assert between == [], f"{len(between)} frames asked for while colouring off screen"
        assert any(7_999 <= ready <= 8_200 for ready in told)  # going over the wanted lines
    else:
        assert len(between) > 1_000


MANY_LINES = [case for case in HOSTILE if case[1].endswith("\n")]


@pytest.mark.parametrize(("name", "unit", "count"), MANY_LINES, ids=[case[0] for case in MANY_LINES])
def test_jumping_about_a_file_that_makes_the_lexer_rescan_costs_no_more(
    name: str, unit: str, count: int
) -> None:
    """Lines wanted far down such a file (a person paging, an agent lighting
    one far line after another) each get a lexer run of their own; their
    time counts against the same budget, so the colouring still stops after
    a bounded half second and no step holds the loop."""
    lines = source_lines(unit * count)
    lexer = lexer_class_for_filename(name)
    assert lexer is not None
    work = Colouring(lexer, lines)
    work.compile()
    steps = work.steps(lambda: None, lambda: True, 0.1)
    spots = itertools.cycle(range(colouring.SYNC_LINES * 4, len(lines) - 100, 997))
    started = time.thread_time()
    longest = 0.0
    gc.disable()
    try:
        while not work.done and time.thread_time() - started < GRACE_SECONDS + 2.5:
            spot = next(spots)
            work.want(spot, spot + 80)
            for _ in range(20):
                before = time.thread_time()
                next(steps, None)
                longest = max(longest, time.thread_time() - before)
    finally:
        gc.enable()
    assert work.done, "still colouring after the budget: the jumps' time was not counted"
    assert longest < 0.1, f"one step held the loop {longest * 1000:.0f} ms"
    shown = [spelled(work.spans(number)) for number in range(1, len(lines) + 1)]
    assert shown == [line.expandtabs(TAB) for line in lines]
