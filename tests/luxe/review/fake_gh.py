"""The fake gh (tests/fakes/gh) on PATH for the review tests, with its state file."""

from __future__ import annotations

import json
from pathlib import Path

FAKE_GH = Path(__file__).resolve().parents[2] / "fakes" / "gh"


class FakeGh:
    """The fake gh on PATH, with its state file."""

    def __init__(self, bin_dir: Path, state_path: Path) -> None:
        self.state_path = state_path
        self.path = bin_dir / "gh"  # in the command line of every fake gh running
        bin_dir.mkdir(parents=True, exist_ok=True)
        (bin_dir / "gh").symlink_to(FAKE_GH)
        self.write({"default_repo": "acme/widgets", "repos": {}})

    def write(self, state: dict[str, object]) -> None:
        self.state_path.write_text(json.dumps(state))

    def state(self) -> dict[str, object]:
        return json.loads(self.state_path.read_text())

    def add_pull(
        self, repo: str, number: int, base: str, head: str, diff: str, hang_s: float = 0
    ) -> None:
        state = self.state()
        repos = state.setdefault("repos", {})
        assert isinstance(repos, dict)
        repos.setdefault(repo, {"pulls": {}})["pulls"][str(number)] = {
            "baseRefOid": base,
            "headRefOid": head,
            "diff": diff,
            "hang_s": hang_s,
        }
        self.write(state)
