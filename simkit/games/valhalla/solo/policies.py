"""Valhalla Solo policies: ``policy(kind, s, env, legal, n, params, prng)`` (numba) and the named presets.

Kinds: ``heuristic`` — build a team, then attack when the estimated strength
reaches the monster's (a threshold on the ratio); in battle keep the dice that
the best activation of Warriors *and* Battle Tactics uses, and the dice that
half-built ones need, reroll the rest while below the target; commit the
cheapest set of Battle Tactics that wins; keep the most valuable card —
``random``, uniformly random among the legal actions at every decision (the
baseline), ``search`` (``simkit.core.decision``: rollouts of a base policy
from resampled deck orders) and ``learned`` (a scorer over ``features.py``,
with the heuristic as its base). The policies read only public information: never
the deck order. Named presets are parameter sets; a scenario may add more
under ``[policies.NAME]``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simkit.core import policies as _core
from simkit.core.decision import specialize_learned
from simkit.core.policies import (  # noqa: F401  (shared kinds)
    HEURISTIC, LEARNED, LEARNED_KINDS, RANDOM, SEARCH, SEARCH_KINDS)
from simkit.core.rng import randbelow
from simkit.games.valhalla.solo import engine as E
from simkit.games.valhalla.solo import features as F
from simkit.games.valhalla.solo import layout as L
from simkit.games.valhalla.solo.battle_roll import LIMIT, best_roll, hopeless
from simkit.games.valhalla.solo.features import attack_target, base_strength, best_total, estimate

KINDS = LEARNED_KINDS

PARAMS = {
    "attack_ratio": (0, 1.0, "attack when the estimated strength is at least this share of what wins", 0.3, 2.0),
    "full_team_ratio": (1, 0.7, "with a full team (or nothing better to do), attack from this share", 0.2, 1.5),
    "glory_weight": (2, 0.5, "how much a Warrior's Glory counts when choosing cards to keep or play", 0.0, 3.0),
    "exchange_below": (3, 2.0, "exchange starting cards worth less than this", 0.0, 5.0),
    "send_on_defence": (4, 0.0, "after a won defence, send at most this many activated Warriors to Valhalla (the "
                        "most Glory that fits; 0 never: keeping them wins more, paired runs against 4)", 0.0, 4.0),
    "smart_rerolls": (5, 1.0, "reroll the dice no (half-built) activation needs while below the target (1 yes, "
                      "0 never reroll)", 0.0, 1.0),
    "silence": (6, 1.0, "play Battle Tactics that silence the monster's power when attacking (1 yes)", 0.0, 1.0),
    "basic_rerolls": (7, 1.0, "use basic rerolls (discard 1 die) when no free reroll is left (1 yes)", 0.0, 1.0),
    "tactics": (8, 1.0, "play strength, reroll and Weapon Delivery Battle Tactics (1 yes, 0 never)", 0.0, 1.0),
    "send_on_loss": (9, 1.0, "after a lost battle, send the activated Warrior with the most Glory to Valhalla "
                     "(1 yes)", 0.0, 1.0),
    # declared without a range: never tuned (a tuning run would play thousands of slow games)
    "exact_rolls": (10, 0.0, "at every roll play the battle-optimal action instead of the rules above: stop, "
                    "Weapon Delivery or reroll, whichever wins the battle most often (solved exactly, "
                    "battle_roll.py; about 20 ms a roll) (1 yes)"),
    "exact_last_stand": (11, 0.0, "in a defence, where the rules above would stop short of winning (and lose a "
                         "shield), play the battle-optimal roll instead: the one roll where it pays most for "
                         "least (about 3 ms a game; docs/strategy.md) (1 yes)"),
    "last_stand_reroll": (12, 0.0, "in a defence, where the policy would stop short of winning (and lose a shield) "
                          "while some roll could still win (battle_roll.hopeless), reroll every die instead: a "
                          "basic reroll where allowed, else a free one; no solve, heuristic speed (1 yes)"),
}
N_PARAMS = len(PARAMS)
EXACT_ROLLS = PARAMS["exact_rolls"][0]
LAST_STAND = PARAMS["exact_last_stand"][0]
LAST_REROLL = PARAMS["last_stand_reroll"][0]

PRESETS = {
    "builder": ("heuristic", {"attack_ratio": 1.0, "full_team_ratio": 0.8}),
    "aggressive": ("heuristic", {"attack_ratio": 0.75, "full_team_ratio": 0.6, "exchange_below": 1.5}),
    "random": ("random", {}),
    "search": ("search", {"rollouts": 16, "base": "builder", "budget": "halving"}),
}
POLICY_DESCRIPTIONS = {
    "builder": "heuristic: builds a team, attacks when the estimated strength reaches the monster's",
    "aggressive": "heuristic: attacks from 75% of the monster's strength",
    "random": "baseline: uniformly random among the legal actions at every decision",
    "search": "search: 16 rollouts per legal action (successive halving) of builder from resampled deck orders "
              "(slow; the bundled scenario searches over builder_tuned instead, which beat builder 0.993 against 0.927 "
              "in the README's ladder cell)",
    "learned": "learned: a linear scorer over the Valhalla Solo features (features.py), trained from "
               "`builder_tuned` by expert iteration over `search` (make train); heuristic speed",
}


@njit(cache=True, inline="always")
def card_value(cards, need, p_act, params, c):
    """How much a card is worth keeping (heuristic)."""
    t = cards[c, L.C_TYPE]
    if t == L.WARRIOR:
        weapons = cards[c, L.C_ANY]
        for sym in range(need.shape[1]):
            weapons += need[c, sym]
        return p_act[c] * cards[c, L.C_STR] + params[2] * cards[c, L.C_GLORY] + 0.5 * cards[c, L.C_SPECIAL] \
            - 0.25 * weapons
    if t == L.MISSION:
        return 2.0
    e = cards[c, L.C_EFFECT]
    if e == L.T_STRENGTH:
        return float(cards[c, L.C_VALUE])
    if e == L.T_REROLL:
        return 1.5 * cards[c, L.C_VALUE]
    if e == L.T_SMALLER:
        return 0.5 * cards[c, L.C_VALUE]
    if e == L.T_DELIVERY:
        return 1.5
    return 1.0


@njit(cache=True, _nrt=False)
def phase_a(s, env, legal, n, params):
    """Phase A: attack when the estimate reaches ``attack_ratio`` of the monster; else play two Warriors, one, draw;
    with a full team (or nothing else to do) attack from ``full_team_ratio``."""
    cards, need, p_act = env[0], env[1], env[2]
    target = attack_target(s, env)
    can_draw = False
    can_attack = False
    best_play, best_play_v = -1, -1e9
    best_pair, best_pair_v = -1, -1e9
    for i in range(n):
        a = legal[i]
        if a == L.A_DRAW:
            can_draw = True
        elif a == L.A_ATTACK:
            can_attack = True
        elif a < L.A_PAIR:
            v = card_value(cards, need, p_act, params, s[L.HAND + a - L.A_PLAY])
            if v > best_play_v:
                best_play, best_play_v = a, v
        elif a < L.A_DRAW:
            h = a - L.A_PAIR
            va = card_value(cards, need, p_act, params, s[L.HAND + h])
            for b in range(h + 1, s[L.HAND_N]):
                if E.pair_ok(s, cards, need, h, b):
                    v = va + card_value(cards, need, p_act, params, s[L.HAND + b])
                    if v > best_pair_v:
                        best_pair, best_pair_v = a, v
    est = estimate(s, env)
    if can_attack and est >= params[0] * target:
        return L.A_ATTACK
    if best_pair >= 0:
        return best_pair
    if best_play >= 0:
        return best_play
    if can_attack and (not can_draw or s[L.TEAM_N] == L.MAX_TEAM) and est >= params[1] * target:
        return L.A_ATTACK
    if can_draw:
        return L.A_DRAW
    return L.A_ATTACK if can_attack else legal[0]


@njit(cache=True, _nrt=False)
def keep_dice(s, env, t, m):
    """The rolled dice (packed counts) worth keeping: those the best activation of Warriors and Battle Tactics
    uses, then those that half-built ones (Warriors and Tactics not activated) need for their named symbols, and
    the wild faces (they fit every card but Ice Giants)."""
    cards, need, rules = env[0], env[1], env[9]
    S = need.shape[1]
    dice = E.dice_pool(s)
    deliv = E.deliv_pool(s, S)
    pool = dice + deliv
    keep = np.int64(0)
    left = dice
    if m >= 0:
        rem = E.best_joint_rem(s, env, pool, m, t)
        if rem >= 0:
            for sym in range(S + 1):
                used = E.pc(pool, sym) - E.pc(rem, sym)  # Weapon Delivery cards are used first
                k = min(max(used - E.pc(deliv, sym), 0), E.pc(left, sym))
                keep += k * E.unit(sym)
                left -= k * E.unit(sym)
    else:
        m = 0
    if rules[E.R_WILD_WARRIORS] == 1:
        k = E.pc(left, S)
        keep += k * E.unit(S)
        left -= k * E.unit(S)
    # half-built: named symbols of the Warriors and candidate Tactics left out, strongest first
    for _ in range(s[L.TEAM_N] + s[L.CAND_N]):
        best, best_v = -1, -1
        for i in range(s[L.TEAM_N] + s[L.CAND_N]):
            if i < s[L.TEAM_N]:
                if (m >> i) & 1:
                    continue
                c = s[L.TEAM + i]
                val = cards[c, L.C_STR]
            else:
                j = i - s[L.TEAM_N]
                if (t >> j) & 1:
                    continue
                c = s[L.CAND + j]
                val = cards[c, L.C_VALUE]
            if val > best_v:
                best, best_v = i, val
        if best < 0:
            break
        if best < s[L.TEAM_N]:
            m |= 1 << best
            c = s[L.TEAM + best]
        else:
            t |= 1 << (best - s[L.TEAM_N])
            c = s[L.CAND + best - s[L.TEAM_N]]
        for sym in range(S):
            k = min(np.int64(need[c, sym]), E.pc(left, sym))
            keep += k * E.unit(sym)
            left -= k * E.unit(sym)
    return keep


@njit(cache=True, inline="always")
def mask_for(s, reroll):
    """The canonical die bitmask rerolling ``reroll`` (packed counts): the last dice of each run."""
    m = 0
    nd = s[L.ND]
    for i in range(nd - 1, -1, -1):
        sym = s[L.DICE + i]
        if E.pc(reroll, sym) > 0:
            reroll -= E.unit(sym)
            m |= 1 << i
    return m


@njit(cache=True, inline="always")
def in_legal(legal, n, a):
    for i in range(n):
        if legal[i] == a:
            return True
    return False


@njit(cache=True, _nrt=False)
def roll_decision(s, env, legal, n, params):
    """Weapon Delivery when it adds strength; stop once the best activation wins; otherwise reroll every die no
    (half-built) activation needs: free rerolls first, then basic ones (one of the rerolled dice is discarded).
    (With ``exact_rolls``, ``policy`` plays the battle-optimal roll instead, and these rules only where the battle
    is too large to solve.)"""
    S = env[1].shape[1]
    cards = env[0]
    pool = E.battle_pool(s, env[1].shape[1])
    now, now_t, now_m = best_total(s, env, pool)
    for i in range(n):
        a = legal[i]
        if L.A_DELIVER <= a < L.A_SEND and params[8] > 0:
            sym = cards[s[L.HAND + a - L.A_DELIVER], L.C_SYMBOL]
            after, _, _ = best_total(s, env, pool + E.unit(sym))
            if after > now:
                return a
    if params[5] == 0 or base_strength(s, env) + now >= s[L.B_NEEDED]:
        return L.A_STOP
    reroll = E.dice_pool(s) - keep_dice(s, env, now_t, now_m)
    k = E.ptotal(reroll, S)
    if k == 0:
        return L.A_STOP
    m = mask_for(s, reroll)
    if in_legal(legal, n, L.A_FREE + m) and (s[L.B_FREE] > 0 or params[8] > 0):
        return L.A_FREE + m
    if k >= 2 and params[7] > 0 and in_legal(legal, n, L.A_BASIC + m):
        return L.A_BASIC + m
    return L.A_STOP


@njit(cache=True, _nrt=False)
def commit_decision(s, env, legal, n, params):
    """The legal set of Battle Tactics that wins at the least cost (value spent; ties: fewer cards); none when no
    set wins (or with ``tactics = 0``)."""
    if params[8] <= 0:
        return L.A_COMMIT
    pool = E.battle_pool(s, env[1].shape[1])
    need = s[L.B_NEEDED] - base_strength(s, env)
    best, best_cost, best_cards = L.A_COMMIT, 1 << 30, 99
    for i in range(n):
        t = legal[i] - L.A_COMMIT
        m, st = E.best_joint(s, env, pool, t)
        if m < 0:
            continue
        v = E.tset_value(s, env[0], t)
        if st + v >= need:
            nc = E.popcount(t)
            if v < best_cost or (v == best_cost and nc < best_cards):
                best, best_cost, best_cards = legal[i], v, nc
    return best


@njit(cache=True, _nrt=False)
def heuristic(s, env, legal, n, params, prng):
    """One decision of the heuristic (``params``) among ``legal[:n]``; reads only public information (never the
    deck order)."""
    if n == 1:
        return legal[0]
    cards, need, p_act, mon = env[0], env[1], env[2], env[3]
    ph = s[L.PHASE]
    if ph == L.PH_EXCHANGE:
        return L.A_YES if card_value(cards, need, p_act, params, s[L.HAND + s[L.EX_I]]) < params[3] else L.A_NO
    if ph == L.PH_A:
        return phase_a(s, env, legal, n, params)
    if ph == L.PH_PAIR2:
        best, best_v = legal[0], -1e9
        for i in range(n):
            v = card_value(cards, need, p_act, params, s[L.HAND + legal[i] - L.A_PLAY])
            if v > best_v:
                best, best_v = legal[i], v
        return best
    if ph == L.PH_KEEP:
        best, best_v = legal[0], -1e9
        for i in range(n):
            v = card_value(cards, need, p_act, params, s[L.DRAWN + legal[i] - L.A_KEEP])
            if v > best_v:
                best, best_v = legal[i], v
        return best
    if ph == L.PH_SILENCE:
        # worth silencing in an attack: what weakens the attack or punishes losing it (not a defence bonus)
        return L.A_YES if params[6] > 0 and mon[s[L.MON], L.M_POWER] != L.P_DEFENCE else L.A_NO
    if ph == L.PH_ROLL:
        return roll_decision(s, env, legal, n, params)
    if ph == L.PH_COMMIT:
        return commit_decision(s, env, legal, n, params)
    if ph == L.PH_PATH:
        # on the activated Warrior with the most Glory that fits, if the battle is still won without it
        cap = E.cap_now(s, env)
        best, best_g = L.A_NO, -1
        for i in range(n):
            a = legal[i]
            if a == L.A_NO:
                continue
            w = a - L.A_PATH
            c = s[L.TEAM + w]
            g = cards[c, L.C_GLORY]
            if s[L.B_TOTAL] - E.strength_env(s, env, w, s[L.B_ACT]) >= s[L.B_NEEDED] \
                    and s[L.WGLORY] + g <= cap and g > best_g:
                best, best_g = a, g
        return best
    if ph == L.PH_SEND1:
        # the one with the most Glory that fits
        if params[9] <= 0:
            return L.A_NO
        best, best_g = legal[0], -1
        for i in range(n):
            a = legal[i]
            if a != L.A_NO:
                g = cards[s[L.TEAM + a - L.A_SEND], L.C_GLORY]
                if g > best_g:
                    best, best_g = a, g
        return best
    if ph == L.PH_GROUP:
        # the most Glory with at most ``send_on_defence`` Warriors (legal groups fit the limit; largest first)
        best, best_g = L.A_GROUP, 0
        for i in range(n):
            m = legal[i] - L.A_GROUP
            if E.popcount(m) > params[4]:
                continue
            g = 0
            for j in range(s[L.TEAM_N]):
                if (m >> j) & 1:
                    g += cards[s[L.TEAM + j], L.C_GLORY]
            if g > best_g:
                best, best_g = legal[i], g
        return best
    return legal[0]


LEARNED_FNS = specialize_learned(F.features, heuristic, N_PARAMS, F.N_FEATURES, F.MAX_NNZ, __name__)
learned_action = LEARNED_FNS.learned_action


@njit(cache=True, _nrt=False)
def losing(s, env):
    """Do the dice lose the battle now (a stop here loses it)? The best commit of ``features.best_total``, with the
    Glory and the Jarl's bonus, short of the strength needed."""
    now, _, _ = best_total(s, env, E.battle_pool(s, env[1].shape[1]))
    return base_strength(s, env) + now < s[L.B_NEEDED]


@njit(cache=True, _nrt=False)
def last_stand(s, env, legal, n, params, prng):
    """A defence roll with ``exact_last_stand``: the rules' roll, unless they stop while the dice lose (a shield
    lost, valhalla-solo.txt: "Defeat in defense"): then the battle-optimal roll (``battle_roll.best_roll``; the
    rules' stop where the battle is too large to solve). Where ``battle_roll.hopeless`` proves that no roll can
    win, the solve is skipped: it would answer "stop" (every value 0, the first legal action), so the decisions
    are those of the solve everywhere, at about a third of its cost (docs/strategy.md)."""
    a = heuristic(s, env, legal, n, params, prng)
    if a == L.A_STOP and losing(s, env) and not hopeless(s, env):
        b = best_roll(s, env, env[10], LIMIT)
        if b >= 0:
            return b
    return a


@njit(cache=True, _nrt=False)
def last_stand_reroll(s, env, legal, n, a):
    """A defence roll with ``last_stand_reroll``: the policy's roll ``a``, unless it stops while the dice lose (a
    shield lost, valhalla-solo.txt: "Defeat in defense") and ``battle_roll.hopeless`` does not prove the battle
    lost: then every die rerolled, by a basic reroll ("discard 1 die from their pool of dice to reroll any of the
    remaining dice") where one is legal, else by a free one. A cheap stand-in for ``last_stand``'s solve (on
    ``builder_tuned`` about +0.007 against its +0.017 over the cells; docs/strategy.md)."""
    if a != L.A_STOP or s[L.B_ATTACK] != 0 or not losing(s, env) or hopeless(s, env):
        return a
    every = (1 << s[L.ND]) - 1
    for first in (L.A_BASIC, L.A_FREE):
        for i in range(n):
            if legal[i] == first + every:
                return legal[i]
    return a


@njit(cache=True, inline="always")
def policy(kind, s, env, legal, n, params, prng):
    """The decision interface's policy: ``heuristic`` (steered by ``params``; with ``exact_rolls``, the
    battle-optimal roll of ``battle_roll.best_roll`` at every roll; with ``exact_last_stand``, ``last_stand``),
    ``random`` (uniform) or ``learned`` (a scorer over ``features``, with ``heuristic`` as its base); reads only
    public information (never the deck order). The exact rolls are called here rather than in ``roll_decision``:
    there the call slowed every heuristic game by about 5% (``simkit bench``)."""
    if n == 1:
        return legal[0]
    if kind == RANDOM:
        return legal[randbelow(prng, n)]
    if kind == LEARNED:
        a = learned_action(s, env, legal, n, params, prng)
        if params[LAST_REROLL] > 0 and s[L.PHASE] == L.PH_ROLL:
            return last_stand_reroll(s, env, legal, n, a)
        return a
    if s[L.PHASE] == L.PH_ROLL:
        if params[EXACT_ROLLS] > 0:  # (a battle too large for it is too large for ``last_stand`` too)
            a = best_roll(s, env, env[10], LIMIT)
            if a >= 0:
                return a
        elif params[LAST_STAND] > 0 and s[L.B_ATTACK] == 0:
            return last_stand(s, env, legal, n, params, prng)
        elif params[LAST_REROLL] > 0:
            return last_stand_reroll(s, env, legal, n, heuristic(s, env, legal, n, params, prng))
    return heuristic(s, env, legal, n, params, prng)


def param_vector(overrides: dict | None = None) -> np.ndarray:
    """This game's parameter vector: the defaults of ``PARAMS`` with ``overrides``."""
    return _core.param_vector(PARAMS, overrides)
