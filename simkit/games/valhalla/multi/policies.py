"""Valhalla multiplayer policies: ``policy(kind, s, env, legal, n, params, prng)`` (numba) and the named presets.

Kinds: ``heuristic`` (steered by ``PARAMS``; the presets ``builder``, which fills its Warband before it attacks
a weaker player, and ``raider``, which attacks as soon as it has Warriors), ``random`` (uniform among the legal
actions), ``search`` (``simkit.core.decision``) and ``learned`` (a scorer over ``features.py``, with the heuristic
as its base; no trained weights are bundled yet). The heuristics read only what the mover may see: its own hand,
every Warband, Valhalla, shield and Glory (public), the discard pile (face up), the dice; never the deck order nor
another hand. After a battle they take a blessing's first set of discard-pile Warriors and complete the first
Mission met (the engine's own choices before issue 40 made them the seat's).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simkit.core import policies as _core
from simkit.core.decision import specialize_learned
from simkit.core.policies import HEURISTIC, LEARNED, LEARNED_KINDS, RANDOM, SEARCH  # noqa: F401  (shared kinds)
from simkit.core.rng import randbelow
from simkit.games.valhalla import battle as B
from simkit.games.valhalla import dice as D
from simkit.games.valhalla.multi import features as FT
from simkit.games.valhalla.multi import fight as F
from simkit.games.valhalla.multi import layout as L
from simkit.games.valhalla.multi.state import hand, pb, team
from simkit.games.valhalla.solo import layout as C

KINDS = LEARNED_KINDS

PARAMS = {
    "attack_ratio": (0, 1.2, "attack when the Warband's expected strength is at least this share of the target's",
                     0.0, 3.0),
    "min_team": (1, 3.0, "attack only with at least this many Warriors (or a full Warband)", 1.0, 4.0),
    "glory_weight": (2, 0.5, "how much a Warrior's Glory counts when choosing cards to keep or play", 0.0, 3.0),
    "basic_rerolls": (3, 1.0, "use basic rerolls (give up a die) when no free reroll is left (1 yes)", 0.0, 1.0),
    "leader_weight": (4, 0.3, "choosing a target: how much each Glory point of the target counts against its "
                      "expected strength", 0.0, 3.0),
}
N_PARAMS = len(PARAMS)

PRESETS = {
    "builder": ("heuristic", {"attack_ratio": 1.2, "min_team": 3.0}),
    "raider": ("heuristic", {"attack_ratio": 0.0, "min_team": 1.0, "leader_weight": 0.0}),
    # `builder` tuned as the hero in one seat of 4 against a field of three `builder` seats, rotated through the
    # seats, Valkyries deck (issue 40; stand-in cards; the finalist that won tune's selection round, generation
    # 31's candidate 8; fresh seeds: win share 0.2503 -> 0.3177, +0.0675 [+0.0589, +0.0761], 10,000 games):
    #   simkit tune scenarios/valhalla/ladder.toml --policy builder --budget 1200000 --games-per-candidate 3000 \
    #     --seed 40 --metric share --eval-games 10000 --set 'play=["builder"]' --set 'opponent="builder"' -j 1
    "builder_tuned": ("heuristic", {"attack_ratio": 1.1662, "min_team": 1.1706, "glory_weight": 0.134534,
                                    "basic_rerolls": 0.861086, "leader_weight": 0.56277}),
    "random": ("random", {}),
    "search": ("search", {"rollouts": 8, "base": "builder", "budget": "halving"}),
}
POLICY_DESCRIPTIONS = {
    "builder": "heuristic: fills its Warband to 3, attacks a player whose Warband it expects to beat",
    "raider": "heuristic: attacks from its first Warrior, the player with the weakest Warband",
    "builder_tuned": "heuristic: builder tuned by simkit tune against a field of builder (4 players): attacks with "
                     "2 Warriors, rather the leader in Glory, and counts a card's Glory less",
    "random": "baseline: uniformly random among the legal actions at every decision",
    "search": "search: 8 rollouts per legal action (successive halving) of builder from resampled hands and deck",
}


# the Jarl heuristic's stand-in weight of each Jarl ability (a tuple, not an array: the heuristic allocates nothing)
JARL_WEIGHTS = (0.0, 1.0, 0.8, 0.7, 1.5, 1.0, 0.8, 1.2)


@njit(cache=True, _nrt=False)
def card_value(env, params, c):
    """What a card is worth to keep: a Warrior its expected strength (P(6 dice activate it) × strength) and its
    Glory; a strength Tactic its value; other Tactics 1; a Mission 1.5."""
    cards, p_act = env[L.E_CARDS], env[L.E_PACT]
    t = cards[c, C.C_TYPE]
    if t == C.WARRIOR:
        return p_act[c] * cards[c, C.C_STR] + params[2] * cards[c, C.C_GLORY]
    if t == C.MISSION:
        return 1.5
    if cards[c, C.C_EFFECT] == C.T_STRENGTH or cards[c, C.C_EFFECT] == C.T_SMALLER:
        return 0.8 * cards[c, C.C_VALUE]
    return 1.0


@njit(cache=True, _nrt=False)
def expected(s, env, p):
    """Seat p's Warband: the sum of its Warriors' expected strengths (public)."""
    cards, p_act = env[L.E_CARDS], env[L.E_PACT]
    t = team(p)
    v = 0.0
    for i in range(s[t]):
        w = s[t + 1 + i]
        v += p_act[w] * cards[w, C.C_STR]
    return v


@njit(cache=True, _nrt=False)
def in_legal(legal, n, a):
    for i in range(n):
        if legal[i] == a:
            return True
    return False


@njit(cache=True, _nrt=False)
def part_a(s, env, legal, n, params):
    cards = env[L.E_CARDS]
    p = s[L.CUR]
    tn = s[team(p)]
    best_t, best_score = -1, -1e18
    for t in range(s[L.NP]):
        if t != p and in_legal(legal, n, L.A_ATTACK + t):
            sc = -expected(s, env, t) + params[4] * s[pb(t) + L.P_GLORY]
            if sc > best_score:
                best_t, best_score = t, sc
    if best_t >= 0 and (tn >= params[1] or tn == L.MAX_TEAM) \
            and expected(s, env, p) >= params[0] * expected(s, env, best_t):
        return L.A_ATTACK + best_t
    # build: the pair or the single Warrior worth most
    h = hand(p)
    best_a, best_v = -1, -1.0
    for i in range(n):
        a = legal[i]
        if a < L.A_PAIR:
            v = card_value(env, params, s[h + 1 + a - L.A_PLAY])
            if v > best_v:
                best_a, best_v = a, v
        elif a < L.A_DRAW:
            first = a - L.A_PAIR
            v1 = card_value(env, params, s[h + 1 + first])
            for b in range(first + 1, s[h]):
                if cards[s[h + 1 + b], C.C_TYPE] == C.WARRIOR:
                    v = v1 + card_value(env, params, s[h + 1 + b])
                    if v > best_v and v > v1:
                        best_a, best_v = a, v
    if best_a >= 0:
        return best_a
    if best_t >= 0 and tn == L.MAX_TEAM:
        return L.A_ATTACK + best_t
    if in_legal(legal, n, L.A_DRAW):
        return L.A_DRAW
    if best_t >= 0:
        return L.A_ATTACK + best_t
    return legal[0]


@njit(cache=True, _nrt=False)
def mask_for(s, reroll):
    """The canonical dice mask of the packed pool ``reroll``: the last dice of each run of a symbol."""
    m = 0
    for i in range(s[L.ND] - 1, -1, -1):
        sym = s[L.DICE + i]
        if D.pc(reroll, sym) > 0:
            reroll -= D.unit(sym)
            m |= 1 << i
    return m


@njit(cache=True, _nrt=False)
def roll_decision(s, env, legal, n, params):
    """Keep the dice the best activation uses; reroll the rest while the Warband is not all activated (and, as
    the defender, while not ahead of the attacker)."""
    p = F.battler(s)
    pl = F.pool(s, env)
    m, st = F.best_joint(s, env, p, pl, 0)
    full = (1 << s[team(p)]) - 1
    if m == full:
        return L.A_STOP
    if s[L.B_SIDE] == 1 and st > s[L.B_TOT]:
        return L.A_STOP
    for i in range(n):
        if legal[i] >= L.A_DELIVER and legal[i] < L.A_PATH:
            return legal[i]
    rem = B.fit_set(s, team(p), L.CAND_N, env[L.E_CARDS], env[L.E_NEED], env[L.E_CLAN],
                    env[L.E_RULES][L.R_WILD_WARRIORS] == 1, pl, m if m > 0 else 0, 0)
    if rem < 0:
        return L.A_STOP
    # the Weapon Delivery cards are not dice: only dice are rerolled
    dice = D.pile_pool(s, L.ND)
    S = env[L.E_NEED].shape[1]
    left = np.int64(0)
    for sym in range(S + 1):
        k = min(D.pc(rem, sym), D.pc(dice, sym))
        left += k * D.unit(sym)
    mask = mask_for(s, left)
    if mask == 0:
        return L.A_STOP
    if in_legal(legal, n, L.A_FREE + mask):
        return L.A_FREE + mask
    if params[3] >= 0.5 and (mask & (mask - 1)) != 0 and in_legal(legal, n, L.A_BASIC + mask):
        return L.A_BASIC + mask
    return L.A_STOP


@njit(cache=True, _nrt=False)
def commit_decision(s, env, legal, n):
    """The Tactics that give the most strength (ties: the first, fewer cards)."""
    p = F.battler(s)
    pl = F.pool(s, env)
    best_a, best_v = legal[0], -1
    for i in range(n):
        t = legal[i] - L.A_COMMIT
        m, st = F.best_joint(s, env, p, pl, t)
        if m < 0:
            continue
        v = st + B.tset_value(s, L.CAND_N, env[L.E_CARDS], t)
        if v > best_v:
            best_a, best_v = legal[i], v
    return best_a


@njit(cache=True, _nrt=False)
def bless_decision(legal, n):
    """A blessing takes the first set offered (``glory.blessing_choice``): the largest Glory first, as the engine
    drew before the choice was the seat's (issue 40)."""
    for i in range(n):
        if legal[i] == L.A_BLESS:
            return legal[i]
    return legal[0]


@njit(cache=True, _nrt=False)
def mission_decision(legal, n):
    """The first Mission in hand whose requirement was met (never none: 2 Glory), as the engine played before the
    choice was the seat's (issue 40)."""
    for i in range(n):
        if legal[i] != L.A_NO:
            return legal[i]
    return legal[0]


@njit(cache=True, _nrt=False)
def heuristic(s, env, legal, n, params, prng):
    cards = env[L.E_CARDS]
    ph = s[L.PHASE]
    if ph == L.PH_JARL:
        # the Jarl whose power looks strongest (stand-in weights per ability)
        jr = env[L.E_JARLS]
        best_a, best_v = legal[0], -1.0
        for i in range(n):
            j = s[L.JOFFER + 3 * s[L.SETUP_I] + legal[i] - L.A_JARL]
            v = JARL_WEIGHTS[jr[j, 0]] * jr[j, 1]
            if v > best_v:
                best_a, best_v = legal[i], v
        return best_a
    if ph == L.PH_DRAFT or ph == L.PH_KEEP:
        best_a, best_v = legal[0], -1.0
        for i in range(n):
            v = card_value(env, params, s[L.DRAWN + legal[i] - L.A_KEEP])
            if v > best_v:
                best_a, best_v = legal[i], v
        return best_a
    if ph == L.PH_DISCARD2:
        h = hand(s[L.SETUP_I])
        best_a, best_v = legal[0], 1e18
        for i in range(n):
            k = legal[i] - L.A_DISC2
            v = card_value(env, params, s[h + 1 + k // 8]) + card_value(env, params, s[h + 1 + k % 8])
            if v < best_v:
                best_a, best_v = legal[i], v
        return best_a
    if ph == L.PH_A:
        return part_a(s, env, legal, n, params)
    if ph == L.PH_PAIR2:
        h = hand(s[L.CUR])
        best_a, best_v = legal[0], -1.0
        for i in range(n):
            v = card_value(env, params, s[h + 1 + legal[i] - L.A_PLAY])
            if v > best_v:
                best_a, best_v = legal[i], v
        return best_a
    if ph == L.PH_SILENCE or ph == L.PH_PATH:
        return L.A_YES
    if ph == L.PH_PATHPICK:
        # the activated Warrior that counts least (it goes to Valhalla anyway)
        a = s[L.B_ATT]
        best_a, best_v = legal[0], 1 << 30
        for i in range(n):
            k = legal[i] - L.A_PATH
            v = cards[s[team(a) + 1 + k], C.C_STR]
            if v < best_v:
                best_a, best_v = legal[i], v
        return best_a
    if ph == L.PH_ROLL:
        return roll_decision(s, env, legal, n, params)
    if ph == L.PH_COMMIT:
        return commit_decision(s, env, legal, n)
    if ph == L.PH_BLESS:
        return bless_decision(legal, n)
    if ph == L.PH_MISSION:
        return mission_decision(legal, n)
    return legal[0]


LEARNED_FNS = specialize_learned(FT.features, heuristic, N_PARAMS, FT.N_FEATURES, FT.MAX_NNZ, __name__)
learned_action = LEARNED_FNS.learned_action


@njit(cache=True, _nrt=False)
def policy(kind, s, env, legal, n, params, prng):
    """The decision interface's policy: ``heuristic`` (steered by ``params``), ``random`` (uniform) or ``learned``
    (a scorer over ``features``, with ``heuristic`` as its base); reads only what the mover may see."""
    if n == 1:
        return legal[0]
    if kind == RANDOM:
        return legal[randbelow(prng, n)]
    if kind == LEARNED:
        return learned_action(s, env, legal, n, params, prng)
    return heuristic(s, env, legal, n, params, prng)


def param_vector(overrides: dict | None = None) -> np.ndarray:
    """This game's parameter vector: the defaults of ``PARAMS`` with ``overrides``."""
    return _core.param_vector(PARAMS, overrides)
