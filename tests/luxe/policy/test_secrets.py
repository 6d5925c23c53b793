"""Secret values: parsing them from files, redacting them whole and in streams."""

from __future__ import annotations

import itertools
import os
import threading
import time
from pathlib import Path
from typing import Any

from _pytest.monkeypatch import MonkeyPatch
from hypothesis import given, settings
from hypothesis import strategies as st

from luxe.policy.secret_names import is_secret_name
from luxe.policy.secret_redaction import Redactor, StreamRedactor
from luxe.policy.secret_values import secret_values_from_env, secret_values_from_file
from luxe.policy.secrets import SecretFiles
from tests.helpers.wait import wait_until

VALUES = (("API_KEY", "sk-live-abc123xyz"), ("DB", "hunter2hunter2"), ("PEM", "MIIEowIBAAKCAQEA7x"))


def test_env_parsing() -> None:
    text = "# comment\nexport A='quoted value!'\nB = \"dq-value-1\"\nC=short\nD=plain-value # trailing\nE=1\n"
    assert secret_values_from_env(text) == [
        ("A", "quoted value!"),
        ("B", "dq-value-1"),
        ("D", "plain-value"),
    ]


def test_key_file_tokens() -> None:
    key = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\n"
    assert secret_values_from_file("/h/.ssh/id_ed25519", key) == [
        ("id_ed25519", "b3BlbnNzaC1rZXktdjEAAAAA")
    ]
    netrc = "machine example.invalid login me password s3cr3t-pass\n"
    assert ("netrc", "s3cr3t-pass") in [
        (n.lstrip("."), v) for n, v in secret_values_from_file("/h/.netrc", netrc)
    ]


def test_names() -> None:
    assert is_secret_name(".env") and is_secret_name(".env.local") and is_secret_name(".ENV.PROD")
    assert is_secret_name(".envrc") and is_secret_name(".ENVRC")  # direnv's
    assert (
        not is_secret_name(".env.example")
        and not is_secret_name(".envoy")
        and not is_secret_name(".envrc.example")
        and not is_secret_name("env")
    )
    assert is_secret_name("id_rsa") and not is_secret_name("id_rsa.pub")


@settings(max_examples=200, deadline=None)
@given(
    parts=st.lists(
        st.sampled_from(["", "x", "sk-", "live", "\n", *[v for _, v in VALUES]]), max_size=12
    ),
    cuts=st.lists(st.integers(min_value=0, max_value=400), max_size=8),
)
def test_stream_redaction_equals_whole_redaction(parts: list[str], cuts: list[int]) -> None:
    redactor = Redactor(VALUES)
    text = "".join(parts)
    bounds = sorted({min(c, len(text)) for c in cuts} | {0, len(text)})
    stream = StreamRedactor(redactor)
    out = [stream.feed(text[a:b]) for a, b in itertools.pairwise(bounds)]
    out.append(stream.flush())
    joined = "".join(out)
    assert joined == redactor.redact(text, cut_end=True)
    for _, value in VALUES:
        assert value not in joined


def test_stream_passes_through_without_secrets() -> None:
    stream = StreamRedactor(Redactor(()))
    assert stream.feed("abc") == "abc" and stream.flush() == ""


@settings(max_examples=60, deadline=None)
@given(
    prefix=st.text(alphabet="ABCxyz=_\n", max_size=5),
    suffix=st.text(alphabet="ABCxyz=_\n", max_size=5),
    cut=st.integers(min_value=1, max_value=40),
)
def test_encoded_forms_are_redacted_at_every_alignment_and_split(
    prefix: str, suffix: str, cut: int
) -> None:
    import base64

    value = "sk-live-9b1e77d2c4aa"
    redactor = Redactor((("API_KEY", value),))
    for shown in (
        base64.b64encode((prefix + value + suffix).encode()).decode(),
        (prefix + value + suffix).upper(),
        (prefix + value + suffix)[::-1],
        (prefix + value + suffix).encode().hex(),
    ):
        stream = StreamRedactor(redactor)
        out = stream.feed(shown[:cut]) + stream.feed(shown[cut:]) + stream.flush()
        assert out == redactor.redact(shown, cut_end=True)
        assert "[REDACTED:API_KEY]" in out


def test_secret_files_know_hard_links_and_notice_changes(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("API_KEY=first-value-1\n")
    files = SecretFiles(str(tmp_path))
    assert not files.is_secret(str(tmp_path / "notes.txt"))
    os.link(tmp_path / ".env", tmp_path / "notes.txt")
    assert files.settle()  # the project's walk, deferred past start-up
    assert files.is_secret(str(tmp_path / "notes.txt"))
    assert not files.is_secret(str(tmp_path / "other.txt"))
    (tmp_path / ".env").write_text("API_KEY=second-value-2\n")
    assert files.refresh_known()
    assert files.redactor.redact("second-value-2") == "[REDACTED:API_KEY]"
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / ".env.local").write_text("TOKEN=third-value-3\n")
    assert not files.refresh_known()  # a new file needs a rescan
    assert files.rescan()
    assert files.redactor.redact("third-value-3") == "[REDACTED:TOKEN]"
    assert str(tmp_path / "notes.txt") in files.paths


def test_a_env_that_is_a_symlink_is_known_by_its_target(tmp_path: Path) -> None:
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "dev.txt").write_text("API_KEY=linked-value-1\n")
    (tmp_path / "config" / "prod.txt").write_text("API_KEY=linked-value-2\n")
    (tmp_path / ".env").symlink_to("config/dev.txt")
    (tmp_path / ".env.null").symlink_to("/dev/null")
    files = SecretFiles(str(tmp_path))
    files.settle()
    assert files.redactor.redact("linked-value-1") == "[REDACTED:API_KEY]"
    assert files.is_secret(str(tmp_path / "config" / "dev.txt"))
    assert str(tmp_path / "config" / "dev.txt") in files.paths
    # A link to a device counts for nothing: /dev/null is no secret file.
    assert not files.is_secret("/dev/null")
    # The target changes: its values are read again; the link is moved: a
    # rescan follows it.
    (tmp_path / "config" / "dev.txt").write_text("API_KEY=linked-value-3\n")
    assert files.refresh_known()
    assert files.redactor.redact("linked-value-3") == "[REDACTED:API_KEY]"
    (tmp_path / ".env").unlink()
    (tmp_path / ".env").symlink_to("config/prod.txt")
    assert files.refresh_known()
    assert files.redactor.redact("linked-value-2") == "[REDACTED:API_KEY]"
    assert files.is_secret(str(tmp_path / "config" / "prod.txt"))
    (tmp_path / ".env").unlink()
    (tmp_path / ".env").symlink_to("/dev/zero")
    files.refresh_known()
    files.rescan()
    assert not files.is_secret("/dev/zero")
    assert files.redactor.redact("linked-value-2") == "linked-value-2"


def _repo_with_hidden_values(root: Path) -> tuple[str, str]:
    """A value only git's history holds (a committed, then removed .env) and
    one only a skipped directory holds: what the deferred first scan finds."""
    from tests.helpers.gitrepo import git

    git(root, "init", "-q")
    (root / ".env").write_text("REMOVED=history-only-Kq7Wz3\n")
    git(root, "add", "-f", ".env")
    git(root, "commit", "-qm", "env")
    git(root, "rm", "-q", ".env")
    git(root, "commit", "-qm", "no env")
    (root / ".venv" / "lib").mkdir(parents=True)
    (root / ".venv" / "lib" / ".env").write_text("SKIPPED=skipped-only-Pv5Ry8\n")
    return "history-only-Kq7Wz3", "skipped-only-Pv5Ry8"


def test_a_redaction_during_the_first_scan_waits_for_its_values(tmp_path: Path) -> None:
    """The first full scan runs in a worker thread (the gate's `settle`); a
    redaction that comes meanwhile on another thread never goes without the
    values it will find."""
    import threading

    from luxe.policy.permissions import PolicyGate

    hidden = _repo_with_hidden_values(tmp_path)
    files = SecretFiles(str(tmp_path))
    gate = PolicyGate(str(tmp_path), secret_files=files)
    scan = threading.Thread(target=files.settle)
    scan.start()
    out = gate.redact(" ".join(hidden))
    scan.join()
    assert out == "[REDACTED:REMOVED] [REDACTED:SKIPPED]", out
    assert not files.settle()  # once only


def test_settle_finds_the_deferred_values_off_the_event_loop(tmp_path: Path) -> None:
    """`settle` awaited twice at once: both return once the values are known,
    and the scan ran once, in a thread other than the loop's."""
    import threading

    import trio

    from luxe.policy.permissions import PolicyGate

    hidden = _repo_with_hidden_values(tmp_path)
    files = SecretFiles(str(tmp_path))
    gate = PolicyGate(str(tmp_path), secret_files=files)
    scans: list[int] = []
    real = files.rescan

    def rescan(*, history: bool = True, deep: bool = True) -> bool:
        scans.append(threading.get_ident())
        return real(history=history, deep=deep)

    files.rescan = rescan  # type: ignore[method-assign]

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(gate.settle)
            nursery.start_soon(gate.settle)
        assert gate.redact(" ".join(hidden)) == "[REDACTED:REMOVED] [REDACTED:SKIPPED]"

    trio.run(main)
    assert len(scans) == 1 and scans[0] != threading.get_ident(), scans


# -- the walk after a call that may have written: only what changed is read ----

# The window in which a directory's change is too recent for its listing to
# be kept, made short here so a test need not wait the real 2 s.
SHORT_RACY_NS = 20_000_000


def _past_racy(root: Path) -> None:
    """Wait until every directory's last change is older than the window."""
    last = max(os.stat(d).st_ctime_ns for d in [root, *(p for p in root.rglob("*") if p.is_dir())])
    wait_until(lambda: time.time_ns() > last + 2 * SHORT_RACY_NS, 5)


def _settled_tree(root: Path, monkeypatch: MonkeyPatch) -> SecretFiles:
    """A checkout walked once, every listing of it kept."""
    import luxe.policy.secret_walk as secret_walk

    monkeypatch.setattr(secret_walk, "RACY_NS", SHORT_RACY_NS)
    (root / "src" / "pkg" / "deep").mkdir(parents=True)
    (root / "config").mkdir()
    (root / "config" / ".env").write_text("DB_PASSWORD=first-secret-Ab12\n")
    (root / "src" / "pkg" / "deep" / "notes.txt").write_text("plain\n")
    (root / "src" / "pkg" / "mod.py").write_text("x = 1\n")
    _past_racy(root)
    files = SecretFiles(str(root))
    files.settle()
    return files


def _mtime_put_back(directory: Path, before: os.stat_result) -> None:
    """What a hostile script would do to hide what it added: `touch -d`."""
    os.utime(directory, ns=(before.st_atime_ns, before.st_mtime_ns))


def _listed(monkeypatch: MonkeyPatch) -> list[str]:
    """The directories the walk reads from now on."""
    import luxe.policy.secret_walk as secret_walk

    read: list[str] = []
    real = os.scandir

    def scandir(path: str) -> Any:
        read.append(str(path))
        return real(path)

    monkeypatch.setattr(secret_walk.os, "scandir", scandir)
    return read


def test_a_rescan_reads_only_the_directories_that_changed(tmp_path: Path, monkeypatch: MonkeyPatch) -> None:
    files = _settled_tree(tmp_path, monkeypatch)
    assert str(tmp_path / "config" / ".env") in files.paths
    listed = _listed(monkeypatch)
    assert not files.rescan()
    assert listed == []  # nothing changed: nothing read again
    (tmp_path / "src" / "pkg" / "deep" / ".env.production").write_text("TOKEN=new-secret-Cd34\n")
    assert files.rescan()
    assert listed == [str(tmp_path / "src" / "pkg" / "deep")]
    assert files.redactor.redact("new-secret-Cd34") == "[REDACTED:TOKEN]"


def test_every_change_to_a_directory_listed_before_is_seen(tmp_path: Path, monkeypatch: MonkeyPatch) -> None:
    files = _settled_tree(tmp_path, monkeypatch)
    deep = tmp_path / "src" / "pkg" / "deep"
    # A file renamed to a secret's name.
    (deep / "notes.txt").write_text("API_KEY=renamed-secret-Ef56\n")
    _past_racy(tmp_path)
    assert not files.rescan()  # its content is not a secret's until it is named one
    (deep / "notes.txt").rename(deep / ".env.local")
    assert files.rescan()
    assert files.redactor.redact("renamed-secret-Ef56") == "[REDACTED:API_KEY]"
    # A hard link to a secret, under an innocent name, in another old directory.
    _past_racy(tmp_path)
    files.rescan()
    os.link(tmp_path / "config" / ".env", tmp_path / "src" / "pkg" / "innocent.txt")
    files.rescan()
    assert str(tmp_path / "src" / "pkg" / "innocent.txt") in files.paths
    # A secret directory replaced by another holding a different secret.
    _past_racy(tmp_path)
    files.rescan()
    (tmp_path / "config" / ".env").unlink()
    (tmp_path / "src" / "pkg" / "innocent.txt").unlink()
    (tmp_path / "config").rmdir()
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "credentials.json").write_text('{"token": "replaced-secret-Gh78"}\n')
    assert files.rescan()
    assert str(tmp_path / "config" / "credentials.json") in files.paths
    assert str(tmp_path / "config" / ".env") not in files.paths
    assert str(tmp_path / "src" / "pkg" / "innocent.txt") not in files.paths


def test_putting_a_directorys_mtime_back_hides_nothing(tmp_path: Path, monkeypatch: MonkeyPatch) -> None:
    # A script the agent runs adds a file and sets the directory's mtime
    # back, as if nothing changed. The ctime, which no `touch` sets, moved.
    files = _settled_tree(tmp_path, monkeypatch)
    deep, pkg = tmp_path / "src" / "pkg" / "deep", tmp_path / "src" / "pkg"
    # 1. a hard link to a secret under an innocent name
    before = os.stat(pkg)
    os.link(tmp_path / "config" / ".env", pkg / "README")
    _mtime_put_back(pkg, before)
    files.rescan()
    assert str(pkg / "README") in files.paths
    # 2. a new secret file
    before = os.stat(deep)
    (deep / ".env").write_text("API_KEY=hidden-new-Kl12\n")
    _mtime_put_back(deep, before)
    assert files.rescan()
    assert files.redactor.redact("hidden-new-Kl12") == "[REDACTED:API_KEY]"
    # 3. a file renamed to a secret's name
    (deep / "plain.txt").write_text("TOKEN=hidden-renamed-Mn34\n")
    _past_racy(tmp_path)
    files.rescan()
    before = os.stat(deep)
    (deep / "plain.txt").rename(deep / "id_rsa")
    _mtime_put_back(deep, before)
    files.rescan()
    assert str(deep / "id_rsa") in files.paths
    # 4. a secret in a new directory whose name looks like an option
    before = os.stat(tmp_path)
    (tmp_path / "--exclude=.env").mkdir()
    (tmp_path / "--exclude=.env" / ".env.local").write_text("API_KEY=hidden-option-Op56\n")
    _mtime_put_back(tmp_path, before)
    assert files.rescan()
    assert files.redactor.redact("hidden-option-Op56") == "[REDACTED:API_KEY]"


def test_a_directory_changed_just_before_its_listing_is_read_again(tmp_path: Path, monkeypatch: MonkeyPatch) -> None:
    # A change in the same clock tick as the listing would leave the
    # directory's ctime as it was: such a listing is never reused.
    files = _settled_tree(tmp_path, monkeypatch)
    import luxe.policy.secret_walk as secret_walk

    monkeypatch.setattr(secret_walk, "RACY_NS", 60_000_000_000)  # every change is recent
    fresh = tmp_path / "src" / "fresh"
    fresh.mkdir()
    files.rescan()  # lists `fresh`, changed a moment ago
    listed = _listed(monkeypatch)
    files.rescan()
    assert str(fresh) in listed  # read again, though unchanged since


def test_a_secret_file_that_becomes_a_special_file_freezes_nothing(tmp_path: Path) -> None:
    # A .env replaced by a FIFO (an open for reading waits for a writer
    # forever), by a symlink to one, or by a symlink to an endless device:
    # refreshing the values must return, and read nothing from them.
    for spelling in ("fifo", "link to fifo", "link to /dev/zero", "socket"):
        root = tmp_path / spelling.replace(" ", "-").replace("/", "")
        root.mkdir()
        (root / ".env").write_text("API_KEY=first-value-Qr78\n")
        files = SecretFiles(str(root))
        files.settle()
        (root / ".env").unlink()
        if spelling == "fifo":
            os.mkfifo(root / ".env")
        elif spelling == "link to fifo":
            os.mkfifo(root / "pipe")
            os.symlink(root / "pipe", root / ".env")
        elif spelling == "link to /dev/zero":
            os.symlink("/dev/zero", root / ".env")
        else:
            import socket

            server = socket.socket(socket.AF_UNIX)
            server.bind(str(root / ".env"))
        for refresh in (files.refresh_known, files.rescan):
            done = threading.Thread(target=refresh, daemon=True)
            done.start()
            done.join(10)
            assert not done.is_alive(), f"{refresh.__name__} froze on a .env that is a {spelling}"
        assert files.is_secret(str(root / ".env"))  # still refused by its name
