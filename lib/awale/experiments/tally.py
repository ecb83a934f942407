"""How far an experiment has got and what its games show: each pairing's count and record, the pentanomial
counts of its pairs from openings, its scores with intervals and tests, and the standings of a set of games.
"""

from __future__ import annotations

import dataclasses
import math
from typing import TYPE_CHECKING, List, Optional, Tuple

from ..agents.opening import split_opening
from .design import Experiment
from .openings import pair_result
from .pentanomial import pentanomial
from .store import Store

if TYPE_CHECKING:
    import pandas

__all__ = ["PairStatus", "status", "pair_counts", "pair_results", "results", "standings"]


@dataclasses.dataclass(frozen=True)
class PairStatus:
    """How far one pairing of an experiment has got.

    Attributes:
        agent, opponent: the pairing's canonical specs.
        done: games of the pairing in the store.
        total: games the experiment asks for.
        wins, draws, losses: results of ``agent`` in the games done.
    """

    agent: str
    opponent: str
    done: int
    total: int
    wins: int
    draws: int
    losses: int

    @property
    def score(self) -> float:
        """``agent``'s score (a win 1, a draw ½), per game done; NaN before any game."""
        return (self.wins + self.draws / 2) / self.done if self.done else math.nan


def status(exp: Experiment, store: Store, games: Optional[int] = None) -> List[PairStatus]:
    """Games done and results for each pairing of ``exp`` (with ``games`` per pairing if given).

    Only the games of the experiment's keys count, so stored games of a
    larger run (more games per pairing) are not counted in a smaller one.
    """
    pairings = exp.pairings()
    games = exp.games_per_pairing(games)
    winners = store.winners(exp.name)
    rows = []
    for a, b in pairings:
        done = wins = draws = 0
        keys = exp.pair_keys(a, b, games)
        for key in keys:
            stored = key.stored
            if stored not in winners:
                continue
            done += 1
            winner = winners[stored]
            if winner is None:
                draws += 1
            elif (winner == 0) == ((split_opening(key.south)[0] if exp.openings else key.south) == a):
                wins += 1
        rows.append(PairStatus(a, b, done, len(keys), wins, draws, done - wins - draws))
    return rows


def pair_results(exp: Experiment, store: Store, a: str, b: str,
                 games: Optional[int] = None) -> List[Optional[Tuple[float, float]]]:
    """``a``'s results against ``b`` in each pair of an experiment from openings, in the order of the openings.

    A pair is the two games of one opening, ``a`` South in the first; its
    results are ``a``'s points in each (0, ½ or 1), ``None`` for a pair not
    yet complete.

    Raises:
        ValueError: ``exp`` does not play from openings.
    """
    if not exp.openings:
        raise ValueError(f"{exp.name} does not play its games in pairs from openings")
    winners = store.winners(exp.name)
    keys = exp.pair_keys(a, b, games)
    return [pair_result(winners, pair) for pair in zip(keys[::2], keys[1::2])]


def pair_counts(exp: Experiment, store: Store, a: str, b: str,
                games: Optional[int] = None) -> Tuple[int, int, int, int, int]:
    """The pentanomial counts of ``a``'s complete pairs against ``b`` in an experiment from openings.

    A pair's score is ``a``'s points in its two games (0, ½, 1, 1½ or 2;
    :func:`pair_results`), and the counts say how many pairs scored each
    (:func:`~awale.experiments.pentanomial.pentanomial`).  Their variance,
    unlike that of the games counted one by one, keeps what the two games of
    an opening share.  Pairs not yet complete are left out.

    Raises:
        ValueError: ``exp`` does not play from openings.
    """
    return pentanomial(pair for pair in pair_results(exp, store, a, b, games) if pair is not None)


def results(exp: Experiment, store: Store, games: Optional[int] = None, alpha: float = 0.05) -> "pandas.DataFrame":
    """Each pairing's record, score, confidence interval and test, as a table (see :func:`status`).

    Args:
        exp: the experiment.
        store: the store of its games.
        games: games per pairing to count (by default the experiment's).
        alpha: the level of the tests and one minus that of the intervals.

    Returns:
        One row per pairing, in the experiment's order, with columns
        ``agent``, ``opponent``, ``games`` (done), ``wins``, ``draws``,
        ``losses`` (of ``agent``), ``score``, ``low``, ``high`` (the Wilson
        interval of the score) and ``pvalue`` (the two-sided sign test of
        :func:`awale.experiments.stats.compare`); NaN where no game is done.
    """
    import pandas as pd

    from . import stats

    rows = []
    for pair in status(exp, store, games):
        row = dict(agent=pair.agent, opponent=pair.opponent, games=pair.done, wins=pair.wins, draws=pair.draws,
                   losses=pair.losses, score=math.nan, low=math.nan, high=math.nan, pvalue=math.nan)
        if pair.done:
            result = stats.compare(pair.wins, pair.draws, pair.losses, alpha=alpha)
            row.update(score=result.score, low=result.low, high=result.high, pvalue=result.pvalue)
        rows.append(row)
    return pd.DataFrame(rows, columns=["agent", "opponent", "games", "wins", "draws", "losses", "score", "low",
                                       "high", "pvalue"])


def standings(games: "pandas.DataFrame") -> "pandas.DataFrame":
    """Each agent's results over a set of games, best score first.

    Args:
        games: a frame from :func:`~awale.experiments.store.load` (columns
            ``south``, ``north``, ``winner``).  Games of an agent against
            itself are left out.

    Returns:
        One row per agent (the index), columns ``games``, ``wins``,
        ``draws``, ``losses``, ``points`` (a win 1, a draw ½) and ``score``
        (points per game), sorted by score then points.
    """
    import pandas as pd

    games = games[games["south"] != games["north"]]
    draw = games["winner"].isna().to_numpy()
    south_won = (games["winner"] == 0).fillna(False).to_numpy(dtype=bool)
    north_won = (games["winner"] == 1).fillna(False).to_numpy(dtype=bool)
    sides = pd.concat(
        [
            pd.DataFrame({"agent": games["south"].to_numpy(), "wins": south_won, "draws": draw, "losses": north_won}),
            pd.DataFrame({"agent": games["north"].to_numpy(), "wins": north_won, "draws": draw, "losses": south_won}),
        ],
        ignore_index=True,
    )
    table = sides.groupby("agent", sort=True)[["wins", "draws", "losses"]].sum().astype("int64")
    table.insert(0, "games", table.sum(axis=1))
    table["points"] = table["wins"] + table["draws"] / 2
    table["score"] = table["points"] / table["games"]
    table.index.name = "agent"
    return table.sort_values(["score", "points"], ascending=False, kind="stable")
