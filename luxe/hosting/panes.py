"""The panes Luxe keeps in its Laura tab: one that follows the agent's edits,
and the ones the `show` tool opens.

`LauraPanes.serve` owns a background task (in the session's nursery) that
updates the edits pane after each `file_changed` event, latest path first:
many edits in a turn move one pane, never open one each, and a pane the
person closed stays closed until the next turn. `follow` is the same one
pane per role for any face (the interface's Guided Review follows its
chapters in a "review" pane). A secret file (by its name or its real
path's, luxe.policy.secret_names) is never opened in a pane: the person would
see it whole, and a comment on it would quote its line to the model; the
review hides such a file's hunks, and so does this its pane. Nothing here blocks a turn
or the interface: events are handed over without waiting, and every socket
call is bounded by the link's timeout. Cancelled, the task just stops.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

import trio

from luxe.git_read import git_read
from luxe.hosting.link import LauraLink
from luxe.policy.secret_names import is_secret_path
from luxe.protocol import events as ev
from luxe.real_path import real_path
from luxe.record import record

log = logging.getLogger("luxe.hosting")

GIT_TIMEOUT_S = 2.0
EDIT_DIFF_CAP = 256 * 1024
_HUNK = re.compile(rb"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@", re.MULTILINE)


@record
class EditView:
    """How an edited file is shown: in diff view when git tracks it and it
    differs from HEAD, with its changed lines (new side) lit."""

    diff: bool
    lines: tuple[int, int] | None


async def edit_view(cwd: Path, path: str) -> EditView:
    """Ask git how `path` differs from HEAD (bounded in time and output,
    luxe.git_read; no git: plain view). Past the cap, the hunks read so far
    are the changed lines: an edit that empties a huge file is one hunk."""
    try:
        done = await git_read(
            "diff", "--no-color", "--no-ext-diff", "--no-textconv", "-U0", "HEAD", "--", path,
            cwd=cwd, timeout_s=GIT_TIMEOUT_S, stdout_cap=EDIT_DIFF_CAP,
        )  # fmt: skip
    except OSError:
        return EditView(False, None)
    if done is None or not done.stdout or (done.returncode != 0 and not done.truncated):
        return EditView(False, None)
    return EditView(True, changed_lines(done.stdout))


def changed_lines(diff: bytes) -> tuple[int, int] | None:
    """The new-side line range from the first to the last changed line of a
    `-U0` diff (a pure deletion lights the line after it)."""
    spans = []
    for match in _HUNK.finditer(diff):
        start = int(match.group(1))
        count = int(match.group(2)) if match.group(2) is not None else 1
        spans.append((max(start, 1), max(start + count - 1, start, 1)))
    if not spans:
        return None
    return min(s for s, _ in spans), max(e for _, e in spans)


def _pane_showing(layout: dict[str, Any] | None, path: str) -> int | None:
    """The id of a file pane that shows `path` (by its real path), if any."""
    if not layout or layout.get("type") != "report":
        return None
    real = real_path(path)
    for pane in layout.get("panes", []):
        shown = pane.get("path")
        if (
            pane.get("kind") == "panel"
            and isinstance(shown, str)
            and real_path(shown) == real
        ):
            return int(pane["id"])
    return None


def _secret(path: Path) -> bool:
    """Whether `path` names a secret file, or is a link to one."""
    return is_secret_path(str(path)) or is_secret_path(real_path(path))


def _pane_ids(layout: dict[str, Any] | None) -> set[int] | None:
    if not layout or layout.get("type") != "report":
        return None
    return {int(pane["id"]) for pane in layout.get("panes", [])}


class LauraPanes:
    """Luxe's panes in one Laura tab (see the module docstring)."""

    def __init__(self, link: LauraLink, cwd: Path, *, show_edits: bool = True) -> None:
        self.link = link
        self.cwd = cwd
        self.show_edits = show_edits
        self._owned: dict[str, int] = {}  # role ("edits", "review") -> its pane
        # Turns are counted as their events pass; an edit is handled later, in
        # the background, so it carries the turn it happened in.
        self._turn = 0
        self._closed_in_turn: int | None = None  # the person closed the edits pane then
        self._pending: tuple[str, int] | None = None
        self._wake = trio.Event()

    # --- from the session's events (never waits) ---------------------------------

    def observe(self, event: ev.Event) -> None:
        """Take note of an event on its way to the front end."""
        if isinstance(event, ev.TurnStarted):
            self._turn += 1
        elif (
            isinstance(event, ev.FileChanged)
            and event.operation in ("write", "edit")
            and self.show_edits
            and not self.link.gone
        ):
            self._pending = (event.path, self._turn)
            self._wake.set()

    def observing(
        self, emit: Callable[[ev.Event], Awaitable[None]]
    ) -> Callable[[ev.Event], Awaitable[None]]:
        """`emit`, with every event noted here first."""

        async def emit_observed(event: ev.Event) -> None:
            self.observe(event)
            await emit(event)

        return emit_observed

    async def serve(self, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """Move the edits pane after edits, one update at a time, until cancelled."""
        task_status.started()
        while True:
            await self._wake.wait()
            self._wake = trio.Event()
            pending, self._pending = self._pending, None
            if pending is not None:
                await self._follow_edit(*pending)

    # --- requests ---------------------------------------------------------------------

    async def announce_ready(self) -> bool:
        """Tell the tab an agent reads its input, so the person's review can
        be submitted to it. False (logged) when the tab is gone."""
        reply = await self.link.request({"type": "ready", "agent": "luxe"})
        return reply is not None and reply.get("type") != "error"

    async def show(
        self, path: str, lines: tuple[int, int] | None = None, diff: bool = False
    ) -> dict[str, Any] | None:
        """Show `path` beside the agent without taking focus: move the
        highlight of the pane that already shows it, else open one."""
        layout = await self.link.request({"type": "layout"})
        showing = _pane_showing(layout, path)
        if showing is not None:
            return await self._point(showing, lines, diff)
        return await self._open(path, None, lines, diff)

    async def _follow_edit(self, path: str, turn: int) -> None:
        if self._closed_in_turn == turn:
            return
        view = await edit_view(self.cwd, path)
        if not await self.follow("edits", path, view.lines, view.diff, reopen=False):
            self._closed_in_turn = turn  # closed until the next turn

    async def follow(
        self,
        role: str,
        path: str,
        lines: tuple[int, int] | None,
        diff: bool,
        *,
        reopen: bool = True,
    ) -> bool:
        """Show `path` in this role's one pane (opened once, then moved to
        each file in place), without taking focus. Where a pane already
        shows the file, light it there instead, keeping the person's place.
        False when the person closed the role's pane and `reopen` is off."""
        layout = await self.link.request({"type": "layout"})
        ids = _pane_ids(layout)
        if ids is None:
            return True  # Laura did not answer: nothing to do, nothing closed
        owned = self._owned.get(role)
        if owned is not None and owned not in ids:
            del self._owned[role]
            owned = None
            if not reopen:
                return False
        showing = _pane_showing(layout, path)
        if showing is not None:
            self._owned.setdefault(role, showing)
            await self._point(showing, lines, diff)
            return True
        reply = await self._open(path, owned, lines, diff)
        if reply is not None and reply.get("type") == "opened":
            self._owned[role] = int(reply["pane"])
        return True

    async def _point(
        self, pane: int, lines: tuple[int, int] | None, diff: bool
    ) -> dict[str, Any] | None:
        """Light `lines` in `pane` (it reloads the file itself), in diff view when asked."""
        reply: dict[str, Any] | None = {"type": "ok"}
        if diff:
            reply = await self.link.request({"type": "diffview", "pane": pane, "on": True})
        if lines is not None:
            reply = await self.link.request(
                {"type": "highlight", "pane": pane, "start": lines[0], "end": lines[1]}
            )
        return reply

    async def _open(
        self, path: str, pane: int | None, lines: tuple[int, int] | None, diff: bool
    ) -> dict[str, Any] | None:
        """Open `path` without taking focus: in pane `pane` (in place) or a
        new one. A secret file is answered as Laura answers a refusal."""
        if _secret(self.cwd / path):
            log.info("not showing %r beside the agent: a secret file", path)
            return {"type": "error", "message": f"{path} is a secret file; it is not shown"}
        frame: dict[str, Any] = {
            "type": "open",
            "path": str(self.cwd / path),  # Laura resolves against its own cwd
            "focus": False,
            "diff": diff,
            "highlight": list(lines) if lines else None,
        }
        if pane is not None:
            frame["panel"] = pane
        return await self.link.request(frame)


def hosted_panes(env: Mapping[str, str], cwd: Path, *, show_edits: bool) -> LauraPanes | None:
    """Luxe's panes when it runs in a Laura tab (`LAURA_TAB` set), else None."""
    tab = env.get("LAURA_TAB")
    if not tab:
        return None
    return LauraPanes(LauraLink(tab), cwd, show_edits=show_edits)
