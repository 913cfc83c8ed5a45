"""A player's turn in the multiplayer game (issue 23 "Turn", "Part B", "End"; the solo rulebook: "Phases A and B
are exactly the same as those in the standard Valhalla game"): part A, one of four actions — play 1 Warrior, play
2 Warriors whose weapon symbols total at most 3, draw 2 and keep 1, attack another player (at most 4 Warriors in
a Warband; "obliged to play a Warrior in Phase A, if his team is empty"); part B, draw 2 and keep 1 (the Valkyries
deck: "The player draws 3 cards instead of 2, and then keeps 1 of them. The remaining cards are placed face up on
the discard pile"); the end, when a player has lost all 4 shields or the deck runs out: most Glory wins."""

from __future__ import annotations

from numba import njit

from simkit.games.valhalla.multi import layout as L
from simkit.games.valhalla.multi.state import draw, hand, jarl_ability, pb, push, remove_at, team
from simkit.games.valhalla.solo import layout as C


@njit(cache=True, _nrt=False)
def pair_ok(s, cards, need, p, a, b):
    """Two Warriors of seat p's hand "whose weapon symbols total at most 3"."""
    h = hand(p)
    ca, cb = s[h + 1 + a], s[h + 1 + b]
    if cards[ca, C.C_TYPE] != C.WARRIOR or cards[cb, C.C_TYPE] != C.WARRIOR:
        return False
    k = cards[ca, C.C_ANY] + cards[cb, C.C_ANY]
    for sym in range(need.shape[1]):
        k += need[ca, sym] + need[cb, sym]
    return k <= 3


@njit(cache=True, _nrt=False)
def part_a_actions(s, env, out):
    """The legal part A actions of the seat whose turn it is, in ``out``; returns their number."""
    cards, need = env[L.E_CARDS], env[L.E_NEED]
    p = s[L.CUR]
    h = hand(p)
    hn = s[h]
    tn = s[team(p)]
    n = 0
    warriors = 0
    for i in range(hn):
        if cards[s[h + 1 + i], C.C_TYPE] == C.WARRIOR:
            warriors += 1
            if tn < L.MAX_TEAM:
                out[n] = L.A_PLAY + i
                n += 1
    if tn <= L.MAX_TEAM - 2:
        for a in range(hn):
            for b in range(a + 1, hn):
                if pair_ok(s, cards, need, p, a, b):
                    out[n] = L.A_PAIR + a
                    n += 1
                    break
    if not (tn == 0 and warriors > 0):
        if s[L.DECK_N] > 0:
            out[n] = L.A_DRAW
            n += 1
        if tn > 0:
            for t in range(s[L.NP]):
                if may_attack(s, env, p, t):
                    out[n] = L.A_ATTACK + t
                    n += 1
    return n


@njit(cache=True, _nrt=False)
def may_attack(s, env, p, t):
    """Whether seat ``p`` (with a Warrior in its Warband) may attack seat ``t``: another seat, with an empty
    Warband too unless option ``attack_empty = "forbidden"``."""
    return t != p and (env[L.E_RULES][L.R_ATTACK_EMPTY] == 1 or s[team(t)] > 0)


@njit(cache=True, _nrt=False)
def has_part_a_action(s, env):
    """Whether ``part_a_actions`` lists any action (without listing them). Always, while the deck holds a card;
    with the deck empty (option ``game_end = "round"``) a seat may have none, and then skips part A."""
    cards = env[L.E_CARDS]
    p = s[L.CUR]
    h = hand(p)
    tn = s[team(p)]
    warriors = 0
    for i in range(s[h]):
        if cards[s[h + 1 + i], C.C_TYPE] == C.WARRIOR:
            warriors += 1
    if warriors > 0 and tn < L.MAX_TEAM:
        return True
    if s[L.DECK_N] > 0:
        return True
    if tn > 0:
        for t in range(s[L.NP]):
            if may_attack(s, env, p, t):
                return True
    return False


@njit(cache=True, _nrt=False)
def play_warrior(s, p, i):
    push(s, team(p), remove_at(s, hand(p), i))


@njit(cache=True, _nrt=False)
def start_draw(s, k, ctx):
    """Draw ``k`` cards to keep one (``ctx``: KEEP_A after the part A draw, KEEP_B in part B)."""
    s[L.DRAWN_N] = 0
    for _ in range(k):
        c = draw(s)
        if c < 0:
            break
        push(s, L.DRAWN_N, c)
    s[L.KEEP_CTX] = ctx
    s[L.MOVER] = s[L.CUR]
    if s[L.DRAWN_N] >= 2:
        s[L.PHASE] = L.PH_KEEP
    else:
        keep_card(s, 0)


@njit(cache=True, _nrt=False)
def keep_card(s, keep):
    """Keep drawn card ``keep``; "The remaining cards are placed face up on the discard pile"."""
    p = s[L.CUR]
    for i in range(s[L.DRAWN_N]):
        c = s[L.DRAWN + i]
        if i == keep and s[hand(p)] < L.MAX_HAND:  # a simulator bound on the hand, far above what play reaches
            push(s, hand(p), c)
        else:
            push(s, L.DISC_N, c)
    s[L.DRAWN_N] = 0
    s[L.PHASE] = L.ST_AFTER_A if s[L.KEEP_CTX] == L.KEEP_A else L.ST_END_TURN


@njit(cache=True, _nrt=False)
def part_b(s, env):
    """Part B: draw 2 (the Valkyries deck: 3; a Jarl's power may add more) and keep 1."""
    k = env[L.E_RULES][L.R_PART_B]
    ab, v = jarl_ability(s, env, s[L.CUR])
    if ab == C.J_DRAW:
        k += v
    start_draw(s, min(k, L.MAX_DRAWN), L.KEEP_B)


@njit(cache=True, _nrt=False)
def finish_game(s, env, cause):
    """"most Glory wins": every seat with the most Glory is a winner (a shared win). Option ``shield_glory =
    "held"``: "each shield is worth 2 Glory" counts every shield a seat holds at the end, its own left too (added
    to its Glory here; the default counts only the shields taken from others, scored as they are taken)."""
    if env[L.E_RULES][L.R_SHIELDS_HELD] == 1:
        for p in range(s[L.NP]):
            s[pb(p) + L.P_GLORY] += 2 * s[pb(p) + L.P_SHIELDS]
    best = -1
    for p in range(s[L.NP]):
        best = max(best, s[pb(p) + L.P_GLORY])
    m = 0
    for p in range(s[L.NP]):
        if s[pb(p) + L.P_GLORY] == best:
            m |= 1 << p
    s[L.WIN_MASK] = m
    s[L.CAUSE] = cause
    s[L.DONE] = 1
    s[L.PHASE] = L.PH_OVER


@njit(cache=True, _nrt=False)
def end_turn(s, env):
    """The end of a turn: the game ends once the deck has run out, at the end of the turn in which it did (option
    ``game_end = "round"``: at the end of that round, after the last seat's turn); otherwise the next player
    (clockwise: seat order) takes a turn."""
    if s[L.EXHAUSTED] == 1 and (env[L.E_RULES][L.R_END_ROUND] == 0 or s[L.CUR] == s[L.NP] - 1):
        finish_game(s, env, L.CAUSE_DECK)
        return
    if s[L.TURNS] >= env[L.E_RULES][L.R_TURN_CAP]:
        finish_game(s, env, L.CAUSE_CAP)
        return
    s[L.CUR] = (s[L.CUR] + 1) % s[L.NP]
    s[L.PHASE] = L.ST_TURN
