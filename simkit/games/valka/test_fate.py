"""VÁLKA Test Fate (Lonequest rules, "Test Fate").

    "To do this you will roll a ten-sided die: Good fortune! An EVEN outcome
    (2, 4, 6, 8 or 10). The beneficial outcome resolves. Unfortunate! An ODD
    outcome (1, 3, 5, 7 or 9). The heinous outcome resolves."

    "Once per Lonequest, you may spend 20 Krone, then say a prayer to dragon
    lord Valka (actually do it) then that failed test of fate instead goes in
    your favor."

The uses computed here:

* Buffs after a cleared Location ("Test Fate! - on each Buff card equipped …
  EVEN outcome - these items are well made and can be used again! ODD outcome
  - … return them to the Loot Deck"): a Buff survives k Locations with
  probability (1/2)^k; with the offering spent on it, (k + 1)/2^k.
* Rally ("Spend 1 Stamina to call for help! Test Fate: EVEN outcome - Draw and
  reveal a Warband Fighter who joins your Frontline").
* Marauders' reinforcements on "Not Enuf" ("they Test Fate and try to call
  for Reinforcements. EVEN outcome - Draw and reveal a card from the Fighter
  deck").
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

import icepool
import numpy as np
from numba import njit

from simkit.core.dice import probabilities
from simkit.core.rng import roll, seed_stream

D10 = 10
GOOD_FORTUNE = "even"  # the rule: "An EVEN outcome (2, 4, 6, 8 or 10)"; a variant "N+" is a roll of N or more


def is_good_fortune(roll_value: int, good: str = GOOD_FORTUNE) -> bool:
    """An even result is good fortune (the rule); with the variant ``good = "N+"`` a result of N or more."""
    if good == "even":
        return roll_value % 2 == 0
    return roll_value >= int(good.rstrip("+"))


@lru_cache(maxsize=None)
def fate_die(sides: int = D10, good: str = GOOD_FORTUNE) -> icepool.Die:
    """One Test Fate as an icepool die: 1 good fortune, 0 unfortunate."""
    return icepool.d(sides).map(lambda v: int(is_good_fortune(v, good)))


def _p(sides: int, good: str) -> Fraction:
    return fate_die(sides, good).probability(1)


def _counts(die: icepool.Die, n: int) -> dict[int, Fraction]:
    """``{k: P(k)}`` for every k in 0..n (zeros kept, so ``d[k]`` always reads)."""
    p = probabilities(die)
    return {k: p.get(k, Fraction(0)) for k in range(n + 1)}


def p_success(offering: bool = False, sides: int = D10, good: str = GOOD_FORTUNE) -> Fraction:
    """P(one Test Fate goes your way); with the offering available (and 20 Krone) a failure is turned."""
    p = _p(sides, good)
    return p + (1 - p) if offering else p


def successes(n: int, offering: bool = False, sides: int = D10, good: str = GOOD_FORTUNE) -> dict[int, Fraction]:
    """P(k good-fortune results in ``n`` tests), k = 0..n; the offering turns the first failure, once."""
    base = n @ fate_die(sides, good)
    if offering:
        base = base.map(lambda k: k + 1 if k < n else k)
    return _counts(base, n)


def buff_survival(k: int, offering: bool = False, sides: int = D10, good: str = GOOD_FORTUNE) -> Fraction:
    """P(an equipped Buff survives ``k`` post-Location Test Fates): it is lost at its first failure (the offering
    turns one failure)."""
    failures = k @ (1 - fate_die(sides, good))
    return failures.probability("<=", 1 if offering else 0)


def rally(offering: bool = False, sides: int = D10, good: str = GOOD_FORTUNE) -> Fraction:
    """P(a Rally brings a Warband Fighter)."""
    return p_success(offering, sides, good)


def rally_stamina_per_fighter(sides: int = D10, good: str = GOOD_FORTUNE) -> Fraction:
    """Expected Stamina spent on Rallies per Fighter gained (1 Stamina each, geometric)."""
    return 1 / rally(sides=sides, good=good)


def reinforcements(not_enuf_turns: int, sides: int = D10, good: str = GOOD_FORTUNE) -> dict[int, Fraction]:
    """P(the Marauders call k Fighters) over ``not_enuf_turns`` "Not Enuf" defend steps, k = 0..turns."""
    return _counts(not_enuf_turns @ fate_die(sides, good), not_enuf_turns)


@njit(cache=True)
def count_successes(key, n_sequences, tests, offering):
    """Monte Carlo: ``counts[k]`` = sequences of ``tests`` Test Fates with k successes.

    With ``offering`` the first failure of each sequence is turned.
    """
    counts = np.zeros(tests + 1, dtype=np.int64)
    state = np.empty(4, dtype=np.uint64)
    for i in range(n_sequences):
        seed_stream(state, key, i)
        used = False
        k = 0
        for _ in range(tests):
            if roll(state, D10) % 2 == 0:
                k += 1
            elif offering and not used:
                used = True
                k += 1
        counts[k] += 1
    return counts
