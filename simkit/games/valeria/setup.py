"""Game Setup (rules: the base game's setup as the issue states it, and the 2E "Starter and Reference Cards"), and
the Resource bookkeeping every phase uses.

"Give each player 3 Starter cards ...: 1 Starter Peasant, 1 Starter Knight, and 1 Starter Herald" (the Herald is
a rule of the Harvest, not a card in ``OWN``); each player 2 Gold and 1 Magic; Citizen stacks of 5; the Monster
areas; Domains shuffled and dealt into stacks of 3; 2 Exhausted cards per player; each player dealt 2 Dukes.

The 5-player variant (``rules.five_player = "variant"``, at 5 players): "Each stack of Monster cards will contain 6
cards. Include the cards with [the 5-player mark]" (the environment's Monster and Domain tables are then the
5-player ones, ``CardSet.arrays(five=True)``); "Each stack of Citizen cards will contain 6 cards"; "Each stack of
Domain cards will contain 4 cards, with 3 face-down cards and 1 face-up card on top of the stack"; "After
selecting the First Player, give the Rest Token to the person to the First Player's right" (seat ``n - 1``: seats
are numbered in turn order, and the dice pass left).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simkit.core.rng import shuffle
from simkit.games.valeria.state import (
    ACTIVE, DEALT, DN, DOM_OWNER, DSTACK, EXH_LEFT, GAINED, GOLD, KEEP, MAX_DOM, MAX_MON, MAX_P, MON_LEFT,
    MON_OWNER, N_AREAS, N_CIT, N_KINDS, N_RES, NP, OWN, P_DUKE, PHASE, R_N_DOM, R_N_DUKE, R_PLAYERS,
    R_START_GOLD, R_START_MAGIC, SPENT, STACK, TO_MOVE, CURSOR, MAGIC_, GOLD_, HARVEST, DOM_DEPTH, DOM_STACK,
    DOM_STACK_FIVE, FIVE_VARIANT, R_FIVE, REST, STACK_COPIES, STACK_COPIES_FIVE,
)


@njit(cache=True, inline="always")
def five_variant(rules):
    """The 5-player variant is played: 5 players and ``rules.five_player = "variant"``."""
    return rules[R_PLAYERS] == 5 and rules[R_FIVE] == FIVE_VARIANT


@njit(cache=True, inline="always")
def stack_copies(rules):
    """Cards in each Citizen stack at the start (6 in the 5-player variant, else 5)."""
    return STACK_COPIES_FIVE if five_variant(rules) else STACK_COPIES


@njit(cache=True, _nrt=False)
def res(s, p, r):
    """Seat ``p``'s Resource ``r`` (0 Gold, 1 Strength, 2 Magic)."""
    return s[GOLD + r * MAX_P + p]


@njit(cache=True, _nrt=False)
def gain(s, p, r, n, harvest):
    """Seat ``p`` takes ``n`` of Resource ``r`` (from the supply, or stolen); ``harvest``: in a Harvest Phase."""
    s[GOLD + r * MAX_P + p] += n
    s[GAINED + p * N_RES + r] += n
    if harvest:
        s[HARVEST + p] += n


@njit(cache=True, _nrt=False)
def pay(s, p, r, n):
    """Seat ``p`` pays ``n`` of Resource ``r`` (callers check that it can)."""
    s[GOLD + r * MAX_P + p] -= n
    s[SPENT + p * N_RES + r] += n


@njit(cache=True)
def new_game(s, rng, env):
    """Set up a game of ``rules[R_PLAYERS]`` players from the game's stream; the first decision (seat 0 keeps a
    Duke) is pending."""
    areas, rules = env[4], env[5]
    s[:] = 0
    n = rules[R_PLAYERS]
    s[NP] = n
    for p in range(n):
        gain(s, p, GOLD_, rules[R_START_GOLD], False)
        gain(s, p, MAGIC_, rules[R_START_MAGIC], False)
        s[OWN + p * N_KINDS + N_CIT] = 1      # Starter Peasant
        s[OWN + p * N_KINDS + N_CIT + 1] = 1  # Starter Knight
    copies = stack_copies(rules)
    for k in range(N_CIT):
        s[STACK + k] = copies
    for a in range(N_AREAS):
        s[MON_LEFT + a] = areas[a, 1]
    for m in range(MAX_MON):
        s[MON_OWNER + m] = -1
    nd = rules[R_N_DOM]
    depth = DOM_STACK_FIVE if five_variant(rules) else DOM_STACK
    ids = np.arange(nd).astype(np.int32)
    shuffle(rng, ids, nd)
    for i in range(nd):
        s[DSTACK + DOM_DEPTH * (i // depth) + i % depth] = ids[i]  # stack i // depth, position i % depth (bottom first)
    for d in range(nd // depth):
        s[DN + d] = depth
    for i in range(MAX_DOM):
        s[DOM_OWNER + i] = -1
    nk = rules[R_N_DUKE]
    dk = np.arange(nk).astype(np.int32)
    shuffle(rng, dk, nk)
    for p in range(MAX_P):
        s[KEEP + p] = -1
        s[DEALT + 2 * p] = dk[2 * p] if p < n else -1
        s[DEALT + 2 * p + 1] = dk[2 * p + 1] if p < n else -1
    s[EXH_LEFT] = 2 * n  # "2 Exhausted cards per player"
    s[REST] = n - 1 if five_variant(rules) else -1  # the Rest Token: the First Player's right
    s[ACTIVE] = 0
    s[PHASE] = P_DUKE
    s[CURSOR] = 0
    s[TO_MOVE] = 0
