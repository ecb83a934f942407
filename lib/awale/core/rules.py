"""The rules of Awale (Oware): a :class:`Rules` value and the kernels that apply it.

Everything that decides what a move does lives here, once, as loops over small
``int64`` arrays; :mod:`awale.core._jit` compiles them with numba when it can.

Board layout (OpenSpiel's ``oware``): with ``n`` pits per side, ``pits[0:n]``
are South's pits from South's left to right, ``pits[n:2n]`` North's from
North's left to right, and sowing goes to the next index modulo ``2n``.
An action is ``0..n-1``, the index of a pit relative to the player to move.

A *state* is an ``int64`` array of length ``2n + 5``::

    state[0:2n]   seeds in each pit
    state[2n]     seeds captured by South     state[2n + 1]  by North
    state[2n + 2] player to move (0 South, 1 North)
    state[2n + 3] plies played
    state[2n + 4] outcome: ONGOING, SOUTH, NORTH or DRAW

The repetition rule needs the positions seen since the last capture: a
*history* is a pair of arrays (``keys`` of shape ``(capacity,)`` and
``boards`` of shape ``(capacity, 2n + 1)``, pits then player) whose first
``length`` rows are used.  Callers keep ``capacity > length``.
"""

from __future__ import annotations

import dataclasses
import json
import operator
from typing import Any, Optional

import numpy as np

from ._guard import Chunks
from ._jit import jit

__all__ = [
    "Rules",
    "MAX_SEEDS",
    "MAX_PLIES",
    "as_rules",
    "rules_to_text",
    "rules_from_text",
    "MAX_RULES_TEXT",
    "GRAND_SLAM_VARIANTS",
    "ONGOING",
    "SOUTH",
    "NORTH",
    "DRAW",
    "legal_actions",
    "advance",
    "random_playouts",
    "perft",
    "seed_rng",
    "next_u32",
    "below",
    "sow",
    "chain",
    "capture",
    "copy_history",
    "grown",
    "position_key",
    "R_PITS",
    "R_TOTAL",
    "R_FEED",
    "R_GRAND_SLAM",
    "R_REPETITION",
    "R_COLLECT",
    "R_MAX_PLIES",
]

#: Values of ``state[2n + 4]``.
ONGOING, SOUTH, NORTH, DRAW = -1, 0, 1, 2

#: The grand-slam variants, in the order of their integer codes.
GRAND_SLAM_VARIANTS = ("no-capture", "forbidden", "capture-all")
_GS_NO_CAPTURE, _GS_FORBIDDEN, _GS_CAPTURE_ALL = 0, 1, 2

#: Layout of the parameter vector handed to the kernels (:attr:`Rules.params`).
R_PITS, R_TOTAL, R_FEED, R_GRAND_SLAM, R_REPETITION, R_COLLECT, R_MAX_PLIES = range(7)

#: The most seeds a game may hold in all.
MAX_SEEDS = 2**15 - 1

#: The largest ``max_plies``: a ply counter stays far from the int64 limit.
MAX_PLIES = 2**62

_MASK32 = 0xFFFFFFFF
_MASK48 = (1 << 48) - 1


@dataclasses.dataclass(frozen=True)
class Rules:
    """A set of Awale rules.  The defaults are the official Abapa rules.

    Args:
        pits_per_side: pits in each player's row, 2 to 6.
        seeds_per_pit: seeds in each pit at the start, at least 1; at most
            :data:`MAX_SEEDS` seeds in all (captures are counted in 16 bits).
        feed: when the opponent has no seeds, only moves that give them seeds
            are legal; when no such move exists the game ends.
        grand_slam: what happens to a move that would capture every seed of
            the opponent: ``"no-capture"`` (it is played and captures nothing,
            Abapa), ``"forbidden"`` (illegal unless every legal move is one;
            a forced grand slam then captures nothing) or ``"capture-all"``
            (it captures as usual, leaving the opponent empty).
        repetition: the game ends when a position (board and player to move)
            occurs a second time since the last capture.
        collect_remaining: when the game ends for lack of a legal move or by
            repetition, every seed left on the board goes to the owner of its
            side; if False those seeds count for nobody.
        max_plies: if set, the game ends as a draw after that many plies,
            whatever the captures, unless it ended otherwise on that ply.
            Required when ``repetition`` is False, or games could cycle forever.
            At most :data:`MAX_PLIES` (ply counters are 64-bit).
    """

    pits_per_side: int = 6
    seeds_per_pit: int = 4
    feed: bool = True
    grand_slam: str = "no-capture"
    repetition: bool = True
    collect_remaining: bool = True
    max_plies: Optional[int] = None

    def __post_init__(self) -> None:
        for name in ("pits_per_side", "seeds_per_pit"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
                raise ValueError(f"Rules.{name} must be an integer, got {value!r}")
            object.__setattr__(self, name, int(value))
        if not 2 <= self.pits_per_side <= 6:
            raise ValueError(f"Rules.pits_per_side must be between 2 and 6, got {self.pits_per_side}")
        if self.seeds_per_pit < 1:
            raise ValueError(f"Rules.seeds_per_pit must be at least 1, got {self.seeds_per_pit}")
        if self.total_seeds > MAX_SEEDS:
            raise ValueError(
                f"Rules: at most {MAX_SEEDS:,} seeds in all (2 x pits_per_side x seeds_per_pit), "
                f"got {self.total_seeds:,}"
            )
        for name in ("feed", "repetition", "collect_remaining"):
            value = getattr(self, name)
            if not isinstance(value, (bool, np.bool_)):
                raise ValueError(f"Rules.{name} must be True or False, got {value!r}")
            object.__setattr__(self, name, bool(value))
        if self.grand_slam not in GRAND_SLAM_VARIANTS:
            raise ValueError(
                f"Rules.grand_slam must be one of {', '.join(map(repr, GRAND_SLAM_VARIANTS))}, "
                f"got {self.grand_slam!r}"
            )
        if self.max_plies is not None:
            if isinstance(self.max_plies, bool) or not isinstance(self.max_plies, (int, np.integer)):
                raise ValueError(f"Rules.max_plies must be None or an integer, got {self.max_plies!r}")
            if self.max_plies < 1:
                raise ValueError(f"Rules.max_plies must be at least 1, got {self.max_plies}")
            if self.max_plies > MAX_PLIES:
                raise ValueError(f"Rules.max_plies must be at most 2**62, got {self.max_plies}")
            object.__setattr__(self, "max_plies", int(self.max_plies))
        if not self.repetition and self.max_plies is None:
            raise ValueError(
                "Rules(repetition=False) needs max_plies: without the repetition rule "
                "nothing else stops a game that cycles without captures"
            )
        params = np.array(
            [
                self.pits_per_side,
                self.total_seeds,
                self.feed,
                GRAND_SLAM_VARIANTS.index(self.grand_slam),
                self.repetition,
                self.collect_remaining,
                -1 if self.max_plies is None else self.max_plies,
            ],
            dtype=np.int64,
        )
        params.flags.writeable = False
        object.__setattr__(self, "_params", params)

    @classmethod
    def abapa(cls, pits_per_side: int = 6, seeds_per_pit: int = 4) -> "Rules":
        """The official rules of the Abapa association (the default)."""
        return cls(pits_per_side=pits_per_side, seeds_per_pit=seeds_per_pit)

    @classmethod
    def simplified(cls, pits_per_side: int = 6, seeds_per_pit: int = 4) -> "Rules":
        """The reference thesis's simplification of the rules.

        No feed rule, grand slams capture everything, no repetition check,
        seeds left at the end count for nobody, and a draw after 500 plies.
        """
        return cls(
            pits_per_side=pits_per_side,
            seeds_per_pit=seeds_per_pit,
            feed=False,
            grand_slam="capture-all",
            repetition=False,
            collect_remaining=False,
            max_plies=500,
        )

    @property
    def total_seeds(self) -> int:
        """Seeds in the game: ``2 * pits_per_side * seeds_per_pit``."""
        return 2 * self.pits_per_side * self.seeds_per_pit

    @property
    def params(self) -> np.ndarray:
        """The read-only ``int64`` parameter vector the kernels take."""
        return self._params  # type: ignore[attr-defined]

    def initial_state(self) -> np.ndarray:
        """A fresh state array for the initial position, South to move."""
        n = self.pits_per_side
        state = np.zeros(2 * n + 5, dtype=np.int64)
        state[: 2 * n] = self.seeds_per_pit
        state[2 * n + 4] = ONGOING
        return state


def as_rules(rules: "Optional[Rules]", default: bool = True) -> Rules:
    """``rules`` checked to be a :class:`Rules`; ``None`` stands for ``Rules()`` when ``default`` is true.

    Raises:
        ValueError: anything else.
    """
    if rules is None and default:
        return Rules()
    if not isinstance(rules, Rules):
        raise ValueError(f"rules must be an awale.Rules, got {rules!r}")
    return rules


#: The longest rules text :func:`rules_from_text` reads (a canonical text is about 150 characters).
MAX_RULES_TEXT = 1000

_NAMED_RULES = {"abapa": Rules.abapa, "simplified": Rules.simplified}
_WORDS = {"true": True, "false": False, "none": None}


def rules_to_text(rules: Rules) -> str:
    """The canonical text of ``rules``: compact JSON of its fields, keys sorted.

    Equal rules give equal texts, and :func:`rules_from_text` reads it back.  The
    experiment store keys games by it, and game files hold it (as a JSON object).

    >>> rules_to_text(Rules(max_plies=200))
    '{"collect_remaining":true,"feed":true,"grand_slam":"no-capture","max_plies":200,"pits_per_side":6,"repetition":true,"seeds_per_pit":4}'

    Raises:
        ValueError: ``rules`` is not a :class:`Rules`.
    """
    return json.dumps(dataclasses.asdict(as_rules(rules, default=False)), sort_keys=True, separators=(",", ":"))


def rules_from_text(text: str) -> Rules:
    """The :class:`Rules` a text names: the one reader of rules, for the store, game files and the command line.

    The text is one of:

    - a JSON object of :class:`Rules` fields, as :func:`rules_to_text` writes it (fields left out keep
      their defaults);
    - ``abapa`` or ``simplified`` (either case): :meth:`Rules.abapa`, :meth:`Rules.simplified`;
    - ``key=value`` pairs of fields separated by commas, ``pits_per_side=4, feed=false``; a value is an
      integer, ``true``, ``false``, ``none`` (either case) or a bare word (``grand_slam=capture-all``).

    >>> rules_from_text("pits_per_side=4, feed=false, max_plies=300") == Rules(4, feed=False, max_plies=300)
    True

    Raises:
        ValueError: anything else, or fields that make no valid rules; the message is one line naming
            what was wrong.
    """
    if not isinstance(text, str):
        raise ValueError(f"rules text must be a string, got {type(text).__name__}")
    if len(text) > MAX_RULES_TEXT:
        raise ValueError(f"rules text is longer than {MAX_RULES_TEXT} characters: {text[:60]!r}...")
    word = text.strip()
    if word.lower() in _NAMED_RULES:
        return _NAMED_RULES[word.lower()]()
    if word.startswith(("{", "[")):
        try:
            fields = json.loads(word)
        except (ValueError, RecursionError):  # RecursionError: deeply nested JSON
            raise ValueError(f"rules text is not JSON: {text[:60]!r}") from None
        if not isinstance(fields, dict):
            raise ValueError(f"rules text must be a JSON object of Rules fields, got {text[:60]!r}")
    else:
        fields = _pairs(text, word)
    known = {field.name for field in dataclasses.fields(Rules)}
    unknown = sorted(set(fields) - known)
    if unknown:
        raise ValueError(
            f"rules text has unknown field(s) {unknown}: {text[:60]!r}; the fields are {', '.join(sorted(known))}"
        )
    return Rules(**fields)


def _pairs(text: str, word: str) -> dict:
    """The fields of ``key=value, ...`` (``word`` is ``text`` stripped)."""
    fields: dict = {}
    for item in filter(None, (part.strip() for part in word.split(","))):
        key, equals, value = item.partition("=")
        key, value = key.strip(), value.strip()
        if not equals or not key.isidentifier():
            raise ValueError(f"rules {text[:60]!r}: expected abapa, simplified, a JSON object or key=value pairs")
        if key in fields:
            raise ValueError(f"rules {text[:60]!r}: {key} is given twice")
        fields[key] = _value(value)
    if not fields:
        raise ValueError(f"rules {text!r}: nothing given")
    return fields


def _value(text: str) -> Any:
    """A value of a ``key=value`` pair: an integer, a boolean, None, or the word itself."""
    if text.lower() in _WORDS:
        return _WORDS[text.lower()]
    digits = text[1:] if text[:1] in "+-" else text
    if digits.isdigit() and digits.isascii():
        return int(text)
    return text


def seed_rng(seed: "int | np.random.Generator") -> np.ndarray:
    """The state of the kernels' random generator (xorshift128) for ``seed``.

    ``seed`` is a non-negative integer or a :class:`numpy.random.Generator`
    (from which one integer is drawn).  The four 32-bit words come from
    SplitMix64, so neighbouring seeds give unrelated streams.
    """
    if isinstance(seed, np.random.Generator):
        seed = int(seed.integers(0, 2**63))
    try:
        seed = operator.index(seed)
    except TypeError:
        raise ValueError(f"seed must be an integer or a numpy Generator, got {seed!r}") from None
    if seed < 0:
        raise ValueError(f"seed must be non-negative, got {seed}")
    words = []
    x = seed & ((1 << 64) - 1)
    while len(words) < 4:
        x = (x + 0x9E3779B97F4A7C15) & ((1 << 64) - 1)
        z = x
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & ((1 << 64) - 1)
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & ((1 << 64) - 1)
        z ^= z >> 31
        words.extend([z & _MASK32, z >> 32])
    if not any(words):  # xorshift must not start from zero; SplitMix64 never gives it, but be sure
        words[0] = 1
    return np.array(words[:4], dtype=np.int64)


# --------------------------------------------------------------------------- kernels


@jit
def next_u32(rng):
    """Marsaglia's xorshift128 on four 32-bit words kept in an int64 array."""
    t = rng[0]
    t ^= (t << 11) & 0xFFFFFFFF
    t ^= t >> 8
    w = rng[3]
    rng[0] = rng[1]
    rng[1] = rng[2]
    rng[2] = w
    w ^= w >> 19
    w ^= t
    rng[3] = w
    return w


@jit
def below(rng, k):
    """A uniform integer in ``[0, k)`` (multiply-shift, bias below k / 2**32)."""
    return (next_u32(rng) * k) >> 32


@jit
def _spread(pits, origin, seeds, size, sign):
    """Add (``sign=1``) or take back (``sign=-1``) the sowing of ``seeds`` seeds from ``pits[origin]``.

    The origin itself is skipped and left as it is.  Returns the last pit sown.
    """
    laps = 0
    rest = seeds
    if rest >= size - 1:  # one or more full laps round the board
        laps = rest // (size - 1)
        rest -= laps * (size - 1)
    # Branch-free: the pit ``ahead`` places after the origin gets one seed a lap, and one
    # more if it lies within the rest.
    for i in range(size):
        ahead = i - origin
        ahead += size * (ahead < 0)
        pits[i] += sign * (ahead > 0) * (laps + (ahead <= rest))
    last = origin + rest if rest > 0 else origin - 1
    return last + size * (last < 0) - size * (last >= size)


@jit
def sow(pits, origin, size):
    """Sow the seeds of ``pits[origin]``, skipping the origin; return the last pit sown."""
    seeds = pits[origin]
    pits[origin] = 0
    return _spread(pits, origin, seeds, size, 1)


@jit
def chain(pits, last, player, n):
    """The capture chain of a sow that ended in ``pits[last]``.

    The chain runs backwards from the last pit while the pits hold 2 or 3
    seeds, on the opponent's side only.  Returns ``(taken, first, grand)``:
    the seeds in the chain, the lowest index it covers and whether it would
    take every seed of the opponent (a grand slam).
    """
    low = (1 - player) * n
    if last < low or last >= low + n:
        return 0, last + 1, False
    taken = 0
    index = last
    while index >= low and (pits[index] == 2 or pits[index] == 3):
        taken += pits[index]
        index -= 1
    if taken == 0:
        return 0, last + 1, False
    remaining = 0
    for i in range(low, low + n):
        remaining += pits[i]
    return taken, index + 1, remaining == taken


@jit
def capture(pits, last, player, n, grand_slam):
    """Capture after a sow ending in ``pits[last]``; return the seeds taken.

    A grand slam takes nothing unless the variant is ``capture-all`` (under
    ``forbidden`` it is only played when forced).
    """
    taken, first, grand = chain(pits, last, player, n)
    if taken == 0 or (grand and grand_slam != _GS_CAPTURE_ALL):
        return 0
    for i in range(first, last + 1):
        pits[i] = 0
    return taken


@jit(inline=False, allocates=False)
def _is_grand_slam(state, params, action):
    """Would ``action`` capture every seed of the opponent (were it allowed to)?

    The move is sown on ``state`` and taken back: ``state`` ends as it began.
    """
    n = params[R_PITS]
    size = 2 * n
    player = state[size + 2]
    origin = player * n + action
    seeds = state[origin]
    state[origin] = 0
    last = _spread(state, origin, seeds, size, 1)
    grand = chain(state, last, player, n)[2]
    _spread(state, origin, seeds, size, -1)
    state[origin] = seeds
    return grand


@jit
def legal_actions(state, params, out):
    """Write the legal actions of ``state`` (ascending) into ``out``; return how many.

    A finished state has none.
    """
    n = params[R_PITS]
    size = 2 * n
    if state[size + 4] != ONGOING:
        return 0
    player = state[size + 2]
    own = player * n
    opponent = n - own
    must_feed = False
    if params[R_FEED]:
        opponent_seeds = 0
        for i in range(opponent, opponent + n):
            opponent_seeds += state[i]
        must_feed = opponent_seeds == 0
    # Branch-free: write every action, advance the count only for legal ones.
    # A move feeds the opponent when its seeds reach past the end of the row.
    count = 0
    if must_feed:
        for action in range(n):
            out[count] = action
            count += state[own + action] > n - 1 - action
    else:
        for action in range(n):
            out[count] = action
            count += state[own + action] > 0
    if params[R_GRAND_SLAM] == _GS_FORBIDDEN and count > 1:
        kept = 0
        for j in range(count):
            if not _is_grand_slam(state, params, out[j]):
                kept += 1
        if kept > 0 and kept < count:
            k = 0
            for j in range(count):
                action = out[j]
                if not _is_grand_slam(state, params, action):
                    out[k] = action
                    k += 1
            count = kept
    return count


# Odd 32-bit weights for the position keys (a Zobrist-like weighted sum).
_KEY_WEIGHTS = tuple((0x9E3779B1 * (2 * i + 1)) & 0xFFFFFFFF for i in range(13))


@jit
def position_key(state, size):
    """A 48-bit key of the board and the player to move (equal positions, equal keys)."""
    key = (state[size + 2] + 1) * _KEY_WEIGHTS[12]
    for i in range(size):
        key += state[i] * _KEY_WEIGHTS[i]
    return key & 0xFFFFFFFFFFFF


@jit(inline=False)
def _finish(state, params):
    """End the game on the board as it stands and set the outcome from the captures."""
    n = params[R_PITS]
    size = 2 * n
    if params[R_COLLECT]:
        for i in range(size):
            state[size + i // n] += state[i]
            state[i] = 0
    if state[size] > state[size + 1]:
        state[size + 4] = SOUTH
    elif state[size] < state[size + 1]:
        state[size + 4] = NORTH
    else:
        state[size + 4] = DRAW


@jit
def advance(state, params, action, keys, boards, length, out):
    """Play the legal ``action`` in ``state`` (in place) and decide whether the game ends.

    Args:
        state: the state array, modified in place.
        params: ``Rules.params``.
        action: a legal action of ``state`` (not checked here).
        keys, boards, length: the history of positions since the last
            capture (see the module docstring); ``keys`` and ``boards`` are
            updated in place and need room for one more row.
        out: receives the legal actions of the new position.

    Returns:
        ``(captured, length, count)``: seeds captured by the move, the new
        history length and the number of legal actions written to ``out``
        (0 exactly when the game is over).
    """
    n = params[R_PITS]
    size = 2 * n
    total = params[R_TOTAL]
    player = state[size + 2]
    last = sow(state, player * n + action, size)
    captured = capture(state, last, player, n, params[R_GRAND_SLAM])
    state[size + player] += captured
    state[size + 2] = 1 - player
    state[size + 3] += 1

    if captured > 0:
        length = 0  # a capture is irreversible: no earlier position can recur
        half = total >> 1
        south = state[size]
        north = state[size + 1]
        if south > half or north > half or (south == half and north == half):
            if south > north:
                state[size + 4] = SOUTH
            elif north > south:
                state[size + 4] = NORTH
            else:
                state[size + 4] = DRAW
            return captured, length, 0

    if params[R_REPETITION]:
        key = position_key(state, size)
        mover = state[size + 2]
        # Only positions with the same player to move can match: every other row.
        j = length - 2
        while j >= 0:
            if keys[j] == key:
                same = boards[j, size] == mover
                i = 0
                while same and i < size:
                    same = boards[j, i] == state[i]
                    i += 1
                if same:
                    _finish(state, params)
                    return captured, length, 0
            j -= 2
        keys[length] = key
        for i in range(size):
            boards[length, i] = state[i]
        boards[length, size] = mover
        length += 1

    count = legal_actions(state, params, out)
    if count == 0:
        _finish(state, params)
        return captured, length, 0
    max_plies = params[R_MAX_PLIES]
    if max_plies > 0 and state[size + 3] >= max_plies:
        state[size + 4] = DRAW
        return captured, length, 0
    return captured, length, count


@jit(inline=False, allocates=False)
def copy_history(keys, boards, length, to_keys, to_boards):
    """Copy the first ``length`` rows of a history into ``to_keys`` and ``to_boards``."""
    for j in range(length):
        to_keys[j] = keys[j]
        for i in range(boards.shape[1]):
            to_boards[j, i] = boards[j, i]


@jit(inline=False)
def grown(keys, boards, length):
    """The history arrays with twice the room, the first ``length`` rows kept."""
    capacity = 2 * keys.shape[0]
    new_keys = np.empty(capacity, dtype=np.int64)
    new_boards = np.empty((capacity, boards.shape[1]), dtype=np.int64)
    copy_history(keys, boards, length, new_keys, new_boards)
    return new_keys, new_boards


@jit(inline=False, allocates=False)
def _random_moves(state, params, keys, boards, length, out, count, rng):
    """Play random moves until the game ends or the history is full; return ``(length, count)``."""
    capacity = keys.shape[0]
    while count > 0 and length + 1 < capacity:
        action = out[below(rng, count)]
        _, length, count = advance(state, params, action, keys, boards, length, out)
    return length, count


def random_playouts(
    state: np.ndarray, params: np.ndarray, keys: np.ndarray, boards: np.ndarray, length: int, playouts: int,
    rng: np.ndarray,
) -> np.ndarray:
    """Play ``playouts`` uniformly random games from ``state``.

    ``state`` and the history are left untouched; ``rng`` (see
    :func:`seed_rng`) advances.  Returns ``[south wins, north wins, draws,
    plies]`` as an int64 array.  The compiled kernel runs in chunks of a
    fraction of a second, so that Ctrl-C stops it; the result is that of
    one call.
    """
    total = np.zeros(4, dtype=np.int64)
    chunks = Chunks(int(playouts), first=64)
    while chunks.remaining > 0:
        size = chunks.next()
        total += _random_playouts(state, params, keys, boards, length, size, rng)
        chunks.done(size)
    return total


@jit(inline=False)
def _random_playouts(state, params, keys, boards, length, playouts, rng):
    """Play ``playouts`` uniformly random games from ``state`` (the kernel of :func:`random_playouts`).

    ``state`` and the history are left untouched; ``rng`` (see
    :func:`seed_rng`) advances.  Returns ``[south wins, north wins, draws,
    plies]`` as an int64 array.
    """
    n = params[R_PITS]
    size = 2 * n
    result = np.zeros(4, dtype=np.int64)
    first = np.empty(n, dtype=np.int64)
    first_count = legal_actions(state, params, first)
    capacity = 64
    while capacity < 2 * length:
        capacity *= 2
    work_keys = np.empty(capacity, dtype=np.int64)
    work_boards = np.empty((capacity, size + 1), dtype=np.int64)
    work = np.empty_like(state)
    out = np.empty(n, dtype=np.int64)
    for _ in range(playouts):
        for i in range(state.shape[0]):
            work[i] = state[i]
        copy_history(keys, boards, length, work_keys, work_boards)
        for i in range(first_count):
            out[i] = first[i]
        count = first_count
        used = length
        while True:
            used, count = _random_moves(work, params, work_keys, work_boards, used, out, count, rng)
            if count == 0:
                break
            # The history is full (a long stretch without captures): double it.
            work_keys, work_boards = grown(work_keys, work_boards, used)
        result[3] += work[size + 3] - state[size + 3]
        outcome = work[size + 4]
        if outcome == SOUTH:
            result[0] += 1
        elif outcome == NORTH:
            result[1] += 1
        else:
            result[2] += 1
    return result


@jit(inline=False)
def _perft(state, params, keys, boards, length, depth):
    if depth == 0:
        return 1
    n = params[R_PITS]
    out = np.empty(n, dtype=np.int64)
    count = legal_actions(state, params, out)
    if depth == 1:
        return count
    total = 0
    child_keys = np.empty(length + 1, dtype=np.int64)
    child_boards = np.empty((length + 1, boards.shape[1]), dtype=np.int64)
    child_out = np.empty(n, dtype=np.int64)
    for j in range(count):
        child = state.copy()
        child_keys[:length] = keys[:length]
        child_boards[:length, :] = boards[:length, :]
        _, used, _ = advance(child, params, out[j], child_keys, child_boards, length, child_out)
        total += _perft(child, params, child_keys, child_boards, used, depth - 1)
    return total


def perft(state: np.ndarray, params: np.ndarray, keys: np.ndarray, boards: np.ndarray, length: int, depth: int) -> int:
    """Count the positions reached after exactly ``depth`` plies (finished games stop early)."""
    if depth < 0:
        raise ValueError(f"perft depth must be non-negative, got {depth}")
    # Fresh writable copies: one compiled specialisation, and the caller's arrays stay untouched.
    copies = [np.array(a, dtype=np.int64) for a in (state, params, keys, boards)]
    return int(_perft(*copies[:4], int(length), int(depth)))
