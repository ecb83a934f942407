"""The budget at which the champion without ``spend`` takes the time of the champion with it:
``python data/strength/spend_calibration.py``.

``spend=True`` makes a searched move take nearly all of its time, so at the same nominal budget the champion
with it thinks longer than without it, and a test between the two at that budget would not be at equal time.
For each nominal budget of ``--times`` (default 0.1 and 1 s), this measures the mean CPU time per move of the
champion of the ledger's kept ideas with ``spend=True`` at that budget, and without it at that budget and at
each multiple of ``--scales`` of it, on the calibration positions of ``awale.experiments.calibration`` (whole
games, every ply: book, database and searched moves alike, as a test's games mix them), the agents taking turns
game by game.  The budget without ``spend`` whose time is nearest, interpolated linearly, is the opponent of the
ledger's test of the idea at that budget.  Writes one row per agent to ``--out`` (default
``spend-calibration.csv`` beside this script) and prints the matched budgets.
"""

import argparse
import os

import numpy as np
import pandas as pd

from awale.experiments.calibration import interleaved_seconds, positions

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CHAMPION = "champion(time={time:g}, endgame='25', manage=True, quiescence=0, reductions=True{spend}, weights='texel')"


def matched(times: pd.DataFrame) -> float:
    """The budget without spend whose time per move equals that of spend at the nominal budget (interpolated)."""
    target = float(times.loc[times["spend"], "cpu_ms"].iloc[0])
    plain = times[~times["spend"]].sort_values("time")
    return float(np.interp(target, plain["cpu_ms"], plain["time"]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--times", type=float, nargs="+", default=[0.1, 1.0], help="nominal budgets (s)")
    parser.add_argument("--scales", type=float, nargs="+", default=[1.15, 1.2, 1.3],
                        help="multiples of each budget measured without spend (besides 1)")
    parser.add_argument("--positions", type=int, default=400, help="at least this many positions")
    parser.add_argument("--out", default=os.path.join(HERE, "spend-calibration.csv"))
    args = parser.parse_args()
    games = positions(os.path.join(ROOT, "data", "experiments.sqlite"), args.positions)
    count = sum(len(game) for game in games)
    rows = []
    for time in args.times:
        specs = {CHAMPION.format(time=time, spend=", spend=True"): (time, True)}
        for scale in (1.0, *args.scales):
            specs[CHAMPION.format(time=round(time * scale, 4), spend="")] = (round(time * scale, 4), False)
        seconds = interleaved_seconds(list(specs), games)
        for spec, (budget, spend) in specs.items():
            rows.append(dict(nominal=time, time=budget, spend=spend, positions=count,
                             cpu_ms=round(1000 * seconds[spec], 3), spec=spec))
        measured = pd.DataFrame([row for row in rows if row["nominal"] == time])
        print(f"at {time:g} s: spend {measured['cpu_ms'].iloc[0]:.2f} ms a move; without it, the same time at "
              f"{matched(measured):.3f} s", flush=True)
    pd.DataFrame(rows).to_csv(args.out, index=False)


if __name__ == "__main__":
    main()
