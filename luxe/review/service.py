"""The open review and the one task that owns it.

`ReviewService.serve` is the owner: loads, edits, commits and the agent's
updates all go through its channel and are applied one at a time, so an
edit and an agent's answer never lose each other. Agent turns (a sent
question, a fix) are started on the session with its public `start_turn`,
stream to the client like any turn, and are watched by tasks in the
service's nursery; their results come back to the owner as updates.

Cancelling `serve` cancels the watchers (the turns themselves belong to the
session, which cancels them on close). A fix that was running when Luxe
stopped is marked failed, with a system entry, when its review next loads.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from functools import partial
from pathlib import Path

import attrs
import trio

from luxe.engine.model import ProviderError
from luxe.engine.ports import tool_use_event
from luxe.engine.session import Session
from luxe.protocol import events as ev
from luxe.protocol import review as rv
from luxe.review import agent
from luxe.review.chapters import ChaptersInvalid
from luxe.review.commit import CommitRefused, commit_chapters
from luxe.review.diff import ReviewLoadError
from luxe.review.edits import FixEdit, edit_from_wire
from luxe.review.findings import EditFailed, add_entry, apply_edit, set_fix
from luxe.review.load import ChapterSource, load_review, model_chapters
from luxe.review.model import (
    Author,
    Chapter,
    Finding,
    Fix,
    PullRequestTarget,
    Review,
    ReviewSession,
    WireError,
    target_from_wire,
    to_wire,
)
from luxe.review.redact import ReviewGuard
from luxe.review.remap import remap_session
from luxe.review.store import ReviewStore, StoreError

log = logging.getLogger("luxe.review")

Emit = Callable[[ev.Event], Awaitable[None]]
SessionChange = Callable[[ReviewSession], ReviewSession]


def utc_now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@attrs.define(eq=False)
class ReviewState:
    """One review this process has loaded: what the owner changes."""

    review: Review
    session: ReviewSession
    store: ReviewStore
    root: Path


@attrs.define(eq=False)
class _AgentUpdate:
    state: ReviewState
    finding_id: str
    change: SessionChange
    done: bool = False  # the agent's turn for this finding has ended
    # Set once the owner has applied (and saved) the change, or dropped it.
    applied: trio.Event = attrs.field(factory=trio.Event)
    dropped: bool = False  # the change no longer applied (finding deleted)


_Job = rv.LoadGuidedReview | rv.EditReview | rv.CommitReviewChapters | _AgentUpdate


# The frames that say why an action failed: their reason may quote git's
# or gh's complaint (a git hook's stderr, a remote's answer).
_FAILURES = (rv.GuidedReviewLoadFailed, rv.ReviewSessionSaveFailed, rv.ReviewChaptersCommitFailed)


class ReviewService:
    def __init__(self, *, cwd: Path, session: Session, emit: Emit) -> None:
        self.cwd = cwd
        self.session = session
        self._emit = emit
        self.open: ReviewState | None = None
        self._states: dict[str, ReviewState] = {}
        self._working: set[str] = set()  # findings with an agent turn under way
        self._send, self._receive = trio.open_memory_channel[_Job](256)
        self._agents: trio.Nursery | None = None

    async def emit(self, event: ev.Event) -> None:
        """Send a frame; a failure's reason redacted first, with every value
        known (the rest of a review is redacted as it is built)."""
        if isinstance(event, _FAILURES):
            gate = self.session.gate
            await gate.settle()
            event = attrs.evolve(event, reason=gate.redact(event.reason))
        await self._emit(event)

    def open_review(self, review_id: str) -> tuple[Review, ReviewSession] | None:
        """The open review and its session, when `review_id` is the open one
        (the GitHub layer posts it; luxe.github.face.OpenReviews)."""
        state = self.open
        if state is None or state.review.id != review_id:
            return None
        return state.review, state.session

    async def submit(self, action: rv.ReviewAction) -> None:
        """Hand an action to the owner (returns at once unless 256 wait)."""
        await self._send.send(action)

    async def serve(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """Apply jobs one at a time until cancelled. Owns the watcher tasks."""
        async with trio.open_nursery() as agents:
            self._agents = agents
            task_status.started()
            async for job in self._receive:
                try:
                    await self._handle(job)
                except Exception as error:  # one bad job never ends the review
                    log.exception("review job %r failed", type(job).__name__)
                    await self._answer_failure(
                        job, f"internal error: {type(error).__name__}: {error}"
                    )

    async def _answer_failure(self, job: _Job, reason: str) -> None:
        """Every action is answered once, even when its handling broke."""
        if isinstance(job, rv.LoadGuidedReview):
            await self.emit(rv.GuidedReviewLoadFailed(job.request_id, reason))
        elif isinstance(job, rv.EditReview):
            await self.emit(rv.ReviewSessionSaveFailed(job.request_id, reason))
        elif isinstance(job, rv.CommitReviewChapters):
            await self.emit(rv.ReviewChaptersCommitFailed(job.request_id, reason))

    async def _handle(self, job: _Job) -> None:
        if isinstance(job, rv.LoadGuidedReview):
            await self._load(job)
        elif isinstance(job, rv.EditReview):
            await self._edit(job)
        elif isinstance(job, rv.CommitReviewChapters):
            await self._commit(job)
        else:
            await self._agent_update(job)

    # -- load ----------------------------------------------------------------------

    async def _load(self, action: rv.LoadGuidedReview) -> None:
        try:
            target = target_from_wire(action.target)
            await self.session.gate.settle()  # secret files known before any is shown
            loaded = await load_review(
                self.cwd, target, propose=self._chapter_source(), guard=self._guard(),
                read_only=self._read_only(),
            )
        except (WireError, ReviewLoadError) as error:
            reason = error.reason if isinstance(error, ReviewLoadError) else str(error)
            await self.emit(rv.GuidedReviewLoadFailed(action.request_id, reason))
            return
        state = self._states.get(loaded.review.id)
        if state is None:
            state = ReviewState(loaded.review, loaded.session, loaded.store, loaded.root)
            self._states[loaded.review.id] = state
            await self._settle_interrupted(state)
        elif self._read_only():  # nothing was stored: the session kept here is the latest
            if state.review.revision_id != loaded.review.revision_id:
                state.session = remap_session(state.session, state.review, loaded.review)
                state.review = loaded.review
        else:
            state.review, state.session = loaded.review, loaded.session
        if isinstance(target, PullRequestTarget):
            await self._show_github_threads(state, target)
        self.open = state
        await self.emit(rv.GuidedReviewLoaded(action.request_id, to_wire(state.review)))
        await self.emit(rv.ReviewSessionRestored(to_wire(state.session)))

    async def _show_github_threads(self, state: ReviewState, target: PullRequestTarget) -> None:
        """The pull request's review threads as read-only findings
        (luxe.github.review_threads); kept as they were when gh cannot answer."""
        from luxe.github import gh, pulls
        from luxe.github.redacted import redacted
        from luxe.github.review_threads import thread_findings, with_threads

        try:
            threads = await pulls.threads(state.root, target.number, target.repository)
        except (gh.GhFailed, gh.GhUnavailable) as error:
            log.info("review threads of #%s: %s", target.number, error.message)
            return
        # GitHub's text, every string of it (a login, a path, a body): anyone's.
        threads = redacted(threads, self.session.gate.redact)
        session = with_threads(state.session, thread_findings(state.review, threads))
        if session is not state.session:
            await self._save(state, session)
            state.session = session
    def _guard(self) -> ReviewGuard:
        gate = self.session.gate
        return ReviewGuard(redact=gate.redact, is_secret_file=gate.is_secret_file)

    def _chapter_source(self) -> ChapterSource:
        async def propose(review: Review) -> tuple[Chapter, ...]:
            try:
                provider = await self.session.model.provider()
            except ProviderError as error:
                raise ChaptersInvalid(f"no model: {error.message}") from None
            return await model_chapters(provider, self.session.model.name)(review)

        return propose

    async def _settle_interrupted(self, state: ReviewState) -> None:
        """Fixes left running by an earlier Luxe never report: say so."""
        session = state.session
        for finding in session.findings:
            if finding.fix is not None and finding.fix.state == "running":
                session = set_fix(
                    session, finding.id, Fix("failed"), now=utc_now(),
                    system_note="Luxe stopped before the fix reported.",
                )  # fmt: skip
        if session is not state.session:
            await self._save(state, session)
            state.session = session

    # -- edits ---------------------------------------------------------------------

    async def _edit(self, action: rv.EditReview) -> None:
        state = self.open
        if state is None:
            await self.emit(rv.ReviewSessionSaveFailed(action.request_id, "no review is open"))
            return
        if action.review_id != state.review.id:
            await self._reject(action.KIND, action.review_id)
            return
        try:
            edit = edit_from_wire(action.edit_fields())
            result = apply_edit(
                state.session,
                state.review,
                edit,
                now=utc_now(),
                new_id=f"finding:{uuid.uuid4().hex[:12]}",
            )
            if result.send and result.finding_id in self._working:
                raise EditFailed(f"the agent is already working on {result.finding_id}")
        except (WireError, EditFailed) as error:
            reason = error.reason if isinstance(error, EditFailed) else str(error)
            await self.emit(rv.ReviewSessionSaveFailed(action.request_id, reason))
            return
        try:
            await self._save(state, result.session)
        except (OSError, StoreError) as error:
            await self.emit(
                rv.ReviewSessionSaveFailed(action.request_id, f"cannot save the session: {error}")
            )
            return
        state.session = result.session
        await self.emit(rv.ReviewSessionSaved(action.request_id, to_wire(state.session)))
        if result.send and result.finding_id is not None and self._agents is not None:
            self._working.add(result.finding_id)
            runner = self._run_fix if isinstance(edit, FixEdit) else self._run_question
            self._agents.start_soon(self._guarded, runner, state, result.finding_id)

    async def _guarded(
        self,
        runner: Callable[[ReviewState, str], Awaitable[None]],
        state: ReviewState,
        finding_id: str,
    ) -> None:
        """Run an agent watcher; if it breaks, say so on the thread instead of
        taking the review (and Luxe) down with it."""
        try:
            await runner(state, finding_id)
        except Exception as error:
            log.exception("agent work on %s failed", finding_id)
            note = f"The agent's work stopped: internal error: {type(error).__name__}: {error}."
            fix_broke = partial(
                set_fix, finding_id=finding_id, fix=Fix("failed"), now=utc_now(), system_note=note
            )
            entry = partial(
                add_entry, finding_id=finding_id, author="system", body=note, now=utc_now()
            )
            finding = self._finding(state, finding_id)
            change = fix_broke if finding is not None and finding.fix is not None else entry
            await self._post(state, finding_id, change, done=True)

    async def _reject(self, kind: str, review_id: str) -> None:
        await self.emit(ev.ActionRejected(kind, f"{kind}: {review_id} is not the open review"))

    def _read_only(self) -> bool:
        return self.session.gate.permission_mode == "read-only"

    async def _save(self, state: ReviewState, session: ReviewSession) -> None:
        if self._read_only():
            # Read-only writes nothing, the repository's `.luxe/reviews/`
            # included: the session lives in this Luxe until it ends.
            return
        # In a thread that finishes even on cancel, so the file is always whole.
        await trio.to_thread.run_sync(state.store.save, session, state.review)

    # -- the agent -----------------------------------------------------------------

    async def _post(
        self, state: ReviewState, finding_id: str, change: SessionChange, done: bool = False
    ) -> _AgentUpdate:
        update = _AgentUpdate(state, finding_id, change, done)
        await self._send.send(update)
        return update

    async def _agent_update(self, update: _AgentUpdate) -> None:
        try:
            await self._apply_agent_update(update)
        finally:
            update.applied.set()

    async def _apply_agent_update(self, update: _AgentUpdate) -> None:
        state = update.state
        if update.done:
            self._working.discard(update.finding_id)
        try:
            session = update.change(state.session)
        except EditFailed as error:  # the reviewer deleted the finding meanwhile
            log.info("agent update dropped: %s", error.reason)
            update.dropped = True
            return
        try:
            await self._save(state, session)
        except (OSError, StoreError):
            log.exception("cannot save review session %s", state.review.id)
        state.session = session
        if state is self.open:
            await self.emit(rv.ReviewSessionSaved(None, to_wire(session)))

    def _finding(self, state: ReviewState, finding_id: str) -> Finding | None:
        return next((f for f in state.session.findings if f.id == finding_id), None)

    async def _run_question(self, state: ReviewState, finding_id: str) -> None:
        """Ask the agent; its answer (or Luxe's word why none came) goes on the thread."""
        finding = self._finding(state, finding_id)
        if finding is None:
            self._working.discard(finding_id)
            return
        redact = self.session.gate.redact
        turn = await self.session.start_turn(
            redact(agent.question_prompt(finding)),
            context=redact(agent.finding_context(finding, state.review)),
        )
        outcome = await turn.wait()
        answer = outcome.final_text.strip()
        author: Author
        if outcome.reason == "end_turn" and answer:
            author, body = "agent", answer
        else:
            author, body = "system", agent.why_no_answer(outcome.reason, outcome.error, fix=False)
        change = partial(add_entry, finding_id=finding_id, author=author, body=body, now=utc_now())
        await self._post(state, finding_id, change, done=True)

    async def _run_fix(self, state: ReviewState, finding_id: str) -> None:
        """Run the fix turn: requested -> running -> done (report on the
        thread) or failed (a system entry says why; the finding stays open).
        A fix is done only when the turn ended normally with a report and it
        was not the case that every change it tried was denied (see
        `agent.why_fix_denied`)."""
        finding = self._finding(state, finding_id)
        if finding is None:
            self._working.discard(finding_id)
            return
        running = await self._post(
            state, finding_id, lambda s: set_fix(s, finding_id, Fix("running"), now=utc_now())
        )
        # The fix turn may edit files: it starts only once "running" is saved,
        # so a Luxe stopped mid-fix always leaves a record that it ran (the
        # next load marks it failed) and the client sees "running" first.
        await running.applied.wait()
        if running.dropped:  # the finding was deleted meanwhile: nothing to fix
            self._working.discard(finding_id)
            return
        redact = self.session.gate.redact
        turn = await self.session.start_turn(
            redact(agent.fix_prompt(finding)),
            context=redact(agent.finding_context(finding, state.review)),
        )
        outcome = await turn.wait()
        report = outcome.final_text.strip()
        denied = agent.why_fix_denied(turn.calls)
        if outcome.reason == "end_turn" and report and denied is None:
            fix, note = Fix("done", report), None
        elif outcome.reason == "end_turn" and report:
            # The agent's words stay on the thread; Luxe says why it is not a fix.
            fix, note = Fix("failed", report), denied
        else:
            fix, note = Fix("failed"), agent.why_no_answer(outcome.reason, outcome.error, fix=True)
        change = partial(set_fix, finding_id=finding_id, fix=fix, now=utc_now(), system_note=note)
        await self._post(state, finding_id, change, done=True)

    # -- commits -------------------------------------------------------------------

    async def _commit(self, action: rv.CommitReviewChapters) -> None:
        async def fail(reason: str) -> None:
            await self.emit(rv.ReviewChaptersCommitFailed(action.request_id, reason))

        state = self.open
        if state is None:
            await fail("no review is open")
            return
        if action.review_id != state.review.id:
            await self._reject(action.KIND, action.review_id)
            return
        if self._read_only():
            await fail("read-only mode: commit_review_chapters is refused")
            return
        args = {"review_id": action.review_id, "chapters": action.chapters}
        hook = await self.session.hooks.run(
            "BeforeToolUse", tool_use_event("commit_review_chapters", args)
        )
        if hook.blocked:
            await fail(hook.reason or "a BeforeToolUse hook denied the commit")
            return
        try:
            commits = await commit_chapters(self.cwd, state.review, action.chapters)
        except CommitRefused as error:
            await fail(error.reason)
            return
        infos = [rv.ChapterCommitInfo(c.chapter_id, c.sha, c.message) for c in commits]
        await self.emit(rv.ReviewChaptersCommitted(action.request_id, infos))
