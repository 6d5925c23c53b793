"""What the command line asked for: `Options`, read by the composition root.

A plain value with no behaviour, so `luxe.cli` (which builds it) and
`luxe.app` (which reads it) both depend on it and not on each other.
"""

from __future__ import annotations

from typing import NamedTuple

from luxe.record import record

PERMISSION_MODES = ("ask", "accept-edits", "read-only", "yolo")
OUTPUT_FORMATS = ("text", "json", "stream-json")
ON_ASK = ("deny", "allow", "fail")


class PrintOptions(NamedTuple):
    """`luxe -p`: one prompt, answered headless (luxe.frontends.print_mode)."""

    prompt: str | None = None  # None: the prompt is read from stdin
    output_format: str = "text"
    on_ask: str = "deny"
    timeout_s: float | None = None


@record
class Options:
    rpc: bool = False
    model: str | None = None
    permission_mode: str | None = None
    continue_latest: bool = False
    resume: str | None = None
    github_writes: bool = False
    auto_approve: bool = False
    trust_project: bool = False
    verbose: bool = False
    max_turns: int | None = None
    # Starting from GitHub (luxe.github.start): decided before the first frame.
    issue: int | None = None
    from_pr: int | None = None
    worktree: str | None = None  # "" for the default name
    print: PrintOptions | None = None  # set by -p/--print
    # The interface (neither -p nor --rpc): a first prompt, the screen-reader mode.
    prompt: str | None = None
    plain: bool = False
