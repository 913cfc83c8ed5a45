"""Exact checks of degenerate Lonequests: a map whose only card is one Marauder, one Fighter in the Warband Deck,
nothing to buy or play. The Lonequest is then a small Markov chain over (Fighter's Health left, Marauders' Health
left, Marauders still in the Fighter deck, whose turn), with the Chance Strike odds (``outcome_distribution``), the
"Strong Enuf" / "Not Enuf" Defend and the Marauders' Test Fate as its transitions. Its win probability, solved
exactly, must match the engine's simulated rate."""

import math
from fractions import Fraction

import icepool
import numpy as np

from simkit.games.valka.cards import WARBANDS, load_cards
from simkit.games.valka.chance_strike import ATTACKER_HITS, BOTH_HURT, DEFENDER_HITS, outcome_distribution
from simkit.games.valka.lonequest import engine as E
from simkit.games.valka.lonequest import layout as L
from simkit.games.valka.lonequest import policies as pol
from simkit.games.valka.lonequest.simulation import card_data, make_env, rules_vector

CARDS = load_cards()
DATA = card_data(CARDS)
RULES = rules_vector()
ids = {w: [i for i, f in enumerate(CARDS.fighters) if f.warband == k] for k, w in enumerate(WARBANDS)}
A = ids["knights"][0]
M, M2 = ids["goblins"][:2]
# a Fighter with 1 Health left never sacrifices itself (Reckless): every strike is a Chance Strike
CHANCE_ONLY = pol.param_vector({"reckless_below": 0})


WIN, LOSE = -2, -1


def win_probability(rows, index, start: int) -> Fraction:
    """P(the chain ends in "win") from state number ``start``, solved by icepool's absorbing Markov chain; ``rows``:
    (state, [(probability, next state or "win" / "lose")])."""
    step = {}
    for state, terms in rows:
        w: dict = {}
        for p, nxt in terms:
            code = WIN if nxt == "win" else LOSE if nxt == "lose" else index[nxt]
            w[code] = w.get(code, Fraction(0)) + p
        den = math.lcm(*(p.denominator for p in w.values()))
        step[index[state]] = icepool.Die({c: int(p * int(den)) for c, p in w.items() if p})
    return icepool.map(lambda i: i if i < 0 else step[i], start, repeat="inf").probability(WIN)


def exact_win(fighter, marauder, marauders, reserve, attack_first):
    """P(win) of the battle of one Fighter (strike, health, shield) against ``marauders`` identical Marauders
    (strike, health, shield) with ``reserve`` more of them in the Fighter deck; the Warband Deck is empty, so
    the Fighter's death loses. Rules: "Strike First if Able" (``attack_first``); Attack: one Chance Strike on the
    Marauder with the least Health left (the heuristic's target; with Strike <= Shield only a Chance Strike is
    legal), the Marauder takes its damage first, so double 1s that kill both win the battle; Defend: "Strong Enuf
    - If the Marauder(s) strike score(s) exceeds the combined Shield Score … your left most Frontline Fighter
    will take one damage" (the Strikes added up, the default), else "Not Enuf": "EVEN outcome - Draw and reveal a
    card from the Fighter deck. This Fighter joins the Marauders in battle." (1/2 on a d10)."""
    fs, fh, fsh = fighter
    ms, mh, msh = marauder
    assert fs <= msh, "a True Strike would need no dice"
    odds = outcome_distribution(fs, msh)
    index, rows = {}, []  # state -> its row; rows: (state, [(probability, next state or "win" / "lose")])

    def var(state):
        if state not in index:
            index[state] = len(index)
            todo.append(state)
        return index[state]

    todo = []
    start = var((fh, (mh,) * marauders, reserve, attack_first))
    while todo:
        state = todo.pop()
        f, hs, res, attacking = state
        terms = []
        if attacking:
            for out, p in odds.items():
                if p == 0:
                    continue
                hs2, f2 = list(hs), f
                if out in (ATTACKER_HITS, BOTH_HURT):
                    hs2[0] -= 1
                    if hs2[0] == 0:
                        hs2.pop(0)
                if out in (DEFENDER_HITS, BOTH_HURT):
                    f2 -= 1
                nxt = "win" if not hs2 else ("lose" if f2 == 0 else (f2, tuple(sorted(hs2)), res, False))
                terms.append((p, nxt))
        elif ms * len(hs) > fsh:
            terms.append((Fraction(1), "lose" if f == 1 else (f - 1, hs, res, True)))
        elif res > 0:
            terms.append((Fraction(1, 2), (f, tuple(sorted(hs + (mh,))), res - 1, True)))
            terms.append((Fraction(1, 2), (f, hs, res, True)))
        else:
            terms.append((Fraction(1), (f, hs, res, True)))
        for _, nxt in terms:
            if nxt not in ("win", "lose"):
                var(nxt)
        rows.append((state, terms))
    return win_probability(rows, index, start)


def one_card_map(fighter, marauder, reserve_marauder, stamina):
    """Location 0 holds one Marauder (M) and nothing else is left on the map; the Warband Deck holds only A; the
    Fighter deck holds M2 (``reserve_marauder``) or nothing; no Krone (no Bribe), no Loot in hand."""
    fighters = DATA[0].copy()
    for f, (strike, health, shield) in ((A, fighter), (M, marauder), (M2, marauder)):
        fighters[f, L.FS], fighters[f, L.FH], fighters[f, L.FSH] = strike, health, shield
    env = make_env((fighters, *DATA[1:]), RULES)
    s = np.zeros(L.STATE_SIZE, np.int32)
    E.blank(s, RULES)
    s[L.KRONE], s[L.STAMINA], s[L.LOC] = 0, stamina, 0
    s[L.CLEARED + 1:L.CLEARED + L.N_LOC] = 1
    s[L.LOC_N + 0] = 1
    s[L.LOC_CARDS + 0] = M
    L.deck_push_bottom(s, L.WB_HEAD, A)
    if reserve_marauder:
        L.deck_push_bottom(s, L.FD_HEAD, M2)
    for f in range(len(CARDS.fighters)):  # every other Fighter out of the game (the invariants count them all)
        if f not in (A, M) and not (reserve_marauder and f == M2):
            s[L.GRAVE + f] = 2
    return s, env


def simulate(fighter, marauder, reserve_marauder, stamina, n):
    """Play the one-card map ``n`` times with the heuristic (every decision checked legal); returns the wins and
    the Marauders defeated in each won game."""
    from simkit.core.rng import seed_stream
    from simkit.core.seeding import block_key

    wins, defeated = 0, []
    buf = np.empty(L.MAX_ACTIONS, np.int64)
    rng, prng = np.empty(4, np.uint64), np.empty(4, np.uint64)
    for g in range(n):
        s, env = one_card_map(fighter, marauder, reserve_marauder, stamina)
        seed_stream(rng, block_key(41, 0), g, 0)
        seed_stream(prng, block_key(41, 0), g, 1)
        E.advance(s, rng, env)
        while not E.is_over(s):
            k = E.legal_actions(s, env, buf)
            a = pol.policy(pol.HEURISTIC, s, env, buf, k, CHANCE_ONLY, prng)
            assert a in buf[:k] and s[L.PHASE] == L.PH_STRIKE, L.PHASES[s[L.PHASE]]  # the only decisions
            E.apply_action(s, rng, env, a)
        assert E.invariants(s, env) == 0
        if E.is_won(s):
            wins += 1
            defeated.append(int(s[L.DEFEATED]))
            # "10 Krone and 1 Stamina for each defeated Marauder", then the emptied Location's 10 Krone, 3 Stamina
            assert s[L.KRONE] == 10 * s[L.DEFEATED] + 10 and s[L.STAMINA] == stamina + s[L.DEFEATED] + 3
        else:
            assert s[L.CAUSE] == L.CAUSE_NO_FIGHTERS
    return wins, defeated


def _check(fighter, marauder, reserve, stamina, n):
    p = exact_win(fighter, marauder, 1, reserve, stamina >= 3)
    wins, defeated = simulate(fighter, marauder, reserve, stamina, n)
    se = float(np.sqrt(float(p) * (1 - float(p)) / n))
    # 4 standard errors: a false alarm about once in 16,000 runs
    assert abs(wins / n - float(p)) < 4 * se, (wins / n, float(p), se)
    return p, wins / n, defeated


def test_one_fighter_against_one_marauder_strong_enuf_matches_the_markov_chain():
    # Stamina 3: Attack first. Strike 2 against Shield 3: Chance Strikes only. The Marauder's Strike 2 exceeds the
    # Fighter's Shield 1: every Defend is "Strong Enuf". Fighter 3 Health, Marauder 2 Health.
    p, rate, defeated = _check((2, 3, 1), (2, 2, 3), 0, 3, 6000)
    assert Fraction(1, 5) < p < Fraction(4, 5)  # not a trivial chain
    assert set(defeated) == {1}


def test_not_enuf_reinforcement_and_summed_strikes_match_the_markov_chain():
    # Stamina 2: Defend first. One Marauder's Strike 1 does not exceed Shield 1 ("Not Enuf": on an even d10 the
    # Fighter deck's only card, a second Marauder, joins); two Marauders' 1 + 1 = 2 do ("Strong Enuf", summed).
    p, rate, defeated = _check((3, 3, 1), (1, 2, 4), 1, 2, 6000)
    assert Fraction(1, 10) < p < Fraction(9, 10)
    assert set(defeated) == {1, 2}  # won both with and without the reinforcement


def exact_wrath_win(fighter, n_fighters, marauder):
    """P(win) of ``n_fighters`` identical Tree Beasts (strike, health, shield 0) against one Marauder (strike,
    health, shield), attacking first, with the Warband Deck empty. Attack: each Fighter in slot order makes a
    Chance Strike on the Marauder (Strike <= Shield, and the Fighters' Strikes together do not exceed it: no Team
    Strike). Defend: the Marauder's Strike exceeds the Shields (0): "Strong Enuf", the left-most Fighter takes one
    damage; while 3 or more remain, Nature's Wrath (a Horrible Horde) makes the blow a Chance Strike of the
    Marauder's Strike against Shield 0 that must land, and a failed blow ends "The Marauders' turn" (no "Not Enuf"
    reinforcement)."""
    fs, fh, fsh = fighter
    ms, mh, msh = marauder
    assert fsh == 0 and fs * n_fighters <= msh
    strike = outcome_distribution(fs, msh)
    blow = outcome_distribution(ms, 0)
    lands = blow[ATTACKER_HITS] + blow[BOTH_HURT]
    index, rows, todo = {}, [], []

    def var(state):
        if state not in index:
            index[state] = len(index)
            todo.append(state)

    start = ((fh,) * n_fighters, mh, 0)  # (Fighters' Health left in slot order, Marauder's, struck; -1: Defend)
    var(start)
    while todo:
        state = todo.pop()
        fs_, m, struck = state
        terms = []
        if struck >= 0:
            for out, p in strike.items():
                if p == 0:
                    continue
                f2, m2, k = list(fs_), m, struck
                if out in (ATTACKER_HITS, BOTH_HURT):
                    m2 -= 1
                if out in (DEFENDER_HITS, BOTH_HURT):
                    f2[k] -= 1
                if f2[k] == 0:
                    f2.pop(k)
                else:
                    k += 1
                if m2 == 0:
                    nxt = "win"
                elif not f2:
                    nxt = "lose"
                else:
                    nxt = (tuple(f2), m2, -1 if k == len(f2) else k)
                terms.append((p, nxt))
        else:
            hit = list(fs_)
            hit[0] -= 1
            if hit[0] == 0:
                hit.pop(0)
            after = (tuple(hit), m, 0) if hit else "lose"
            if len(fs_) >= 3:
                terms += [(lands, after), (1 - lands, (fs_, m, 0))]
            else:
                terms.append((Fraction(1), after))
        for _, nxt in terms:
            if nxt not in ("win", "lose"):
                var(nxt)
        rows.append((state, terms))
    return win_probability(rows, index, index[start])


def test_natures_wrath_horde_matches_the_markov_chain():
    # Three Tree Beasts (Strike 1, Health 2, Shield 0) already in the Frontline explore the map's only card, a
    # Marauder (Strike 2, Health 3, Shield 4); a second Marauder waits in the Fighter deck: it may join only through
    # a "Not Enuf" roll, which never happens here (the Marauder's 2 always exceeds the Shields' 0).
    fighter, marauder, n = (1, 2, 0), (2, 3, 4), 6000
    trees = ids["tree_beasts"][:3]
    p = exact_wrath_win(fighter, 3, marauder)
    fighters = DATA[0].copy()
    for f, (strike, health, shield) in [(t, fighter) for t in trees] + [(M, marauder), (M2, marauder)]:
        fighters[f, L.FS], fighters[f, L.FH], fighters[f, L.FSH] = strike, health, shield
    env = make_env((fighters, *DATA[1:]), RULES)
    from simkit.core.rng import seed_stream
    from simkit.core.seeding import block_key

    buf = np.empty(L.MAX_ACTIONS, np.int64)
    rng, prng = np.empty(4, np.uint64), np.empty(4, np.uint64)
    wins = 0
    for g in range(n):
        s = np.zeros(L.STATE_SIZE, np.int32)
        E.blank(s, RULES)
        s[L.KRONE], s[L.STAMINA], s[L.LOC] = 0, 3, 0
        s[L.CLEARED + 1:L.CLEARED + L.N_LOC] = 1
        s[L.LOC_N + 0] = 1
        s[L.LOC_CARDS + 0] = M
        L.deck_push_bottom(s, L.FD_HEAD, M2)
        for t in trees:
            E.front_add(s, env, t)
        for f in range(len(CARDS.fighters)):
            if f not in (*trees, M, M2):
                s[L.GRAVE + f] = 2
        seed_stream(rng, block_key(43, 0), g, 0)
        seed_stream(prng, block_key(43, 0), g, 1)
        E.advance(s, rng, env)
        while not E.is_over(s):
            k = E.legal_actions(s, env, buf)
            a = pol.policy(pol.HEURISTIC, s, env, buf, k, CHANCE_ONLY, prng)
            assert s[L.PHASE] == L.PH_STRIKE and L.ST_CHANCE <= a
            E.apply_action(s, rng, env, a)
        assert E.invariants(s, env) == 0 and L.deck_len(s, L.FD_HEAD) == 1  # no reinforcement ever joined
        wins += E.is_won(s)
    se = float(np.sqrt(float(p) * (1 - float(p)) / n))
    assert Fraction(1, 10) < p < Fraction(9, 10)
    assert abs(wins / n - float(p)) < 4 * se, (wins / n, float(p), se)
