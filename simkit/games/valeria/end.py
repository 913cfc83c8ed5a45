"""End Phase and end of game.

"When all Monsters are slain, all Domains are built, or the number of Exhausted stacks reaches twice the number
of players, finish the round so everyone has equal turns." Score: Victory Points printed on Monsters, Domains and
Citizens, plus the kept Duke's bonuses; "tie: fewest cards in the tableau" (Citizens, Starters included, Monsters
and Domains); still tied: a shared win. Monster Event variant: "At the end of the game, Monster Event cards are
counted as if they were standard Monster cards. You gain the Victory Points printed on the card and you may count
any icons present on the card for bonus points given to you by Duke and Noble cards" (an Event slain counts for a
Duke's ``monster`` bonus and in the tableau); "If there is a Monster Event card in one of the Center Stacks, the
stack is still considered to be Exhausted" (``EXH_PLACED`` counts it).
"""

from __future__ import annotations

from numba import njit

from simkit.games.valeria.cards import E_VP, K_VP, M_VP, D_VP
from simkit.games.valeria.roll import role_count
from simkit.games.valeria.setup import res
from simkit.games.valeria.state import (
    DN, DOM_OWNER, ENDING, EXH_PLACED, KEEP, MON_LEFT, MON_OWNER, N_AREAS, N_KINDS, N_ROLES, NP, OVER, OWN,
    P_OVER, PHASE, R_N_DOM, R_N_MON, SCORE, TABLEAU, TO_MOVE, WIN_MASK, MAX_DSTACK, EV_OWNER, R_EVENTS, R_N_EV,
    WHY_DOMAINS, WHY_EXHAUSTED, WHY_MONSTERS, R_ALL_SLAIN, ALL_SLAIN_EVENTS, EV_POS, MAX_EV,
)


@njit(cache=True, inline="always")
def end_why(s, env):
    """The end conditions that hold (bits ``WHY_MONSTERS``, ``WHY_DOMAINS``, ``WHY_EXHAUSTED``; 0: none). "All
    Monsters are slain" reads the Monster areas (an Event face up in a Center stack is not in a Monster area);
    with ``rules.all_slain = "and_events"`` an Event face up ("This Monster may now be targeted") must be slain
    too."""
    why = 0
    left = 0
    for a in range(N_AREAS):
        left += s[MON_LEFT + a]
    if env[5][R_ALL_SLAIN] == ALL_SLAIN_EVENTS:
        for e in range(MAX_EV):
            if s[EV_POS + e] >= 0:
                left += 1
    if left == 0:
        why |= WHY_MONSTERS
    built = True
    for d in range(MAX_DSTACK):
        if s[DN + d] > 0:
            built = False
    if built:
        why |= WHY_DOMAINS
    if s[EXH_PLACED] >= 2 * s[NP]:
        why |= WHY_EXHAUSTED
    return why


@njit(cache=True, _nrt=False)
def end_triggered(s, env):
    """Any of the three end conditions holds."""
    return end_why(s, env) != 0


@njit(cache=True, _nrt=False)
def score_seat(s, env, p):
    """Seat ``p``'s Victory Points: printed VP of its Citizens, Monsters and Domains, and its Duke's bonuses."""
    kinds, mons, doms, dukes, rules = env[0], env[1], env[2], env[3], env[5]
    vp = 0
    for k in range(N_KINDS):
        vp += s[OWN + p * N_KINDS + k] * kinds[k, K_VP]
    n_mon = 0
    for m in range(rules[R_N_MON]):
        if s[MON_OWNER + m] == p:
            vp += mons[m, M_VP]
            n_mon += 1
    if rules[R_EVENTS]:
        for e in range(rules[R_N_EV]):
            if s[EV_OWNER + e] == p:
                vp += env[7][e, E_VP]
                n_mon += 1
    n_dom = 0
    for d in range(rules[R_N_DOM]):
        if s[DOM_OWNER + d] == p:
            vp += doms[d, D_VP]
            n_dom += 1
    u = s[KEEP + p]
    if u >= 0:
        for cat in range(N_ROLES + 5):
            v, every = dukes[u, 2 * cat], dukes[u, 2 * cat + 1]
            if v == 0:
                continue
            if cat < N_ROLES:
                x = role_count(s, kinds, p, cat)
            elif cat == N_ROLES:
                x = n_mon
            elif cat == N_ROLES + 1:
                x = n_dom
            else:
                x = res(s, p, cat - N_ROLES - 2)
            vp += (x // every) * v
    return vp


@njit(cache=True, _nrt=False)
def tableau(s, env, p):
    c = 0
    for k in range(N_KINDS):
        c += s[OWN + p * N_KINDS + k]
    for m in range(env[5][R_N_MON]):
        c += 1 if s[MON_OWNER + m] == p else 0
    for d in range(env[5][R_N_DOM]):
        c += 1 if s[DOM_OWNER + d] == p else 0
    if env[5][R_EVENTS]:
        for e in range(env[5][R_N_EV]):
            c += 1 if s[EV_OWNER + e] == p else 0
    return c


@njit(cache=True, _nrt=False)
def finish(s, env):
    """Score every seat and record the winners (bit mask: most VP, then fewest tableau cards)."""
    n = s[NP]
    best_v, best_t = -1, 1 << 30
    for p in range(n):
        s[SCORE + p] = score_seat(s, env, p)
        s[TABLEAU + p] = tableau(s, env, p)
        v, t = s[SCORE + p], s[TABLEAU + p]
        if v > best_v or (v == best_v and t < best_t):
            best_v, best_t = v, t
    mask = 0
    for p in range(n):
        if s[SCORE + p] == best_v and s[TABLEAU + p] == best_t:
            mask |= 1 << p
    s[WIN_MASK] = mask
    s[OVER] = 1
    s[PHASE] = P_OVER
    s[TO_MOVE] = 0
    s[ENDING] = 1


