"""The flat state vector of one VÁLKA multiplayer game (int32), and the action ids.

Cards are numbered 0..85: Fighters 0..41, Buffs 42..63, Events 64..85 in the
order of ``scenarios/valka/cards.toml``. A *hand code* names a card up to what
matters for play: a Fighter by itself (0..41), a Buff by type and value
(42 + 3 * type + value - 1), an Event by kind (51 + kind); identical Buffs or
Events are interchangeable.

Header (``H_*``), then 5 seat blocks (``SEAT + seat * SEAT_SIZE``), then the
piles (three draw piles: the shared one and, in a Duel, one per player; the
Graveyard; the Duel market) and the queue of pending decisions.

A Battle Line slot (8 per seat: Frontline 0..3, Backline 4..7) holds
``card, face, damage, buff[3] (strike, shield, health card or -1), attacked``.
"""

from __future__ import annotations

N_CARDS = 86
N_FIGHTERS, N_BUFFS, N_EVENTS = 42, 22, 22
BUFF0, EVENT0 = 42, 64
N_HC = 61  # hand codes
HC_BUFF, HC_EVENT = 42, 51
MAX_SEATS = 5
N_WARBANDS = 8
JOKER = 8

# header
(H_OVER, H_PHASE, H_ACTIVE, H_TOMOVE, H_NP, H_TURN, H_FIRST, H_TRIGGER, H_WINMASK, H_STALLED, H_SUB, H_COUNT,
 H_RET, H_QN, H_PLAYS, H_DRAFTED, H_ROUNDS, H_TRAPS_SPRUNG, H_EVENTS_PLAYED, H_FALLING, H_AT_ONCE, H_BEGUN) = range(22)
# H_FALLING: bit set of the seats whose Backline moved up holding only Traps: those resolve, then the seat is out
# H_AT_ONCE: 1 while simultaneous damage is dealt (a double 1): eliminations wait before the game can end
# H_TURN: player turns completed (the turn cap counts these); H_BEGUN: player turns begun, the one in which the
# game ends included, 0 during the set-up (every mode's `turns`, and a seat's elimination stamp S_ELIM_TURN)
HEADER = 24

# phases
PH_DRAFT, PH_MULL, PH_SETUP, PH_EQUIP, PH_MAIN, PH_PUSH, PH_PEND, PH_END = range(8)

# seat block
(S_ELIM, S_ELIM_TURN, S_INFAMY, S_CAPN, S_HANDN, S_TURNS) = range(6)
S_BOON = 6            # 8 Warbands: 0 inactive, 2 Deadly Dyad, 3 Horrible Horde
S_OPEN = 14           # 3 words: bit c of the opening hand (after the mulligan)
S_PLAYED = 17         # 3 words: bit c: the seat played card c (to its Battle Lines or as an Event)
S_LINE = 20
SLOT_SIZE = 7
(L_CARD, L_FACE, L_DMG, L_BSTR, L_BSHD, L_BHP, L_ATK) = range(7)
N_SLOTS = 8
S_HAND = S_LINE + N_SLOTS * SLOT_SIZE     # 76
MAX_HAND = N_CARDS
S_CAP = S_HAND + MAX_HAND                 # 162
MAX_CAP = N_FIGHTERS
SEAT_SIZE = S_CAP + MAX_CAP               # 204
SEAT = HEADER

# piles
DECKS = SEAT + MAX_SEATS * SEAT_SIZE      # 3 decks: [n, cards[86]] each; the top card is the last
DECK_SIZE = 1 + N_CARDS
GRAVE = DECKS + 3 * DECK_SIZE             # [n, cards[86]]
MARKET = GRAVE + 1 + N_CARDS              # [n, cards[10]]
MARKET_SIZE = 10
QUEUE = MARKET + 1 + MARKET_SIZE          # items of Q_ITEM ints: type, seat, x0..x4
Q_ITEM = 7
Q_MAX = 48
STATE_SIZE = QUEUE + Q_MAX * Q_ITEM

# queue item types
Q_TRAP, Q_WARP, Q_ROAR, Q_STORM, Q_GUARD, Q_CHANGE = range(6)
# guard kinds (Divine Aid windows): x0 of a Q_GUARD item
G_DAMAGE, G_FEAR, G_CHANGE, G_THIEF, G_FIREBLAST, G_STEAL, G_LAND, G_LIGHTNING, G_BLAST, G_BLAST_LAND, G_BOLT = range(11)
# G_BLAST: a landed Fireblast's damage (target and neighbours); G_BLAST_LAND: the caster's failed Fireblast roll;
# G_BOLT: a Lightning Bolt arriving at a Frontline (x1 damage left, x2 Frontlines visited, x3 caster, x4 idle count)

# actions
A_DONE = 0
B_DISCARD = 1          # + hand code: discard (mulligan, Push Your Luck) / choose a hand Fighter (Changeling)
B_FRONT = B_DISCARD + N_HC        # 62  + fighter: set-up, face down into the Frontline
B_BACK_UP = B_FRONT + N_FIGHTERS  # 104 + fighter: face up into the Backline
B_BACK_DOWN = B_BACK_UP + N_FIGHTERS  # 146 + fighter: face down into the Backline
B_TRAP = B_BACK_DOWN + N_FIGHTERS     # 188 + event kind: an Event face down into the Backline
B_EQUIP = B_TRAP + 10                 # 198 + buff kind * 8 + slot
B_FLIP = B_EQUIP + 9 * N_SLOTS        # 270 + backline slot (0..3)
B_RETURN = B_FLIP + 4                 # 274 + backline slot: card and Buffs back to hand
B_UNEQUIP = B_RETURN + 4              # 278 + backline slot * 3 + buff type
B_EVENT = B_UNEQUIP + 12              # 290 + kind * 40 + seat * 8 + slot
B_GRAVE = B_EVENT + 400               # 690 + fighter: Grave Robber takes it from the Graveyard
B_ATTACK = B_GRAVE + N_FIGHTERS       # 732 + ((slot * 5 + seat) * 4 + target slot) * 4 + strike type
B_CHOICE = B_ATTACK + 320             # 1052: Divine Aid; 1053: Weird Warp draw; 1054 + seat: steal from seat
B_TARGET = B_CHOICE + 8               # 1060 + seat * 4 + slot: Monstrous Roar / Magic Storm target
B_MARKET = B_TARGET + 20              # 1080 + market index: Duel draft pick
MAX_ACTIONS = B_MARKET + MARKET_SIZE  # 1090

ST_TRUE, ST_CHANCE, ST_RECKLESS, ST_TEAM = range(4)
STRIKE_NAMES = ("true", "chance", "reckless", "team")

# Event kinds (cards.EVENT_KINDS order) and Warbands (cards.WARBANDS order)
EV_FEAR, EV_POTION, EV_RETREAT, EV_REINFORCE, EV_CHANGELING, EV_DIVINE_AID, EV_FIREBLAST, EV_LIGHTNING, \
    EV_THIEF, EV_GRAVE_ROBBER = range(10)
WB_BARBARIANS, WB_BROTHERHOOD, WB_GOBLINS, WB_KNIGHTS, WB_MONSTERS, WB_REPTILIOS, WB_TREE_BEASTS, WB_WIZARDS = range(8)

# rule vector (int64)
(R_MODE, R_NP, R_TRIGGER, R_CAPTURE_COUNT, R_TURN_CAP, R_LONE_ONE_LOSES, R_DEF_DAMAGE, R_CHANCE_ANY, R_THIEF_HAND,
 R_LIGHTNING_LAPS, R_DIVINE_AID, R_BOONS, R_PLAY_CAP, R_RESHUFFLE, R_JOKERS_ALONE, R_BOON_TOGETHER,
 R_DUEL_DECK, R_FIREBLAST_POWER, R_LIGHTNING_AID_PASSES) = range(19)
N_RULES = 19
MODE_BOUNTY, MODE_ANNIHILATION, MODE_DUEL = 0, 1, 2
MODE_NAMES = ("bounty_hunter", "annihilation", "duel")
