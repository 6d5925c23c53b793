"""The interface's state, and what each protocol event does to it.

`ViewState` is everything the screen shows; `apply(state, event, now)`
changes it for one event. Finished things (the prompt, a complete markdown
block, a tool call's one-line summary, an edit's diff) are queued in
`state.commits` as functions of the width: the front end takes them once and
writes them into scrollback. Everything else is live state, drawn by
luxe.frontends.tui.draw until it finishes. No I/O here.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import attrs

from luxe.engine.file_change import hunk_lines, unified
from luxe.frontends.server_notices import ServerNotices
from luxe.frontends.tui import review as review_view
from luxe.frontends.tui.editor import Editor
from luxe.frontends.tui.github_state import GitHubView
from luxe.frontends.tui.markdown import BlockStream, render_block
from luxe.frontends.tui.text import Line, clean, hard_wrap, local_time, wrap
from luxe.protocol import events as ev
from luxe.record import state
from luxe.wording import counted

Commit = Callable[[int], list[Line]]

# Bounds on what a running tool keeps and shows.
TOOL_OUTPUT_CHARS = 64 * 1024
TOOL_TAIL_LINES = 5
DIFF_LINES = 40
KEY_ARGS = {"bash": "command", "read": "path", "write": "path", "edit": "path", "ls": "path",
            "glob": "pattern", "grep": "pattern", "question": "question"}


@state
class ToolView:
    call_id: str
    name: str
    args: dict[str, Any]
    started: float
    output: str = ""
    diff: str | None = None  # file_changed's diff of what the call wrote

    def add_output(self, delta: str) -> None:
        self.output = (self.output + delta)[-TOOL_OUTPUT_CHARS:]


@state
class Status:
    # False until the handshake's state_changed: the prompt is drawn before
    # the session is known (Interface.show_prompt), its status line after.
    known: bool = False
    model: str = ""
    model_label: str | None = None
    mode: str = "build"
    permission_mode: str = "ask"
    thinking: str = "off"
    auto_approve: bool = False
    streaming: bool = False
    context_used: int = 0
    context_window: int = 0
    cost: float | None = None
    branch: str = ""
    session_id: str = ""
    pull_request: str = ""  # the dock's "PR #7 open ✓3 …1", from workspace_updated
    github_writes: bool = False  # ready.github_writes


@state
class ViewState:
    editor: Editor = attrs.Factory(Editor)
    status: Status = attrs.Factory(Status)
    commits: list[Commit] = attrs.Factory(list)
    stream: BlockStream = attrs.Factory(BlockStream)
    thinking: str = ""
    show_thinking: bool = False
    tools: dict[str, ToolView] = attrs.Factory(dict)
    last_output: tuple[str, str] | None = None  # (title, full output) for Ctrl+O
    permissions: list[ev.PermissionRequested] = attrs.Factory(list)
    feedback: bool = False  # typing a reject's feedback line
    # The person's draft while a prompt borrows the editor (a reject's note,
    # a question's own answer), with that prompt's id: back when it resolves.
    set_aside: tuple[str, Editor] | None = None
    questions: list[ev.QuestionAsked] = attrs.Factory(list)
    question_cursor: int = 0
    question_marked: set[int] = attrs.Factory(set)
    queue: list[str] = attrs.Factory(list)
    queue_cursor: int | None = None
    editing_queued: int | None = None  # the queue slot the editor's text came from
    notice: str = ""
    # A retryable failure the engine is waiting out: shown until the stream
    # resumes or the turn ends (a notice would outlive both).
    retrying: str = ""
    completions: list[str] = attrs.Factory(list)
    completion_index: int = 0
    turn_started: float | None = None
    search: str | None = None  # Ctrl+R query while searching history
    search_hit: int | None = None
    sessions_wanted: str | None = None  # "list" or "resume" while waiting for sessions_listed
    picker: list[ev.SessionSummary] = attrs.Factory(list)
    picker_cursor: int = 0
    confirming: str | None = None  # a command that asked "again to confirm"
    github_wanted: bool = False  # /github: print the next workspace_updated
    github: GitHubView = attrs.Factory(GitHubView)
    history_wanted: bool = False  # a session was resumed: show its last messages
    review: review_view.ReviewView = attrs.Factory(review_view.ReviewView)
    focused: bool = True
    servers: ServerNotices = attrs.Factory(ServerNotices)  # language servers told of
    notify: bool = False  # a turn ended while unfocused: ring once

    @property
    def busy(self) -> bool:
        return self.status.streaming

    def commit_lines(self, lines: list[Line]) -> None:
        self.commits.append(lambda width: lines)

    def commit_text(self, text: str, role: str = "", lead: Line | None = None) -> None:
        spans: Line = [(clean(text), role)]
        self.commits.append(lambda width: wrap(spans, width, lead, [("  ", "")] if lead else None))

    def set_draft_aside(self, prompt_id: str) -> None:
        """Prompt `prompt_id` borrows the editor: the draft waits, whole."""
        if self.set_aside is None:
            self.set_aside = (prompt_id, self.editor)
            self.editor = Editor(kill_ring=self.editor.kill_ring)

    def give_draft_back(self, prompt_id: str) -> None:
        """Prompt `prompt_id` is resolved: the draft it set aside is back
        (what was typed for the prompt went with its answer)."""
        if self.set_aside is not None and self.set_aside[0] == prompt_id:
            self.editor, self.set_aside = self.set_aside[1], None

    def take_commits(self) -> list[Commit]:
        taken, self.commits = self.commits, []
        return taken


def apply(state: ViewState, event: ev.Event, now: float) -> None:
    """Change `state` for one event."""
    handler = _HANDSHAKE.get(type(event)) or _handlers().get(type(event))
    if handler is None and is_github_event(event):
        handler = _github_handlers().get(type(event))
    if handler is not None:
        handler(state, event, now)


# GitHub's events (and so their module) exist only once the engine has loaded
# luxe.protocol.github; the interface's first frame does not wait for it.
_GITHUB_EVENTS = "luxe.protocol.github"


def is_github_event(event: ev.Event) -> bool:
    """One of GitHub's events, told without loading their module."""
    return type(event).__module__ == _GITHUB_EVENTS


def _github_handlers() -> dict[type, Any]:
    from luxe.frontends.tui import github as github_view

    _handlers().update(github_view.HANDLERS)
    return github_view.HANDLERS


def _ready(state: ViewState, e: ev.Ready, now: float) -> None:
    state.status.session_id = e.session_id
    state.status.github_writes = e.github_writes


def _state_changed(state: ViewState, e: ev.StateChanged, now: float) -> None:
    s = state.status
    s.known = True
    s.model, s.model_label = e.model.id, e.model.label
    s.context_window = e.model.context_window or s.context_window
    s.mode, s.permission_mode, s.thinking = e.mode, e.permission_mode, e.thinking
    s.auto_approve, s.streaming = e.auto_approve, e.streaming


def _session_info(state: ViewState, e: ev.SessionInfo, now: float) -> None:
    state.status.session_id = e.session_id
    if e.messages == 0:
        state.commit_text(f"new session {e.session_id}", "dim")
        return
    title = f" “{clean(e.title)}”" if e.title else ""
    state.commit_text(f"resumed session {e.session_id}{title} · {e.messages} messages", "dim")
    state.history_wanted = True


# Messages shown when a session is resumed (list_messages' limit).
RESUME_MESSAGES = 20


def _messages(state: ViewState, e: ev.MessagesListed, now: float) -> None:
    """A resumed session's last messages, drawn as they were."""
    if e.total > len(e.messages):
        state.commit_text(f"… {counted(e.total - len(e.messages), 'earlier message')}", "dim")
    for message in e.messages:
        text = message.text.strip()
        if message.role == "user":
            if text:
                first, _, rest = text.partition("\n")
                more = f" (+{counted(rest.count(chr(10)) + 1, 'line')})" if rest else ""
                state.commit_lines([[], [("› ", "prompt"), (clean(first)[:300], "user"), (more, "dim")]])
            continue
        for block in [b for b in text.split("\n\n") if b.strip()]:
            _commit_block(state, block)
        for tool in message.tools:
            state.commit_lines([[("· ", "dim"), (clean(tool)[:200], "dim")]])
    state.commit_text("─── resumed here", "dim")


def _turn_started(state: ViewState, e: ev.TurnStarted, now: float) -> None:
    state.turn_started = now
    text = clean(e.text)
    lines = text.split("\n")

    def render(width: int) -> list[Line]:
        out: list[Line] = [[]]
        for i, line in enumerate(lines):
            lead: Line = [("› ", "prompt")] if i == 0 else [("  ", "")]
            out.extend(wrap([(line, "user")], width, lead, [("  ", "")]))
        return out

    state.commits.append(render)


def _flush_thinking(state: ViewState) -> None:
    if not state.thinking.strip():
        state.thinking = ""
        return
    text = state.thinking.strip()
    count = text.count("\n") + 1
    if state.show_thinking:
        state.commits.append(lambda width: wrap([(text, "thinking")], width, [("∴ ", "thinking")], [("  ", "")]))
    else:
        first = text.split("\n", 1)[0]
        state.commit_lines([[("∴ ", "thinking"), (clean(first)[:60], "thinking"),
                             (f" … ({counted(count, 'line')}, Ctrl+T shows thinking)", "dim")]])
    state.thinking = ""


def flush_text(state: ViewState) -> None:
    """Commit what is left of the streamed answer (its message ended)."""
    _flush_thinking(state)
    for block in state.stream.finish():
        _commit_block(state, block)


def _commit_block(state: ViewState, block: str) -> None:
    """A complete markdown block, set off from what is above by a blank line."""
    state.commits.append(lambda width: [[], *render_block(block, width)])


def _token(state: ViewState, e: ev.TokenDelta, now: float) -> None:
    state.retrying = ""
    if state.thinking:
        _flush_thinking(state)
    for block in state.stream.feed(e.delta):
        _commit_block(state, block)


def _thinking(state: ViewState, e: ev.ThinkingDelta, now: float) -> None:
    state.retrying = ""
    state.thinking += e.delta


def key_arg(name: str, args: dict[str, Any]) -> str:
    key = KEY_ARGS.get(name)
    value = args.get(key) if key else None
    if value is None:
        value = next((v for v in args.values() if isinstance(v, str)), "")
    text = clean(str(value)).replace("\n", " ⏎ ")
    return text


def _tool_started(state: ViewState, e: ev.ToolStarted, now: float) -> None:
    flush_text(state)
    state.tools[e.call_id] = ToolView(e.call_id, e.name, dict(e.args), now)


def _tool_output(state: ViewState, e: ev.ToolOutputDelta, now: float) -> None:
    tool = state.tools.get(e.call_id)
    if tool is not None:
        tool.add_output(e.delta)


def _tool_finished(state: ViewState, e: ev.ToolFinished, now: float) -> None:
    tool = state.tools.pop(e.call_id, None)
    args = tool.args if tool else {}
    elapsed = now - tool.started if tool else 0.0
    if e.denied:
        mark, role = "⊘", "warn"
    elif e.is_error:
        mark, role = "✗", "err"
    else:
        mark, role = "✓", "ok"
    head: Line = [(f"{mark} ", role), (e.name, "tool"), (" ", "")]
    arg = key_arg(e.name, args)
    diff = tool.diff if tool else None
    tail: Line = [(f"  {elapsed:.1f}s", "dim")]
    if e.summary:
        tail.append((f" · {clean(e.summary)}", "dim"))
    if tool is not None and tool.output.strip():
        state.last_output = (f"{e.name} {arg}", tool.output)
        tail.append((" · Ctrl+O output", "dim"))

    def render(width: int) -> list[Line]:
        room = max(width - sum(len(t) for t, _ in head) - sum(len(t) for t, _ in tail), 10)
        shown = arg if len(arg) <= room else arg[: room - 1] + "…"
        lines = [[*head, (shown, ""), *tail]]
        if not e.is_error and not e.denied:
            lines.extend(change_rows(e.name, args, diff, width))
        return lines

    state.commits.append(render)


def change_rows(
    name: str, args: dict[str, Any], diff: str | None, width: int, limit: int | None = DIFF_LINES,
    more: str = "",
) -> list[Line]:
    """A write's or edit's change as coloured rows: the engine's diff of the
    file (real line numbers and context) when it sent one, else a diff of
    the call's own strings. Past `limit` rows, one row says how many diff
    lines are left out, followed by `more`."""
    if diff is not None:
        lines = hunk_lines(diff)
    elif name in ("edit", "write"):
        lines = _arguments_diff(name, args)
    else:
        return []
    out: list[Line] = []
    for shown, line in enumerate(lines):
        if limit is not None and len(out) >= limit:
            out.append([(f"    … {len(lines) - shown} more diff lines{more}", "dim")])
            break
        role = "add" if line.startswith("+") else "del" if line.startswith("-") else "hunk" if line.startswith("@@") else "dim"
        out.extend(hard_wrap([(clean(line), role)], width, [("    ", "")]))
    return out


def _arguments_diff(name: str, args: dict[str, Any]) -> list[str]:
    """A diff of an edit's old and new strings, or of a write's content
    against nothing: all there is when the file itself has no diff."""
    if name == "edit":
        old, new = str(args.get("old_string", "")), str(args.get("new_string", ""))
    else:
        old, new = "", str(args.get("content", ""))
    return hunk_lines(unified("", old, new))


def _file_changed(state: ViewState, e: ev.FileChanged, now: float) -> None:
    tool = state.tools.get(e.call_id) if e.call_id is not None else None
    if tool is not None:
        tool.diff = e.diff


def _servers(state: ViewState, e: ev.DiagnosticsServers, now: float) -> None:
    for notice in state.servers.news(e):
        state.commit_text(notice, "warn", lead=[("  ", "")])


def _permission(state: ViewState, e: ev.PermissionRequested, now: float) -> None:
    flush_text(state)
    state.permissions.append(e)


def _permission_resolved(state: ViewState, e: ev.PermissionResolved, now: float) -> None:
    for i, asked in enumerate(state.permissions):
        if asked.id == e.id:
            del state.permissions[i]
            if i == 0:
                state.feedback = False
            state.give_draft_back(e.id)
            words = {"once": "allowed once", "always": "allowed for this session",
                     "reject": "rejected", "auto": "auto-approved", "cancelled": "cancelled"}
            state.commit_lines([[("  ", ""), (f"{words.get(e.reply, e.reply)}: ", "dim"),
                                 (asked.tool, "tool"), (" ", ""), (key_arg(asked.tool, asked.args)[:80], "dim")]])
            return


def _question(state: ViewState, e: ev.QuestionAsked, now: float) -> None:
    flush_text(state)
    state.questions.append(e)
    if len(state.questions) == 1:
        state.question_cursor, state.question_marked = 0, set()


def _question_resolved(state: ViewState, e: ev.QuestionResolved, now: float) -> None:
    for i, asked in enumerate(state.questions):
        if asked.id == e.id:
            del state.questions[i]
            if i == 0:
                state.question_cursor, state.question_marked = 0, set()
            state.give_draft_back(e.id)
            answer = "; ".join(str(a) for a in e.reply.get("answered", [])) or "dismissed"
            state.commit_lines([[("? ", "warn"), (clean(asked.question)[:80], ""), (" → ", "dim"), (clean(answer)[:200], "bold")]])
            return


def _usage(state: ViewState, e: ev.TurnUsage, now: float) -> None:
    s = state.status
    s.context_used, s.context_window = e.context_used, e.context_window or s.context_window
    if e.session_cost_usd is not None:
        s.cost = e.session_cost_usd


def _usage_updated(state: ViewState, e: ev.UsageUpdated, now: float) -> None:
    s = state.status
    s.context_used, s.context_window = e.context_used, e.context_window or s.context_window
    if e.session_cost_usd is not None:
        s.cost = e.session_cost_usd


def _turn_ended(state: ViewState, e: ev.TurnEnded, now: float) -> None:
    flush_text(state)
    state.tools.clear()
    state.retrying = ""
    elapsed = now - state.turn_started if state.turn_started is not None else 0.0
    state.turn_started = None
    if e.reason == "cancelled":
        state.commit_text("⏹ cancelled", "warn")
    elif e.reason not in ("end_turn",):
        state.commit_text(f"turn ended: {e.reason}" + (f": {e.error}" if e.error else ""), "err")
    elif elapsed >= 1:
        state.commit_lines([[(f"  {elapsed:.1f}s", "dim")]])
    if not state.focused:
        state.notify = True


def _error(state: ViewState, e: ev.Error, now: float) -> None:
    if e.retryable:
        # When first: a narrow terminal cuts the message, never the wait.
        when = f" in {e.retry_in_s:.0f}s" if e.retry_in_s else ""
        state.retrying = f"retrying{when} · {clean(e.message)[:200]}"
    else:
        flush_text(state)
        state.commit_text(f"error: {e.message}", "err")


def _compaction_started(state: ViewState, e: ev.CompactionStarted, now: float) -> None:
    state.notice = f"compacting {e.tokens_before} tokens…"


def _compacted(state: ViewState, e: ev.Compacted, now: float) -> None:
    state.notice = ""
    state.commit_text(f"compacted: {e.tokens_before} → {e.tokens_after} tokens", "dim")


def _hook(state: ViewState, e: ev.HookFinished, now: float) -> None:
    if e.decision == "deny" or e.error:
        what = " ".join(e.command)[:60]
        state.commit_text(f"hook {e.point} ({what}): {e.decision}" + (f": {e.error}" if e.error else ""), "warn")


def _rejected(state: ViewState, e: ev.ActionRejected, now: float) -> None:
    if e.kind == "steer_turn" and "no turn is running" in e.reason:
        state.commit_text("(the turn had ended: sent as a new message)", "dim")
        return
    state.notice = ""  # what waited for the action ("loading…") is over
    state.commit_text(f"⚠ {e.reason}", "warn")


def _queued(state: ViewState, e: ev.MessageQueued, now: float) -> None:
    state.notice = f"queued in the session (position {e.position})"


def _sessions(state: ViewState, e: ev.SessionsListed, now: float) -> None:
    wanted, state.sessions_wanted = state.sessions_wanted, None
    if wanted == "resume":
        state.picker = list(e.sessions)
        state.picker_cursor = 0
        if not state.picker:
            state.commit_text("no sessions to resume in this directory", "dim")
        return
    if not e.sessions:
        state.commit_text("no sessions yet", "dim")
        return
    lines: list[Line] = [[("sessions:", "bold")]]
    for s in e.sessions[:30]:
        lines.append([("  ", ""), (s.id, "key"), (f"  {local_time(s.updated_at)}  {s.messages:>4} msgs  ", "dim"),
                      (clean(s.title)[:60], "")])
    state.commit_lines(lines)



Handler = Callable[[ViewState, Any, float], None]

# The handshake's events (their classes are loaded before the first frame).
_HANDSHAKE: dict[type, Handler] = {
    ev.Ready: _ready,
    ev.StateChanged: _state_changed,
    ev.SessionInfo: _session_info,
}


@functools.cache
def _handlers() -> dict[type, Handler]:
    """Every other event's handler: built with the first such event, which
    is when their classes (luxe.protocol.session_events) are loaded."""
    return {
        ev.TurnStarted: _turn_started,
        ev.TokenDelta: _token,
        ev.ThinkingDelta: _thinking,
        ev.ToolStarted: _tool_started,
        ev.ToolOutputDelta: _tool_output,
        ev.ToolFinished: _tool_finished,
        ev.FileChanged: _file_changed,
        ev.DiagnosticsServers: _servers,
        ev.PermissionRequested: _permission,
        ev.PermissionResolved: _permission_resolved,
        ev.QuestionAsked: _question,
        ev.QuestionResolved: _question_resolved,
        ev.TurnUsage: _usage,
        ev.UsageUpdated: _usage_updated,
        ev.TurnEnded: _turn_ended,
        ev.Error: _error,
        ev.CompactionStarted: _compaction_started,
        ev.Compacted: _compacted,
        ev.HookFinished: _hook,
        ev.ActionRejected: _rejected,
        ev.MessageQueued: _queued,
        ev.SessionsListed: _sessions,
        ev.MessagesListed: _messages,
        **review_view.handlers(),
    }
