"""Guided Review in the interface: `/review` loads a review and reads it
chapter by chapter in scrollback; questions, comments and fixes go on its
threads, and the agent's answers and fixes come back as thread lines.

Everything goes through the protocol's Guided Review actions
(`load_guided_review`, `edit_review`, `commit_review_chapters`) and events,
as for any client (docs/review.md). `ReviewView` is the state; `apply_*`
change it for an event; `run` handles `/review ...`. No I/O here.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import attrs

from luxe.frontends.tui.text import Line, clean, hard_wrap
from luxe.record import state
from luxe.wording import counted

if TYPE_CHECKING:
    from luxe.frontends.tui.controller import Controller
    from luxe.frontends.tui.view import ViewState

    # Review's frames (luxe.protocol.review) load with the first review, not
    # before the interface's first frame.
    from luxe.protocol import review as rv

USAGE = (
    "/review [working|staged|branch [BASE]|commit SHA|pr N]  load; then /review next|prev|N "
    "(chapters), ask TEXT, comment TEXT, reply #N TEXT, fix #N [TEXT], resolve #N, threads, "
    "approve, changes TEXT, commit, post [N]"
)
# `/review` subcommands (arguments, what it does), for completion and /help.
SUBCOMMANDS = {
    "working": ("", "review the working tree's changes (the default)"),
    "staged": ("", "review the staged changes"),
    "branch": ("[BASE]", "review the branch against BASE"),
    "commit": ("[SHA]", "review a commit; alone, with a review open: commit it chapter by chapter"),
    "range": ("A B", "review the commits from A to B"),
    "pr": ("N", "review pull request N"),
    "next": ("", "the next chapter (prev, or a number, for others)"),
    "prev": ("", "the previous chapter"),
    "ask": ("TEXT", "ask the agent about the chapter"),
    "comment": ("TEXT", "a comment, not sent"),
    "reply": ("#N TEXT", "reply on finding N, sent to the agent"),
    "fix": ("#N [TEXT]", "ask the agent to fix finding N"),
    "resolve": ("#N", "resolve finding N (reopen, delete likewise)"),
    "threads": ("", "every finding with its thread, and the verdict"),
    "approve": ("[TEXT]", "the verdict: approve"),
    "changes": ("TEXT", "the verdict: request changes"),
    "post": ("[N]", "preview the review as one GitHub review; y posts it"),
}
_ids = itertools.count(1)


@state
class ReviewView:
    review: dict[str, Any] | None = None
    session: dict[str, Any] | None = None
    chapter: int = 0
    shown: dict[str, int] = attrs.Factory(dict)  # finding id -> thread entries already printed
    fix_states: dict[str, str] = attrs.Factory(dict)
    verdict_shown: str | None = None  # the verdict last printed ("decision body")


def _request() -> str:
    return f"tui-{next(_ids)}"


def target_for(words: list[str]) -> dict[str, Any] | None:
    if not words or words[0] in ("working", "working_tree"):
        return {"kind": "working_tree"}
    kind, rest = words[0], words[1:]
    if kind == "staged":
        return {"kind": "staged"}
    if kind == "branch":
        return {"kind": "branch", **({"base": rest[0]} if rest else {})}
    if kind == "commit" and rest:
        return {"kind": "commit", "sha": rest[0]}
    if kind == "range" and len(rest) == 2:
        return {"kind": "range", "base": rest[0], "head": rest[1]}
    if kind == "pr" and rest and rest[0].isdigit():
        return {"kind": "pull_request", "number": int(rest[0])}
    return None


def chapter_commit(view: ReviewView) -> Callable[[int], list[Line]]:
    """A commit of the current chapter as it is now (later moves don't change it)."""
    review, index = view.review or {}, view.chapter
    return lambda width: chapter_lines(review, index, width)


def chapter_lines(review: dict[str, Any], index: int, width: int) -> list[Line]:
    """Chapter `index`: its title and summary, then its hunks' lines."""
    chapters = review.get("chapters", [])
    if not chapters:
        return [[(clean(review.get("note") or "nothing to review"), "dim")]]
    chapter = chapters[index]
    files = {f["id"]: f for f in review.get("files", [])}
    hunks = {h["id"]: h for h in review.get("hunks", [])}
    out: list[Line] = [[], [(f"Chapter {index + 1}/{len(chapters)}: ", "dim"),
                            (clean(chapter.get("title", "")), "heading")]]
    if chapter.get("summary"):
        out.append([(clean(chapter["summary"]), "dim")])
    last_file = None
    for hunk_id in chapter.get("hunk_ids", []):
        hunk = hunks.get(hunk_id)
        if hunk is None:
            continue
        if hunk["file_id"] != last_file:
            last_file = hunk["file_id"]
            path = files.get(last_file, {}).get("path", "?")
            out.append([("── ", "dim"), (clean(path), "tool")])
        out.append([(clean(hunk.get("header", "")), "hunk")])
        for line in hunk.get("lines", [])[:200]:
            kind = line.get("kind")
            mark, role = {"add": ("+", "add"), "delete": ("-", "del")}.get(kind, (" ", "dim"))
            number = line.get("new_line") or line.get("old_line") or ""
            out.extend(hard_wrap([(f"{number:>5} ", "dim"), (mark + clean(line.get("text", "")), role)], width))
    out.append([("/review next · ask TEXT · comment TEXT · fix #N · threads", "dim")])
    return out


def _anchor(view: ReviewView) -> dict[str, Any]:
    """Where a comment made while reading goes: the current chapter's first file."""
    review = view.review or {}
    chapters = review.get("chapters", [])
    hunks = {h["id"]: h for h in review.get("hunks", [])}
    if chapters:
        for hunk_id in chapters[view.chapter].get("hunk_ids", []):
            if hunk_id in hunks:
                return {"kind": "file", "file_id": hunks[hunk_id]["file_id"]}
    return {"kind": "review"}


def _finding(view: ReviewView, ref: str) -> str | None:
    findings = (view.session or {}).get("findings", [])
    number = ref.lstrip("#")
    if number.isdigit() and 0 < int(number) <= len(findings):
        return str(findings[int(number) - 1]["id"])
    return None


async def run(ctl: Controller, arg: str) -> None:
    """`/review ...`."""
    from luxe.protocol import review as rv

    s, view = ctl.state, ctl.state.review
    words = arg.split()
    verb = words[0] if words else ""
    if view.review is None or verb in ("working", "working_tree", "staged", "branch", "commit", "range", "pr", "load"):
        target = target_for(words[1:] if verb == "load" else words)
        if target is None:
            s.commit_text(f"usage: {USAGE}", "warn")
            return
        await ctl.dispatch(rv.LoadGuidedReview(_request(), target))
        s.notice = "loading the review…"
        return
    review_id = str(view.review["id"])
    chapters = view.review.get("chapters", [])
    text = arg.partition(" ")[2].strip()

    async def edit(kind: str, **fields: Any) -> None:
        await ctl.dispatch(rv.EditReview(_request(), review_id, kind, **fields))  # type: ignore[arg-type]

    if verb in ("next", "prev") or verb.isdigit():
        if verb == "next":
            view.chapter = min(view.chapter + 1, max(len(chapters) - 1, 0))
        elif verb == "prev":
            view.chapter = max(view.chapter - 1, 0)
        elif chapters:
            view.chapter = min(max(int(verb) - 1, 0), len(chapters) - 1)
        s.commits.append(chapter_commit(view))
        show_chapter(ctl)
    elif verb in ("ask", "comment") and text:
        severity = "question" if verb == "ask" else "suggestion"
        await edit("comment", anchor=_anchor(view), body=text, severity=severity, send=verb == "ask")
    elif verb in ("reply", "fix", "resolve", "reopen", "delete") and len(words) >= 2:
        finding = _finding(view, words[1])
        if finding is None:
            s.commit_text(f"no finding {words[1]}: /review threads lists them", "warn")
            return
        body = " ".join(words[2:]) or None
        if verb == "reply":
            await edit("reply", finding_id=finding, body=body, send=True)
        elif verb == "fix":
            await edit("fix", finding_id=finding, body=body, send=True)
        else:
            await edit(verb, finding_id=finding)
    elif verb == "threads":
        s.commit_lines(thread_lines(view, everything=True))
    elif verb == "approve":
        await edit("verdict", verdict="approve", body=text or None)
    elif verb == "changes" and text:
        await edit("verdict", verdict="request_changes", body=text)
    elif verb == "commit":
        await ctl.dispatch(rv.CommitReviewChapters(_request(), review_id))
    elif verb == "post" and (len(words) == 1 or (len(words) == 2 and words[1].lstrip("#").isdigit())):
        from luxe.frontends.tui import github_writes

        number = int(words[1].lstrip("#")) if len(words) == 2 else None
        await github_writes.post_review(ctl, review_id, number)
    else:
        s.commit_text(f"usage: {USAGE}", "warn")


def chapter_focus(view: ReviewView) -> tuple[str, tuple[int, int] | None] | None:
    """The current chapter's first hunk as (file path, its new-side lines;
    None for a deletion), for a pane beside the interface. A secret file's
    hunk is never one: the engine knows it by name, link or hard link."""
    from luxe.protocol.review import SECRET_HUNK_HEADER

    review = view.review or {}
    chapters = review.get("chapters", [])
    if not chapters:
        return None
    hunk_ids = chapters[min(view.chapter, len(chapters) - 1)].get("hunk_ids", [])
    hunks = {h["id"]: h for h in review.get("hunks", [])}
    files = {f["id"]: f for f in review.get("files", [])}
    for hunk_id in hunk_ids:
        hunk = hunks.get(hunk_id)
        file = files.get(hunk["file_id"]) if hunk else None
        if hunk is None or file is None or file.get("status") == "deleted":
            continue
        if hunk.get("header") == SECRET_HUNK_HEADER:
            continue
        start, count = int(hunk.get("new_start", 1)), int(hunk.get("new_lines", 0))
        lines = (max(start, 1), max(start + count - 1, start, 1)) if count else None
        return str(file["path"]), lines
    return None


def show_chapter(ctl: Controller) -> None:
    """Follow the person's chapter in a Laura pane (diff view, the hunk lit)."""
    focus = chapter_focus(ctl.state.review)
    if focus is not None:
        path, lines = focus
        ctl.screen.show_beside(str(ctl.cwd / path), lines, True)


def thread_lines(view: ReviewView, everything: bool = False) -> list[Line]:
    """Thread entries not printed yet (or all of them), and fix states."""
    out: list[Line] = []
    for number, finding in enumerate((view.session or {}).get("findings", []), 1):
        fid = str(finding["id"])
        thread = finding.get("thread", [])
        start = 0 if everything else view.shown.get(fid, 0)
        if everything:
            status = finding.get("status", "open") + (", outdated" if finding.get("outdated") else "")
            out.append([(f"#{number} ", "key"), (f"{finding.get('severity', '')} · {status}", "dim")])
        for entry in thread[start:]:
            role = {"agent": "", "system": "warn"}.get(entry.get("author"), "user")
            out.append([(f"#{number} ", "key"), (f"{entry.get('author')}: ", "dim"), (clean(entry.get("body", "")), role)])
        view.shown[fid] = len(thread)
        fix = (finding.get("fix") or {}).get("state")
        if fix and view.fix_states.get(fid) != fix:
            view.fix_states[fid] = fix
            out.append([(f"#{number} ", "key"), (f"fix {fix}", "ok" if fix == "done" else "warn" if fix == "failed" else "dim")])
    verdict = (view.session or {}).get("verdict")
    said = f"{verdict.get('decision')} {verdict.get('body') or ''}" if verdict else None
    if verdict and (everything or said != view.verdict_shown):
        out.append([("verdict: ", "dim"), (str(verdict.get("decision")), "bold"), (f" {clean(verdict.get('body') or '')}", "")])
    view.verdict_shown = said
    return out


def apply_loaded(state: ViewState, e: rv.GuidedReviewLoaded, now: float) -> None:
    view = state.review
    view.review, view.chapter, view.shown, view.fix_states = e.review, 0, {}, {}
    view.verdict_shown = None
    state.notice = ""
    review = e.review
    if review.get("empty"):
        state.commit_text(clean(review.get("note") or "nothing to review"), "dim")
        return
    lines: list[Line] = [[], [("Guided Review: ", "heading"),
                              (f"{counted(len(review.get('files', [])), 'file')}, {counted(len(review.get('chapters', [])), 'chapter')}", "")]]
    for i, chapter in enumerate(review.get("chapters", []), 1):
        lines.append([(f"  {i}. ", "key"), (clean(chapter.get("title", "")), "")])
    state.commit_lines(lines)
    state.commits.append(chapter_commit(view))


def apply_session(state: ViewState, e: rv.ReviewSessionRestored | rv.ReviewSessionSaved, now: float) -> None:
    from luxe.protocol import review as rv

    state.review.session = e.session
    lines = thread_lines(state.review, everything=isinstance(e, rv.ReviewSessionRestored) and bool(e.session.get("findings")))
    if lines:
        state.commit_lines(lines)


def apply_failed(state: ViewState, e: Any, now: float) -> None:
    state.notice = ""
    state.commit_text(f"review: {e.reason}", "warn")


def apply_committed(state: ViewState, e: rv.ReviewChaptersCommitted, now: float) -> None:
    state.commit_lines([[("committed ", "ok"), (c.sha[:10], "key"), (f" {clean(c.message.splitlines()[0] if c.message else '')}", "")]
                        for c in e.commits])


def handlers() -> dict[type, Any]:
    """Review's events -> what each does to the view (loads their classes)."""
    from luxe.protocol import review as rv

    return {
        rv.GuidedReviewLoaded: apply_loaded,
        rv.ReviewSessionRestored: apply_session,
        rv.ReviewSessionSaved: apply_session,
        rv.GuidedReviewLoadFailed: apply_failed,
        rv.ReviewSessionSaveFailed: apply_failed,
        rv.ReviewChaptersCommitted: apply_committed,
        rv.ReviewChaptersCommitFailed: apply_failed,
    }
