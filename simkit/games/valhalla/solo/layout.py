"""Valhalla Solo state as one flat int32 vector per game, the action encoding, and the card tables.

State vector ``s`` (the game's chance stream ``rng``, uint64[4], is kept beside it)::

    SHIELDS GLORY MON DONE CAUSE TURNS STEPS                     scalars (MON: active monster card, 0 = top)
    ATT_WON ATT_LOST DEF_WON DEF_LOST MON_ATTACKS MISSIONS        counters for the results
    EXHAUSTED                 1 once a draw or discard took the deck's last card
    WGLORY                    the Glory of the Warriors in Valhalla (what the monster card's limit caps; GLORY
                              adds Missions and a Jarl's starting Glory, which the limit does not count)
    FINAL                     the final attack of the empty deck: 0 none, 1 won, 2 lost
    PHASE                     the pending decision (PH_*), or an internal step (ST_*) while the engine resolves
                              forced steps; PH_OVER once the game has ended
    -- decision context --
    EX_I EX_MASK              set-up exchange: the hand card being decided, and the bitmask of those put aside
    PAIR_FIRST                Phase A "play two": the hand index of the first Warrior chosen
    KEEP_CTX DRAWN_N DRAWN[MAX_DRAWN]   draw-keep: 0 after a Phase A draw, 1 in Phase B; the cards drawn
    -- the battle in progress --
    B_ATTACK B_CTX            1 when the player attacks; where play resumes (CTX_PHASE_A, CTX_MONSTER, CTX_FINAL)
    B_SILENCED B_BASIC_USED   a Silence played; a basic reroll used (the Mission "no basic rerolls")
    B_FREE                    free rerolls left (Jarl, clan powers, Battle Tactics already played)
    B_CLAN_GIVEN B_ICE_DONE   free rerolls already given by activated clan-reroll Warriors; the Ice Giant's extra
                              die already rolled
    B_NEEDED                  the strength that wins (attack: the monster's; defence: one more)
    B_ACT B_TOTAL B_PATH      after the commit: activated team indices (bitmask), the player's total strength,
                              the team index of the Path to Valhalla Warrior (-1 none)
    B_MARGIN B_NACT           total minus the monster's strength, and the number of activated Warriors (for
                              the Missions "strength 5 higher" and "three activated")
    ND DICE[MAX_DICE]         the dice pool, one entry per die (symbol; S = the wild face), sorted by symbol
    DELIV[MAX_SYM + 1]        Weapon Delivery cards played, per symbol: they count as dice for activation but are
                              never rerolled or discarded
    CAND_N CAND[MAX_CAND]     the strength / "smaller team" Battle Tactics in hand this battle (card ids, hand
                              order; the commit decision chooses a subset of them)
    IP_N IP[MAX_INPLAY]       Battle Tactics played this battle (to the discard pile after it)
    -- piles --
    DECK_N DECK[MAX_CARDS]    draw pile; the top card is DECK[DECK_N - 1]
    DISC_N DISC[MAX_CARDS]    discard pile in order; the top card is DISC[DISC_N - 1]
    HAND_N HAND[MAX_HAND]     cards in hand
    TEAM_N TEAM[4]            Warriors in the team
    VAL_N VAL[MAX_CARDS]      cards in Valhalla (their Glory is GLORY)
    COVER[MAX_SYM]            monster dice on the active card, per weapon symbol
    EMPTY_PHASES[MAX_MON], EMPTY_ATTACKS[MAX_MON]   monster phases that began with no dice on card k, and
                              how many of them ended in the monster's attack (checked against the exact odds)

Actions (``legal_actions`` lists them in this order; ids are < MAX_ACTIONS)::

    PH_EXCHANGE  A_NO keep hand card EX_I, A_YES put it aside (decided card by card; then the exchange)
    PH_A         A_PLAY + h   play Warrior h;  A_PAIR + h  play two Warriors, h first (then PH_PAIR2);
                 A_DRAW  draw 2, keep 1;  A_ATTACK
    PH_PAIR2     A_PLAY + h   the second Warrior of the pair
    PH_KEEP      A_KEEP + i   keep drawn card i (the others go to the discard pile)
    PH_SILENCE   A_NO / A_YES play a Silence Battle Tactic before the roll (attacks on a monster with a power)
    PH_ROLL      A_STOP       roll no more: go to the commit
                 A_DELIVER + h  play the Weapon Delivery card at hand index h
                 A_FREE + m   a free reroll of the dice in bitmask m (a Battle Tactic reroll card is played when
                              no free reroll is left)
                 A_BASIC + m  a basic reroll: one die of m is discarded, the rest of m rerolled ("discard 1 die
                              from their pool of dice to reroll any of the remaining dice"); |m| >= 2
                 masks are canonical: within a run of equal symbols (DICE is sorted) the last dice are rerolled
    PH_COMMIT    A_COMMIT + m the subset m of CAND to play (all of them must be activated); the Warriors are then
                 the best activation with them (most strength; automatic book-keeping)
    PH_PATH      A_NO, A_PATH + i   Path to Valhalla ("own" reading) on activated team Warrior i
    PH_SEND1     A_SEND + i, A_NO   after a lost battle, send activated team Warrior i to Valhalla (or none, last)
    PH_GROUP     A_GROUP + m  after a won defence, send the activated team Warriors in bitmask m (largest m first;
                              0 = none, last)

Card tables (built from ``deck.toml`` and ``cards.toml``); ``env`` is
``(cards, need, p_act, mon, mweap, mwild, clan_ability, jarl_row, faces, rules, roll)`` (``roll``: the
tables and scratch of the exact rolls, ``battle_roll.new_roll``):

    cards  int32[N, C_*]   one row per physical card (columns below)
    need   int32[N, S]     specific weapon symbols a card needs
    p_act  float64[N]      P(6 dice activate that Warrior on its own): the policies' estimate
    mon    int32[K, M_*]   the chosen monster's cards on the chosen side, top first
    mweap  int32[K, S]     weapons that trigger each monster card's attack
    mwild  int32[K, S]     the order in which ⊗ dice cover uncovered weapons (rule option wild_monster)
    clan_ability int32[C], jarl_row int64[2] (ability, value), faces int32[6] (symbol; S = wild)
    rules  int64[N_RULES]  rule options (R_* in engine.py)
"""

from __future__ import annotations

MAX_CARDS = 176
MAX_HAND = 60
MAX_TEAM = 4
MAX_SYM = 8
MAX_MON = 12
MAX_DRAWN = 8
MAX_DICE = 10
MAX_CAND = 6
MAX_INPLAY = 64

(SHIELDS, GLORY, MON, DONE, CAUSE, TURNS, STEPS, ATT_WON, ATT_LOST, DEF_WON, DEF_LOST, MON_ATTACKS,
 MISSIONS, EXHAUSTED, WGLORY, FINAL, PHASE, EX_I, EX_MASK, PAIR_FIRST, KEEP_CTX,
 B_ATTACK, B_CTX, B_SILENCED, B_BASIC_USED, B_FREE, B_CLAN_GIVEN, B_ICE_DONE, B_NEEDED, B_ACT, B_TOTAL,
 B_PATH, B_MARGIN, B_NACT) = range(34)
DRAWN_N = 34
DRAWN = DRAWN_N + 1
ND = DRAWN + MAX_DRAWN
DICE = ND + 1
DELIV = DICE + MAX_DICE
CAND_N = DELIV + MAX_SYM + 1
CAND = CAND_N + 1
IP_N = CAND + MAX_CAND
IP = IP_N + 1
DECK_N = IP + MAX_INPLAY
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

# decisions (PHASE)
(PH_OVER, PH_EXCHANGE, PH_A, PH_PAIR2, PH_KEEP, PH_SILENCE, PH_ROLL, PH_COMMIT, PH_PATH, PH_SEND1,
 PH_GROUP) = range(11)
PHASE_NAMES = ("over", "exchange", "phase_a", "pair2", "keep", "silence", "roll", "commit", "path", "send1",
               "group")
# internal steps (forced, resolved inside apply_action)
ST_TURN, ST_AFTER_A, ST_PHASE_B, ST_AFTER_B, ST_MONSTER, ST_FINAL, ST_ROLL, ST_ROLLED, ST_COMMITTED, \
    ST_AFTER_MONSTER = range(20, 30)
# where play resumes after a battle (CTX_HALT: nowhere — PHASE becomes PH_OVER with DONE 0; for scripted positions)
CTX_PHASE_A, CTX_MONSTER, CTX_FINAL, CTX_HALT = range(4)

# actions
A_PLAY = 0
A_PAIR = 64
A_DRAW = 128
A_ATTACK = 129
A_NO = 130
A_YES = 131
A_STOP = 132
A_KEEP = 136
A_DELIVER = 144
A_SEND = 208
A_PATH = 212
A_GROUP = 216
A_COMMIT = 232
A_FREE = 512
A_BASIC = A_FREE + (1 << MAX_DICE)
MAX_ACTIONS = A_BASIC + (1 << MAX_DICE)

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
