"""The champion against plain UCT at equal time per move: its score with a 95 % interval.

``python benchmarks/run.py champion --games 100`` plays ``champion(time=t)``
against ``uct(time=t)`` for t = 50 ms and 500 ms, half the games with each
side, on one worker process per core (each game uses one core at a time), and
keeps the games in a store so that an interrupted run resumes.  At 500 ms a
game lasts about a minute and a half: 100 games take about 40 minutes on two
idle cores.  The issue's bar is a score of at least 90 % at both times.
"""

from __future__ import annotations

import os
from typing import List, Optional, Sequence

from common import score_line

from awale.experiments import Store, canonical_spec, pair_keys
from awale.experiments.runner import default_workers, run as run_games

TIMES = (0.05, 0.5)
STORE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "champion.sqlite")


def run(games: int = 100, times: Sequence[float] = TIMES, store: Optional[str] = None,
        workers: Optional[int] = None) -> List[str]:
    path = store or STORE
    lines = [f"# champion vs plain UCT at equal time per move ({games} games each, store {path})"]
    for seconds in times:
        champion, uct = canonical_spec(f"champion(time={seconds})"), canonical_spec(f"uct(time={seconds})")
        keys = pair_keys(champion, uct, games, seed=17)
        run_games(keys, path, "champion-vs-uct", workers=default_workers() if workers is None else workers, batch_size=1)
        with Store(path, create=False) as kept:
            frame = kept.load("champion-vs-uct")
        frame = frame[frame["seed"].isin({key.seed for key in keys})
                      & frame["south"].isin([champion, uct]) & frame["north"].isin([champion, uct])]
        points = float(((frame["south"] == champion) * frame["result"]
                        + (frame["north"] == champion) * (1 - frame["result"])).sum())
        lines.append(score_line(f"champion vs uct, {seconds * 1000:.0f} ms a move", points, len(frame)))
    return lines
