"""Valhalla weapon dice, shared by every mode of the family (solo and multiplayer): packed dice pools, rolls,
rerolls and the fitting of dice to a card's weapon symbols.

A pool of dice is packed into one int64: 4 bits per symbol, symbol ``S`` (the number of weapon symbols) being the
wild ⊗ face. A pile of dice in a state vector is ``s[nd]`` (the count) followed by the dice, kept sorted by symbol.

Rules (valhalla-solo.txt, Battle; the multiplayer battle uses the same dice): "the player may discard 1 die from
their pool of dice to reroll any remaining dice they have" (the basic reroll); Ice Giants: "dice bearing the ⊗
symbol cannot be used to activate them" and, with ≠ (valhalla-valkyries.txt), "all weapon dice used to activate
that Giant must be different from one another".
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simkit.core.rng import randbelow

# card table columns used here (the same as every mode's card table: ``solo.layout``)
C_CLAN, C_ANY, C_DISTINCT = 1, 5, 6
A_ICE_GIANT = 2


@njit(cache=True, inline="always")
def pc(p, sym):
    """The count of ``sym`` in packed pool ``p``."""
    return (p >> np.int64(4 * sym)) & np.int64(15)


@njit(cache=True, inline="always")
def unit(sym):
    """One die of ``sym``, packed."""
    return np.int64(1) << np.int64(4 * sym)


@njit(cache=True, _nrt=False)
def ptotal(p, S):
    """The number of dice in packed pool ``p`` (``S`` weapon symbols and the wild face)."""
    t = 0
    for sym in range(S + 1):
        t += pc(p, sym)
    return t


@njit(cache=True, inline="always")
def roll_die(rng, faces):
    """One roll of the weapon die (``faces``: symbol per face; S = the wild face)."""
    return faces[randbelow(rng, faces.shape[0])]


@njit(cache=True, inline="always")
def pile_pool(s, nd):
    """The dice of the pile at ``s[nd]`` as packed counts."""
    p = np.int64(0)
    for i in range(s[nd]):
        p += unit(s[nd + 1 + i])
    return p


@njit(cache=True, inline="always")
def sort_pile(s, nd):
    """Sort the dice of the pile at ``s[nd]`` by symbol (insertion sort, stable)."""
    n = s[nd]
    for i in range(1, n):
        v = s[nd + 1 + i]
        j = i - 1
        while j >= 0 and s[nd + 1 + j] > v:
            s[nd + 2 + j] = s[nd + 1 + j]
            j -= 1
        s[nd + 2 + j] = v


@njit(cache=True, inline="always")
def roll_pile(s, nd, rng, faces, k):
    """Roll ``k`` dice into the (empty) pile at ``s[nd]``, sorted."""
    s[nd] = 0
    for _ in range(k):
        s[nd + 1 + s[nd]] = roll_die(rng, faces)
        s[nd] += 1
    sort_pile(s, nd)


@njit(cache=True, inline="always")
def add_die(s, nd, rng, faces, max_dice):
    """One more die rolled into the pile (an Ice Giant's extra die), if the pile has room."""
    if s[nd] < max_dice:
        s[nd + 1 + s[nd]] = roll_die(rng, faces)
        s[nd] += 1
        sort_pile(s, nd)


@njit(cache=True, inline="always")
def reroll_pile(s, nd, rng, faces, mask):
    """Reroll the dice of bitmask ``mask`` (pile order), then sort."""
    for i in range(s[nd]):
        if (mask >> i) & 1:
            s[nd + 1 + i] = roll_die(rng, faces)
    sort_pile(s, nd)


@njit(cache=True, inline="always")
def basic_reroll(s, nd, rng, faces, m):
    """The basic reroll "discard 1 die from their pool of dice to reroll any of the remaining dice": the highest
    die of ``m`` is discarded, the rest of ``m`` rerolled (|m| >= 2)."""
    top = 0
    for i in range(s[nd]):
        if (m >> i) & 1:
            top = i
    n = s[nd]
    for k in range(top, n - 1):
        s[nd + 1 + k] = s[nd + 2 + k]
    s[nd] = n - 1
    reroll_pile(s, nd, rng, faces, m & ((1 << top) - 1))


@njit(cache=True, inline="always")
def list_rerolls(s, nd, out, n, a_free, a_basic, free, basic):
    """Append the canonical reroll actions to ``out[n:]`` and return the new count: ``a_free + m`` for every
    non-empty mask (when ``free``), then ``a_basic + m`` for every mask of two dice or more (when ``basic``).
    Canonical: within a run of equal symbols (the pile is sorted) the last dice are rerolled."""
    k = s[nd]
    same = 0
    for i in range(k - 1):
        if s[nd + 1 + i] == s[nd + 2 + i]:
            same |= 1 << i
    if free:
        for m in range(1, 1 << k):
            if (same & m & ~(m >> 1)) == 0:
                out[n] = a_free + m
                n += 1
    if basic:
        for m in range(3, 1 << k):
            if (m & (m - 1)) != 0 and (same & m & ~(m >> 1)) == 0:
                out[n] = a_basic + m
                n += 1
    return n


@njit(cache=True, inline="always")
def canonical(s, nd, mask):
    """Within a run of equal dice (the pile is sorted) only the last ones are rerolled."""
    for i in range(s[nd] - 1):
        if s[nd + 1 + i] == s[nd + 2 + i] and (mask >> i) & 1 and not (mask >> (i + 1)) & 1:
            return False
    return True


@njit(cache=True, inline="always")
def fit(cards, need, clan_ability, wild_rule, c, rem):
    """``rem`` (packed counts) less the dice card ``c`` needs, or -1 if they are not there.

    Ice Giants: "dice bearing the ⊗ symbol cannot be used to activate them"; with ≠ "all weapon dice used to
    activate that Giant must be different from one another". Named symbols first (the wild face makes up a
    shortage), then "any" slots from the most plentiful symbol left, then the wild face. (Hot: no calls.)"""
    S = need.shape[1]
    cl = cards[c, C_CLAN]
    ice = cl >= 0 and clan_ability[cl] == A_ICE_GIANT
    wild_ok = wild_rule and not ice
    distinct = cards[c, C_DISTINCT] == 1
    wsh = np.int64(4 * S)
    used = 0
    for sym in range(S):
        k = np.int64(need[c, sym])
        if k == 0:
            continue
        if distinct and k > 1:
            return np.int64(-1)
        used |= 1 << sym
        sh = np.int64(4 * sym)
        have = (rem >> sh) & 15
        take = k if k < have else have
        rem -= take << sh
        short = k - take
        if short > 0:
            if not wild_ok or ((rem >> wsh) & 15) < short:
                return np.int64(-1)
            rem -= short << wsh
    for _ in range(cards[c, C_ANY]):
        best, best_n = -1, np.int64(0)
        for sym in range(S):
            h = (rem >> np.int64(4 * sym)) & 15
            if h > best_n and not (distinct and (used >> sym) & 1):
                best, best_n = sym, h
        if best >= 0:
            rem -= np.int64(1) << np.int64(4 * best)
            used |= 1 << best
        elif wild_ok and ((rem >> wsh) & 15) > 0:
            rem -= np.int64(1) << wsh
        else:
            return np.int64(-1)
    return rem


@njit(cache=True, inline="always")
def deliv_pool(s, dv, S):
    """The Weapon Delivery cards played (counts per symbol at ``s[dv:dv + S + 1]``) as packed counts: "This card may
    be treated as a weapon die with the symbol shown on the card"."""
    p = np.int64(0)
    for sym in range(S + 1):
        p += np.int64(s[dv + sym]) << np.int64(4 * sym)
    return p
