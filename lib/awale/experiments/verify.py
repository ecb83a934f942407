"""Check that stored games are what their keys say: :func:`verify`.

Two checks, from the cheapest:

* **Rules.**  Every stored move list is played through :class:`~awale.core.game.Game`
  under the stored rules: each move must be legal, the game must end exactly
  at the last move (or at the rules' ply cap), and the stored winner, scores
  and number of plies must be those the rules give.  A game under a clock
  (an agent ``clocked(...)``, see :mod:`awale.agents.clocked`) may instead
  stop before its end, lost on time by the side to move: its winner must
  then be the other side, and its scores the captures at that point.
* **Replay.**  A game is a pure function of its key (agent specs, match
  seed, rules: see :func:`awale.play.match.play`), so playing the key again must
  give the same moves, winner and scores, bit for bit.  Games whose agents
  have a time budget (a ``time`` parameter) depend on the machine's speed
  and load: they are not replayed, and counted as such.  Nor are the games of
  another program (``engine(name=...)``, :mod:`awale.agents.engine`): its
  command is not in the store, and nothing read from it starts a process.

Replaying costs as much as playing, so by default a seeded random sample of
the replayable games is replayed; the rules check covers every game.  A game
that fails either check is reported, never skipped.
"""

from __future__ import annotations

import dataclasses
import functools
import os
from typing import Any, List, Mapping, Optional, Tuple, Union

import numpy as np

from ..agents import parse
from ..agents.base import WrapperAgent
from ..agents.engine import Engine
from ..core.game import Game, IllegalActionError
from ..play.match import play
from .store import Store, decode_moves, rules_from_text

__all__ = ["Mismatch", "VerifyReport", "check_rules", "check_replay", "clocked", "flagged", "time_based", "verify"]


@dataclasses.dataclass(frozen=True)
class Mismatch:
    """A stored game that failed a check.

    Attributes:
        experiment, south, north, seed: the game's key (rules aside).
        check: ``"rules"`` or ``"replay"``.
        reason: what differed.
    """

    experiment: str
    south: str
    north: str
    seed: int
    check: str
    reason: str

    def __str__(self) -> str:
        return f"{self.experiment}: {self.south} vs {self.north} (seed {self.seed}), {self.check}: {self.reason}"


@dataclasses.dataclass
class VerifyReport:
    """What :func:`verify` checked and found.

    Attributes:
        games: games in the store (of the experiment asked for).
        checked: games whose moves were played through the rules (all of them).
        replayed: games replayed from their keys.
        time_based: games not replayable because an agent had a time budget or a
            multi-threaded search, or was another program (see :func:`time_based`).
        external: those of them played by another program (``engine(name=...)``).
        mismatches: every game that failed a check.
    """

    games: int = 0
    checked: int = 0
    replayed: int = 0
    time_based: int = 0
    external: int = 0
    mismatches: List[Mismatch] = dataclasses.field(default_factory=list)

    @property
    def ok(self) -> bool:
        """No stored game failed a check."""
        return not self.mismatches


def time_based(spec: str) -> bool:
    """Whether the games of the agent of ``spec`` cannot be replayed move for move.

    Its search has a time budget, or runs on several threads by a scheme
    whose moves depend on the threads' timing (see :attr:`awale.agents.Agent.replayable`).
    """
    return not parse(spec).replayable


@functools.lru_cache(maxsize=1024)
def clocked(spec: str) -> bool:
    """Whether the agent of ``spec`` plays under a clock (and may lose on time)."""
    return parse(spec).clock is not None


def _through_rules(row: Mapping[str, Any]) -> Tuple[Optional[Game], Optional[str]]:
    """A stored game's moves played through the rules: its last position and None, or None and what is wrong."""
    game = Game(rules_from_text(row["rules"]))
    moves = decode_moves(row["moves"])
    for ply, action in enumerate(moves):
        if game.game_finished:
            return None, f"the game was over after {ply} plies, but {len(moves)} moves are stored"
        try:
            game, _, _ = game.step(action)
        except IllegalActionError as error:
            return None, f"move {ply + 1} ({action}) is illegal: {error}"
    if not game.game_finished and not clocked(row[("south", "north")[game.current_player]]):
        return None, f"the game is not over after the {len(moves)} stored moves"  # only a clock ends a game early
    return game, None


def flagged(row: Mapping[str, Any]) -> Optional[int]:
    """The side (0 South, 1 North) that lost a stored game on time, or None for a game the rules ended.

    Raises:
        ValueError: its moves break the rules: an illegal move, a move after the end, or a game that stops early
            with no clock for the side to move (the stored winner, scores and length are not read).
    """
    game, wrong = _through_rules(row)
    if game is None:
        raise ValueError(wrong)
    return None if game.game_finished else game.current_player


def check_rules(row: Mapping[str, Any]) -> Optional[str]:
    """Play a stored game's moves through the rules; None if it is consistent, else what is wrong.

    A game that stops before its end was lost on time by the side to move, which must play under a clock.

    Args:
        row: a stored game, with the columns of :func:`awale.experiments.load`.
    """
    game, wrong = _through_rules(row)
    if game is None:
        return wrong
    winner = game.winner if game.game_finished else 1 - game.current_player
    stored = (_winner(row["winner"]), (int(row["south_score"]), int(row["north_score"])), int(row["plies"]))
    found = (winner, tuple(game.captures), game.plies)
    if stored != found:
        return f"stored winner, scores and plies {stored}, the rules give {found}"
    return None


def check_replay(row: Mapping[str, Any]) -> Optional[str]:
    """Play a stored game again from its key; None if it comes out identical, else what differs."""
    record = play(row["south"], row["north"], rules=rules_from_text(row["rules"]), seed=int(row["seed"]))
    moves = decode_moves(row["moves"])
    if record.moves != moves:
        at = next((i for i, (a, b) in enumerate(zip(record.moves, moves)) if a != b), min(len(moves), record.plies))
        return (
            f"the replay departs at ply {at + 1}: stored {''.join(map(str, moves[at:at + 8]))}..., "
            f"replayed {''.join(map(str, record.moves[at:at + 8]))}..."
        )
    stored = (_winner(row["winner"]), (int(row["south_score"]), int(row["north_score"])))
    if stored != (record.winner, tuple(record.score)):
        return f"same moves but stored result {stored}, replayed {(record.winner, tuple(record.score))}"
    return None


def _winner(value: Any) -> Optional[int]:
    return None if value is None or value != value or str(value) == "<NA>" else int(value)


def verify(
    store: Union[Store, str, os.PathLike],
    experiment: Optional[str] = None,
    sample: Optional[int] = 100,
    seed: int = 0,
    progress: Optional[bool] = None,
) -> VerifyReport:
    """Check the stored games: all through the rules, and a sample (or all) replayed from their keys.

    Args:
        store: a :class:`Store` or the path of one.
        experiment: only this experiment's games (all by default).
        sample: how many replayable games to replay, drawn at random with
            ``seed``; None replays every replayable game, 0 none.
        seed: the seed of the sample.
        progress: show tqdm progress bars on stderr (by default only when
            stderr is a terminal).

    Returns:
        The :class:`VerifyReport`; :attr:`VerifyReport.ok` is False if any
        game failed a check.

    Raises:
        ValueError: a bad ``sample`` or ``seed``.
        StoreError: the store cannot be read.
    """
    for name, value in (("sample", sample), ("seed", seed)):
        if value is None and name == "sample":
            continue
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < 0:
            raise ValueError(f"{name} must be an integer at least 0, got {value!r}")
    if isinstance(store, Store):
        frame = store.load(experiment)
    else:
        with Store(store, create=False) as opened:
            frame = opened.load(experiment)
    from tqdm.auto import tqdm

    disable = None if progress is None else not progress
    report = VerifyReport(games=len(frame))
    rows = frame.to_dict("records")
    for row in tqdm(rows, desc="rules", unit="game", disable=disable):
        reason = check_rules(row)
        report.checked += 1
        if reason is not None:
            report.mismatches.append(_mismatch(row, "rules", reason))

    timed = {spec: time_based(spec) for spec in set(frame["south"]) | set(frame["north"])}
    replayable = [row for row in rows if not (timed[row["south"]] or timed[row["north"]])]
    report.time_based = len(rows) - len(replayable)
    report.external = sum(_external(row["south"]) or _external(row["north"]) for row in rows)
    if sample is not None and sample < len(replayable):
        chosen = np.random.default_rng(seed).choice(len(replayable), size=sample, replace=False)
        replayable = [replayable[i] for i in sorted(chosen)]
    for row in tqdm(replayable, desc="replay", unit="game", disable=disable):
        reason = check_replay(row)
        report.replayed += 1
        if reason is not None:
            report.mismatches.append(_mismatch(row, "replay", reason))
    return report


@functools.lru_cache(maxsize=1024)
def _external(spec: str) -> bool:
    """Whether the agent of ``spec`` is another program (an engine), inside its clock and opening."""
    agent = parse(spec)
    while isinstance(agent, WrapperAgent):
        agent = agent.inner
    return isinstance(agent, Engine)


def _mismatch(row: Mapping[str, Any], check: str, reason: str) -> Mismatch:
    return Mismatch(row["experiment"], row["south"], row["north"], int(row["seed"]), check, reason)
