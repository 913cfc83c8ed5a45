"""Set-up of the multiplayer game (issue 23 "Setup"; valhalla-valkyries.txt "Setup"): the deck (with the Valkyries
cards shuffled in first, "Only after the Valkyries cards have been added is the discard pile created"), the
discard pile, 3 Jarls offered to each player who keeps 1, 4 shields, the starting Warriors drafted from
(players + 1) revealed Warriors, the last player picking first, and 7 cards drawn of which 2 are discarded."""

from __future__ import annotations

import numpy as np
from numba import njit

from simkit.core.rng import shuffle
from simkit.games.valhalla.multi import layout as L
from simkit.games.valhalla.multi.state import draw, hand, jarl_ability, pb, push, remove_at, team
from simkit.games.valhalla.solo import layout as C


@njit(cache=True)
def setup(s, env, shuffler, deck_ids):
    """Shuffle the deck and the Jarls (from ``shuffler``), create the discard pile, offer the Jarls; the first
    decision is seat 0's Jarl."""
    rules = env[L.E_RULES]
    s[:] = 0
    n_p = rules[L.R_PLAYERS]
    s[L.NP] = n_p
    order = deck_ids.copy()
    shuffle(shuffler, order, order.shape[0])
    for i in range(order.shape[0]):
        push(s, L.DECK_N, order[i])
    for _ in range(rules[L.R_START_DISCARD]):
        c = draw(s)
        if c >= 0:
            push(s, L.DISC_N, c)
    nj = env[L.E_JARLS].shape[0]
    jarls = np.arange(nj)
    shuffle(shuffler, jarls, nj)
    # "each player takes 3 random Jarls and keeps 1" (fewer when the Jarl list runs short: the stand-in data has 17)
    k = 0
    for p in range(L.MAX_P):
        s[pb(p) + L.P_JARL] = -1
        for i in range(3):
            if p < n_p and k < nj:
                s[L.JOFFER + 3 * p + i] = jarls[k]
                k += 1
            else:
                s[L.JOFFER + 3 * p + i] = -1
    s[L.B_PATH] = -1
    s[L.SETUP_I] = 0
    s[L.MOVER] = 0
    s[L.PHASE] = L.PH_JARL


@njit(cache=True, _nrt=False)
def choose_jarl(s, env, i):
    """Seat SETUP_I keeps offered Jarl i: 4 shields (a Jarl's power may add shields or starting Glory)."""
    p = s[L.SETUP_I]
    s[pb(p) + L.P_JARL] = s[L.JOFFER + 3 * p + i]
    for k in range(3):
        s[L.JOFFER + 3 * p + k] = -1
    ab, v = jarl_ability(s, env, p)
    s[pb(p) + L.P_SHIELDS] = env[L.E_RULES][L.R_SHIELDS] + (v if ab == C.J_SHIELD else 0)
    s[pb(p) + L.P_GLORY] = v if ab == C.J_GLORY else 0
    s[L.SETUP_I] = p + 1
    if p + 1 < s[L.NP]:
        s[L.MOVER] = p + 1
    else:
        s[L.PHASE] = L.ST_DRAFT


@njit(cache=True, _nrt=False)
def reveal_draft(s, env):
    """"starting Warriors are drafted from (players + 1) revealed cards": cards are revealed from the deck until
    players + 1 Warriors show (other cards revealed go to the discard pile); the last player picks first."""
    cards = env[L.E_CARDS]
    s[L.DRAWN_N] = 0
    while s[L.DRAWN_N] < s[L.NP] + 1:
        c = draw(s)
        if c < 0:
            break
        if cards[c, C.C_TYPE] == C.WARRIOR:
            push(s, L.DRAWN_N, c)
        else:
            push(s, L.DISC_N, c)
    s[L.SETUP_I] = s[L.NP] - 1
    s[L.MOVER] = s[L.NP] - 1
    s[L.PHASE] = L.PH_DRAFT if s[L.DRAWN_N] > 0 else L.ST_DEAL


@njit(cache=True, _nrt=False)
def draft_pick(s, i):
    """Seat SETUP_I takes revealed Warrior i into its Warband; after the first seat the rest are discarded."""
    p = s[L.SETUP_I]
    push(s, team(p), remove_at(s, L.DRAWN_N, i))
    if p > 0 and s[L.DRAWN_N] > 0:
        s[L.SETUP_I] = p - 1
        s[L.MOVER] = p - 1
        return
    for k in range(s[L.DRAWN_N]):
        push(s, L.DISC_N, s[L.DRAWN + k])
    s[L.DRAWN_N] = 0
    s[L.PHASE] = L.ST_DEAL


@njit(cache=True, _nrt=False)
def deal(s, env):
    """"each player draws 7 and discards 2" (the discards are each player's decision, seat 0 first)."""
    rules = env[L.E_RULES]
    for p in range(s[L.NP]):
        for _ in range(rules[L.R_HAND]):
            c = draw(s)
            if c >= 0:
                push(s, hand(p), c)
    if rules[L.R_HAND_DISCARD] == 2:
        next_discarder(s, 0)
    else:
        start_play(s)


@njit(cache=True, _nrt=False)
def start_play(s):
    s[L.CUR] = 0
    s[L.MOVER] = 0
    s[L.PHASE] = L.ST_TURN


@njit(cache=True, _nrt=False)
def discard_two(s, a, b):
    """Seat SETUP_I discards hand cards a < b."""
    p = s[L.SETUP_I]
    push(s, L.DISC_N, remove_at(s, hand(p), b))
    push(s, L.DISC_N, remove_at(s, hand(p), a))
    next_discarder(s, p + 1)


@njit(cache=True, _nrt=False)
def next_discarder(s, p0):
    """The next seat from ``p0`` with two cards to discard decides; after the last, play begins."""
    for q in range(p0, s[L.NP]):
        if s[hand(q)] >= 2:
            s[L.SETUP_I] = q
            s[L.MOVER] = q
            s[L.PHASE] = L.PH_DISCARD2
            return
    start_play(s)
