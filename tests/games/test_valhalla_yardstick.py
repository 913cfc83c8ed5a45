"""The battle yardstick: exact battle values on battles of real games, and the report section built from them."""

from fractions import Fraction as F

import numpy as np
import pytest

from simkit.core import loader
from simkit.core.policies import compile_policy
from simkit.core.registry import scenarios_dir
from simkit.core.rng import seed_stream
from simkit.core.seeding import block_key
from simkit.games.valhalla.deck import load_deck
from simkit.games.valhalla.solo import engine as E
from simkit.games.valhalla.solo import layout as L
from simkit.games.valhalla.solo import policies as pol
from simkit.games.valhalla.solo import yardstick as Y
from simkit.games.valhalla.solo.battle import BattleSolver, position
from simkit.games.valhalla.solo.simulation import cell_env

DECK = load_deck()
POLS = {n: (pol.SEARCH_KINDS[pol.PRESETS[n][0]], pol.param_vector(pol.PRESETS[n][1])) for n in ("builder",)}
MISS = F(4, 6)  # a die with neither an axe nor the ⊗ (bundled die: 2 of 6 faces serve a one-axe Warrior)
SYM = {n: i for i, n in enumerate(DECK.symbols)}


@pytest.fixture(scope="module")
def sim():
    return loader.load(scenarios_dir() / "valhalla" / "solo.toml").simulation


@pytest.fixture(scope="module")
def yard(sim):
    return Y.measure(sim, "builder_tuned", ["builder_tuned", "builder"], n=3, seed=5)


def _first(s0, env, dice):
    """The roll decision of the battle ``s0`` with these dice (as the engine reaches it after the first roll)."""
    t = s0.copy()
    t[L.B_NEEDED] = E.monster_strength(t, env, True, False)
    t[L.ND] = len(dice)
    t[L.DICE:L.DICE + len(dice)] = sorted(dice)
    t[L.PHASE] = L.PH_ROLL
    return t


def test_one_axe_battle_by_hand_and_ties_count_as_optimal():
    # Troll card 4 (strength 18), powers off, Glory 17 + the Raven Thrall's 1 (one axe): each basic reroll discards
    # a die and rerolls the rest, 6 + 5 + 4 + 3 + 2 + 1 = 21 dice in all
    s0, env = position(DECK, ["raven_thrall"], [], "troll", 4, glory=17, monster_powers=False)
    sword = SYM["sword"]
    first = _first(s0, env, [SYM["axe"]] + [sword] * 5)
    row = Y.solve_battle(s0, first, env, POLS)
    assert row["optimal"] == 1 - MISS**21
    assert row["builder lost"] == row["optimal"] - row["builder"] >= 0
    # with the axe rolled, stopping wins for sure and so does every reroll that keeps the axe: a tie, optimal
    b = BattleSolver(s0, env, POLS)
    qs = [b.after(first.copy(), a, None) for a in b.legal(first)]
    assert max(qs) == 1 and qs.count(F(1)) > 1
    assert row["builder agrees"] is True
    # no axe: the best is a basic reroll of every other die (then 4, 3, 2, 1 more): 15 dice
    miss = _first(s0, env, [sword] * 6)
    assert b.decision(miss.copy(), None) == 1 - MISS**15


def test_a_battle_without_choices_loses_nothing():
    # "no rerolls" on, no Tactic: the six dice are the battle, the policy cannot lose anything
    s0, env = position(DECK, ["raven_thrall"], [], "troll", 4, glory=17)
    row = Y.solve_battle(s0, None, env, POLS)
    assert row["optimal"] == row["builder"] == 1 - MISS**6
    assert row["builder lost"] == 0 and "builder agrees" not in row


def test_the_budget_skips_a_battle():
    s0, env = position(DECK, ["raven_hunter", "frost_champion"], ["second_wind"], "troll", 2, jarl="solveig")
    assert Y.solve_battle(s0, None, env, POLS, max_states=50) is None


def test_battle_start_is_begin_battle(sim):
    # replay games; at every attack of Phase A the exact start is begin_battle on the state before the roll;
    # battle_start, from the first decision after the roll, must give the same state (dice and steps aside)
    spec = next(p for p in sim.policy_specs if p[0] == "builder_tuned")
    kind, par, _, _ = compile_policy(spec[1], spec[2], pol.PARAMS)
    key = block_key(9, 0)
    checked = 0
    keep = np.ones(L.STATE_SIZE, bool)
    keep[L.DICE:L.DICE + L.MAX_DICE] = False
    keep[[L.STEPS, L.B_NEEDED]] = False
    buf = np.empty(L.MAX_ACTIONS, np.int64)
    for g in range(4):
        env = cell_env(sim, g % len(sim.groups), 0)
        s = np.zeros(L.STATE_SIZE, np.int32)
        rng, prng, sh = (np.empty(4, np.uint64) for _ in range(3))
        seed_stream(sh, key, g, 0)
        seed_stream(prng, key, g, 1)
        seed_stream(rng, key, g, 2)
        E.new_game(s, rng, env, sh, sim.groups[g % len(sim.groups)]["deck_ids"])
        exact = None
        while s[L.DONE] == 0:
            ph = s[L.PHASE]
            if exact is not None and ph in (L.PH_SILENCE, L.PH_ROLL, L.PH_COMMIT):
                got = Y.battle_start(s, env)
                assert (got[keep] == exact[keep]).all()
                checked += 1
            exact = None
            m = E.legal_actions(s, env, buf)
            a = pol.policy(kind, s, env, buf, m, par, prng)
            if ph == L.PH_A and a == L.A_ATTACK:
                exact = s.copy()
                E.begin_battle(exact, env, 1, L.CTX_PHASE_A)
            E.apply_action(s, rng, env, a)
    assert checked > 0


def test_every_battle_loses_nothing_under_the_optimum_and_never_gains(yard):
    assert len(yard.rows) == 3
    for r in yard.rows:
        for p in yard.policies:
            assert r[f"{p} lost"] == r["optimal"] - r[p] >= 0
            assert isinstance(r["optimal"], F)


def test_section_headline_is_the_mean_of_the_rows(yard):
    headline, text, sm = Y.section(yard)
    lead = "builder_tuned"
    mean = sum(float(r[f"{lead} lost"]) for r in yard.rows) / len(yard.rows)
    assert f"`{lead}` gives away **{mean:.4f}**" in headline
    assert headline in text and "n = 3 battles" in headline
    agree = [r[f"{lead} agrees"] for r in yard.rows if f"{lead} agrees" in r]
    assert sm[lead]["agree"].estimate == pytest.approx(sum(agree) / len(agree))
    assert sm[lead]["lost"].low <= mean <= sm[lead]["lost"].high
    row = next(ln for ln in text.splitlines() if ln.startswith(f"| {lead} "))
    assert f"{mean:.4f} [" in row


def test_same_seed_same_battles(sim, yard):
    again = Y.measure(sim, "builder_tuned", ["builder_tuned", "builder"], n=3, seed=5)
    assert again.rows == yard.rows and again.games == yard.games and again.skipped == yard.skipped


def test_report_page_carries_the_section(tmp_path, yard):
    import simkit
    from simkit.games.valhalla.solo.report import solo_report

    scen = scenarios_dir() / "valhalla"
    scenario = tmp_path / "tiny.toml"
    scenario.write_text(
        'game = "valhalla"\nmode = "solo"\n'
        f'cards = "{(scen / "cards.toml").as_posix()}"\ndeck = "{(scen / "deck.toml").as_posix()}"\n'
        'monsters = ["troll"]\nvariants = ["base"]\nlevels = [1]\njarls = ["sigurd"]\nplay = ["builder", "random"]\n')
    simkit.run(scenario, games=20, seed=3, jobs=1, out=tmp_path / "run")
    text = solo_report(tmp_path / "run", tmp_path / "report", yardstick=yard)[0].read_text()
    headline, section, _ = Y.section(yard)
    assert section in text
    assert text.index("## Skill ladder") < text.index(headline) < text.index("## What was simulated")


def test_policies_that_battle_alike_are_named_once():
    """A heuristic with the same exact P(win) and first-choice verdict as the lead in every battle is said to
    battle alike (the page would otherwise show two identical rows unexplained); one battle apart and it is not."""
    rows = [{"optimal": F(3, 4), "a": F(1, 2), "a lost": F(1, 4), "a agrees": False,
             "b": F(1, 2), "b lost": F(1, 4), "b agrees": False, "c": F(3, 4), "c lost": F(0), "c agrees": True},
            {"optimal": F(1, 3), "a": F(1, 3), "a lost": F(0), "b": F(1, 3), "b lost": F(0),
             "c": F(1, 3), "c lost": F(0)}]
    y = Y.Yardstick("a", 1, 2, 0, 0, ["a", "b", "c"], rows=rows)
    assert Y.battle_alike(y, "a") == ["b"]
    _, text, sm = Y.section(y)
    assert "`b` plays every one of these 2 battles as `a` does" in text and "`c` plays" not in text
    assert sm["a"]["lost"].estimate == pytest.approx(0.125) and sm["a"]["lost"].high < 1
    rows[1]["b"], rows[1]["b lost"] = F(1, 4), F(1, 12)
    assert Y.battle_alike(y, "a") == [] and "battles as" not in Y.section(y)[1]
    # two policies alike that are not the lead (the page led by `builder_stand`, whose last stands differ): named
    # once, after the first of them
    rows[1]["c"], rows[1]["c lost"] = F(1, 4), F(1, 12)
    rows[0]["b"], rows[0]["b lost"], rows[0]["b agrees"] = F(3, 4), F(0), True
    text = Y.section(y)[1]
    assert "`c` plays every one of these 2 battles as `b` does" in text
    assert text.count("battles as") == 1


def test_cell_env_makes_the_exact_rolls_scratch_only_for_a_policy_that_rolls_exactly(sim):
    """``cell_env``: the exact rolls' 5 MB scratch when ``params`` roll exactly (or are not given), else the small
    ``no_roll``, with which the yardstick still plays a game of ``builder_tuned`` (it never reads the scratch)."""
    from simkit.games.valhalla.solo.battle_roll import META

    tuned = next(p for p in sim.policy_specs if p[0] == "builder_tuned")
    _, par, _, _ = compile_policy(tuned[1], tuned[2], pol.PARAMS)
    assert par[pol.EXACT_ROLLS] == 0
    exact = par.copy()
    exact[pol.EXACT_ROLLS] = 1
    assert cell_env(sim, 0, 0, params=par)[10][0].shape[0] == META
    assert cell_env(sim, 0, 0, params=exact)[10][0].shape[0] > META
    assert cell_env(sim, 0, 0)[10][0].shape[0] > META
    battles_small, env = Y.play_battles(sim, "builder_tuned", 3, (0, 0), block_key(9, 0))
    assert len(battles_small) > 0 and env[10][0].shape[0] == META
    # battles played by builder_tuned but solved for a policy that makes its last stands exactly: the scratch (the
    # solver's policy would otherwise find none, and fall back to the rules' roll)
    stand = par.copy()
    stand[pol.LAST_STAND] = 1
    battles, env = Y.play_battles(sim, "builder_tuned", 3, (0, 0), block_key(9, 0), [par, stand])
    assert env[10][0].shape[0] > META
    assert [(a.tolist(), None if b is None else b.tolist()) for a, b in battles] == \
        [(a.tolist(), None if b is None else b.tolist()) for a, b in battles_small]


def test_the_bundled_yardstick_plays_the_first_heuristic_of_play_and_solves_every_heuristic():
    """``bundled`` with the report's ``--set`` values: games of the first heuristic of ``play`` (the page's lead,
    `builder_stand` when the report puts it first), every heuristic solved on the same battles (`random` left out),
    and the lead's last stands never lose more than `builder_tuned`'s rules on any of them."""
    y = Y.bundled(n=3, overrides=['play=["builder_stand", "builder_tuned", "random"]', 'monsters=["dragon"]',
                                  'variants=["base"]', 'levels=[1]', 'jarls=["sigurd"]'])
    assert y.policy == "builder_stand" and y.policies == ["builder_stand", "builder_tuned"]
    assert len(y.rows) == 3
    for r in y.rows:
        assert 0 <= r["builder_stand lost"] <= r["builder_tuned lost"]
