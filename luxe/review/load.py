"""Load a review: read the target's diff, parse it, put it into chapters and
restore its session from the store (re-mapped if the diff moved on).

`load_review` owns the git/gh processes it runs and the store write it may
make; cancelled, it kills the process it waits on, and a store write already
started finishes (it runs in a thread) so the file is whole.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import attrs
import trio

from luxe.engine.model import ModelRequest, Provider, ProviderError, StreamEvent
from luxe.record import record
from luxe.review.chapters import (
    PROPOSE_CHAPTERS,
    ChaptersInvalid,
    chapter_request,
    fallback_chapters,
    parse_proposal,
    validate_chapters,
)
from luxe.review.diff import DiffRead, parse_read, read_diff, review_id_for, reviews_dir
from luxe.review.findings import new_session
from luxe.review.model import Chapter, Review, ReviewSession, Target
from luxe.review.redact import ReviewGuard, guard_review
from luxe.review.remap import remap_session
from luxe.review.store import LinkedStore, ReviewStore, StoredReview, StoreError

log = logging.getLogger(__name__)

# Beyond this many hunks the listing would crowd the model's context (and
# take long to answer): the fallback chapters are used without asking.
MAX_MODEL_HUNKS = 600

# Given the review without chapters, returns its chapters (validated by the caller).
ChapterSource = Callable[[Review], Awaitable[tuple[Chapter, ...]]]


@record
class LoadedReview:
    review: Review
    session: ReviewSession
    store: ReviewStore
    root: Path
    restored: bool  # a stored session was found for this review
    chapters_source: str  # "model", "fallback" or "stored"


async def read_review(
    cwd: Path, target: Target, guard: ReviewGuard | None = None
) -> tuple[Review, DiffRead]:
    """The review with fallback chapters (no store, no model), secret files
    hidden and values redacted when a `guard` is given. Raises ReviewLoadError."""
    read = await read_diff(cwd, target)
    parsed = parse_read(read)
    review = Review(
        id=review_id_for(read.root, target),
        revision_id=parsed.revision_id,
        target=target,
        base=read.base,
        head=read.head,
        files=parsed.files,
        hunks=parsed.hunks,
        chapters=fallback_chapters(parsed.files, parsed.hunks),
    )
    if guard is not None:
        review = guard_review(review, read.root, guard)
    return review, read


async def load_review(
    cwd: Path,
    target: Target,
    *,
    propose: ChapterSource | None = None,
    guard: ReviewGuard | None = None,
    read_only: bool = False,
) -> LoadedReview:
    """Read, chapter and restore (see the module doc). Raises ReviewLoadError
    for a target that cannot be read; a stored session that cannot be read is
    set aside (renamed) and a new one starts. `read_only` writes nothing: an
    unreadable session is left where it is, a re-mapped one is not saved."""
    review, read = await read_review(cwd, target, guard)
    store = ReviewStore(reviews_dir(read.root))
    stored = await trio.to_thread.run_sync(_load_or_set_aside, store, review.id, read_only)
    if stored is not None and stored.review.revision_id == review.revision_id:
        # The same diff: keep its chapters, so chapter ids stay what the client saw.
        review = attrs.evolve(review, chapters=stored.review.chapters)
        return LoadedReview(review, stored.session, store, read.root, True, "stored")
    source = "fallback"
    if propose is not None and 0 < len(review.hunks) <= MAX_MODEL_HUNKS:
        try:
            chapters = await propose(review)
            validate_chapters(chapters, review.hunks)
            review = attrs.evolve(review, chapters=chapters)
            source = "model"
        except (ChaptersInvalid, ProviderError) as error:
            log.info("model chapters refused, using the fallback: %s", error)
        except Exception:  # a broken provider must not cost the reviewer the review
            log.exception("model chapters failed, using the fallback")
    if stored is None:
        return LoadedReview(review, new_session(review), store, read.root, False, source)
    session = remap_session(stored.session, stored.review, review)
    if read_only:
        return LoadedReview(review, session, store, read.root, True, source)
    try:
        await trio.to_thread.run_sync(store.save, session, review)
    except (OSError, StoreError) as error:  # the next edit says so too
        log.warning("cannot save review session %s: %s", review.id, error)
    return LoadedReview(review, session, store, read.root, True, source)


def _load_or_set_aside(
    store: ReviewStore, review_id: str, read_only: bool = False
) -> StoredReview | None:
    try:
        return store.load(review_id)
    except LinkedStore as error:
        log.warning("%s; starting a new session", error)
        return None
    except StoreError as error:
        if read_only:
            log.warning("%s; read-only: left as it is, starting a new session", error)
            return None
        path = store.path_for(review_id)
        aside = path.with_name(f"{path.name}.unreadable-{int(time.time())}")
        log.warning("%s; kept as %s, starting a new session", error, aside)
        try:
            os.replace(path, aside)
        except OSError:
            pass
        return None


def model_chapters(provider: Provider, model: str) -> ChapterSource:
    """A ChapterSource asking `provider` once, with the propose_chapters tool.
    Raises ChaptersInvalid (answer without the tool, or invalid) or
    ProviderError; `load_review` then falls back."""

    async def propose(review: Review) -> tuple[Chapter, ...]:
        request: ModelRequest = chapter_request(review, model)

        async def ignore(_: StreamEvent) -> None:
            return None

        answer = await provider.complete(request, ignore)
        for call in answer.tool_uses:
            if call.name == PROPOSE_CHAPTERS.name:
                return parse_proposal(call.input, review.hunks)
        raise ChaptersInvalid("the model did not call propose_chapters")

    return propose
