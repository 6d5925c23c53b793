"""The environment a hosted program starts with: Laura's own, minus the outer
terminal's and multiplexer's identity, plus the tab's.

A program inside a tab talks to Laura's VT emulator, not to the terminal or
multiplexer Laura itself runs in. Variables that name that outer program make
a hosted program send it sequences Laura does not pass through, offer
features it cannot reach, or give advice that does not apply (Claude Code in
Laura in tmux printed tmux's focus-event advice). `OUTER_IDENTITY` is the one
list of what goes, each with why; docs/laura.md "What a hosted program sees"
states the same.
"""

from __future__ import annotations

from collections.abc import Mapping

from laura import __version__

# Name -> why it goes. A name ending in "*" is a prefix: every variable that
# starts with it goes.
OUTER_IDENTITY: dict[str, str] = {
    "TMUX": "tmux's socket: a program seeing it assumes tmux, wraps sequences in tmux "
    "passthrough and gives tmux-only advice",
    "TMUX_PANE": "the outer tmux pane: `tmux` commands run from the tab would act on it",
    "STY": "GNU screen's session: programs assume screen and use its quirks",
    "WINDOW": "GNU screen's window number, meaningless inside Laura",
    "KITTY_WINDOW_ID": "kitty's window: programs try the kitty graphics and keyboard "
    "protocols, which Laura does not pass through",
    "KITTY_PID": "the outer kitty process, for remote control Laura's tab cannot reach",
    "WEZTERM_PANE": "the outer WezTerm pane: programs assume WezTerm and its extensions",
    "ITERM_SESSION_ID": "the outer iTerm2 session: programs send iTerm2's proprietary "
    "sequences (inline images, marks)",
    "LC_TERMINAL": "iTerm2's name for itself (set so it survives ssh): the same as ITERM_SESSION_ID",
    "LC_TERMINAL_VERSION": "goes with LC_TERMINAL",
    "ZELLIJ*": "Zellij's session and pane: programs assume Zellij",
    "TERM_SESSION_ID": "Terminal.app's (and iTerm2's) session, for their session restore",
    "VTE_VERSION": "GNOME Terminal and other VTE terminals: programs enable VTE-only "
    "features (vte.sh's prompt hooks, cursor shapes)",
    "LAURA_*": "an outer Laura's tab and settings: a client verb in this tab must reach "
    "this tab, so only the tab's own LAURA_TAB and LAURA_RUNTIME are set",
    "COLUMNS": "the outer terminal's width; the child's PTY has its own size",
    "LINES": "the outer terminal's height; the child's PTY has its own size",
}

# Set for every hosted program (overriding what Laura inherited): Laura's VT
# emulator is an xterm-compatible terminal with 24-bit colour.
TERMINAL_IDENTITY: dict[str, str] = {
    "TERM": "xterm-256color",
    "COLORTERM": "truecolor",
    "TERM_PROGRAM": "laura",
    "TERM_PROGRAM_VERSION": __version__,
}


def _is_outer(name: str) -> bool:
    return any(
        name.startswith(entry[:-1]) if entry.endswith("*") else name == entry
        for entry in OUTER_IDENTITY
    )


def hosted_environment(parent: Mapping[str, str], tab: str, runtime: str) -> dict[str, str]:
    """The environment for a program hosted in tab `tab`: `parent` (Laura's
    own) without the outer identity, with Laura's terminal identity, the
    tab's socket name (`LAURA_TAB`) and the runtime directory (`LAURA_RUNTIME`)."""
    env = {name: value for name, value in parent.items() if not _is_outer(name)}
    env.update(TERMINAL_IDENTITY)
    env.update(LAURA_TAB=tab, LAURA_RUNTIME=runtime)
    return env
