"""Differential tests of the Abapa rules against OpenSpiel's ``oware``.

OpenSpiel's oware uses the same board layout and actions as :mod:`awale`
(houses ``0..n-1`` South's, ``n..2n-1`` North's; actions ``0..n-1`` relative to
the player to move) and the same rules as our defaults: feed rule, grand slams
capture nothing, the game ends on a repeated position (since the last capture)
or when the player to move has no legal move, the seeds left on the board then
going to the owner of their side.

Two differences are expected and allowed for:

* when a capture gives a player more than half the seeds, OpenSpiel still
  collects the seeds left on the board, so final captures may differ: only the
  winner is compared at the end;
* OpenSpiel refuses to play beyond ``max_game_length()`` (1000) plies; random
  games never get near it (the longest seen are under 400 plies), but a game
  that did would simply stop being compared there.
"""

from __future__ import annotations

from typing import Optional, Tuple

import numpy as np
import pytest
import pyspiel

from awale import Game, Rules
from awale.core import rules as kernels

#: Board sizes ``(pits_per_side, seeds_per_pit)``: 2 to 6 pits per side.
SIZES = [(6, 4), (5, 4), (4, 3), (3, 3), (2, 2), (3, 5), (6, 2)]

#: Random games per size in the default run, about 12,000 plies each (about 2 s in all).
FAST_GAMES = {(6, 4): 120, (5, 4): 150, (4, 3): 260, (3, 3): 350, (2, 2): 1200, (3, 5): 200, (6, 2): 220}
FAST_MIN_PLIES = 10_000  # per size; the default run compares at least 7 * 10,000
SLOW_FACTOR = 15  # the slow test plays 15 times as many games, with other seeds
SLOW_MIN_PLIES = 150_000  # per size; the slow test compares at least 7 * 150,000

assert set(FAST_GAMES) == set(SIZES)
assert len(SIZES) * FAST_MIN_PLIES >= 20_000
assert len(SIZES) * SLOW_MIN_PLIES >= 1_000_000

#: Perft from the initial position of the standard game (6 pits, 4 seeds), depths 1 to 8.
STANDARD_PERFT = [6, 36, 190, 1014, 5219, 27332, 139157, 711414]


def _size_id(size: Tuple[int, int]) -> str:
    return f"n{size[0]}-s{size[1]}"


def openspiel_game(n: int, s: int) -> "pyspiel.Game":
    """OpenSpiel's oware with ``n`` houses per player and ``s`` seeds per house."""
    return pyspiel.load_game("oware", {"num_houses_per_player": n, "num_seeds_per_house": s})


def openspiel_position(state: "pyspiel.State", total: int) -> Tuple[Tuple[int, ...], Tuple[int, int]]:
    """The pits and scores of an OpenSpiel oware state, as integers.

    The observation tensor holds the ``2n`` pit counts then the two scores, all
    divided by the total number of seeds.
    """
    values = np.rint(np.asarray(state.observation_tensor(0)) * total).astype(int)
    return tuple(values[:-2].tolist()), (int(values[-2]), int(values[-1]))


def openspiel_winner(state: "pyspiel.State") -> Optional[int]:
    """0 or 1 for the winner of a finished OpenSpiel game, None for a draw."""
    south = state.returns()[0]
    return 0 if south > 0 else 1 if south < 0 else None


def play_lockstep(n: int, s: int, games: int, seed: int) -> int:
    """Play seeded uniformly random games in :class:`Game` and OpenSpiel side by side.

    Before every move both must agree on the pits, the captures, the player to
    move and the legal actions; after the last move both must be finished, with
    the same winner.

    Args:
        n: pits per side.
        s: seeds per pit at the start.
        games: how many games to play.
        seed: seed of the ``numpy`` generator choosing the moves.

    Returns:
        The number of plies played and compared.
    """
    rules = Rules(pits_per_side=n, seeds_per_pit=s)
    total = rules.total_seeds
    reference = openspiel_game(n, s)
    max_plies = reference.max_game_length()
    rng = np.random.default_rng(seed)
    plies = 0
    for number in range(games):
        ours = Game(rules=rules)
        theirs = reference.new_initial_state()
        moves = []
        where = lambda: f"n={n} s={s} seed={seed} game {number} after moves {moves}"  # noqa: E731
        while True:
            # A live position: everything must agree.
            pits, captures = openspiel_position(theirs, total)
            assert ours.pits == pits, where()
            assert ours.captures == captures, where()
            assert ours.current_player == theirs.current_player(), where()
            legal = ours.legal_actions
            assert legal == theirs.legal_actions(), where()
            if len(moves) >= max_plies:  # OpenSpiel's own length limit; never reached so far
                break
            action = legal[rng.integers(len(legal))]
            mover = ours.current_player
            before = ours.captures[mover]
            ours, captured, finished = ours.step(action)
            theirs.apply_action(action)
            moves.append(action)
            plies += 1
            assert finished == ours.game_finished, where()
            assert finished == theirs.is_terminal(), where()
            if finished:
                # Final captures may differ (see the module docstring): compare the winner.
                assert ours.legal_actions == theirs.legal_actions() == [], where()
                assert ours.winner == openspiel_winner(theirs), where()
                break
            assert captured == ours.captures[mover] - before, where()
    return plies


@pytest.mark.parametrize("size", SIZES, ids=_size_id)
def test_random_games_match_openspiel(size):
    n, s = size
    plies = play_lockstep(n, s, FAST_GAMES[size], seed=1000 * n + s)
    assert plies >= FAST_MIN_PLIES


@pytest.mark.slow
@pytest.mark.parametrize("size", SIZES, ids=_size_id)
def test_random_games_match_openspiel_long(size):
    n, s = size
    plies = play_lockstep(n, s, SLOW_FACTOR * FAST_GAMES[size], seed=2_000_000 + 1000 * n + s)
    assert plies >= SLOW_MIN_PLIES


# ------------------------------------------------------------------------------ perft


def kernel_perft(game: Game, depth: int) -> int:
    """Perft of ``game`` by the compiled kernel :func:`awale.core.rules.perft`."""
    return kernels.perft(game._state, game.rules.params, game._keys, game._boards, game._length, depth)


def game_perft(game: Game, depth: int) -> int:
    """Perft of ``game`` through the public :meth:`Game.step` API."""
    if depth == 0:
        return 1
    return sum(game_perft(game.step(action)[0], depth - 1) for action in game.legal_actions)


def openspiel_perft(state: "pyspiel.State", depth: int) -> int:
    """Positions exactly ``depth`` plies after ``state`` in OpenSpiel (finished games stop early)."""
    if depth == 0:
        return 1
    if state.is_terminal():
        return 0
    if depth == 1:
        return len(state.legal_actions())
    total = 0
    for action in state.legal_actions():
        child = state.clone()
        child.apply_action(action)
        total += openspiel_perft(child, depth - 1)
    return total


@pytest.mark.parametrize("depth, expected", list(enumerate(STANDARD_PERFT, start=1)))
def test_perft_standard_game(depth, expected):
    assert kernel_perft(Game(), depth) == expected


@pytest.mark.parametrize("depth", range(1, 6))
def test_perft_standard_game_agrees_with_openspiel_and_game_step(depth):
    expected = STANDARD_PERFT[depth - 1]
    assert openspiel_perft(openspiel_game(6, 4).new_initial_state(), depth) == expected
    assert game_perft(Game(), depth) == expected


# Small boards, deep enough for games to end (by capture, repetition or starvation) inside the tree.
SMALL_PERFT = [(3, 3, 14), (4, 2, 12), (2, 3, 18), (2, 2, 24)]


@pytest.mark.parametrize("n, s, max_depth", SMALL_PERFT, ids=[f"n{n}-s{s}-d{d}" for n, s, d in SMALL_PERFT])
def test_perft_small_boards_agree_with_openspiel(n, s, max_depth):
    game = Game(rules=Rules(pits_per_side=n, seeds_per_pit=s))
    initial = openspiel_game(n, s).new_initial_state()
    for depth in range(1, max_depth + 1):
        ours = kernel_perft(game, depth)
        assert ours == openspiel_perft(initial, depth), f"n={n} s={s} depth={depth}"
        if depth <= 5:
            assert ours == game_perft(game, depth), f"n={n} s={s} depth={depth}"
