"""A change of thousands of small files, half defining one name and half
using it, is a pack of a few kilobytes. The fallback chapters order files
so a definition comes before its uses; unbounded, that order made a
dependency from every user to every definer (36 million for 12,000 files:
35 s and 3 GB, with the event loop held, so no frame and no close was
answered). Through the real `luxe --rpc`: the review loads, in bounded
memory."""

from __future__ import annotations

import pytest

from tests.helpers.gitrepo import Repo
from tests.helpers.procs import peak_rss_kb
from tests.luxe.conftest import SpawnLuxe
from tests.luxe.review.rpc_helpers import NO_CHAPTERS, load

FILES = 3_000  # of each kind: 6,000 files, a diff of 0.8 MB

SPELLINGS = {
    "python, a commit": ("py", "def foo():\n    pass\n", "foo()\n", "commit"),
    "javascript, a branch": ("js", "export function handler() {}\n", "handler();\n", "branch"),
}


@pytest.mark.parametrize("spelling", list(SPELLINGS))
def test_thousands_of_files_defining_and_using_one_name_load_in_bounded_memory(
    spawn: SpawnLuxe, repo: Repo, spelling: str
) -> None:
    ext, definition, use, target = SPELLINGS[spelling]
    repo.write("README.md", "x\n")
    repo.commit("init")
    repo.git("checkout", "-q", "-b", "topic")
    for index in range(FILES):
        repo.write(f"lib/def{index}.{ext}", definition)
        repo.write(f"app/use{index}.{ext}", use)
    sha = repo.commit("many files")
    luxe = spawn([NO_CHAPTERS], cwd=repo.path)
    luxe.expect("ready")
    wanted = {"kind": "commit", "sha": sha} if target == "commit" else {"kind": "branch", "base": "main"}
    review, _ = load(luxe, "r", wanted)
    assert len(review["files"]) == 2 * FILES
    covered = sorted(h for c in review["chapters"] for h in c["hunk_ids"])
    assert covered == sorted(h["id"] for h in review["hunks"])
    assert peak_rss_kb(luxe.pid) < 250 << 10, peak_rss_kb(luxe.pid)  # it was 430 MB, 3 GB for twice the files
    assert luxe.close() == 0
