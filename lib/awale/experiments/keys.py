"""Game keys: what identifies a game (the agents, the match seed, the rules) and the keys of a series.

A game is a pure function of its key (:func:`awale.play.match.play` is
reproducible from its agents, rules and seed), so the same keys give the same
games bit for bit, whatever the order, the batching or the machine that plays
them (:mod:`awale.experiments.runner` plays them into a store).
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from ..agents import canonical_spec
from ..core.rules import Rules, as_rules, rules_to_text
from .store import StoredKey

__all__ = ["GameKey", "canonical_spec", "derive_seed", "check_games", "pair_keys", "round_robin_keys", "MAX_GAMES"]

_MAX_SEED = 2**63 - 1

#: The most games one run, one round robin or one pairing may hold (their keys are kept in memory).
MAX_GAMES = 1_000_000


@functools.lru_cache(maxsize=256)
def _rules_text(rules: Rules) -> str:
    return rules_to_text(rules)


@dataclasses.dataclass(frozen=True)
class GameKey:
    """What identifies a game: the agents, the match seed and the rules.

    The specs are stored in canonical form (``str(parse(spec))``), so
    ``GameKey("greedy(eps=0.0)", ...)`` and ``GameKey("greedy", ...)`` are
    the same key.  Note that :func:`awale.play.match.play` replaces the agents'
    own ``seed`` parameters with ones derived from the match seed, so specs
    differing only by their ``seed`` play the same games under different keys.

    Args:
        south, north: agent specs.
        seed: the match seed, an integer from 0 to 2**63 - 1.
        rules: the rules; ``None`` means ``Rules()`` (Abapa).

    Raises:
        ValueError: a bad spec, seed or rules.
    """

    south: str
    north: str
    seed: int
    rules: Optional[Rules] = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "south", canonical_spec(self.south))
        object.__setattr__(self, "north", canonical_spec(self.north))
        seed = self.seed
        if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or not 0 <= seed <= _MAX_SEED:
            raise ValueError(f"a game's seed must be an integer from 0 to 2**63 - 1, got {seed!r}")
        object.__setattr__(self, "seed", int(seed))
        object.__setattr__(self, "rules", as_rules(self.rules))

    @property
    def stored(self) -> StoredKey:
        """The key as the store holds it (rules as canonical text)."""
        return StoredKey(self.south, self.north, self.seed, _rules_text(self.rules))

    @property
    def pair(self) -> Tuple[str, str]:
        """The two agents, sorted: the same for both colours."""
        return (self.south, self.north) if self.south <= self.north else (self.north, self.south)

    def __str__(self) -> str:
        return f"{self.south} vs {self.north} (seed {self.seed})"


def derive_seed(base: int, index: int) -> int:
    """The match seed of game ``index`` of a series seeded with ``base``: 63 bits from ``SeedSequence([base, index])``.

    Neighbouring bases or indices give unrelated seeds.

    Raises:
        ValueError: a negative or non-integer ``base`` or ``index``.
    """
    for name, value in (("base seed", base), ("game index", index)):
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < 0:
            raise ValueError(f"the {name} must be an integer at least 0, got {value!r}")
    return int(np.random.SeedSequence([int(base), int(index)]).generate_state(1, dtype=np.uint64)[0] >> 1)


def check_games(games: int, pairs: int = 1) -> int:
    """``games`` per pairing, checked: an integer at least 1, and at most :data:`MAX_GAMES` over ``pairs`` pairings.

    Raises:
        ValueError: otherwise, naming the limit.
    """
    if isinstance(games, (bool, np.bool_)) or not isinstance(games, (int, np.integer)) or games < 1:
        raise ValueError(f"the number of games must be an integer at least 1, got {games!r}")
    if games * pairs > MAX_GAMES:
        raise ValueError(
            f"{games:,} games{f' for each of {pairs:,} pairings' if pairs > 1 else ''} are more than a run may "
            f"hold ({MAX_GAMES:,} games); split the experiment"
        )
    return int(games)


def pair_keys(a: str, b: str, games: int, seed: int = 0, rules: Optional[Rules] = None) -> List[GameKey]:
    """The keys of ``games`` games between agents ``a`` and ``b``, half with each as South.

    Games ``2k`` and ``2k + 1`` share the seed ``derive_seed(seed, k)`` and
    swap colours: in game ``2k`` the agent whose canonical spec sorts first
    is South.  So the keys do not depend on the order of ``a`` and ``b``, nor
    on any other pair of agents, and asking for more games keeps the keys of
    the first ones (an experiment grows by resuming).  With an odd number of
    games the first agent in sorted order is South once more.  An agent
    against itself plays game ``i`` with seed ``derive_seed(seed, i)``.

    Raises:
        ValueError: a bad spec, number of games, seed or rules.
    """
    games = check_games(games)
    first, second = sorted((canonical_spec(a), canonical_spec(b)))
    if first == second:
        return [GameKey(first, first, derive_seed(seed, i), rules) for i in range(games)]
    keys = []
    for i in range(games):
        south, north = (first, second) if i % 2 == 0 else (second, first)
        keys.append(GameKey(south, north, derive_seed(seed, i // 2), rules))
    return keys


def round_robin_keys(specs: Sequence[str], games: int, seed: int = 0, rules: Optional[Rules] = None) -> List[GameKey]:
    """The keys of a round robin: every pair of distinct agents plays ``games`` games (see :func:`pair_keys`).

    Raises:
        ValueError: fewer than two agents, an agent given twice (in canonical
            form), or a bad spec, number of games, seed or rules.
    """
    canonical = [canonical_spec(spec) for spec in specs]
    seen: Dict[str, str] = {}
    for spec, given in zip(canonical, specs):
        if spec in seen:
            raise ValueError(f"agent {given!r} is given twice (as {seen[spec]!r}, both {spec!r})")
        seen[spec] = given
    if len(canonical) < 2:
        raise ValueError(f"a round robin needs at least two agents, got {len(canonical)}")
    check_games(games, len(canonical) * (len(canonical) - 1) // 2)
    keys: List[GameKey] = []
    for i, a in enumerate(canonical):
        for b in canonical[i + 1 :]:
            keys.extend(pair_keys(a, b, games, seed, rules))
    return keys
