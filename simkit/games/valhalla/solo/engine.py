"""Valhalla Solo Mode rules as numba functions over the flat state (see ``layout``).

Functions take ``(s, T, rules, kind, params, rng, prng)``: ``T`` is the table tuple
``(cards, need, p_act, mon, mweap, mwild, clan_ability, jarl_row, faces)`` (``jarl_row``
is the chosen Jarl's (ability, value)); ``rng`` draws the dice, ``prng`` the
policy's own choices. The deck is shuffled from a third stream, so every
difficulty level, Jarl and policy starts from the same deck order.

Rule sentences are quoted from valhalla-solo.txt and valhalla-valkyries.txt.
Where the solo text builds on the base game (Phase A, battles, rerolls) the
model of the issue is used and listed in docs/rules.md.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simkit.core.rng import randbelow, shuffle
from simkit.games.valhalla.solo import layout as L
from simkit.games.valhalla.solo import policies as pol

# rule options (int64 vector)
(R_DISCARD, R_PLUS40, R_WILD_WARRIORS, R_WILD_MONSTER, R_POWERS, R_PATH_OWN, R_TURN_CAP, R_DICE,
 R_START_DISCARD, R_HAND, R_SHIELDS) = range(11)
N_RULES = 11

# Phase A actions
PLAY_ONE, PLAY_TWO, DRAW, ATTACK = range(4)


# --- piles -----------------------------------------------------------------------------------

@njit(cache=True)
def push(s, base_n, card):
    n = s[base_n]
    s[base_n + 1 + n] = card
    s[base_n] = n + 1


@njit(cache=True)
def remove_at(s, base_n, i):
    """Take item i out of a pile, keeping the order of the rest."""
    n = s[base_n]
    card = s[base_n + 1 + i]
    for k in range(i, n - 1):
        s[base_n + 1 + k] = s[base_n + 2 + k]
    s[base_n] = n - 1
    return card


@njit(cache=True)
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


@njit(cache=True)
def discard_from_deck(s, n):
    """"the 2 topmost cards from the deck are discarded" (2, 4 or 6 by difficulty level)."""
    for _ in range(n):
        card = draw(s)
        if card < 0:
            return
        push(s, L.DISC_N, card)


# --- battles -----------------------------------------------------------------------------------

@njit(cache=True)
def roll_die(rng, faces):
    return faces[randbelow(rng, faces.shape[0])]


@njit(cache=True)
def is_ice_giant(T, w):
    cards, clan_ability = T[0], T[6]
    return cards[w, L.C_CLAN] >= 0 and clan_ability[cards[w, L.C_CLAN]] == L.A_ICE_GIANT


@njit(cache=True)
def fit(T, rules, w, rem):
    """Take the dice Warrior w needs out of ``rem`` (counts per symbol, wild last). False if they are not there.

    Ice Giants: "dice bearing the ⊗ symbol cannot be used to activate them"; with ≠ "all weapon dice used to
    activate that Giant must be different from one another"."""
    cards, need = T[0], T[1]
    S = need.shape[1]
    ice = is_ice_giant(T, w)
    wild_ok = rules[R_WILD_WARRIORS] == 1 and not ice
    distinct = cards[w, L.C_DISTINCT] == 1
    used = np.zeros(S, np.bool_)
    for sym in range(S):
        k = need[w, sym]
        if k == 0:
            continue
        if distinct and k > 1:
            return False
        used[sym] = True
        take = min(k, rem[sym])
        rem[sym] -= take
        short = k - take
        if short > 0:
            if not wild_ok or rem[S] < short:
                return False
            rem[S] -= short
    for _ in range(cards[w, L.C_ANY]):
        best, best_n = -1, 0
        for sym in range(S):
            if rem[sym] > best_n and not (distinct and used[sym]):
                best, best_n = sym, rem[sym]
        if best >= 0:
            rem[best] -= 1
            used[best] = True
        elif wild_ok and rem[S] > 0:
            rem[S] -= 1
        else:
            return False
    return True


@njit(cache=True)
def warrior_strength(s, T, w, mask, team, n):
    """A Warrior's strength with its clan power: Boar Clan "+3 additional strength points" when the monster card
    shows its colour; "pack": +1 per other activated Warrior of its clan."""
    cards, mon, clan_ability = T[0], T[3], T[6]
    v = cards[w, L.C_STR]
    clan = cards[w, L.C_CLAN]
    if cards[w, L.C_SPECIAL] == 1 and clan >= 0:
        ab = clan_ability[clan]
        if ab == L.A_BOAR:
            colour = cards[w, L.C_BLESS_CLAN] if cards[w, L.C_BLESS_CLAN] >= 0 else clan
            if mon[s[L.MON], L.M_CLANS] & (1 << colour):
                v += 3
        elif ab == L.A_PACK:
            for i in range(n):
                o = team[i]
                if (mask >> i) & 1 and o != w and cards[o, L.C_CLAN] == clan:
                    v += 1
    return v


@njit(cache=True)
def best_activation(s, T, rules, pool, team, n, exclude):
    """The set of team Warriors (bitmask) the dice in ``pool`` activate with the most strength, and the dice
    it uses. Ice Giants are fitted first (they cannot use ⊗); ``exclude`` is a team index left out (or -1)."""
    S = T[1].shape[1]
    best_mask, best_str, best_used = 0, 0, 0
    used_counts = np.zeros(S + 1, np.int64)
    rem = np.empty(S + 1, np.int64)
    for mask in range(1, 1 << n):
        if exclude >= 0 and (mask >> exclude) & 1:
            continue
        rem[:] = pool
        ok = True
        for ice_pass in range(2):
            for i in range(n):
                if (mask >> i) & 1 and is_ice_giant(T, team[i]) == (ice_pass == 0):
                    if not fit(T, rules, team[i], rem):
                        ok = False
                        break
            if not ok:
                break
        if not ok:
            continue
        st = 0
        for i in range(n):
            if (mask >> i) & 1:
                st += warrior_strength(s, T, team[i], mask, team, n)
        dice_used = pool.sum() - rem.sum()
        if st > best_str or (st == best_str and dice_used < best_used):
            best_mask, best_str, best_used = mask, st, dice_used
            used_counts[:] = pool - rem
    return best_mask, best_str, used_counts


@njit(cache=True)
def reroll(rng, faces, pool, counts):
    """Roll again the dice in ``counts`` (per symbol) of ``pool``."""
    k = 0
    for sym in range(pool.shape[0]):
        pool[sym] -= counts[sym]
        k += counts[sym]
    for _ in range(k):
        pool[roll_die(rng, faces)] += 1


@njit(cache=True)
def monster_strength(s, T, rules, attacking, silenced):
    mon = T[3]
    k = s[L.MON]
    v = mon[k, L.M_STRENGTH]
    if rules[R_POWERS] == 1 and not silenced:
        if attacking and mon[k, L.M_POWER] == L.P_ATTACK:
            v += mon[k, L.M_PVAL]
        if not attacking and mon[k, L.M_POWER] == L.P_DEFENCE:
            v += mon[k, L.M_PVAL]
    return v


@njit(cache=True)
def send_to_valhalla(s, T, card, cap):
    """"Warriors in Valhalla are kept face up to add their Glory Points"; "The sum of the Glory Points of the
    Warriors in a player's Valhalla may never exceed the limit" — a Warrior that does not fit is not sent. The
    limit counts the Warriors' Glory (WGLORY), not Missions or a Jarl's starting Glory."""
    g = T[0][card, L.C_GLORY]
    if s[L.WGLORY] + g > cap:
        return False
    s[L.GLORY] += g
    s[L.WGLORY] += g
    push(s, L.VAL_N, card)
    return True


@njit(cache=True)
def blessing_draw(s, T, bonus, cap):
    """Valkyrie blessings: "draw Warrior cards from the discard pile whose combined Glory Point value equals the
    additional Glory Points … without changing the order of the cards in it" (as much as the limit allows).
    Largest Glory first: for the blessings' bonuses of at most 3 this reaches the exact sum whenever the pile
    holds one (3 = 3, 2 + 1 or 1 + 1 + 1)."""
    cards = T[0]
    want = min(bonus, cap - s[L.WGLORY])
    while want > 0:
        best_i, best_g = -1, 0
        for i in range(s[L.DISC_N]):
            c = s[L.DISC + i]
            g = cards[c, L.C_GLORY]
            if cards[c, L.C_TYPE] == L.WARRIOR and 0 < g <= want and g > best_g:
                best_i, best_g = i, g
        if best_i < 0:
            return
        c = remove_at(s, L.DISC_N, best_i)
        s[L.GLORY] += best_g
        s[L.WGLORY] += best_g
        push(s, L.VAL_N, c)
        want -= best_g


@njit(cache=True)
def to_valhalla(s, T, kind, params, prng, team_idx, k, cap, all_or_one, discard_rest):
    """Send activated Warriors (team indices ``team_idx[:k]``) to Valhalla: all that fit (``all_or_one`` = 1), or
    the one the policy picks (0). Valkyrie blessings are checked on the group that goes. Warriors that do not fit
    are discarded when ``discard_rest`` ("the excess Warriors are discarded"), else they stay in the team."""
    cards = T[0]
    order = np.empty(k, np.int64)
    for i in range(k):
        order[i] = team_idx[i]
    # highest Glory first (heuristic); a random order for the random policy
    if kind == pol.RANDOM:
        for i in range(k - 1, 0, -1):
            j = randbelow(prng, i + 1)
            order[i], order[j] = order[j], order[i]
    else:
        for i in range(k):
            for j in range(i + 1, k):
                if cards[s[L.TEAM + order[j]], L.C_GLORY] > cards[s[L.TEAM + order[i]], L.C_GLORY]:
                    order[i], order[j] = order[j], order[i]
    going = np.zeros(k, np.int64)
    n_going = 0
    if all_or_one == 0 and not pol.coin(kind, prng, True):
        k = 0  # "they can send 1 of their activated Warriors": the random policy may send none
    for i in range(k):
        w = s[L.TEAM + order[i]]
        if all_or_one == 0 and n_going == 1:
            break
        if s[L.WGLORY] + cards[w, L.C_GLORY] <= cap:
            s[L.GLORY] += cards[w, L.C_GLORY]
            s[L.WGLORY] += cards[w, L.C_GLORY]
            going[n_going] = order[i]
            n_going += 1
    # the blessings look at who goes together
    gone = np.zeros(L.MAX_TEAM, np.bool_)
    for i in range(n_going):
        gone[going[i]] = True
    bonuses = np.zeros(L.MAX_TEAM, np.int64)
    for i in range(n_going):
        w = s[L.TEAM + going[i]]
        b = cards[w, L.C_BLESS]
        if b == 1:
            bonuses[i] = n_going - 1
        elif b == 2:
            for j in range(n_going):
                o = s[L.TEAM + going[j]]
                if j != i and cards[o, L.C_CLAN] == cards[w, L.C_BLESS_CLAN]:
                    bonuses[i] = 2
        elif b == 3 and n_going == 1:
            bonuses[i] = 3
    # move the cards: Valhalla for those going; then the blessings' Glory from the discard pile; then the
    # excess to the discard pile (so a blessing never draws a Warrior discarded in the same battle)
    excess = np.empty(L.MAX_TEAM, np.int64)
    n_excess = 0
    for i in range(s[L.TEAM_N] - 1, -1, -1):
        w = s[L.TEAM + i]
        activated = False
        for j in range(k):
            if team_idx[j] == i:
                activated = True
        if gone[i]:
            remove_at(s, L.TEAM_N, i)
            push(s, L.VAL_N, w)
        elif activated and discard_rest:
            remove_at(s, L.TEAM_N, i)
            excess[n_excess] = w
            n_excess += 1
    for i in range(n_going):
        if bonuses[i] > 0:
            blessing_draw(s, T, bonuses[i], cap)
    for i in range(n_excess):
        push(s, L.DISC_N, excess[i])


@njit(cache=True)
def battle(s, T, rules, kind, params, rng, prng, attacking):
    """A battle: "roll their dice, use Battle Tactics cards and rerolls in order to attempt to win". Attacking,
    "the goal is to match or exceed the Battle Strength"; defending, "only … by achieving a Battle Strength higher
    than the monster's". Strength = activated Warriors + Battle Tactics + the Glory in Valhalla."""
    cards, need, mon, jarl_row, faces = T[0], T[1], T[3], T[7], T[8]
    S = need.shape[1]
    k = s[L.MON]
    n = s[L.TEAM_N]
    team = np.empty(L.MAX_TEAM, np.int64)
    for i in range(n):
        team[i] = s[L.TEAM + i]
    powers = rules[R_POWERS] == 1
    # Battle Tactics in hand, by effect
    played = np.zeros(L.MAX_HAND, np.bool_)
    silenced = False
    if attacking and powers and mon[k, L.M_POWER] != L.P_NONE:
        # worth silencing in an attack: what weakens the attack or punishes losing it (not a defence bonus)
        matters = mon[k, L.M_POWER] != L.P_DEFENCE
        for h in range(s[L.HAND_N]):
            c = s[L.HAND + h]
            if cards[c, L.C_TYPE] == L.TACTIC and cards[c, L.C_EFFECT] == L.T_SILENCE:
                if pol.coin(kind, prng, params[6] > 0 and matters):
                    played[h] = True
                    silenced = True
                break
    target = monster_strength(s, T, rules, attacking, silenced)
    needed = target if attacking else target + 1
    dice = rules[R_DICE]
    if jarl_row[0] == L.J_EXTRA_DIE:
        dice += jarl_row[1]
    if powers and not silenced and mon[k, L.M_POWER] == L.P_EXTRA_DIE:
        dice = max(1, dice - mon[k, L.M_PVAL])
    basic_ok = not (powers and not silenced and mon[k, L.M_POWER] == L.P_NO_REROLL)
    free = jarl_row[1] if jarl_row[0] == L.J_REROLL else 0
    pool = np.zeros(S + 1, np.int64)
    for _ in range(dice):
        pool[roll_die(rng, faces)] += 1
    # Weapon Delivery: "may be treated as a weapon die with the symbol shown on the card" — a card, not a die:
    # it counts for activation (``fixed``) but is never rerolled or discarded for a reroll
    fixed = np.zeros(S + 1, np.int64)
    for h in range(s[L.HAND_N]):
        c = s[L.HAND + h]
        if cards[c, L.C_TYPE] == L.TACTIC and cards[c, L.C_EFFECT] == L.T_DELIVERY and not played[h]:
            before = best_activation(s, T, rules, pool, team, n, -1)[1]
            pool[cards[c, L.C_SYMBOL]] += 1
            after = best_activation(s, T, rules, pool, team, n, -1)[1]
            if pol.coin(kind, prng, after > before):
                played[h] = True
                fixed[cards[c, L.C_SYMBOL]] += 1
            else:
                pool[cards[c, L.C_SYMBOL]] -= 1
    # free rerolls from Battle Tactics (played only when a reroll is wanted)
    glory = s[L.GLORY]
    bonus = 0
    if jarl_row[0] == L.J_ATTACK and attacking:
        bonus += jarl_row[1]
    if jarl_row[0] == L.J_DEFENCE and not attacking:
        bonus += jarl_row[1]
    ice_extra = False
    basic_used = False
    mask, st, used = best_activation(s, T, rules, pool, team, n, -1)
    clan_rerolls_given = 0
    for step in range(12):
        # "The first Ice Giant that the player activates gives them one additional die."
        if not ice_extra:
            for i in range(n):
                if (mask >> i) & 1 and is_ice_giant(T, team[i]) and cards[team[i], L.C_SPECIAL] == 1:
                    ice_extra = True
                    pool[roll_die(rng, faces)] += 1
                    mask, st, used = best_activation(s, T, rules, pool, team, n, -1)
                    break
        # clan "reroll" power: a free reroll per activated Warrior that has it (once each)
        cr = 0
        for i in range(n):
            w = team[i]
            if (mask >> i) & 1 and cards[w, L.C_SPECIAL] == 1 and cards[w, L.C_CLAN] >= 0 \
                    and T[6][cards[w, L.C_CLAN]] == L.A_REROLL:
                cr += 1
        if cr > clan_rerolls_given:
            free += cr - clan_rerolls_given
            clan_rerolls_given = cr
        if glory + bonus + st >= needed and kind != pol.RANDOM:
            break
        rolled = pool - fixed
        idle = rolled - np.maximum(used - fixed, 0)  # delivered symbols are used first
        n_idle = idle.sum()
        if kind == pol.RANDOM:
            if randbelow(prng, 2) == 0 or rolled.sum() < 2:
                break
            idle[:] = 0
            for sym in range(S + 1):
                for _ in range(rolled[sym]):
                    if randbelow(prng, 2) == 1:
                        idle[sym] += 1
            n_idle = idle.sum()
            if n_idle == 0:
                break
        elif params[5] == 0 or n_idle == 0:
            break
        if free == 0:
            for h in range(s[L.HAND_N]):
                c = s[L.HAND + h]
                if not played[h] and cards[c, L.C_TYPE] == L.TACTIC and cards[c, L.C_EFFECT] == L.T_REROLL:
                    played[h] = True
                    free += cards[c, L.C_VALUE]
                    break
        if free > 0:
            free -= 1
            reroll(rng, faces, pool, idle)
        elif basic_ok and rolled.sum() >= 2 and n_idle >= 2:
            # "the player may discard 1 die from their pool of dice to reroll any of the remaining dice"
            for sym in range(S, -1, -1):
                if idle[sym] > 0:
                    idle[sym] -= 1
                    pool[sym] -= 1
                    break
            reroll(rng, faces, pool, idle)
            basic_used = True
        else:
            break
        mask, st, used = best_activation(s, T, rules, pool, team, n, -1)
    total = glory + bonus + st
    # Path to Valhalla (option "own", defence only): one activated Warrior's strength is not counted, and it goes to
    # Valhalla after the battle whatever the result
    path_warrior = -1
    if rules[R_PATH_OWN] == 1 and not attacking and mask != 0:
        for h in range(s[L.HAND_N]):
            c = s[L.HAND + h]
            if not played[h] and cards[c, L.C_TYPE] == L.TACTIC and cards[c, L.C_EFFECT] == L.T_PATH:
                for i in range(n):
                    if (mask >> i) & 1:
                        m2, st2, u2 = best_activation(s, T, rules, pool, team, n, i)
                        if pol.coin(kind, prng, glory + bonus + st2 >= needed):
                            played[h] = True
                            path_warrior = i
                            mask, st, used = m2, st2, u2
                            total = glory + bonus + st
                        break
                break
    # strength Battle Tactics ("smaller team" ones "work when the player has less Warriors than Warrior symbols
    # shown on the Monster card"). A Battle Tactic is activated by dice like a Warrior (Weapon Delivery "may be
    # treated as a weapon die … to activate a Warrior or a Battle Tactic card"): it takes its dice from those the
    # Warriors left. The heuristic plays them only when they make the difference.
    spare = pool - used
    trial = np.empty(S + 1, np.int64)
    fits = np.zeros(L.MAX_HAND, np.bool_)
    extra = 0
    for h in range(s[L.HAND_N]):
        c = s[L.HAND + h]
        if played[h] or cards[c, L.C_TYPE] != L.TACTIC:
            continue
        e = cards[c, L.C_EFFECT]
        if e == L.T_STRENGTH or (e == L.T_SMALLER and n < mon[k, L.M_WSYM]):
            trial[:] = spare
            if fit(T, rules, c, trial):
                spare[:] = trial
                fits[h] = True
                extra += cards[c, L.C_VALUE]
    if kind == pol.RANDOM or total + extra >= needed:
        for h in range(s[L.HAND_N]):
            if fits[h] and (total < needed or kind == pol.RANDOM) and pol.coin(kind, prng, True):
                played[h] = True
                total += cards[s[L.HAND + h], L.C_VALUE]
    won = total >= needed
    # "Used Battle Tactics cards go to the discard pile after the battle."
    for h in range(s[L.HAND_N] - 1, -1, -1):
        if played[h]:
            push(s, L.DISC_N, remove_at(s, L.HAND_N, h))
    act = np.empty(L.MAX_TEAM, np.int64)
    n_act = 0
    for i in range(n):
        if (mask >> i) & 1 or i == path_warrior:
            act[n_act] = i
            n_act += 1
    resolve(s, T, rules, kind, params, prng, attacking, won, act, n_act, path_warrior, total - target, basic_used,
            silenced)


@njit(cache=True)
def resolve(s, T, rules, kind, params, prng, attacking, won, act, n_act, path_warrior, margin, basic_used,
            silenced=False):
    """The battle's consequences (valhalla-solo.txt, Battle)."""
    mon = T[3]
    K = mon.shape[0]
    for sym in range(L.MAX_SYM):
        if attacking and not won:
            break  # "All of the monster's dice remain where they are."
        s[L.COVER + sym] = 0
    if path_warrior >= 0:
        w = s[L.TEAM + path_warrior]
        remove_at(s, L.TEAM_N, path_warrior)
        if not send_to_valhalla(s, T, w, mon[s[L.MON], L.M_MAX_GLORY]):
            push(s, L.DISC_N, w)
        keep = 0  # the Path Warrior has left the team: drop it, then shift the indices above it
        for i in range(n_act):
            if act[i] != path_warrior:
                act[keep] = act[i] - 1 if act[i] > path_warrior else act[i]
                keep += 1
        n_act = keep
    if attacking and won:
        # "the defeated card is placed aside, revealing a higher-level monster card"; "After defeating the last
        # Monster card, the player wins the game."
        s[L.ATT_WON] += 1
        s[L.MON] += 1
        if s[L.MON] >= K:
            s[L.DONE] = 1
            return
        # "After winning on the attack, the new monster card is revealed and the new limit is revealed. After
        # that, Warriors go to Valhalla." — all activated, the excess discarded
        to_valhalla(s, T, kind, params, prng, act, n_act, mon[s[L.MON], L.M_MAX_GLORY], 1, True)
    elif attacking:
        # "they can send 1 of their activated Warriors to Valhalla … After that, the 2 topmost cards from the deck
        # are discarded."
        s[L.ATT_LOST] += 1
        to_valhalla(s, T, kind, params, prng, act, n_act, mon[s[L.MON], L.M_MAX_GLORY], 0, False)
        lost_battle_discards(s, T, rules, silenced)
    elif won:
        # "the player may send any of their activated Warriors to Valhalla"
        s[L.DEF_WON] += 1
        if pol.coin(kind, prng, params[4] > 0):
            to_valhalla(s, T, kind, params, prng, act, n_act, mon[s[L.MON], L.M_MAX_GLORY], 1, False)
    else:
        # "send 1 of their activated Warriors to Valhalla … Then they must remove 1 of their shields from their game
        # board and discard the 2 topmost cards from the deck."
        s[L.DEF_LOST] += 1
        to_valhalla(s, T, kind, params, prng, act, n_act, mon[s[L.MON], L.M_MAX_GLORY], 0, False)
        s[L.SHIELDS] -= 1
        if s[L.SHIELDS] <= 0:
            s[L.DONE] = 1
            s[L.CAUSE] = L.CAUSE_SHIELDS
            return
        lost_battle_discards(s, T, rules, silenced)
    if won:
        mission(s, T, margin, n_act, basic_used, attacking)


@njit(cache=True)
def lost_battle_discards(s, T, rules, silenced=False):
    """"After losing a battle … the player discards 2 [Level I] / 4 [II] / 6 [III] cards from the deck", plus the
    monster's "discard" power unless a Battle Tactic silenced it for this battle."""
    mon = T[3]
    n = rules[R_DISCARD]
    if rules[R_POWERS] == 1 and not silenced and mon[s[L.MON], L.M_POWER] == L.P_DISCARD:
        n += mon[s[L.MON], L.M_PVAL]
    discard_from_deck(s, n)


@njit(cache=True)
def mission(s, T, margin, n_act, basic_used, attacking):
    """"A Mission card gives an additional 2 Glory Points when the player wins a battle while meeting the
    requirement shown on the card. Only one such card may be played after each battle.\""""
    cards = T[0]
    for h in range(s[L.HAND_N]):
        c = s[L.HAND + h]
        if cards[c, L.C_TYPE] != L.MISSION:
            continue
        q = cards[c, L.C_REQ]
        ok = (q == L.Q_NO_BASIC_REROLLS and not basic_used) or (q == L.Q_STRENGTH_5 and margin >= 5) \
            or (q == L.Q_THREE_ACTIVATED and n_act >= 3)
        if ok:
            remove_at(s, L.HAND_N, h)
            push(s, L.VAL_N, c)
            s[L.GLORY] += 2
            s[L.MISSIONS] += 1
            return


# --- the monster phase -----------------------------------------------------------------------------

@njit(cache=True)
def monster_phase(s, T, rules, kind, params, rng, prng):
    """"The player rolls the monster dice … If any of the rolled weapons match those on the monster card, the
    player places them on the corresponding weapon(s). If all of the weapons on the card are filled, the monster
    attacks." The ⊗ face covers nothing unless the rule option says so."""
    mon, mweap, mwild, faces = T[3], T[4], T[5], T[8]
    S = mweap.shape[1]
    k = s[L.MON]
    on_card = 0
    for sym in range(S):
        on_card += s[L.COVER + sym]
    if on_card == 0:
        s[L.EMPTY_PHASES + k] += 1
    for _ in range(rules[R_DICE] - on_card):
        f = roll_die(rng, faces)
        if f < S:
            if s[L.COVER + f] < mweap[k, f]:
                s[L.COVER + f] += 1
        elif rules[R_WILD_MONSTER] == 1:
            for j in range(S):
                sym = mwild[k, j]
                if sym < 0:
                    break
                if s[L.COVER + sym] < mweap[k, sym]:
                    s[L.COVER + sym] += 1
                    break
    full = True
    for sym in range(S):
        if s[L.COVER + sym] < mweap[k, sym]:
            full = False
    if full:
        s[L.MON_ATTACKS] += 1
        if on_card == 0:
            s[L.EMPTY_ATTACKS + k] += 1
        battle(s, T, rules, kind, params, rng, prng, False)


# --- a player's turn ----------------------------------------------------------------------------------

@njit(cache=True)
def n_weapons(T, c):
    return T[1][c].sum() + T[0][c, L.C_ANY]


@njit(cache=True)
def draw_keep(s, T, rules, kind, params, prng, n_draw):
    """"draw 2 cards, choose one to keep, and discard the other" (3 with the +40 deck)."""
    drawn = np.empty(8, np.int64)
    m = 0
    for _ in range(n_draw):
        c = draw(s)
        if c < 0:
            break
        drawn[m] = c
        m += 1
    if m == 0:
        return
    keep = pol.choose_keep(kind, params, prng, s, T, drawn, m)
    for i in range(m):
        if i == keep and s[L.HAND_N] < L.MAX_HAND:  # a simulator bound on the hand, far above what play reaches
            push(s, L.HAND_N, drawn[i])
        else:
            push(s, L.DISC_N, drawn[i])


@njit(cache=True)
def play_warrior(s, hand_idx):
    push(s, L.TEAM_N, remove_at(s, L.HAND_N, hand_idx))


@njit(cache=True)
def phase_a(s, T, rules, kind, params, rng, prng):
    """Phase A: "one of four actions — play one Warrior to your team; play two Warriors whose weapon symbols total
    at most 3; draw (2 cards, keep 1); attack". "Players are still obliged to play a Warrior in Phase A, if his
    team is empty." A team holds at most 4 Warriors."""
    cards = T[0]
    legal = np.zeros(4, np.int64)
    one, two_a, two_b = -1, -1, -1
    warriors = 0
    for h in range(s[L.HAND_N]):
        if cards[s[L.HAND + h], L.C_TYPE] == L.WARRIOR:
            warriors += 1
    legal[PLAY_ONE] = warriors >= 1 and s[L.TEAM_N] < L.MAX_TEAM
    if warriors >= 2 and s[L.TEAM_N] <= L.MAX_TEAM - 2:
        for a in range(s[L.HAND_N]):
            for b in range(a + 1, s[L.HAND_N]):
                ca, cb = s[L.HAND + a], s[L.HAND + b]
                if cards[ca, L.C_TYPE] == L.WARRIOR and cards[cb, L.C_TYPE] == L.WARRIOR \
                        and n_weapons(T, ca) + n_weapons(T, cb) <= 3:
                    legal[PLAY_TWO] = 1
    legal[DRAW] = s[L.DECK_N] > 0
    legal[ATTACK] = s[L.TEAM_N] > 0
    if s[L.TEAM_N] == 0 and warriors > 0:
        legal[DRAW] = 0
        legal[ATTACK] = 0
    a = pol.choose_phase_a(kind, params, prng, s, T, rules, legal)
    if a == PLAY_ONE:
        play_warrior(s, pol.choose_warrior(kind, params, prng, s, T, -1))
    elif a == PLAY_TWO:
        pa, pb = pol.choose_pair(kind, params, prng, s, T)
        play_warrior(s, pb)  # the higher index first, so the lower stays valid
        play_warrior(s, pa)
    elif a == DRAW:
        draw_keep(s, T, rules, kind, params, prng, 2)
    elif a == ATTACK:
        battle(s, T, rules, kind, params, rng, prng, True)


@njit(cache=True)
def final_attack(s, T, rules, kind, params, rng, prng):
    """"If the player draws (or discards) the last card from the deck, he may attack for the last time … It is only
    possible if the active Monster card is the last one. If any other card is on the top of the monster deck, the
    player loses immediately. If the player loses the final attack, they lose the game.\""""
    K = T[3].shape[0]
    if s[L.MON] == K - 1:  # with no Warrior left the Glory in Valhalla may still be enough
        battle(s, T, rules, kind, params, rng, prng, True)
    if s[L.MON] < K:
        s[L.CAUSE] = L.CAUSE_DECK
    s[L.DONE] = 1


@njit(cache=True)
def setup(s, T, rules, kind, params, shuffler, prng, deck_cards):
    """Game preparation: shuffle the deck, "discards 40 cards from the top of the deck, creating a discard pile",
    draw 6, and "may exchange any of the cards in their hand … only once"; 4 shields (Jarl powers may change
    the shields and the starting Glory)."""
    jarl_row = T[7]
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
    aside = np.empty(L.MAX_HAND, np.int64)
    m = 0
    for h in range(s[L.HAND_N] - 1, -1, -1):
        if pol.want_exchange(kind, params, prng, s, T, s[L.HAND + h]):
            aside[m] = remove_at(s, L.HAND_N, h)
            m += 1
    for _ in range(m):
        push(s, L.HAND_N, draw(s))
    # "shuffle the cards placed back into the deck"
    for i in range(m):
        push(s, L.DECK_N, aside[i])
    base = L.DECK
    cnt = s[L.DECK_N]
    tmp = np.empty(cnt, np.int64)
    for i in range(cnt):
        tmp[i] = s[base + i]
    shuffle(shuffler, tmp, cnt)
    for i in range(cnt):
        s[base + i] = tmp[i]
    s[L.EXHAUSTED] = 0


@njit(cache=True)
def play(s, T, rules, kind, params, rng, prng, shuffler, deck_cards):
    """One solo game: preparation, then turns of Phase A, Phase B and the monster phase until the monster falls,
    the fourth shield is lost or the deck runs out."""
    setup(s, T, rules, kind, params, shuffler, prng, deck_cards)
    run(s, T, rules, kind, params, rng, prng)


@njit(cache=True)
def run(s, T, rules, kind, params, rng, prng):
    jarl_row = T[7]
    phase_b = 3 if rules[R_PLUS40] == 1 else 2
    if jarl_row[0] == L.J_DRAW:
        phase_b += jarl_row[1]
    while s[L.DONE] == 0:
        s[L.TURNS] += 1
        if s[L.TURNS] > rules[R_TURN_CAP]:
            s[L.DONE] = 1
            s[L.CAUSE] = L.CAUSE_CAP
            break
        phase_a(s, T, rules, kind, params, rng, prng)
        if s[L.DONE]:
            break
        if s[L.EXHAUSTED]:
            final_attack(s, T, rules, kind, params, rng, prng)
            break
        # Phase B: "draw 2 cards, choose one to keep, and discard the other" (+40: "draws 3 cards and keeps 1")
        draw_keep(s, T, rules, kind, params, prng, phase_b)
        if s[L.EXHAUSTED]:
            final_attack(s, T, rules, kind, params, rng, prng)
            break
        # "If a player has no Warriors on his team after Phase B, the monster phase is skipped this turn."
        if s[L.TEAM_N] > 0:
            monster_phase(s, T, rules, kind, params, rng, prng)
        if s[L.DONE]:
            break
        if s[L.EXHAUSTED]:
            final_attack(s, T, rules, kind, params, rng, prng)
            break
