"""Valhalla multiplayer features for `learned` policies (``simkit.core.decision``: sparse feature vectors).

``features(s, env, a, is_base, idx, val)`` describes action ``a`` of the seat to move from what that seat sees: its
own hand, its offered Jarls and the cards it drew, every Warband, Valhalla's Glory and shields (public), the size
of the deck (never its order, nor another hand), in battle its own dice and the attacker's total, and after it
the cards a blessing's set takes from the (face-up) discard pile. Slots::

    0                          is_base: the base heuristic plays ``a`` here
    1 .. N_CAT                 is_base x the action's kind (CATEGORIES)
    CAT0 ..                    the action's kind x the state (SCALARS)
    NUM0 ..                    the action's own numbers (NUMBERS)
"""

from __future__ import annotations

from numba import njit

from simkit.core.decision import Parts
from simkit.games.valhalla import glory as G
from simkit.games.valhalla.multi import fight as F
from simkit.games.valhalla.multi import layout as L
from simkit.games.valhalla.multi.state import hand, pb, team
from simkit.games.valhalla.solo import layout as C

CATEGORIES = ("jarl", "draft", "discard2", "play", "pair", "draw", "attack", "pair_second", "keep", "silence_no",
              "silence_yes", "path_no", "path_yes", "path_pick", "roll_stop", "deliver", "free_reroll",
              "basic_reroll", "commit", "bless", "mission", "mission_none")
SCALARS = ("bias", "shields", "glory_lead", "deck", "team", "hand", "attacking", "players")
NUMBERS = ("card_strength", "card_glory", "card_tactic", "card_mission", "target_gap", "target_glory",
           "target_shields", "jarl_value", "stop_strength", "stop_ahead", "rerolled", "commit_value", "pick_strength",
           "bless_cards")
N_CAT = len(CATEGORIES)
N_SCALARS = len(SCALARS)
BASE0 = 1
CAT0 = BASE0 + N_CAT
NUM0 = CAT0 + N_CAT * N_SCALARS
FEATURES = tuple(["is_base"] + [f"is_base_x_{c}" for c in CATEGORIES]
                 + [f"{c}_x_{k}" for c in CATEGORIES for k in SCALARS] + list(NUMBERS))
N_FEATURES = len(FEATURES)
MAX_NNZ = 2 + N_SCALARS + 4
(CARD_STRENGTH, CARD_GLORY, CARD_TACTIC, CARD_MISSION, TARGET_GAP, TARGET_GLORY, TARGET_SHIELDS, JARL_VALUE,
 STOP_STRENGTH, STOP_AHEAD, REROLLED, COMMIT_VALUE, PICK_STRENGTH, BLESS_CARDS) = range(NUM0, NUM0 + len(NUMBERS))


@njit(cache=True, _nrt=False)
def expected(s, env, p):
    """Seat p's Warband: the sum of its Warriors' strength × P(6 dice activate it) (public)."""
    cards, p_act = env[L.E_CARDS], env[L.E_PACT]
    t = team(p)
    v = 0.0
    for i in range(s[t]):
        w = s[t + 1 + i]
        v += p_act[w] * cards[w, C.C_STR]
    return v


@njit(cache=True, _nrt=False)
def category(s, a):
    """The kind of action ``a`` here (the index of CATEGORIES)."""
    ph = s[L.PHASE]
    if ph == L.PH_JARL:
        return 0
    if ph == L.PH_DRAFT:
        return 1
    if ph == L.PH_DISCARD2:
        return 2
    if ph == L.PH_A:
        if a < L.A_PAIR:
            return 3
        if a < L.A_DRAW:
            return 4
        return 5 if a == L.A_DRAW else 6
    if ph == L.PH_PAIR2:
        return 7
    if ph == L.PH_KEEP:
        return 8
    if ph == L.PH_SILENCE:
        return 10 if a == L.A_YES else 9
    if ph == L.PH_PATH:
        return 12 if a == L.A_YES else 11
    if ph == L.PH_PATHPICK:
        return 13
    if ph == L.PH_ROLL:
        if a == L.A_STOP:
            return 14
        if a < L.A_PATH:
            return 15
        return 16 if a < L.A_BASIC else 17
    if ph == L.PH_BLESS:
        return 19
    if ph == L.PH_MISSION:
        return 21 if a == L.A_NO else 20
    return 18


@njit(cache=True, _nrt=False)
def _card(cards, p_act, c, idx, val, m, sign):
    """The card's numbers (``sign`` -1 for a card given up)."""
    t = cards[c, C.C_TYPE]
    if t == C.WARRIOR:
        idx[m], val[m] = CARD_STRENGTH, sign * p_act[c] * cards[c, C.C_STR] / 5.0
        idx[m + 1], val[m + 1] = CARD_GLORY, sign * cards[c, C.C_GLORY] / 3.0
        return m + 2
    if t == C.MISSION:
        idx[m], val[m] = CARD_MISSION, sign * 1.0
        return m + 1
    idx[m], val[m] = CARD_TACTIC, sign * (cards[c, C.C_VALUE] + 1) / 5.0
    return m + 1


@njit(cache=True, _nrt=False)
def kind(s, env, a):
    """``category`` with the decision interface's arguments."""
    return category(s, a)


@njit(cache=True, _nrt=False)
def features(s, env, a, is_base, idx, val):
    """The non-zero features of action ``a`` for the seat to move (at most ``MAX_NNZ``): is_base and is_base x
    the action's kind, then ``block``, then ``numbers``; returns their number."""
    cat = category(s, a)
    m = 0
    if is_base:
        idx[0], val[0] = 0, 1.0
        idx[1], val[1] = BASE0 + cat, 1.0
        m = 2
    m = block(s, env, cat, val, idx, val, m)  # (``st`` unused: ``val`` stands in)
    return numbers(s, env, a, cat, val, idx, val, m)


@njit(cache=True, _nrt=False)
def block(s, env, cat, st, idx, val, m):
    """The state (SCALARS, public and the mover's own) crossed with the action's kind ``cat``, after ``m``
    features written (``st`` unused)."""
    p = s[L.MOVER]
    best_other = -1
    for q in range(s[L.NP]):
        if q != p:
            best_other = max(best_other, s[pb(q) + L.P_GLORY])
    ph = s[L.PHASE]
    battle = ph == L.PH_SILENCE or ph == L.PH_PATH or ph == L.PH_PATHPICK or ph == L.PH_ROLL or ph == L.PH_COMMIT
    sc = (1.0, s[pb(p) + L.P_SHIELDS] / 4.0, (s[pb(p) + L.P_GLORY] - best_other) / 10.0, s[L.DECK_N] / 100.0,
          s[team(p)] / 4.0, s[hand(p)] / 10.0, 1.0 if battle and p == s[L.B_ATT] else 0.0, s[L.NP] / 6.0)
    for k in range(N_SCALARS):
        if sc[k] != 0.0:
            idx[m], val[m] = CAT0 + cat * N_SCALARS + k, sc[k]
            m += 1
    return m


@njit(cache=True, _nrt=False)
def numbers(s, env, a, cat, st, idx, val, m):
    """The action's own numbers (NUMBERS), after ``m`` features written (``st`` unused)."""
    cards, p_act = env[L.E_CARDS], env[L.E_PACT]
    p = s[L.MOVER]
    ph = s[L.PHASE]
    h = hand(p)
    if ph == L.PH_JARL:
        jr = env[L.E_JARLS]
        j = s[L.JOFFER + 3 * p + a - L.A_JARL]
        idx[m], val[m] = JARL_VALUE, jr[j, 1] * (1.0 + jr[j, 0]) / 8.0
        m += 1
    elif ph == L.PH_DRAFT or ph == L.PH_KEEP:
        m = _card(cards, p_act, s[L.DRAWN + a - L.A_KEEP], idx, val, m, 1.0)
    elif ph == L.PH_DISCARD2:
        k = a - L.A_DISC2
        c1, c2 = s[h + 1 + k // 8], s[h + 1 + k % 8]
        idx[m], val[m] = CARD_STRENGTH, -(p_act[c1] * cards[c1, C.C_STR] + p_act[c2] * cards[c2, C.C_STR]) / 5.0
        idx[m + 1], val[m + 1] = CARD_GLORY, -(cards[c1, C.C_GLORY] + cards[c2, C.C_GLORY]) / 3.0
        m += 2
    elif ph == L.PH_A or ph == L.PH_PAIR2:
        if a < L.A_PAIR:
            m = _card(cards, p_act, s[h + 1 + a - L.A_PLAY], idx, val, m, 1.0)
        elif a < L.A_DRAW:
            m = _card(cards, p_act, s[h + 1 + a - L.A_PAIR], idx, val, m, 1.0)
        elif a > L.A_DRAW:
            t = a - L.A_ATTACK
            idx[m], val[m] = TARGET_GAP, (expected(s, env, t) - expected(s, env, p)) / 10.0
            idx[m + 1], val[m + 1] = TARGET_GLORY, (s[pb(t) + L.P_GLORY] - s[pb(p) + L.P_GLORY]) / 10.0
            idx[m + 2], val[m + 2] = TARGET_SHIELDS, s[pb(t) + L.P_SHIELDS] / 4.0
            m += 3
    elif ph == L.PH_PATHPICK:
        i = a - L.A_PATH
        idx[m], val[m] = PICK_STRENGTH, cards[s[team(s[L.B_ATT]) + 1 + i], C.C_STR] / 5.0
        m += 1
    elif ph == L.PH_ROLL:
        if a == L.A_STOP:
            mm, st = F.best_joint(s, env, p, F.pool(s, env), 0)
            idx[m], val[m] = STOP_STRENGTH, st / 10.0
            m += 1
            if s[L.B_SIDE] == 1:
                idx[m], val[m] = STOP_AHEAD, (st - s[L.B_TOT]) / 10.0
                m += 1
        elif a >= L.A_FREE:
            mask = (a - L.A_FREE) if a < L.A_BASIC else (a - L.A_BASIC)
            k = 0
            while mask:
                k += mask & 1
                mask >>= 1
            idx[m], val[m] = REROLLED, k / 6.0
            m += 1
    elif ph == L.PH_COMMIT:
        t = a - L.A_COMMIT
        v = 0
        for j in range(s[L.CAND_N]):
            if (t >> j) & 1:
                v += cards[s[L.CAND + j], C.C_VALUE]
        idx[m], val[m] = COMMIT_VALUE, v / 5.0
        m += 1
    elif ph == L.PH_BLESS:
        # how many Warriors the set takes from the discard pile (``glory.blessing_choice``'s code)
        code = G.blessing_choice(s, L.DISC_N, cards, s[L.BLESS], a - L.A_BLESS)
        idx[m], val[m] = BLESS_CARDS, ((code & 15) + ((code >> 4) & 15) + ((code >> 8) & 15)) / 3.0
        m += 1
    elif ph == L.PH_MISSION and a != L.A_NO:
        idx[m], val[m] = CARD_MISSION, 1.0
        m += 1
    return m


# the features split for scoring (``simkit.core.decision.Parts``; ``specialize_learned`` finds them on ``features``)
features.learned_parts = Parts(kind, block, numbers, N_CAT)
