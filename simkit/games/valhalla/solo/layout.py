"""Valhalla Solo state as one flat int32 vector per game, and the card tables.

State vector ``s``::

    SHIELDS GLORY MON DONE CAUSE TURNS STEPS                     scalars (MON: active monster card, 0 = top)
    ATT_WON ATT_LOST DEF_WON DEF_LOST MON_ATTACKS MISSIONS        counters for the results
    EXHAUSTED                 1 once a draw or discard took the deck's last card
    WGLORY                    the Glory of the Warriors in Valhalla (what the monster card's limit caps; GLORY
                              adds Missions and a Jarl's starting Glory, which the limit does not count)
    DECK_N DECK[MAX_CARDS]    draw pile; the top card is DECK[DECK_N - 1]
    DISC_N DISC[MAX_CARDS]    discard pile in order; the top card is DISC[DISC_N - 1]
    HAND_N HAND[MAX_HAND]     cards in hand
    TEAM_N TEAM[4]            Warriors in the team
    VAL_N VAL[MAX_CARDS]      cards in Valhalla (their Glory is GLORY)
    COVER[MAX_SYM]            monster dice on the active card, per weapon symbol
    EMPTY_PHASES[MAX_MON], EMPTY_ATTACKS[MAX_MON]   monster phases that began with no dice on card k, and
                              how many of them ended in the monster's attack (checked against the exact odds)

Card tables (built from ``deck.toml`` and ``cards.toml``):

    cards  int32[N, C_*]   one row per physical card (columns below)
    need   int32[N, S]     specific weapon symbols a Warrior needs
    p_act  float64[N]      P(6 dice activate that Warrior on its own): the policies' estimate
    mon    int32[K, M_*]   the chosen monster's cards on the chosen side, top first
    mweap  int32[K, S]     weapons that trigger each monster card's attack
    clan_ability int32[C], jarl int32[J, 2] (ability, value), faces int32[6] (symbol; S = wild)
"""

from __future__ import annotations

MAX_CARDS = 176
MAX_HAND = 60
MAX_TEAM = 4
MAX_SYM = 8
MAX_MON = 12

(SHIELDS, GLORY, MON, DONE, CAUSE, TURNS, STEPS, ATT_WON, ATT_LOST, DEF_WON, DEF_LOST, MON_ATTACKS,
 MISSIONS, EXHAUSTED, WGLORY) = range(15)
DECK_N = 15
DECK = DECK_N + 1
DISC_N = DECK + MAX_CARDS
DISC = DISC_N + 1
HAND_N = DISC + MAX_CARDS
HAND = HAND_N + 1
TEAM_N = HAND + MAX_HAND
TEAM = TEAM_N + 1
VAL_N = TEAM + MAX_TEAM
VAL = VAL_N + 1
COVER = VAL + MAX_CARDS
EMPTY_PHASES = COVER + MAX_SYM
EMPTY_ATTACKS = EMPTY_PHASES + MAX_MON
STATE_SIZE = EMPTY_ATTACKS + MAX_MON

CAUSE_NONE, CAUSE_SHIELDS, CAUSE_DECK, CAUSE_CAP = 0, 1, 2, 3
CAUSES = ("none", "shields", "deck", "cap")

# card table columns
(C_TYPE, C_CLAN, C_STR, C_GLORY, C_SPECIAL, C_ANY, C_DISTINCT, C_BLESS, C_BLESS_CLAN, C_EFFECT, C_VALUE,
 C_SYMBOL, C_REQ, C_EXP) = range(14)
N_CCOLS = 14
WARRIOR, TACTIC, MISSION = 0, 1, 2
# tactic effects
T_STRENGTH, T_REROLL, T_SMALLER, T_DELIVERY, T_PATH, T_SILENCE = range(6)
# mission requirements
Q_NO_BASIC_REROLLS, Q_STRENGTH_5, Q_THREE_ACTIVATED = range(3)
# clan abilities
A_NONE, A_BOAR, A_ICE_GIANT, A_REROLL, A_PACK = range(5)
# Jarl abilities
J_NONE, J_ATTACK, J_DEFENCE, J_REROLL, J_EXTRA_DIE, J_GLORY, J_DRAW, J_SHIELD = range(8)
# monster card columns and powers
M_STRENGTH, M_MAX_GLORY, M_CLANS, M_WSYM, M_POWER, M_PVAL = range(6)
N_MCOLS = 6
P_NONE, P_DEFENCE, P_ATTACK, P_EXTRA_DIE, P_NO_REROLL, P_DISCARD = range(6)
