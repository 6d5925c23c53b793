"""The bash word normaliser, the dotenv parser and cut-edge redaction (pure)."""

from __future__ import annotations

import pytest

from luxe.policy.secret_redaction import Redactor
from luxe.policy.secret_values import secret_values_from_env
from luxe.policy.shell import analyse, may_mutate
from luxe.policy.shell_git import git_reads_only


@pytest.mark.parametrize(
    ("line", "word"),
    [
        ("cat .e\\\nnv", ".env"),
        ("cat .{e,x}nv", ".env"),
        ("cat {a,.}env", ".env"),
        ("cat $'\\x2eenv'", ".env"),
        ("cat $'\\056env'", ".env"),
        ("cat $'\\u002eenv'", ".env"),
        ('cat ".e""nv"', ".env"),
        ("cat .e\\nv", ".env"),
        ("X=.e; cat ${X}nv", ".env"),
        ("X=.e Y=nv; cat $X$Y", ".env"),
        ("echo $(cat .e'n'v)", ".env"),
        ("cat <(cat .e\\\nnv)", ".env"),
        ("cat {1..3}.txt", "2.txt"),
    ],
)
def test_words_are_read_as_bash_reads_them(line: str, word: str) -> None:
    assert word in analyse(line).mentioned


def test_a_prefix_assignment_does_not_set_the_variable_for_its_own_words() -> None:
    # bash expands $X before `X=…` applies to cat: the word stays unknown.
    cmd = analyse("X=.env cat $X").commands[0]
    assert cmd.unresolved == ("*",)


def test_unresolved_parts_become_globs() -> None:
    cmd = analyse("cat ${X}nv $(ls) plain").commands[0]
    assert cmd.unresolved == ("*nv", "*")
    assert analyse("$PAGER README.md").commands[0].program_unresolved


@pytest.mark.parametrize(
    "line",
    [
        "echo ${x@P}",
        "echo $((x))",
        "(( x = y ))",
        "echo ${!x}",
        "echo ${x:$y}",
        "printf -v a x",
        "test -v 'a[1]'",
        "PATH=/tmp cat x",
        "PATH=/tmp; cat x",
        "./cat x",
    ],
)
def test_expansions_that_may_run_code_are_not_read_only(line: str) -> None:
    assert may_mutate(line)


@pytest.mark.parametrize("line", ["echo ${x}", "echo ${x:-def}", "n=3; head -n $n README.md", "/usr/bin/cat x"])
def test_plain_expansions_stay_read_only(line: str) -> None:
    assert not may_mutate(line)


@pytest.mark.parametrize(
    ("args", "reads"),
    [
        ("log --oneline", True),
        ("-C . --no-pager status", True),
        ("--namespace log stash clear", False),
        ("--work-tree status branch -D x", False),
        ("--work-tree=. log", True),
        ("-c core.pager=x log", False),
        ("--exec-path=/tmp log", False),
        ("reflog", True),
        ("reflog show", True),
        ("reflog delete HEAD@{0}", False),
        ("reflog expire --all", False),
        ("remote -v", True),
        ("remote add x y", False),
        ("stash list", True),
        ("stash show --output=F", False),
        ("stash drop", False),
        ("diff --out=F", False),
        ("diff --ext-diff", False),
        ("grep -O x", False),
        ("config --get user.name", True),
        ("config user.name x", False),
        ("config --get x --unset y", False),
    ],
)
def test_git_is_classified_after_its_global_options(args: str, reads: bool) -> None:
    assert git_reads_only(tuple(args.split())) is reads


def test_dotenv_like_loaders_read_it() -> None:
    text = 'A="v1-value" # c\nB="l1-aaaa\nl2-bbbb"\nC="q\\"uoted-1"\nexport D=\'single q\'\nE=plain-1 # x\n'
    values = dict.fromkeys(v for _, v in secret_values_from_env(text))
    for expected in ("v1-value", "l1-aaaa\nl2-bbbb", "l1-aaaa", "l2-bbbb", 'q"uoted-1',
                     'q\\"uoted-1', "single q", "plain-1"):  # fmt: skip
        assert expected in values, expected
    assert not any(v.startswith('"') or "#" in v for v in values)


def test_a_piece_of_a_value_at_a_cut_edge_is_redacted() -> None:
    redactor = Redactor((("K", "SECRET-MATERIAL-123"),))
    assert redactor.redact("xx SECRET-M", cut_end=True) == "xx [REDACTED:K]"
    assert redactor.redact("TERIAL-123 yy", cut_start=True) == "[REDACTED:K] yy"
    assert redactor.redact("xx SECRET-M") == "xx SECRET-M"  # not a cut: left alone
    assert redactor.redact("xx SECRET", cut_end=True) == "xx SECRET"  # under 8 characters
    multi = Redactor((("M", "line-one\nline-two"),))
    assert multi.redact("a line-one\nline-two b") == "a [REDACTED:M]\n b"
