"""A game clock as engine testers give it: ``Clock.parse("60+0.5")``, 60 seconds a game plus 0.5 a move.

Each side of a game under a clock has its own time: the wall time of each of
its moves is taken from it, and the increment added after the move (Fischer's
clock, cutechess's and fastchess's ``tc=60+0.5``).  A side whose time runs out
during a move loses the game on time (see :func:`awale.play.match.play`).

>>> clock = Clock.parse("60+0.5")
>>> clock.base, clock.increment, str(clock)
(60.0, 0.5, '60+0.5')
>>> str(Clock.parse("10"))
'10+0'
"""

from __future__ import annotations

import dataclasses
import math
import re

__all__ = ["Clock", "MAX_CLOCK_SECONDS"]

#: The longest time a clock may give (a day per game, a day per move).
MAX_CLOCK_SECONDS = 86_400.0

_NUMBER = r"(\d+(?:\.\d*)?|\.\d+)"
_TEXT = re.compile(rf"{_NUMBER}(?:\+{_NUMBER})?")


@dataclasses.dataclass(frozen=True)
class Clock:
    """A time control: ``base`` seconds for the game, plus ``increment`` seconds after each move.

    Both are kept to the microsecond, so that the text of a clock (:meth:`__str__`, the form agent specs and
    the store hold) reads back as the same clock.

    Attributes:
        base: seconds each side has for the game, more than 0.
        increment: seconds added to a side's time after each of its moves, at least 0.

    Raises:
        ValueError: a base not above 0, a negative increment, or either not a finite number of at most
            :data:`MAX_CLOCK_SECONDS`.
    """

    base: float
    increment: float = 0.0

    def __post_init__(self) -> None:
        base = self.base
        for name, value in (("base", self.base), ("increment", self.increment)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                raise ValueError(f"clock: the {name} must be a finite number of seconds, got {value!r}")
            if name == "base" and value <= 0:
                raise ValueError(f"clock: the base must be above 0 s, got {value!r}")
            if value < 0:
                raise ValueError(f"clock: the increment must be at least 0 s, got {value!r}")
            if value > MAX_CLOCK_SECONDS:
                raise ValueError(f"clock: the {name} must be at most {MAX_CLOCK_SECONDS:g} s, got {value!r}")
            object.__setattr__(self, name, round(float(value), 6))
        if self.base == 0:
            raise ValueError(f"clock: the base must be at least a microsecond, got {base!r}")

    @classmethod
    def parse(cls, text: str) -> "Clock":
        """The clock of the testers' notation ``BASE+INCREMENT`` in seconds: ``"60+0.5"``, or ``"60"`` (no increment).

        Raises:
            ValueError: text that is not of that form, naming what was expected.
        """
        if isinstance(text, Clock):
            return text
        if not isinstance(text, str):
            raise ValueError(f"a clock must be text such as '60+0.5', got {text!r}")
        match = _TEXT.fullmatch(text.strip())
        if match is None and "-" in text:
            raise ValueError(f"bad clock {text!r}: times cannot be negative (expected BASE+INCREMENT such as '60+0.5')")
        if match is None:
            raise ValueError(
                f"bad clock {text!r}: expected BASE+INCREMENT in seconds, such as '60+0.5' (60 s a game plus "
                "0.5 s a move) or '60' (no increment)"
            )
        base, increment = match.groups()
        try:
            return cls(float(base), float(increment or 0.0))
        except ValueError as error:
            raise ValueError(f"bad clock {text!r}: {str(error).removeprefix('clock: ')}") from None

    def __str__(self) -> str:
        """The testers' notation, shortest form: ``60+0.5``."""
        return f"{_text(self.base)}+{_text(self.increment)}"


def _text(seconds: float) -> str:
    """Seconds to the microsecond, without trailing zeros or an exponent: ``60``, ``0.5``."""
    return f"{seconds:.6f}".rstrip("0").rstrip(".")
