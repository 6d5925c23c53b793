"""The fake GitHub's API: GraphQL at /api/graphql and REST under /api/v3/,
as gh calls them for an Enterprise host, answered from the `World`.

`Api.failures` injects faults: a rule matches a GraphQL operation name
(`PullRequestCreate`) or `METHOD /rest/path` prefix and answers with its
status `times` times (status 0 cuts the connection). `authenticated = False`
answers 401 to everything, as does a request without a token. Every request is recorded in `calls` as
`(operation or METHOD path, variables or JSON body)`.

`delay_s` holds every request that long before answering (a GitHub that
stalls); `held` counts the requests held now. `stop` cuts every held request
at once, unanswered, so a stall never outlives the fake: the server calls it
when it stops.
"""

from __future__ import annotations

import json
import re
import threading
from typing import Any
from urllib.parse import urlsplit

import attrs

from tests.fakes.github.graphql_exec import Executor, GraphQLError
from tests.fakes.github.model import VIEWER, Comment, PullRequest, Review, User, World
from tests.fakes.github.transport import Request, Response

JSON = {"Content-Type": "application/json; charset=utf-8"}


@attrs.define
class Failure:
    match: str
    status: int
    message: str = "injected failure"
    times: int = 1


class _Query:
    typename = "Query"

    def __init__(self, world: World) -> None:
        self.world = world

    def gql_repository(self, args: dict[str, Any]) -> Any:
        return self.world.repo(args["owner"], args["name"])

    def gql_viewer(self, args: dict[str, Any]) -> User:
        return User(VIEWER)

    def gql_node(self, args: dict[str, Any]) -> Any:
        return self.world.find_node(args["id"])

    def gql___type(self, args: dict[str, Any]) -> dict[str, Any]:
        names = [n for n in dir(PullRequest) if not n.startswith("_")]
        names = [n[4:] if n.startswith("gql_") else n for n in names]
        return {"name": args.get("name"), "fields": [{"name": n} for n in names]}


class _Mutation:
    typename = "Mutation"

    def __init__(self, world: World) -> None:
        self.world = world

    def _pull(self, node_id: str) -> PullRequest:
        found = self.world.find_node(node_id)
        if not isinstance(found, PullRequest):
            raise GraphQLError(f"{node_id} is not a pull request")
        return found

    def gql_createPullRequest(self, args: dict[str, Any]) -> dict[str, Any]:
        given = args["input"]
        repo = next(r for r in self.world.repos.values() if r.id == given["repositoryId"])
        pull = self.world.open_pull(
            repo,
            title=given.get("title") or "",
            body=given.get("body") or "",
            head=given["headRefName"].split(":")[-1],
            base=given["baseRefName"],
            draft=bool(given.get("draft")),
        )
        return {"pullRequest": pull}

    def gql_mergePullRequest(self, args: dict[str, Any]) -> dict[str, Any]:
        given = args["input"]
        pull = self._pull(given["pullRequestId"])
        self.world.merge(pull, given.get("mergeMethod") or "MERGE", given.get("commitHeadline"))
        return {"clientMutationId": None, "pullRequest": pull}

    def gql_updatePullRequest(self, args: dict[str, Any]) -> dict[str, Any]:
        given = args["input"]
        pull = self._pull(given["pullRequestId"])
        if given.get("baseRefName"):
            if pull.repo.sha(given["baseRefName"]) is None:
                raise GraphQLError("Base ref must be a branch", "UNPROCESSABLE")
            pull.baseRefName = given["baseRefName"]
        if given.get("title") is not None:
            pull.title = given["title"]
        if given.get("body") is not None:
            pull.body = given["body"]
        return {"pullRequest": pull, "__typename": "UpdatePullRequestPayload"}

    def gql_markPullRequestReadyForReview(self, args: dict[str, Any]) -> dict[str, Any]:
        pull = self._pull(args["input"]["pullRequestId"])
        pull.isDraft = False
        return {"pullRequest": pull}

    def gql_convertPullRequestToDraft(self, args: dict[str, Any]) -> dict[str, Any]:
        pull = self._pull(args["input"]["pullRequestId"])
        pull.isDraft = True
        return {"pullRequest": pull}

    def gql_addComment(self, args: dict[str, Any]) -> dict[str, Any]:
        given = args["input"]
        target = self.world.find_node(given["subjectId"])
        comment = Comment(given["body"], User(VIEWER))
        comment.url = f"{target.url}#issuecomment-{comment.database_id}"
        target.issue_comments.append(comment) if isinstance(target, PullRequest) else (
            target.comments.append(comment)
        )
        return {"commentEdge": {"node": comment}}

    def gql_addPullRequestReview(self, args: dict[str, Any]) -> dict[str, Any]:
        given = args["input"]
        pull = self._pull(given["pullRequestId"])
        review = Review(given.get("event") or "COMMENT", given.get("body") or "", [])
        pull.reviews.append(review)
        return {"pullRequestReview": {"id": f"PRR_{review.id}", "url": f"{pull.url}#r{review.id}"}}

    def gql_addPullRequestReviewThreadReply(self, args: dict[str, Any]) -> dict[str, Any]:
        given = args["input"]
        thread = self.world.find_node(given["pullRequestReviewThreadId"])
        comment = Comment(given["body"], User(VIEWER), typename="PullRequestReviewComment")
        comment.url = f"https://{self.world.host}/thread/{thread.id}#c{comment.database_id}"
        thread.comments.append(comment)
        return {"comment": comment}

    def gql_resolveReviewThread(self, args: dict[str, Any]) -> dict[str, Any]:
        thread = self.world.find_node(args["input"]["threadId"])
        thread.isResolved = True
        return {"thread": thread}


class Api:
    def __init__(self, world: World) -> None:
        self.world = world
        self.failures: list[Failure] = []
        self.authenticated = True
        self.delay_s = 0.0
        self.held = 0
        self._stopping = threading.Event()
        self._held_lock = threading.Lock()
        self.calls: list[tuple[str, Any]] = []
        self.missing_fields: set[str] = set()

    def calls_named(self, name: str) -> list[Any]:
        return [body for called, body in self.calls if called == name]

    def _failure(self, name: str) -> Failure | None:
        for rule in self.failures:
            if rule.times > 0 and name.startswith(rule.match):
                rule.times -= 1
                return rule
        return None

    def stop(self) -> None:
        """End every held request now, and hold none from here on."""
        self._stopping.set()

    def _hold(self) -> bool:
        """Hold a request `delay_s`; False if the fake stopped meanwhile."""
        with self._held_lock:
            self.held += 1
        try:
            return not self._stopping.wait(self.delay_s)
        finally:
            with self._held_lock:
                self.held -= 1

    def handle(self, request: Request) -> Response:
        if self.delay_s and not self._hold():
            return Response(0, cut=True)  # the fake is stopping: no answer comes
        route = urlsplit(request.path).path
        if not self.authenticated or not request.headers.get("authorization"):
            return _json(401, {"message": "Bad credentials"})
        if route == "/api/graphql":
            return self._graphql(request)
        if route.startswith("/api/v3"):
            return self._rest(request, route[len("/api/v3") :] or "/")
        return _json(404, {"message": "Not Found"})

    def _graphql(self, request: Request) -> Response:
        payload = json.loads(request.body or b"{}")
        executor = Executor(payload["query"], payload.get("variables"), payload.get("operationName"))
        self.calls.append((executor.name, payload.get("variables")))
        rule = self._failure(executor.name)
        if rule is not None:
            if rule.status == 0:
                return Response(0, cut=True)
            if rule.status == 200:
                return _json(200, {"data": None, "errors": [{"message": rule.message}]})
            return _json(rule.status, {"message": rule.message})
        root: Any = _Mutation(self.world) if executor.is_mutation else _Query(self.world)
        with self.world.lock:
            try:
                data = executor.run(root)
            except GraphQLError as exc:
                error = {"type": exc.kind, "message": exc.message, "path": []}
                return _json(200, {"data": None, "errors": [error]})
        self.missing_fields |= executor.missing
        return _json(200, {"data": data})

    def _rest(self, request: Request, route: str) -> Response:
        body = json.loads(request.body) if request.body.strip() else {}
        name = f"{request.method} {route}"
        self.calls.append((name, body))
        rule = self._failure(name)
        if rule is not None:
            if rule.status == 0:
                return Response(0, cut=True)
            return _json(rule.status, {"message": rule.message})
        headers = {**JSON, "X-Oauth-Scopes": "repo, read:org, workflow"}
        if route == "/":
            return Response(200, b"{}", headers)
        if route == "/user":
            return _json(200, {"login": VIEWER})
        with self.world.lock:
            try:
                return self._repo_route(request, route, body)
            except GraphQLError as exc:
                return _json(404 if exc.kind == "NOT_FOUND" else 422, {"message": exc.message})

    def _repo_route(self, request: Request, route: str, body: dict[str, Any]) -> Response:
        m = re.fullmatch(r"/repos/([^/]+)/([^/]+)(/.*)?", route)
        if m is None:
            return _json(404, {"message": "Not Found"})
        repo = self.world.repo(m.group(1), m.group(2))
        rest = m.group(3) or ""
        method = request.method
        if rest == "" and method == "GET":
            return _json(200, {"full_name": repo.full, "default_branch": repo.default_branch})
        if m2 := re.fullmatch(r"/pulls/(\d+)", rest):
            pull = repo.pull(int(m2.group(1)))
            if "diff" in request.headers.get("accept", ""):
                return Response(200, pull.diff().encode(), {"Content-Type": "text/plain"})
            return _json(200, {
                "number": pull.number, "html_url": pull.url, "state": pull.state.lower(),
                "base": {"ref": pull.baseRefName, "sha": pull.baseRefOid},
                "head": {"ref": pull.headRefName, "sha": pull.headRefOid},
            })
        if (m2 := re.fullmatch(r"/pulls/(\d+)/reviews", rest)) and method == "POST":
            pull = repo.pull(int(m2.group(1)))
            diff_lines = _diff_lines(pull.diff())
            for comment in body.get("comments") or []:
                key = (comment.get("path"), comment.get("side", "RIGHT"), comment.get("line"))
                if key not in diff_lines:
                    return _json(422, {"message": "Unprocessable Entity",
                                       "errors": ["Line could not be resolved"]})
            review = Review(body.get("event") or "COMMENT", body.get("body") or "",
                            list(body.get("comments") or []))
            pull.reviews.append(review)
            if review.event == "APPROVE":
                pull.reviewDecision = "APPROVED"
            elif review.event == "REQUEST_CHANGES":
                pull.reviewDecision = "CHANGES_REQUESTED"
            return _json(200, {"id": review.id, "html_url": f"{pull.url}#pullrequestreview-{review.id}",
                               "state": review.event})
        if (m2 := re.fullmatch(r"/pulls/(\d+)/comments/(\d+)/replies", rest)) and method == "POST":
            pull = repo.pull(int(m2.group(1)))
            for thread in pull.threads:
                if any(c.database_id == int(m2.group(2)) for c in thread.comments):
                    comment = Comment(body.get("body", ""), User(VIEWER))
                    comment.url = f"{pull.url}#discussion_r{comment.database_id}"
                    thread.comments.append(comment)
                    return _json(201, {"id": comment.database_id, "html_url": comment.url})
            return _json(404, {"message": "Not Found"})
        if (m2 := re.fullmatch(r"/issues/(\d+)/comments", rest)) and method == "POST":
            number = int(m2.group(1))
            target: Any = repo.pulls.get(number) or repo.issues.get(number)
            if target is None:
                return _json(404, {"message": "Not Found"})
            comment = Comment(body.get("body", ""), User(VIEWER))
            comment.url = f"{target.url}#issuecomment-{comment.database_id}"
            (target.issue_comments if isinstance(target, PullRequest) else target.comments).append(
                comment
            )
            return _json(201, {"id": comment.database_id, "html_url": comment.url})
        if (m2 := re.fullmatch(r"/git/refs/heads/(.+)", rest)) and method == "DELETE":
            self.world.delete_branch(repo, m2.group(1))
            return Response(204)
        return _json(404, {"message": "Not Found"})


def _diff_lines(diff: str) -> set[tuple[str, str, int]]:
    """(path, side, line) of every line a review comment may sit on."""
    lines: set[tuple[str, str, int]] = set()
    path, old, new = "", 0, 0
    for line in diff.splitlines():
        if line.startswith("+++ "):
            path = line[6:] if line.startswith("+++ b/") else line[4:]
        elif line.startswith("@@"):
            m = re.match(r"@@ -(\d+)(?:,\d+)? \+(\d+)", line)
            if m:
                old, new = int(m.group(1)), int(m.group(2))
        elif line.startswith("+") and not line.startswith("+++"):
            lines.add((path, "RIGHT", new))
            new += 1
        elif line.startswith("-") and not line.startswith("---"):
            lines.add((path, "LEFT", old))
            old += 1
        elif line.startswith(" "):
            lines.add((path, "RIGHT", new))
            lines.add((path, "LEFT", old))
            old, new = old + 1, new + 1
    return lines


def _json(status: int, payload: Any) -> Response:
    return Response(status, json.dumps(payload).encode(), dict(JSON))
