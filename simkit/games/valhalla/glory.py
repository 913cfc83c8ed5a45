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


@njit(cache=True, _nrt=False)
def _discard_counts(s, dn, cards):
    """The discard pile's Warriors of Glory 1, 2 and 3."""
    n1, n2, n3 = 0, 0, 0
    for i in range(s[dn]):
        c = s[dn + 1 + i]
        if cards[c, C_TYPE] == WARRIOR:
            g = cards[c, C_GLORY]
            if g == 1:
                n1 += 1
            elif g == 2:
                n2 += 1
            elif g == 3:
                n3 += 1
    return n1, n2, n3


@njit(cache=True, _nrt=False)
def blessing_choice(s, dn, cards, want, k):
    """The ``k``-th set of discard-pile Warriors a blessing of ``want`` Glory may take (-1 when there is no k-th),
    as how many Warriors of Glory 1, 2 and 3: ``n1 + 16 n2 + 256 n3``. "draw Warrior cards from the discard pile
    whose combined Glory Point value equals the additional Glory Points … The player searches for the card or
    cards which together give as many Points": the sets are the distinct multisets of Glory values that sum to
    ``want`` exactly and the pile holds, the most Glory-3 Warriors first, then the most Glory-2 (so at most 3:
    3, 2 + 1, 1 + 1 + 1; which card of a Glory value is taken is not a choice, ``blessing_take``). The first is
    the largest-first draw of ``blessing_draw``. When no set sums exactly, the one set is that draw: the largest
    Glory that still fits first, repeatedly (docs/rules.md). For the blessings' bonuses (at most 3)."""
    n1, n2, n3 = _discard_counts(s, dn, cards)
    i = 0
    for c3 in range(want // 3, -1, -1):
        for c2 in range((want - 3 * c3) // 2, -1, -1):
            c1 = want - 3 * c3 - 2 * c2
            if c3 <= n3 and c2 <= n2 and c1 <= n1:
                if i == k:
                    return c1 + 16 * c2 + 256 * c3
                i += 1
    if i > 0 or k > 0:
        return -1
    c3 = min(n3, want // 3)
    left = want - 3 * c3
    c2 = min(n2, left // 2)
    left -= 2 * c2
    c1 = min(n1, left)
    return c1 + 16 * c2 + 256 * c3


@njit(cache=True, _nrt=False)
def blessing_choices(s, dn, cards, want):
    """How many sets ``blessing_choice`` offers for a blessing of ``want`` Glory (1 at least)."""
    k = 0
    while blessing_choice(s, dn, cards, want, k) >= 0:
        k += 1
    return k


@njit(cache=True, _nrt=False)
def blessing_take(s, dn, vn, cards, code):
    """Move the set ``code`` (``blessing_choice``) from the discard pile to Valhalla "without changing the order
    of the cards in it": Glory 3 first, then 2, then 1, each time the lowest Warrior of that Glory in the pile
    (``blessing_draw``'s order and cards). Returns the Glory taken."""
    got = 0
    for g in range(3, 0, -1):
        for _ in range((code >> (4 * (g - 1))) & 15):
            for i in range(s[dn]):
                c = s[dn + 1 + i]
                if cards[c, C_TYPE] == WARRIOR and cards[c, C_GLORY] == g:
                    _push(s, vn, _remove_at(s, dn, i))
                    got += g
                    break
    return got


@njit(cache=True, _nrt=False)
def mission_offered(s, hn, cards, h, basic_used, margin, nact):
    """Whether hand card ``h`` is a Mission the winner may complete, listed once per requirement: "Each player
    may play at most one Mission card whose requirements they met after a battle they won" (two Missions of one
    requirement are the same choice: the first in hand stands for them)."""
    c = s[hn + 1 + h]
    if cards[c, C_TYPE] != MISSION or not mission_met(cards, c, basic_used, margin, nact):
        return False
    for j in range(h):
        d = s[hn + 1 + j]
        if cards[d, C_TYPE] == MISSION and cards[d, C_REQ] == cards[c, C_REQ]:
            return False
    return True
