"""The composition root: options -> provider, tools, policy, store, front end.

`run` reads configuration, opens or resumes the session file and hands the
handshake (`ready`, `state_changed`, `session_info`) to the front end before
trio is even imported, so a client gets `ready` as soon as the session is
known. Then it runs the front end (luxe.frontends.face: `--rpc` by default,
`-p` from luxe.frontends.print_mode) under trio. Nursery tree (see
docs/architecture.md):

    trio.run(_main, startup, front)
    └── root nursery
        ├── writer task (front.serve_output: the only writer of stdout)
        └── session nursery (inner)
            ├── session.run: turns one at a time, each in its own cancel scope
            ├── review.serve: Guided Review
            ├── github.serve: the workspace and GitHub actions (luxe.github)
            ├── reader task (front.serve_input: stdin lines -> actions, or
            │   `luxe -p`'s driver: one prompt, on-ask answers, timeout)
            ├── signal watcher (SIGTERM/SIGINT/SIGHUP -> close)
            └── warm-up (imports the tools and the provider, builds the system
                prompt, finishes the secrets' first scan in a worker thread)

close, EOF, a signal or a broken stdout all set one `stop` event; then the
session cancels its turn (processes die, turn_ended is sent), SessionEnd runs,
the event channel closes and the writer flushes the last frames.
"""

from __future__ import annotations

import gc
import logging
import os
import signal
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

import private_files
from luxe import __version__, stop_signals
from luxe.config import Paths, SettingsError, load_settings, paths_from_env
from luxe.engine.model import ProviderError
from luxe.engine.ports import EditDiagnostics, HookRunner, PermissionGate
from luxe.engine.store import SessionFile, SessionNotFound, SessionStore
from luxe.frontends.face import FrontEnd, RpcFrontEnd
from luxe.lsp.servers import NEED_TRUST, ServerSpec, session_servers
from luxe.options import Options
from luxe.policy.hooks_config import HookConfig
from luxe.policy.rules_files import PermissionsFileError
from luxe.protocol import events as ev
from luxe.providers import models
from luxe.providers.choice import ModelChoice
from luxe.record import record

if TYPE_CHECKING:
    # Loaded after the handshake has been written (see run).
    import trio

    from luxe.engine.session import Session
    from luxe.engine.tooling import Tool
    from luxe.github.face import GitHubFace
    from luxe.hosting.panes import LauraPanes
    from luxe.protocol import review as rv
    from luxe.review.model import Review, ReviewSession
    from luxe.review.service import ReviewService

log = logging.getLogger("luxe")

CAPABILITIES = [
    "steer",
    "queue",
    "cancel",
    "permissions",
    "questions",
    "sessions",
    "compact",
    "thinking",
    "scripted_model",
    "guided_review",
    "github",
]


def make_gate(options: Options, cwd: Path, env: Mapping[str, str]) -> PermissionGate:
    """The permission engine: rules files, modes, hard denies, redaction.
    Raises PermissionsFileError for a rules file that is not valid."""
    from luxe.policy.setup import build_gate

    return build_gate(
        cwd=cwd,
        flag_mode=options.permission_mode,
        trust_project=options.trust_project,
        env=env,
    )


def make_hooks(
    config: HookConfig,
    cwd: Path,
    emit: Callable[[ev.Event], Awaitable[None]],
    gate: PermissionGate,
) -> HookRunner:
    """The command hook runner; every run is reported as `hook_finished`
    (secret values redacted from its command and a failing hook's stderr)."""
    from luxe.policy.hooks import CommandHookRunner

    return CommandHookRunner(
        config, cwd=str(cwd), on_finished=emit, redact=gate.redact, redact_known=gate.redact_known
    )


LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def _setup_logging(paths: Paths, verbose: bool) -> _CleanFormatter:
    """The log file's (and --verbose's stderr) handler; its formatter is
    given the gate's redaction once the gate exists."""
    root = logging.getLogger("luxe")
    root.setLevel(logging.DEBUG if verbose else logging.INFO)
    fmt = _CleanFormatter(LOG_FORMAT)
    try:
        # The log names files and commands of the conversation: 0600 in 0700
        # directories whatever the umask, never through another user's link.
        handler: logging.Handler = logging.StreamHandler(
            private_files.open_append(paths.log_file, paths.state_base)
        )
        handler.setFormatter(fmt)
        root.addHandler(handler)
    except private_files.NotPrivate as exc:
        from luxe.controls import shown

        print(f"luxe: not logging to {shown(str(paths.log_file))}: {shown(exc.strerror or '')}",
              file=sys.stderr)
    except OSError:
        pass
    if verbose:
        err = logging.StreamHandler(sys.stderr)
        err.setFormatter(fmt)
        root.addHandler(err)
    return fmt


class _CleanFormatter(logging.Formatter):
    """Log lines with no control character but the newline: a logged value
    that came from the project (a file name, a link's target in a gate's
    reason) is shown as `�` on --verbose's stderr, a terminal more
    often than not, and in luxe.log, which a person reads with `tail -f`.

    And with no secret value known: a line may quote what a server, gh or
    a provider said, or an exception's text (a language server's error
    quoting its settings was logged as it came). `redact` is the gate's
    `redact_known` once the gate exists: any thread may log, and a log
    line never waits for (nor starts) the project's scan."""

    def __init__(self, fmt: str) -> None:
        super().__init__(fmt)
        self.redact: Callable[[str], str] = str

    def format(self, record: logging.LogRecord) -> str:
        from luxe.controls import shown

        return shown(self.redact(super().format(record)))


@record
class Startup:
    """Everything `run` settled before the event loop starts (each of it a
    reason to refuse to start), handed to `_main` as one value."""

    options: Options
    env: Mapping[str, str]
    cwd: Path
    model: ModelChoice
    gate: PermissionGate
    hook_config: HookConfig
    store: SessionStore
    file: SessionFile
    resumed: bool
    max_turns: int
    show_edits: bool  # hosted in Laura: edits show in a pane (settings `laura.show_edits`)
    # The language servers found for diagnostics on edit; None when they are off.
    lsp_servers: list[ServerSpec] | None
    # GitHub content the session started from (--issue/--from-pr), for the model.
    context: str | None = None


class _Refused(Exception):
    """Startup is refused; the message is for a person (exit status 2)."""


def _without_credentials(text: str, env: Mapping[str, str]) -> str:
    """A refusal's message, which may quote gh's or git's complaint (`failed
    to fetch https://x-access-token:ghp_…@github.com/…`), without the
    credentials known before any gate: those the person exported, the
    provider's key, and the ones in the URLs of git's config."""
    from luxe.policy.secret_redaction import Redactor
    from luxe.policy.secret_sources import environment_credentials, git_url_credentials
    from luxe.policy.setup import project_root

    root = str(project_root(Path.cwd()))
    values = [*environment_credentials(env), *git_url_credentials(root, env.get("HOME"))]
    return Redactor(tuple(dict.fromkeys(values))).redact(text)


def run(
    options: Options, env: Mapping[str, str] | None = None, front: FrontEnd | None = None
) -> int:
    """Run a session behind `front` (default `luxe --rpc`'s); returns the exit
    status (2: refused at startup; otherwise the front end's)."""
    from luxe.policy.git_settings import apply_git_settings

    # Before any git runs: luxe's own, and every child's (they inherit it).
    apply_git_settings(os.environ)
    env = dict(os.environ if env is None else env)
    apply_git_settings(env)
    # Nothing but frames may reach stdout: a stray print goes to stderr.
    sys.stdout = sys.stderr
    paths = paths_from_env(env)
    logged = _setup_logging(paths, options.verbose)
    if front is None:
        front = RpcFrontEnd()
    try:
        startup = _start(options, env, paths)
    except _Refused as exc:
        front.refused(_without_credentials(str(exc), env))
        return 2
    logged.redact = startup.gate.redact_known
    stop_signals.handle_with(stop_signals.remember)
    front.handshake(_handshake(startup))
    from luxe.tools.escapees import become_subreaper

    # Orphans of tool calls become our children: killed at exit at the latest.
    # (No child exists before the loop starts, so after the handshake is soon
    # enough, and the first frame does not wait for ctypes.)
    become_subreaper()
    from luxe.trio_loader import import_trio

    trio = import_trio()
    try:
        trio.run(_main, startup, front)
    except Exception:
        log.exception("luxe failed")
        print(f"luxe: internal error; the log says more: {paths.log_file}", file=sys.stderr)
        return 1
    finally:
        from luxe.tools.escapees import kill_descendants

        kill_descendants()
        log.info("session %s ended", startup.file.id)
    return front.exit_status()


def _start(options: Options, env: Mapping[str, str], paths: Paths) -> Startup:
    """Settings, model, permissions, hooks and the session file; raises
    _Refused for anything that must stop luxe before the handshake."""
    try:
        settings = load_settings(paths.settings_file)
    except SettingsError as exc:
        raise _Refused(str(exc)) from exc
    spec = options.model or env.get("LUXE_MODEL") or settings.model or models.DEFAULT_MODEL
    try:
        model = ModelChoice(spec, env)
    except ValueError as exc:
        raise _Refused(str(exc)) from exc
    cwd = Path.cwd()
    context: str | None = None
    if options.issue is not None or options.from_pr is not None or options.worktree is not None:
        # Decided before the first frame: the session may live in a new worktree.
        # Its gh and git run in a trio run of their own, trio imported without
        # the subprocess a plain import starts (luxe.trio_loader).
        from luxe.trio_loader import import_trio

        import_trio()
        from luxe.github.start import StartError, prepare

        try:
            start = prepare(
                cwd, issue=options.issue, from_pr=options.from_pr, worktree=options.worktree,
                env=env,
            )
        except StartError as exc:
            raise _Refused(str(exc)) from exc
        cwd, context = start.cwd, start.context
        os.chdir(cwd)
    try:
        gate = make_gate(options, cwd, env)
    except PermissionsFileError as exc:
        raise _Refused(f"refusing to start: invalid permissions file: {exc}") from exc
    import hidden_environ

    # The provider has its key (ModelChoice keeps a copy of `env`); no tool,
    # hook or language server gets it, and /proc/<luxe>/environ no longer
    # shows it. The redactor knows its value (make_gate).
    if not hidden_environ.forget(hidden_environ.credential_variables(env)):
        log.info("could not blank the original environment")
    from luxe.policy.setup import build_hook_config

    hook_config = build_hook_config(cwd=cwd, trust_project=options.trust_project, env=env)
    store = SessionStore(paths.sessions_dir, paths.data_base)
    resumed = False
    try:
        if options.resume:
            file = store.open(options.resume)
            resumed = True
        elif options.continue_latest and (latest := store.latest_for(str(cwd))):
            file = store.open(latest)
            resumed = True
        else:
            if options.continue_latest:
                log.info("-c: no earlier session in %s; starting a new one", cwd)
            file = store.create(str(cwd))
    except SessionNotFound as exc:
        raise _Refused(f"--resume: {exc}") from exc
    return Startup(
        options=options,
        env=env,
        cwd=cwd,
        model=model,
        gate=gate,
        hook_config=hook_config,
        store=store,
        file=file,
        resumed=resumed,
        max_turns=options.max_turns or settings.max_turns,
        show_edits=settings.laura_show_edits,
        context=context,
        lsp_servers=session_servers(settings.lsp, env),
    )


async def _main(startup: Startup, front: FrontEnd) -> None:
    import trio

    from luxe.engine.session import Session
    from luxe.frontends.rpc_actions import RpcActions

    cwd, env, hook_config = startup.cwd, startup.env, startup.hook_config
    stop = trio.Event()
    send, receive = trio.open_memory_channel[ev.Event](1024)
    with trio.open_signal_receiver(*stop_signals.STOP_SIGNALS) as signals:
        for signum in stop_signals.remembered:
            front.signalled(signum)
            stop.set()
        async with trio.open_nursery() as root:
            root.start_soon(front.serve_output, receive, stop.set)
            async with send:
                emit = _emitter(send)
                panes = _hosted_panes(env, cwd, startup.show_edits)
                tools = _tools
                if panes is not None:
                    emit = panes.observing(emit)
                    tools = _with_show_tool(panes)
                session = Session(
                    cwd=cwd,
                    file=startup.file,
                    model=startup.model,
                    tools=tools,
                    gate=startup.gate,
                    hooks=make_hooks(hook_config, cwd, emit, startup.gate),
                    emit=emit,
                    max_turns=startup.max_turns,
                    resumed=startup.resumed,
                    auto_approve=startup.options.auto_approve,
                    context=startup.context,
                    leftovers=_Leftovers(),
                )
                for problem in hook_config.errors:
                    # The session runs without the broken hook; say so.
                    await send.send(ev.Error(f"hooks: {problem}", retryable=False))
                review = _LazyReview(cwd=cwd, session=session, emit=emit)
                # GitHub through the user's gh (luxe.github), for a client's
                # face only: `-p` sends no GitHub action and shows no
                # workspace, so it never loads luxe.github. The workspace
                # starts after ready and watches the session's frames.
                github: GitHubFace | None = None
                if startup.options.print is None:
                    from luxe.github.face import GitHubFace

                    github = GitHubFace(
                        cwd=cwd,
                        session=session,
                        github_writes=startup.options.github_writes,
                        reviews=review,
                    )
                    session.emit = github.watching(session.emit)
                actions = RpcActions(
                    session,
                    startup.store,
                    lambda s: ModelChoice(s, env),
                    stop,
                    review=review.submit,
                    github=github.handle if github is not None else None,
                )
                async with trio.open_nursery() as inner:
                    review.nursery = inner
                    # Language servers for diagnostics on edit: nothing of
                    # luxe.lsp but server discovery loads before the first
                    # write or edit.
                    session.diagnostics = _LazyDiagnostics(inner, startup, emit)
                    await inner.start(session.run)
                    if github is not None:
                        await inner.start(github.serve)
                    if panes is not None:
                        await inner.start(panes.serve)
                    inner.start_soon(_watch_signals, signals, stop, front)
                    inner.start_soon(front.serve_input, actions, stop)
                    inner.start_soon(_warm_up, session, startup.model)
                    await stop.wait()
                    log.info("closing session %s", startup.file.id)
                    # A client that stopped reading must not hold the exit.
                    front.closing()
                    # gh's answers (the secrets' first scan) are not waited
                    # for any more: every gh is ended now, not at its deadline.
                    await startup.gate.stop_settling()
                    await session.close()
                    await session.model.aclose()
                    inner.cancel_scope.cancel()


class _Leftovers:
    """The session's Leftovers (luxe.engine.ports): luxe.orphans' sweep,
    imported at the first turn's end, not before the first frame."""

    async def sweep(self) -> None:
        from luxe.orphans import sweep

        await sweep()


class _LazyReview:
    """Guided Review, started by its first action: most sessions never load
    a review, and its import would delay the stdin reader and so the first
    turn. The service's owner task runs in `nursery` (the session's inner
    nursery, set before the reader starts) and is cancelled with it."""

    def __init__(
        self, *, cwd: Path, session: Session, emit: Callable[[ev.Event], Awaitable[None]]
    ) -> None:
        self.cwd, self.session, self.emit = cwd, session, emit
        self.nursery: trio.Nursery | None = None
        self._service: ReviewService | None = None

    def open_review(self, review_id: str) -> tuple[Review, ReviewSession] | None:
        return None if self._service is None else self._service.open_review(review_id)

    async def submit(self, action: rv.ReviewAction) -> None:
        if self._service is None:
            from luxe.review.service import ReviewService

            assert self.nursery is not None, "the reader starts after the nursery is set"
            service = ReviewService(cwd=self.cwd, session=self.session, emit=self.emit)
            await self.nursery.start(service.serve)
            self._service = service
        await self._service.submit(action)


class _LazyDiagnostics:
    """Diagnostics on edit (luxe.engine.ports.EditDiagnostics), loaded by
    the first write or edit: a prompt that edits nothing (most `luxe -p`
    runs) never imports the language-server client. The servers' owner task
    then runs in `nursery` (the session's inner nursery) and is cancelled
    with it."""

    def __init__(
        self, nursery: trio.Nursery, startup: Startup, emit: Callable[[ev.Event], Awaitable[None]]
    ) -> None:
        import trio

        self.nursery, self.startup, self.emit = nursery, startup, emit
        self._starting = trio.Lock()  # edits run concurrently; one starts the servers
        self._started = False
        self._real: EditDiagnostics | None = None

    async def after_edit(self, path: str) -> str | None:
        async with self._starting:
            if not self._started:
                from hidden_environ import credential_variables
                from luxe.lsp.diagnostics import serve_edit_diagnostics

                startup = self.startup
                keys = credential_variables(startup.env)
                self._real = await self.nursery.start(
                    partial(
                        serve_edit_diagnostics,
                        startup.cwd,
                        {k: v for k, v in startup.env.items() if k not in keys},
                        startup.lsp_servers,
                        self.emit,
                        trust_project=startup.options.trust_project,
                        redact=startup.gate.redact,
                    )
                )
                self._started = True
        return await self._real.after_edit(path) if self._real is not None else None


def _handshake(startup: Startup) -> list[ev.Event]:
    """The first frames: `ready`, `state_changed` (a new session's state, as
    Session.state_event gives it) and, on resume, `session_info`."""
    options, file = startup.options, startup.file
    frames: list[ev.Event] = [
        ev.Ready(
            protocol_version=ev.PROTOCOL_VERSION,
            luxe_version=__version__,
            session_id=file.id,
            cwd=str(startup.cwd),
            github_writes=options.github_writes,
            capabilities=CAPABILITIES
            if startup.lsp_servers is None
            else [*CAPABILITIES, "diagnostics"],
            resumed=startup.resumed,
            diagnostics=[
                ev.DiagnosticsServerFound(
                    spec.name,
                    list(spec.extensions),
                    # As configured, it may spell a credential (`--token=…`).
                    [startup.gate.redact_known(word) for word in spec.command],
                    needs_trust=not options.trust_project and spec.name in NEED_TRUST,
                )
                for spec in startup.lsp_servers or ()
            ],
        ),
        ev.StateChanged(
            model=startup.model.state(),
            streaming=False,
            mode="build",
            thinking="off",
            permission_mode=startup.gate.permission_mode,
            auto_approve=options.auto_approve,
        ),
    ]
    if startup.resumed:
        frames.append(
            ev.SessionInfo(file.id, file.title, len(file.messages), file.created_at, file.updated_at)
        )
    return frames


def _tools() -> list[Tool]:
    from luxe.tools import default_tools

    return default_tools()


def _hosted_panes(env: Mapping[str, str], cwd: Path, show_edits: bool) -> LauraPanes | None:
    """Luxe's Laura panes when hosted in a Laura tab (imported only then)."""
    if not env.get("LAURA_TAB"):
        return None
    from luxe.hosting.panes import hosted_panes

    return hosted_panes(env, cwd, show_edits=show_edits)


def _with_show_tool(panes: LauraPanes) -> Callable[[], list[Tool]]:
    """The default tools plus `show`, offered to the model only when hosted."""

    def tools() -> list[Tool]:
        from luxe.hosting.show_tool import ShowTool

        return [*_tools(), ShowTool(panes)]

    return tools


def _emitter(send: trio.MemorySendChannel[ev.Event]) -> Callable[[ev.Event], Awaitable[None]]:
    """Queue a frame for the writer. Waits only when the writer is behind:
    a scheduler round per token delta would cap a stream's frame rate."""
    import trio

    async def emit(event: ev.Event) -> None:
        try:
            send.send_nowait(event)
        except trio.WouldBlock:
            await send.send(event)

    return emit


async def _watch_signals(signals: AsyncIterator[int], stop: trio.Event, front: FrontEnd) -> None:
    async for signum in signals:
        log.info("signal %s: closing", signal.Signals(signum).name)
        front.signalled(signum)
        stop.set()


async def _warm_up(session: Session, model: ModelChoice) -> None:
    """After ready: import the provider and build the system prompt, so the
    first turn does not wait for them. Failures surface in that turn. Then
    the cycle collector, off since luxe.cli was imported, is turned on."""
    import trio


    async def build_provider() -> None:
        try:
            await trio.to_thread.run_sync(model.build, abandon_on_cancel=True)
        except ProviderError as exc:
            log.info("provider not ready: %s", exc.message)

    try:
        session.tools  # noqa: B018 -- builds the tools (imports their modules)
        # The provider's imports run in a thread while git (for the system
        # prompt) runs as a child process: neither waits for the other.
        async with trio.open_nursery() as nursery:
            nursery.start_soon(build_provider)
            nursery.start_soon(session.system_prompt)
        # Then the secrets' first full scan, in a worker thread: after them,
        # so it does not compete with the first request for the interpreter
        # (it overlaps the answer instead; whatever needs it waits for it).
        await session.gate.settle()
    finally:
        # Off since luxe.cli's import: the start's imports are done, and
        # what they made lives on, so the collector never scans it again.
        gc.freeze()
        gc.enable()
