"""Luxe hosted in a Laura tab: the agent shows its work in panes beside it.

Active only when `LAURA_TAB` is set. `link` speaks Laura's per-tab socket
(one request, one reply, a short timeout); `panes` keeps one reused pane
that follows the agent's edits and answers the `show` tool; `show_tool` is
that tool, offered to the model only when hosted.
"""
