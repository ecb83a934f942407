"""Random late-game positions (awale.core.positions)."""

import numpy as np
import pytest

from awale.core.positions import sample_positions


def test_the_positions_drawn_have_at_most_the_seeds_asked_and_a_choice_of_moves():
    games = sample_positions(12, 20, np.random.default_rng(3))
    assert len(games) == 20
    assert all(1 <= sum(g.pits) <= 12 and not g.game_finished and len(g.legal_actions) > 1 for g in games)
    again = sample_positions(12, 20, np.random.default_rng(3))
    assert [g.pits for g in games] == [g.pits for g in again]


def test_asking_for_positions_that_random_games_do_not_reach_is_an_error_not_a_hang():
    with pytest.raises(ValueError, match="ask for more seeds"):
        sample_positions(2, 1, np.random.default_rng(0))
