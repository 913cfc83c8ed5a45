"""The Lonequest state as one flat int32 vector per game, and its card data arrays.

State vector ``s`` (one game), slot by slot::

    KRONE STAMINA LOC PREV_LOC OFFERING_USED STEPS DONE CAUSE WARBAND   scalars
    BATTLES DEFEATED TESTS TESTS_WON TURNS CHANCE_STRIKES MARCHES PICKPOCKETED   counters for the results
    FRONT_N, FRONT[4 × 5]     Frontline, left to right: fighter, damage, Strike/Shield/Health Buff card (-1: none)
    MAR_N, MAR[MAX_MAR × 2]   revealed Marauders: fighter, damage
    WB_HEAD WB_N WB[64]       Warband Deck (circular; head = top)
    FD_HEAD FD_N FD[64]       Fighter deck (circular; head = top)
    LOC_N[6], LOC_CARDS[6 × 5]  cards left per Location; card i of a Location at LOC_CARDS[5*loc + i],
                              the top card is index LOC_N - 1. Card code >= 0: a Fighter (Marauder);
                              code < 0: Quest -(code + 1)
    WHERE[44]                 Buff cards 0..21 then Event cards 22..43: LOOT, HAND or EQUIPPED
    GRAVE[42]                 1 if that Fighter is in the Graveyard as one of yours, 2 as a defeated Marauder
    PLAYED[6], FACED[6]       Warband bitmasks per Location: Fighters that fought for you / Marauders fought
    VISITED[6]                1 once a Location has been entered
    CLEARED[6]                1 once a Location was emptied and its reward paid (a lost last battle
                              empties a Location without clearing it)
    START                     the southern Location the Lonequest started in

Card data (from ``cards.toml``): ``fighters`` int32[42, 5] (warband, infamy,
strike, health, shield), ``buffs`` int32[22, 2] (type, value), ``events``
int32[22] (kind), the Quest bytecode and offsets, ``adj`` int32[6, 6] (arrows)
and ``south`` int32[6].
"""

from __future__ import annotations

import numpy as np
from numba import njit

# scalars and counters
KRONE, STAMINA, LOC, PREV_LOC, OFFERING_USED, STEPS, DONE, CAUSE, WARBAND = range(9)
BATTLES, DEFEATED, TESTS, TESTS_WON, TURNS, CHANCE_STRIKES, MARCHES, PICKPOCKETED = range(9, 17)
MAX_FRONT = 4
F_FIGHTER, F_DAMAGE, F_BUFF0 = 0, 1, 2  # F_BUFF0 + buff type (0 strike, 1 shield, 2 health)
F_SIZE = 5
FRONT_N = 17
FRONT = 18
MAX_MAR = 12
MAR_N = FRONT + MAX_FRONT * F_SIZE
MAR = MAR_N + 1
DECK = 64
WB_HEAD = MAR + 2 * MAX_MAR
WB_N = WB_HEAD + 1
WB = WB_N + 1
FD_HEAD = WB + DECK
FD_N = FD_HEAD + 1
FD = FD_N + 1
N_LOC = 6
LOC_SIZE = 5
LOC_N = FD + DECK
LOC_CARDS = LOC_N + N_LOC
N_BUFFS = 22
N_EVENTS = 22
WHERE = LOC_CARDS + N_LOC * LOC_SIZE
N_FIGHTERS = 42
GRAVE = WHERE + N_BUFFS + N_EVENTS
PLAYED = GRAVE + N_FIGHTERS
FACED = PLAYED + N_LOC
VISITED = FACED + N_LOC
CLEARED = VISITED + N_LOC
START = CLEARED + N_LOC
STATE_SIZE = START + 1

# WHERE values
LOOT, HAND, EQUIPPED = 0, 1, 2

# failure causes
CAUSE_NONE, CAUSE_NO_FIGHTERS, CAUSE_NO_STAMINA, CAUSE_CAP, CAUSE_STRANDED = 0, 1, 2, 3, 4
# stranded: Stamina to spare, but no arrow leads from where you may go to an uncleared Location
CAUSES = ("none", "no_fighters", "no_stamina", "cap", "stranded")

# fighter data columns
FW, FI, FS, FH, FSH = 0, 1, 2, 3, 4  # warband, infamy, strike, health, shield


# --- decks (circular buffers inside the state vector) ------------------------------------

@njit(cache=True)
def deck_len(s, head):
    return s[head + 1]


@njit(cache=True)
def deck_push_bottom(s, head, card):
    n = s[head + 1]
    s[head + 2 + (s[head] + n) % DECK] = card
    s[head + 1] = n + 1


@njit(cache=True)
def deck_push_top(s, head, card):
    h = (s[head] - 1) % DECK
    s[head] = h
    s[head + 2 + h] = card
    s[head + 1] += 1


@njit(cache=True)
def deck_pop_top(s, head):
    """The top card (-1 when the deck is empty)."""
    if s[head + 1] == 0:
        return -1
    h = s[head]
    card = s[head + 2 + h]
    s[head] = (h + 1) % DECK
    s[head + 1] -= 1
    return card


@njit(cache=True)
def deck_peek(s, head, i):
    """The i-th card from the top."""
    return s[head + 2 + (s[head] + i) % DECK]


def pack_cards(cards, quest_code, quest_offsets) -> dict[str, np.ndarray]:
    """Card data from a :class:`~simkit.games.valka.cards.CardSet` as the kernel's arrays."""
    a = cards.arrays()
    fighters = np.stack([a["fighter_warband"], a["fighter_infamy"], a["fighter_strike"],
                         a["fighter_health"], a["fighter_shield"]], axis=1).astype(np.int32)
    buffs = np.stack([a["buff_type"], a["buff_value"]], axis=1).astype(np.int32)
    adj = np.zeros((N_LOC, N_LOC), np.int32)
    for f, t in a["arrows"]:
        adj[f, t] = 1
    return {"fighters": fighters, "buffs": buffs, "events": a["event_kind"].astype(np.int32),
            "quest_code": np.asarray(quest_code, np.int32), "quest_off": np.asarray(quest_offsets, np.int32),
            "adj": adj, "south": a["location_south"].astype(np.int32)}
