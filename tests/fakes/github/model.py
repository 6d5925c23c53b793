"""The fake GitHub's world: repositories (bare git repositories on disk),
pull requests, issues, review threads, checks and reviews, each answering
GraphQL fields through `gql_*` methods or attributes of the GraphQL name
(see graphql_exec). Tests arrange it directly and read what gh did to it.

A pull request's head and base commits are read from its bare repository,
so what git pushed is what GitHub shows. Merging runs real git in a scratch
clone and pushes back: a squash makes one commit titled `Title (#N)`;
deleting the merged branch retargets pull requests stacked on it.
"""

from __future__ import annotations

import itertools
import subprocess
import tempfile
import threading
from pathlib import Path
from typing import Any

import attrs

from tests.fakes.github.graphql_exec import GraphQLError

VIEWER = "octo"
_ids = itertools.count(1)


def _git(cwd: Path, *args: str, check: bool = True) -> str:
    done = subprocess.run(
        ["git", "-c", "user.email=bot@ghe.test", "-c", "user.name=GitHub", *args],
        cwd=cwd, capture_output=True, text=True, check=False,
    )
    if check and done.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)}: {done.stderr.strip()}")
    return done.stdout.strip()


def page(nodes: list[Any]) -> dict[str, Any]:
    return {
        "nodes": nodes,
        "totalCount": len(nodes),
        "pageInfo": {"hasNextPage": False, "endCursor": None},
    }


@attrs.define
class User:
    login: str
    typename: str = "User"

    @property
    def id(self) -> str:
        return f"U_{self.login}"

    @property
    def name(self) -> str:
        return self.login


@attrs.define
class Comment:
    body: str
    author: User = attrs.Factory(lambda: User("reviewer"))
    id: str = attrs.Factory(lambda: f"C_{next(_ids)}")
    database_id: int = attrs.Factory(lambda: next(_ids))
    createdAt: str = "2026-11-30T10:00:00Z"
    url: str = ""
    typename: str = "IssueComment"
    authorAssociation: str = "MEMBER"
    includesCreatedEdit: bool = False
    isMinimized: bool = False
    minimizedReason: str | None = None
    reactionGroups: list[Any] = attrs.Factory(list)
    viewerDidAuthor: bool = False

    @property
    def databaseId(self) -> int:
        return self.database_id


@attrs.define
class Thread:
    path: str
    line: int
    comments: list[Comment]
    side: str = "RIGHT"
    isResolved: bool = False
    isOutdated: bool = False
    id: str = attrs.Factory(lambda: f"PRRT_{next(_ids)}")
    typename: str = "PullRequestReviewThread"

    @property
    def diffSide(self) -> str:
        return self.side

    def gql_comments(self, args: dict[str, Any]) -> dict[str, Any]:
        return page(self.comments)


@attrs.define
class Check:
    name: str
    status: str = "COMPLETED"  # QUEUED | IN_PROGRESS | COMPLETED
    conclusion: str | None = "SUCCESS"
    detailsUrl: str = ""
    typename: str = "CheckRun"
    startedAt: str = "2026-11-30T10:00:00Z"
    completedAt: str = "2026-11-30T10:01:00Z"
    checkSuite: dict[str, Any] = attrs.Factory(
        lambda: {"workflowRun": {"workflow": {"name": "CI"}}}
    )


@attrs.define
class Review:
    event: str
    body: str
    comments: list[dict[str, Any]]
    id: int = attrs.Factory(lambda: next(_ids))


@attrs.define
class Issue:
    number: int
    title: str
    body: str
    comments: list[Comment] = attrs.Factory(list)
    url: str = ""
    state: str = "OPEN"
    typename: str = "Issue"

    @property
    def id(self) -> str:
        return f"I_{self.number}"

    def gql_comments(self, args: dict[str, Any]) -> dict[str, Any]:
        return page(self.comments)


@attrs.define(eq=False)
class PullRequest:
    repo: Repo
    number: int
    title: str
    body: str
    headRefName: str
    baseRefName: str
    isDraft: bool = False
    state: str = "OPEN"
    reviewDecision: str | None = None
    mergeable: str = "MERGEABLE"
    checks: list[Check] = attrs.Factory(list)
    threads: list[Thread] = attrs.Factory(list)
    reviews: list[Review] = attrs.Factory(list)
    issue_comments: list[Comment] = attrs.Factory(list)
    merge_method: str | None = None
    typename: str = "PullRequest"
    isCrossRepository: bool = False
    maintainerCanModify: bool = True
    mergeStateStatus: str = "CLEAN"
    milestone: None = None
    merged_head: str | None = None

    @property
    def id(self) -> str:
        return f"PR_{self.repo.name}_{self.number}"

    @property
    def url(self) -> str:
        return f"https://{self.repo.host}/{self.repo.full}/pull/{self.number}"

    @property
    def headRefOid(self) -> str:
        # A merged pull request keeps its head commit after its branch goes.
        if self.merged_head is not None:
            return self.merged_head
        return self.repo.sha(self.headRefName) or "0" * 40

    @property
    def baseRefOid(self) -> str:
        return self.repo.sha(self.baseRefName) or "0" * 40

    @property
    def author(self) -> User:
        return User(VIEWER)

    @property
    def headRepositoryOwner(self) -> User:
        return User(self.repo.owner)

    @property
    def headRepository(self) -> dict[str, Any]:
        return {"id": self.repo.id, "name": self.repo.name}

    def gql_commits(self, args: dict[str, Any]) -> dict[str, Any]:
        rollup = {"contexts": page(list(self.checks))} if self.checks else None
        return page([{"commit": {"oid": self.headRefOid, "statusCheckRollup": rollup}}])

    def gql_reviewThreads(self, args: dict[str, Any]) -> dict[str, Any]:
        return page(self.threads)

    def gql_comments(self, args: dict[str, Any]) -> dict[str, Any]:
        return page(self.issue_comments)

    def gql_reviewRequests(self, args: dict[str, Any]) -> dict[str, Any]:
        return page([])

    gql_assignees = gql_labels = gql_projectCards = gql_projectItems = gql_reviewRequests

    def gql_latestReviews(self, args: dict[str, Any]) -> dict[str, Any]:
        return page([])

    def gql_reviews(self, args: dict[str, Any]) -> dict[str, Any]:
        return page([])

    def diff(self) -> str:
        merge_base = _git(self.repo.path, "merge-base", self.baseRefOid, self.headRefOid)
        return _git(self.repo.path, "diff", merge_base, self.headRefOid) + "\n"


@attrs.define(eq=False)
class Repo:
    host: str
    owner: str
    name: str
    path: Path
    default_branch: str = "main"
    pulls: dict[int, PullRequest] = attrs.Factory(dict)
    issues: dict[int, Issue] = attrs.Factory(dict)
    typename: str = "Repository"
    hasIssuesEnabled: bool = True
    hasWikiEnabled: bool = False
    description: str = ""
    viewerPermission: str = "ADMIN"
    mergeCommitAllowed: bool = True
    rebaseMergeAllowed: bool = True
    squashMergeAllowed: bool = True
    parent: None = None
    isFork: bool = False
    isPrivate: bool = False
    viewerDefaultMergeMethod: str = "MERGE"

    @property
    def full(self) -> str:
        return f"{self.owner}/{self.name}"

    @property
    def id(self) -> str:
        return f"R_{self.owner}_{self.name}"

    @property
    def nameWithOwner(self) -> str:
        return self.full

    @property
    def url(self) -> str:
        return f"https://{self.host}/{self.full}"

    @property
    def defaultBranchRef(self) -> dict[str, Any]:
        return {"name": self.default_branch, "target": {"oid": self.sha(self.default_branch)}}

    def gql_owner(self, args: dict[str, Any]) -> User:
        return User(self.owner)

    def sha(self, branch: str) -> str | None:
        out = _git(self.path, "rev-parse", "-q", "--verify", f"refs/heads/{branch}", check=False)
        return out or None

    def next_number(self) -> int:
        return max([0, *self.pulls, *self.issues]) + 1

    def gql_pullRequests(self, args: dict[str, Any]) -> dict[str, Any]:
        states = args.get("states") or ["OPEN", "CLOSED", "MERGED"]
        found = [
            p for p in sorted(self.pulls.values(), key=lambda p: -p.number)
            if p.state in states
            and args.get("headRefName") in (None, p.headRefName)
            and args.get("baseRefName") in (None, p.baseRefName)
        ]
        return page(found[: args.get("first") or 30])

    def pull(self, number: int) -> PullRequest:
        found = self.pulls.get(number)
        if found is None:
            raise GraphQLError(
                f"Could not resolve to a PullRequest with the number of {number}."
            )
        return found

    def gql_pullRequest(self, args: dict[str, Any]) -> PullRequest:
        return self.pull(int(args["number"]))

    def gql_issueOrPullRequest(self, args: dict[str, Any]) -> Any:
        number = int(args["number"])
        found = self.issues.get(number) or self.pulls.get(number)
        if found is None:
            raise GraphQLError(
                f"Could not resolve to an issue or pull request with the number of {number}."
            )
        return found

    gql_issue = gql_issueOrPullRequest


class World:
    """Every repository of the fake, keyed `owner/name`; one lock guards all
    changes (requests are served on several threads)."""

    def __init__(self, host: str, git_root: Path) -> None:
        self.host = host
        self.git_root = git_root
        self.repos: dict[str, Repo] = {}
        self.lock = threading.RLock()

    def create_repo(self, full: str, default_branch: str = "main") -> Repo:
        owner, name = full.split("/")
        path = self.git_root / owner / f"{name}.git"
        path.parent.mkdir(parents=True, exist_ok=True)
        _git(self.git_root, "init", "-q", "--bare", "-b", default_branch, str(path))
        repo = Repo(self.host, owner, name, path, default_branch)
        self.repos[full] = repo
        return repo

    def repo(self, owner: str, name: str) -> Repo:
        found = self.repos.get(f"{owner}/{name}")
        if found is None:
            raise GraphQLError(f"Could not resolve to a Repository with the name '{owner}/{name}'.")
        return found

    def find_node(self, node_id: str) -> Any:
        for repo in self.repos.values():
            for pull in repo.pulls.values():
                if pull.id == node_id:
                    return pull
                for thread in pull.threads:
                    if thread.id == node_id:
                        return thread
            for issue in repo.issues.values():
                if issue.id == node_id:
                    return issue
        raise GraphQLError(f"Could not resolve to a node with the global id of '{node_id}'")

    def open_pull(
        self, repo: Repo, *, title: str, body: str, head: str, base: str, draft: bool = False
    ) -> PullRequest:
        if repo.sha(head) is None:
            raise GraphQLError("Head sha can't be blank, Head ref must be a branch", "UNPROCESSABLE")
        if repo.sha(base) is None:
            raise GraphQLError("Base ref must be a branch", "UNPROCESSABLE")
        for existing in repo.pulls.values():
            if existing.headRefName == head and existing.state == "OPEN":
                raise GraphQLError(
                    f"A pull request already exists for {repo.owner}:{head}.", "UNPROCESSABLE"
                )
        pull = PullRequest(repo, repo.next_number(), title, body, head, base, isDraft=draft)
        repo.pulls[pull.number] = pull
        return pull

    def merge(self, pull: PullRequest, method: str, subject: str | None = None) -> None:
        """Merge with real git in a scratch clone, then push the base back."""
        repo = pull.repo
        if pull.state != "OPEN":
            raise GraphQLError("Pull request is not open", "UNPROCESSABLE")
        with tempfile.TemporaryDirectory() as scratch:
            work = Path(scratch) / "w"
            _git(Path(scratch), "clone", "-q", "-b", pull.baseRefName, str(repo.path), str(work))
            _git(work, "fetch", "-q", "origin", pull.headRefName)
            head = "FETCH_HEAD"
            if method == "SQUASH":
                _git(work, "merge", "-q", "--squash", head)
                _git(work, "commit", "-q", "--allow-empty", "-m", subject or f"{pull.title} (#{pull.number})")
            elif method == "REBASE":
                _git(work, "checkout", "-q", "-b", "rebasing", head)
                _git(work, "rebase", "-q", pull.baseRefName)
                _git(work, "checkout", "-q", pull.baseRefName)
                _git(work, "merge", "-q", "--ff-only", "rebasing")
            else:
                _git(
                    work, "merge", "-q", "--no-ff", "-m",
                    subject or f"Merge pull request #{pull.number} from {repo.owner}/{pull.headRefName}",
                    head,
                )
            _git(work, "push", "-q", "origin", f"HEAD:refs/heads/{pull.baseRefName}")
        pull.merged_head = pull.headRefOid
        pull.state = "MERGED"
        pull.merge_method = method

    def delete_branch(self, repo: Repo, branch: str) -> None:
        """Delete a branch; open pull requests based on it move to the base
        of the merged pull request that had it as head (as GitHub does)."""
        merged = [p for p in repo.pulls.values() if p.headRefName == branch and p.state == "MERGED"]
        for pull in repo.pulls.values():
            if pull.state == "OPEN" and pull.baseRefName == branch:
                if merged:
                    pull.baseRefName = merged[0].baseRefName
                else:
                    pull.state = "CLOSED"
        _git(repo.path, "update-ref", "-d", f"refs/heads/{branch}")
