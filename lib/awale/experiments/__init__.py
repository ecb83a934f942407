"""Experiments: many games between agents, played on a Dask cluster and kept in one SQLite store.

* :mod:`~awale.experiments.store`: the store (one row per finished game) and :func:`load` for notebooks.
* :mod:`~awale.experiments.keys`: game keys, the identity of a game, and the keys of a pairing or a round robin.
* :mod:`~awale.experiments.runner`: :func:`run`, which plays the keys not yet stored, here or on a Dask cluster
  (:mod:`~awale.experiments.clusters`).
* :mod:`~awale.experiments.design`, :mod:`~awale.experiments.catalog`, :mod:`~awale.experiments.budgets`: what an
  experiment is, the named experiments of the thesis and the calibrated budgets of the equal-time ones.
* :mod:`~awale.experiments.tally`: how far an experiment has got and what its games show.
* :mod:`~awale.experiments.verify`: stored games checked through the rules and replayed from their keys.
* :mod:`~awale.experiments.stats` (:mod:`~awale.experiments.comparison`, :mod:`~awale.experiments.tournament`,
  :mod:`~awale.experiments.ratings`): the statistics of the method.
* :mod:`~awale.experiments.sprt` (:mod:`~awale.experiments.pentanomial`, :mod:`~awale.experiments.openings`): the
  sequential probability ratio test on paired games (pentanomial model).

>>> from awale.experiments import pair_keys, run
>>> keys = pair_keys("random", "greedy", games=4, seed=1)
>>> [(k.south, k.north) for k in keys]
[('greedy', 'random'), ('random', 'greedy'), ('greedy', 'random'), ('random', 'greedy')]
"""

from .catalog import CATALOG, get_experiment
from .clusters import RunnerError, default_workers
from .design import Experiment
from .keys import GameKey, canonical_spec, derive_seed, pair_keys, round_robin_keys
from .pentanomial import SPRT, Verdict
from .runner import RunInterrupted, RunSummary, local_workers, run
from .sprt import TestPlan, sequential
from .store import (
    Store,
    StoreError,
    count,
    decode_moves,
    experiments,
    load,
    rules_from_text,
    rules_to_text,
)
from .tally import PairStatus, results, standings, status
from .verify import Mismatch, VerifyReport, verify

__all__ = [
    "CATALOG",
    "Experiment",
    "PairStatus",
    "get_experiment",
    "results",
    "standings",
    "status",
    "GameKey",
    "RunInterrupted",
    "RunnerError",
    "RunSummary",
    "canonical_spec",
    "default_workers",
    "local_workers",
    "derive_seed",
    "pair_keys",
    "round_robin_keys",
    "run",
    "Store",
    "StoreError",
    "count",
    "decode_moves",
    "experiments",
    "load",
    "rules_from_text",
    "rules_to_text",
    "SPRT",
    "TestPlan",
    "Verdict",
    "sequential",
    "Mismatch",
    "VerifyReport",
    "verify",
]
