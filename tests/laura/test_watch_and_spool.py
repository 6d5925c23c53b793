"""Live-file polling and tail spools, on real files in temp dirs."""

from __future__ import annotations

import hashlib
import io
import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
import trio
import trio.lowlevel

from laura.panes import watch as watch_module
from laura.panes.watch import FileWatch, stamp_of
from laura.spool import copy_until_eof, create_spool, delete_spool, is_spool, spool_path


def test_poll_sees_appends_rewrites_renames_and_deletes_but_not_touches(tmp_path: Path) -> None:
    path = tmp_path / "log.txt"
    path.write_text("one\n")
    watch = FileWatch(str(path))
    assert not watch.poll()
    with path.open("a") as handle:
        handle.write("two\n")
    assert watch.poll()
    assert not watch.poll()

    before = os.stat(path)
    path.write_text("ONE\nTWO\n")  # same size, then the old mtime put back
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert watch.poll()

    os.utime(path, ns=(before.st_atime_ns + 5_000_000_000, before.st_mtime_ns + 5_000_000_000))
    assert not watch.poll()  # a touch alone changes nothing a reader sees

    replacement = tmp_path / "new.txt"
    replacement.write_text("ONE\nTWO\n")
    replacement.replace(path)  # editors save by rename: a new inode
    assert watch.poll()

    path.unlink()
    assert watch.poll()
    assert not watch.poll()
    path.write_text("back\n")
    assert watch.poll()


def test_a_same_size_rewrite_in_the_same_tick_is_caught_while_racy(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_text("aaaa\n")
    watch = FileWatch(str(path))
    path.write_text("bbbb\n")
    stamp = stamp_of(str(path))
    assert stamp is not None
    watch.stamp = stamp  # a file system too coarse to tell the two writes apart
    assert watch.poll(now_ns=stamp.mtime_ns + 10_000_000)
    path.write_text("cccc\n")
    watch.stamp = stamp_of(str(path))
    long_after = stamp.mtime_ns + 60_000_000_000
    assert not watch.poll(now_ns=long_after)  # not racy any more: stat is trusted


def test_files_just_written_are_hashed_ahead_and_changes_still_seen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The host hashes, in steps, what the next poll would hash; the poll
    then reads nothing, and still tells a rewrite of the same size in the
    same tick, a rewrite after the hash, and a touch that changed nothing."""
    path = tmp_path / "a.txt"
    path.write_text("aaaa\n")
    watch = FileWatch(str(path))
    read_on_loop: list[str] = []
    real = watch_module.digest_of

    def counting(name: str, size: int = 0) -> bytes | None:
        read_on_loop.append(name)
        return real(name, size)

    def ahead_then_poll() -> bool:
        trio.run(watch_module.digest_ahead, [watch])
        monkeypatch.setattr(watch_module, "digest_of", counting)
        try:
            return watch.poll()
        finally:
            monkeypatch.setattr(watch_module, "digest_of", real)

    path.write_text("bbbb\n")
    stamp = stamp_of(str(path))
    assert stamp is not None
    watch.stamp = stamp  # a file system too coarse to tell the two writes apart
    assert ahead_then_poll()  # same size, same tick: the digest told
    assert not ahead_then_poll()  # racy still, nothing changed
    os.utime(path)
    assert not ahead_then_poll()  # a touch
    assert read_on_loop == []

    # Hashed ahead, then rewritten before the poll: the old digest is not used.
    trio.run(watch_module.digest_ahead, [watch])
    path.write_text("cccccc\n")
    assert watch.poll()
    assert not watch.poll()


@pytest.mark.parametrize("size", [10, 300_000, watch_module.DIGEST_LIMIT])
def test_a_digest_in_steps_is_the_digest_of_the_whole_file(tmp_path: Path, size: int) -> None:
    path = tmp_path / "a.bin"
    path.write_bytes(os.urandom(size))
    steps = list(watch_module.digest_steps(str(path), size))
    assert len(steps) == -(-size // watch_module.DIGEST_STEP)  # a read a step
    assert watch_module.digest_of(str(path), size) == hashlib.sha256(path.read_bytes()).digest()
    path.write_bytes(os.urandom(watch_module.DIGEST_LIMIT + 1))
    assert watch_module.digest_of(str(path), 0) is None  # grew past the limit after the stat


@pytest.mark.timing
async def test_a_file_just_written_is_hashed_promptly_while_the_loop_is_busy(tmp_path: Path) -> None:
    """Every request waits for this hash. Made in a worker thread, it waited
    for the interpreter lock for seconds while another task kept the loop
    busy (the loop enters the kernel between steps and takes the lock back
    at once; a thread asks for it only after 5 ms without any switch)."""
    path = tmp_path / "big.md"
    path.write_bytes(b"a paragraph of words\n\n" * (watch_module.DIGEST_LIMIT // 22))
    watch = FileWatch(str(path))
    path.write_bytes(b"another paragraph of words\n\n" * (watch_module.DIGEST_LIMIT // 29))
    busy = True

    async def keep_the_loop_busy() -> None:
        while busy:
            until = time.perf_counter() + 0.003
            while time.perf_counter() < until:
                pass
            await trio.lowlevel.checkpoint()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(keep_the_loop_busy)
        await trio.lowlevel.checkpoint()
        started = time.perf_counter()
        with trio.fail_after(30):
            await watch_module.digest_ahead([watch])
        took = time.perf_counter() - started
        busy = False
    assert watch.poll()
    assert took < 1.0, f"the hash took {took:.2f} s while the loop was busy"


def test_spool_names_and_which_files_may_be_deleted(tmp_path: Path) -> None:
    directory = tmp_path / "laura"
    directory.mkdir()
    assert spool_path(directory, None, 42) == directory / "tail-42.txt"
    assert spool_path(directory, "build log (ü)", 7) == directory / "build-log-----7.txt"
    spool = spool_path(directory, "x", 1)
    spool.write_text("data")
    outside = tmp_path / "keep.txt"
    outside.write_text("mine")
    sneaky = directory / ".." / "keep.txt"
    assert is_spool(spool, directory)
    assert not is_spool(outside, directory)
    assert not is_spool(sneaky, directory)
    assert not delete_spool(outside, directory)
    assert not delete_spool(sneaky, directory)
    assert outside.exists()
    assert delete_spool(spool, directory)
    assert not spool.exists()
    assert not delete_spool(spool, directory)


def test_copy_until_eof_copies_everything(tmp_path: Path) -> None:
    data = b"".join(b"line %d\n" % n for n in range(5000))
    target = tmp_path / "spool.txt"
    with target.open("wb") as spool:
        assert copy_until_eof(io.BufferedReader(io.BytesIO(data)), spool) == len(data)  # type: ignore[arg-type]
    assert target.read_bytes() == data


def test_big_files_are_trusted_to_their_stat(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(watch_module, "DIGEST_LIMIT", 16)
    path = tmp_path / "big.log"
    path.write_text("x" * 64)
    watch = FileWatch(str(path))
    assert watch.digest is None  # never hashed
    assert not watch.poll()  # recent mtime, but too big to re-hash on every poll
    path.write_text("y" * 64)
    assert watch.poll()
    with path.open("a") as log:
        log.write("more\n")
    assert watch.poll()
    assert not watch.poll()


def test_tail_without_a_reachable_tab_leaves_no_spool(tmp_path: Path) -> None:
    runtime = tmp_path / "run" / "laura"
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp_path),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_RUNTIME_DIR": str(tmp_path / "run"),
        "LAURA_RUNTIME": str(runtime),
        "LAURA_TAB": f"laura-0-dead-{tmp_path.name}",
    }
    laura = str(Path(sys.executable).parent / "laura")
    done = subprocess.run(
        [laura, "tail", "--title", "x"], input=b"data\n", env=env, capture_output=True, timeout=30
    )
    assert done.returncode == 1
    assert b"cannot reach the Laura tab" in done.stderr
    assert list(runtime.glob("*")) == []
    outside = subprocess.run(
        [laura, "tail"], input=b"", env={**env, "LAURA_TAB": ""}, capture_output=True, timeout=30
    )
    assert outside.returncode == 1
    assert b"not inside a Laura tab" in outside.stderr


@pytest.mark.parametrize("left", ["a spool", "a link to a file", "a dangling link"])
def test_a_spool_name_already_taken_is_made_afresh_never_written_through(
    tmp_path: Path, left: str
) -> None:
    # A tail that crashed left its spool, and its pid came round again.
    runtime = tmp_path / "run" / "laura"
    runtime.mkdir(parents=True, mode=0o700)
    path = runtime / "tail-7.txt"
    target = tmp_path / "target"
    if left == "a spool":
        path.write_bytes(b"old lines\n")
    else:
        if left == "a link to a file":
            target.write_bytes(b"kept\n")
        path.symlink_to(target)
    with create_spool(path) as spool:
        spool.write(b"new\n")
    assert path.read_bytes() == b"new\n" and not path.is_symlink()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert (target.read_bytes() == b"kept\n") if left == "a link to a file" else not target.exists()
