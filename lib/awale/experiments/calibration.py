"""Equal time, measured: budgets that give two agents the same time per move, and the check that they do.

The experiments compare agents "at equal time" with budgets that do not depend
on the machine (UCT's iterations, αβ's nodes), so that every game replays.
Which budgets take equal time is a measurement, made here:

* the positions: every ply of games of the ``knowledge`` experiment in
  ``data/experiments.sqlite`` between two searches, one of each pairing, in a
  fixed mixed order (openings, middle games and endings as strong players
  reach them), whole games until there are at least :data:`POSITIONS`;
* an agent's time per move: it plays every position of a game in turn (so its
  transposition table or tree carries over as in play, and OpenSpiel's bots
  can follow the game), reset between games, after its endgame database is
  loaded and one untimed move has compiled it; the clock is the process's
  CPU time, which other work on the machine changes far less than the wall
  clock (every agent searches on one thread);
* :func:`fit` sets a budget from the time per unit at a first guess (search
  time grows about linearly with the budget), then measures and corrects it
  until it is within :data:`TOLERANCE` of the target;
* :func:`check` measures both sides of each pairing of an experiment, the
  agents taking turns game by game so that a change in the machine's load
  falls on both: equal time holds where their times per move are within
  :data:`EQUAL_TIME` (10 %);
* :func:`replay_times` replays a sample of each pairing's stored games, move
  for move, and measures both sides on the positions the games really reached,
  in wall-clock and in CPU seconds (the latter hardly changed by other work on
  the machine).  Where they differ by more than :data:`EQUAL_TIME`,
  :meth:`PairTimes.balanced` gives the budget of either side that would have
  matched the other's time on those games (:func:`rescaled`): the positions a
  pairing's games reach can cost one side more than the calibration positions
  do, so each such pairing is refitted on its own games.

``python -m awale experiment calibrate`` runs the check on the reader's machine,
``--fit`` finds the budgets anew (as :data:`awale.experiments.budgets.CURVE_BUDGETS`
were found; ``data/curves/calibration.csv``) and ``--replay K`` (or ``all``)
times stored games, one process per core (``--workers``);
:func:`replayed_times` pools the replays recorded in a file.  Idle cores
still give the truest figures: a busy machine slows even the CPU time a
little (shared caches), unevenly between agents.
"""

from __future__ import annotations

import dataclasses
import os
import re
import time
from typing import TYPE_CHECKING, Callable, Dict, Iterable, List, Optional, Sequence, Tuple

import numpy as np

from ..agents import Agent, parse
from ..knowledge.endgame_cache import endgame_database
from ..agents.opening import split_opening
from ..core.game import Game
from ..play.match import fresh_agents, warm_up
from .store import decode_moves, load, rules_from_text

if TYPE_CHECKING:
    import pandas as pd

    from .design import Experiment

__all__ = [
    "FAMILIES",
    "PROBES",
    "POSITIONS",
    "TOLERANCE",
    "EQUAL_TIME",
    "equal_time",
    "Measurement",
    "probe",
    "positions",
    "seconds_per_move",
    "interleaved_seconds",
    "fit",
    "check",
    "PairTimes",
    "replay_times",
    "replayed_times",
    "family_of",
    "rescaled",
]

#: The agent families of the equal-time experiments: a spec template whose ``{n}`` is the budget.
FAMILIES: Dict[str, str] = {
    "uct": "uct(iterations={n})",
    "uct + evaluation": "uct(iterations={n}, evaluation=True)",
    "heavy uct": "uct(iterations={n}, playout='greedy')",
    "OpenSpiel MCTS": "openspiel_mcts(iterations={n})",
    "αβ + evaluation": "minimax(nodes={n}, evaluation=True, quiescence=4)",
    "champion": "champion(nodes={n}, endgame='15')",
    "αβ": "minimax(nodes={n})",
    "αβ + quiescence": "minimax(nodes={n}, quiescence=4)",
    "αβ + evaluation, no quiescence": "minimax(nodes={n}, evaluation=True)",
    "αβ + endgame": "minimax(nodes={n}, endgame='15')",
    "αβ + quiescence + endgame": "minimax(nodes={n}, quiescence=4, endgame='15')",
    "αβ + evaluation + endgame, no quiescence": "minimax(nodes={n}, evaluation=True, endgame='15')",
    "αβ + evaluation + quiescence + endgame": "minimax(nodes={n}, evaluation=True, quiescence=4, endgame='15')",
    "uct + patterns, implicit": "uct(iterations={n}, evaluation=True, implicit=0.4, weights='patterns')",
    "αβ + patterns": "minimax(nodes={n}, evaluation=True, quiescence=4, weights='patterns')",
}

#: Positions measured (every ply of whole games, until there are at least this many).
POSITIONS = 400

#: :func:`fit` stops when the time per move is within this fraction of the target.
TOLERANCE = 0.03

#: Two agents play at equal time when their times per move differ by at most this fraction.
EQUAL_TIME = 0.10

def equal_time(seconds: float, other: float) -> bool:
    """Whether two times per move are equal in the sense of the thesis: within :data:`EQUAL_TIME` of each other."""
    return abs(seconds / other - 1) <= EQUAL_TIME


#: A first budget of each family, near 10 ms a move on the development machine (fit then corrects it).
PROBES: Dict[str, int] = {
    "uct": 3300,
    "uct + evaluation": 8200,
    "heavy uct": 2400,
    "OpenSpiel MCTS": 500,
    "uct + patterns, implicit": 6000,
}
_NODES_PROBE = 30_000  # every αβ family's

_SEARCHES = ("uct", "minimax", "champion")


@dataclasses.dataclass(frozen=True)
class Measurement:
    """One agent's mean time per move on the calibration positions.

    Attributes:
        family: the family it belongs to ('' outside :data:`FAMILIES`).
        spec: the agent.
        seconds: mean CPU seconds per move.
        target: the time aimed at, in seconds (None for a plain measurement).
    """

    family: str
    spec: str
    seconds: float
    target: Optional[float] = None

    @property
    def ratio(self) -> float:
        """The time per move over the target's (NaN without a target)."""
        return self.seconds / self.target if self.target else float("nan")


def probe(family: str) -> int:
    """A first budget for :func:`fit` of ``family``, about 10 ms a move on the development machine."""
    return PROBES.get(family, _NODES_PROBE)


def positions(path: str, count: int = POSITIONS) -> List[List[Game]]:
    """The calibration positions: every ply of ``knowledge`` games between two searches.

    One game of each pairing and colours (the one of lowest seed) is taken, the pairings in a
    fixed shuffled order, so that the positions come from every kind of strong game.

    Args:
        path: the store to read (the thesis's is ``data/experiments.sqlite``).
        count: whole games are taken until they hold at least this many positions.

    Raises:
        ValueError: the store holds too few such games.
    """
    if not os.path.exists(path):
        raise ValueError(f"the calibration positions come from {path}, which does not exist")
    table = load(path, "knowledge")
    table = table[table["south"].str.startswith(_SEARCHES) & table["north"].str.startswith(_SEARCHES)]
    first = table.groupby(["south", "north"], sort=True).head(1)  # one game of each pairing and colours
    order = np.random.default_rng(0).permutation(len(first))  # pairings in a fixed, mixed order
    games: List[List[Game]] = []
    total = 0
    for row in first.iloc[order].itertuples():
        if total >= count:
            break
        game = Game(rules=rules_from_text(row.rules))
        games.append([])
        for action in decode_moves(row.moves):
            games[-1].append(game)
            game = game.step(action)[0]
        total += len(games[-1])
    if total < count:
        raise ValueError(f"{path} holds {total} positions of knowledge games between searches; {count} are needed")
    return games


def _ready(spec: str, first: Game) -> Agent:
    """``spec``'s agent with its endgame database loaded and its kernels compiled by one untimed move."""
    agent = parse(spec)
    if getattr(agent, "endgame", None) is not None:
        endgame_database(agent.endgame, first.rules)
    agent.reset()
    agent.act(first)
    return agent


def interleaved_seconds(specs: Sequence[str], games: Sequence[Sequence[Game]]) -> Dict[str, float]:
    """Mean CPU seconds per move of each of ``specs`` over every position of ``games``, measured in turn.

    The agents take turns game by game (the first plays a whole game, then the
    second the same game, and so on), so that a change in the machine's speed
    during the measurement, such as other work starting, falls on all of them
    alike instead of on whichever was measured then; their ratios are what the
    equal-time check compares.  Each agent first loads its endgame database,
    if it has one (built on first use), and moves once in the first position,
    untimed, to compile its kernels.
    """
    first = games[0][0]
    agents = {spec: _ready(spec, first) for spec in dict.fromkeys(specs)}
    elapsed = dict.fromkeys(agents, 0.0)
    moves = 0
    for game in games:
        for spec, agent in agents.items():
            agent.reset()
            start = time.process_time()
            for position in game:
                agent.act(position)
            elapsed[spec] += time.process_time() - start
        moves += len(game)
    return {spec: seconds / moves for spec, seconds in elapsed.items()}


def seconds_per_move(spec: str, games: Sequence[Sequence[Game]]) -> float:
    """Mean CPU seconds of ``spec``'s moves over every position of ``games`` (the process's CPU clock)."""
    return interleaved_seconds([spec], games)[spec]


def _rounded(budget: float) -> int:
    """A budget to two significant figures (budgets are read by people), at least 1."""
    return max(1, int(float(f"{budget:.2g}")))


def fit(
    family: str,
    target: float,
    games: Sequence[Sequence[Game]],
    start: int,
    rounds: int = 4,
    report: Optional[Callable[[Measurement], None]] = None,
) -> Tuple[int, List[Measurement]]:
    """The budget of ``family`` whose time per move is closest to ``target`` seconds.

    Args:
        family: a key of :data:`FAMILIES`.
        target: seconds per move.
        games: the positions (:func:`positions`).
        start: the first budget measured.
        rounds: the most budgets measured.
        report: called with each measurement as it is made.

    Returns:
        The budget (two significant figures) of the measurement closest to
        the target, and every measurement made.

    Raises:
        ValueError: an unknown family, or a target that is not positive.
    """
    if family not in FAMILIES:
        raise ValueError(f"unknown family {family!r}; known: {', '.join(FAMILIES)}")
    if not target > 0:
        raise ValueError(f"the target must be a positive number of seconds, got {target!r}")
    template = FAMILIES[family]
    made: List[Measurement] = []
    budgets: Dict[int, Measurement] = {}
    budget = _rounded(start)
    for _ in range(rounds):
        if budget in budgets:  # rounding cannot move it: measured already
            break
        spec = template.format(n=budget)
        measured = Measurement(family, spec, seconds_per_move(spec, games), target)
        made.append(measured)
        budgets[budget] = measured
        if report is not None:
            report(measured)
        if abs(measured.ratio - 1) <= TOLERANCE:
            break
        budget = _rounded(budget / measured.ratio)
    best = min(budgets, key=lambda b: abs(budgets[b].ratio - 1))
    return best, made


def check(
    pairings: Iterable[Tuple[str, str]],
    games: Sequence[Sequence[Game]],
    report: Optional[Callable[[Measurement], None]] = None,
) -> List[Tuple[str, str, float, float]]:
    """Both sides' mean CPU seconds per move for each pairing, every agent measured once, all in turn.

    The agents are measured by :func:`interleaved_seconds`, game by game in turn.

    Returns:
        ``(agent, opponent, agent's seconds, opponent's seconds)`` per pairing, in order.
    """
    pairs = list(pairings)
    seconds = interleaved_seconds([spec for pair in pairs for spec in pair], games)
    if report is not None:
        for spec, measured in seconds.items():
            report(Measurement("", spec, measured))
    return [(a, b, seconds[a], seconds[b]) for a, b in pairs]


@dataclasses.dataclass(frozen=True)
class PairTimes:
    """Both sides' mean time per move over replayed games of one pairing.

    Attributes:
        agent, opponent: the pairing (canonical specs, as stored).
        games: games replayed.
        agent_wall, opponent_wall: mean wall-clock seconds per move.
        agent_cpu, opponent_cpu: mean CPU seconds per move (the process's, all threads).
        moves: the moves timed, both sides together.
    """

    agent: str
    opponent: str
    games: int
    agent_wall: float
    opponent_wall: float
    agent_cpu: float
    opponent_cpu: float
    moves: int = 0

    @property
    def ratio(self) -> float:
        """The agent's CPU time per move over the opponent's."""
        return self.agent_cpu / self.opponent_cpu

    def row(self, experiment: str, replayed: str) -> Dict[str, object]:
        """The times as a row of ``data/curves/replay.csv`` (milliseconds), for ``experiment`` replayed at ``replayed``."""
        return dict(experiment=experiment, agent=self.agent, opponent=self.opponent, games=self.games,
                    agent_ms=f"{1000 * self.agent_cpu:.3f}", opponent_ms=f"{1000 * self.opponent_cpu:.3f}",
                    ratio=f"{self.ratio:.3f}", agent_wall_ms=f"{1000 * self.agent_wall:.3f}",
                    opponent_wall_ms=f"{1000 * self.opponent_wall:.3f}",
                    equal_time=equal_time(self.agent_cpu, self.opponent_cpu), replayed=replayed, moves=self.moves)

    def balanced(self) -> Tuple[Optional[str], Optional[str]]:
        """The agent's spec with the budget that matches the opponent's time on these games, and the reverse.

        Search time grows about linearly with the budget, so the agent's budget is
        scaled by the opponent's time over its own (:func:`rescaled`); either is None
        when that side's spec is not of a family of :data:`FAMILIES`.
        """
        return rescaled(self.agent, 1 / self.ratio), rescaled(self.opponent, self.ratio)


_MARKER = 7_654_321


def family_of(spec: str) -> Optional[Tuple[str, int]]:
    """The family of :data:`FAMILIES` that ``spec`` belongs to and its budget, or None (the same agent once parsed)."""
    canonical = parse(spec).spec
    for family, template in FAMILIES.items():
        # the family's canonical spec, its budget a marker that no other part of a spec contains
        before, after = parse(template.format(n=_MARKER)).spec.split(str(_MARKER))
        found = re.fullmatch(re.escape(before) + r"(\d+)" + re.escape(after), canonical)
        if found is not None:
            return family, int(found.group(1))
    return None


def rescaled(spec: str, factor: float) -> Optional[str]:
    """``spec`` with its budget multiplied by ``factor`` (two significant figures), or None outside :data:`FAMILIES`.

    Raises:
        ValueError: a factor that is not a positive number.
    """
    if not factor > 0:
        raise ValueError(f"the factor must be a positive number, got {factor!r}")
    found = family_of(spec)
    if found is None:
        return None
    family, budget = found
    return FAMILIES[family].format(n=_rounded(budget * factor))


#: One stored game to replay: South's and North's specs as stored, the match seed, the rules, the moves.
_StoredGame = Tuple[str, str, int, str, bytes]

def _replay_game(stored: _StoredGame) -> Dict[str, Tuple[float, float, int]]:
    """Replay one stored game, checking every move; each side's wall and CPU seconds and moves, its opening left out.

    Raises:
        ValueError: a move differs from the stored one.
    """
    south_spec, north_spec, seed, rules, encoded = stored
    (south, line), (north, _) = split_opening(south_spec), split_opening(north_spec)
    specs = (south, north)
    for spec in specs:
        warm_up(spec, rules_from_text(rules))
    players = fresh_agents((south_spec, north_spec), int(seed))
    timed = {spec: [0.0, 0.0, 0] for spec in specs}
    game = Game(rules=rules_from_text(rules))
    for ply, stored_move in enumerate(decode_moves(encoded)):
        side = game.current_player
        begun, clock = time.perf_counter(), time.process_time()
        action = players[side].act(game)
        if ply >= len(line):  # the opening's moves are not the agent's
            entry = timed[specs[side]]
            entry[0] += time.perf_counter() - begun
            entry[1] += time.process_time() - clock
            entry[2] += 1
        if action != stored_move:
            raise ValueError(f"{specs[side]} played {action} at ply {ply} of the stored game "
                             f"{south_spec} vs {north_spec}, seed {seed}, where the store has {stored_move}")
        game = game.step(action)[0]
    return {spec: (wall, cpu, moves) for spec, (wall, cpu, moves) in timed.items()}


def replay_times(
    path: str,
    experiment: "Experiment",
    games: Optional[int] = 10,
    seed: int = 0,
    report: Optional[Callable[[str], None]] = None,
    workers: int = 1,
    progress: Optional[bool] = False,
) -> List[PairTimes]:
    """Replay ``games`` stored games of each pairing of ``experiment`` (a seeded sample; None: all) and time both sides.

    The games are those of the experiment's keys
    (:meth:`~awale.experiments.design.Experiment.pairing_games`).  The agents are made
    as :func:`awale.play.match.play` made them for the stored game, so they play
    the stored moves again; each move is timed by the wall clock and by the
    process's CPU clock, the moves of an opening (games from openings) left
    out.  Every agent first makes one untimed move in each process (compiled
    code and endgame database loaded).  With ``workers`` > 1 the games are
    shared among that many processes, one game per process at a time: use at
    most one per core, on an otherwise idle machine (the processes are
    spawned, so a script that calls this with ``workers`` > 1 needs the usual
    ``if __name__ == "__main__":`` guard).  ``progress`` shows a progress bar
    on stderr (None: only when stderr is a terminal).

    Raises:
        ValueError: a pairing with no stored game, or a replay whose move
            differs from the stored one (the game is then not reproducible
            from its key, which ``experiment verify`` would report too).
    """
    if games is not None and games < 1:
        raise ValueError(f"games must be at least 1 (or None for all), not {games}")
    if workers < 1:
        raise ValueError(f"workers must be at least 1, not {workers}")
    table = load(path, experiment.name)
    rng = np.random.default_rng(seed)
    chosen: List[Tuple[str, str, List[_StoredGame]]] = []
    for agent, opponent in experiment.pairings():
        rows = experiment.pairing_games(table, agent, opponent)
        if rows.empty:
            raise ValueError(f"{path} holds no game of {agent} against {opponent} in {experiment.name!r}")
        if games is not None and games < len(rows):
            rows = rows.iloc[np.sort(rng.choice(len(rows), size=games, replace=False))]
        chosen.append((agent, opponent, [(r.south, r.north, int(r.seed), r.rules, r.moves) for r in rows.itertuples()]))
    every = [stored for _, _, stored in chosen for stored in stored]
    timed = _replay_all(every, workers, progress, f"replay {experiment.name}")
    found: List[PairTimes] = []
    done = 0
    for agent, opponent, stored in chosen:
        sums = {agent: [0.0, 0.0, 0], opponent: [0.0, 0.0, 0]}
        for one in timed[done:done + len(stored)]:
            for spec, values in one.items():
                sums[spec] = [total + value for total, value in zip(sums[spec], values)]
        done += len(stored)
        (aw, ac, am), (ow, oc, om) = sums[agent], sums[opponent]
        times = PairTimes(agent, opponent, len(stored), aw / am, ow / om, ac / am, oc / om, am + om)
        found.append(times)
        if report is not None:
            report(f"{agent} vs {opponent}: {len(stored)} games, CPU ms/move {1000 * times.agent_cpu:.2f} / "
                   f"{1000 * times.opponent_cpu:.2f} (ratio {times.ratio:.3f}), wall {1000 * times.agent_wall:.2f} / "
                   f"{1000 * times.opponent_wall:.2f}")
    return found


def replayed_times(path: "os.PathLike[str] | str") -> "pd.DataFrame":
    """The replays recorded in a CSV file (as ``calibrate --replay --out`` writes, several replays appended), pooled.

    Returns:
        A frame indexed by (experiment, agent, opponent) with both sides' CPU
        milliseconds per move (``agent_ms``, ``opponent_ms``: the mean of the
        replays weighted by their games, so that every replayed game counts
        once), their ``ratio``, the ``games`` replayed in all (a game replayed
        twice counts twice) and the number of ``replays``.

    Raises:
        ValueError: the file lacks one of the columns needed.
    """
    import pandas as pd

    rows = pd.read_csv(path)
    needed = {"experiment", "agent", "opponent", "games", "agent_ms", "opponent_ms"}
    if not needed <= set(rows.columns):
        raise ValueError(f"{path} is not a file of replays: it lacks {', '.join(sorted(needed - set(rows.columns)))}")
    for side in ("agent", "opponent"):
        rows[f"{side}_total"] = rows[f"{side}_ms"] * rows["games"]
    pooled = rows.groupby(["experiment", "agent", "opponent"]).agg(
        agent_total=("agent_total", "sum"), opponent_total=("opponent_total", "sum"),
        games=("games", "sum"), replays=("games", "size"))
    pooled["agent_ms"] = pooled["agent_total"] / pooled["games"]
    pooled["opponent_ms"] = pooled["opponent_total"] / pooled["games"]
    pooled["ratio"] = pooled["agent_ms"] / pooled["opponent_ms"]
    return pooled[["agent_ms", "opponent_ms", "ratio", "games", "replays"]]


def _replay_all(
    games: List[_StoredGame], workers: int, progress: Optional[bool], title: str
) -> List[Dict[str, Tuple[float, float, int]]]:
    """:func:`_replay_game` on each of ``games``, in their order of results, in this process or ``workers`` others."""
    from tqdm.auto import tqdm

    disable = None if progress is None else not progress  # None: a bar only on a terminal
    with tqdm(total=len(games), desc=title, unit="game", smoothing=0.1, dynamic_ncols=True, disable=disable) as bar:
        if workers == 1:
            timed = []
            for stored in games:
                timed.append(_replay_game(stored))
                bar.update()
            return timed
        import concurrent.futures
        import multiprocessing

        context = multiprocessing.get_context("spawn")
        with concurrent.futures.ProcessPoolExecutor(workers, mp_context=context) as pool:
            futures = [pool.submit(_replay_game, stored) for stored in games]
            try:
                for future in concurrent.futures.as_completed(futures):
                    future.result()
                    bar.update()
            except BaseException:
                for future in futures:
                    future.cancel()
                raise
            return [future.result() for future in futures]
