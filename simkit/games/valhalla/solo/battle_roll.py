"""The battle-optimal roll of Valhalla Solo, fast: ``battle.py``'s dynamic programme in numba, with float values.

"they roll their dice, use Battle Tactics cards and rerolls in order to attempt to win the battle"
(valhalla-solo.txt, Battle). At a ``PH_ROLL`` decision, ``best_roll`` returns the action (stop, a Weapon Delivery,
a free or a basic reroll) that maximises the probability of winning the battle, every later roll decision of the
battle played optimally too: the recursion of ``battle.BattleSolver.decision`` over the same states (dice, Weapon
Deliveries played, hand, free rerolls left, clan rerolls given, Ice Giant die rolled, Silence), the same chance
(a reroll of k dice: the multinomial outcomes of the die's faces; an activated Ice Giant's extra die: its faces)
and the same end (the commit wins when the best activation of Warriors and strength Battle Tactics, with the Glory
and the Jarl's bonus, reaches the strength needed). ``battle.py`` is the reference (exact Fractions, every policy,
the Silence); this module is the one a policy can afford, and its values equal the reference's to rounding
(tested).

The solve runs on an explicit stack of frames (numba cannot cache a recursive function) and allocates nothing:
its memo, an open-addressing table of 64-bit hashes of the states, and its stack are the caller's ``scratch``
(``new_roll``, the engine's ``env[10]``), emptied at every solve by a new generation number, so that a policy's answer depends on its
decision alone. A solve of more than ``limit`` states is given up (``best_roll`` returns -1 and the caller plays
its own roll).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simkit.games.valhalla import battle as FB
from simkit.games.valhalla.solo import engine as E
from simkit.games.valhalla.solo import layout as L
from simkit.games.valhalla.solo.features import base_strength, best_total

CAP_BITS = 17
CAP = 1 << CAP_BITS  # memo slots
LIMIT = 40_000  # states of one solve (decisions, rerolls, commits) before it is given up
DEPTH = 48  # roll decisions in a row (each spends a die, a free reroll or a card) before a solve is given up
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_TIE = 1e-12  # a later action must beat the best by more than rounding (the reference's exact ties keep the first)


@njit(cache=True, inline="always")
def _mix(x):
    z = x + _GOLDEN
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def outcome_tables(faces, S, kmax):
    """The outcomes of rolling k = 0..kmax dice with these faces: (pools[k, j] packed counts, probs[k, j],
    n[k]); the multinomial over the symbols the faces show."""
    nf = faces.shape[0]
    syms = np.zeros(S + 1, np.int64)
    for f in range(nf):
        syms[faces[f]] += 1
    present = np.zeros(S + 1, np.int64)
    m = 0
    for sym in range(S + 1):
        if syms[sym] > 0:
            present[m] = sym
            m += 1
    # the most outcomes: C(kmax + m - 1, m - 1)
    most = 1
    for i in range(1, m):
        most = most * (kmax + i) // i
    pools = np.zeros((kmax + 1, most), np.int64)
    probs = np.zeros((kmax + 1, most))
    n = np.zeros(kmax + 1, np.int64)
    fact = np.ones(kmax + 1)
    for i in range(1, kmax + 1):
        fact[i] = fact[i - 1] * i
    pools[0, 0], probs[0, 0], n[0] = 0, 1.0, 1
    seq = np.zeros(kmax + 1, np.int64)  # a nondecreasing sequence of indices into ``present``
    for k in range(1, kmax + 1):
        seq[:k] = 0
        while True:
            counts = np.zeros(m, np.int64)
            for i in range(k):
                counts[seq[i]] += 1
            p = fact[k]
            pool = np.int64(0)
            for i in range(m):
                c = counts[i]
                p *= (syms[present[i]] / nf) ** c / fact[c]
                pool += np.int64(c) << np.int64(4 * present[i])
            pools[k, n[k]], probs[k, n[k]] = pool, p
            n[k] += 1
            # next nondecreasing sequence
            i = k - 1
            while i >= 0 and seq[i] == m - 1:
                i -= 1
            if i < 0:
                break
            seq[i] += 1
            for j in range(i + 1, k):
                seq[j] = seq[i]
    return pools, probs, n


# ``env[10]``, the roll: three flat arrays (few arrays in ``env``: every function that passes ``env`` with reference
# counting pays for each of them). int64: meta, generation stamps, keys, frames, legal actions, outcome counts,
# outcome pools; float64: memo values, frames' sums, outcome probabilities; int32: the frames' four states.
META, M_GEN, M_COUNT, M_LIMIT, M_GIVEN_UP, M_BEST, M_MOST = 8, 0, 1, 2, 3, 4, 5
I_STAMP = META
I_KEY = I_STAMP + CAP
I_FRAME = I_KEY + CAP
I_LEGAL = I_FRAME + DEPTH * 12
I_NOUT = I_LEGAL + DEPTH * L.MAX_ACTIONS
I_POOLS = I_NOUT + L.MAX_DICE + 1
F_SUMS = CAP
F_PROBS = F_SUMS + DEPTH * 3


@njit(cache=True)
def new_roll(faces, S):
    """The engine's ``env[10]``: the outcome tables of the die and the scratch of a solve (memo and stack), what a
    ``heuristic`` with ``exact_rolls`` needs; one may serve every ``env`` of a process (each solve starts afresh,
    so its answer depends on its decision alone)."""
    pools, probs, n = outcome_tables(faces, S, L.MAX_DICE)
    most = pools.shape[1]
    ri = np.zeros(I_POOLS + (L.MAX_DICE + 1) * most, np.int64)
    rf = np.zeros(F_PROBS + (L.MAX_DICE + 1) * most)
    ri[M_GEN] = 1  # generation 1: no slot is live yet
    ri[M_MOST] = most
    ri[I_NOUT:I_POOLS] = n
    ri[I_POOLS:] = pools.ravel()
    rf[F_PROBS:] = probs.ravel()
    return ri, rf, np.zeros(4 * DEPTH * L.STATE_SIZE, np.int32)


@njit(cache=True)
def no_roll():
    """A roll with no room, for the ``env`` of policies that never roll exactly (``best_roll`` answers -1): a
    kernel makes ``new_roll``'s 5 MB only when a policy asks for it."""
    ri = np.zeros(META, np.int64)
    ri[M_GEN] = 1
    return ri, np.zeros(0), np.zeros(0, np.int32)


@njit(cache=True, inline="always")
def _unpack(roll):
    """Named views of the roll's arrays: (memo, tables)."""
    ri, rf, rs = roll
    most = ri[M_MOST]
    sz = DEPTH * L.STATE_SIZE
    memo = (ri[I_KEY:I_KEY + CAP], rf[:CAP], ri[I_STAMP:I_STAMP + CAP], ri[:META],
            rs[:sz].reshape((DEPTH, L.STATE_SIZE)), rs[sz:2 * sz].reshape((DEPTH, L.STATE_SIZE)),
            rs[2 * sz:3 * sz].reshape((DEPTH, L.STATE_SIZE)), rs[3 * sz:].reshape((DEPTH, L.STATE_SIZE)),
            ri[I_LEGAL:I_NOUT].reshape((DEPTH, L.MAX_ACTIONS)), ri[I_FRAME:I_LEGAL].reshape((DEPTH, 12)),
            rf[F_SUMS:F_PROBS].reshape((DEPTH, 3)))
    tabs = (ri[I_POOLS:].reshape((L.MAX_DICE + 1, most)), rf[F_PROBS:].reshape((L.MAX_DICE + 1, most)),
            ri[I_NOUT:I_POOLS])
    return memo, tabs


@njit(cache=True, _nrt=False)
def _key(s, S, salt):
    """A 64-bit hash of what a battle decision depends on (``battle.BattleSolver.key``), salted by its kind."""
    h = _mix(np.uint64(salt))
    h = _mix(h ^ np.uint64(E.dice_pool(s)))
    h = _mix(h ^ np.uint64(E.deliv_pool(s, S)))
    hand = np.uint64(0)
    for i in range(s[L.HAND_N]):  # order-free: a sum over the hand
        hand += _mix(np.uint64(s[L.HAND + i]))
    h = _mix(h ^ hand)
    rest = s[L.B_FREE] + 64 * s[L.B_CLAN_GIVEN] + 4096 * s[L.B_ICE_DONE] + 8192 * s[L.B_SILENCED]
    return np.int64(_mix(h ^ np.uint64(rest)))


@njit(cache=True, inline="always")
def _slot(keys, stamps, gen, h):
    i = h & (CAP - 1)
    while stamps[i] == gen and keys[i] != h:
        i = (i + 1) & (CAP - 1)
    return i


@njit(cache=True, inline="always")
def _store(memo, h, v):
    keys, vals, stamps, meta = memo[0], memo[1], memo[2], memo[3]
    i = _slot(keys, stamps, meta[M_GEN], h)
    keys[i], vals[i], stamps[i] = h, v, meta[M_GEN]
    meta[M_COUNT] += 1


@njit(cache=True, _nrt=False)
def _set_pool(s, pool, S):
    """Write the dice of packed ``pool`` into the state, sorted by symbol."""
    nd = 0
    for sym in range(S + 1):
        for _ in range(E.pc(pool, sym)):
            s[L.DICE + nd] = sym
            nd += 1
    s[L.ND] = nd


@njit(cache=True, _nrt=False)
def _terminal(s, env, memo):
    """1 when the best commit wins the battle, else 0 (memoised by the dice and Weapon Deliveries)."""
    pool = E.battle_pool(s, env[1].shape[1])
    h = np.int64(_mix(np.uint64(pool) ^ np.uint64(0xC0FFEE)))
    keys, vals, stamps, meta = memo[0], memo[1], memo[2], memo[3]
    i = _slot(keys, stamps, meta[M_GEN], h)
    if stamps[i] == meta[M_GEN]:
        return vals[i]
    v, _, _ = best_total(s, env, pool)
    won = 1.0 if base_strength(s, env) + v >= s[L.B_NEEDED] else 0.0
    _store(memo, h, won)
    return won


@njit(cache=True, inline="always")
def _dice_taken(s, cards, need, pile, mask):
    """The dice the cards of ``pile`` (``L.TEAM`` or ``L.CAND``, its count just before it) in ``mask`` take when
    activated: one a named symbol and one an "any" symbol (``battle.fit_set``); ``L.MAX_DICE + 99`` when one of them
    activates with no pool (a "distinct" card naming a symbol twice)."""
    k = 0
    for i in range(s[pile - 1]):
        if (mask >> i) & 1:
            c = s[pile + i]
            k += cards[c, L.C_ANY]
            for sym in range(need.shape[1]):
                if need[c, sym] > 1 and cards[c, L.C_DISTINCT] == 1:
                    return L.MAX_DICE + 99
                k += need[c, sym]
    return k


@njit(cache=True, _nrt=False)
def hopeless(s, env):
    """True when no play of the battle's rolls left can win it, so that every action's value is 0: even if every
    die showed whatever symbols the cards need, no activatable set of Warriors and strength Tactics reaches the
    strength needed. The bound: the dice (those in the pool, the Weapon Deliveries played and in hand, and an Ice
    Giant's extra die not yet given) each taken as any symbol, and a set activatable when it takes no more dice
    than that (``battle.fit_set`` spends one die a symbol); a set's strength is that of ``features.best_total``.
    Rerolls only change which symbols show, so they are not counted. Cheap (at most 16 × 64 sets); used before a
    solve whose answer would only be "stop" (``policies.last_stand``) and by ``policies.last_stand_reroll``."""
    cards, need, ca = env[0], env[1], env[6]
    dice = s[L.ND]
    for sym in range(need.shape[1] + 1):
        dice += s[L.DELIV + sym]
    for h in range(s[L.HAND_N]):
        c = s[L.HAND + h]
        if cards[c, L.C_TYPE] == L.TACTIC and cards[c, L.C_EFFECT] == L.T_DELIVERY:
            dice += 1
    n = s[L.TEAM_N]
    if s[L.B_ICE_DONE] == 0:
        for i in range(n):
            w = s[L.TEAM + i]
            if cards[w, L.C_SPECIAL] == 1 and E.is_ice_giant(cards, ca, w):
                dice += 1
                break
    gap = s[L.B_NEEDED] - base_strength(s, env)
    for m in range(1 << n):
        taken = _dice_taken(s, cards, need, L.TEAM, m)
        if taken > dice:
            continue
        st = 0
        for i in range(n):
            if (m >> i) & 1:
                st += E.strength_env(s, env, i, m)
        for t in range(1 << s[L.CAND_N]):
            if taken + _dice_taken(s, cards, need, L.CAND, t) <= dice and st + E.tset_value(s, cards, t) >= gap:
                return False
    return True


@njit(cache=True, _nrt=False)
def prepare_roll(t, env, a):
    """The part of roll action ``a`` before the dice fall (``engine.apply_action``): the Weapon Delivery played,
    the free reroll spent (a reroll Battle Tactic played when none is left), the basic reroll's die discarded;
    ``t`` keeps the dice that stay. Returns the number of dice to roll. (The exact Fraction solver,
    ``battle.BattleSolver.after``, takes the same step.)"""
    cards = env[0]
    S = env[1].shape[1]
    if a < L.A_SEND:  # Weapon Delivery: a card that counts as a die
        h = a - L.A_DELIVER
        t[L.DELIV + cards[t[L.HAND + h], L.C_SYMBOL]] += 1
        E.play_tactic(t, h)
        return 0
    if a < L.A_BASIC:
        m = a - L.A_FREE
        if t[L.B_FREE] == 0:
            E.play_reroll_tactic(t, cards)
        t[L.B_FREE] -= 1
    else:
        m = a - L.A_BASIC
        top = 0
        for i in range(t[L.ND]):
            if (m >> i) & 1:
                top = i
        m &= ~(1 << top)  # "discard 1 die from their pool of dice to reroll any of the remaining dice"
        t[L.B_BASIC_USED] = 1
    kept = np.int64(0)
    k = 0
    for i in range(t[L.ND]):
        if (m >> i) & 1:
            k += 1
        elif a < L.A_BASIC or i != top:
            kept += E.unit(t[L.DICE + i])
    _set_pool(t, kept, S)
    return k


@njit(cache=True, _nrt=False)
def _activated(s, env):
    """The best activation of the team by the dice and Weapon Deliveries (``engine.post_roll``'s)."""
    m, _ = E.best_joint(s, env, E.battle_pool(s, env[1].shape[1]), 0)
    return m


@njit(cache=True, _nrt=False)
def _clan_rerolls(s, env, m):
    """A free reroll per activated clan-reroll Warrior, once each (``m``: the activation; -1: compute it)."""
    if m == -1:
        m = _activated(s, env)
    FB.give_clan_rerolls(s, L.TEAM_N, L.B_FREE, L.B_CLAN_GIVEN, env[0], env[6], m)


@njit(cache=True, _nrt=False)
def _settle(s, env):
    """``engine.post_roll`` up to its one draw: True when an activated Ice Giant's extra die is to be rolled (its
    flag set; the caller rolls it and then gives the clan rerolls), else the clan rerolls given and False."""
    cards, ca = env[0], env[6]
    if not FB.wants_post_roll(s, L.TEAM_N, L.B_ICE_DONE, cards, ca):
        return False
    m = _activated(s, env)
    if FB.ice_giant_activated(s, L.TEAM_N, L.B_ICE_DONE, cards, ca, m):
        s[L.B_ICE_DONE] = 1
        if s[L.ND] >= L.MAX_DICE:
            _clan_rerolls(s, env, -1)
            return False
        return True
    _clan_rerolls(s, env, m)
    return False


# the frames of the solve (an explicit stack: numba cannot cache a recursive function, numba issue 6061)
F_N, F_J, F_STEP, F_K, F_KEPT, F_O, F_NB, F_B, F_ICE, F_H, F_HQ, F_BEST_A = range(12)
NEXT_ACTION, NEXT_OUTCOME, NEXT_BRANCH = 0, 1, 2


@njit(cache=True, inline="always")
def _copy(dst, src):
    for i in range(src.shape[0]):
        dst[i] = src[i]


@njit(cache=True, _nrt=False)
def _enter(d, memo, env, top):
    """Open the frame of the decision in ``memo``'s state row ``d``: its value when the memo holds it (no frame),
    else -1.0 with the frame ready (its legal actions listed)."""
    keys, vals, stamps, meta, SS, _, _, _, legal, fi, ff = memo
    h = _key(SS[d], env[1].shape[1], 0)
    i = _slot(keys, stamps, meta[M_GEN], h)
    if stamps[i] == meta[M_GEN] and not top:
        return vals[i]
    if meta[M_COUNT] >= meta[M_LIMIT] or d + 1 >= SS.shape[0]:
        meta[M_GIVEN_UP] = 1  # given up
        return 0.0
    fi[d, F_N] = E.legal_actions(SS[d], env, legal[d])
    fi[d, F_J], fi[d, F_STEP], fi[d, F_H], fi[d, F_BEST_A] = 0, NEXT_ACTION, h, legal[d, 0]
    ff[d, 0] = -1.0
    return -1.0


@njit(cache=True, _nrt=False)
def decision_value(s, env, roll, top):
    """P(win the battle) at the ``PH_ROLL`` decision ``s`` under optimal play: the expectimax of
    ``battle.BattleSolver.decision`` on an explicit stack of frames (``roll``: ``new_roll``'s). Its meta (``M_*``):
    the generation, the states this solve stored, its limit, 1 when the solve was given up (more states than the
    limit, or deeper than the stack: the value is then meaningless) and the best action at ``s``. ``top``: ``s``
    is solved (its children read from the memo) even when the memo holds its value, so that its best action is
    known."""
    memo, tabs = _unpack(roll)
    keys, vals, stamps, meta, SS, TT, UU, WW, legal, fi, ff = memo
    S = env[1].shape[1]
    faces = env[8]
    pools, probs, nout = tabs
    _copy(SS[0], s)
    v = _enter(0, memo, env, top)
    if v >= 0.0:
        return v
    d = 0
    while True:
        if meta[M_GIVEN_UP] == 1:
            return 0.0
        st = fi[d, F_STEP]
        if st == NEXT_ACTION:
            if fi[d, F_J] == fi[d, F_N]:  # every action valued: the decision's value goes up to its parent
                v = ff[d, 0]
                _store(memo, fi[d, F_H], v)
                if d == 0:
                    meta[M_BEST] = fi[0, F_BEST_A]
                    return v
                d -= 1
                ff[d, 2] += v
                fi[d, F_B] += 1
                continue
            a = legal[d, fi[d, F_J]]
            if a == L.A_STOP:
                q = _terminal(SS[d], env, memo)
            else:
                _copy(TT[d], SS[d])
                k = prepare_roll(TT[d], env, a)
                hq = _key(TT[d], S, 1 + k)
                iq = _slot(keys, stamps, meta[M_GEN], hq)
                if stamps[iq] != meta[M_GEN]:  # the dice to roll: over their outcomes
                    fi[d, F_K], fi[d, F_KEPT], fi[d, F_O], fi[d, F_HQ] = k, E.dice_pool(TT[d]), 0, hq
                    fi[d, F_STEP] = NEXT_OUTCOME
                    ff[d, 1] = 0.0
                    _copy(UU[d], TT[d])
                    continue
                q = vals[iq]
            if q > ff[d, 0] + _TIE:
                ff[d, 0], fi[d, F_BEST_A] = q, a
            fi[d, F_J] += 1
        elif st == NEXT_OUTCOME:
            k, o = fi[d, F_K], fi[d, F_O]
            if o == nout[k]:  # the action's value
                q = ff[d, 1]
                _store(memo, fi[d, F_HQ], q)
                if q > ff[d, 0] + _TIE:
                    ff[d, 0], fi[d, F_BEST_A] = q, legal[d, fi[d, F_J]]
                fi[d, F_J] += 1
                fi[d, F_STEP] = NEXT_ACTION
                continue
            u, tt = UU[d], TT[d]
            # what an outcome changes: the dice, and post_roll's Ice Giant die and free rerolls
            u[L.B_FREE], u[L.B_CLAN_GIVEN], u[L.B_ICE_DONE] = tt[L.B_FREE], tt[L.B_CLAN_GIVEN], tt[L.B_ICE_DONE]
            _set_pool(u, fi[d, F_KEPT] + pools[k, o], S)
            ice = _settle(u, env)
            fi[d, F_ICE], fi[d, F_NB], fi[d, F_B] = ice, faces.shape[0] if ice else 1, 0
            ff[d, 2] = 0.0
            fi[d, F_STEP] = NEXT_BRANCH
        else:  # NEXT_BRANCH: the outcome after post_roll (an activated Ice Giant's die: each face)
            b = fi[d, F_B]
            if b == fi[d, F_NB]:
                k, o = fi[d, F_K], fi[d, F_O]
                ff[d, 1] += probs[k, o] * ff[d, 2] / fi[d, F_NB]
                fi[d, F_O] += 1
                fi[d, F_STEP] = NEXT_OUTCOME
                continue
            w = UU[d]
            if fi[d, F_ICE] == 1:
                w = WW[d]
                _copy(w, UU[d])
                if w[L.ND] < L.MAX_DICE:
                    _set_pool(w, E.dice_pool(w) + E.unit(faces[b]), S)
                _clan_rerolls(w, env, -1)
            if E.roll_has_options(w, env):  # a decision: from the memo, or a new frame
                hw = _key(w, S, 0)
                iw = _slot(keys, stamps, meta[M_GEN], hw)
                if stamps[iw] == meta[M_GEN]:
                    v = vals[iw]
                else:
                    _copy(SS[d + 1], w)
                    SS[d + 1, L.PHASE] = L.PH_ROLL
                    v = _enter(d + 1, memo, env, False)
                    if v < 0.0:
                        d += 1
                        continue
            else:
                v = _terminal(w, env, memo)
            ff[d, 2] += v
            fi[d, F_B] += 1


@njit(cache=True, _nrt=False)
def best_roll(s, env, roll, limit):
    """The battle-optimal action at the ``PH_ROLL`` decision ``s`` (ties: the first legal one), or -1 when the
    battle has more than ``limit`` states; ``roll``: ``new_roll``'s (``env[10]``)."""
    ri = roll[0]
    if ri.shape[0] <= META:  # no_roll's
        return -1
    ri[M_GEN] += 1  # a new generation: every solve starts from an empty table, so its answer (and whether it is
    # given up) never depends on the decisions solved before it
    ri[M_COUNT], ri[M_LIMIT], ri[M_GIVEN_UP] = 0, limit, 0
    decision_value(s, env, roll, True)
    return -1 if ri[M_GIVEN_UP] == 1 else ri[M_BEST]

