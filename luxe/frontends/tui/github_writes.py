"""GitHub writes in the interface: the `/pr` subcommands that publish
(open, comment, reply, resolve, edit, ready, draft, merge, restack) and
`/review post`, their previews, and the y/n confirmations that stand
between a preview and the write.

Everything goes through the protocol's GitHub actions and events, as for
any client (docs/rpc.md, "GitHub"): a write the engine refuses (no
--github-writes, read-only) comes back as `action_rejected`, a failing gh as
the action's `*_failed` event, each drawn as one line. What Luxe prepares
(a pull request, a review) or what cannot be taken back (a merge, a
restack) is shown first and waits for `y`; nothing is dispatched before.
What the person typed in full (a comment, a reply, a new title) is sent on
Enter. The state lives in `ViewState.github` (luxe.frontends.tui.github_state);
`run` dispatches, `confirm_key` answers a confirmation, the `apply_*`
change the state for an event. No I/O here.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from luxe.frontends.tui.text import Line, clean, truncate, wrap
from luxe.protocol import github as gh
from luxe.record import state
from luxe.wording import counted

if TYPE_CHECKING:
    from luxe.frontends.tui.controller import Controller
    from luxe.frontends.tui.keys import Key
    from luxe.frontends.tui.view import ViewState

_ids = itertools.count(1)
METHODS = ("merge", "squash", "rebase")
# The `/pr` subcommands (arguments, what it does), in the order completion
# and /help list them. T is a thread's number as `/pr` lists them.
SUBCOMMANDS = {
    "open": ("[draft] [base BRANCH]", "preview a pull request for the branch; y opens it"),
    "comment": ("[#N] TEXT", "comment on the pull request"),
    "reply": ("T TEXT", "reply to thread T"),
    "resolve": ("T", "resolve thread T"),
    "edit": ("[#N] title|body|base TEXT", "change the pull request"),
    "ready": ("[#N]", "mark it ready for review"),
    "draft": ("[#N]", "turn it back into a draft"),
    "merge": ("[#N] [merge|squash|rebase] [delete-branch]", "asks, then merges"),
    "restack": ("", "plan rebasing a stack after a merge; y pushes it"),
}
BODY_LINES = 12
COMMIT_LINES = 20


@state
class Confirmation:
    """A prepared write waiting for `y` (or `n`, Esc). `action` is what `y`
    dispatches; `title` is the pull request title `e` edits (None: no title
    to edit). `heading` and `rows` are the live prompt's rows."""

    heading: Line
    rows: list[Line]
    yes: str  # what `y` does, in a word: "open", "merge", "post", "restack"
    action: gh.GitHubAction
    declined: str  # said when the person answers n: what did not happen
    doing: str  # the notice while the write runs
    title: str | None = None
    editing: bool = False
    saved_draft: str = ""  # the editor's draft while the title is edited


def usage_of(verb: str) -> str:
    return f"/pr {verb} {SUBCOMMANDS[verb][0]}".rstrip()


def request_id(kind: str) -> str:
    return f"tui-{kind}-{next(_ids)}"


def _split(text: str) -> tuple[str, str]:
    """The first word of `text` and the rest (its spacing kept), both stripped."""
    parts = text.strip().split(None, 1)
    return (parts[0] if parts else "", parts[1].strip() if len(parts) > 1 else "")


async def run(ctl: Controller, verb: str, rest: str) -> None:
    """`/pr VERB REST` for a write; a leading `#N` in REST names the pull
    request (else the branch's)."""
    s, view = ctl.state, ctl.state.github
    first, tail = _split(rest)
    number = int(first[1:]) if first[:1] == "#" and first[1:].isdigit() else None
    if number is not None:
        rest = tail

    def usage() -> None:
        s.commit_text(f"usage: {usage_of(verb)}", "warn")

    if verb == "open":
        await _open(ctl, rest.split(), usage)
    elif verb == "comment":
        if not rest:
            return usage()
        await ctl.dispatch(gh.PostComment(request_id("comment"), rest, number))
    elif verb in ("reply", "resolve"):
        which, body = _split(rest)
        thread = _thread(view.threads, which)
        if not which or (verb == "reply" and not body) or (verb == "resolve" and body):
            return usage()
        if thread is None:
            s.commit_text(f"no thread {which}: /pr lists the pull request's threads, numbered", "warn")
            return
        rid = request_id("thread")
        view.asked[rid] = f"thread {which.lstrip('#')}"
        if verb == "reply":
            await ctl.dispatch(gh.ReplyReviewThread(rid, thread.id, body))
        else:
            await ctl.dispatch(gh.ResolveReviewThread(rid, thread.id))
    elif verb in ("edit", "ready", "draft"):
        await _update(ctl, verb, number, rest, usage)
    elif verb == "merge":
        words = rest.split()
        method = next((w for w in words if w in METHODS), "merge")
        if any(w not in METHODS and w != "delete-branch" for w in words):
            return usage()
        # Reading the pull request needs no flag: say the merge's refusal
        # (the session's own words) before asking, not after.
        refusal = gh.write_refusal(gh.MergePullRequest.KIND, github_writes=s.status.github_writes,
                                   permission_mode=s.status.permission_mode)
        if refusal is not None:
            s.commit_text(f"⚠ {refusal}", "warn")
            return
        rid = request_id("merge")
        view.merges[rid] = (method, "delete-branch" in words)
        await ctl.dispatch(gh.LoadPullRequest(rid, number))
        s.notice = "reading the pull request…"
    elif verb == "restack":
        if rest:
            return usage()
        await ctl.dispatch(gh.PlanRestack(request_id("restack")))
        s.notice = "planning the restack…"


async def _open(ctl: Controller, words: list[str], usage: Callable[[], None]) -> None:
    draft, base = False, None
    while words:
        word = words.pop(0)
        if word == "draft":
            draft = True
        elif word == "base" and words:
            base = words.pop(0)
        else:
            return usage()
    await ctl.dispatch(gh.PreviewPullRequest(request_id("open"), base, draft or None))
    ctl.state.notice = "preparing the pull request (drafting its title and description)…"


async def _update(ctl: Controller, verb: str, number: int | None, rest: str,
                  usage: Callable[[], None]) -> None:
    s = ctl.state
    fields: dict[str, Any] = {}
    if verb in ("ready", "draft"):
        if rest:
            return usage()
        fields["draft"] = verb == "draft"
    else:
        field, value = _split(rest)
        if field not in ("title", "body", "base") or not value:
            return usage()
        fields[field] = value
    if number is None and s.github.pull_request is not None:
        number = s.github.pull_request.number
    if number is None:
        s.commit_text(f"no pull request for this branch: name one, {usage_of(verb).replace('[#N]', '#N')}", "warn")
        return
    await ctl.dispatch(gh.UpdatePullRequest(request_id("update"), number, **fields))


def _thread(threads: list[gh.ReviewThread], word: str) -> gh.ReviewThread | None:
    index = word.lstrip("#")
    if index.isdigit() and 0 < int(index) <= len(threads):
        return threads[int(index) - 1]
    return None


async def post_review(ctl: Controller, review_id: str, number: int | None) -> None:
    """`/review post [N]`: preview the open Guided Review as one GitHub review."""
    await ctl.dispatch(gh.PreviewPullRequestReview(request_id("review"), review_id, number))
    ctl.state.notice = "preparing the review…"


# -- the confirmation's keys -----------------------------------------------------------


async def confirm_key(ctl: Controller, key: Key) -> None:
    """A key while a confirmation waits: `y` writes, `n` / Esc / Ctrl+C
    decline, `e` edits the title (Enter keeps the new one, Esc goes back)."""
    s = ctl.state
    asked = s.github.confirm
    assert asked is not None
    if asked.editing:
        if key.name in ("KEY_ENTER", "KEY_ESCAPE", "KEY_CTRL_C"):
            title = s.editor.take().strip()
            if key.name == "KEY_ENTER" and title:
                retitle(asked, title)
            asked.editing = False
            s.editor.set(asked.saved_draft)
        else:
            await ctl.editor_key(key)
        return
    choice = (key.text or "").lower() if key.name is None else None
    if choice in ("y", "n") or key.name in ("KEY_ESCAPE", "KEY_CTRL_C"):
        await answer(ctl, choice == "y")
    elif choice == "e" and asked.title is not None:
        asked.editing = True
        asked.saved_draft = s.editor.take()
        s.editor.set(asked.title)


async def answer(ctl: Controller, yes: bool) -> None:
    """Answer the waiting confirmation: publish what it shows, or nothing."""
    s = ctl.state
    asked = s.github.confirm
    if asked is None:
        return
    s.github.confirm = None
    if not yes:
        s.commit_text(asked.declined, "dim")
        return
    action = asked.action
    if asked.title is not None and isinstance(action, gh.OpenPullRequest):
        action = gh.OpenPullRequest(action.request_id, asked.title, action.body, action.draft)
    s.notice = asked.doing
    if isinstance(action, gh.OpenPullRequest):
        # A failed open can be confirmed again and goes on where it stopped.
        s.github.sent[action.request_id] = asked
    await ctl.dispatch(action)


def retitle(asked: Confirmation, title: str) -> None:
    """The pull request's title as the person edited it (shown in the heading)."""
    asked.title = title
    asked.heading = [asked.heading[0], (clean(title), "bold"), *asked.heading[2:]]


def prompt_rows(asked: Confirmation, width: int) -> list[Line]:
    """The live prompt: the heading, its rows, and the keys (which never change)."""
    rows = [truncate(asked.heading, width), *(truncate(r, width) for r in asked.rows)]
    if asked.editing:
        rows.append([("  editing the title below: Enter keeps it, Esc goes back", "dim")])
        return rows
    keys: Line = [("  ", ""), ("y", "key"), (f" {asked.yes}   ", "")]
    if asked.title is not None:
        keys += [("e", "key"), (" edit the title   ", "")]
    keys += [("n", "key"), (" cancel (nothing is written)", "")]
    rows.append(truncate(keys, width))
    return rows


# -- events --------------------------------------------------------------------------


def _body_lines(body: str, width: int, limit: int) -> list[Line]:
    lines: list[Line] = []
    for raw in body.strip().split("\n"):
        lines.extend(wrap([(clean(raw), "")], width, [("    ", "")], [("    ", "")]) or [[("", "")]])
    if len(lines) > limit:
        lines = [*lines[:limit], [(f"    … ({len(lines) - limit} more lines)", "dim")]]
    return lines


def apply_preview(state: ViewState, e: gh.PullRequestPreview, now: float) -> None:
    state.notice = ""
    drafted = "drafted by the model" if e.drafted_by == "model" else "from the commit messages"

    def render(width: int) -> list[Line]:
        out: list[Line] = [[], [("Pull request preview ", "heading"), (f"({drafted})", "dim")]]
        stacked = e.pull_requests[:-1]
        for one in stacked:
            out.append([("  opens first: ", "dim"), (f"{clean(one.base)} ← {clean(one.head)}", "key"),
                        (": ", "dim"), (clean(one.title), "")])
        out.append([("  title  ", "dim"), (clean(e.title), "bold")])
        out.append([("  base   ", "dim"), (f"{clean(e.base)} ← {clean(e.head)}", "")])
        out.append([("  body", "dim")])
        out.extend(_body_lines(e.body or "(empty)", width, BODY_LINES))
        out.append([(f"  commits ({len(e.commits)})", "dim")])
        for commit in e.commits[:COMMIT_LINES]:
            out.append([("    ", ""), (commit.sha[:8], "key"), (" ", ""), (clean(commit.subject), "")])
        return out

    state.commits.append(render)
    count = len(e.pull_requests)
    what = (f"pushes {clean(e.head)} and opens this pull request" if count == 1
            else f"pushes each branch and opens these {count} pull requests, bottom-up")
    state.github.confirm = Confirmation(
        heading=[("◆ open pull request: ", "warn"), (clean(e.title), "bold"),
                 (f"  {clean(e.base)} ← {clean(e.head)}", "dim")],
        rows=[[(f"  {what}", "dim")]],
        yes="open", action=gh.OpenPullRequest(e.request_id), title=e.title,
        declined="not opened: nothing was pushed or published", doing="pushing and opening…",
    )


def merge_preview(state: ViewState, e: gh.PullRequestLoaded, method: str, delete: bool) -> None:
    """The pull request read for `/pr merge`: ask before merging it."""
    state.notice = ""
    pr = e.pull_request
    if pr.state != "open":
        state.commit_text(f"#{pr.number} is {pr.state}: nothing to merge", "warn")
        return
    checks = ", ".join(f"{c.name} {c.conclusion or c.status}" for c in pr.checks) or "no checks"
    how = f"with {method}" + (", then delete its branch" if delete else "")
    state.github.confirm = Confirmation(
        heading=[("◆ merge ", "warn"), (f"#{pr.number}", "key"), (" ", ""), (clean(pr.title), "bold"),
                 (f"  {clean(pr.base)} ← {clean(pr.head)}", "dim")],
        rows=[[("  ", ""), (how, "bold"), (f" · review: {pr.review_decision or '—'}"
                                            f" · mergeable: {pr.mergeable or '—'} · {clean(checks)}", "dim")]],
        yes=f"merge #{pr.number} ({method})",
        action=gh.MergePullRequest(request_id("merging"), pr.number, method, delete or None),  # type: ignore[arg-type]
        declined=f"not merged: #{pr.number} is unchanged", doing=f"merging #{pr.number}…",
    )


def apply_review_preview(state: ViewState, e: gh.PullRequestReviewPreview, now: float) -> None:
    state.notice = ""
    count = len(e.comments)
    folded = f", {len(e.folded)} folded into the body" if e.folded else ""

    def render(width: int) -> list[Line]:
        out: list[Line] = [[], [("GitHub review preview for ", "heading"), (f"#{e.pull_request}", "key")],
                           [("  verdict  ", "dim"), (e.verdict, "bold")],
                           [("  comments ", "dim"), (f"{count} on lines{folded}", "")]]
        for c in e.comments:
            out.extend(wrap([(f"{clean(c.path)}:{c.line} ", "tool"), (clean(c.body).replace("\n", " ⏎ "), "")],
                            width, [("    ", "")], [("      ", "")]))
        if e.body.strip():
            out.append([("  body", "dim")])
            out.extend(_body_lines(e.body, width, BODY_LINES))
        return out

    state.commits.append(render)
    state.github.confirm = Confirmation(
        heading=[("◆ post a review on ", "warn"), (f"#{e.pull_request}", "key"),
                 (f": {e.verdict}, {counted(count, 'comment')}{folded}", "bold")],
        rows=[[("  one GitHub review, as the preview above shows", "dim")]],
        yes="post", action=gh.PostPullRequestReview(e.request_id),
        declined="not posted: nothing was published", doing="posting the review…",
    )


def apply_restack_planned(state: ViewState, e: gh.RestackPlanned, now: float) -> None:
    state.notice = ""
    if e.plan is None:
        state.commit_text(f"restack: {e.refusal or 'nothing to restack'}", "warn")
        return
    plan = e.plan
    lines: list[Line] = [[], [("Restack plan", "heading")]]
    for branch in plan.branches:
        lines.append([("  rebase ", "dim"), (clean(branch.name), "key"),
                      (f" from {clean(branch.old_base)} onto {clean(branch.new_base)}", "")])
    for pull in plan.pull_requests:
        lines.append([("  retarget ", "dim"), (f"#{pull.number}", "key"),
                      (f" {clean(pull.base_before)} → {clean(pull.base_after)}", "")])
    state.commit_lines(lines)
    names = ", ".join(clean(b.name) for b in plan.branches)
    state.github.confirm = Confirmation(
        heading=[("◆ restack ", "warn"), (f"{counted(len(plan.branches), 'branch', 'branches')}: ", "bold"),
                 (names, "")],
        rows=[[("  rebases them, force-pushes with lease, retargets their pull requests", "dim")]],
        yes="restack", action=gh.Restack(request_id("restacking"), plan.id),
        declined="not restacked: no branch moved", doing="restacking…",
    )


def apply_done(state: ViewState, e: Any, now: float) -> None:
    """A write's success, in one line (a stack's pull requests, one each)."""
    state.notice = ""
    asked = state.github.asked.pop(e.request_id, "")
    state.github.sent.pop(e.request_id, None)
    if isinstance(e, gh.PullRequestOpened):
        lines: list[Line] = [[("opened ", "ok"), (f"#{o.number} ", "key"), (clean(o.head), "bold"), ("  ", ""),
                              (clean(o.url), "link:" + clean(o.url))] for o in e.opened]
        state.commit_lines(lines)
    elif isinstance(e, gh.CommentPosted):
        state.commit_lines([[("commented ", "ok"), (clean(e.url), "link:" + clean(e.url))]])
    elif isinstance(e, gh.ReviewThreadUpdated):
        done = "resolved" if e.resolved else "replied"
        url: Line = [("  ", ""), (clean(e.url), "link:" + clean(e.url))] if e.url else []
        state.commit_lines([[(f"{asked or 'thread'} ", "key"), (done, "ok"), *url]])
    elif isinstance(e, gh.PullRequestUpdated):
        state.commit_lines([[("updated ", "ok"), (f"#{e.number}", "key")]])
    elif isinstance(e, gh.PullRequestMerged):
        state.commit_lines([[("merged ", "ok"), (f"#{e.number}", "key"), (f" ({e.method})", "dim")]])
    elif isinstance(e, gh.PullRequestReviewPosted):
        state.commit_lines([[("posted the review ", "ok"), (clean(e.url), "link:" + clean(e.url))]])
    elif isinstance(e, gh.Restacked):
        state.commit_text("restacked: the branches are pushed", "ok")
        for failed in e.retarget_failed or []:
            state.commit_text(f"  could not follow: {failed}", "warn")


def apply_failed(state: ViewState, e: Any, now: float) -> None:
    """A write or preview that gh (or Luxe) refused: one line saying why."""
    state.notice = ""
    state.github.asked.pop(e.request_id, None)
    state.github.merges.pop(e.request_id, None)
    reason = e.message if isinstance(e, gh.RestackFailed) else e.reason
    state.commit_text(f"GitHub: {reason}", "warn")
    again = state.github.sent.pop(e.request_id, None)
    if again is not None and state.github.confirm is None:
        again.rows = [[("  opening failed (above); y tries again from where it stopped", "dim")]]
        state.github.confirm = again


HANDLERS: dict[type, Any] = {
    gh.PullRequestPreview: apply_preview,
    gh.PullRequestReviewPreview: apply_review_preview,
    gh.RestackPlanned: apply_restack_planned,
    **{kind: apply_done for kind in (gh.PullRequestOpened, gh.CommentPosted, gh.ReviewThreadUpdated,
                                      gh.PullRequestUpdated, gh.PullRequestMerged, gh.PullRequestReviewPosted,
                                      gh.Restacked)},
    **{kind: apply_failed for kind in (gh.PullRequestPreviewFailed, gh.PullRequestOpenFailed,
                                        gh.PullRequestReviewPreviewFailed, gh.PullRequestReviewPostFailed,
                                        gh.CommentPostFailed, gh.ReviewThreadUpdateFailed,
                                        gh.PullRequestUpdateFailed, gh.PullRequestMergeFailed,
                                        gh.RestackFailed)},
}
