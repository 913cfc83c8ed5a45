"""Valhalla Glory, shared by every mode of the family (solo and multiplayer): Warriors going to Valhalla, the
Valkyrie blessings and the Valkyrie Missions (valhalla-valkyries.txt).

Piles in a state vector are ``s[base]`` (the count) followed by card ids: the Warband (team) ``tn``, Valhalla
``vn``, the discard pile ``dn`` and the hand ``hn``. The caller adds the returned Glory to its own counters.
"""

from __future__ import annotations

from numba import njit

# card table columns (``solo.layout``), card types and Mission requirements used here
C_TYPE, C_CLAN, C_GLORY, C_BLESS, C_BLESS_CLAN, C_REQ = 0, 1, 3, 7, 8, 12
WARRIOR, MISSION = 0, 2
Q_NO_BASIC_REROLLS, Q_STRENGTH_5, Q_THREE_ACTIVATED = range(3)
MISSION_GLORY = 2  # "A Mission card gives an additional 2 Glory Points"


@njit(cache=True, _nrt=False)
def _push(s, base, card):
    n = s[base]
    s[base + 1 + n] = card
    s[base] = n + 1


@njit(cache=True, _nrt=False)
def _remove_at(s, base, i):
    n = s[base]
    card = s[base + 1 + i]
    for k in range(i, n - 1):
        s[base + 1 + k] = s[base + 2 + k]
    s[base] = n - 1
    return card


@njit(cache=True, inline="always")
def blessing(s, tn, cards, going, i):
    """The extra Glory of team Warrior i's Valkyrie blessing when the Warriors of bitmask ``going`` go to Valhalla
    together: "+1 … for each other Warrior going to Valhalla together with it"; "+2 … if a Warrior of the colour
    shown on the card goes to Valhalla together with it … granted only once"; "+3 – When this Warrior goes to
    Valhalla alone"."""
    n = s[tn]
    n_going = 0
    for j in range(n):
        if (going >> j) & 1:
            n_going += 1
    w = s[tn + 1 + i]
    b = cards[w, C_BLESS]
    if b == 1:
        return n_going - 1
    if b == 2:
        for j in range(n):
            if j != i and (going >> j) & 1 and cards[s[tn + 1 + j], C_CLAN] == cards[w, C_BLESS_CLAN]:
                return 2
        return 0
    if b == 3 and n_going == 1:
        return 3
    return 0


@njit(cache=True, _nrt=False)
def blessing_draw(s, dn, vn, cards, want):
    """Valkyrie blessings: "draw Warrior cards from the discard pile whose combined Glory Point value equals the
    additional Glory Points … without changing the order of the cards in it" (at most ``want``). Largest Glory
    first: for the blessings' bonuses of at most 3 this reaches the exact sum whenever the pile holds one
    (3 = 3, 2 + 1 or 1 + 1 + 1). Returns the Glory drawn."""
    got = 0
    while want > 0:
        best_i, best_g = -1, 0
        for i in range(s[dn]):
            c = s[dn + 1 + i]
            g = cards[c, C_GLORY]
            if cards[c, C_TYPE] == WARRIOR and 0 < g <= want and g > best_g:
                best_i, best_g = i, g
        if best_i < 0:
            return got
        c = _remove_at(s, dn, best_i)
        _push(s, vn, c)
        want -= best_g
        got += best_g
    return got


@njit(cache=True, _nrt=False)
def send_group(s, tn, vn, dn, cards, going, excess, room):
    """Send the team Warriors in bitmask ``going`` to Valhalla ("Warriors in Valhalla are kept face up to add
    their Glory Points"); the Valkyrie blessings look at the group that goes ("checks only those Warriors in their
    own Warband who are going to Valhalla"); then the Warriors in ``excess`` are discarded — after the blessings'
    draw, so a blessing never takes a Warrior discarded in the same battle. ``room``: the Glory that may still
    go to Valhalla (the solo limit; a large number where there is none). Returns the Glory gained."""
    n = s[tn]
    b0 = 0
    b1 = 0
    b2 = 0
    b3 = 0
    k = 0
    for i in range(n):
        if not (going >> i) & 1:
            continue
        bonus = blessing(s, tn, cards, going, i)
        if k == 0:
            b0 = bonus
        elif k == 1:
            b1 = bonus
        elif k == 2:
            b2 = bonus
        else:
            b3 = bonus
        k += 1
    ex0 = -1
    ex1 = -1
    ex2 = -1
    ex3 = -1
    ne = 0
    gained = 0
    for i in range(n - 1, -1, -1):
        w = s[tn + 1 + i]
        if (going >> i) & 1:
            _remove_at(s, tn, i)
            gained += cards[w, C_GLORY]
            _push(s, vn, w)
        elif (excess >> i) & 1:
            _remove_at(s, tn, i)
            if ne == 0:
                ex0 = w
            elif ne == 1:
                ex1 = w
            elif ne == 2:
                ex2 = w
            else:
                ex3 = w
            ne += 1
    for bonus in (b0, b1, b2, b3):
        if bonus > 0:
            gained += blessing_draw(s, dn, vn, cards, min(bonus, room - gained))
    for w in (ex0, ex1, ex2, ex3):
        if w >= 0:
            _push(s, dn, w)
    return gained


@njit(cache=True, inline="always")
def most_glory_fit(s, tn, cards, mask, room):
    """The Warriors of ``mask`` that fit in ``room`` Glory with the most Glory together (ties: the larger
    bitmask)."""
    best, best_g = 0, 0
    sub = mask
    while sub > 0:
        g = 0
        for i in range(s[tn]):
            if (sub >> i) & 1:
                g += cards[s[tn + 1 + i], C_GLORY]
        if g <= room and g > best_g:
            best, best_g = sub, g
        sub = (sub - 1) & mask
    return best


@njit(cache=True, _nrt=False)
def mission_met(cards, c, basic_used, margin, nact):
    """Mission card ``c``'s requirement after a won battle: "Not using basic rerolls", "Strength 5 higher" (the
    winner's strength at least 5 above the opponent's), "Three activated Warriors"."""
    q = cards[c, C_REQ]
    return (q == Q_NO_BASIC_REROLLS and basic_used == 0) or (q == Q_STRENGTH_5 and margin >= 5) \
        or (q == Q_THREE_ACTIVATED and nact >= 3)


@njit(cache=True, _nrt=False)
def find_mission(s, hn, cards, basic_used, margin, nact):
    """The hand index of the first Mission card whose requirement is met (-1 none): "Only one such card may be
    played after each battle"."""
    for h in range(s[hn]):
        c = s[hn + 1 + h]
        if cards[c, C_TYPE] == MISSION and mission_met(cards, c, basic_used, margin, nact):
            return h
    return -1
