"""Code blocks in answers are coloured within a bounded time: a block whose
lines make a Pygments pattern rescan to its end (an unclosed `/*`, `<!--`),
which a model echoing a hostile file can write, is coloured as far as
CODE_COLOUR_SECONDS allow and shown plain after; a code block still being
streamed costs each frame only the lines the live region shows; and the real
interface keeps answering keys while such a block streams."""

from __future__ import annotations

import time

import pytest

from luxe.frontends.tui.markdown import render_block
from luxe.frontends.tui.text import plain_text
from tests.laura.tmux import wait_until
from tests.luxe.interface.conftest import StartUi

OPENERS = {"js": "/*", "html": "<!--", "css": "/*"}


def _seconds(work: object) -> float:
    started = time.thread_time()
    work()  # type: ignore[operator]
    return time.thread_time() - started


@pytest.mark.parametrize("language", sorted(OPENERS))
def test_a_code_block_that_makes_the_lexer_rescan_renders_at_once_and_whole(language: str) -> None:
    """Measured against the same block without a language, in the same run."""
    body = [OPENERS[language]] * 20_000 + ["THE END"]
    hostile = f"```{language}\n" + "\n".join(body) + "\n```"
    bare = "```\n" + "\n".join(body) + "\n```"
    render_block(bare, 80)  # warm up
    hostile_s = _seconds(lambda: render_block(hostile, 80))
    bare_s = _seconds(lambda: render_block(bare, 80))
    assert hostile_s < bare_s + 0.3, f"{hostile_s:.2f} s against {bare_s:.2f} s without a language"
    rows = [plain_text(line).strip() for line in render_block(hostile, 80)]
    assert rows == [language, *body]  # every line, coloured or plain


def test_a_code_block_being_streamed_costs_a_frame_only_the_lines_it_shows() -> None:
    lines = [f"value_{n} = compute({n})  # step {n}" for n in range(5_000)]
    open_block = "```python\n" + "\n".join(lines)
    rows = render_block(open_block, 80, last=30)
    assert [plain_text(line).strip() for line in rows] == ["python", *lines[-30:]]
    short = "```python\n" + "\n".join(lines[-30:])
    render_block(short, 80, last=30)  # warm up
    long_s = _seconds(lambda: render_block(open_block, 80, last=30))
    short_s = _seconds(lambda: render_block(short, 80, last=30))
    assert long_s < 3 * short_s + 0.02, (long_s, short_s)


@pytest.mark.timing
def test_keys_are_answered_while_a_code_block_that_makes_the_lexer_rescan_streams(ui: StartUi) -> None:
    body = "/*\n" * 20_000
    session = ui([{"text": "```js\n" + body, "stall_s": 60}], height=24)
    session.type("show me the bundle")
    session.send_keys("Enter")
    session.wait_for("working")
    wait_until(lambda: session.text().count("/*") >= 10)  # the open block is on screen
    started = time.monotonic()
    session.type("QWERTY")
    session.wait_for("QWERTY")
    took = time.monotonic() - started
    session.send_keys("Escape")
    session.wait_for("cancelled")
    assert took < 2.0, f"typed keys took {took:.1f} s to show while the block streamed"
