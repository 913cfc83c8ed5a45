"""The Valeria engine's state layout, phases, action ids and rule vector (shared by the phase modules).

Seats are numbered in turn order: seat 0 is the first player ("First player chosen at random; play clockwise":
which policy sits in seat 0 is the scenario's choice, so seat advantage is measured by seat). State ``s``
(int32, ``STATE_SIZE``)::

    header  PHASE TO_MOVE OVER ACTIVE ACTS D1 D2 ENDING TURNS ROUNDS WIN_MASK DECISIONS EXH_LEFT EXH_PLACED
            ADJ_USED CURSOR NP CAPPED REST (the Resting Player: the 5-player variant's Rest Token; -1 none)
    GOLD[5] STR[5] MAG[5]          each seat's Resources
    GAINED[5][3] SPENT[5][3]       Resources taken and paid so far (held = gained - spent: the invariant)
    OWN[5][12]                     Citizens owned by kind (10 Citizen roles, then Peasant and Knight)
    STACK[10]                      cards left in each Citizen stack (5 at the start; 6 in the 5-player variant)
    MON_LEFT[5]                    Monsters left in each area (the top one is slayable)
    MON_OWNER[30]                  the seat that slew each Monster, -1 while unslain
    DSTACK[6][4] DN[6]             Domain stacks, bottom first (the top, DSTACK[d][DN[d]-1], is face up; the
                                   rest are face down: hidden from every seat); 3 cards dealt, 4 in the 5-player
                                   variant
    DOM_OWNER[24]                  the seat that built each Domain, -1 while unbuilt
    DEALT[5][2] KEEP[5]            each seat's two dealt Dukes and the one it kept (-1: not chosen yet); hidden
                                   from the other seats
    PEND_STEAL[5] STEAL_AMT[5]     Thief activations waiting for a target, and the Gold each takes
    PEND_ANY[5]                    "any 1 Resource" choices waiting (Herald, 1E consolation, ``any`` powers)
    HERALD[5]                      Herald (or 1E consolation) activations so far
    HARVEST[5]                     Resources taken in Harvest Phases so far (income)
    SCORE[5] TABLEAU[5]            final Victory Points and tableau size (tie-break)
    EXH_STACK[21]                  1 where an Exhausted card lies (Citizen stacks, areas, Domain stacks)
    Monster Event variant (``rules.monster_events``; all 0 when off):
    EV_SEQ[15] EV_LO EV_HI          the Exhausted stack, bottom first: -1 an Exhausted card, else a Monster
                                   Event (face down: hidden from every seat); the cards left are EV_SEQ[LO:HI]
    EV_POS[10] EV_OWNER[10]        each Event: -3 in the box, -2 in the Exhausted stack, -1 taken, else the
                                   Center stack slot it lies face up in; the seat that slew it (-1)
    EV_SLOT[21]                    1 + the Event face up in each Center stack slot (0: none)
    MON_TOK[25][3] EV_TOK[10][3]   Resource tokens on each Monster and each Event (Gold, Strength, Magic)
    TOK_PLACED[3] TOK_CLEARED[3]   tokens placed so far, and returned to the supply (on slaying)
    EV_TODO EV_EFF                 Events still to carry out this Roll Phase (bit mask) and the next effect
                                   of the lowest one
    END_WHY                        the end conditions that held when the end was triggered (bits: 1 all
                                   Monsters slain, 2 all Domains built, 4 the Exhausted stacks; 0: not yet)
"""

from __future__ import annotations

MAX_P = 5
N_KINDS = 12
N_CIT = 10
N_RES = 3
N_ROLES = 4
N_AREAS = 5
MAX_MON = 30
MAX_DSTACK = 6
DOM_DEPTH = 4  # the deepest Domain stack (4 in the 5-player variant, else 3)
MAX_DOM = MAX_DSTACK * DOM_DEPTH
MAX_DUKE = 16
MAX_SUB = 12  # Magic standing in for Strength: 0 .. 11
GOLD_, STRENGTH_, MAGIC_ = 0, 1, 2

(PHASE, TO_MOVE, OVER, ACTIVE, ACTS, D1, D2, ENDING, TURNS, ROUNDS, WIN_MASK, DECISIONS, EXH_LEFT, EXH_PLACED,
 ADJ_USED, CURSOR, NP, CAPPED, REST) = range(19)
HEADER = 19
GOLD = HEADER
STR = GOLD + MAX_P
MAG = STR + MAX_P
GAINED = MAG + MAX_P
SPENT = GAINED + MAX_P * N_RES
OWN = SPENT + MAX_P * N_RES
STACK = OWN + MAX_P * N_KINDS
MON_LEFT = STACK + N_CIT
MON_OWNER = MON_LEFT + N_AREAS
DSTACK = MON_OWNER + MAX_MON
DN = DSTACK + MAX_DSTACK * DOM_DEPTH
DOM_OWNER = DN + MAX_DSTACK
DEALT = DOM_OWNER + MAX_DOM
KEEP = DEALT + MAX_P * 2
PEND_STEAL = KEEP + MAX_P
STEAL_AMT = PEND_STEAL + MAX_P
PEND_ANY = STEAL_AMT + MAX_P
HERALD = PEND_ANY + MAX_P
HARVEST = HERALD + MAX_P
SCORE = HARVEST + MAX_P
TABLEAU = SCORE + MAX_P
EXH_STACK = TABLEAU + MAX_P
EXH_CIT, EXH_AREA, EXH_DOM = 0, N_CIT, N_CIT + N_AREAS
N_SLOTS = N_CIT + N_AREAS + MAX_DSTACK
MAX_EV = 10
MAX_SEQ = 3 * MAX_P
EV_SEQ = EXH_STACK + N_SLOTS
EV_LO = EV_SEQ + MAX_SEQ
EV_HI = EV_LO + 1
EV_POS = EV_HI + 1
EV_OWNER = EV_POS + MAX_EV
EV_SLOT = EV_OWNER + MAX_EV
MON_TOK = EV_SLOT + N_SLOTS
EV_TOK = MON_TOK + MAX_MON * N_RES
TOK_PLACED = EV_TOK + MAX_EV * N_RES
TOK_CLEARED = TOK_PLACED + N_RES
EV_TODO = TOK_CLEARED + N_RES
EV_EFF = EV_TODO + 1
END_WHY = EV_EFF + 1
STATE_SIZE = END_WHY + 1
WHY_MONSTERS, WHY_DOMAINS, WHY_EXHAUSTED = 1, 2, 4
EV_BOX, EV_STACKED, EV_TAKEN = -3, -2, -1

# phases: whose decision is pending
P_DUKE, P_ADJUST, P_THIEF, P_ANY, P_ACTION, P_OVER, P_EVENT = range(7)
PHASE_NAMES = ("duke", "adjust", "thief", "any", "action", "over", "event")

# actions
A_SLAY = 0                               # + area * MAX_SUB + Magic standing in for Strength
A_RECRUIT = A_SLAY + N_AREAS * MAX_SUB   # + Citizen kind (0..9)
A_GAIN = A_RECRUIT + N_CIT               # + Resource
A_BUILD = A_GAIN + N_RES                 # + Domain stack
A_TARGET = A_BUILD + MAX_DSTACK          # + seat robbed by the Thief
A_ANY = A_TARGET + MAX_P                 # + Resource taken (Herald, consolation, any)
A_KEEP = A_ANY + N_RES                   # + 0/1: which dealt Duke to keep
A_ADJ = A_KEEP + 2                       # + Domain * 4 + die * 2 + (0: -1, 1: +1)
A_ADJ_DONE = A_ADJ + MAX_DOM * 4         # roll as it stands
A_SLAY_EV = A_ADJ_DONE + 1              # + Event * MAX_SUB + Magic standing in for Strength
A_PLACE = A_SLAY_EV + MAX_EV * MAX_SUB   # + target: a Monster area's top card (0..4) or N_AREAS + Event
MAX_ACTIONS = A_PLACE + N_AREAS + MAX_EV

# rule vector (int64)
(R_PLAYERS, R_HERALD, R_DOUBLES, R_TURN_CAP, R_START_GOLD, R_START_MAGIC, R_N_DOM, R_N_DUKE, R_N_MON, R_MAGIC_GOLD,
 R_EVENTS, R_PRESELECT, R_N_EV, R_IF_ABLE, R_ALL_SLAIN, R_TOKEN_ON, R_FIVE) = range(17)
N_RULES = 17
CONSOLATION_1E, HERALD_2E = 0, 1
DOUBLES_TWICE, DOUBLES_ONCE = 0, 1
IF_ABLE_HELD, IF_ABLE_IN_FULL = 0, 1          # rules.if_able: "what_it_holds" (default), "in_full"
ALL_SLAIN_AREAS, ALL_SLAIN_EVENTS = 0, 1      # rules.all_slain: "areas" (default), "and_events"
TOKEN_ON_ANY, TOKEN_ON_OTHER = 0, 1           # rules.token_on: "any" (default), "other"
FIVE_BASE, FIVE_VARIANT = 0, 1                # rules.five_player: "base", "variant" (default; at 5 players only)
STACK_COPIES, STACK_COPIES_FIVE = 5, 6        # cards per Citizen stack; in the 5-player variant
DOM_STACK, DOM_STACK_FIVE = 3, 4              # cards per Domain stack (the top face up); in the 5-player variant
