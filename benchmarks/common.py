"""Helpers shared by the benchmarks: rates measured over a time budget, and score intervals."""

from __future__ import annotations

import math
import time
from typing import Callable, Tuple

__all__ = ["best_rate", "wilson_interval", "score_line"]


def best_rate(work: Callable[[int], int], budget: float, first: int) -> float:
    """Units of work per second: batches of growing size for ``budget`` seconds, the best batch's rate."""
    best, size, spent = 0.0, first, 0.0
    while spent < budget:
        start = time.perf_counter()
        done = work(size)
        elapsed = time.perf_counter() - start
        spent += elapsed
        best = max(best, done / elapsed)
        if elapsed < budget / 5:
            size *= 2
    return best


def wilson_interval(score: float, games: int, z: float = 1.96) -> Tuple[float, float]:
    """The 95% Wilson score interval of a proportion (draws counted as half a win)."""
    if games == 0:
        return 0.0, 1.0
    centre = (score + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(score * (1 - score) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return max(0.0, centre - half), min(1.0, centre + half)


def score_line(label: str, points: float, games: int) -> str:
    """``label``: the score of ``points`` out of ``games`` with its 95% interval."""
    score = points / games if games else float("nan")
    low, high = wilson_interval(score, games)
    return f"  {label:<52} {score:6.1%}  [{low:.1%}, {high:.1%}]  over {games} games"
