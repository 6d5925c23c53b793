"""The projection: ViewState -> the live region's rows and the cursor.

`live_rows(state, width, height, now)` never changes the state. From the top:
the streaming answer's open block and thinking, running tools with their
output's tail, a permission prompt (or a GitHub write's confirmation) or
question picker, the queue, a notice,
the editor, completions, and the status line (always one row). The region
never takes more than height - 1 rows: the streaming part loses its oldest
rows first.
"""

from __future__ import annotations

from luxe.frontends.tui.markdown import render_block
from luxe.frontends.tui.text import Line, char_width, clean, local_time, truncate, wrap
from luxe.frontends.tui.view import TOOL_TAIL_LINES, ViewState, key_arg

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
# Diff rows a permission prompt shows before Ctrl+O is needed for the rest.
PROMPT_DIFF_ROWS = 16
MODES = {"ask": "ask", "accept-edits": "accept edits", "read-only": "read-only", "yolo": "yolo"}


def live_rows(state: ViewState, width: int, height: int, now: float) -> tuple[list[Line], tuple[int, int]]:
    # Never the last column (no pending-wrap surprises), and no row wider
    # than the terminal, however narrow: a row the terminal wraps moves the
    # region under its count of rows, and each redraw leaves pieces behind.
    width = max(width - 1, 1)
    top: list[Line] = []
    if state.thinking.strip():
        lines = wrap([(clean(state.thinking.strip()), "thinking")], width, [("∴ ", "thinking")], [("  ", "")])
        top.extend(lines[-3:] if not state.show_thinking else lines)
    tail = state.stream.tail
    if tail.strip():
        top.extend(render_block(tail, width, last=height))
    for tool in state.tools.values():
        spin = SPINNER[int(now * 10) % len(SPINNER)]
        top.append(truncate([(f"{spin} ", "tool"), (tool.name, "tool"), (" ", ""),
                             (key_arg(tool.name, tool.args), ""),
                             (f"  {now - tool.started:.1f}s", "dim")], width))
        if tool.output:
            for line in clean_lines(tool.output, latest=True)[-TOOL_TAIL_LINES:]:
                top.append(truncate([("  │ ", "dim"), (line, "dim")], width))
    editor, cursor = _editor(state, width)
    bottom = [*_completions(state, width), _status(state, width, now)]
    prompt, queue = _prompt(state, width), _queue(state, width)
    notices = [truncate([(n, "warn")], width) for n in (state.retrying, state.notice) if n]
    room = max(height - 1, 3) - len(editor) - len(bottom) - len(prompt) - len(queue) - len(notices)
    middle = prompt + _picker(state, width, room) + queue + notices
    budget = max(height - 1, 3) - len(middle) - len(editor) - len(bottom)
    if budget < len(top):
        top = top[len(top) - max(budget, 0):]
    rows = [truncate(row, width) for row in (*top, *middle, *editor, *bottom)]
    limit = max(height - 1, 3)
    if len(rows) > limit:
        # A huge draft: keep the rows around the cursor.
        start = len(top) + len(middle)
        cut = len(rows) - limit
        rows = rows[cut:]
        row = start + cursor[0] - cut
        return rows, (max(row, 0), cursor[1])
    return rows, (len(top) + len(middle) + cursor[0], cursor[1])


def clean_lines(text: str, latest: bool = False) -> list[str]:
    """A tool's output as rows to show. `latest` (a running tool's tail):
    a line redrawn with carriage returns (a progress bar) is its last state,
    as a terminal shows it; else every state, each return a `�`, which the
    tail cut at the width after the first one. Ctrl+O prints them all."""
    lines = text.replace("\r\n", "\n").split("\n")
    if latest:
        lines = [line.rstrip("\r").rsplit("\r", 1)[-1] for line in lines]
    return [clean(line) for line in lines if line.strip()]


def _prompt(state: ViewState, width: int) -> list[Line]:
    if not state.permissions:
        if state.github.confirm is not None:
            from luxe.frontends.tui.github_writes import prompt_rows

            return prompt_rows(state.github.confirm, width)
        return []
    asked = state.permissions[0]
    # How many wait behind it goes on its first row: the keys' row is cut at 80 columns.
    more = f"  (+{len(state.permissions) - 1} waiting)" if len(state.permissions) > 1 else ""
    rows: list[Line] = [[("◆ ", "warn"), (asked.tool, "tool"), (" wants to run", "bold"), (more, "dim")]]
    arg = key_arg(asked.tool, asked.args)
    rows.extend(wrap([(arg, "")], width, [("  ", "")], [("  ", "")])[:6])
    from luxe.frontends.tui.view import change_rows

    rows.extend(change_rows(asked.tool, asked.args, asked.diff, width, PROMPT_DIFF_ROWS,
                            " · Ctrl+O prints the whole change"))
    if asked.reason:
        rows.extend(wrap([(clean(asked.reason), "dim")], width, [("  ", "")], [("  ", "")])[:2])
    if state.feedback:
        rows.append([("  rejecting: type what the agent should do instead, Enter sends, Esc rejects without a note", "dim")])
    else:
        scope = "this exact command" if asked.tool == "bash" else "this exact call"
        if asked.tool in ("write", "edit"):
            scope = "this file"
        rows.append([("  ", ""), ("y", "key"), (" once   ", ""), ("a", "key"),
                     (f" always ({scope}, this session)   ", ""), ("n", "key"), (" reject (with a note)", "")])
    return [truncate(r, width) for r in rows]


def _picker(state: ViewState, width: int, room: int) -> list[Line]:
    """A question (or the resume picker) in at most `room` rows when it
    can: the options shown are those around the chosen one, under the
    question itself (cutting the top, as the region does, hid both)."""
    rows: list[Line] = []
    if state.questions:
        asked = state.questions[0]
        rows.extend(wrap([("? ", "warn"), (clean(asked.question), "bold")], width, None, [("  ", "")]))
        options = [*asked.options, "Other (type an answer, Enter sends)"]
        fits = max(room - len(rows) - 1, 1)
        start = max(0, min(state.question_cursor - fits // 2, len(options) - fits))
        for i, option in enumerate(options[start:start + fits], start):
            mark = ("[x] " if i in state.question_marked else "[ ] ") if asked.multiple and i < len(asked.options) else ""
            role = "select" if i == state.question_cursor else ""
            shown = clean(option).replace("\n", " ⏎ ")  # one row each
            rows.append(truncate([("  ", ""), (f"{i + 1}. {mark}{shown}", role)], width))
        hint = "↑↓ choose · Space marks · Enter answers · Esc dismisses" if asked.multiple else "↑↓ or 1-9 choose · Enter answers · Esc dismisses"
        rows.append([(f"  {hint}", "dim")])
    if state.picker:
        rows.append([("resume which session? ", "bold"), ("↑↓ Enter · Esc cancels", "dim")])
        start = max(0, state.picker_cursor - 7)
        for i, s in enumerate(state.picker[start:start + 8], start):
            role = "select" if i == state.picker_cursor else ""
            rows.append(truncate([("  ", ""), (f"{local_time(s.updated_at)}  {s.messages:>4} msgs  {clean(s.title) or s.id}", role)], width))
    return rows


def _queue(state: ViewState, width: int) -> list[Line]:
    rows: list[Line] = []
    for i, text in enumerate(state.queue):
        role = "select" if state.queue_cursor == i else "dim"
        first = clean(text).split("\n", 1)[0]
        rows.append(truncate([("⧗ ", "dim"), (f"queued {i + 1}: {first}", role)], width))
    if state.queue_cursor is not None:
        rows.append([("  Enter edits · Del removes · Esc back", "dim")])
    return rows


def _editor(state: ViewState, width: int) -> tuple[list[Line], tuple[int, int]]:
    """The draft, hard-wrapped by cells, and the cursor's (row, column)."""
    if state.search is not None:
        hit = state.editor.text
        found: Line = [("(history search) ", "dim"), (state.search, "bold"), (": ", "dim"), (clean(hit).replace("\n", " ⏎ "), "")]
        col = sum(_cells(t) for t, _ in found[:3])
        return [truncate(found, width)], (0, min(col, width))
    prompt = "! " if state.editor.text.startswith("!") else "› "
    role = "warn" if state.permissions and state.feedback else "prompt"
    rows: list[Line] = []
    cursor = (0, len(prompt))
    text, index = state.editor.text, state.editor.cursor
    pos = 0
    for n, logical in enumerate(text.split("\n")):
        lead = prompt if n == 0 else "  "
        row: Line = [(lead, role if n == 0 else "")]
        used, chunk = len(lead), ""
        for ch in logical:
            if pos == index:
                cursor = (len(rows), used)
            w = char_width(ch) if ch >= " " and not "\x7f" <= ch <= "\x9f" else 1
            if used + w > width:
                row.append((chunk, ""))
                rows.append(row)
                row, used, chunk = [("  ", "")], 2, ""
                if pos == index:
                    cursor = (len(rows), used)
            # Control characters (C0, DEL, C1) never reach the terminal.
            chunk += "\ufffd" if ch < " " or "\x7f" <= ch <= "\x9f" else ch
            used += w
            pos += 1
        if pos == index:
            cursor = (len(rows), used)
        row.append((chunk, ""))
        rows.append(row)
        pos += 1  # the newline
    return rows, cursor


def _cells(text: str) -> int:
    return sum(char_width(ch) for ch in text)


def _completions(state: ViewState, width: int) -> list[Line]:
    rows = []
    for i, item in enumerate(state.completions[:8]):
        role = "select" if i == state.completion_index else "dim"
        rows.append(truncate([("  ", ""), (item, role)], width))
    return rows


def _status(state: ViewState, width: int, now: float) -> Line:
    s = state.status
    parts: Line = []
    if not s.known:
        return parts
    if s.streaming:
        parts.append((SPINNER[int(now * 10) % len(SPINNER)] + " working · Esc cancels · Enter steers · Tab queues  ", "tool"))
    mode = "plan" if s.mode == "plan" else MODES.get(s.permission_mode, s.permission_mode)
    parts.append((mode, "mode"))
    model = s.model
    if model.startswith("scripted:"):
        model = "scripted:" + model.rsplit("/", 1)[-1]
    parts.append(("  " + model, "status"))
    if s.auto_approve:
        parts.append((" +auto", "mode"))
    if s.thinking != "off":
        parts.append((f"  thinking {s.thinking}", "status"))
    if s.context_window:
        parts.append((f"  ctx {100 * s.context_used // max(s.context_window, 1)}%", "status"))
    if s.cost is not None:
        parts.append((f"  ${s.cost:.2f}", "status"))
    if s.branch:
        parts.append((f"  ⎇ {s.branch}", "status"))
    if s.pull_request:
        parts.append((f"  {s.pull_request}", "status"))
    return truncate(parts, width)


