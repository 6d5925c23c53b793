"""A file pane's file against git HEAD, for one load: the diff, its gutter
marks and `+a -d`.

Git is asked lazily, once per load: inline when the pane has no background
loader (a `Tab` driven directly), else by a job in the tab's nursery (git
runs async, in its own process group; laura.gitmarks). Until it answers the
file shows no changes and no marks; an answer for an older load is dropped.
The job owns nothing past its `await`s: cancelled with the tab's nursery.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from laura import gitmarks
from laura.panes.source import Loader
from laura.render.marks import Marks
from laura.steps import drive

NO_CHANGES = gitmarks.GitDiff(gitmarks.NO_CHANGES)

# Called with git's answer for the current load (the pane re-lays its rows).
Answered = Callable[[gitmarks.GitDiff, Marks], None]


class FileGit:
    """Git's answer about one pane's file (see the module docstring)."""

    def __init__(
        self,
        path: str,
        loader: Loader,
        line_count: Callable[[], int],
        answered: Answered,
        *,
        asks: bool = True,
    ) -> None:
        self.path = path
        self.loader = loader
        self.line_count = line_count  # of the load now shown
        self.answered = answered
        self.asks = asks  # False for a dry run's pane: it never starts a job
        self.load = 0  # the load this is about
        self.diff: gitmarks.GitDiff | None = None  # git's answer, once known
        self.marks: Marks | None = None
        self._asked: int | None = None  # the load git was last asked about

    @property
    def _limit(self) -> int:
        return gitmarks.output_limit(self.loader.cap)

    def new_load(self, load: int) -> None:
        self.load = load
        self.diff = self.marks = None

    def ask_again(self) -> None:
        """Forget the answer (the diff view asks about the file as it is)."""
        self.diff = self.marks = None

    def diff_of(self, readable: bool) -> gitmarks.GitDiff:
        """The answer, asking for it if need be (no changes until it comes)."""
        if self.diff is None:
            if not readable:
                self.diff = NO_CHANGES
            elif (offered := self.loader.take(self.path)) is not None:
                self.diff = offered
            elif self.loader.in_background:
                self._ask()
                return NO_CHANGES
            else:
                self.diff = gitmarks.git_diff_blocking(self.path, self._limit)
        return self.diff

    def marks_of(self, readable: bool) -> Marks:
        if self.marks is None:
            diff = self.diff_of(readable)
            if self.diff is None:  # git has not answered yet
                return gitmarks.marks_of(diff, 0)
            self.marks = gitmarks.marks_of(diff, self.line_count())
        return self.marks

    def _ask(self) -> None:
        if self._asked == self.load or not self.asks:
            return
        self._asked = self.load
        self.loader.start(functools.partial(self._job, self.load))

    async def _job(self, load: int) -> None:
        diff = await gitmarks.git_diff(self.path, self._limit)
        marks = await drive(gitmarks.marks_steps(diff.hunks, self.line_count()))
        if load == self.load:
            self.answered(diff, marks)
            self.loader.on_change()

    async def refresh(self) -> None:
        """Ask git afresh and wait for the answer."""
        load = self.load
        diff = await gitmarks.git_diff(self.path, self._limit)
        if load == self.load:
            self.answered(diff, await drive(gitmarks.marks_steps(diff.hunks, self.line_count())))
