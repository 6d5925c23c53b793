"""The journal: events appended by a tab, read back by `laura journal`."""

from __future__ import annotations

import json
import os
import pwd
import subprocess
import sys
import time
from pathlib import Path

import pytest

from laura import __version__
from laura.journal import (
    Journal,
    default_session,
    journal_main,
    parse_filter,
    parse_since,
    read_events,
    sanitize_session,
    sessions_dir,
)


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {"XDG_STATE_HOME": str(tmp_path / "state"), "HOME": str(tmp_path / "home")}


def lines_of(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def write_events(env: dict[str, str], name: str, events: list[dict[str, object]]) -> Path:
    directory = sessions_dir(env)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{name}.ndjson"
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    return path


def run_journal(
    argv: list[str], env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> tuple[int, list[dict[str, object]], str]:
    code = journal_main(argv, env)
    captured = capsys.readouterr()
    return code, [json.loads(line) for line in captured.out.splitlines()], captured.err


# -- where it lives -------------------------------------------------------------------------


def test_journal_lives_under_the_xdg_state_home(env: dict[str, str], tmp_path: Path) -> None:
    journal = Journal.open("laura-12-0", env=env)
    assert journal.path == tmp_path / "state" / "laura" / "sessions" / "laura-12-0.ndjson"


def test_without_xdg_state_home_it_falls_back_to_home(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path)}
    assert sessions_dir(env) == tmp_path / ".local" / "state" / "laura" / "sessions"
    env["XDG_STATE_HOME"] = "relative/ignored"
    assert sessions_dir(env) == tmp_path / ".local" / "state" / "laura" / "sessions"


@pytest.mark.parametrize("home", [None, "", "relative/home"], ids=["unset", "empty", "relative"])
def test_without_a_usable_home_the_journal_is_under_the_password_databases_home(
    home: str | None,
) -> None:
    # Before: unset or empty meant the shared temp directory (/tmp/laura/sessions,
    # any local user's to make first), a relative HOME a folder of wherever
    # Laura started (a repository's).
    env = {} if home is None else {"HOME": home}
    expected = Path(pwd.getpwuid(os.geteuid()).pw_dir) / ".local" / "state" / "laura" / "sessions"
    assert sessions_dir(env) == expected


def test_session_names_are_made_safe_as_file_names() -> None:
    assert sanitize_session("laura-1-2") == "laura-1-2"
    assert sanitize_session("my session/../x") == "my_session_.._x"
    assert sanitize_session("") == "session"
    assert sanitize_session("..") == "session"
    assert sanitize_session("é") == "_"
    assert default_session(4242, 3) == "laura-4242-3"


# -- writing ------------------------------------------------------------------------------


def test_nothing_is_created_until_the_first_event(env: dict[str, str]) -> None:
    journal = Journal.open("s", env=env)
    assert not journal.path.parent.exists()
    assert journal.log("ready")
    assert journal.path.exists()


def test_every_event_is_one_line_with_ts_session_and_version(env: dict[str, str]) -> None:
    journal = Journal.open("work", env=env)
    before = time.time_ns() // 1_000_000
    journal.log("ready")
    journal.log("open", pane=1, path="/r/a.md")
    journal.log("highlight", pane=1, start=3, end=4)
    journal.log("comment", pane=1, line=3)
    journal.log("review", path="/r/a.md", threads=2, comments=3, body="looks good")
    journal.log("review", path="/r/a.md", threads=1, comments=1, body="", error="write failed")
    after = time.time_ns() // 1_000_000
    events = lines_of(journal.path)
    assert [e["type"] for e in events] == [
        "ready",
        "open",
        "highlight",
        "comment",
        "review",
        "review",
    ]
    for event in events:
        assert event["session"] == "work"
        assert event["version"] == __version__
        assert isinstance(event["ts"], int)
        assert before <= event["ts"] <= after
        assert "agent" not in event
    assert events[1] | {"ts": 0} == {
        "ts": 0,
        "session": "work",
        "version": __version__,
        "type": "open",
        "pane": 1,
        "path": "/r/a.md",
    }
    assert (events[4]["threads"], events[4]["comments"]) == (2, 3)
    assert events[5]["error"] == "write failed"


def test_lines_are_compact_with_sorted_keys(env: dict[str, str]) -> None:
    journal = Journal.open("s", agent="claude", env=env)
    journal.log("focus", pane=2)
    [line] = journal.path.read_text().splitlines()
    event = json.loads(line)
    assert line == json.dumps(event, separators=(",", ":"), sort_keys=True)
    assert event["agent"] == "claude"


def test_each_event_is_on_disk_as_soon_as_it_is_logged(env: dict[str, str]) -> None:
    journal = Journal.open("s", env=env)
    for count in range(1, 4):
        journal.log("focus", pane=count)
        # A separate reader sees it at once: no buffering inside laura.
        assert len(journal.path.read_bytes().splitlines()) == count


def test_a_torn_last_line_does_not_swallow_the_next_event(env: dict[str, str]) -> None:
    journal = Journal.open("s", env=env)
    journal.log("ready")
    with journal.path.open("a") as handle:
        handle.write('{"type":"open","pa')  # a writer died mid-line
    journal.log("close", pane=1)
    events = read_events(journal.path.parent)
    assert [e["type"] for e in events] == ["ready", "close"]


def test_a_write_that_fails_is_dropped_quietly(tmp_path: Path) -> None:
    blocker = tmp_path / "state"
    blocker.write_text("a file where the directory should be")
    journal = Journal.open("s", env={"XDG_STATE_HOME": str(blocker)})
    assert journal.log("ready") is False


def test_two_journals_on_one_session_interleave_whole_lines(env: dict[str, str]) -> None:
    first = Journal.open("shared", env=env)
    second = Journal.open("shared", env=env)
    for index in range(20):
        (first if index % 2 else second).log("focus", pane=index)
    assert [e["pane"] for e in lines_of(first.path)] == list(range(20))


# -- reading: laura journal ----------------------------------------------------------------


def test_prints_every_session_oldest_first(
    env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    write_events(env, "a", [{"ts": 30, "type": "open"}, {"ts": 10, "type": "ready"}])
    write_events(env, "b", [{"ts": 20, "type": "focus"}])
    code, events, err = run_journal([], env, capsys)
    assert code == 0
    assert [e["ts"] for e in events] == [10, 20, 30]
    assert err == ""


def test_output_is_compact_json_one_event_a_line(
    env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    write_events(env, "a", [{"type": "open", "ts": 1, "path": "/r/é.md", "pane": 1}])
    assert journal_main([], env) == 0
    assert capsys.readouterr().out == '{"pane":1,"path":"/r/é.md","ts":1,"type":"open"}\n'


def test_no_sessions_at_all_prints_nothing(
    env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_journal([], env, capsys) == (0, [], "")


def test_torn_bad_and_non_object_lines_are_skipped(
    env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    path = sessions_dir(env)
    path.mkdir(parents=True)
    (path / "s.ndjson").write_text(
        '{"ts":1,"type":"ready"}\nnot json\n[1,2]\n"text"\n\n{"ts":2,"type":"open"}\n{"ts":3,"ty'
    )
    (path / "other.txt").write_text('{"ts":0,"type":"ignored"}\n')
    code, events, _ = run_journal([], env, capsys)
    assert code == 0
    assert [e["type"] for e in events] == ["ready", "open"]


def test_an_unreadable_session_file_is_skipped(
    env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    write_events(env, "good", [{"ts": 1, "type": "ready"}])
    bad = sessions_dir(env) / "bad.ndjson"
    bad.mkdir()  # reading a directory fails like an unreadable file
    code, events, _ = run_journal([], env, capsys)
    assert (code, [e["type"] for e in events]) == (0, ["ready"])


EVENTS: list[dict[str, object]] = [
    {"ts": 1, "type": "open", "pane": 1, "path": "/r/a.md", "session": "s1"},
    {"ts": 2, "type": "open", "pane": 2, "path": "/r/b.md", "session": "s1"},
    {"ts": 3, "type": "comment", "pane": 2, "line": 4, "session": "s2"},
    {"ts": 4, "type": "review", "path": "/r/b.md", "threads": 2, "body": None, "session": "s2"},
    {"ts": 5, "type": "focus", "pane": "2", "session": "s2"},
]


@pytest.mark.parametrize(
    ("filters", "expected"),
    [
        (["type=open"], [1, 2]),
        (["pane=2"], [2, 3, 5]),  # the number 2 as JSON text, the string literally
        (['pane="2"'], []),  # strings compare without quotes
        (["pane=1", "pane=2"], [1, 2, 3, 5]),
        (["type=open", "type=review"], [1, 2, 4]),  # same field twice: either
        (["type=open", "pane=2"], [2]),  # different fields: both
        (["body=null"], [1, 2, 3, 4, 5]),  # a missing field counts as null
        (["body=None"], []),
        (["threads=2"], [4]),
        (["session=s2", "type=comment"], [3]),
        (["path=/r/b.md"], [2, 4]),
        (["nothing=here"], []),
        (["line=4.0"], []),  # JSON text, not numeric equality
    ],
)
def test_filters(
    filters: list[str],
    expected: list[int],
    env: dict[str, str],
    capsys: pytest.CaptureFixture[str],
) -> None:
    write_events(env, "x", EVENTS)
    code, events, _ = run_journal(filters, env, capsys)
    assert code == 0
    assert [e["ts"] for e in events] == expected


def test_n_keeps_the_newest_and_says_how_many_were_left_out(
    env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    write_events(env, "x", EVENTS)
    code, events, err = run_journal(["-n", "2"], env, capsys)
    assert code == 0
    assert [e["ts"] for e in events] == [4, 5]
    assert err == "showing 2 of 5 events; pass -n for more\n"


def test_n_zero_prints_only_the_count(
    env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    write_events(env, "x", EVENTS)
    assert run_journal(["-n", "0", "type=open"], env, capsys) == (
        0,
        [],
        "showing 0 of 2 events; pass -n for more\n",
    )


def test_default_limit_is_fifty(env: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    write_events(env, "x", [{"ts": ts, "type": "focus"} for ts in range(60)])
    code, events, err = run_journal([], env, capsys)
    assert code == 0
    assert [e["ts"] for e in events] == list(range(10, 60))
    assert err == "showing 50 of 60 events; pass -n for more\n"


def test_since_keeps_recent_events(env: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    now = time.time_ns() // 1_000_000
    write_events(
        env,
        "x",
        [
            {"ts": now - 3 * 3_600_000, "type": "old"},
            {"ts": now - 20 * 60_000, "type": "recent"},
            {"ts": now, "type": "now"},
        ],
    )
    assert run_journal(["--since", "30m"], env, capsys)[1] == [
        {"ts": now - 20 * 60_000, "type": "recent"},
        {"ts": now, "type": "now"},
    ]
    assert [e["type"] for e in run_journal(["--since", "1d"], env, capsys)[1]] == [
        "old",
        "recent",
        "now",
    ]


def test_durations() -> None:
    assert parse_since("30m") == 30 * 60_000
    assert parse_since("24h") == 24 * 3_600_000
    assert parse_since("7d") == 7 * 86_400_000
    assert parse_since("45s") == 45_000
    for bad in ("", "m", "30", "1.5h", "-3m", "30 minutes"):
        with pytest.raises(ValueError, match="expected a duration like 30m, 24h, 7d, got"):
            parse_since(bad)


def test_filter_syntax() -> None:
    assert parse_filter("pane=2") == ("pane", "2")
    assert parse_filter("body=") == ("body", "")
    assert parse_filter("path=a=b") == ("path", "a=b")
    for bad in ("pane", "=2"):
        with pytest.raises(ValueError, match=f"^expected FIELD=VALUE, got `{bad}`$"):
            parse_filter(bad)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["pane"], "expected FIELD=VALUE, got `pane`"),
        (["--since", "soon"], "expected a duration like 30m, 24h, 7d, got `soon`"),
        (["-n", "-1"], "-n must be 0 or more"),
    ],
)
def test_usage_errors_exit_2_with_the_reason(
    argv: list[str], message: str, env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        code = journal_main(argv, env)
        raise SystemExit(code)
    assert exited.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert message in captured.err


# -- as a process -------------------------------------------------------------------------------


def test_the_journal_reader_imports_only_the_standard_library(tmp_path: Path) -> None:
    probe = (
        "import sys; before = set(sys.modules)\n"
        "import laura.journal\n"
        "extra = {m.split('.')[0] for m in set(sys.modules) - before}\n"
        # private_files is the project's own, standard library only (what it
        # imports shows here too).
        "print(sorted(extra - set(sys.stdlib_module_names) - {'laura', 'private_files'}))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=30
    )
    assert result.stdout.strip() == "[]"


def test_works_as_a_process_without_a_tab(tmp_path: Path) -> None:
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(tmp_path / "home"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
    }
    Journal.open("s", env=env).log("open", pane=1, path="/r/a.md")
    Journal.open("s", env=env).log("close", pane=1)
    result = subprocess.run(
        [sys.executable, "-m", "laura.journal", "type=close"],
        capture_output=True,
        text=True,
        env=env,
        timeout=30,
    )
    assert result.returncode == 0, result.stderr
    [line] = result.stdout.splitlines()
    assert json.loads(line)["type"] == "close"
    assert "LAURA_TAB" not in env
