"""Read pull requests through gh: `gh pr view --json` becomes a
`PullRequestInfo`, and the review threads come from one GraphQL query
(`gh api graphql`), each answer read to gh.JSON_CAP. What is read is
GitHub's text as it is: it is shown through luxe.github.redacted. Callers
own cancellation (see luxe.github.gh)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from luxe.github import gh
from luxe.protocol import github as gp

PR_FIELDS = (
    "number,url,title,state,isDraft,baseRefName,headRefName,reviewDecision,mergeable,"
    "statusCheckRollup"
)

THREADS_QUERY = """
query($owner: String!, $repo: String!, $number: Int!) {
  repository(owner: $owner, name: $repo) {
    pullRequest(number: $number) {
      reviewThreads(first: 100) {
        nodes {
          id path line diffSide isResolved isOutdated
          comments(first: 100) {
            nodes { id databaseId author { login } body url createdAt }
          }
        }
      }
    }
  }
}
"""


def _lower(value: Any) -> str | None:
    return str(value).lower() if value else None


def check_from_gh(item: dict[str, Any]) -> gp.Check:
    if item.get("__typename") == "StatusContext":
        state = str(item.get("state") or "").lower()
        done = state not in ("pending", "expected", "")
        return gp.Check(
            name=str(item.get("context") or ""),
            status="completed" if done else "pending",
            conclusion=state if done else None,
            url=item.get("targetUrl") or None,
        )
    return gp.Check(
        name=str(item.get("name") or ""),
        status=_lower(item.get("status")) or "queued",
        conclusion=_lower(item.get("conclusion")),
        url=item.get("detailsUrl") or None,
    )


def pull_from_gh(data: dict[str, Any]) -> gp.PullRequestInfo:
    return gp.PullRequestInfo(
        number=int(data["number"]),
        url=str(data.get("url") or ""),
        title=str(data.get("title") or ""),
        state=str(data.get("state") or "").lower(),
        draft=bool(data.get("isDraft")),
        base=str(data.get("baseRefName") or ""),
        head=str(data.get("headRefName") or ""),
        review_decision=_lower(data.get("reviewDecision")),
        mergeable=_lower(data.get("mergeable")),
        checks=[check_from_gh(c) for c in data.get("statusCheckRollup") or []],
    )


def checks_pending(pull: gp.PullRequestInfo | None) -> bool:
    return pull is not None and pull.state == "open" and any(
        c.status != "completed" for c in pull.checks
    )


async def view(cwd: Path, number: int | None = None, repository: str | None = None
               ) -> gp.PullRequestInfo:
    """The pull request `number`, or the current branch's. Raises
    gh.GhFailed (e.g. "no pull requests found") or gh.GhUnavailable."""
    which = (str(number),) if number is not None else ()
    data = await gh.gh_json("pr", "view", *which, "--json", PR_FIELDS,
                            *gh.repo_args(repository), cwd=cwd)
    return pull_from_gh(data)


async def threads(cwd: Path, number: int, repository: str | None = None) -> list[gp.ReviewThread]:
    """The pull request's review threads as GitHub holds them: anyone who can
    comment writes them, and a reviewer may quote the key a pull request
    committed (the person's own, in their `.env`), so they are shown only
    through luxe.github.redacted (the GitHub layer's frames, Guided Review's
    findings)."""
    if repository:
        # -f: a raw string (-F would read a file for a value starting with @).
        owner, repo = gh.checked_repository(repository)
        names = ("-f", f"owner={owner}", "-f", f"repo={repo}")
    else:
        names = ("-F", "owner={owner}", "-F", "repo={repo}")  # gh fills in the checkout's
    data = await gh.gh_json(
        "api", "graphql", "-f", f"query={THREADS_QUERY}", *names, "-F", f"number={number}",
        cwd=cwd,
    )
    try:
        nodes = data["data"]["repository"]["pullRequest"]["reviewThreads"]["nodes"]
    except (KeyError, TypeError):
        raise gh.GhFailed("gh api graphql: unexpected answer for review threads") from None
    return threads_from_gh(nodes)


def _objects(value: Any) -> list[dict[str, Any]]:
    """The objects of a list GitHub sent; anything else in it (a null node,
    one a viewer may not see) or in its place is skipped: one bad thread
    once failed the whole review and `load_pull_request`."""
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def _object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def threads_from_gh(nodes: Any) -> list[gp.ReviewThread]:
    return [thread_from_gh(node) for node in _objects(nodes) if node.get("id")]


def thread_from_gh(node: dict[str, Any]) -> gp.ReviewThread:
    comments = [
        gp.ThreadComment(
            id=str(c.get("databaseId") or c.get("id")),
            author=str(_object(c.get("author")).get("login") or "ghost"),
            body=str(c.get("body") or ""),
            url=str(c.get("url") or ""),
            created_at=str(c.get("createdAt") or ""),
        )
        for c in _objects(_object(node.get("comments")).get("nodes"))
    ]
    line = node.get("line")
    return gp.ReviewThread(
        id=str(node["id"]),
        path=str(node.get("path") or ""),
        line=int(line) if isinstance(line, int) else None,
        side=str(node.get("diffSide") or "RIGHT").lower(),
        resolved=bool(node.get("isResolved")),
        outdated=bool(node.get("isOutdated")),
        comments=comments,
    )
