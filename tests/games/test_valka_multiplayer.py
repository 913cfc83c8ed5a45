"""VÁLKA multiplayer (Bounty Hunter, Annihilation, Duel): scripted positions computable by hand, the Duel draft,
the statistical checks (Chance Strikes inside games against the exact odds; every card accounted for and every
rule invariant kept over many random games of each mode), and the runner rows.

Card numbers (stand-in data, scenarios/valka/cards.toml): Fighters 0..41 (strike/health/shield), Buffs 42..63,
Events 64..85 -- see ``F``, ``BUFF`` and ``EV`` below.
"""

from __future__ import annotations

import numpy as np
import pytest

from simkit.core.policies import HEURISTIC, RANDOM, compile_policy
from simkit.core.rng import roll, seed_stream
from simkit.games.valka.cards import load_cards
from simkit.games.valka.chance_strike import resolve
from simkit.games.valka.multiplayer import engine as E
from simkit.games.valka.multiplayer import layout as L
from simkit.games.valka.multiplayer import policies as P
from simkit.games.valka.multiplayer import simulation as S

CARDS = load_cards()
F = {f.key: i for i, f in enumerate(CARDS.fighters)}
# Buff card ids by (type, value): the first such card
BUFF = {}
for _i, _b in enumerate(CARDS.buffs):
    BUFF.setdefault((("strike", "shield", "health")[_b.type], _b.value), L.BUFF0 + _i)
EV = {}
for _i, _e in enumerate(CARDS.events):
    EV.setdefault(("fear", "potion", "retreat", "reinforce", "changeling", "divine_aid", "fireblast",
                   "lightning_bolt", "thief", "grave_robber")[_e.kind], []).append(L.EVENT0 + _i)
HP = lambda c: CARDS.fighters[c].health  # noqa: E731


def table(variant="bounty-hunter", players=4, **rules):
    """An empty table in seat 0's main phase: every card in the draw pile, nothing dealt."""
    env = S.make_env(CARDS, S.rules_vector(variant, players, **rules), 1 + 5 * 1000)
    s = np.zeros(L.STATE_SIZE, np.int32)
    s[L.H_NP] = players
    s[L.H_TRIGGER] = -1
    for p in range(players):
        for j in range(8):
            E.clear_slot(s, p, j)
    s[L.DECKS] = L.N_CARDS
    s[L.DECKS + 1:L.DECKS + 1 + L.N_CARDS] = np.arange(L.N_CARDS)[::-1]  # card 0 on top
    s[L.H_PHASE] = L.PH_MAIN
    s[L.H_ACTIVE] = 0
    s[L.H_TOMOVE] = 0
    s[L.H_BEGUN] = 1  # seat 0's first turn has begun
    rng = np.empty(4, np.uint64)
    seed_stream(rng, np.array([1, 2], np.uint64), 0, 0)
    return s, rng, env


def _from_deck(s, c):
    n = s[L.DECKS]
    cards = list(s[L.DECKS + 1:L.DECKS + 1 + n])
    cards.remove(c)
    s[L.DECKS + 1:L.DECKS + n] = cards
    s[L.DECKS + n] = 0
    s[L.DECKS] = n - 1


def put(s, p, j, c, face=1, dmg=0, buffs=()):
    _from_deck(s, c)
    b = E.lb(p, j)
    s[b + L.L_CARD] = c
    s[b + L.L_FACE] = face
    s[b + L.L_DMG] = dmg
    for bc in buffs:
        _from_deck(s, bc)
        s[b + L.L_BSTR + CARDS.buffs[bc - L.BUFF0].type] = bc


def give(s, p, c):
    _from_deck(s, c)
    E.hand_add(s, p, c)


def card(s, p, j):
    return int(s[E.lb(p, j) + L.L_CARD])


def dmg(s, p, j):
    return int(s[E.lb(p, j) + L.L_DMG])


def hand(s, p):
    b = E.sb(p)
    return sorted(int(x) for x in s[b + L.S_HAND:b + L.S_HAND + s[b + L.S_HANDN]])


def legal(s, env):
    buf = np.empty(L.MAX_ACTIONS, np.int64)
    n = E.legal_actions(s, env, buf)
    return [int(x) for x in buf[:n]]


def act(s, rng, env, a):
    assert a in legal(s, env), f"action {a} not legal"
    E.apply_action(s, rng, env, a)
    assert E.invariants(s, env) == 0


def attack_id(i, q, j, t):
    return L.B_ATTACK + ((i * 5 + q) * 4 + j) * 4 + t


def event_id(kind, q, j):
    return L.B_EVENT + kind * 40 + q * 8 + j


def basic(variant="bounty-hunter", players=4, **rules):
    """Seat 0: Aurochs Rider (Strike 5) in front; every other seat: a Glacier Raider (Shield 1) in front, and a
    Backline Fighter so that nobody is eliminated by accident."""
    s, rng, env = table(variant, players, **rules)
    put(s, 0, 0, F["aurochs_rider"])
    put(s, 0, 4, F["squire"])
    others = ["glacier_raider", "skald", "the_lost_one", "the_unwanted"]
    backs = ["crawler", "thornling", "quiet_keeper", "apprentice"]
    for p in range(1, players):
        put(s, p, 0, F[others[p - 1]])
        put(s, p, 4, F[backs[p - 1]])
    return s, rng, env


# --- strikes and damage -----------------------------------------------------------------------------------------

def test_true_strike_deals_one_damage_and_every_frontline_fighter_must_attack():
    s, rng, env = basic()
    assert L.A_DONE not in legal(s, env)  # the Aurochs Rider has not attacked
    a = attack_id(0, 1, 0, L.ST_TRUE)  # Strike 5 > Shield 1
    assert attack_id(0, 1, 0, L.ST_CHANCE) not in legal(s, env)  # "If you can't land a True ... Strike"
    act(s, rng, env, a)
    assert dmg(s, 1, 0) == 1
    assert L.A_DONE in legal(s, env)


def test_damage_tokens_old_gob_example():
    """The rulebook's example: The Old Gob (Health 3) with a +2 Health Buff takes 4 damage and stands; the fifth
    defeats it."""
    s, rng, env = basic()
    put(s, 1, 1, F["old_gob"], buffs=(BUFF[("health", 2)],))
    for k in range(4):
        E.hit(s, env, 1, 1, 1, 0)
        assert card(s, 1, 1) == F["old_gob"] and dmg(s, 1, 1) == k + 1
    E.hit(s, env, 1, 1, 1, 0)
    assert card(s, 1, 1) == -1
    # Bounty Hunter: the Fighter is claimed by the player who defeated it, its Buff goes to the Graveyard
    b = E.sb(0)
    assert s[b + L.S_CAPN] == 1 and s[b + L.S_CAP] == F["old_gob"]
    assert s[b + L.S_INFAMY] == CARDS.fighters[F["old_gob"]].infamy
    assert BUFF[("health", 2)] in s[L.GRAVE + 1:L.GRAVE + 1 + s[L.GRAVE]]


def test_team_strike_uses_the_smallest_team_that_beats_the_shield():
    s, rng, env = table()
    put(s, 0, 0, F["skald"])        # Strike 2
    put(s, 0, 1, F["the_lost_one"])  # Strike 2
    put(s, 0, 2, F["archmage"])     # Strike 6
    put(s, 1, 0, F["shield_knight"])  # Shield 5
    put(s, 1, 4, F["crawler"])
    put(s, 2, 0, F["apprentice"])
    put(s, 3, 0, F["goblin_sneak"])
    # the Skald alone cannot beat Shield 5 (2); with the Lost One 4 still cannot; the Archmage joins: 2 + 6 > 5
    a = attack_id(0, 1, 0, L.ST_TEAM)
    act(s, rng, env, a)
    assert dmg(s, 1, 0) == 1
    atk = [s[E.lb(0, j) + L.L_ATK] for j in range(3)]
    assert atk == [1, 0, 1]  # the Lost One was not needed and may still attack


def test_reckless_strike_sacrifices_a_one_health_fighter():
    s, rng, env = table()
    put(s, 0, 0, F["berserker"])  # Health 1
    put(s, 0, 1, F["skald"])
    put(s, 1, 0, F["shield_knight"])  # Shield 5, Health 2
    put(s, 1, 4, F["crawler"])
    put(s, 2, 0, F["apprentice"])
    put(s, 3, 0, F["goblin_sneak"])
    act(s, rng, env, attack_id(0, 1, 0, L.ST_RECKLESS))
    assert dmg(s, 1, 0) == 1
    assert card(s, 0, 0) == -1
    assert F["berserker"] in s[L.GRAVE + 1:L.GRAVE + 1 + s[L.GRAVE]]  # sacrificed: to the Graveyard, not captured
    assert s[E.sb(1) + L.S_CAPN] == 0


# --- Battle Lines: the Backline moving up, traps, elimination ----------------------------------------------------------

def test_backline_moves_up_at_full_health_and_traps_spring():
    s, rng, env = basic()
    put(s, 1, 5, F["moss_bear"], face=0)          # a face-down Fighter
    put(s, 1, 6, EV["lightning_bolt"][0], face=0)  # a Trap
    E.hit(s, env, 1, 0, HP(F["glacier_raider"]), 0)  # the Glacier Raider falls: the Frontline is empty
    assert card(s, 1, 0) == F["crawler"] and card(s, 1, 1) == F["moss_bear"]
    assert s[E.lb(1, 1) + L.L_FACE] == 1 and dmg(s, 1, 1) == 0
    assert E.back_count(s, 1) == 0
    # the Trap was flipped and waits for its owner to resolve it
    E.settle(s, rng, env)
    assert s[L.H_PHASE] == L.PH_PEND and E.to_move(s) == 1 and s[L.QUEUE] == L.Q_TRAP
    assert all(a >= L.B_EVENT + L.EV_LIGHTNING * 40 for a in legal(s, env))
    assert E.invariants(s, env) == 0


def test_retreated_fighter_is_healed_in_the_backline():
    s, rng, env = basic()
    s[E.lb(0, 0) + L.L_DMG] = 2
    give(s, 0, EV["retreat"][0])
    s[E.lb(0, 0) + L.L_ATK] = 1
    put(s, 0, 1, F["lancer"])
    s[E.lb(0, 1) + L.L_ATK] = 1
    act(s, rng, env, event_id(L.EV_RETREAT, 0, 0))
    assert card(s, 0, 5) == F["aurochs_rider"] and dmg(s, 0, 5) == 0


def test_elimination_and_annihilation_last_player_standing():
    s, rng, env = table("annihilation", 3)
    put(s, 0, 0, F["archmage"])
    put(s, 0, 1, F["nightmare"])
    put(s, 1, 0, F["apprentice"])   # Health 1, no Backline
    put(s, 2, 0, F["gob_slinger"])  # Health 1, no Backline
    act(s, rng, env, attack_id(0, 1, 0, L.ST_TRUE))
    assert s[E.sb(1) + L.S_ELIM] == 1 and not E.is_over(s)
    act(s, rng, env, attack_id(1, 2, 0, L.ST_TRUE))
    assert E.is_over(s) and E.reward(s, env, 0) == 1.0 and E.reward(s, env, 2) == 0.0
    # Annihilation: defeated Fighters go to the Graveyard, not a capture pile
    assert s[E.sb(0) + L.S_CAPN] == 0


def test_eliminated_player_discards_its_hand():
    s, rng, env = basic()
    give(s, 1, F["lancer"])
    E.clear_slot(s, 1, 4)
    s[L.DECKS + 1 + s[L.DECKS]] = F["crawler"]
    s[L.DECKS] += 1
    E.hit(s, env, 1, 0, 5, 0)
    assert s[E.sb(1) + L.S_ELIM] == 1 and s[E.sb(1) + L.S_HANDN] == 0
    assert E.invariants(s, env) == 0


# --- Bounty Hunter's end -----------------------------------------------------------------------------------------

def end_turn(s, rng, env):
    """The active player finishes: attacks already made, no Push Your Luck."""
    for j in range(4):
        s[E.lb(s[L.H_ACTIVE], j) + L.L_ATK] = 1
    act(s, rng, env, L.A_DONE)
    act(s, rng, env, L.A_DONE)


def test_bounty_hunter_endgame_round():
    """Seat 0 reaches 10 Infamy on its turn: seats 1, 2, 3 play one more turn each, then the game ends when seat 0
    would start its next turn; the highest Infamy wins."""
    s, rng, env = basic()
    s[E.sb(0) + L.S_INFAMY] = 9
    # 9 Infamy already claimed: give seat 0 captures worth 9 so the invariant holds
    caps = [F["axe_maiden"], F["nightmare"], F["elder_oak"], F["hedge_witch"]]  # 2 + 3 + 3 + 1
    for i, c in enumerate(caps):
        _from_deck(s, c)
        s[E.sb(0) + L.S_CAP + i] = c
    s[E.sb(0) + L.S_CAPN] = len(caps)
    assert sum(CARDS.fighters[c].infamy for c in caps) == 9
    s[E.lb(1, 0) + L.L_DMG] = 1  # the Glacier Raider (Health 2, Infamy 1) has 1 Health left
    act(s, rng, env, attack_id(0, 1, 0, L.ST_TRUE))
    assert s[L.H_TRIGGER] == 0 and s[E.sb(0) + L.S_INFAMY] == 10
    end_turn(s, rng, env)
    for seat in (1, 2, 3):
        assert not E.is_over(s) and s[L.H_ACTIVE] == seat
        end_turn(s, rng, env)
    assert E.is_over(s) and E.reward(s, env, 0) == 1.0


def test_capture_variant_triggers_at_six():
    s, rng, env = basic(bounty_score="captures")
    assert env[9][L.R_TRIGGER] == 6 and env[9][L.R_CAPTURE_COUNT] == 1
    caps = [F["axe_maiden"], F["nightmare"], F["elder_oak"], F["hedge_witch"], F["ghoul"]]
    for i, c in enumerate(caps):
        _from_deck(s, c)
        s[E.sb(2) + L.S_CAP + i] = c
        s[E.sb(2) + L.S_INFAMY] += CARDS.fighters[c].infamy
    s[E.sb(2) + L.S_CAPN] = 5
    E.defeat(s, env, 1, 0, 2)
    assert s[L.H_TRIGGER] == 2


def test_tie_breakers_matching_warband_then_strike():
    s, rng, env = basic()
    # equal Infamy 5: seat 0 claimed two Goblins (matching), seat 1 a Knight and a Barbarian
    a = [F["raider_boss"], F["old_gob"]]            # 3 + 2 Infamy, two Goblins
    b = [F["queens_champion"], F["axe_maiden"]]     # 3 + 2 Infamy, a Knight and a Barbarian
    for p, cs in ((0, a), (1, b)):
        for i, c in enumerate(cs):
            _from_deck(s, c)
            s[E.sb(p) + L.S_CAP + i] = c
            s[E.sb(p) + L.S_INFAMY] += CARDS.fighters[c].infamy
        s[E.sb(p) + L.S_CAPN] = len(cs)
    E.finish(s, env)
    assert E.reward(s, env, 0) == 1.0 and E.reward(s, env, 1) == 0.0


# --- Events ------------------------------------------------------------------------------------------------------

def test_fear_sends_fighter_to_hand_and_buffs_to_graveyard():
    s, rng, env = basic()
    put(s, 1, 1, F["lancer"], buffs=(BUFF[("strike", 1)],))
    give(s, 0, EV["fear"][0])
    act(s, rng, env, event_id(L.EV_FEAR, 1, 1))
    assert card(s, 1, 1) == -1 and F["lancer"] in hand(s, 1)
    grave = list(s[L.GRAVE + 1:L.GRAVE + 1 + s[L.GRAVE]])
    assert BUFF[("strike", 1)] in grave and EV["fear"][0] in grave


def test_potion_removes_all_damage():
    s, rng, env = basic()
    put(s, 0, 1, F["elder_oak"], dmg=3)
    give(s, 0, EV["potion"][0])
    act(s, rng, env, event_id(L.EV_POTION, 0, 1))
    assert dmg(s, 0, 1) == 0


def test_retreat_into_a_full_backline_returns_to_hand():
    s, rng, env = basic()
    put(s, 0, 1, F["berserker"])
    for j, k in zip((5, 6, 7), ("lancer", "ghoul", "cold_soldier")):
        put(s, 0, j, F[k])
    give(s, 0, EV["retreat"][0])
    put(s, 0, 2, F["moss_bear"], buffs=(BUFF[("shield", 1)],))
    act(s, rng, env, event_id(L.EV_RETREAT, 0, 2))
    assert card(s, 0, 2) == -1 and F["moss_bear"] in hand(s, 0) and BUFF[("shield", 1)] in hand(s, 0)


def test_reinforce_moves_a_backline_fighter_up_with_its_buffs():
    s, rng, env = basic()
    s[E.lb(0, 4) + L.L_CARD] = -1
    s[L.DECKS + 1 + s[L.DECKS]] = F["squire"]
    s[L.DECKS] += 1
    put(s, 0, 4, F["lancer"], buffs=(BUFF[("strike", 2)],))
    give(s, 0, EV["reinforce"][0])
    act(s, rng, env, event_id(L.EV_REINFORCE, 0, 4))
    assert card(s, 0, 1) == F["lancer"] and s[E.lb(0, 1) + L.L_BSTR] == BUFF[("strike", 2)]
    assert L.A_DONE not in legal(s, env)  # it is in the Frontline now: it must attack too


def test_changeling_swaps_fighters_buffs_stay_damage_cleared():
    s, rng, env = basic()
    put(s, 1, 1, F["queens_champion"], dmg=2, buffs=(BUFF[("shield", 2)],))
    give(s, 0, EV["changeling"][0])
    give(s, 0, F["apprentice"])
    act(s, rng, env, event_id(L.EV_CHANGELING, 1, 1))
    assert E.to_move(s) == 0 and s[L.QUEUE] == L.Q_CHANGE  # which hand Fighter: a decision
    act(s, rng, env, L.B_DISCARD + F["apprentice"])
    assert card(s, 1, 1) == F["apprentice"] and dmg(s, 1, 1) == 0
    assert s[E.lb(1, 1) + L.L_BSHD] == BUFF[("shield", 2)]
    assert F["queens_champion"] in hand(s, 0)


def test_divine_aid_negates_a_strike_out_of_turn():
    s, rng, env = basic()
    give(s, 1, EV["divine_aid"][0])
    act(s, rng, env, attack_id(0, 1, 0, L.ST_TRUE))
    assert E.to_move(s) == 1 and s[L.QUEUE] == L.Q_GUARD
    assert sorted(legal(s, env)) == [L.A_DONE, L.B_CHOICE]
    act(s, rng, env, L.B_CHOICE)
    assert dmg(s, 1, 0) == 0 and E.to_move(s) == 0 and s[E.sb(1) + L.S_HANDN] == 0


def test_divine_aid_declined_lets_the_damage_through():
    s, rng, env = basic()
    give(s, 1, EV["divine_aid"][0])
    act(s, rng, env, attack_id(0, 1, 0, L.ST_TRUE))
    act(s, rng, env, L.A_DONE)
    assert dmg(s, 1, 0) == 1 and hand(s, 1) == [EV["divine_aid"][0]]


def test_fireblast_true_strike_hits_target_for_two_and_neighbours_for_one():
    s, rng, env = basic()
    put(s, 1, 1, F["elder_oak"])        # Health 4
    put(s, 1, 2, F["moss_bear"])        # the target: Shield 2, Health 3
    put(s, 1, 3, F["rune_scholar"])
    give(s, 0, EV["fireblast"][0])
    act(s, rng, env, event_id(L.EV_FIREBLAST, 1, 2))  # 3 > Shield 2: a True Strike
    assert dmg(s, 1, 2) == 2 and dmg(s, 1, 1) == 1 and dmg(s, 1, 3) == 1
    assert dmg(s, 1, 0) == 0


def test_lightning_bolt_spills_over_to_the_left_and_onto_your_own():
    s, rng, env = basic("annihilation", 3)
    put(s, 1, 1, F["elder_oak"])
    put(s, 2, 1, F["quiet_keeper"])
    put(s, 0, 1, F["queens_champion"])
    give(s, 0, EV["lightning_bolt"][0])
    x = roll(rng.copy(), 10)
    act(s, rng, env, event_id(L.EV_LIGHTNING, 1, 0))
    order = [(1, 0), (1, 1), (2, 0), (2, 1), (0, 0), (0, 1)]  # seat 1, then its left (2), then your own (0)
    expect = {k: 0 for k in order}
    left = x
    while left > 0:
        for k in order:
            if left > 0:
                expect[k] += 1
                left -= 1
    for (p, j), d in expect.items():
        c0 = {(1, 0): "glacier_raider", (1, 1): "elder_oak", (2, 0): "skald", (2, 1): "quiet_keeper",
              (0, 0): "aurochs_rider", (0, 1): "queens_champion"}[(p, j)]
        hp = HP(F[c0])
        if d >= hp:
            assert card(s, p, j) != F[c0]
        else:
            assert card(s, p, j) == F[c0] and dmg(s, p, j) == d, (x, p, j)
    # "All Fighters defeated this way go to the Graveyard"
    assert s[E.sb(0) + L.S_CAPN] == 0


def test_thief_takes_the_best_buff_of_a_face_up_backline_fighter():
    s, rng, env = basic()
    put(s, 1, 5, F["lancer"], buffs=(BUFF[("strike", 3)], BUFF[("health", 1)]))
    give(s, 0, EV["thief"][0])
    act(s, rng, env, event_id(L.EV_THIEF, 1, 5))
    assert BUFF[("strike", 3)] in hand(s, 0) and s[E.lb(1, 5) + L.L_BSTR] == -1
    assert s[E.lb(1, 5) + L.L_BHP] == BUFF[("health", 1)]


def test_thief_hand_option_takes_two_cards():
    s, rng, env = basic(thief="hand")
    give(s, 1, F["lancer"])
    give(s, 1, F["ghoul"])
    give(s, 1, EV["potion"][0])
    give(s, 0, EV["thief"][0])
    act(s, rng, env, event_id(L.EV_THIEF, 1, 0))
    assert s[E.sb(1) + L.S_HANDN] == 1 and s[E.sb(0) + L.S_HANDN] == 2


def test_grave_robber_takes_a_fighter_from_the_graveyard():
    s, rng, env = basic()
    _from_deck(s, F["archmage"])
    E.grave_add(s, F["archmage"])
    give(s, 0, EV["grave_robber"][0])
    act(s, rng, env, L.B_GRAVE + F["archmage"])
    assert F["archmage"] in hand(s, 0)


# --- Warband Boons -----------------------------------------------------------------------------------------------

def enter(s, env, p, slots_cards):
    for j, c in slots_cards:
        put(s, p, j, c)
    E.enter_boons(s, env, p, sum(1 << j for j, _ in slots_cards))


def test_goblins_dyad_gives_all_frontline_fighters_plus_one_strike():
    s, rng, env = basic()
    before = E.strike_total(s, env, 0, 0)
    enter(s, env, 0, [(1, F["mountain_gob"]), (2, F["gob_slinger"])])
    assert s[E.sb(0) + L.S_BOON + L.WB_GOBLINS] == 2
    assert E.strike_total(s, env, 0, 0) == before + 1  # ALL Frontline Fighters, the Aurochs Rider too
    # a Dyad persists until the start of your next turn
    E.start_turn_boons(s, env, 0)
    assert s[E.sb(0) + L.S_BOON + L.WB_GOBLINS] == 0


def test_knights_horde_persists_and_ends_at_two():
    s, rng, env = basic()
    enter(s, env, 0, [(1, F["lancer"]), (2, F["inquisitor"]), (3, F["shield_knight"])])
    assert s[E.sb(0) + L.S_BOON + L.WB_KNIGHTS] == 3
    assert E.shield_total(s, env, 0, 0) == CARDS.fighters[F["aurochs_rider"]].shield + 1
    E.start_turn_boons(s, env, 0)
    assert s[E.sb(0) + L.S_BOON + L.WB_KNIGHTS] == 3  # a Horde persists
    E.hit(s, env, 0, 3, 9, 1)  # down to 2 Knights: "reduced to 2 or fewer" ends it
    assert s[E.sb(0) + L.S_BOON + L.WB_KNIGHTS] == 0


def test_barbarians_true_strikes_deal_two():
    s, rng, env = basic()
    enter(s, env, 0, [(1, F["axe_maiden"]), (2, F["berserker"])])
    put(s, 1, 1, F["elder_oak"])  # Health 4, Shield 4
    act(s, rng, env, attack_id(0, 1, 1, L.ST_TRUE))
    # the Aurochs Rider is a Barbarian: Strike 5 > Shield 4, 2 damage
    assert dmg(s, 1, 1) == 2


def test_tree_beasts_can_only_be_targeted_by_chance_strikes():
    s, rng, env = basic()
    enter(s, env, 1, [(1, F["root_strangler"]), (2, F["moss_bear"])])
    acts = [a for a in legal(s, env) if a >= L.B_ATTACK and (a - L.B_ATTACK) // 16 % 5 == 1]
    assert acts and all((a - L.B_ATTACK) % 4 == L.ST_CHANCE for a in acts)


def test_reptilios_backline_joins_team_strikes():
    s, rng, env = table()
    put(s, 0, 0, F["cold_soldier"])      # Strike 3
    put(s, 0, 1, F["swamp_stalker"])     # Strike 2
    put(s, 0, 4, F["fire_priest"])       # Backline, Strike 4
    E.enter_boons(s, env, 0, 0b11)
    put(s, 1, 0, F["shield_knight"], buffs=(BUFF[("shield", 3)],))  # Shield 8
    put(s, 1, 4, F["crawler"])
    put(s, 2, 0, F["apprentice"])
    put(s, 3, 0, F["goblin_sneak"])
    # 3 + 2 = 5 cannot beat 8; with the Backline Fire Priest 3 + 2 + 4 = 9 can
    assert attack_id(0, 1, 0, L.ST_TEAM) in legal(s, env)
    act(s, rng, env, attack_id(0, 1, 0, L.ST_TEAM))
    assert dmg(s, 1, 0) == 1 and s[E.lb(0, 4) + L.L_ATK] == 1


def test_brotherhood_weird_warp_is_a_decision():
    s, rng, env = basic()
    give(s, 2, F["lancer"])
    enter(s, env, 0, [(1, F["weird_warrior"]), (2, F["warp_monk"])])
    E.settle(s, rng, env)
    assert s[L.QUEUE] == L.Q_WARP and E.to_move(s) == 0
    opts = legal(s, env)
    assert L.B_CHOICE + 1 in opts and L.B_CHOICE + 2 + 2 in opts
    n0 = s[E.sb(0) + L.S_HANDN]
    act(s, rng, env, L.B_CHOICE + 1)
    assert s[E.sb(0) + L.S_HANDN] == n0 + 3


def test_monsters_roar_sends_an_enemy_to_hand():
    s, rng, env = basic()
    enter(s, env, 0, [(1, F["ghoul"]), (2, F["forgotten_thing"])])
    E.settle(s, rng, env)
    assert s[L.QUEUE] == L.Q_ROAR
    act(s, rng, env, L.B_TARGET + 2 * 4 + 0)
    assert card(s, 2, 0) != F["skald"] and F["skald"] in hand(s, 2)


def test_wizards_magic_storm_deals_three_damage_one_at_a_time():
    s, rng, env = basic()
    put(s, 1, 1, F["elder_oak"])
    enter(s, env, 0, [(1, F["rune_scholar"]), (2, F["hedge_witch"])])
    E.settle(s, rng, env)
    for _ in range(3):
        assert s[L.QUEUE] == L.Q_STORM and E.to_move(s) == 0
        act(s, rng, env, L.B_TARGET + 1 * 4 + 1)
    assert dmg(s, 1, 1) == 3 and s[L.H_QN] == 0


def test_jokers_count_as_any_warband_but_not_alone():
    s, rng, env = table()
    enter(s, env, 0, [(0, F["joker_1"]), (1, F["joker_2"])])
    assert all(s[E.sb(0) + L.S_BOON + w] == 0 for w in range(8))
    s2, _, env2 = basic()  # the Aurochs Rider (a Barbarian) and two Jokers: a Barbarian Horde
    enter(s2, env2, 0, [(1, F["joker_1"]), (2, F["joker_2"])])
    assert s2[E.sb(0) + L.S_BOON + L.WB_BARBARIANS] == 3
    assert sum(s2[E.sb(0) + L.S_BOON + w] > 0 for w in range(8)) == 1


def test_horde_one_time_boon_fires_again_at_start_of_turn():
    s, rng, env = basic()
    enter(s, env, 0, [(1, F["rune_scholar"]), (2, F["hedge_witch"]), (3, F["apprentice"])])
    assert s[L.H_QN] == 1
    E.q_pop(s)
    E.start_turn_boons(s, env, 0)
    assert s[L.H_QN] == 1 and s[L.QUEUE] == L.Q_STORM


# --- set-up and the Duel draft --------------------------------------------------------------------------------------

def new(variant, players, seed=3):
    g = S.decision_game(variant, players)
    return g.new_game(seed)


def test_setup_deals_ten_and_mulligan_draws_back_to_ten():
    s, rng, env = new("bounty-hunter", 4)
    assert s[L.H_PHASE] == L.PH_MULL
    assert all(s[E.sb(p) + L.S_HANDN] == 10 for p in range(4))
    p = E.to_move(s)
    assert p == s[L.H_FIRST]
    h = legal(s, env)[1]
    deck_before = s[L.DECKS]
    act(s, rng, env, h)
    assert s[E.sb(p) + L.S_HANDN] == 9 and s[L.DECKS] == deck_before + 1
    bottom = s[L.DECKS + 1]
    act(s, rng, env, L.A_DONE)
    assert s[E.sb(p) + L.S_HANDN] == 10 and s[L.DECKS + 1] == bottom  # discards at the bottom, drawn from the top


def test_duel_draft_builds_two_18_card_decks():
    s, rng, env = new("duel", 2)
    assert s[L.H_PHASE] == L.PH_DRAFT and s[L.MARKET] == 10
    first = E.to_move(s)
    picks = 0
    while s[L.H_PHASE] == L.PH_DRAFT:
        p = E.to_move(s)
        assert p == (first if (picks // 3) % 2 == 0 else 1 - first)  # 3 cards each, alternately
        market = [int(x) for x in s[L.MARKET + 1:L.MARKET + 11]]
        a = legal(s, env)[0]
        act(s, rng, env, a)
        picks += 1
        if picks % 3 == 0 and s[L.H_PHASE] == L.PH_DRAFT:
            assert all(x >= 0 for x in s[L.MARKET + 1:L.MARKET + 11])  # refilled
        _ = market
    assert picks == 36
    for p in range(2):
        d = L.DECKS + (1 + p) * L.DECK_SIZE
        assert s[d] == 8 and s[E.sb(p) + L.S_HANDN] == 10  # 18 drafted: 10 dealt, 8 in the personal pile
    assert s[L.DECKS] == 86 - 10 - 36


# --- statistics over many games -------------------------------------------------------------------------------

@pytest.mark.parametrize("variant,players", [("bounty-hunter", 3), ("bounty-hunter", 4), ("bounty-hunter", 5),
                                             ("annihilation", 3), ("annihilation", 4), ("annihilation", 5),
                                             ("duel", 2)])
def test_random_games_keep_every_invariant(variant, players):
    """All 86 cards accounted for, rows and Buffs within limits, Health never at or above its total, Infamy the
    sum of the captures: checked after every action of random-policy games (10,000 per mode over the three
    table sizes; see the module docstring of simulation)."""
    params = compile_policy("heuristic", {}, P.PARAMS)[1]
    env = S.make_env(CARDS, S.rules_vector(variant, players), 1)
    n = 10_000 if variant == "duel" else 3_400
    bad, first, code, stalled = S.random_games_check(np.array([11, players], np.uint64), n, env, RANDOM, params)
    assert bad == 0, f"game {first}: invariant {code}"
    assert stalled <= n // 100


def test_heuristic_games_keep_every_invariant():
    params = compile_policy("heuristic", {}, P.PARAMS)[1]
    for variant, players in (("bounty-hunter", 4), ("annihilation", 5), ("duel", 2)):
        env = S.make_env(CARDS, S.rules_vector(variant, players), 1)
        bad, first, code, _ = S.random_games_check(np.array([5, 6], np.uint64), 500, env, HEURISTIC, params)
        assert bad == 0, f"{variant}: game {first}: invariant {code}"


def test_chance_strikes_inside_games_match_the_exact_odds():
    """Every Chance Strike of 3,000 random 4-player games is logged (totals, both rolls, outcome): each outcome is
    the exact rule's (chance_strike.resolve) for its rolls, the rolls are uniform d10s, and the outcome
    frequencies per Strike - Shield difference match the exact distribution (chi-square)."""
    from scipy import stats as st

    from simkit.games.valka.chance_strike import outcome_distribution

    params = compile_policy("heuristic", {}, P.PARAMS)[1]
    env = S.make_env(CARDS, S.rules_vector("bounty-hunter", 4), 1 + 5 * 200_000)
    S.random_games_check(np.array([21, 22], np.uint64), 3000, env, RANDOM, params)
    k = env[10][0]
    rec = env[10][1:1 + 5 * k].reshape(k, 5).astype(np.int64)
    assert k > 5000
    for strike, shield, a, d, o in rec[:5000]:
        assert resolve(a, d, strike, shield, True, True) == o
    for col in (2, 3):
        counts = np.bincount(rec[:, col], minlength=11)[1:]
        assert st.chisquare(counts).pvalue > 1e-4
    diffs = rec[:, 0] - rec[:, 1]
    pvals = []
    for diff in np.unique(diffs):
        m = diffs == diff
        if m.sum() < 400:
            continue
        strike, shield = max(int(diff), 0), max(-int(diff), 0)
        exact = outcome_distribution(strike, shield)
        obs = np.bincount(rec[m, 4], minlength=4)
        exp = np.array([float(exact[c]) for c in range(4)]) * m.sum()
        keep = exp > 0
        pvals.append(st.chisquare(obs[keep], exp[keep]).pvalue)
    assert len(pvals) >= 3 and min(pvals) > 1e-4 / len(pvals)


def test_heuristic_policy_only_returns_legal_actions_and_reads_no_hidden_cards():
    """The heuristic's choice does not change when the hidden information (other hands, face-down cards, the
    deck order) is resampled from the mover's point of view."""
    g = S.decision_game("bounty-hunter", 4)
    kind, params = g.policies["balanced"]
    buf = np.empty(L.MAX_ACTIONS, np.int64)
    checked = 0
    for seed in range(15):
        s, rng, env = g.new_game(seed)
        prng = np.empty(4, np.uint64)
        seed_stream(prng, np.array([seed, 9], np.uint64), 0, 1)
        steps = 0
        while not E.is_over(s) and steps < 400:
            n = E.legal_actions(s, env, buf)
            a = P.policy(kind, s, env, buf, n, params, prng)
            assert a in buf[:n]
            if steps % 7 == 0:
                s2, r2 = s.copy(), rng.copy()
                srng = np.empty(4, np.uint64)
                seed_stream(srng, np.array([seed, steps], np.uint64), 0, 3)
                E.resample(s2, r2, env, E.to_move(s), srng)
                assert P.policy(kind, s2, env, buf, n, params, prng.copy()) == a
                checked += 1
            E.apply_action(s, rng, env, a)
            steps += 1
    assert checked > 50


def test_runner_rows_and_mixed_tables(tmp_path):
    from simkit.core.scenario import Fields

    # the mode's own fields (the loader reads game, mode and description before the mode's build)
    data = {"cards": str(CARDS_PATH), "players": [3, 5],
            "play": ["balanced", "random"], "opponents": ["aggressive"]}
    sim = S.build_multiplayer(Fields(tmp_path / "x.toml", data), "bounty-hunter")
    cols = sim.run_block(np.array([1, 2], np.uint64), 20)
    n = 2 * 2 * 20
    assert all(len(v) == n for v in cols.values())
    assert set(cols["policy"]) == {"balanced", "random"}
    five = cols["players"] == 5
    assert (cols["seat4_policy"][~five] == "").all() and (cols["seat4_order"][~five] == -1).all()
    # the hero sits in seat game % players; the other seats play the opponents
    for r in range(n):
        p = int(cols["players"][r])
        hero = int(cols["game"][r]) % p
        assert cols["hero_seat"][r] == hero
        assert cols[f"seat{hero}_policy"][r] == cols["policy"][r]
        assert all(cols[f"seat{k}_policy"][r] == "aggressive" for k in range(p) if k != hero)
        won = sum(int(cols[f"seat{k}_won"][r]) for k in range(p))
        assert won == cols["winners"][r]
        assert cols["stalled"][r] or cols["winners"][r] >= 1


CARDS_PATH = __import__("simkit.games.valka.cards", fromlist=["x"]).default_cards_path()


def test_shared_boon_levels_by_hand():
    """simkit.games.valka.boons: the Dyad/Horde transitions and the Joker rule, as the Lonequest can use them."""
    from simkit.games.valka import boons as B

    packed = 0
    for member, new in ((2, 1), (8, 1), (5, 0)):  # a Goblin (new), a Joker (new), a Reptilio
        packed = B.tally(2, member, packed, new)
    assert B.members(packed) == 2 * 16 + 2  # two Goblins counting the Joker, both new
    assert B.members(B.tally(2, 8, 0, 1)) == 0  # a Joker alone is no Warband
    assert B.after_entry(B.OFF, 2, 1, 1) == B.DYAD * 2 + 1
    assert B.after_entry(B.OFF, 2, 1, 2) == B.OFF * 2  # "together": two must be new
    assert B.after_entry(B.DYAD, 3, 1, 1) == B.HORDE * 2 + 1
    assert B.after_loss(B.HORDE, 2) == B.OFF and B.after_loss(B.DYAD, 2) == B.DYAD and B.after_loss(B.DYAD, 1) == B.OFF
    assert B.at_turn_start(B.DYAD, 2) == B.OFF * 2 and B.at_turn_start(B.HORDE, 3) == B.HORDE * 2 + 1
    assert [b.one_time for b in B.BOONS] == [False, True, False, False, True, False, False, True]


def test_divine_aid_lands_a_failed_chance_strike():
    """"In the case of a failed ... Chance Strike ... reveal Divine Aid to ... land that Chance Strike": the
    attacker's own Divine Aid turns a failed Chance Strike into a hit."""
    s, rng, env = table()
    put(s, 0, 0, F["apprentice"])      # Strike 2
    put(s, 1, 0, F["shield_knight"])   # Shield 5: only a Chance Strike
    put(s, 1, 4, F["crawler"])
    put(s, 2, 0, F["goblin_sneak"])
    put(s, 3, 0, F["ghoul"])
    give(s, 0, EV["divine_aid"][0])
    for seed in range(100):  # a dice stream whose first Chance Strike fails for the attacker
        seed_stream(rng, np.array([seed, 5], np.uint64), 0, 0)
        r = rng.copy()
        a, d = roll(r, 10), roll(r, 10)
        if resolve(a, d, 2, 5, True, True) == 2 and a != 1:  # the defender wins (the attacker is hurt)
            break
    act(s, rng, env, attack_id(0, 1, 0, L.ST_CHANCE))
    assert s[L.QUEUE] == L.Q_GUARD and s[L.QUEUE + 2] == L.G_LAND and E.to_move(s) == 0
    act(s, rng, env, L.B_CHOICE)
    assert dmg(s, 1, 0) == 1 and dmg(s, 0, 0) == 0 and hand(s, 0) == []


def test_duel_players_draw_from_their_own_piles():
    g = S.decision_game("duel", 2)
    kind, params = g.policies["balanced"]
    s, rng, env = g.new_game(4)
    prng = np.empty(4, np.uint64)
    seed_stream(prng, np.array([4, 4], np.uint64), 0, 1)
    buf = np.empty(L.MAX_ACTIONS, np.int64)
    while s[L.H_PHASE] != L.PH_MAIN:
        n = E.legal_actions(s, env, buf)
        E.apply_action(s, rng, env, P.policy(kind, s, env, buf, n, params, prng))
    p = s[L.H_ACTIVE]
    own = L.DECKS + (1 + p) * L.DECK_SIZE
    other = L.DECKS + (2 - p) * L.DECK_SIZE
    assert s[own] <= 5  # 18 drafted - 10 dealt - this turn's 3 (a Weird Warp may have drawn more)
    assert s[other] <= 8 and s[L.DECKS] == 86 - 46  # the shared pile only fed the market


def test_divine_aid_ignores_a_lightning_bolt_on_your_frontline():
    s, rng, env = basic("annihilation", 3)
    give(s, 0, EV["lightning_bolt"][0])
    give(s, 1, EV["divine_aid"][0])
    act(s, rng, env, event_id(L.EV_LIGHTNING, 1, 0))
    assert s[L.QUEUE] == L.Q_GUARD and s[L.QUEUE + 2] == L.G_LIGHTNING and E.to_move(s) == 1
    act(s, rng, env, L.B_CHOICE)
    assert all(dmg(s, p, 0) == 0 and card(s, p, 0) >= 0 for p in range(3))


# --- review: Divine Aid windows for spill-over and side damage, Traps of a player going out -----------------------

def test_divine_aid_window_when_a_lightning_bolt_spills_over():
    """"reveal Divine Aid then ignore all effects targeting you, your Fighters, Frontlines": a player the bolt
    spills over to may reveal it when the bolt arrives. Default "absorbs": the damage assigned to its Frontline
    is spent there; "passes": it goes on to the next Frontline."""
    for option, use, expect in (("absorbs", True, [1, 0, 1, 0]), ("absorbs", False, [1, 1, 1, 0]),
                                ("passes", True, [1, 0, 1, 1])):
        s, rng, env = basic(lightning_aid=option)
        give(s, 2, EV["divine_aid"][0])
        E.bolt(s, env, 0, 1, 3, 0, 0, 0)  # seat 0's bolt on seat 1 with X = 3 (one Fighter per Frontline)
        assert dmg(s, 1, 0) == 1 and dmg(s, 3, 0) == 0  # seat 1 hit, the bolt waits at seat 2
        E.settle(s, rng, env)
        assert E.to_move(s) == 2 and s[L.QUEUE] == L.Q_GUARD and s[L.QUEUE + 2] == L.G_BOLT
        act(s, rng, env, L.B_CHOICE if use else L.A_DONE)
        assert [dmg(s, p, 0) for p in (1, 2, 3, 0)] == expect, (option, use)
        assert (hand(s, 2) == []) == use


def test_divine_aid_after_a_fireblast_lands_ignores_the_side_damage_too():
    """The target's player may let the Fireblast come (no Divine Aid before it) and reveal it once it strikes:
    the 2 damage and the 1 to each neighbour are all ignored."""
    for use in (True, False):
        s, rng, env = basic()
        put(s, 1, 1, F["elder_oak"])
        put(s, 1, 2, F["moss_bear"])        # the target: Shield 2 < 3, a True Strike
        put(s, 1, 3, F["rune_scholar"])
        give(s, 0, EV["fireblast"][0])
        give(s, 1, EV["divine_aid"][0])
        act(s, rng, env, event_id(L.EV_FIREBLAST, 1, 2))
        assert s[L.QUEUE + 2] == L.G_FIREBLAST and E.to_move(s) == 1
        act(s, rng, env, L.A_DONE)  # not before the strike
        assert s[L.QUEUE] == L.Q_GUARD and s[L.QUEUE + 2] == L.G_BLAST and E.to_move(s) == 1
        act(s, rng, env, L.B_CHOICE if use else L.A_DONE)
        assert [dmg(s, 1, j) for j in (1, 2, 3)] == ([0, 0, 0] if use else [1, 2, 1])


def test_casters_divine_aid_lands_a_failed_fireblast():
    """"In the case of a failed ... Event roll outcome, reveal Divine Aid to ... resolve that Event (even if your
    opponent rolls a 10)": the caster's Divine Aid turns a failed Fireblast roll into a strike."""
    s, rng, env = basic()
    put(s, 1, 1, F["shield_knight"])  # Shield 5 >= 3: a Chance Strike
    give(s, 0, EV["fireblast"][0])
    give(s, 0, EV["divine_aid"][0])
    for seed in range(200):  # a dice stream whose roll fails for the Fireblast (not a double 1)
        seed_stream(rng, np.array([seed, 9], np.uint64), 0, 0)
        r = rng.copy()
        a, d = roll(r, 10), roll(r, 10)
        if resolve(a, d, 3, 5, True, True) == 2:
            break
    act(s, rng, env, event_id(L.EV_FIREBLAST, 1, 1))
    assert s[L.QUEUE] == L.Q_GUARD and s[L.QUEUE + 2] == L.G_BLAST_LAND and E.to_move(s) == 0
    act(s, rng, env, L.B_CHOICE)
    # the Shield Knight (Health 2) falls to the 2 damage and is claimed; the Glacier Raider beside it takes 1
    assert card(s, 1, 1) == -1 and dmg(s, 1, 0) == 1 and hand(s, 0) == []
    assert F["shield_knight"] in s[E.sb(0) + L.S_CAP:E.sb(0) + L.S_CAP + s[E.sb(0) + L.S_CAPN]]


def test_trap_of_a_player_going_out_resolves_before_it_is_eliminated():
    """"If you have any face down cards in your Backline when it becomes the Frontline, flip them face up, and
    immediately resolve ... any revealed Event cards": a Backline of only Traps moves up, the Traps resolve
    (their owner's decision), and only then is the player, with no Frontline or Backline, eliminated."""
    s, rng, env = table("annihilation", 3)
    put(s, 0, 0, F["aurochs_rider"])           # seat 0: one Fighter, no Backline
    put(s, 1, 0, F["apprentice"])              # seat 1: Health 1 and a Fear Trap behind it
    put(s, 1, 4, EV["fear"][0], face=0)
    s[E.sb(2) + L.S_ELIM] = 1                  # seat 2 is already out
    s[E.sb(2) + L.S_ELIM_TURN] = -1
    act(s, rng, env, attack_id(0, 1, 0, L.ST_TRUE))
    # not over: seat 1's Trap resolves first
    assert not E.is_over(s) and E.to_move(s) == 1 and s[L.QUEUE] == L.Q_TRAP
    assert s[E.sb(1) + L.S_ELIM] == 0
    act(s, rng, env, event_id(L.EV_FEAR, 0, 0))  # the Aurochs Rider back to seat 0's hand: seat 0 is out too
    assert E.is_over(s) and s[E.sb(0) + L.S_ELIM] == 1 and s[E.sb(1) + L.S_ELIM] == 1
    assert E.reward(s, env, 0) == 0.5 and E.reward(s, env, 1) == 0.5  # out on the same turn: a shared win


def test_player_going_out_is_eliminated_once_its_traps_resolve():
    s, rng, env = basic()
    E.clear_slot(s, 1, 4)
    s[L.DECKS + 1 + s[L.DECKS]] = F["crawler"]  # (back to the draw pile)
    s[L.DECKS] += 1
    put(s, 1, 4, EV["fireblast"][0], face=0)   # seat 1's Backline: a Fireblast Trap only
    give(s, 1, F["lancer"])
    E.hit(s, env, 1, 0, HP(F["glacier_raider"]), 0)
    E.settle(s, rng, env)
    assert E.to_move(s) == 1 and s[L.QUEUE] == L.Q_TRAP and s[E.sb(1) + L.S_ELIM] == 0
    act(s, rng, env, event_id(L.EV_FIREBLAST, 2, 0))  # the Skald: Shield below 3, a True Strike for 2
    assert card(s, 2, 0) == F["thornling"]  # the Skald (Health 2) fell, its Backline moved up
    assert s[E.sb(1) + L.S_ELIM] == 1 and hand(s, 1) == [] and E.to_move(s) == 0


def test_double_ones_put_two_last_players_out_together():
    """"If both roll a 1, they both deal 1 damage to themselves": two last Fighters of Health 1 fall at once, so
    in Annihilation both players are out on the same turn and share the win (it used to go to the defender,
    whose Fighter was hit second)."""
    s, rng, env = table("annihilation", 2)
    put(s, 0, 0, F["apprentice"])     # Strike 2, Health 1
    put(s, 1, 0, F["shield_knight"], dmg=1)  # Shield 5, 1 Health left: only a Chance Strike
    for seed in range(2000):  # a dice stream whose first two rolls are double 1s
        seed_stream(rng, np.array([seed, 3], np.uint64), 0, 0)
        r = rng.copy()
        if roll(r, 10) == 1 and roll(r, 10) == 1:
            break
    act(s, rng, env, attack_id(0, 1, 0, L.ST_CHANCE))
    assert E.is_over(s) and s[E.sb(0) + L.S_ELIM] == 1 and s[E.sb(1) + L.S_ELIM] == 1
    assert E.reward(s, env, 0) == 0.5 and E.reward(s, env, 1) == 0.5


def _double_ones(rng):
    """Re-seed ``rng`` so that its next two d10 rolls are 1 and 1."""
    for seed in range(2000):
        seed_stream(rng, np.array([seed, 3], np.uint64), 0, 0)
        r = rng.copy()
        if roll(r, 10) == 1 and roll(r, 10) == 1:
            return
    raise AssertionError("no double-1 stream")


def test_player_out_at_the_setup_reveal_does_not_share_a_first_turn_double_one():
    """"The last player standing is the winner" (valka.txt, Annihilation): seat 2 places nothing and is out at the
    set-up reveal; on the first player's first turn a double 1 removes seats 0 and 1 together. They share the
    win; seat 2, out before any turn began, does not (it used to: both were stamped turn 0)."""
    s, rng, env = table("annihilation", 3)
    s[L.H_BEGUN] = 0
    put(s, 0, 0, F["apprentice"], face=0)              # Strike 2, Health 1
    put(s, 1, 0, F["shield_knight"], face=0, dmg=1)    # Shield 5, 1 Health left: only a Chance Strike
    s[L.H_PHASE], s[L.H_SUB], s[L.H_FIRST], s[L.H_TOMOVE] = L.PH_SETUP, 0, 0, 0
    for seat in (0, 1, 2):  # every seat ends its set-up: all reveal at once
        assert E.to_move(s) == seat
        act(s, rng, env, L.A_DONE)
    assert s[E.sb(2) + L.S_ELIM] == 1 and s[E.sb(2) + L.S_ELIM_TURN] == 0 and not E.is_over(s)
    for seat in (0, 1):  # seat 2 is out: nothing to equip
        assert s[L.H_PHASE] == L.PH_EQUIP and E.to_move(s) == seat
        act(s, rng, env, L.A_DONE)
    assert s[L.H_PHASE] == L.PH_MAIN and s[L.H_ACTIVE] == 0 and s[L.H_TURN] == 0 and s[L.H_BEGUN] == 1
    _double_ones(rng)
    act(s, rng, env, attack_id(0, 1, 0, L.ST_CHANCE))
    assert E.is_over(s) and s[E.sb(0) + L.S_ELIM] == 1 and s[E.sb(1) + L.S_ELIM] == 1
    assert [E.reward(s, env, p) for p in range(3)] == [0.5, 0.5, 0.0]


def _record(s, env):
    g = np.zeros(len(S.G_COLS), np.int64)
    so = np.zeros((5, len(S.S_COLS)), np.int64)
    S.record(s, env, g, so, 0, 0)
    return dict(zip(S.G_COLS, g.tolist())), so


def test_turns_count_the_turn_the_game_ends_in_every_mode():
    """`turns` counts the player turns begun, the last one included: an Annihilation that ends inside seat 0's
    first turn lasted 1 turn (it used to read 0, completed turns), a Bounty Hunter that ends between turns, after
    seat 0's turn and the endgame round of seats 1-3, lasted 4."""
    s, rng, env = table("annihilation", 3)
    put(s, 0, 0, F["archmage"])
    put(s, 0, 1, F["nightmare"])
    put(s, 1, 0, F["apprentice"])
    put(s, 2, 0, F["gob_slinger"])
    act(s, rng, env, attack_id(0, 1, 0, L.ST_TRUE))
    act(s, rng, env, attack_id(1, 2, 0, L.ST_TRUE))
    g, so = _record(s, env)
    assert E.is_over(s) and g["turns"] == 1
    elim = S.S_COLS.index("eliminated")
    assert so[1, elim] == 1 and so[2, elim] == 1 and so[0, elim] == -1  # both fell in turn 1

    s, rng, env = basic()
    s[E.sb(0) + L.S_INFAMY] = 9
    caps = [F["axe_maiden"], F["nightmare"], F["elder_oak"], F["hedge_witch"]]  # Infamy 2 + 3 + 3 + 1
    for i, c in enumerate(caps):
        _from_deck(s, c)
        s[E.sb(0) + L.S_CAP + i] = c
    s[E.sb(0) + L.S_CAPN] = len(caps)
    s[E.lb(1, 0) + L.L_DMG] = 1
    act(s, rng, env, attack_id(0, 1, 0, L.ST_TRUE))
    for _ in range(4):
        end_turn(s, rng, env)
    assert E.is_over(s) and _record(s, env)[0]["turns"] == 4


@pytest.mark.parametrize("variant,players", [("bounty-hunter", 3), ("annihilation", 3), ("duel", 2)])
def test_turns_are_the_seats_turns_summed_in_random_games(variant, players):
    """Over whole random games of every mode, `turns` is the sum of the turns each seat began."""
    g = S.decision_game(variant, players)
    for seed in range(4):
        s, rng, env = g.new_game(seed)
        prng = np.random.default_rng(seed)
        while not E.is_over(s):
            acts = legal(s, env)
            E.apply_action(s, rng, env, acts[prng.integers(len(acts))])
        if s[L.H_STALLED]:
            continue
        begun = sum(int(s[E.sb(p) + L.S_TURNS]) for p in range(players))
        assert _record(s, env)[0]["turns"] == begun > 0


def _chance_duel_exact(sa, ha, da, sb_, hb, db):
    """P(seat 0 wins) (a shared end counts half) of two lone Fighters that can only Chance Strike each other,
    seat 0 first, one strike per turn: value iteration over (Health left, Health left, whose turn) with the exact
    Chance Strike odds."""
    from simkit.games.valka.chance_strike import outcome_distribution

    odds = [{k: float(v) for k, v in outcome_distribution(st, sh).items()} for st, sh in ((sa, db), (sb_, da))]
    v = np.zeros((ha + 1, hb + 1, 2))
    for _ in range(200):
        for a in range(ha + 1):
            for b in range(hb + 1):
                for t in range(2):
                    if a == 0 or b == 0:
                        v[a, b, t] = 0.5 if a == b == 0 else float(b == 0)
                        continue
                    o = odds[t]
                    mine, theirs = (a, b) if t == 0 else (b, a)  # attacker's Health, defender's Health

                    def at(m, th):
                        return v[m, th, 1] if t == 0 else v[th, m, 0]
                    v[a, b, t] = (o[0] * at(mine, theirs) + o[1] * at(mine, theirs - 1)
                                  + o[2] * at(mine - 1, theirs) + o[3] * at(mine - 1, theirs - 1))
    return v[ha, hb, 0]


def test_lone_fighter_chance_duel_matches_the_exact_odds():
    """A degenerate Annihilation position: a Shield Knight (Strike 2, Health 2, Shield 5) against a Quiet Keeper
    (Strike 1, Health 4, Shield 3), nothing to draw, every strike a Chance Strike. The engine's win rate over
    4,000 games is within 4 standard errors of the exact value."""
    s0, rng, env = table("annihilation", 2)
    put(s0, 0, 0, F["shield_knight"])
    put(s0, 1, 0, F["quiet_keeper"])
    for c in list(s0[L.DECKS + 1:L.DECKS + 1 + s0[L.DECKS]]):  # an empty draw pile: nothing to play
        E.grave_add(s0, c)
    s0[L.DECKS] = 0
    exact = _chance_duel_exact(2, 2, 5, 1, 4, 3)
    n, won = 4000, 0.0
    key = np.array([2024, 11], np.uint64)
    for g in range(n):
        s = s0.copy()
        seed_stream(rng, key, g, 0)
        while not E.is_over(s):
            p = s[L.H_ACTIVE]
            if s[L.H_PHASE] == L.PH_MAIN and E.must_attack(s, env, p):
                a = attack_id(0, 1 - p, 0, L.ST_CHANCE)
            else:
                a = L.A_DONE
            E.apply_action(s, rng, env, a)
        won += E.reward(s, env, 0)
    se = (exact * (1 - exact) / n) ** 0.5
    assert abs(won / n - exact) < 4 * se, (won / n, exact)


# --- review: play quality of the heuristics ---------------------------------------------------------------------

def _heuristic_action(s, env, name):
    params = compile_policy(*P.PRESETS[name], P.PARAMS)[1]
    return int(P.heuristic(s, env, params, np.empty(4, np.uint64)))


def test_heuristic_pushes_only_what_it_can_draw_back():
    """Push Your Luck from an empty draw pile, or from a Duel's personal pile (every card of which comes to its
    owner anyway), only throws cards away."""
    retreat = EV["retreat"][0]
    s, rng, env = basic()
    give(s, 0, retreat)  # a weak card (below push_below)
    s[L.H_PHASE] = L.PH_PUSH
    assert _heuristic_action(s, env, "balanced") == L.B_DISCARD + L.HC_EVENT + L.EV_RETREAT  # a full pile
    for c in list(s[L.DECKS + 1:L.DECKS + 1 + s[L.DECKS]]):
        E.grave_add(s, c)
    s[L.DECKS] = 0
    assert _heuristic_action(s, env, "balanced") == L.A_DONE  # nothing to draw back
    s, rng, env = table("duel", 2)
    put(s, 0, 0, F["aurochs_rider"])
    put(s, 1, 0, F["glacier_raider"])
    give(s, 0, retreat)
    d = L.DECKS + L.DECK_SIZE  # seat 0's personal pile: five cards
    for c in (F["lancer"], F["crawler"], F["skald"], F["squire"], F["ghoul"]):
        _from_deck(s, c)
        s[d + 1 + s[d]] = c
        s[d] += 1
    s[L.H_PHASE] = L.PH_PUSH
    assert _heuristic_action(s, env, "balanced") == L.A_DONE


def test_heuristic_sets_no_trap_early_and_no_lightning_trap_at_a_table_of_two():
    """A sprung Trap must resolve, at a moment its owner does not choose: the heuristics keep their Events in hand
    until the Frontline is down to one Fighter, and never set a Lightning Bolt with one opponent (the bolt comes
    round to their own Frontline)."""
    s, rng, env = basic()
    put(s, 0, 1, F["lancer"])
    give(s, 0, EV["lightning_bolt"][0])
    s[E.lb(0, 0) + L.L_ATK] = 1
    s[E.lb(0, 1) + L.L_ATK] = 1
    params = {**dict(P.PRESETS["cautious"][1]), "event_min": 99.0}  # holds its Events
    pv = compile_policy("heuristic", params, P.PARAMS)[1]
    a = int(P.heuristic(s, env, pv, np.empty(4, np.uint64)))
    assert not L.B_TRAP <= a < L.B_EQUIP  # two Fighters up front: no Trap yet
    E.clear_slot(s, 0, 1)
    s[L.DECKS + 1 + s[L.DECKS]] = F["lancer"]
    s[L.DECKS] += 1
    a = int(P.heuristic(s, env, pv, np.empty(4, np.uint64)))
    assert a == L.B_TRAP + L.EV_LIGHTNING  # down to one: the Trap is set
    s, rng, env = table("duel", 2)
    put(s, 0, 0, F["aurochs_rider"])
    put(s, 1, 0, F["glacier_raider"])
    s[E.lb(0, 0) + L.L_ATK] = 1
    give(s, 0, EV["lightning_bolt"][0])
    a = int(P.heuristic(s, env, pv, np.empty(4, np.uint64)))
    assert not L.B_TRAP <= a < L.B_EQUIP


def test_heuristics_do_not_lose_to_their_never_do_x_ablations():
    """Paired Duels (the same deals and dice): a heuristic as the hero against itself, then each "never do X"
    version of it as the hero against the same opponent. No ablation may win more than the heuristic does (3
    standard errors of the paired difference), and keeping Fighters back in hand (Backline of 2) loses."""
    from simkit.games.valka.multiplayer.simulation import MultiplayerSim

    abl = {"no_push": {"push_below": 0.0}, "no_traps": {"traps": 0.0}, "no_divine_aid": {"divine_aid": 2.0},
           "no_reckless": {"reckless": 0.0}, "no_team": {"team": 0.0}, "no_events": {"event_min": 99.0},
           "backline_of_2": {"back_size": 2.0}}
    n = 1500
    for preset in ("balanced", "aggressive"):
        base = {**{k: v[1] for k, v in P.PARAMS.items()}, **P.PRESETS[preset][1]}
        specs = [(preset, "heuristic", base)] + [(k, "heuristic", {**base, **o}) for k, o in abl.items()]
        sim = MultiplayerSim("duel", CARDS, [2], specs, [preset], {})
        cols = sim.run_block(np.array([31, 7], np.uint64), n)
        won = cols["won"].astype(float).reshape(len(specs), n) / np.maximum(cols["winners"].reshape(len(specs), n), 1)
        for k, name in enumerate(abl, start=1):
            d = won[k] - won[0]
            se = max(d.std(ddof=1) / np.sqrt(n), 1e-9)
            assert d.mean() <= 3 * se, (preset, name, d.mean(), se)
        assert (won[-1] - won[0]).mean() < -0.05, preset  # a Backline of 2 instead of a full one


def _plain_attacks(s, env, p):
    """Every strike by the plain loop (attacker, target seat, target slot, strike type), from the rule helpers."""
    out = []
    for i in range(4):
        if not E.can_attack(s, p, i):
            continue
        st, reckless, team = E.strike_total(s, env, p, i), E.health_left(s, env, p, i) == 1, E.team_total(s, env, p, i)
        for q in range(s[L.H_NP]):
            if q == p or not E.alive(s, q):
                continue
            only = E.chance_only(s, env, q)
            for j in range(4):
                if s[E.lb(q, j) + L.L_CARD] < 0:
                    continue
                sh = E.shield_total(s, env, q, j)
                for t, ok in ((L.ST_TRUE, not only and st > sh),
                              (L.ST_CHANCE, only or st <= sh or env[9][L.R_CHANCE_ANY] == 1),
                              (L.ST_RECKLESS, not only and reckless), (L.ST_TEAM, not only and st <= sh and team > sh)):
                    if ok:
                        out.append(attack_id(i, q, j, t))
    return out


@pytest.mark.parametrize("variant, players, rules", [("bounty-hunter", 4, {}), ("annihilation", 5, {"thief": "hand",
                                                                                                     "chance_strike": "any"})])
def test_strikes_and_event_targets_are_every_legal_pair(variant, players, rules):
    """``add_attacks`` (each target's Shield computed once) and ``add_event_targets`` (only the slots an Event can
    take) list exactly what the plain loops over every attacker, seat and slot list, in the same order: every
    (seat, slot) that ``event_target_ok`` accepts, every strike the rules allow."""
    g = S.decision_game(variant, players, **rules)
    kind, params = g.policies["aggressive"]
    buf = np.empty(L.MAX_ACTIONS, np.int64)
    checked = with_events = 0
    for seed in range(6):
        s, rng, env = g.new_game(seed)
        prng = np.empty(4, np.uint64)
        seed_stream(prng, np.array([seed, 9], np.uint64), 0, 1)
        steps = 0
        while not E.is_over(s) and steps < 1500:
            p = E.to_move(s)
            if s[L.H_PHASE] == L.PH_MAIN and steps % 3 == 0:
                n = E.add_attacks(s, env, p, buf, 0)
                assert [int(x) for x in buf[:n]] == _plain_attacks(s, env, p)
                for e in range(10):
                    if e == L.EV_GRAVE_ROBBER:
                        continue
                    n = E.add_event_targets(s, env, p, e, buf, 0)
                    plain = [event_id(e, q, j) for q in range(players) for j in range(8)
                             if e != L.EV_DIVINE_AID and E.event_target_ok(s, env, p, e, q, j)]
                    assert [int(x) for x in buf[:n]] == plain, (e, steps)
                    with_events += n > 0
                checked += 1
            n = E.legal_actions(s, env, buf)
            E.apply_action(s, rng, env, P.policy(kind, s, env, buf, n, params, prng))
            steps += 1
    assert checked > 50 and with_events > 100
