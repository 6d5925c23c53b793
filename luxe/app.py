"""The composition root: options -> provider, tools, policy, store, front end.

`run` reads configuration, opens or resumes the session file and writes the
handshake (`ready`, `state_changed`, `session_info`) before trio is even
imported, so a client gets `ready` as soon as the session is known. Then it
runs the RPC front end under trio. Nursery tree (see docs/architecture.md):

    trio.run(_main)
    └── root nursery
        ├── writer task (StdoutOwner.serve: the only writer of stdout)
        └── session nursery (inner)
            ├── session.run: turns one at a time, each in its own cancel scope
            ├── review.serve: Guided Review
            ├── github.serve: the workspace and GitHub actions (luxe.github)
            ├── reader task (stdin lines -> actions)
            ├── signal watcher (SIGTERM/SIGINT/SIGHUP -> close)
            └── warm-up (imports the tools and the provider, builds the system prompt)

close, EOF, a signal or a broken stdout all set one `stop` event; then the
session cancels its turn (processes die, turn_ended is sent), SessionEnd runs,
the event channel closes and the writer flushes the last frames.
"""

from __future__ import annotations

import logging
import os
import signal
import sys
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING

from luxe import __version__
from luxe.cli import Options
from luxe.config import Paths, SettingsError, load_settings, paths_from_env
from luxe.engine.model import Provider, ProviderError, Usage
from luxe.engine.ports import HookRunner, PermissionGate
from luxe.engine.store import SessionFile, SessionNotFound, SessionStore
from luxe.frontends.stdout import StdoutOwner
from luxe.policy.hooks_config import HookConfig
from luxe.policy.rules_files import PermissionsFileError
from luxe.protocol import events as ev
from luxe.providers import models
from luxe.providers.registry import make_provider, parse_model_spec

if TYPE_CHECKING:
    # Loaded after the handshake has been written (see run).
    import trio

    from luxe.engine.session import Session
    from luxe.engine.tooling import Tool
    from luxe.frontends.rpc_actions import RpcActions
    from luxe.protocol import review as rv
    from luxe.review.model import Review, ReviewSession
    from luxe.review.service import ReviewService

log = logging.getLogger("luxe")

# Signals that arrive between the handshake and the event loop: honoured as
# soon as the loop runs (a client may stop luxe right after `ready`).
_early_signals: list[int] = []
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)

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
]


class ModelChoice:
    """The model of a session: its facts now, its provider on first use
    (providers import httpx, which the handshake must not wait for)."""

    def __init__(self, spec: str, env: Mapping[str, str]) -> None:
        self.spec = spec
        self.provider_name, self.name = parse_model_spec(spec)
        self.info = models.lookup(self.provider_name, self.name)
        self._env = dict(env)
        self._provider: Provider | None = None
        self._lock = threading.Lock()

    def build(self) -> Provider:
        """Build the provider once (thread-safe: warm-up may race a turn)."""
        with self._lock:
            if self._provider is None:
                self._provider = make_provider(self.provider_name, self.name, self._env)
            return self._provider

    async def provider(self) -> Provider:
        if self._provider is not None:
            return self._provider
        import trio

        return await trio.to_thread.run_sync(self.build)

    async def aclose(self) -> None:
        """Close the provider's HTTP client, if it was built and has one."""
        import trio

        closer = getattr(self._provider, "aclose", None)
        if closer is not None:
            with trio.move_on_after(0.2):
                await closer()

    def state(self) -> ev.ModelState:
        if self.provider_name == "scripted":
            return ev.ModelState(
                id=self.spec,
                provider="scripted",
                context_window=self.info.context_window,
                label=f"script {self.name}: replays recorded answers, not a live model",
            )
        return ev.ModelState(self.info.id, self.provider_name, self.info.context_window)

    def cost(self, usage: Usage) -> float | None:
        return models.cost_usd(self.info, usage)


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
    (secret values redacted from a failing hook's stderr)."""
    from luxe.policy.hooks import CommandHookRunner

    return CommandHookRunner(config, cwd=str(cwd), on_finished=emit, redact=gate.redact)


def register_actions(actions: RpcActions, session: Session, options: Options) -> None:
    """Where other layers (Guided Review, GitHub) register their RPC actions
    (see RpcActions.register). The core registers none."""
    return None


def _setup_logging(paths: Paths, verbose: bool) -> None:
    root = logging.getLogger("luxe")
    root.setLevel(logging.DEBUG if verbose else logging.INFO)
    fmt = logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        paths.state_dir.mkdir(parents=True, exist_ok=True)
        handler: logging.Handler = logging.FileHandler(paths.log_file, encoding="utf-8")
        handler.setFormatter(fmt)
        root.addHandler(handler)
    except OSError:
        pass
    if verbose:
        err = logging.StreamHandler(sys.stderr)
        err.setFormatter(fmt)
        root.addHandler(err)


def run(options: Options, env: Mapping[str, str] | None = None) -> int:
    """Run `luxe --rpc`; returns the exit status (2: refused at startup)."""
    env = dict(os.environ if env is None else env)
    # Nothing but frames may reach stdout: a stray print goes to stderr.
    sys.stdout = sys.stderr
    paths = paths_from_env(env)
    _setup_logging(paths, options.verbose)
    try:
        settings = load_settings(paths.settings_file)
    except SettingsError as exc:
        print(f"luxe: {exc}", file=sys.stderr)
        return 2
    spec = options.model or env.get("LUXE_MODEL") or settings.model or models.DEFAULT_MODEL
    try:
        model = ModelChoice(spec, env)
    except ValueError as exc:
        print(f"luxe: {exc}", file=sys.stderr)
        return 2
    cwd = Path.cwd()
    context: str | None = None
    if options.issue is not None or options.from_pr is not None or options.worktree is not None:
        # Decided before the first frame: the session may live in a new worktree.
        from luxe.github.start import StartError, prepare

        try:
            start = prepare(
                cwd, issue=options.issue, from_pr=options.from_pr, worktree=options.worktree
            )
        except StartError as exc:
            print(f"luxe: {exc}", file=sys.stderr)
            return 2
        cwd, context = start.cwd, start.context
        os.chdir(cwd)
    try:
        gate = make_gate(options, cwd, env)
    except PermissionsFileError as exc:
        print(f"luxe: refusing to start: invalid permissions file: {exc}", file=sys.stderr)
        return 2
    from luxe.policy.setup import build_hook_config

    hook_config = build_hook_config(cwd=cwd, trust_project=options.trust_project, env=env)
    store = SessionStore(paths.sessions_dir)
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
        print(f"luxe: --resume: {exc}", file=sys.stderr)
        return 2
    max_turns = options.max_turns or settings.max_turns
    for signum in STOP_SIGNALS:
        signal.signal(signum, _remember_signal)
    stdout = StdoutOwner()
    stdout.write_now(_handshake(options, model, gate, file, resumed, cwd))
    import trio

    try:
        trio.run(
            _main, options, env, model, store, file, resumed, cwd, max_turns, gate, hook_config,
            stdout, context,
        )
    except Exception:
        log.exception("luxe --rpc failed")
        return 1
    return 0


async def _main(
    options: Options,
    env: Mapping[str, str],
    model: ModelChoice,
    store: SessionStore,
    file: SessionFile,
    resumed: bool,
    cwd: Path,
    max_turns: int,
    gate: PermissionGate,
    hook_config: HookConfig,
    stdout: StdoutOwner,
    context: str | None = None,
) -> None:
    import trio

    from luxe.engine.session import Session
    from luxe.frontends.rpc_actions import RpcActions

    stop = trio.Event()
    send, receive = trio.open_memory_channel[ev.Event](1024)
    with trio.open_signal_receiver(*STOP_SIGNALS) as signals:
        if _early_signals:
            stop.set()
        async with trio.open_nursery() as root:
            root.start_soon(stdout.serve, receive, stop.set)
            async with send:
                emit = _emitter(send)
                session = Session(
                    cwd=cwd,
                    file=file,
                    model=model,
                    tools=_tools,
                    gate=gate,
                    hooks=make_hooks(hook_config, cwd, emit, gate),
                    emit=emit,
                    max_turns=max_turns,
                    resumed=resumed,
                    context=context,
                )
                session.set_auto_approve(options.auto_approve)
                for problem in hook_config.errors:
                    # The session runs without the broken hook; say so.
                    await send.send(ev.Error(f"hooks: {problem}", retryable=False))
                review = _LazyReview(cwd=cwd, session=session, emit=emit)
                actions = RpcActions(
                    session, store, lambda s: ModelChoice(s, env), stop, review=review.submit
                )
                register_actions(actions, session, options)
                # GitHub through the user's gh (luxe.github; its workspace
                # starts after ready and watches the session's frames).
                from luxe.github.face import GitHubFace

                github = GitHubFace(
                    cwd=cwd, session=session, github_writes=options.github_writes, reviews=review
                )
                github.register(actions)
                session.emit = github.watching(session.emit)
                async with trio.open_nursery() as inner:
                    review.nursery = inner
                    # Language servers for diagnostics on edit start on the
                    # first edit of their language (nothing runs until then).
                    from luxe.lsp.diagnostics import serve_edit_diagnostics

                    session.diagnostics = await inner.start(serve_edit_diagnostics, cwd, env)
                    await inner.start(session.run)
                    await inner.start(github.serve)
                    inner.start_soon(_watch_signals, signals, stop)
                    inner.start_soon(_read_then_stop, actions, stop)
                    inner.start_soon(_warm_up, session, model)
                    await stop.wait()
                    log.info("closing session %s", file.id)
                    await session.close()
                    if isinstance(session.model, ModelChoice):
                        await session.model.aclose()
                    inner.cancel_scope.cancel()


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


def _handshake(
    options: Options, model: ModelChoice, gate: PermissionGate, file: SessionFile,
    resumed: bool, cwd: Path,
) -> list[ev.Event]:
    """The first frames: `ready`, `state_changed` (a new session's state, as
    Session.state_event gives it) and, on resume, `session_info`."""
    frames: list[ev.Event] = [
        ev.Ready(
            protocol_version=ev.PROTOCOL_VERSION,
            luxe_version=__version__,
            session_id=file.id,
            cwd=str(cwd),
            github_writes=options.github_writes,
            capabilities=CAPABILITIES,
            resumed=resumed,
        ),
        ev.StateChanged(
            model=model.state(),
            streaming=False,
            mode="build",
            thinking="off",
            permission_mode=gate.permission_mode,
            auto_approve=options.auto_approve,
        ),
    ]
    if resumed:
        frames.append(
            ev.SessionInfo(file.id, file.title, len(file.messages), file.created_at, file.updated_at)
        )
    return frames


def _remember_signal(signum: int, frame: FrameType | None) -> None:
    _early_signals.append(signum)


def _tools() -> list[Tool]:
    from luxe.tools import default_tools

    return default_tools()


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


async def _read_then_stop(actions: RpcActions, stop: trio.Event) -> None:
    from luxe.frontends import rpc

    await rpc.serve_reader(actions.dispatch)
    stop.set()  # EOF on stdin is the same as close


async def _watch_signals(signals: AsyncIterator[int], stop: trio.Event) -> None:
    async for signum in signals:
        log.info("signal %s: closing", signal.Signals(signum).name)
        stop.set()


async def _warm_up(session: Session, model: ModelChoice) -> None:
    """After ready: import the provider and build the system prompt, so the
    first turn does not wait for them. Failures surface in that turn."""
    import trio

    session.tools  # noqa: B018 -- builds the tools (imports their modules)

    async def build_provider() -> None:
        try:
            await trio.to_thread.run_sync(model.build, abandon_on_cancel=True)
        except ProviderError as exc:
            log.info("provider not ready: %s", exc.message)

    # The provider's imports run in a thread while git (for the system
    # prompt) runs as a child process: neither waits for the other.
    async with trio.open_nursery() as nursery:
        nursery.start_soon(build_provider)
        nursery.start_soon(session.system_prompt)
