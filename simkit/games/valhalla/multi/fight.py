"""The multiplayer battle (issue 23 "Battle"; valhalla-valkyries.txt "Battle Tactic Cards", "Valkyrie Mission
Cards", "Warriors with the Valkyrie Blessing"): the attacker rolls 6 dice, places them on weapon symbols to
activate Warriors and Battle Tactics and may reroll (the basic reroll: give up a die to reroll others, as in the
solo rules); then the defender does the same; the higher strength wins (a tie: the attacker, as in the solo rules,
"match or exceed"; option ``ties``). An attacker who wins takes a shield (2 Glory at the end); the winner's
activated Warriors go to Valhalla with their Valkyrie blessings (the seat chooses which discard-pile Warriors
a blessing takes when more than one set fits), and the winner may complete one Mission (its choice, or none).

Dice, activation, rerolls and Glory are the family's code (``valhalla.dice``, ``valhalla.battle``,
``valhalla.glory``), the same as the solo engine's."""

from __future__ import annotations

from numba import njit

from simkit.games.valhalla import battle as B
from simkit.games.valhalla import dice as D
from simkit.games.valhalla import glory as G
from simkit.games.valhalla.multi import layout as L
from simkit.games.valhalla.multi.state import (hand, hand_effect, jarl_ability, kb, pb, push, remove_at, team,
                                               team_colours, val)
from simkit.games.valhalla.solo import layout as C

NO_LIMIT = 1 << 20  # the multiplayer Valhalla has no Glory limit


@njit(cache=True, _nrt=False)
def battler(s):
    return s[L.B_ATT] if s[L.B_SIDE] == 0 else s[L.B_DEF]


@njit(cache=True, _nrt=False)
def opponent(s):
    return s[L.B_DEF] if s[L.B_SIDE] == 0 else s[L.B_ATT]


@njit(cache=True, _nrt=False)
def jarl_on(s, env, p):
    """Seat p's Jarl ability in this battle: a defender's is off after the attacker's Silence."""
    ab, v = jarl_ability(s, env, p)
    if p == s[L.B_DEF] and s[L.B_SILENCED] == 1:
        return C.J_NONE, 0
    return ab, v


@njit(cache=True, _nrt=False)
def colours(s, env, p):
    """The colours the Boar Clan of seat p checks: the opposing Warband's clans (option ``boar``)."""
    if env[L.E_RULES][L.R_BOAR_OPP] == 0:
        return 0
    q = s[L.B_DEF] if p == s[L.B_ATT] else s[L.B_ATT]
    return team_colours(s, env[L.E_CARDS], q)


@njit(cache=True, _nrt=False)
def begin_battle(s, env, att, dfn):
    """Seat ``att`` attacks seat ``dfn``: the attacker's side first."""
    s[L.B_ATT] = att
    s[L.B_DEF] = dfn
    s[L.B_SIDE] = 0
    s[L.B_SILENCED] = 0
    s[L.B_PATH] = -1
    s[L.B_PATHED] = 0
    for k in range(2):
        s[L.B_BASIC + k] = 0
        s[L.B_ACT + k] = 0
        s[L.B_TOT + k] = 0
        s[L.B_NACT + k] = 0
    s[L.IP_N] = 0
    start_side(s, env)


@njit(cache=True, _nrt=False)
def start_side(s, env):
    """One side's turn in the battle: its free rerolls (a Jarl's), its candidate strength Tactics ("smaller team"
    ones when its Warband has fewer Warriors than the opponent's), then the Silence (attacker) or Path to Valhalla
    (defender) decision, then the roll."""
    cards = env[L.E_CARDS]
    p, q = battler(s), opponent(s)
    ab, v = jarl_on(s, env, p)
    s[L.B_FREE] = v if ab == C.J_REROLL else 0
    s[L.B_CLAN_GIVEN] = 0
    s[L.B_ICE_DONE] = 0
    s[L.ND] = 0
    for sym in range(L.MAX_SYM + 1):
        s[L.DELIV + sym] = 0
    s[L.CAND_N] = 0
    h = hand(p)
    for i in range(s[h]):
        c = s[h + 1 + i]
        if cards[c, C.C_TYPE] != C.TACTIC or s[L.CAND_N] >= L.MAX_CAND:
            continue
        e = cards[c, C.C_EFFECT]
        if e == C.T_STRENGTH or (e == C.T_SMALLER and s[team(p)] < s[team(q)]):
            push(s, L.CAND_N, c)
    s[L.MOVER] = p
    if s[L.B_SIDE] == 0:
        dab, _ = jarl_ability(s, env, q)
        if hand_effect(s, cards, p, C.T_SILENCE) >= 0 and (dab == C.J_DEFENCE or dab == C.J_REROLL
                                                            or dab == C.J_EXTRA_DIE):
            s[L.PHASE] = L.PH_SILENCE
            return
    elif hand_effect(s, cards, p, C.T_PATH) >= 0 and s[L.B_ACT] != 0:
        s[L.PHASE] = L.PH_PATH
        return
    s[L.PHASE] = L.ST_ROLL


@njit(cache=True, _nrt=False)
def play_tactic(s, cards, p, h):
    """A Battle Tactic from seat p's hand index h into play (to the discard pile after the battle); counted by
    effect in seat p's records."""
    c = remove_at(s, hand(p), h)
    s[kb(p) + L.K_TACTIC + cards[c, C.C_EFFECT]] += 1
    push(s, L.IP_N, c)


@njit(cache=True, _nrt=False)
def post_roll(s, rng, env):
    p = battler(s)
    B.post_roll(s, team(p), L.CAND_N, L.ND, L.DELIV, L.B_ICE_DONE, L.B_FREE, L.B_CLAN_GIVEN, rng,
                env[L.E_CARDS], env[L.E_NEED], env[L.E_CLAN], env[L.E_RULES][L.R_WILD_WARRIORS] == 1,
                colours(s, env, p), env[L.E_FACES], L.MAX_DICE)


@njit(cache=True, _nrt=False)
def roll(s, rng, env):
    """"the attacker rolls 6 dice" (a Jarl's power may add dice), then the powers of activated Warriors."""
    p = battler(s)
    k = env[L.E_RULES][L.R_DICE]
    ab, v = jarl_on(s, env, p)
    if ab == C.J_EXTRA_DIE:
        k += v
    D.roll_pile(s, L.ND, rng, env[L.E_FACES], min(k, L.MAX_DICE))
    post_roll(s, rng, env)
    s[L.PHASE] = L.ST_ROLLED


@njit(cache=True, _nrt=False)
def pool(s, env):
    """The side's dice and Weapon Delivery cards, packed."""
    return D.pile_pool(s, L.ND) + D.deliv_pool(s, L.DELIV, env[L.E_NEED].shape[1])


@njit(cache=True, _nrt=False)
def free_available(s, env):
    return s[L.B_FREE] > 0 or hand_effect(s, env[L.E_CARDS], battler(s), C.T_REROLL) >= 0


@njit(cache=True, _nrt=False)
def roll_has_options(s, env):
    if s[L.ND] >= 1 and free_available(s, env):
        return True
    if s[L.ND] >= 2:
        return True
    return hand_effect(s, env[L.E_CARDS], battler(s), C.T_DELIVERY) >= 0


@njit(cache=True, _nrt=False)
def roll_actions(s, env, out):
    """PH_ROLL: stop, a Weapon Delivery card per symbol, free rerolls, basic rerolls (as the solo engine)."""
    cards = env[L.E_CARDS]
    p = battler(s)
    out[0] = L.A_STOP
    n = 1
    seen = 0
    h = hand(p)
    for i in range(s[h]):
        c = s[h + 1 + i]
        if cards[c, C.C_TYPE] == C.TACTIC and cards[c, C.C_EFFECT] == C.T_DELIVERY:
            sym = cards[c, C.C_SYMBOL]
            if not (seen >> sym) & 1 and s[L.DELIV + sym] < 4:
                seen |= 1 << sym
                out[n] = L.A_DELIVER + i
                n += 1
    nd = s[L.ND]
    return D.list_rerolls(s, L.ND, out, n, L.A_FREE, L.A_BASIC, nd >= 1 and free_available(s, env), nd >= 2)


@njit(cache=True, _nrt=False)
def apply_roll(s, rng, env, a):
    cards = env[L.E_CARDS]
    p = battler(s)
    if a == L.A_STOP:
        enter_commit(s, env)
        return
    if a < L.A_PATH:
        # Weapon Delivery: "This card may be treated as a weapon die with the symbol shown on the card"
        h = a - L.A_DELIVER
        s[L.DELIV + cards[s[hand(p) + 1 + h], C.C_SYMBOL]] += 1
        play_tactic(s, cards, p, h)
    elif a < L.A_BASIC:
        if s[L.B_FREE] == 0:
            # a reroll Battle Tactic (the one with the most rerolls) is played for its free rerolls
            best, best_v = -1, -1
            h0 = hand(p)
            for h in range(s[h0]):
                c = s[h0 + 1 + h]
                if cards[c, C.C_TYPE] == C.TACTIC and cards[c, C.C_EFFECT] == C.T_REROLL \
                        and cards[c, C.C_VALUE] > best_v:
                    best, best_v = h, cards[c, C.C_VALUE]
            s[L.B_FREE] += best_v
            play_tactic(s, cards, p, best)
        s[L.B_FREE] -= 1
        D.reroll_pile(s, L.ND, rng, env[L.E_FACES], a - L.A_FREE)
    else:
        D.basic_reroll(s, L.ND, rng, env[L.E_FACES], a - L.A_BASIC)
        s[L.B_BASIC + s[L.B_SIDE]] = 1
    post_roll(s, rng, env)
    s[L.PHASE] = L.ST_ROLLED


@njit(cache=True, _nrt=False)
def feasible(s, env, t):
    p = battler(s)
    return B.tset_feasible(s, team(p), L.CAND_N, env[L.E_CARDS], env[L.E_NEED], env[L.E_CLAN],
                           env[L.E_RULES][L.R_WILD_WARRIORS] == 1, pool(s, env), t)


@njit(cache=True, _nrt=False)
def commit_actions(s, env, out):
    n = 0
    for t in range(1 << s[L.CAND_N]):
        if feasible(s, env, t):
            out[n] = L.A_COMMIT + t
            n += 1
    return n


@njit(cache=True, _nrt=False)
def enter_commit(s, env):
    k = 0
    if s[L.CAND_N] > 0:
        for t in range(1 << s[L.CAND_N]):
            if feasible(s, env, t):
                k += 1
    if k <= 1:
        commit(s, env, 0)
    else:
        s[L.PHASE] = L.PH_COMMIT


@njit(cache=True, _nrt=False)
def best_joint(s, env, p, pl, tset):
    """Seat p's best activation with the candidate Tactics ``tset`` (the family's ``battle.best_joint``)."""
    return B.best_joint(s, team(p), L.CAND_N, env[L.E_CARDS], env[L.E_NEED], env[L.E_CLAN],
                        env[L.E_RULES][L.R_WILD_WARRIORS] == 1, colours(s, env, p), pl, tset)


@njit(cache=True, _nrt=False)
def commit(s, env, tset):
    """Play the candidate Tactics ``tset``; the Warriors are the best activation together with them. Strength =
    activated Warriors + Battle Tactics (+ a Jarl's attack or defence bonus)."""
    cards = env[L.E_CARDS]
    p = battler(s)
    side = s[L.B_SIDE]
    pl = pool(s, env)
    m, st = best_joint(s, env, p, pl, tset)
    if m < 0:  # not activatable (cannot happen for a legal action): play none
        tset = 0
        m, st = best_joint(s, env, p, pl, 0)
    total = st
    ab, v = jarl_on(s, env, p)
    if (ab == C.J_ATTACK and side == 0) or (ab == C.J_DEFENCE and side == 1):
        total += v
    for j in range(s[L.CAND_N]):
        if (tset >> j) & 1:
            c = s[L.CAND + j]
            total += cards[c, C.C_VALUE]
            h0 = hand(p)
            for h in range(s[h0]):
                if s[h0 + 1 + h] == c:
                    play_tactic(s, cards, p, h)
                    break
    nact = 0
    for i in range(s[team(p)]):
        if (m >> i) & 1:
            nact += 1
    s[L.B_ACT + side] = m
    s[L.B_TOT + side] = total
    s[L.B_NACT + side] = nact
    if side == 0:
        s[L.B_SIDE] = 1
        start_side(s, env)
    else:
        s[L.PHASE] = L.ST_RESOLVE


@njit(cache=True, _nrt=False)
def play_path(s, env):
    """Path to Valhalla: "This card may be played only in defence. The attacking player chooses one of their
    activated Warriors, and that Warrior's strength is not counted in the attack." (the attacker's choice next)"""
    cards = env[L.E_CARDS]
    play_tactic(s, cards, s[L.B_DEF], hand_effect(s, cards, s[L.B_DEF], C.T_PATH))
    s[L.B_PATHED] = 1
    s[L.MOVER] = s[L.B_ATT]
    s[L.PHASE] = L.PH_PATHPICK


@njit(cache=True, _nrt=False)
def path_pick(s, env, i):
    """The attacker names activated Warrior ``i``: "that Warrior's strength is not counted in the attack". All of
    what it adds leaves with it: its own strength, the pack bonus it gives its activated Clan-mates (their
    strength counted without it) and its place among the activated Warriors (a Mission's "Three activated
    Warriors"); it still goes to Valhalla after the battle (docs/rules.md, issue 40)."""
    a = s[L.B_ATT]
    t, cards, clan, col, mask = team(a), env[L.E_CARDS], env[L.E_CLAN], colours(s, env, a), s[L.B_ACT]
    rest = mask & ~(1 << i)
    before, after = 0, 0
    for j in range(s[t]):
        if (mask >> j) & 1:
            before += B.warrior_strength(s, t, cards, clan, col, j, mask)
            if j != i:
                after += B.warrior_strength(s, t, cards, clan, col, j, rest)
    s[L.B_TOT] -= before - after
    s[L.B_NACT] -= 1
    s[L.B_PATH] = i
    s[L.MOVER] = s[L.B_DEF]
    s[L.PHASE] = L.ST_ROLL


@njit(cache=True, _nrt=False)
def to_valhalla(s, env, p, going):
    """Seat p's Warriors of bitmask ``going`` go to its Valhalla ("Warriors in Valhalla are kept face up to add
    their Glory Points"); each blessing that scores (``glory.blessing`` above 0, looking at the group that goes)
    is counted by kind in seat p's records and queued (``BLESS``), in Warband order, to be drawn from the discard
    pile by ``bless_take`` (seat p's choice when more than one set of cards fits)."""
    cards = env[L.E_CARDS]
    t = team(p)
    k = kb(p)
    s[L.BLESS_SEAT] = p
    for i in range(s[t]):
        if (going >> i) & 1:
            b = G.blessing(s, t, cards, going, i)
            if b > 0:
                s[k + L.K_BLESS + cards[s[t + 1 + i], C.C_BLESS] - 1] += 1
                s[L.BLESS + s[L.BLESS_N]] = b
                s[L.BLESS_N] += 1
    own = 0
    for i in range(s[t] - 1, -1, -1):  # the last first, as ``glory.send_group`` (the same Valhalla order)
        if (going >> i) & 1:
            w = remove_at(s, t, i)
            own += cards[w, C.C_GLORY]
            push(s, val(p), w)
    s[pb(p) + L.P_GLORY] += own
    s[pb(p) + L.P_VGLORY] += own


@njit(cache=True, _nrt=False)
def bless_actions(s, env, out):
    """PH_BLESS: one action per set of discard-pile Warriors the first queued blessing may take
    (``glory.blessing_choice``: the distinct multisets of Glory values that give exactly its bonus)."""
    n = G.blessing_choices(s, L.DISC_N, env[L.E_CARDS], s[L.BLESS])
    for k in range(n):
        out[k] = L.A_BLESS + k
    return n


@njit(cache=True, _nrt=False)
def bless_take(s, env, k):
    """The first queued blessing takes set ``k`` from the discard pile to its seat's Valhalla: "Place these cards
    on your Valhalla pile"; the Glory counts at once (and in the records' blessing Glory)."""
    p = s[L.BLESS_SEAT]
    cards = env[L.E_CARDS]
    code = G.blessing_choice(s, L.DISC_N, cards, s[L.BLESS], k)
    g = G.blessing_take(s, L.DISC_N, val(p), cards, code)
    s[kb(p) + L.K_BLESS_GLORY] += g
    s[pb(p) + L.P_GLORY] += g
    s[pb(p) + L.P_VGLORY] += g
    for j in range(s[L.BLESS_N] - 1):
        s[L.BLESS + j] = s[L.BLESS + j + 1]
    s[L.BLESS_N] -= 1


@njit(cache=True, _nrt=False)
def winner(s):
    return s[L.B_ATT] if s[L.B_WON_SIDE] == 0 else s[L.B_DEF]


@njit(cache=True, _nrt=False)
def mission_offered(s, env, h):
    """Whether the winner may complete the Mission at hand index h (``glory.mission_offered``)."""
    ws = s[L.B_WON_SIDE]
    return G.mission_offered(s, hand(winner(s)), env[L.E_CARDS], h, s[L.B_BASIC + ws],
                             s[L.B_TOT + ws] - s[L.B_TOT + 1 - ws], s[L.B_NACT + ws])


@njit(cache=True, _nrt=False)
def mission_actions(s, env, out):
    """PH_MISSION: each Mission the winner met (one per requirement, in hand order), then none: "Each player
    may play at most one Mission card whose requirements they met after a battle they won"."""
    n = 0
    for h in range(s[hand(winner(s))]):
        if mission_offered(s, env, h):
            out[n] = L.A_MISSION + h
            n += 1
    if n > 0:
        out[n] = L.A_NO
        n += 1
    return n


@njit(cache=True, _nrt=False)
def complete_mission(s, env, h):
    """The winner completes the Mission at hand index h: "A completed Mission is placed on your Valhalla"
    (2 Glory)."""
    w = winner(s)
    mc = remove_at(s, hand(w), h)
    s[kb(w) + L.K_MISSION + env[L.E_CARDS][mc, C.C_REQ]] += 1
    push(s, val(w), mc)
    s[pb(w) + L.P_GLORY] += G.MISSION_GLORY
    s[pb(w) + L.P_MISSIONS] += 1


@njit(cache=True, _nrt=False)
def end_choice(s, env, a):
    """Apply the seat's choice at PH_BLESS (``A_BLESS + k``) or PH_MISSION (``A_MISSION + h`` or ``A_NO``); the
    end of the battle goes on (``battle_end``)."""
    if s[L.PHASE] == L.PH_BLESS:
        bless_take(s, env, a - L.A_BLESS)
    elif a != L.A_NO:
        complete_mission(s, env, a - L.A_MISSION)
    s[L.PHASE] = L.ST_BATTLE_END


@njit(cache=True, _nrt=False)
def resolve(s, env):
    """Who wins: the higher strength (a tie: option ``ties``); the Battle Tactics played go to the discard pile.
    What follows is ``battle_end``'s."""
    ta, td = s[L.B_TOT], s[L.B_TOT + 1]
    att_wins = ta > td or (ta == td and env[L.E_RULES][L.R_TIES_ATTACKER] == 1)
    for i in range(s[L.IP_N]):
        push(s, L.DISC_N, s[L.IP + i])
    s[L.IP_N] = 0
    s[L.B_WON_SIDE] = 0 if att_wins else 1
    s[L.B_END] = L.END_PATH
    s[L.BLESS_N] = 0
    s[L.PHASE] = L.ST_BATTLE_END


@njit(cache=True, _nrt=False)
def battle_end(s, env):
    """The end of a battle, step by step (``B_END``), stopping at the seats' decisions: Path to Valhalla's
    Warrior "regardless of its result … is sent to the Valhalla of the attacking player" (alone, first); the
    winner's activated Warriors go to Valhalla; each blessing queued on the way is drawn from the discard pile
    (PH_BLESS, its seat's choice, when more than one set of cards fits); an attacker who wins takes a shield
    (2 Glory); the winner may play one Mission whose requirement it met (PH_MISSION); a player with no shield left
    ends the game: returns True when the defender has no shield left (PHASE is then ST_AFTER_A)."""
    a, d = s[L.B_ATT], s[L.B_DEF]
    while True:
        if s[L.BLESS_N] > 0:
            if G.blessing_choices(s, L.DISC_N, env[L.E_CARDS], s[L.BLESS]) >= 2:
                s[L.MOVER] = s[L.BLESS_SEAT]
                s[L.PHASE] = L.PH_BLESS
                return False
            bless_take(s, env, 0)
            continue
        st = s[L.B_END]
        if st == L.END_PATH:
            s[L.B_END] = L.END_GROUP
            p = s[L.B_PATH]
            if p >= 0:
                to_valhalla(s, env, a, 1 << p)
                act = s[L.B_ACT]
                s[L.B_ACT] = (act & ((1 << p) - 1)) | ((act >> (p + 1)) << p)
                s[L.B_PATH] = -1
        elif st == L.END_GROUP:
            s[L.B_END] = L.END_MISSION
            to_valhalla(s, env, winner(s), s[L.B_ACT + s[L.B_WON_SIDE]])
        elif st == L.END_MISSION:
            s[L.B_END] = L.END_DONE
            if s[L.B_WON_SIDE] == 0:
                s[pb(d) + L.P_SHIELDS] -= 1
                s[pb(a) + L.P_TAKEN] += 1
                s[pb(a) + L.P_GLORY] += 2  # "each shield is worth 2 Glory at the end"
                s[L.ATT_WINS] += 1
            for h in range(s[hand(winner(s))]):
                if mission_offered(s, env, h):
                    s[L.MOVER] = winner(s)
                    s[L.PHASE] = L.PH_MISSION
                    return False
        else:
            s[pb(winner(s)) + L.P_WON] += 1
            s[L.BATTLES] += 1
            s[L.MOVER] = s[L.CUR]
            s[L.PHASE] = L.ST_AFTER_A
            return s[pb(d) + L.P_SHIELDS] <= 0
