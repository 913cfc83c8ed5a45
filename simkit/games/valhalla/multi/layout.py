"""Valhalla multiplayer state as one flat int32 vector per game, the action encoding and the rule vector.

State vector ``s`` (the chance stream ``rng``, uint64[4], is kept beside it)::

    NP CUR TURNS STEPS DONE CAUSE WIN_MASK PHASE MOVER EXHAUSTED   scalars: players, whose turn, turns begun, steps,
                              ended, how (CAUSE_*), the winners (bitmask of seats), the pending decision (PH_*) or an
                              internal step (ST_*), whose decision it is, 1 once a draw took the deck's last card
    PAIR_FIRST KEEP_CTX SETUP_I    Part A "play two": the first hand index; draw-keep context (KEEP_A, KEEP_B);
                              the seat deciding in the set-up (Jarl, draft and discard rounds)
    BATTLES ATT_WINS          battles fought and won by the attacker (results)
    -- the battle in progress (side 0: the attacker, side 1: the defender) --
    B_ATT B_DEF B_SIDE        the attacker's and defender's seats; whose dice are out now
    B_FREE B_CLAN_GIVEN B_ICE_DONE   free rerolls left, clan rerolls given, the Ice Giant's extra die given (this side)
    B_SILENCED                a Silence played by the attacker: the defender's Jarl power is off this battle
    B_PATH                    the attacker's team index chosen for Path to Valhalla (-1 none); B_PATHED: played
    B_BASIC[2] B_ACT[2] B_TOT[2] B_NACT[2]   per side: a basic reroll used, activated team indices (bitmask),
                              total strength, activated Warriors
    ND DICE[MAX_DICE]         the dice of the side rolling (sorted by symbol; S = the wild face)
    DELIV[MAX_SYM + 1]        Weapon Delivery cards played this side, per symbol
    CAND_N CAND[MAX_CAND]     strength / "smaller team" Battle Tactics in the side's hand (the commit chooses)
    IP_N IP[MAX_INPLAY]       Battle Tactics played this battle (to the discard pile after it)
    DRAWN_N DRAWN[MAX_DRAWN]  cards drawn to keep one (or the set-up draft's revealed Warriors)
    JOFFER[MAX_P * 3]         the 3 Jarls offered to each seat at set-up (-1 once chosen)
    DECK_N DECK[MAX_CARDS]    draw pile, top = last;  DISC_N DISC[MAX_CARDS]  discard pile, top = last
    per seat p, at P0 + p * PSTRIDE:
      P_JARL P_SHIELDS P_TAKEN P_GLORY P_MISSIONS P_VGLORY P_WON   Jarl row (-1 before the choice), own shields left,
                              shields taken from others, Glory (Valhalla + Missions + 2 a taken shield + the Jarl's),
                              Missions completed, the Warriors' Glory in Valhalla, battles won
      P_HAND_N HAND[MAX_HAND], P_TEAM_N TEAM[MAX_TEAM], P_VAL_N VAL[MAX_CARDS]   hand (hidden), Warband, Valhalla
    per seat p, at K0 + p * KSTRIDE (records for the rows; play never reads them):
      K_BLESS[3]                Valkyrie blessings scored (a bonus above 0): +1 companions, +2 Clan, +3 alone
      K_BLESS_GLORY             the Glory those blessings drew from the discard pile
      K_MISSION[3]              Missions completed, by requirement (no basic rerolls, strength 5 higher, three
                              activated Warriors)
      K_TACTIC[N_TACTICS]       Battle Tactics played, by effect (``solo.layout`` T_*: strength, reroll, smaller
                              team, Weapon Delivery, Path to Valhalla, Silence)
    -- the end of a battle (``fight.battle_end``) --
    B_END B_WON_SIDE          the step reached (END_*) and the winning side (0 the attacker, 1 the defender)
    BLESS_SEAT BLESS_N BLESS[MAX_TEAM]   the seat whose Valkyrie blessings are still to be drawn from the discard
                              pile and their bonuses, first to draw first

Actions (ids < MAX_ACTIONS; ``legal_actions`` lists them in this order)::

    PH_JARL     A_JARL + i      keep offered Jarl i
    PH_DRAFT    A_KEEP + i      take revealed Warrior i into the Warband (the last seat first)
    PH_DISCARD2 A_DISC2 + 8a + b   discard hand cards a < b of the 7 drawn
    PH_A        A_PLAY + h, A_PAIR + h (then PH_PAIR2: A_PLAY + h), A_DRAW, A_ATTACK + t (seat t)
    PH_KEEP     A_KEEP + i      keep drawn card i
    PH_SILENCE  A_NO / A_YES    the attacker plays a Silence before the roll
    PH_PATH     A_NO / A_YES    the defender plays Path to Valhalla before its roll
    PH_PATHPICK A_PATH + i      the attacker chooses its activated Warrior i
    PH_ROLL     A_STOP, A_DELIVER + h, A_FREE + m, A_BASIC + m   (as in the solo engine)
    PH_COMMIT   A_COMMIT + m    the candidate Tactics of bitmask m
    PH_BLESS    A_BLESS + k     take the k-th set of discard-pile Warriors for a blessing (``glory.blessing_choice``)
    PH_MISSION  A_MISSION + h, A_NO   the winner completes the Mission at hand index h, or none
"""

from __future__ import annotations

MAX_P = 6
MAX_CARDS = 176
MAX_HAND = 40
MAX_TEAM = 4
MAX_SYM = 8
MAX_DRAWN = 8
MAX_DICE = 10
MAX_CAND = 6
MAX_INPLAY = 64

(NP, CUR, TURNS, STEPS, DONE, CAUSE, WIN_MASK, PHASE, MOVER, EXHAUSTED, PAIR_FIRST, KEEP_CTX, SETUP_I, BATTLES,
 ATT_WINS, B_ATT, B_DEF, B_SIDE, B_FREE, B_CLAN_GIVEN, B_ICE_DONE, B_SILENCED, B_PATH, B_PATHED) = range(24)
B_BASIC = 24
B_ACT = B_BASIC + 2
B_TOT = B_ACT + 2
B_NACT = B_TOT + 2
ND = B_NACT + 2
DICE = ND + 1
DELIV = DICE + MAX_DICE
CAND_N = DELIV + MAX_SYM + 1
CAND = CAND_N + 1
IP_N = CAND + MAX_CAND
IP = IP_N + 1
DRAWN_N = IP + MAX_INPLAY
DRAWN = DRAWN_N + 1
JOFFER = DRAWN + MAX_DRAWN
DECK_N = JOFFER + 3 * MAX_P
DECK = DECK_N + 1
DISC_N = DECK + MAX_CARDS
DISC = DISC_N + 1
P0 = DISC + MAX_CARDS
(P_JARL, P_SHIELDS, P_TAKEN, P_GLORY, P_MISSIONS, P_VGLORY, P_WON) = range(7)
P_HAND_N = 7
P_TEAM_N = P_HAND_N + 1 + MAX_HAND
P_VAL_N = P_TEAM_N + 1 + MAX_TEAM
PSTRIDE = P_VAL_N + 1 + MAX_CARDS
N_TACTICS = 6  # the Tactic effects T_STRENGTH .. T_SILENCE of ``solo.layout``
K0 = P0 + MAX_P * PSTRIDE
K_BLESS = 0
K_BLESS_GLORY = K_BLESS + 3
K_MISSION = K_BLESS_GLORY + 1
K_TACTIC = K_MISSION + 3
KSTRIDE = K_TACTIC + N_TACTICS
B_END = K0 + MAX_P * KSTRIDE
B_WON_SIDE = B_END + 1
BLESS_SEAT = B_WON_SIDE + 1
BLESS_N = BLESS_SEAT + 1
BLESS = BLESS_N + 1
STATE_SIZE = BLESS + MAX_TEAM
END_PATH, END_GROUP, END_MISSION, END_DONE = range(4)

CAUSE_NONE, CAUSE_SHIELDS, CAUSE_DECK, CAUSE_CAP = 0, 1, 2, 3
CAUSES = ("none", "shields", "deck", "cap")
KEEP_A, KEEP_B = 0, 1

# decisions (PHASE)
(PH_OVER, PH_JARL, PH_DRAFT, PH_DISCARD2, PH_A, PH_PAIR2, PH_KEEP, PH_SILENCE, PH_PATH, PH_PATHPICK, PH_ROLL,
 PH_COMMIT, PH_BLESS, PH_MISSION) = range(14)
PHASE_NAMES = ("over", "jarl", "draft", "discard2", "part_a", "pair2", "keep", "silence", "path", "path_pick",
               "roll", "commit", "bless", "mission")
# internal steps
(ST_DRAFT, ST_DEAL, ST_TURN, ST_AFTER_A, ST_PART_B, ST_END_TURN, ST_SIDE, ST_ROLL, ST_ROLLED, ST_RESOLVE,
 ST_BATTLE_END) = range(20, 31)

# actions
A_PLAY = 0
A_PAIR = 40
A_DRAW = 80
A_ATTACK = 81
A_NO = 88
A_YES = 89
A_STOP = 90
A_KEEP = 96
A_JARL = 104
A_DISC2 = 112
A_DELIVER = 176
A_PATH = 216
A_COMMIT = 224
A_BLESS = 288
MAX_BLESS_CHOICES = 8  # (at most 3 are ever offered: a bonus of 3 as 3, 2 + 1 or 1 + 1 + 1)
A_MISSION = A_BLESS + MAX_BLESS_CHOICES
A_FREE = 512
A_BASIC = A_FREE + (1 << MAX_DICE)
MAX_ACTIONS = A_BASIC + (1 << MAX_DICE)

# rule vector (int64, the last entry of env)
(R_PLAYERS, R_VALK, R_WILD_WARRIORS, R_TIES_ATTACKER, R_BOAR_OPP, R_START_DISCARD, R_HAND, R_HAND_DISCARD,
 R_SHIELDS, R_DICE, R_TURN_CAP, R_PART_B, R_DRAW_A, R_END_ROUND, R_SHIELDS_HELD, R_ATTACK_EMPTY) = range(16)
N_RULES = 16

# env = (cards, need, p_act, jarls, clan_ability, faces, rules); cards columns as the solo layout
E_CARDS, E_NEED, E_PACT, E_JARLS, E_CLAN, E_FACES, E_RULES = range(7)


def pbase(p: int) -> int:
    """The start of seat ``p``'s block."""
    return P0 + p * PSTRIDE


def kbase(p: int) -> int:
    """The start of seat ``p``'s records."""
    return K0 + p * KSTRIDE
