"""Valhalla Solo Mode rules as a decision-point state machine (``simkit.core.decision``).

The state ``s`` (int32, see ``layout``) records which decision is pending
(``PHASE``) and everything a battle in progress needs; ``rng`` (uint64[4]) is
the game's chance stream (dice, and the reshuffle after the set-up exchange);
``env`` is ``(cards, need, p_act, mon, mweap, mwild, clan_ability, jarl_row,
faces, rules, roll)`` (``roll``: a policy's scratch, ``battle_roll.new_roll``).
The deck is shuffled at set-up from a separate shuffler stream, so every
difficulty level, Jarl and policy starts from the same deck order (common
random numbers).

Interface functions (exact signatures of ``simkit.core.decision``):
``legal_actions``, ``apply_action``, ``is_over``, ``to_move``, ``reward``,
``resample``; the policies (``policy``) live in ``policies.py``.

Rule sentences are quoted from valhalla-solo.txt and valhalla-valkyries.txt.
Where the solo text builds on the base game (Phase A, battles, rerolls) the
model of the issue is used and listed in docs/rules.md.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simkit.core.decision import reseed, reshuffle_unseen, stack_empty
from simkit.core.rng import randbelow, shuffle
from simkit.games.valhalla import battle as B
from simkit.games.valhalla import dice as D
from simkit.games.valhalla import glory as G
from simkit.games.valhalla.dice import fit, pc, ptotal, roll_die, unit  # noqa: F401  (the family's dice code)
from simkit.games.valhalla.solo import layout as L

# rule options (int64 vector, the last entry of env)
(R_DISCARD, R_PLUS40, R_WILD_WARRIORS, R_WILD_MONSTER, R_POWERS, R_PATH_OWN, R_TURN_CAP, R_DICE,
 R_START_DISCARD, R_HAND, R_SHIELDS) = range(11)
N_RULES = 11
MAX_ACTIONS = L.MAX_ACTIONS


# --- piles -----------------------------------------------------------------------------------

@njit(cache=True, inline="always")
def push(s, base_n, card):
    n = s[base_n]
    s[base_n + 1 + n] = card
    s[base_n] = n + 1


@njit(cache=True, inline="always")
def remove_at(s, base_n, i):
    """Take item i out of a pile, keeping the order of the rest."""
    n = s[base_n]
    card = s[base_n + 1 + i]
    for k in range(i, n - 1):
        s[base_n + 1 + k] = s[base_n + 2 + k]
    s[base_n] = n - 1
    return card


@njit(cache=True, inline="always")
def find(s, base_n, card):
    for i in range(s[base_n]):
        if s[base_n + 1 + i] == card:
            return i
    return -1


@njit(cache=True, inline="always")
def draw(s):
    """The top card of the deck (-1 if empty); taking the last one sets EXHAUSTED ("If the player draws (or
    discards) the last card from the deck, he may attack for the last time")."""
    n = s[L.DECK_N]
    if n == 0:
        return -1
    card = s[L.DECK + n - 1]
    s[L.DECK_N] = n - 1
    if n == 1:
        s[L.EXHAUSTED] = 1
    return card


@njit(cache=True, inline="always")
def discard_from_deck(s, n):
    """"the 2 topmost cards from the deck are discarded" (2, 4 or 6 by difficulty level)."""
    for _ in range(n):
        card = draw(s)
        if card < 0:
            return
        push(s, L.DISC_N, card)


# --- dice: packed counts per symbol (4 bits each, symbol S = the wild face); the family's ``dice`` module ------

@njit(cache=True, inline="always")
def dice_pool(s):
    """The rolled dice as packed counts."""
    return D.pile_pool(s, L.ND)


@njit(cache=True, inline="always")
def deliv_pool(s, S):
    return D.deliv_pool(s, L.DELIV, S)


@njit(cache=True, inline="always")
def sort_dice(s):
    D.sort_pile(s, L.ND)


@njit(cache=True, inline="always")
def is_ice_giant(cards, clan_ability, w):
    cl = cards[w, L.C_CLAN]
    return cl >= 0 and clan_ability[cl] == L.A_ICE_GIANT


@njit(cache=True, inline="always")
def fit_env(env, c, rem):
    """``fit`` (the family's ``dice.fit``) with the tables of ``env``."""
    return fit(env[0], env[1], env[6], env[9][R_WILD_WARRIORS] == 1, c, rem)


@njit(cache=True, inline="always")
def colours_now(s, mon):
    """The clans of the active monster card (the Boar Clan's colour check)."""
    return mon[min(s[L.MON], mon.shape[0] - 1), L.M_CLANS]


@njit(cache=True, inline="always")
def warrior_strength(s, cards, mon, clan_ability, i, mask):
    """Team Warrior i's strength with its clan power (the family's ``battle.warrior_strength``; Boar Clan "+3
    additional strength points" when the monster card shows its colour)."""
    return B.warrior_strength(s, L.TEAM_N, cards, clan_ability, colours_now(s, mon), i, mask)


@njit(cache=True, inline="always")
def strength_env(s, env, i, mask):
    return warrior_strength(s, env[0], env[3], env[6], i, mask)


@njit(cache=True, inline="always")
def fit_set(s, cards, need, clan_ability, wild_rule, pool, wmask, tset):
    """The family's ``battle.fit_set`` on the team and the candidate Tactics."""
    return B.fit_set(s, L.TEAM_N, L.CAND_N, cards, need, clan_ability, wild_rule, pool, wmask, tset)


@njit(cache=True, _nrt=False)
def best_joint(s, env, pool, tset):
    """The best activation of the team together with the candidate Tactics ``tset`` (the family's
    ``battle.best_joint``): (Warrior bitmask, their strength); mask -1 when ``tset`` cannot be activated."""
    return B.best_joint(s, L.TEAM_N, L.CAND_N, env[0], env[1], env[6], env[9][R_WILD_WARRIORS] == 1,
                        colours_now(s, env[3]), pool, tset)


@njit(cache=True, _nrt=False)
def best_joint_rem(s, env, pool, m, tset):
    cards, need, clan_ability = env[0], env[1], env[6]
    wild = env[9][R_WILD_WARRIORS] == 1
    return fit_set(s, cards, need, clan_ability, wild, pool, m, tset)


@njit(cache=True, inline="always")
def tset_value(s, cards, tset):
    return B.tset_value(s, L.CAND_N, cards, tset)


@njit(cache=True, inline="always")
def tset_feasible(s, cards, need, clan_ability, wild, pool, tset):
    """Can the Tactics in ``tset`` be activated together (with no Warrior)?"""
    return B.tset_feasible(s, L.TEAM_N, L.CAND_N, cards, need, clan_ability, wild, pool, tset)


@njit(cache=True, inline="always")
def battle_pool(s, S):
    """The dice and the Weapon Delivery cards played, as packed counts."""
    return dice_pool(s) + deliv_pool(s, S)


# --- monster ---------------------------------------------------------------------------------------

@njit(cache=True, inline="always")
def monster_strength(s, env, attacking, silenced):
    mon, rules = env[3], env[9]
    k = s[L.MON]
    v = mon[k, L.M_STRENGTH]
    if rules[R_POWERS] == 1 and not silenced:
        if attacking and mon[k, L.M_POWER] == L.P_ATTACK:
            v += mon[k, L.M_PVAL]
        if not attacking and mon[k, L.M_POWER] == L.P_DEFENCE:
            v += mon[k, L.M_PVAL]
    return v


@njit(cache=True, inline="always")
def power_on(s, env, power):
    """The active card's power ``power`` is in play (rule option on, not silenced this battle)."""
    mon, rules = env[3], env[9]
    return rules[R_POWERS] == 1 and s[L.B_SILENCED] == 0 and mon[s[L.MON], L.M_POWER] == power


@njit(cache=True, _nrt=False)
def monster_phase(s, rng, env):
    """"The player rolls the monster dice … If any of the rolled weapons match those on the monster card, the
    player places them on the corresponding weapon(s). If all of the weapons on the card are filled, the monster
    attacks." Natural matches are placed first; with the rule option ``wild_monster`` each ⊗ then covers one
    still-uncovered weapon (the weapon with the most faces on the die first), as the exact calculator does.
    Returns True when the monster attacks."""
    mweap, mwild, faces, rules = env[4], env[5], env[8], env[9]
    S = mweap.shape[1]
    k = s[L.MON]
    on_card = 0
    for sym in range(S):
        on_card += s[L.COVER + sym]
    if on_card == 0:
        s[L.EMPTY_PHASES + k] += 1
    wild = 0
    for _ in range(rules[R_DICE] - on_card):
        f = roll_die(rng, faces)
        if f < S:
            if s[L.COVER + f] < mweap[k, f]:
                s[L.COVER + f] += 1
        else:
            wild += 1
    if rules[R_WILD_MONSTER] == 1:
        for j in range(S):
            if wild == 0:
                break
            sym = mwild[k, j]
            if sym < 0:
                break
            while wild > 0 and s[L.COVER + sym] < mweap[k, sym]:
                s[L.COVER + sym] += 1
                wild -= 1
    for sym in range(S):
        if s[L.COVER + sym] < mweap[k, sym]:
            return False
    s[L.MON_ATTACKS] += 1
    if on_card == 0:
        s[L.EMPTY_ATTACKS + k] += 1
    return True


# --- battles ---------------------------------------------------------------------------------------

@njit(cache=True, inline="always")
def hand_effect(s, cards, effect):
    """Hand index of the first Battle Tactic with ``effect`` (-1 none)."""
    for h in range(s[L.HAND_N]):
        c = s[L.HAND + h]
        if cards[c, L.C_TYPE] == L.TACTIC and cards[c, L.C_EFFECT] == effect:
            return h
    return -1


@njit(cache=True, inline="always")
def play_reroll_tactic(s, cards):
    """A free reroll with none left: the reroll Battle Tactic with the most rerolls is played for its free
    rerolls."""
    best, best_v = -1, -1
    for h in range(s[L.HAND_N]):
        c = s[L.HAND + h]
        if cards[c, L.C_TYPE] == L.TACTIC and cards[c, L.C_EFFECT] == L.T_REROLL and cards[c, L.C_VALUE] > best_v:
            best, best_v = h, cards[c, L.C_VALUE]
    s[L.B_FREE] += best_v
    play_tactic(s, best)


@njit(cache=True, inline="always")
def play_tactic(s, h):
    """A Battle Tactic from hand index h into play ("Used Battle Tactics cards go to the discard pile after the
    battle")."""
    push(s, L.IP_N, remove_at(s, L.HAND_N, h))


@njit(cache=True, _nrt=False)
def begin_battle(s, env, attacking, ctx):
    """A battle: "roll their dice, use Battle Tactics cards and rerolls in order to attempt to win"."""
    cards, mon, jarl_row, rules = env[0], env[3], env[7], env[9]
    S = env[1].shape[1]
    s[L.B_ATTACK] = attacking
    s[L.B_CTX] = ctx
    s[L.B_SILENCED] = 0
    s[L.B_BASIC_USED] = 0
    s[L.B_FREE] = jarl_row[1] if jarl_row[0] == L.J_REROLL else 0
    s[L.B_CLAN_GIVEN] = 0
    s[L.B_ICE_DONE] = 0
    s[L.B_ACT] = 0
    s[L.B_TOTAL] = 0
    s[L.B_PATH] = -1
    s[L.B_MARGIN] = 0
    s[L.B_NACT] = 0
    s[L.ND] = 0
    for sym in range(S + 1):
        s[L.DELIV + sym] = 0
    s[L.IP_N] = 0
    # strength Battle Tactics; "Battle Tactics that require having a smaller battle team than the opponent work
    # when the player has less Warriors than Warrior symbols shown on the Monster card"
    s[L.CAND_N] = 0
    k = s[L.MON]
    for h in range(s[L.HAND_N]):
        c = s[L.HAND + h]
        if cards[c, L.C_TYPE] != L.TACTIC or s[L.CAND_N] >= L.MAX_CAND:
            continue
        e = cards[c, L.C_EFFECT]
        if e == L.T_STRENGTH or (e == L.T_SMALLER and s[L.TEAM_N] < mon[k, L.M_WSYM]):
            push(s, L.CAND_N, c)
    # "Battle Tactics cards that deactivate Jarls' powers while attacking deactivate that special ability for one
    # battle": a Silence is offered before the roll of an attack on a card with a power
    if attacking == 1 and rules[R_POWERS] == 1 and mon[k, L.M_POWER] != L.P_NONE \
            and hand_effect(s, env[0], L.T_SILENCE) >= 0:
        s[L.PHASE] = L.PH_SILENCE
    else:
        s[L.PHASE] = L.ST_ROLL


@njit(cache=True, _nrt=False)
def post_roll(s, rng, env):
    """Powers of activated Warriors after a roll: the Ice Giant's extra die and the clan rerolls (the family's
    ``battle.post_roll``)."""
    B.post_roll(s, L.TEAM_N, L.CAND_N, L.ND, L.DELIV, L.B_ICE_DONE, L.B_FREE, L.B_CLAN_GIVEN, rng, env[0], env[1],
                env[6], env[9][R_WILD_WARRIORS] == 1, colours_now(s, env[3]), env[8], L.MAX_DICE)


@njit(cache=True, _nrt=False)
def roll_battle_dice(s, rng, env):
    """The player rolls 6 dice (more with a Jarl's power, fewer with the monster's)."""
    jarl_row, faces, rules = env[7], env[8], env[9]
    attacking = s[L.B_ATTACK] == 1
    target = monster_strength(s, env, attacking, s[L.B_SILENCED] == 1)
    s[L.B_NEEDED] = target if attacking else target + 1
    dice = rules[R_DICE]
    if jarl_row[0] == L.J_EXTRA_DIE:
        dice += jarl_row[1]
    if power_on(s, env, L.P_EXTRA_DIE):
        dice = max(1, dice - env[3][s[L.MON], L.M_PVAL])
    dice = min(dice, L.MAX_DICE)
    D.roll_pile(s, L.ND, rng, faces, dice)
    post_roll(s, rng, env)


@njit(cache=True, inline="always")
def basic_ok(s, env):
    """Basic rerolls are allowed unless the monster's "no_reroll" power is on."""
    return not power_on(s, env, L.P_NO_REROLL)


@njit(cache=True, inline="always")
def free_available(s, env):
    return s[L.B_FREE] > 0 or hand_effect(s, env[0], L.T_REROLL) >= 0


@njit(cache=True, inline="always")
def roll_has_options(s, env):
    if s[L.ND] >= 1 and free_available(s, env):
        return True
    if s[L.ND] >= 2 and basic_ok(s, env):
        return True
    return hand_effect(s, env[0], L.T_DELIVERY) >= 0


@njit(cache=True, inline="always")
def reroll_mask(s, rng, env, mask):
    D.reroll_pile(s, L.ND, rng, env[8], mask)


@njit(cache=True, _nrt=False)
def n_feasible_commits(s, env):
    pool = battle_pool(s, env[1].shape[1])
    wild = env[9][R_WILD_WARRIORS] == 1
    k = 0
    for t in range(1 << s[L.CAND_N]):
        if tset_feasible(s, env[0], env[1], env[6], wild, pool, t):
            k += 1
    return k


@njit(cache=True, _nrt=False)
def enter_commit(s, env):
    if s[L.CAND_N] == 0 or n_feasible_commits(s, env) <= 1:
        commit(s, env, 0)
    else:
        s[L.PHASE] = L.PH_COMMIT


@njit(cache=True, _nrt=False)
def commit(s, env, tset):
    """Play the candidate Tactics ``tset``; the Warriors are the best activation together with them. Strength =
    activated Warriors + Battle Tactics + the Glory in Valhalla (+ a Jarl's bonus)."""
    cards, jarl_row, rules = env[0], env[7], env[9]
    pool = battle_pool(s, env[1].shape[1])
    m, st = best_joint(s, env, pool, tset)
    if m < 0:  # not activatable (cannot happen for a legal action): play none
        tset = 0
        m, st = best_joint(s, env, pool, 0)
    attacking = s[L.B_ATTACK] == 1
    total = s[L.GLORY] + st
    if jarl_row[0] == L.J_ATTACK and attacking:
        total += jarl_row[1]
    if jarl_row[0] == L.J_DEFENCE and not attacking:
        total += jarl_row[1]
    for j in range(s[L.CAND_N]):
        if (tset >> j) & 1:
            c = s[L.CAND + j]
            total += cards[c, L.C_VALUE]
            h = find(s, L.HAND_N, c)
            if h >= 0:
                play_tactic(s, h)
    s[L.B_ACT] = m
    s[L.B_TOTAL] = total
    # Path to Valhalla (option "own", defence only): on one of the player's own activated Warriors
    if rules[R_PATH_OWN] == 1 and not attacking and m > 0 and hand_effect(s, env[0], L.T_PATH) >= 0:
        s[L.PHASE] = L.PH_PATH
    else:
        s[L.PHASE] = L.ST_COMMITTED


@njit(cache=True, inline="always")
def cap_now(s, env):
    mon = env[3]
    return mon[min(s[L.MON], mon.shape[0] - 1), L.M_MAX_GLORY]


@njit(cache=True, _nrt=False)
def send_group(s, env, going, excess, cap):
    """Send the team Warriors in bitmask ``going`` to Valhalla with their Valkyrie blessings, then discard those in
    ``excess`` (the family's ``glory.send_group``; "the excess Warriors are discarded"), within the limit ``cap``."""
    g = G.send_group(s, L.TEAM_N, L.VAL_N, L.DISC_N, env[0], going, excess, cap - s[L.WGLORY])
    s[L.GLORY] += g
    s[L.WGLORY] += g


@njit(cache=True, inline="always")
def most_glory_fit(s, env, mask, cap):
    """The Warriors of ``mask`` that fit the limit with the most Glory together (ties: the larger bitmask). "When
    the player would send Warriors that would exceed the limit of Glory Points, the excess Warriors are
    discarded": which ones are the excess is the player's choice, and the most Glory kept is the best one (highest
    Glory first would keep 3 of room 4 from Warriors of Glory 3, 2, 2 instead of 2 + 2)."""
    return G.most_glory_fit(s, L.TEAM_N, env[0], mask, cap - s[L.WGLORY])


@njit(cache=True, inline="always")
def any_fits(s, env, mask, cap):
    cards = env[0]
    for i in range(s[L.TEAM_N]):
        if (mask >> i) & 1 and s[L.WGLORY] + cards[s[L.TEAM + i], L.C_GLORY] <= cap:
            return True
    return False


@njit(cache=True, inline="always")
def lost_battle_discards(s, env):
    """"After losing a battle … the player discards 2 [Level I] / 4 [II] / 6 [III] cards from the deck", plus the
    monster's "discard" power unless a Battle Tactic silenced it for this battle."""
    n = env[9][R_DISCARD]
    if power_on(s, env, L.P_DISCARD):
        n += env[3][s[L.MON], L.M_PVAL]
    discard_from_deck(s, n)


@njit(cache=True, _nrt=False)
def mission(s, env):
    """"A Mission card gives an additional 2 Glory Points when the player wins a battle while meeting the
    requirement shown on the card. Only one such card may be played after each battle." (automatic: the first
    one in hand that qualifies; the family's ``glory.find_mission``)"""
    h = G.find_mission(s, L.HAND_N, env[0], s[L.B_BASIC_USED], s[L.B_MARGIN], s[L.B_NACT])
    if h >= 0:
        push(s, L.VAL_N, remove_at(s, L.HAND_N, h))
        s[L.GLORY] += G.MISSION_GLORY
        s[L.MISSIONS] += 1


@njit(cache=True, inline="always")
def after_battle(s):
    if s[L.B_CTX] == L.CTX_HALT:
        s[L.PHASE] = L.PH_OVER
    else:
        s[L.PHASE] = L.ST_AFTER_A if s[L.B_CTX] == L.CTX_PHASE_A else L.ST_AFTER_MONSTER


@njit(cache=True, _nrt=False)
def finish_battle(s, env):
    """The battle's consequences (valhalla-solo.txt, Battle). Attacking, "the goal is to match or exceed the
    Battle Strength"; defending, "only … by achieving a Battle Strength higher than the monster's"."""
    mon = env[3]
    K = mon.shape[0]
    attacking = s[L.B_ATTACK] == 1
    won = s[L.B_TOTAL] >= s[L.B_NEEDED]
    target = s[L.B_NEEDED] if attacking else s[L.B_NEEDED] - 1
    s[L.B_MARGIN] = s[L.B_TOTAL] - target
    act = s[L.B_ACT]
    nact = 0
    for i in range(s[L.TEAM_N]):
        if (act >> i) & 1:
            nact += 1
    s[L.B_NACT] = nact
    # "Used Battle Tactics cards go to the discard pile after the battle."
    for i in range(s[L.IP_N]):
        push(s, L.DISC_N, s[L.IP + i])
    s[L.IP_N] = 0
    if not (attacking and not won):
        for sym in range(L.MAX_SYM):
            s[L.COVER + sym] = 0  # "all of the dice on the Monster card are taken off and placed aside"
    p = s[L.B_PATH]
    if p >= 0:
        # Path to Valhalla: "After the battle, regardless of its result, the chosen Warrior is sent to the
        # Valhalla" (discarded if it would exceed the limit)
        w = s[L.TEAM + p]
        if s[L.WGLORY] + env[0][w, L.C_GLORY] <= cap_now(s, env):
            send_group(s, env, 1 << p, 0, cap_now(s, env))
        else:
            remove_at(s, L.TEAM_N, p)
            push(s, L.DISC_N, w)
        low = act & ((1 << p) - 1)
        act = low | ((act >> (p + 1)) << p)
        s[L.B_ACT] = act
        s[L.B_PATH] = -1
    if s[L.B_CTX] == L.CTX_FINAL:
        # "If the player loses the final attack, they lose the game."
        if won:
            s[L.ATT_WON] += 1
            s[L.MON] += 1
            s[L.FINAL] = 1
        else:
            s[L.ATT_LOST] += 1
            s[L.FINAL] = 2
        if s[L.MON] < K:
            s[L.CAUSE] = L.CAUSE_DECK
        s[L.DONE] = 1
        return
    if attacking and won:
        # "the defeated card is placed aside, revealing a higher-level monster card"; "After defeating the last
        # Monster card, the player wins the game."
        s[L.ATT_WON] += 1
        s[L.MON] += 1
        if s[L.MON] >= K:
            s[L.DONE] = 1
            return
        # "After winning on the attack, the new monster card is revealed and the new limit is revealed. After
        # that, Warriors go to Valhalla." — all activated that fit (the most Glory), the excess discarded
        cap = cap_now(s, env)
        going = most_glory_fit(s, env, act, cap)
        send_group(s, env, going, act & ~going, cap)
        mission(s, env)
        after_battle(s)
    elif attacking:
        # "they can send 1 of their activated Warriors to Valhalla … After that, the 2 topmost cards from the deck
        # are discarded."
        s[L.ATT_LOST] += 1
        if any_fits(s, env, act, cap_now(s, env)):
            s[L.PHASE] = L.PH_SEND1
        else:
            after_send1(s, env)
    elif won:
        # "the player may send any of their activated Warriors to Valhalla … some, all or none"
        s[L.DEF_WON] += 1
        if any_fits(s, env, act, cap_now(s, env)):
            s[L.PHASE] = L.PH_GROUP
        else:
            mission(s, env)
            after_battle(s)
    else:
        # "send 1 of their activated Warriors to Valhalla … Then they must remove 1 of their shields from their game
        # board and discard the 2 topmost cards from the deck."
        s[L.DEF_LOST] += 1
        if any_fits(s, env, act, cap_now(s, env)):
            s[L.PHASE] = L.PH_SEND1
        else:
            after_send1(s, env)


@njit(cache=True, _nrt=False)
def after_send1(s, env):
    if s[L.B_ATTACK] == 0:
        s[L.SHIELDS] -= 1
        if s[L.SHIELDS] <= 0:
            s[L.DONE] = 1
            s[L.CAUSE] = L.CAUSE_SHIELDS
            return
    lost_battle_discards(s, env)
    after_battle(s)


# --- turns -----------------------------------------------------------------------------------------

@njit(cache=True, inline="always")
def pair_ok(s, cards, need, a, b):
    """Two Warriors "whose weapon symbols total at most 3"."""
    ca, cb = s[L.HAND + a], s[L.HAND + b]
    if cards[ca, L.C_TYPE] != L.WARRIOR or cards[cb, L.C_TYPE] != L.WARRIOR:
        return False
    k = cards[ca, L.C_ANY] + cards[cb, L.C_ANY]
    for sym in range(need.shape[1]):
        k += need[ca, sym] + need[cb, sym]
    return k <= 3


@njit(cache=True, _nrt=False)
def start_draw(s, n_draw, ctx):
    """"draw 2 cards, choose one to keep, and discard the other" (3 with the +40 deck)."""
    s[L.DRAWN_N] = 0
    for _ in range(n_draw):
        c = draw(s)
        if c < 0:
            break
        push(s, L.DRAWN_N, c)
    s[L.KEEP_CTX] = ctx
    if s[L.DRAWN_N] >= 2:
        s[L.PHASE] = L.PH_KEEP
    else:
        keep_card(s, 0)


@njit(cache=True, inline="always")
def keep_card(s, keep):
    for i in range(s[L.DRAWN_N]):
        c = s[L.DRAWN + i]
        if i == keep and s[L.HAND_N] < L.MAX_HAND:  # a simulator bound on the hand, far above what play reaches
            push(s, L.HAND_N, c)
        else:
            push(s, L.DISC_N, c)
    s[L.DRAWN_N] = 0
    s[L.PHASE] = L.ST_AFTER_A if s[L.KEEP_CTX] == 0 else L.ST_AFTER_B


@njit(cache=True, inline="always")
def phase_b_cards(env):
    jarl_row, rules = env[7], env[9]
    n = 3 if rules[R_PLUS40] == 1 else 2
    if jarl_row[0] == L.J_DRAW:
        n += jarl_row[1]
    return min(n, L.MAX_DRAWN)


@njit(cache=True, inline="always")
def advance(s, rng, env):
    """Resolve forced steps and chance until the next decision or the end of the game."""
    K = env[3].shape[0]
    rules = env[9]
    while True:
        if s[L.DONE] == 1:
            s[L.PHASE] = L.PH_OVER
            return
        ph = s[L.PHASE]
        if ph < L.ST_TURN:
            return
        if ph == L.ST_TURN:
            s[L.TURNS] += 1
            if s[L.TURNS] > rules[R_TURN_CAP]:
                s[L.DONE] = 1
                s[L.CAUSE] = L.CAUSE_CAP
                continue
            if phase_a_any(s, env):
                s[L.PHASE] = L.PH_A
            else:
                s[L.PHASE] = L.ST_FINAL
        elif ph == L.ST_AFTER_A:
            s[L.PHASE] = L.ST_FINAL if s[L.EXHAUSTED] == 1 else L.ST_PHASE_B
        elif ph == L.ST_PHASE_B:
            # Phase B: "draw 2 cards, choose one to keep, and discard the other" (+40: "draws 3 cards and keeps 1")
            start_draw(s, phase_b_cards(env), 1)
        elif ph == L.ST_AFTER_B:
            # "If a player has no Warriors on his team after Phase B, the monster phase is skipped this turn."
            if s[L.EXHAUSTED] == 1:
                s[L.PHASE] = L.ST_FINAL
            elif s[L.TEAM_N] > 0:
                s[L.PHASE] = L.ST_MONSTER
            else:
                s[L.PHASE] = L.ST_TURN
        elif ph == L.ST_MONSTER:
            if monster_phase(s, rng, env):
                begin_battle(s, env, 0, L.CTX_MONSTER)
            else:
                s[L.PHASE] = L.ST_AFTER_MONSTER
        elif ph == L.ST_AFTER_MONSTER:
            s[L.PHASE] = L.ST_FINAL if s[L.EXHAUSTED] == 1 else L.ST_TURN
        elif ph == L.ST_FINAL:
            # "If the player draws (or discards) the last card from the deck, he may attack for the last time … It is
            # only possible if the active Monster card is the last one. If any other card is on the top of the
            # monster deck, the player loses immediately." (with no Warrior left the Glory may still be enough)
            if s[L.MON] == K - 1:
                begin_battle(s, env, 1, L.CTX_FINAL)
            else:
                s[L.CAUSE] = L.CAUSE_DECK
                s[L.DONE] = 1
        elif ph == L.ST_ROLL:
            roll_battle_dice(s, rng, env)
            s[L.PHASE] = L.ST_ROLLED
        elif ph == L.ST_ROLLED:
            if roll_has_options(s, env):
                s[L.PHASE] = L.PH_ROLL
            else:
                enter_commit(s, env)
        elif ph == L.ST_COMMITTED:
            finish_battle(s, env)
        else:
            s[L.DONE] = 1  # unknown step: cannot happen


@njit(cache=True, inline="always")
def phase_a_any(s, env):
    cards = env[0]
    if s[L.DECK_N] > 0 or s[L.TEAM_N] > 0:
        return True
    for h in range(s[L.HAND_N]):
        if cards[s[L.HAND + h], L.C_TYPE] == L.WARRIOR:
            return True
    return False


# --- set-up ------------------------------------------------------------------------------------------

@njit(cache=True)
def setup(s, rng, env, shuffler, deck_cards):
    """Game preparation: shuffle the deck (from ``shuffler``), "discards 40 cards from the top of the deck,
    creating a discard pile", draw 6; 4 shields (Jarl powers may change the shields and the starting Glory); then
    the exchange decision ("may exchange any of the cards in their hand … only once"), card by card."""
    jarl_row, rules = env[7], env[9]
    s[:] = 0
    n = deck_cards.shape[0]
    order = deck_cards.copy()
    shuffle(shuffler, order, n)
    for i in range(n):
        push(s, L.DECK_N, order[i])
    for _ in range(rules[R_START_DISCARD]):
        push(s, L.DISC_N, draw(s))
    for _ in range(rules[R_HAND]):
        push(s, L.HAND_N, draw(s))
    s[L.SHIELDS] = rules[R_SHIELDS] + (jarl_row[1] if jarl_row[0] == L.J_SHIELD else 0)
    s[L.GLORY] = jarl_row[1] if jarl_row[0] == L.J_GLORY else 0
    s[L.EXHAUSTED] = 0
    s[L.B_PATH] = -1
    s[L.EX_I] = 0
    s[L.EX_MASK] = 0
    if s[L.HAND_N] > 0:
        s[L.PHASE] = L.PH_EXCHANGE
    else:
        s[L.PHASE] = L.ST_TURN
    advance(s, rng, env)


_HAND_MAX = L.MAX_HAND  # a global name, so that numba sees the scratch size as a constant


@njit(cache=True, _nrt=False)
def do_exchange(s, rng):
    """"they place chosen cards aside, draw the same number of new cards, and shuffle the cards placed back into
    the deck" (the reshuffle draws from the game's chance stream)."""
    mask = s[L.EX_MASK]
    m = 0
    aside = stack_empty(_HAND_MAX, np.int64)  # scratch on the stack: exchanging allocates nothing
    for h in range(s[L.HAND_N] - 1, -1, -1):
        if (mask >> h) & 1:
            aside[m] = remove_at(s, L.HAND_N, h)
            m += 1
    for _ in range(m):
        c = draw(s)
        if c >= 0:
            push(s, L.HAND_N, c)
    for i in range(m):
        push(s, L.DECK_N, aside[i])
    if m > 0:
        for i in range(s[L.DECK_N] - 1, 0, -1):
            j = randbelow(rng, i + 1)
            t = s[L.DECK + i]
            s[L.DECK + i] = s[L.DECK + j]
            s[L.DECK + j] = t
    s[L.EXHAUSTED] = 0
    s[L.EX_MASK] = 0
    s[L.PHASE] = L.ST_TURN


# --- the interface -------------------------------------------------------------------------------------

@njit(cache=True, _nrt=False)
def is_over(s):
    return s[L.DONE] == 1


@njit(cache=True, _nrt=False)
def to_move(s):
    return 0


@njit(cache=True, inline="always")
def won(s, env):
    return s[L.DONE] == 1 and s[L.CAUSE] == L.CAUSE_NONE and s[L.MON] >= env[3].shape[0]


@njit(cache=True, _nrt=False)
def reward(s, env, seat):
    return 1.0 if won(s, env) else 0.0


@njit(cache=True)
def resample(s, rng, env, seat, srng):
    """The unseen part of the state is the order of the deck (the discard pile, hand, team, Valhalla, drawn cards
    and monster dice are public), and the chance stream."""
    reshuffle_unseen(s, L.DECK, s[L.DECK_N], srng)
    reseed(rng, srng)


@njit(cache=True, inline="always")
def canonical(s, mask):
    """Within a run of equal dice (DICE is sorted) only the last ones are rerolled."""
    return D.canonical(s, L.ND, mask)


@njit(cache=True, inline="always")
def popcount(m):
    c = 0
    while m:
        c += m & 1
        m >>= 1
    return c


@njit(cache=True, inline="always")
def legal_actions(s, env, out):
    """The legal actions now, in ``out[:n]`` (encoding: ``layout``)."""
    cards, need, mon = env[0], env[1], env[3]
    ph = s[L.PHASE]
    n = 0
    if s[L.DONE] == 1:
        return 0
    if ph == L.PH_EXCHANGE:
        out[0] = L.A_NO
        out[1] = L.A_YES
        return 2
    if ph == L.PH_A:
        # Phase A: "play one Warrior; play two Warriors whose weapon symbols total at most 3; draw (2 cards, keep
        # 1); attack". "Players are still obliged to play a Warrior in Phase A, if his team is empty."
        hn = s[L.HAND_N]
        warriors = 0
        if s[L.TEAM_N] < L.MAX_TEAM:
            for h in range(hn):
                if cards[s[L.HAND + h], L.C_TYPE] == L.WARRIOR:
                    out[n] = L.A_PLAY + h
                    n += 1
                    warriors += 1
        else:
            for h in range(hn):
                if cards[s[L.HAND + h], L.C_TYPE] == L.WARRIOR:
                    warriors += 1
        if s[L.TEAM_N] <= L.MAX_TEAM - 2:
            for a in range(hn):
                for b in range(a + 1, hn):
                    if pair_ok(s, cards, need, a, b):
                        out[n] = L.A_PAIR + a
                        n += 1
                        break
        if not (s[L.TEAM_N] == 0 and warriors > 0):
            if s[L.DECK_N] > 0:
                out[n] = L.A_DRAW
                n += 1
            if s[L.TEAM_N] > 0:
                out[n] = L.A_ATTACK
                n += 1
        return n
    if ph == L.PH_PAIR2:
        a = s[L.PAIR_FIRST]
        for b in range(a + 1, s[L.HAND_N]):
            if pair_ok(s, cards, need, a, b):
                out[n] = L.A_PLAY + b
                n += 1
        return n
    if ph == L.PH_KEEP:
        for i in range(s[L.DRAWN_N]):
            out[i] = L.A_KEEP + i
        return s[L.DRAWN_N]
    if ph == L.PH_SILENCE or ph == L.PH_PATH:
        out[0] = L.A_NO
        n = 1
        if ph == L.PH_SILENCE:
            out[1] = L.A_YES
            return 2
        for i in range(s[L.TEAM_N]):
            if (s[L.B_ACT] >> i) & 1:
                out[n] = L.A_PATH + i
                n += 1
        return n
    if ph == L.PH_ROLL:
        out[0] = L.A_STOP
        n = 1
        seen = 0
        for h in range(s[L.HAND_N]):
            c = s[L.HAND + h]
            if cards[c, L.C_TYPE] == L.TACTIC and cards[c, L.C_EFFECT] == L.T_DELIVERY:
                sym = cards[c, L.C_SYMBOL]
                if not (seen >> sym) & 1 and s[L.DELIV + sym] < 4:
                    seen |= 1 << sym
                    out[n] = L.A_DELIVER + h
                    n += 1
        nd = s[L.ND]
        free = nd >= 1 and free_available(s, env)
        basic = nd >= 2 and basic_ok(s, env)
        # canonical masks: no rerolled die followed by a kept die of the same symbol
        return D.list_rerolls(s, L.ND, out, n, L.A_FREE, L.A_BASIC, free, basic)
    if ph == L.PH_COMMIT:
        pool = battle_pool(s, env[1].shape[1])
        wild = env[9][R_WILD_WARRIORS] == 1
        for t in range(1 << s[L.CAND_N]):
            if tset_feasible(s, cards, need, env[6], wild, pool, t):
                out[n] = L.A_COMMIT + t
                n += 1
        return n
    if ph == L.PH_SEND1:
        # sending first, none last (a search breaks ties in favour of earlier actions)
        cap = cap_now(s, env)
        for i in range(s[L.TEAM_N]):
            if (s[L.B_ACT] >> i) & 1 and s[L.WGLORY] + cards[s[L.TEAM + i], L.C_GLORY] <= cap:
                out[n] = L.A_SEND + i
                n += 1
        out[n] = L.A_NO
        return n + 1
    if ph == L.PH_GROUP:
        # the largest groups first, none last
        cap = cap_now(s, env)
        act = s[L.B_ACT]
        for m in range((1 << s[L.TEAM_N]) - 1, -1, -1):
            if m & ~act:
                continue
            g = 0
            for i in range(s[L.TEAM_N]):
                if (m >> i) & 1:
                    g += cards[s[L.TEAM + i], L.C_GLORY]
            if s[L.WGLORY] + g <= cap:
                out[n] = L.A_GROUP + m
                n += 1
        return n
    return 0


@njit(cache=True, _nrt=False)
def play_warrior(s, h):
    push(s, L.TEAM_N, remove_at(s, L.HAND_N, h))


@njit(cache=True, inline="always")
def apply_action(s, rng, env, a):
    """Apply action ``a`` (one of ``legal_actions``), then resolve chance and forced steps until the next
    decision or the end of the game."""
    cards = env[0]
    ph = s[L.PHASE]
    s[L.STEPS] += 1
    if ph == L.PH_EXCHANGE:
        if a == L.A_YES:
            s[L.EX_MASK] |= 1 << s[L.EX_I]
        s[L.EX_I] += 1
        if s[L.EX_I] >= s[L.HAND_N]:
            do_exchange(s, rng)
    elif ph == L.PH_A:
        if a < L.A_PAIR:
            play_warrior(s, a - L.A_PLAY)
            s[L.PHASE] = L.ST_AFTER_A
        elif a < L.A_DRAW:
            s[L.PAIR_FIRST] = a - L.A_PAIR
            s[L.PHASE] = L.PH_PAIR2
        elif a == L.A_DRAW:
            start_draw(s, 2, 0)
        else:
            begin_battle(s, env, 1, L.CTX_PHASE_A)
    elif ph == L.PH_PAIR2:
        b = a - L.A_PLAY
        play_warrior(s, b)  # the higher index first, so the lower stays valid
        play_warrior(s, s[L.PAIR_FIRST])
        s[L.PHASE] = L.ST_AFTER_A
    elif ph == L.PH_KEEP:
        keep_card(s, a - L.A_KEEP)
    elif ph == L.PH_SILENCE:
        if a == L.A_YES:
            play_tactic(s, hand_effect(s, env[0], L.T_SILENCE))
            s[L.B_SILENCED] = 1
        s[L.PHASE] = L.ST_ROLL
    elif ph == L.PH_ROLL:
        if a == L.A_STOP:
            enter_commit(s, env)
        elif a < L.A_SEND:
            # Weapon Delivery: "may be treated as a weapon die with the symbol shown on the card" — a card, not a
            # die: it counts for activation but is never rerolled or discarded for a reroll
            h = a - L.A_DELIVER
            s[L.DELIV + cards[s[L.HAND + h], L.C_SYMBOL]] += 1
            play_tactic(s, h)
            post_roll(s, rng, env)
            s[L.PHASE] = L.ST_ROLLED
        elif a < L.A_BASIC:
            if s[L.B_FREE] == 0:
                play_reroll_tactic(s, cards)
            s[L.B_FREE] -= 1
            reroll_mask(s, rng, env, a - L.A_FREE)
            post_roll(s, rng, env)
            s[L.PHASE] = L.ST_ROLLED
        else:
            # "the player may discard 1 die from their pool of dice to reroll any of the remaining dice"
            D.basic_reroll(s, L.ND, rng, env[8], a - L.A_BASIC)
            s[L.B_BASIC_USED] = 1
            post_roll(s, rng, env)
            s[L.PHASE] = L.ST_ROLLED
    elif ph == L.PH_COMMIT:
        commit(s, env, a - L.A_COMMIT)
    elif ph == L.PH_PATH:
        if a != L.A_NO:
            # Path to Valhalla ("own" reading): "that Warrior's strength is not counted … After the battle,
            # regardless of its result, the chosen Warrior is sent to the Valhalla"
            i = a - L.A_PATH
            s[L.B_TOTAL] -= strength_env(s, env, i, s[L.B_ACT])
            s[L.B_PATH] = i
            play_tactic(s, hand_effect(s, env[0], L.T_PATH))
        s[L.PHASE] = L.ST_COMMITTED
    elif ph == L.PH_SEND1:
        if a != L.A_NO:
            send_group(s, env, 1 << (a - L.A_SEND), 0, cap_now(s, env))
        after_send1(s, env)
    elif ph == L.PH_GROUP:
        send_group(s, env, a - L.A_GROUP, 0, cap_now(s, env))
        mission(s, env)
        after_battle(s)
    advance(s, rng, env)


@njit(cache=True)
def new_game(s, rng, env, shuffler, deck_cards):
    """Set up a game and advance it to its first decision."""
    setup(s, rng, env, shuffler, deck_cards)


@njit(cache=True)
def invariants(s, env):
    """0 when the state keeps the rule invariants, else: 1 the cards of the variant are not all in exactly one
    place (deck, discard pile, hand, team, Valhalla, in play, drawn); 2 a pile size out of range; 3 the team holds
    more than 4; 4 a counter out of range or the counters disagree (cards defeated = attacks won, shields lost =
    defences lost, monster attacks = defences, exhausted = empty deck, …); 5 the Glory limit is exceeded; 6 the
    Glory sums disagree; 7 an unknown phase or an open decision with no legal action."""
    cards, mon = env[0], env[3]
    K = mon.shape[0]
    n_cards = 0
    for c in range(cards.shape[0]):
        if cards[c, L.C_EXP] == 0 or env[9][R_PLUS40] == 1:
            n_cards += 1
    seen = np.zeros(cards.shape[0], np.int64)
    total = 0
    for base, cap in ((L.DECK_N, L.MAX_CARDS), (L.DISC_N, L.MAX_CARDS), (L.HAND_N, L.MAX_HAND),
                      (L.TEAM_N, L.MAX_TEAM), (L.VAL_N, L.MAX_CARDS), (L.IP_N, L.MAX_INPLAY),
                      (L.DRAWN_N, L.MAX_DRAWN)):
        k = s[base]
        if k < 0 or k > cap:
            return 2
        for i in range(k):
            c = s[base + 1 + i]
            if c < 0 or c >= cards.shape[0]:
                return 1
            seen[c] += 1
        total += k
    if total != n_cards:
        return 1
    for c in range(cards.shape[0]):
        if seen[c] > 1:
            return 1
    if s[L.TEAM_N] > L.MAX_TEAM:
        return 3
    if s[L.SHIELDS] < 0 or s[L.MON] < 0 or s[L.MON] > K or s[L.ND] < 0 or s[L.ND] > L.MAX_DICE \
            or s[L.CAND_N] < 0 or s[L.CAND_N] > L.MAX_CAND or s[L.DONE] < 0 or s[L.DONE] > 1:
        return 4
    if s[L.DONE] == 0 and s[L.MON] >= K:
        return 4
    # every card defeated was defeated by a won attack; every shield lost by a lost defence; every monster attack
    # is a defence (the one being fought, if any); the deck is exhausted exactly when empty; a game that ended
    # without a cause was won
    rules, jr = env[9], env[7]
    shields0 = rules[R_SHIELDS] + (jr[1] if jr[0] == L.J_SHIELD else 0)
    fighting = s[L.DONE] == 0 and s[L.B_ATTACK] == 0 and (s[L.PHASE] == L.PH_ROLL or s[L.PHASE] == L.PH_COMMIT
                                                         or s[L.PHASE] == L.PH_PATH)
    losing = s[L.DONE] == 0 and s[L.B_ATTACK] == 0 and s[L.PHASE] == L.PH_SEND1  # the shield goes after the send
    if s[L.MON] != s[L.ATT_WON] or s[L.DEF_LOST] != shields0 - s[L.SHIELDS] + (1 if losing else 0) \
            or s[L.MON_ATTACKS] != s[L.DEF_WON] + s[L.DEF_LOST] + (1 if fighting else 0):
        return 4
    if s[L.PHASE] != L.PH_EXCHANGE and s[L.EXHAUSTED] != (1 if s[L.DECK_N] == 0 else 0):
        return 4
    if s[L.FINAL] < 0 or s[L.FINAL] > 2 or (s[L.FINAL] > 0 and s[L.DONE] == 0) or s[L.CAUSE] < 0 \
            or s[L.CAUSE] > L.CAUSE_CAP or (s[L.DONE] == 1 and s[L.CAUSE] == L.CAUSE_NONE and s[L.MON] != K) \
            or s[L.TURNS] < 0 or s[L.TURNS] > rules[R_TURN_CAP] + 1:
        return 4
    on_card = 0
    for sym in range(env[4].shape[1]):
        on_card += s[L.COVER + sym]
    if on_card > rules[R_DICE]:
        return 4
    for sym in range(env[4].shape[1]):
        if s[L.COVER + sym] < 0 or (s[L.MON] < K and s[L.COVER + sym] > env[4][s[L.MON], sym]):
            return 4
    limit = 0
    for k in range(min(s[L.MON], K - 1) + 1):
        limit = max(limit, mon[k, L.M_MAX_GLORY])
    if s[L.WGLORY] > limit:
        return 5
    wg = 0
    missions = 0
    for i in range(s[L.VAL_N]):
        c = s[L.VAL + i]
        if cards[c, L.C_TYPE] == L.WARRIOR:
            wg += cards[c, L.C_GLORY]
        elif cards[c, L.C_TYPE] == L.MISSION:
            missions += 1
        else:
            return 6
    jr = env[7]
    start = jr[1] if jr[0] == L.J_GLORY else 0
    if wg != s[L.WGLORY] or s[L.GLORY] != wg + 2 * missions + start or missions != s[L.MISSIONS]:
        return 6
    ph = s[L.PHASE]
    if s[L.DONE] == 1:
        if ph != L.PH_OVER:
            return 7
    elif ph < L.PH_EXCHANGE or ph > L.PH_GROUP:
        return 7
    return 0
