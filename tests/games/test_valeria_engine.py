"""Valeria: Card Kingdoms: card data and its validation, scripted rules checks with hand-computed outcomes,
invariants over many random games, an exact check against an independent Markov chain, and the Herald's
frequency against ``simkit odds valeria``. (The generic decision-interface tests run on the mode automatically.)"""

from __future__ import annotations

import tomllib
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from simkit.core.policies import RANDOM
from simkit.core.rng import seed_stream
from simkit.errors import InputError
from simkit.games.valeria import cards as K
from simkit.games.valeria import end as END
from simkit.games.valeria import engine as E
from simkit.games.valeria import roll as R
from simkit.games.valeria import state as S
from simkit.games.valeria.odds import herald_distribution
from simkit.games.valeria.simulation import make_env
from valeria_setup import legal, new_game, res, set_res

CARDS = K.load_cards()
KEY = {c["key"]: i for i, c in enumerate(CARDS.kinds)}


def new(players=2, seed=0, cards=CARDS, **options):
    return new_game(players, seed, cards, 3, **options)


def own(s, p, key, n=1):
    k = KEY[key]
    s[S.OWN + p * S.N_KINDS + k] += n
    if k < S.N_CIT:
        s[S.STACK + k] -= n


def to_actions(s, rng, env):
    """Keep Duke 0 for every seat: the first player's first roll follows."""
    while s[S.PHASE] == S.P_DUKE:
        E.apply_action(s, rng, env, S.A_KEEP)


def harvest(s, env, d1, d2):
    """Run the Harvest of the roll (d1, d2) for the active player (no die-changing Domain in play)."""
    s[S.PEND_ANY:S.PEND_ANY + S.MAX_P] = 0
    s[S.D1], s[S.D2] = d1, d2
    R.begin_harvest(s, env)


# --- card data ------------------------------------------------------------------------------------------------

def test_bundled_cards_are_marked_stand_in_and_keep_the_rules_counts():
    assert "STAND-IN" in CARDS.notice
    assert len(CARDS.kinds) == 12 and [c["key"] for c in CARDS.kinds[10:]] == ["peasant", "knight"]
    assert CARDS.kinds[10]["numbers"] == (5,) and CARDS.kinds[11]["numbers"] == (6,)
    assert len(CARDS.domains) % 3 == 0 and len(CARDS.dukes) >= 10
    k, m, d, u, a = CARDS.arrays()
    assert a[:, 1].sum() == len(CARDS.monsters) and (a[:, 1] >= 1).all()


def _edited(tmp_path, old, new_text, count=1):
    src = K.default_cards_path().read_text()
    assert old in src
    p = tmp_path / "cards.toml"
    p.write_text(src.replace(old, new_text, count))
    return p


@pytest.mark.parametrize("old, new_text, needle", [
    ('on_turn = [{op = "steal", n = 2}]', 'on_turn = [{op = "rob", n = 2}]',
     "citizens.thief.on_turn[0].op' of Citizen 'Thief': unknown op 'rob'; allowed ops: gain, any, steal, per_role"),
    ('resource = "magic", n = 3}]', 'resource = "mana", n = 3}]', "'gold', 'strength', 'magic'"),
    ('numbers = [9, 10]', 'numbers = [9, 9]', "citizens.champion.numbers' of Citizen 'Champion' must be 1 or 2"),
    ('role = "holy"', 'role = "priest"', "citizens.monk.role' must be one of 'holy', 'shadow', 'soldier', 'worker'"),
    ('reward = [{op = "gain", resource = "gold", n = 1}]', 'reward = [{op = "any", n = 1}]',
     "monsters.goblin.reward[0].op' of Monster 'Goblin': unknown op 'any'; allowed ops: gain"),
    ('power = "adjust_die"', 'power = "reroll"', "domains.watchtower.power' must be one of 'none', 'adjust_die'"),
    ('numbers = [5]\non_turn = [{op = "gain", resource = "gold", n = 1}]',
     'numbers = [4]\non_turn = [{op = "gain", resource = "gold", n = 1}]', "field 'starters' must be the Peasant"),
    ('{per = "monster", vp = 2}', '{per = "dragons", vp = 2}', "dukes.duke_hunt.bonus[0].per' must be one of"),
])
def test_a_bad_card_field_is_one_line_naming_file_card_field_and_allowed_values(tmp_path, old, new_text, needle):
    p = _edited(tmp_path, old, new_text)
    with pytest.raises(InputError) as exc:
        K.load_cards(p)
    msg = str(exc.value)
    assert needle in msg and str(p) in msg and "\n" not in msg


def test_citizen_count_and_domain_stacks_are_checked(tmp_path):
    data = tomllib.loads(K.default_cards_path().read_text())
    assert len(data["citizens"]) == 10
    p = _edited(tmp_path, '[[domains]]\nkey = "chapel"', '[[unused]]\nkey = "chapel"')
    with pytest.raises(InputError, match="field 'unused' is not a known field|multiple of 3"):
        K.load_cards(p)


def test_cli_run_with_a_bad_card_file_exits_2_with_one_stderr_line(tmp_path):
    from click.testing import CliRunner

    from simkit.cli import cli

    _edited(tmp_path, 'cost = 3\nvp = 0\non_turn = [{op = "steal"', 'cost = 99\nvp = 0\non_turn = [{op = "steal"')
    sc = tmp_path / "s.toml"
    sc.write_text((Path(K.default_cards_path()).parent / "standard.toml").read_text())
    res_ = CliRunner().invoke(cli, ["run", str(sc), "--games", "10", "--jobs", "1", "--out", str(tmp_path / "o")])
    assert res_.exit_code == 2
    lines = [x for x in res_.stderr.splitlines() if x.strip()]
    assert len(lines) == 1 and "citizens.thief.cost" in lines[0] and "at most 12" in lines[0]
    assert not (tmp_path / "o").exists()


def test_scenario_rule_option_error_names_field_and_values(tmp_path):
    from simkit.core import loader

    src = (Path(K.default_cards_path()).parent / "standard.toml").read_text()
    p = Path(K.default_cards_path()).parent / "_tmp_bad.toml"
    p.write_text(src.replace('herald = "herald"', 'herald = "both"'))
    try:
        with pytest.raises(InputError) as exc:
            loader.load(p)
        assert "rules.herald" in str(exc.value) and "'herald', 'consolation'" in str(exc.value)
        p.write_text(src.replace("players = [4]", "players = [6]"))
        with pytest.raises(InputError, match="field 'players'.*2, 3, 4, 5"):
            loader.load(p)
    finally:
        p.unlink()


# --- set-up ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_setup_gives_starters_two_gold_one_magic_stacks_of_five_and_two_exhausted_per_player(players):
    """The 2-4-player set-up (at 5 players: ``rules.five_player = "base"``; the variant: the tests below)."""
    s, rng, env = new(players, seed=players, five_player="base")
    assert s[S.PHASE] == S.P_DUKE and s[S.TO_MOVE] == 0
    for p in range(players):
        assert res(s, p) == [2, 0, 1]
        assert s[S.OWN + p * S.N_KINDS + KEY["peasant"]] == 1 and s[S.OWN + p * S.N_KINDS + KEY["knight"]] == 1
    assert all(s[S.STACK + k] == 5 for k in range(10))
    assert s[S.EXH_LEFT] == 2 * players
    assert [s[S.DN + d] for d in range(5)] == [3] * 5
    # each seat keeps one of its two dealt Dukes, in seat order; then seat 0 rolls
    for p in range(players):
        assert s[S.TO_MOVE] == p and legal(s, env) == [S.A_KEEP, S.A_KEEP + 1]
        E.apply_action(s, rng, env, S.A_KEEP + 1)
        assert s[S.KEEP + p] == s[S.DEALT + 2 * p + 1]
    assert s[S.ACTIVE] == 0 and s[S.PHASE] in (S.P_ANY, S.P_ACTION)


# --- roll and harvest ------------------------------------------------------------------------------------------

def test_each_die_and_the_sum_activate_and_doubles_activate_twice_or_once():
    k = CARDS.arrays()[0]
    # a 3 and a 5 activate 3, 5 and 8
    assert [R.activations(k, KEY[c], 3, 5, False) for c in ("thief", "farmer", "smuggler", "peasant", "archer")] \
        == [1, 1, 1, 1, 0]
    assert R.activations(k, KEY["champion"], 4, 6, False) == 1  # 9/10 on a sum of 10
    assert R.activations(k, KEY["thief"], 3, 3, False) == 2      # each die of a double
    assert R.activations(k, KEY["thief"], 3, 3, True) == 1       # rules.doubles = "once"
    assert R.activations(k, KEY["guard"], 3, 3, False) == 1      # the sum 6


def test_on_turn_and_off_turn_powers_and_each_copy_activates():
    s, rng, env = new(2)
    to_actions(s, rng, env)
    s[S.PHASE], s[S.ACTIVE] = S.P_ACTION, 0
    for p in range(2):
        set_res(s, p, 0, 0, 0)
    own(s, 0, "merchant", 2)  # on 2: on-turn 2 Gold each
    own(s, 1, "merchant", 1)  # off-turn 1 Gold
    harvest(s, env, 2, 4)     # 2, 4 and 6: the Merchants and the Knights (6) activate
    assert res(s, 0) == [4, 1, 0] and res(s, 1) == [1, 1, 0]
    assert s[S.PHASE] == S.P_ACTION and s[S.HERALD] == 0 and s[S.HERALD + 1] == 0


def test_thief_resolves_first():
    """Seat 1 has no Gold when the Thief resolves, so nothing is stolen; its Peasant (sum 5) and Merchant (2)
    pay it afterwards."""
    s, rng, env = new(2)
    to_actions(s, rng, env)
    for p in range(2):
        set_res(s, p, 0, 0, 0)
    own(s, 0, "thief")
    own(s, 1, "merchant")
    harvest(s, env, 3, 2)
    assert res(s, 1) == [2, 0, 0] and res(s, 0) == [1, 0, 0]
    # with Gold on the table, the Thief takes 2 of it
    set_res(s, 1, 5, 0, 0)
    set_res(s, 0, 0, 0, 0)
    s[S.PEND_ANY] = s[S.PEND_ANY + 1] = 0
    harvest(s, env, 3, 2)
    assert res(s, 1) == [5 - 2 + 2, 0, 0] and res(s, 0) == [2 + 1, 0, 0]


def test_thief_target_is_a_decision_of_its_owner_with_three_players():
    s, rng, env = new(3)
    to_actions(s, rng, env)
    own(s, 1, "thief")
    s[S.ACTIVE] = 1
    set_res(s, 0, 4, 0, 0)
    set_res(s, 2, 1, 0, 0)
    harvest(s, env, 3, 6)
    assert s[S.PHASE] == S.P_THIEF and s[S.TO_MOVE] == 1
    assert legal(s, env) == [S.A_TARGET + 0, S.A_TARGET + 2]
    g1 = res(s, 1)[0]
    E.apply_action(s, rng, env, S.A_TARGET + 2)  # only 1 Gold to take from seat 2
    assert res(s, 2)[0] == 0 and res(s, 1)[0] == g1 + 1


def test_two_steal_citizens_with_different_amounts_each_take_their_own(tmp_path):
    """Review fix: a seat's Thief activations kept one amount (the last steal power read), so a second steal
    Citizen with another amount took the wrong Gold. Monk made a steal-1 Citizen on 1, the Thief steals 2 on 3:
    on 1 + 2 (1, 2 and 3) seat 0 takes 1 + 2 = 3 Gold from seat 1, not 2 + 2."""
    p = _edited(tmp_path, 'on_turn = [{op = "gain", resource = "magic", n = 1}]\noff_turn = [{op = "gain", '
                          'resource = "magic", n = 1}]', 'on_turn = [{op = "steal", n = 1}]\noff_turn = [{op = '
                          '"gain", resource = "magic", n = 1}]')
    cards = K.load_cards(p)
    s, rng, env = new(2, cards=cards)
    to_actions(s, rng, env)
    s[S.ACTIVE] = 0
    for q in range(2):
        set_res(s, q, 0, 0, 0)
    set_res(s, 1, 10, 0, 0)
    own(s, 0, "monk")
    own(s, 0, "thief")
    harvest(s, env, 1, 2)  # seat 1 owns only the Starters: nothing of 1, 2, 3 (its Herald fires)
    assert res(s, 1)[0] == 10 - 3 and res(s, 0)[0] == 3
    assert E.invariants(s, env) == 0


@pytest.mark.parametrize("herald, d1, d2, want", [
    ("herald", 1, 1, 2),       # no Citizen of 1 or 2, and doubles: twice
    ("herald", 1, 2, 1),       # no Citizen of 1, 2 or 3
    ("herald", 3, 3, 1),       # the Knight (6) activates on the sum; doubles: once
    ("herald", 2, 4, 0),
    ("consolation", 1, 1, 1),  # 1E: one Resource when nothing activates, nothing for doubles
    ("consolation", 3, 3, 0),
])
def test_herald_and_consolation_counts(herald, d1, d2, want):
    s, rng, env = new(2, herald=herald)
    to_actions(s, rng, env)
    s[S.PEND_ANY] = s[S.PEND_ANY + 1] = 0
    h0 = [int(s[S.HERALD + p]) for p in range(2)]
    harvest(s, env, d1, d2)
    assert [int(s[S.HERALD + p]) - h0[p] for p in range(2)] == [want, want]
    if want:
        assert s[S.PHASE] == S.P_ANY and s[S.TO_MOVE] == 0 and legal(s, env) == [S.A_ANY, S.A_ANY + 1, S.A_ANY + 2]


def test_herald_distribution_equals_simkit_odds_on_all_36_rolls_and_on_simulated_rolls():
    """For the tableaux {1, 2, 5, 6} (Monk, Merchant, Starters) and {5, 6} (Starters), the Herald counts over the
    36 rolls are exactly ``simkit odds valeria``'s distribution, and rolls drawn by the engine match it."""
    tableaux = {0: [(1,), (2,), (5,), (6,)], 1: [(5,), (6,)]}
    s, rng, env = new(2)
    to_actions(s, rng, env)
    own(s, 0, "monk")
    own(s, 0, "merchant")
    counts = {p: [0, 0, 0] for p in tableaux}

    def one(roll_it):
        s[S.PEND_ANY] = s[S.PEND_ANY + 1] = 0
        before = [int(s[S.HERALD + p]) for p in tableaux]
        s[S.ACTIVE] = 0
        if roll_it:
            R.start_turn(s, rng, env)
        for p in tableaux:
            counts[p][int(s[S.HERALD + p]) - before[p]] += 1

    for d1 in range(1, 7):
        for d2 in range(1, 7):
            s[S.D1], s[S.D2] = d1, d2
            s[S.PEND_ANY] = s[S.PEND_ANY + 1] = 0
            before = [int(s[S.HERALD + p]) for p in tableaux]
            R.begin_harvest(s, env)
            for p in tableaux:
                counts[p][int(s[S.HERALD + p]) - before[p]] += 1
    for p, cits in tableaux.items():
        exact = herald_distribution(cits)
        assert [Fraction(c, 36) for c in counts[p]] == [exact[k] for k in range(3)]
    counts = {p: [0, 0, 0] for p in tableaux}
    n = 20_000
    for _ in range(n):
        one(True)
    for p, cits in tableaux.items():
        exact = herald_distribution(cits)
        for k in range(3):
            q = float(exact[k])
            assert abs(counts[p][k] / n - q) <= 4 * (q * (1 - q) / n) ** 0.5 + 1e-9, (p, k, counts[p], q)


# --- actions ----------------------------------------------------------------------------------------------------

def test_recruit_costs_one_more_gold_per_copy_owned():
    s, rng, env = new(2)
    to_actions(s, rng, env)
    s[S.PHASE], s[S.ACTIVE], s[S.ACTS], s[S.TO_MOVE] = S.P_ACTION, 0, 2, 0
    set_res(s, 0, 3, 0, 0)
    assert S.A_RECRUIT + KEY["merchant"] in legal(s, env)   # cost 2
    own(s, 0, "merchant")
    assert S.A_RECRUIT + KEY["merchant"] in legal(s, env)   # 2 + 1 = 3
    own(s, 0, "merchant")
    assert S.A_RECRUIT + KEY["merchant"] not in legal(s, env)  # 2 + 2 = 4 > 3
    own(s, 0, "merchant", -1)
    E.apply_action(s, rng, env, S.A_RECRUIT + KEY["merchant"])
    assert res(s, 0)[0] == 0 and s[S.OWN + KEY["merchant"]] == 2 and s[S.STACK + KEY["merchant"]] == 3
    assert s[S.ACTS] == 1 and E.invariants(s, env) == 0


@pytest.mark.parametrize("magic_gold", ["never", "augment"])
def test_magic_augments_gold_for_recruit_and_build_only_with_the_option(magic_gold):
    """``rules.magic_gold = "augment"`` (the public base rules: Magic may augment Gold to Recruit or Build, at
    least 1 Gold paid): 1 Gold + 1 Magic recruits the Merchant (cost 2), Gold first; 0 Gold never pays;
    ``"never"`` (issue 22's reading) pays Gold only."""
    s, rng, env = new(2, magic_gold=magic_gold)
    to_actions(s, rng, env)
    s[S.PHASE], s[S.ACTIVE], s[S.ACTS], s[S.TO_MOVE] = S.P_ACTION, 0, 2, 0
    aug = magic_gold == "augment"
    set_res(s, 0, 0, 0, 5)
    assert S.A_RECRUIT + KEY["merchant"] not in legal(s, env)  # at least 1 Gold
    set_res(s, 0, 1, 0, 3)
    assert (S.A_RECRUIT + KEY["merchant"] in legal(s, env)) == aug
    assert S.A_RECRUIT + KEY["bishop"] not in legal(s, env)          # cost 5 > 1 Gold + 3 Magic
    chapel = next(i for i, d in enumerate(CARDS.domains) if d["key"] == "chapel")  # cost 4, holy 1
    _place_on_top(s, 0, chapel)
    own(s, 0, "monk")
    assert (S.A_BUILD + 0 in legal(s, env)) == aug
    if aug:
        E.apply_action(s, rng, env, S.A_RECRUIT + KEY["merchant"])
        assert res(s, 0) == [0, 0, 2] and E.invariants(s, env) == 0


def test_by_default_magic_augments_gold():
    """Issue 40: the public base rules are the default (``magic_gold = "augment"``): with 1 Gold and 1 Magic and
    no option given, the Merchant (cost 2) can be recruited."""
    s, rng, env = new(2)
    to_actions(s, rng, env)
    s[S.PHASE], s[S.ACTIVE], s[S.ACTS], s[S.TO_MOVE] = S.P_ACTION, 0, 2, 0
    set_res(s, 0, 1, 0, 1)
    assert S.A_RECRUIT + KEY["merchant"] in legal(s, env)
    from simkit.games.valeria.scenario import OPTIONS

    assert OPTIONS["magic_gold"][1] == "augment"


def test_slay_magic_stands_in_for_strength_but_one_strength_is_paid():
    s, rng, env = new(2)
    to_actions(s, rng, env)
    s[S.PHASE], s[S.ACTIVE], s[S.ACTS], s[S.TO_MOVE] = S.P_ACTION, 0, 2, 0
    hills, ruins = 0 * S.MAX_SUB, 1 * S.MAX_SUB  # Goblin: Strength 2; Skeleton: Strength 2, Magic 1
    set_res(s, 0, 0, 0, 5)
    acts = legal(s, env)
    assert not any(a < S.A_RECRUIT for a in acts)  # no Strength: no slay at all
    set_res(s, 0, 0, 1, 2)
    acts = legal(s, env)
    assert hills + 1 in acts and hills not in acts        # 1 Strength + 1 Magic for the Goblin
    assert ruins + 1 in acts and ruins not in acts        # Skeleton: 1 Strength, 1 + 1 Magic
    E.apply_action(s, rng, env, ruins + 1)
    assert res(s, 0) == [0, 0, 2 - 2 + 1]                 # paid 1 Strength and 2 Magic; its reward: 1 Magic
    assert s[S.MON_OWNER + 4] == 0 and s[S.MON_LEFT + 1] == 3


def test_build_needs_role_icons_and_starters_do_not_count():
    s, rng, env = new(2)
    to_actions(s, rng, env)
    s[S.PHASE], s[S.ACTIVE], s[S.ACTS], s[S.TO_MOVE] = S.P_ACTION, 0, 2, 0
    chapel = next(i for i, d in enumerate(CARDS.domains) if d["key"] == "chapel")
    _place_on_top(s, 0, chapel)
    set_res(s, 0, 9, 0, 0)
    assert S.A_BUILD + 0 not in legal(s, env)  # holy 1 needed; Starters have no icon
    own(s, 0, "monk")
    assert S.A_BUILD + 0 in legal(s, env)
    E.apply_action(s, rng, env, S.A_BUILD + 0)
    assert res(s, 0) == [9 - 4, 0, 1] and s[S.DOM_OWNER + chapel] == 0 and s[S.DN] == 2
    assert E.invariants(s, env) == 0


def _place_on_top(s, d, dom):
    """Swap Domain ``dom`` to the top of stack ``d`` (wherever it lies)."""
    dd = S.DOM_DEPTH
    where = next(i for i in range(S.MAX_DSTACK * dd) if s[S.DSTACK + i] == dom and s[S.DN + i // dd] > i % dd)
    top = S.DSTACK + dd * d + s[S.DN + d] - 1
    s[S.DSTACK + where], s[top] = s[top], s[S.DSTACK + where]


def test_the_round_is_finished_after_the_end_is_triggered():
    """Three players; the last Exhausted card is placed on seat 1's turn: seat 2 still plays, then the game ends
    without seat 0 playing again."""
    s, rng, env = new(3)
    to_actions(s, rng, env)
    s[S.PHASE], s[S.ACTIVE], s[S.ACTS], s[S.TO_MOVE] = S.P_ACTION, 1, 2, 1
    s[S.PEND_ANY:S.PEND_ANY + 5] = 0
    s[S.EXH_LEFT], s[S.EXH_PLACED] = 0, 6
    s[S.EXH_STACK:S.EXH_STACK + 6] = 1
    E.apply_action(s, rng, env, S.A_GAIN)
    E.apply_action(s, rng, env, S.A_GAIN)
    assert not E.is_over(s) and s[S.ENDING] == 1 and s[S.ACTIVE] == 2
    buf = np.empty(S.MAX_ACTIONS, np.int64)
    while s[S.PHASE] != S.P_ACTION:
        E.apply_action(s, rng, env, buf[E.legal_actions(s, env, buf) - 1])
    E.apply_action(s, rng, env, S.A_GAIN)
    assert not E.is_over(s)
    E.apply_action(s, rng, env, S.A_GAIN)
    assert E.is_over(s) and s[S.ROUNDS] == 1


def test_scoring_and_the_fewest_cards_tie_break():
    s, rng, env = new(2)
    to_actions(s, rng, env)
    s[S.KEEP], s[S.KEEP + 1] = -1, -1  # no Duke bonus: only printed Victory Points
    s[S.MON_OWNER + 3] = 0   # Hill Giant: 5 VP
    s[S.MON_OWNER + 1] = 1   # Hill Troll: 2 VP
    own(s, 1, "bishop", 1)   # 1 VP
    own(s, 1, "champion", 2)  # 2 x 1 VP
    END.finish(s, env)
    assert [s[S.SCORE], s[S.SCORE + 1]] == [5, 5]
    assert [s[S.TABLEAU], s[S.TABLEAU + 1]] == [3, 6]
    assert s[S.WIN_MASK] == 1 and E.reward(s, env, 0) == 1.0 and E.reward(s, env, 1) == 0.0
    own(s, 0, "monk", 3)     # now 6 cards each: a shared win
    END.finish(s, env)
    assert s[S.WIN_MASK] == 3 and E.reward(s, env, 0) == 0.5


def test_duke_bonus_per_icon_every_and_resources():
    s, rng, env = new(2)
    to_actions(s, rng, env)
    toil = next(i for i, d in enumerate(CARDS.dukes) if d["key"] == "duke_toil")  # 1/worker, 1 per 2 Gold
    s[S.KEEP] = toil
    own(s, 0, "merchant", 2)
    own(s, 0, "farmer", 1)
    set_res(s, 0, 7, 0, 0)
    assert END.score_seat(s, env, 0) == 3 + 3


# --- many games -----------------------------------------------------------------------------------------------

def test_invariants_hold_over_many_random_games_and_every_game_ends():
    """Cards (Citizen stacks and copies owned, Monsters, Domains, Exhausted cards, Dukes) and Resources (held =
    taken - paid) are conserved after every decision of 400 random games at 2 to 5 players."""
    buf = np.empty(S.MAX_ACTIONS, np.int64)
    zero = np.zeros(E.N_PARAMS)
    for g in range(400):
        s, rng, env = new(2 + g % 4, seed=1000 + g, herald=("herald", "consolation")[g % 2])
        prng = np.empty(4, np.uint64)
        seed_stream(prng, np.array([g, 5], np.uint64), 0, 1)
        steps = 0
        while not E.is_over(s):
            n = E.legal_actions(s, env, buf)
            E.apply_action(s, rng, env, E.policy(RANDOM, s, env, buf, n, zero, prng))
            code = E.invariants(s, env)
            assert code == 0, (g, steps, code)
            steps += 1
        assert s[S.CAPPED] == 0 and s[S.WIN_MASK] != 0


def _markov_turns_to_slay(max_turns=12):
    """Independent chain: seat 0 (first player) owns only the Starters; every Monster needs 12 Strength; seat 0 has
    1 Magic (never more), so it slays as soon as it has 11 Strength. Each roll gives it 1 Strength per Knight
    activation (a 6 on a die, or the sum) and, 2E Herald, 1 per Herald activation (no 5 or 6 activates; doubles),
    taken as Strength; each own action not spent slaying gains 1 Strength. P(first slay on own turn t)."""
    rolls = [(a, b) for a in range(1, 7) for b in range(1, 7)]

    def g(a, b):
        knight = (a == 6) + (b == 6) + (a + b == 6)
        peasant = (a == 5) + (b == 5) + (a + b == 5)
        return knight + (knight + peasant == 0) + (a == b)

    dist = {0: Fraction(1)}
    out = {}
    for t in range(1, max_turns + 1):
        nxt = {}
        for st, p in dist.items():
            for a, b in rolls:
                x = st + g(a, b)
                q = p / 36
                slain = False
                for _ in range(2):
                    if x >= 11:
                        slain = True
                        break
                    x += 1
                if slain:
                    out[t] = out.get(t, 0) + q
                else:
                    for c, d in rolls:  # seat 1's roll: seat 0's off-turn Knight and Herald
                        y = x + g(c, d)
                        nxt[y] = nxt.get(y, 0) + q / 36
        dist = nxt
    return out


def test_turns_to_slay_match_an_independent_markov_chain(tmp_path):
    data = K.default_cards_path().read_text()
    import re

    data = re.sub(r"strength = \d+\nmagic = \d+", "strength = 12\nmagic = 0", data)
    p = tmp_path / "cards.toml"
    p.write_text(data)
    cards = K.load_cards(p)
    exact = _markov_turns_to_slay()
    assert sum(exact.values()) == 1
    n = 3000
    counts = {}
    buf = np.empty(S.MAX_ACTIONS, np.int64)
    for g in range(n):
        s, rng, env = new(2, seed=g, cards=cards)
        turn = 0
        while True:
            k = E.legal_actions(s, env, buf)
            acts = [int(x) for x in buf[:k]]
            ph, p_ = s[S.PHASE], s[S.TO_MOVE]
            if ph == S.P_ACTION and p_ == 0:
                if s[S.ACTS] == 2:
                    turn += 1
                slay = [a for a in acts if a < S.A_RECRUIT]
                if slay:
                    break
                a = S.A_GAIN + 1
            elif ph == S.P_ACTION:
                a = S.A_GAIN
            elif ph == S.P_ANY:
                a = S.A_ANY + (1 if p_ == 0 else 0)
            else:
                a = acts[0]
            E.apply_action(s, rng, env, a)
        counts[turn] = counts.get(turn, 0) + 1
    assert set(counts) <= set(exact)
    for t, q in exact.items():
        q = float(q)
        got = counts.get(t, 0) / n
        assert abs(got - q) <= 4 * (q * (1 - q) / n) ** 0.5 + 1e-9, (t, got, q)


# --- the runner -----------------------------------------------------------------------------------------------

def test_mirror_scenario_writes_a_row_per_seat_and_bench_counts_games_not_rows():
    from simkit.core import loader
    from simkit.core.runner import block_key

    sim = loader.load(Path(K.default_cards_path()).parent / "standard.toml").simulation
    assert sim.cells == 2 * 4 and sim.games_per_index == 2  # economy and hunter, 4 seats each
    cols = sim.run_block(block_key(1, 0), 30)
    assert len(cols["won"]) == 8 * 30
    won = np.asarray(cols["won"]).reshape(8, 30)
    tie = np.asarray(cols["tie"]).reshape(8, 30)
    # in each game of each mirror cell exactly one seat wins, unless the win is shared
    for c in range(2):
        per_game = won[4 * c:4 * c + 4].sum(axis=0)
        assert ((per_game == 1) | (tie[4 * c] == 1)).all() and (per_game <= 1).all()
    assert (np.asarray(cols["seat"]).reshape(8, 30)[:, 0] == [0, 1, 2, 3, 0, 1, 2, 3]).all()


def _race_chain(herald="herald", doubles="twice"):
    """Independent chain of a whole 2-player game (review): every Monster needs 1 Strength and is worth 1 VP,
    with no reward; the Dukes score nothing (holy icons; nobody recruits); both seats own only the Starters, take
    every "any 1 Resource" as Strength, and on their turn slay the first slayable Monster (area order: an area of 4
    empties every 4th slay and takes an Exhausted card) when they hold a Strength, else gain 1 Strength. Each roll
    gives both seats the same Strength: 1 per Knight activation (a 6 on a die, "once" on doubles, or the sum 6) and
    1 per Herald activation (2E: no Peasant or Knight activation, and doubles; 1E: the first only). The 4th Exhausted
    card (16 slain, 2 x 2 players) triggers the end; the round is finished. Returns ({rounds: P}, E[seat 0's
    reward]) with a shared win (equal VP and so equal tableaux) worth 1/2."""
    from collections import defaultdict

    rolls = [(a, b) for a in range(1, 7) for b in range(1, 7)]

    def hits(n, a, b):
        dice = int(n == a) if (doubles == "once" and a == b) else int(n == a) + int(n == b)
        return dice + int(n == a + b)

    def g(a, b):
        k, p = hits(6, a, b), hits(5, a, b)
        h = int(k + p == 0) + (int(a == b) if herald == "herald" else 0)
        return k + h

    def turn(st, mine, total):
        for _ in range(2):
            if st >= 1:
                st, mine, total = st - 1, mine + 1, total + 1
            else:
                st += 1
        return st, mine, total

    states = {(0, 0, 0, 0): Fraction(1)}  # (Strength 0, Strength 1, slain by 0, slain by 1) at a round's start
    rounds, reward0 = defaultdict(Fraction), Fraction(0)
    for r in range(1, 20):
        nxt = defaultdict(Fraction)
        for (s0, s1, m0, m1), pr in states.items():
            for a, b in rolls:
                x = g(a, b)
                t0, n0, tot = turn(s0 + x, m0, m0 + m1)
                u1 = s1 + x
                for c, d in rolls:
                    y = g(c, d)
                    t1, n1, tot2 = turn(u1 + y, m1, tot)
                    q = pr / 1296
                    if tot2 >= 16:
                        rounds[r] += q
                        reward0 += q * (1 if n0 > n1 else Fraction(1, 2) if n0 == n1 else 0)
                    else:
                        nxt[(t0 + y, t1, n0, n1)] += q
        states = nxt
        if not states:
            break
    assert not states
    return dict(rounds), reward0


@pytest.mark.parametrize("herald, doubles", [("herald", "twice"), ("consolation", "twice"), ("herald", "once")])
def test_whole_game_rounds_and_seat_zero_reward_match_an_independent_chain(tmp_path, herald, doubles):
    """Review check of the whole game loop (Roll, Harvest with Knights and Herald / consolation and doubles, two
    actions, the Exhausted cards, the 2n trigger, finishing the round, scoring and the shared win) against
    ``_race_chain``: each P(rounds = r) and seat 0's mean reward within 4 standard errors (n = 3,000 games)."""
    import re

    data = K.default_cards_path().read_text()
    data = re.sub(r"strength = \d+\nmagic = \d+\nvp = \d+\nreward = \[.*\]", "strength = 1\nmagic = 0\nvp = 1",
                  data)
    data = re.sub(r"bonus = \[.*\]", 'bonus = [{per = "holy", vp = 1}]', data)
    p = tmp_path / "cards.toml"
    p.write_text(data)
    cards = K.load_cards(p)
    assert all(m["strength"] == 1 and m["vp"] == 1 and not m["reward"] for m in cards.monsters)
    exact, exact_reward = _race_chain(herald, doubles)
    assert sum(exact.values()) == 1
    n = 3000
    counts: dict[int, int] = {}
    rewards = []
    buf = np.empty(S.MAX_ACTIONS, np.int64)
    for g in range(n):
        s, rng, env = new(2, seed=50_000 + g, cards=cards, herald=herald, doubles=doubles)
        while not E.is_over(s):
            k = E.legal_actions(s, env, buf)
            acts = [int(x) for x in buf[:k]]
            ph = s[S.PHASE]
            if ph == S.P_ACTION:
                slay = [a for a in acts if a < S.A_RECRUIT]
                a = slay[0] if slay else S.A_GAIN + 1
            elif ph == S.P_ANY:
                a = S.A_ANY + 1
            else:
                assert ph == S.P_DUKE
                a = S.A_KEEP
            E.apply_action(s, rng, env, a)
        assert s[S.CAPPED] == 0 and E.invariants(s, env) == 0
        counts[int(s[S.ROUNDS])] = counts.get(int(s[S.ROUNDS]), 0) + 1
        rewards.append(E.reward(s, env, 0))
    assert set(counts) <= set(exact)
    for r, q in exact.items():
        q = float(q)
        se = max((q * (1 - q) / n) ** 0.5, 1 / n)
        assert abs(counts.get(r, 0) / n - q) < 4 * se, (r, counts.get(r, 0) / n, q)
    mean, sd = float(np.mean(rewards)), float(np.std(rewards))
    assert abs(mean - float(exact_reward)) < 4 * sd / n ** 0.5, (mean, float(exact_reward))


def test_every_bad_card_of_every_section_is_reported_at_once(tmp_path):
    # a Citizen, a Monster, a Domain and a Duke, each wrong: one error naming all four (before, the file stopped
    # at the first section with a problem, so the Monster, Domain and Duke errors showed only on later passes)
    src = K.default_cards_path().read_text()
    edits = [('role = "holy"', 'role = "priest"'),
             ('reward = [{op = "gain", resource = "gold", n = 1}]', 'reward = [{op = "any", n = 1}]'),
             ('power = "adjust_die"', 'power = "reroll"'), ('{per = "monster", vp = 2}', '{per = "dragons", vp = 2}')]
    for old, new in edits:
        assert old in src, old
        src = src.replace(old, new, 1)
    p = tmp_path / "cards.toml"
    p.write_text(src)
    with pytest.raises(InputError) as exc:
        K.load_cards(p)
    msg = str(exc.value)
    for needle in ("citizens.monk.role", "monsters.goblin.reward[0].op", "domains.watchtower.power",
                   "dukes.duke_hunt.bonus[0].per"):
        assert needle in msg, (needle, msg)
    assert "\n" not in msg
