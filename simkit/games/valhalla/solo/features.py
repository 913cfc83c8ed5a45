"""Valhalla Solo features for `learned` policies (``simkit.core.decision``: sparse feature vectors), and the
counts of what the player sees that the heuristic shares with them (``estimate``, ``best_total``,
``base_strength``).

``features(s, env, a, is_base, idx, val)`` describes action ``a`` from what the player sees: the hand, the team,
the Glory in Valhalla, the shields, the active monster card and the monster dice on it, how many cards the deck
has left (never which cards, nor their order), the dice rolled so far in a battle and the Battle Tactics in hand
("During the game, the player may only look at the card directly below the active one": only the active card is
read). Slots::

    0                        is_base: the base heuristic plays ``a`` here
    1 .. 22                  is_base x the action's kind (CATEGORIES): how far to trust the heuristic, kind by kind
    23 .. 23 + 22 x 11 - 1   the action's kind x the state (SCALARS, 11): which kind of action pays in which
                             situation
    NUMBERS                  the action's own numbers (NUMBERS: the card played, kept or sent; the estimate of an
                             attack against the monster's strength; the strength the dice reach against what wins
                             when stopping; which dice a reroll throws again; a commit's Tactics and whether they
                             win)

Every per-action count is a few reads of the state, so that scoring the hundred-odd reroll masks of a roll costs
little; the strength the dice reach now (``best_total``) is counted once, on the stop action (a conditional logit
compares actions, so a number on one action is as good as its difference on all).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simkit.core.decision import Parts
from simkit.games.valhalla.solo import engine as E
from simkit.games.valhalla.solo import layout as L

# what each decision's actions are, by kind (slot order of the category block)
CATEGORIES = (
    "exchange_keep", "exchange_aside", "play", "pair", "draw", "attack", "pair_second", "keep", "silence_no",
    "silence_yes", "roll_stop", "deliver", "free_reroll", "basic_reroll", "commit_none", "commit_tactics",
    "path_no", "path_yes", "send_one", "send_none", "group_none", "group_send",
)
SCALARS = ("bias", "shields", "glory", "progress", "deck", "team", "hand", "monster_gap", "threat", "attacking",
           "free_rerolls")
NUMBERS = ("card_strength", "card_glory", "card_weapons", "card_tactic_value", "card_reroll", "card_delivery",
           "card_other_tactic", "card_mission", "attack_ratio", "attack_margin", "stop_margin", "stop_wins",
           "rerolled_needed", "rerolled_wild", "rerolled_spare", "deliver_needed", "commit_value", "commit_cards",
           "commit_wins", "commit_margin", "path_still_wins", "group_glory", "group_size")
N_CAT = len(CATEGORIES)
N_SCALARS = len(SCALARS)
BASE0 = 1
CAT0 = BASE0 + N_CAT
NUM0 = CAT0 + N_CAT * N_SCALARS
FEATURES = tuple(["is_base"] + [f"is_base_x_{c}" for c in CATEGORIES]
                 + [f"{c}_x_{k}" for c in CATEGORIES for k in SCALARS] + list(NUMBERS))
N_FEATURES = len(FEATURES)
MAX_NNZ = 2 + N_SCALARS + 8
(CARD_STRENGTH, CARD_GLORY, CARD_WEAPONS, CARD_TACTIC_VALUE, CARD_REROLL, CARD_DELIVERY, CARD_OTHER_TACTIC,
 CARD_MISSION, ATTACK_RATIO, ATTACK_MARGIN, STOP_MARGIN, STOP_WINS, REROLLED_NEEDED, REROLLED_WILD, REROLLED_SPARE,
 DELIVER_NEEDED, COMMIT_VALUE, COMMIT_CARDS, COMMIT_WINS, COMMIT_MARGIN, PATH_STILL_WINS, GROUP_GLORY,
 GROUP_SIZE) = range(NUM0, NUM0 + len(NUMBERS))


# --- counts the heuristic shares ---------------------------------------------------------------------------------

@njit(cache=True, _nrt=False)
def estimate(s, env):
    """Expected strength of an attack now: Glory + each Warrior's strength × P(the dice activate it alone) +
    strength Battle Tactics in hand."""
    cards, p_act, jr = env[0], env[2], env[7]
    e = float(s[L.GLORY])
    if jr[0] == L.J_ATTACK:
        e += jr[1]
    for i in range(s[L.TEAM_N]):
        w = s[L.TEAM + i]
        e += p_act[w] * cards[w, L.C_STR]
    for h in range(s[L.HAND_N]):
        c = s[L.HAND + h]
        if cards[c, L.C_TYPE] == L.TACTIC and cards[c, L.C_EFFECT] == L.T_STRENGTH:
            e += cards[c, L.C_VALUE]
    return e


@njit(cache=True, _nrt=False)
def best_total(s, env, pool):
    """The most strength the dice ``pool`` give with any activatable set of the candidate Battle Tactics, and
    that set."""
    cards, need, ca = env[0], env[1], env[6]
    wild = env[9][E.R_WILD_WARRIORS] == 1
    best_v, best_t, best_m = -1, 0, -1
    for t in range(1 << s[L.CAND_N]):
        if not E.tset_feasible(s, cards, need, ca, wild, pool, t):
            continue
        m, st = E.best_joint(s, env, pool, t)
        if m < 0:
            continue
        v = st + E.tset_value(s, env[0], t)
        if v > best_v:
            best_v, best_t, best_m = v, t, m
    return best_v, best_t, best_m


@njit(cache=True, inline="always")
def base_strength(s, env):
    """What the battle adds to the dice: "the sum of those Glory Points" in Valhalla, and a Jarl's attack or
    defence bonus."""
    jr = env[7]
    b = s[L.GLORY]
    if jr[0] == L.J_ATTACK and s[L.B_ATTACK] == 1:
        b += jr[1]
    if jr[0] == L.J_DEFENCE and s[L.B_ATTACK] == 0:
        b += jr[1]
    return b


@njit(cache=True, _nrt=False)
def attack_target(s, env):
    """The strength an attack on the active card must reach, its attack power included (the heuristic's
    target)."""
    mon, rules = env[3], env[9]
    k = s[L.MON]
    target = mon[k, L.M_STRENGTH]
    if rules[E.R_POWERS] == 1 and mon[k, L.M_POWER] == L.P_ATTACK:
        target += mon[k, L.M_PVAL]
    return target


# --- the features ------------------------------------------------------------------------------------------------

@njit(cache=True, _nrt=False)
def category(s, a):
    """The kind of action ``a`` at the pending decision (an index into CATEGORIES)."""
    ph = s[L.PHASE]
    if ph == L.PH_EXCHANGE:
        return 1 if a == L.A_YES else 0
    if ph == L.PH_A:
        if a == L.A_DRAW:
            return 4
        if a == L.A_ATTACK:
            return 5
        return 3 if a >= L.A_PAIR else 2
    if ph == L.PH_PAIR2:
        return 6
    if ph == L.PH_KEEP:
        return 7
    if ph == L.PH_SILENCE:
        return 9 if a == L.A_YES else 8
    if ph == L.PH_ROLL:
        if a == L.A_STOP:
            return 10
        if a < L.A_SEND:
            return 11
        return 13 if a >= L.A_BASIC else 12
    if ph == L.PH_COMMIT:
        return 14 if a == L.A_COMMIT else 15
    if ph == L.PH_PATH:
        return 16 if a == L.A_NO else 17
    if ph == L.PH_SEND1:
        return 19 if a == L.A_NO else 18
    return 20 if a == L.A_GROUP else 21


@njit(cache=True, inline="always")
def _put(idx, val, m, slot, value):
    idx[m] = slot
    val[m] = value
    return m + 1


@njit(cache=True, _nrt=False)
def _card(env, c, idx, val, m):
    """A card's own numbers: a Warrior's expected strength (strength × P(the dice activate it alone)), Glory and
    named weapons; a Battle Tactic's value and effect; a Mission."""
    cards, need, p_act = env[0], env[1], env[2]
    t = cards[c, L.C_TYPE]
    if t == L.WARRIOR:
        weapons = cards[c, L.C_ANY]
        for sym in range(need.shape[1]):
            weapons += need[c, sym]
        m = _put(idx, val, m, CARD_STRENGTH, p_act[c] * cards[c, L.C_STR] / 5.0)
        m = _put(idx, val, m, CARD_GLORY, cards[c, L.C_GLORY] / 5.0)
        m = _put(idx, val, m, CARD_WEAPONS, weapons / 3.0)
    elif t == L.MISSION:
        m = _put(idx, val, m, CARD_MISSION, 1.0)
    else:
        e = cards[c, L.C_EFFECT]
        m = _put(idx, val, m, CARD_TACTIC_VALUE, cards[c, L.C_VALUE] / 3.0)
        if e == L.T_REROLL:
            m = _put(idx, val, m, CARD_REROLL, 1.0)
        elif e == L.T_DELIVERY:
            m = _put(idx, val, m, CARD_DELIVERY, 1.0)
        elif e != L.T_STRENGTH:
            m = _put(idx, val, m, CARD_OTHER_TACTIC, 1.0)
    return m


@njit(cache=True, _nrt=False)
def _named(s, env):
    """The weapon symbols (bitmask) that a team Warrior or a candidate Battle Tactic names."""
    need = env[1]
    named = 0
    for i in range(s[L.TEAM_N] + s[L.CAND_N]):
        c = s[L.TEAM + i] if i < s[L.TEAM_N] else s[L.CAND + i - s[L.TEAM_N]]
        for sym in range(need.shape[1]):
            if need[c, sym] > 0:
                named |= 1 << sym
    return named


@njit(cache=True, _nrt=False)
def kind(s, env, a):
    """``category`` with the decision interface's arguments."""
    return category(s, a)


@njit(cache=True, _nrt=False)
def features(s, env, a, is_base, idx, val):
    """The non-zero features of action ``a`` (see the module docstring): is_base, then ``block``, then
    ``numbers``; returns how many."""
    m = 0
    cat = category(s, a)
    if is_base:
        m = _put(idx, val, m, 0, 1.0)
        m = _put(idx, val, m, BASE0 + cat, 1.0)
    m = block(s, env, cat, val, idx, val, m)  # (``st`` unused: ``val`` stands in)
    return numbers(s, env, a, cat, val, idx, val, m)


@njit(cache=True, _nrt=False)
def block(s, env, cat, st, idx, val, m):
    """The state crossed with the action's kind ``cat`` (the same for every action of that kind here; ``st``
    unused)."""
    need, mon, mweap = env[1], env[3], env[4]
    S = need.shape[1]
    ph = s[L.PHASE]
    k = min(s[L.MON], mon.shape[0] - 1)
    covered = 0
    weapons = 0
    for sym in range(S):
        covered += s[L.COVER + sym]
        weapons += mweap[k, sym]
    in_battle = ph >= L.PH_SILENCE
    base = CAT0 + cat * N_SCALARS
    m = _put(idx, val, m, base, 1.0)
    m = _put(idx, val, m, base + 1, s[L.SHIELDS] / 4.0)
    m = _put(idx, val, m, base + 2, s[L.GLORY] / 10.0)
    m = _put(idx, val, m, base + 3, s[L.MON] / mon.shape[0])
    m = _put(idx, val, m, base + 4, s[L.DECK_N] / 40.0)
    m = _put(idx, val, m, base + 5, s[L.TEAM_N] / 4.0)
    m = _put(idx, val, m, base + 6, s[L.HAND_N] / 8.0)
    m = _put(idx, val, m, base + 7, (mon[k, L.M_STRENGTH] - s[L.GLORY]) / 10.0)
    m = _put(idx, val, m, base + 8, covered / max(weapons, 1))
    if in_battle and s[L.B_ATTACK] == 1:
        m = _put(idx, val, m, base + 9, 1.0)
    if in_battle:
        m = _put(idx, val, m, base + 10, s[L.B_FREE] / 3.0)
    return m


@njit(cache=True, _nrt=False)
def numbers(s, env, a, cat, st, idx, val, m):
    """The action's own numbers (NUMBERS), after ``m`` features written (``st`` unused)."""
    cards, need = env[0], env[1]
    S = need.shape[1]
    ph = s[L.PHASE]
    if ph == L.PH_EXCHANGE:
        if a == L.A_YES:
            m = _card(env, s[L.HAND + s[L.EX_I]], idx, val, m)
    elif ph == L.PH_A:
        if a < L.A_DRAW:
            m = _card(env, s[L.HAND + (a - L.A_PAIR if a >= L.A_PAIR else a - L.A_PLAY)], idx, val, m)
        elif a == L.A_ATTACK:
            est = estimate(s, env)
            target = attack_target(s, env)
            m = _put(idx, val, m, ATTACK_RATIO, est / max(target, 1))
            m = _put(idx, val, m, ATTACK_MARGIN, (est - target) / 5.0)
    elif ph == L.PH_PAIR2:
        m = _card(env, s[L.HAND + a - L.A_PLAY], idx, val, m)
    elif ph == L.PH_KEEP:
        m = _card(env, s[L.DRAWN + a - L.A_KEEP], idx, val, m)
    elif ph == L.PH_ROLL:
        if a == L.A_STOP:
            now, _, _ = best_total(s, env, E.battle_pool(s, S))
            margin = base_strength(s, env) + now - s[L.B_NEEDED]
            m = _put(idx, val, m, STOP_MARGIN, margin / 5.0)
            if margin >= 0:
                m = _put(idx, val, m, STOP_WINS, 1.0)
        elif a < L.A_SEND:
            sym = cards[s[L.HAND + a - L.A_DELIVER], L.C_SYMBOL]
            if sym < S and (_named(s, env) >> sym) & 1:
                m = _put(idx, val, m, DELIVER_NEEDED, 1.0)
        else:
            mask = a - L.A_BASIC if a >= L.A_BASIC else a - L.A_FREE
            named = _named(s, env)
            nd_need = nd_wild = nd_spare = 0
            for i in range(s[L.ND]):
                if (mask >> i) & 1:
                    sym = s[L.DICE + i]
                    if sym >= S:
                        nd_wild += 1
                    elif (named >> sym) & 1:
                        nd_need += 1
                    else:
                        nd_spare += 1
            if nd_need:
                m = _put(idx, val, m, REROLLED_NEEDED, nd_need / 6.0)
            if nd_wild:
                m = _put(idx, val, m, REROLLED_WILD, nd_wild / 6.0)
            if nd_spare:
                m = _put(idx, val, m, REROLLED_SPARE, nd_spare / 6.0)
    elif ph == L.PH_COMMIT:
        t = a - L.A_COMMIT
        v = E.tset_value(s, cards, t)
        wm, joint = E.best_joint(s, env, E.battle_pool(s, S), t)
        margin = base_strength(s, env) + joint + v - s[L.B_NEEDED]
        m = _put(idx, val, m, COMMIT_VALUE, v / 5.0)
        m = _put(idx, val, m, COMMIT_CARDS, E.popcount(t) / 3.0)
        m = _put(idx, val, m, COMMIT_MARGIN, margin / 5.0)
        if wm >= 0 and margin >= 0:
            m = _put(idx, val, m, COMMIT_WINS, 1.0)
    elif ph == L.PH_PATH:
        if a != L.A_NO:
            w = a - L.A_PATH
            m = _card(env, s[L.TEAM + w], idx, val, m)
            if s[L.B_TOTAL] - E.strength_env(s, env, w, s[L.B_ACT]) >= s[L.B_NEEDED]:
                m = _put(idx, val, m, PATH_STILL_WINS, 1.0)
    elif ph == L.PH_SEND1:
        if a != L.A_NO:
            m = _card(env, s[L.TEAM + a - L.A_SEND], idx, val, m)
    elif ph == L.PH_GROUP:
        g = a - L.A_GROUP
        glory = 0
        for j in range(s[L.TEAM_N]):
            if (g >> j) & 1:
                glory += cards[s[L.TEAM + j], L.C_GLORY]
        if g:
            m = _put(idx, val, m, GROUP_GLORY, glory / 5.0)
            m = _put(idx, val, m, GROUP_SIZE, E.popcount(g) / 4.0)
    return m


def dense(s, env, a, is_base) -> np.ndarray:
    """The features of ``a`` as a dense vector (tests, notebooks)."""
    idx = np.empty(MAX_NNZ, np.int64)
    val = np.empty(MAX_NNZ, np.float64)
    n = features(s, env, a, is_base, idx, val)
    out = np.zeros(N_FEATURES)
    np.add.at(out, idx[:n], val[:n])
    return out


# the features split for scoring (``simkit.core.decision.Parts``; ``specialize_learned`` finds them on ``features``)
features.learned_parts = Parts(kind, block, numbers, N_CAT)
