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

import numpy as np
from numba import njit

from simkit.core.exact import Dist, binomial, die
from simkit.core.rng import roll, seed_stream

D10 = 10


def is_good_fortune(roll_value: int) -> bool:
    """An even result is good fortune."""
    return roll_value % 2 == 0


def p_success(offering: bool = False) -> Fraction:
    """P(one Test Fate goes your way); with the offering available (and 20 Krone) a failure is turned."""
    p = die(D10).probability(is_good_fortune)
    return p + (1 - p) if offering else p


def successes(n: int, offering: bool = False) -> Dist:
    """Number of good-fortune results in ``n`` tests; the offering turns the first failure, once."""
    base = binomial(n, die(D10).probability(is_good_fortune))
    if not offering:
        return base
    return base.map(lambda k: k + 1 if k < n else k)


def buff_survival(k: int, offering: bool = False) -> Fraction:
    """P(an equipped Buff survives ``k`` post-Location Test Fates): it is lost at its first failure."""
    p = die(D10).probability(is_good_fortune)
    if not offering:
        return p**k
    return p**k + k * (1 - p) * p ** (k - 1)  # at most one failure, turned by the offering


def rally(offering: bool = False) -> Fraction:
    """P(a Rally brings a Warband Fighter)."""
    return p_success(offering)


def rally_stamina_per_fighter() -> Fraction:
    """Expected Stamina spent on Rallies per Fighter gained (1 Stamina each, geometric)."""
    return 1 / rally()


def reinforcements(not_enuf_turns: int) -> Dist:
    """Number of Fighters the Marauders call over ``not_enuf_turns`` "Not Enuf" defend steps."""
    return binomial(not_enuf_turns, die(D10).probability(is_good_fortune))


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
