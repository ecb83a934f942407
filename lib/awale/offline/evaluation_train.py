"""Training the pattern evaluation (:class:`awale.knowledge.evaluation.PatternEvaluation`) where the champion searches.

The pipeline behind ``python -m awale evaluation train`` has three stages, each resumable:

1. **Sample and label**, in seeded chunks of games (one file each under ``OUT/chunks``; a chunk already written is
   skipped, so a stopped run resumes; chunks may run on a Dask cluster).  The games are the champion's own, from
   the store (games where a side is a ``champion``), chosen by the seed; from each a share of the positions before
   the end is kept, and from each kept position a walk of 1 to 8 random legal moves reaches a position inside the
   tree the champion's full-width search of that position spans.  A position with at most the endgame database's
   seeds on the board is labelled by its exact result (1, ½ or 0 for the player to move); any other by
   ``(1 - λ) σ(v / EVAL_SCALE) + λ r``: the value ``v`` of a depth-8 αβ search with the Texel weights mixed with the
   game's result ``r`` (λ = 0.25, as in TD-Leaf-style mixing of search and outcome targets).  With ``probe`` the
   labelling search probes the database at its leaves too, so that a position a few captures above the database
   is labelled by near-exact values rather than by the Texel weights' estimates.
2. **Fit**: the nine linear weights start from the Texel weights and the tables from zero; L-BFGS (scipy) minimises
   the mean log-loss of the training positions plus an L2 penalty on the tables.  Each position lights one cell per
   tuple, so the gradient of the tables is a ``bincount`` of the residuals over the cells.
3. **Judge** on the held-out games (a fifth, drawn by the seed): log-loss of the patterns, of the Texel weights as
   they are and of the nine weights refitted on the same targets (:func:`awale.offline.evaluation_fit.fit`),
   overall and by seeds on the board, and the agreement with the database on the held-out positions it solves;
   what each tuple family brings (:func:`family_ablation`) and, with ``curve``, the held-out log-loss of fits on
   shares of the training games.

The weights go to ``OUT/evaluation-patterns.npz`` and the report to ``OUT/report.json``; shipping them is copying
the file to ``lib/awale/knowledge/`` (see ``data/README.md``).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np

from ..core.game import Game, game_arrays
from ..core.rules import Rules
from ..knowledge.evaluation import (
    N_FEATURES, PATTERN_RUNS, WEIGHTS, PatternEvaluation, features, load_evaluation, pattern_cells,
    pattern_weights_length, write_patterns,
)
from .evaluation_fit import fit, searcher_of

__all__ = ["TrainConfig", "BANDS", "FAMILIES", "chunk_path", "champion_games", "label_chunk", "run_chunks",
           "fit_patterns", "judge_models", "family_ablation", "train"]

#: Seeds-on-the-board bands the held-out figures are given by.
BANDS = ((0, 20), (21, 28), (29, 36), (37, 48))


@dataclasses.dataclass(frozen=True)
class TrainConfig:
    """What a training run does; equal configurations give equal files.

    Attributes:
        store: the experiment store whose champion games are sampled.
        out: the run's folder (chunks, weights, report).
        games: champion games sampled.
        chunk_games: games a chunk (the unit of resuming and of the cluster's tasks).
        keep: share of each game's positions kept.
        walk: most random plies of the walk from a kept position (1 to ``walk``).
        depth: the depth of the labelling search.
        mix: λ, the weight of the game's result beside the search's value.
        endgame_seeds: positions with at most this many seeds are labelled by the endgame database (0: none).
        probe: the labelling search probes that database too (needs ``endgame_seeds``).
        held_out: share of the games held out.
        penalty: L2 penalty of the tables (per weight, beside the mean log-loss).
        iterations: most L-BFGS iterations.
        curve: shares of the training games the tables are also fitted on, each judged on the same held-out
            positions (the learning curve of the report; empty: none).
        seed: the seed of every draw.
    """

    store: str = "data/experiments.sqlite"
    out: str = "data/evaluation/patterns"
    games: int = 400
    chunk_games: int = 20
    keep: float = 0.3
    walk: int = 8
    depth: int = 8
    mix: float = 0.25
    endgame_seeds: int = 20
    probe: bool = False
    held_out: float = 0.2
    penalty: float = 1e-4
    iterations: int = 300
    curve: Tuple[float, ...] = ()
    seed: int = 2026

    def __post_init__(self) -> None:
        for name in ("games", "chunk_games", "walk", "depth", "iterations"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value!r}")
        for name in ("keep", "mix", "held_out"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or not 0 <= value <= 1:
                raise ValueError(f"{name} must be a number from 0 to 1, got {value!r}")
        if not 0 < self.keep:
            raise ValueError("keep must be above 0")
        if isinstance(self.endgame_seeds, bool) or not isinstance(self.endgame_seeds, int) or self.endgame_seeds < 0:
            raise ValueError(f"endgame_seeds must be 0 or more, got {self.endgame_seeds!r}")
        if not isinstance(self.probe, bool):
            raise ValueError(f"probe must be True or False, got {self.probe!r}")
        if self.probe and not self.endgame_seeds:
            raise ValueError("probe needs an endgame database: give endgame_seeds above 0")
        if not isinstance(self.penalty, (int, float)) or self.penalty < 0:
            raise ValueError(f"penalty must be 0 or more, got {self.penalty!r}")
        if not isinstance(self.curve, tuple) or not all(
                isinstance(share, float) and 0 < share < 1 for share in self.curve):
            raise ValueError(f"curve must be a tuple of shares between 0 and 1, got {self.curve!r}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0:
            raise ValueError(f"seed must be a non-negative integer, got {self.seed!r}")

    @property
    def chunks(self) -> int:
        """Chunks of the run."""
        return -(-self.games // self.chunk_games)


def chunk_path(config: TrainConfig, index: int) -> Path:
    """The file of chunk ``index``."""
    return Path(config.out) / "chunks" / f"chunk-{index:04d}.npz"


def champion_games(config: TrainConfig) -> List[Tuple[str, str, float]]:
    """The sampled games as ``(rules, moves, South's result)``: distinct champion games of the store, in a fixed
    order, ``config.games`` of them drawn by the seed.

    Raises:
        ValueError: the store is missing or holds fewer champion games than asked.
    """
    from ..experiments import load

    if not Path(config.store).is_file():
        raise ValueError(f"no experiment store at {config.store}")
    games = load(config.store)
    champion = games["south"].map(searcher_of).str.startswith("champion") | \
        games["north"].map(searcher_of).str.startswith("champion")
    games = games[champion].drop_duplicates(["south", "north", "seed", "rules"])
    games = games.sort_values(["experiment", "south", "north", "seed", "rules"]).reset_index(drop=True)
    if len(games) < config.games:
        raise ValueError(f"{config.store} holds {len(games)} champion games, fewer than the {config.games} asked")
    chosen = np.sort(np.random.default_rng(config.seed).choice(len(games), config.games, replace=False))
    return [(games.at[i, "rules"], games.at[i, "moves"], float(games.at[i, "result"])) for i in chosen]


def _exact(database, game: Game) -> float:
    from .evaluation_fit import exact_result

    return exact_result(database, game)


def _database(config: TrainConfig, rules: Rules):
    """The endgame database of ``config.endgame_seeds`` seeds (built by ``endgame build``), or None for 0."""
    if config.endgame_seeds == 0:
        return None
    from ..knowledge import endgame
    from ..knowledge.endgame_cache import whole_built_database

    path = whole_built_database(config.endgame_seeds, rules)
    if path is None:
        raise ValueError(f"no endgame database of {config.endgame_seeds} seeds is built: run "
                         f"`python -m awale endgame build --seeds {config.endgame_seeds}` (or give endgame_seeds=0)")
    return endgame.load(str(path))


def label_chunk(config: TrainConfig, index: int, games: List[Tuple[str, str, float]]) -> Dict[str, np.ndarray]:
    """Sample and label chunk ``index`` (its games: ``games``, numbered from ``index * chunk_games``); the arrays
    of its file: ``states``, ``targets``, ``results``, ``exact`` (labelled by the database) and ``game`` numbers."""
    from ..core.rules import rules_from_text
    from ..experiments.store import decode_moves
    from ..search.alphabeta import EVAL_SCALE, WIN, AlphaBeta

    rng = np.random.default_rng([config.seed, index])
    states, targets, results, exact, numbers = [], [], [], [], []
    searchers: Dict[str, Any] = {}
    for k, (rules_text, moves, south) in enumerate(games):
        rules = rules_from_text(rules_text)
        if rules_text not in searchers:
            database = _database(config, rules)
            searchers[rules_text] = (AlphaBeta(rules, table_bits=18, endgame=database if config.probe else None,
                                               evaluation=load_evaluation(WEIGHTS["texel"])), database)
        searcher, database = searchers[rules_text]
        game = Game(rules=rules)
        for action in decode_moves(moves):
            if rng.random() < config.keep:
                for position in (game, _walk(game, rng, config.walk)):
                    if position is None or position.game_finished:
                        continue
                    result = south if position.current_player == 0 else 1.0 - south
                    seeds = sum(position.pits)
                    if database is not None and seeds <= database.seeds:
                        target, solved = _exact(database, position), True
                    else:
                        searcher.clear()
                        value = searcher.search(position, depth=config.depth).value
                        if abs(value) >= WIN:
                            estimate = 1.0 if value > 0 else 0.0
                        else:
                            estimate = 1.0 / (1.0 + np.exp(-value / EVAL_SCALE))
                        target, solved = (1 - config.mix) * estimate + config.mix * result, False
                    states.append(game_arrays(position).state.copy())
                    targets.append(target)
                    results.append(result)
                    exact.append(solved)
                    numbers.append(index * config.chunk_games + k)
            game = game.step(action)[0]
    return dict(states=np.array(states, dtype=np.int64).reshape(len(states), -1), targets=np.array(targets),
                results=np.array(results), exact=np.array(exact, dtype=bool), game=np.array(numbers, dtype=np.int64))


def _walk(game: Game, rng: np.random.Generator, most: int) -> Optional[Game]:
    """The position after 1 to ``most`` random legal moves from ``game`` (None if it ends first)."""
    for _ in range(int(rng.integers(1, most + 1))):
        if game.game_finished:
            return None
        actions = game.legal_actions
        game = game.step(actions[int(rng.integers(len(actions)))])[0]
    return game


def _chunk_task(config: TrainConfig, index: int, games: List[Tuple[str, str, float]]) -> Dict[str, np.ndarray]:
    return label_chunk(config, index, games)


def _save_chunk(config: TrainConfig, index: int, arrays: Dict[str, np.ndarray]) -> None:
    path = chunk_path(config, index)
    part = path.with_suffix(".part")
    with open(part, "wb") as f:
        np.savez_compressed(f, **arrays)
    part.replace(path)  # whole or absent: a stopped run never leaves half a chunk


#: The settings a chunk's positions and labels depend on (the fit's may change between runs of one folder).
_SAMPLING = ("store", "games", "chunk_games", "keep", "walk", "depth", "mix", "endgame_seeds", "probe", "seed")


def _games_digest(games: List[Tuple[str, str, float]]) -> str:
    """A digest of the sampled games: the same settings draw other games once the store holds more of them."""
    text = "\n".join(f"{rules}|{moves}|{result}" for rules, moves, result in games)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _check_sampling(config: TrainConfig, games: List[Tuple[str, str, float]]) -> None:
    """Record the sampling settings and the digest of the games they drew in ``OUT/sampling.json``, or check them
    against those recorded: chunks of another configuration, or of games drawn from a store that has grown since,
    are never mixed into a run.  A setting a folder's record lacks (one added later) has its default there, and
    a record without a digest is not checked for one."""
    path = Path(config.out) / "sampling.json"
    settings = {name: getattr(config, name) for name in _SAMPLING}
    settings["games_digest"] = _games_digest(games)
    if path.is_file():
        defaults = {field.name: field.default for field in dataclasses.fields(TrainConfig)}
        recorded = {name: defaults[name] for name in _SAMPLING}
        recorded["games_digest"] = settings["games_digest"]
        recorded.update(json.loads(path.read_text()))
        if recorded != settings:
            changed = sorted(k for k in settings if recorded.get(k) != settings[k])
            if len(changed) > 1:  # other settings draw other games too: name the settings
                changed = [k for k in changed if k != "games_digest"]
            what = ", ".join("the games drawn (the store holds other champion games now)" if k == "games_digest"
                             else k for k in changed)
            raise ValueError(f"{config.out} holds chunks sampled with other settings ({what}): give another "
                             f"folder, or the same settings and store to resume")
    else:
        path.write_text(json.dumps(settings, indent=1) + "\n")


def run_chunks(config: TrainConfig, client: Any = None, progress: bool = True) -> int:
    """Sample and label every chunk not yet written (on ``client``'s Dask cluster if given); chunks labelled now."""
    from tqdm import tqdm

    games = champion_games(config)
    chunk_path(config, 0).parent.mkdir(parents=True, exist_ok=True)
    _check_sampling(config, games)
    if config.endgame_seeds:
        _database(config, Rules())  # the missing database is said before any work
    todo = [i for i in range(config.chunks) if not chunk_path(config, i).is_file()]
    part = {i: games[i * config.chunk_games:(i + 1) * config.chunk_games] for i in todo}
    bar = tqdm(total=config.chunks, initial=config.chunks - len(todo), desc="label", unit=" chunk",
               disable=not progress)
    try:
        if client is None:
            for i in todo:
                _save_chunk(config, i, label_chunk(config, i, part[i]))
                bar.update()
        else:
            from distributed import as_completed

            futures = {client.submit(_chunk_task, config, i, part[i], pure=False): i for i in todo}
            for future in as_completed(futures):
                _save_chunk(config, futures[future], future.result())
                bar.update()
    finally:
        bar.close()
    return len(todo)


def _read_chunks(config: TrainConfig) -> Dict[str, np.ndarray]:
    parts = []
    for i in range(config.chunks):
        with np.load(chunk_path(config, i)) as data:
            parts.append({key: data[key] for key in data.files})
    width = 2 * Rules().pits_per_side + 5
    return {key: np.concatenate([p[key] for p in parts]) if key != "states" else
            np.concatenate([p[key].reshape(-1, width) for p in parts]) for key in parts[0]}


def _log_loss(logit: np.ndarray, y: np.ndarray) -> float:
    p = np.clip(1.0 / (1.0 + np.exp(-logit)), 1e-12, 1 - 1e-12)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def fit_patterns(x: np.ndarray, cells: np.ndarray, y: np.ndarray, start: np.ndarray, size: int, penalty: float,
                 iterations: int) -> Tuple[np.ndarray, Dict[str, Any]]:
    """Linear weights and tables minimising the mean log-loss plus ``penalty`` times the tables' squared norm
    (L-BFGS from the linear weights ``start`` and empty tables); the weights and what the optimiser said."""
    from scipy.optimize import minimize

    m = len(y)
    flat = cells.ravel()

    def loss(w: np.ndarray) -> Tuple[float, np.ndarray]:
        linear, tables = w[:N_FEATURES], w[N_FEATURES:]
        z = x @ linear + tables[cells].sum(axis=1)
        p = 1.0 / (1.0 + np.exp(-z))
        value = np.logaddexp(0.0, z) - y * z  # log-loss of the soft target y, stable for any z
        residual = (p - y) / m
        gradient = np.empty_like(w)
        gradient[:N_FEATURES] = x.T @ residual
        gradient[N_FEATURES:] = np.bincount(flat, weights=np.repeat(residual, cells.shape[1]), minlength=size)
        gradient[N_FEATURES:] += 2 * penalty * tables
        return float(value.mean() + penalty * tables @ tables), gradient

    w0 = np.concatenate([start, np.zeros(size)])
    found = minimize(loss, w0, jac=True, method="L-BFGS-B", options={"maxiter": iterations})
    return found.x, {"iterations": int(found.nit), "converged": bool(found.success), "message": str(found.message)}


def judge_models(logits: Dict[str, np.ndarray], y: np.ndarray, seeds: np.ndarray,
                 exact: np.ndarray) -> Dict[str, Any]:
    """Held-out log-loss of each model, overall and by :data:`BANDS`, and its agreement with the database: the
    share of decisive database-labelled positions whose winner the sign of its logit names."""
    report: Dict[str, Any] = {}
    decisive = exact & (y != 0.5)
    for name, z in logits.items():
        bands = {}
        for low, high in BANDS:
            band = (seeds >= low) & (seeds <= high)
            if band.any():
                bands[f"{low}-{high}"] = {"log_loss": round(_log_loss(z[band], y[band]), 4),
                                          "positions": int(band.sum())}
        agree = float(((z[decisive] > 0) == (y[decisive] == 1.0)).mean()) if decisive.any() else None
        report[name] = {"log_loss": round(_log_loss(z, y), 4), "positions": int(len(y)), "by_seeds": bands,
                        "database_agreement": None if agree is None else round(agree, 4),
                        "database_positions": int(decisive.sum())}
    return report


def _pattern_logit(w: np.ndarray, x: np.ndarray, cells: np.ndarray) -> np.ndarray:
    """The logits of fitted weights ``w`` (linear, then tables) for positions of features ``x`` and cells ``cells``."""
    return x @ w[:N_FEATURES] + w[N_FEATURES:][cells].sum(axis=1)


#: The tuple families of :func:`awale.knowledge.evaluation.pattern_cells`'s columns, in their order.
FAMILIES = tuple(f"runs of {length}" for length, _ in PATTERN_RUNS) + ("facing pairs",)


def family_ablation(linear: np.ndarray, cells: np.ndarray, y: np.ndarray,
                    pits_per_side: int = 6) -> Dict[str, Dict[str, float]]:
    """What each tuple family brings: the held-out log-loss of the patterns without that family's cells (the
    others kept as fitted), its rise over the whole, and the spread (standard deviation) of the family's sum.

    Args:
        linear: the linear part of each held-out position's logit.
        cells: the fitted table weight of each of its cells, shape ``(k, pattern_count())``.
        y: the held-out targets.
    """
    whole = linear + cells.sum(axis=1)
    base = _log_loss(whole, y)
    bounds = np.cumsum([0] + [2 * pits_per_side] * len(PATTERN_RUNS) + [pits_per_side])
    report = {}
    for name, low, high in zip(FAMILIES, bounds[:-1], bounds[1:]):
        part = cells[:, low:high].sum(axis=1)
        without = _log_loss(whole - part, y)
        report[name] = {"log_loss_without": round(without, 4), "rise": round(without - base, 4),
                        "spread": round(float(part.std()), 4)}
    return report


def train(config: TrainConfig, client: Any = None, progress: bool = True,
          say: Callable[[str], None] = print) -> Dict[str, Any]:
    """The whole pipeline (:mod:`this module's stages <awale.offline.evaluation_train>`); returns the report, also
    written to ``OUT/report.json`` beside the weights ``OUT/evaluation-patterns.npz``."""
    start = time.perf_counter()
    labelled = run_chunks(config, client, progress)
    label_seconds = time.perf_counter() - start
    data = _read_chunks(config)
    states, y = data["states"], data["targets"]
    if len(y) == 0:
        raise ValueError("the sampled games gave no positions: sample more games or keep more of them")
    held = np.random.default_rng([config.seed, 1]).random(config.games) < config.held_out
    test = held[data["game"]]
    train_rows = ~test
    if not train_rows.any() or not test.any():
        raise ValueError("the held-out split left no training or no held-out positions: sample more games")
    rules = Rules()
    x = features(states)
    cells = pattern_cells(states)
    texel = np.array(load_evaluation(WEIGHTS["texel"]).weights, dtype=np.float64)
    size = pattern_weights_length(rules.pits_per_side) - N_FEATURES
    say(f"fit: {int(train_rows.sum()):,} training positions, {int(test.sum()):,} held out, {size:,} table cells")
    fit_start = time.perf_counter()
    w, optimiser = fit_patterns(x[train_rows], cells[train_rows], y[train_rows], texel, size, config.penalty,
                                config.iterations)
    fit_seconds = time.perf_counter() - fit_start
    refit = fit(x[train_rows], y[train_rows], 1e-3)
    seeds = states[:, : 2 * rules.pits_per_side].sum(axis=1)
    logits = {
        "patterns": _pattern_logit(w, x[test], cells[test]),
        "texel": x[test] @ texel,
        "linear_refit": x[test] @ refit,
    }
    models = judge_models(logits, y[test], seeds[test], data["exact"][test])
    families = family_ablation(x[test] @ w[:N_FEATURES], w[N_FEATURES:][cells[test]], y[test])
    curve = []
    draw = np.random.default_rng([config.seed, 2]).random(config.games)[data["game"]]  # one draw: nested shares
    for share in config.curve:
        rows = train_rows & (draw < share)
        part, _ = fit_patterns(x[rows], cells[rows], y[rows], texel, size, config.penalty, config.iterations)
        loss = round(_log_loss(_pattern_logit(part, x[test], cells[test]), y[test]), 4)
        curve.append({"share": share, "positions": int(rows.sum()), "held_out_log_loss": loss})
        say(f"curve: {share:.0%} of the training games ({int(rows.sum()):,} positions), held-out log-loss {loss:.4f}")
    meta = {
        "config": dataclasses.asdict(config), "games": config.games, "held_out_games": int(held.sum()),
        "positions": int(len(y)), "held_out_positions": int(test.sum()),
        "database_labelled": int(data["exact"].sum()), "optimiser": optimiser,
        "held_out_log_loss": {name: entry["log_loss"] for name, entry in models.items()},
        "label_seconds_this_run": round(label_seconds, 1), "fit_seconds": round(fit_seconds, 1),
        "chunks_labelled_this_run": labelled, "trained_by": "python -m awale evaluation train",
    }
    evaluation = PatternEvaluation(w, meta, rules.pits_per_side)
    out = Path(config.out)
    write_patterns(out / "evaluation-patterns.npz", evaluation)
    report = {"meta": meta, "models": models, "families": families, "curve": curve}
    (out / "report.json").write_text(json.dumps(report, indent=1) + "\n")
    return report
