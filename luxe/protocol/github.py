"""GitHub frames: the actions that read and publish through the user's own
gh, and the events that answer them (see docs/rpc.md, "GitHub", and
docs/github.md).

Reads (`refresh_workspace`, `load_pull_request`) need no flag. Every other
action here publishes, or prepares something to publish, and is refused
with `action_rejected` without `--github-writes` or under read-only
(`GITHUB_WRITE_ACTIONS`). Each action with a request_id is answered once
under it. Enumerations travel in lower case (`open`, `in_progress`,
`changes_requested`).
"""

from __future__ import annotations

from typing import ClassVar, Literal

from luxe.protocol.frame import Frame, frame

MergeMethod = Literal["merge", "squash", "rebase"]
Verdict = Literal["comment", "approve", "request_changes"]

# -- actions ----------------------------------------------------------------------


@frame
class RefreshWorkspace(Frame):
    """Answered by `workspace_updated`."""

    KIND: ClassVar[str] = "refresh_workspace"


@frame
class LoadPullRequest(Frame):
    """The pull request `number` (the branch's own when left out) and its threads."""

    KIND: ClassVar[str] = "load_pull_request"
    request_id: str
    number: int | None = None
    repository: str | None = None


@frame
class PreviewPullRequest(Frame):
    KIND: ClassVar[str] = "preview_pull_request"
    request_id: str
    base: str | None = None
    draft: bool | None = None


@frame
class OpenPullRequest(Frame):
    """Confirm the preview whose request_id this is."""

    KIND: ClassVar[str] = "open_pull_request"
    request_id: str
    title: str | None = None
    body: str | None = None
    draft: bool | None = None


@frame
class PreviewPullRequestReview(Frame):
    KIND: ClassVar[str] = "preview_pull_request_review"
    request_id: str
    review_id: str
    pull_request: int | None = None
    repository: str | None = None


@frame
class PostPullRequestReview(Frame):
    """Confirm the review preview whose request_id this is."""

    KIND: ClassVar[str] = "post_pull_request_review"
    request_id: str
    verdict: Verdict | None = None
    body: str | None = None


@frame
class PostComment(Frame):
    KIND: ClassVar[str] = "post_comment"
    request_id: str
    body: str
    pull_request: int | None = None
    repository: str | None = None


@frame
class ReplyReviewThread(Frame):
    KIND: ClassVar[str] = "reply_review_thread"
    request_id: str
    thread_id: str
    body: str


@frame
class ResolveReviewThread(Frame):
    KIND: ClassVar[str] = "resolve_review_thread"
    request_id: str
    thread_id: str


@frame
class UpdatePullRequest(Frame):
    KIND: ClassVar[str] = "update_pull_request"
    request_id: str
    number: int
    title: str | None = None
    body: str | None = None
    base: str | None = None
    draft: bool | None = None
    repository: str | None = None


@frame
class MergePullRequest(Frame):
    KIND: ClassVar[str] = "merge_pull_request"
    request_id: str
    number: int
    method: MergeMethod
    delete_branch: bool | None = None
    repository: str | None = None


@frame
class PlanRestack(Frame):
    KIND: ClassVar[str] = "plan_restack"
    request_id: str


@frame
class Restack(Frame):
    """Push the plan `plan_id` (the latest `restack_planned`)."""

    KIND: ClassVar[str] = "restack"
    request_id: str
    plan_id: str


GitHubAction = (
    RefreshWorkspace
    | LoadPullRequest
    | PreviewPullRequest
    | OpenPullRequest
    | PreviewPullRequestReview
    | PostPullRequestReview
    | PostComment
    | ReplyReviewThread
    | ResolveReviewThread
    | UpdatePullRequest
    | MergePullRequest
    | PlanRestack
    | Restack
)
GITHUB_ACTIONS = (
    RefreshWorkspace,
    LoadPullRequest,
    PreviewPullRequest,
    OpenPullRequest,
    PreviewPullRequestReview,
    PostPullRequestReview,
    PostComment,
    ReplyReviewThread,
    ResolveReviewThread,
    UpdatePullRequest,
    MergePullRequest,
    PlanRestack,
    Restack,
)
# Refused without --github-writes and under read-only: everything but reads.
GITHUB_WRITE_ACTIONS: tuple[type, ...] = tuple(
    cls for cls in GITHUB_ACTIONS if cls not in (RefreshWorkspace, LoadPullRequest)
)


def write_refusal(kind: str, *, github_writes: bool, permission_mode: str) -> str | None:
    """Why the GitHub write `kind` is refused, or None. Read-only wins over
    the flag. The session refuses with this; a client that knows `ready`'s
    github_writes and the permission mode may say it before asking."""
    if permission_mode == "read-only":
        return f"{kind}: refused in read-only mode (read-only wins over --github-writes)"
    if not github_writes:
        return (
            f"{kind}: publishing to GitHub needs --github-writes "
            "(start luxe with --github-writes to allow it)"
        )
    return None


# -- events -----------------------------------------------------------------------


@frame
class Check(Frame):
    name: str
    status: str  # queued | in_progress | completed | pending (a commit status)
    conclusion: str | None  # success | failure | neutral | cancelled | skipped | ...
    url: str | None


@frame
class PullRequestInfo(Frame):
    number: int
    url: str
    title: str
    state: str  # open | closed | merged
    draft: bool
    base: str
    head: str
    review_decision: str | None  # approved | changes_requested | review_required
    mergeable: str | None  # mergeable | conflicting | unknown
    checks: list[Check]


@frame
class WorkspaceUpdated(Frame):
    """The checkout and its branch's pull request. `github` is `ok` or why
    there is no pull-request data: gh_missing, not_authenticated,
    no_github_remote, offline, or `error: <gh's message>`."""

    KIND: ClassVar[str] = "workspace_updated"
    branch: str | None
    upstream: str | None
    ahead: int
    behind: int
    dirty: bool
    pull_request: PullRequestInfo | None
    github: str


@frame
class ThreadComment(Frame):
    id: str
    author: str
    body: str
    url: str
    created_at: str


@frame
class ReviewThread(Frame):
    id: str
    path: str
    line: int | None
    side: str  # left | right
    resolved: bool
    outdated: bool
    comments: list[ThreadComment]


@frame
class PullRequestLoaded(Frame):
    KIND: ClassVar[str] = "pull_request_loaded"
    request_id: str
    pull_request: PullRequestInfo
    threads: list[ReviewThread]


@frame
class PullRequestLoadFailed(Frame):
    KIND: ClassVar[str] = "pull_request_load_failed"
    request_id: str
    reason: str


@frame
class CommitInfo(Frame):
    sha: str
    subject: str


@frame
class PullRequestDraft(Frame):
    """One pull request a preview would open."""

    head: str
    base: str
    title: str
    body: str
    commits: list[CommitInfo]


@frame
class PullRequestPreview(Frame):
    """What open_pull_request would open. `pull_requests` lists the stack
    bottom-up (one item without a stack); title, body, base and head are the
    checked-out branch's (its title and body are what a person may change).
    `drafted_by` says whether the model or the commit messages wrote them."""

    KIND: ClassVar[str] = "pull_request_preview"
    request_id: str
    title: str
    body: str
    base: str
    head: str
    commits: list[CommitInfo]
    drafted_by: Literal["model", "commits"]
    pull_requests: list[PullRequestDraft]


@frame
class PullRequestPreviewFailed(Frame):
    KIND: ClassVar[str] = "pull_request_preview_failed"
    request_id: str
    reason: str


@frame
class OpenedPullRequest(Frame):
    head: str
    number: int
    url: str


@frame
class PullRequestOpened(Frame):
    """The checked-out branch's pull request (number, url) and every one
    opened for the stack, bottom-up."""

    KIND: ClassVar[str] = "pull_request_opened"
    request_id: str
    number: int
    url: str
    opened: list[OpenedPullRequest]


@frame
class PullRequestOpenFailed(Frame):
    KIND: ClassVar[str] = "pull_request_open_failed"
    request_id: str
    reason: str


@frame
class ReviewComment(Frame):
    path: str
    line: int
    side: str  # LEFT | RIGHT, as GitHub's review API takes it
    body: str


@frame
class PullRequestReviewPreview(Frame):
    """One GitHub review drawn from the open Guided Review at
    `session_revision`. `folded` lists comments outside the pull request's
    diff, which are in `body` instead."""

    KIND: ClassVar[str] = "pull_request_review_preview"
    request_id: str
    pull_request: int
    session_revision: int
    body: str
    verdict: Verdict
    comments: list[ReviewComment]
    folded: list[str]


@frame
class PullRequestReviewPreviewFailed(Frame):
    KIND: ClassVar[str] = "pull_request_review_preview_failed"
    request_id: str
    reason: str


@frame
class PullRequestReviewPosted(Frame):
    KIND: ClassVar[str] = "pull_request_review_posted"
    request_id: str
    url: str


@frame
class PullRequestReviewPostFailed(Frame):
    KIND: ClassVar[str] = "pull_request_review_post_failed"
    request_id: str
    reason: str


@frame
class CommentPosted(Frame):
    KIND: ClassVar[str] = "comment_posted"
    request_id: str
    url: str


@frame
class CommentPostFailed(Frame):
    KIND: ClassVar[str] = "comment_post_failed"
    request_id: str
    reason: str


@frame
class ReviewThreadUpdated(Frame):
    """A reply (url of the new comment) or a resolve (url null)."""

    KIND: ClassVar[str] = "review_thread_updated"
    request_id: str
    thread_id: str
    resolved: bool
    url: str | None


@frame
class ReviewThreadUpdateFailed(Frame):
    KIND: ClassVar[str] = "review_thread_update_failed"
    request_id: str
    reason: str


@frame
class PullRequestUpdated(Frame):
    KIND: ClassVar[str] = "pull_request_updated"
    request_id: str
    number: int


@frame
class PullRequestUpdateFailed(Frame):
    KIND: ClassVar[str] = "pull_request_update_failed"
    request_id: str
    reason: str


@frame
class PullRequestMerged(Frame):
    KIND: ClassVar[str] = "pull_request_merged"
    request_id: str
    number: int
    method: MergeMethod


@frame
class PullRequestMergeFailed(Frame):
    KIND: ClassVar[str] = "pull_request_merge_failed"
    request_id: str
    reason: str


@frame
class RestackBranch(Frame):
    name: str
    old_base: str
    new_base: str
    head_sha: str


@frame
class RestackRetarget(Frame):
    number: int
    base_before: str
    base_after: str


@frame
class RestackPlan(Frame):
    id: str
    branches: list[RestackBranch]
    pull_requests: list[RestackRetarget]


@frame
class RestackPlanned(Frame):
    """A plan, or a refusal (nothing to restack, no gh) and no plan."""

    KIND: ClassVar[str] = "restack_planned"
    request_id: str
    plan: RestackPlan | None
    refusal: str | None


@frame
class Restacked(Frame):
    """Pushed; `retarget_failed` says what could not follow (local branches,
    pull-request bases), null when everything did."""

    KIND: ClassVar[str] = "restacked"
    request_id: str
    retarget_failed: list[str] | None


@frame
class RestackFailed(Frame):
    KIND: ClassVar[str] = "restack_failed"
    request_id: str
    message: str


GitHubEvent = (
    WorkspaceUpdated
    | PullRequestLoaded
    | PullRequestLoadFailed
    | PullRequestPreview
    | PullRequestPreviewFailed
    | PullRequestOpened
    | PullRequestOpenFailed
    | PullRequestReviewPreview
    | PullRequestReviewPreviewFailed
    | PullRequestReviewPosted
    | PullRequestReviewPostFailed
    | CommentPosted
    | CommentPostFailed
    | ReviewThreadUpdated
    | ReviewThreadUpdateFailed
    | PullRequestUpdated
    | PullRequestUpdateFailed
    | PullRequestMerged
    | PullRequestMergeFailed
    | RestackPlanned
    | Restacked
    | RestackFailed
)
GITHUB_EVENTS = (
    WorkspaceUpdated,
    PullRequestLoaded,
    PullRequestLoadFailed,
    PullRequestPreview,
    PullRequestPreviewFailed,
    PullRequestOpened,
    PullRequestOpenFailed,
    PullRequestReviewPreview,
    PullRequestReviewPreviewFailed,
    PullRequestReviewPosted,
    PullRequestReviewPostFailed,
    CommentPosted,
    CommentPostFailed,
    ReviewThreadUpdated,
    ReviewThreadUpdateFailed,
    PullRequestUpdated,
    PullRequestUpdateFailed,
    PullRequestMerged,
    PullRequestMergeFailed,
    RestackPlanned,
    Restacked,
    RestackFailed,
)
