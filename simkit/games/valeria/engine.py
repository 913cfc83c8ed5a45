"""Valeria: Card Kingdoms on the decision-point interface (see ``simkit.core.decision``): 2 to 5 players.

The phases are ``setup`` (Game Setup), ``roll`` (Roll and Harvest Phases), ``actions`` (Action and End Phases)
and ``end`` (end of game, scoring); the state layout is in ``state``. Decisions, each of the seat whose it is:
which dealt Duke to keep, whether and how to change a die with a Domain, whom the Thief robs, which Resource an
"any 1 Resource" power (Herald, 1E consolation) gives, the Action Phase's two actions, and (Monster Event variant)
which Monster takes an Event's tokens.

``env = (kinds, monsters, domains, dukes, areas, rules, expected_activations, events)`` from
:meth:`simkit.games.valeria.cards.CardSet.arrays`, :func:`simkit.games.valeria.simulation.rules_vector`,
:func:`simkit.games.valeria.simulation.expected_activations` and :meth:`~simkit.games.valeria.cards.CardSet.event_array`.
Hidden information: the face-down Domains (from everyone), the other seats' Dukes, the face-down Monster Events of
the Exhausted stack (which and in what order); the chance stream.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simkit.core import decision as D
from simkit.core.decision import reseed
from simkit.core.policies import LEARNED, RANDOM
from simkit.core.rng import randbelow
from simkit.games.valeria import actions as A
from simkit.games.valeria import events as EV
from simkit.games.valeria import roll as R
from simkit.games.valeria.cards import (
    D_BUILD, D_COST, D_POWER, D_REQ, D_VP, K_OFF, K_ON, K_ROLE, K_VP, M_MAG, M_REWARD, M_STR, M_VP, MAX_EFFECTS, OP_ANY, OP_GAIN,
    OP_PER_ROLE, OP_STEAL, E_REWARD, E_VP,
)
from simkit.games.valeria.setup import new_game as _base_setup
from simkit.games.valeria.setup import res
from simkit.games.valeria.state import (
    A_ADJ, A_ADJ_DONE, A_ANY, A_BUILD, A_GAIN, A_KEEP, A_RECRUIT, A_SLAY, A_TARGET, ACTIVE, ACTS, CURSOR, D1, D2,
    DEALT, DECISIONS, DN, DOM_OWNER, DSTACK, EXH_LEFT, EXH_PLACED, EXH_STACK, GAINED, GOLD, GOLD_, HERALD_2E, KEEP,
    MAGIC_, MAX_DSTACK, MAX_P, MAX_SUB, MON_LEFT, MON_OWNER, N_AREAS, N_CIT, N_KINDS, N_RES, N_ROLES,
    NP, OVER, OWN, P_ACTION, P_ADJUST, P_ANY, P_DUKE, P_OVER, P_THIEF, PHASE, R_DOUBLES, R_HERALD, R_N_DOM,
    R_N_DUKE, R_N_MON, SPENT, STACK, STRENGTH_, TO_MOVE, WIN_MASK, DOUBLES_ONCE, MAX_DOM,
    A_PLACE, A_SLAY_EV, EV_BOX, EV_HI, EV_LO, EV_POS, EV_SEQ, EV_STACKED, EV_TOK, MAX_EV, MON_TOK, P_EVENT,
    R_EVENTS, R_PRESELECT, EV_TODO, R_N_EV, DOM_DEPTH, REST,
)
from simkit.games.valeria.setup import five_variant, stack_copies

# --- parameters: name -> (index, default, description, low, high) ----------------------------------------------
PARAMS = {
    "vp": (0, 1.0, "value of a Victory Point", 0.0, 3.0),
    "income": (1, 0.5, "value of one expected Resource per round, per round left", 0.0, 3.0),
    "horizon": (2, 8.0, "rounds expected at the start (scaled by the share of Monsters, Domains and Exhausted "
                        "cards left)", 0.0, 30.0),
    "monster_bias": (3, 0.0, "extra value of slaying a Monster", -2.0, 6.0),
    "domain_bias": (4, 0.0, "extra value of building a Domain", -2.0, 6.0),
    "gain_gold": (5, 0.30, "value of gaining 1 Gold", 0.0, 2.0),
    "gain_strength": (6, 0.20, "value of gaining 1 Strength", 0.0, 2.0),
    "gain_magic": (7, 0.25, "value of gaining 1 Magic", 0.0, 2.0),
    "cost": (8, 0.10, "cost of each Gold paid", 0.0, 1.0),
    "save": (9, 0.5, "value added to a gain that brings a Monster (Strength, Magic) or a Domain (Gold) within "
                     "3", 0.0, 3.0),
}
N_PARAMS = len(PARAMS)
PRESETS = {
    "economy": ("heuristic", {"income": 0.9, "horizon": 10.0, "domain_bias": 1.0, "gain_gold": 0.4,
                              "gain_strength": 0.1, "gain_magic": 0.2, "save": 0.3}),
    "hunter": ("heuristic", {"income": 0.25, "horizon": 5.0, "monster_bias": 2.0, "gain_gold": 0.1,
                             "gain_strength": 0.5, "gain_magic": 0.4, "save": 1.0}),
    # `hunter` tuned against a field of three `hunter` seats (issue 40; stand-in cards; the finalist that won
    # tune's selection round; fresh seeds: 0.2452 → 0.5478, +0.3026 [+0.2953, +0.3100], 4,000 games × 4 seats):
    #   simkit tune scenarios/valeria/ladder.toml --policy hunter --budget 40000 --seed 40 --eval-games 4000 \
    #     --set 'opponent="hunter"' --set 'play=["hunter"]'
    "hunter_tuned": ("heuristic", {"vp": 2.80528, "income": 0.751941, "horizon": 5.15668, "monster_bias": 0.250979,
                                   "domain_bias": -1.88969, "gain_gold": 0.163793, "gain_strength": 0.25024,
                                   "gain_magic": 0.259772, "cost": 0.0138254, "save": 0.0161363}),
    "random": ("random", {}),
}


# ============================================================================================================
# the interface
# ============================================================================================================

@njit(cache=True)
def new_game(s, rng, env):
    """Game Setup (``setup.new_game``), with the Monster Event variant's Exhausted stack (``events``) when on."""
    _base_setup(s, rng, env)
    if env[5][R_EVENTS]:
        EV.setup_events(s, rng, env)


@njit(cache=True, _nrt=False)
def legal_actions(s, env, out):
    ph = s[PHASE]
    if ph == P_ACTION:
        return A.action_legal(s, env, out)
    if ph == P_ANY:
        return R.any_legal(out)
    if ph == P_THIEF:
        return R.thief_legal(s, out)
    if ph == P_ADJUST:
        return R.adjust_legal(s, env, out)
    if ph == P_DUKE:
        out[0] = A_KEEP
        out[1] = A_KEEP + 1
        return 2
    if ph == P_EVENT:
        return EV.event_legal(s, env, out)
    return 0


@njit(cache=True, _nrt=False)
def apply_action(s, rng, env, a):
    """Apply the decision ``a`` of ``to_move(s)``, then chance and forced steps up to the next decision."""
    s[DECISIONS] += 1
    ph = s[PHASE]
    if ph == P_ACTION:
        A.apply_action_phase(s, rng, env, a)
    elif ph == P_ANY:
        R.apply_any(s, a)
    elif ph == P_THIEF:
        R.apply_target(s, env, a)
    elif ph == P_ADJUST:
        R.apply_adjust(s, env, a)
    elif ph == P_EVENT:
        R.apply_event(s, env, a)
    elif ph == P_DUKE:
        p = s[CURSOR]
        s[KEEP + p] = s[DEALT + 2 * p + a - A_KEEP]
        s[CURSOR] += 1
        if s[CURSOR] < s[NP]:
            s[TO_MOVE] = s[CURSOR]
        else:
            s[ACTIVE] = 0
            R.start_turn(s, rng, env)


@njit(cache=True, _nrt=False)
def is_over(s):
    return s[OVER] == 1


@njit(cache=True, _nrt=False)
def to_move(s):
    return s[TO_MOVE]


@njit(cache=True, _nrt=False)
def reward(s, env, seat):
    """1 for the sole winner; tied winners share 1."""
    m = s[WIN_MASK]
    if not (m >> seat) & 1:
        return 0.0
    k = 0
    for p in range(MAX_P):
        k += (m >> p) & 1
    return 1.0 / k


@njit(cache=True)
def resample(s, rng, env, seat, srng):
    """Rewrite what ``seat`` cannot see: the face-down Domains (all below the stack tops, shuffled together) and the
    other seats' dealt Dukes (drawn from the Dukes ``seat`` was not dealt); reseed the chance stream."""
    # face-down Domains, in slot order
    buf = np.empty(MAX_DOM, np.int32)
    k = 0
    for d in range(MAX_DSTACK):
        for j in range(s[DN + d] - 1):
            buf[k] = s[DSTACK + DOM_DEPTH * d + j]
            k += 1
    buf[:k] = np.sort(buf[:k])
    for i in range(k - 1, 0, -1):
        j = randbelow(srng, i + 1)
        t = buf[i]
        buf[i] = buf[j]
        buf[j] = t
    k = 0
    for d in range(MAX_DSTACK):
        for j in range(s[DN + d] - 1):
            s[DSTACK + DOM_DEPTH * d + j] = buf[k]
            k += 1
    # the other seats' Dukes
    nk = env[5][R_N_DUKE]
    pool = np.empty(nk, np.int32)
    m = 0
    for u in range(nk):
        if u != s[DEALT + 2 * seat] and u != s[DEALT + 2 * seat + 1]:
            pool[m] = u
            m += 1
    for i in range(m - 1, 0, -1):
        j = randbelow(srng, i + 1)
        t = pool[i]
        pool[i] = pool[j]
        pool[j] = t
    m = 0
    for q in range(s[NP]):
        if q == seat:
            continue
        s[DEALT + 2 * q] = pool[m]
        s[DEALT + 2 * q + 1] = pool[m + 1]
        m += 2
        if s[KEEP + q] >= 0:
            s[KEEP + q] = s[DEALT + 2 * q]
    if env[5][R_EVENTS]:
        _resample_events(s, env, srng)
    reseed(rng, srng)


@njit(cache=True)
def _resample_events(s, env, srng):
    """The face-down Events of the Exhausted stack: redrawn from the Events no seat has seen (in the box or face
    down), the preselected one kept among them, and reshuffled."""
    pre = env[5][R_PRESELECT]
    pos = np.empty(MAX_EV, np.int64)
    k = 0
    pre_in = False
    for i in range(s[EV_LO], s[EV_HI]):
        if s[EV_SEQ + i] >= 0:
            pos[k] = i
            k += 1
            if s[EV_SEQ + i] == pre:
                pre_in = True
    if k == 0:
        return
    pool = np.empty(MAX_EV, np.int32)
    m = 0
    for e in range(env[5][R_N_EV]):  # the Events of the cards file only (the other slots are always "in the box")
        if (s[EV_POS + e] == EV_BOX or s[EV_POS + e] == EV_STACKED) and not (pre_in and e == pre):
            pool[m] = e
            m += 1
    for i in range(m - 1, 0, -1):
        j = randbelow(srng, i + 1)
        t = pool[i]
        pool[i] = pool[j]
        pool[j] = t
    chosen = np.empty(k, np.int32)
    c = 0
    if pre_in:
        chosen[0] = pre
        c = 1
    for i in range(k - c):
        chosen[c + i] = pool[i]
    for i in range(k - 1, 0, -1):
        j = randbelow(srng, i + 1)
        t = chosen[i]
        chosen[i] = chosen[j]
        chosen[j] = t
    for e in range(MAX_EV):
        if s[EV_POS + e] == EV_STACKED:
            s[EV_POS + e] = EV_BOX
    for i in range(k):
        s[EV_SEQ + pos[i]] = chosen[i]
        s[EV_POS + chosen[i]] = EV_STACKED


# ============================================================================================================
# heuristics
# ============================================================================================================

@njit(cache=True, inline="always")
def progress_left(s, env):
    """The least share left of the Monsters, the Domains and the Exhausted cards (1 at the start, 0 at the end)."""
    rules = env[5]
    mon = 0
    for a in range(N_AREAS):
        mon += s[MON_LEFT + a]
    dom = 0
    for d in range(MAX_DSTACK):
        dom += s[DN + d]
    x = min(mon / max(rules[R_N_MON], 1), dom / max(rules[R_N_DOM], 1))
    return min(x, max(2 * s[NP] - s[EXH_PLACED], 0) / max(2 * s[NP], 1))


@njit(cache=True, inline="always")
def _power_value(env, k, col, rc, extra):
    """Resources one activation of Citizen ``k``'s power (column ``col``) gives an owner with role-icon counts
    ``rc`` (plus ``extra`` copies of ``k`` about to be recruited)."""
    kinds = env[0]
    v = 0.0
    for j in range(MAX_EFFECTS):
        op, n = kinds[k, col + 4 * j], kinds[k, col + 4 * j + 3]
        if op == OP_GAIN or op == OP_ANY or op == OP_STEAL:
            v += n
        elif op == OP_PER_ROLE:
            role = kinds[k, col + 4 * j + 2]
            v += n * (rc[role] + (extra if kinds[k, K_ROLE] == role else 0))
    return v


@njit(cache=True, _nrt=False)
def income_per_round(s, env, k, rc):
    """Expected Resources per round one more copy of Citizen ``k`` gives its owner (role-icon counts ``rc``): one
    on-turn roll, the others off-turn, less the turn the owner rests when the 5-player variant's Rest Token is in
    play ("The Resting Player does not harvest Resources"; the token passes left with the dice, so each seat rests
    on the turn after its own, once a round)."""
    off = s[NP] - 1 - (1 if s[REST] >= 0 else 0)
    return env[6][k] * (_power_value(env, k, K_ON, rc, 1) + off * _power_value(env, k, K_OFF, rc, 1))


@njit(cache=True, _nrt=False)
def shortfall(need_s, need_m, st, mg):
    """The fewest Strength and Magic still to gain to slay a Monster of Strength ``need_s`` and Magic ``need_m``
    with ``st`` Strength and ``mg`` Magic (Magic may stand in for Strength, but one Strength must be paid)."""
    a = max(need_m - mg, 0) + max(1 - st, 0)
    return max(a, need_s + need_m - st - mg, 0)


@njit(cache=True, inline="always")
def _near(s, env, p, r, rc):
    """1 when one more of Resource ``r`` brings seat ``p`` closer to a Monster it is at most 3 short of
    (Strength, Magic) or to a Domain whose icons it has and is at most 3 Gold short of (Gold)."""
    mons, doms = env[1], env[2]
    st, mg, gd = res(s, p, STRENGTH_), res(s, p, MAGIC_), res(s, p, GOLD_)
    if r == GOLD_:
        for d in range(MAX_DSTACK):
            dom = A.top_domain(s, d)
            if dom >= 0 and 0 < doms[dom, D_COST] - gd <= 3:
                ok = True
                for q in range(N_ROLES):
                    if rc[q] < doms[dom, D_REQ + q]:
                        ok = False
                if ok:
                    return 1.0
        return 0.0
    for t in range(N_AREAS + (MAX_EV if env[5][R_EVENTS] else 0)):
        if not EV.is_target(s, t):
            continue
        need_s, need_m = target_need(s, env, t)
        before = shortfall(need_s, need_m, st, mg)
        after = shortfall(need_s, need_m, st + (r == STRENGTH_), mg + (r == MAGIC_))
        if 0 < before <= 3 and after < before:
            return 1.0
    return 0.0


@njit(cache=True, _nrt=False)
def target_need(s, env, t):
    """(Strength, Magic) to slay target ``t``: an area's top Monster (0..4) or N_AREAS + an Event face up."""
    if t < N_AREAS:
        m = A.top_monster(s, env, t)
        return EV.area_need(s, env, m, 1), EV.area_need(s, env, m, 2)
    return EV.event_need(s, env, t - N_AREAS, 1), EV.event_need(s, env, t - N_AREAS, 2)


@njit(cache=True, _nrt=False)
def place_value(s, env, a, p):
    """The heuristic's value of putting the current Event effect's tokens on target ``a - A_PLACE``: Strength and
    Magic where seat ``p`` is farthest from slaying, Gold where it is nearest."""
    e, op, r, on, n = EV.current(s, env)
    need_s, need_m = target_need(s, env, a - A_PLACE)
    short = shortfall(need_s, need_m, res(s, p, STRENGTH_), res(s, p, MAGIC_))
    return -float(short) if r == GOLD_ else float(short)


@njit(cache=True, inline="always")
def action_value(s, env, a, params, rc, left):
    """The heuristic's value of an Action Phase action, for the active player with role-icon counts ``rc`` and
    ``left`` the share of the game left (``progress_left``)."""
    mons, doms, kinds = env[1], env[2], env[0]
    p = s[ACTIVE]
    if a >= A_SLAY_EV:
        e, x = (a - A_SLAY_EV) // MAX_SUB, (a - A_SLAY_EV) % MAX_SUB
        rew = float(s[EV_TOK + N_RES * e + GOLD_])
        for j in range(MAX_EFFECTS):
            rew += env[7][e, E_REWARD + 2 * j + 1]
        return params[0] * env[7][e, E_VP] + params[3] + 0.3 * rew - 0.05 * x
    if a < A_RECRUIT:
        area, x = (a - A_SLAY) // MAX_SUB, (a - A_SLAY) % MAX_SUB
        m = A.top_monster(s, env, area)
        rew = 0.0
        for j in range(MAX_EFFECTS):
            rew += mons[m, M_REWARD + 2 * j + 1]
        rew += s[MON_TOK + N_RES * m + GOLD_]
        return params[0] * mons[m, M_VP] + params[3] + 0.3 * rew - 0.05 * x
    if a < A_GAIN:
        k = a - A_RECRUIT
        return (params[0] * kinds[k, K_VP] + params[1] * income_per_round(s, env, k, rc) * params[2] * left
                - params[8] * A.recruit_cost(s, env, p, k))
    if a < A_BUILD:
        r = a - A_GAIN
        return params[5 + r] + params[9] * _near(s, env, p, r, rc)
    dom = A.top_domain(s, a - A_BUILD)
    g = 0.0
    for r in range(N_RES):
        g += doms[dom, D_BUILD + r]
    return (params[0] * doms[dom, D_VP] + params[4] + 0.3 * g + 0.5 * (doms[dom, D_POWER] == 1)
            - params[8] * doms[dom, D_COST])


@njit(cache=True, _nrt=False)
def duke_value(s, env, p, u, params):
    """What Duke ``u`` looks worth to seat ``p`` now, steered by ``params``."""
    return duke_worth(s, env, p, u, params[3], params[4])


@njit(cache=True, _nrt=False)
def duke_worth(s, env, p, u, slay_bonus, build_bonus):
    """What Duke ``u`` looks worth to seat ``p`` now, with ``slay_bonus`` and ``build_bonus`` the heuristic's
    ``monster_bias`` and ``domain_bias`` (0 for the features: no allocation, no parameters)."""
    dukes = env[3]
    rc = R.role_counts(s, env[0], p)
    v = 0.0
    for cat in range(N_ROLES + 5):
        pts, every = dukes[u, 2 * cat], dukes[u, 2 * cat + 1]
        if pts == 0:
            continue
        if cat < N_ROLES:
            v += pts / every * (rc[cat] + 2.0)
        elif cat == N_ROLES:
            v += pts * (3.0 + slay_bonus)
        elif cat == N_ROLES + 1:
            v += pts * (2.0 + build_bonus)
        else:
            v += pts / every * 3.0
    return v


@njit(cache=True, _nrt=False)
def roll_value(s, env, p, d1, d2):
    """Resources seat ``p`` (the active player) takes from its own Citizens and Herald on the roll (d1, d2)."""
    kinds, rules = env[0], env[5]
    once = rules[R_DOUBLES] == DOUBLES_ONCE
    rc = R.role_counts(s, kinds, p)
    v = 0.0
    hit = False
    for k in range(N_KINDS):
        own = s[OWN + p * N_KINDS + k]
        if own == 0:
            continue
        act = R.activations(kinds, k, d1, d2, once)
        if act > 0:
            hit = True
            v += own * act * _power_value(env, k, K_ON, rc, 0)
    if rules[R_HERALD] == HERALD_2E:
        v += (0.0 if hit else 1.0) + (1.0 if d1 == d2 else 0.0)
    elif not hit:
        v += 1.0
    return v


@njit(cache=True, _nrt=False)
def heuristic(s, env, legal, n, params, prng):
    """Each decision by value: actions by ``action_value``; the Thief robs the richest other player; "any
    Resource" takes the best gain; the Duke by ``duke_value``; a die change when it raises the active player's
    own harvest."""
    if n == 1:
        return legal[0]
    ph = s[PHASE]
    p = s[TO_MOVE]
    rc = R.role_counts(s, env[0], p)
    left = progress_left(s, env) if ph == P_ACTION else 0.0
    best, best_v = legal[0], -1e300
    for i in range(n):
        a = legal[i]
        if ph == P_ACTION:
            v = action_value(s, env, a, params, rc, left)
        elif ph == P_ANY:
            r = a - A_ANY
            v = params[5 + r] + params[9] * _near(s, env, p, r, rc)
        elif ph == P_THIEF:
            v = float(res(s, a - A_TARGET, GOLD_))
        elif ph == P_DUKE:
            v = duke_value(s, env, p, s[DEALT + 2 * p + a - A_KEEP], params)
        elif ph == P_EVENT:
            v = place_value(s, env, a, p)
        else:
            d1, d2 = s[D1], s[D2]
            if a != A_ADJ_DONE:
                x = a - A_ADJ
                delta = 1 if x % 2 else -1
                if (x % 4) // 2 == 0:
                    d1 += delta
                else:
                    d2 += delta
                v = roll_value(s, env, p, d1, d2) - 0.01
            else:
                v = roll_value(s, env, p, d1, d2)
        if v > best_v:
            best, best_v = a, v
    return best


# ============================================================================================================
# learned policies: features of an action from the mover's view
# ============================================================================================================

FEATURES = ("is_base", "slay", "recruit", "build", "gain_gold", "gain_strength", "gain_magic", "any_gold",
            "any_strength", "any_magic", "thief_target_gold", "keep_duke_value", "adjust_die", "adjust_done",
            "action_vp", "recruit_income_left", "gold_cost", "slay_x_progress", "recruit_x_progress",
            "build_x_progress", "slay_event", "slay_gold_tokens", "place_strength_magic_short", "place_gold_short")
N_FEATURES = len(FEATURES)
MAX_NNZ = 6


@njit(cache=True, _nrt=False)
def features(s, env, a, is_base, idx, val):
    """Sparse features of ``a``: whether the base heuristic plays it, its kind, its Victory Points, the income of
    a recruit over the game left, the Gold it costs, and its kind times the share of the game left; Monster Event
    variant: a slay of an Event, the Gold tokens a slay takes, and for a token's placement the mover's shortfall
    on that Monster (only what the mover sees: no face-down Domain, no other seat's Duke, nothing of the Exhausted
    stack but how many cards it holds). Allocates nothing."""
    m = 0
    if is_base:
        idx[m], val[m] = 0, 1.0
        m += 1
    return numbers(s, env, a, 0, val, idx, val, m)


@njit(cache=True, _nrt=False)
def one_kind(s, env, a):
    """Valeria's features share no block between actions (``Parts``): one kind."""
    return 0


@njit(cache=True, _nrt=False)
def no_block(s, env, kind, st, idx, val, m):
    """No numbers shared by the actions of a kind (``Parts``)."""
    return m


@njit(cache=True, _nrt=False)
def numbers(s, env, a, kind, st, idx, val, m):
    """The features of ``a`` after ``is_base`` (see ``features``), written from ``m``; ``kind`` and ``st``
    unused."""
    ph = s[PHASE]
    p = s[TO_MOVE]
    if ph == P_ACTION:
        left = progress_left(s, env)
        if a >= A_SLAY_EV:
            e = (a - A_SLAY_EV) // MAX_SUB
            idx[m], val[m] = 1, 1.0
            idx[m + 1], val[m + 1] = 14, env[7][e, E_VP] / 5.0
            idx[m + 2], val[m + 2] = 17, left
            idx[m + 3], val[m + 3] = 20, 1.0
            m += 4
            if s[EV_TOK + N_RES * e + GOLD_] > 0:
                idx[m], val[m] = 21, s[EV_TOK + N_RES * e + GOLD_] / 5.0
                m += 1
        elif a < A_RECRUIT:
            mm = A.top_monster(s, env, (a - A_SLAY) // MAX_SUB)
            idx[m], val[m] = 1, 1.0
            idx[m + 1], val[m + 1] = 14, env[1][mm, M_VP] / 5.0
            idx[m + 2], val[m + 2] = 17, left
            m += 3
            if s[MON_TOK + N_RES * mm + GOLD_] > 0:
                idx[m], val[m] = 21, s[MON_TOK + N_RES * mm + GOLD_] / 5.0
                m += 1
        elif a < A_GAIN:
            k = a - A_RECRUIT
            rc = R.role_counts(s, env[0], p)
            idx[m], val[m] = 2, 1.0
            idx[m + 1], val[m + 1] = 15, income_per_round(s, env, k, rc) * left
            idx[m + 2], val[m + 2] = 16, A.recruit_cost(s, env, p, k) / 5.0
            idx[m + 3], val[m + 3] = 18, left
            idx[m + 4], val[m + 4] = 14, env[0][k, K_VP] / 5.0
            m += 5
        elif a < A_BUILD:
            idx[m], val[m] = 4 + a - A_GAIN, 1.0
            m += 1
        else:
            dom = A.top_domain(s, a - A_BUILD)
            idx[m], val[m] = 3, 1.0
            idx[m + 1], val[m + 1] = 14, env[2][dom, D_VP] / 5.0
            idx[m + 2], val[m + 2] = 16, env[2][dom, D_COST] / 5.0
            idx[m + 3], val[m + 3] = 19, left
            m += 4
    elif ph == P_ANY:
        idx[m], val[m] = 7 + a - A_ANY, 1.0
        m += 1
    elif ph == P_THIEF:
        idx[m], val[m] = 10, res(s, a - A_TARGET, GOLD_) / 5.0
        m += 1
    elif ph == P_DUKE:
        idx[m], val[m] = 11, duke_worth(s, env, p, s[DEALT + 2 * p + a - A_KEEP], 0.0, 0.0) / 5.0
        m += 1
    elif ph == P_EVENT:
        e, op, r, on, n = EV.current(s, env)
        need_s, need_m = target_need(s, env, a - A_PLACE)
        short = shortfall(need_s, need_m, res(s, p, STRENGTH_), res(s, p, MAGIC_))
        idx[m], val[m] = (23 if r == GOLD_ else 22), short / 5.0
        m += 1
    else:
        idx[m], val[m] = (13, 1.0) if a == A_ADJ_DONE else (12, 1.0)
        m += 1
    return m


# scored without numba's reference counting (``Parts``: one kind, every number the action's own)
features.learned_parts = D.Parts(one_kind, no_block, numbers, 1)
LEARNED_FNS = D.specialize_learned(features, heuristic, N_PARAMS, N_FEATURES, MAX_NNZ, __name__)
learned_action = LEARNED_FNS.learned_action


@njit(cache=True, _nrt=False)
def policy(kind, s, env, legal, n, params, prng):
    """``heuristic`` steered by ``params`` (economy, hunter); ``random``: a legal action at random; ``learned``: the
    learned scorer over ``features``."""
    if kind == RANDOM:
        return legal[randbelow(prng, n)]
    if kind == LEARNED:
        return learned_action(s, env, legal, n, params, prng)
    return heuristic(s, env, legal, n, params, prng)


# ============================================================================================================
# invariants
# ============================================================================================================

@njit(cache=True)
def invariants(s, env):
    """0 when the state keeps the rules' bookkeeping, else a code: 1 Resources (held = taken - paid, never
    negative), 2 Citizens (each stack plus the copies owned is 5, 6 in the 5-player variant; one of each Starter per
    seat), 3 Monsters (each
    area's slain ones are its top ones, plus those left make the area), 4 Domains (each exactly once: in a stack
    or built), 5 Exhausted cards (left plus placed is 2 per player; with Monster Events ``events.event_invariant``:
    3 cards per player, and the tokens), 6 Dukes (dealt distinct; kept one of the
    two), 7 phase and counters (the Rest Token, in the 5-player variant, on the seat before the active one)."""
    n = s[NP]
    rules = env[5]
    for p in range(n):
        for r in range(N_RES):
            held = s[GOLD + r * MAX_P + p]
            if held < 0 or held != s[GAINED + p * N_RES + r] - s[SPENT + p * N_RES + r]:
                return 1
    for k in range(N_CIT):
        t = s[STACK + k]
        for p in range(n):
            t += s[OWN + p * N_KINDS + k]
        if t != stack_copies(rules) or s[STACK + k] < 0:
            return 2
    for p in range(n):
        if s[OWN + p * N_KINDS + N_CIT] != 1 or s[OWN + p * N_KINDS + N_CIT + 1] != 1:
            return 2
    areas = env[4]
    for a in range(N_AREAS):
        first, cnt = areas[a, 0], areas[a, 1]
        slain = cnt - s[MON_LEFT + a]
        if slain < 0:
            return 3
        for i in range(cnt):
            if (s[MON_OWNER + first + i] >= 0) != (i < slain):
                return 3
            if s[MON_OWNER + first + i] >= n:
                return 3
    nd = rules[R_N_DOM]
    seen = np.zeros(MAX_DOM, np.int64)
    for d in range(MAX_DSTACK):
        for j in range(s[DN + d]):
            seen[s[DSTACK + DOM_DEPTH * d + j]] += 1
    for i in range(nd):
        if s[DOM_OWNER + i] >= 0:
            seen[i] += 1
        if seen[i] != 1:
            return 4
    if rules[R_EVENTS]:
        if EV.event_invariant(s, env) != 0:
            return 5
    else:
        placed = 0
        for i in range(N_CIT + N_AREAS + MAX_DSTACK):
            placed += s[EXH_STACK + i]
        if s[EXH_LEFT] + s[EXH_PLACED] != 2 * n or placed != s[EXH_PLACED] or s[EXH_LEFT] < 0:
            return 5
    for p in range(n):
        u0, u1 = s[DEALT + 2 * p], s[DEALT + 2 * p + 1]
        if u0 == u1 or not (0 <= u0 < rules[R_N_DUKE]) or not (0 <= u1 < rules[R_N_DUKE]):
            return 6
        for q in range(p):
            v0, v1 = s[DEALT + 2 * q], s[DEALT + 2 * q + 1]
            if v0 == u0 or v0 == u1 or v1 == u0 or v1 == u1:
                return 6
        kp = s[KEEP + p]
        if kp != -1 and kp != u0 and kp != u1:
            return 6
    if s[PHASE] == P_ACTION and not 1 <= s[ACTS] <= 2:
        return 7
    if s[PHASE] == P_EVENT and (s[TO_MOVE] != s[ACTIVE] or s[EV_TODO] == 0):
        return 7
    if (s[PHASE] == P_OVER) != (s[OVER] == 1) or s[TO_MOVE] >= n:
        return 7
    if s[REST] != ((s[ACTIVE] + n - 1) % n if five_variant(rules) else -1):
        return 7
    return 0


