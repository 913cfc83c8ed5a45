"""Valhalla multiplayer rules as a decision-point state machine (``simkit.core.decision``), 2–6 players.

The state ``s`` (int32, see ``layout``) records whose decision is pending (``MOVER``) and of which kind
(``PHASE``); ``rng`` (uint64[4]) is the game's chance stream (the dice); ``env`` is ``(cards, need, p_act, jarls,
clan_ability, faces, rules)``. The deck and the Jarls are shuffled at set-up from a separate shuffler stream, so
every policy line-up starts from the same deal (common random numbers).

The phases live in ``setup``, ``turn`` and ``fight``; this module is the interface (``legal_actions``,
``apply_action``, ``is_over``, ``to_move``, ``reward``, ``resample``) and the invariants. Hidden information:
each hand, the deck order, the cards another seat draws to keep one, the Jarls offered to another seat.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simkit.core.decision import reseed
from simkit.core.rng import randbelow
from simkit.games.valhalla.multi import fight as F
from simkit.games.valhalla.multi import layout as L
from simkit.games.valhalla.multi import setup as SU
from simkit.games.valhalla.multi import turn as T
from simkit.games.valhalla.multi.state import hand, jarl_ability, pb, team, val
from simkit.games.valhalla.solo import layout as C

MAX_ACTIONS = L.MAX_ACTIONS


@njit(cache=True, _nrt=False)
def advance(s, rng, env):
    """Resolve forced steps and chance until the next decision or the end of the game."""
    while True:
        if s[L.DONE] == 1:
            s[L.PHASE] = L.PH_OVER
            return
        ph = s[L.PHASE]
        if ph < L.ST_DRAFT:
            return
        if ph == L.ST_DRAFT:
            SU.reveal_draft(s, env)
        elif ph == L.ST_DEAL:
            SU.deal(s, env)
        elif ph == L.ST_TURN:
            if s[L.EXHAUSTED] == 1 and (env[L.E_RULES][L.R_END_ROUND] == 0 or s[L.CUR] == 0):
                T.finish_game(s, env, L.CAUSE_DECK)  # (the round reading: only a deck emptied at set-up)
                continue
            s[L.TURNS] += 1
            s[L.MOVER] = s[L.CUR]
            # with cards in the deck, drawing is always possible; with none (the round reading), a seat with no
            # part A action goes on to part B (which then draws nothing)
            s[L.PHASE] = L.PH_A if T.has_part_a_action(s, env) else L.ST_AFTER_A
        elif ph == L.ST_AFTER_A:
            s[L.PHASE] = L.ST_PART_B
        elif ph == L.ST_PART_B:
            T.part_b(s, env)
        elif ph == L.ST_END_TURN:
            T.end_turn(s, env)
        elif ph == L.ST_ROLL:
            F.roll(s, rng, env)
        elif ph == L.ST_ROLLED:
            s[L.MOVER] = F.battler(s)
            if F.roll_has_options(s, env):
                s[L.PHASE] = L.PH_ROLL
            else:
                F.enter_commit(s, env)
        elif ph == L.ST_RESOLVE:
            F.resolve(s, env)
        elif ph == L.ST_BATTLE_END:
            if F.battle_end(s, env):
                T.finish_game(s, env, L.CAUSE_SHIELDS)
        else:
            s[L.DONE] = 1  # unknown step: cannot happen


@njit(cache=True)
def new_game(s, rng, env, shuffler, deck_ids):
    """Set up a game and advance it to its first decision (seat 0's Jarl)."""
    SU.setup(s, env, shuffler, deck_ids)
    advance(s, rng, env)


@njit(cache=True, _nrt=False)
def is_over(s):
    return s[L.DONE] == 1


@njit(cache=True, _nrt=False)
def to_move(s):
    return s[L.MOVER]


@njit(cache=True, _nrt=False)
def reward(s, env, seat):
    """1 for a sole winner, 1/k for each of k seats sharing the most Glory, 0 otherwise."""
    m = s[L.WIN_MASK]
    if not (m >> seat) & 1:
        return 0.0
    k = 0
    for p in range(s[L.NP]):
        k += (m >> p) & 1
    return 1.0 / k


@njit(cache=True, _nrt=False)
def legal_actions(s, env, out):
    """The legal actions now, in ``out[:n]`` (encoding: ``layout``)."""
    cards = env[L.E_CARDS]
    if s[L.DONE] == 1:
        return 0
    ph = s[L.PHASE]
    if ph == L.PH_JARL:
        n = 0
        p = s[L.SETUP_I]
        for i in range(3):
            if s[L.JOFFER + 3 * p + i] >= 0:
                out[n] = L.A_JARL + i
                n += 1
        return n
    if ph == L.PH_DRAFT or ph == L.PH_KEEP:
        for i in range(s[L.DRAWN_N]):
            out[i] = L.A_KEEP + i
        return s[L.DRAWN_N]
    if ph == L.PH_DISCARD2:
        n = 0
        hn = s[hand(s[L.SETUP_I])]
        for a in range(min(hn, 8)):
            for b in range(a + 1, min(hn, 8)):
                out[n] = L.A_DISC2 + 8 * a + b
                n += 1
        return n
    if ph == L.PH_A:
        return T.part_a_actions(s, env, out)
    if ph == L.PH_PAIR2:
        n = 0
        p = s[L.CUR]
        a = s[L.PAIR_FIRST]
        for b in range(a + 1, s[hand(p)]):
            if T.pair_ok(s, cards, env[L.E_NEED], p, a, b):
                out[n] = L.A_PLAY + b
                n += 1
        return n
    if ph == L.PH_SILENCE or ph == L.PH_PATH:
        out[0] = L.A_NO
        out[1] = L.A_YES
        return 2
    if ph == L.PH_PATHPICK:
        n = 0
        for i in range(s[team(s[L.B_ATT])]):
            if (s[L.B_ACT] >> i) & 1:
                out[n] = L.A_PATH + i
                n += 1
        return n
    if ph == L.PH_ROLL:
        return F.roll_actions(s, env, out)
    if ph == L.PH_COMMIT:
        return F.commit_actions(s, env, out)
    if ph == L.PH_BLESS:
        return F.bless_actions(s, env, out)
    if ph == L.PH_MISSION:
        return F.mission_actions(s, env, out)
    return 0


@njit(cache=True, _nrt=False)
def apply_action(s, rng, env, a):
    """Apply action ``a`` (one of ``legal_actions``), then resolve chance and forced steps until the next
    decision or the end of the game."""
    ph = s[L.PHASE]
    s[L.STEPS] += 1
    if ph == L.PH_JARL:
        SU.choose_jarl(s, env, a - L.A_JARL)
    elif ph == L.PH_DRAFT:
        SU.draft_pick(s, a - L.A_KEEP)
    elif ph == L.PH_DISCARD2:
        k = a - L.A_DISC2
        SU.discard_two(s, k // 8, k % 8)
    elif ph == L.PH_A:
        p = s[L.CUR]
        if a < L.A_PAIR:
            T.play_warrior(s, p, a - L.A_PLAY)
            s[L.PHASE] = L.ST_AFTER_A
        elif a < L.A_DRAW:
            s[L.PAIR_FIRST] = a - L.A_PAIR
            s[L.PHASE] = L.PH_PAIR2
        elif a == L.A_DRAW:
            # "draw 2 and keep 1"
            T.start_draw(s, env[L.E_RULES][L.R_DRAW_A], L.KEEP_A)
        else:
            F.begin_battle(s, env, p, a - L.A_ATTACK)
    elif ph == L.PH_PAIR2:
        p = s[L.CUR]
        T.play_warrior(s, p, a - L.A_PLAY)  # the higher index first, so the lower stays valid
        T.play_warrior(s, p, s[L.PAIR_FIRST])
        s[L.PHASE] = L.ST_AFTER_A
    elif ph == L.PH_KEEP:
        T.keep_card(s, a - L.A_KEEP)
    elif ph == L.PH_SILENCE:
        if a == L.A_YES:
            F.play_tactic(s, env[L.E_CARDS], s[L.B_ATT], F.hand_effect(s, env[L.E_CARDS], s[L.B_ATT], C.T_SILENCE))
            s[L.B_SILENCED] = 1  # the defender's Jarl power is off this battle
        s[L.PHASE] = L.ST_ROLL
    elif ph == L.PH_PATH:
        if a == L.A_YES:
            F.play_path(s, env)
        else:
            s[L.PHASE] = L.ST_ROLL
    elif ph == L.PH_PATHPICK:
        F.path_pick(s, env, a - L.A_PATH)
    elif ph == L.PH_ROLL:
        F.apply_roll(s, rng, env, a)
    elif ph == L.PH_COMMIT:
        F.commit(s, env, a - L.A_COMMIT)
    elif ph == L.PH_BLESS or ph == L.PH_MISSION:
        F.end_choice(s, env, a)
    advance(s, rng, env)


@njit(cache=True)
def resample(s, rng, env, seat, srng):
    """Redeal what ``seat`` cannot see, canonically: the deck, the other seats' hands and (when another seat is
    choosing one) the drawn cards are pooled, sorted, shuffled from ``srng`` and dealt back with the same counts;
    the Jarls offered to other seats are redrawn from those nobody holds or was offered to ``seat``; the chance
    stream is reseeded."""
    n_p = s[L.NP]
    buf = np.empty(L.MAX_CARDS + 8, np.int32)
    k = 0
    hidden_drawn = s[L.PHASE] == L.PH_KEEP and s[L.MOVER] != seat
    for i in range(s[L.DECK_N]):
        buf[k] = s[L.DECK + i]
        k += 1
    for p in range(n_p):
        if p != seat:
            h = hand(p)
            for i in range(s[h]):
                buf[k] = s[h + 1 + i]
                k += 1
    if hidden_drawn:
        for i in range(s[L.DRAWN_N]):
            buf[k] = s[L.DRAWN + i]
            k += 1
    pool = np.sort(buf[:k])
    for i in range(k - 1, 0, -1):
        j = randbelow(srng, i + 1)
        t = pool[i]
        pool[i] = pool[j]
        pool[j] = t
    k = 0
    for i in range(s[L.DECK_N]):
        s[L.DECK + i] = pool[k]
        k += 1
    for p in range(n_p):
        if p != seat:
            h = hand(p)
            for i in range(s[h]):
                s[h + 1 + i] = pool[k]
                k += 1
    if hidden_drawn:
        for i in range(s[L.DRAWN_N]):
            s[L.DRAWN + i] = pool[k]
            k += 1
    # Jarls offered to other seats (set-up): unseen, from the Jarls nobody holds and ``seat`` was not offered
    nj = env[L.E_JARLS].shape[0]
    seen = np.zeros(nj, np.int64)
    for p in range(n_p):
        if s[pb(p) + L.P_JARL] >= 0:
            seen[s[pb(p) + L.P_JARL]] = 1
    for i in range(3):
        if s[L.JOFFER + 3 * seat + i] >= 0:
            seen[s[L.JOFFER + 3 * seat + i]] = 1
    free = np.empty(nj, np.int64)
    nf = 0
    for j in range(nj):
        if seen[j] == 0:
            free[nf] = j
            nf += 1
    for p in range(n_p):
        if p == seat:
            continue
        for i in range(3):
            if s[L.JOFFER + 3 * p + i] >= 0 and nf > 0:
                r = randbelow(srng, nf)
                s[L.JOFFER + 3 * p + i] = free[r]
                free[r] = free[nf - 1]
                nf -= 1
    reseed(rng, srng)


@njit(cache=True)
def invariants(s, env):
    """0 when the state keeps the rule invariants, else: 1 the cards of the deck are not all in exactly one place
    (deck, discard pile, drawn, in play, hands, Warbands, Valhallas); 2 a pile size out of range; 3 a Warband of
    more than 4; 4 shields not conserved (each seat's shields lost = the shields others took from it, in total);
    5 Glory does not add up (Valhalla Warriors + 2 a Mission + 2 a taken shield + the Jarl's; at the end,
    ``shield_glory = "held"``: + 2 a shield of its own left); 6 the end: a game
    over without the most-Glory winners, or the end condition not met; 7 an unknown phase or an open decision
    with no legal action."""
    cards, rules = env[L.E_CARDS], env[L.E_RULES]
    n_p = s[L.NP]
    n_cards = 0
    for c in range(cards.shape[0]):
        if cards[c, C.C_EXP] == 0 or rules[L.R_VALK] == 1:
            n_cards += 1
    seen = np.zeros(cards.shape[0], np.int64)
    total = 0
    bases = np.empty(5 + 3 * L.MAX_P, np.int64)
    caps = np.empty(5 + 3 * L.MAX_P, np.int64)
    bases[0], caps[0] = L.DECK_N, L.MAX_CARDS
    bases[1], caps[1] = L.DISC_N, L.MAX_CARDS
    bases[2], caps[2] = L.DRAWN_N, L.MAX_DRAWN
    bases[3], caps[3] = L.IP_N, L.MAX_INPLAY
    nb = 4
    for p in range(n_p):
        bases[nb], caps[nb] = hand(p), L.MAX_HAND
        bases[nb + 1], caps[nb + 1] = team(p), L.MAX_TEAM
        bases[nb + 2], caps[nb + 2] = val(p), L.MAX_CARDS
        nb += 3
    for b in range(nb):
        k = s[bases[b]]
        if k < 0 or k > caps[b]:
            return 2
        for i in range(k):
            c = s[bases[b] + 1 + i]
            if c < 0 or c >= cards.shape[0]:
                return 1
            seen[c] += 1
        total += k
    if total != n_cards:
        return 1
    for c in range(cards.shape[0]):
        if seen[c] > 1:
            return 1
    lost = 0
    taken = 0
    best = -1
    for p in range(n_p):
        if s[team(p)] > L.MAX_TEAM:
            return 3
        if s[pb(p) + L.P_JARL] < 0:
            continue
        ab, v = jarl_ability(s, env, p)
        init = rules[L.R_SHIELDS] + (v if ab == C.J_SHIELD else 0)
        if s[pb(p) + L.P_SHIELDS] < 0 or s[pb(p) + L.P_SHIELDS] > init:
            return 4
        lost += init - s[pb(p) + L.P_SHIELDS]
        taken += s[pb(p) + L.P_TAKEN]
        wg = 0
        missions = 0
        vp = val(p)
        for i in range(s[vp]):
            c = s[vp + 1 + i]
            if cards[c, C.C_TYPE] == C.WARRIOR:
                wg += cards[c, C.C_GLORY]
            elif cards[c, C.C_TYPE] == C.MISSION:
                missions += 1
            else:
                return 5
        start = v if ab == C.J_GLORY else 0
        if s[L.DONE] == 1 and rules[L.R_SHIELDS_HELD] == 1:
            start += 2 * s[pb(p) + L.P_SHIELDS]  # ``shield_glory = "held"``: own shields scored at the end
        if wg != s[pb(p) + L.P_VGLORY] or missions != s[pb(p) + L.P_MISSIONS] \
                or s[pb(p) + L.P_GLORY] != wg + 2 * missions + 2 * s[pb(p) + L.P_TAKEN] + start:
            return 5
        best = max(best, s[pb(p) + L.P_GLORY])
    if lost != taken or taken != s[L.ATT_WINS]:
        return 4
    if s[L.EXHAUSTED] != (1 if s[L.DECK_N] == 0 else 0) and s[L.PHASE] != L.PH_JARL:
        return 4
    if s[L.DONE] == 1:
        if s[L.PHASE] != L.PH_OVER or s[L.WIN_MASK] == 0:
            return 6
        for p in range(n_p):
            if ((s[L.WIN_MASK] >> p) & 1) != (1 if s[pb(p) + L.P_GLORY] == best else 0):
                return 6
        if s[L.CAUSE] == L.CAUSE_DECK and s[L.DECK_N] != 0:
            return 6
        if s[L.CAUSE] == L.CAUSE_SHIELDS:
            zero = False
            for p in range(n_p):
                if s[pb(p) + L.P_SHIELDS] == 0:
                    zero = True
            if not zero:
                return 6
        return 0
    ph = s[L.PHASE]
    if ph < L.PH_JARL or ph > L.PH_MISSION:
        return 7
    if legal_actions(s, env, np.empty(L.MAX_ACTIONS, np.int64)) == 0:
        return 7
    return 0
