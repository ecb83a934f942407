"""Checks of the endgame database against an exact search, and the thesis's analyses of it.

The database (:mod:`awale.knowledge.endgame`) solves a continued game with a
stationary rule for repetitions.  :func:`compare` and :func:`search_check`
value positions again by a history-aware search (the Abapa scoring of a
repetition, or the database's own) and say where they differ and why;
:func:`sample` draws the positions.  :func:`greedy_positions` draws those on
which agents are scored against perfect play (``data/endgame/agents.py``).  :func:`captures_check` answers the
captures question of chapter 6: that tallying the captures to the end changes
no win, draw or loss, whatever the seeds already captured.
"""

from __future__ import annotations

import dataclasses
from typing import Dict, List, NamedTuple, Optional, Tuple

import numpy as np

from ..core._jit import jit
from ..core.engine import ONGOING, legal_actions
from ..core.game import Game
from ..core.rules import Rules
from ..knowledge.endgame import (EndgameDatabase, Progress, check_seeds, layer_size, play_turned, rank_of,
                                 stuck_value, unrank)

__all__ = ["Comparison", "compare", "sample", "greedy_positions", "search_check", "captures_check"]


# --------------------------------------------------------------------------- comparison with the exact search


class _Replay(NamedTuple):
    """What the history-aware search of :func:`_path_value` reads and writes besides the position."""

    params: np.ndarray  # the rules
    binom: np.ndarray  # the database's binomials, offsets and values
    offsets: np.ndarray
    values: np.ndarray
    path: np.ndarray  # the ranks of the positions of the line
    budget: np.ndarray  # positions left, and whether they ran out
    own_side: bool  # a repetition gives each side its own seeds (else it splits them equally)


@jit(inline=False)
def _path_value(board, seeds, replay, base, ply, alpha, beta):
    """The value of ``board`` by a search that remembers the positions since the last capture.

    The position is ``path[ply]``; ``path[base..ply]`` are the positions of
    the line since the last capture (ranks in the layer; the player to move
    alternates, so a repetition is the same rank an even number of plies
    back).  A repetition ends the game: the seeds on the board are split
    equally (``own_side`` false: the database's game) or each side takes
    those on its side (the Abapa rules).  With ``own_side`` false a capture
    leads to the database's value of the position reached; with it true the
    search goes on there, so the whole continued game is searched under the
    Abapa rules.  ``budget[0]`` counts down the positions allowed;
    ``budget[1]`` is set when they ran out (the value is then meaningless).
    The other arrays and the flag are those of ``replay``.
    """
    params, binom, offsets, values = replay.params, replay.binom, replay.offsets, replay.values
    path, budget, own_side = replay.path, replay.budget, replay.own_side
    n = params[0]
    size = 2 * n
    budget[0] -= 1
    if budget[0] < 0 or ply + 1 >= path.shape[0]:
        budget[1] = 1
        return 0
    state = np.zeros(size + 5, dtype=np.int64)
    state[size + 4] = ONGOING
    for i in range(size):
        state[i] = board[i]
    out = np.empty(n, dtype=np.int64)
    count = legal_actions(state, params, out)
    if count == 0:
        return stuck_value(board, n, params[5])
    child = np.empty(size, dtype=np.int64)
    best = -(1 << 20)
    for step in range(2 * count):  # the captures first: they cost nothing and cut the search
        taken = play_turned(board, out[step % count], n, params[3], child)
        if (taken > 0) != (step < count):
            continue
        rank = rank_of(child, size, binom)
        if taken > 0:
            if own_side:
                path[ply + 1] = rank
                value = taken - _path_value(child, seeds - taken, replay, ply + 1, ply + 1, taken - beta, taken - alpha)
            else:
                value = taken - values[offsets[seeds - taken] + rank]
        else:
            repeated = False
            k = ply - 1
            while k >= base:
                if path[k] == rank:
                    repeated = True
                    break
                k -= 2
            if repeated:
                value = -stuck_value(child, n, params[5]) if own_side else 0
            else:
                path[ply + 1] = rank
                value = -_path_value(child, seeds, replay, base, ply + 1, -beta, -alpha)
        if budget[1]:
            return 0
        if value > best:
            best = value
            if best > alpha:
                alpha = best
                if alpha >= beta:
                    break
    return best


@dataclasses.dataclass(frozen=True)
class Comparison:
    """One position of the database compared with the exact history-aware searches.

    Attributes:
        index: the position's index; ``board`` its board, the mover's pits first.
        value: the database's value.
        results: ``(lead, predicted, found)`` triples: with the mover ahead
            by ``lead`` seeds already captured, the database predicts the
            result ``sign(lead + value)`` (1, 0, -1 for the player to move)
            and :meth:`awale.search.alphabeta.AlphaBeta.result` finds
            ``found`` under the Abapa rules (None beyond its budget).  The
            leads are ``-value`` (a predicted draw) when the value has the
            parity of the seeds on the board, else ``-value - 1`` and
            ``-value + 1`` (a value of the other parity comes from seeds
            split equally at a repetition): these pin the exact value down.
        replayed: for a disagreement, the value found again by a search
            that remembers the line since the last capture and ends a
            repetition with the seeds split equally (the database's game,
            searched move by move instead of by the fixed point); None
            beyond the budget.
    """

    index: int
    board: Tuple[int, ...]
    value: int
    results: Tuple[Tuple[int, int, Optional[int]], ...]
    replayed: Optional[int] = None

    @property
    def status(self) -> str:
        """``"agree"``, ``"explained"`` (by the repetition rule), ``"unexplained"`` or ``"undecided"``.

        A disagreement is explained when the search of the database's game
        that remembers the line finds the database's value: the database
        then holds the value of the game it states, and that game differs
        from the Abapa rules' only in how a repetition is scored (the end at
        more than half of the seeds changes no result: see
        :func:`captures_check`).  Undecided: a search ran out of its budget.
        """
        if all(found == predicted for _, predicted, found in self.results):
            return "agree"
        if any(found is None for *_, found in self.results) or self.replayed is None:
            return "undecided"
        return "explained" if self.replayed == self.value else "unexplained"


def _sign(x: int) -> int:
    return (x > 0) - (x < 0)


def _search_value(database: EndgameDatabase, board, own_side: bool, budget: int, alpha: int = -(1 << 20),
                  beta: int = 1 << 20) -> Optional[int]:
    n = database.rules.pits_per_side
    board = np.asarray(board, dtype=np.int64)
    seeds = int(board.sum())
    path = np.zeros(4096, dtype=np.int64)
    path[0] = rank_of(board, 2 * n, database._binom)
    left = np.array([budget, 0], dtype=np.int64)
    values = np.asarray(database.values)
    replay = _Replay(np.array(database.rules.params), database._binom, database._offsets, values, path, left,
                     bool(own_side))
    value = _path_value(board, seeds, replay, 0, 0, alpha, beta)
    return None if left[1] else int(value)


def compare(database: EndgameDatabase, index: int, searcher, nodes: int = 1_000_000) -> Comparison:
    """Compare the value of the position ``index`` with the exact history-aware searches.

    Args:
        database: the database.
        index: a position with seeds on the board and a legal move.
        searcher: an :class:`awale.search.alphabeta.AlphaBeta` for the
            database's rules (the search sits above this module, which
            therefore takes it as an argument rather than importing it).
        nodes: positions each search may visit before giving up.

    Raises:
        ValueError: the position has no legal move, or a bad index.
    """
    board = database.board(index)
    rules = database.rules
    value = int(database.values[index])
    rest = rules.total_seeds - sum(board)
    results = []
    for lead in (-value,) if (value - rest) % 2 == 0 else (-value - 1, -value + 1):
        if abs(lead) > rest:
            continue  # no such split of the captured seeds
        game = Game.from_position(board, ((rest + lead) // 2, (rest - lead) // 2), 0, rules)
        searcher.clear()
        results.append((lead, _sign(lead + value), searcher.result(game, nodes)))
    comparison = Comparison(index, board, value, tuple(results))
    if comparison.status != "agree":
        comparison = dataclasses.replace(comparison, replayed=_search_value(database, board, False, 5 * nodes))
    return comparison


def search_check(database: EndgameDatabase, seeds: int, count: int, nodes: int = 100_000, seed: int = 0) -> Dict[str, int]:
    """Compare ``count`` random live positions of layer ``seeds`` with an exact search of the database's own game.

    The search (the one :func:`compare` replays disagreements with) plays
    the quiet moves out, remembering the line since the last capture and
    ending a repetition with the seeds on the board split equally; a capture
    leads to the database's value of the layer below.  It checks the layer's
    fixed point move by move, independently of how it was reached.  The
    search asks only whether the value is the database's ``v``, with the
    window ``(v - 1, v + 1)`` (αβ: a result strictly inside it is exact, one
    on its edge says the value is at most ``v - 1`` or at least ``v + 1``),
    which cuts most of the tree.

    Returns:
        ``{"agree": n, "disagree": n, "undecided": n}`` (undecided: the
        search ran out of its ``nodes``).

    Raises:
        ValueError: ``seeds`` is not a layer of the database with live positions.
    """
    seeds = check_seeds(seeds, database.rules)
    if not 1 <= seeds <= database.seeds:
        raise ValueError(f"seeds must be from 1 to {database.seeds} for this database, got {seeds}")
    rng = np.random.default_rng(seed)
    low, high = int(database._offsets[seeds]), int(database._offsets[seeds + 1])
    params = np.array(database.rules.params)
    n = database.rules.pits_per_side
    state = np.zeros(2 * n + 5, dtype=np.int64)
    out = np.empty(n, dtype=np.int64)
    chosen: Dict[int, None] = {}
    tries = 0
    while len(chosen) < min(count, high - low) and tries < 100 * count:
        tries += 1
        index = int(rng.integers(low, high))
        state[: 2 * n] = database.board(index)
        state[2 * n + 4] = ONGOING
        if index not in chosen and legal_actions(state, params, out) > 0:
            chosen[index] = None
    counts = {"agree": 0, "disagree": 0, "undecided": 0}
    for index in chosen:
        value = int(database.values[index])
        found = _search_value(database, database.board(index), False, nodes, value - 1, value + 1)
        if found is None:
            counts["undecided"] += 1
        else:
            counts["agree" if found == value else "disagree"] += 1
    return counts


def sample(database: EndgameDatabase, count: int, seed: int = 0, max_seeds: Optional[int] = None) -> List[int]:
    """``count`` distinct random indices of live positions (seeds on the board and a legal move).

    ``max_seeds`` (default: the database's) bounds the seeds on the board.
    """
    top = database.seeds if max_seeds is None else min(max_seeds, database.seeds)
    if top < 1:
        raise ValueError("the database has no position with seeds on the board to sample")
    rng = np.random.default_rng(seed)
    low, high = int(database._offsets[1]), int(database._offsets[top + 1])
    count = min(count, high - low)
    chosen: Dict[int, None] = {}
    params = np.array(database.rules.params)
    n = database.rules.pits_per_side
    state = np.zeros(2 * n + 5, dtype=np.int64)
    out = np.empty(n, dtype=np.int64)
    while len(chosen) < count:
        index = int(rng.integers(low, high))
        state[: 2 * n] = database.board(index)
        state[2 * n + 4] = ONGOING
        if index not in chosen and legal_actions(state, params, out) > 0:
            chosen[index] = None
    return list(chosen)


def greedy_positions(rules: Rules, seeds: int, count: int) -> List[Game]:
    """``count`` positions of games between ε-greedy players (ε = 0.2), each the first of its game with at most
    ``seeds`` seeds on the board and two legal moves or more (a game that ends first gives none).

    Game ``k`` (``k = 1, 2, ...``) is played by ``greedy(eps=0.2, seed=k)`` as South and
    ``greedy(eps=0.2, seed=k + 10**6)`` as North: the positions are those a game between weak but sensible players
    reaches, not the uniform ones of :func:`sample`.
    """
    from ..agents import parse

    found, seed = [], 0
    while len(found) < count:
        seed += 1
        players = [parse(f"greedy(eps=0.2, seed={seed})"), parse(f"greedy(eps=0.2, seed={seed + 10**6})")]
        game = Game(rules=rules)
        while not game.game_finished:
            if sum(game.pits) <= seeds and len(game.legal_actions) > 1:
                found.append(game)
                break
            game = game.step(players[game.current_player].act(game))[0]
    return found


# --------------------------------------------------------------------------- the captures question


class _Layer(NamedTuple):
    """The moves of a layer's positions: the rank reached by each (``moves``), its capture, and their count."""

    moves: np.ndarray
    caps: np.ndarray
    counts: np.ndarray


class _Splits(NamedTuple):
    """The win/draw/loss table by split of the captured seeds: ``flat``, each layer's offset into it (``base``),
    its first column's captures for the mover (``lower``) and its number of columns (``width``)."""

    flat: np.ndarray
    base: np.ndarray
    lower: np.ndarray
    width: np.ndarray


@jit
def _move_result(p, j, seeds, mine, theirs, half, layer, splits):
    """Win, draw or loss (1, 0, -1) for the mover of the move ``j`` of position ``p``, under the Abapa end.

    The mover has captured ``mine`` seeds and the opponent ``theirs``; a
    capture that takes the mover past half of the seeds wins at once.
    """
    taken = layer.caps[p, j]
    after = mine + taken
    if after > half:
        return 1
    if after == half and theirs == half:
        return 0
    to = seeds - taken
    return -splits.flat[splits.base[to] + layer.moves[p, j] * splits.width[to] + theirs - splits.lower[to]]


@jit(inline=False)
def _outcome_sweep(seeds, total, binom, layer, splits, collect):
    """One pass of the win/draw/loss recurrence over a layer, for every split of the captured seeds."""
    moves, counts = layer.moves, layer.counts
    flat, base, lower, width = splits.flat, splits.base, splits.lower, splits.width
    half = total // 2
    size = 2 * moves.shape[1]
    board = np.empty(size, dtype=np.int64)
    changed = 0
    for p in range(counts.shape[0]):
        ending = 0
        if counts[p] == 0:
            unrank(p, seeds, size, binom, board)
            ending = stuck_value(board, size // 2, collect)
        for column in range(width[seeds]):
            mine = lower[seeds] + column
            theirs = total - seeds - mine
            if counts[p] == 0:
                lead = mine - theirs + ending
                best = (lead > 0) - (lead < 0)
            else:
                best = -2
                for j in range(counts[p]):
                    result = _move_result(p, j, seeds, mine, theirs, half, layer, splits)
                    if result > best:
                        best = result
            at = base[seeds] + p * width[seeds] + column
            if flat[at] != best:
                flat[at] = best
                changed += 1
    return changed


@jit(inline=False)
def _captures_errors(seeds, total, offsets, values, layer, splits, errors):
    """Count, over a layer and every split, results that break the two claims of :func:`captures_check`."""
    moves, caps, counts = layer.moves, layer.caps, layer.counts
    flat, base, lower, width = splits.flat, splits.base, splits.lower, splits.width
    half = total // 2
    for p in range(counts.shape[0]):
        value = values[offsets[seeds] + p]
        best = -(1 << 20)
        for j in range(counts[p]):
            taken = caps[p, j]
            move = taken - values[offsets[seeds - taken] + moves[p, j]]
            if move > best:
                best = move
        for column in range(width[seeds]):
            mine = lower[seeds] + column
            theirs = total - seeds - mine
            result = flat[base[seeds] + p * width[seeds] + column]
            lead = mine - theirs + value
            errors[0] += result != (lead > 0) - (lead < 0)
            for j in range(counts[p]):
                taken = caps[p, j]
                if taken - values[offsets[seeds - taken] + moves[p, j]] == best:
                    move_result = _move_result(p, j, seeds, mine, theirs, half, layer, splits)
                    errors[1] += move_result != result
            errors[2] += 1


def captures_check(database: EndgameDatabase, seeds: Optional[int] = None, progress: Optional[Progress] = None) -> Dict[str, int]:
    """Check, on every position and every split of the captured seeds, that captures already made change no best move.

    A second retrograde analysis solves the win/draw/loss game of the Abapa
    rules, where the game stops as soon as a player has more than half of the
    seeds, for every position with at most ``seeds`` seeds on the board
    (default: all of the database) and every split of the seeds already
    captured that leaves the game live; play that never captures again is
    scored as in the database (the seeds on the board split equally).  Two
    claims are then counted false where they fail:

    * ``value``: the result is the sign of the captured lead plus the
      database's value;
    * ``best``: every move with the best database value has the best result.

    Returns:
        ``{"value": errors, "best": errors, "cases": positions x splits checked}``.
    """
    top = database.seeds if seeds is None else check_seeds(seeds, database.rules)
    top = min(top, database.seeds)
    rules = database.rules
    total, half, n = rules.total_seeds, rules.total_seeds // 2, rules.pits_per_side
    lower = np.array([max(0, half - s) for s in range(top + 1)], dtype=np.int64)
    width = np.array([min(half, total - s) - lower[s] + 1 if s else 0 for s in range(top + 1)], dtype=np.int64)
    sizes = [layer_size(n, s) * int(width[s]) for s in range(top + 1)]
    base = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    flat = np.zeros(int(base[-1]), dtype=np.int8)
    values = np.array(database.values)
    errors = np.zeros(3, dtype=np.int64)
    small = dataclasses.replace(database)  # the same rules, cut at ``top`` seeds
    small.seeds = top
    for layer, moves, caps, counts in small._layers(progress, "checking the captures question"):
        if layer == 0:
            continue  # no live position: a capture that empties the board ends the game
        columns = flat[base[layer] : base[layer + 1]].reshape(-1, int(width[layer]))
        mine = lower[layer] + np.arange(width[layer])
        lead = 2 * mine - (total - layer)
        columns[:] = np.sign(lead)  # endless play: the seeds on the board split equally
        arrays, splits = _Layer(moves, caps, counts), _Splits(flat, base, lower, width)
        while _outcome_sweep(layer, total, database._binom, arrays, splits, rules.collect_remaining):
            pass
        _captures_errors(layer, total, database._offsets, values, arrays, splits, errors)
    return {"value": int(errors[0]), "best": int(errors[1]), "cases": int(errors[2])}
