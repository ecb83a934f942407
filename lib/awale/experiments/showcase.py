"""The stored games the thesis's website replays: a documented rule picks each one from the store.

:data:`SHOWCASE` lists what the site's game viewer shows, and :func:`pick_games` finds those games in a
store.  Every rule names the game it wants by what it is, never by a row number, so that the page shows
the headline games as soon as their experiments are stored; until then a rule that finds nothing is
skipped (the page shows the others, and says nothing of the missing ones).

The rules, in order:

* **a pairing**: the stored game of two given agents with the lowest seed (either agent as South);
* **the final**: the same, for the two agents with the best scores over the experiment's stored games
  (:func:`awale.experiments.tally.standings`);
* **an ending** or **a grand slam**: the first game between two search agents, in the order of the
  experiments named by the other rules, then of the catalogue, then of the other experiments of the store by
  name, and within an experiment in the store's order (south, north, rules, seed), that ended by repetition, or in which a move would have captured
  every seed of the opponent and, by the Abapa rules, captured none.

>>> [pick.title for pick in SHOWCASE][:2]
["The champions' final", 'Minimax against UCT at about equal time per move']
"""

from __future__ import annotations

import dataclasses
import os
from typing import Dict, List, Optional, Sequence, Tuple, Union

from ..core.record import Ply, replay
from .catalog import CATALOG, REFERENCE_ITERATIONS
from .keys import canonical_spec
from .store import decode_moves, load, rules_from_text
from .tally import standings

__all__ = ["Pick", "ShownGame", "SHOWCASE", "pick_games"]

_SEARCHES = ("uct", "mcts", "flat", "minimax", "openspiel_mcts")


@dataclasses.dataclass(frozen=True)
class Pick:
    """A rule choosing one stored game.

    Attributes:
        title: the heading of the game on the page.
        kind: ``"pairing"``, ``"final"``, ``"repetition"`` or ``"grand slam"`` (see the module).
        experiment: the experiment to look in (``"pairing"`` and ``"final"``).
        pairing: the two agents of a ``"pairing"``, in any order.
        about: one sentence for the page: why this game.
    """

    title: str
    kind: str
    experiment: str = ""
    pairing: Tuple[str, str] = ("", "")
    about: str = ""


@dataclasses.dataclass(frozen=True)
class ShownGame:
    """A stored game chosen by a :class:`Pick`, with every ply described (:func:`awale.core.record.replay`)."""

    pick: Pick
    experiment: str
    south: str
    north: str
    seed: int
    rules_text: str
    moves: Tuple[int, ...]
    plies: Tuple[Ply, ...]


_UCT = f"uct(iterations={REFERENCE_ITERATIONS})"

#: What the site shows, in order (see the module's docstring for the rules).
SHOWCASE: Tuple[Pick, ...] = (
    Pick("The champions' final", "final", "champions",
         about="The two agents with the best scores in the champions' round robin, in their first game."),
    Pick("Minimax against UCT at about equal time per move", "pairing", "alphabeta-uct",
         ("minimax(depth=12)", _UCT),
         about="αβ searching 12 plies takes about as long per move as UCT with the reference budget."),
    Pick("The champion against UCT with the same knowledge", "pairing", "knowledge",
         ("champion(depth=11, endgame='15')", "uct(iterations=13000, evaluation=True, solver=True, endgame='15')"),
         about="Both with the fitted evaluation and the endgame database, at about equal time per move: "
               "αβ with an opening book against UCT with the solver."),
    Pick("UCT against OpenSpiel's MCTS", "pairing", "ladder", (_UCT, f"openspiel_mcts(iterations={REFERENCE_ITERATIONS})"),
         about="The same algorithm written by another program, at the same number of simulations."),
    Pick("MCTS-Solver against UCT", "pairing", "solver", (f"uct(iterations={REFERENCE_ITERATIONS}, solver=True)", _UCT),
         about="The solver proves the end of the game and plays the proven moves."),
    Pick("A game ended by repetition", "repetition",
         about="A position came back with no capture in between: the seeds left go to the owners of their side."),
    Pick("A grand slam", "grand slam",
         about="A move that would take every seed of the opponent: by the Abapa rules it takes none."),
)


def _order(picks: Sequence[Pick], stored: Sequence[str]) -> List[str]:
    named = [pick.experiment for pick in picks if pick.experiment]
    return list(dict.fromkeys(named + list(CATALOG) + sorted(stored)))


def _shown(pick: Pick, row, plies: Optional[Sequence[Ply]] = None) -> ShownGame:
    moves = decode_moves(row.moves)
    if plies is None:
        plies = replay(moves, rules_from_text(row.rules))
    return ShownGame(pick, row.experiment, row.south, row.north, int(row.seed), row.rules, moves, tuple(plies))


def _first_of(frame, pair: Tuple[str, str]):
    a, b = (canonical_spec(spec) for spec in pair)
    mask = ((frame["south"] == a) & (frame["north"] == b)) | ((frame["south"] == b) & (frame["north"] == a))
    games = frame[mask].sort_values("seed", kind="stable")
    return next(games.itertuples(), None)


def _search(spec: str) -> bool:
    return spec.split("(")[0] in _SEARCHES


def pick_games(path: Union[str, os.PathLike], picks: Sequence[Pick] = SHOWCASE) -> List[ShownGame]:
    """The stored games the ``picks`` choose, in their order; a pick that finds no game is left out.

    Raises:
        StoreError: no store at ``path``.
        ValueError: a pick of an unknown kind.
    """
    frame = load(path)
    by_experiment: Dict[str, object] = {name: games for name, games in frame.groupby("experiment", sort=False)}
    chosen: List[ShownGame] = []
    for pick in picks:
        games = by_experiment.get(pick.experiment)
        if pick.kind == "pairing":
            row = None if games is None else _first_of(games, pick.pairing)
            if row is not None:
                chosen.append(_shown(pick, row))
        elif pick.kind == "final":
            table = None if games is None else standings(games)
            if table is not None and len(table) >= 2:
                chosen.append(_shown(pick, _first_of(games, tuple(table.index[:2]))))
        elif pick.kind in ("repetition", "grand slam"):
            found = _first_ending(by_experiment, _order(picks, list(by_experiment)), pick)
            if found is not None:
                chosen.append(found)
        else:
            raise ValueError(f"unknown kind of pick {pick.kind!r}: pairing, final, repetition or grand slam")
    return chosen


def _first_ending(by_experiment: Dict[str, object], order: Sequence[str], pick: Pick) -> Optional[ShownGame]:
    for name in order:
        games = by_experiment.get(name)
        if games is None:
            continue
        for row in games.itertuples():
            if not (_search(row.south) and _search(row.north)):
                continue
            plies = replay(decode_moves(row.moves), rules_from_text(row.rules))
            if (plies[-1].ending == "repetition") if pick.kind == "repetition" else any(p.grand_slam for p in plies):
                return _shown(pick, row, plies)
    return None
