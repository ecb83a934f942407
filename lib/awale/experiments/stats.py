"""The statistics of the method: comparing agents, power analysis, tournaments and ratings.

The reference thesis (Marchant 2021, "Comparing algorithms") compares two
agents with an exact binomial test of the hypothesis that they are equally
strong, chooses the number of games by a power analysis, and compares more
than two agents by a round-robin tournament whose significant results form a
weak tournament; when that relation is transitive it is a weak order, a
ranking with ties.  This module gathers those steps, plus Bradley-Terry
ratings on the Elo scale as a complementary summary, from three modules:

* :mod:`awale.experiments.comparison`: two agents (:func:`compare`, the
  power analysis, :func:`holm`);
* :mod:`awale.experiments.tournament`: round robins, weak tournaments and
  weak orders;
* :mod:`awale.experiments.ratings`: Bradley-Terry ratings, the Elo of a
  score, what time is worth and the effects of a factorial design.

Every name is importable from here as from its own module.

Definitions chosen here (each function's docstring gives the details):

* Draws: the test of "equally strong" is the exact binomial test of the wins
  against the losses, draws left out (the sign test); the score, with draws
  worth ½, is reported with its confidence interval.  See :func:`compare`.
* Power: the probability that the exact two-sided test at level ``alpha``
  rejects in favour of the truly stronger agent; the number of games needed
  is the smallest ``n`` whose power reaches the target, as ``powerBinom`` of
  the R package ``exactci`` computes it.  It gives the thesis's 49.  See
  :func:`games_needed`.
* Step-type: rows and columns in the same order, each row non-increasing from
  left to right and each column non-decreasing from top to bottom (weakest
  agent first, as in the thesis's figure).  See :func:`is_step_type`.

Two departures from the thesis, both deliberate.  Its threshold of 32 wins
out of 50 comes from a one-sided test at 5 %, while its power analysis is
two-sided; here every test is two-sided, so "significantly stronger" needs 33
wins out of 50 decisive games and "not significantly weaker" 18 (the thesis's
18).  And a step-type matrix with the same order on rows and columns
characterises semiorders (Pirlot & Vincke 1997), not weak orders: a complete
relation can be step-type and still intransitive (a ~ b, b ~ c, c ≻ a), so
:func:`weak_order` checks transitivity itself.

References:
    Marchant, N. (2021). Playing Awale with MCTS. Master's thesis,
    https://awale.ml.
    Fay, M. P. (2010). Two-sided exact tests and matching confidence intervals
    for discrete data. The R Journal 2(1), 53-58 (package ``exactci``).
    Wilson, E. B. (1927). Probable inference, the law of succession, and
    statistical inference. JASA 22(158), 209-212.
    Clopper, C. J. & Pearson, E. S. (1934). The use of confidence or fiducial
    limits illustrated in the case of the binomial. Biometrika 26(4), 404-413.
    Bradley, R. A. & Terry, M. E. (1952). Rank analysis of incomplete block
    designs I. Biometrika 39(3/4), 324-345.
    Ford, L. R. (1957). Solution of a ranking problem from binary comparisons.
    The American Mathematical Monthly 64(8), 28-33.
    Elo, A. E. (1978). The Rating of Chessplayers, Past and Present. Arco.
    Holm, S. (1979). A simple sequentially rejective multiple test procedure.
    Scandinavian Journal of Statistics 6(2), 65-70.
    Efron, B. & Tibshirani, R. J. (1993). An Introduction to the Bootstrap.
    Chapman & Hall.
    Box, G. E. P., Hunter, J. S. & Hunter, W. G. (2005). Statistics for
    Experimenters, 2nd ed. Wiley.
    Roubens, M. & Vincke, Ph. (1985). Preference Modelling. Springer.
    Pirlot, M. & Vincke, Ph. (1997). Semiorders. Kluwer.
    Brandt, F., Brill, M. & Harrenstein, P. (2016). Tournament solutions. In
    Handbook of Computational Social Choice, Cambridge University Press.
"""

from .comparison import Comparison, compare, detectable, games_needed, holm, power
from .ratings import ELO_PER_NATURAL_UNIT, bootstrap_ratings, elo, factorial_effects, ms_per_move, ratings, time_worth
from .tournament import (
    NotAWeakOrder,
    Tournament,
    is_step_type,
    round_robin,
    step_type,
    stronger,
    weak_order,
    weak_tournament,
)

__all__ = [
    "ELO_PER_NATURAL_UNIT",
    "Comparison",
    "time_worth",
    "compare",
    "power",
    "games_needed",
    "detectable",
    "holm",
    "Tournament",
    "round_robin",
    "stronger",
    "weak_tournament",
    "is_step_type",
    "step_type",
    "NotAWeakOrder",
    "weak_order",
    "ratings",
    "bootstrap_ratings",
    "elo",
    "factorial_effects",
    "ms_per_move",
]
