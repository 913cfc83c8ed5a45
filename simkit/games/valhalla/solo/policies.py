"""Valhalla Solo policies: decision functions (numba) and their named presets.

Kinds: ``heuristic`` — build a team, then attack when the estimated strength
reaches the monster's (a threshold on the ratio), reroll the dice that
activate nothing while below the target, keep the most valuable card — and
``random``, uniformly random among the legal options at every decision (the
baseline). Named presets are parameter sets; a scenario may add more under
``[policies.NAME]``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simkit.core import policies as _core
from simkit.core.policies import HEURISTIC, KINDS, RANDOM, coin  # noqa: F401  (shared kinds)
from simkit.core.rng import pick_uniform, randbelow  # noqa: F401  (pick_uniform: used by the engine too)
from simkit.games.valhalla.solo import layout as L


PARAMS = {
    "attack_ratio": (0, 1.0, "attack when the estimated strength is at least this share of what wins"),
    "full_team_ratio": (1, 0.7, "with a full team (or nothing better to do), attack from this share"),
    "glory_weight": (2, 0.5, "how much a Warrior's Glory counts when choosing cards to keep or play"),
    "exchange_below": (3, 2.0, "exchange starting cards worth less than this"),
    "send_on_defence": (4, 1.0, "after a won defence, send the activated Warriors that fit to Valhalla (1 yes)"),
    "smart_rerolls": (5, 1.0, "reroll the dice that activate nothing while below the target (1 yes, 0 never)"),
    "silence": (6, 1.0, "play Battle Tactics that silence the monster's power when attacking (1 yes)"),
}
N_PARAMS = len(PARAMS)

PRESETS = {
    "builder": ("heuristic", {"attack_ratio": 1.0, "full_team_ratio": 0.8}),
    "aggressive": ("heuristic", {"attack_ratio": 0.75, "full_team_ratio": 0.6, "exchange_below": 1.5}),
    "random": ("random", {}),
}
POLICY_DESCRIPTIONS = {
    "builder": "heuristic: builds a team, attacks when the estimated strength reaches the monster's",
    "aggressive": "heuristic: attacks from 75% of the monster's strength",
    "random": "baseline: uniformly random among the legal options at every decision",
}


@njit(cache=True)
def card_value(T, params, c):
    """How much a card is worth keeping (heuristic)."""
    cards, need = T[0], T[1]
    t = cards[c, L.C_TYPE]
    if t == L.WARRIOR:
        weapons = need[c].sum() + cards[c, L.C_ANY]
        return T[2][c] * cards[c, L.C_STR] + params[2] * cards[c, L.C_GLORY] + 0.5 * cards[c, L.C_SPECIAL] \
            - 0.25 * weapons
    if t == L.MISSION:
        return 2.0
    e = cards[c, L.C_EFFECT]
    if e == L.T_STRENGTH:
        return float(cards[c, L.C_VALUE])
    if e == L.T_REROLL:
        return 1.5 * cards[c, L.C_VALUE]
    if e == L.T_SMALLER:
        return 0.5 * cards[c, L.C_VALUE]
    if e == L.T_DELIVERY:
        return 1.5
    return 1.0


@njit(cache=True)
def estimate(s, T, rules):
    """Expected strength of an attack now: Glory + each Warrior's strength × P(the dice activate it alone) +
    strength Battle Tactics in hand."""
    cards, p_act = T[0], T[2]
    e = float(s[L.GLORY])
    jr = T[7]
    if jr[0] == L.J_ATTACK:
        e += jr[1]
    for i in range(s[L.TEAM_N]):
        w = s[L.TEAM + i]
        e += p_act[w] * cards[w, L.C_STR]
    for h in range(s[L.HAND_N]):
        c = s[L.HAND + h]
        if cards[c, L.C_TYPE] == L.TACTIC and cards[c, L.C_EFFECT] == L.T_STRENGTH:
            e += cards[c, L.C_VALUE]
    return e


@njit(cache=True)
def choose_phase_a(kind, params, prng, s, T, rules, legal):
    """Phase A: 0 play one Warrior, 1 play two, 2 draw, 3 attack."""
    if kind == RANDOM:
        return pick_uniform(prng, legal)
    mon = T[3]
    k = s[L.MON]
    target = mon[k, L.M_STRENGTH]
    if rules[4] == 1 and mon[k, L.M_POWER] == L.P_ATTACK:
        target += mon[k, L.M_PVAL]
    est = estimate(s, T, rules)
    if legal[3] and est >= params[0] * target:
        return 3
    if legal[1]:
        return 1
    if legal[0]:
        return 0
    if legal[3] and (not legal[2] or s[L.TEAM_N] == L.MAX_TEAM) and est >= params[1] * target:
        return 3
    if legal[2]:
        return 2
    return pick_uniform(prng, legal) if not legal[3] else 3


@njit(cache=True)
def choose_warrior(kind, params, prng, s, T, exclude):
    """The hand index of the Warrior to play."""
    cards = T[0]
    mask = np.zeros(s[L.HAND_N], np.int64)
    for h in range(s[L.HAND_N]):
        mask[h] = cards[s[L.HAND + h], L.C_TYPE] == L.WARRIOR and h != exclude
    if kind == RANDOM:
        return pick_uniform(prng, mask)
    best, best_v = -1, -1e9
    for h in range(s[L.HAND_N]):
        if mask[h]:
            v = card_value(T, params, s[L.HAND + h])
            if v > best_v:
                best, best_v = h, v
    return best


@njit(cache=True)
def choose_pair(kind, params, prng, s, T):
    """Two Warriors "whose weapon symbols total at most 3" (hand indices, a < b)."""
    cards, need = T[0], T[1]
    n = s[L.HAND_N]
    best_a, best_b, best_v, count = -1, -1, -1e9, 0
    pairs_a = np.empty(n * n, np.int64)
    pairs_b = np.empty(n * n, np.int64)
    for a in range(n):
        ca = s[L.HAND + a]
        if cards[ca, L.C_TYPE] != L.WARRIOR:
            continue
        for b in range(a + 1, n):
            cb = s[L.HAND + b]
            if cards[cb, L.C_TYPE] != L.WARRIOR:
                continue
            if need[ca].sum() + cards[ca, L.C_ANY] + need[cb].sum() + cards[cb, L.C_ANY] > 3:
                continue
            pairs_a[count], pairs_b[count] = a, b
            count += 1
            v = card_value(T, params, ca) + card_value(T, params, cb)
            if v > best_v:
                best_a, best_b, best_v = a, b, v
    if kind == RANDOM and count > 0:
        k = randbelow(prng, count)
        return pairs_a[k], pairs_b[k]
    return best_a, best_b


@njit(cache=True)
def choose_keep(kind, params, prng, s, T, drawn, m):
    if kind == RANDOM:
        return randbelow(prng, m)
    best, best_v = 0, -1e9
    for i in range(m):
        v = card_value(T, params, drawn[i])
        if v > best_v:
            best, best_v = i, v
    return best


@njit(cache=True)
def want_exchange(kind, params, prng, s, T, c):
    if kind == RANDOM:
        return randbelow(prng, 2) == 1
    return card_value(T, params, c) < params[3]


def param_vector(overrides: dict | None = None) -> np.ndarray:
    """This game's parameter vector: the defaults of ``PARAMS`` with ``overrides``."""
    return _core.param_vector(PARAMS, overrides)
