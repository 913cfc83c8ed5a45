"""The Monster Event variant (2E, ``rules.monster_events = true``; ../shared/rules/valeria-card-kingdoms-2e.txt,
"Monster Event Variant").

* Setup: "Take 2 Exhausted cards per player and create the Exhausted stack ... Then, take 1 face-down Monster
  Event card per player and shuffle them together. Place the shuffled cards on top of the Exhausted stack";
  "you may preselect it as one of the Monster Event cards" (``rules.preselect_event``).
* Roll Phase: "At the end of your Roll Phase ..., if you rolled the Activation Number on a Monster Event card, you
  carry out the instruction" (an Event in play: face up in a Center stack), "before the Harvest Phase";
  "activated if the value is rolled on the dice, including the sum ... does not activate twice in the case of
  doubles". Where a token goes ("a Monster of her choice") is the active player's decision.
* Action Phase: a stack exhausted by an action takes the top card of the Exhausted stack; "After revealing a
  Monster Event card, place it face-up in the stack you exhausted. This Monster may now be targeted with the Slay
  a Monster action"; Strength and Magic tokens add to what is needed to slay; "when a player takes the Monster card
  ... the player gains that much Gold" (Gold tokens); "Once a Monster Event card is taken ..., replace the empty
  stack with 1 of the Exhausted cards from the bottom, not the top ... New Monster Event cards cannot replace taken
  Monster Event cards" (the bottom card is an Exhausted card, or nothing replaces it).

Nothing here runs with the variant off: the state's Event fields stay 0 and no random number is drawn.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simkit.core.rng import shuffle
from simkit.games.valeria.cards import (
    E_INSTR, E_MAG, E_NUM, E_STR, EOP_ALL_GAIN, EOP_ALL_LOSE, EOP_NONE, EOP_PLACE, M_MAG, M_STR, MAX_EFFECTS,
    ON_CHOICE, ON_EVERY, ON_SELF,
)
from simkit.games.valeria.setup import gain, pay, res
from simkit.games.valeria.state import (
    A_PLACE, ACTIVE, D1, D2, EV_BOX, EV_EFF, EV_HI, EV_LO, EV_OWNER, EV_POS, EV_SEQ, EV_SLOT, EV_STACKED, EV_TAKEN,
    EV_TODO, EV_TOK, EXH_LEFT, EXH_PLACED, EXH_STACK, GOLD_, MAX_EV, MON_LEFT, MON_TOK, N_AREAS, N_RES, N_SLOTS, NP, P_EVENT,
    PHASE, R_N_EV, R_PRESELECT, TO_MOVE, TOK_CLEARED, TOK_PLACED, R_IF_ABLE, R_TOKEN_ON, IF_ABLE_IN_FULL,
    TOKEN_ON_OTHER,
)


@njit(cache=True)
def setup_events(s, rng, env):
    """The Exhausted stack: 2 Exhausted cards per player at the bottom, 1 Monster Event per player shuffled on
    top (the preselected one among them); the other Events back in the box."""
    rules = env[5]
    n, ne, pre = s[NP], rules[R_N_EV], rules[R_PRESELECT]
    for e in range(MAX_EV):
        s[EV_POS + e] = EV_BOX
        s[EV_OWNER + e] = -1
    ids = np.empty(ne, np.int32)
    k = 0
    for e in range(ne):
        if e != pre:
            ids[k] = e
            k += 1
    shuffle(rng, ids, k)
    chosen = np.empty(n, np.int32)
    m = 0
    if pre >= 0:
        chosen[0] = pre
        m = 1
    for i in range(n - m):
        chosen[m + i] = ids[i]
    shuffle(rng, chosen, n)
    for i in range(2 * n):
        s[EV_SEQ + i] = -1
    for i in range(n):
        s[EV_SEQ + 2 * n + i] = chosen[i]
        s[EV_POS + chosen[i]] = EV_STACKED
    s[EV_LO] = 0
    s[EV_HI] = 3 * n
    s[EXH_LEFT] = 3 * n


@njit(cache=True, _nrt=False)
def area_need(s, env, m, r):
    """Monster ``m``'s Strength (``r`` = 1) or Magic (2) to slay: printed plus tokens."""
    return env[1][m, M_STR if r == 1 else M_MAG] + s[MON_TOK + N_RES * m + r]


@njit(cache=True, _nrt=False)
def event_need(s, env, e, r):
    """Event ``e``'s Strength (``r`` = 1) or Magic (2) to slay: printed plus tokens."""
    return env[7][e, E_STR if r == 1 else E_MAG] + s[EV_TOK + N_RES * e + r]


@njit(cache=True, _nrt=False)
def reveal(s, slot):
    """A stack emptied by an action takes the top card of the Exhausted stack (while any is left): an Exhausted
    card, or an Event placed face up there."""
    if s[EXH_LEFT] == 0:
        return
    hi = s[EV_HI] - 1
    c = s[EV_SEQ + hi]
    s[EV_SEQ + hi] = -1
    s[EV_HI] = hi
    s[EXH_LEFT] -= 1
    s[EXH_PLACED] += 1
    if c < 0:
        s[EXH_STACK + slot] = 1
    else:
        s[EV_SLOT + slot] = c + 1
        s[EV_POS + c] = slot


@njit(cache=True, _nrt=False)
def take_event(s, e, p):
    """Seat ``p`` takes Event ``e`` (slain): its Gold tokens to ``p``, all its tokens back to the supply, and its
    stack replaced from the bottom of the Exhausted stack (an Exhausted card only)."""
    slot = s[EV_POS + e]
    g = s[EV_TOK + N_RES * e + GOLD_]
    if g > 0:
        gain(s, p, GOLD_, g, False)
    for r in range(N_RES):
        s[TOK_CLEARED + r] += s[EV_TOK + N_RES * e + r]
        s[EV_TOK + N_RES * e + r] = 0
    s[EV_POS + e] = EV_TAKEN
    s[EV_OWNER + e] = p
    s[EV_SLOT + slot] = 0
    lo = s[EV_LO]
    if lo < s[EV_HI] and s[EV_SEQ + lo] < 0:
        s[EV_LO] = lo + 1
        s[EXH_LEFT] -= 1
        s[EXH_STACK + slot] = 1
    else:
        s[EXH_PLACED] -= 1


@njit(cache=True, _nrt=False)
def clear_monster(s, m, p):
    """Seat ``p`` slew Monster ``m``: its Gold tokens to ``p``, its tokens back to the supply."""
    g = s[MON_TOK + N_RES * m + GOLD_]
    if g > 0:
        gain(s, p, GOLD_, g, False)
    for r in range(N_RES):
        s[TOK_CLEARED + r] += s[MON_TOK + N_RES * m + r]
        s[MON_TOK + N_RES * m + r] = 0


@njit(cache=True, _nrt=False)
def top_of_area(s, env, a):
    if s[MON_LEFT + a] == 0:
        return -1
    return env[4][a, 0] + env[4][a, 1] - s[MON_LEFT + a]


@njit(cache=True, _nrt=False)
def _put(s, env, t, r, n):
    """Place ``n`` tokens of Resource ``r`` on target ``t`` (an area's top Monster, or N_AREAS + Event)."""
    if t < N_AREAS:
        s[MON_TOK + N_RES * top_of_area(s, env, t) + r] += n
    else:
        s[EV_TOK + N_RES * (t - N_AREAS) + r] += n
    s[TOK_PLACED + r] += n


@njit(cache=True, _nrt=False)
def is_target(s, t):
    """Target ``t`` holds a Monster a token may go on: an area's top Monster (0..4), or an Event face up in a
    Center stack (N_AREAS + Event)."""
    if t < N_AREAS:
        return s[MON_LEFT + t] > 0
    return s[EV_POS + t - N_AREAS] >= 0


@njit(cache=True, _nrt=False)
def place_target(s, env, t, e):
    """Target ``t`` may take the tokens of Event ``e``'s ``choice`` or ``every`` instruction: a Monster
    (``is_target``), and with ``rules.token_on = "other"`` ("add ... tokens on to other Monster or Monster Event
    cards") not Event ``e`` itself."""
    if env[5][R_TOKEN_ON] == TOKEN_ON_OTHER and t == N_AREAS + e:
        return False
    return is_target(s, t)


@njit(cache=True, _nrt=False)
def targets(s, env, out):
    """The place actions of the current effect: one per Monster its tokens may go on."""
    e = current(s, env)[0]
    n = 0
    for t in range(N_AREAS + MAX_EV):
        if place_target(s, env, t, e):
            out[n] = A_PLACE + t
            n += 1
    return n


@njit(cache=True, _nrt=False)
def activated(number, d1, d2):
    """An Activation Number is rolled: on either die or the sum, once (not twice on doubles)."""
    return d1 == number or d2 == number or d1 + d2 == number


@njit(cache=True, _nrt=False)
def activate(s, env):
    """End of the Roll Phase: every Event in play whose number is rolled is carried out, lowest card first;
    True when a choice waits for the active player."""
    ev = env[7]
    mask = 0
    for e in range(MAX_EV):
        if s[EV_POS + e] >= 0 and activated(ev[e, E_NUM], s[D1], s[D2]):
            mask |= 1 << e
    s[EV_TODO] = mask
    s[EV_EFF] = 0
    return event_step(s, env)


@njit(cache=True, _nrt=False)
def current(s, env):
    """(Event, op, resource, on, n) of the next effect to carry out."""
    e = 0
    while not (s[EV_TODO] >> e) & 1:
        e += 1
    c = E_INSTR + 4 * s[EV_EFF]
    ev = env[7]
    return e, ev[e, c], ev[e, c + 1], ev[e, c + 2], ev[e, c + 3]


@njit(cache=True, _nrt=False)
def event_step(s, env):
    """Carry out pending instructions up to a choice (True: ``P_EVENT`` for the active player) or the end (False).
    A choice with a single Monster to take the tokens is forced; with none, nothing is placed."""
    while s[EV_TODO] != 0:
        if s[EV_EFF] >= MAX_EFFECTS:
            e = 0
            while not (s[EV_TODO] >> e) & 1:
                e += 1
            s[EV_TODO] &= ~(1 << e)
            s[EV_EFF] = 0
            continue
        e, op, r, on, n = current(s, env)
        if op == EOP_NONE:
            s[EV_EFF] = MAX_EFFECTS
            continue
        if op == EOP_PLACE:
            if on == ON_CHOICE:
                k, last = 0, -1
                for t in range(N_AREAS + MAX_EV):
                    if place_target(s, env, t, e):
                        k += 1
                        last = t
                if k >= 2:
                    s[PHASE] = P_EVENT
                    s[TO_MOVE] = s[ACTIVE]
                    return True
                if k == 1:
                    _put(s, env, last, r, n)
            elif on == ON_SELF:
                _put(s, env, N_AREAS + e, r, n)
            elif on == ON_EVERY:
                for t in range(N_AREAS + MAX_EV):
                    if place_target(s, env, t, e):
                        _put(s, env, t, r, n)
        elif op == EOP_ALL_GAIN:
            for p in range(s[NP]):
                gain(s, p, r, n, False)
        elif op == EOP_ALL_LOSE:
            full = env[5][R_IF_ABLE] == IF_ABLE_IN_FULL
            for p in range(s[NP]):
                x = min(n, res(s, p, r))
                if full and x < n:  # rules.if_able = "in_full": unable to return all n, it returns none
                    x = 0
                if x > 0:
                    pay(s, p, r, x)
        s[EV_EFF] += 1
    return False


@njit(cache=True, _nrt=False)
def event_legal(s, env, out):
    return targets(s, env, out)


@njit(cache=True, _nrt=False)
def place_choice(s, env, a):
    """The active player's choice: the current effect's tokens go on target ``a - A_PLACE``."""
    e, op, r, on, n = current(s, env)
    _put(s, env, a - A_PLACE, r, n)
    s[EV_EFF] += 1


@njit(cache=True, _nrt=False)
def event_invariant(s, env):
    """0 when the variant's cards and tokens are conserved: no Event beyond the cards file's leaves the box; the
    Exhausted stack, the Events face up and taken make 3 cards per player; each Event is in one place; tokens on
    cards = placed - returned, none on a taken or slain card."""
    n = s[NP]
    plain = 0
    for i in range(N_SLOTS):
        plain += s[EXH_STACK + i]
    up = taken = stacked = 0
    for e in range(MAX_EV):
        pos = s[EV_POS + e]
        if e >= env[5][R_N_EV] and pos != EV_BOX:  # no such Event in the cards file
            return 1
        if pos >= 0:
            up += 1
            if s[EV_SLOT + pos] != e + 1 or s[EV_OWNER + e] != -1:
                return 1
        elif pos == EV_TAKEN:
            taken += 1
            if not 0 <= s[EV_OWNER + e] < n:
                return 1
            for r in range(N_RES):
                if s[EV_TOK + N_RES * e + r] != 0:
                    return 1
        elif pos == EV_STACKED:
            stacked += 1
        if pos < 0 and s[EV_TOK + N_RES * e] + s[EV_TOK + N_RES * e + 1] + s[EV_TOK + N_RES * e + 2] != 0:
            return 1
    in_seq = 0
    for i in range(s[EV_LO], s[EV_HI]):
        if s[EV_SEQ + i] >= 0:
            in_seq += 1
            if s[EV_POS + s[EV_SEQ + i]] != EV_STACKED:
                return 1
    if in_seq != stacked or up + taken + stacked != n or s[EXH_LEFT] != s[EV_HI] - s[EV_LO]:
        return 1
    if s[EXH_LEFT] + plain + up + taken != 3 * n or s[EXH_PLACED] != plain + up:
        return 1
    for r in range(N_RES):
        on = 0
        for m in range(env[1].shape[0]):
            on += s[MON_TOK + N_RES * m + r]
        for e in range(MAX_EV):
            on += s[EV_TOK + N_RES * e + r]
        if on != s[TOK_PLACED + r] - s[TOK_CLEARED + r] or on < 0:
            return 1
    return 0
