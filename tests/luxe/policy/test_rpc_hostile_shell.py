"""Issue 17, the shell and tool arguments: names bash will normalise, words
Luxe cannot resolve, tool arguments that would be options, and read-only
commands that write. Through the real `luxe --rpc`, in every permission mode."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.luxe.rpc_driver import LuxeProcess

from .e2e import call, executable, finished_frames, global_config, tool_results, write_json
from .hostile import MODES, hostile_luxe, leaked, one_turn_leaks_nothing, ripgrep_dir, run_turn

SECRET = "envsecret-Lm5Nb8Vc3X"


def _seed(repo: Path) -> None:
    (repo / ".env").write_text(f"API_KEY={SECRET}\n")


# -- 6: names normalised the way bash reads them -------------------------------------


NORMALISED = [
    "cat .e\\\nnv",  # a line continuation inside the name
    "cat .{e,x}nv",  # brace expansion
    "cat $'\\x2eenv'",  # ANSI-C quoting, hex
    "od -c .e\\\nnv",
    "cat $'\\056env'",  # ANSI-C quoting, octal
    "head -c 99 .{e,}nv",
    "X=.e; cat ${X}nv",  # a variable set on the same line
    "cat .e''n\"v\"",
]


@pytest.mark.parametrize("mode", MODES)
def test_names_are_normalised_as_bash_reads_them(
    mode: str, repo: Path, env: dict[str, str]
) -> None:
    _seed(repo)
    calls = [call("bash", command=c) for c in NORMALISED]
    done, last = one_turn_leaks_nothing(calls, mode, [SECRET], cwd=repo, env=env)
    assert [d["denied"] for d in done] == [True] * len(calls), done
    assert all("secret file" in r for r in tool_results(last))


def _answer_each(luxe: LuxeProcess, count: int) -> list[tuple[str, dict[str, Any]]]:
    """For each of `count` calls: ("asked", request) after rejecting its
    prompt, or ("finished", tool_finished) when it was decided without one."""
    out: list[tuple[str, dict[str, Any]]] = []
    while len(out) < count:
        frame = luxe.next_frame()
        if frame["kind"] == "permission_requested":
            asked = frame["content"]
            luxe.send("respond_permission", {"id": asked["id"], "reply": "reject"})
            out.append(("asked", asked))
            luxe.expect("tool_finished")
        elif frame["kind"] == "tool_finished":
            out.append(("finished", frame["content"]))
    return out


UNRESOLVED_ASK = [
    "cat $F",  # a variable from the environment
    "wc -c $(printf README.md)",  # a command substitution names the file
    "od -c `ls | head -1`",
]


@pytest.mark.parametrize("mode", MODES)
def test_a_reader_of_a_name_known_only_at_run_time_asks_in_every_mode(
    mode: str, repo: Path, env: dict[str, str]
) -> None:
    _seed(repo)
    steps: list[dict[str, Any]] = [{"tool_calls": [call("bash", command=c)]} for c in UNRESOLVED_ASK]
    with hostile_luxe([*steps, {"text": "done"}], mode, cwd=repo, env={**env, "F": ".env"}) as (
        luxe,
        server,
    ):
        luxe.send("submit_user_message", {"text": "go"})
        answers = _answer_each(luxe, len(UNRESOLVED_ASK))
        for command, (how, content) in zip(UNRESOLVED_ASK, answers, strict=True):
            if how == "asked":
                assert "cannot know" in content["reason"] or mode == "read-only", content
            else:  # read-only and plan refuse a substitution outright
                assert mode == "read-only" and content["denied"], (command, content)
        assert luxe.expect("turn_ended")["reason"] == "end_turn"
        assert not leaked(SECRET, luxe, server)
        assert luxe.close() == 0


UNRESOLVED_SECRET = [
    "cat ${X}nv",  # `*nv` could be .env
    "cat .e$(printf n)v",
    "cat ~/.ssh/id_${K}",
]


@pytest.mark.parametrize("mode", MODES)
def test_a_name_known_only_at_run_time_that_could_be_a_secret_is_refused(
    mode: str, repo: Path, env: dict[str, str]
) -> None:
    _seed(repo)
    calls = [call("bash", command=c) for c in UNRESOLVED_SECRET]
    with hostile_luxe(
        [{"tool_calls": calls}, {"text": "done"}], mode, "--auto-approve", cwd=repo,
        env={**env, "X": ".e", "K": "rsa"},
    ) as (luxe, server):  # fmt: skip
        done = finished_frames(run_turn(luxe))
        assert [d["denied"] for d in done] == [True] * len(calls), done
        assert not leaked(SECRET, luxe, server)
        assert luxe.close() == 0


# -- 7: tool arguments never reach a program as options -------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_grep_arguments_are_never_ripgrep_options(
    mode: str, repo: Path, env: dict[str, str]
) -> None:
    rg = ripgrep_dir()
    if rg is None:
        pytest.skip("ripgrep is not installed (.ci/run installs it)")
    (repo / "payload.sh").write_text("touch PWNED\n")
    (repo / "--pre=sh").write_text("x marks the spot\n")  # a repository may ship this name
    calls = [
        call("grep", pattern="x", path="--pre=sh"),
        call("grep", pattern="x", path="--pre=./payload.sh"),
        call("grep", pattern="x", path="--pre=/bin/sh"),
        call("grep", pattern="--pre=sh", path="."),
        call("grep", pattern="x", glob="--pre=sh"),
        call("grep", pattern="x", path=".", glob="--pre=./payload.sh"),
    ]
    with hostile_luxe(
        [{"tool_calls": calls}, {"text": "done"}], mode, cwd=repo, env=env, path_extra=rg
    ) as (luxe, server):
        run_turn(luxe)
        assert not (repo / "PWNED").exists()
        first = tool_results(server.bodies[-1])[0]
        assert "x marks the spot" in first  # the file named `--pre=sh` was searched
        assert luxe.close() == 0
    assert not (repo / "PWNED").exists()


@pytest.mark.parametrize("mode", MODES)
def test_review_targets_never_reach_git_as_options(
    mode: str, repo: Path, env: dict[str, str], tmp_path: Path
) -> None:
    """The Guided Review's git runs: every target field a client sends."""
    out = tmp_path / "written"
    targets = [
        {"kind": "commit", "sha": f"--output={out}"},
        {"kind": "range", "base": f"--output={out}", "head": "HEAD"},
        {"kind": "range", "base": "HEAD", "head": f"--output={out}"},
        {"kind": "branch", "base": f"--output={out}"},
        {"kind": "pull_request", "number": 1, "repository": f"--jq=.{out}"},
    ]
    with hostile_luxe([], mode, cwd=repo, env=env) as (luxe, _server):
        for index, target in enumerate(targets):
            luxe.send("load_guided_review", {"request_id": f"r{index}", "target": target})
            luxe.expect("guided_review_load_failed", where=lambda c, i=index: c["request_id"] == f"r{i}")
        assert luxe.close() == 0
    assert not out.exists()


# -- 8: read-only never writes ----------------------------------------------------------


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.email=t@example.invalid", "-c", "user.name=t", *args],
        cwd=repo, check=True, capture_output=True, text=True,
    ).stdout  # fmt: skip


WRITERS = [
    "sed -n ':a;w F1' README.md",
    "sed -n 'b;w F2' README.md",
    "sed -n 'w F3' -- --sandbox",
    "sed -n -e 't x;w F4' -e ':x' README.md",
    "printf -v x '\\x24(touch F5)'; echo ${x@P}",
    "test -v 'a[$(touch F6)]'",
    "x='a[$(touch F7)]'; echo $((x))",
    "git --namespace log stash clear",
    "git --work-tree status branch -D feature",
    "git -C . --no-pager reflog delete HEAD@{0}",
    "git reflog expire --expire=now --all",
    "git remote add evil https://example.invalid/x",
    "git stash show --output=F8",
    "git --namespace diff tag evil",
]


def _turn_in_read_only_or_plan(
    commands: list[str], mode: str, repo: Path, env: dict[str, str], path_extra: str | None = None
) -> tuple[list[bool], list[str]]:
    """One turn of bash calls, with --auto-approve, in read-only mode or in
    plan mode under `mode`: whether each call was denied (in the order the
    calls finished) and the kinds of every frame."""
    calls = [call("bash", command=c) for c in commands]
    with hostile_luxe(
        [{"tool_calls": calls}, {"text": "done"}], mode, "--auto-approve",
        cwd=repo, env=env, path_extra=path_extra,
    ) as (luxe, _server):
        if mode != "read-only":
            luxe.send("set_mode", {"mode": "plan"})
            luxe.expect("state_changed", where=lambda c: c.get("mode") == "plan")
        denied = [d["denied"] for d in finished_frames(run_turn(luxe))]
        assert luxe.close() == 0
        return denied, luxe.kinds()


@pytest.mark.parametrize("mode", MODES)
def test_read_only_and_plan_mode_refuse_every_writer(
    mode: str, repo: Path, env: dict[str, str]
) -> None:
    """In read-only mode as such, and in plan mode under each other mode:
    every command is refused (no prompt even with --auto-approve) and the
    repository is as it was."""
    (repo / "--sandbox").write_text("data\n")
    _git(repo, "branch", "feature")
    (repo / "README.md").write_text("changed\n")
    _git(repo, "stash", "-q")
    before = (_git(repo, "stash", "list"), _git(repo, "reflog"), _git(repo, "branch"),
              _git(repo, "remote"), _git(repo, "tag"))  # fmt: skip
    denied, kinds = _turn_in_read_only_or_plan(WRITERS, mode, repo, env)
    assert denied == [True] * len(WRITERS)
    assert "permission_resolved" not in kinds
    assert not [p.name for p in repo.iterdir() if p.name.startswith("F")]
    after = (_git(repo, "stash", "list"), _git(repo, "reflog"), _git(repo, "branch"),
             _git(repo, "remote"), _git(repo, "tag"))  # fmt: skip
    assert after == before


READERS = ["git --no-pager log --oneline", "sed -n '1p' README.md", "git -C . status --short"]


@pytest.mark.parametrize("mode", MODES)
def test_known_readers_still_run_in_plan_mode(mode: str, repo: Path, env: dict[str, str]) -> None:
    denied, _ = _turn_in_read_only_or_plan(READERS, mode, repo, env)
    assert denied == [False] * len(READERS)



# GNU getopt takes any unambiguous prefix of a long option, one letter too:
# `sort --o=F` is `sort --output=F`, `date --s=...` is `date --set=...`.
ONE_LETTER_PREFIXES = [
    "sort --o=F9 README.md",
    "sort -u --o F10 README.md",
    "date --s=@0",
    "date --s @0",
    "git cat-file --t HEAD:README.md",
]


@pytest.mark.parametrize("mode", MODES)
def test_a_one_letter_prefix_of_a_writing_option_is_refused(
    mode: str, repo: Path, env: dict[str, str], tmp_path: Path
) -> None:
    """Read-only and plan mode refuse them like the whole option; `date` is
    a stand-in on PATH that says whether it ran (the clock is left alone)."""
    bin_dir = tmp_path / "bin"
    ran = tmp_path / "date-ran"
    executable(bin_dir / "date", f"#!/bin/sh\necho \"$@\" >> {ran}\n")
    denied, _ = _turn_in_read_only_or_plan(ONE_LETTER_PREFIXES, mode, repo, env, str(bin_dir))
    assert denied == [True] * len(ONE_LETTER_PREFIXES)
    assert not [p.name for p in repo.iterdir() if p.name.startswith("F")]
    assert not ran.exists()


# A redirection that belongs to no simple command: on its own, or after a
# group, a subshell or a separator. Bash opens (creates, truncates) the file.
BARE_REDIRECTIONS = [
    "> F11",
    "{ cat README.md; } > F12",
    "(cat README.md) >F13",
    "cat README.md && >>F14",
    "cat README.md | { cat; } >F15",
    "> README.md",
]


@pytest.mark.parametrize("mode", MODES)
def test_a_redirection_outside_a_simple_command_is_a_write(
    mode: str, repo: Path, env: dict[str, str]
) -> None:
    """Read-only and plan mode refuse each (they ran: F11..F15 were created
    and README.md emptied, even in read-only mode)."""
    readme = (repo / "README.md").read_text()
    denied, _ = _turn_in_read_only_or_plan(BARE_REDIRECTIONS, mode, repo, env)
    assert denied == [True] * len(BARE_REDIRECTIONS)
    assert not [p.name for p in repo.iterdir() if p.name.startswith("F")]
    assert (repo / "README.md").read_text() == readme


@pytest.mark.parametrize("command", ["git status; > F16", "git status && { git status; } > F17"])
def test_an_allow_rule_never_covers_a_redirection_outside_its_command(
    command: str, repo: Path, env: dict[str, str]
) -> None:
    """With `bash(git status*)` allowed, the line still asks (it ran
    unasked: the redirection belonged to no command the rule had to cover)."""
    write_json(global_config(env) / "permissions.json", {"allow": ["bash(git status*)"]})
    with hostile_luxe(
        [{"tool_calls": [call("bash", command=command)]}, {"text": "done"}], "ask",
        cwd=repo, env=env,
    ) as (luxe, _server):
        luxe.send("submit_user_message", {"text": "go"})
        asked = luxe.expect("permission_requested")
        luxe.send("respond_permission", {"id": asked["id"], "reply": "reject"})
        luxe.expect("turn_ended")
        assert luxe.close() == 0
    assert not [p.name for p in repo.iterdir() if p.name.startswith("F")]


# gh commands that change GitHub, besides the pull request, issue, release
# and api writes: each ran unasked under an allow rule for `bash(gh *)`.
GH_WRITES = [
    "gh repo edit --visibility public --accept-visibility-change-consequences",
    "gh repo delete me/repo --yes",
    "gh gist create --public notes.txt",
    "gh secret set DEPLOY_KEY --body x",
    "gh workflow run deploy.yml",
    "gh auth token",
    "nice gh pr create --fill",
    "setsid gh pr merge 1",
]


def test_every_gh_write_asks_under_an_allow_rule(
    repo: Path, env: dict[str, str], tmp_path: Path
) -> None:
    """With `bash(gh *)` allowed, each asks (the reply here is reject); a
    stand-in gh on PATH says whether any ran. `gh pr view` still runs."""
    bin_dir = tmp_path / "bin"
    ran = tmp_path / "gh-ran"
    executable(bin_dir / "gh", f"#!/bin/sh\necho \"$@\" >> {ran}\n")
    (repo / "notes.txt").write_text("notes\n")
    write_json(global_config(env) / "permissions.json", {"allow": ["bash(gh *)", "bash(nice *)",
                                                                   "bash(setsid *)"]})  # fmt: skip
    calls = [call("bash", command=c) for c in [*GH_WRITES, "gh pr view 1"]]
    with hostile_luxe(
        [{"tool_calls": calls}, {"text": "done"}], "ask", cwd=repo, env=env,
        path_extra=str(bin_dir),
    ) as (luxe, _server):
        luxe.send("submit_user_message", {"text": "go"})
        asked = []
        while (frame := luxe.next_frame())["kind"] != "turn_ended":
            if frame["kind"] == "permission_requested":
                asked.append(frame["content"]["args"]["command"])
                luxe.send("respond_permission", {"id": frame["content"]["id"], "reply": "reject"})
        assert sorted(asked) == sorted(GH_WRITES)
        assert luxe.close() == 0
    # Luxe's own `gh auth token` (its tokens are redaction values) aside.
    assert [line for line in ran.read_text().splitlines() if line != "auth token"] == ["pr view 1"]


# `${x:-word}` (and `${x:+word}`) may be its literal word: those ran as if the
# word could not be there (they asked, with --auto-approve they ran, and the
# value reached the model reversed or as `od -c`); a variable assigned on
# the line is split into words as bash splits it.
DEFAULT_WORD_NAMES = [
    "cat ${x:-.env} | rev",
    "x=1; od -c ${x:+.env}",
    "head -c 99 ${HOME:+.env} | rev",
]
DEFAULT_WORD_WRITERS = [
    "sort ${x:--oF18} README.md",
    "x=1; sort ${x:+-oF19} README.md",
    "git log -1 ${x:---output=F20}",
    'x="-exec touch F21 ;"; find . -maxdepth 0 $x',
]


@pytest.mark.parametrize("mode", MODES)
def test_a_default_word_is_read_as_the_value_it_may_be(
    mode: str, repo: Path, env: dict[str, str]
) -> None:
    _seed(repo)
    calls = [call("bash", command=c) for c in DEFAULT_WORD_NAMES]
    done, last = one_turn_leaks_nothing(calls, mode, [SECRET, SECRET[::-1]], cwd=repo, env=env)
    assert [d["denied"] for d in done] == [True] * len(calls), done
    assert all("secret file" in r for r in tool_results(last))


@pytest.mark.parametrize("mode", MODES)
def test_a_default_word_or_a_split_variable_is_read_as_options(
    mode: str, repo: Path, env: dict[str, str]
) -> None:
    """Read-only and plan mode refuse each (they wrote F18..F21)."""
    denied, _ = _turn_in_read_only_or_plan(DEFAULT_WORD_WRITERS, mode, repo, env)
    assert denied == [True] * len(DEFAULT_WORD_WRITERS)
    assert not [p.name for p in repo.iterdir() if p.name.startswith("F")]


# A glob that expands to what a reader's check never saw: a repository can
# hold files named like options, and `uniq` writes its second operand.
GLOB_WRITERS = ["sort ?o*", "uniq *.txt", "git log -1 *"]


@pytest.mark.parametrize("mode", MODES)
def test_a_glob_is_never_trusted_by_a_reader_judged_by_its_arguments(
    mode: str, repo: Path, env: dict[str, str]
) -> None:
    """Read-only and plan mode refuse each: `sort ?o*` met `-oPWN1` and wrote
    PWN1, `uniq *.txt` overwrote b.txt with a.txt, `git log -1 *` met
    `--output=PWN2`. Quoted globs (`find . -name '*.py'`) still run."""
    for name, text in (("-oPWN1", ""), ("--output=PWN2", ""), ("a.txt", "a\n"), ("b.txt", "b\n")):
        (repo / name).write_text(text)
    denied, _ = _turn_in_read_only_or_plan([*GLOB_WRITERS, "find . -name '*.txt'"], mode, repo, env)
    assert sorted(denied) == [False] + [True] * len(GLOB_WRITERS)
    assert not (repo / "PWN1").exists() and not (repo / "PWN2").exists()
    assert (repo / "b.txt").read_text() == "b\n"
