"""GitHub in the interface: the dock's pull request and checks (from
`workspace_updated`), `/pr [N]` (a pull request and its review threads,
numbered for `/pr reply` and `/pr resolve`; `load_pull_request`),
and `/github` (`refresh_workspace`). The `/pr` subcommands that publish
are luxe.frontends.tui.github_writes; the state, github_state.

Everything goes through the protocol's GitHub actions and events, as for
any client (docs/rpc.md). No I/O here.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any

from luxe.frontends.tui import github_writes
from luxe.frontends.tui.text import Line, clean
from luxe.protocol import github as gh

if TYPE_CHECKING:
    from luxe.frontends.tui.controller import Controller
    from luxe.frontends.tui.view import ViewState

_ids = itertools.count(1)


def dock(pr: gh.PullRequestInfo | None) -> str:
    """The status line's part for the branch's pull request and its checks."""
    if pr is None:
        return ""
    checks = pr.checks
    failed = sum(c.conclusion in ("failure", "cancelled", "timed_out") for c in checks)
    running = sum(c.status != "completed" for c in checks)
    passed = len(checks) - failed - running
    state = "draft" if pr.draft else pr.state
    marks = "".join(
        part for part in (f" ✓{passed}" if passed else "", f" ✗{failed}" if failed else "",
                          f" …{running}" if running else "")
    )
    return f"PR #{pr.number} {state}{marks}"


async def run(ctl: Controller, name: str, arg: str) -> None:
    """`/pr [N]`, `/pr SUBCOMMAND ...` and `/github`."""
    verb, _, rest = arg.partition(" ")
    if name == "/pr" and verb in github_writes.SUBCOMMANDS:
        await github_writes.run(ctl, verb, rest)
    elif name == "/pr":
        number = arg.lstrip("#")
        if number and not number.isdigit():
            ctl.state.commit_text(f"unknown /pr {clean(verb)}: /pr [N], or one of {', '.join(github_writes.SUBCOMMANDS)}", "warn")
            return
        await ctl.dispatch(gh.LoadPullRequest(f"tui-pr-{next(_ids)}", int(number) if number else None))
        ctl.state.notice = "loading the pull request…"
    else:
        await ctl.dispatch(gh.RefreshWorkspace())
        ctl.state.github_wanted = True


def apply_workspace(state: ViewState, e: gh.WorkspaceUpdated, now: float) -> None:
    state.status.pull_request = dock(e.pull_request)
    state.github.pull_request = e.pull_request
    if e.branch:
        state.status.branch = e.branch
    if not state.github_wanted:
        return
    state.github_wanted = False
    sync = f"{e.ahead} ahead, {e.behind} behind" + (", uncommitted changes" if e.dirty else "")
    lines: list[Line] = [[("branch ", "dim"), (clean(e.branch or "(detached)"), "bold"),
                          (f" → {clean(e.upstream)}" if e.upstream else " (no upstream)", "dim"),
                          (f" · {sync}", "dim")]]
    if e.github != "ok":
        lines.append([("GitHub: ", "dim"), (clean(e.github), "warn")])
    elif e.pull_request is None:
        lines.append([("no pull request for this branch", "dim")])
    else:
        lines.extend(_pull_request(e.pull_request))
    state.commit_lines(lines)


def _pull_request(pr: gh.PullRequestInfo) -> list[Line]:
    out: list[Line] = [[(f"PR #{pr.number} ", "key"), (clean(pr.title), "bold"),
                        (f"  {pr.state}{' draft' if pr.draft else ''} · {pr.base} ← {pr.head}", "dim")],
                       [("  ", ""), (clean(pr.url), "link:" + clean(pr.url))]]
    if pr.review_decision or pr.mergeable:
        out.append([(f"  review: {pr.review_decision or '—'} · mergeable: {pr.mergeable or '—'}", "dim")])
    for check in pr.checks:
        if check.status != "completed":
            mark, role = "…", "dim"
        elif check.conclusion in ("success", "neutral", "skipped"):
            mark, role = "✓", "ok"
        else:
            mark, role = "✗", "err"
        out.append([(f"  {mark} ", role), (clean(check.name), ""), (f" {check.conclusion or check.status}", "dim")])
    return out


def apply_loaded(state: ViewState, e: gh.PullRequestLoaded, now: float) -> None:
    merge = state.github.merges.pop(e.request_id, None)
    if merge is not None:
        github_writes.merge_preview(state, e, *merge)
        return
    state.notice = ""
    state.github.threads = list(e.threads)
    lines = _pull_request(e.pull_request)
    for number, thread in enumerate(e.threads, 1):
        where = f"{thread.path}:{thread.line}" if thread.line else thread.path
        status = "resolved" if thread.resolved else "outdated" if thread.outdated else "open"
        lines.append([(f"  thread {number} ", "key"), (clean(where), "tool"), (f" ({status})", "dim")])
        for comment in thread.comments:
            lines.append([("    ", ""), (f"{clean(comment.author)}: ", "dim"), (clean(comment.body)[:500], "")])
    state.commit_lines(lines)


def apply_failed(state: ViewState, e: gh.PullRequestLoadFailed, now: float) -> None:
    state.notice = ""
    state.github.merges.pop(e.request_id, None)
    state.commit_text(f"GitHub: {e.reason}", "warn")


HANDLERS: dict[type, Any] = {
    gh.WorkspaceUpdated: apply_workspace,
    gh.PullRequestLoaded: apply_loaded,
    gh.PullRequestLoadFailed: apply_failed,
    **github_writes.HANDLERS,
}
