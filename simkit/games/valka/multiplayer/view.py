"""What a VÁLKA multiplayer seat sees, as numbers: helpers shared by the heuristic (``policies``) and the
`learned` policies' features (``features``). Each reads only face-up cards, pile sizes and public counters."""

from __future__ import annotations

from numba import njit

from simkit.games.valka.multiplayer import engine as E
from simkit.games.valka.multiplayer.layout import H_NP, L_BSTR, L_CARD, MODE_BOUNTY, R_MODE, S_INFAMY

ROW = 4
EVENT_VALUE = (3.0, 1.5, 1.0, 1.5, 2.5, 4.0, 3.0, 3.5, 1.5, 1.5)  # a held Event's static value: fear .. grave_robber


@njit(cache=True, _nrt=False)
def p_hit(env, st, sh):
    d = st - sh
    d = max(-15, min(15, d))
    return env[8][86 + d + 15]


@njit(cache=True, _nrt=False)
def p_hurt(env, st, sh):
    d = st - sh
    d = max(-15, min(15, d))
    return env[8][86 + 31 + d + 15]


@njit(cache=True, _nrt=False)
def fighter_worth(s, env, p, j):
    """A visible Fighter's worth: its static value plus its Buffs."""
    b = E.lb(p, j)
    v = env[8][s[b + L_CARD]]
    for t in range(3):
        c = s[b + L_BSTR + t]
        if c >= 0:
            v += env[8][c]
    return v


@njit(cache=True, _nrt=False)
def leader(s, env, me):
    """The opponent who leads: most Infamy in Bounty Hunter, else the biggest Frontline (ties: the first)."""
    best, who = -1, -1
    for q in range(s[H_NP]):
        if q == me or not E.alive(s, q):
            continue
        if env[9][R_MODE] == MODE_BOUNTY:
            sc = s[E.sb(q) + S_INFAMY] * 10 + E.front_count(s, q)
        else:
            sc = E.front_count(s, q) * 10 + E.back_count(s, q)
        if sc > best:
            best, who = sc, q
    return who


@njit(cache=True, _nrt=False)
def left_of(s, me):
    np_ = s[H_NP]
    q = me
    for _ in range(np_):
        q = (q + 1) % np_
        if q != me and E.alive(s, q):
            return q
    return -1


@njit(cache=True, _nrt=False)
def lightning_gain(s, p, q):
    """Expected-ish gain of a Lightning Bolt on ``q``: enemy Fighters hit minus twice own, over 5 points."""
    np_ = s[H_NP]
    x = 5
    r = q
    g = 0.0
    for _ in range(2 * np_):
        if E.alive(s, r):
            for j in range(ROW):
                if x > 0 and s[E.lb(r, j) + L_CARD] >= 0:
                    g += -2.0 if r == p else 1.0
                    x -= 1
        if x == 0:
            break
        r = (r + 1) % np_
    return g / 2.0
