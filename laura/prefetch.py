"""What a request needs from git, Pygments and a pane's layout, made before the request applies.

Requests apply synchronously to the tab's state (laura/tab.py), but git is a
subprocess and must never be waited for on the UI loop. So the host's
connection task awaits git here first — the loop keeps running keys and
frames meanwhile — and the answer is waiting when the request applies: an
`open` finds its file's diff offered on the tab's loader (so the reply can
warn about a missing git or an empty `--diff`), a `diffview` finds its pane's
diff asked afresh. Big files are not waited for: their pane asks git in the
background. An `open` also finds its file's Pygments lexer found and
compiled, in a worker thread (laura/render/code.py: up to 200 ms the first
time, which would otherwise hold the loop). Files written in the last two
seconds are hashed, in steps between keys, for the poll every request
starts with. A `comment` finds its pane's file loaded and its rows laid out through
the line, in steps between keys (the anchor of a line in a folded markdown
block is its block's).

Cancellation: cancelled with the connection task; git's process group is
killed by `gitmarks.git_diff`.
"""

from __future__ import annotations

from pathlib import PurePath

import trio

from laura import gitmarks
from laura.filecheck import refusal
from laura.panes.source import file_size, loads_inline
from laura.panes.watch import digest_ahead
from laura.protocol import Comment, DiffView, Open, ProtocolError, decode_request
from laura.render import code
from laura.tab import Tab

# The longest an `open` reply waits for git before answering without it.
OPEN_GIT_WAIT = 2.0
# The longest a `comment` waits for its pane's file to load and its rows to
# be laid out through the line (a client gives up after 30 s).
COMMENT_WAIT = 20.0


async def prefetch(tab: Tab, line: bytes) -> None:
    """Ask git what `line`'s request will need (nothing for other requests)."""
    # Every request polls the tab's files first: a file just written is
    # hashed here, in steps.
    await digest_ahead([pane.watch for pane in tab.panes.values()])
    try:
        request = decode_request(line)
    except ProtocolError:
        return
    if isinstance(request, Open) and not request.edit:
        path = tab.resolve(request.path)
        await trio.to_thread.run_sync(
            code.ready_lexer_for, PurePath(path).name, abandon_on_cancel=True
        )
    if isinstance(request, Open) and not request.dry_run and not request.edit:
        path = tab.resolve(request.path)
        if loads_inline(path, file_size(path)) and refusal(path) is None:
            with trio.move_on_after(OPEN_GIT_WAIT):
                limit = gitmarks.output_limit(tab.loader.cap)
                tab.loader.offer(path, await gitmarks.git_diff(path, limit))
    elif isinstance(request, Comment):
        found = tab.panes.get(tab.focus if request.pane is None else request.pane)
        if found is not None:
            with trio.move_on_after(COMMENT_WAIT):
                await found.reach(request.line, tab.pane_inner(found).width)
    elif isinstance(request, DiffView) and request.on is not False:
        tab.poll_files()  # the diff is of the file as it is now
        pane = tab.focus if request.pane is None else request.pane
        found = tab.panes.get(pane)
        if found is not None:
            await found.refresh_git()
