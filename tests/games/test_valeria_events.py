"""Valeria: the Monster Event variant (``rules.monster_events``; the rule text's "Monster Event Variant"): the Event
cards and their validation, the set-up, hand-built positions with outcomes computed by hand (activation by a die,
by the sum, once on doubles; tokens raising the cost; Gold tokens to the slayer; replacement from the bottom; an
Event counting as exhausted; its VP and Monster icon scored), invariants over random games, the engine's
activation frequency against ``odds.monster_event()``, and the decision interface (resample, learned, search) on
the variant."""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from simkit.core import decision as D
from simkit.core.policies import LEARNED, RANDOM
from simkit.core.rng import seed_stream
from simkit.errors import InputError
from simkit.games.valeria import actions as A
from simkit.games.valeria import cards as K
from simkit.games.valeria import end as END
from simkit.games.valeria import engine as E
from simkit.games.valeria import events as EV
from simkit.games.valeria import roll as R
from simkit.games.valeria import state as S
from simkit.games.valeria.odds import monster_event
from simkit.games.valeria.simulation import make_env
from valeria_setup import CARDS, EVK, SCEN, action_phase, empty_area, face_up, legal, new_game, res, set_res



def new(players=2, seed=0, cards=CARDS, **options):
    options.setdefault("monster_events", True)
    return new_game(players, seed, cards, 3, keep_dukes=True, **options)


def _edited(tmp_path, old, new_text, count=1):
    src = K.default_cards_path().read_text()
    assert old in src
    p = tmp_path / "cards.toml"
    p.write_text(src.replace(old, new_text, count))
    return p


# --- card data ------------------------------------------------------------------------------------------------

def test_bundled_events_are_stand_in_and_in_range():
    assert "STAND-IN" in K.default_cards_path().read_text().split("Monster Events (2E variant")[1][:40]
    assert len(CARDS.events) == 10 and all(2 <= e["number"] <= 12 for e in CARDS.events)
    assert CARDS.events[EVK["bat_swarm"]]["instruction"] == ((K.EOP_PLACE, 1, K.ON_CHOICE, 1),)
    ev = CARDS.event_array()
    assert ev.shape == (10, K.EV_COLS) and ev[EVK["dragon_hoard"], K.E_VP] == 5


@pytest.mark.parametrize("old, new_text, needle", [
    ('number = 5\n', 'number = 13\n', "monster_events.bat_swarm.number' must be at most 12"),
    ('number = 5\n', 'number = 1\n', "monster_events.bat_swarm.number' must be at least 2"),
    ('{op = "place", resource = "strength", n = 1, on = "choice"}', '{op = "steal", resource = "gold", n = 1}',
     "monster_events.bat_swarm.instruction[0].op' of Monster Event 'Bat Swarm': unknown op 'steal'; allowed ops: "
     "place, all_gain, all_lose"),
    ('{op = "place", resource = "strength", n = 1, on = "choice"}',
     '{op = "place", resource = "strength", n = 1, on = "anywhere"}',
     "monster_events.bat_swarm.instruction[0].on' must be one of 'choice', 'every', 'self'"),
    ('{op = "place", resource = "strength", n = 1, on = "choice"}',
     '{op = "place", resource = "mana", n = 1, on = "choice"}',
     "monster_events.bat_swarm.instruction[0].resource' must be one of 'gold', 'strength', 'magic'"),
    ('{op = "place", resource = "strength", n = 1, on = "choice"}',
     '{op = "place", resource = "strength", n = 4, on = "choice"}',
     "monster_events.bat_swarm.instruction[0].n' must be at most 3"),
    ('key = "bat_swarm"\nname = "Bat Swarm"\nnumber = 5\n', 'key = "bat_swarm"\nname = "Bat Swarm"\nnumbr = 5\n',
     "monster_events.bat_swarm.numbr' is not a known field"),
])
def test_a_bad_event_field_is_one_line_naming_file_card_field_and_allowed_values(tmp_path, old, new_text, needle):
    p = _edited(tmp_path, old, new_text)
    with pytest.raises(InputError) as exc:
        K.load_cards(p)
    msg = str(exc.value)
    assert needle in msg and str(p) in msg and "\n" not in msg


def test_too_few_events_and_scenario_options_are_refused(tmp_path):
    from simkit.core import loader

    src = K.default_cards_path().read_text()
    head, tail = src.split("[[monster_events]]", 1)
    cut = head + "[[monster_events]]" + "[[monster_events]]".join(tail.split("[[monster_events]]")[:3])
    p = tmp_path / "cards.toml"
    p.write_text(cut)
    with pytest.raises(InputError, match="field 'monster_events' must list 5 to 10 Monster Events .*got 3"):
        K.load_cards(p)
    std = (SCEN / "monster_events.toml").read_text()
    bad = SCEN / "_tmp_bad_events.toml"
    try:
        bad.write_text(std.replace("monster_events = true", 'monster_events = true\npreselect_event = "bats"'))
        with pytest.raises(InputError) as exc:
            loader.load(bad)
        assert "rules.preselect_event" in str(exc.value) and "'bat_swarm'" in str(exc.value)
        bad.write_text(std.replace("monster_events = true", 'monster_events = "yes"'))
        with pytest.raises(InputError, match="rules.monster_events"):
            loader.load(bad)
        bad.write_text(std.replace("monster_events = true", 'monster_events = false\npreselect_event = "bat_swarm"'))
        with pytest.raises(InputError, match="rules.preselect_event' needs rules.monster_events = true"):
            loader.load(bad)
    finally:
        bad.unlink()


def test_cli_run_with_a_bad_event_exits_2_with_one_stderr_line(tmp_path):
    from click.testing import CliRunner

    from simkit.cli import cli

    _edited(tmp_path, 'number = 12\n', 'number = 14\n')
    sc = tmp_path / "s.toml"
    sc.write_text((SCEN / "monster_events.toml").read_text())
    r = CliRunner().invoke(cli, ["run", str(sc), "--games", "10", "--jobs", "1", "--out", str(tmp_path / "o")])
    assert r.exit_code == 2
    lines = [x for x in r.stderr.splitlines() if x.strip()]
    assert len(lines) == 1 and "monster_events.dragon_hoard.number" in lines[0] and "at most 12" in lines[0]


# --- set-up ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_setup_two_exhausted_per_player_under_one_event_per_player_and_the_preselected_one(players):
    for seed in range(20):
        s, rng, env = new(players, seed, preselect_event="dragon_hoard")
        seq = [int(x) for x in s[S.EV_SEQ + s[S.EV_LO]:S.EV_SEQ + s[S.EV_HI]]]
        assert len(seq) == 3 * players == s[S.EXH_LEFT]
        assert seq[:2 * players] == [-1] * (2 * players)      # the Exhausted cards at the bottom
        top = seq[2 * players:]
        assert len(set(top)) == players and EVK["dragon_hoard"] in top and min(top) >= 0
        pos = s[S.EV_POS:S.EV_POS + 10]
        assert sorted(np.flatnonzero(pos == S.EV_STACKED)) == sorted(top)
        assert (pos[pos != S.EV_STACKED] == S.EV_BOX).all()
        assert E.invariants(s, env) == 0


def test_variant_off_leaves_the_base_setup_and_draws_nothing_more():
    """Right after Game Setup: the same deal with the variant off and on (the Events are shuffled after it)."""
    got = []
    for on in (False, True):
        env = make_env(CARDS, 4, monster_events=on)
        s = np.zeros(S.STATE_SIZE, np.int32)
        rng = np.empty(4, np.uint64)
        seed_stream(rng, np.array([9, 3], np.uint64), 0, 0)
        E.new_game(s, rng, env)
        got.append((s, rng))
    (s0, rng0), (s1, rng1) = got
    keep = np.arange(S.EXH_STACK) != S.EXH_LEFT
    assert np.array_equal(s0[:S.EXH_STACK][keep], s1[:S.EXH_STACK][keep])
    assert s0[S.EXH_LEFT] == 8 and s1[S.EXH_LEFT] == 12
    assert not s0[S.EXH_STACK:].any()
    assert not np.array_equal(rng0, rng1)  # the Events' shuffle drew from the stream only with the variant on


# --- the Roll Phase: activation -------------------------------------------------------------------------------

@pytest.mark.parametrize("d1, d2, lost", [
    (3, 5, 1),  # a die shows 3
    (1, 2, 1),  # the sum is 3
    (3, 3, 1),  # both dice: once, not twice
    (2, 2, 0),  # 2, 2 and 4: not activated
    (6, 6, 0),
])
def test_plague_rats_activate_on_a_die_or_the_sum_once_on_doubles_and_all_lose_if_able(d1, d2, lost):
    s, rng, env = new(3, 1, preselect_event="plague_rats")
    face_up(s, "plague_rats", S.EXH_CIT + 0)
    set_res(s, 0, 4, 0, 0)
    set_res(s, 1, 2, 1, 0)
    set_res(s, 2, 0, 0, 0)  # not able: nothing to return
    s[S.D1], s[S.D2], s[S.ACTIVE] = d1, d2, 0
    assert EV.activate(s, env) is False
    assert [res(s, p)[0] for p in range(3)] == [4 - lost, 2 - lost, 0]
    assert E.invariants(s, env) == 0


def test_events_are_carried_out_before_the_harvest():
    """Seat 0 has no Gold; on 2 + 3 the Plague Rats (3) take nothing from it, then its Peasant (the sum 5) gives
    it 1 Gold. After the Harvest it would have been 1 - 1 = 0."""
    s, rng, env = new(2, 2, preselect_event="plague_rats")
    face_up(s, "plague_rats", S.EXH_CIT + 0)
    set_res(s, 0, 0, 0, 0)
    set_res(s, 1, 3, 0, 0)
    s[S.D1], s[S.D2], s[S.ACTIVE] = 2, 3, 0
    R.end_roll(s, env)
    assert res(s, 0)[0] == 1 and res(s, 1)[0] == 3 - 1 + 1


def test_an_event_face_down_or_taken_does_not_activate():
    s, rng, env = new(3, 1, preselect_event="plague_rats")
    set_res(s, 0, 4, 0, 0)
    s[S.D1], s[S.D2] = 3, 5
    EV.activate(s, env)
    assert res(s, 0)[0] == 4  # still face down in the Exhausted stack


# --- tokens -----------------------------------------------------------------------------------------------------

def test_a_strength_token_of_the_players_choice_raises_the_cost():
    """Bat Swarm (5: 1 Strength token on a Monster of the active player's choice) on 1 + 4: the choice is seat 0's,
    among the 5 areas' top Monsters and the Bat Swarm itself; on the Goblin (Strength 2) it needs 3."""
    s, rng, env = new(2, 4, preselect_event="bat_swarm")
    e = face_up(s, "bat_swarm", S.EXH_CIT + 3)
    s[S.D1], s[S.D2], s[S.ACTIVE] = 1, 4, 0
    R.end_roll(s, env)
    assert s[S.PHASE] == S.P_EVENT and s[S.TO_MOVE] == 0
    assert legal(s, env) == [S.A_PLACE + a for a in range(5)] + [S.A_PLACE + 5 + e]
    E.apply_action(s, rng, env, S.A_PLACE + 0)
    assert s[S.MON_TOK + 3 * 0 + 1] == 1 and s[S.TOK_PLACED + 1] == 1
    assert s[S.PHASE] in (S.P_ANY, S.P_ACTION) and s[S.EV_TODO] == 0  # the Harvest followed
    action_phase(s)
    set_res(s, 0, 0, 2, 0)
    assert not any(a < S.A_RECRUIT for a in legal(s, env) if a < S.MAX_SUB)  # 2 Strength: no longer enough
    set_res(s, 0, 0, 3, 0)
    assert S.A_SLAY + 0 in legal(s, env)
    set_res(s, 0, 0, 2, 1)
    assert S.A_SLAY + 1 in legal(s, env) and S.A_SLAY + 0 not in legal(s, env)  # Magic stands in for one
    E.apply_action(s, rng, env, S.A_SLAY + 1)
    assert res(s, 0) == [1, 0, 0] and s[S.MON_OWNER + 0] == 0  # paid 2 + 1; the Goblin's 1 Gold
    assert s[S.MON_TOK + 1] == 0 and s[S.TOK_CLEARED + 1] == 1 and E.invariants(s, env) == 0


def test_a_choice_with_one_monster_is_forced_and_every_and_self_place_without_a_decision():
    s, rng, env = new(2, 5, preselect_event="war_drums")
    e = face_up(s, "war_drums", S.EXH_CIT + 1)  # 8: 1 Strength on every Monster
    s[S.D1], s[S.D2] = 2, 6
    assert EV.activate(s, env) is False
    tops = [A.top_monster(s, env, a) for a in range(5)]
    assert all(s[S.MON_TOK + 3 * m + 1] == 1 for m in tops) and s[S.EV_TOK + 3 * e + 1] == 1
    assert s[S.TOK_PLACED + 1] == 6 and E.invariants(s, env) == 0


def test_gold_tokens_go_to_the_slayer():
    """Dragon Hoard (12: 2 Gold tokens on itself) rolled twice, then slain (Strength 8, Magic 2): the slayer takes
    its 4 Gold tokens; the supply gets the tokens back."""
    s, rng, env = new(2, 6, preselect_event="dragon_hoard")
    e = face_up(s, "dragon_hoard", S.EXH_CIT + 2)
    for _ in range(2):
        s[S.D1], s[S.D2] = 6, 6
        EV.activate(s, env)
    assert s[S.EV_TOK + 3 * e + 0] == 4
    action_phase(s, 1)
    set_res(s, 1, 0, 8, 2)
    assert S.A_SLAY_EV + e * S.MAX_SUB in legal(s, env)
    E.apply_action(s, rng, env, S.A_SLAY_EV + e * S.MAX_SUB)
    assert res(s, 1) == [4, 0, 0] and s[S.EV_OWNER + e] == 1 and s[S.EV_POS + e] == S.EV_TAKEN
    assert s[S.TOK_CLEARED] == 4 and s[S.EV_TOK + 3 * e] == 0 and E.invariants(s, env) == 0


def test_gold_token_on_a_monster_goes_to_its_slayer():
    s, rng, env = new(2, 7, preselect_event="treasure_goblins")
    face_up(s, "treasure_goblins", S.EXH_CIT + 2)  # 4: 1 Gold on a Monster of the active player's choice
    s[S.D1], s[S.D2], s[S.ACTIVE] = 4, 1, 0
    assert EV.activate(s, env) is True and s[S.PHASE] == S.P_EVENT
    R.apply_event(s, env, S.A_PLACE + 0)  # on the Goblin (1 Gold reward)
    action_phase(s)
    set_res(s, 0, 0, 2, 0)
    E.apply_action(s, rng, env, S.A_SLAY + 0)
    assert res(s, 0) == [1 + 1, 0, 0] and E.invariants(s, env) == 0


# --- the Exhausted stack -----------------------------------------------------------------------------------------

def test_an_emptied_stack_reveals_the_top_event_and_a_taken_event_is_replaced_from_the_bottom():
    """2 players: the stack is 4 Exhausted cards under 2 Events. Emptying the Hills (the action is finished first)
    reveals the top Event there; slaying it replaces it with an Exhausted card from the bottom, not the other
    Event on top; the stack still counts 1 exhausted."""
    s, rng, env = new(2, 8)
    seq = [int(x) for x in s[S.EV_SEQ:S.EV_SEQ + 6]]
    top, second = seq[5], seq[4]
    first, cnt = env[4][0]
    for i in range(cnt - 1):
        s[S.MON_OWNER + first + i] = 1
    s[S.MON_LEFT + 0] = 1
    action_phase(s)
    m = A.top_monster(s, env, 0)
    set_res(s, 0, 0, 12, 6)
    E.apply_action(s, rng, env, S.A_SLAY + 0)
    assert s[S.MON_OWNER + m] == 0 and s[S.EV_POS + top] == S.EXH_AREA + 0 and s[S.EXH_PLACED] == 1
    assert s[S.EXH_STACK + S.EXH_AREA] == 0 and s[S.EXH_LEFT] == 5 and E.invariants(s, env) == 0
    set_res(s, 0, 0, 12, 6)
    a = S.A_SLAY_EV + top * S.MAX_SUB
    assert a in legal(s, env)
    E.apply_action(s, rng, env, a)
    assert s[S.EV_OWNER + top] == 0 and s[S.EV_LO] == 1 and s[S.EV_HI] == 5
    assert s[S.EXH_STACK + S.EXH_AREA] == 1 and s[S.EV_POS + second] == S.EV_STACKED  # not the next Event
    assert s[S.EXH_PLACED] == 1 and s[S.EXH_LEFT] == 4 and E.invariants(s, env) == 0


def test_a_stack_holding_an_event_counts_as_exhausted_for_the_end():
    s2, _, env = new(2, 9, preselect_event="dragon_hoard")
    # four stacks emptied: the first two take the two Events (top), the next two Exhausted cards
    for slot in range(4):
        EV.reveal(s2, S.EXH_CIT + slot)
    ups = int((s2[S.EV_SLOT:S.EV_SLOT + S.N_SLOTS] > 0).sum())
    assert ups == 2 and int(s2[S.EXH_STACK:S.EXH_STACK + S.N_SLOTS].sum()) == 2
    assert s2[S.EXH_PLACED] == 4 == 2 * 2 and END.end_triggered(s2, env)
    s3, _, _ = new(2, 9, preselect_event="dragon_hoard")
    for slot in range(3):
        EV.reveal(s3, S.EXH_CIT + slot)
    assert not END.end_triggered(s3, env)


def test_events_score_their_vp_and_count_as_monsters_for_the_duke_and_the_tableau():
    s, rng, env = new(2, 10, preselect_event="dragon_hoard")
    e = face_up(s, "dragon_hoard", S.EXH_CIT + 0)
    EV.take_event(s, e, 0)
    hunt = next(i for i, d in enumerate(CARDS.dukes) if d["key"] == "duke_hunt")  # 2 VP per Monster
    s[S.KEEP], s[S.KEEP + 1] = hunt, -1
    assert END.score_seat(s, env, 0) == 5 + 2 and END.tableau(s, env, 0) == 2 + 1
    off = make_env(CARDS, 2)  # without the variant the Event is not read
    assert END.score_seat(s, off, 0) == 0


# --- many games and the odds --------------------------------------------------------------------------------------

def test_invariants_hold_over_random_games_with_the_variant():
    """Cards (the Exhausted stack, Events face up and taken, Citizens, Monsters, Domains, Dukes), tokens (on cards =
    placed - returned) and Resources are conserved after every decision of 300 games at 2 to 5 players (random and
    the heuristics, half with a preselected Event); every game ends; Events are revealed, tokens placed, Events
    slain."""
    buf = np.empty(S.MAX_ACTIONS, np.int64)
    hero = E.PRESETS["hunter"]
    from simkit.core.policies import compile_policy

    kind, params, _, _ = compile_policy(hero[0], hero[1], E.PARAMS)
    slain = placed = choices = 0
    for g in range(300):
        s, rng, env = new(2 + g % 4, 2000 + g, preselect_event=("", "bat_swarm")[g % 2])
        prng = np.empty(4, np.uint64)
        seed_stream(prng, np.array([g, 5], np.uint64), 0, 1)
        k_ = RANDOM if g % 3 else kind
        while not E.is_over(s):
            n = E.legal_actions(s, env, buf)
            assert n >= 1
            choices += s[S.PHASE] == S.P_EVENT
            E.apply_action(s, rng, env, E.policy(k_, s, env, buf, n, params, prng))
            assert E.invariants(s, env) == 0, g
        assert s[S.CAPPED] == 0 and s[S.WIN_MASK] != 0
        slain += int((s[S.EV_OWNER:S.EV_OWNER + 10] >= 0).sum())
        placed += int(s[S.TOK_PLACED:S.TOK_PLACED + 3].sum())
    assert slain > 100 and placed > 100 and choices > 50


def _all_face_up(cards, players=2):
    s, rng, env = new(players, 11, cards=cards)
    for e in range(len(cards.events)):
        s[S.EV_POS + e] = e
        s[S.EV_SLOT + e] = e + 1
    return s, rng, env


@pytest.mark.parametrize("first", [2, 3])
def test_activation_frequency_equals_simkit_odds(tmp_path, first):
    """Ten Events numbered ``first`` .. ``first + 9`` (each: 1 Gold token on itself), all face up. Over the 36 rolls
    each activates exactly ``36 * odds.monster_event()[n]`` times; over 20,000 rolls drawn by the engine's Roll
    Phase each one's frequency is within 4 standard errors of the exact probability."""
    src = K.default_cards_path().read_text()
    head, tail = src.split("# --- Monster Events", 1)
    nums = iter(range(first, first + 10))
    tail = re.sub(r"number = \d+", lambda _: f"number = {next(nums)}", tail)
    tail = re.sub(r"instruction = \[.*\]", 'instruction = [{op = "place", resource = "gold", n = 1, on = "self"}]',
                  tail)
    p = tmp_path / "cards.toml"
    p.write_text(head + "# --- Monster Events" + tail)
    cards = K.load_cards(p)
    exact = monster_event()
    s, rng, env = _all_face_up(cards)
    for d1 in range(1, 7):
        for d2 in range(1, 7):
            s[S.D1], s[S.D2] = d1, d2
            EV.activate(s, env)
    got = s[S.EV_TOK:S.EV_TOK + 30:3]
    assert [Fraction(int(x), 36) for x in got] == [exact[n] for n in range(first, first + 10)]
    s, rng, env = _all_face_up(cards)
    n = 20_000
    for _ in range(n):
        s[S.ACTIVE] = 0
        s[S.PEND_ANY:S.PEND_ANY + S.MAX_P] = 0
        R.start_turn(s, rng, env)
    got = s[S.EV_TOK:S.EV_TOK + 30:3]
    for i, num in enumerate(range(first, first + 10)):
        q = float(exact[num])
        assert abs(got[i] / n - q) <= 4 * (q * (1 - q) / n) ** 0.5, (num, got[i] / n, q)


# --- the decision interface on the variant ----------------------------------------------------------------------

@pytest.fixture(scope="module")
def dg():
    from simkit.games.valeria.simulation import decision_game

    return decision_game(SCEN / "monster_events.toml")


def _mid(dg, seed, steps, until_event=False):
    """A random walk of ``steps`` decisions (then, with ``until_event``, on to the next Event placement)."""
    s, rng, env = dg.new_game(seed)
    buf = np.empty(dg.max_actions, np.int64)
    prng = np.empty(4, np.uint64)
    seed_stream(prng, np.array([seed, 1], np.uint64), 0, 1)
    zero = np.zeros(E.N_PARAMS)
    for _ in range(steps):
        if dg.fns.is_over(s):
            return None
        n = dg.fns.legal_actions(s, env, buf)
        dg.fns.apply_action(s, rng, env, dg.fns.policy(RANDOM, s, env, buf, n, zero, prng))
    while until_event and not dg.fns.is_over(s) and s[S.PHASE] != S.P_EVENT:
        n = dg.fns.legal_actions(s, env, buf)
        dg.fns.apply_action(s, rng, env, dg.fns.policy(RANDOM, s, env, buf, n, zero, prng))
    return None if dg.fns.is_over(s) else (s, rng, env)


def _stream(seed, k):
    r = np.empty(4, np.uint64)
    seed_stream(r, np.array([seed, 7], np.uint64), 0, k)
    return r


def test_resample_redraws_the_face_down_events_canonically(dg):
    differed = checked = 0
    for seed in range(30):
        got = _mid(dg, seed, 10 + 4 * seed)
        if got is None:
            continue
        s, rng, env = got
        seat = dg.fns.to_move(s)
        other, orng = s.copy(), rng.copy()
        dg.fns.resample(other, orng, env, seat, _stream(99 + seed, 3))
        seen = [i for i in range(S.STATE_SIZE) if not (S.EV_SEQ <= i < S.EV_SEQ + S.MAX_SEQ or
                                                       S.EV_POS <= i < S.EV_POS + S.MAX_EV or
                                                       S.DSTACK <= i < S.DSTACK + S.MAX_DOM or S.DEALT <= i < S.KEEP + 5)]
        assert np.array_equal(s[seen], other[seen])
        differed += not np.array_equal(s[S.EV_SEQ:S.EV_SEQ + S.MAX_SEQ], other[S.EV_SEQ:S.EV_SEQ + S.MAX_SEQ])
        assert E.invariants(other, env) == 0
        a, b = s.copy(), other.copy()
        ar, br = rng.copy(), orng.copy()
        dg.fns.resample(a, ar, env, seat, _stream(5, 4))
        dg.fns.resample(b, br, env, seat, _stream(5, 4))
        assert np.array_equal(a, b)
        checked += 1
    assert checked >= 15 and differed >= 5


def test_features_have_fixed_length_and_learned_and_search_do_not_peek_at_the_exhausted_stack(dg):
    """Random learned weights over every feature and `search` (4 rollouts) pick the same action from two states
    that differ only in the face-down Events; the feature vector of every legal action (the Event placement
    included) is the same in both."""
    f = len(dg.feature_names)
    assert f == len(E.FEATURES) == 24
    base_vec = next(v for k, v in dg.policies.values() if k == 0)
    vec = np.concatenate([base_vec, np.array([f, 2, 0.0]), np.random.default_rng(3).normal(size=f + 2 * f + 4)])
    buf = np.empty(dg.max_actions, np.int64)
    kind, params = dg.policies["economy"]
    cfg = D.search_config(rollouts=4, base_kind=kind)
    checked = events = 0
    for seed in range(40):
        got = _mid(dg, seed, 8 + 3 * seed, until_event=seed % 2 == 1)
        if got is None or dg.fns.legal_actions(got[0], got[2], buf) < 2:
            continue
        s, rng, env = got
        other, orng = s.copy(), rng.copy()
        dg.fns.resample(other, orng, env, dg.fns.to_move(s), _stream(77 + seed, 3))
        n = dg.fns.legal_actions(s, env, buf)
        legal_ = buf[:n].copy()
        X = [np.zeros((n, f)), np.zeros((n, f))]
        for st, x in zip((s, other), X):
            dg.learned.action_features(st, env, legal_.copy(), n, vec, _stream(seed, 4), x)
        assert np.array_equal(X[0], X[1])
        picks = [dg.fns.policy(LEARNED, st, env, legal_.copy(), n, vec, _stream(seed, 5)) for st in (s, other)]
        assert picks[0] == picks[1]
        if seed % 4 == 0:
            sp = [dg.search.search_action(st.copy(), r.copy(), env, legal_, n, cfg, params, _stream(seed, 9))
                  for st, r in ((s, rng), (other, orng))]
            assert sp[0] == sp[1]
        events += s[S.PHASE] == S.P_EVENT
        checked += 1
    assert checked >= 15 and events >= 5
