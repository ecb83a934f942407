"""The openings of paired games: the balanced openings shipped with the library, their order in a test, and
the keys of a pair (one opening played twice, the sides swapped), as :mod:`awale.experiments.sprt` and the
experiments from openings (:attr:`awale.experiments.catalog.Experiment.openings`) play them.
"""

from __future__ import annotations

import functools
import hashlib
import os
import pathlib
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from ..core.game import Game
from ..core.rules import Rules, as_rules
from .keys import GameKey, canonical_spec, derive_seed

__all__ = [
    "OPENINGS_FILE",
    "load_openings",
    "standard_openings",
    "openings_digest",
    "shuffled",
    "opening_spec",
    "pair_keys",
    "pair_result",
    "keys_of_pairs",
]


def load_openings(path: Union[str, os.PathLike], rules: Optional[Rules] = None) -> Tuple[str, ...]:
    """The openings of a file: one per line, its actions as digits (``2514``), ``#`` starts a comment.

    Anything after the digits on a line (whitespace first) is ignored, so a
    line may carry a note such as the opening's value.  Each opening is
    played through the rules from the initial position: every action must be
    legal and the game must not be over at its end.

    Raises:
        ValueError: a malformed or illegal opening, a repeated one, or no openings.
        OSError: the file cannot be read.
    """
    rules = as_rules(rules)
    found: List[str] = []
    seen: Dict[str, int] = {}
    text = pathlib.Path(path).read_text(encoding="utf-8")
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        moves = line.split()[0]
        where = f"{path}, line {number}"
        if not moves.isdigit() or any(c not in "012345" for c in moves):
            raise ValueError(f"{where}: an opening is a string of digits 0 to 5 (one per ply), got {moves!r}")
        game = Game(rules)
        for ply, c in enumerate(moves):
            if game.game_finished or int(c) not in game.legal_actions:
                raise ValueError(f"{where}: action {c} at ply {ply} of {moves} is not legal")
            game, _, _ = game.step(int(c))
        if game.game_finished:
            raise ValueError(f"{where}: the game is over after {moves}")
        if moves in seen:
            raise ValueError(f"{where}: opening {moves} is already on line {seen[moves]}")
        seen[moves] = number
        found.append(moves)
    if not found:
        raise ValueError(f"{path}: no openings in the file")
    return tuple(found)


#: The balanced openings shipped with the library (made by ``data/strength/openings.py``): 708 lines of 4
#: plies whose positions evaluated αβ judges between about 40 % and 60 % for South.
OPENINGS_FILE = pathlib.Path(__file__).resolve().parent.parent / "knowledge" / "openings.txt"


@functools.lru_cache(maxsize=1)
def standard_openings() -> Tuple[str, ...]:
    """The openings of :data:`OPENINGS_FILE` (Abapa rules), read once per process."""
    return load_openings(OPENINGS_FILE)


def openings_digest(openings: Sequence[str]) -> str:
    """A short fingerprint of a list of openings (the first 8 hex digits of the SHA-256 of its lines)."""
    return hashlib.sha256("\n".join(openings).encode()).hexdigest()[:8]


def shuffled(openings: Sequence[str], seed: int = 0) -> Tuple[str, ...]:
    """The openings in the order a test of base seed ``seed`` plays them: a permutation drawn from the seed.

    Neighbouring lines of an openings file share their first plies; shuffling them makes the first pairs
    of a test as varied as the whole set.
    """
    order = np.random.default_rng(np.random.SeedSequence([int(seed), 0x0BE7])).permutation(len(openings))
    return tuple(openings[i] for i in order)


def opening_spec(spec: str, moves: str) -> str:
    """Agent ``spec`` playing its side's plies of the opening ``moves`` first: a side of a test's games."""
    return canonical_spec(f"opening(agent={spec!r}, moves={moves!r})")


def pair_keys(
    a: str, b: str, openings: Sequence[str], index: int, seed: int = 0, rules: Optional[Rules] = None
) -> Tuple[GameKey, GameKey]:
    """The two games of pair ``index``: A as South, then B as South, both from the same opening.

    The opening is ``openings[index % len(openings)]`` (the list is cycled;
    :func:`~awale.experiments.sprt.sequential` passes it :func:`shuffled`);
    the games' seeds are ``derive_seed(seed, 2 index)`` and ``derive_seed(seed,
    2 index + 1)``, so the two games differ even when A and B are the same
    agent.  Each side plays ``opening(agent=..., moves=...)``.

    Raises:
        ValueError: a bad spec, index, seed or rules, or no openings.
    """
    if not openings:
        raise ValueError("pairs need at least one opening")
    moves = openings[index % len(openings)]
    first, second = opening_spec(a, moves), opening_spec(b, moves)
    return (
        GameKey(first, second, derive_seed(seed, 2 * index), rules),
        GameKey(second, first, derive_seed(seed, 2 * index + 1), rules),
    )


def pair_result(winners: Dict[Any, Optional[int]], keys: Tuple[GameKey, GameKey]) -> Optional[Tuple[float, float]]:
    """A's points in each game of a pair (:func:`pair_keys`: A South in the first, North in the second), 0, ½ or 1,
    from the stored winners (:meth:`~awale.experiments.store.Store.winners`); None while a game is missing."""
    first, second = keys
    if first.stored not in winners or second.stored not in winners:
        return None
    w1, w2 = winners[first.stored], winners[second.stored]
    return 0.5 if w1 is None else float(w1 == 0), 0.5 if w2 is None else float(w2 == 1)


def keys_of_pairs(
    a: str, b: str, openings: Sequence[str], seed: int = 0, rules: Optional[Rules] = None
) -> Callable[[int], Tuple[GameKey, GameKey]]:
    """The keys of a test's pairs by index: :func:`pair_keys` over the openings in the test's order
    (:func:`shuffled` by ``seed``), as :func:`~awale.experiments.sprt.sequential` plays them."""
    a, b = canonical_spec(a), canonical_spec(b)
    order = shuffled(tuple(openings), seed)
    rules = as_rules(rules)

    def keys(index: int) -> Tuple[GameKey, GameKey]:
        return pair_keys(a, b, order, index, seed, rules)

    return keys
