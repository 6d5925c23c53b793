"""A repository's symlink to a directory outside it: the secret files there
are the person's (a sibling project's `.env`, reached by `vend -> ../other`
or `up -> ..`), and no tool may carry their values to the model, the client
or a session file. Through the real `luxe --rpc`, in every permission mode."""

from __future__ import annotations

from pathlib import Path

import pytest

from .e2e import call
from .hostile import MODES, everything_written, one_turn_leaks_nothing

VALUE = "siblingkey-Kx91PqL7zT"
OTHER_VALUE = "siblingprod-Wq27HvN4cR"

SEARCHES = [
    "grep -rh = vend/",  # the link named as the root
    "grep -r API_KEY up/",  # a link to an ancestor of the project
    "grep -R SECRET .",  # -R follows the link inside the project
    "find vend/ -type f | xargs cat",  # names bash never sees
    "find -L . -name '*.production' -exec cat {} +",
]


@pytest.mark.parametrize("mode", MODES)
def test_secrets_behind_a_link_out_of_the_project_stay_secret(
    mode: str, repo: Path, env: dict[str, str]
) -> None:
    other = repo.parent / "other" / "app"
    other.mkdir(parents=True)
    (other / ".env").write_text(f"API_KEY={VALUE}\n")
    (other / ".env.production").write_text(f"SECRET={OTHER_VALUE}\n")
    (repo / "vend").symlink_to("../other/app")
    (repo / "up").symlink_to("..")
    calls = [call("bash", command=c) for c in SEARCHES]
    calls.append(call("grep", pattern="SECRET|API", path="up"))
    one_turn_leaks_nothing(calls, mode, [VALUE, OTHER_VALUE], cwd=repo, env=env)
    written = everything_written(env)
    assert VALUE not in written and OTHER_VALUE not in written
