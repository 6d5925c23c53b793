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

The lines on screen come first (`want`): when the run from the top is more
than SYNC_LINES above them (a jump far into a big file, which that run
would reach only after seconds), a run of their own starts a little above
them, in the lexer's first state, as an editor syncs its highlighting some
lines back (`_sync_point`). Its colours are shown until the run from the
top reaches those lines and gives them their final ones (the same, unless
that start was inside a string or comment).

Lines not coloured yet are shown plain (`spans`: their rows are the same,
one per source line), and take their colours when a later frame finds them
ready (`final`). A coloured line is kept as its style runs (`Runs`), and
made into spans when it is read.
A coloured line's text is always its source line's: a line whose tokens
spell anything else stops the colouring there (in a jump's run: that run,
and no other starts).
"""

from __future__ import annotations

import bisect
import itertools
import time
from collections.abc import Callable, Generator, Iterator, Sequence

from pygments.lexer import Lexer
from pygments.token import Token

from laura.render.code import TAB, compiled, lexer_of, style_for
from laura.render.style import PLAIN, Span, Style
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
# A run of the lines on screen starts at least SYNC_LINES above them, at the
# nearest line within SYNC_REACH more that begins a top-level block, and
# JUMP_RUNS such runs are kept (a jump far away drops the oldest).
SYNC_LINES = 50
SYNC_REACH = 1000
JUMP_RUNS = 3

Spans = tuple[Span, ...]
# A coloured line as kept: (end, style, end, style, ...), `end` the offset
# in the line (tabs expanded) where a run of one style ends, `style` an
# index into _STYLES. Kept as spans, the colours of a 7 MB Python file took
# 299 MB (64 now), and every middle pass of the garbage collector walked
# their 3 million objects; a tuple of ints is a few bytes an int, and the
# collector stops walking it after its first look.
Runs = tuple[int, ...]
_STYLES: list[Style] = [PLAIN]
_STYLE_INDEX: dict[Style, int] = {PLAIN: 0}


def _style_index(style: Style) -> int:
    index = _STYLE_INDEX.get(style)
    if index is None:
        index = _STYLE_INDEX[style] = len(_STYLES)
        _STYLES.append(style)
    return index


def _spans_of(text: str, runs: Runs) -> Spans:
    """Line `text` (tabs expanded) in the style runs `runs`."""
    spans = []
    at = 0
    for index in range(0, len(runs), 2):
        end = runs[index]
        if end > at:
            spans.append(Span(text[at:end], _STYLES[runs[index + 1]]))
            at = end
    return tuple(spans)


def plain(line: str) -> Spans:
    """A source line as one unstyled span, tabs expanded."""
    line = line.expandtabs(TAB)
    return (Span(line),) if line else ()


class _Run:
    """The lines one pass of the lexer coloured, from source line `start`
    (0-based) on; `work` colours more a token per step."""

    def __init__(self, start: int) -> None:
        self.start = start
        self.lines: list[Runs] = []
        self.work: Iterator[None] = iter(())
        self.ended = False

    @property
    def end(self) -> int:
        """The line after the last coloured one (0-based)."""
        return self.start + len(self.lines)


class Colouring:
    """The coloured lines of `lines` (source lines, without newlines) by a
    `lexer_class` lexer, made in order from the first; `lines_ready` so far.
    The lines on screen (`want`) may be coloured first by a run of their own."""

    def __init__(self, lexer_class: type[Lexer], lines: Sequence[str]) -> None:
        self._lexing = _Lexing(lexer_class, lines)
        self._main = self._new_run(0)
        self._coloured = self._main.lines
        self._jumps: list[_Run] = []  # runs that began below the main one, oldest first
        self._jumps_fail = False  # one gave up: the lexer cannot start mid-file
        self._wanted: tuple[int, int] | None = None  # 0-based, end excluded
        self._aim: tuple[_Run, int] | None = None  # the run that colours a wanted line next, and it
        self._finished = False
        self._spent = 0.0

    @property
    def added(self) -> int:
        """Lines coloured so far, by every run."""
        return self._lexing.added

    @property
    def stopped(self) -> bool:
        """Too slow, or a lexer changed the text: the rest stays plain."""
        return self._lexing.stopped

    @property
    def compiled(self) -> bool:
        """Whether the lexer's patterns are compiled (else the first step
        compiles them: up to 60 ms; `compile` does it, in a worker thread)."""
        return compiled(self._lexing.lexer_class)

    def compile(self) -> None:
        lexer_of(self._lexing.lexer_class)

    @property
    def lines_ready(self) -> int:
        """Lines coloured by the run from the top (their colours are final)."""
        return len(self._coloured)

    @property
    def done(self) -> bool:
        """No more lines will be coloured."""
        return self._finished or self.stopped

    def line(self, number: int) -> Spans | None:
        """Line `number`'s (1-based) final coloured spans, or None while not ready."""
        if number > len(self._coloured):
            return None
        return _spans_of(self._lexing.source[number - 1].expandtabs(TAB), self._coloured[number - 1])

    def spans(self, number: int) -> Spans:
        """Line `number`'s spans as shown now: coloured, or plain."""
        final = self.line(number)
        if final is not None:
            return final
        text = self._lexing.source[number - 1]
        for run in self._jumps:
            if run.start < number <= run.end:
                return _spans_of(text.expandtabs(TAB), run.lines[number - 1 - run.start])
        return plain(text)

    def final(self, number: int) -> bool:
        """Whether line `number` is shown as it will stay."""
        return number <= len(self._coloured) or self.done

    def ready(self, number: int) -> bool:
        """Whether line `number` (1-based) shows colours now, final or a jump's."""
        return number <= len(self._coloured) or any(
            run.start < number <= run.end for run in self._jumps
        )

    def want(self, first: int, last: int) -> None:
        """Lines `first`..`last` (1-based) are on screen or about to be:
        the steps colour them before any other."""
        wanted = (max(0, first - 1), min(last, len(self._lexing.source)))
        if wanted != self._wanted:
            self._wanted = wanted
            self._aim = self._aim_at_wanted()

    def advance(self, through: int, seconds: float) -> None:
        """Colour from the top until line `through` is ready, the work ends,
        or `seconds` pass."""
        deadline = time.perf_counter() + seconds
        while len(self._coloured) < through and not self.done:
            self._step(self._main)
            if time.perf_counter() >= deadline:
                return

    def steps(
        self, notify: Callable[[], None], alive: Callable[[], bool], every: float, first: int = 0
    ) -> Steps[None]:
        """Colour to the end a token per step while `alive()`, the wanted
        lines first; `notify()` when the `first` lines or the wanted ones are
        ready, else at most every `every` seconds when more are and they may
        show (the run from the top went over wanted lines, or none are
        wanted), and at the end."""
        told_at, told, told_through = time.perf_counter(), self.added, len(self._coloured)
        first_told = len(self._coloured) >= first
        while not self.done and alive():
            wanted_met = self._aimed_step()
            if self.added > told:
                reached_first = not first_told and len(self._coloured) >= first
                due = time.perf_counter() - told_at >= every
                if reached_first or wanted_met or (due and self._shows_since(told_through)):
                    notify()
                    told, told_through = self.added, len(self._coloured)
                    first_told = first_told or reached_first
                if due or reached_first or wanted_met:
                    told_at = time.perf_counter()
            yield
        if alive() and self.added > told:
            notify()

    def _shows_since(self, through: int) -> bool:
        """Whether lines the run from the top coloured since it had coloured
        `through` are among the wanted ones (any, when none are wanted)."""
        if self._wanted is None:
            return True
        start, stop = self._wanted
        return through < stop and len(self._coloured) > start

    def _aimed_step(self) -> bool:
        """A step of the run colouring the first wanted line not ready, else
        of the run from the top; True when it made every wanted line ready."""
        if self._aim is None:
            self._step(self._main)
            return False
        run, need = self._aim
        self._step(run)
        if run.end <= need and not run.ended:
            return False
        self._aim = self._aim_at_wanted()
        return self._aim is None

    def _aim_at_wanted(self) -> tuple[_Run, int] | None:
        """The run that reaches the first wanted line not coloured yet
        soonest (a new one from `_sync_point` if none is within SYNC_LINES
        of it), and that line (0-based); None when every wanted line is ready."""
        if self._wanted is None or self.done:
            return None
        need = next((index for index in range(*self._wanted) if not self.ready(index + 1)), None)
        if need is None:
            return None
        near = [
            run
            for run in (self._main, *self._jumps)
            if run.start <= need and not run.ended and run.end >= need - SYNC_LINES
        ]
        if near:
            return max(near, key=lambda run: run.end), need
        if self._jumps_fail:
            return None
        run = self._new_run(self._sync_point(need))
        kept = [old for old in self._jumps if old.end > len(self._coloured)]
        self._jumps = [*kept[-(JUMP_RUNS - 1) :], run]
        return run, need

    def _sync_point(self, need: int) -> int:
        """Where a run for line `need` (0-based) starts: the nearest line at
        least SYNC_LINES above it that begins at column 0 after a blank line,
        where top-level code begins in most languages. A run that starts
        inside a long string or comment takes what follows for its inside
        (and keeps that inversion to its end): from any line SYNC_LINES up,
        one jump in nine into Python's standard library was coloured so;
        from such a line, one in fifty (module docstrings). None within
        SYNC_REACH lines: SYNC_LINES up."""
        base = max(0, need - SYNC_LINES)
        source = self._lexing.source
        for index in range(base, max(0, base - SYNC_REACH), -1):
            if source[index][:1] not in ("", " ", "\t") and not source[index - 1].strip():
                return index
        return base

    def _step(self, run: _Run) -> None:
        started = time.perf_counter()
        try:
            next(run.work)
        except StopIteration:
            self._ended(run, failed=False)
        except Exception:  # a lexer's bug: the rest stays plain, the file is shown
            self._ended(run, failed=True)
        self._spent += time.perf_counter() - started
        if self._spent > GRACE_SECONDS + self._lexing.lexed / MIN_RATE:
            self._lexing.stopped = True

    def _ended(self, run: _Run, failed: bool) -> None:
        run.ended = True
        if run is not self._main:
            self._jumps_fail = self._jumps_fail or failed
        elif failed:
            self._lexing.stopped = True
        else:
            self._finished = True
            self._jumps = []

    def _new_run(self, start: int) -> _Run:
        run = _Run(start)
        run.work = self._lexing.runs(start, run.lines)
        return run


class _Lexing:
    """What the runs of one `Colouring` share: the source lines, the lexer
    and the tallies. A run's work (a generator) holds this and the list it
    fills, never the `Colouring` or the run: a cycle through them kept a
    replaced file's lines and colours until the collector's rare full pass
    (a generated file rewritten while it was coloured kept every version)."""

    def __init__(self, lexer_class: type[Lexer], source: Sequence[str]) -> None:
        self.lexer_class = lexer_class
        self.source = source
        self.lexed = 0  # characters lexed, by every run
        self.added = 0  # lines coloured, by every run
        self.stopped = False

    def runs(self, start: int, out: list[Runs]) -> Iterator[None]:
        """Colour from line `start` to the end onto `out`, window by
        window; a window whose tokens do not spell its lines ends the run."""
        while start < len(self.source) and not self.stopped:
            stop = start + _fitting(self.source, start)
            taken = yield from self._window(start, stop, out)
            if taken is None:
                raise _Misspelled
            start += taken

    def _window(self, start: int, stop: int, out: list[Runs]) -> Generator[None, None, int | None]:
        """Colour source lines start..stop-1 in one run of the lexer onto
        `out`; returns how many it coloured, or None if the tokens did not
        spell them. The lines after the last one that ended outside a
        string or comment are left for the next window, which starts with
        them."""
        text = "\n".join(self.source[start:stop]).expandtabs(TAB)
        beyond = ""
        if len(text) > WINDOW:  # one line longer than a window: its start
            text, beyond = text[:WINDOW], text[WINDOW:]
        pending: list[Runs] = []  # lines since the last clean line end
        taken = 0
        line = self._line_at(start, cut=bool(beyond))
        for ttype, value in lexer_of(self.lexer_class).get_tokens(text + "\n"):
            self.lexed += len(value)
            style = style_for(ttype)
            if "\n" not in value:  # most tokens
                if line is not None:
                    line.add(value, style)
                yield
                continue
            for index, part in enumerate(value.split("\n")):
                if index:
                    runs = line.finish() if line is not None else None
                    if runs is None:  # the tokens do not spell the source line
                        return None
                    pending.append(runs)
                    if ttype in Token.Text:  # this line ended outside strings and comments
                        out.extend(pending)
                        taken += len(pending)
                        self.added += len(pending)
                        pending = []
                    line = self._line_at(start + taken + len(pending), cut=bool(beyond))
                if part and line is not None:
                    line.add(part, style)
            yield
        if stop == len(self.source) or taken == 0 or len(pending) > (stop - start) // 2:
            out.extend(pending)
            taken += len(pending)
            self.added += len(pending)
        if taken == 0:  # the lexer gave no line at all
            return None
        if beyond:
            last = out[-1]  # the rest of a line cut at the window, plain
            out[-1] = (*last, (last[-2] if last else 0) + len(beyond), 0)
        return taken

    def _line_at(self, index: int, cut: bool) -> _LineRuns | None:
        """A builder of source line `index`'s style runs (0-based; `cut`: of
        its first WINDOW characters), or None past the last line."""
        if index >= len(self.source):
            return None
        wanted = self.source[index].expandtabs(TAB)
        return _LineRuns(wanted[:WINDOW] if cut else wanted)


class _Misspelled(Exception):
    """A run's tokens did not spell its source lines (a lexer that changes
    the text): that run ends."""


class _LineRuns:
    """The style runs of one line as its tokens come, each token checked
    against the line's text as it comes (so a long line's work is spread
    over its tokens' steps)."""

    def __init__(self, wanted: str) -> None:
        self._wanted = wanted
        self._at = 0
        self._runs: list[int] = []
        self._style: Style | None = None
        self._index = 0
        self._spelled = True

    def add(self, part: str, style: Style) -> None:
        if style is not self._style:  # `style_for` gives one object per style
            if self._style is not None:
                self._runs += (self._at, self._index)
            self._style, self._index = style, _style_index(style)
        self._spelled = self._spelled and self._wanted.startswith(part, self._at)
        self._at += len(part)

    def finish(self) -> Runs | None:
        """The line's style runs, or None if its tokens do not spell its text."""
        if not self._spelled or self._at != len(self._wanted):
            return None
        if self._style is not None:
            self._runs += (self._at, self._index)
        return tuple(self._runs)


def _fitting(source: Sequence[str], start: int) -> int:
    """How many lines from `start` make a window (at least one)."""
    ends = list(itertools.accumulate(map(len, source[start : start + WINDOW_LINES])))
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
