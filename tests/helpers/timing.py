"""Timing comparisons that hold on a busy machine: each contender run in
turn several times, its best run kept. One run can meet a collection, a
page fault storm or a neighbour's burst (CI once saw 0.125 s against
0.025 s for two equal costs); the slow paths these tests guard against
cost hundreds of times more on every run."""

from __future__ import annotations

import time
from collections.abc import Callable

RUNS = 5


def best_times(*contenders: Callable[[], object], runs: int = RUNS) -> list[float]:
    """The best time of each contender over `runs` interleaved rounds,
    after one warm-up round."""
    for run in contenders:
        run()
    best = [float("inf")] * len(contenders)
    for _ in range(runs):
        for n, run in enumerate(contenders):
            start = time.perf_counter()
            run()
            best[n] = min(best[n], time.perf_counter() - start)
    return best
