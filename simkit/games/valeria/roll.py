"""Roll Phase and Harvest Phase.

Roll: "the active player rolls 2d6; each die and the sum activate Citizens with that number"; "Domain powers that
change a die are used once each per Roll Phase" (an ``adjust_die`` Domain: one die +-1, a decision of its owner).
Harvest: "every player's Citizens that match activate -- the active player's use the on-turn power, everyone
else's the off-turn power; each copy activates separately"; "the Thief (steals) resolves first". On doubles each
die activates on its own (``rules.doubles = "twice"``, the plain reading of "each die and the sum"; ``"once"``
is the other reading). 2E Herald: "If the dice roll did not activate any of your Citizens with dice values, then
your Herald Starter card activates whether you are the Active Player or not. You gain any 1 Resource." and "If the
dice roll is doubles, then your Herald Starter card activates ... It is possible the dice results are doubles and
do not activate any of your citizens ... the Herald Starter card activates two times." 1E consolation
(``rules.herald = "consolation"``): a player none of whose Citizens activated takes any one Resource.
The 5-player variant: "The Resting Player does not harvest Resources during the Active Player's turn": the seat
holding the Rest Token (``REST``) takes nothing in the Harvest Phase, neither from its Citizens (its Thieves
included) nor from its Herald (or the 1E consolation); it can still be robbed (docs/rules.md).
"""

from __future__ import annotations

from numba import njit

from simkit.core.rng import roll
from simkit.games.valeria.cards import (
    D_POWER, K_NUM0, K_OFF, K_ON, MAX_EFFECTS, OP_ANY, OP_GAIN, OP_PER_ROLE, OP_STEAL, K_ROLE,
)
from simkit.games.valeria import events as EV
from simkit.games.valeria.setup import gain, pay, res
from simkit.games.valeria.state import (
    A_ADJ, A_ADJ_DONE, ACTIVE, ACTS, ADJ_USED, D1, D2, DOM_OWNER, GOLD_, HERALD, HERALD_2E, N_CIT, N_KINDS,
    NP, OWN, P_ACTION, P_ADJUST, P_ANY, P_THIEF, PEND_ANY, PEND_STEAL, PHASE, R_DOUBLES, R_HERALD, R_N_DOM,
    STEAL_AMT, TO_MOVE, DOUBLES_ONCE, A_TARGET, A_ANY, N_RES, R_EVENTS, REST,
)


STEAL_BITS, STEAL_MASK = 5, 31  # pending Thief activations per amount (n = 1..6: MAX_N), packed in STEAL_AMT
# (up to 31 of one amount: three full stacks of steal Citizens on doubles)


@njit(cache=True, inline="always")
def activations(kinds, k, d1, d2, doubles_once):
    """How many times one copy of Citizen kind ``k`` activates on the roll ``(d1, d2)``: once per die showing one
    of its numbers (on doubles: once, with ``doubles_once``) and once if the sum is one of them."""
    c = 0
    for j in range(2):
        m = kinds[k, K_NUM0 + j]
        if m == 0:
            continue
        if doubles_once and d1 == d2:
            c += 1 if m == d1 else 0
        else:
            c += (1 if m == d1 else 0) + (1 if m == d2 else 0)
        c += 1 if m == d1 + d2 else 0
    return c


@njit(cache=True, _nrt=False)
def role_count(s, kinds, p, role):
    """Citizens seat ``p`` owns with role icon ``role`` (Starters have none)."""
    c = 0
    for k in range(N_CIT):
        if kinds[k, K_ROLE] == role:
            c += s[OWN + p * N_KINDS + k]
    return c


@njit(cache=True, inline="always")
def role_counts(s, kinds, p):
    """Seat ``p``'s four role-icon counts, in one pass over its Citizens (a tuple: no allocation)."""
    c0 = c1 = c2 = c3 = 0
    for k in range(N_CIT):
        c = s[OWN + p * N_KINDS + k]
        if c:
            r = kinds[k, K_ROLE]
            if r == 0:
                c0 += c
            elif r == 1:
                c1 += c
            elif r == 2:
                c2 += c
            else:
                c3 += c
    return (c0, c1, c2, c3)


@njit(cache=True, _nrt=False)
def start_turn(s, rng, env):
    """Roll Phase: roll 2d6 from the game's stream; the active player may then change dice with Domains."""
    s[D1] = roll(rng, 6)
    s[D2] = roll(rng, 6)
    s[ADJ_USED] = 0
    if n_adjust_options(s, env) > 0:
        s[PHASE] = P_ADJUST
        s[TO_MOVE] = s[ACTIVE]
        return
    end_roll(s, env)


@njit(cache=True, _nrt=False)
def end_roll(s, env):
    """The end of the Roll Phase: with the Monster Event variant, the Events rolled are carried out ("before the
    Harvest Phase"; ``events.activate``), then the Harvest."""
    if env[5][R_EVENTS] and EV.activate(s, env):
        return
    begin_harvest(s, env)


@njit(cache=True, _nrt=False)
def apply_event(s, env, a):
    """The active player's choice of the Monster that takes an Event's tokens; then the rest of the Events and the
    Harvest."""
    EV.place_choice(s, env, a)
    if EV.event_step(s, env):
        return
    begin_harvest(s, env)


@njit(cache=True, inline="always")
def n_adjust_options(s, env):
    """How many die changes the active player's unused ``adjust_die`` Domains allow now."""
    doms = env[2]
    p = s[ACTIVE]
    c = 0
    for d in range(env[5][R_N_DOM]):
        if s[DOM_OWNER + d] == p and doms[d, D_POWER] == 1 and not (s[ADJ_USED] >> d) & 1:
            for die in range(2):
                v = s[D1 + die]
                c += (1 if v > 1 else 0) + (1 if v < 6 else 0)
    return c


@njit(cache=True, _nrt=False)
def adjust_legal(s, env, out):
    doms = env[2]
    p = s[ACTIVE]
    n = 0
    for d in range(env[5][R_N_DOM]):
        if s[DOM_OWNER + d] == p and doms[d, D_POWER] == 1 and not (s[ADJ_USED] >> d) & 1:
            for die in range(2):
                v = s[D1 + die]
                if v > 1:
                    out[n] = A_ADJ + d * 4 + die * 2
                    n += 1
                if v < 6:
                    out[n] = A_ADJ + d * 4 + die * 2 + 1
                    n += 1
    out[n] = A_ADJ_DONE
    return n + 1


@njit(cache=True, _nrt=False)
def apply_adjust(s, env, a):
    """Use one Domain on one die (``A_ADJ + domain * 4 + die * 2 + up``), or keep the roll (``A_ADJ_DONE``)."""
    if a == A_ADJ_DONE:
        end_roll(s, env)
        return
    x = a - A_ADJ
    d, die, up = x // 4, (x % 4) // 2, x % 2
    s[D1 + die] += 1 if up else -1
    s[ADJ_USED] |= 1 << d
    if n_adjust_options(s, env) == 0:
        end_roll(s, env)


@njit(cache=True, _nrt=False)
def begin_harvest(s, env):
    """Harvest Phase, first the Thieves: count each seat's steal activations (they wait for targets)."""
    kinds, rules = env[0], env[5]
    n = s[NP]
    d1, d2 = s[D1], s[D2]
    once = rules[R_DOUBLES] == DOUBLES_ONCE
    for p in range(n):
        col = K_ON if p == s[ACTIVE] else K_OFF
        s[PEND_STEAL + p] = 0
        s[STEAL_AMT + p] = 0
        if p == s[REST]:  # the Resting Player does not harvest
            continue
        for k in range(N_KINDS):
            own = s[OWN + p * N_KINDS + k]
            if own == 0:
                continue
            act = activations(kinds, k, d1, d2, once)
            if act == 0:
                continue
            for j in range(MAX_EFFECTS):
                if kinds[k, col + 4 * j] == OP_STEAL:
                    s[PEND_STEAL + p] += own * act
                    s[STEAL_AMT + p] += (own * act) << (STEAL_BITS * (kinds[k, col + 4 * j + 3] - 1))
    steal_step(s, env)


@njit(cache=True, _nrt=False)
def _next_seat(s, base):
    """The first seat, in turn order from the active player, with ``s[base + seat] > 0`` (-1: none)."""
    n = s[NP]
    for i in range(n):
        q = (s[ACTIVE] + i) % n
        if s[base + q] > 0:
            return q
    return -1


@njit(cache=True, _nrt=False)
def steal(s, p, victim):
    """One Thief activation of seat ``p``: take up to its amount of Gold from ``victim`` (the largest amount of
    those pending first; ``STEAL_AMT[p]`` packs the pending count of each amount 1..6, ``STEAL_BITS`` bits each)."""
    a = 6
    while a > 1 and (s[STEAL_AMT + p] >> (STEAL_BITS * (a - 1))) & STEAL_MASK == 0:
        a -= 1
    s[STEAL_AMT + p] -= 1 << (STEAL_BITS * (a - 1))
    t = min(a, res(s, victim, GOLD_))
    if t > 0:
        pay(s, victim, GOLD_, t)
        gain(s, p, GOLD_, t, True)
    s[PEND_STEAL + p] -= 1


@njit(cache=True, _nrt=False)
def steal_step(s, env):
    """Resolve pending Thieves (a decision of their owner when there is more than one other player), then the
    rest of the Harvest."""
    while True:
        q = _next_seat(s, PEND_STEAL)
        if q < 0:
            break
        if s[NP] == 2:
            steal(s, q, 1 - q)
            continue
        s[PHASE] = P_THIEF
        s[TO_MOVE] = q
        return
    harvest_rest(s, env)
    any_step(s)


@njit(cache=True, _nrt=False)
def thief_legal(s, out):
    p = s[TO_MOVE]
    n = 0
    for q in range(s[NP]):
        if q != p:
            out[n] = A_TARGET + q
            n += 1
    return n


@njit(cache=True, _nrt=False)
def apply_target(s, env, a):
    steal(s, s[TO_MOVE], a - A_TARGET)
    steal_step(s, env)


@njit(cache=True, _nrt=False)
def harvest_rest(s, env):
    """Every other power of every activated Citizen, then the Herald (2E) or the consolation (1E)."""
    kinds, rules = env[0], env[5]
    n = s[NP]
    d1, d2 = s[D1], s[D2]
    once = rules[R_DOUBLES] == DOUBLES_ONCE
    for p in range(n):
        if p == s[REST]:  # the Resting Player does not harvest: no Citizen, no Herald
            continue
        col = K_ON if p == s[ACTIVE] else K_OFF
        any_act = False
        for k in range(N_KINDS):
            own = s[OWN + p * N_KINDS + k]
            if own == 0:
                continue
            act = activations(kinds, k, d1, d2, once)
            if act == 0:
                continue
            any_act = True
            times = own * act
            for j in range(MAX_EFFECTS):
                op = kinds[k, col + 4 * j]
                r, role, amount = kinds[k, col + 4 * j + 1], kinds[k, col + 4 * j + 2], kinds[k, col + 4 * j + 3]
                if op == OP_GAIN:
                    gain(s, p, r, amount * times, True)
                elif op == OP_PER_ROLE:
                    gain(s, p, r, amount * role_count(s, kinds, p, role) * times, True)
                elif op == OP_ANY:
                    s[PEND_ANY + p] += amount * times
        h = 0
        if rules[R_HERALD] == HERALD_2E:
            h = (0 if any_act else 1) + (1 if d1 == d2 else 0)
        elif not any_act:
            h = 1
        s[HERALD + p] += h
        s[PEND_ANY + p] += h


@njit(cache=True, _nrt=False)
def any_step(s):
    """The next pending "any 1 Resource" choice, in turn order; when none is left, the Action Phase."""
    q = _next_seat(s, PEND_ANY)
    if q >= 0:
        s[PHASE] = P_ANY
        s[TO_MOVE] = q
        return
    s[PHASE] = P_ACTION
    s[TO_MOVE] = s[ACTIVE]
    s[ACTS] = 2


@njit(cache=True, _nrt=False)
def any_legal(out):
    for r in range(N_RES):
        out[r] = A_ANY + r
    return N_RES


@njit(cache=True, _nrt=False)
def apply_any(s, a):
    p = s[TO_MOVE]
    gain(s, p, a - A_ANY, 1, True)
    s[PEND_ANY + p] -= 1
    any_step(s)


