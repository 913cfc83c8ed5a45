"""The Lonequest state as one flat int32 vector per game, its decisions and action encoding, and its card data.

State vector ``s`` (one game), slot by slot::

    KRONE STAMINA LOC PREV_LOC OFFERING_USED STEPS DONE CAUSE WARBAND   scalars
    BATTLES DEFEATED TESTS TESTS_WON TURNS CHANCE_STRIKES MARCHES PICKPOCKETED   counters for the results
    FRONT_N, FRONT[4 × 6]     Frontline, left to right: fighter, damage, Strike/Shield/Health Buff card (-1: none),
                              used (1 once it has attacked in the current Attack)
    MAR_N, MAR[MAX_MAR × 2]   revealed Marauders: fighter, damage
    WB_HEAD WB_N WB[64]       Warband Deck (circular; head = top)
    FD_HEAD FD_N FD[64]       Fighter deck (circular; head = top)
    LOC_N[6], LOC_CARDS[6 × 5]  cards left per Location; card i of a Location at LOC_CARDS[5*loc + i],
                              the top card is index LOC_N - 1. Card code >= 0: a Fighter (Marauder);
                              code < 0: Quest -(code + 1)
    WHERE[44]                 Buff cards 0..21 then Event cards 22..43: LOOT, HAND or EQUIPPED; a spent Event
                              GRAVEYARD (rule ``spent_events``)
    GRAVE[42]                 1 if that Fighter is in the Graveyard as one of yours, 2 as a defeated Marauder
    PLAYED[6], FACED[6]       Warband bitmasks per Location: Fighters that fought for you / Marauders fought
    VISITED[6]                1 once a Location has been entered
    CLEARED[6]                1 once a Location was emptied and its reward paid (a lost last battle
                              empties a Location without clearing it)
    START                     the southern Location the Lonequest started in
    QSEEN[64]                 1 once Quest q has been revealed (the rest are unseen: dealt face down or out)
    BOON[8]                   Warband Boon level per Warband (``boons``: 0 off, 2 Deadly Dyad, 3 Horrible Horde)
    BOON_FRESH                bitmask: Boons that activated since your last Attack began (a Dyad that entered
                              outside an Attack lasts through the next one)
    BN_WARP BN_ROAR BN_STORM  one-time Boons still to resolve: Weird Warps, Monstrous Roars, Magic Storm points

The decision-point machinery (what survives a decision; see ``engine``)::

    PHASE                     the pending decision (PH_*; PH_NONE when the game is over)
    T_STAGE T_LOC T_ESCAPED   where in the turn (T_*), the Location explored this turn, 1 if its card's battle
                              ended in an escape (Bribe or Retreat)
    B_ACTIVE B_STAGE B_ATTACKING B_BEFORE B_NSPEC B_TEAM B_HITS
                              a battle: its stage (B_*), attacking or defending this round, Marauders defeated
                              before it, special actions taken this round, Team Strikes allowed this Attack,
                              the blows of a pending Strong Enuf (for Divine Aid)
    Q_ACTIVE Q_PC Q_END Q_SP Q_STACK[2 × 8] Q_WAIT Q_HERE Q_ARG Q_TF_EVEN Q_TF_ODD Q_TF_AFTER
                              a Quest (-1: none) as its bytecode interpreter's registers: program counter, end,
                              block stack (end, continue), what it waits for (W_*), the Location when its battle
                              began, a pending op's argument, and the branches of a pending Test Fate
    MK_ACTIVE MK_SELLS MK_RECRUITS MK_COUNT   a Market: goods (quests.MARKET_GOODS bits), recruits (1/0), actions taken
    RF_ACTIVE RF_POS RF_WAIT  returning the Frontline: next (fighter × 3 + Buff type), waiting for a Test Fate
    EQ_PENDING                an Equip decision is due (after a Fighter was drawn)
    TF_CTX TF_HARMFUL TF_RESULT  the pending Test Fate's context (0 Quest, 1 Rally, 2 Buff), whether losing it
                              hurts, and its result once decided

Decisions and their actions (``legal_actions`` lists them in increasing id order)::

    PH_START         loc (0..5): the southern Location to start in
    PH_SUMMON        0 no, 1 summon a 2nd Fighter (2 Stamina)
    PH_EQUIP         0 done; EQ_BASE + i * 22 + c: equip Buff c (in hand) to Frontline Fighter i (one card per
                     (type, value) is offered: the lowest-numbered)
    PH_MARCH         loc: march to that Location (from a cleared one)
    PH_EXPLORE       loc: march away (2 Stamina, or 0 into the start); EXPLORE (6): reveal the next card
    PH_SPECIAL       SP_NONE (0) attack now; SP_RALLY; SP_BRIBE + loc; SP_RETREAT + loc; SP_FEAR + marauder;
                     SP_POTION + fighter; SP_REINFORCE; SP_CHANGELING + fighter; SP_RETREAT_EV + fighter;
                     SP_FIREBLAST + marauder; SP_LIGHTNING
    PH_STRIKE        ST_TRUE + i * 12 + j, ST_TEAM + j, ST_RECKLESS + i * 12 + j, ST_CHANCE + i * 12 + j
                     (Frontline Fighter i, Marauder j; a Team Strike adds the strongest unused Fighters until they
                     beat the Shield)
    PH_OFFER         0 accept the failed Test Fate, 1 offer 20 Krone to VÁLKA (once per Lonequest)
    PH_DIVINE_DEFEND 0 take the blows, 1 spend Divine Aid to prevent them
    PH_DIVINE_QUEST  0 endure the Quest, 1 spend Divine Aid to ignore it
    PH_THIEF         0 lose the Krone to the pickpocket, 1 spend the Thief
    PH_MARKET        MK_STOP (0); MK_BUY + c: buy Buff c; MK_TRADE + c: trade the lowest Buff in hand of c's type
                     (and the difference) for c; MK_EVENT + k (Retreat, Reinforce, Changeling, Healing Potion);
                     MK_STAMINA; MK_RECRUIT; MK_THIEF; MK_SWAP + 3 * c + t: trade the lowest-numbered Buff in
                     hand of type t and c's value for c (rule market_trade = "same_cost")
    PH_GRAVE         0 keep the Grave Robber; 1 + f: recover Fighter f from the Graveyard
    PH_GAIN_BUFF     t (0 Strike, 1 Shield, 2 Health): which type a "gain any Buff" Quest gives
    PH_BOON          j: the Marauder a Monstrous Roar sends away, or a Magic Storm point hits (BN_ROAR first)

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
F_FIGHTER, F_DAMAGE, F_BUFF0, F_USED = 0, 1, 2, 5  # F_BUFF0 + buff type (0 strike, 1 shield, 2 health)
F_SIZE = 6
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
MAX_QUESTS = 64
QSEEN = START + 1
N_WARBANDS = 8
BOON = QSEEN + MAX_QUESTS
BOON_FRESH = BOON + N_WARBANDS
BN_WARP = BOON_FRESH + 1
BN_ROAR = BN_WARP + 1
BN_STORM = BN_ROAR + 1
PHASE = BN_STORM + 1
T_STAGE = PHASE + 1
T_LOC = T_STAGE + 1
T_ESCAPED = T_LOC + 1
B_ACTIVE = T_ESCAPED + 1
B_STAGE = B_ACTIVE + 1
B_ATTACKING = B_STAGE + 1
B_BEFORE = B_ATTACKING + 1
B_NSPEC = B_BEFORE + 1
B_TEAM = B_NSPEC + 1
B_HITS = B_TEAM + 1
Q_ACTIVE = B_HITS + 1
Q_PC = Q_ACTIVE + 1
Q_END = Q_PC + 1
Q_SP = Q_END + 1
Q_DEPTH = 8
Q_STACK = Q_SP + 1
Q_WAIT = Q_STACK + 2 * Q_DEPTH
Q_HERE = Q_WAIT + 1
Q_ARG = Q_HERE + 1
Q_TF_EVEN = Q_ARG + 1
Q_TF_ODD = Q_TF_EVEN + 1
Q_TF_AFTER = Q_TF_ODD + 1
MK_ACTIVE = Q_TF_AFTER + 1
MK_SELLS = MK_ACTIVE + 1
MK_RECRUITS = MK_SELLS + 1  # the state's flag; MK_RECRUIT (below) is the action
MK_COUNT = MK_RECRUITS + 1
RF_ACTIVE = MK_COUNT + 1
RF_POS = RF_ACTIVE + 1
RF_WAIT = RF_POS + 1
EQ_PENDING = RF_WAIT + 1
TF_CTX = EQ_PENDING + 1
TF_HARMFUL = TF_CTX + 1
TF_RESULT = TF_HARMFUL + 1
STATE_SIZE = TF_RESULT + 1

# WHERE values (GRAVEYARD: spent Events only)
LOOT, HAND, EQUIPPED, GRAVEYARD = 0, 1, 2, 3

# failure causes
CAUSE_NONE, CAUSE_NO_FIGHTERS, CAUSE_NO_STAMINA, CAUSE_CAP, CAUSE_STRANDED = 0, 1, 2, 3, 4
# stranded: Stamina to spare, but no arrow leads from where you may go to an uncleared Location
CAUSES = ("none", "no_fighters", "no_stamina", "cap", "stranded")

# fighter data columns
FW, FI, FS, FH, FSH = 0, 1, 2, 3, 4  # warband, infamy, strike, health, shield

# --- decisions (PHASE) and actions ----------------------------------------------------------------------------
(PH_NONE, PH_START, PH_SUMMON, PH_EQUIP, PH_MARCH, PH_EXPLORE, PH_SPECIAL, PH_STRIKE, PH_OFFER, PH_DIVINE_DEFEND,
 PH_DIVINE_QUEST, PH_THIEF, PH_MARKET, PH_GRAVE, PH_GAIN_BUFF, PH_BOON) = range(16)
PHASES = ("none", "start", "summon", "equip", "march", "explore", "special", "strike", "offer", "divine_defend",
          "divine_quest", "thief", "market", "grave", "gain_buff", "boon")
EQ_DONE, EQ_BASE = 0, 1
EXPLORE = N_LOC
SP_NONE, SP_RALLY = 0, 1
SP_BRIBE = 2
SP_RETREAT = SP_BRIBE + N_LOC
SP_FEAR = SP_RETREAT + N_LOC
SP_POTION = SP_FEAR + MAX_MAR
SP_REINFORCE = SP_POTION + MAX_FRONT
SP_CHANGELING = SP_REINFORCE + 1
SP_RETREAT_EV = SP_CHANGELING + MAX_FRONT
SP_FIREBLAST = SP_RETREAT_EV + MAX_FRONT
SP_LIGHTNING = SP_FIREBLAST + MAX_MAR
N_SPECIAL = SP_LIGHTNING + 1
ST_TRUE = 0
ST_TEAM = MAX_FRONT * MAX_MAR
ST_RECKLESS = ST_TEAM + MAX_MAR
ST_CHANCE = ST_RECKLESS + MAX_FRONT * MAX_MAR
N_STRIKE = ST_CHANCE + MAX_FRONT * MAX_MAR
MK_STOP = 0
MK_BUY = 1
MK_TRADE = MK_BUY + N_BUFFS
MK_EVENT = MK_TRADE + N_BUFFS  # + 0 Retreat, 1 Reinforce, 2 Changeling, 3 Healing Potion
MK_STAMINA = MK_EVENT + 4
MK_RECRUIT = MK_STAMINA + 1
MK_THIEF = MK_RECRUIT + 1
MK_SWAP = MK_THIEF + 1  # + 3 * c + t: Loot Buff c for the hand's Buff of type t and the same value
N_MARKET = MK_SWAP + 3 * N_BUFFS
MAX_ACTIONS = max(N_STRIKE, N_SPECIAL, N_MARKET, EQ_BASE + MAX_FRONT * N_BUFFS, 1 + N_FIGHTERS)

# turn stages
(T_BEGIN, T_GRAVE, T_PREP_MARCH, T_SUMMON_MARCH, T_MARCH, T_SUMMON_EXPLORE, T_EXPLORE, T_AFTER_CARD,
 T_PREP_EXPLORE) = range(9)
# battle stages
B_ROUND, B_ROUND2, B_SPECIAL, B_PRE_ATTACK, B_STRIKE, B_DEFEND, B_RALLY_WAIT = range(7)
# what a Quest waits for
W_NONE, W_BATTLE, W_TF, W_GRAVE = 0, 1, 2, 3


# --- decks (circular buffers inside the state vector) ------------------------------------

@njit(cache=True, _nrt=False)
def deck_len(s, head):
    return s[head + 1]


@njit(cache=True, _nrt=False)
def deck_push_bottom(s, head, card):
    n = s[head + 1]
    s[head + 2 + (s[head] + n) % DECK] = card
    s[head + 1] = n + 1


@njit(cache=True, _nrt=False)
def deck_push_top(s, head, card):
    h = (s[head] - 1) % DECK
    s[head] = h
    s[head + 2 + h] = card
    s[head + 1] += 1


@njit(cache=True, _nrt=False)
def deck_pop_top(s, head):
    """The top card (-1 when the deck is empty)."""
    if s[head + 1] == 0:
        return -1
    h = s[head]
    card = s[head + 2 + h]
    s[head] = (h + 1) % DECK
    s[head + 1] -= 1
    return card


@njit(cache=True, _nrt=False)
def deck_peek(s, head, i):
    """The i-th card from the top."""
    return s[head + 2 + (s[head] + i) % DECK]


@njit(cache=True)
def deck_linearize(s, head):
    """Rewrite the deck so that its top is at slot 0 (the cards stay in order)."""
    n = s[head + 1]
    tmp = np.empty(n, np.int32)
    for i in range(n):
        tmp[i] = s[head + 2 + (s[head] + i) % DECK]
    s[head] = 0
    for i in range(n):
        s[head + 2 + i] = tmp[i]


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
