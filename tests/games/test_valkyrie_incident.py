"""The Valkyrie Incident: card data and its validation, scripted rules checks, and the invariant test over 10,000
random-policy games per ruleset. (The generic decision-interface tests run on both modes automatically.)"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from numba import njit

from simkit.core.policies import HEURISTIC, RANDOM
from simkit.core.rng import seed_stream
from simkit.errors import InputError
from simkit.games.valkyrie_incident import cards as K
from simkit.games.valkyrie_incident import engine as E
from simkit.games.valkyrie_incident.simulation import rules_vector

CARDS = K.load_cards()
DATA = CARDS.arrays()
CARDS_FILE = K.default_cards_path()
PARAMS = np.array([v[1] for v in sorted(E.PARAMS.values())], np.float64)


def env_for(ruleset="standard", emb=(-1, -1), **options):
    r = rules_vector(ruleset, **options)
    r[E.R_EMB0], r[E.R_EMB1] = emb
    return (DATA[0], DATA[1], DATA[2], r)


def new(seed, env):
    s = np.zeros(E.STATE_SIZE, np.int32)
    rng = np.empty(4, np.uint64)
    seed_stream(rng, np.array([seed, 3], np.uint64), 0, 0)
    E.new_game(s, rng, env)
    return s, rng


def legal(s, env):
    buf = np.empty(E.MAX_ACTIONS, np.int64)
    n = E.legal_actions(s, env, buf)
    return [int(x) for x in buf[:n]]


def advance(s, rng, env, until, policy=HEURISTIC, seed=0, limit=5000):
    """Play the heuristic (or random) policy until ``until(s)`` holds; asserts it does before the end."""
    prng = np.empty(4, np.uint64)
    seed_stream(prng, np.array([seed, 9], np.uint64), 0, 1)
    buf = np.empty(E.MAX_ACTIONS, np.int64)
    for _ in range(limit):
        if until(s):
            return
        assert not E.is_over(s), "the game ended first"
        n = E.legal_actions(s, env, buf)
        E.apply_action(s, rng, env, E.policy(policy, s, env, buf, n, PARAMS, prng))
        assert E.invariants(s, env) == 0
    raise AssertionError("never reached")


def zone(s, base, cnt, p=0, size=E.NC):
    return [int(x) for x in s[base + p * size: base + p * size + s[cnt + p]]]


ZONES = [(E.IDECK, E.N_IDECK, None), (E.WRECK, E.N_WRECK, None)] + [
    (b, c, p) for p in range(2) for b, c in ((E.DECK, E.N_DECK), (E.HAND, E.N_HAND), (E.PILE, E.N_PILE),
                                              (E.VICT, E.N_VICT), (E.PLAYED, E.N_PLAYED))]


def take(s, c):
    """Remove card ``c`` from whichever list holds it (tests build positions by moving cards)."""
    for base, cnt, p in ZONES:
        b = base + (p or 0) * E.NC
        n = s[cnt + (p or 0)]
        for i in range(n):
            if s[b + i] == c:
                if base == E.PLAYED:
                    E._unplay(s, p, i)
                else:
                    s[b + i:b + n - 1] = s[b + i + 1:b + n].copy()
                    s[b + n - 1] = -1
                    s[cnt + (p or 0)] -= 1
                return
    for i in range(E.N_BARR):
        if s[E.BARR + i] == c:
            s[E.BARR + i] = -1
            return
    for k in range(E.MAX_CONF):
        if s[E.CONF + k] == c:
            s[E.CONF + k] = -1
            return
    raise AssertionError(f"card {c} not found")


def put(s, base, cnt, p, c):
    s[base + p * E.NC + s[cnt + p]] = c
    s[cnt + p] += 1


def play(s, p, c, k):
    take(s, c)
    s[E.PLAYED + p * E.NC + s[E.N_PLAYED + p]] = c
    s[E.PLAYK + p * E.NC + s[E.N_PLAYED + p]] = k
    s[E.PLAYSTR + p * E.NC + s[E.N_PLAYED + p]] = E.card_strength(s, env_for(emb=(s[E.EMB], s[E.EMB + 1])), c, p)
    s[E.N_PLAYED + p] += 1


def find(type_, clan=None, strength=None, exclude=()):
    for i, c in enumerate(CARDS.cards):
        if c.type == type_ and (clan is None or c.clan == clan) and (strength is None or c.strength == strength) \
                and i not in exclude:
            return i
    raise AssertionError("no such card")


# --- card data ------------------------------------------------------------------------------------------------

def test_bundled_cards_keep_every_printed_fact():
    assert "STAND-IN" in CARDS.notice
    types = [c.type for c in CARDS.cards]
    assert [types.count(t) for t in range(4)] == [30, 25, 20, 15]
    assert len({c.key for c in CARDS.cards}) == 90 and len(CARDS.emblems) == 5 and len(CARDS.locations) == 5
    fire = [c for c in CARDS.cards if c.name == "Firestorm"]
    assert len(fire) == 1 and fire[0].type == K.ASSAULT and fire[0].incident == K.WAR
    for clan in range(5):
        assert sum(1 for c in CARDS.cards if c.clan == clan and c.type in (K.VALKYRIE, K.COGDRIVE)) == 10
    assert sorted(e.clan for e in CARDS.emblems) == list(range(5))


def _edited(tmp_path: Path, old: str, new: str, count: int = 1) -> Path:
    text = CARDS_FILE.read_text()
    assert old in text
    p = tmp_path / "cards.toml"
    p.write_text(text.replace(old, new, count))
    return p


def test_unknown_op_is_one_line_naming_file_card_and_allowed_ops(tmp_path):
    p = _edited(tmp_path, 'effects = [{op = "draw", n = 1}]', 'effects = [{op = "teleport", n = 1}]')
    with pytest.raises(InputError) as exc:
        K.load_cards(p)
    msg = str(exc.value)
    assert "\n" not in msg and str(p) in msg and "'Skyla'" in msg and "teleport" in msg
    assert "allowed ops: " + ", ".join(K.DRAFT_OPS) in msg


def test_every_bad_card_is_reported_at_once_by_key(tmp_path):
    """Two wrong cards and an unknown field: three problems in one pass, each named by card key and field."""
    p = _edited(tmp_path, 'key = "skyla"\nname = "Skyla"\ntype = "valkyrie"\nclan = "raven"\nincident = "draft"\n'
                'cost = 1', 'key = "skyla"\nname = "Skyla"\ntype = "valkyrie"\nclan = "raven"\nincident = "draft"\n'
                'cost = -1\ncolour = "red"')
    text = p.read_text().replace('key = "morrigan"\nname = "Morrigan"\ntype = "valkyrie"\nclan = "raven"',
                                 'key = "morrigan"\nname = "Morrigan"\ntype = "valkyrie"\nclan = "crow"')
    p.write_text(text)
    with pytest.raises(InputError) as exc:
        K.load_cards(p)
    got = exc.value.messages
    assert len(got) == 3, got
    assert got[0].startswith(f"{p}: field 'cards.skyla.cost' must be at least 0 (got -1)")
    assert got[1].startswith(f"{p}: field 'cards.skyla.colour' is not a known field")
    assert got[2].startswith(f"{p}: field 'cards.morrigan.clan' must be one of") and "'crow'" in got[2]


def test_war_op_on_a_draft_card_is_rejected(tmp_path):
    p = _edited(tmp_path, 'effects = [{op = "draw", n = 1}]', 'effects = [{op = "strength", n = 1}]')
    with pytest.raises(InputError, match="unknown op 'strength'"):
        K.load_cards(p)


def test_firestorm_erratum_and_counts_are_checked(tmp_path):
    p = _edited(tmp_path, 'name = "Firestorm"\ntype = "assault"\nclan = "ember"\nincident = "war"',
                'name = "Firestorm"\ntype = "assault"\nclan = "ember"\nincident = "conflict"')
    with pytest.raises(InputError, match="erratum"):
        K.load_cards(p)
    p = _edited(tmp_path, 'type = "action"', 'type = "valkyrie"')
    with pytest.raises(InputError, match="exactly 30 valkyrie"):
        K.load_cards(p)


def test_scenario_rule_option_errors_name_field_and_values(tmp_path):
    from simkit.core import loader

    src = Path(K.default_cards_path()).parent / "standard.toml"
    text = src.read_text().replace('war_end = "at_once"', 'war_end = "sometimes"')
    p = Path(K.default_cards_path()).parent / "_tmp_bad.toml"
    p.write_text(text)
    try:
        with pytest.raises(InputError) as exc:
            loader.load(p)
        assert "rules.war_end" in str(exc.value) and "'at_once', 'act_then_end'" in str(exc.value)
    finally:
        p.unlink()


# --- set-up --------------------------------------------------------------------------------------------------

def test_draft_setup_fifteen_card_decks_sixty_card_incident_deck_and_emblems_omega_first():
    env = env_for()
    s, rng = new(1, env)
    assert s[E.PHASE] == E.P_PICK and s[E.TO_MOVE] == 0
    assert s[E.N_DHAND] == 5 and s[E.N_DHAND + 1] == 5 and s[E.N_IDECK] == 80
    picks = 0
    seen_by_alpha = set(zone(s, E.DHAND, E.N_DHAND, 0, E.DRAFT_HAND))
    while s[E.PHASE] == E.P_PICK:
        p = s[E.TO_MOVE]
        hand = zone(s, E.DHAND, E.N_DHAND, p, E.DRAFT_HAND)
        if p == 0:
            seen_by_alpha |= set(hand)
        a = legal(s, env)
        assert sorted(a) == sorted(E.A_CARD + c for c in hand) and len(a) >= 2
        E.apply_action(s, rng, env, a[0])
        picks += 1
        assert E.invariants(s, env) == 0
    # 3 rounds x 2 players x 4 chosen picks (the 5th card of each hand is taken without a choice)
    assert picks == 24
    assert s[E.N_DECK] == 15 and s[E.N_DECK + 1] == 15
    # "The remaining 60 Incident cards ... forming the Incident Deck. The top card ... forming the Wreckage."
    assert s[E.N_IDECK] == 59 and s[E.N_WRECK] == 1
    assert len(seen_by_alpha) == 27  # the hands pass: each round Alpha sees his 5 and the 4 Omega passes him
    # "Each player, beginning with the Omega Player, chooses 1 Emblem card"
    assert s[E.PHASE] == E.P_EMBLEM and s[E.TO_MOVE] == 1
    E.apply_action(s, rng, env, E.A_EMBLEM + 2)
    assert s[E.TO_MOVE] == 0 and E.A_EMBLEM + 2 not in legal(s, env)
    E.apply_action(s, rng, env, E.A_EMBLEM + 4)
    assert (s[E.EMB], s[E.EMB + 1]) == (4, 2)
    # "the Alpha player as the Start Player for the first Engagement"
    assert s[E.PHASE] == E.P_DRAWCHOICE and s[E.TO_MOVE] == 0 and s[E.START] == 0 and s[E.ENG] == 0


# --- Draft Phase ---------------------------------------------------------------------------------------------

def _at_first_draft_turn(emb=(0, 1)):
    env = env_for(emb=emb)
    s, rng = new(5, env)
    advance(s, rng, env, lambda s: s[E.PHASE] == E.P_DRAWCHOICE)
    return s, rng, env


def test_morale_check_reveals_three_and_takes_a_victory_card():
    s, rng, env = _at_first_draft_turn(emb=(0, 1))  # Alpha: Raven Emblem, Morale "3 Valkyrie cards"
    valk = [i for i, c in enumerate(CARDS.cards) if c.type == K.VALKYRIE][:3]
    other = [i for i, c in enumerate(CARDS.cards) if c.type == K.ASSAULT][:2]
    for c in other + valk:  # the top five of Alpha's Deck: 3 Valkyries
        take(s, c)
        put(s, E.DECK, E.N_DECK, 0, c)
    top = int(s[E.IDECK + s[E.N_IDECK] - 1])
    E.apply_action(s, rng, env, E.A_DRAW5)
    assert E.morale_count(s, env, 0) == 3
    assert s[E.PHASE] == E.P_MORALE and legal(s, env) == [E.A_YES, E.A_PASS]
    E.apply_action(s, rng, env, E.A_YES)
    assert zone(s, E.VICT, E.N_VICT, 0) == [top]
    assert s[E.PHASE] == E.P_RECRUIT and sum(s[E.BARR:E.BARR + 5] >= 0) == 5
    assert E.invariants(s, env) == 0


def test_no_morale_check_without_three_matching_cards():
    s, rng, env = _at_first_draft_turn(emb=(0, 1))
    other = [i for i, c in enumerate(CARDS.cards) if c.type in (K.ASSAULT, K.COGDRIVE)][:5]
    for c in other:
        take(s, c)
        put(s, E.DECK, E.N_DECK, 0, c)
    E.apply_action(s, rng, env, E.A_DRAW5)
    assert s[E.PHASE] == E.P_RECRUIT and s[E.N_VICT] == 0


def test_drafting_discards_the_cost_and_shuffles_the_card_into_the_deck():
    s, rng, env = _at_first_draft_turn()
    E.apply_action(s, rng, env, E.A_DRAW5)
    if s[E.PHASE] == E.P_MORALE:
        E.apply_action(s, rng, env, E.A_PASS)
    slot = next(i for i in range(5) if DATA[0][s[E.BARR + i], K.C_COST] >= 1)
    c = int(s[E.BARR + slot])
    cost = int(DATA[0][c, K.C_COST])
    deck, hand = s[E.N_DECK], s[E.N_HAND]
    E.apply_action(s, rng, env, E.A_SLOT + slot)
    for _ in range(cost):
        assert s[E.PHASE] == E.P_PAY
        E.apply_action(s, rng, env, legal(s, env)[0])
    assert s[E.PHASE] == E.P_RECRUIT and s[E.BARR + slot] == -1  # "ARE NOT automatically replaced"
    assert c in zone(s, E.DECK, E.N_DECK) and s[E.N_DECK] == deck + 1 and s[E.N_HAND] == hand - cost
    assert s[E.N_PILE] == cost


def test_second_player_may_wreck_before_filling():
    s, rng, env = _at_first_draft_turn()
    E.apply_action(s, rng, env, E.A_DRAW5)
    if s[E.PHASE] == E.P_MORALE:
        E.apply_action(s, rng, env, E.A_PASS)
    E.apply_action(s, rng, env, E.A_PASS)  # Alpha recruits nothing
    assert s[E.TO_MOVE] == 1 and s[E.PHASE] == E.P_DRAWCHOICE
    E.apply_action(s, rng, env, E.A_DRAW5)
    if s[E.PHASE] == E.P_MORALE:
        E.apply_action(s, rng, env, E.A_PASS)
    assert s[E.PHASE] == E.P_WRECK
    old = int(s[E.BARR])
    wreck_n = s[E.N_WRECK]
    E.apply_action(s, rng, env, E.A_SLOT)
    assert s[E.N_WRECK] == wreck_n + 1 and s[E.WRECK + wreck_n] == old
    E.apply_action(s, rng, env, E.A_PASS)
    assert s[E.PHASE] == E.P_RECRUIT and sum(s[E.BARR:E.BARR + 5] >= 0) == 5


# --- War Phase -----------------------------------------------------------------------------------------------

def _at_first_war(emb=(0, 1), seed=5, **options):
    env = env_for(emb=emb, **options)
    s, rng = new(seed, env)
    advance(s, rng, env, lambda s: s[E.PHASE] == E.P_WAR)
    return s, rng, env


def test_war_setup_four_conflicts_seven_cards_and_the_start_players_single_first_action():
    env = env_for(emb=(0, 1))
    s, rng = new(5, env)
    advance(s, rng, env, lambda s: s[E.PHASE] == E.P_LOCATION)
    assert s[E.TO_MOVE] == s[E.START] == 0 and s[E.NCONF] == 4
    assert all(s[E.BARR + i] == -1 for i in range(5))  # the Barracks went to the Wreckage
    assert s[E.N_HAND] == min(7, s[E.N_HAND] + s[E.N_DECK]) and s[E.N_HAND + 1] <= 7
    E.apply_action(s, rng, env, E.A_LOC + 2)
    assert s[E.CUR_LOC] == 2 and s[E.LOC_STATE + 2] == 1
    assert s[E.PHASE] == E.P_WAR and s[E.TO_MOVE] == 0 and s[E.ACTS] == 1
    a = next(x for x in legal(s, env) if E.A_PLAY <= x < E.A_ABIL)
    E.apply_action(s, rng, env, a)
    assert s[E.TO_MOVE] == 1 and s[E.ACTS] == 2  # then 2 actions a turn
    a = next(x for x in legal(s, env) if E.A_PLAY <= x < E.A_ABIL)
    E.apply_action(s, rng, env, a)
    assert s[E.TO_MOVE] == 1
    assert not any(E.A_PLAY <= x < E.A_ABIL for x in legal(s, env))  # not the same action twice a turn


def _clear_conflicts(s):
    for p in range(2):
        while s[E.N_PLAYED + p] > 0:
            c = E._unplay(s, p, 0)
            put(s, E.PILE, E.N_PILE, p, c)
        s[E.TOK + p * E.MAX_CONF:E.TOK + p * E.MAX_CONF + E.MAX_CONF] = 0


def _neutral_war(emb=(0, 1)):
    """The first War with no Location in play and the Conflicts cleared; Emblems Raven (Alpha) and Iron (Omega),
    so cards of the Ember, Tide and Thorn Clans get no bonus."""
    s, rng, env = _at_first_war(emb=emb)
    _clear_conflicts(s)
    if s[E.CUR_LOC] >= 0:
        s[E.LOC_STATE + s[E.CUR_LOC]] = 0
        s[E.CUR_LOC] = -1
    return s, rng, env


EMBER, TIDE, THORN = 2, 3, 4


def test_tied_conflict_without_assault_or_action_cards_goes_to_the_wreckage():
    s, rng, env = _neutral_war()
    v3 = find(K.VALKYRIE, EMBER, 3)
    v3b = find(K.VALKYRIE, TIDE, 3)
    play(s, 0, v3, 0)
    play(s, 1, v3b, 0)
    assert E.side_strength(s, env, 0, 0, False) == E.side_strength(s, env, 1, 0, False) == 3
    conflict = int(s[E.CONF])
    nw = s[E.N_WRECK]
    E._resolve_war(s, rng, env)
    assert s[E.WRECK + nw] == conflict and conflict not in zone(s, E.VICT, E.N_VICT, 0) + zone(s, E.VICT, E.N_VICT, 1)
    assert v3 in zone(s, E.PILE, E.N_PILE, 0) and v3b in zone(s, E.PILE, E.N_PILE, 1)
    assert E.invariants(s, env) == 0


def test_tied_conflict_with_action_and_assault_cards_is_compared_again_without_them():
    s, rng, env = _neutral_war()
    # Alpha: Valkyrie 3 + Action 1 = 4; Omega: Valkyrie 2 + Assault 2 = 4. Without Action/Assault: 3 against 2.
    a_v = find(K.VALKYRIE, EMBER, 3)
    a_a = find(K.ACTION, THORN, 1)
    o_v = find(K.VALKYRIE, THORN, 2)
    o_s = find(K.ASSAULT, THORN, 2)
    for c, p in ((a_v, 0), (a_a, 0), (o_v, 1), (o_s, 1)):
        play(s, p, c, 1)
    assert E.side_strength(s, env, 0, 1, False) == E.side_strength(s, env, 1, 1, False) == 4
    assert (E.side_strength(s, env, 0, 1, True), E.side_strength(s, env, 1, 1, True)) == (3, 2)
    conflict = int(s[E.CONF + 1])
    E._resolve_war(s, rng, env)
    assert conflict in zone(s, E.VICT, E.N_VICT, 0)
    assert E.invariants(s, env) == 0


def test_winning_the_location_and_emblem_and_location_strength():
    s, rng, env = _neutral_war()
    # the Location "Skyport" (Valkyrie cards +1) and the Raven Emblem's +1 for Alpha's Raven cards
    E._set_location(s, 0)
    raven_v = find(K.VALKYRIE, 0, 2)
    assert E.card_strength(s, env, raven_v, 0) == 2 + 1 + 1 and E.card_strength(s, env, raven_v, 1) == 2 + 1
    # Alpha wins Conflicts 0 and 1, Omega Conflict 2, Conflict 3 is empty (tied 0-0: wrecked)
    play(s, 0, find(K.COGDRIVE, EMBER), 0)
    play(s, 0, find(K.COGDRIVE, TIDE), 1)
    play(s, 1, find(K.COGDRIVE, THORN), 2)
    won = s[E.N_VICT], s[E.N_VICT + 1]
    E._resolve_war(s, rng, env)
    assert s[E.N_VICT] == won[0] + 2 and s[E.N_VICT + 1] == won[1] + 1
    # "If a player has won ... more current Conflict cards than the opposing player, he also wins the Location"
    assert s[E.LOC_STATE] == 2 and s[E.LOCWON] == 1 and s[E.LOCWON + 1] == 0
    # the next Engagement: Omega is the Start Player; hands went to the Piles
    assert s[E.ENG] == 1 and s[E.START] == 1 and s[E.N_HAND] == 0 and s[E.N_HAND + 1] == 0
    assert E.invariants(s, env) == 0


def test_location_not_won_on_equal_conflicts_is_returned_face_down():
    s, rng, env = _neutral_war()
    E._set_location(s, 3)
    play(s, 0, find(K.COGDRIVE, EMBER), 0)
    play(s, 1, find(K.COGDRIVE, THORN), 1)
    E._resolve_war(s, rng, env)
    assert s[E.LOC_STATE + 3] == 4 and s[E.LOCWON] == 0 and s[E.LOCWON + 1] == 0
    assert E.A_LOC + 3 not in legal(s, env)


def test_war_ends_when_a_player_cannot_take_two_different_actions():
    s, rng, env = _at_first_war()
    # Omega's turn comes with one card in hand and the Emblem used: he cannot take 2 different actions
    a = next(x for x in legal(s, env) if E.A_PLAY <= x < E.A_ABIL)
    while s[E.N_HAND + 1] > 1:
        c = int(s[E.HAND + E.NC])
        take(s, c)
        put(s, E.PILE, E.N_PILE, 1, c)
    s[E.EMB_USED + 1] = 1
    c = int(s[E.HAND + E.NC])
    take(s, c)
    put(s, E.PILE, E.N_PILE, 1, c)
    cog = next(c for c in zone(s, E.IDECK, E.N_IDECK) if DATA[0][c, K.C_TYPE] == K.COGDRIVE
               and DATA[0][c, K.C_CODE] != K.OP_DRAW)  # a Cogdrive whose ability draws would allow 2 actions
    take(s, cog)
    put(s, E.HAND, E.N_HAND, 1, cog)
    assert E.invariants(s, env) == 0 and not E.can_take_two(s, env, 1)
    hands = s[E.N_HAND], s[E.N_HAND + 1]
    decks = s[E.N_DECK], s[E.N_DECK + 1]
    E.apply_action(s, rng, env, a)
    # "Each player draws 2 cards from his deck, and each player receives 1 additional turn."
    assert s[E.ENDING] == 2 and s[E.TO_MOVE] == 0
    assert s[E.N_HAND] == hands[0] - 1 + min(2, decks[0]) and s[E.N_HAND + 1] == 1 + min(2, decks[1])


def _set_hand(s, p, hand):
    """Seat ``p``'s hand becomes exactly ``hand`` (the old hand goes to his Pile; the cards come from anywhere)."""
    while s[E.N_HAND + p] > 0:
        c = int(s[E.HAND + p * E.NC])
        take(s, c)
        put(s, E.PILE, E.N_PILE, p, c)
    for c in hand:
        take(s, c)
        put(s, E.HAND, E.N_HAND, p, c)


TIDE_EMBLEM = 3  # its War ability: "Draw 2 cards."


def test_an_ability_that_draws_makes_two_different_actions_possible():
    """"In the event that the player cannot perform 2 different actions during his War turn": a Cogdrive that
    draws, or an Emblem that draws, followed by playing a drawn card, are 2 different actions."""
    s, rng, env = _at_first_war(emb=(0, TIDE_EMBLEM))
    assert s[E.N_DECK + 1] > 0
    draw_cog = next(i for i, c in enumerate(CARDS.cards) if c.type == K.COGDRIVE and c.effects[0][0] == K.OP_DRAW)
    plain_cog = find(K.COGDRIVE, THORN, strength=4)  # Seed Catapult: "move", draws nothing
    _set_hand(s, 1, [draw_cog])
    s[E.EMB_USED + 1] = 1
    assert E.invariants(s, env) == 0 and E.can_take_two(s, env, 1)  # the Cogdrive draws 2, then play one
    _set_hand(s, 1, [plain_cog])
    assert not E.can_take_two(s, env, 1)
    _set_hand(s, 1, [])
    s[E.EMB_USED + 1] = 0
    assert E.can_take_two(s, env, 1)  # the Tide Emblem draws 2, then play one
    decks = s[E.N_DECK + 1]
    s[E.N_DECK + 1] = 0
    assert not E.can_take_two(s, env, 1)  # nothing to draw
    s[E.N_DECK + 1] = decks
    # Omega's turn begins with the Tide Emblem unused and an empty hand: the War goes on, his only action is the
    # Emblem; then he must play a drawn card
    a = next(x for x in legal(s, env) if E.A_PLAY <= x < E.A_ABIL)
    E.apply_action(s, rng, env, a)
    assert s[E.TO_MOVE] == 1 and s[E.ENDING] == 0 and s[E.PHASE] == E.P_WAR
    assert legal(s, env) == [E.A_EMBL]
    E.apply_action(s, rng, env, E.A_EMBL)
    assert s[E.TO_MOVE] == 1 and s[E.N_HAND + 1] == 2 and s[E.ACTS] == 1
    assert any(E.A_PLAY <= x < E.A_ABIL for x in legal(s, env)) and E.A_EMBL not in legal(s, env)


def test_must_perform_two_actions_if_possible():
    """"A player must perform 2 actions during his War turn, if possible.": with one Valkyrie card, the Emblem
    used and cards in his Deck he must discard it to draw first (playing it first would leave no second action);
    with two Action/Valkyrie cards and an empty Deck he may not discard both."""
    s, rng, env = _at_first_war(emb=(0, 1))
    a = next(x for x in legal(s, env) if E.A_PLAY <= x < E.A_ABIL)
    E.apply_action(s, rng, env, a)  # Alpha's single first action; Omega to move with 2 actions
    assert s[E.TO_MOVE] == 1 and s[E.ACTS] == 2
    v = find(K.VALKYRIE, THORN)
    _set_hand(s, 1, [v])
    s[E.EMB_USED + 1] = 1
    assert s[E.N_DECK + 1] > 0
    assert legal(s, env) == [E.A_WDISC + v]
    E.apply_action(s, rng, env, E.A_WDISC + v)  # the last card: the discard ends at once, he draws 1
    assert s[E.N_HAND + 1] == 1 and s[E.PHASE] == E.P_WAR and s[E.TO_MOVE] == 1
    # two Valkyrie cards, an empty Deck, the Emblem used
    v2 = find(K.VALKYRIE, THORN, exclude=(v,))
    _set_hand(s, 1, [v, v2])
    s[E.KINDS], s[E.ACTS] = 0, 2
    while s[E.N_DECK + 1] > 0:
        put(s, E.PILE, E.N_PILE, 1, E._pop(s, E.DECK + E.NC, E.N_DECK + 1))
    assert E.invariants(s, env) == 0
    E.apply_action(s, rng, env, E.A_WDISC + v)
    # discarding v2 too would leave no second action: the discard ends with one card; he then plays v2
    assert s[E.PHASE] == E.P_WAR and s[E.N_HAND + 1] == 1 and s[E.TO_MOVE] == 1
    assert all(E.A_PLAY <= x < E.A_ABIL for x in legal(s, env))


def test_final_war_omega_starts_pile_shuffled_in_ten_cards_five_conflicts():
    env = env_for(emb=(2, 3))
    s, rng = new(11, env)
    advance(s, rng, env, lambda s: s[E.ENG] == 3)
    assert s[E.START] == 1 and s[E.NCONF] == 5 and s[E.TO_MOVE] == 1
    for p in range(2):
        assert s[E.N_PILE + p] == 0 and s[E.N_HAND + p] == min(10, s[E.N_HAND + p] + s[E.N_DECK + p])
    assert sum(1 for loc in range(5) if s[E.LOC_STATE + loc] in (2, 3, 4)) == 3
    advance(s, rng, env, lambda s: E.is_over(s))
    assert s[E.ENG] == 4 and sum(1 for loc in range(5) if s[E.LOC_STATE + loc] in (2, 3, 4)) == 4


# --- scoring -------------------------------------------------------------------------------------------------

def _scoring_state(env):
    """A finished-looking state: Alpha (Raven Emblem) owns 3 Raven and 2 other cards in Deck/Pile/hand, 3 Victory
    Cards, 1 Location; Omega (Iron) owns 2 Iron cards and 1 other, 1 Victory Card, 2 Locations."""
    s = np.zeros(E.STATE_SIZE, np.int32)
    s[:] = -1
    s[:E.HEADER] = 0
    s[E.EMB], s[E.EMB + 1] = 0, 1
    s[E.CUR_LOC] = -1
    s[E.PEND] = -1
    raven = [i for i, c in enumerate(CARDS.cards) if c.clan == 0][:3]
    iron = [i for i, c in enumerate(CARDS.cards) if c.clan == 1][:2]
    other = [i for i, c in enumerate(CARDS.cards) if c.clan == 4][:7]
    put(s, E.DECK, E.N_DECK, 0, raven[0])
    put(s, E.PILE, E.N_PILE, 0, raven[1])
    put(s, E.HAND, E.N_HAND, 0, raven[2])
    put(s, E.DECK, E.N_DECK, 0, other[0])
    put(s, E.PILE, E.N_PILE, 0, other[1])
    put(s, E.DECK, E.N_DECK, 1, iron[0])
    put(s, E.DECK, E.N_DECK, 1, iron[1])
    put(s, E.PILE, E.N_PILE, 1, other[2])
    for c in other[3:6]:
        put(s, E.VICT, E.N_VICT, 0, c)
    put(s, E.VICT, E.N_VICT, 1, other[6])
    used = set(raven + iron + other)
    for c in range(90):
        if c not in used:
            s[E.WRECK + s[E.N_WRECK]] = c
            s[E.N_WRECK] += 1
    s[E.LOC_STATE:E.LOC_STATE + 5] = [2, 3, 3, 4, 0]
    s[E.LOCWON], s[E.LOCWON + 1] = 1, 2
    assert E.invariants(s, env) == 0
    return s


def test_scoring_with_every_bonus():
    env = env_for()
    s = _scoring_state(env)
    out = np.zeros(2, np.int64)
    E.final_scores(s, env, out)
    # Alpha: 3 Raven x 2 + 2 others x 1 = 8; 3 Victory Cards x 2 = 6; 1 Location; most Victory Cards +4 -> 19
    # Omega: 2 Iron x 2 + 1 = 5; 1 x 2 = 2; 2 Locations -> 9
    assert list(out) == [19, 9]
    E._game_over(s, env)
    assert (s[E.SCORE], s[E.SCORE + 1], s[E.WINNER]) == (19, 9, 0) and E.is_over(s)
    # reading "draw_pile": only the Deck scores (Alpha 2 + 1, Omega 2 + 2)
    E.final_scores(s, env_for(deck_scoring="draw_pile"), out)
    assert list(out) == [3 + 6 + 1 + 4, 4 + 2 + 2]


def test_score_tie_goes_to_most_victory_cards_and_equal_victory_bonus():
    env = env_for()
    s = _scoring_state(env)
    # move one Alpha Victory Card to Omega: Alpha 3 Raven x2 + 2 = 8, 2 VC = 4, 1 Loc -> 13 (no +4: 2 vs 2)
    c = int(s[E.VICT + 2])
    take(s, c)
    put(s, E.VICT, E.N_VICT, 1, c)
    out = np.zeros(2, np.int64)
    E.final_scores(s, env, out)
    assert list(out) == [13, 5 + 4 + 2]
    E.final_scores(s, env_for(victory_bonus_tie="both"), out)
    assert list(out) == [17, 15]
    # "In the event of a tie, the player with the most Victory Cards wins the game."
    s2 = _scoring_state(env)
    s2[E.LOCWON + 1] = 12  # Omega 9 + 10 = 19 = Alpha's 19; Alpha has more Victory Cards
    s2[E.LOC_STATE:E.LOC_STATE + 5] = [2, 3, 3, 4, 0]
    E._game_over(s2, env)
    assert s2[E.SCORE] == s2[E.SCORE + 1] == 19 and s2[E.WINNER] == 0


# --- Blitz ---------------------------------------------------------------------------------------------------

def test_blitz_game_to_its_end():
    env = env_for("blitz")
    s, rng = new(3, env)
    assert s[E.PHASE] == E.P_EMBLEM and s[E.TO_MOVE] == 1  # "The Omega Player chooses an Emblem card"
    E.apply_action(s, rng, env, E.A_EMBLEM + 3)
    E.apply_action(s, rng, env, E.A_EMBLEM + 0)
    # each Deck: the 10 Valkyrie and Cogdrive cards of his Clan; the Incident Deck 70 - 1 (the Wreckage)
    for p, clan in ((0, 0), (1, 3)):
        deck = zone(s, E.DECK, E.N_DECK, p)
        assert len(deck) == 10 and all(CARDS.cards[c].clan == clan and CARDS.cards[c].type in (0, 2) for c in deck)
    assert s[E.N_IDECK] == 69 and s[E.N_WRECK] == 1
    # the Initial Draft: Alpha drafts first
    assert s[E.INIT] == 1 and s[E.PHASE] == E.P_DRAWCHOICE and s[E.TO_MOVE] == 0
    advance(s, rng, env, lambda s: s[E.PHASE] == E.P_LOCATION or s[E.PHASE] == E.P_WAR)
    assert s[E.INIT] == 0 and s[E.ENG] == 0 and s[E.NCONF] == 3
    wars = 0
    buf = np.empty(E.MAX_ACTIONS, np.int64)
    prng = np.empty(4, np.uint64)
    seed_stream(prng, np.array([1, 1], np.uint64), 0, 1)
    last_eng = 0
    while not E.is_over(s):
        if s[E.PHASE] == E.P_WAR:
            assert s[E.ACTS] == 1 and s[E.NCONF] == 3
        n = E.legal_actions(s, env, buf)
        E.apply_action(s, rng, env, E.policy(HEURISTIC, s, env, buf, n, PARAMS, prng))
        assert E.invariants(s, env) == 0
        if s[E.ENG] != last_eng:
            wars += 1
            last_eng = s[E.ENG]
    assert wars == 3 and s[E.ENG] == 3  # no Final War
    assert sum(1 for loc in range(5) if s[E.LOC_STATE + loc] == 0) == 2
    out = np.zeros(2, np.int64)
    E.final_scores(s, env, out)
    assert (s[E.SCORE], s[E.SCORE + 1]) == tuple(out)


@pytest.mark.parametrize("option", ["keep", "pile"])
def test_blitz_hand_after_the_initial_draft(option):
    """Reading ``blitz_initial_hand``: the hand left after the Initial Draft stays ("keep": only the end of an
    Engagement moves hands to the Piles) or goes to the Pile ("pile")."""
    env = env_for("blitz", emb=(0, 1), blitz_initial_hand=option)
    s, rng = new(3, env)
    advance(s, rng, env, lambda s: s[E.INIT] == 1 and s[E.DSTEP] == 1 and s[E.PHASE] == E.P_RECRUIT)
    hands = [zone(s, E.HAND, E.N_HAND, p) for p in range(2)]
    piles = [zone(s, E.PILE, E.N_PILE, p) for p in range(2)]
    assert hands[0] or hands[1]
    E.apply_action(s, rng, env, E.A_PASS)  # Omega ends the Initial Draft: the first Engagement begins
    assert s[E.INIT] == 0 and s[E.ENG] == 0 and s[E.PHASE] == E.P_DRAWCHOICE and s[E.TO_MOVE] == 0
    for p in range(2):
        if option == "keep":
            assert zone(s, E.HAND, E.N_HAND, p) == hands[p] and zone(s, E.PILE, E.N_PILE, p) == piles[p]
        else:
            assert s[E.N_HAND + p] == 0 and sorted(zone(s, E.PILE, E.N_PILE, p)) == sorted(piles[p] + hands[p])
    assert E.invariants(s, env) == 0


def test_blitz_location_needs_two_conflicts():
    env = env_for("blitz", emb=(0, 1))
    s, rng = new(4, env)
    advance(s, rng, env, lambda s: s[E.PHASE] == E.P_WAR)
    _clear_conflicts(s)
    loc = s[E.CUR_LOC]
    play(s, 0, find(K.COGDRIVE, EMBER), 0)  # Alpha wins 1, the other 2 are tied at 0
    E._resolve_war(s, rng, env)
    assert s[E.LOC_STATE + loc] == 4 and s[E.LOCWON] == 0


def test_blitz_player_with_an_empty_hand_may_still_use_his_emblem():
    """Blitz: "At the end of a player's turn, if he has no cards remaining in his hand, the other player receives 1
    turn": a player whose hand is empty when his turn begins still takes his turn (his one action may be the
    Emblem's War Ability); the War ends only if his hand is still empty at its end."""
    env = env_for("blitz", emb=(0, TIDE_EMBLEM))
    s, rng = new(4, env)
    advance(s, rng, env, lambda s: s[E.PHASE] == E.P_WAR and s[E.TO_MOVE] == 0)
    _set_hand(s, 1, [])
    for _ in range(3):  # three cards of his Pile back to his Deck, to draw
        put(s, E.DECK, E.N_DECK, 1, E._pop(s, E.PILE + E.NC, E.N_PILE + 1))
    assert s[E.N_HAND] >= 2 and s[E.EMB_USED + 1] == 0 and s[E.N_DECK + 1] == 3
    a = next(x for x in legal(s, env) if E.A_PLAY <= x < E.A_ABIL)
    E.apply_action(s, rng, env, a)
    assert s[E.TO_MOVE] == 1 and s[E.PHASE] == E.P_WAR and s[E.ENDING] == 0
    assert legal(s, env) == [E.A_EMBL]
    E.apply_action(s, rng, env, E.A_EMBL)  # the Tide Emblem: draw 2; his hand is not empty at the turn's end
    assert s[E.TO_MOVE] == 0 and s[E.ENDING] == 0 and s[E.N_HAND + 1] == 2 and s[E.N_DECK + 1] == 1
    # with the Emblem used and the hand empty again, his turn passes and the War ends after Alpha's one turn
    _set_hand(s, 1, [])
    E.apply_action(s, rng, env, next(x for x in legal(s, env) if E.A_PLAY <= x < E.A_ABIL))
    assert s[E.TO_MOVE] == 0 and s[E.ENDING] == 1
    assert E.invariants(s, env) == 0


def test_a_war_without_conflicts_still_has_a_legal_action_at_every_decision():
    """Reading ``wreckage_conflicts = "none"``: with the Incident Deck empty a War has no Conflict, so no card can
    be played and no Conflict-targeted ability used; the other actions remain and the game goes on to its end."""
    env = env_for(emb=(0, 1), wreckage_conflicts="none")
    for seed in range(20):
        s, rng = new(seed, env)
        advance(s, rng, env, lambda s: s[E.PHASE] == E.P_RECRUIT and s[E.DSTEP] == 1)
        while s[E.N_IDECK] > 0:
            E.wreck(s, E._pop(s, E.IDECK, E.N_IDECK))
        E.apply_action(s, rng, env, E.A_PASS)
        assert s[E.NCONF] == 0
        buf = np.empty(E.MAX_ACTIONS, np.int64)
        prng = np.empty(4, np.uint64)
        seed_stream(prng, np.array([seed, 1], np.uint64), 0, 1)
        while not E.is_over(s):
            n = E.legal_actions(s, env, buf)
            assert n >= 1
            if s[E.PHASE] == E.P_WAR and s[E.NCONF] == 0:
                assert not any(E.A_PLAY <= x < E.A_ABIL for x in buf[:n])
            E.apply_action(s, rng, env, E.policy(RANDOM, s, env, buf, n, PARAMS, prng))
            assert E.invariants(s, env) == 0


# --- exact checks of degenerate positions (outcomes computed by hand) -------------------------------------------

def _no_location(s):
    if s[E.CUR_LOC] >= 0:
        s[E.LOC_STATE + s[E.CUR_LOC]] = 0
        s[E.CUR_LOC] = -1


@pytest.mark.parametrize("tie_tokens, winner", [("keep", 1), ("drop", 0)])
def test_tie_with_ability_strength_exact(tie_tokens, winner):
    """Alpha: Valkyrie 3 + Action 1 = 4; Omega: Valkyrie 2 + 2 Strength from an ability = 4: a tie. Without the
    Action card: Alpha 3; Omega 2 + 2 = 4 when ability Strength stays ("keep"), 2 when it goes ("drop")."""
    s, rng, env = _at_first_war(emb=(0, 1), tie_tokens=tie_tokens)
    _clear_conflicts(s)
    _no_location(s)
    play(s, 0, 12, 2)   # Ember Valkyrie, Strength 3 (no Emblem bonus: Alpha is Raven)
    play(s, 0, 50, 2)   # Thorn Action, Strength 1
    play(s, 1, 24, 2)   # Thorn Valkyrie, Strength 2 (Omega is Iron)
    s[E.TOK + 1 * E.MAX_CONF + 2] = 2
    assert E.side_strength(s, env, 0, 2, False) == E.side_strength(s, env, 1, 2, False) == 4
    conflict = int(s[E.CONF + 2])
    vict = s[E.N_VICT], s[E.N_VICT + 1]
    E._resolve_war(s, rng, env)
    assert conflict in zone(s, E.VICT, E.N_VICT, winner)
    assert s[E.N_VICT + winner] == vict[winner] + 1 and s[E.N_VICT + 1 - winner] == vict[1 - winner]
    # every card of the tied Conflict, the Action card too, goes to its owner's Pile
    assert {12, 50} <= set(zone(s, E.PILE, E.N_PILE, 0)) and 24 in zone(s, E.PILE, E.N_PILE, 1)
    assert E.invariants(s, env) == 0


def test_blitz_war_ends_one_turn_after_a_hand_empties_exact():
    """Blitz: the mover plays his last card (Strength 4) to Conflict 0; the other player receives exactly 1 turn
    (he plays Strength 2 there); the War ends: Conflict 0 to the first, the two empty Conflicts (0 = 0) to the
    Wreckage, the other's last card to his Pile, and the next Engagement's Draft Phase begins with him."""
    env = env_for("blitz", emb=(0, 1))
    s, rng = new(4, env)
    advance(s, rng, env, lambda s: s[E.PHASE] == E.P_WAR and s[E.ENG] == 0)
    _clear_conflicts(s)
    _no_location(s)
    p = int(s[E.TO_MOVE])
    o = 1 - p
    conflicts = set(s[E.CONF:E.CONF + 3])
    strong = next(c for c in (66, 70) if c not in conflicts)      # Ember / Tide Cogdrive, Strength 4
    weak = next(c for c in (71, 67) if c not in conflicts)        # Thorn / Tide Cogdrive, Strength 2
    other = next(c for c in (24, 18) if c not in conflicts)       # Thorn / Tide Valkyrie, Strength 2
    _set_hand(s, p, [strong])
    _set_hand(s, o, [weak, other])
    s[E.EMB_USED + p] = 1
    assert E.invariants(s, env) == 0
    conf = [int(c) for c in s[E.CONF:E.CONF + 3]]
    vict, wreck = (s[E.N_VICT], s[E.N_VICT + 1]), s[E.N_WRECK]
    turns = s[E.WAR_TURNS]
    E.apply_action(s, rng, env, E.A_PLAY + strong * 5 + 0)
    assert s[E.TO_MOVE] == o and s[E.ENDING] == 1 and s[E.PHASE] == E.P_WAR
    E.apply_action(s, rng, env, E.A_PLAY + weak * 5 + 0)
    assert s[E.WAR_TURNS] == turns + 2 and s[E.ENG] == 1 and s[E.NCONF] == 0
    assert zone(s, E.VICT, E.N_VICT, p)[-1] == conf[0] and s[E.N_VICT + p] == vict[p] + 1
    assert s[E.N_VICT + o] == vict[o]
    assert zone(s, E.WRECK, E.N_WRECK)[wreck:] == conf[1:]
    assert strong in zone(s, E.PILE, E.N_PILE, p) and {weak, other} <= set(zone(s, E.PILE, E.N_PILE, o))
    assert s[E.N_HAND] == s[E.N_HAND + 1] == 0
    assert s[E.START] == 1 and s[E.PHASE] == E.P_DRAWCHOICE and s[E.TO_MOVE] == 1
    assert E.invariants(s, env) == 0


def test_conflicts_take_the_incident_deck_first_then_the_wreckage():
    """Two cards left in the Incident Deck: the first two Conflicts are its top two cards, the other two come
    from the Wreckage (which the Barracks joined first), two different cards."""
    env = env_for(emb=(0, 1))
    s, rng = new(8, env)
    advance(s, rng, env, lambda s: s[E.PHASE] == E.P_RECRUIT and s[E.DSTEP] == 1)
    while s[E.N_IDECK] > 2:
        E.wreck(s, E._pop(s, E.IDECK, E.N_IDECK))
    top2 = [int(s[E.IDECK + 1]), int(s[E.IDECK])]
    pool = set(zone(s, E.WRECK, E.N_WRECK)) | {int(c) for c in s[E.BARR:E.BARR + 5] if c >= 0}
    n_pool = len(pool)
    E.apply_action(s, rng, env, E.A_PASS)
    conf = [int(c) for c in s[E.CONF:E.CONF + s[E.NCONF]]]
    assert len(conf) == 4 and conf[:2] == top2 and s[E.N_IDECK] == 0
    assert set(conf[2:]) <= pool and conf[2] != conf[3] and s[E.N_WRECK] == n_pool - 2
    assert E.invariants(s, env) == 0


def test_no_morale_check_when_the_incident_deck_is_empty():
    s, rng, env = _at_first_draft_turn(emb=(0, 1))
    for c in [i for i, c in enumerate(CARDS.cards) if c.type == K.VALKYRIE][:5]:
        take(s, c)
        put(s, E.DECK, E.N_DECK, 0, c)
    while s[E.N_IDECK] > 0:
        E.wreck(s, E._pop(s, E.IDECK, E.N_IDECK))
    E.apply_action(s, rng, env, E.A_DRAW5)
    assert E.morale_count(s, env, 0) == 5 and s[E.PHASE] == E.P_RECRUIT and s[E.N_VICT] == 0
    assert all(s[E.BARR + i] == -1 for i in range(5))  # nothing to fill the Barracks with


def test_standard_war_end_each_player_one_more_turn_then_resolution():
    """"the player's turn ends. Each player draws 2 cards from his deck, and each player receives 1 additional
    turn. After each player receives 1 additional turn, the War Phase ends": after Omega cannot act, Alpha then
    Omega take one turn each, then the Conflicts are resolved."""
    s, rng, env = _at_first_war()
    a = next(x for x in legal(s, env) if E.A_PLAY <= x < E.A_ABIL)
    _set_hand(s, 1, [74])  # Thorn Cogdrive "move": no draw
    s[E.EMB_USED + 1] = 1
    assert not E.can_take_two(s, env, 1)
    turns = s[E.WAR_TURNS]
    E.apply_action(s, rng, env, a)  # Alpha's single first action; Omega cannot take 2 different actions
    assert s[E.TO_MOVE] == 0 and s[E.ENDING] == 2 and s[E.ENG] == 0
    seq = []
    buf = np.empty(E.MAX_ACTIONS, np.int64)
    prng = np.empty(4, np.uint64)
    seed_stream(prng, np.array([1, 1], np.uint64), 0, 1)
    while s[E.ENG] == 0:
        if not seq or seq[-1][1] != s[E.WAR_TURNS]:
            seq.append((int(s[E.TO_MOVE]), int(s[E.WAR_TURNS])))
        n = E.legal_actions(s, env, buf)
        E.apply_action(s, rng, env, E.policy(HEURISTIC, s, env, buf, n, PARAMS, prng))
    assert [q for q, _ in seq] == [0, 1] and s[E.WAR_TURNS] == turns + 3  # Alpha's first turn, then two more


# --- the invariant test over 10,000 random-policy games per ruleset --------------------------------------------

@njit
def _owner_score(s, cards, emblems, p, draw_pile_only):
    """An independent recomputation of seat p's deck points: walk every card, find its zone."""
    pts = 0
    clan = emblems[s[E.EMB + p], 0]
    for c in range(E.NC):
        where = -1
        for z in range(4):
            if draw_pile_only and z > 0:
                break
            base = (E.DECK, E.PILE, E.HAND, E.PLAYED)[z] + p * E.NC
            cnt = s[(E.N_DECK, E.N_PILE, E.N_HAND, E.N_PLAYED)[z] + p]
            for i in range(cnt):
                if s[base + i] == c:
                    where = z
        if where >= 0:
            pts += 2 if cards[c, 1] == clan else 1
    return pts


@njit
def _random_games(n, env, seed, out):
    """Play n random-policy games; after every action check the invariants; at every phase change (the end of
    every phase) count the check; at the end recompute the scores independently. out[g] = (first broken
    invariant code or 0, score mismatch 0/1, phase ends checked, decisions)."""
    cards, emblems = env[0], env[1]
    s = np.zeros(E.STATE_SIZE, np.int32)
    rng = np.empty(4, np.uint64)
    prng = np.empty(4, np.uint64)
    buf = np.empty(E.MAX_ACTIONS, np.int64)
    params = np.zeros(E.N_PARAMS)
    key = np.array([seed, 17], np.uint64)
    for g in range(n):
        seed_stream(rng, key, g, 0)
        seed_stream(prng, key, g, 1)
        E.new_game(s, rng, env)
        bad = E.invariants(s, env)
        ends = 0
        steps = 0
        while not E.is_over(s) and bad == 0 and steps < 20000:
            k = E.legal_actions(s, env, buf)
            if k < 1:
                bad = 99
                break
            ph = s[E.PHASE]
            E.apply_action(s, rng, env, E.policy(RANDOM, s, env, buf, k, params, prng))
            bad = E.invariants(s, env)
            if s[E.PHASE] != ph:
                ends += 1
            steps += 1
        if not E.is_over(s) and bad == 0:
            bad = 98
        a = _owner_score(s, cards, emblems, 0, env[3][E.R_DECK_SCORING] == 1) + 2 * s[E.N_VICT] + s[E.LOCWON]
        b = _owner_score(s, cards, emblems, 1, env[3][E.R_DECK_SCORING] == 1) + 2 * s[E.N_VICT + 1] + s[E.LOCWON + 1]
        if s[E.N_VICT] > s[E.N_VICT + 1]:
            a += 4
        elif s[E.N_VICT + 1] > s[E.N_VICT]:
            b += 4
        emb_ok = s[E.EMB] >= 0 and s[E.EMB + 1] >= 0 and s[E.EMB] != s[E.EMB + 1]
        loc_used = 0
        for loc in range(E.N_LOC):
            if s[E.LOC_STATE + loc] >= 2:
                loc_used += 1
        want_locs = 3 if env[3][E.R_BLITZ] else 4
        out[g, 0] = bad
        out[g, 1] = (a != s[E.SCORE]) or (b != s[E.SCORE + 1]) or (not emb_ok) or loc_used != want_locs
        out[g, 2] = ends
        out[g, 3] = steps
        out[g, 4] = s[E.CAPPED]


@pytest.mark.parametrize("ruleset", ["standard", "blitz"])
def test_invariants_over_10000_random_games(ruleset):
    env = env_for(ruleset)
    out = np.zeros((10_000, 5), np.int64)
    _random_games(10_000, env, 2026, out)
    broken = np.flatnonzero(out[:, 0])
    assert broken.size == 0, f"game {broken[0]}: invariant {out[broken[0], 0]}"
    bad = np.flatnonzero(out[:, 1])
    assert bad.size == 0, f"game {bad[0]}: final scores, Emblems or Locations do not match the end state"
    assert out[:, 2].min() > 10
    assert out[:, 4].max() == 0, "a War reached the safety cap on War turns"


def test_heuristic_beats_random():
    from simkit.games.valkyrie_incident.simulation import play_cells

    env = env_for()
    embs = np.array([[0, 1], [0, 1]], np.int64)
    kinds = np.array([[HEURISTIC, RANDOM], [RANDOM, HEURISTIC]], np.int64)
    params = np.stack([np.stack([PARAMS, PARAMS])] * 2)
    out = np.zeros((2 * 200, 13), np.int64)
    play_cells(np.array([1, 2], np.uint64), 200, env, embs, kinds, params, out)
    wins = (out[:200, 6] == 0).mean(), (out[200:, 6] == 1).mean()
    assert min(wins) > 0.8


@pytest.mark.parametrize("ruleset", ["standard", "blitz"])
def test_heuristics_read_only_what_the_seat_may_see(ruleset):
    """Resampling the hidden information (the other hand and Deck, the Incident Deck, face-down cards, the deck
    orders) never changes a heuristic's decision."""
    from simkit.games.valkyrie_incident.simulation import presets

    env = env_for(ruleset)
    buf = np.empty(E.MAX_ACTIONS, np.int64)
    prng = np.empty(4, np.uint64)
    checked = 0
    for name, (kind, values) in presets().items():
        if kind != "heuristic":
            continue
        params = PARAMS.copy()
        for k, v in values.items():
            params[E.PARAMS[k][0]] = v
        for seed in range(6):
            s, rng = new(100 + seed, env)
            seed_stream(prng, np.array([seed, 1], np.uint64), 0, 1)
            steps = 0
            while not E.is_over(s):
                n = E.legal_actions(s, env, buf)
                a = E.policy(HEURISTIC, s, env, buf, n, params, prng)
                if n > 1 and steps % 7 == 0:
                    seat = E.to_move(s)
                    other, orng = s.copy(), rng.copy()
                    srng = np.empty(4, np.uint64)
                    seed_stream(srng, np.array([seed, steps], np.uint64), 0, 2)
                    E.resample(other, orng, env, seat, srng)
                    buf2 = np.empty(E.MAX_ACTIONS, np.int64)
                    n2 = E.legal_actions(other, env, buf2)
                    assert n2 == n and list(buf2[:n]) == list(buf[:n])
                    assert E.policy(HEURISTIC, other, env, buf2, n2, params, prng) == a
                    checked += 1
                E.apply_action(s, rng, env, a)
                steps += 1
    assert checked > 100


@pytest.mark.parametrize("option", ["random", "none"])
def test_conflicts_from_the_wreckage_when_the_incident_deck_is_empty(option):
    env = env_for(emb=(0, 1), wreckage_conflicts=option)
    s, rng = new(8, env)
    advance(s, rng, env, lambda s: s[E.PHASE] == E.P_RECRUIT and s[E.DSTEP] == 1)
    while s[E.N_IDECK] > 0:  # the Incident Deck runs out
        E.wreck(s, E._pop(s, E.IDECK, E.N_IDECK))
    wreckage = set(zone(s, E.WRECK, E.N_WRECK))
    barracks = {int(c) for c in s[E.BARR:E.BARR + 5] if c >= 0}
    E.apply_action(s, rng, env, E.A_PASS)  # the Draft Phase ends: the War begins
    conflicts = [int(c) for c in s[E.CONF:E.CONF + s[E.NCONF]]]
    if option == "random":
        # "cards may be taken, at random, from the Wreckage" (the Barracks went there first)
        assert len(conflicts) == 4 and set(conflicts) <= wreckage | barracks
    else:
        assert conflicts == []
    assert E.invariants(s, env) == 0


def test_no_automatic_reshuffle_of_the_pile():
    s, rng, env = _at_first_draft_turn()
    while s[E.N_DECK] > 0:  # "If a player ever runs out of cards to draw from his Deck, he MAY NOT automatically
        put(s, E.PILE, E.N_PILE, 0, E._pop(s, E.DECK, E.N_DECK))  # reshuffle his Pile into his Deck!"
    hand, pile = s[E.N_HAND], s[E.N_PILE]
    E.apply_action(s, rng, env, E.A_DRAW5)
    assert s[E.N_HAND] == hand and s[E.N_PILE] == pile and s[E.N_DECK] == 0
    assert E.invariants(s, env) == 0


def test_shuffle_the_pile_in_and_draw_four():
    s, rng, env = _at_first_draft_turn()
    for _ in range(6):
        put(s, E.PILE, E.N_PILE, 0, E._pop(s, E.DECK, E.N_DECK))
    deck, hand = s[E.N_DECK], s[E.N_HAND]
    E.apply_action(s, rng, env, E.A_SHUFFLE4)
    assert s[E.N_PILE] == 0 and s[E.N_HAND] == hand + 4 and s[E.N_DECK] == deck + 6 - 4
