"""What an experiment is: named pairings of agents, each played a number of games, and the keys of its games.

:mod:`awale.experiments.catalog` defines the thesis's experiments with it; :mod:`awale.experiments.tally` reads
how far each has got and what its games show.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Callable, List, Optional, Tuple

from ..core.rules import Rules
from .keys import GameKey, canonical_spec, check_games, pair_keys
from .openings import pair_keys as opening_pair_keys
from .openings import shuffled, standard_openings

if TYPE_CHECKING:
    import pandas

__all__ = ["Experiment", "Pairing"]

#: A pairing: the agent an experiment studies, then its opponent (specs).
Pairing = Tuple[str, str]


@dataclasses.dataclass(frozen=True)
class Experiment:
    """A named experiment: pairings of agents, each played ``games`` games.

    Attributes:
        name: the name, also the experiment's name in the store.
        description: one line.
        build: the function returning the pairings ``(agent, opponent)``.
        games: the default number of games per pairing.
        seed: the base seed of the games (see :func:`~awale.experiments.runner.pair_keys`).
        rules: the rules of every game.
        timed: the agents have time budgets, so the games cannot be
            replayed move for move (only their legality and scores can be
            checked).
        equal_time: each pairing's budgets were calibrated to the same time
            per move (:mod:`awale.experiments.calibration`, which checks it
            on the reader's machine).
        openings: the games start from the library's balanced openings
            (:func:`~awale.experiments.openings.standard_openings`, in the order
            drawn from :attr:`seed`), each played twice with the sides
            swapped (:func:`~awale.experiments.openings.pair_keys`): up to 708
            pairs, no two pairs of a pairing start alike, so deterministic
            agents do not replay the same few games.  The store holds each side as
            ``opening(agent=..., moves=...)``; :func:`~awale.experiments.tally.status` and
            :meth:`Experiment.pairing_games` find a pairing's games by its keys.
    """

    name: str
    description: str
    build: Callable[[], List[Pairing]]
    games: int
    seed: int = 0
    rules: Rules = dataclasses.field(default_factory=Rules)
    timed: bool = False
    equal_time: bool = False
    openings: bool = False

    def pairings(self) -> List[Pairing]:
        """The pairings, in canonical specs."""
        return [(canonical_spec(a), canonical_spec(b)) for a, b in self.build()]

    def _check_games(self, games: Optional[int], pairs: int = 1) -> int:
        """``games`` per pairing (by default :attr:`games`), checked for ``pairs`` pairings and, from openings, even."""
        games = check_games(self.games if games is None else games, pairs)
        if self.openings and games % 2:
            raise ValueError(f"{self.name}: games from openings come in pairs, so ask for an even number, not {games}")
        return games

    def games_per_pairing(self, games: Optional[int] = None) -> int:
        """``games`` per pairing (by default :attr:`games`), checked against the cap of a run before any key is built.

        Raises:
            ValueError: too many games, or an odd number from openings.
        """
        return self._check_games(games, len(self.pairings()))

    def pair_keys(self, a: str, b: str, games: Optional[int] = None) -> List[GameKey]:
        """The keys of the games of ``a`` against ``b``: ``games`` of them (by default :attr:`games`)."""
        games = self._check_games(games)
        if not self.openings:
            return pair_keys(a, b, games, self.seed, self.rules)
        order = shuffled(standard_openings(), self.seed)
        return [key for index in range(games // 2)
                for key in opening_pair_keys(a, b, order, index, self.seed, self.rules)]

    def pairing_games(self, frame: "pandas.DataFrame", a: str, b: str,
                      games: Optional[int] = None) -> "pandas.DataFrame":
        """The games of the pairing of ``a`` and ``b`` in ``frame`` (from :func:`~awale.experiments.store.load`).

        Only the games of the pairing's keys (``games`` of them, by default
        :attr:`games`) are kept, as :func:`~awale.experiments.tally.status` counts them: games of another
        design stored under the same name (other budgets, other openings) are
        left out.  ``a`` and ``b`` are the pairing's canonical specs.
        """
        wanted = {(key.south, key.north, key.seed) for key in self.pair_keys(a, b, games)}
        found = [i for i, key in enumerate(zip(frame["south"], frame["north"], frame["seed"])) if key in wanted]
        return frame.iloc[found]

    def keys(self, games: Optional[int] = None) -> List[GameKey]:
        """The keys of every game: ``games`` per pairing (by default :attr:`games`)."""
        pairings = self.pairings()
        games = self._check_games(games, len(pairings))  # before building any key
        return [key for a, b in pairings for key in self.pair_keys(a, b, games)]
