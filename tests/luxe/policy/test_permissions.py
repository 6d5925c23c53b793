"""The permission engine: modes, precedence, hard denies, `always` scoping."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from luxe.policy.facts import gather_facts
from luxe.policy.permissions import PolicyGate, RuleSet, decide
from luxe.policy.rules import RuleError, parse_rule
from luxe.policy.secrets import collect_secret_values
from luxe.policy.shell import may_mutate

SECRET = "sk-live-7f3a9c2e11"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "sub").mkdir(parents=True)
    (root / "src").mkdir()
    (root / ".env").write_text(f"API_KEY={SECRET}\nDEBUG=1\n")
    (root / ".env.production").write_text("DB_PASSWORD=correct-horse-battery\n")
    (root / ".env.example").write_text("API_KEY=put-yours-here\n")
    (root / "src" / "app.py").write_text("print('hi')\n")
    (root / "link").symlink_to(".env")
    (root / "sub" / "deep-link").symlink_to("../.env.production")
    return root


def gate(root: Path, mode: str = "ask", **rules: list[str]) -> PolicyGate:
    rs = RuleSet(
        deny=tuple(parse_rule(r, "test.json") for r in rules.get("deny", [])),
        ask=tuple(parse_rule(r, "test.json") for r in rules.get("ask", [])),
        allow=tuple(parse_rule(r, "test.json") for r in rules.get("allow", [])),
    )
    return PolicyGate(
        root=str(root),
        permission_mode=mode,
        rules=rs,
        redactor=collect_secret_values(str(root)),
        home=str(root.parent),
    )


# -- modes -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("mode", "tool", "args", "expected"),
    [
        ("ask", "read", {"path": "src/app.py"}, "allow"),
        ("ask", "grep", {"pattern": "x"}, "allow"),
        ("ask", "write", {"path": "new.txt", "content": "x"}, "ask"),
        ("ask", "edit", {"path": "src/app.py"}, "ask"),
        ("ask", "bash", {"command": "ls"}, "ask"),
        ("accept-edits", "edit", {"path": "src/app.py"}, "allow"),
        ("accept-edits", "write", {"path": "new.txt"}, "allow"),
        ("accept-edits", "write", {"path": "/etc/outside.txt"}, "ask"),
        ("accept-edits", "bash", {"command": "ls"}, "ask"),
        ("read-only", "read", {"path": "src/app.py"}, "allow"),
        ("read-only", "write", {"path": "new.txt"}, "deny"),
        ("read-only", "edit", {"path": "src/app.py"}, "deny"),
        ("read-only", "bash", {"command": "rm -rf src"}, "deny"),
        ("read-only", "bash", {"command": "echo hi > out.txt"}, "deny"),
        ("read-only", "bash", {"command": "git commit -m x"}, "deny"),
        ("read-only", "bash", {"command": "git status && git diff"}, "ask"),
        ("read-only", "github_merge_pull_request", {"number": 3}, "deny"),
        ("yolo", "bash", {"command": "rm -rf src"}, "allow"),
        ("yolo", "write", {"path": "/etc/x"}, "allow"),
        ("yolo", "read", {"path": ".env"}, "deny"),
        ("yolo", "bash", {"command": "cat .env"}, "deny"),
    ],
)
def test_modes(project: Path, mode: str, tool: str, args: dict[str, object], expected: str) -> None:
    assert gate(project, mode).check(tool, args).decision == expected


def test_plan_agent_mode_is_read_only_for_tools(project: Path) -> None:
    g = gate(project, "yolo", allow=["edit", "bash"])
    assert g.check("edit", {"path": "src/app.py"}, agent_mode="plan").decision == "deny"
    assert "plan mode" in g.check("write", {"path": "x"}, agent_mode="plan").reason
    assert g.check("bash", {"command": "touch x"}, agent_mode="plan").decision == "deny"
    assert g.check("read", {"path": "src/app.py"}, agent_mode="plan").decision == "allow"
    assert g.check("edit", {"path": "src/app.py"}).decision == "allow"


def test_read_only_refusal_is_not_lifted_by_allow_rules(project: Path) -> None:
    g = gate(project, "read-only", allow=["edit", "bash(rm *)"])
    assert g.check("edit", {"path": "src/app.py"}).decision == "deny"
    assert g.check("bash", {"command": "rm x"}).decision == "deny"


# -- precedence ----------------------------------------------------------------


def test_deny_beats_allow_and_ask(project: Path) -> None:
    g = gate(
        project,
        "yolo",
        allow=["bash(git *)"],
        ask=["bash(git push*)"],
        deny=["bash(git push --force*)"],
    )
    assert g.check("bash", {"command": "git push --force origin main"}).decision == "deny"
    assert "git push --force*" in g.check("bash", {"command": "git push --force"}).reason


def test_ask_beats_allow(project: Path) -> None:
    g = gate(project, "ask", allow=["bash(git *)"], ask=["bash(git push*)"])
    assert g.check("bash", {"command": "git push"}).decision == "ask"
    assert g.check("bash", {"command": "git log"}).decision == "allow"


def test_yolo_never_asks_even_with_ask_rules(project: Path) -> None:
    assert gate(project, "yolo", ask=["bash"]).check("bash", {"command": "ls"}).decision == "allow"


@pytest.mark.parametrize(
    ("rule", "tool", "args", "matches"),
    [
        ("bash(git status*)", "bash", {"command": "git status --short"}, True),
        ("bash(git status*)", "bash", {"command": "git stash"}, False),
        ("read(src/**)", "read", {"path": "src/app.py"}, True),
        ("read(src/**)", "read", {"path": "./src/app.py"}, True),
        ("read(src/**)", "read", {"path": "sub/../src/app.py"}, True),
        ("read(src/**)", "read", {"path": "docs/x.md"}, False),
        ("edit(**/*.lock)", "edit", {"path": "Cargo.lock"}, True),
        ("edit(**/*.lock)", "edit", {"path": "a/b/yarn.lock"}, True),
        ("edit(**/*.lock)", "edit", {"path": "a/b/yarn.lock.bak"}, False),
        ("edit(*.py)", "edit", {"path": "deep/down/x.py"}, True),
        ("Bash(npm run *)", "bash", {"command": "npm run test"}, True),
        ("*", "write", {"path": "x"}, True),
        ("read(secrets/**)", "read", {"path": "Secrets/KEY.txt"}, True),  # case folded for denies
    ],
)
def test_deny_patterns(
    project: Path, rule: str, tool: str, args: dict[str, object], matches: bool
) -> None:
    verdict = gate(project, "yolo", deny=[rule]).check(tool, args)
    assert (verdict.decision == "deny") is matches


def test_absolute_and_home_patterns(project: Path) -> None:
    g = gate(project, "yolo", deny=[f"write({project}/src/**)", "read(~/notes/*)"])
    assert g.check("write", {"path": "src/new.py"}).decision == "deny"
    assert g.check("write", {"path": "other.py"}).decision == "allow"
    notes = project.parent / "notes"
    notes.mkdir()
    assert g.check("read", {"path": str(notes / "a.txt")}).decision == "deny"


def test_bash_allow_needs_every_command_covered(project: Path) -> None:
    g = gate(project, "ask", allow=["bash(git status*)", "bash(git diff*)"])
    assert g.check("bash", {"command": "git status && git diff HEAD"}).decision == "allow"
    assert g.check("bash", {"command": "git status; rm -rf /"}).decision == "ask"
    assert g.check("bash", {"command": "git status | sh"}).decision == "ask"
    assert g.check("bash", {"command": "git status > notes.txt"}).decision == "ask"
    assert g.check("bash", {"command": "git status $(rm -rf /)"}).decision == "ask"
    assert g.check("bash", {"command": "git status `rm x`"}).decision == "ask"


def test_allow_rules_keep_case(project: Path) -> None:
    g = gate(project, "ask", allow=["edit(src/**)"])
    assert g.check("edit", {"path": "SRC/app.py"}).decision == "ask"


def test_allow_follows_symlinks_out_of_the_allowed_tree(project: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("x")
    (project / "src" / "escape").symlink_to(outside)
    g = gate(project, "ask", allow=["edit(src/**)"])
    assert g.check("edit", {"path": "src/app.py"}).decision == "allow"
    assert g.check("edit", {"path": "src/escape"}).decision == "ask"


def test_deny_matches_either_name_of_a_symlink(project: Path) -> None:
    (project / "src" / "alias.py").symlink_to("app.py")
    g = gate(project, "yolo", deny=["edit(src/app.py)"])
    assert g.check("edit", {"path": "src/alias.py"}).decision == "deny"


def test_rule_parse_errors() -> None:
    for bad in ["", "bash(", "bash()", "b a", "read([src)"]:
        with pytest.raises(RuleError):
            parse_rule(bad)


# -- hard denies ---------------------------------------------------------------

NAMES_OF_ENV = [
    ("read", {"path": ".env"}),
    ("read", {"path": "./.env"}),
    ("read", {"path": "sub/../.env"}),
    ("read", {"path": "PROJECT/.env"}),
    ("read", {"path": "link"}),
    ("read", {"path": "sub/deep-link"}),
    ("read", {"path": ".ENV"}),
    ("read", {"path": ".Env.Production"}),
    ("read", {"path": "~/proj/.env"}),
    ("write", {"path": ".env", "content": "X=1"}),
    ("edit", {"path": ".env.production", "old_string": "a", "new_string": "b"}),
    ("write", {"path": ".env.local", "content": "X=1"}),
    ("grep", {"pattern": "KEY", "path": ".env"}),
    ("grep", {"pattern": "KEY", "glob": ".env*"}),
    ("bash", {"command": "cat .env"}),
    ("bash", {"command": "source .env"}),
    ("bash", {"command": ". ./.env && echo $API_KEY"}),
    ("bash", {"command": "grep -r X .env"}),
    ("bash", {"command": "cat sub/../.env"}),
    ("bash", {"command": "cat PROJECT/.env"}),
    ("bash", {"command": "cat link"}),
    ("bash", {"command": "cat .e*"}),
    ("bash", {"command": "cat .en?"}),
    ("bash", {"command": "cat '.env'"}),
    ("bash", {"command": 'cat ".e"nv'}),
    ("bash", {"command": "python3 -c \"open('.env').read()\""}),
    ("bash", {"command": "cp .env /tmp/x"}),
    ("bash", {"command": "echo X=1 >> .env"}),
    ("bash", {"command": "git diff -- .env.production"}),
    ("bash", {"command": "git show HEAD:.env"}),
    ("bash", {"command": "docker run --env-file=.env img"}),
    ("bash", {"command": "find . -name '.env*' -exec cat {} +"}),
    ("bash", {"command": "cat ~/.ssh/id_ed25519"}),
    ("read", {"path": "/home/u/.ssh/id_rsa"}),
    ("read", {"path": "/home/u/.aws/credentials"}),
    ("read", {"path": "/home/u/.netrc"}),
    ("read", {"path": "certs/server.key"}),
]


@pytest.mark.parametrize(("tool", "args"), NAMES_OF_ENV)
@pytest.mark.parametrize("mode", ["ask", "yolo"])
def test_every_name_of_a_secret_is_refused(
    project: Path, mode: str, tool: str, args: dict[str, str]
) -> None:
    args = {k: v.replace("PROJECT", str(project)) for k, v in args.items()}
    g = gate(project, mode, allow=["read", "write", "edit", "grep", "bash", "*"])
    verdict = g.check(tool, args)
    assert verdict.decision == "deny", verdict
    assert verdict.hard
    assert "secret file" in verdict.reason
    g.allow_always(tool, args)  # an answer to a prompt can never lift it
    assert g.check(tool, args).decision == "deny"


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("read", {"path": ".env.example"}),
        ("read", {"path": ".env.sample"}),
        ("read", {"path": ".env.template"}),
        ("read", {"path": ".envrc.md"}),
        ("read", {"path": "id_rsa.pub"}),
        ("bash", {"command": "cat .env.example"}),
        ("bash", {"command": "ls -la"}),
        ("bash", {"command": "cat *.py"}),
        ("bash", {"command": "echo environment"}),
        ("bash", {"command": "source .venv/bin/activate"}),
    ],
)
def test_templates_and_lookalikes_are_not_secrets(
    project: Path, tool: str, args: dict[str, str]
) -> None:
    verdict = gate(project, "yolo").check(tool, args)
    assert verdict.decision == "allow", verdict


def test_redaction_of_secret_values(project: Path) -> None:
    g = gate(project)
    out = g.redact(f"line with {SECRET} and correct-horse-battery; DEBUG=1 stays")
    assert SECRET not in out and "correct-horse-battery" not in out
    assert "[REDACTED:API_KEY]" in out and "[REDACTED:DB_PASSWORD]" in out
    assert "DEBUG=1 stays" in out
    assert "put-yours-here" in g.redact("put-yours-here")  # templates hold no secrets


# -- always --------------------------------------------------------------------


def test_always_is_exactly_the_call_asked(project: Path) -> None:
    g = gate(project)
    g.allow_always("bash", {"command": "npm test"})
    assert g.check("bash", {"command": "npm test"}).decision == "allow"
    assert g.check("bash", {"command": "npm test; rm -rf /"}).decision == "ask"
    assert g.check("bash", {"command": "npm test --watch"}).decision == "ask"
    assert g.check("bash", {"command": "npm tes*"}).decision == "ask"
    g.allow_always("edit", {"path": "src/app.py", "old_string": "a", "new_string": "b"})
    assert (
        g.check("edit", {"path": "./src/app.py", "old_string": "c", "new_string": "d"}).decision
        == "allow"
    )
    assert g.check("edit", {"path": "src/other.py"}).decision == "ask"
    assert g.check("write", {"path": "src/app.py"}).decision == "ask"


def test_always_glob_chars_are_literal(project: Path) -> None:
    g = gate(project)
    g.allow_always("bash", {"command": "rm *.py"})
    assert g.check("bash", {"command": "rm *.py"}).decision == "allow"
    assert g.check("bash", {"command": "rm x.py"}).decision == "ask"
    assert g.check("bash", {"command": "rm -rf /"}).decision == "ask"


def test_always_does_not_lift_rule_denies(project: Path) -> None:
    g = gate(project, deny=["bash(rm *)"])
    g.allow_always("bash", {"command": "rm x"})
    assert g.check("bash", {"command": "rm x"}).decision == "deny"


# -- mutating bash -------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "mutates"),
    [
        ("ls -la", False),
        ("git status && git log --oneline | head", False),
        ("grep -rn foo src 2>/dev/null", False),
        ("cat a 2>&1 | wc -l", False),
        ("find . -name '*.py'", False),
        ("sed -n 1,5p x", False),
        ("git branch", False),
        ("rm x", True),
        ("echo hi > x", True),
        ("sed -i s/a/b/ x", True),
        ("find . -delete", True),
        ("git commit -am x", True),
        ("git branch -D main", True),
        ("cat x | tee y", True),
        ("ls $(rm x)", True),
        ("python3 -c 'print(1)'", True),
        ("sort -o out in", True),
        ("echo 'unterminated", True),
        ("LC_ALL=C ls", False),
        ("FOO=1 ls", True),  # only known-harmless variables: PAGER=cmd, LESSOPEN=... run things
        ("cd src && ls", False),
    ],
)
def test_may_mutate(command: str, mutates: bool) -> None:
    assert may_mutate(command) is mutates


# -- monotonicity (hypothesis) -------------------------------------------------

TOOLS = ["read", "write", "edit", "bash", "grep", "webfetch"]
GLOBS = [None, "src/**", "*.py", "**/*.lock", "git *", "rm *", "*", "a*", "src/app.py", "/tmp/**"]
rule_texts = st.builds(
    lambda t, g: t if g is None else f"{t}({g})",
    st.sampled_from([*TOOLS, "*"]),
    st.sampled_from(GLOBS),
)
SUBJECTS = [
    "src/app.py",
    "a.lock",
    "x/y.lock",
    "git status",
    "rm -rf src",
    "README.md",
    "/tmp/x",
    "a b",
]
RANK = {"deny": 0, "ask": 1, "allow": 2}


def _facts(tmp: str, tool: str, subject: str):  # type: ignore[no-untyped-def]
    key = "command" if tool == "bash" else ("url" if tool == "webfetch" else "path")
    return gather_facts(tool, {key: subject}, cwd=tmp, root=tmp, home="/nonexistent")


@settings(max_examples=300, deadline=None)
@given(
    deny=st.lists(rule_texts, max_size=3),
    ask=st.lists(rule_texts, max_size=3),
    allow=st.lists(rule_texts, max_size=3),
    extra=rule_texts,
    tool=st.sampled_from(TOOLS),
    subject=st.sampled_from(SUBJECTS),
    mode=st.sampled_from(["ask", "accept-edits", "read-only", "yolo"]),
    agent_mode=st.sampled_from(["build", "plan"]),
)
def test_adding_a_deny_never_allows_more(
    deny: list[str],
    ask: list[str],
    allow: list[str],
    extra: str,
    tool: str,
    subject: str,
    mode: str,
    agent_mode: str,
) -> None:
    facts = _facts("/nonexistent-root", tool, subject)
    rules = RuleSet(*(tuple(parse_rule(r) for r in rs) for rs in (deny, ask, allow)))
    before = decide(facts, rules, mode=mode, agent_mode=agent_mode)  # type: ignore[arg-type]
    more_deny = RuleSet((*rules.deny, parse_rule(extra)), rules.ask, rules.allow)
    after = decide(facts, more_deny, mode=mode, agent_mode=agent_mode)  # type: ignore[arg-type]
    assert RANK[after.decision] <= RANK[before.decision]
    # ...and no allow rule or `always` answer ever turns a deny into anything else.
    more_allow = RuleSet(rules.deny, rules.ask, (*rules.allow, parse_rule(extra)))
    lifted = decide(
        facts, more_allow, mode=mode, agent_mode=agent_mode, session_allows={facts.exact_key}
    )  # type: ignore[arg-type]
    if before.decision == "deny":
        assert lifted.decision == "deny"


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=6,
)


@settings(max_examples=150, deadline=None)
@given(
    tool=st.sampled_from([*TOOLS, "glob", "ls", "question", "unknown"]),
    args=st.dictionaries(
        st.sampled_from(["path", "command", "pattern", "glob", "paths", "content", "url"]),
        json_values,
        max_size=4,
    ),
)
def test_check_never_raises_on_odd_arguments(
    tmp_path_factory: pytest.TempPathFactory, tool: str, args: dict[str, object]
) -> None:
    root = tmp_path_factory.getbasetemp()
    g = PolicyGate(root=str(root), home=str(root))
    verdict = g.check(tool, args)
    assert verdict.decision in ("allow", "ask", "deny")
    g.allow_always(tool, args)
