"""Slash commands, their completion, `@path` attachments, and
custom commands (markdown files in ~/.config/luxe/commands/ and, with
--trust-project, the project's .luxe/commands/). A command's file is read
as a regular file of at most MAX_COMMAND_BYTES (luxe.regular_file), when
the commands are listed and again when one runs: a FIFO, a link to
/dev/zero, a directory or a huge file there is skipped with a warning.

Every command acts through the controller's `dispatch` (protocol actions) or
on the interface's own state; none reaches into the engine.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

import trio

from luxe.frontends.tui.text import Line, clean, line_width, wrap
from luxe.protocol import actions as act
from luxe.real_path import real_path
from luxe.record import record
from luxe.regular_file import UnreadableFile, read_text_file

if TYPE_CHECKING:
    from luxe.frontends.tui.controller import Controller

HELP = {
    "/help": "keys and commands",
    "/model": "/model SPEC: switch the model (provider/name or scripted:PATH)",
    "/mode": "/mode ask|accept-edits|plan: the permission mode",
    "/thinking": "/thinking off|low|medium|high",
    "/compact": "summarise older messages into one",
    "/clear": "start a new session (asks first)",
    "/resume": "pick one of this directory's sessions",
    "/sessions": "list sessions",
    "/cost": "this session's cost and context",
    "/init": "write an AGENTS.md skeleton (asks first)",
    "/review": "Guided Review: /review [staged|branch|commit SHA|pr N], then next, ask, fix #N",
    "/github": "the branch, its upstream and its pull request with checks",
    "/pr": "/pr [N]: a pull request (the branch's) with its threads; /pr open|comment|reply|merge|…",
    "/exit": "leave (Ctrl+C twice, or Ctrl+D on an empty prompt)",
}
KEYS = [
    ("Enter", "send; while the agent works: steer it"),
    ("Tab", "while the agent works: queue the message; else complete"),
    ("Shift+Enter, Ctrl+J, \\+Enter", "new line"),
    ("Esc", "cancel the turn; queued messages return to the editor"),
    ("Ctrl+C", "cancel the turn; clear the draft; twice: exit"),
    ("Shift+Tab", "cycle ask / accept-edits / plan"),
    ("Up/Down, Ctrl+R", "history, history search; Up on an empty draft while working: the queue"),
    ("Ctrl+G", "edit the draft in $EDITOR"),
    ("Ctrl+T / Ctrl+O", "show thinking / the last tool output"),
    ("Alt+T", "cycle the reasoning effort (off, low, medium, high)"),
    ("Ctrl+Z", "suspend"),
    ("@path, !cmd", "attach a file; run a shell command"),
]
AGENTS_SKELETON = """# AGENTS.md

## Project
What this project is, in two sentences.

## Build and test
- build:
- test:
- lint:

## Conventions
- (one line per rule the agent must follow)
"""


# A command is a prompt: a file larger than this is not one (a sparse
# terabyte, or /dev/zero, was read whole, and a FIFO waited for good).
MAX_COMMAND_BYTES = 64 * 1024
# The most commands taken from one directory (each is read when listed).
MAX_COMMANDS = 1000


@record
class CustomCommand:
    name: str
    path: Path
    description: str


def command_text(path: Path) -> str:
    """A custom command's file, as text; UnreadableFile says why not (a
    file gone since it was listed is one that cannot be read)."""
    text = read_text_file(path, MAX_COMMAND_BYTES, errors="replace")
    if text is None:
        raise UnreadableFile("cannot be read: No such file or directory")
    return text


def custom_commands(
    cwd: Path, config_dir: Path | None, trust_project: bool
) -> tuple[dict[str, CustomCommand], list[str]]:
    """Custom commands by `/name` (the project's come only with
    --trust-project), and a one-line warning for each file skipped."""
    found: dict[str, CustomCommand] = {}
    warnings: list[str] = []
    dirs = [config_dir / "commands"] if config_dir else []
    if trust_project:
        dirs.append(cwd / ".luxe" / "commands")
    for directory in dirs:
        try:
            entries = sorted(directory.glob("*.md"))
        except OSError:
            continue
        if len(entries) > MAX_COMMANDS:
            warnings.append(f"custom commands: {directory} holds {len(entries)}; the first {MAX_COMMANDS} are taken")
            entries = entries[:MAX_COMMANDS]
        for path in entries:
            name = "/" + path.stem
            if name in HELP or not re.fullmatch(r"/[\w.-]+", name):
                continue
            try:
                first = command_text(path).strip().split("\n", 1)[0]
            except UnreadableFile as exc:
                warnings.append(f"custom command {name} skipped: {path}: {exc}")
                continue
            found[name] = CustomCommand(name, path, clean(first.lstrip("# "))[:60])
    return found, warnings


_custom: dict[str, CustomCommand] = {}


def configure(cwd: Path, config_dir: Path | None, trust_project: bool) -> list[str]:
    """Load the custom commands; returns a warning line for each skipped."""
    found, warnings = custom_commands(cwd, config_dir, trust_project)
    _custom.clear()
    _custom.update(found)
    return warnings


def subcommands() -> dict[str, dict[str, str]]:
    """Commands with subcommands: each subcommand with its one-line usage."""
    from luxe.frontends.tui import github_writes, review

    return {
        name: {sub: f"{args + ': ' if args else ''}{does}" for sub, (args, does) in table.items()}
        for name, table in (("/pr", github_writes.SUBCOMMANDS), ("/review", review.SUBCOMMANDS))
    }


def completable(text: str) -> bool:
    """A command name being typed, or a subcommand's (`/pr me`)."""
    if not text.startswith("/") or "\n" in text:
        return False
    name, space, rest = text.partition(" ")
    return not space or (name in subcommands() and " " not in rest)


def completes_on_enter(text: str) -> bool:
    """Enter takes the highlighted completion, then runs the command: for a
    command's name, and for a subcommand begun (`/pr me`; `/pr ` alone runs `/pr`)."""
    _, space, rest = text.partition(" ")
    return completable(text) and (not space or bool(rest))


def complete(prefix: str, cwd: Path) -> list[str]:
    name, space, rest = prefix.partition(" ")
    if space:
        subs = subcommands().get(name, {})
        return [f"{name} {sub}  {usage}" for sub, usage in subs.items() if sub.startswith(rest)]
    names = [*HELP, *_custom]
    return [f"{n}  {HELP.get(n) or _custom[n].description}" for n in names if n.startswith(prefix)]


def attachments(text: str, cwd: Path) -> list[str]:
    """`@path` tokens naming a file inside the project: sent as attachments
    (the session's gate reads them, as for any client)."""
    found = []
    root = real_path(cwd)
    for token in re.findall(r"(?:^|\s)@(\S+)", text):
        # Asked of the kernel: a symlink loop the repository planted made
        # Path.resolve raise, a chain of links os.path.realpath (as a NUL
        # did both).
        try:
            path = Path(real_path(cwd / token))
            path.relative_to(root)
            attached = path.is_file()
        except (OSError, ValueError):
            continue
        if attached and token not in found:
            found.append(token)
    return found


def help_rows(width: int) -> list[Line]:
    """/help: keys, commands and their subcommands in two columns; a long
    description wraps at words under its own column."""
    rows: list[Line] = [[("keys:", "bold")]]

    def entry(indent: int, key: str, column: int, text: str, role: str = "") -> None:
        lead: Line = [(" " * indent, ""), (key.ljust(column), "key"), (" " if len(key) >= column else "", "")]
        rows.extend(wrap([(text, role)], width, lead, [(" " * line_width(lead), "")]))

    for key, text in KEYS:
        entry(2, key, 30, text)
    rows.append([("commands:", "bold")])
    subs = subcommands()
    for command, text in HELP.items():
        entry(2, command, 12, text)
        for sub, usage in subs.get(command, {}).items():
            entry(4, sub, 10, usage, "dim")
    for custom in _custom.values():
        entry(2, custom.name, 12, custom.description)
    return rows


async def run(ctl: Controller, text: str) -> None:
    """Run a slash command typed in the editor."""
    s = ctl.state
    name, _, arg = text.strip().partition(" ")
    arg = arg.strip()
    confirmed = arg == "yes" or s.confirming == name
    s.confirming = None
    if name == "/help":
        s.commits.append(help_rows)
    elif name == "/model":
        if not arg:
            s.commit_text(f"model: {s.status.model} (use /model provider/name to switch)", "dim")
        else:
            await ctl.dispatch(act.SetModel(arg))
    elif name == "/mode":
        if arg == "plan":
            await ctl.dispatch(act.SetMode("plan"))
        elif arg in ("ask", "accept-edits", "read-only", "yolo"):
            if s.status.mode == "plan":
                await ctl.dispatch(act.SetMode("build"))
            await ctl.dispatch(act.SetPermissionMode(arg))  # type: ignore[arg-type]
        else:
            s.commit_text("usage: /mode ask|accept-edits|plan|read-only|yolo", "warn")
    elif name == "/thinking":
        if arg not in ("off", "low", "medium", "high"):
            s.commit_text("usage: /thinking off|low|medium|high", "warn")
        else:
            await ctl.dispatch(act.SetThinking(arg))  # type: ignore[arg-type]
    elif name == "/compact":
        await ctl.dispatch(act.Compact())
    elif name == "/clear":
        if confirmed:
            await ctl.dispatch(act.NewSession())
        else:
            s.confirming = name
            s.commit_text("/clear again (or /clear yes) starts a new session", "warn")
    elif name == "/resume":
        if arg:
            await ctl.dispatch(act.ResumeSession(arg))
        else:
            s.sessions_wanted = "resume"
            await ctl.dispatch(act.ListSessions())
    elif name == "/sessions":
        s.sessions_wanted = "list"
        await ctl.dispatch(act.ListSessions())
    elif name == "/cost":
        st = s.status
        pct = 100 * st.context_used // max(st.context_window, 1)
        cost = f"${st.cost:.4f}" if st.cost is not None else "unknown (no price for this model)"
        s.commit_text(f"session cost {cost} · context {st.context_used}/{st.context_window} tokens ({pct}%)", "dim")
    elif name == "/init":
        target = ctl.cwd / "AGENTS.md"
        if target.exists():
            s.commit_text("AGENTS.md exists already; nothing written", "warn")
        elif not confirmed:
            s.confirming = name
            s.commit_text("/init again (or /init yes) writes AGENTS.md", "warn")
        else:
            try:
                await trio.to_thread.run_sync(_write_new, target, AGENTS_SKELETON)
                s.commit_text("wrote AGENTS.md: fill it in, the agent reads it at the start of each session", "ok")
            except OSError as exc:
                s.commit_text(f"AGENTS.md not written: {exc.strerror}", "err")
    elif name == "/review":
        from luxe.frontends.tui import review

        await review.run(ctl, arg)
    elif name in ("/github", "/pr"):
        from luxe.frontends.tui import github

        await github.run(ctl, name, arg)
    elif name in ("/exit", "/quit"):
        ctl.running = False
    elif name in _custom:
        try:
            body = command_text(_custom[name].path)
        except UnreadableFile as exc:
            s.commit_text(f"{name}: {_custom[name].path}: {exc}", "err")
            return
        prompt = body.replace("$ARGUMENTS", arg) if "$ARGUMENTS" in body else (f"{body}\n\n{arg}" if arg else body)
        if s.busy:
            s.queue.append(prompt)
        else:
            await ctl._send(prompt)
    else:
        s.commit_text(f"unknown command {name}: /help lists them", "warn")


def _write_new(path: Path, text: str) -> None:
    """Create `path` with `text`; FileExistsError if it exists (never overwrites)."""
    with open(path, "x", encoding="utf-8") as f:
        f.write(text)
