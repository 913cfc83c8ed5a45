"""The Lonequest battle yardstick: battles stopped at a Marauder's reveal in real games, solved exactly, and the
loss of a named bad choice in a hand-built battle."""

from fractions import Fraction as F

import numpy as np

from simkit.core import loader
from simkit.core.policies import compile_policy
from simkit.core.registry import scenarios_dir
from simkit.core.rng import seed_stream
from simkit.core.seeding import block_key
from simkit.games.valka.cards import WARBANDS, load_cards
from simkit.games.valka.lonequest import engine as E
from simkit.games.valka.lonequest import layout as L
from simkit.games.valka.lonequest import policies as pol
from simkit.games.valka.lonequest import yardstick as Y
from simkit.games.valka.lonequest.battle import DUMMY, LonequestBattle, position
from simkit.games.valka.lonequest.simulation import card_data, play_game, rules_vector

CARDS = load_cards()
DATA = card_data(CARDS)
RULES = rules_vector(step_cap=1_000_000)
ID = {f.key: i for i, f in enumerate(CARDS.fighters)}
A, M = ID["squire"], ID["old_gob"]
POLICIES = {"cautious": (pol.HEURISTIC, pol.param_vector(pol.PRESETS["cautious"][1]))}


def chance_odds(strike, shield):
    """(P(attacker hits), P(defender hits), P(both hurt)) of a Chance Strike over the 100 rolls (valka.txt: a 1
    fails, double 1s hurt both, a 10 wins, ties to the attacker; a lone 1 loses, the default reading)."""
    hit = hurt = both = 0
    for a in range(1, 11):
        for d in range(1, 11):
            if a == 1 and d == 1:
                both += 1
            elif a == 1:
                hurt += 1
            elif d == 1 or a == 10:
                hit += 1
            elif d == 10:
                hurt += 1
            elif a + strike >= d + shield:
                hit += 1
            else:
                hurt += 1
    return F(hit, 100), F(hurt, 100), F(both, 100)


def squire_v_gob(squire_health=None, gob_health=None):
    fighters = DATA[0].copy()
    if squire_health:
        fighters[A, L.FH] = squire_health
    if gob_health:
        fighters[M, L.FH] = gob_health
    s, env = position((fighters, *DATA[1:]), RULES, WARBANDS.index("knights"), [(A, [])], [], [], [M])
    return s, env


def test_the_loss_of_a_named_bad_choice_by_hand():
    # The Squire at 1 Health against The Old Gob at 1 Health, attacking first (Stamina 3). Reckless Strike
    # ("sacrifice it to deal 1 damage") finishes the Gob: P(clear) 1. `cautious` Chance Strikes (its hit chance is
    # above reckless_below): it clears on a hit or on double 1s (both die, the Gob first), so it gives away
    # 1 - P(hit) - P(both hurt), and its first choice is not optimal.
    pa, _, pb = chance_odds(1, 1)
    s0, env = squire_v_gob(1, 1)
    first = LonequestBattle(s0, env).first()
    assert len(first) == 1
    row = Y.solve_battle(s0, first[0][1], env, POLICIES)
    assert row["optimal"] == 1
    assert row["cautious"] == pa + pb
    assert row["cautious lost"] == 1 - pa - pb > 0
    assert row["cautious agrees"] is False


def test_the_squire_against_the_old_gob_reused():
    # battle.py's hand-computed case (14121/25000 optimal): on it the heuristic loses what the two recursions,
    # with and without the Reckless Strike at 1 Health, differ by; the first decision (2 Health) has one choice
    pa, pd, pb = chance_odds(1, 1)

    def v(f, m, reckless):
        if m == 0:
            return F(1)
        if f == 0:
            return F(0)
        both = F(1) if m == 1 else v(f - 1, m - 1, reckless)
        chance = pa * v(f, m - 1, reckless) + pd * v(f - 1, m, reckless) + pb * both
        return max(chance, F(int(m == 1))) if reckless and f == 1 else chance

    s0, env = squire_v_gob()
    first = LonequestBattle(s0, env).first()[0][1]
    row = Y.solve_battle(s0, first, env, POLICIES)
    assert row["optimal"] == v(2, 3, True) == F(14121, 25000)
    assert row["cautious lost"] == v(2, 3, True) - v(2, 3, False) > 0
    assert "cautious agrees" not in row  # (one legal choice there, the Chance Strike: no verdict)
    s1, env1 = squire_v_gob(1, 1)
    row1 = Y.solve_battle(s1, LonequestBattle(s1, env1).first()[0][1], env1, POLICIES)
    sm = Y.summary(Y.Yardstick(0, 2, 0, ["cautious"], rows=[row, row1]))
    assert abs(sm["cautious"]["lost"].estimate - float((row["cautious lost"] + 1 - pa - pb) / 2)) < 1e-12
    assert sm["cautious"]["decisions"] == 1 and sm["cautious"]["agree"].estimate == 0


def test_stopping_at_each_reveal_plays_the_simulators_game():
    # advance_to_reveal and apply_choice are the engine's advance and apply_action cut at the reveal: the game is
    # the kernel's, move for move (same final state), and every stop is a Marauder about to be revealed
    sim = loader.load(scenarios_dir() / "valka" / "lonequest.toml").simulation
    spec = next(p for p in sim.policy_specs if p[0] == "greedy_trader_tuned")
    kind, par, _, _ = compile_policy(spec[1], spec[2], pol.PARAMS)
    key = block_key(5, 0)
    for g in range(6):
        battles, final = Y.play_battles(sim.env, kind, par, g % 8, g, key, final=True)
        s = np.zeros(L.STATE_SIZE, np.int32)
        rng, prng = np.empty(4, np.uint64), np.empty(4, np.uint64)
        seed_stream(rng, key, g, 0)
        seed_stream(prng, key, g, 1)
        play_game(s, rng, prng, sim.env, g % 8, kind, par, np.empty(L.MAX_ACTIONS, np.int64))
        assert np.array_equal(s, final)
        for t, first in battles:
            loc = t[L.LOC]
            assert t[L.T_STAGE] == L.T_EXPLORE and t[L.LOC_CARDS + L.LOC_SIZE * loc + t[L.LOC_N + loc] - 1] >= 0
            u, mar = Y.battle_state(t)
            assert mar and u[L.LOC_N + loc] == len(mar) + 1 and u[L.LOC_CARDS + L.LOC_SIZE * loc] == DUMMY
            assert first is None or (first[L.B_ACTIVE] and first[L.BATTLES] == t[L.BATTLES] + 1)
        assert len(battles) <= s[L.BATTLES]
