"""A markdown table too big to lay out in one step is read as its source.

A table is parsed, rendered and measured in one step of the UI loop, some
15-20 µs a cell (markdown-it's table rule, then each cell's inline markup
and width), and a table is never cut (its rest would read as markdown). So
its lines bound only its rows: 100 columns by 1,000 rows, 200 KB, held keys
2.7 s; one row of 100,000 columns, 600 KB, 6 s and 384 MB. `bounded` wraps
markdown-it's table rule: a table of more than TABLE_CELLS cells (its
delimiter row's columns times its rows, counted before anything is split
into cells) becomes one `table_source` token over its lines, which the
writer shows line for line as written, as it does an HTML block.
"""

from __future__ import annotations

from collections.abc import Callable

from markdown_it.rules_block.state_block import StateBlock

BlockRule = Callable[[StateBlock, int, int, bool], bool]

# Some 60 ms of parsing, rendering and measuring (64 columns by 64 rows).
TABLE_CELLS = 4096
SOURCE = "table_source"


def bounded(table: BlockRule) -> BlockRule:
    """markdown-it's `table` rule, with a table past TABLE_CELLS read as its source."""

    def rule(state: StateBlock, start: int, end: int, silent: bool) -> bool:
        if silent:  # would a table start here? (a big one is a table too)
            return table(state, start, end, True)
        if not table(state, start, end, True):  # the rule's own checks
            return False
        delimiter = state.src[state.bMarks[start + 1] : state.eMarks[start + 1]]
        most_rows = TABLE_CELLS // (delimiter.strip("| \t").count("|") + 1)
        if _lines_before_a_blank(state, start, end, most_rows) <= most_rows:
            return table(state, start, end, False)  # at most as many rows as lines
        stop = _end_of(state, start, end)
        if stop - start - 1 <= most_rows:
            return table(state, start, end, False)
        token = state.push(SOURCE, "", 0)
        token.map = [start, stop]
        state.line = stop
        return True

    return rule


def _lines_before_a_blank(state: StateBlock, start: int, end: int, most: int) -> int:
    """Lines from `start` (the header) to the first blank line, not
    counting the delimiter row, or `most + 1` once there are more: an
    upper bound of the table's rows, cheap to count."""
    line = start + 2
    while line < end and line - start - 1 <= most and not state.isEmpty(line):
        line += 1
    return line - start - 1


def _end_of(state: StateBlock, start: int, end: int) -> int:
    """The line after the table starting at `start`, as markdown-it's rule
    ends one: a blank line, a line less indented, or one that starts a
    block a quote would end at."""
    terminators = state.md.block.ruler.getRules("blockquote")
    line = start + 2
    while line < end:
        if state.sCount[line] < state.blkIndent or state.isEmpty(line) or state.is_code_block(line):
            break
        if any(terminates(state, line, end, True) for terminates in terminators):
            break
        line += 1
    return line
