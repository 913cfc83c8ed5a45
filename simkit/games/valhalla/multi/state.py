"""Pile and seat helpers of the multiplayer state (``layout``), shared by the phase modules."""

from __future__ import annotations

from numba import njit

from simkit.games.valhalla.multi import layout as L
from simkit.games.valhalla.solo import layout as C  # the card table columns (one card table for the family)


@njit(cache=True, _nrt=False)
def push(s, base, card):
    n = s[base]
    s[base + 1 + n] = card
    s[base] = n + 1


@njit(cache=True, _nrt=False)
def remove_at(s, base, i):
    """Take item i out of a pile, keeping the order of the rest."""
    n = s[base]
    card = s[base + 1 + i]
    for k in range(i, n - 1):
        s[base + 1 + k] = s[base + 2 + k]
    s[base] = n - 1
    return card


@njit(cache=True, _nrt=False)
def pb(p):
    return L.P0 + p * L.PSTRIDE


@njit(cache=True, _nrt=False)
def kb(p):
    """The start of seat p's records (``layout.K0``): counted for the rows, never read by play."""
    return L.K0 + p * L.KSTRIDE


@njit(cache=True, _nrt=False)
def hand(p):
    """Seat p's hand pile (count index)."""
    return L.P0 + p * L.PSTRIDE + L.P_HAND_N


@njit(cache=True, _nrt=False)
def team(p):
    """Seat p's Warband pile (count index)."""
    return L.P0 + p * L.PSTRIDE + L.P_TEAM_N


@njit(cache=True, _nrt=False)
def val(p):
    """Seat p's Valhalla pile (count index)."""
    return L.P0 + p * L.PSTRIDE + L.P_VAL_N


@njit(cache=True, _nrt=False)
def draw(s):
    """The top card of the deck (-1 if empty); taking the last one sets EXHAUSTED (the end: "the deck runs out")."""
    n = s[L.DECK_N]
    if n == 0:
        return -1
    card = s[L.DECK + n - 1]
    s[L.DECK_N] = n - 1
    if n == 1:
        s[L.EXHAUSTED] = 1
    return card


@njit(cache=True, _nrt=False)
def jarl_ability(s, env, p):
    """Seat p's Jarl ability and value (J_NONE before the choice)."""
    j = s[pb(p) + L.P_JARL]
    if j < 0:
        return C.J_NONE, 0
    jr = env[L.E_JARLS]
    return jr[j, 0], jr[j, 1]


@njit(cache=True, _nrt=False)
def hand_effect(s, cards, p, effect):
    """Hand index of seat p's first Battle Tactic with ``effect`` (-1 none)."""
    h0 = hand(p)
    for h in range(s[h0]):
        c = s[h0 + 1 + h]
        if cards[c, C.C_TYPE] == C.TACTIC and cards[c, C.C_EFFECT] == effect:
            return h
    return -1


@njit(cache=True, _nrt=False)
def team_colours(s, cards, p):
    """The clan colours of seat p's Warband (bitmask)."""
    t = team(p)
    m = 0
    for i in range(s[t]):
        cl = cards[s[t + 1 + i], C.C_CLAN]
        if cl >= 0:
            m |= 1 << cl
    return m
