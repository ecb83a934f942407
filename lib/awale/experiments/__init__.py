"""Experiments: many games between agents, played on a Dask cluster and kept in one SQLite store.

* :mod:`~awale.experiments.store`: the store (one row per finished game) and :func:`load` for notebooks.
* :mod:`~awale.experiments.runner`: game keys and :func:`run`, which plays the keys not yet stored.
* :mod:`~awale.experiments.catalog`: the named experiments of the thesis.
* :mod:`~awale.experiments.verify`: stored games checked through the rules and replayed from their keys.
* :mod:`~awale.experiments.sprt`: the sequential probability ratio test on paired games (pentanomial model).

>>> from awale.experiments import pair_keys, run
>>> keys = pair_keys("random", "greedy", games=4, seed=1)
>>> [(k.south, k.north) for k in keys]
[('greedy', 'random'), ('random', 'greedy'), ('greedy', 'random'), ('random', 'greedy')]
"""

from .catalog import CATALOG, Experiment, PairStatus, get_experiment, results, standings, status
from .runner import (
    GameKey,
    RunInterrupted,
    RunnerError,
    RunSummary,
    canonical_spec,
    default_workers,
    derive_seed,
    local_workers,
    pair_keys,
    round_robin_keys,
    run,
)
from .sprt import SPRT, TestPlan, Verdict, sequential
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
