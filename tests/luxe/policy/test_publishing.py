"""Bash commands that publish to GitHub or push ask first in ask and
accept-edits (even under an allow rule or an `always` answer), run in yolo
and are refused in read-only."""

from __future__ import annotations

from pathlib import Path

import pytest

from luxe.policy.permissions import PolicyGate, RuleSet
from luxe.policy.publishing import publishes
from luxe.policy.rules import parse_rule

PUBLISHING = [
    ("gh pr create --fill", "gh pr create"),
    ("gh pr merge 3 --squash", "gh pr merge"),
    ("gh pr comment 3 -b hi", "gh pr comment"),
    ("gh pr review 3 --approve", "gh pr review"),
    ("gh pr edit 3 --base main", "gh pr edit"),
    ("gh pr close 3", "gh pr close"),
    ("gh pr ready 3", "gh pr ready"),
    ("gh pr reopen 3", "gh pr reopen"),
    ("gh -R o/r pr merge 3", "gh pr merge"),
    ("gh issue create -t bug -b it", "gh issue create"),
    ("gh issue comment 4 -b hi", "gh issue comment"),
    ("gh issue close 4", "gh issue close"),
    ("gh issue edit 4 --title x", "gh issue edit"),
    ("gh release create v1.0", "gh release create"),
    ("gh release delete v1.0", "gh release delete"),
    ("gh api -X POST repos/o/r/issues", "gh api -X POST"),
    ("gh api --method DELETE repos/o/r/git/refs/heads/x", "gh api -X DELETE"),
    ("gh api repos/o/r/issues -f title=x", "gh api with fields (a POST)"),
    ("gh api graphql -F n=1", "gh api with fields (a POST)"),
    ("git push", "git push"),
    ("git push --force-with-lease origin b", "git push"),
    ("git -C ../other push origin main", "git push"),
    ("cd sub && GIT_TRACE=1 git push", "git push"),
    ("env -i /usr/bin/gh pr merge 1", "gh pr merge"),
    ("bash -c 'gh pr merge 1 --squash'", "gh pr merge"),
    ("sh -c \"cd x && git push\"", "git push"),
    ("eval git push origin main", "git push"),
    ("gh repo edit --visibility public", "gh repo edit"),
    ("gh -R o/r repo delete o/r --yes", "gh repo delete"),
    ("gh gist create --public notes.txt", "gh gist create"),
    ("gh auth token", "gh auth token"),
    ("nice -n 5 gh pr create", "gh pr create"),
    ("ionice -c 2 -n 7 git push", "git push"),
    # A wrapper's option that takes a value: its value is not the program.
    ("timeout -k 1 5s git push", "git push"),
    ("timeout --signal KILL 30 gh pr merge 1", "gh pr merge"),
    ("timeout -- 5 git push", "git push"),
    ("nice -5 git push", "git push"),
    ("stdbuf -o L gh release create v1", "gh release create"),
    ("env -u HOME -C sub git push", "git push"),
    ("sudo -u me git push", "git push"),
    ("echo 1 | xargs -n 1 gh pr close", "gh pr close"),
]
READING = [
    "gh pr view 3", "gh pr list", "gh pr checks", "gh pr diff 3", "gh issue view 4",
    "gh api repos/o/r/pulls", "gh api -X GET repos/o/r", "git status", "git log --grep push",
    "echo gh pr merge", "ls", "bash -c 'gh pr view 1'", "gh auth status", "gh label list",
    "gh search repos luxe", "gh --version",
]


@pytest.mark.parametrize(("line", "found"), PUBLISHING)
def test_publishing_commands_are_recognised(line: str, found: str) -> None:
    assert publishes(line) == found


@pytest.mark.parametrize("line", READING)
def test_reading_commands_are_not(line: str) -> None:
    assert publishes(line) is None


def _gate(root: Path, mode: str, allow: list[str]) -> PolicyGate:
    rules = RuleSet(allow=tuple(parse_rule(r, "test.json") for r in allow))
    return PolicyGate(str(root), permission_mode=mode, rules=rules, cwd=str(root), home=str(root))


@pytest.mark.parametrize(
    ("mode", "expected"),
    [("ask", "ask"), ("accept-edits", "ask"), ("yolo", "allow"), ("read-only", "deny")],
)
def test_each_mode(tmp_path: Path, mode: str, expected: str) -> None:
    # An allow rule covering gh does not lift the ask: publishing always asks.
    gate = _gate(tmp_path, mode, ["bash(gh *)", "bash(git *)"])
    for line in ("gh pr merge 3 --squash", "git push -u origin topic", "gh api -X POST x"):
        verdict = gate.check("bash", {"command": line})
        assert verdict.decision == expected, (line, verdict)
    # Reading through gh is untouched: the allow rule lets it run.
    assert gate.check("bash", {"command": "gh pr view 3"}).decision == "allow"


def test_an_always_answer_does_not_lift_the_ask(tmp_path: Path) -> None:
    gate = _gate(tmp_path, "ask", [])
    gate.allow_always("bash", {"command": "gh pr merge 3 --squash"})
    verdict = gate.check("bash", {"command": "gh pr merge 3 --squash"})
    assert verdict.decision == "ask" and "publishes (gh pr merge)" in verdict.reason
