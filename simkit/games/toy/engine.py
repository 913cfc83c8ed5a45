"""Draw to Ten on the decision-point interface (see ``simkit.core.decision``).

State ``s`` (int32)::

    OVER TOTAL DRAWS   1 once the player has stopped or gone above 10; the total; cards drawn
    DECK_N DECK[12]    the face-down deck; the top card is DECK[DECK_N - 1]

Actions: ``STOP`` (0) and ``DRAW`` (1). ``env`` = ``(deck_cards, rules)``: the
cards of the deck and the rule vector ``(low, high)`` of the winning totals.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simkit.core import decision as D
from simkit.core.decision import reseed, reshuffle_unseen
from simkit.core.policies import HEURISTIC, LEARNED, RANDOM  # noqa: F401
from simkit.core.rng import randbelow, shuffle

OVER, TOTAL, DRAWS, DECK_N = range(4)
DECK = 4
MAX_DECK = 12
STATE_SIZE = DECK + MAX_DECK
STOP, DRAW = 0, 1
MAX_ACTIONS = 2
R_LOW, R_HIGH = 0, 1

# parameters: name -> (index, default, description, low, high)
PARAMS = {
    "stop_at": (0, 7.0, "draw while the total is below this", 0.0, 12.0),
}
PRESETS = {
    "stop_at_8": ("heuristic", {"stop_at": 8.0}),
    "timid": ("heuristic", {"stop_at": 6.0}),
    "random": ("random", {}),
}


@njit(cache=True)
def new_game(s, rng, env):
    """Shuffle the deck from the game's stream; the first decision is pending."""
    cards = env[0]
    s[:] = 0
    n = cards.shape[0]
    for i in range(n):
        s[DECK + i] = cards[i]
    shuffle(rng, s[DECK:DECK + n], n)
    s[DECK_N] = n


@njit(cache=True)
def legal_actions(s, env, out):
    if s[OVER]:
        return 0
    out[0] = STOP
    if s[DECK_N] == 0:
        return 1
    out[1] = DRAW
    return 2


@njit(cache=True)
def apply_action(s, rng, env, a):
    """Stop, or take the top card; a total above ``high`` ends the game at once."""
    if a == STOP:
        s[OVER] = 1
        return
    s[DECK_N] -= 1
    s[TOTAL] += s[DECK + s[DECK_N]]
    s[DRAWS] += 1
    if s[TOTAL] > env[1][R_HIGH]:
        s[OVER] = 1


@njit(cache=True)
def is_over(s):
    return s[OVER] == 1


@njit(cache=True)
def to_move(s):
    return 0


@njit(cache=True)
def won(s, env):
    return s[OVER] == 1 and env[1][R_LOW] <= s[TOTAL] <= env[1][R_HIGH]


@njit(cache=True)
def reward(s, env, seat):
    return 1.0 if won(s, env) else 0.0


@njit(cache=True)
def resample(s, rng, env, seat, srng):
    """The deck's order is what the player cannot see: reshuffle it canonically; reseed the chance stream."""
    reshuffle_unseen(s, DECK, s[DECK_N], srng)
    reseed(rng, srng)


@njit(cache=True)
def heuristic(s, env, legal, n, params, prng):
    """Draw while the total is below ``stop_at``."""
    if n > 1 and s[TOTAL] < params[0]:
        return DRAW
    return STOP


# the learned policy's features of an action (``features``): names, in slot order
FEATURES = ("is_base", "draw", "draw_x_total", "draw_x_bust_share", "draw_x_win_share", "stop_x_wins")
N_FEATURES = len(FEATURES)


@njit(cache=True)
def features(s, env, a, is_base, idx, val):
    """The mover's view of action ``a`` (sparse: slots ``idx``, values ``val``): whether the heuristic would play
    it; for a draw the total and the shares of the cards left (their multiset is known: the deck less the cards
    drawn) that would go above ``win_high`` or land on a winning total; for a stop whether it wins."""
    m = 0
    if is_base:
        idx[m], val[m] = 0, 1.0
        m += 1
    if a == DRAW:
        bust = 0
        win = 0
        k = s[DECK_N]
        for i in range(k):  # reads only the multiset of the unseen cards, not their order
            t = s[TOTAL] + s[DECK + i]
            if t > env[1][R_HIGH]:
                bust += 1
            elif t >= env[1][R_LOW]:
                win += 1
        idx[m], val[m] = 1, 1.0
        idx[m + 1], val[m + 1] = 2, float(s[TOTAL])
        idx[m + 2], val[m + 2] = 3, bust / max(k, 1)
        idx[m + 3], val[m + 3] = 4, win / max(k, 1)
        m += 4
    elif env[1][R_LOW] <= s[TOTAL] <= env[1][R_HIGH]:
        idx[m], val[m] = 5, 1.0
        m += 1
    return m


LEARNED_FNS = D.specialize_learned(features, heuristic, len(PARAMS), N_FEATURES, 5, __name__)
learned_action = LEARNED_FNS.learned_action


@njit(cache=True)
def policy(kind, s, env, legal, n, params, prng):
    """``heuristic``: draw while the total is below ``stop_at``; ``random``: a legal action at random;
    ``learned``: the learned scorer over ``features``."""
    if kind == RANDOM:
        return legal[randbelow(prng, n)]
    if kind == LEARNED:
        return learned_action(s, env, legal, n, params, prng)
    return heuristic(s, env, legal, n, params, prng)


@njit(cache=True)
def invariants(s, env):
    """0 when the cards drawn and the deck add up to the whole deck, else 1."""
    cards = env[0]
    if s[DECK_N] < 0 or s[DECK_N] > cards.shape[0] or s[DRAWS] + s[DECK_N] != cards.shape[0]:
        return 1
    left = 0
    for i in range(s[DECK_N]):
        left += s[DECK + i]
    if left + s[TOTAL] != cards.sum():
        return 1
    return 0


def exact_win_probability(stop_at: float, cards=(1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6), low=8, high=10):
    """The heuristic's exact win probability, by enumerating the draws (a check for the simulator)."""
    from fractions import Fraction
    from functools import lru_cache

    @lru_cache(maxsize=None)
    def value(total, left):
        if total > high:
            return Fraction(0)
        if not left or total >= stop_at:
            return Fraction(int(low <= total <= high))
        p = Fraction(0)
        for i, c in enumerate(left):
            if i > 0 and left[i - 1] == c:
                continue
            k = left.count(c)
            rest = left[:i] + left[i + 1:]
            p += Fraction(k, len(left)) * value(total + c, rest)
        return p

    return value(0, tuple(sorted(cards)))
