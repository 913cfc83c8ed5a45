"""The fast battle-optimal roll (``battle_roll.py``) against the exact solver (``battle.py``): the same values at
every roll decision the engine reaches, the action it picks optimal, hand-computed outcome tables, and a battle
too large given up."""

from fractions import Fraction as F

import numpy as np
import pytest

from simkit.core.rng import seed_stream
from simkit.core.seeding import block_key
from simkit.games.valhalla.deck import load_deck
from simkit.games.valhalla.solo import battle_roll as R
from simkit.games.valhalla.solo import engine as E
from simkit.games.valhalla.solo import layout as L
from simkit.games.valhalla.solo import policies as pol
from simkit.games.valhalla.solo.battle import BattleSolver, position

DECK = load_deck()


def test_outcome_tables_by_hand():
    # a die of faces 0, 0, 1: two dice show {0, 0} 4/9, {0, 1} 4/9, {1, 1} 1/9; three dice 8/27, 12/27, 6/27, 1/27
    pools, probs, n = R.outcome_tables(np.array([0, 0, 1], np.int64), 1, 3)
    assert list(n) == [1, 2, 3, 4]
    assert dict(zip(pools[2, :3], probs[2, :3])) == pytest.approx({2: 4 / 9, 1 + 16: 4 / 9, 32: 1 / 9})
    assert dict(zip(pools[3, :4], probs[3, :4])) == pytest.approx({3: 8 / 27, 2 + 16: 12 / 27, 1 + 32: 6 / 27,
                                                                   48: 1 / 27})
    # the bundled die (six symbols, one face each): 10 dice have C(15, 5) = 3003 outcomes, and they add up to 1
    s, env = position(DECK, ["raven_thrall"], [], "troll", 4, glory=17)
    pools, probs, n = R.outcome_tables(env[8], env[1].shape[1], L.MAX_DICE)
    assert n[L.MAX_DICE] == 3003
    assert probs.sum(axis=1) == pytest.approx(np.ones(L.MAX_DICE + 1))


def roll_decisions(s0, env, games, seed):
    """The engine's roll decisions of ``games`` battles from ``s0`` (its own dice), played by the fast solver."""
    roll = R.new_roll(env[8], env[1].shape[1])
    rng, key = np.empty(4, np.uint64), block_key(seed, 0)
    for g in range(games):
        s = s0.copy()
        if s[L.PHASE] == L.PH_SILENCE:
            s[L.PHASE] = L.ST_ROLL
        seed_stream(rng, key, g, 2)
        E.advance(s, rng, env)
        while s[L.PHASE] == L.PH_ROLL:
            a = R.best_roll(s, env, roll, R.LIMIT)
            yield s.copy(), a, R.decision_value(s.copy(), env, roll, False)  # the same generation: read back
            E.apply_action(s, rng, env, a)
            E.advance(s, rng, env)


@pytest.mark.parametrize("team, hand, kw", [
    # free rerolls (Solveig), a reroll Battle Tactic and a strength Tactic
    (["raven_hunter", "frost_champion"], ["battle_fury", "second_wind"], {"card": 2, "glory": 2, "jarl": "solveig"}),
    # Weapon Delivery, a strength Tactic, Hödr's extra die, an Ice Giant (rime giant: extra die, ≠ dice)
    (["rime_giant", "raven_hunter"], ["weapon_delivery_axe", "shield_wall"], {"jarl": "hodr"}),
    # a defence (one more than the monster's strength) with a "smaller team" Tactic
    (["boar_rider", "boar_champion"], ["ambush"], {"attacking": False}),
    # one axe Warrior, basic rerolls only: every decision has the same answer by hand (reroll all but one)
    (["raven_thrall"], [], {"card": 4, "glory": 17, "monster_powers": False}),
])
def test_values_and_actions_equal_the_exact_solver(team, hand, kw):
    s0, env = position(DECK, team, hand, "troll", **kw)
    exact = BattleSolver(s0, env)
    seen = 0
    for s, a, v in roll_decisions(s0, env, 12, 3):
        best = exact.decision(s.copy(), None)
        assert v == pytest.approx(float(best), abs=1e-12)
        assert float(exact.after(s.copy(), a, None)) == pytest.approx(float(best), abs=1e-12)  # an optimal action
        seen += 1
    assert seen >= 12


def test_one_axe_warrior_by_hand():
    # Glory 17 + the Raven Thrall's 1 (an axe or the ⊗: 2 faces of 6) = 18, powers off: with d dice rolled and
    # none an axe, keep discarding one and rerolling the rest: P(win) = 1 - (2/3)^(d-1 + d-2 + ... + 1)
    s0, env = position(DECK, ["raven_thrall"], [], "troll", 4, glory=17, monster_powers=False)
    S, need = env[1].shape[1], env[1][s0[L.TEAM]]
    misses = 0
    for s, a, v in roll_decisions(s0, env, 300, 5):
        d = int(s[L.ND])
        dice = [int(x) for x in s[L.DICE:L.DICE + d]]
        if any(x == S or need[x] > 0 for x in dice):  # an axe or a ⊗ showing: the battle is won, stop
            assert (v, a) == (1.0, L.A_STOP)
            continue
        misses += 1
        assert v == pytest.approx(float(1 - F(2, 3) ** (d * (d - 1) // 2)), abs=1e-12)
        assert a == L.A_BASIC + (1 << d) - 1  # reroll every die (the last one discarded)
    assert misses >= 20


def test_a_battle_too_large_is_given_up():
    s0, env = position(DECK, ["raven_hunter", "frost_champion"], ["battle_fury", "second_wind"], "troll", 2,
                       glory=2, jarl="solveig")
    roll = R.new_roll(env[8], env[1].shape[1])
    s, _, _ = next(roll_decisions(s0, env, 1, 3))
    assert R.best_roll(s, env, roll, 5) == -1
    assert R.best_roll(s, env, roll, R.LIMIT) >= 0


def test_one_scratch_serves_many_battles():
    # two battles, one scratch, their decisions interleaved: every solve starts from an empty memo
    kw = {"card": 2, "jarl": "solveig"}
    a0, env = position(DECK, ["raven_hunter", "frost_champion"], ["battle_fury", "second_wind"], "troll", glory=2,
                       **kw)
    b0, _ = position(DECK, ["raven_hunter"], ["second_wind"], "troll", glory=5, **kw)
    exact = {id(a0): BattleSolver(a0, env), id(b0): BattleSolver(b0, env)}
    roll = R.new_roll(env[8], env[1].shape[1])
    pairs = zip(roll_decisions(a0, env, 6, 7), roll_decisions(b0, env, 6, 8))
    for (sa, _, _), (sb, _, _) in pairs:
        for s, s0 in ((sa, a0), (sb, b0)):
            a = R.best_roll(s, env, roll, R.LIMIT)
            best = float(exact[id(s0)].decision(s.copy(), None))
            assert R.decision_value(s.copy(), env, roll, False) == pytest.approx(best, abs=1e-12)
            assert float(exact[id(s0)].after(s.copy(), a, None)) == pytest.approx(best, abs=1e-12)


def test_the_heuristic_with_exact_rolls_plays_the_solvers_roll():
    s0, env = position(DECK, ["raven_hunter", "frost_champion"], ["battle_fury", "second_wind"], "troll", 2,
                       glory=2, jarl="solveig")
    roll = R.new_roll(env[8], env[1].shape[1])
    legal = np.empty(L.MAX_ACTIONS, np.int64)
    on, off = pol.param_vector({"exact_rolls": 1.0}), pol.param_vector()
    prng = np.zeros(4, np.uint64)
    differ = 0
    for s, a, _ in roll_decisions(s0, env, 8, 3):
        n = E.legal_actions(s, env, legal)
        assert pol.policy(pol.HEURISTIC, s, env, legal, n, on, prng) == R.best_roll(s, env, roll, R.LIMIT) == a
        differ += pol.policy(pol.HEURISTIC, s, env, legal, n, off, prng) != a
    assert differ > 0  # the rules alone play another roll somewhere in these battles


def test_exact_last_stand_solves_only_the_defence_rolls_the_rules_give_up():
    """``exact_last_stand``: at a defence roll where the rules stop while the dice lose, the battle-optimal roll;
    everywhere else (attacks, rolls the rules reroll or win) the rules' own roll. Checked at every roll decision
    of builder_tuned games, and it must change some roll."""
    from simkit.games.valhalla.solo.features import base_strength, best_total
    from simkit.games.valhalla.solo.simulation import decision_game

    dg = decision_game()
    _, tuned = dg.policies["builder_tuned"]
    stand = tuned.copy()
    stand[pol.LAST_STAND] = 1.0
    legal = np.empty(L.MAX_ACTIONS, np.int64)
    solved = kept = 0
    for g in range(40):
        s, rng, env = dg.new_game(g)
        prng = np.array([g, 1, 2, 3], np.uint64)
        while not dg.fns.is_over(s):
            n = E.legal_actions(s, env, legal)
            a = pol.policy(pol.HEURISTIC, s, env, legal, n, tuned, prng.copy())
            if s[L.PHASE] == L.PH_ROLL and n > 1:
                b = pol.policy(pol.HEURISTIC, s, env, legal, n, stand, prng.copy())
                now, _, _ = best_total(s, env, E.battle_pool(s, env[1].shape[1]))
                short = base_strength(s, env) + now < s[L.B_NEEDED]
                if s[L.B_ATTACK] == 0 and a == L.A_STOP and short:
                    best = R.best_roll(s, env, env[10], R.LIMIT)
                    assert b == (best if best >= 0 else a)
                    solved += b != a
                else:
                    assert b == a
                    kept += 1
            E.apply_action(s, rng, env, a)
    assert solved > 0 and kept > 0


def test_hopeless_by_hand():
    """The Raven Hunter (strength 3, an axe and a sword: two dice) alone, 20 strength needed: with Glory 17 two
    dice can win and one cannot; with Glory 16 no number of dice can."""
    for dice, glory, want in ((2, 17, False), (6, 17, False), (1, 17, True), (0, 17, True), (6, 16, True),
                              (10, 16, True), (0, 20, False)):
        s, env = position(DECK, ["raven_hunter"], [], "troll", 4, monster_powers=False)
        s[L.B_NEEDED], s[L.GLORY], s[L.ND] = 20, glory, dice
        assert R.hopeless(s, env) == want, (dice, glory)
    # a Weapon Delivery in hand, or played, is a die more: one die and the card make the Hunter's two
    s, env = position(DECK, ["raven_hunter"], ["weapon_delivery_axe"], "troll", 4, monster_powers=False)
    s[L.B_NEEDED], s[L.GLORY], s[L.ND] = 20, 17, 1
    assert not R.hopeless(s, env)
    s, env = position(DECK, ["raven_hunter"], [], "troll", 4, monster_powers=False)
    s[L.B_NEEDED], s[L.GLORY], s[L.ND] = 20, 17, 1
    s[L.DELIV + 0] = 1
    assert not R.hopeless(s, env)


@pytest.mark.parametrize("team, hand, kw", [
    (["raven_hunter", "frost_champion"], ["battle_fury", "second_wind"], {"card": 2, "glory": 2, "jarl": "solveig"}),
    (["rime_giant", "raven_hunter"], ["weapon_delivery_axe", "shield_wall"], {"jarl": "hodr"}),
    (["boar_rider", "boar_champion"], ["ambush"], {"attacking": False}),
    (["raven_thrall"], [], {"card": 4, "glory": 16, "monster_powers": False}),
])
def test_hopeless_only_where_no_roll_wins(team, hand, kw):
    """``hopeless`` is a proof: wherever it holds, the battle's value is 0 (the exact solver's); ``last_stand``
    skips the solve there, which would only answer "stop"."""
    s0, env = position(DECK, team, hand, "troll", **kw)
    exact = BattleSolver(s0, env)
    for s, _, v in roll_decisions(s0, env, 12, 3):
        if R.hopeless(s, env):
            assert v == 0.0 and exact.decision(s.copy(), None) == 0


def test_hopeless_over_the_last_stands_of_builder_stand_games():
    """At every defence roll of ``builder_stand`` games where the rules stop while the dice lose (where
    ``last_stand`` solves), ``hopeless`` holds only where the solver's value is 0, and it holds at most of those
    (the solves it saves)."""
    from simkit.games.valhalla.solo.features import base_strength, best_total
    from simkit.games.valhalla.solo.simulation import decision_game

    dg = decision_game()
    stand = dg.policies["builder_tuned"][1].copy()
    stand[pol.LAST_STAND] = 1.0
    legal = np.empty(L.MAX_ACTIONS, np.int64)
    zero = caught = 0
    for g in range(60):
        s, rng, env = dg.new_game(g)
        prng = np.array([g, 1, 2, 3], np.uint64)
        while not dg.fns.is_over(s):
            n = E.legal_actions(s, env, legal)
            if s[L.PHASE] == L.PH_ROLL and s[L.B_ATTACK] == 0 and n > 1:
                now, _, _ = best_total(s, env, E.battle_pool(s, env[1].shape[1]))
                if base_strength(s, env) + now < s[L.B_NEEDED] and \
                        pol.heuristic(s, env, legal, n, stand, prng.copy()) == L.A_STOP:
                    R.best_roll(s, env, env[10], R.LIMIT)
                    v = R.decision_value(s.copy(), env, env[10], False)
                    if R.hopeless(s, env):
                        assert v == 0.0
                        caught += 1
                    zero += v == 0.0
            E.apply_action(s, rng, env, pol.policy(pol.HEURISTIC, s, env, legal, n, stand, prng))
    assert zero >= 20 and caught >= zero // 2


@pytest.mark.parametrize("name, plain", [("builder_reroll", "builder_tuned"), ("learned_reroll", "learned")])
def test_last_stand_reroll_rerolls_every_die_only_where_a_lost_defence_could_still_be_won(name, plain):
    """``last_stand_reroll`` (heuristic and learned): at a defence roll where the policy would stop while the dice
    lose and ``hopeless`` does not hold, every die rerolled (a basic reroll where legal, else a free one);
    everywhere else the policy's own action. Checked at every decision of the plain policy's games; it must change
    some roll, and keep some stops (hopeless ones)."""
    from simkit.games.valhalla.solo.features import base_strength, best_total
    from simkit.games.valhalla.solo.simulation import decision_game

    dg = decision_game()
    both = _bundled_policies(plain, name)
    (k0, p0), (k1, p1) = both[plain], both[name]
    assert k0 == k1 and p1[pol.LAST_REROLL] == 1 and p0[pol.LAST_REROLL] == 0
    assert np.array_equal(np.delete(p0, pol.LAST_REROLL), np.delete(p1, pol.LAST_REROLL))
    legal = np.empty(L.MAX_ACTIONS, np.int64)
    rerolled = kept_hopeless = same = 0
    for g in range(40):
        s, rng, env = dg.new_game(g)
        prng = np.array([g, 1, 2, 3], np.uint64)
        while not dg.fns.is_over(s):
            n = E.legal_actions(s, env, legal)
            a = pol.policy(k0, s, env, legal, n, p0, prng.copy())
            b = pol.policy(k1, s, env, legal, n, p1, prng.copy())
            if s[L.PHASE] == L.PH_ROLL and s[L.B_ATTACK] == 0 and a == L.A_STOP and n > 1:
                now, _, _ = best_total(s, env, E.battle_pool(s, env[1].shape[1]))
                if base_strength(s, env) + now < s[L.B_NEEDED]:
                    every = (1 << int(s[L.ND])) - 1
                    options = [x for x in (L.A_BASIC + every, L.A_FREE + every) if x in set(legal[:n].tolist())]
                    if R.hopeless(s, env) or not options:
                        assert b == a
                        kept_hopeless += 1
                    else:
                        assert b == options[0]
                        rerolled += 1
                    E.apply_action(s, rng, env, b)
                    continue
            assert b == a
            same += 1
            E.apply_action(s, rng, env, b)
    assert rerolled > 0 and kept_hopeless > 0 and same > 0


def _bundled_policies(*names):
    """The bundled Solo scenario's policies ``names`` as (kind, parameter vector)."""
    import json

    from simkit.core import loader
    from simkit.core.policies import decision_policies
    from simkit.core.registry import scenarios_dir

    sim = loader.load(scenarios_dir() / "valhalla" / "solo.toml", [f"play={json.dumps(list(names))}"]).simulation
    return decision_policies(sim.policy_specs, pol.PARAMS)
