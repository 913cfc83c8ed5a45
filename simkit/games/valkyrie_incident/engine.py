"""The Valkyrie Incident on the decision-point interface (see ``simkit.core.decision``): standard and Blitz.

Seats: 0 = the Alpha Player, 1 = the Omega Player. Rule sentences are quoted where they are implemented.

State ``s`` (int32, ``STATE_SIZE``); ``-1`` marks an empty slot::

    header  PHASE TO_MOVE OVER ENG START DSTEP ACTS KINDS FIRST ENDING TRIGGER PAY PEND DISC_N NCONF CUR_LOC
            WAR_TURNS ROUND WINNER DECISIONS INIT  SCORE[2] EMB[2] EMB_USED[2] LOCWON[2] LOC_STATE[5] CAPPED
            counts: N_IDECK N_WRECK N_DECK[2] N_HAND[2] N_PILE[2] N_VICT[2] N_PLAYED[2] N_PICKS[2] N_DHAND[2]
    IDECK[90]            the Incident Deck, top = IDECK[N_IDECK - 1] (hidden)
    WRECK[90]            the Wreckage (face up)
    BARR[5]              the Barracks (face up)
    CONF[5]              the Conflict cards of this War (face down)
    TOK[2][5]            Strength added to a seat's side of a Conflict by abilities
    DECK[2][90]          each Deck, top = last (hidden, even to its owner: the order)
    HAND[2][90]          each hand (hidden from the other seat)
    PILE[2][90]          each Pile (face up)
    VICT[2][90]          each seat's Victory Cards (face down)
    PLAYED[2][90], PLAYK[2][90], PLAYSTR[2][90]   cards on a seat's side of Conflicts, which Conflict, and
                         the card's Strength there (fixed for the War: its Location and the Emblems are)
    PICKS[2][15], DHAND[2][5]     set-up draft: face-down picks and the hand being drafted from

``LOC_STATE[l]``: 0 at the side of the play area, 1 the current Location, 2 / 3 won by seat 0 / 1, 4 returned
face down (not used again). Actions (ids < ``MAX_ACTIONS``): see the ``A_*`` constants.
``env = (cards, emblems, locations, rules)`` from :func:`simkit.games.valkyrie_incident.cards.CardSet.arrays` and
:func:`simkit.games.valkyrie_incident.simulation.rules_vector`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simkit.core.decision import reseed, reshuffle_unseen, specialize_learned, stack_empty
from simkit.core.policies import LEARNED, RANDOM
from simkit.core.rng import randbelow, shuffle
from simkit.games.valkyrie_incident.cards import (
    ACTION, ASSAULT, C_CLAN, C_CODE, C_COST, C_INCIDENT, C_STR, C_TARGET, C_TYPE, COGDRIVE, E_BONUS, E_CLAN,
    E_CODE, E_M_CLAN, E_M_INCIDENT, E_M_MIN_STR, E_M_TYPE, E_TARGET, LOC_NO_EMBLEM, LOC_STRENGTH, MAX_EFFECTS,
    MORALE_COUNT, N_CLANS, OP_BOUNCE, OP_DESTROY, OP_DISCARD, OP_DRAFT_FREE, OP_DRAW, OP_FILL, OP_MOVE, OP_RECRUIT,
    OP_STRENGTH, OP_VICTORY, OP_WEAKEN, OP_WRECK, OP_WRECK_CARD, TARGET_CONFLICT, TARGET_SLOT, VALKYRIE,
)

NC = 90  # Incident cards
N_BARR, MAX_CONF, N_EMB, N_LOC = 5, 5, 5, 5
N_PICKS, DRAFT_HAND = 15, 5

# --- header ---------------------------------------------------------------------------------------------------
(PHASE, TO_MOVE, OVER, ENG, START, DSTEP, ACTS, KINDS, FIRST, ENDING, TRIGGER, PAY, PEND, DISC_N, NCONF, CUR_LOC,
 WAR_TURNS, ROUND, WINNER, DECISIONS, INIT) = range(21)
SCORE = 21
EMB = 23
EMB_USED = 25
LOCWON = 27
LOC_STATE = 29
N_IDECK = 34
N_WRECK = 35
N_DECK, N_HAND, N_PILE, N_VICT, N_PLAYED, N_PICKS_, N_DHAND = 36, 38, 40, 42, 44, 46, 48
CAPPED = 50  # Wars ended by the safety cap (R_TURN_CAP)
HEADER = 52
IDECK = HEADER
WRECK = IDECK + NC
BARR = WRECK + NC
CONF = BARR + N_BARR
TOK = CONF + MAX_CONF
DECK = TOK + 2 * MAX_CONF
HAND = DECK + 2 * NC
PILE = HAND + 2 * NC
VICT = PILE + 2 * NC
PLAYED = VICT + 2 * NC
PLAYK = PLAYED + 2 * NC
PLAYSTR = PLAYK + 2 * NC
PICKS = PLAYSTR + 2 * NC
DHAND = PICKS + 2 * N_PICKS
STATE_SIZE = DHAND + 2 * DRAFT_HAND

# --- phases ----------------------------------------------------------------------------------------------------
(P_PICK, P_EMBLEM, P_DRAWCHOICE, P_MORALE, P_WRECK, P_RECRUIT, P_PAY, P_DTARGET, P_LOCATION, P_WAR, P_DISCARD,
 P_OVER) = range(12)
WAR_TURNS_THIS = ROUND  # the set-up draft round counter is free once the Wars begin: turns in this War
PHASE_NAMES = ("pick", "emblem", "draw", "morale", "wreck", "recruit", "pay", "target", "location", "war",
               "discard", "over")

# --- actions ---------------------------------------------------------------------------------------------------
A_CARD = 0      # + card: set-up pick, pay a Draft Cost, use a Draft ability, discard another card
A_SLOT = 90     # + Barracks slot: wreck it, draft it, target it
A_PASS = 95
A_YES = 96      # reveal for the Morale Check
A_DRAW5 = 97
A_SHUFFLE4 = 98
A_EMBLEM = 99   # + Emblem card
A_LOC = 104     # + Location card
A_PLAY = 110    # + card * 5 + Conflict
A_ABIL = 560    # + card * 5 + Conflict (0 when the ability has no target): Cogdrive or Assault ability
A_WDISC = 1010  # + card: discard Action/Valkyrie cards to draw, starting with this one
A_EMBL = 1100   # + Conflict: the Emblem's War ability
MAX_ACTIONS = 1105

# War action kinds (bit mask in KINDS): "A player may not perform one of the above mentioned actions more than
# once during one of his War turns."
K_PLAY, K_COG, K_ASSAULT, K_DISC, K_EMB = 1, 2, 4, 8, 16

# --- rule vector -----------------------------------------------------------------------------------------------
(R_BLITZ, R_EMB0, R_EMB1, R_DECK_SCORING, R_EMBLEM_BONUS, R_WAR_END, R_WRECKAGE_CONFLICTS, R_VBONUS_TIE,
 R_BLITZ_DISCARD, R_TURN_CAP, R_TIE_TOKENS, R_BLITZ_INIT_HAND) = range(12)
N_RULES = 12

# --- parameters: name -> (index, default, description, low, high) ----------------------------------------------
PARAMS = {
    "draft_strength": (0, 1.0, "value of a point of Strength when drafting", 0.0, 3.0),
    "clan_bonus": (1, 1.5, "value added to a card of your Emblem's Clan (it scores 2)", 0.0, 5.0),
    "ability_value": (2, 1.0, "value of a Cogdrive or Assault card's War ability", 0.0, 4.0),
    "keep_for_war": (3, 0.6, "value of keeping a hand card for the War rather than paying it as Draft Cost",
                     0.0, 3.0),
    "draft_threshold": (4, 0.0, "draft a Barracks card when its value less its cost reaches this", -3.0, 6.0),
    "shuffle_at": (5, 6.0, "shuffle the Pile in (draw 4) once the Pile holds this many cards", 0.0, 30.0),
    "margin": (6, 2.0, "a Conflict led by more than this counts as safe", 0.0, 8.0),
    "focus": (7, 0.0, "preference for Conflicts already being contested (0 spreads evenly)", -1.0, 2.0),
    "hold_strong": (8, 0.05, "cost of spending a point of Strength on a play (keeps strong cards back; standard "
                             "game only: a Blitz War ends when a hand is empty, so a card held back may never be "
                             "played)", 0.0, 0.5),
    "use_draft_abilities": (9, 3.0, "use a Valkyrie or Action ability when the card's Strength is at most this",
                            0.0, 9.0),
    "wreck_below": (10, 2.0, "the second player wrecks Barracks cards valued below this", -1.0, 9.0),
    "discard_draw_at": (11, 1.0, "discard Action/Valkyrie cards of Strength at most this to draw", 0.0, 9.0),
    "concentrate": (12, 0.0, "how much to neglect the Conflicts outside the cheapest majority (0 none, 1 all)",
                    0.0, 1.0),
    "blitz_keep": (13, 4.0, "Blitz: value of keeping a hand card for the War (it draws 5, not up to 7); replaces "
                            "keep_for_war there, also for spending a Draft ability's card", 0.0, 10.0),
}
N_PARAMS = len(PARAMS)
PRESETS = {
    "balanced": ("heuristic", {}),
    "focused": ("heuristic", {"margin": 1.0, "focus": 1.0, "hold_strong": 0.0, "draft_threshold": 1.0,
                              "use_draft_abilities": 2.0, "discard_draw_at": 2.0, "shuffle_at": 4.0}),
    "concentrated": ("heuristic", {"concentrate": 0.8, "margin": 1.0, "hold_strong": 0.0, "draft_threshold": 0.5}),
    "random": ("random", {}),
}


# ============================================================================================================
# small list helpers
# ============================================================================================================

@njit(cache=True, inline="always")
def _push(s, base, cnt, c):
    s[base + s[cnt]] = c
    s[cnt] += 1


@njit(cache=True, inline="always")
def _pop(s, base, cnt):
    s[cnt] -= 1
    return s[base + s[cnt]]


@njit(cache=True, _nrt=False)
def _remove(s, base, cnt, c):
    """Remove card ``c`` from the list (order kept); True if it was there."""
    n = s[cnt]
    for i in range(n):
        if s[base + i] == c:
            for j in range(i, n - 1):
                s[base + j] = s[base + j + 1]
            s[cnt] = n - 1
            s[base + n - 1] = -1
            return True
    return False


@njit(cache=True, _nrt=False)
def _shuffle_zone(s, rng, base, n):
    shuffle(rng, s[base:base + n], n)


@njit(cache=True, _nrt=False)
def draw(s, p, k):
    """Draw up to ``k`` cards from the Deck: "If a player ever runs out of cards to draw from his Deck, he MAY NOT
    automatically reshuffle his Pile into his Deck!" """
    d = 0
    while d < k and s[N_DECK + p] > 0:
        c = _pop(s, DECK + p * NC, N_DECK + p)
        _push(s, HAND + p * NC, N_HAND + p, c)
        d += 1
    return d


@njit(cache=True, _nrt=False)
def shuffle_pile_in(s, rng, p):
    while s[N_PILE + p] > 0:
        _push(s, DECK + p * NC, N_DECK + p, _pop(s, PILE + p * NC, N_PILE + p))
    _shuffle_zone(s, rng, DECK + p * NC, s[N_DECK + p])


@njit(cache=True, _nrt=False)
def to_deck_shuffled(s, rng, p, c):
    """"When a card is "Drafted," the card is shuffled into the player's deck." """
    _push(s, DECK + p * NC, N_DECK + p, c)
    _shuffle_zone(s, rng, DECK + p * NC, s[N_DECK + p])


@njit(cache=True, _nrt=False)
def incident_top(s):
    """The top card of the Incident Deck (removed), or -1 when it is empty (it is never refilled: "Cards in the
    Wreckage are never shuffled back into the Incident Deck")."""
    if s[N_IDECK] == 0:
        return -1
    return _pop(s, IDECK, N_IDECK)


@njit(cache=True, _nrt=False)
def wreck(s, c):
    _push(s, WRECK, N_WRECK, c)


# ============================================================================================================
# Strength
# ============================================================================================================

@njit(cache=True, inline="always")
def card_strength(s, env, c, p):
    """A played card's Strength: printed, + its owner's Emblem bonus for the Emblem's Clan ("increase the Strength
    of Incident cards of that Emblem"), + the current Location's modifiers."""
    cards, emblems, locs, rules = env
    v = cards[c, C_STR]
    loc = s[CUR_LOC]
    no_emb = False
    if loc >= 0:
        for j in range(locs.shape[1]):
            op = locs[loc, j, 0]
            if op == LOC_NO_EMBLEM:
                no_emb = True
            elif op == LOC_STRENGTH:
                if (locs[loc, j, 1] < 0 or locs[loc, j, 1] == cards[c, C_TYPE]) and \
                        (locs[loc, j, 2] < 0 or locs[loc, j, 2] == cards[c, C_CLAN]) and \
                        cards[c, C_STR] >= locs[loc, j, 3]:
                    v += locs[loc, j, 4]
    if not no_emb:
        if rules[R_EMBLEM_BONUS] == 0:
            e = s[EMB + p]
            if e >= 0 and emblems[e, E_CLAN] == cards[c, C_CLAN]:
                v += emblems[e, E_BONUS]
        else:
            for q in range(2):
                e = s[EMB + q]
                if e >= 0 and emblems[e, E_CLAN] == cards[c, C_CLAN]:
                    v += emblems[e, E_BONUS]
    return v


@njit(cache=True, _nrt=False)
def side_strength(s, env, p, k, no_aa):
    """Seat ``p``'s Strength on Conflict ``k``; ``no_aa`` leaves out Assault and Action cards (the tie rule)."""
    cards = env[0]
    tot = 0
    if not no_aa or env[3][R_TIE_TOKENS] == 0:
        tot = s[TOK + p * MAX_CONF + k]
    for i in range(s[N_PLAYED + p]):
        if s[PLAYK + p * NC + i] == k:
            c = s[PLAYED + p * NC + i]
            t = cards[c, C_TYPE]
            if no_aa and (t == ASSAULT or t == ACTION):
                continue
            tot += s[PLAYSTR + p * NC + i]
    return tot


# ============================================================================================================
# set-up
# ============================================================================================================

@njit(cache=True, _nrt=False)
def new_game(s, rng, env):
    """Set up a game from the game's stream, advanced to its first decision."""
    rules = env[3]
    s[:] = -1
    s[:HEADER] = 0
    s[EMB] = -1
    s[EMB + 1] = -1
    s[CUR_LOC] = -1
    s[PEND] = -1
    s[WINNER] = -1
    s[TOK:TOK + 2 * MAX_CONF] = 0
    s[INIT] = 0
    for c in range(NC):
        s[IDECK + c] = c
    s[N_IDECK] = NC
    if rules[R_BLITZ]:
        # Blitz: "The Omega Player chooses an Emblem card ... The Alpha player then chooses"
        s[TO_MOVE] = 1
        _emblem_step(s, rng, env)
        return
    # "Shuffle together the Incident cards and deal 5 to each player."
    _shuffle_zone(s, rng, IDECK, NC)
    s[ROUND] = 0
    _deal_round(s)
    s[PHASE] = P_PICK
    s[TO_MOVE] = 0


@njit(cache=True, _nrt=False)
def _deal_round(s):
    for p in range(2):
        for _ in range(DRAFT_HAND):
            _push(s, DHAND + p * DRAFT_HAND, N_DHAND + p, incident_top(s))


@njit(cache=True, _nrt=False)
def _after_pick(s, rng, env):
    """Alpha picks, then Omega, then the hands are passed; the last card of a hand is taken without a choice."""
    while True:
        if s[TO_MOVE] == 0:
            s[TO_MOVE] = 1
        else:
            s[TO_MOVE] = 0
            # "passes the remaining cards to the other player"
            for i in range(DRAFT_HAND):
                t = s[DHAND + i]
                s[DHAND + i] = s[DHAND + DRAFT_HAND + i]
                s[DHAND + DRAFT_HAND + i] = t
            t = s[N_DHAND]
            s[N_DHAND] = s[N_DHAND + 1]
            s[N_DHAND + 1] = t
        p = s[TO_MOVE]
        if s[N_DHAND + p] == 1:
            _push(s, PICKS + p * N_PICKS, N_PICKS_ + p, _pop(s, DHAND + p * DRAFT_HAND, N_DHAND + p))
            continue
        if s[N_DHAND] == 0 and s[N_DHAND + 1] == 0:
            s[ROUND] += 1
            if s[ROUND] < 3:  # "Repeat the entire above process 2 additional times."
                _deal_round(s)
                s[TO_MOVE] = 0
                s[PHASE] = P_PICK
                return
            _finish_setup(s, rng, env)
            return
        s[PHASE] = P_PICK
        return


@njit(cache=True, _nrt=False)
def _finish_setup(s, rng, env):
    # "These 15 cards are shuffled together and placed in his play area, forming his Deck."
    for p in range(2):
        while s[N_PICKS_ + p] > 0:
            _push(s, DECK + p * NC, N_DECK + p, _pop(s, PICKS + p * N_PICKS, N_PICKS_ + p))
        _shuffle_zone(s, rng, DECK + p * NC, s[N_DECK + p])
    # "The top card of the Incident Deck is placed face up ..., forming the Wreckage."
    c = incident_top(s)
    if c >= 0:
        wreck(s, c)
    # "Each player, beginning with the Omega Player, chooses 1 Emblem card"
    s[TO_MOVE] = 1
    _emblem_step(s, rng, env)


@njit(cache=True, _nrt=False)
def _emblem_step(s, rng, env):
    """Emblem choice (Omega first); a scenario may fix a seat's Emblem (the match-up cells)."""
    rules = env[3]
    while True:
        p = s[TO_MOVE]
        fixed = rules[R_EMB0 + p]
        if s[EMB + p] < 0:
            if fixed >= 0 and fixed != s[EMB + 1 - p]:
                s[EMB + p] = fixed
            else:
                s[PHASE] = P_EMBLEM
                return
        if s[EMB] >= 0 and s[EMB + 1] >= 0:
            break
        s[TO_MOVE] = 1 - p
    if rules[R_BLITZ]:
        _blitz_setup(s, rng, env)
    else:
        _start_engagement(s, rng, env)


@njit(cache=True, _nrt=False)
def _blitz_setup(s, rng, env):
    """"takes all of the Valkyrie and Cogdrive cards of his Clan Emblem ... shuffles together his 10 Incident
    cards ... forming his Deck"; "The remaining Incident cards are shuffled together ... forming the Incident
    Deck. The top card ... forming the Wreckage." Then the Initial Draft (Alpha the Start Player)."""
    cards, emblems = env[0], env[1]
    s[N_IDECK] = 0
    for c in range(NC):
        owner = -1
        for p in range(2):
            if emblems[s[EMB + p], E_CLAN] == cards[c, C_CLAN] and \
                    (cards[c, C_TYPE] == VALKYRIE or cards[c, C_TYPE] == COGDRIVE):
                owner = p
        if owner >= 0:
            _push(s, DECK + owner * NC, N_DECK + owner, c)
        else:
            _push(s, IDECK, N_IDECK, c)
    for p in range(2):
        _shuffle_zone(s, rng, DECK + p * NC, s[N_DECK + p])
    _shuffle_zone(s, rng, IDECK, s[N_IDECK])
    c = incident_top(s)
    if c >= 0:
        wreck(s, c)
    s[INIT] = 1
    s[ENG] = 0
    s[START] = 0
    s[DSTEP] = 0
    _start_draft_turn(s, rng, env)


# ============================================================================================================
# Draft Phase
# ============================================================================================================

@njit(cache=True, _nrt=False)
def _start_engagement(s, rng, env):
    """"During the first Engagement, the Alpha Player is the Start player. This rotates each Engagement." """
    s[START] = s[ENG] % 2
    s[DSTEP] = 0
    _start_draft_turn(s, rng, env)


@njit(cache=True, _nrt=False)
def _drafter(s):
    return s[START] if s[DSTEP] == 0 else 1 - s[START]


@njit(cache=True, _nrt=False)
def _start_draft_turn(s, rng, env):
    s[TO_MOVE] = _drafter(s)
    s[PHASE] = P_DRAWCHOICE


@njit(cache=True, _nrt=False)
def morale_count(s, env, p):
    """How many hand cards meet the Emblem's Morale requirement."""
    cards, emblems = env[0], env[1]
    e = s[EMB + p]
    n = 0
    for i in range(s[N_HAND + p]):
        c = s[HAND + p * NC + i]
        if emblems[e, E_M_TYPE] >= 0 and cards[c, C_TYPE] != emblems[e, E_M_TYPE]:
            continue
        if emblems[e, E_M_INCIDENT] >= 0 and cards[c, C_INCIDENT] != emblems[e, E_M_INCIDENT]:
            continue
        if cards[c, C_STR] < emblems[e, E_M_MIN_STR]:
            continue
        if emblems[e, E_M_CLAN] == 1 and cards[c, C_CLAN] != emblems[e, E_CLAN]:
            continue
        n += 1
    return n


@njit(cache=True, _nrt=False)
def _after_draw(s, rng, env):
    p = s[TO_MOVE]
    # "If he has 3 cards in his hand that match his Emblem's Morale requirement, he may reveal those cards."
    if morale_count(s, env, p) >= MORALE_COUNT and s[N_IDECK] > 0:
        s[PHASE] = P_MORALE
        return
    _barracks_step(s, rng, env)


@njit(cache=True, _nrt=False)
def _barracks_count(s):
    n = 0
    for i in range(N_BARR):
        if s[BARR + i] >= 0:
            n += 1
    return n


@njit(cache=True, _nrt=False)
def _fill_barracks(s, limit):
    """Place cards from the top of the Incident Deck in empty Barracks spaces, at most ``limit``."""
    for i in range(N_BARR):
        if limit <= 0:
            break
        if s[BARR + i] < 0:
            c = incident_top(s)
            if c < 0:
                return
            s[BARR + i] = c
            limit -= 1


@njit(cache=True, _nrt=False)
def _barracks_step(s, rng, env):
    # "The second player, during his Barracks step, may wreck any number of cards in the Barracks prior to
    # filling it."
    if s[DSTEP] == 1 and _barracks_count(s) > 0 and s[PHASE] != P_WRECK:
        s[PHASE] = P_WRECK
        return
    _fill_barracks(s, N_BARR)
    s[PHASE] = P_RECRUIT


@njit(cache=True, inline="always")
def _slot_ok(s, env, op, n, i):
    c = s[BARR + i]
    if c < 0:
        return False
    if op == OP_DRAFT_FREE or op == OP_RECRUIT:
        return env[0][c, C_COST] <= n
    return True


@njit(cache=True, _nrt=False)
def _first_slot_op(env, c):
    cards = env[0]
    for j in range(MAX_EFFECTS):
        op = cards[c, C_CODE + 2 * j]
        if op == OP_DRAFT_FREE or op == OP_RECRUIT or op == OP_WRECK:
            return op, cards[c, C_CODE + 2 * j + 1]
    return 0, 0


@njit(cache=True, _nrt=False)
def _draft_effects(s, rng, env, p, c, target):
    """Run a Valkyrie/Action ability "to the best of his ability"; then the card goes to the Pile."""
    cards = env[0]
    for j in range(MAX_EFFECTS):
        op = cards[c, C_CODE + 2 * j]
        n = cards[c, C_CODE + 2 * j + 1]
        if op == OP_DRAW:
            draw(s, p, n)
        elif op == OP_DRAFT_FREE or op == OP_RECRUIT or op == OP_WRECK:
            if target >= 0 and _slot_ok(s, env, op, n, target):
                b = s[BARR + target]
                s[BARR + target] = -1  # "Cards that are removed from the Barracks ... ARE NOT automatically replaced"
                if op == OP_DRAFT_FREE:
                    to_deck_shuffled(s, rng, p, b)
                elif op == OP_RECRUIT:
                    _push(s, PILE + p * NC, N_PILE + p, b)  # "Recruited": sent to the player's Pile
                else:
                    wreck(s, b)
        elif op == OP_FILL:
            _fill_barracks(s, n)
        elif op == OP_VICTORY:
            for _ in range(n):
                v = incident_top(s)
                if v >= 0:
                    _push(s, VICT + p * NC, N_VICT + p, v)
    _push(s, PILE + p * NC, N_PILE + p, c)


@njit(cache=True)
def _end_draft_turn(s, rng, env):
    if s[DSTEP] == 0:
        s[DSTEP] = 1
        _start_draft_turn(s, rng, env)
        return
    if s[INIT]:
        # Blitz: "After the Initial Draft, the first Engagement begins." Default: the hands are kept (no rule moves
        # them); reading "pile": they go to the Piles, as at the end of an Engagement
        s[INIT] = 0
        if env[3][R_BLITZ_INIT_HAND] == 1:
            for q in range(2):
                while s[N_HAND + q] > 0:
                    _push(s, PILE + q * NC, N_PILE + q, _pop(s, HAND + q * NC, N_HAND + q))
                    s[HAND + q * NC + s[N_HAND + q]] = -1
        _start_engagement(s, rng, env)
        return
    if not _start_war(s, rng, env):
        _init_war_turns(s)
        _war_loop(s, rng, env, EV_BEGIN)


# ============================================================================================================
# War Phase
# ============================================================================================================

@njit(cache=True, _nrt=False)
def _start_war(s, rng, env):
    """Set up a War; True when the Start Player's Location choice is pending, else the turns may begin."""
    rules = env[3]
    blitz = rules[R_BLITZ]
    final = s[ENG] == 3
    # "Any cards remaining in the Barracks are moved to the Wreckage."
    for i in range(N_BARR):
        if s[BARR + i] >= 0:
            wreck(s, s[BARR + i])
            s[BARR + i] = -1
    # "The top 4 cards of the Incident Deck are placed in the Barracks face down, forming the 4 Conflicts."
    # (Final War: 5; Blitz: 3) "In the event that there are no Incident cards remaining to add to the
    # Conflict(s), cards may be taken, at random, from the Wreckage."
    want = 3 if blitz else (5 if final else 4)
    s[NCONF] = 0
    for k in range(want):
        c = incident_top(s)
        if c < 0 and rules[R_WRECKAGE_CONFLICTS] and s[N_WRECK] > 0:
            i = randbelow(rng, s[N_WRECK])
            c = s[WRECK + i]
            s[WRECK + i] = s[WRECK + s[N_WRECK] - 1]
            s[WRECK + s[N_WRECK] - 1] = -1
            s[N_WRECK] -= 1
        if c < 0:
            break
        s[CONF + k] = c
        s[NCONF] += 1
    for p in range(2):
        s[TOK + p * MAX_CONF:TOK + p * MAX_CONF + MAX_CONF] = 0
        if final:
            # "each player shuffles his pile into his deck and draws 10 cards"
            shuffle_pile_in(s, rng, p)
            draw(s, p, 10)
        elif blitz:
            draw(s, p, 5)  # "each player draws 5 cards from his Deck"
        else:
            draw(s, p, 7 - s[N_HAND + p])  # "draws cards from his Deck until he has 7 cards in his hand"
    s[EMB_USED] = 0
    s[EMB_USED + 1] = 0
    s[WAR_TURNS_THIS] = 0
    # "the Start Player selects 1 Location Card from the side of the play area"
    s[TO_MOVE] = s[START]
    n = 0
    last = -1
    for loc in range(N_LOC):
        if s[LOC_STATE + loc] == 0:
            n += 1
            last = loc
    if n == 0:
        s[CUR_LOC] = -1
        return False
    if n == 1:
        _set_location(s, last)
        return False
    s[PHASE] = P_LOCATION
    return True


@njit(cache=True, _nrt=False)
def _set_location(s, loc):
    s[CUR_LOC] = loc
    s[LOC_STATE + loc] = 1


EV_BEGIN, EV_END, EV_RESOLVE = 0, 1, 2


@njit(cache=True, _nrt=False)
def _init_war_turns(s):
    s[FIRST] = 1
    s[ENDING] = 0
    s[TRIGGER] = 0
    s[TO_MOVE] = s[START]


@njit(cache=True, inline="always")
def _usable(env, code_target, nk):
    """A War ability can be used unless it needs a Conflict and the War has none (``wreckage_conflicts = "none"``
    with the Incident Deck empty)."""
    return code_target != TARGET_CONFLICT or nk > 0


@njit(cache=True, _nrt=False)
def _has_kind(s, env, p, kinds):
    """Which action kinds seat ``p`` could take now (mask), given the kinds already used this turn (the same
    actions as ``legal_actions`` lists)."""
    cards = env[0]
    nk = s[NCONF]
    m = 0
    if s[N_HAND + p] > 0 and nk > 0 and not kinds & K_PLAY:
        m |= K_PLAY
    for i in range(s[N_HAND + p]):
        c = s[HAND + p * NC + i]
        t = cards[c, C_TYPE]
        if t == COGDRIVE:
            if not kinds & K_COG and _usable(env, cards[c, C_TARGET], nk):
                m |= K_COG
        elif t == ASSAULT:
            if not kinds & K_ASSAULT and _usable(env, cards[c, C_TARGET], nk):
                m |= K_ASSAULT
        elif _discardable(env, c) and not kinds & K_DISC:
            m |= K_DISC
    if not s[EMB_USED + p] and not kinds & K_EMB and _usable(env, env[1][s[EMB + p], E_TARGET], nk):
        m |= K_EMB
    return m


@njit(cache=True, inline="always")
def _code_draws(code):
    """How many cards a War ability's effects draw."""
    d = 0
    for j in range(MAX_EFFECTS):
        if code[2 * j] == OP_DRAW:
            d += code[2 * j + 1]
    return d


@njit(cache=True, _nrt=False)
def _refills(s, env, p, c):
    """Does using hand card ``c``'s own kind of action (discarding it to draw, or its War ability) put a card
    back in p's hand? Then a lone card allows 2 different actions: that one, then playing the drawn card."""
    if s[N_DECK + p] == 0:
        return False
    cards = env[0]
    t = cards[c, C_TYPE]
    if t == COGDRIVE or t == ASSAULT:
        return _usable(env, cards[c, C_TARGET], s[NCONF]) and _code_draws(cards[c, C_CODE:]) > 0
    return _discardable(env, c)


@njit(cache=True, _nrt=False)
def can_take_two(s, env, p):
    """Can seat ``p`` take 2 different actions this turn ("In the event that the player cannot perform 2 different
    actions during his War turn")? With Conflicts in play: two hand cards always can (play one, then the other's
    own kind: every card has one); one card with the Emblem unused can (Emblem, then play); one card whose own
    action draws (discarding an Action/Valkyrie card, a Cogdrive or Assault ability that draws) can when the Deck
    is not empty (that action, then play the drawn card); no card, with an unused Emblem whose ability draws and a
    Deck that is not empty, can (Emblem, then play). Without Conflicts (no plays) the hand's kinds are
    independent: two different kinds available now."""
    h = s[N_HAND + p]
    if s[NCONF] == 0:
        m = _has_kind(s, env, p, 0)
        return m != 0 and (m & (m - 1)) != 0
    if h >= 2:
        return True
    emblem = not s[EMB_USED + p]
    if h == 1:
        return emblem or _refills(s, env, p, s[HAND + p * NC])
    return emblem and s[N_DECK + p] > 0 and _code_draws(env[1][s[EMB + p], E_CODE:]) > 0 and \
        _usable(env, env[1][s[EMB + p], E_TARGET], s[NCONF])


@njit(cache=True, _nrt=False)
def _lone_play_barred(s, env, p):
    """"A player must perform 2 actions during his War turn, if possible.": at the first action of a 2-action turn
    with one card in hand, the Emblem used and a Deck to draw from, playing a card whose own action draws would
    leave no second action, while that action first, then a play, makes two. Then the play is not legal."""
    return s[ACTS] == 2 and s[KINDS] == 0 and s[N_HAND + p] == 1 and s[NCONF] > 0 and \
        not (not s[EMB_USED + p] and _usable(env, env[1][s[EMB + p], E_TARGET], s[NCONF])) and \
        _refills(s, env, p, s[HAND + p * NC])


@njit(cache=True)
def _war_loop(s, rng, env, ev):
    """The War Phase's forced steps between decisions: turns beginning and ending, the end of the War, the
    resolution and what follows it (the next Engagement's Draft Phase, the Final War, the end of the game)."""
    rules = env[3]
    blitz = rules[R_BLITZ]
    while True:
        p = s[TO_MOVE]
        if ev == EV_RESOLVE:
            if _resolve_war(s, rng, env):  # the Final War follows
                if _start_war(s, rng, env):
                    return
                _init_war_turns(s)
                ev = EV_BEGIN
                continue
            return
        if ev == EV_BEGIN:
            s[KINDS] = 0
            if blitz:
                s[ACTS] = 1  # "During a player's War turn, he receives 1 Action."
            elif s[FIRST] and p == s[START]:
                s[ACTS] = 1  # "The Start player for each War Phase receives only 1 Action during his first War turn."
            else:
                s[ACTS] = 2
            if s[WAR_TURNS_THIS] >= rules[R_TURN_CAP]:
                s[CAPPED] += 1
                ev = EV_RESOLVE
                continue
            if not blitz and s[ENDING] == 0 and not (s[FIRST] and p == s[START]) and not can_take_two(s, env, p):
                # "In the event that the player cannot perform 2 different actions during his War turn, the
                # player's turn ends. Each player draws 2 cards from his deck, and each player receives 1
                # additional turn."
                if rules[R_WAR_END] == 0:
                    _start_ending(s)
                    s[TO_MOVE] = 1 - p
                    continue
                s[TRIGGER] = 1  # reading "act_then_end": he first takes the actions he can
            if _has_kind(s, env, p, 0) == 0:
                ev = EV_END
                continue
            s[PHASE] = P_WAR
            return
        # EV_END: the turn of p ends
        if p == s[START]:
            s[FIRST] = 0
        s[WAR_TURNS] += 1
        s[WAR_TURNS_THIS] += 1
        ev = EV_BEGIN
        if s[ENDING] > 0:
            s[ENDING] -= 1
            if s[ENDING] == 0:
                ev = EV_RESOLVE
                continue
        elif blitz:
            # "At the end of a player's turn, if he has no cards remaining in his hand, the other player receives 1
            # turn, and then the War Phase ends."
            if s[N_HAND + p] == 0:
                s[ENDING] = 1
        elif s[TRIGGER]:
            _start_ending(s)
        s[TO_MOVE] = 1 - p


@njit(cache=True, _nrt=False)
def _start_ending(s):
    for q in range(2):
        draw(s, q, 2)
    s[ENDING] = 2
    s[TRIGGER] = 0
    s[FIRST] = 0


@njit(cache=True)
def _after_war_action(s, rng, env, kind):
    p = s[TO_MOVE]
    s[KINDS] |= kind
    s[ACTS] -= 1
    if s[ACTS] > 0 and _has_kind(s, env, p, s[KINDS]) != 0:
        s[PHASE] = P_WAR
        return
    _war_loop(s, rng, env, EV_END)


@njit(cache=True, inline="always")
def _target_card(s, env, o, k, n):
    """Index (in o's played list) of o's strongest card of printed Strength at most ``n`` on Conflict ``k``."""
    cards = env[0]
    best, bi = -1, -1
    for i in range(s[N_PLAYED + o]):
        if s[PLAYK + o * NC + i] == k:
            c = s[PLAYED + o * NC + i]
            if cards[c, C_STR] <= n and cards[c, C_STR] > best:
                best, bi = cards[c, C_STR], i
    return bi


@njit(cache=True, _nrt=False)
def _unplay(s, p, i):
    """Remove entry ``i`` from p's played cards; returns the card."""
    base = PLAYED + p * NC
    kb = PLAYK + p * NC
    n = s[N_PLAYED + p]
    c = s[base + i]
    sb = PLAYSTR + p * NC
    for j in range(i, n - 1):
        s[base + j] = s[base + j + 1]
        s[kb + j] = s[kb + j + 1]
        s[sb + j] = s[sb + j + 1]
    s[base + n - 1] = -1
    s[kb + n - 1] = -1
    s[sb + n - 1] = -1
    s[N_PLAYED + p] = n - 1
    return c


@njit(cache=True, _nrt=False)
def _war_effects(s, rng, env, p, code, k):
    """Run a War ability (a Cogdrive's, an Assault's or an Emblem's) for seat ``p`` with target Conflict ``k``."""
    cards = env[0]
    o = 1 - p
    for j in range(MAX_EFFECTS):
        op = code[2 * j]
        n = code[2 * j + 1]
        if op == OP_DRAW:
            draw(s, p, n)
        elif op == OP_STRENGTH:
            s[TOK + p * MAX_CONF + k] += n
        elif op == OP_WEAKEN:
            s[TOK + o * MAX_CONF + k] -= n
        elif op == OP_DESTROY or op == OP_WRECK_CARD or op == OP_BOUNCE:
            i = _target_card(s, env, o, k, n)
            if i >= 0:
                c = _unplay(s, o, i)
                if op == OP_DESTROY:
                    _push(s, PILE + o * NC, N_PILE + o, c)  # "Destroyed": moved to the player's Pile
                elif op == OP_WRECK_CARD:
                    wreck(s, c)
                else:
                    _push(s, HAND + o * NC, N_HAND + o, c)
        elif op == OP_MOVE:
            # your strongest card from the Conflict you lead most (not the target) to the target
            best_lead, src = -1000, -1
            for j2 in range(s[NCONF]):
                if j2 == k:
                    continue
                has = False
                for i in range(s[N_PLAYED + p]):
                    if s[PLAYK + p * NC + i] == j2:
                        has = True
                if has:
                    lead = side_strength(s, env, p, j2, False) - side_strength(s, env, o, j2, False)
                    if lead > best_lead:
                        best_lead, src = lead, j2
            if src >= 0:
                bi, bs = -1, -1
                for i in range(s[N_PLAYED + p]):
                    if s[PLAYK + p * NC + i] == src and cards[s[PLAYED + p * NC + i], C_STR] > bs:
                        bs, bi = cards[s[PLAYED + p * NC + i], C_STR], i
                s[PLAYK + p * NC + bi] = k
        elif op == OP_DISCARD:
            for _ in range(n):
                h = s[N_HAND + o]
                if h == 0:
                    break
                i = randbelow(rng, h)
                c = s[HAND + o * NC + i]
                _remove(s, HAND + o * NC, N_HAND + o, c)
                _push(s, PILE + o * NC, N_PILE + o, c)


@njit(cache=True)
def _finish_discard(s, rng, env):
    p = s[TO_MOVE]
    # "He draws 1 card for each card he discards." Blitz: "to draw an equal number of cards, plus 1"
    draw(s, p, s[DISC_N] + (1 if env[3][R_BLITZ] else 0))
    s[DISC_N] = 0
    _after_war_action(s, rng, env, K_DISC)


@njit(cache=True, inline="always")
def _discardable(env, c):
    t = env[0][c, C_TYPE]
    if env[3][R_BLITZ]:
        return t == ACTION or (t == VALKYRIE and env[3][R_BLITZ_DISCARD] == 1)
    return t == ACTION or t == VALKYRIE


@njit(cache=True)
def _resolve_war(s, rng, env):
    """Returns True when the Final War follows. "the player with the highest combined Strength in each of the Conflicts takes that Conflict card"; the tie
    rule; winning the Location; "Ending the Engagement"."""
    rules = env[3]
    wins = np.zeros(2, np.int64)
    for k in range(s[NCONF]):
        a = side_strength(s, env, 0, k, False)
        b = side_strength(s, env, 1, k, False)
        if a == b:
            # "If a tie exists, move all Assault and Action cards from the tied Conflict and compare Strength
            # values once again."
            a = side_strength(s, env, 0, k, True)
            b = side_strength(s, env, 1, k, True)
        c = s[CONF + k]
        s[CONF + k] = -1
        if a > b:
            _push(s, VICT, N_VICT, c)
            wins[0] += 1
        elif b > a:
            _push(s, VICT + NC, N_VICT + 1, c)
            wins[1] += 1
        else:
            wreck(s, c)  # "the Conflict card is moved to the Wreckage ...; neither player wins this Conflict."
    s[NCONF] = 0
    # "Each player then moves all of his cards on the Conflict to his Pile."
    for p in range(2):
        while s[N_PLAYED + p] > 0:
            s[N_PLAYED + p] -= 1
            i = s[N_PLAYED + p]
            _push(s, PILE + p * NC, N_PILE + p, s[PLAYED + p * NC + i])
            s[PLAYED + p * NC + i] = -1
            s[PLAYK + p * NC + i] = -1
            s[PLAYSTR + p * NC + i] = -1
        s[TOK + p * MAX_CONF:TOK + p * MAX_CONF + MAX_CONF] = 0
    loc = s[CUR_LOC]
    if loc >= 0:
        winner = -1  # noqa
        if rules[R_BLITZ]:
            for p in range(2):
                if wins[p] >= 2:  # "If any player wins 2 or more Conflicts during the War Phase"
                    winner = p
        elif wins[0] > wins[1]:  # "won either 3 of the current Conflict cards, or ... more ... than the opposing"
            winner = 0
        elif wins[1] > wins[0]:
            winner = 1
        if winner >= 0:
            s[LOC_STATE + loc] = 2 + winner
            s[LOCWON + winner] += 1
        else:
            s[LOC_STATE + loc] = 4  # "returned to the side of the play area, face down, and may not be used again"
        s[CUR_LOC] = -1
    # "Each player moves any cards remaining in his hand to his Pile and turns his Emblem card right side up."
    if s[ENG] < 3:
        for p in range(2):
            while s[N_HAND + p] > 0:
                _push(s, PILE + p * NC, N_PILE + p, _pop(s, HAND + p * NC, N_HAND + p))
                s[HAND + p * NC + s[N_HAND + p]] = -1
    s[EMB_USED] = 0
    s[EMB_USED + 1] = 0
    s[ENG] += 1
    if rules[R_BLITZ]:
        if s[ENG] >= 3:  # "There is no Final War when using the Blitz Ruleset"
            _game_over(s, env)
            return False
        _start_engagement(s, rng, env)
        return False
    if s[ENG] < 3:
        _start_engagement(s, rng, env)
        return False
    if s[ENG] == 3:
        s[START] = 1  # The Final War: "The Omega Player is the Start player."
        s[DSTEP] = 0
        return True
    _game_over(s, env)  # "When the Final War is resolved, the game ends and scoring occurs."
    return False


# ============================================================================================================
# scoring
# ============================================================================================================

@njit(cache=True, _nrt=False)
def deck_points(s, env, p):
    """"2 points for each card in his deck that matches his Emblem, 1 point for each other card in his deck".
    Default reading: every Incident card he owns (Deck, Pile, hand, on Conflicts); ``draw_pile``: the Deck only."""
    cards, emblems = env[0], env[1]
    clan = emblems[s[EMB + p], E_CLAN]
    pts = 0
    zones = (DECK, PILE, HAND, PLAYED)
    counts = (N_DECK, N_PILE, N_HAND, N_PLAYED)
    nz = 1 if env[3][R_DECK_SCORING] == 1 else 4
    for z in range(nz):
        for i in range(s[counts[z] + p]):
            c = s[zones[z] + p * NC + i]
            pts += 2 if cards[c, C_CLAN] == clan else 1
    return pts


@njit(cache=True, _nrt=False)
def final_scores(s, env, out):
    """Scores into ``out[0:2]``: deck points, 2 per Victory Card, 1 per won Location, and "The player with the
    most Victory cards earns an additional 4 points." """
    for p in range(2):
        out[p] = deck_points(s, env, p) + 2 * s[N_VICT + p] + s[LOCWON + p]
    if s[N_VICT] > s[N_VICT + 1]:
        out[0] += 4
    elif s[N_VICT + 1] > s[N_VICT]:
        out[1] += 4
    elif env[3][R_VBONUS_TIE] == 1:
        out[0] += 4
        out[1] += 4


@njit(cache=True)
def _game_over(s, env):
    sc = np.zeros(2, np.int64)
    final_scores(s, env, sc)
    s[SCORE] = sc[0]
    s[SCORE + 1] = sc[1]
    # "In the event of a tie, the player with the most Victory Cards wins the game." (still tied: a draw)
    if sc[0] != sc[1]:
        s[WINNER] = 0 if sc[0] > sc[1] else 1
    elif s[N_VICT] != s[N_VICT + 1]:
        s[WINNER] = 0 if s[N_VICT] > s[N_VICT + 1] else 1
    else:
        s[WINNER] = 2
    s[OVER] = 1
    s[PHASE] = P_OVER


# ============================================================================================================
# the interface
# ============================================================================================================

@njit(cache=True, _nrt=False)
def legal_actions(s, env, out):
    if s[OVER]:
        return 0
    cards, emblems, rules = env[0], env[1], env[3]
    ph = s[PHASE]
    p = s[TO_MOVE]
    n = 0
    if ph == P_PICK:
        for i in range(s[N_DHAND + p]):
            out[n] = A_CARD + s[DHAND + p * DRAFT_HAND + i]
            n += 1
    elif ph == P_EMBLEM:
        for e in range(N_EMB):
            if s[EMB + 1 - p] != e:
                out[n] = A_EMBLEM + e
                n += 1
    elif ph == P_DRAWCHOICE:
        out[0] = A_DRAW5
        out[1] = A_SHUFFLE4
        n = 2
    elif ph == P_MORALE:
        out[0] = A_YES
        out[1] = A_PASS
        n = 2
    elif ph == P_WRECK:
        for i in range(N_BARR):
            if s[BARR + i] >= 0:
                out[n] = A_SLOT + i
                n += 1
        out[n] = A_PASS
        n += 1
    elif ph == P_RECRUIT:
        h = s[N_HAND + p]
        for i in range(N_BARR):
            if s[BARR + i] >= 0 and cards[s[BARR + i], C_COST] <= h:
                out[n] = A_SLOT + i
                n += 1
        for i in range(h):
            c = s[HAND + p * NC + i]
            t = cards[c, C_TYPE]
            if t == VALKYRIE or t == ACTION:
                out[n] = A_CARD + c
                n += 1
        out[n] = A_PASS
        n += 1
    elif ph == P_PAY:
        for i in range(s[N_HAND + p]):
            out[n] = A_CARD + s[HAND + p * NC + i]
            n += 1
    elif ph == P_DTARGET:
        op, arg = _first_slot_op(env, s[PEND])
        for i in range(N_BARR):
            if _slot_ok(s, env, op, arg, i):
                out[n] = A_SLOT + i
                n += 1
    elif ph == P_LOCATION:
        for loc in range(N_LOC):
            if s[LOC_STATE + loc] == 0:
                out[n] = A_LOC + loc
                n += 1
    elif ph == P_WAR:
        kinds = s[KINDS]
        nk = s[NCONF]
        h = s[N_HAND + p]
        may_play = not kinds & K_PLAY and not _lone_play_barred(s, env, p)
        for i in range(h):
            c = s[HAND + p * NC + i]
            if may_play:
                for k in range(nk):
                    out[n] = A_PLAY + c * 5 + k
                    n += 1
            t = cards[c, C_TYPE]
            if (t == COGDRIVE and not kinds & K_COG) or (t == ASSAULT and not kinds & K_ASSAULT):
                if cards[c, C_TARGET] == TARGET_CONFLICT:
                    for k in range(nk):
                        out[n] = A_ABIL + c * 5 + k
                        n += 1
                else:
                    out[n] = A_ABIL + c * 5
                    n += 1
            elif not kinds & K_DISC and _discardable(env, c):
                out[n] = A_WDISC + c
                n += 1
        if not s[EMB_USED + p] and not kinds & K_EMB:
            if emblems[s[EMB + p], E_TARGET] == TARGET_CONFLICT:
                for k in range(nk):
                    out[n] = A_EMBL + k
                    n += 1
            else:
                out[n] = A_EMBL
                n += 1
    elif ph == P_DISCARD:
        # "discard up to 2 Action and/or Valkyrie Cards"; "A player must perform 2 actions during his War turn, if
        # possible": as the turn's first action, not the last card when nothing could be drawn for it and the
        # Emblem is used (playing that card is the second action)
        last_barred = s[ACTS] == 2 and s[KINDS] == 0 and s[N_HAND + p] == 1 and s[N_DECK + p] == 0 and \
            s[NCONF] > 0 and not (not s[EMB_USED + p] and _usable(env, emblems[s[EMB + p], E_TARGET], s[NCONF]))
        if (rules[R_BLITZ] or s[DISC_N] < 2) and not last_barred:
            for i in range(s[N_HAND + p]):
                c = s[HAND + p * NC + i]
                if _discardable(env, c):
                    out[n] = A_CARD + c
                    n += 1
        out[n] = A_PASS
        n += 1
    return n


@njit(cache=True)
def apply_action(s, rng, env, a):
    cards, emblems = env[0], env[1]
    ph = s[PHASE]
    p = s[TO_MOVE]
    s[DECISIONS] += 1
    if ph == P_PICK:
        _remove(s, DHAND + p * DRAFT_HAND, N_DHAND + p, a - A_CARD)
        _push(s, PICKS + p * N_PICKS, N_PICKS_ + p, a - A_CARD)
        _after_pick(s, rng, env)
    elif ph == P_EMBLEM:
        s[EMB + p] = a - A_EMBLEM
        s[TO_MOVE] = 1 - p
        _emblem_step(s, rng, env)
    elif ph == P_DRAWCHOICE:
        # "He may either draw 5 cards or he may shuffle his Pile into his deck and draw 4 cards."
        if a == A_SHUFFLE4:
            shuffle_pile_in(s, rng, p)
            draw(s, p, 4)
        else:
            draw(s, p, 5)
        _after_draw(s, rng, env)
    elif ph == P_MORALE:
        if a == A_YES:
            c = incident_top(s)  # "he takes the top card of the Incident Deck and adds it to his Victory Cards"
            if c >= 0:
                _push(s, VICT + p * NC, N_VICT + p, c)
        _barracks_step(s, rng, env)
    elif ph == P_WRECK:
        if a == A_PASS:
            _fill_barracks(s, N_BARR)
            s[PHASE] = P_RECRUIT
        else:
            wreck(s, s[BARR + a - A_SLOT])
            s[BARR + a - A_SLOT] = -1
            if _barracks_count(s) == 0:
                _fill_barracks(s, N_BARR)
                s[PHASE] = P_RECRUIT
    elif ph == P_RECRUIT:
        if a == A_PASS:
            _end_draft_turn(s, rng, env)
        elif a >= A_SLOT:
            # "selects the card he wishes to Draft, and discards a number of cards from his hand equal to the
            # selected card's Draft Cost. The drafted card is then shuffled into his deck."
            i = a - A_SLOT
            c = s[BARR + i]
            s[BARR + i] = -1
            s[PEND] = c
            s[PAY] = cards[c, C_COST]
            if s[PAY] > 0:
                s[PHASE] = P_PAY
            else:
                to_deck_shuffled(s, rng, p, c)
                s[PEND] = -1
        else:
            c = a - A_CARD
            _remove(s, HAND + p * NC, N_HAND + p, c)
            if cards[c, C_TARGET] == TARGET_SLOT:
                op, arg = _first_slot_op(env, c)
                for i in range(N_BARR):
                    if _slot_ok(s, env, op, arg, i):
                        s[PEND] = c
                        s[PHASE] = P_DTARGET
                        return
            _draft_effects(s, rng, env, p, c, -1)
    elif ph == P_PAY:
        c = a - A_CARD
        _remove(s, HAND + p * NC, N_HAND + p, c)
        _push(s, PILE + p * NC, N_PILE + p, c)
        s[PAY] -= 1
        if s[PAY] == 0:
            to_deck_shuffled(s, rng, p, s[PEND])
            s[PEND] = -1
            s[PHASE] = P_RECRUIT
    elif ph == P_DTARGET:
        c = s[PEND]
        s[PEND] = -1
        s[PHASE] = P_RECRUIT
        _draft_effects(s, rng, env, p, c, a - A_SLOT)
    elif ph == P_LOCATION:
        _set_location(s, a - A_LOC)
        _init_war_turns(s)
        _war_loop(s, rng, env, EV_BEGIN)
    elif ph == P_WAR:
        if a >= A_EMBL:
            s[EMB_USED + p] = 1  # "he turns the Emblem sideways, and uses the ability"
            _war_effects(s, rng, env, p, emblems[s[EMB + p], E_CODE:], a - A_EMBL)
            _after_war_action(s, rng, env, K_EMB)
        elif a >= A_WDISC:
            c = a - A_WDISC
            _remove(s, HAND + p * NC, N_HAND + p, c)
            _push(s, PILE + p * NC, N_PILE + p, c)
            s[DISC_N] = 1
            s[PHASE] = P_DISCARD
            if legal_actions(s, env, np.empty(MAX_ACTIONS, np.int64)) == 1:
                _finish_discard(s, rng, env)
        elif a >= A_ABIL:
            c = (a - A_ABIL) // 5
            k = (a - A_ABIL) % 5
            _remove(s, HAND + p * NC, N_HAND + p, c)
            _war_effects(s, rng, env, p, cards[c, C_CODE:], k)
            if cards[c, C_TYPE] == COGDRIVE:
                _push(s, PILE + p * NC, N_PILE + p, c)  # "then moves the Cogdrive to his Pile"
                _after_war_action(s, rng, env, K_COG)
            else:
                # "then shuffles the revealed card into the Incident Deck"
                _push(s, IDECK, N_IDECK, c)
                _shuffle_zone(s, rng, IDECK, s[N_IDECK])
                _after_war_action(s, rng, env, K_ASSAULT)
        else:
            c = (a - A_PLAY) // 5
            k = (a - A_PLAY) % 5
            _remove(s, HAND + p * NC, N_HAND + p, c)
            s[PLAYED + p * NC + s[N_PLAYED + p]] = c
            s[PLAYK + p * NC + s[N_PLAYED + p]] = k
            s[PLAYSTR + p * NC + s[N_PLAYED + p]] = card_strength(s, env, c, p)
            s[N_PLAYED + p] += 1
            _after_war_action(s, rng, env, K_PLAY)
    elif ph == P_DISCARD:
        if a == A_PASS:
            _finish_discard(s, rng, env)
        else:
            c = a - A_CARD
            _remove(s, HAND + p * NC, N_HAND + p, c)
            _push(s, PILE + p * NC, N_PILE + p, c)
            s[DISC_N] += 1
            if legal_actions(s, env, np.empty(MAX_ACTIONS, np.int64)) == 1:
                _finish_discard(s, rng, env)


@njit(cache=True, _nrt=False)
def is_over(s):
    return s[OVER] == 1


@njit(cache=True, _nrt=False)
def to_move(s):
    return s[TO_MOVE]


@njit(cache=True, _nrt=False)
def reward(s, env, seat):
    w = s[WINNER]
    if w == 2:
        return 0.5
    return 1.0 if w == seat else 0.0


@njit(cache=True)
def resample(s, rng, env, seat, srng):
    """Redeal what ``seat`` cannot see, canonically: the cards of the other seat's hand and Deck (and set-up picks
    and draft hand), the Incident Deck, the face-down Conflict cards and both seats' Victory Cards are pooled,
    sorted, shuffled from ``srng`` and dealt back into the same zones with the same counts; the seat's own Deck
    (whose cards it knows) is reordered; the chance stream is reseeded. It uses the seat's current view only
    (it does not remember cards that left its view)."""
    o = 1 - seat
    pool = np.empty(NC, np.int32)
    m = 0
    bases = (HAND + o * NC, DECK + o * NC, IDECK, VICT, VICT + NC, PICKS + o * N_PICKS, DHAND + o * DRAFT_HAND)
    cnts = (N_HAND + o, N_DECK + o, N_IDECK, N_VICT, N_VICT + 1, N_PICKS_ + o, N_DHAND + o)
    for z in range(7):
        for i in range(s[cnts[z]]):
            pool[m] = s[bases[z] + i]
            m += 1
    for k in range(s[NCONF]):
        pool[m] = s[CONF + k]
        m += 1
    pool[:m] = np.sort(pool[:m])
    for i in range(m - 1, 0, -1):
        j = randbelow(srng, i + 1)
        t = pool[i]
        pool[i] = pool[j]
        pool[j] = t
    m = 0
    for z in range(7):
        for i in range(s[cnts[z]]):
            s[bases[z] + i] = pool[m]
            m += 1
    for k in range(s[NCONF]):
        s[CONF + k] = pool[m]
        m += 1
    reshuffle_unseen(s, DECK + seat * NC, s[N_DECK + seat], srng)
    reseed(rng, srng)


# ============================================================================================================
# policies
# ============================================================================================================

@njit(cache=True, inline="always")
def _war_value(lead, margin):
    """How good a lead on a Conflict is (a rough win chance)."""
    if lead > margin:
        return 1.0
    if lead > 0:
        return 0.75
    if lead == 0:
        return 0.5
    if lead >= -margin:
        return 0.25
    return 0.0


@njit(cache=True, _nrt=False)
def _my_clan(s, env, p):
    """The Clan the seat scores double: its Emblem's, or before the Emblem choice the most common among its
    picks/cards (the first of equals; -1 if none). Its counts live on the stack: it runs in the features of every
    action."""
    if s[EMB + p] >= 0:
        return env[1][s[EMB + p], E_CLAN]
    counts = stack_empty(N_CLANS, np.int64)
    counts[:] = 0
    for i in range(s[N_PICKS_ + p]):
        counts[env[0][s[PICKS + p * N_PICKS + i], C_CLAN]] += 1
    best, best_n = -1, 0
    for clan in range(N_CLANS):
        if counts[clan] > best_n:
            best, best_n = clan, counts[clan]
    return best


@njit(cache=True, _nrt=False)
def card_value(s, env, c, p, params):
    """A heuristic's value of owning card ``c`` (drafting, paying, picking)."""
    return _card_value(env, c, _my_clan(s, env, p), params)


@njit(cache=True, _nrt=False)
def _card_value(env, c, clan, params):
    cards = env[0]
    v = params[0] * cards[c, C_STR] * 0.5 + 1.0
    if cards[c, C_CLAN] == clan:
        v += params[1]
    t = cards[c, C_TYPE]
    if t == COGDRIVE or t == ASSAULT:
        v += params[2]
    return v


@njit(cache=True, inline="always")
def _ability_gain(s, env, p, code, k, lead, margin, totals):
    """Rough value of a War ability's effects aimed at Conflict ``k``."""
    cards = env[0]
    o = 1 - p
    g = 0.0
    for j in range(MAX_EFFECTS):
        op = code[2 * j]
        n = code[2 * j + 1]
        if op == OP_DRAW:
            g += 0.15 * min(n, s[N_DECK + p])
        elif op == OP_STRENGTH or op == OP_WEAKEN:
            g += _war_value(lead[k] + n, margin) - _war_value(lead[k], margin)
        elif op == OP_DESTROY or op == OP_WRECK_CARD or op == OP_BOUNCE:
            i = _target_card(s, env, o, k, n)
            if i >= 0:
                st = s[PLAYSTR + o * NC + i]
                g += _war_value(lead[k] + st, margin) - _war_value(lead[k], margin) + 0.05
        elif op == OP_DISCARD:
            g += 0.1 * min(n, s[N_HAND + o])
        elif op == OP_MOVE:
            g += 0.05
    return g


@njit(cache=True)
def heuristic(s, env, legal, n, params, prng):
    """The heuristics (`balanced`, `focused`, `concentrated`: one logic, their ``params``, see ``PARAMS``): rules
    of thumb that read only the acting seat's view (its hand, public zones, counts of hidden ones)."""
    if n == 1:
        return legal[0]
    cards, emblems, locs = env[0], env[1], env[2]
    p = s[TO_MOVE]
    o = 1 - p
    ph = s[PHASE]
    best = legal[0]
    best_v = -1e18
    if ph == P_PICK or ph == P_PAY:
        sign = 1.0 if ph == P_PICK else -1.0
        clan = _my_clan(s, env, p)
        for i in range(n):
            c = legal[i] - A_CARD
            v = sign * _card_value(env, c, clan, params)
            if v > best_v:
                best, best_v = legal[i], v
        return best
    if ph == P_EMBLEM:
        for i in range(n):
            e = legal[i] - A_EMBLEM
            clan = emblems[e, E_CLAN]
            v = 0.0
            if env[3][R_BLITZ]:
                for c in range(NC):
                    if cards[c, C_CLAN] == clan and (cards[c, C_TYPE] == VALKYRIE or cards[c, C_TYPE] == COGDRIVE):
                        v += cards[c, C_STR]
            else:
                for z in range(3):
                    base = (DECK, HAND, PILE)[z] + p * NC
                    for j in range(s[(N_DECK, N_HAND, N_PILE)[z] + p]):
                        if cards[s[base + j], C_CLAN] == clan:
                            v += 1.0
            v += 0.5 * emblems[e, E_BONUS]
            if v > best_v:
                best, best_v = legal[i], v
        return best
    if ph == P_DRAWCHOICE:
        if s[N_PILE + p] > 0 and (s[N_PILE + p] >= params[5] or s[N_DECK + p] < 4):
            return A_SHUFFLE4
        return A_DRAW5
    if ph == P_MORALE:
        return A_YES
    if ph == P_WRECK:
        for i in range(n):
            if legal[i] == A_PASS:
                continue
            v = params[10] - card_value(s, env, s[BARR + legal[i] - A_SLOT], p, params)
            if v > 0 and v > best_v:
                best, best_v = legal[i], v
        if best_v > 0:
            return best
        return A_PASS
    if ph == P_RECRUIT or ph == P_DTARGET:
        best, best_v = A_PASS, 0.0
        # a hand card paid or spent: in the standard game the War's draw up to 7 replaces it; in Blitz the War
        # draws 5 whatever the hand holds, so it is a card less for the War (and a drafted card dilutes the
        # 10-card clan deck: three quarters of a card more)
        blitz = env[3][R_BLITZ] == 1
        keep = params[13] if blitz else params[3]
        dilute = 0.75 * params[13] if blitz else 0.0
        spend = params[13] + dilute if blitz else params[3] * 0.5
        for i in range(n):
            a = legal[i]
            if a == A_PASS:
                continue
            if a >= A_SLOT:
                c = s[BARR + a - A_SLOT]
                if ph == P_DTARGET:
                    v = card_value(s, env, c, p, params) + 1.0
                else:
                    v = card_value(s, env, c, p, params) - keep * cards[c, C_COST] - params[4] - dilute
            else:
                c = a - A_CARD
                if cards[c, C_STR] > params[9]:
                    continue
                v = 0.0
                tgt = cards[c, C_TARGET] == TARGET_SLOT
                for j in range(MAX_EFFECTS):
                    op = cards[c, C_CODE + 2 * j]
                    arg = cards[c, C_CODE + 2 * j + 1]
                    if op == OP_DRAW:
                        v += 0.6 * min(arg, s[N_DECK + p])
                    elif op == OP_VICTORY:
                        v += 2.0 if s[N_IDECK] > 0 else 0.0
                    elif op == OP_FILL:
                        v += 0.3
                    elif op == OP_DRAFT_FREE or op == OP_RECRUIT:
                        for b in range(N_BARR):
                            if _slot_ok(s, env, op, arg, b):
                                v = max(v, card_value(s, env, s[BARR + b], p, params) - 0.5)
                if tgt and v == 0.0:
                    v = -1.0
                v -= spend
            if v > best_v:
                best, best_v = a, v
        if ph == P_DTARGET and best == A_PASS:
            return legal[0]
        return best
    if ph == P_LOCATION:
        for i in range(n):
            loc = legal[i] - A_LOC
            v = 0.0
            for j in range(locs.shape[1]):
                op = locs[loc, j, 0]
                if op == LOC_NO_EMBLEM:
                    v += emblems[s[EMB + o], E_BONUS] - emblems[s[EMB + p], E_BONUS]
                elif op == LOC_STRENGTH:
                    for h in range(s[N_HAND + p]):
                        c = s[HAND + p * NC + h]
                        if (locs[loc, j, 1] < 0 or locs[loc, j, 1] == cards[c, C_TYPE]) and \
                                (locs[loc, j, 2] < 0 or locs[loc, j, 2] == cards[c, C_CLAN]) and \
                                cards[c, C_STR] >= locs[loc, j, 3]:
                            v += 0.3 * locs[loc, j, 4]
            if v > best_v:
                best, best_v = legal[i], v
        return best
    if ph == P_DISCARD:
        for i in range(n):
            # a second card only while the Deck keeps 8 (digging deeper takes the next War's draw up to 7)
            if legal[i] != A_PASS and cards[legal[i] - A_CARD, C_STR] <= params[11] and s[N_DECK + p] >= 8:
                return legal[i]
        return A_PASS
    # P_WAR: leads on every Conflict in one pass over the played cards
    nk = s[NCONF]
    lead = np.zeros(2 * MAX_CONF, np.int64)  # lead[k]; lead[MAX_CONF + k] = 1 when the Conflict is contested
    totals = lead
    for k in range(nk):
        lead[k] = s[TOK + p * MAX_CONF + k] - s[TOK + o * MAX_CONF + k]
    for q in range(2):
        sign = 1 if q == p else -1
        for i in range(s[N_PLAYED + q]):
            k = s[PLAYK + q * NC + i]
            lead[k] += sign * s[PLAYSTR + q * NC + i]
            lead[MAX_CONF + k] = 1
    contested = lead[MAX_CONF:2 * MAX_CONF]
    # the cheapest majority: the nk // 2 + 1 Conflicts with the best leads (ties: the earlier); the others are
    # neglected by the factor 1 - concentrate
    weight = np.ones(MAX_CONF)
    if params[12] > 0:
        need = nk // 2 + 1
        for k in range(nk):
            better = 0
            for j in range(nk):
                if lead[j] > lead[k] or (lead[j] == lead[k] and j < k):
                    better += 1
            if better >= need:
                weight[k] = 1.0 - params[12]
    margin = params[6]
    now = np.empty(2 * MAX_CONF)  # now[k]: the lead's value; now[MAX_CONF + k]: the contested bonus
    for k in range(nk):
        now[k] = _war_value(lead[k], margin)
        now[MAX_CONF + k] = params[7] * 0.05 * contested[k]
    last_c, last_st, last_base = -1, 0, 0.0
    hold = 0.0 if env[3][R_BLITZ] else params[8]
    for i in range(n):
        a = legal[i]
        if a >= A_EMBL:
            k = a - A_EMBL
            v = _ability_gain(s, env, p, emblems[s[EMB + p], E_CODE:], k, lead, margin, totals) * weight[k] - 0.02
        elif a >= A_WDISC:
            c = a - A_WDISC
            v = 0.12 if cards[c, C_STR] <= params[11] and s[N_DECK + p] > 0 else -0.3
        elif a >= A_ABIL:
            c = (a - A_ABIL) // 5
            k = (a - A_ABIL) % 5
            v = _ability_gain(s, env, p, cards[c, C_CODE:], k, lead, margin, totals) * params[2] * weight[k] \
                - 0.03 * cards[c, C_STR]
        else:
            c = (a - A_PLAY) // 5
            k = (a - A_PLAY) % 5
            if c != last_c:  # a card's plays are adjacent in the legal list: its terms once
                last_c = c
                last_st = card_strength(s, env, c, p)
                last_base = -hold * last_st
                t = cards[c, C_TYPE]
                if t == COGDRIVE or t == ASSAULT:  # a card with a War ability is better kept for it
                    last_base -= 0.05 * params[2]
            v = (_war_value(lead[k] + last_st, margin) - now[k]) * weight[k] + now[MAX_CONF + k] + last_base
        if v > best_v:
            best, best_v = a, v
    return best


# the `learned` policy (simkit.core.decision): a scorer over ``features.features``, with ``heuristic`` (steered by
# the base heuristic's parameters, the front of the policy's vector) as the base of its ``is_base`` feature
from simkit.games.valkyrie_incident import features as F  # noqa: E402  (features reads this module's layout)

LEARNED_FNS = specialize_learned(F.features, heuristic, N_PARAMS, F.N_FEATURES, F.MAX_NNZ, __name__, F.state,
                                 F.N_STATE)
learned_action = LEARNED_FNS.learned_action


@njit(cache=True)
def policy(kind, s, env, legal, n, params, prng):
    """The decision interface's policy: ``random`` (a legal action at random), ``heuristic`` (steered by
    ``params``) or ``learned`` (a scorer over ``features``, with ``heuristic`` as its base)."""
    if kind == RANDOM or n == 1:
        return legal[randbelow(prng, n)] if n > 1 else legal[0]
    if kind == LEARNED:
        return learned_action(s, env, legal, n, params, prng)
    return heuristic(s, env, legal, n, params, prng)


# ============================================================================================================
# invariants
# ============================================================================================================

@njit(cache=True)
def invariants(s, env):
    """0 when every rule invariant holds, else a code: 1 a card missing or in two places (all 90 Incident cards
    are accounted for), 2 a count out of range, 3 Emblems (two seats share one / an unknown one), 4 Locations
    (LOC_STATE against won counts / more than one current), 5 the phase or seat, 6 a played card's stored
    Strength or Conflict."""
    seen = np.zeros(NC, np.int64)
    for i in range(s[N_IDECK]):
        seen[s[IDECK + i]] += 1
    for i in range(s[N_WRECK]):
        seen[s[WRECK + i]] += 1
    for i in range(N_BARR):
        if s[BARR + i] >= 0:
            seen[s[BARR + i]] += 1
    for k in range(MAX_CONF):
        if s[CONF + k] >= 0:
            if k >= s[NCONF]:
                return 2
            seen[s[CONF + k]] += 1
    if s[PEND] >= 0:
        seen[s[PEND]] += 1
    for p in range(2):
        for z in range(5):
            base = (DECK, HAND, PILE, VICT, PLAYED)[z] + p * NC
            cnt = s[(N_DECK, N_HAND, N_PILE, N_VICT, N_PLAYED)[z] + p]
            if cnt < 0 or cnt > NC:
                return 2
            for i in range(cnt):
                c = s[base + i]
                if c < 0 or c >= NC:
                    return 1
                seen[c] += 1
        if s[N_PICKS_ + p] < 0 or s[N_PICKS_ + p] > N_PICKS or s[N_DHAND + p] < 0 or s[N_DHAND + p] > DRAFT_HAND:
            return 2
        for i in range(s[N_PICKS_ + p]):
            seen[s[PICKS + p * N_PICKS + i]] += 1
        for i in range(s[N_DHAND + p]):
            seen[s[DHAND + p * DRAFT_HAND + i]] += 1
    for c in range(NC):
        if seen[c] != 1:
            return 1
    for p in range(2):
        if s[EMB + p] < -1 or s[EMB + p] >= N_EMB:
            return 3
    if s[EMB] >= 0 and s[EMB] == s[EMB + 1]:
        return 3
    won = np.zeros(2, np.int64)
    cur = 0
    for loc in range(N_LOC):
        st = s[LOC_STATE + loc]
        if st < 0 or st > 4:
            return 4
        if st == 1:
            cur += 1
            if s[CUR_LOC] != loc:
                return 4
        elif st == 2 or st == 3:
            won[st - 2] += 1
    if cur > 1 or won[0] != s[LOCWON] or won[1] != s[LOCWON + 1]:
        return 4
    if s[PHASE] < 0 or s[PHASE] > P_OVER or s[TO_MOVE] < 0 or s[TO_MOVE] > 1:
        return 5
    for p in range(2):
        for i in range(s[N_PLAYED + p]):
            if s[PLAYSTR + p * NC + i] != card_strength(s, env, s[PLAYED + p * NC + i], p) or \
                    s[PLAYK + p * NC + i] < 0 or s[PLAYK + p * NC + i] >= s[NCONF]:
                return 6
    return 0
