"""Exact and Monte Carlo odds for Valeria: Card Kingdoms (2nd edition) rolls.

Each turn the active player rolls 2d6. A Citizen with activation number ``n``
activates if ``n`` shows on either die or equals the sum of both dice; a
Citizen printed with two numbers (``9/10``) activates if either one does.
Exact results are :class:`fractions.Fraction` computed by icepool; the numba kernel
:func:`count_rolls` simulates the same quantities.
"""

from __future__ import annotations

from fractions import Fraction

import icepool
import numpy as np
from numba import njit

from simkit.core.dice import probabilities
from simkit.core.rng import roll, seed_stream
from simkit.errors import InputError

from simkit.games.valeria.citizens import NUMBERS, parse_citizens  # noqa: F401  (parse_citizens: API)


def label(citizen: tuple[int, ...]) -> str:
    """A Citizen as printed on its card, e.g. ``"6"`` or ``"9/10"``."""
    return "/".join(map(str, citizen))


def roll_distribution() -> icepool.Die:
    """The active player's roll: 2d6 as ``(d1, d2)``, 36 equally likely outcomes."""
    return icepool.tupleize(icepool.d6, icepool.d6)


def activates(number: int, d1: int, d2: int) -> bool:
    """An activation number triggers if rolled on either die or as the sum of both dice."""
    return number in (d1, d2) or number == d1 + d2


def _citizen_fires(citizen: tuple[int, ...], d1: int, d2: int) -> bool:
    return any(activates(n, d1, d2) for n in citizen)


def citizen_activation(citizens) -> list[tuple[str, Fraction]]:
    """P(each Citizen activates on one roll), in input order, labelled as printed."""
    return [(label(c), icepool.map(lambda a, b, c=c: _citizen_fires(c, a, b), icepool.d6, icepool.d6).probability(True))
            for c in citizens]


def _herald_count(citizens, d1: int, d2: int) -> int:
    # "If the dice roll did not activate any of your Citizens ... your Herald
    # Starter card activates"; "If the dice roll is doubles, then your Herald
    # Starter card activates" -- both: "the Herald Starter card activates two times".
    return int(not any(_citizen_fires(c, d1, d2) for c in citizens)) + int(d1 == d2)


def herald_distribution(citizens) -> dict[int, Fraction]:
    """P(k Herald activations) on one roll, k = 0, 1, 2, per the Herald Starter Card rules."""
    p = probabilities(icepool.map(lambda a, b: _herald_count(citizens, a, b), icepool.d6, icepool.d6))
    return {k: p.get(k, Fraction(0)) for k in range(3)}


def herald_expected(citizens) -> Fraction:
    """Expected Herald activations (Resources gained from the Herald) per roll."""
    return sum((k * p for k, p in herald_distribution(citizens).items()), Fraction(0))


def monster_event() -> dict[int, Fraction]:
    """P(a Monster Event with Activation Number n fires), n = 1..12.

    "The Monster Event card is activated if the value is rolled on the dice,
    including the sum of both dice. The card does not activate twice in the
    case of doubles."
    """
    return {n: icepool.map(lambda a, b, n=n: activates(n, a, b), icepool.d6, icepool.d6).probability(True)
            for n in NUMBERS}


def citizen_array(citizens) -> np.ndarray:
    """Citizens as the ``int64[c, 2]`` array :func:`count_rolls` takes (0 = no second number)."""
    out = np.zeros((len(citizens), 2), np.int64)
    for i, c in enumerate(citizens):
        out[i, : len(c)] = c
    return out


@njit(cache=True)
def count_rolls(key, n, citizen_numbers):
    """Simulate ``n`` rolls (roll ``i`` on stream ``i`` of ``key``).

    Returns ``(citizen_counts[c], herald_counts[3], monster_counts[13])``:
    activations per Citizen, rolls with k Herald activations, and rolls on
    which a Monster Event numbered m fires (index 0 unused).
    """
    c = citizen_numbers.shape[0]
    citizen_counts = np.zeros(c, np.int64)
    herald_counts = np.zeros(3, np.int64)
    monster_counts = np.zeros(13, np.int64)
    state = np.empty(4, np.uint64)
    for i in range(n):
        seed_stream(state, key, i)
        d1 = roll(state, 6)
        d2 = roll(state, 6)
        s = d1 + d2
        any_citizen = False
        for j in range(c):
            for k in range(2):
                m = citizen_numbers[j, k]
                if m != 0 and (m == d1 or m == d2 or m == s):
                    citizen_counts[j] += 1
                    any_citizen = True
                    break
        herald_counts[(0 if any_citizen else 1) + (1 if d1 == d2 else 0)] += 1
        for m in range(1, 13):
            if m == d1 or m == d2 or m == s:
                monster_counts[m] += 1
    return citizen_counts, herald_counts, monster_counts
