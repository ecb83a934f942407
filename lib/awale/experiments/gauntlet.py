"""The gauntlet: the champion of each kept idea against other programs and styles, beside self-play.

Every row of the ledger of ideas (:mod:`awale.experiments.ledger`) is a
sequential test of the champion against the champion before it.  A gain found
only in self-play can be a gain against itself, so each champion that a kept
idea made, and the first champion (the reference of the first row), also plays
a fixed gauntlet of other styles (:data:`GAUNTLET_OPPONENTS`):

* OpenSpiel's αβ search (Python, leaves scored by the capture difference) at
  ten plies;
* OpenSpiel's C++ MCTS at the 5,700 simulations that take 0.1 s a move;
* UCT with the fitted evaluation at its leaves, at the 69,000 iterations that
  take 0.1 s a move;
* the first champion of the ledger.

Each player meets each opponent in :data:`GAUNTLET_GAMES` games, in pairs
from the library's balanced openings with the sides swapped, the same openings
for every player, so that two players' results can be compared pair by pair
(:meth:`Gauntlet.change`).  The champions play at ``time=0.1`` (an idea kept at
another time a move too, :func:`gauntlet_player`), so the games are timed and
cannot be replayed move for move.  :meth:`Gauntlet.scores` gives
each player's score over its gauntlet, :meth:`Gauntlet.changes` what each kept
idea did to it, with a 95 % interval, and whether it fell.

An idea kept under a clock changes nothing at a time a move, so it has its own
gauntlet, :data:`GAUNTLET_CLOCKED`: its champion and the one before it, both
under the clock of its test, against the same opponents from the same openings.
"""

from __future__ import annotations

import dataclasses
import math
from statistics import NormalDist
from typing import TYPE_CHECKING, Dict, List, Optional, Sequence, Tuple

from ..agents import parse
from ..agents.clocked import with_clock
from .budgets import at_time
from .design import Experiment, Pairing
from .keys import canonical_spec
from .store import Store
from .tally import pair_results

if TYPE_CHECKING:
    import pandas

    from . import ledger

__all__ = ["FIRST_CHAMPION", "GAUNTLET", "GAUNTLET_CLOCK", "GAUNTLET_CLOCKED", "GAUNTLET_CLOCKED_PLAYERS",
           "GAUNTLET_GAMES", "GAUNTLET_OPPONENTS", "GAUNTLET_PLAYERS", "GAUNTLET_TIME", "Change", "Gauntlet",
           "clustered_mean", "gauntlet_player", "ledger_rows"]

_Z95 = NormalDist().inv_cdf(0.975)  # the normal quantile of a two-sided 95 % interval


def clustered_mean(values: Dict[Tuple[str, int], float]) -> Tuple[float, float, float]:
    """The mean of values keyed by ``(opponent, opening index)`` and its normal 95 % interval, clustered by opening.

    The pairs a champion plays from one opening against the several opponents are
    not independent, so the openings, not the pairs, are the units of the
    variance: ``m / (m - 1) * Σ_openings (Σ (v - mean))² / n²`` for ``n`` values
    from ``m`` openings (the cluster-robust variance of a mean).  One opening
    gives the whole real line.

    Raises:
        ValueError: no values.
    """
    if not values:
        raise ValueError("a mean needs at least one value")
    n = len(values)
    mean = sum(values.values()) / n
    clusters: Dict[int, float] = {}
    for (_, index), value in values.items():
        clusters[index] = clusters.get(index, 0.0) + value - mean
    m = len(clusters)
    half = _Z95 * math.sqrt(m / (m - 1) * sum(c * c for c in clusters.values())) / n if m > 1 else math.inf
    return mean, mean - half, mean + half


@dataclasses.dataclass(frozen=True)
class Change:
    """What an idea did to the gauntlet: ``player`` (the champion with it) against ``before`` (without it).

    Both are scored on the ``pairs`` of games both completed (the same opponent,
    the same opening) against ``opponents``: ``score`` and ``before_score``;
    ``difference`` is the first less the second, ``low`` and ``high`` its 95 %
    interval, clustered by opening (:func:`clustered_mean` of the pairs' differences).
    """

    player: str
    before: str
    pairs: int
    opponents: Tuple[str, ...]
    score: float
    before_score: float
    difference: float
    low: float
    high: float

    @property
    def falls(self) -> bool:
        """The gauntlet score is lower with the idea than without it (by any margin)."""
        return self.difference < 0

    @property
    def falls_significantly(self) -> bool:
        """The whole 95 % interval of the change is below zero."""
        return self.high < 0

    def text(self) -> str:
        """The change with its interval and pairs, and ``falls`` (``falls significantly``) where it does."""
        said = f"{self.difference:+.3f} [{self.low:+.3f}, {self.high:+.3f}], {self.pairs} pairs"
        if self.falls:
            said += ", falls significantly" if self.falls_significantly else ", falls"
        return said


@dataclasses.dataclass(frozen=True)
class Gauntlet:
    """Players, each meeting every opponent in ``games`` games from openings (pairs, the sides swapped).

    Attributes:
        name: the name of its experiment in the store.
        players: the players' specs, each after the one it was tested against (the first a reference).
        opponents: ``(short name, spec)`` of each opponent; a player does not meet itself.
        games: games of each player against each opponent (even).
        seed: the base seed of the games and of the order of the openings.
        timed: the players (or opponents) have time budgets: the games cannot be replayed move for move.
    """

    name: str
    players: Tuple[str, ...]
    opponents: Tuple[Tuple[str, str], ...]
    games: int
    seed: int = 0
    timed: bool = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "players", tuple(canonical_spec(p) for p in self.players))
        object.__setattr__(self, "opponents", tuple((name, canonical_spec(s)) for name, s in self.opponents))

    def pairings(self) -> List[Pairing]:
        """Each player against each opponent but itself."""
        return [(player, spec) for player in self.players for _, spec in self.opponents if spec != player]

    @property
    def experiment(self) -> Experiment:
        """The experiment that plays the gauntlet (``python -m awale experiment run NAME``)."""
        return Experiment(
            self.name,
            f"{len(self.players)} players vs {', '.join(n for n, _ in self.opponents)}, from openings"
            + (" (timed: not replayable)" if self.timed else ""),
            self.pairings, self.games, seed=self.seed, timed=self.timed, openings=True,
        )

    def pairs(self, store: Store, player: str,
              games: Optional[int] = None) -> Dict[Tuple[str, int], Tuple[float, float]]:
        """``player``'s results (0, ½ or 1 a game) in each complete pair of its gauntlet, by ``(opponent, pair
        index)``.  The pair index names the opening, the same for every player, so two players' pairs match."""
        player, experiment, found = canonical_spec(player), self.experiment, {}
        for _, opponent in self.opponents:
            if opponent != player:
                for index, pair in enumerate(pair_results(experiment, store, player, opponent, games)):
                    if pair is not None:
                        found[(opponent, index)] = pair
        return found

    def scores(self, store: Store, games: Optional[int] = None) -> "pandas.DataFrame":
        """Each player's gauntlet, one row a player in :attr:`players`' order.

        Columns: ``player``; ``games`` (of complete pairs); ``score`` over the
        whole gauntlet (a win 1, a draw ½) with ``low`` and ``high``, its 95 %
        interval clustered by opening (:func:`clustered_mean` of the pairs' scores, within [0, 1]);
        then the score against each opponent, a column named by its short name
        (NaN where no pair is complete, and for a player against itself).
        """
        import pandas as pd

        rows = []
        for player in self.players:
            pairs = self.pairs(store, player, games)
            row: Dict[str, object] = dict(player=player, games=2 * len(pairs), score=math.nan, low=math.nan,
                                          high=math.nan)
            if pairs:
                score, low, high = clustered_mean({key: sum(pair) / 2 for key, pair in pairs.items()})
                row.update(score=score, low=max(low, 0.0), high=min(high, 1.0))
            for name, spec in self.opponents:
                mine = [sum(pair) / 2 for (opponent, _), pair in pairs.items() if opponent == spec]
                row[name] = sum(mine) / len(mine) if mine else math.nan
            rows.append(row)
        return pd.DataFrame(rows)

    def change(self, store: Store, player: str, before: str, games: Optional[int] = None) -> Change:
        """The change in gauntlet score from ``before`` to ``player``, pair by pair (:class:`Change`).

        Raises:
            ValueError: the two share no complete pair.
        """
        mine, theirs = ({key: sum(pair) / 2 for key, pair in self.pairs(store, spec, games).items()}
                        for spec in (player, before))
        common = sorted(set(mine) & set(theirs))
        if not common:
            raise ValueError(f"{player} and {before} have no complete gauntlet pair in common")
        n = len(common)
        mean, low, high = clustered_mean({k: mine[k] - theirs[k] for k in common})
        played = {opponent for opponent, _ in common}
        return Change(
            canonical_spec(player), canonical_spec(before), n,
            tuple(name for name, spec in self.opponents if spec in played),
            sum(mine[k] for k in common) / n, sum(theirs[k] for k in common) / n, mean, low, high,
        )

    def ms_per_move(self, store: Store, games: Optional[int] = None) -> Dict[str, float]:
        """Each player's and each opponent's mean thinking time per move (ms) over its stored games of the
        gauntlet (a player that is also an opponent, over both), the openings' plies left out; NaN without games.
        """
        import pandas as pd

        from ..agents.opening import split_opening
        from .ratings import ms_per_move

        frame, experiment = store.load(self.name), self.experiment
        played = pd.concat([experiment.pairing_games(frame, a, b, games) for a, b in self.pairings()])
        split = {spec: split_opening(spec) for spec in set(played["south"]) | set(played["north"])}
        plies = {len(moves) for _, moves in split.values()}
        if len(plies) > 1:
            raise ValueError(f"{self.name}: openings of several lengths ({sorted(plies)} plies)")
        played = played.assign(south=played["south"].map(lambda s: split[s][0]),
                               north=played["north"].map(lambda s: split[s][0]))
        opening_plies = next(iter(plies), 0)
        specs = dict.fromkeys(self.players + tuple(spec for _, spec in self.opponents))
        return {spec: ms_per_move(played, spec, opening_plies) for spec in specs}

    def changes(self, store: Store, games: Optional[int] = None) -> List[Change]:
        """What each player after the first did to the gauntlet score of the one before it."""
        return [self.change(store, player, before, games) for before, player in zip(self.players, self.players[1:])]


#: The first champion of the ledger: the champion its first idea was tested against.
FIRST_CHAMPION = "champion(time=0.1, endgame='15')"

#: The gauntlet's opponents: a short name and a spec each.
GAUNTLET_OPPONENTS: Tuple[Tuple[str, str], ...] = (
    ("OpenSpiel αβ", "openspiel_alphabeta(depth=10)"),
    ("OpenSpiel MCTS", at_time("OpenSpiel MCTS", 100)),
    ("UCT + evaluation", at_time("uct + evaluation", 100)),
    ("first champion", FIRST_CHAMPION),
)

#: The time a move of the gauntlet's champions, in seconds: that of most of the ledger's tests.
GAUNTLET_TIME = 0.1


def gauntlet_player(spec: str) -> str:
    """The champion of a kept idea as it plays the gauntlet: its spec at :data:`GAUNTLET_TIME` a move."""
    return parse(spec).replace(time=GAUNTLET_TIME).spec


#: The players: the first champion, then the champion each kept idea (verdict H1) of the ledger made, in the
#: ledger's order, each at 100 ms a move (the test suite checks them against ``data/strength/ledger.csv``): row
#: 22, kept at 1 s, plays here at 100 ms as the others do.  Row 18, kept under a clock, changes nothing at a time a
#: move, so it has no player here.
GAUNTLET_PLAYERS: Tuple[str, ...] = (
    FIRST_CHAMPION,
    "champion(time=0.1, endgame='15', quiescence=0)",
    "champion(time=0.1, endgame='15', quiescence=0, reductions=True)",
    "champion(time=0.1, endgame='25', quiescence=0, reductions=True)",
    "champion(time=0.1, endgame='25', quiescence=0, reductions=True, weights='texel')",
    "champion(time=0.1, endgame='25', manage=True, quiescence=0, reductions=True, weights='texel')",
    "champion(time=0.1, endgame='28', manage=True, quiescence=0, reductions=True, weights='texel')",
)

#: Games of each player against each opponent.
GAUNTLET_GAMES = 50

#: The thesis's gauntlet (``python -m awale experiment run gauntlet``).
GAUNTLET = Gauntlet("gauntlet", GAUNTLET_PLAYERS, GAUNTLET_OPPONENTS, GAUNTLET_GAMES)

#: The clock of the gauntlet under a clock: that of the ledger's row 18, the idea kept under a clock.
GAUNTLET_CLOCK = "3+0.03"

#: The players under :data:`GAUNTLET_CLOCK`: the champion that row 18 was tested against (the fifth kept idea's),
#: then the champion of row 18, which counts the moves left under a clock by the seeds above its endgame database.
#: The opponents are those of :data:`GAUNTLET`, at their budgets a move.
GAUNTLET_CLOCKED_PLAYERS: Tuple[str, ...] = tuple(
    with_clock(spec, GAUNTLET_CLOCK).spec
    for spec in (
        "champion(time=0.1, endgame='25', manage=True, quiescence=0, reductions=True, weights='texel')",
        "champion(time=0.1, endgame='25', manage=True, clock_moves='database', quiescence=0, reductions=True, "
        "weights='texel')",
    )
)

#: The gauntlet of the ideas kept under a clock (``python -m awale experiment run gauntlet-clock``).
GAUNTLET_CLOCKED = Gauntlet("gauntlet-clock", GAUNTLET_CLOCKED_PLAYERS, GAUNTLET_OPPONENTS, GAUNTLET_GAMES)


def ledger_rows(entries: Sequence["ledger.Entry"]) -> Dict[str, int]:
    """The row of the ledger ``entries`` (numbered from 1) behind each player of :data:`GAUNTLET` and
    :data:`GAUNTLET_CLOCKED` but the first champion: the kept idea (verdict H1) whose champion it is, as it plays
    there (an idea kept at a time a move at :data:`GAUNTLET_TIME`, one kept under a clock as the ledger played it);
    for the first player under the clock, the row of the same champion at a time a move.  A player no kept idea
    of ``entries`` made is a ValueError that names it: the gauntlets and the ledger have drifted apart."""
    kept = {}
    for row, entry in enumerate(entries, 1):
        if entry.verdict == "H1":
            kept[entry.a if parse(entry.a).clock is not None else gauntlet_player(entry.a)] = row
    rows = {}
    for player in GAUNTLET.players[1:] + GAUNTLET_CLOCKED.players:
        found = kept.get(player)
        if found is None and player == GAUNTLET_CLOCKED.players[0]:
            found = kept.get(parse(player).agent)
        if found is None:
            raise ValueError(f"no kept idea of the ledger made the gauntlet's player {player}")
        rows[player] = found
    return rows
