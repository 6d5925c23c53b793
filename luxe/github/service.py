"""The GitHub actions, each run as its own task in the GitHub layer's
nursery (luxe.github.face) and answered once under its request_id.

Previews are kept here by request_id: a confirmation names its preview and
sends only what a person can change (title, body, verdict, draft); what is
published is what the preview prepared. A failed open or post can be
confirmed again; a stack opens once; a review posts once. Writes run one at
a time (one lock), so two confirmations of one preview cannot race.
Cancellation (close) kills the gh/git running (luxe.github.gh).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING

import attrs
import trio

from luxe.github import drafts, gh, pulls
from luxe.github.review_post import DraftReview, commentable_lines, compose_body, draft_review
from luxe.protocol import events as ev
from luxe.protocol import github as gp
from luxe.review.diff import DIFF_CAP

if TYPE_CHECKING:
    from luxe.engine.session import Session
    from luxe.github.face import OpenReviews

log = logging.getLogger("luxe.github")

Emit = Callable[[ev.Event], Awaitable[None]]

REPLY_MUTATION = (
    "mutation($id: ID!, $body: String!) { addPullRequestReviewThreadReply("
    "input: {pullRequestReviewThreadId: $id, body: $body}) { comment { url } } }"
)
RESOLVE_MUTATION = (
    "mutation($id: ID!) { resolveReviewThread(input: {threadId: $id}) "
    "{ thread { id isResolved } } }"
)
GH_EVENTS = {"comment": "COMMENT", "approve": "APPROVE", "request_changes": "REQUEST_CHANGES"}


@attrs.define(eq=False)
class _OpenPlan:
    """A previewed pull request (or stack) and what has been opened of it."""

    drafts: list[gp.PullRequestDraft]
    draft: bool
    opened: list[gp.OpenedPullRequest] = attrs.Factory(list)


@attrs.define(eq=False)
class _ReviewPlan:
    review_id: str
    number: int
    repository: str | None
    draft: DraftReview
    diff_lines: set[tuple[str, str, int]]
    posted_url: str | None = None


class GitHubService:
    def __init__(
        self,
        *,
        cwd: Path,
        session: Session,
        emit: Emit,
        reviews: OpenReviews,
        refresh: Callable[[], None],
    ) -> None:
        self.cwd = cwd
        self.session = session
        self.emit = emit
        self.reviews = reviews
        self.refresh = refresh
        self._opens: dict[str, _OpenPlan] = {}
        self._review_plans: dict[str, _ReviewPlan] = {}
        self._writing = trio.Lock()
        self._restack: object | None = None

    async def handle(self, action: gp.GitHubAction) -> None:
        try:
            await self._dispatch(action)
        except Exception as error:  # one broken action never ends the session
            log.exception("GitHub action %s failed", action.KIND)
            await self.emit(ev.ActionRejected(action.KIND, f"{action.KIND}: internal error: {error}"))

    async def _dispatch(self, action: gp.GitHubAction) -> None:
        if isinstance(action, gp.LoadPullRequest):
            await self._load(action)
        elif isinstance(action, gp.PreviewPullRequest):
            await self._preview_pull_request(action)
        elif isinstance(action, gp.PreviewPullRequestReview):
            await self._preview_review(action)
        elif isinstance(action, gp.PlanRestack | gp.Restack):
            from luxe.github.restack import Restacker

            if self._restack is None:
                self._restack = Restacker(cwd=self.cwd, emit=self.emit, refresh=self.refresh)
            assert isinstance(self._restack, Restacker)
            if isinstance(action, gp.PlanRestack):
                await self._restack.plan(action.request_id)
            else:
                async with self._writing:
                    await self._restack.restack(action.request_id, action.plan_id)
        else:
            async with self._writing:
                await self._write(action)

    def _redact(self, text: str) -> str:
        """What is published passes the redactor: a page anyone may read."""
        return self.session.gate.redact(text)

    async def _write(self, action: gp.GitHubAction) -> None:
        await self.session.gate.settle()  # the secret values known before anything is posted
        if isinstance(action, gp.OpenPullRequest):
            await self._open_pull_request(action)
        elif isinstance(action, gp.PostPullRequestReview):
            await self._post_review(action)
        elif isinstance(action, gp.PostComment):
            await self._post_comment(action)
        elif isinstance(action, gp.ReplyReviewThread | gp.ResolveReviewThread):
            await self._thread(action)
        elif isinstance(action, gp.UpdatePullRequest):
            await self._update(action)
        elif isinstance(action, gp.MergePullRequest):
            await self._merge(action)

    # -- reads -------------------------------------------------------------------

    async def _load(self, action: gp.LoadPullRequest) -> None:
        try:
            pull = await pulls.view(self.cwd, action.number, action.repository)
            threads = await pulls.threads(self.cwd, pull.number, action.repository)
        except (gh.GhFailed, gh.GhUnavailable) as exc:
            await self.emit(gp.PullRequestLoadFailed(action.request_id, exc.message))
            return
        await self.emit(gp.PullRequestLoaded(action.request_id, pull, threads))

    # -- opening a pull request ----------------------------------------------------

    async def _preview_pull_request(self, action: gp.PreviewPullRequest) -> None:
        rid = action.request_id
        try:
            branch = await drafts.current_branch(self.cwd)
            opened = await drafts.open_pulls(self.cwd)
            if branch in opened:
                raise drafts.DraftError(f"{branch} already has pull request #{opened[branch]}")
            if action.base:
                await drafts.check_branch_name(self.cwd, action.base)
                links = [drafts.StackLink(branch, action.base)]
            else:
                default = await drafts.default_branch(self.cwd)
                if branch == default:
                    raise drafts.DraftError(
                        f"{branch} is the default branch: check out a feature branch"
                    )
                links = await drafts.stack(self.cwd, branch, default, opened)
            made: list[gp.PullRequestDraft] = []
            by_model = True
            await self.session.gate.settle()  # the secret values known before any is shown
            for link in links:
                one, model_wrote = await drafts.draft(self.cwd, link, self.session.model,
                                                      self.session.gate.redact)
                made.append(one)
                by_model = by_model and model_wrote
        except drafts.DraftError as exc:
            await self.emit(gp.PullRequestPreviewFailed(rid, exc.message))
            return
        except gh.GhUnavailable as exc:
            await self.emit(gp.PullRequestPreviewFailed(rid, exc.message))
            return
        self._opens[rid] = _OpenPlan(made, bool(action.draft))
        top = made[-1]
        await self.emit(
            gp.PullRequestPreview(
                request_id=rid, title=top.title, body=top.body, base=top.base, head=top.head,
                commits=top.commits, drafted_by="model" if by_model else "commits",
                pull_requests=made,
            )
        )

    async def _open_pull_request(self, action: gp.OpenPullRequest) -> None:
        rid = action.request_id
        plan = self._opens.get(rid)
        if plan is None:
            await self.emit(gp.PullRequestOpenFailed(
                rid, f"no pull request preview {rid!r}: send preview_pull_request first"))
            return
        if len(plan.opened) == len(plan.drafts):
            numbers = ", ".join(f"#{o.number}" for o in plan.opened)
            await self.emit(gp.PullRequestOpenFailed(rid, f"already opened: {numbers}"))
            return
        draft = plan.draft if action.draft is None else action.draft
        for index, one in enumerate(plan.drafts):
            if index < len(plan.opened):
                continue
            title, body = one.title, one.body
            if index == len(plan.drafts) - 1:
                title = self._redact(action.title) if action.title is not None else title
                body = self._redact(action.body) if action.body is not None else body
            try:
                await self._push(one.head)
                # `--flag=value`: a title starting with "-" stays a title.
                args = ["pr", "create", f"--head={one.head}", f"--base={one.base}",
                        f"--title={title}", "--body-file", "-"]
                if draft:
                    args.append("--draft")
                out = await gh.checked(*args, cwd=self.cwd, stdin=body.encode())
            except (gh.GhFailed, gh.GhUnavailable) as exc:
                done = "".join(f" (opened #{o.number} for {o.head} already)" for o in plan.opened)
                await self.emit(gp.PullRequestOpenFailed(
                    rid, f"opening the pull request for {one.head}: {exc.message}{done}"))
                return
            url = out.strip().splitlines()[-1] if out.strip() else ""
            number = gh.number_from_url(url)
            if number is None:
                await self.emit(gp.PullRequestOpenFailed(rid, f"gh pr create said: {out.strip()}"))
                return
            plan.opened.append(gp.OpenedPullRequest(one.head, number, url))
        top = plan.opened[-1]
        await self.emit(gp.PullRequestOpened(rid, top.number, top.url, list(plan.opened)))
        self.refresh()

    async def _push(self, branch: str) -> None:
        done = await gh.run(("git", "push", "-u", "origin", branch), cwd=self.cwd,
                            timeout_s=gh.WRITE_TIMEOUT_S)
        if done.returncode != 0:
            raise gh.GhFailed(f"git push: {done.error_line}")

    # -- posting a review ------------------------------------------------------------

    async def _preview_review(self, action: gp.PreviewPullRequestReview) -> None:
        rid = action.request_id
        opened = self.reviews.open_review(action.review_id)
        if opened is None:
            await self.emit(gp.PullRequestReviewPreviewFailed(
                rid, f"review {action.review_id} is not the open review"))
            return
        review, session = opened
        number = action.pull_request
        target = review.target
        if number is None and target.kind == "pull_request":
            number = target.number
        try:
            if number is None:
                number = (await pulls.view(self.cwd)).number
            diff = await _pull_request_diff(self.cwd, number, action.repository)
        except (gh.GhFailed, gh.GhUnavailable) as exc:
            await self.emit(gp.PullRequestReviewPreviewFailed(rid, exc.message))
            return
        lines = commentable_lines(diff)
        await self.session.gate.settle()
        drafted = draft_review(review, session, lines, self._redact)
        self._review_plans[rid] = _ReviewPlan(action.review_id, number, action.repository,
                                              drafted, lines)
        await self.emit(gp.PullRequestReviewPreview(
            request_id=rid, pull_request=number, session_revision=session.session_revision,
            body=drafted.body, verdict=drafted.verdict, comments=list(drafted.comments),
            folded=list(drafted.folded),
        ))

    async def _post_review(self, action: gp.PostPullRequestReview) -> None:
        rid = action.request_id

        async def fail(reason: str) -> None:
            await self.emit(gp.PullRequestReviewPostFailed(rid, reason))

        plan = self._review_plans.get(rid)
        if plan is None:
            await fail(f"no review preview {rid!r}: send preview_pull_request_review first")
            return
        if plan.posted_url is not None:
            await fail(f"already posted: {plan.posted_url}")
            return
        opened = self.reviews.open_review(plan.review_id)
        if opened is None:
            await fail(f"review {plan.review_id} is no longer the open review")
            return
        now = draft_review(opened[0], opened[1], plan.diff_lines, self._redact)
        if (now.comments, now.folded) != (plan.draft.comments, plan.draft.folded):
            await fail("comments changed since the preview; preview again")
            return
        verdict = action.verdict or plan.draft.verdict
        body = self._redact(action.body) if action.body is not None else plan.draft.body
        if action.body is not None and plan.draft.folded:
            body = compose_body(self._redact(action.body), plan.draft.folded)
        payload = {
            "event": GH_EVENTS[verdict],
            "body": body,
            "comments": [
                {"path": c.path, "line": c.line, "side": c.side, "body": c.body}
                for c in plan.draft.comments
            ],
        }
        try:
            owner, repo = _owner_repo(plan.repository)
            out = await gh.checked(
                "api", "--method", "POST", f"repos/{owner}/{repo}/pulls/{plan.number}/reviews",
                "--input", "-", cwd=self.cwd, stdin=json.dumps(payload).encode(),
            )
            url = str(json.loads(out).get("html_url") or "")
        except (gh.GhFailed, gh.GhUnavailable) as exc:
            await fail(exc.message)
            return
        except ValueError:
            await fail("gh api: unexpected answer to the review")
            return
        plan.posted_url = url
        await self.emit(gp.PullRequestReviewPosted(rid, url))
        self.refresh()

    # -- comments, threads, update, merge ----------------------------------------------

    async def _post_comment(self, action: gp.PostComment) -> None:
        which = (str(action.pull_request),) if action.pull_request is not None else ()
        try:
            out = await gh.checked("pr", "comment", *which, "--body-file", "-",
                                   *gh.repo_args(action.repository), cwd=self.cwd,
                                   stdin=self._redact(action.body).encode())
        except (gh.GhFailed, gh.GhUnavailable) as exc:
            await self.emit(gp.CommentPostFailed(action.request_id, exc.message))
            return
        # gh prints the comment's URL; one that printed nothing has still
        # posted it (an error here would have a client post it again).
        said = out.strip().splitlines()
        await self.emit(gp.CommentPosted(action.request_id, said[-1] if said else ""))

    async def _thread(self, action: gp.ReplyReviewThread | gp.ResolveReviewThread) -> None:
        replying = isinstance(action, gp.ReplyReviewThread)
        args = ["api", "graphql", "-f", f"query={REPLY_MUTATION if replying else RESOLVE_MUTATION}",
                "-f", f"id={action.thread_id}"]
        if isinstance(action, gp.ReplyReviewThread):
            args += ["-f", f"body={self._redact(action.body)}"]
        try:
            out = await gh.checked(*args, cwd=self.cwd)
            data = json.loads(out).get("data") or {}
            url = None
            if replying:
                url = data["addPullRequestReviewThreadReply"]["comment"]["url"]
            elif not data["resolveReviewThread"]["thread"]["isResolved"]:
                raise gh.GhFailed("GitHub did not resolve the thread")
        except (gh.GhFailed, gh.GhUnavailable) as exc:
            await self.emit(gp.ReviewThreadUpdateFailed(action.request_id, exc.message))
            return
        except (ValueError, KeyError, TypeError):
            await self.emit(gp.ReviewThreadUpdateFailed(action.request_id,
                                                        "gh api graphql: unexpected answer"))
            return
        await self.emit(gp.ReviewThreadUpdated(action.request_id, action.thread_id,
                                               not replying, url))

    async def _update(self, action: gp.UpdatePullRequest) -> None:
        number = str(action.number)
        edits: list[str] = []
        if action.title is not None:
            edits += [f"--title={self._redact(action.title)}"]
        if action.body is not None:
            edits += ["--body-file", "-"]
        if action.base is not None:
            edits += [f"--base={action.base}"]
        try:
            repo = gh.repo_args(action.repository)
            if edits:
                await gh.checked("pr", "edit", number, *edits, *repo, cwd=self.cwd,
                                 stdin=self._redact(action.body or "").encode())
            if action.draft is False:
                await gh.checked("pr", "ready", number, *repo, cwd=self.cwd)
            elif action.draft is True:
                await gh.checked("pr", "ready", number, "--undo", *repo, cwd=self.cwd)
        except (gh.GhFailed, gh.GhUnavailable) as exc:
            await self.emit(gp.PullRequestUpdateFailed(action.request_id, exc.message))
            return
        await self.emit(gp.PullRequestUpdated(action.request_id, action.number))
        self.refresh()

    async def _merge(self, action: gp.MergePullRequest) -> None:
        args = ["pr", "merge", str(action.number), f"--{action.method}"]
        if action.delete_branch:
            args.append("--delete-branch")
        try:
            # gh answers "already merged" with success: ask first.
            pull = await pulls.view(self.cwd, action.number, action.repository)
            if pull.state != "open":
                raise gh.GhFailed(f"pull request #{action.number} is {pull.state}, not open")
            await gh.checked(*args, *gh.repo_args(action.repository), cwd=self.cwd)
        except (gh.GhFailed, gh.GhUnavailable) as exc:
            await self.emit(gp.PullRequestMergeFailed(action.request_id, exc.message))
            return
        await self.emit(gp.PullRequestMerged(action.request_id, action.number, action.method))
        self.refresh()


async def _pull_request_diff(cwd: Path, number: int, repository: str | None) -> str:
    """`gh pr diff`, read as far as Guided Review reads a diff (DIFF_CAP):
    GhFailed saying it is too large past that (gh is stopped there)."""
    done = await gh.gh("pr", "diff", str(number), "--color", "never",
                       *gh.repo_args(repository), cwd=cwd, stdout_cap=DIFF_CAP)
    if done.truncated:
        raise gh.GhFailed(f"pull request #{number}'s diff is over {DIFF_CAP >> 20} MB, "
                          "too large to review")
    if done.returncode != 0:
        raise gh.GhFailed(done.error_line)
    return done.text


def _owner_repo(repository: str | None) -> tuple[str, str]:
    """gh fills `{owner}`/`{repo}` from the checkout when no repository is named."""
    if repository:
        return gh.checked_repository(repository)
    return "{owner}", "{repo}"
