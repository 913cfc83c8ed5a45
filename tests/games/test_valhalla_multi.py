"""The Valhalla multiplayer engine: the family's shared battle / dice / Glory code, hand-computed blessings, one
battle against an exact Markov chain over the dice left, invariants over many random and heuristic games, the
scenario file's errors, and (issue 40) the seat's decisions after a battle: which discard-pile Warriors a blessing
takes and which Mission the winner completes, by hand and against the engine's former choices."""

from __future__ import annotations

import inspect
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from simkit.core import loader
from simkit.core.policies import RANDOM
from simkit.core.rng import seed_stream
from simkit.errors import InputError
from simkit.games.valhalla import battle as FB
from simkit.games.valhalla import dice as FD
from simkit.games.valhalla import glory as FG
from simkit.games.valhalla.deck import load_deck
from simkit.games.valhalla.multi import engine as E
from simkit.games.valhalla.multi import features as FT
from simkit.games.valhalla.multi import fight as F
from simkit.games.valhalla.multi import layout as L
from simkit.games.valhalla.multi import policies as pol
from simkit.games.valhalla.multi.simulation import decision_game, rules_vector, tables
from simkit.games.valhalla.multi.state import hand, team, val
from simkit.games.valhalla.solo import engine as SE
from simkit.games.valhalla.solo import layout as C

ROOT = Path(__file__).resolve().parents[2] / "scenarios" / "valhalla"
DECK = load_deck(ROOT / "deck.toml", ROOT / "cards.toml")
T, IDS = tables(DECK)
KEYS = [r.key for r in DECK.rows()]


def _ids(key):
    return [i for i, k in enumerate(KEYS) if k == key]


def _stream(seed, stream):
    r = np.empty(4, np.uint64)
    seed_stream(r, np.array([seed, 3], np.uint64), 0, stream)
    return r


def test_solo_and_multiplayer_run_the_family_code():
    """One implementation: the solo engine's dice fitting and packing are the family's functions, its battle
    helpers delegate to ``valhalla.battle`` / ``valhalla.glory``, and the multiplayer battle calls the same."""
    assert SE.fit is FD.fit and SE.pc is FD.pc and SE.unit is FD.unit and SE.roll_die is FD.roll_die
    solo_src = inspect.getsource(SE)
    for name in ("def fit(", "def fit_set(s, cards, need, clan_ability, wild_rule, pool, wmask, tset):\n    \"\"\"Fit",
                 "def blessing_draw(", "named_nat"):
        assert name not in solo_src
    for call in ("B.best_joint", "B.fit_set", "B.post_roll", "G.send_group", "G.find_mission", "D.basic_reroll",
                 "D.list_rerolls"):
        assert call in solo_src
    multi_src = inspect.getsource(F)
    for call in ("B.best_joint", "B.post_roll", "G.blessing(", "G.blessing_choice", "G.blessing_take",
                 "G.mission_offered", "D.basic_reroll", "D.list_rerolls", "D.roll_pile"):
        assert call in multi_src


def _warrior(blessing=0, glory=None, expansion=None):
    cards = T[0]
    for c in range(cards.shape[0]):
        if cards[c, C.C_TYPE] == C.WARRIOR and cards[c, C.C_BLESS] == blessing \
                and (glory is None or cards[c, C.C_GLORY] == glory) \
                and (expansion is None or cards[c, C.C_EXP] == expansion):
            return c
    raise AssertionError("no such card in the bundled deck")


def test_blessings_draw_from_the_discard_pile_by_hand():
    """+3 alone: the Warrior's own Glory plus 3 from the discard pile (2 + 1, largest first, order kept);
    +1 with two others: 2 more; the discard pile keeps its other cards in order."""
    cards = T[0]
    s = np.zeros(600, np.int32)
    tn, vn, dn = 0, 10, 300
    w3 = _warrior(blessing=3)
    g1, g2 = _warrior(glory=1, expansion=0), _warrior(glory=2, expansion=0)
    tactic = int(np.nonzero(cards[:, C.C_TYPE] == C.TACTIC)[0][0])  # never drawn by a blessing
    s[tn], s[tn + 1] = 1, w3
    pile = [g1, tactic, g2]
    s[dn] = len(pile)
    s[dn + 1:dn + 1 + len(pile)] = pile
    got = FG.send_group(s, tn, vn, dn, cards, 1, 0, 1 << 20)
    assert got == cards[w3, C.C_GLORY] + 3
    assert list(s[vn + 1:vn + 1 + s[vn]]) == [w3, g2, g1]
    assert list(s[dn + 1:dn + 1 + s[dn]]) == [tactic]
    # +1 going with two others: 2 Glory from the pile (one Glory-2 card)
    w1 = _warrior(blessing=1)
    s[:] = 0
    s[tn], s[tn + 1], s[tn + 2], s[tn + 3] = 3, w1, g1, g1
    s[dn], s[dn + 1] = 1, g2
    got = FG.send_group(s, tn, vn, dn, cards, 0b111, 0, 1 << 20)
    assert got == cards[w1, C.C_GLORY] + 2 * cards[g1, C.C_GLORY] + 2 and s[dn] == 0 and s[tn] == 0
    # the solo limit: room for the Warrior only, no blessing drawn
    s[:] = 0
    s[tn], s[tn + 1] = 1, w3
    s[dn], s[dn + 1] = 1, g2
    assert FG.send_group(s, tn, vn, dn, cards, 1, 0, cards[w3, C.C_GLORY]) == cards[w3, C.C_GLORY]
    assert s[dn] == 1


def _p_activate(q, k):
    """P(a one-symbol Warrior is activated from k dice) when each die shows a usable face with probability q,
    the player giving up one die and rerolling the rest after each miss (the basic reroll) while 2+ dice
    remain: a Markov chain on the number of dice, P(1) = q, P(k) = 1 - (1-q)^k + (1-q)^k P(k-1)."""
    p = q
    for n in range(2, k + 1):
        miss = (1 - q) ** n
        p = 1 - miss + miss * p
    return p


@pytest.mark.parametrize("ties, dice", [("attacker", 6), ("attacker", 2), ("defender", 2)])
def test_one_warrior_battle_matches_the_markov_chain(ties, dice):
    """Two players with identical one-Warrior Warbands, no Tactics and no Jarl power, the builder heuristic on
    both sides, ``dice`` dice a side (6 as the rules; 2 so that a Warrior often stays inactive): the attacker wins
    with P + (1 - P)^2 when ties go to the attacker (it wins whenever it activates; otherwise it wins when neither
    does, 0 = 0), and P (1 - P) when they go to the defender (P: a side activates its Warrior)."""
    w, w2 = _ids("raven_thrall")[:2]
    cards, need, faces = T[0], T[1], T[5]
    sym = int(np.nonzero(need[w])[0][0])
    S = need.shape[1]
    q = Fraction(sum(1 for f in faces if f == sym or f == S), len(faces))  # its symbol or ⊗
    p6 = _p_activate(q, dice)
    exact = p6 + (1 - p6) ** 2 if ties == "attacker" else p6 * (1 - p6)
    rules = rules_vector(players=2, variant="base", ties=ties, dice=dice)
    env = (*T, rules)
    kind, params = pol.HEURISTIC, pol.param_vector(dict(pol.PRESETS["builder"][1]))
    buf = np.empty(L.MAX_ACTIONS, np.int64)
    n, wins = 4000, 0
    for g in range(n):
        s = np.zeros(L.STATE_SIZE, np.int32)
        s[L.NP] = 2
        for p in range(L.MAX_P):
            s[L.P0 + p * L.PSTRIDE + L.P_JARL] = -1
            s[L.P0 + p * L.PSTRIDE + L.P_SHIELDS] = 4
        s[team(0)], s[team(0) + 1] = 1, w
        s[team(1)], s[team(1) + 1] = 1, w2
        s[L.DECK_N] = 1  # a card left, so the battle is not the deck's end
        s[L.DECK + 0] = _ids("raven_scout")[0]
        rng, prng = _stream(g, 2), _stream(g, 1)
        F.begin_battle(s, env, 0, 1)
        E.advance(s, rng, env)
        while s[L.BATTLES] == 0:
            k = E.legal_actions(s, env, buf)
            E.apply_action(s, rng, env, pol.policy(kind, s, env, buf, k, params, prng))
        wins += s[L.ATT_WINS]
    est = wins / n
    se = max((float(exact) * (1 - float(exact)) / n) ** 0.5, 1 / n)
    assert abs(est - float(exact)) < 4.5 * se, (est, float(exact))


def _play(game, seed, kind, params, check=True):
    s, rng, env = game.new_game(seed)
    prng = _stream(seed, 1)
    buf = np.empty(game.max_actions, np.int64)
    steps = 0
    while not game.fns.is_over(s):
        n = game.fns.legal_actions(s, env, buf)
        a = game.fns.policy(kind, s, env, buf, n, params, prng)
        assert a in buf[:n]
        game.fns.apply_action(s, rng, env, a)
        if check:
            code = game.invariants(s, env)
            assert code == 0, f"invariant {code} after action {a} (seed {seed}, step {steps})"
        steps += 1
        assert steps < 50_000
    return s, env


def test_invariants_over_many_games():
    """Cards, shields and Glory conserved at every step of 150 games: 2–6 players, both decks, the random,
    builder and raider policies; both endings occur; a shared win is 1/k to each winner."""
    game = decision_game()
    causes = set()
    players = set()
    for seed in range(50):
        for name in ("random", "builder", "raider"):
            kind, params = game.policies[name] if name in game.policies else (RANDOM, np.zeros(pol.N_PARAMS))
            s, env = _play(game, seed, kind, params)
            causes.add(int(s[L.CAUSE]))
            players.add(int(s[L.NP]))
            total = sum(game.fns.reward(s, env, p) for p in range(s[L.NP]))
            assert abs(total - 1.0) < 1e-9
    assert players == {2, 3, 4, 5, 6}
    assert {L.CAUSE_SHIELDS, L.CAUSE_DECK} <= causes


def test_invariants_catch_a_broken_state():
    """The invariants can fail: a card duplicated, a shield lost without being taken, Glory not adding up."""
    game = decision_game()
    s, rng, env = game.new_game(3)
    buf = np.empty(game.max_actions, np.int64)
    prng = _stream(3, 1)
    for _ in range(30):
        n = game.fns.legal_actions(s, env, buf)
        game.fns.apply_action(s, rng, env, game.fns.policy(RANDOM, s, env, buf, n, np.zeros(pol.N_PARAMS), prng))
    assert game.invariants(s, env) == 0
    bad = s.copy()
    bad[L.DISC + bad[L.DISC_N]] = bad[L.DECK + 0]
    bad[L.DISC_N] += 1
    assert game.invariants(bad, env) == 1
    bad = s.copy()
    bad[L.P0 + L.P_SHIELDS] -= 1
    assert game.invariants(bad, env) == 4
    bad = s.copy()
    bad[L.P0 + L.P_GLORY] += 1
    assert game.invariants(bad, env) == 5


BASE = f'''game = "valhalla"
mode = "multi"
cards = "{ROOT / "cards.toml"}"
deck = "{ROOT / "deck.toml"}"
players = [4]
variants = ["valkyries"]
play = ["builder"]
'''


def test_bundled_multi_scenario():
    sim = loader.load(ROOT / "multi.toml").simulation
    assert sim.cells == 5 * 2 * 5  # table sizes × decks × policies (builder, raider, builder_tuned, learned, random)


@pytest.mark.parametrize("old, new, needles", [
    ("players = [4]", "players = [7]", ["players[0]", "2, 3, 4, 5, 6", "7"]),
    ('variants = ["valkyries"]', 'variants = ["plus80"]', ["variants[0]", "'base'", "'valkyries'"]),
    ('play = ["builder"]', 'play = ["careful"]', ["play[0]", "careful"]),
    ('play = ["builder"]', 'play = ["builder"]\n[rules]\nties = "nobody"\n', ["rules.ties", "'attacker'",
                                                                          "'defender'"]),
])
def test_bad_multi_scenarios(tmp_path, old, new, needles):
    p = tmp_path / "multi.toml"
    p.write_text(BASE.replace(old, new))
    with pytest.raises(InputError) as err:
        loader.load(p)
    msg = str(err.value)
    assert "\n" not in msg
    for needle in needles:
        assert needle in msg


def _length_chain(p6, t_end):
    """The exact distribution of the game's length (turns) when two players each hold one identical Warrior and
    attack whenever their Warband holds it (an empty Warband plays the next Warrior from hand): a Markov chain on
    (whose turn, Warbands, shields). Each side activates its Warrior with ``p6``; the attacker wins when it does,
    and when neither side does (0 = 0 goes to the attacker; an empty Warband never activates); the winner's
    activated Warrior goes to Valhalla (a winner that activated nothing keeps its Warrior); the loser loses a
    shield only when it defended; a lost fourth shield ends the game, and the deck runs out in turn ``t_end``.
    Returns ({turns: P}, P(ended by shields))."""
    from collections import defaultdict

    dist, by_shields = defaultdict(Fraction), Fraction(0)
    states = {(0, 1, 1, 4, 4): Fraction(1)}
    for k in range(1, t_end + 1):
        nxt = defaultdict(Fraction)
        for (c, t0, t1, s0, s1), pr in states.items():
            o = 1 - c
            outcomes = []
            t, sh = [t0, t1], [s0, s1]
            if t[c] == 0:
                t[c] = 1
                outcomes.append((pr, t, sh))
            else:
                d = p6 if t[o] == 1 else Fraction(0)  # the defender activates
                tw, shw = list(t), list(sh)
                tw[c], shw[o] = 0, sh[o] - 1
                outcomes.append((pr * p6, tw, shw))  # the attacker activates: it wins, its Warrior to Valhalla
                shn = list(sh)
                shn[o] = sh[o] - 1
                outcomes.append((pr * (1 - p6) * (1 - d), list(t), shn))  # neither: the attacker wins, keeps it
                tl = list(t)
                tl[o] = 0
                outcomes.append((pr * (1 - p6) * d, tl, list(sh)))  # only the defender: its Warrior to Valhalla
            for q, t2, sh2 in outcomes:
                if q == 0:
                    continue
                if min(sh2) == 0:
                    dist[k] += q
                    by_shields += q
                elif k == t_end:
                    dist[k] += q
                else:
                    nxt[(o, t2[0], t2[1], sh2[0], sh2[1])] += q
        states = nxt
    return dict(dist), by_shields


def test_one_warrior_game_length_matches_the_markov_chain():
    """The whole degenerate game (a 40-card deck of one Warrior, no Tactics, no Jarl power, no discard pile at
    set-up, 2 dice a side so that battles go both ways): the engine's distribution of the game's length and its share of games ended by shields against the
    exact chain of ``_length_chain`` (23 cards left after the draft and the deal: the deck runs out in turn 12)."""
    w = _ids("raven_thrall")[0]
    cards, need, faces = T[0], T[1], T[5]
    sym = int(np.nonzero(need[w])[0][0])
    q = Fraction(sum(1 for f in faces if f == sym or f == need.shape[1]), len(faces))
    p2 = _p_activate(q, 2)
    exact, exact_shields = _length_chain(p2, 12)
    assert sum(exact.values()) == 1
    jarls = np.zeros((6, 2), np.int64)  # no Jarl power
    env = (cards, need, T[2], jarls, T[4], faces, rules_vector(players=2, variant="base", start_discard=0, dice=2))
    deck_ids = np.full(40, w, np.int64)
    kind, params = pol.HEURISTIC, pol.param_vector(dict(pol.PRESETS["builder"][1]))
    buf = np.empty(L.MAX_ACTIONS, np.int64)
    n = 2000
    counts: dict[int, int] = {}
    shields = 0
    for g in range(n):
        s = np.zeros(L.STATE_SIZE, np.int32)
        rng, prng, shuffler = _stream(g, 2), _stream(g, 1), _stream(g, 0)
        E.new_game(s, rng, env, shuffler, deck_ids)
        while not E.is_over(s):
            k = E.legal_actions(s, env, buf)
            ph = s[L.PHASE]
            if ph == L.PH_A:
                p = s[L.CUR]
                a = L.A_ATTACK + (1 - p) if s[team(p)] > 0 else L.A_PLAY + 0
            elif ph in (L.PH_ROLL, L.PH_COMMIT):
                a = pol.policy(kind, s, env, buf, k, params, prng)
            else:
                a = buf[0]
            assert a in buf[:k]
            E.apply_action(s, rng, env, a)
        counts[int(s[L.TURNS])] = counts.get(int(s[L.TURNS]), 0) + 1
        shields += s[L.CAUSE] == L.CAUSE_SHIELDS
    assert set(counts) <= set(exact)
    for t, pr in exact.items():
        p = float(pr)
        se = max((p * (1 - p) / n) ** 0.5, 1 / n)
        assert abs(counts.get(t, 0) / n - p) < 4.5 * se, (t, counts.get(t, 0) / n, p)
    p = float(exact_shields)
    assert abs(shields / n - p) < 4.5 * (p * (1 - p) / n) ** 0.5


def _winner_chain(p6, t_end, glory):
    """The chain of ``_length_chain`` (review) with each seat's Warriors in Valhalla added to the state, so the
    end's Glory is known: a seat's Glory = ``glory`` per Warrior in its Valhalla + 2 per shield it took ("each
    shield is worth 2 Glory at the end"); most Glory wins, equal Glory shares the win. Returns E[seat 0's reward]
    and P(a shared win)."""
    from collections import defaultdict

    states = {(0, 1, 1, 4, 4, 0, 0): Fraction(1)}
    reward0, shared = Fraction(0), Fraction(0)
    for k in range(1, t_end + 1):
        nxt = defaultdict(Fraction)
        for (c, t0, t1, s0, s1, v0, v1), pr in states.items():
            o = 1 - c
            t, sh, v = [t0, t1], [s0, s1], [v0, v1]
            outcomes = []
            if t[c] == 0:
                t[c] = 1
                outcomes.append((pr, t, sh, v))
            else:
                d = p6 if t[o] == 1 else Fraction(0)
                tw, shw, vw = list(t), list(sh), list(v)
                tw[c], shw[o], vw[c] = 0, sh[o] - 1, v[c] + 1
                outcomes.append((pr * p6, tw, shw, vw))
                shn = list(sh)
                shn[o] = sh[o] - 1
                outcomes.append((pr * (1 - p6) * (1 - d), list(t), shn, list(v)))
                tl, vl = list(t), list(v)
                tl[o], vl[o] = 0, v[o] + 1
                outcomes.append((pr * (1 - p6) * d, tl, list(sh), vl))
            for q, t2, sh2, v2 in outcomes:
                if q == 0:
                    continue
                if min(sh2) == 0 or k == t_end:
                    g0 = glory * v2[0] + 2 * (4 - sh2[1])
                    g1 = glory * v2[1] + 2 * (4 - sh2[0])
                    reward0 += q * (1 if g0 > g1 else Fraction(1, 2) if g0 == g1 else 0)
                    shared += q * (g0 == g1)
                else:
                    nxt[(o, t2[0], t2[1], sh2[0], sh2[1], v2[0], v2[1])] += q
        states = nxt
    return reward0, shared


def test_one_warrior_game_winner_matches_the_markov_chain():
    """Review: the degenerate game of ``test_one_warrior_game_length_matches_the_markov_chain`` scored to the end
    (Glory from Valhalla and taken shields, most Glory wins, a tie shared 1/2 each): seat 0's mean reward and the
    share of shared wins against ``_winner_chain``, within 4 standard errors (n = 2,000 games)."""
    w = _ids("raven_thrall")[0]
    cards, need, faces = T[0], T[1], T[5]
    sym = int(np.nonzero(need[w])[0][0])
    q = Fraction(sum(1 for f in faces if f == sym or f == need.shape[1]), len(faces))
    exact_reward, exact_shared = _winner_chain(_p_activate(q, 2), 12, int(cards[w, C.C_GLORY]))
    jarls = np.zeros((6, 2), np.int64)
    env = (cards, need, T[2], jarls, T[4], faces, rules_vector(players=2, variant="base", start_discard=0, dice=2))
    deck_ids = np.full(40, w, np.int64)
    kind, params = pol.HEURISTIC, pol.param_vector(dict(pol.PRESETS["builder"][1]))
    buf = np.empty(L.MAX_ACTIONS, np.int64)
    n = 2000
    rewards, shared = [], 0
    for g in range(n):
        s = np.zeros(L.STATE_SIZE, np.int32)
        rng, prng, shuffler = _stream(10_000 + g, 2), _stream(10_000 + g, 1), _stream(10_000 + g, 0)
        E.new_game(s, rng, env, shuffler, deck_ids)
        while not E.is_over(s):
            k = E.legal_actions(s, env, buf)
            ph = s[L.PHASE]
            if ph == L.PH_A:
                p = s[L.CUR]
                a = L.A_ATTACK + (1 - p) if s[team(p)] > 0 else L.A_PLAY + 0
            elif ph in (L.PH_ROLL, L.PH_COMMIT):
                a = pol.policy(kind, s, env, buf, k, params, prng)
            else:
                a = buf[0]
            E.apply_action(s, rng, env, a)
        rewards.append(E.reward(s, env, 0))  # (no invariants: the deck is 40 copies of one card id)
        shared += s[L.WIN_MASK] == 3
    mean, sd = float(np.mean(rewards)), float(np.std(rewards))
    assert abs(mean - float(exact_reward)) < 4 * sd / n ** 0.5, (mean, float(exact_reward))
    p = float(exact_shared)
    assert abs(shared / n - p) < 4 * max((p * (1 - p) / n) ** 0.5, 1 / n), (shared / n, p)


def _brute_feasible(team, pool, wild):
    """Independent of ``valhalla.battle`` (review): can the Warriors ``team`` all be activated by the dice
    ``pool`` (counts per symbol, the last the ⊗ face)? Backtracking over every assignment of a die to each weapon
    symbol: a named symbol takes its own die or ⊗, an "any" symbol any die; ⊗ only with ``wild`` and never for an
    Ice Giant ("dice bearing the ⊗ symbol cannot be used to activate them"); a ≠ Giant's dice all differ."""
    cards, need, clan = T[0], T[1], T[4]
    S = need.shape[1]
    slots = []
    for ci, c in enumerate(team):
        ice = cards[c, C.C_CLAN] >= 0 and clan[cards[c, C.C_CLAN]] == FB.A_ICE_GIANT
        opts_any = list(range(S)) + ([S] if wild and not ice else [])
        for sym in range(S):
            slots += [(ci, [sym] + ([S] if wild and not ice else []))] * int(need[c, sym])
        slots += [(ci, opts_any)] * int(cards[c, C.C_ANY])
    left = list(pool)
    used = [set() for _ in team]

    def rec(k):
        if k == len(slots):
            return True
        ci, opts = slots[k]
        distinct = cards[team[ci], C.C_DISTINCT] == 1
        for d in opts:
            if left[d] == 0 or (distinct and d in used[ci]):
                continue
            left[d] -= 1
            if distinct:
                used[ci].add(d)
            ok = rec(k + 1)
            left[d] += 1
            if distinct:
                used[ci].discard(d)
            if ok:
                return True
        return False

    return rec(0)


def _brute_best(team, pool, wild):
    """The most strength any subset of ``team`` the dice can activate (no Boar colours; the "pack" clan's +1 per
    other activated Warrior of its clan), by trying every subset."""
    import itertools

    cards, clan = T[0], T[4]
    best = 0
    for r in range(1, len(team) + 1):
        for sub in itertools.combinations(range(len(team)), r):
            cs = [team[i] for i in sub]
            st = 0
            for i, c in enumerate(cs):
                st += int(cards[c, C.C_STR])
                cl = cards[c, C.C_CLAN]
                if cards[c, C.C_SPECIAL] == 1 and cl >= 0 and clan[cl] == FB.A_PACK:
                    st += sum(1 for j, d in enumerate(cs) if j != i and cards[d, C.C_CLAN] == cl)
            if st > best and _brute_feasible(cs, pool, wild):
                best = st
    return best


def test_dice_fitting_is_exact_against_brute_force_and_sound_with_distinct_giants():
    """Review of the family's activation (``battle.best_joint``, solo and multiplayer): for Warbands of 1-3
    Warriors drawn from the Ice Giants and the cards with "any" symbols (where the fitting order matters) plus
    random 4-Warrior Warbands, over fixed samples of 6-dice pools, the most strength equals the brute-force
    optimum whenever no ≠ Giant is in the Warband (exact, as docs/rules.md states). With a ≠ Giant the fitting is
    documented as not exact: it never claims more than the optimum, and the Warriors it activates are feasible."""
    import itertools
    import random

    cards, need, clan = T[0], T[1], T[4]
    S = need.shape[1]
    kinds = sorted({KEYS[c]: c for c in range(cards.shape[0]) if cards[c, C.C_TYPE] == C.WARRIOR}.values())
    hard = [c for c in kinds if cards[c, C.C_CLAN] == 1 or cards[c, C.C_ANY] > 0]
    pools = [p for p in itertools.product(range(7), repeat=S + 1) if sum(p) == 6]
    rnd = random.Random(23)
    teams = [list(t) for r in (1, 2) for t in itertools.combinations_with_replacement(hard, r)]
    teams += [rnd.sample(hard, 3) for _ in range(60)] + [[rnd.choice(kinds) for _ in range(4)] for _ in range(60)]
    s = np.zeros(16, np.int32)
    exact_cases = distinct_cases = inexact = 0
    for team_ in teams:
        s[0] = len(team_)
        s[1:1 + len(team_)] = team_
        has_distinct = any(cards[c, C.C_DISTINCT] == 1 for c in team_)
        for wild in (True, False):
            for pool in rnd.sample(pools, 12):
                packed = np.int64(sum(n << (4 * sym) for sym, n in enumerate(pool)))
                m, st = FB.best_joint(s, 0, 10, cards, need, clan, wild, 0, packed, 0)
                want = _brute_best(team_, pool, wild)
                if not has_distinct:
                    assert max(st, 0) == want, ([KEYS[c] for c in team_], pool, wild, st, want)
                    exact_cases += 1
                    continue
                distinct_cases += 1
                assert max(st, 0) <= want
                if m > 0:
                    assert _brute_feasible([team_[i] for i in range(len(team_)) if (m >> i) & 1], pool, wild)
                inexact += max(st, 0) < want
    assert exact_cases > 5000 and distinct_cases > 500
    assert inexact < 0.05 * distinct_cases


def test_no_basic_rerolls_mission_rate_matches_the_exact_value():
    """Review: the one-Warrior battle of ``test_one_warrior_battle_matches_the_markov_chain`` (6 dice, ties to
    the attacker) with a "Not using basic rerolls" Mission in each hand. The builder rerolls after every miss, so
    the attacker completes it exactly when its first roll activates its Warrior, 1 - (1 - q)^6, and the defender
    when the attacker never activates and the defender's first roll does, (1 - P6)(1 - (1 - q)^6). A completed
    Mission goes to the winner's Valhalla for 2 Glory. Each rate within 4 SE, n = 4,000 battles."""
    from simkit.games.valhalla.multi.state import hand, pb, val

    w, w2 = _ids("raven_thrall")[:2]
    m0, m1 = _ids("mission_no_rerolls")[:2]
    cards, need, faces = T[0], T[1], T[5]
    sym = int(np.nonzero(need[w])[0][0])
    q = Fraction(sum(1 for f in faces if f == sym or f == need.shape[1]), len(faces))
    first = 1 - (1 - q) ** 6
    exact = {0: first, 1: (1 - _p_activate(q, 6)) * first}
    env = (*T, rules_vector(players=2, variant="valkyries", dice=6))
    kind, params = pol.HEURISTIC, pol.param_vector(dict(pol.PRESETS["builder"][1]))
    buf = np.empty(L.MAX_ACTIONS, np.int64)
    n = 4000
    done = {0: 0, 1: 0}
    for g in range(n):
        s = np.zeros(L.STATE_SIZE, np.int32)
        s[L.NP] = 2
        for p in range(L.MAX_P):
            s[L.P0 + p * L.PSTRIDE + L.P_JARL] = -1
            s[L.P0 + p * L.PSTRIDE + L.P_SHIELDS] = 4
        s[team(0)], s[team(0) + 1] = 1, w
        s[team(1)], s[team(1) + 1] = 1, w2
        s[hand(0)], s[hand(0) + 1] = 1, m0
        s[hand(1)], s[hand(1) + 1] = 1, m1
        s[L.DECK_N], s[L.DECK] = 1, _ids("raven_scout")[0]
        rng, prng = _stream(20_000 + g, 2), _stream(20_000 + g, 1)
        F.begin_battle(s, env, 0, 1)
        E.advance(s, rng, env)
        while s[L.BATTLES] == 0:
            k = E.legal_actions(s, env, buf)
            E.apply_action(s, rng, env, pol.policy(kind, s, env, buf, k, params, prng))
        for p, mc in ((0, m0), (1, m1)):
            got = s[pb(p) + L.P_MISSIONS]
            assert got == (mc not in s[hand(p) + 1:hand(p) + 1 + s[hand(p)]])  # played from the hand ...
            if got:
                v = val(p)
                assert mc in s[v + 1:v + 1 + s[v]]  # ... onto its Valhalla, 2 Glory with the Warrior's
                assert s[pb(p) + L.P_GLORY] == 2 + int(cards[(w, w2)[p], C.C_GLORY]) + 2 * s[pb(p) + L.P_TAKEN]
            done[p] += got
    for p in (0, 1):
        pr = float(exact[p])
        assert abs(done[p] / n - pr) < 4 * (pr * (1 - pr) / n) ** 0.5, (p, done[p] / n, pr)


def _battle_state(teams, hands, discard):
    """Two seats, no Jarl, 4 shields, the given Warbands, hands and discard pile (card keys), one card in the deck."""
    from simkit.games.valhalla.multi.state import hand

    s = np.zeros(L.STATE_SIZE, np.int32)
    s[L.NP] = 2
    for p in range(L.MAX_P):
        s[L.P0 + p * L.PSTRIDE + L.P_JARL] = -1
        s[L.P0 + p * L.PSTRIDE + L.P_SHIELDS] = 4
    for p in range(2):
        for base, keys in ((team(p), teams[p]), (hand(p), hands[p])):
            s[base] = len(keys)
            s[base + 1:base + 1 + len(keys)] = [_ids(k)[0] for k in keys]
    s[L.DISC_N] = len(discard)
    s[L.DISC + 0:L.DISC + len(discard)] = [_ids(k)[-1] for k in discard]
    s[L.DECK_N], s[L.DECK] = 1, _ids("raven_scout")[0]
    return s


def _settle(s, env):
    """The end of the battle (``fight.battle_end``) up to the end of part A, each blessing's set of cards and the
    Mission taken as the heuristic takes them (through ``legal_actions``)."""
    buf = np.empty(L.MAX_ACTIONS, np.int64)
    params, prng = pol.param_vector(), _stream(0, 1)
    while s[L.PHASE] != L.ST_AFTER_A:
        if s[L.PHASE] == L.ST_BATTLE_END:
            F.battle_end(s, env)
        else:
            assert s[L.PHASE] in (L.PH_BLESS, L.PH_MISSION)
            n = E.legal_actions(s, env, buf)
            F.end_choice(s, env, pol.policy(pol.HEURISTIC, s, env, buf, n, params, prng))


def _row(s):
    from simkit.games.valhalla.multi.simulation import COLUMNS, write_row

    row = np.zeros(len(COLUMNS), np.int32)
    write_row(s, T[0], row)
    return dict(zip(COLUMNS, row.tolist()))


def test_records_of_a_scripted_path_to_valhalla_battle():
    """Seat 0 attacks with Lone Raven (+3 alone, 2 Glory, strength 5) and a Raven Thrall (1 Glory), both activated,
    total 12; seat 1 (total 1) plays Path to Valhalla and seat 0 names Lone Raven: its strength is not counted
    (12 - 5 = 7) and it goes to Valhalla alone, so its +3 blessing draws 2 + 1 Glory from the discard pile (a
    Raven Hunter, then the first 1-Glory Warrior). Seat 0 wins 7 against 1: the Thrall goes too (no blessing),
    a shield (2 Glory) and its "Strength 5 higher" Mission (margin 6, 2 Glory). Seat 0: 2 + 3 + 1 + 2 + 2 = 10."""
    s = _battle_state([["lone_raven", "raven_thrall"], ["bear_thrall"]], [["mission_strength_5"], ["path_to_valhalla"]],
                      ["raven_hunter", "wolf_thrall", "boar_thrall"])
    env = (*T, rules_vector(players=2, variant="valkyries"))
    s[L.B_ATT], s[L.B_DEF], s[L.B_PATH] = 0, 1, -1
    s[L.B_ACT], s[L.B_TOT], s[L.B_NACT], s[L.B_BASIC] = 0b11, 12, 2, 1
    s[L.B_TOT + 1], s[L.B_NACT + 1] = 1, 1
    F.play_path(s, env)
    F.path_pick(s, env, 0)
    assert s[L.B_TOT] == 7
    F.resolve(s, env)
    _settle(s, env)
    r = _row(s)
    assert (r["bless_alone_0"], r["bless_companions_0"], r["bless_clan_0"], r["bless_glory_0"]) == (1, 0, 0, 3)
    assert r["valhalla_glory_0"] == 2 + 3 + 1  # Lone Raven, the two Warriors it drew, the Thrall
    assert (r["mission_strength_0"], r["mission_no_rerolls_0"], r["mission_three_0"], r["missions_held_0"]) \
        == (1, 0, 0, 0)
    assert r["glory_0"] == 10 and r["taken_0"] == 1
    assert r["tactic_path_1"] == 1 and r["tactic_path_0"] == 0
    assert sum(r[f"tactic_{e}_1"] for e in ("strength", "reroll", "smaller", "delivery", "silence")) == 0
    assert all(r[c] == 0 for c in r if c.endswith("_1") and c.startswith(("bless", "mission_")))
    assert r["bless_alone_2"] == -1  # no third seat
    assert r["glory_0"] == r["valhalla_glory_0"] + 2 * r["mission_strength_0"] + 2 * r["taken_0"]


def test_path_to_valhalla_takes_the_pack_bonus_and_the_count_with_the_warrior():
    """Issue 40: "that Warrior's strength is not counted in the attack". Seat 0 attacks with a Wolf Berserker
    (strength 4, +1 for each other activated Wolf: the Wolf Thrall), the Wolf Thrall (1) and a Raven Thrall (1),
    all activated: 5 + 1 + 1 = 7, three Warriors. Path to Valhalla on the Thrall leaves 4 + 1 = 5 (the
    Berserker's +1 goes with it; counting only its own strength would leave 6) and two activated Warriors, so
    seat 0 wins 5 against 1 but its "Three activated Warriors" Mission is not met and stays in its hand."""
    from simkit.games.valhalla.multi.state import hand

    s = _battle_state([["wolf_berserker", "wolf_thrall", "raven_thrall"], ["bear_thrall"]],
                      [["mission_three_warriors"], ["path_to_valhalla"]], ["raven_hunter", "boar_thrall"])
    env = (*T, rules_vector(players=2, variant="valkyries"))
    s[L.B_ATT], s[L.B_DEF], s[L.B_PATH] = 0, 1, -1
    s[L.B_ACT], s[L.B_TOT], s[L.B_NACT], s[L.B_BASIC] = 0b111, 7, 3, 1
    s[L.B_TOT + 1], s[L.B_NACT + 1] = 1, 1
    F.play_path(s, env)
    F.path_pick(s, env, 1)
    assert s[L.B_TOT] == 5 and s[L.B_NACT] == 2
    F.resolve(s, env)
    _settle(s, env)
    r = _row(s)
    assert r["taken_0"] == 1 and r["mission_three_0"] == 0
    assert _ids("mission_three_warriors")[0] in s[hand(0) + 1:hand(0) + 1 + s[hand(0)]]


def _blessing_sets(s):
    return FG.blessing_choices(s, L.DISC_N, T[0], s[L.BLESS])


def test_records_of_companion_and_clan_blessings():
    """Three Warriors go together: Raven Valkyrie (+1) scores 2 (two others go with it) and Raven Shieldmaiden
    (+2, Boar shown) scores 2 (a Boar Thrall goes with it); 4 Glory drawn from a pile of 1-Glory Warriors. Without
    the Boar Warrior the +2 does not score (the +1 still draws 2)."""
    for team0, bless, drawn in ((["raven_valkyrie", "raven_shieldmaiden", "boar_thrall"], (1, 1, 0), 4),
                                (["raven_valkyrie", "raven_shieldmaiden", "wolf_thrall"], (1, 0, 0), 2)):
        s = _battle_state([team0, []], [[], []], ["raven_thrall", "frost_thrall", "wolf_thrall", "bear_thrall",
                                                  "serpent_thrall"])
        env = (*T, rules_vector(players=2, variant="valkyries"))
        F.to_valhalla(s, env, 0, 0b111)
        while s[L.BLESS_N] > 0:  # (one set fits each: a pile of 1-Glory Warriors)
            assert _blessing_sets(s) == 1
            F.bless_take(s, env, 0)
        r = _row(s)
        assert (r["bless_companions_0"], r["bless_clan_0"], r["bless_alone_0"]) == bless
        assert r["bless_glory_0"] == drawn
        own = sum(int(T[0][_ids(k)[0], C.C_GLORY]) for k in team0)
        assert r["valhalla_glory_0"] == own + drawn


# --- issue 40: the decisions the engine took for the seat ---------------------------------------------------------


def _glory(key):
    return int(T[0][_ids(key)[0], C.C_GLORY])


def _pile(s, base):
    return [KEYS[c] for c in s[base + 1:base + 1 + s[base]]]


def _won_battle(teams, hands, discard, won_side, act, tot, nact, basic):
    """Seat 0 attacked seat 1 and side ``won_side`` won with the given activated Warriors (bitmask), totals,
    activated counts and basic rerolls; the end of the battle run to the first decision."""
    s = _battle_state(teams, hands, discard)
    env = (*T, rules_vector(players=2, variant="valkyries"))
    s[L.B_ATT], s[L.B_DEF], s[L.B_PATH] = 0, 1, -1
    for k in range(2):
        s[L.B_ACT + k], s[L.B_TOT + k], s[L.B_NACT + k], s[L.B_BASIC + k] = act[k], tot[k], nact[k], basic[k]
    F.resolve(s, env)
    assert s[L.B_WON_SIDE] == won_side
    F.battle_end(s, env)
    return s, env


def _legal(s, env):
    buf = np.empty(L.MAX_ACTIONS, np.int64)
    return list(buf[:E.legal_actions(s, env, buf)])


def _features(s, env, a):
    """The learned policies' non-zero features of action ``a`` ({slot: value})."""
    idx, vals = np.zeros(FT.MAX_NNZ, np.int64), np.zeros(FT.MAX_NNZ)
    m = FT.features(s, env, a, False, idx, vals)
    return dict(zip(idx[:m].tolist(), vals[:m].tolist()))


def _finish(s, env, a):
    """Apply the seat's choice ``a`` at the end of the battle and run the end of the battle to its close."""
    F.end_choice(s, env, a)
    _settle(s, env)


def test_a_blessing_takes_the_set_of_discard_pile_warriors_its_seat_chooses():
    """"draw Warrior cards from the discard pile whose combined Glory Point value equals the additional Glory
    Points … The player searches for the card or cards which together give as many Points". Seat 0 wins its
    attack with Lone Raven alone (+3 alone, 2 Glory); the discard pile holds Raven Hunter (2), Wolf Thrall (1),
    Raven Champion (3), Boar Thrall (1), a Path to Valhalla and Bear Thrall (1). Three sets give 3: the Champion;
    the Hunter and the first 1 (Wolf Thrall); the three 1s. Each is seat 0's action; each leaves the rest of the
    pile in order, and seat 0 ends with 2 + 3 + 2 (the shield) Glory. The heuristic takes the first set, the
    engine's draw before issue 40 (``glory.blessing_draw``, largest Glory first)."""
    pile = ["raven_hunter", "wolf_thrall", "raven_champion", "boar_thrall", "path_to_valhalla", "bear_thrall"]
    assert [_glory(k) for k in pile if k != "path_to_valhalla"] == [2, 1, 3, 1, 1] and _glory("lone_raven") == 2
    s, env = _won_battle([["lone_raven"], ["bear_scout"]], [[], []], pile, 0, (1, 0), (5, 1), (1, 0), (1, 0))
    assert s[L.PHASE] == L.PH_BLESS and E.to_move(s) == 0
    assert _legal(s, env) == [L.A_BLESS, L.A_BLESS + 1, L.A_BLESS + 2]
    sets = {0: ["raven_champion"], 1: ["raven_hunter", "wolf_thrall"], 2: ["wolf_thrall", "boar_thrall", "bear_thrall"]}
    for k, taken in sets.items():
        t = s.copy()
        _finish(t, env, L.A_BLESS + k)
        assert _pile(t, val(0)) == ["lone_raven"] + taken
        assert _pile(t, L.DISC_N) == [c for c in pile if c not in taken]
        r = _row(t)
        assert (r["glory_0"], r["bless_glory_0"], r["bless_alone_0"], r["valhalla_glory_0"]) == (7, 3, 1, 5)
    for k, taken in sets.items():  # the learned policies' number: how many Warriors the set takes (/ 3)
        assert _features(s, env, L.A_BLESS + k)[FT.BLESS_CARDS] == pytest.approx(len(taken) / 3)
    buf = np.empty(L.MAX_ACTIONS, np.int64)
    n = E.legal_actions(s, env, buf)
    assert pol.policy(pol.HEURISTIC, s, env, buf, n, pol.param_vector(), _stream(0, 1)) == L.A_BLESS
    old = s.copy()
    assert FG.blessing_draw(old, L.DISC_N, val(0), T[0], 3) == 3
    assert _pile(old, val(0)) == ["lone_raven"] + sets[0]


def test_a_defender_s_clan_blessing_chooses_between_one_and_two_cards():
    """The winning defender (seat 1) sends Raven Shieldmaiden (+2, a Boar shown) with a Boar Thrall: 2 Glory from
    a pile of Wolf Thrall (1), Raven Hunter (2), Frost Thrall (1): the Hunter, or the two Thralls; seat 1's
    decision. Seat 1 ends with the two Warriors' Glory + 2 (a defender takes no shield)."""
    pile = ["wolf_thrall", "raven_hunter", "frost_thrall"]
    assert [_glory(k) for k in pile] == [1, 2, 1]
    s, env = _won_battle([["bear_scout"], ["raven_shieldmaiden", "boar_thrall"]], [[], []], pile, 1, (1, 3),
                         (1, 5), (1, 2), (0, 0))
    assert s[L.PHASE] == L.PH_BLESS and E.to_move(s) == 1
    assert _legal(s, env) == [L.A_BLESS, L.A_BLESS + 1]
    own = _glory("raven_shieldmaiden") + _glory("boar_thrall")
    for k, taken in {0: ["raven_hunter"], 1: ["wolf_thrall", "frost_thrall"]}.items():
        t = s.copy()
        _finish(t, env, L.A_BLESS + k)
        assert _pile(t, val(1))[2:] == taken
        assert _pile(t, L.DISC_N) == [c for c in pile if c not in taken]
        r = _row(t)
        assert (r["glory_1"], r["bless_clan_1"], r["bless_glory_1"], r["glory_0"]) == (own + 2, 1, 2, 0)


def test_the_winner_chooses_which_mission_to_complete_or_none():
    """"Each player may play at most one Mission card whose requirements they met after a battle they won".
    Seat 0 wins its attack with three activated Warriors, 9 against 3, a basic reroll used; its hand: Three
    activated Warriors, Strength 5 higher, Not using basic rerolls, a second Strength 5 higher, Raven Scout. It
    met the first two requirements (the third not): the choices are hand index 0, hand index 1 (the copy at 3 is
    the same choice) and none. Each Mission goes to Valhalla for 2 Glory (3 Warriors + 2 the shield + 2); none
    keeps the hand. The heuristic completes the first, as ``glory.find_mission`` did."""
    hand0 = [_ids("mission_three_warriors")[0], _ids("mission_strength_5")[0], _ids("mission_no_rerolls")[0],
             _ids("mission_strength_5")[1], _ids("raven_scout")[1]]
    team0 = ["raven_thrall", "wolf_thrall", "boar_thrall"]
    s = _battle_state([team0, ["bear_scout"]], [[], []], [])
    s[hand(0)] = len(hand0)
    s[hand(0) + 1:hand(0) + 1 + len(hand0)] = hand0
    env = (*T, rules_vector(players=2, variant="valkyries"))
    s[L.B_ATT], s[L.B_DEF], s[L.B_PATH] = 0, 1, -1
    s[L.B_ACT], s[L.B_TOT], s[L.B_NACT], s[L.B_BASIC] = 0b111, 9, 3, 1
    s[L.B_TOT + 1], s[L.B_NACT + 1] = 3, 1
    F.resolve(s, env)
    F.battle_end(s, env)
    assert s[L.PHASE] == L.PH_MISSION and E.to_move(s) == 0
    assert _legal(s, env) == [L.A_MISSION + 0, L.A_MISSION + 1, L.A_NO]
    warriors = sum(_glory(k) for k in team0)
    for a, column in ((L.A_MISSION + 0, "mission_three_0"), (L.A_MISSION + 1, "mission_strength_0"), (L.A_NO, None)):
        t = s.copy()
        _finish(t, env, a)
        kept = [c for i, c in enumerate(hand0) if a == L.A_NO or i != a - L.A_MISSION]
        assert list(t[hand(0) + 1:hand(0) + 1 + t[hand(0)]]) == kept
        r = _row(t)
        done = 0 if column is None else 1
        assert r["glory_0"] == warriors + 2 + 2 * done and r["missions_held_0"] == 4 - done
        assert sorted(_pile(t, val(0))) == sorted(team0 + ([] if column is None else [KEYS[hand0[a - L.A_MISSION]]]))
        for c in ("mission_three_0", "mission_strength_0", "mission_no_rerolls_0"):
            assert r[c] == (1 if c == column else 0)
    buf = np.empty(L.MAX_ACTIONS, np.int64)
    n = E.legal_actions(s, env, buf)
    assert _features(s, env, L.A_MISSION)[FT.CARD_MISSION] == 1.0 and FT.CARD_MISSION not in _features(s, env, L.A_NO)
    assert _features(s, env, L.A_NO)[FT.CAT0 + FT.CATEGORIES.index("mission_none") * FT.N_SCALARS] == 1.0
    h = FG.find_mission(s, hand(0), T[0], 1, 6, 3)
    assert pol.policy(pol.HEURISTIC, s, env, buf, n, pol.param_vector(), _stream(0, 1)) == L.A_MISSION + h == \
        L.A_MISSION
    # a winning defender with no basic reroll decides too
    s, env = _won_battle([["bear_scout"], ["raven_thrall"]], [[], ["raven_hunter", "mission_no_rerolls"]], [], 1,
                         (1, 1), (1, 2), (1, 1), (1, 0))
    assert s[L.PHASE] == L.PH_MISSION and E.to_move(s) == 1 and _legal(s, env) == [L.A_MISSION + 1, L.A_NO]


def test_heuristics_take_the_engine_s_former_blessing_draws_and_missions():
    """Issue 40: the heuristics' choice at each new decision is what the engine did for the seat before: at every
    blessing, the set the heuristic takes leaves the discard pile and Valhalla as ``glory.blessing_draw`` (largest
    Glory first) does; at every Mission, the heuristic completes ``glory.find_mission``'s. Builder and raider in
    every seat, 40 deals of the bundled scenario; both decisions occur (more than one choice)."""
    game = decision_game()
    buf = np.empty(game.max_actions, np.int64)
    seen = {L.PH_BLESS: 0, L.PH_MISSION: 0}
    for seed in range(40):
        for name in ("builder", "raider"):
            kind, params = game.policies[name]
            s, rng, env = game.new_game(seed)
            prng = _stream(seed, 1)
            while not E.is_over(s):
                n = E.legal_actions(s, env, buf)
                a = pol.policy(kind, s, env, buf, n, params, prng)
                ph = s[L.PHASE]
                if ph == L.PH_BLESS:
                    seen[ph] += 1
                    p = s[L.BLESS_SEAT]
                    mine, old = s.copy(), s.copy()
                    F.bless_take(mine, env, a - L.A_BLESS)
                    FG.blessing_draw(old, L.DISC_N, val(p), env[L.E_CARDS], s[L.BLESS])
                    assert _pile(mine, L.DISC_N) == _pile(old, L.DISC_N)
                    assert _pile(mine, val(p)) == _pile(old, val(p))
                elif ph == L.PH_MISSION:
                    seen[ph] += 1
                    ws = s[L.B_WON_SIDE]
                    h = FG.find_mission(s, hand(F.winner(s)), env[L.E_CARDS], s[L.B_BASIC + ws],
                                        s[L.B_TOT + ws] - s[L.B_TOT + 1 - ws], s[L.B_NACT + ws])
                    assert a == L.A_MISSION + h
                E.apply_action(s, rng, env, a)
    assert seen[L.PH_BLESS] > 0 and seen[L.PH_MISSION] > 0, seen


def test_every_pair_of_warriors_is_the_seat_s_choice():
    """"play 2 Warriors whose weapon symbols total at most 3": hand Raven Thrall (axe), Boar Thrall (sword), Raven
    Chieftain (3 symbols), Raven Hunter (2), Path to Valhalla. The pairs of at most 3 symbols are (0, 1), (0, 3)
    and (1, 3) (every pair with the Chieftain has 4 or more). The seat chooses the first card (A_PAIR + a) and
    then the second (PH_PAIR2: A_PLAY + b): exactly those three pairs are reachable, and each puts its two
    Warriors in the Warband and leaves the rest of the hand in order. (Already the seat's before issue 40.)"""
    hand0 = ["raven_thrall", "boar_thrall", "raven_chieftain", "raven_hunter", "path_to_valhalla"]
    need = T[1]
    assert [int(need[_ids(k)[0]].sum() + T[0][_ids(k)[0], C.C_ANY]) for k in hand0[:4]] == [1, 1, 3, 2]
    s = _battle_state([[], []], [hand0, []], [])
    s[L.DECK_N], s[L.DECK], s[L.DECK + 1] = 2, _ids("raven_scout")[0], _ids("raven_scout")[1]
    s[L.JOFFER:L.JOFFER + 3 * L.MAX_P] = -1
    s[L.CUR], s[L.MOVER], s[L.PHASE] = 0, 0, L.PH_A
    env = (*T, rules_vector(players=2, variant="valkyries"))
    rng = _stream(0, 2)
    pairs = set()
    for first in [a for a in _legal(s, env) if L.A_PAIR <= a < L.A_DRAW]:
        t = s.copy()
        E.apply_action(t, rng, env, first)
        assert t[L.PHASE] == L.PH_PAIR2 and E.to_move(t) == 0
        for second in _legal(t, env):
            a, b = first - L.A_PAIR, second - L.A_PLAY
            pairs.add((a, b))
            u = t.copy()
            E.apply_action(u, rng, env, second)
            assert sorted(_pile(u, team(0))) == sorted([hand0[a], hand0[b]])
            assert _pile(u, hand(0)) == [k for i, k in enumerate(hand0) if i not in (a, b)]
    assert pairs == {(0, 1), (0, 3), (1, 3)}
