"""The interface's GitHub state, `ViewState.github`: the branch's pull
request (from workspace_updated), the last `/pr`'s threads, the writes
waiting for an answer, and the confirmation waiting for a key.

Light on purpose: the interface's first frame makes a ViewState before
GitHub's frames (luxe.protocol.github) are loaded, so their types are
named here, not imported. luxe.frontends.tui.github and github_writes
change it; nothing here does I/O.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs

from luxe.record import state

if TYPE_CHECKING:
    from luxe.frontends.tui.github_writes import Confirmation
    from luxe.protocol.github import PullRequestInfo, ReviewThread


@state
class GitHubView:
    pull_request: PullRequestInfo | None = None
    threads: list[ReviewThread] = attrs.Factory(list)  # `/pr`'s, numbered from 1
    asked: dict[str, str] = attrs.Factory(dict)  # request_id -> what to call it when answered
    merges: dict[str, tuple[str, bool]] = attrs.Factory(dict)  # load request_id -> (method, delete)
    sent: dict[str, Confirmation] = attrs.Factory(dict)  # confirmed opens, offered again if they fail
    confirm: Confirmation | None = None
