"""Writers disguised as readers: read-only and plan mode must see them as
commands that may change files (the audit's bypasses), and plain reading
forms must stay readers."""

from __future__ import annotations

from pathlib import Path

import pytest

from luxe.policy.shell import may_mutate
from luxe.policy.shell_search import recursive_search
from tests.luxe.conftest import SpawnLuxe

from .e2e import call

READERS = [
    "sed -n 1,5p README.md",
    "sed s/foo/bar/ notes.txt",
    'sed -n "/hello world/p" notes.txt',
    "sed -e s/a/b/g -e 3d notes.txt",
    "sed -n '2{p;q}' notes.txt",
    "cat notes.txt | sed 1d",
    "sort -n -k2 -t, data.csv",
    "LC_ALL=C sort data.csv",
    "uniq -c data.csv",
    "git grep -n hello",
    "git log --oneline",
    "git describe --always --tags",
    "git describe --debug --all",
    "date",
    "date -Iseconds",
    "date -uIminutes",
    "date -d '-1 sec' +%s",
    "date -d -s",
    "date -R -r README.md",
    "git stash list",
    "git stash show -p stash@{0}",
    "git stash list --format=%h",
    "git remote show -n origin",
    "git remote -v show -n origin",
    "git remote show origin -n",
    "git remote get-url origin",
    "git log --format=%h%n%an%n%s",
    "git log --pretty=fuller --stat",
    "git log --no-show-signature -1",
    "git log --follow --format=%ad -- README.md",
    "git log --first-parent --full-history",
    "git cat-file -p HEAD:README.md",
    "git cat-file --batch-check",
    "git rev-list --objects --filter=blob:none HEAD",
    "git grep -n -G x",
    "gh pr view 12 --comments",
    "gh pr list --state=open -L 5",
    "gh pr view --repo=owner/name 7",
    "gh pr diff 3 --patch",
    "tree -L 2 -a src",
    "tree -d -I node_modules",
    "sort -S 1M -k2,2 -t: data.csv",
]
WRITERS = [
    "sed -n 'w pw' README.md",
    "sed -n '1e touch x' README.md",
    "sed -i s/a/b/ x",
    "sed -ni s/a/b/ x",
    "sed -Ei s/a/b/ x",
    "sed --in-place s/a/b/ x",
    "sed --in-pl=.bak s/a/b/ x",
    "sed s/a/b/w out x",
    "sed s/a/b/e x",
    "sed -e 1d -e 'W out' x",
    "sed -f script.sed x",
    "uniq README.md out",
    "git grep --open-files-in-pager=touch hello",
    "git grep -O touch hello",
    "git grep --open=touch hello",
    "git -c core.fsmonitor=touch status",
    "git log --outp=x",
    "git describe --dirty",
    "git describe --always --dirty=-modified",
    "git describe --dir",
    "git --no-pager describe --broken",
    "git describe --br=-x",
    "sort -o out x",
    "sort --out=o x",
    "sort --compress-program=sh x",
    "sort -no out x",
    "tree -o listing",
    "rg --pre sh x",
    "LESSOPEN='|touch x %s' less f",
    "date -s now",
    "date -us now",
    "date -s@0",
    "date --se=now",
    "date -Ru -s 1",
    "date -d x -s 1",
    "hostname evil",
    # `git stash` runs `push` unless its first word is the subcommand: these
    # stashed (and reverted) the person's changes.
    "git stash -m list",
    "git stash -m show",
    "git stash -- show",
    "git stash -q -m list",
    # `git remote show` asks the remote: a `helper::address` runs
    # git-remote-helper, an ssh address ssh.
    "git remote show origin",
    "git remote show 'evil::x'",
    "git remote -v show evil::x",
    "git remote show -- -n evil::x",
    # Verifying a signature runs gpg, which creates ~/.gnupg and a keyring.
    "git log --show-signature",
    "git show --show-sig HEAD",
    "git log '--format=%G?' -1",
    "git log --pretty='format:%h %GS'",
    "git show -s --format=tformat:%GK HEAD",
    "git for-each-ref --format='%(signature)'",
    # Filters are the person's programs (git-lfs's), run on a repository's say.
    "git cat-file --filters HEAD:README.md",
    "git cat-file --batch --filt",
    "git cat-file --path=x --filters 45b983be",
    # gh takes a bool's value after `=` and joins short flags: a browser.
    "gh pr view --web=true",
    "gh pr view -cw",
    "gh pr view -wc 12",
    "gh issue list --web=1",
    "gh repo view --web=T",
    # tree -R runs tree again in every directory with `-o 00Tree.html`.
    "tree -R -H . -L 1",
    "tree -aR -H . -L 2 src",
    "tree -L 1 -dR -H x",
    # sort -T puts its temporary files where it is told: .git, the project.
    "sort -T .git big.txt",
    "sort -S 16K -nT. big.txt",
    "sort --temporary-directory=src big.txt",
    "sort --temp . big.txt",
]


@pytest.mark.parametrize("command", READERS)
def test_reading_forms_stay_readers(command: str) -> None:
    assert not may_mutate(command)


@pytest.mark.parametrize("command", WRITERS)
def test_writers_disguised_as_readers_may_mutate(command: str) -> None:
    assert may_mutate(command)


def test_recursive_search_roots_and_excludes() -> None:
    def rs(line: str) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
        found = recursive_search(tuple(line.split()))
        return None if found is None else (found.roots, found.excludes)

    assert rs("grep -rn foo .") == ((".",), ())
    assert rs("grep -r foo") == ((), ())
    assert rs("grep foo x") is None
    assert rs("grep -A 3 -R -e foo a b") == (("a", "b"), ())
    assert rs("rg -g !cfg foo src") == (("src",), ("cfg",))
    assert rs("git grep foo") is None  # tracked files only
    assert rs("git grep --untracked foo") == ((), ())


def test_read_only_and_plan_refuse_sed_uniq_and_git_grep_writers(
    spawn: SpawnLuxe, repo: Path
) -> None:
    sneaky = [
        "sed -n 'w pw_sedw' README.md",
        "sed -n '1e touch pw_sede' README.md",
        "uniq README.md pw_uniq",
        "git grep --open-files-in-pager='touch pw_gitgrep;true' demo",
        "sort --output=pw_sort README.md",
    ]
    steps = [{"tool_calls": [call("bash", command=c) for c in sneaky]}, {"text": "ok"}]
    luxe = spawn(steps, "--read-only", "--auto-approve")
    luxe.expect("ready")
    luxe.send("submit_user_message", {"text": "look"})
    frames = luxe.collect_until("turn_ended")
    done = [f["content"] for f in frames if f["kind"] == "tool_finished"]
    assert len(done) == len(sneaky)
    assert all(d["denied"] and "read-only mode" in d["summary"] for d in done)
    assert "permission_requested" not in [f["kind"] for f in frames]
    assert luxe.close() == 0
    plan = spawn(
        [{"tool_calls": [call("bash", command="sed -n 'w pw_plan' README.md")]}, {"text": "ok"}],
        "--yolo",
    )
    plan.expect("ready")
    plan.send("set_mode", {"mode": "plan"})
    plan.expect("state_changed", where=lambda c: c["mode"] == "plan")
    plan.send("submit_user_message", {"text": "look"})
    done_plan = plan.expect("tool_finished")
    assert done_plan["denied"] and "plan mode" in done_plan["summary"]
    assert sorted(p.name for p in repo.iterdir() if p.name.startswith("pw_")) == []
    assert plan.close() == 0
