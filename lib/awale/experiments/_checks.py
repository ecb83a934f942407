"""Checks of the arguments that the statistics modules share: counts and fractions."""

from __future__ import annotations

import numbers

import numpy as np

__all__ = ["check_count", "check_fraction"]


def check_count(name: str, value: object) -> int:
    """An integer at least 0."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < 0:
        raise ValueError(f"{name} must be an integer at least 0, got {value!r}")
    return int(value)


def check_fraction(name: str, value: object) -> float:
    """A real number strictly between 0 and 1."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real) or not 0 < value < 1:
        raise ValueError(f"{name} must be a number strictly between 0 and 1, got {value!r}")
    return float(value)

