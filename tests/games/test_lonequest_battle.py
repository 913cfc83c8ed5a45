"""The exact Lonequest battle solver: hand-computed battles, and the engine played by the solver's optimal table and
by a heuristic against the solver's exact values."""

import json
from fractions import Fraction as F

import pytest
from click.testing import CliRunner

from simkit.cli import cli
from simkit.core.stats import wilson
from simkit.games.valka.cards import EVENT_KINDS, WARBANDS, load_cards
from simkit.games.valka.lonequest import layout as L
from simkit.games.valka.lonequest import policies as pol
from simkit.games.valka.lonequest.battle import Cyclic, LonequestBattle, TooLarge, play, position
from simkit.games.valka.lonequest.simulation import card_data, rules_vector

CARDS = load_cards()
DATA = card_data(CARDS)
RULES = rules_vector(step_cap=1_000_000)
ID = {f.key: i for i, f in enumerate(CARDS.fighters)}
KNIGHTS = WARBANDS.index("knights")
EVENT = {k: [i for i, e in enumerate(CARDS.events) if e.kind == n] for n, k in enumerate(EVENT_KINDS)}
POLICIES = {n: (pol.HEURISTIC, pol.param_vector(pol.PRESETS[n][1])) for n in ("cautious", "aggressive")}
A, M, M2 = ID["squire"], ID["old_gob"], ID["ghoul"]  # (their stats are replaced where a test needs others)


def with_stats(stats):
    """The card tuple with some Fighters' (strike, health, shield) replaced."""
    fighters = DATA[0].copy()
    for f, (strike, health, shield) in stats.items():
        fighters[f, L.FS], fighters[f, L.FH], fighters[f, L.FSH] = strike, health, shield
    return (fighters, *DATA[1:])


def battle(front, marauders, events=(), fighter_deck=(), stamina=3, data=DATA, rules=RULES, **kw):
    s, env = position(data, rules, KNIGHTS, [(f, []) for f in front], [], [EVENT[e][0] for e in events],
                      marauders, fighter_deck, (), stamina, 0)
    return LonequestBattle(s, env, POLICIES, **kw)


def chance_odds(strike, shield):
    """(P(attacker hits), P(defender hits), P(both hurt)) of a Chance Strike, counted over the 100 rolls by the rule
    text: "If either player rolls a 1 they automatically fail … If both roll a 1, they both deal 1 damage to
    themselves"; a lone 1 loses the combat (the default reading); "If either player rolls a 10, they win the
    combat. If both roll a 10 or there is a tie of any value, advantage goes to the attacker"."""
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


def test_one_fighter_against_one_marauder_by_hand():
    # The Squire (Strike 1, Health 2, Shield 3) against The Old Gob (Strike 2, Health 3, Shield 1), Stamina 3: attack
    # first. 1 does not exceed Shield 1: a Chance Strike, or with 1 Health left a Reckless Strike ("sacrifice it to
    # deal 1 damage"). Defend: Strike 2 <= Shield 3 is "Not Enuf", and the empty Fighter deck sends nothing. The
    # Marauder takes its damage first: double 1s that kill it win.
    pa, pd, pb = chance_odds(1, 1)

    def v(f, m, reckless=True):
        if m == 0:
            return F(1)
        if f == 0:
            return F(0)
        both = F(1) if m == 1 else v(f - 1, m - 1, reckless)
        chance = pa * v(f, m - 1, reckless) + pd * v(f - 1, m, reckless) + pb * both
        return max(chance, F(int(m == 1))) if reckless and f == 1 else chance

    b = battle([A], [M])
    assert b.value() == v(2, 3) == F(14121, 25000)
    # the heuristics sacrifice a Fighter only when its Chance Strike hits less than reckless_below (0.35): never here
    assert pa + pb / 2 > 0.35
    assert b.value("cautious") == b.value("aggressive") == v(2, 3, reckless=False) < b.value()
    first = b.first()
    assert len(first) == 1 and b.best_action(first[0][1]) == L.ST_CHANCE + 0

    # "with the Warband standing": double 1s that kill the last Marauder with the last Fighter (no Warband Deck to
    # draw from) lose, and so does a Reckless Strike that sacrifices the last Fighter; neither gamble pays then
    def w(f, m):
        if m == 0:
            return F(1)
        if f == 0:
            return F(0)
        both = (F(1) if f > 1 else F(0)) if m == 1 else w(f - 1, m - 1)
        return pa * w(f, m - 1) + pd * w(f - 1, m) + pb * both

    standing = battle([A], [M], standing=True)
    assert standing.value() == w(2, 3) == standing.value("cautious") == standing.value("aggressive")
    assert w(2, 3) < v(2, 3, reckless=False) < b.value()


def test_events_in_hand_turn_a_lost_battle_by_hand():
    # A (Strike 9, Health 1, Shield 0) against M (Strike 9, Health 2, Shield 0): a True Strike hurts M, then "Strong
    # Enuf" kills A (no Warband deck): lost. Fireblast's +3 True Strike deals 2 damage: won before M strikes back.
    # Divine Aid prevents the blow: the second True Strike wins. Nothing is random.
    data = with_stats({A: (9, 1, 0), M: (9, 2, 0)})
    assert battle([A], [M], data=data).value() == 0
    fire = battle([A], [M], ["fireblast"], data=data)
    assert fire.value() == 1
    s = fire.first()[0][1]
    assert s[L.PHASE] == L.PH_SPECIAL and fire.best_action(s) == L.SP_FIREBLAST + 0
    aid = battle([A], [M], ["divine_aid"], data=data)
    assert aid.value() == 1 and aid.value("cautious") == 1  # (divine_aid = 1: it stops a blow that would kill)


def test_the_reinforcement_to_strike_first_by_hand():
    # Stamina 2: defend first. M (Strike 0) is "Not Enuf" against Shield 5: the Marauders Test Fate, and on an even
    # d10 (1/2) M2 (Strike 6) joins from the Fighter deck. A (Strike 9, Health 1) kills one Marauder per Attack: it
    # must kill M2, whose 6 beats Shield 5 ("Strong Enuf" kills A); M alone then calls nobody (the deck is empty).
    data = with_stats({A: (9, 1, 5), M: (0, 1, 0), M2: (6, 1, 0)})
    b = battle([A], [M], fighter_deck=[M2], stamina=2, data=data)
    assert b.value() == 1
    first = sorted(b.first(), key=lambda pt: int(pt[1][L.MAR_N]))
    assert [p for p, _ in first] == [F(1, 2), F(1, 2)]
    alone, joined = (t for _, t in first)
    assert alone[L.MAR_N] == 1 and joined[L.MAR_N] == 2 and joined[L.MAR + 2] == M2
    assert b.best_action(joined) == L.ST_TRUE + 1  # True Strike on the second Marauder
    assert b.q(joined, L.ST_TRUE + 0, None) == 0


@pytest.mark.parametrize("who", [None, "cautious"])
@pytest.mark.parametrize("standing", [False, True])
def test_the_engine_played_by_the_table_agrees_with_the_exact_value(who, standing):
    # the Squire against The Old Gob with two Reinforcements in the Fighter deck, defending first: d10s, Test Fates
    # and deck draws; the engine plays its own dice (both decks shuffled) with every choice from the table (with
    # `standing`, the table of that count, and a clearing that leaves no Fighter counts lost)
    b = battle([A], [M], fighter_deck=[M2, ID["crawler"]], stamina=2, standing=standing)
    exact = b.value(who)
    n = 4000
    est = wilson(play(b, n, seed=11, who=who), n)
    assert est.low <= float(exact) <= est.high, (float(exact), est)


def test_a_battle_beyond_the_budget_and_a_cyclic_reading_are_refused():
    with pytest.raises(TooLarge):
        battle([A], [M], fighter_deck=[M2, ID["crawler"]], stamina=2, max_states=5).value()
    # with --no-defender-damage a Chance Strike the attacker loses deals no damage: the battle can come back
    rules = rules_vector(defender_deals_damage=False, step_cap=1_000_000)
    with pytest.raises(Cyclic):
        battle([A], [M], rules=rules).value()


def test_cli_json_and_errors():
    r = CliRunner().invoke(cli, ["odds", "lonequest-battle", "--front", "squire", "--marauders", "old_gob",
                                 "--format", "json", "--policies", "cautious"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert out["plays"][0] == {**out["plays"][0], "play": "optimal", "win": "14121/25000"}
    assert out["first_decisions"][0]["optimal"] == "Chance Strike: Squire on The Old Gob"
    for args, where in ((["--front", "nope", "--marauders", "old_gob"], "--front: unknown Fighter 'nope'"),
                        (["--front", "squire", "--marauders", "squire"], "--marauders: Fighter 'squire' is given"),
                        (["--front", "squire+strike4", "--marauders", "old_gob"], "--front: unknown Buff"),
                        (["--front", "squire", "--marauders", "old_gob", "--hand", "teleport"],
                         "--hand: unknown card 'teleport'"),
                        (["--front", "squire", "--marauders", "old_gob", "--policies", "search"],
                         "--policies: 'search' cannot be solved exactly")):
        r = CliRunner().invoke(cli, ["odds", "lonequest-battle", *args])
        assert r.exit_code == 2, r.output
        lines = [ln for ln in r.output.splitlines() if ln.strip()]
        assert len(lines) == 1 and where in lines[0], r.output


def _bound(front, marauders, hand=(), fighter_deck=(), warband_deck=(), stamina=3, plays=1 + len(POLICIES)):
    from simkit.games.valka import battle_cli

    args = battle_cli.check_position(CARDS, "knights", front, list(hand), marauders, list(fighter_deck),
                                     list(warband_deck))
    return args, battle_cli.state_bound(CARDS, args, stamina, 0, True, plays)


@pytest.mark.parametrize("front,marauders,hand,fighter_deck,warband_deck,stamina", [
    (["squire"], ["old_gob"], (), (), (), 3),
    (["squire"], ["old_gob"], (), ("ghoul", "crawler"), (), 2),
    (["squire"], ["old_gob"], ("fireblast", "divine_aid"), (), (), 3),
    (["squire", "lancer"], ["old_gob", "ghoul"], (), (), (), 3),
    (["squire"], ["old_gob"], (), (), ("ghoul",), 3),
])
def test_the_state_bound_is_at_least_the_states_solved(front, marauders, hand, fighter_deck, warband_deck, stamina):
    args, bound = _bound(front, marauders, hand, fighter_deck, warband_deck, stamina)
    s, env = position(DATA, RULES, *args, stamina, 0)
    b = LonequestBattle(s, env, POLICIES)
    for who in (None, *POLICIES):
        b.value(who)
    assert 0 < len(b._v) <= bound, (len(b._v), bound)


def test_the_state_bound_grows_with_the_position():
    _, small = _bound(["squire"], ["old_gob"])
    _, deck = _bound(["squire"], ["old_gob"], fighter_deck=("ghoul", "crawler"))
    _, events = _bound(["squire"], ["old_gob"], hand=("fireblast",))
    assert small < deck and small < events
    from simkit.games.valka import battle_cli
    from simkit.games.valka.lonequest import engine

    assert battle_cli.MAGIC_STORM_POINTS == engine.MAGIC_STORM


from test_cli_errors import _assert_one_line_error  # noqa: E402  (tests/ is on the path: its conftest)

HUGE = ["--front", "squire,lancer,ghoul,crawler", "--marauders", "old_gob,goblin_sneak",
        "--fighter-deck", "axe_maiden,aurochs_rider,glacier_raider,berserker,skald,raider_boss,mountain_gob",
        "--hand", "fireblast,divine_aid", "--stamina", "9"]


def test_a_huge_battle_is_refused_before_the_solver_is_called(monkeypatch):
    from simkit.games.valka.lonequest import battle as battle_mod

    def boom(*a, **k):
        raise AssertionError("the solver was called")

    monkeypatch.setattr(battle_mod, "LonequestBattle", boom)
    r = CliRunner().invoke(cli, ["odds", "lonequest-battle", *HUGE])
    _assert_one_line_error(r, "the battle is too large to solve exactly", "solver states (an upper bound",
                           "over the limit of 1.00e+25", "--max-work")
    # the documented example that the solver's own count refuses after minutes is refused at once too
    r = CliRunner().invoke(cli, ["odds", "lonequest-battle", "--front", "squire,lancer", "--marauders", "old_gob",
                                 "--hand", "fireblast,divine_aid", "--fighter-deck", "ghoul,crawler,weird_warrior"])
    _assert_one_line_error(r, "the battle is too large to solve exactly", "--max-work")
    # a lower limit refuses a small battle; --max-work is in the help
    r = CliRunner().invoke(cli, ["odds", "lonequest-battle", "--front", "squire", "--marauders", "old_gob",
                                 "--max-work", "1000"])
    _assert_one_line_error(r, "over the limit of 1.00e+03", "--max-work")
    assert "--max-work" in CliRunner().invoke(cli, ["odds", "lonequest-battle", "--help"]).output


def test_a_battle_the_bound_admits_stops_at_the_engine_run_limit(tmp_path):
    """The bound admits the Squire against The Old Gob (1.4e16); its solve takes 4,200 engine runs (one per dice
    path the solver replays: counted by the solver), so a limit of 1,000 stops it while solving, in one line naming
    --max-runs, exit 2, nothing written to --out; the default limit solves it."""
    from simkit.games.valka import battle_cli

    args = ["odds", "lonequest-battle", "--front", "squire", "--marauders", "old_gob"]
    out = tmp_path / "odds.json"
    r = CliRunner().invoke(cli, [*args, "--max-runs", "1000", "--out", str(out)])
    _assert_one_line_error(r, "the battle is too large to solve exactly", "more than 1,000 engine runs",
                           "--max-runs")
    assert not out.exists()
    s, env = position(DATA, RULES, *battle_cli.check_position(CARDS, "knights", ["squire"], [], ["old_gob"], [], []),
                      3, 0)
    b = LonequestBattle(s, env, {}, max_work=battle_cli.MAX_RUNS)
    assert b.value() == F(14121, 25000) and 1_000 < b.work < battle_cli.MAX_RUNS
    assert "--max-runs" in CliRunner().invoke(cli, ["odds", "lonequest-battle", "--help"]).output
