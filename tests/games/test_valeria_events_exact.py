"""Valeria, the Monster Event variant: exact checks of degenerate positions against the rule text
(../shared/rules/valeria-card-kingdoms-2e.txt, "Monster Event Variant", cited by line as L19 ...), each outcome
computed by hand or by a small enumeration written here (not the engine's code), and the three named options of
the review (``if_able``, ``all_slain``, ``token_on``; docs/rules.md, docs/review-valeria.md)."""

from __future__ import annotations

import math
import shutil
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from simkit.core.rng import seed_stream
from simkit.errors import InputError
from simkit.games.valeria import actions as A
from simkit.games.valeria import cards as K
from simkit.games.valeria import end as END
from simkit.games.valeria import engine as E
from simkit.games.valeria import events as EV
from simkit.games.valeria import roll as R
from simkit.games.valeria import state as S
from simkit.games.valeria.simulation import make_env
from valeria_setup import CARDS, EVK, SCEN, action_phase, empty_area, face_up, legal, new_game, res, set_res



def new(players=2, seed=0, cards=CARDS, **options):
    options.setdefault("monster_events", True)
    return new_game(players, seed, cards, 7, keep_dukes=True, **options)


def cards_with(tmp_path, old, new_text):
    src = K.default_cards_path().read_text()
    assert src.count(old) == 1, old
    p = tmp_path / "cards.toml"
    p.write_text(src.replace(old, new_text))
    return K.load_cards(p)


def fires_by_the_text(number, d1, d2):
    """L19, read independently: "activated if the value is rolled on the dice, including the sum of both dice.
    The card does not activate twice in the case of doubles": 1 if a die or the sum shows it, else 0."""
    return int(number in (d1, d2, d1 + d2))


# --- L19: the Activation Number ----------------------------------------------------------------------------------

def test_hand_counts_of_the_activation_number():
    """By hand: 7 is only a sum (6 of 36); 12 only 6+6 (1); 2 a die showing 2 (11 rolls) or 1+1 (1): 12; 6 a die
    showing 6 (11) or a sum of 6 (5, none of them with a 6): 16. The enumeration agrees."""
    count = {n: sum(fires_by_the_text(n, a, b) for a in range(1, 7) for b in range(1, 7)) for n in range(2, 13)}
    assert (count[7], count[12], count[2], count[6]) == (6, 1, 12, 16)


@pytest.mark.parametrize("number", range(2, 13))
def test_every_activation_number_on_every_roll_fires_as_the_text_says_once(tmp_path, number):
    """Plague Rats renumbered ``number`` (all lose 1 Gold), face up; each of the 36 rolls on a seat holding 9 Gold:
    it loses exactly ``fires_by_the_text`` Gold (never 2 on doubles), so the count over the rolls is exact."""
    cards = cards_with(tmp_path, 'number = 3\n', f'number = {number}\n')
    s, rng, env = new(2, 1, cards=cards, preselect_event="plague_rats")
    face_up(s, "plague_rats", S.EXH_CIT + 0)
    total = 0
    for d1 in range(1, 7):
        for d2 in range(1, 7):
            set_res(s, 0, 9, 0, 0)
            s[S.D1], s[S.D2] = d1, d2
            assert EV.activate(s, env) is False
            lost = 9 - res(s, 0)[0]
            assert lost == fires_by_the_text(number, d1, d2), (d1, d2)
            total += lost
    assert total == sum(fires_by_the_text(number, a, b) for a in range(1, 7) for b in range(1, 7))


def test_number_two_fires_on_a_two_or_on_one_plus_one_once_and_not_on_a_single_one(tmp_path):
    """"the value is rolled on the dice": a die showing 2 (2+5, 2+2 once) or the sum 1+1 (once, though both dice
    and doubles are involved). A 1 on one die is the value 1, not 2: 1+3 (1, 3, 4) does not fire a 2."""
    cards = cards_with(tmp_path, 'number = 3\n', 'number = 2\n')
    s, rng, env = new(2, 2, cards=cards, preselect_event="plague_rats")
    face_up(s, "plague_rats", S.EXH_CIT + 0)
    for (d1, d2), lost in {(1, 1): 1, (2, 5): 1, (2, 2): 1, (1, 3): 0, (1, 6): 0, (3, 3): 0}.items():
        set_res(s, 0, 5, 0, 0)
        s[S.D1], s[S.D2] = d1, d2
        EV.activate(s, env)
        assert 5 - res(s, 0)[0] == lost, (d1, d2)


def test_number_seven_fires_on_one_sixth_of_seeded_engine_rolls_and_never_twice():
    """Wandering Giant (7: 1 Strength token on itself) face up; 20,000 Roll Phases drawn by the engine
    (``roll.start_turn``). Roll by roll the token count grows by 1 exactly when the dice sum to 7 (never by 2; a
    7 is never a double); the rate is within 4 standard errors (0.0105) of 6/36."""
    s, rng, env = new(2, 3, preselect_event="wandering_giant")
    e = face_up(s, "wandering_giant", S.EXH_CIT + 0)
    n, fired = 20_000, 0
    for _ in range(n):
        before = int(s[S.EV_TOK + 3 * e + 1])
        s[S.ACTIVE] = 0
        s[S.PEND_ANY:S.PEND_ANY + S.MAX_P] = 0
        R.start_turn(s, rng, env)
        step = int(s[S.EV_TOK + 3 * e + 1]) - before
        assert step == fires_by_the_text(7, int(s[S.D1]), int(s[S.D2]))
        fired += step
    p = 6 / 36
    assert abs(fired / n - p) <= 4 * math.sqrt(p * (1 - p) / n)


# --- L32-L34: tokens, Gold, replacement -------------------------------------------------------------------------

def test_magic_tokens_raise_the_cost_to_exactly_the_splits_computed_by_hand():
    """Witch Storm (10: 2 Magic tokens on a Monster of the active player's choice; Strength 3, Magic 3) takes its
    own tokens twice: Magic 3 + 4 = 7. "printed value plus any additional ... tokens" (L32), Magic standing in for
    Strength with 1 Strength paid: (3 S, 7 M) slays with no Magic standing in; (2, 8) with 1; (1, 9) with 2;
    (2, 7) and (3, 6) cannot."""
    s, rng, env = new(2, 4, preselect_event="witch_storm")
    e = face_up(s, "witch_storm", S.EXH_CIT + 5)
    for _ in range(2):
        s[S.D1], s[S.D2], s[S.ACTIVE] = 4, 6, 0
        assert R.end_roll(s, env) is None and s[S.PHASE] == S.P_EVENT
        E.apply_action(s, rng, env, S.A_PLACE + S.N_AREAS + e)
    assert s[S.EV_TOK + 3 * e + 2] == 4
    action_phase(s)
    for (st, mg), splits in {(3, 7): [0], (2, 8): [1], (1, 9): [2], (2, 7): [], (3, 6): []}.items():
        set_res(s, 0, 0, st, mg)
        got = [a - S.A_SLAY_EV - e * S.MAX_SUB for a in legal(s, env)
               if S.A_SLAY_EV + e * S.MAX_SUB <= a < S.A_SLAY_EV + (e + 1) * S.MAX_SUB]
        assert got == splits, (st, mg)
    set_res(s, 0, 0, 2, 8)
    E.apply_action(s, rng, env, S.A_SLAY_EV + e * S.MAX_SUB + 1)
    assert res(s, 0) == [0, 0, 0] and s[S.TOK_CLEARED + 2] == 4 and E.invariants(s, env) == 0


def test_gold_tokens_go_to_the_slayer_and_back_to_the_supply_and_strength_is_lost_if_able():
    """Bandit Raid (11: all lose 1 Strength, 1 Gold token on itself; Strength 5, Magic 1, reward 2 Gold) rolled 3
    times (5+6): seat 0 (1 Strength) loses 1 then nothing, seat 1 (3) loses 3; 3 Gold tokens. Seat 1, given 5
    Strength and 1 Magic, slays it: 2 + 3 Gold; the 3 tokens return to the supply (L33); seat 0 is untouched."""
    s, rng, env = new(2, 5, preselect_event="bandit_raid")
    e = face_up(s, "bandit_raid", S.EXH_DOM + 0)
    set_res(s, 0, 1, 1, 0)
    set_res(s, 1, 0, 3, 0)
    for _ in range(3):
        s[S.D1], s[S.D2] = 5, 6
        EV.activate(s, env)
    assert res(s, 0) == [1, 0, 0] and res(s, 1) == [0, 0, 0]  # 1 then nothing to lose; 3 - 3
    assert s[S.EV_TOK + 3 * e] == 3 and s[S.TOK_PLACED] == 3
    action_phase(s, 1)
    set_res(s, 1, 0, 5, 1)
    E.apply_action(s, rng, env, S.A_SLAY_EV + e * S.MAX_SUB)
    assert res(s, 1) == [2 + 3, 0, 0] and res(s, 0) == [1, 0, 0]
    assert s[S.TOK_CLEARED] == 3 and s[S.EV_TOK + 3 * e] == 0 and s[S.EV_OWNER + e] == 1
    assert E.invariants(s, env) == 0


def test_a_taken_event_is_replaced_from_the_bottom_and_never_by_an_event():
    """A hand-built Exhausted stack, bottom first [Exhausted, Event b, Exhausted] with Event a face up: taking a
    puts the bottom Exhausted card in its stack; the top card and Event b stay (L34). Then [Event b] alone:
    taking another Event leaves its stack empty: "New Monster Event cards cannot replace taken Monster Event
    cards"."""
    s, rng, env = new(3, 6, preselect_event="bat_swarm")
    a = EVK["bat_swarm"]
    others = [int(x) for x in s[S.EV_SEQ + 6:S.EV_SEQ + 9] if x != a]
    b, c = others[0], others[1]
    s[S.EV_SEQ:S.EV_SEQ + 15] = -1
    s[S.EV_SEQ:S.EV_SEQ + 3] = [-1, b, -1]
    s[S.EV_LO], s[S.EV_HI], s[S.EXH_LEFT] = 0, 3, 3
    s[S.EV_POS + a], s[S.EV_SLOT + S.EXH_CIT + 2] = S.EXH_CIT + 2, a + 1
    s[S.EV_POS + c], s[S.EV_SLOT + S.EXH_CIT + 3] = S.EXH_CIT + 3, c + 1
    s[S.EXH_STACK + S.EXH_CIT:S.EXH_STACK + S.EXH_CIT + 4] = [1, 1, 0, 0]
    s[S.EXH_PLACED] = 4
    EV.take_event(s, a, 0)
    assert s[S.EXH_STACK + S.EXH_CIT + 2] == 1 and s[S.EV_SLOT + S.EXH_CIT + 2] == 0
    assert (int(s[S.EV_LO]), int(s[S.EV_HI])) == (1, 3) and list(s[S.EV_SEQ + 1:S.EV_SEQ + 3]) == [b, -1]
    assert s[S.EV_POS + b] == S.EV_STACKED and s[S.EXH_LEFT] == 2 and s[S.EXH_PLACED] == 4
    s[S.EV_SEQ + 2], s[S.EV_HI], s[S.EXH_LEFT] = -1, 2, 1  # the top Exhausted card gone elsewhere: [b] left
    s[S.EXH_STACK + S.EXH_CIT + 4], s[S.EXH_PLACED] = 1, 5
    EV.take_event(s, c, 1)
    assert s[S.EXH_STACK + S.EXH_CIT + 3] == 0 and s[S.EV_SLOT + S.EXH_CIT + 3] == 0
    assert s[S.EV_POS + b] == S.EV_STACKED and s[S.EXH_LEFT] == 1 and s[S.EXH_PLACED] == 4


def test_the_stack_holds_only_events_only_after_the_exhausted_end_has_triggered():
    """Why the case above cannot arise in play: the Events lie on top, so an Exhausted card leaves the stack
    either under a taken Event (at most one per Event) or once every Event is revealed; when none is left, 2n
    stacks are exhausted already. Checked after every decision of 120 random games, 2 to 5 players."""
    from simkit.core.policies import RANDOM

    buf = np.empty(S.MAX_ACTIONS, np.int64)
    zero = np.zeros(E.N_PARAMS)
    seen = 0
    for g in range(120):
        s, rng, env = new(2 + g % 4, 500 + g)
        prng = np.empty(4, np.uint64)
        seed_stream(prng, np.array([g, 9], np.uint64), 0, 1)
        while not E.is_over(s):
            n = E.legal_actions(s, env, buf)
            E.apply_action(s, rng, env, E.policy(RANDOM, s, env, buf, n, zero, prng))
            plain = sum(1 for i in range(s[S.EV_LO], s[S.EV_HI]) if s[S.EV_SEQ + i] < 0)
            if plain == 0 and not E.is_over(s):
                seen += 1
                assert END.end_why(s, env) & S.WHY_EXHAUSTED, g
    assert seen > 0


# --- L36, L38: the end and the score ------------------------------------------------------------------------------

def test_an_event_in_a_center_stack_counts_as_exhausted_at_three_players():
    """3 players: 6 Exhausted cards under 3 Events. Six stacks emptied (3 Events, 3 Exhausted cards) make 2n = 6
    exhausted: the end holds (L36); five do not. Slaying an Event there puts an Exhausted card in its place: still
    6."""
    s, rng, env = new(3, 7)
    for k in range(5):
        EV.reveal(s, S.EXH_CIT + k)
    assert not END.end_triggered(s, env)
    EV.reveal(s, S.EXH_CIT + 5)
    assert END.end_why(s, env) == S.WHY_EXHAUSTED
    up = [e for e in range(S.MAX_EV) if s[S.EV_POS + e] >= 0]
    assert len(up) == 3 and int(s[S.EXH_STACK:S.EXH_STACK + S.N_SLOTS].sum()) == 3
    EV.take_event(s, up[0], 2)
    assert END.end_why(s, env) == S.WHY_EXHAUSTED and int(s[S.EXH_STACK:S.EXH_STACK + S.N_SLOTS].sum()) == 4
    assert E.invariants(s, env) == 0


def test_a_slain_event_scores_its_vp_and_is_a_monster_for_the_dukes_bonus():
    """Seat 0 keeps the Duke of the Hunt (2 VP per Monster) and slays, by actions, the Goblin (1 VP) and the
    Dragon Hoard (5 VP, Strength 8 Magic 2): 1 + 5 + 2 * 2 = 10 VP, 2 + 2 tableau cards (L38). Seat 1, holding
    nothing: 0."""
    s, rng, env = new(2, 8, preselect_event="dragon_hoard")
    e = face_up(s, "dragon_hoard", S.EXH_CIT + 0)
    hunt = next(i for i, d in enumerate(CARDS.dukes) if d["key"] == "duke_hunt")
    s[S.KEEP], s[S.KEEP + 1] = hunt, -1
    action_phase(s)
    set_res(s, 0, 0, 8 + 2, 2)
    E.apply_action(s, rng, env, S.A_SLAY_EV + e * S.MAX_SUB)
    assert A.top_monster(s, env, 0) == 0
    E.apply_action(s, rng, env, S.A_SLAY + 0)
    assert CARDS.events[e]["vp"] == 5 and CARDS.monsters[0]["vp"] == 1
    assert END.score_seat(s, env, 0) == 1 + 5 + 2 * 2 and END.tableau(s, env, 0) == 4
    assert END.score_seat(s, env, 1) == 0


# --- the named options ---------------------------------------------------------------------------------------------

def test_if_able_in_full_returns_none_when_a_player_holds_fewer(tmp_path):
    """Plague Rats made "all lose 2 Gold"; seats hold 3, 1, 0 Gold. "all players must follow the instructions, if
    able" (L21): ``what_it_holds`` (default) returns 2, 1, 0; ``in_full`` 2, 0, 0."""
    cards = cards_with(tmp_path, 'instruction = [{op = "all_lose", resource = "gold", n = 1}]',
                       'instruction = [{op = "all_lose", resource = "gold", n = 2}]')
    for opt, left in (("what_it_holds", [1, 0, 0]), ("in_full", [1, 1, 0])):
        s, rng, env = new(3, 9, cards=cards, preselect_event="plague_rats", if_able=opt)
        face_up(s, "plague_rats", S.EXH_CIT + 0)
        for p, g in enumerate((3, 1, 0)):
            set_res(s, p, g, 0, 0)
        s[S.D1], s[S.D2] = 3, 4
        EV.activate(s, env)
        assert [res(s, p)[0] for p in range(3)] == left, opt
        assert E.invariants(s, env) == 0


def test_all_slain_and_events_keeps_the_game_going_while_an_event_is_face_up():
    """Every Monster area empty, the Bat Swarm face up in a Citizen stack: ``areas`` (default) has "all Monsters
    are slain"; ``and_events`` not until the Bat Swarm is taken."""
    for opt, before in (("areas", S.WHY_MONSTERS), ("and_events", 0)):
        s, rng, env = new(2, 10, preselect_event="bat_swarm", all_slain=opt)
        e = face_up(s, "bat_swarm", S.EXH_CIT + 0)
        for a in range(S.N_AREAS):
            empty_area(s, env, a)
        assert END.end_why(s, env) & S.WHY_MONSTERS == before, opt
        EV.take_event(s, e, 0)
        assert END.end_why(s, env) & S.WHY_MONSTERS == S.WHY_MONSTERS


def test_token_on_other_keeps_a_choice_and_every_off_the_event_itself():
    """Four areas empty; the Hills' Goblin and the Bat Swarm (5: 1 Strength on a Monster of choice) are the only
    Monsters. ``any`` (default): a decision between the two; ``other`` ("on to other Monster or Monster Event
    cards", L32): forced onto the Goblin. War Drums (8: 1 Strength on every Monster) puts one on itself only with
    ``any``."""
    for opt, targets in (("any", 2), ("other", 1)):
        s, rng, env = new(2, 11, preselect_event="bat_swarm", token_on=opt)
        e = face_up(s, "bat_swarm", S.EXH_CIT + 0)
        for a in range(1, S.N_AREAS):
            empty_area(s, env, a)
        s[S.D1], s[S.D2], s[S.ACTIVE] = 1, 4, 0
        waits = EV.activate(s, env)
        if targets == 2:
            assert waits and legal(s, env) == [S.A_PLACE + 0, S.A_PLACE + S.N_AREAS + e]
        else:
            assert not waits and s[S.MON_TOK + 1] == 1 and s[S.EV_TOK + 3 * e + 1] == 0
        s2, _, env2 = new(2, 12, preselect_event="war_drums", token_on=opt)
        w = face_up(s2, "war_drums", S.EXH_CIT + 0)
        s2[S.D1], s2[S.D2] = 2, 6
        EV.activate(s2, env2)
        assert s2[S.EV_TOK + 3 * w + 1] == (1 if opt == "any" else 0)
        assert s2[S.TOK_PLACED + 1] == (6 if opt == "any" else 5)


def test_default_options_leave_the_rule_vector_as_before():
    """The options' defaults are slot value 0, so the default game reads the same rules."""
    r = make_env(CARDS, 4, monster_events=True)[5]
    assert (r[S.R_IF_ABLE], r[S.R_ALL_SLAIN], r[S.R_TOKEN_ON]) == (0, 0, 0)


@pytest.mark.parametrize("line, needle", [
    ('if_able = "sometimes"', "rules.if_able' must be one of 'what_it_holds', 'in_full'"),
    ('all_slain = "events"', "rules.all_slain' must be one of 'areas', 'and_events'"),
    ('token_on = "self"', "rules.token_on' must be one of 'any', 'other'"),
])
def test_a_bad_option_value_is_one_line_naming_file_field_and_values_exit_2(tmp_path, line, needle):
    from click.testing import CliRunner

    from simkit.cli import cli

    shutil.copy(K.default_cards_path(), tmp_path / "cards.toml")
    sc = tmp_path / "s.toml"
    sc.write_text((SCEN / "monster_events.toml").read_text().replace("monster_events = true",
                                                                      f"monster_events = true\n{line}"))
    r = CliRunner().invoke(cli, ["run", str(sc), "--games", "10", "--jobs", "1", "--out", str(tmp_path / "o")])
    assert r.exit_code == 2
    lines = [x for x in r.stderr.splitlines() if x.strip()]
    assert len(lines) == 1 and needle in lines[0] and "s.toml" in lines[0], lines


def test_an_event_option_without_the_variant_is_refused(tmp_path):
    from simkit.core import loader

    shutil.copy(K.default_cards_path(), tmp_path / "cards.toml")
    sc = tmp_path / "s.toml"
    sc.write_text((SCEN / "monster_events.toml").read_text().replace("monster_events = true",
                                                                      'monster_events = false\nall_slain = "and_events"'))
    with pytest.raises(InputError, match="rules.all_slain' needs rules.monster_events = true"):
        loader.load(sc)


# --- Several Events rolled at once; resampling with fewer than 10 Events -----------------------------------------

def test_with_the_bundled_events_the_order_of_several_events_changes_nothing():
    """"Several Events rolled at once" is carried out in card order (the text gives none). For every pair of bundled
    Events whose instructions need no decision, both orders give the same position: no two of them move the same
    Resource in opposite directions (Plague Rats lose Gold, Bandit Raid lose Strength, Harvest Moon gain Magic;
    tokens on cards touch no player)."""
    free = [k for k, e in EVK.items()
            if all(eff[0] != K.EOP_PLACE or eff[2] != K.ON_CHOICE for eff in CARDS.events[e]["instruction"])]
    assert len(free) == 7
    for i, x in enumerate(free):
        for y in free[i + 1:]:
            s, rng, env = new(2, 13, preselect_event=x)
            ex, ey = EVK[x], EVK[y]
            s[S.EV_POS + ex], s[S.EV_SLOT + S.EXH_CIT + 0] = S.EXH_CIT + 0, ex + 1
            s[S.EV_POS + ey], s[S.EV_SLOT + S.EXH_CIT + 1] = S.EXH_CIT + 1, ey + 1
            set_res(s, 0, 1, 1, 1)
            set_res(s, 1, 0, 2, 0)
            got = []
            for first, second in ((ex, ey), (ey, ex)):
                t = s.copy()
                for e in (first, second):
                    t[S.EV_TODO], t[S.EV_EFF] = 1 << e, 0
                    assert EV.event_step(t, env) is False
                got.append(t)
            assert np.array_equal(got[0], got[1]), (x, y)


def test_resample_draws_only_events_of_the_cards_file_when_it_lists_fewer_than_ten(tmp_path):
    """A cards file of 5 Events (the fewest allowed), 2 players: the face-down Events a resample redraws are among
    Events 0..4 (before the fix the pool took every slot of the 10 marked "in the box", so Events 5..9, which do not
    exist, were drawn and their rows read past the end of the table)."""
    src = K.default_cards_path().read_text()
    head, tail = src.split("[[monster_events]]", 1)
    p = tmp_path / "cards.toml"
    p.write_text(head + "[[monster_events]]" + "[[monster_events]]".join(tail.split("[[monster_events]]")[:5]))
    cards = K.load_cards(p)
    assert len(cards.events) == 5
    drawn = set()
    for seed in range(40):
        s, rng, env = new(2, seed, cards=cards)
        srng = np.empty(4, np.uint64)
        seed_stream(srng, np.array([seed, 11], np.uint64), 0, 2)
        E.resample(s, rng, env, 0, srng)
        drawn |= {int(x) for x in s[S.EV_SEQ:S.EV_SEQ + 6] if x >= 0}
        assert E.invariants(s, env) == 0
    assert drawn and max(drawn) < 5, sorted(drawn)
