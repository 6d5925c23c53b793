"""Colouring code with Pygments in bounded steps, ahead of need.

Pygments' lexers are regular expressions, and some of their patterns scan
to the end of the text each time they fail. A file of unclosed `/*`
(JavaScript, CSS), `<!--` (HTML, XML) or `=begin` (Ruby) therefore lexes in
time quadratic in its length: 300 KB of `/*` lines took minutes. Python's
`re` holds the interpreter while it scans, so a worker thread would freeze
keys all the same. Even a file that lexes normally takes seconds when it is
big (a 5 MB Python file, 10 s). A `Colouring` bounds the work three ways:

- the lexer sees the text in windows of at most WINDOW characters and
  WINDOW_LINES lines, cut after a line that ends outside any string or
  comment, so one scan costs at most a window (a window starts afresh, in
  the lexer's first state);
- the work is done in steps of one token, which a file pane drives between
  keys and frames (`steps`, run by `laura.steps.drive`) after colouring
  the first screens at load within a few milliseconds (`advance`);
- when lexing runs slower than MIN_RATE characters a second, it stops for
  good: the rest of the file is shown plain, as editors do when a
  highlighter runs over time.

Lines not coloured yet are shown plain (`spans`: their rows are the same,
one per source line), and take their colours when a later frame finds them
ready (`final`).
A coloured line's text is always its source line's: a line whose tokens
spell anything else stops the colouring there.
"""

from __future__ import annotations

import bisect
import itertools
import time
from collections.abc import Callable, Generator, Iterator, Sequence

from pygments.lexer import Lexer
from pygments.token import Token

from laura.render.code import TAB, compiled, lexer_of, style_for
from laura.render.style import Span, Style
from laura.steps import Steps

# The most characters one run of the lexer sees, and the most lines (a
# window's text is made in one step).
WINDOW = 256 << 10
WINDOW_LINES = 2048
# Below this many characters a second the lexer is stopped ...
MIN_RATE = 150_000
# ... once it has had this long (a lexer's first run compiles its patterns).
GRACE_SECONDS = 0.5
# How long a fence in a markdown file may take to colour when it is shown.
FENCE_SECONDS = 0.02

Spans = tuple[Span, ...]


def plain(line: str) -> Spans:
    """A source line as one unstyled span, tabs expanded."""
    line = line.expandtabs(TAB)
    return (Span(line),) if line else ()


class Colouring:
    """The coloured lines of `lines` (source lines, without newlines) by a
    `lexer_class` lexer, made in order from the first; `lines_ready` so far."""

    def __init__(self, lexer_class: type[Lexer], lines: Sequence[str]) -> None:
        self._lexer_class = lexer_class
        self._source = lines
        self._coloured: list[Spans] = []
        self._work = self._run()
        self._finished = False
        self.stopped = False  # too slow, or a lexer changed the text: the rest stays plain
        self._spent = 0.0
        self._lexed = 0

    @property
    def compiled(self) -> bool:
        """Whether the lexer's patterns are compiled (else the first step
        compiles them: up to 60 ms; `compile` does it, in a worker thread)."""
        return compiled(self._lexer_class)

    def compile(self) -> None:
        lexer_of(self._lexer_class)

    @property
    def lines_ready(self) -> int:
        return len(self._coloured)

    @property
    def done(self) -> bool:
        """No more lines will be coloured."""
        return self._finished or self.stopped

    def line(self, number: int) -> Spans | None:
        """Line `number`'s (1-based) coloured spans, or None while not ready."""
        return self._coloured[number - 1] if number <= len(self._coloured) else None

    def spans(self, number: int) -> Spans:
        """Line `number`'s spans as shown now: coloured, or plain."""
        if number <= len(self._coloured):
            return self._coloured[number - 1]
        return plain(self._source[number - 1])

    def final(self, number: int) -> bool:
        """Whether line `number` is shown as it will stay."""
        return number <= len(self._coloured) or self.done

    def advance(self, through: int, seconds: float) -> None:
        """Colour until line `through` is ready, the work ends, or `seconds` pass."""
        deadline = time.perf_counter() + seconds
        while len(self._coloured) < through and not self.done:
            self._step()
            if time.perf_counter() >= deadline:
                return

    def steps(
        self, notify: Callable[[], None], alive: Callable[[], bool], every: float, first: int = 0
    ) -> Steps[None]:
        """Colour to the end a token per step while `alive()`; `notify()`
        when the `first` lines are ready, then at most every `every` seconds
        when more are, and at the end."""
        told_at, told = time.perf_counter(), len(self._coloured)
        while not self.done and alive():
            self._step()
            ready = len(self._coloured)
            if ready > told and (told < first <= ready or time.perf_counter() - told_at >= every):
                notify()
                told_at, told = time.perf_counter(), ready
            yield
        if alive() and len(self._coloured) > told:
            notify()

    def _step(self) -> None:
        started = time.perf_counter()
        try:
            next(self._work)
        except StopIteration:
            self._finished = True
        except Exception:  # a lexer's bug: the rest stays plain, the file is shown
            self.stopped = True
        self._spent += time.perf_counter() - started
        if self._spent > GRACE_SECONDS + self._lexed / MIN_RATE:
            self.stopped = True

    def _run(self) -> Iterator[None]:
        start = 0
        while start < len(self._source) and not self.stopped:
            stop = start + _fitting(self._source, start)
            start += yield from self._window(start, stop)

    def _window(self, start: int, stop: int) -> Generator[None, None, int]:
        """Colour source lines start..stop-1 in one run of the lexer; returns
        how many it coloured. The lines after the last one that ended
        outside a string or comment are left for the next window, which
        starts with them."""
        text = "\n".join(self._source[start:stop]).expandtabs(TAB)
        beyond = ""
        if len(text) > WINDOW:  # one line longer than a window: its start
            text, beyond = text[:WINDOW], text[WINDOW:]
        pending: list[Spans] = []  # lines since the last clean line end
        taken = 0
        line = self._line_at(start, cut=bool(beyond))
        for ttype, value in lexer_of(self._lexer_class).get_tokens(text + "\n"):
            self._lexed += len(value)
            style = style_for(ttype)
            if "\n" not in value:  # most tokens
                if line is not None:
                    line.add(value, style)
                yield
                continue
            for index, part in enumerate(value.split("\n")):
                if index:
                    spans = line.finish() if line is not None else None
                    if spans is None:  # the tokens do not spell the source line
                        self.stopped = True
                        return stop - start
                    pending.append(spans)
                    if ttype in Token.Text:  # this line ended outside strings and comments
                        self._coloured.extend(pending)
                        taken += len(pending)
                        pending = []
                    line = self._line_at(start + taken + len(pending), cut=bool(beyond))
                if part and line is not None:
                    line.add(part, style)
            yield
        if stop == len(self._source) or taken == 0 or len(pending) > (stop - start) // 2:
            self._coloured.extend(pending)
            taken += len(pending)
        if taken == 0:  # the lexer gave no line at all
            self.stopped = True
            return stop - start
        if beyond:
            self._coloured[-1] = (*self._coloured[-1], Span(beyond))
        return taken

    def _line_at(self, index: int, cut: bool) -> _LineSpans | None:
        """A builder of source line `index`'s spans (0-based; `cut`: of its
        first WINDOW characters), or None past the last line."""
        if index >= len(self._source):
            return None
        wanted = self._source[index].expandtabs(TAB)
        return _LineSpans(wanted[:WINDOW] if cut else wanted)


class _LineSpans:
    """The spans of one line as its tokens come, a span per run of one
    style, each checked against the line's text as it is made (so a long
    line's work is spread over its tokens' steps)."""

    def __init__(self, wanted: str) -> None:
        self._wanted = wanted
        self._at = 0
        self._spans: list[Span] = []
        self._style: Style | None = None
        self._parts: list[str] = []
        self._spelled = True

    def add(self, part: str, style: Style) -> None:
        if style is not self._style:  # `style_for` gives one object per style
            self._flush()
            self._style = style
        self._parts.append(part)

    def finish(self) -> Spans | None:
        """The line's spans, or None if they do not spell its text."""
        self._flush()
        if not self._spelled or self._at != len(self._wanted):
            return None
        return tuple(self._spans)

    def _flush(self) -> None:
        if not self._parts or self._style is None:
            return
        text = "".join(self._parts)
        self._spelled = self._spelled and self._wanted.startswith(text, self._at)
        self._at += len(text)
        self._spans.append(Span(text, self._style))
        self._parts = []


def _fitting(source: Sequence[str], start: int) -> int:
    """How many lines from `start` make a window (at least one)."""
    ends = list(
        itertools.accumulate(map(len, itertools.islice(source, start, start + WINDOW_LINES)))
    )
    fit = bisect.bisect_left(range(len(ends)), WINDOW, key=lambda at: ends[at] + at + 1)
    return max(1, fit)


def coloured_now(
    lexer: Lexer | None, lines: Sequence[str], seconds: float = FENCE_SECONDS
) -> list[Spans]:
    """Every line's spans at once: coloured as far as `seconds` allow, the
    rest plain (a fence in a markdown file, coloured when it is shown)."""
    if lexer is None:
        return [plain(line) for line in lines]
    colouring = Colouring(type(lexer), lines)
    colouring.advance(len(lines), seconds)
    return [
        plain(line) if (spans := colouring.line(number)) is None else spans
        for number, line in enumerate(lines, 1)
    ]
