"""Valeria: the published 5-player variant (issue 40; ``rules.five_player = "variant"``, the default at 5 players):
Monster stacks with the cards marked for 5 players, Citizen stacks of 6, Domain stacks of 4 (3 face down, 1 face
up), and the Resting Player, who does not harvest and hands the Rest Token on to the left each time the dice pass.
Hand-built positions with outcomes computed by hand; ``five_player = "base"`` keeps the 2-4-player set-up."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from simkit.core.policies import RANDOM
from simkit.core.rng import seed_stream
from simkit.errors import InputError
from simkit.games.valeria import cards as K
from simkit.games.valeria import engine as E
from simkit.games.valeria import roll as R
from simkit.games.valeria import state as S
from valeria_setup import new_game, res, set_res

CARDS = K.load_cards()
KEY = {c["key"]: i for i, c in enumerate(CARDS.kinds)}
SCEN = Path(K.default_cards_path()).parent


def new(players=5, seed=0, **options):
    return new_game(players, seed, CARDS, 3, **options)


def own(s, p, key, n=1):
    k = KEY[key]
    s[S.OWN + p * S.N_KINDS + k] += n
    s[S.STACK + k] -= n


def harvest(s, env, d1, d2, active=0):
    """The Harvest of the roll (d1, d2) with seat ``active`` active (nothing pending before it)."""
    s[S.PEND_ANY:S.PEND_ANY + S.MAX_P] = 0
    s[S.ACTIVE] = active
    s[S.D1], s[S.D2] = d1, d2
    R.begin_harvest(s, env)


# --- set-up ---------------------------------------------------------------------------------------------------

def test_the_stand_in_cards_mark_one_monster_per_area_and_one_domain_per_stack_for_five_players():
    assert len(CARDS.monsters) == 20 and len(CARDS.monsters_five) == 25 and len(CARDS.domains) == 15
    assert [d["key"] for d in CARDS.domains_five] == ["granary", "shrine", "stockade", "hideout", "citadel"]
    hills = [m["key"] for m in CARDS.monsters_five if m["area"] == 0]
    assert hills == ["goblin", "hill_troll", "orc_chief", "ogre", "hill_giant"]  # in Strength order, file order
    assert [m["key"] for m in CARDS.monsters if m["area"] == 0] == ["goblin", "hill_troll", "ogre", "hill_giant"]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_five_player_setup_stacks_of_six_citizens_four_domains_and_monster_stacks_with_the_marked_cards(seed):
    s, rng, env = new(5, seed)
    assert all(s[S.STACK + k] == 6 for k in range(10))           # "Each stack of Citizen cards will contain 6"
    assert [s[S.DN + d] for d in range(S.MAX_DSTACK)] == [4, 4, 4, 4, 4, 0]  # 5 stacks of 4
    dealt = sorted(int(s[S.DSTACK + S.DOM_DEPTH * d + j]) for d in range(5) for j in range(4))
    assert dealt == list(range(20))                               # the 15 Domains and the 5 marked ones, once each
    names = [d["name"] for d in CARDS.domains + CARDS.domains_five]
    assert [x[0] for x in env[2][:, :1]] == [d["cost"] for d in CARDS.domains + CARDS.domains_five]
    assert len(names) == 20 and env[5][S.R_N_DOM] == 20
    # the face-up Domain is the 4th card of each stack: the one a Build takes
    from simkit.games.valeria.actions import top_domain
    assert [top_domain(s, d) for d in range(5)] == [s[S.DSTACK + S.DOM_DEPTH * d + 3] for d in range(5)]
    # Monster areas of 5 (4 stand-in + 1 marked), the marked one in its place
    assert [s[S.MON_LEFT + a] for a in range(5)] == [5] * 5 and env[5][S.R_N_MON] == 25
    assert [int(x) for x in env[1][:5, K.M_STR]] == [2, 4, 5, 6, 9]  # goblin, troll, orc chief, ogre, giant
    assert s[S.EXH_LEFT] == 10                                    # still 2 Exhausted cards per player
    assert s[S.REST] == 4                                         # the First Player's right
    assert E.invariants(s, env) == 0


def test_resample_redraws_the_three_face_down_domains_of_each_stack_and_keeps_the_tops():
    s, rng, env = new(5, 4)
    o, orng = s.copy(), rng.copy()
    srng = np.empty(4, np.uint64)
    seed_stream(srng, np.array([9, 9], np.uint64), 0, 0)
    E.resample(o, orng, env, 0, srng)
    at = lambda x, d, j: int(x[S.DSTACK + S.DOM_DEPTH * d + j])  # noqa: E731
    assert [at(o, d, 3) for d in range(5)] == [at(s, d, 3) for d in range(5)]
    down = lambda x: sorted(at(x, d, j) for d in range(5) for j in range(3))  # noqa: E731
    assert down(o) == down(s) and [at(o, d, j) for d in range(5) for j in range(3)] != \
        [at(s, d, j) for d in range(5) for j in range(3)]
    assert E.invariants(o, env) == 0


def test_base_at_five_players_is_the_two_to_four_player_setup():
    s, rng, env = new(5, 0, five_player="base")
    assert all(s[S.STACK + k] == 5 for k in range(10))
    assert [s[S.DN + d] for d in range(S.MAX_DSTACK)] == [3, 3, 3, 3, 3, 0]
    assert [s[S.MON_LEFT + a] for a in range(5)] == [4] * 5 and env[5][S.R_N_DOM] == 15
    assert s[S.REST] == -1


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_option_changes_nothing_below_five_players(players):
    a, _, ea = new(players, 7)
    b, _, eb = new(players, 7, five_player="base")
    assert np.array_equal(a, b) and a[S.REST] == -1
    for x, y in zip(ea[:5], eb[:5]):
        assert np.array_equal(x, y)


# --- the Resting Player ----------------------------------------------------------------------------------------

def _five(five_player="variant"):
    """5 players, Starters only plus a Monk (1: 1 Magic on and off turn) and a Thief (3: off turn 1 Gold) for
    seats 1 and 4; every seat 0 Gold, 0 Strength, 0 Magic; seat 0 active, seat 4 resting (the variant)."""
    s, rng, env = new(5, 11, five_player=five_player)
    for p in (1, 4):
        own(s, p, "monk")
        own(s, p, "thief")
    for p in range(5):
        set_res(s, p, 0, 0, 0)
    return s, env


def test_the_resting_player_does_not_harvest_on_a_roll_that_activates_its_citizens():
    """Roll 1 + 3 (activates 1, 3 and 4): seat 1's Monk gives 1 Magic and its Thief (off turn) 1 Gold; seat 4,
    with the same Citizens, rests: nothing. Seats 0, 2 and 3 (Starters only: 5 and 6 not rolled) take their
    Herald's 1 Resource; seat 4 not (it does not harvest), seat 1 not (its Citizens activated)."""
    s, env = _five()
    assert s[S.REST] == 4
    harvest(s, env, 1, 3)
    assert res(s, 1) == [1, 0, 1] and res(s, 4) == [0, 0, 0]
    assert s[S.HARVEST + 1] == 2 and s[S.HARVEST + 4] == 0
    assert [int(s[S.HERALD + p]) for p in range(5)] == [1, 0, 1, 1, 0]
    assert [int(s[S.PEND_ANY + p]) for p in range(5)] == [1, 0, 1, 1, 0]
    assert E.invariants(s, env) == 0


def test_the_resting_player_takes_no_herald_on_doubles_either():
    """Roll 3 + 3 (activates 3 and 6): every seat's Knight gives 1 Strength and, doubles, the Herald activates once
    for every seat; seats 1 and 4 also have a Thief on 3 (off turn 1 Gold, twice: each die). Seat 4 rests: nothing."""
    s, env = _five()
    harvest(s, env, 3, 3)
    assert res(s, 1) == [2, 1, 0] and res(s, 2) == [0, 1, 0] and res(s, 4) == [0, 0, 0]
    assert [int(s[S.HERALD + p]) for p in range(5)] == [1, 1, 1, 1, 0]


def test_with_base_the_same_seat_harvests():
    s, env = _five("base")
    assert s[S.REST] == -1
    harvest(s, env, 1, 3)
    assert res(s, 4) == [1, 0, 1] and s[S.HERALD + 4] == 0


def test_the_resting_player_can_still_be_robbed():
    """Seat 1 active rolls 1 + 3 with the token on seat 0: seat 1's Thief (on turn: steal 2 Gold) may rob the
    resting seat 0 (3 Gold), which then holds 1; seat 0 takes nothing (its Herald would have given 1: no 5 or 6);
    seat 4, not resting now, takes its Monk's Magic and its Thief's off-turn Gold."""
    s, env = _five()
    s[S.REST] = 0
    set_res(s, 0, 3, 0, 0)
    harvest(s, env, 1, 3, active=1)
    assert s[S.PHASE] == S.P_THIEF and s[S.TO_MOVE] == 1
    buf = np.empty(S.MAX_ACTIONS, np.int64)
    n = E.legal_actions(s, env, buf)
    assert S.A_TARGET + 0 in [int(x) for x in buf[:n]]
    R.apply_target(s, env, S.A_TARGET + 0)
    assert res(s, 0) == [1, 0, 0] and res(s, 1) == [2, 0, 1] and res(s, 4) == [1, 0, 1]
    assert s[S.HERALD + 0] == 0 and s[S.HARVEST + 0] == 0 and [int(s[S.HERALD + p]) for p in (2, 3)] == [1, 1]


def test_the_rest_token_passes_left_each_time_the_dice_pass():
    """Seat 4 rests in seat 0's turn, then the token follows the dice: after each pass it lies on the seat before
    the new Active Player: 4, 0, 1, 2, 3, 4, 0, ... (the invariants check it after every decision)."""
    s, rng, env = new(5, 21)
    buf = np.empty(S.MAX_ACTIONS, np.int64)
    prng = np.empty(4, np.uint64)
    seed_stream(prng, np.array([3, 3], np.uint64), 0, 1)
    zero = np.zeros(E.N_PARAMS)
    seen = [(int(s[S.ACTIVE]), int(s[S.REST]))]
    while not E.is_over(s) and len(seen) < 12:
        n = E.legal_actions(s, env, buf)
        E.apply_action(s, rng, env, E.policy(RANDOM, s, env, buf, n, zero, prng))
        assert E.invariants(s, env) == 0
        if int(s[S.ACTIVE]) != seen[-1][0] and not E.is_over(s):
            seen.append((int(s[S.ACTIVE]), int(s[S.REST])))
    assert seen == [(a % 5, (a + 4) % 5) for a in range(12)]
    assert [r for _, r in seen[:7]] == [4, 0, 1, 2, 3, 4, 0]


def test_invariants_hold_over_random_five_player_games_with_and_without_monster_events():
    buf = np.empty(S.MAX_ACTIONS, np.int64)
    zero = np.zeros(E.N_PARAMS)
    for g in range(60):
        s, rng, env = new(5, 500 + g, monster_events=bool(g % 2))
        prng = np.empty(4, np.uint64)
        seed_stream(prng, np.array([g, 6], np.uint64), 0, 1)
        while not E.is_over(s):
            n = E.legal_actions(s, env, buf)
            E.apply_action(s, rng, env, E.policy(RANDOM, s, env, buf, n, zero, prng))
            assert E.invariants(s, env) == 0, g
        assert s[S.CAPPED] == 0 and s[S.WIN_MASK] != 0


# --- options and cards ----------------------------------------------------------------------------------------

def _scenario(tmp_path, five_player=None, cards=None):
    src = (SCEN / "players.toml").read_text()
    if five_player is not None:
        src = src.replace('herald = "herald"', f'herald = "herald"\nfive_player = "{five_player}"')
    src = src.replace('cards = "cards.toml"', f'cards = "{cards or SCEN / "cards.toml"}"')
    src = src.replace('weights = "kingdoms.learned.npz"', f'weights = "{SCEN / "kingdoms.learned.npz"}"')
    p = tmp_path / "s.toml"
    p.write_text(src)
    return p


def test_the_option_is_validated_with_a_one_line_error(tmp_path):
    from simkit.core import loader

    with pytest.raises(InputError) as exc:
        loader.load(_scenario(tmp_path, "rest"))
    msg = str(exc.value)
    assert "rules.five_player" in msg and "'base', 'variant'" in msg and "\n" not in msg
    assert loader.load(_scenario(tmp_path, "base")).simulation.options["five_player"] == "base"
    assert loader.load(_scenario(tmp_path)).simulation.options["five_player"] == "variant"


def test_variant_at_five_players_needs_domains_marked_for_five_players(tmp_path):
    from simkit.core import loader

    src = K.default_cards_path().read_text()
    i, j = src.index("# --- Domains for 5 players only"), src.index("# --- Dukes")
    src = src[:i] + src[j:]  # the 5 marked Domains left out (the marked Monsters kept)
    c = tmp_path / "cards.toml"
    c.write_text(src)
    with pytest.raises(InputError) as exc:
        loader.load(_scenario(tmp_path, cards=c))
    msg = str(exc.value)
    assert "rules.five_player" in msg and "allowed values: 'base'" in msg and "\n" not in msg
    assert loader.load(_scenario(tmp_path, "base", cards=c)).simulation.options["five_player"] == "base"


@pytest.mark.parametrize("old, new_text, needle", [
    # one marked Domain short of one per stack
    ('[[domains]]\nkey = "citadel"\nname = "Citadel"\ncost = 9\nvp = 5\n'
     'requires = {soldier = 1, holy = 1, shadow = 1}\nfive_player = true\n', '',
     "must mark none or 5 Domains five_player"),
    # a seventh Monster in the hills at 5 players (4 + 3 marked)
    ('key = "orc_chief"', 'key = "orc_chief2"\nname = "x"\narea = "hills"\nstrength = 5\nvp = 1\nfive_player = true\n\n'
     '[[monsters]]\nkey = "orc_chief3"\nname = "y"\narea = "hills"\nstrength = 5\nvp = 1\nfive_player = true\n\n'
     '[[monsters]]\nkey = "orc_chief"', "at most 6 Monsters"),
    ('vp = 3\nreward = [{op = "gain", resource = "gold", n = 2}]\nfive_player = true',
     'vp = 3\nreward = [{op = "gain", resource = "gold", n = 2}]\nfive_player = "yes"', "monsters.orc_chief.five_player"),
])
def test_bad_five_player_cards_are_one_line(tmp_path, old, new_text, needle):
    src = K.default_cards_path().read_text()
    assert old in src
    p = tmp_path / "cards.toml"
    p.write_text(src.replace(old, new_text, 1))
    with pytest.raises(InputError) as exc:
        K.load_cards(p)
    msg = str(exc.value)
    assert needle in msg and "\n" not in msg


def test_rows_at_two_to_four_players_are_the_same_under_either_value_and_differ_at_five(tmp_path):
    from simkit.core import loader
    from simkit.core.runner import block_key

    a = loader.load(_scenario(tmp_path, "variant")).simulation.run_block(block_key(3, 0), 20)
    b = loader.load(_scenario(tmp_path, "base")).simulation.run_block(block_key(3, 0), 20)
    five = np.asarray(a["players"]) == 5
    assert five.any() and (~five).any()
    for k in a:
        x, y = np.asarray(a[k]), np.asarray(b[k])
        assert np.array_equal(x[~five], y[~five]), k
    assert not np.array_equal(np.asarray(a["turns"])[five], np.asarray(b["turns"])[five])


@pytest.mark.parametrize("players, five_player, off_turn", [(5, "variant", 3), (5, "base", 4), (4, "variant", 3)])
def test_the_heuristics_income_counts_the_turn_the_owner_rests(players, five_player, off_turn):
    """The heuristics' (and features') income of one more Monk (number 1; 1 Magic on turn and off turn): a die
    shows 1 on 11/36 rolls and double 1s activate it twice, so 12/36 activations a roll; a round is one on-turn
    roll and n - 1 off-turn ones, less the one the owner rests under the Rest Token (at 5 players in the
    variant): 1/3 × (1 + 3) at 5 players with the token, 1/3 × (1 + 4) without it, 1/3 × (1 + 3) at 4."""
    s, _rng, env = new(players, 0, five_player=five_player)
    assert E.income_per_round(s, env, KEY["monk"], np.zeros(4)) == pytest.approx((1 + off_turn) / 3, abs=1e-12)
