"""Lonequest rules on the decision-point interface: hand-built positions with fixed dice played to a known end
(OpenSpiel style), random legal play with the invariants checked after every step, determinization,
reproducibility, and statistical checks on whole games."""

import numpy as np
import pytest
from scipy import stats as st

from simkit.core.decision import legal_list
from simkit.core.registry import get_mode
from simkit.core.rng import seed_stream
from simkit.core.seeding import block_key
from simkit.games.valka.cards import WARBANDS, load_cards
from simkit.games.valka.chance_strike import ATTACKER_HITS, ChanceStrikeRules, outcome_distribution
from simkit.games.valka.lonequest import engine as E
from simkit.games.valka.lonequest import layout as L
from simkit.games.valka.lonequest import policies as pol
from simkit.games.valka.lonequest.simulation import (
    card_data, fns, make_env, play_block, play_logged, rules_vector,
)
from simkit.games.valka.quests import compile_effects

CARDS = load_cards()
DATA = card_data(CARDS)
RULES = rules_vector()
KNIGHTS = WARBANDS.index("knights")
GOBLINS = WARBANDS.index("goblins")
CAUTIOUS = pol.param_vector(pol.PRESETS["cautious"][1])
GREEDY = pol.param_vector(pol.PRESETS["greedy_trader"][1])
AGGRESSIVE = pol.param_vector(pol.PRESETS["aggressive"][1])
H, R = pol.HEURISTIC, pol.RANDOM
FNS = fns()


def fighter_ids(warband):
    return [i for i, f in enumerate(CARDS.fighters) if f.warband == warband]


def with_changes(fighter_stats=None, quests=None, data=DATA):
    """A copy of the card tuple with some Fighters' (strike, health, shield) and the Quests replaced."""
    fighters = data[0].copy()
    for f, (strike, health, shield) in (fighter_stats or {}).items():
        fighters[f, L.FS], fighters[f, L.FH], fighters[f, L.FSH] = strike, health, shield
    code, off = data[3], data[4]
    if quests is not None:
        progs = [compile_effects(q) for q in quests]
        off = np.cumsum([0] + [len(p) for p in progs]).astype(np.int32)
        code = np.array([x for p in progs for x in p], np.int32)
    return (fighters, data[1], data[2], code, off, data[5], data[6])


def env_of(data=DATA, rules=RULES, dice=(), log=None):
    """The engine's env with scripted d10 results (used before the game's stream)."""
    return make_env(data, rules, script=[1, *dice], log=log)


def blank_state(krone=20, stamina=3, loc=0):
    """An empty position: every Location cleared, all cards in the Loot deck, nothing in play, between turns."""
    s = np.zeros(L.STATE_SIZE, np.int32)
    E.blank(s, RULES)
    s[L.KRONE], s[L.STAMINA], s[L.LOC] = krone, stamina, loc
    s[L.CLEARED:L.CLEARED + L.N_LOC] = 1
    return s


def streams(seed=0):
    rng, prng = np.empty(4, np.uint64), np.empty(4, np.uint64)
    key = block_key(seed, 0)
    seed_stream(rng, key, 0, 0)
    seed_stream(prng, key, 0, 1)
    return rng, prng


def play_out(s, env, params=CAUTIOUS, kind=H, seed=0, until=None):
    """Resolve forced steps, then let the policy decide (every choice checked legal) until the game ends or
    ``until(s)`` holds at a decision. Returns the decisions taken as (phase, action)."""
    rng, prng = streams(seed)
    E.advance(s, rng, env)
    taken = []
    buf = np.empty(L.MAX_ACTIONS, np.int64)
    while not E.is_over(s) and not (until and until(s)):
        n = E.legal_actions(s, env, buf)
        a = pol.policy(kind, s, env, buf, n, params, prng)
        assert a in buf[:n]
        if (s[L.PHASE], a) != (L.PH_SPECIAL, L.SP_NONE):  # (attacking without a special action: not listed)
            taken.append((L.PHASES[s[L.PHASE]], int(a)))
        E.apply_action(s, rng, env, a)
    return taken


def battle(s, env, **kw):
    """Fight the battle with the revealed Marauders (then the empty map ends the game)."""
    E.start_battle(s)
    return play_out(s, env, **kw)


def quest(s, env, q=0, **kw):
    E.start_quest(s, env, q)
    return play_out(s, env, **kw)


A, B = fighter_ids(KNIGHTS)[:2]
M, M2 = fighter_ids(GOBLINS)[:2]


# --- battles with fixed dice -------------------------------------------------------------

def test_chance_strike_tie_goes_to_the_attacker_and_the_reward_is_paid():
    data = with_changes({A: (2, 2, 1), M: (3, 1, 4)})
    log = np.zeros(1 + 3 * 4, np.int32)
    env = env_of(data, dice=(5, 3), log=log)
    s = blank_state(krone=20, stamina=3)
    E.front_add(s, env, A)
    E.add_marauder(s, env, M)
    # Stamina 3: attack first. Strike 2 cannot beat Shield 4 (no True Strike), one Fighter (no Team
    # Strike), 2 Health (no Reckless): a Chance Strike. 5 + 2 = 7 against 3 + 4 = 7: a tie, the attacker wins.
    taken = battle(s, env)
    assert taken == [("strike", L.ST_CHANCE + 0)]
    assert s[L.MAR_N] == 0 and s[L.DEFEATED] == 1 and s[L.GRAVE + M] == 2
    assert list(log[:4]) == [1, 2, 4, ATTACKER_HITS]
    assert s[L.KRONE] == 20 + 10 and s[L.STAMINA] == 3 + 1  # "10 Krone and 1 Stamina for each defeated Marauder"
    assert s[L.FRONT_N] == 1 and s[L.FRONT + L.F_DAMAGE] == 0
    assert E.is_won(s)  # nothing left on the map


def test_strong_enuf_then_a_natural_one_ends_the_lonequest():
    data = with_changes({A: (2, 2, 1), M: (3, 3, 4)})
    env = env_of(data, dice=(1, 5))
    s = blank_state(krone=0, stamina=2)
    E.front_add(s, env, A)
    E.add_marauder(s, env, M)
    # Stamina 2: defend first. Strike 3 > Shield 1: "Strong Enuf", the left-most Fighter takes 1 damage.
    # Then the attack: a lone natural 1 (1 against 5) loses the combat; the defender deals the last damage.
    # The Warband Deck is empty: "If you have no Warband Fighters to draw … you have failed".
    battle(s, env)
    assert s[L.FRONT_N] == 0 and s[L.GRAVE + A] == 1
    assert s[L.DONE] == 1 and s[L.CAUSE] == L.CAUSE_NO_FIGHTERS and not E.is_won(s)
    assert s[L.MAR + 1] == 0  # the Marauder was never hurt
    assert E.reward(s, env, 0) == 0.0


def test_true_strike_needs_no_dice_and_team_strike_combines():
    data = with_changes({A: (3, 2, 5), B: (2, 2, 5), M: (0, 2, 4)})
    env = env_of(data, dice=(3,))
    s = blank_state(stamina=3)
    E.front_add(s, env, A)
    E.front_add(s, env, B)
    E.add_marauder(s, env, M)
    # neither 3 nor 2 exceeds Shield 4, but together 5 does: a Team Strike (1 damage), no dice used;
    # then the Marauder's 0 Strike is "Not Enuf": odd (the one scripted die), no reinforcements; then another
    # Team Strike kills it
    taken = battle(s, env)
    assert taken == [("strike", L.ST_TEAM + 0), ("strike", L.ST_TEAM + 0)]
    assert s[L.DEFEATED] == 1 and s[L.CHANCE_STRIKES] == 0 and env[E.E_SCRIPT][0] == 2


def test_not_enuf_even_calls_a_reinforcement_from_the_fighter_deck():
    data = with_changes({A: (1, 2, 1), M: (0, 5, 9)})
    # defend: 3 odd, nothing; attack: a Chance Strike 10 + 1 against 2 + 9 (a tie: 1 damage); defend: 4 even
    env = env_of(data, dice=(3, 10, 2, 4))
    s = blank_state(krone=0, stamina=2)  # (no Krone: no Bribe to decide on)
    E.front_add(s, env, A)
    E.add_marauder(s, env, M)
    L.deck_push_bottom(s, L.FD_HEAD, M2)
    taken = battle(s, env, until=lambda s: s[L.PHASE] == L.PH_STRIKE)
    assert taken == [] and s[L.MAR_N] == 1
    rng, _ = streams()
    E.apply_action(s, rng, env, L.ST_CHANCE + 0)
    # "Draw and reveal a card from the Fighter deck"
    assert s[L.PHASE] == L.PH_STRIKE and s[L.MAR_N] == 2 and s[L.MAR + 2] == M2 and L.deck_len(s, L.FD_HEAD) == 0
    assert s[L.MAR + 1] == 1 and s[L.FACED + 0] & (1 << GOBLINS)


@pytest.mark.parametrize("reading, expected_damage", [("sum", 1), ("each", 0), ("strongest", 0)])
def test_strong_enuf_readings_sum_each_strongest(reading, expected_damage):
    data = with_changes({A: (1, 3, 2), B: (1, 3, 0), M: (2, 5, 0), M2: (2, 5, 0)})
    env = env_of(data, rules_vector(strong_enuf=reading), dice=(3,))
    s = blank_state(stamina=2)
    E.front_add(s, env, A)
    E.add_marauder(s, env, M)
    E.add_marauder(s, env, M2)
    # Strikes 2 + 2 = 4 exceed the Frontline's Shield 2 only when added up
    battle(s, env, until=lambda s: s[L.PHASE] == L.PH_STRIKE)
    assert s[L.FRONT + L.F_DAMAGE] == expected_damage


def test_divine_aid_prevents_a_killing_blow():
    data = with_changes({A: (1, 1, 0), M: (3, 5, 9)})
    aid = next(L.N_BUFFS + e for e, ev in enumerate(CARDS.events) if ev.kind == E.EV_DIVINE_AID)
    env = env_of(data)
    s = blank_state(krone=0, stamina=2)
    E.front_add(s, env, A)
    E.add_marauder(s, env, M)
    s[L.WHERE + aid] = L.HAND
    taken = battle(s, env, until=lambda s: s[L.PHASE] == L.PH_STRIKE)
    # the blow would kill A (1 Health left): the heuristic spends Divine Aid, "to prevent a single attack"
    assert taken == [("divine_defend", 1)]
    # spent: "these cards are discarded to the Graveyard"
    assert s[L.FRONT_N] == 1 and s[L.FRONT + L.F_DAMAGE] == 0 and s[L.WHERE + aid] == L.GRAVEYARD


def test_divine_aid_prevents_a_single_blow_when_each_marauder_strikes():
    # strong_enuf = "each": two Marauders of Strike 3 each exceed Shield 0, two blows; Divine Aid "can be used to
    # prevent a single attack": one of them, the other lands (A: 3 Health, 1 damage after)
    data = with_changes({A: (1, 3, 0), M: (3, 5, 9), M2: (3, 5, 9)})
    aid = next(L.N_BUFFS + e for e, ev in enumerate(CARDS.events) if ev.kind == E.EV_DIVINE_AID)
    env = env_of(data, rules_vector(strong_enuf="each"))
    s = blank_state(krone=0, stamina=2)
    E.front_add(s, env, A)
    E.add_marauder(s, env, M)
    E.add_marauder(s, env, M2)
    s[L.WHERE + aid] = L.HAND
    E.start_battle(s)
    rng, _ = streams()
    E.advance(s, rng, env)
    while s[L.PHASE] != L.PH_DIVINE_DEFEND and not E.is_over(s):
        buf = np.empty(L.MAX_ACTIONS, np.int64)
        E.legal_actions(s, env, buf)
        E.apply_action(s, rng, env, buf[0])
    assert s[L.B_HITS] == 2
    E.apply_action(s, rng, env, 1)
    assert s[L.FRONT_N] == 1 and s[L.FRONT + L.F_DAMAGE] == 1 and s[L.WHERE + aid] == L.GRAVEYARD


def test_rally_failed_test_fate_and_the_offering():
    data = with_changes({A: (1, 3, 0), B: (1, 3, 0), M: (0, 9, 9)})
    env = env_of(data, dice=(3,))  # the Rally's Test Fate: odd
    s = blank_state(krone=30, stamina=5)
    E.front_add(s, env, A)
    E.add_marauder(s, env, M)
    L.deck_push_bottom(s, L.WB_HEAD, B)
    taken = battle(s, env, until=lambda s: s[L.PHASE] == L.PH_STRIKE)
    # cautious rallies (1 Fighter < 2, Stamina 5 >= 5) and offers 20 Krone on the failed Test Fate
    assert taken == [("special", L.SP_RALLY), ("offer", 1)]
    assert s[L.STAMINA] == 4 and s[L.KRONE] == 10 and s[L.OFFERING_USED] == 1
    assert s[L.FRONT_N] == 2 and s[L.FRONT + L.F_SIZE] == B and s[L.TESTS] == 1 and s[L.TESTS_WON] == 1


# --- quests ---------------------------------------------------------------------------------

SHRINE = [{"op": "test_fate", "even": [{"op": "krone", "amount": 10}], "odd": [{"op": "stamina", "amount": -1}]},
          {"op": "krone", "amount": -5}]


@pytest.mark.parametrize("roll, offering_used, krone, stamina, offering_after", [
    (4, 0, 20 + 10 - 5, 3, 0),       # even: the good branch, then the common -5
    (3, 1, 20 - 5, 3 - 1, 1),        # odd, the offering already made: the bad branch
    (3, 0, 20 - 20 + 10 - 5, 3, 1),  # odd, 20 Krone offered to VÁLKA: the failure "instead goes in your favor"
])
def test_quest_test_fate_branches(roll, offering_used, krone, stamina, offering_after):
    env = env_of(with_changes(quests=[SHRINE]), dice=(roll,))
    s = blank_state(krone=20, stamina=3)
    s[L.OFFERING_USED] = offering_used
    E.front_add(s, env, A)
    quest(s, env)
    assert (s[L.KRONE], s[L.STAMINA], s[L.OFFERING_USED]) == (krone, stamina, offering_after)
    assert s[L.TESTS] == 1 and s[L.TESTS_WON] == (roll % 2 == 0 or offering_used == 0)


def test_quest_played_condition_and_jokers():
    tribute = [{"op": "if", "played": "knights", "then": [{"op": "krone", "amount": 7}],
                "else": [{"op": "krone", "amount": -7}]}]
    env = env_of(with_changes(quests=[tribute]))
    joker = next(i for i, f in enumerate(CARDS.fighters) if f.warband == 8)
    for fighter, expected in ((A, 27), (M, 13), (joker, 27)):
        s = blank_state(krone=20)
        E.front_add(s, env, fighter)
        quest(s, env)
        assert s[L.KRONE] == expected


def test_market_purchase_greedy_trader():
    market = [{"op": "market", "sells": ["buffs", "stamina"], "recruit": False}]
    env = env_of(with_changes(quests=[market]))
    s = blank_state(krone=30, stamina=5)
    E.front_add(s, env, A)
    taken = quest(s, env, params=GREEDY)
    # greedy_trader: Stamina up to 7 (2 x 10 Krone), then Health first: the best Health Buff for the
    # last 10 Krone is a +2 (5 Krone per point); then nothing is affordable.
    assert s[L.KRONE] == 0 and s[L.STAMINA] == 7
    held = [c for c in range(L.N_BUFFS) if s[L.WHERE + c] == L.HAND]
    assert [(CARDS.buffs[c].type, CARDS.buffs[c].value) for c in held] == [(2, 2)]
    # then it stops (a same-cost swap of the +2 Health for another type is still possible: the Market asks)
    assert taken == [("market", L.MK_STAMINA)] * 2 + [("market", L.MK_BUY + held[0]), ("market", L.MK_STOP)]


def test_market_trade_up():
    market = [{"op": "market", "sells": ["buffs"], "recruit": False}]
    env = env_of(with_changes(quests=[market]))
    s = blank_state(krone=5)
    E.front_add(s, env, A)
    plus1 = next(c for c, b in enumerate(CARDS.buffs) if b.type == 1 and b.value == 1)
    s[L.WHERE + plus1] = L.HAND
    params = pol.param_vector({"krone_reserve": 0, "buff_priority": 1, "buffs_per_type": 1})
    quest(s, env, params=params)
    # "a +1 Shield Buff and 5 Krone can be traded for a +2"
    held = [(CARDS.buffs[c].type, CARDS.buffs[c].value) for c in range(L.N_BUFFS) if s[L.WHERE + c] == L.HAND]
    assert held == [(1, 2)] and s[L.WHERE + plus1] == L.LOOT and s[L.KRONE] == 0


def test_pickpocket_and_thief():
    env = env_of(with_changes(quests=[[{"op": "pickpocket", "amount": 10}]]))
    thief = next(L.N_BUFFS + e for e, ev in enumerate(CARDS.events) if ev.kind == E.EV_THIEF)
    for has_thief, krone in ((False, 5), (True, 15)):
        s = blank_state(krone=15)
        E.front_add(s, env, A)
        if has_thief:
            s[L.WHERE + thief] = L.HAND
        taken = quest(s, env)
        assert taken == ([("thief", 1)] if has_thief else [])
        assert s[L.KRONE] == krone and s[L.WHERE + thief] == (L.GRAVEYARD if has_thief else L.LOOT)


def test_gain_any_buff_is_a_choice():
    env = env_of(with_changes(quests=[[{"op": "gain_buff", "buff_type": "any", "value": 2}]]))
    s = blank_state()
    E.front_add(s, env, A)
    E.start_quest(s, env, 0)
    rng, prng = streams()
    E.advance(s, rng, env)
    assert s[L.PHASE] == L.PH_GAIN_BUFF and legal_list(FNS, s, env, L.MAX_ACTIONS) == [0, 1, 2]
    E.apply_action(s, rng, env, 1)
    held = [(CARDS.buffs[c].type, CARDS.buffs[c].value) for c in range(L.N_BUFFS) if s[L.WHERE + c] == L.HAND]
    assert held == [(1, 2)]


# --- whole Lonequests from a position --------------------------------------------------------

def test_defeat_by_stamina():
    env = env_of()
    s = blank_state(stamina=1, loc=0)
    for loc in range(1, L.N_LOC):
        s[L.LOC_N + loc] = 5
    L.deck_push_bottom(s, L.WB_HEAD, A)
    # Location 0 is cleared; every other one is not, and marching costs 2 Stamina: "Too Tired to Go On?"
    play_out(s, env)
    assert s[L.DONE] == 1 and s[L.CAUSE] == L.CAUSE_NO_STAMINA


def test_a_win_clearing_the_last_location():
    env = env_of(with_changes(quests=[[{"op": "krone", "amount": 1}]]))
    s = blank_state(krone=20, stamina=3, loc=1)
    s[L.LOC_N + 1] = 1
    s[L.CLEARED + 1] = 0
    s[L.LOC_CARDS + L.LOC_SIZE * 1] = -1  # Quest 0
    L.deck_push_bottom(s, L.WB_HEAD, A)
    play_out(s, env)
    assert s[L.DONE] == 1 and s[L.CAUSE] == L.CAUSE_NONE and E.reward(s, env, 0) == 1.0
    assert all(s[L.LOC_N + loc] == 0 for loc in range(L.N_LOC)) and s[L.CLEARED + 1] == 1
    assert s[L.KRONE] == 20 + 1 + 10 and s[L.STAMINA] == 3 + 3  # the Quest, then "10 Krone and 3 Stamina"
    assert L.deck_len(s, L.WB_HEAD) == 1 and s[L.FRONT_N] == 0  # the Fighter back at the bottom of the deck
    assert s[L.QSEEN + 0] == 1


def test_summon_and_equip_are_decisions():
    env = env_of(with_changes(quests=[[{"op": "krone", "amount": 1}]]))
    s = blank_state(krone=0, stamina=5, loc=1)
    s[L.LOC_N + 1] = 1
    s[L.LOC_CARDS + L.LOC_SIZE * 1] = -1
    L.deck_push_bottom(s, L.WB_HEAD, A)
    L.deck_push_bottom(s, L.WB_HEAD, B)
    strike1 = next(c for c, b in enumerate(CARDS.buffs) if b.type == 0 and b.value == 1)
    s[L.WHERE + strike1] = L.HAND
    taken = play_out(s, env)
    # "Prepare!" draws A, "Equip?" puts the Strike Buff on it, "Summon?" (Stamina 5 >= 5) brings B; the Quest
    # clears the map: 2 Stamina spent, 3 gained, both Fighters back in the Warband Deck
    assert taken == [("equip", L.EQ_BASE + strike1), ("summon", 1)]
    assert s[L.STAMINA] == 5 - 2 + 3 and L.deck_len(s, L.WB_HEAD) == 2 and s[L.TESTS] == 1


def test_the_random_policy_may_march_on_before_a_location_is_cleared():
    env = env_of()
    s = blank_state(stamina=4, loc=0)
    s[L.START] = 0
    for loc in range(L.N_LOC):
        s[L.LOC_N + loc] = 1
    s[L.PHASE] = L.PH_EXPLORE
    E.front_add(s, env, A)
    legal = legal_list(FNS, s, env, L.MAX_ACTIONS)
    # "If more cards remain in the location you're in EXPLORE or MARCH" (2 Stamina each way)
    succ = [t for t in range(L.N_LOC) if DATA[5][0, t]]
    assert legal == sorted(set(succ) - {0}) + [L.EXPLORE]


# --- regressions found in review ---------------------------------------------------------------

def test_fireblast_hits_its_target_even_when_the_left_neighbour_survives():
    # three Marauders no Fighter can True Strike (Shields 6, 7, 6 against Strike 5): under fireblast =
    # "fighter_plus_3" the heuristic Fireblasts the highest Shield, the middle one, with Strike 5 + 3 = 8 > 7 (a
    # True Strike, no dice)
    data = with_changes({A: (5, 3, 3), M: (0, 5, 6), M2: (0, 5, 7), B: (0, 5, 6)})
    env = env_of(data, rules=rules_vector(fireblast="fighter_plus_3"))
    fire = next(L.N_BUFFS + e for e, ev in enumerate(CARDS.events) if ev.kind == E.EV_FIREBLAST)
    s = blank_state(stamina=3)
    E.front_add(s, env, A)
    for m in (M, M2, B):
        E.add_marauder(s, env, m)
    s[L.WHERE + fire] = L.HAND
    taken = battle(s, env, until=lambda s: s[L.PHASE] == L.PH_STRIKE)
    assert taken == [("special", L.SP_FIREBLAST + 1)]
    # "deal 2 damage to it and 1 damage to any other Frontline enemies on either side of it"
    assert [s[L.MAR + 2 * j + 1] for j in range(3)] == [1, 2, 1]
    assert s[L.WHERE + fire] == L.GRAVEYARD


def test_played_follows_the_fighters_to_a_new_location():
    env = env_of()
    s = blank_state(loc=0)
    E.front_add(s, env, A)
    E.move_to(s, env, 3)
    assert s[L.PLAYED + 3] & (1 << KNIGHTS)


def test_forced_move_back_at_the_start_costs_nothing():
    env = env_of(with_changes(quests=[[{"op": "move", "to": "back", "stamina_cost": 2}]]))
    s = blank_state(stamina=3, loc=0)  # PREV_LOC = -1: the start of the game
    E.front_add(s, env, A)
    quest(s, env)
    assert s[L.STAMINA] == 3 and s[L.LOC] == 0


def test_the_start_location_is_always_reachable_for_free():
    # only the start Location (0) is left uncleared and no arrow leads to it from here: marching there is free
    env = env_of(with_changes(quests=[[{"op": "krone", "amount": 1}]]))
    s = blank_state(stamina=0, loc=5)
    s[L.START] = 0
    s[L.LOC_N + 0] = 1
    s[L.LOC_CARDS + 0] = -1
    L.deck_push_bottom(s, L.WB_HEAD, A)
    play_out(s, env)
    assert s[L.CAUSE] == L.CAUSE_NONE and s[L.CLEARED + 0] == 1


def test_thief_cannot_steal_itself():
    env = env_of(with_changes(quests=[[{"op": "market", "sells": [], "recruit": False}]]))
    thieves = [L.N_BUFFS + e for e, ev in enumerate(CARDS.events) if ev.kind == E.EV_THIEF]
    for seed in range(40):
        s = blank_state(krone=0)
        E.front_add(s, env, A)
        for c in range(L.N_BUFFS + L.N_EVENTS):
            s[L.WHERE + c] = L.LOOT if c in (0, 1, 2) else L.HAND
        for t in thieves[1:]:
            s[L.WHERE + t] = -1  # out of play in this position
        taken = quest(s, env, params=GREEDY, seed=seed)
        assert ("market", L.MK_THIEF) in taken
        # the Loot deck held Buffs 0, 1, 2: the Thief steals two of them and then goes to the Graveyard
        assert s[L.WHERE + thieves[0]] == L.GRAVEYARD
        assert sum(s[L.WHERE + c] == L.HAND for c in (0, 1, 2)) == 2


# --- issue 10: every Health change goes through one death check -----------------------------------

def _health_buff(value=1):
    return next(c for c, b in enumerate(CARDS.buffs) if b.type == 2 and b.value == value)


def test_losing_an_equipped_health_buff_kills_a_fighter_at_zero_health():
    env = env_of(with_changes({A: (1, 2, 0), B: (1, 2, 0)}, quests=[[{"op": "lose_buff", "buff_type": "health"}]]))
    s = blank_state()
    E.front_add(s, env, A)
    E.front_add(s, env, B)
    hb = _health_buff()
    s[slot_buff(0, 2)] = hb
    s[L.WHERE + hb] = L.EQUIPPED
    s[L.FRONT + L.F_DAMAGE] = 2  # A: 2 + 1 Health, 2 damage: alive only thanks to the Buff
    quest(s, env)
    # "When a Fighter is reduced to 0 Health, that Fighter, and any Buffs equipped to it are moved to the
    # Graveyard" (the Buff to the Loot deck)
    assert s[L.GRAVE + A] == 1 and s[L.FRONT_N] == 1 and s[L.FRONT] == B and s[L.WHERE + hb] == L.LOOT


def test_retreat_stripping_a_health_buff_kills_a_fighter_at_zero_health():
    env = env_of(with_changes({A: (1, 2, 0), B: (1, 3, 0), M: (0, 9, 9)}))
    s = blank_state(stamina=6)
    E.front_add(s, env, A)
    E.front_add(s, env, B)
    E.add_marauder(s, env, M)
    hb = _health_buff()
    s[slot_buff(0, 2)] = hb
    s[L.WHERE + hb] = L.EQUIPPED
    s[L.FRONT + L.F_DAMAGE] = 2
    E.start_battle(s)
    rng, _ = streams()
    E.advance(s, rng, env)
    assert s[L.PHASE] == L.PH_SPECIAL
    dest = next(t for t in range(L.N_LOC) if DATA[5][0, t])
    E.apply_action(s, rng, env, L.SP_RETREAT + dest)
    assert s[L.GRAVE + A] == 1 and s[L.WHERE + hb] == L.LOOT and s[L.LOC] == dest
    assert s[L.FRONT_N] == 1 and s[L.FRONT] == B


def slot_buff(i, t):
    return L.FRONT + i * L.F_SIZE + L.F_BUFF0 + t


# --- the interface: random legal play, invariants, determinization, reproducibility -------------

def _policies():
    return [(H, CAUTIOUS), (H, AGGRESSIVE), (H, GREEDY), (R, pol.param_vector()),
            (H, pol.param_vector({"route": 2, "offering": 0, "divine_aid": 0}))]


def test_random_legal_play_keeps_every_invariant():
    """Many whole games (heuristics and random): every action legal, the invariants after every step."""
    dg = get_mode("valka", "lonequest")[1].engine()
    buf = np.empty(dg.max_actions, np.int64)
    prng = np.empty(4, np.uint64)
    phases = set()
    for g in range(250):
        s, rng, env = dg.new_game(g)
        assert dg.invariants(s, env) == 0 and s[L.PHASE] == L.PH_START
        kind, params = _policies()[g % 5]
        seed_stream(prng, block_key(g, 1), 0, 0)
        steps = 0
        while not dg.fns.is_over(s):
            n = dg.fns.legal_actions(s, env, buf)
            legal = [int(x) for x in buf[:n]]
            assert n >= 1 and legal == sorted(set(legal)) and 0 <= legal[0] and legal[-1] < dg.max_actions
            phases.add(int(s[L.PHASE]))
            assert dg.fns.to_move(s) == 0
            a = dg.fns.policy(kind, s, env, buf, n, params, prng)
            assert a in legal, (g, L.PHASES[s[L.PHASE]], a, legal)
            dg.fns.apply_action(s, rng, env, a)
            assert dg.invariants(s, env) == 0, (g, steps, E.INVARIANTS[dg.invariants(s, env)])
            steps += 1
        assert dg.fns.legal_actions(s, env, buf) == 0 and dg.fns.reward(s, env, 0) in (0.0, 1.0)
    assert {L.PH_START, L.PH_SUMMON, L.PH_EQUIP, L.PH_MARCH, L.PH_EXPLORE, L.PH_SPECIAL, L.PH_STRIKE,
            L.PH_OFFER, L.PH_MARKET} <= phases


def test_the_fast_kernel_matches_the_interface_and_is_reproducible():
    env = env_of()
    warbands = np.array([KNIGHTS, GOBLINS, KNIGHTS])
    kinds = np.array([H, H, R])
    params = np.stack([CAUTIOUS, GREEDY, pol.param_vector()])
    a = np.zeros((3 * 40, 14), np.int32)
    b = np.zeros_like(a)
    play_block(block_key(11, 0), 40, warbands, kinds, params, env, a)
    play_block(block_key(11, 0), 40, warbands, kinds, params, env, b)
    assert (a == b).all()
    # the same games through the interface, one decision at a time (policy() with the legal list)
    from simkit.games.valka.lonequest.simulation import record

    for c in range(3):
        for g in range(40):
            s = np.zeros(L.STATE_SIZE, np.int32)
            rng, prng = np.empty(4, np.uint64), np.empty(4, np.uint64)
            seed_stream(rng, block_key(11, 0), g, 0)
            seed_stream(prng, block_key(11, 0), g, 1)
            E.setup(s, rng, env, warbands[c])
            E.advance(s, rng, env)
            buf = np.empty(L.MAX_ACTIONS, np.int64)
            while not E.is_over(s):
                n = E.legal_actions(s, env, buf)
                E.apply_action(s, rng, env, pol.policy(kinds[c], s, env, buf, n, params[c], prng))
            row = np.zeros(14, np.int32)
            record(s, row)
            assert (row == a[c * 40 + g]).all(), (c, g)


def _hidden_shuffled(s, rng_seed):
    """The same position with the face-down cards in another order (what the player cannot see)."""
    t = s.copy()
    r = np.random.default_rng(rng_seed)
    L.deck_linearize(t, L.WB_HEAD)
    t[L.WB:L.WB + t[L.WB_N]] = r.permutation(t[L.WB:L.WB + t[L.WB_N]])
    L.deck_linearize(t, L.FD_HEAD)
    face_down = [(loc, i) for loc in range(L.N_LOC) for i in range(t[L.LOC_N + loc])]
    cards = [t[L.LOC_CARDS + L.LOC_SIZE * loc + i] for loc, i in face_down]
    fd = list(t[L.FD:L.FD + t[L.FD_N]])
    pool_f = r.permutation([c for c in cards if c >= 0] + fd)
    n_loc_f = sum(c >= 0 for c in cards)
    quests = [c for c in cards if c < 0]
    deal = r.permutation(list(pool_f[:n_loc_f]) + quests)
    for (loc, i), c in zip(face_down, deal):
        t[L.LOC_CARDS + L.LOC_SIZE * loc + i] = c
    t[L.FD:L.FD + t[L.FD_N]] = pool_f[n_loc_f:]
    return t


def test_resample_is_canonical_and_keeps_what_is_seen():
    dg = get_mode("valka", "lonequest")[1].engine()
    buf = np.empty(dg.max_actions, np.int64)
    prng = np.empty(4, np.uint64)
    checked = 0
    for g in range(20):
        s, rng, env = dg.new_game(g)
        seed_stream(prng, block_key(g, 1), 0, 0)
        for step in range(60):
            if dg.fns.is_over(s):
                break
            if step % 10 == 5:
                other = _hidden_shuffled(s, g * 100 + step)
                assert dg.invariants(other, env) == 0
                out = []
                for t in (s.copy(), other):
                    r = np.ones(4, np.uint64)
                    srng = np.empty(4, np.uint64)
                    seed_stream(srng, block_key(99, 0), step, 0)
                    dg.fns.resample(t, r, env, 0, srng)
                    assert dg.invariants(t, env) == 0
                    out.append((t, r))
                assert (out[0][0] == out[1][0]).all() and (out[0][1] == out[1][1]).all()
                # what the player sees is unchanged
                t = out[0][0]
                for k in (L.KRONE, L.STAMINA, L.LOC, L.FRONT_N, L.MAR_N, L.WB_N, L.FD_N, L.PHASE):
                    assert t[k] == s[k]
                assert (t[L.LOC_N:L.LOC_N + L.N_LOC] == s[L.LOC_N:L.LOC_N + L.N_LOC]).all()
                assert (t[L.FRONT:L.MAR + 2 * L.MAX_MAR] == s[L.FRONT:L.MAR + 2 * L.MAX_MAR]).all()
                assert (t[L.WHERE:L.START + 1] == s[L.WHERE:L.START + 1]).all()
                assert legal_list(dg.fns, t, env, L.MAX_ACTIONS) == legal_list(dg.fns, s, env, L.MAX_ACTIONS)
                checked += 1
            n = dg.fns.legal_actions(s, env, buf)
            dg.fns.apply_action(s, rng, env, dg.fns.policy(R, s, env, buf, n, pol.param_vector(), prng))
    assert checked >= 40


def test_new_game_is_reproducible_from_its_seed():
    dg = get_mode("valka", "lonequest")[1].engine()
    for seed in (0, 7):
        a, ra, env = dg.new_game(seed)
        b, rb, _ = dg.new_game(seed)
        assert (a == b).all() and (ra == rb).all()
        kind, params = dg.policies["cautious"]
        for s, rng in ((a, ra), (b, rb)):
            prng = np.ones(4, np.uint64)
            buf = np.empty(dg.max_actions, np.int64)
            while not dg.fns.is_over(s):
                n = dg.fns.legal_actions(s, env, buf)
                dg.fns.apply_action(s, rng, env, dg.fns.policy(kind, s, env, buf, n, params, prng))
        assert (a == b).all()
    assert set(dg.policies) >= {"cautious", "aggressive", "greedy_trader", "random"}


# --- statistical checks ------------------------------------------------------------------------

def _win_rate(data, rules, warband, kind, params, n=400, seed=5):
    out = np.zeros((n, 14), np.int32)
    play_block(block_key(seed, 0), n, np.array([warband]), np.array([kind]), params[None, :],
               make_env(data, rules), out)
    return out[:, 0].mean(), out


def test_degenerate_scenario_is_always_won():
    own = set(fighter_ids(KNIGHTS))
    weak = {f: (0, 1, 0) for f in range(len(CARDS.fighters)) if f not in own}  # 0 Strike, 1 Health, 0 Shield
    harmless = [[{"op": "krone", "amount": 1}]] * 36
    data = with_changes(weak, harmless)
    for params in (CAUTIOUS, GREEDY, AGGRESSIVE):
        rate, out = _win_rate(data, RULES, KNIGHTS, H, params)
        assert rate == 1.0, np.unique(out[:, 1], return_counts=True)


def test_unwinnable_scenario_is_never_won():
    own = fighter_ids(KNIGHTS)
    stats = {f: (9, 120, 9) for f in range(len(CARDS.fighters)) if f not in own}
    stats.update({f: (0, 1, 0) for f in own})
    tiring = [[{"op": "stamina", "amount": -9}]] * 36
    data = with_changes(stats, tiring)
    rules = rules_vector(krone=0, stamina=0)
    for kind, params in ((H, CAUTIOUS), (R, pol.param_vector())):
        rate, _ = _win_rate(data, rules, KNIGHTS, kind, params)
        assert rate == 0.0


def test_heuristics_beat_the_random_baseline():
    rates = {}
    for name in ("cautious", "aggressive", "greedy_trader", "random"):
        kind, values = pol.PRESETS[name]
        rates[name], _ = _win_rate(DATA, RULES, KNIGHTS, pol.KINDS[kind], pol.param_vector(values), n=600)
    assert min(rates["cautious"], rates["aggressive"], rates["greedy_trader"]) > rates["random"] + 0.3, rates


def test_chance_strikes_in_battles_match_the_exact_odds():
    """Every Chance Strike of 3,000 Lonequests, grouped by (Strike, Shield), against the exact outcome odds."""
    log = np.zeros(1 + 3 * 400_000, np.int32)
    play_logged(block_key(9, 0), 3000, KNIGHTS, H, CAUTIOUS, make_env(DATA, RULES, log=log))
    k = log[0]
    rows = log[1:1 + 3 * k].reshape(k, 3)
    assert k > 5000
    stat, dof = 0.0, 0
    for (strike, shield) in {tuple(r) for r in rows[:, :2]}:
        sel = rows[(rows[:, 0] == strike) & (rows[:, 1] == shield), 2]
        exact = outcome_distribution(int(strike), int(shield), ChanceStrikeRules())
        p = np.array([float(exact[c]) for c in range(4)])
        obs = np.bincount(sel, minlength=4)
        keep = p > 0
        if sel.size * p[keep].min() < 5:
            continue
        stat += float(((obs[keep] - sel.size * p[keep]) ** 2 / (sel.size * p[keep])).sum())
        dof += int(keep.sum()) - 1
    assert dof >= 6
    assert st.chi2.sf(stat, dof) > 0.001, (stat, dof)


# --- issue 10, item 1: every Event kind reachable ------------------------------------------------------

def ev_cards(kind):
    """The card indices (22 + e) of the Events of one kind."""
    return [L.N_BUFFS + e for e, ev in enumerate(CARDS.events) if ev.kind == kind]


def hand_cards(s):
    return [c for c in range(L.N_BUFFS + L.N_EVENTS) if s[L.WHERE + c] == L.HAND]


def test_quest_gains_an_event_of_a_kind_and_draws_loot():
    env = env_of(with_changes(quests=[[{"op": "gain_event", "kind": "grave_robber"},
                                       {"op": "draw_loot", "amount": 2}]]))
    s = blank_state()
    E.front_add(s, env, A)
    quest(s, env)
    # the first Grave Robber of the Loot deck, then two random Loot cards: three cards in hand
    assert s[L.WHERE + ev_cards(E.EV_GRAVE_ROBBER)[0]] == L.HAND and len(hand_cards(s)) == 3
    # none of that kind left in the Loot deck: nothing; a Loot deck of 2 cards gives its 2 for "draw 3"
    env = env_of(with_changes(quests=[[{"op": "gain_event", "kind": "fear"}, {"op": "draw_loot", "amount": 3}]]))
    s = blank_state()
    E.front_add(s, env, A)
    s[L.WHERE:L.WHERE + L.N_BUFFS + L.N_EVENTS] = L.GRAVEYARD
    s[L.WHERE:L.WHERE + L.N_BUFFS] = L.HAND
    s[L.WHERE + 0] = s[L.WHERE + 1] = L.LOOT
    s[L.WHERE + L.N_BUFFS] = L.LOOT if CARDS.events[0].kind != E.EV_FEAR else L.GRAVEYARD
    loot = [c for c in range(L.N_BUFFS + L.N_EVENTS) if s[L.WHERE + c] == L.LOOT]
    quest(s, env)
    assert all(s[L.WHERE + c] == L.HAND for c in loot)
    assert all(s[L.WHERE + c] == L.GRAVEYARD for c in ev_cards(E.EV_FEAR))


def test_every_event_kind_is_gained_and_played_in_the_bundled_scenario():
    """Trace whole games of the bundled scenario: an Event is gained when it moves from the Loot deck to the hand,
    played when it leaves the hand (spent). Every kind is both; the heuristics play the six kinds Markets do not
    sell; greedy_trader "steals with Thieves" in Markets."""
    dg = get_mode("valka", "lonequest")[1].engine()
    buf = np.empty(dg.max_actions, np.int64)
    prng = np.empty(4, np.uint64)
    where = slice(L.WHERE + L.N_BUFFS, L.WHERE + L.N_BUFFS + L.N_EVENTS)
    kinds = np.array([ev.kind for ev in CARDS.events])
    gained, played, by_heuristic, steals = set(), set(), set(), 0
    for name in ("cautious", "aggressive", "greedy_trader", "random"):
        kind, params = dg.policies[name]
        for g in range(100):
            s, rng, env = dg.new_game(g)
            seed_stream(prng, block_key(g, 1), 0, 0)
            while not dg.fns.is_over(s):
                before = s[where].copy()
                n = dg.fns.legal_actions(s, env, buf)
                a = dg.fns.policy(kind, s, env, buf, n, params, prng)
                steals += name == "greedy_trader" and s[L.PHASE] == L.PH_MARKET and a == L.MK_THIEF
                dg.fns.apply_action(s, rng, env, a)
                after = s[where]
                gained |= set(kinds[(before == L.LOOT) & (after == L.HAND)].tolist())
                spent = set(kinds[(before == L.HAND) & (after == L.GRAVEYARD)].tolist())
                played |= spent
                if kind == H:
                    by_heuristic |= spent
    assert gained == played == set(range(10))
    assert {E.EV_FEAR, E.EV_DIVINE_AID, E.EV_FIREBLAST, E.EV_LIGHTNING, E.EV_THIEF, E.EV_GRAVE_ROBBER} <= by_heuristic
    assert steals > 0


def test_lightning_bolt_is_played_when_it_pays_on_average():
    # one Marauder with 1 Health, one Fighter with 3: X = 1..10 all defeat the Marauder; X >= 4 also brings the
    # bolt round to the Fighter three times (X = 4..10: 7 of 10). Expected gain 1 - 0.7 = 0.3.
    data = with_changes({A: (1, 3, 0), M: (0, 1, 9)})
    bolt = ev_cards(E.EV_LIGHTNING)[0]
    for params, plays in ((AGGRESSIVE, True), (CAUTIOUS, False)):
        env = env_of(data, dice=(2,))
        s = blank_state(krone=0, stamina=3)
        E.front_add(s, env, A)
        E.add_marauder(s, env, M)
        s[L.WHERE + bolt] = L.HAND
        assert pol.lightning_gain(s, env) == pytest.approx(0.3)
        taken = battle(s, env, params=params, until=lambda s: s[L.PHASE] == L.PH_STRIKE)
        assert (("special", L.SP_LIGHTNING) in taken) == plays  # aggressive: at least 0.3; cautious: 0.7
        if plays:  # X = 2: the Marauder falls, then 1 damage to the Fighter
            assert s[L.DEFEATED] == 1 and s[L.FRONT + L.F_DAMAGE] == 1 and s[L.WHERE + bolt] == L.GRAVEYARD


@pytest.mark.parametrize("params", [CAUTIOUS, AGGRESSIVE, GREEDY])
def test_the_heuristics_use_a_grave_robber_as_soon_as_a_fighter_has_fallen(params):
    # a full Warband Deck of 3 and one of yours in the Graveyard: the Grave Robber has no other use
    env = env_of()
    s = blank_state()
    for f in (A, M, M2):
        L.deck_push_bottom(s, L.WB_HEAD, f)
    s[L.GRAVE + B] = 1
    s[L.WHERE + ev_cards(E.EV_GRAVE_ROBBER)[0]] = L.HAND
    s[L.LOC_N + 3] = 5  # something left to explore
    s[L.T_STAGE] = L.T_GRAVE
    rng, prng = streams()
    E.advance(s, rng, env)
    assert s[L.PHASE] == L.PH_GRAVE
    buf = np.empty(L.MAX_ACTIONS, np.int64)
    n = E.legal_actions(s, env, buf)
    assert pol.policy(H, s, env, buf, n, params, prng) == 1 + B


# --- issue 10, item 3: Bribe and marching agree on where you can travel ----------------------------------

@pytest.mark.parametrize("escape, reachable", [("reachable", True), ("arrow", False)])
def test_bribe_escapes_to_any_cleared_location(escape, reachable):
    # in the Spine Mountains (5), no arrow leads out; only the Desert Coast (0) is cleared. "You can return to any
    # cleared Location, for free": by default Bribe and Retreat may go there, as marching can
    adj = DATA[5]
    assert adj[5].sum() == 0
    env = env_of(rules=rules_vector(escape=escape))
    s = blank_state(krone=20, stamina=5, loc=5)
    for loc in range(1, L.N_LOC):
        s[L.LOC_N + loc] = 5
    E.front_add(s, env, A)
    E.add_marauder(s, env, M)
    E.start_battle(s)
    rng, _ = streams()
    E.advance(s, rng, env)
    legal = legal_list(FNS, s, env, L.MAX_ACTIONS) if s[L.PHASE] == L.PH_SPECIAL else []
    assert (L.SP_BRIBE + 0 in legal) == reachable and (L.SP_RETREAT + 0 in legal) == reachable
    assert not any(L.SP_BRIBE + t in legal for t in range(1, L.N_LOC))  # Bribe: cleared Locations only
    if reachable:
        E.apply_action(s, rng, env, L.SP_BRIBE + 0)
        assert s[L.LOC] == 0 and s[L.KRONE] == 10 and L.deck_peek(s, L.FD_HEAD, s[L.FD_N] - 1) == M


# --- issue 10, item 4: the eight Warband Boons -----------------------------------------------------------

from simkit.games.valka import boons as BN  # noqa: E402

WB = {w: fighter_ids(i) for i, w in enumerate(WARBANDS)}
JOKERS = fighter_ids(8)
OFF_RULES = rules_vector(warband_boons=False)


def frontline(env, fighters, s=None):
    s = blank_state() if s is None else s
    for f in fighters:
        E.front_add(s, env, f)
    return s


def test_goblin_and_knight_boons_raise_every_frontline_fighter():
    env = env_of()
    g1, g2 = WB["goblins"][:2]
    k1, k2 = WB["knights"][:2]
    s = frontline(env, [k1, g1])
    strikes = [E.total_strike(s, env, i) for i in range(2)]
    shields = [E.total_shield(s, env, i) for i in range(2)]
    assert s[L.BOON + GOBLINS] == BN.OFF
    E.front_add(s, env, g2)  # "ALL of your Frontline Fighters have a +1 to Strike" (the Knight too)
    assert s[L.BOON + GOBLINS] == BN.DYAD and [E.total_strike(s, env, i) for i in range(2)] == [v + 1 for v in strikes]
    E.front_add(s, env, k2)
    assert [E.total_shield(s, env, i) for i in range(2)] == [v + 1 for v in shields]
    off = env_of(rules=OFF_RULES)
    t = frontline(off, [k1, g1, g2, k2])
    assert (t[L.BOON:L.BOON + 8] == 0).all() and E.total_strike(t, off, 0) == strikes[0]
    # a Joker joins a Warband with a real Fighter; two Jokers alone activate nothing
    assert frontline(env, [g1, JOKERS[0]])[L.BOON + GOBLINS] == BN.DYAD
    assert (frontline(env, JOKERS)[L.BOON:L.BOON + 8] == 0).all()


def test_berserker_barrage_doubles_a_barbarians_true_strike():
    b1, b2 = WB["barbarians"][:2]
    env = env_of(with_changes({b1: (5, 3, 1), b2: (5, 3, 1), A: (5, 3, 1), M: (0, 9, 0)}))
    s = frontline(env, [b1, b2, A])
    E.add_marauder(s, env, M)
    rng, _ = streams()
    E.apply_strike(s, rng, env, L.ST_TRUE + 0 * L.MAX_MAR + 0)  # a Barbarian: "deal 2 Damage"
    assert s[L.MAR + 1] == 2
    E.apply_strike(s, rng, env, L.ST_TRUE + 2 * L.MAX_MAR + 0)  # the Knight beside them: 1
    assert s[L.MAR + 1] == 3


def test_weird_warp_draws_three_loot_cards():
    env = env_of()
    s = frontline(env, WB["brotherhood"][:2])
    assert s[L.BN_WARP] == 1
    rng, _ = streams()
    E.advance(s, rng, env)
    assert s[L.BN_WARP] == 0 and len(hand_cards(s)) == 3
    off = env_of(rules=OFF_RULES)
    assert frontline(off, WB["brotherhood"][:2])[L.BN_WARP] == 0


def test_monstrous_roar_sends_the_chosen_marauder_away_unrewarded():
    env = env_of()
    s = blank_state()
    E.add_marauder(s, env, M)
    E.add_marauder(s, env, M2)
    frontline(env, WB["monsters"][:2], s)
    rng, _ = streams()
    E.advance(s, rng, env)
    assert s[L.PHASE] == L.PH_BOON and legal_list(FNS, s, env, L.MAX_ACTIONS) == [0, 1]
    E.apply_action(s, rng, env, 1)
    assert s[L.MAR_N] == 1 and s[L.MAR] == M and L.deck_peek(s, L.FD_HEAD, 0) == M2
    assert s[L.DEFEATED] == 0 and s[L.GRAVE + M2] == 0


def test_magic_storm_hits_marauders_and_a_horde_storms_every_attack():
    data = with_changes({M: (0, 9, 9)})
    env = env_of(data)
    w = WB["wizards"]
    s = blank_state()
    E.add_marauder(s, env, M)
    frontline(env, w[:2], s)
    rng, _ = streams()
    E.advance(s, rng, env)  # one Marauder: "Deal 3 damage among any Frontline enemies", all to it
    assert s[L.MAR + 1] == 3 and s[L.BN_STORM] == 0
    E.boons_turn_start(s, env)  # a Deadly Dyad's "!" Boon happens once
    assert s[L.BN_STORM] == 0
    E.front_add(s, env, w[2])  # a Horrible Horde: again now, and at the start of each of your turns (Attacks)
    assert s[L.BN_STORM] == 3
    s[L.BN_STORM] = 0
    E.boons_turn_start(s, env)
    assert s[L.BN_STORM] == 3 and s[L.BOON + WARBANDS.index("wizards")] == BN.HORDE
    # no Marauder revealed: the Storm hits no one
    t = frontline(env, w[:2])
    E.advance(t, rng, env)
    assert t[L.BN_STORM] == 0


def test_deadly_dyad_lasts_to_your_next_turn_and_a_horde_until_two_are_left():
    env = env_of()
    g = WB["goblins"]
    s = frontline(env, g[:2])  # entered outside an Attack (at Prepare): lasts through the next Attack
    E.boons_turn_start(s, env)
    assert s[L.BOON + GOBLINS] == BN.DYAD
    s[L.B_ATTACKING] = 1
    E.next_round(s)  # that Attack ends
    E.boons_turn_start(s, env)  # "persist until the start of your next turn"
    assert s[L.BOON + GOBLINS] == BN.OFF
    h = frontline(env, g[:3])
    E.boons_turn_start(h, env)
    h[L.B_ATTACKING] = 1
    E.next_round(h)
    E.boons_turn_start(h, env)  # "persist indefinitely"
    assert h[L.BOON + GOBLINS] == BN.HORDE
    E.front_remove(h, env, 0, E.TO_GRAVEYARD)  # "inactive when your Frontline is reduced to 2 or fewer"
    assert h[L.BOON + GOBLINS] == BN.OFF


def test_natures_wrath_makes_a_strong_enuf_blow_a_chance_strike():
    t1, t2 = WB["tree_beasts"][:2]
    data = with_changes({t1: (1, 3, 0), t2: (1, 3, 0), M: (5, 5, 9)})
    for rules, damage, dice_used in ((RULES, 0, 2), (OFF_RULES, 1, 0)):
        env = env_of(data, rules, dice=(1, 5))  # the Marauders roll a lone 1: their Chance Strike fails
        s = blank_state(krone=0, stamina=2)  # defend first
        frontline(env, [t1, t2], s)
        E.add_marauder(s, env, M)
        battle(s, env, until=lambda s: s[L.PHASE] == L.PH_STRIKE)
        assert s[L.FRONT + L.F_DAMAGE] == damage and env[E.E_SCRIPT][0] - 1 == dice_used


def test_horde_strike_has_no_lonequest_meaning():
    env = env_of()
    r = WB["reptilios"]
    before = frontline(env, r[:1])
    s = frontline(env, r[:2])
    assert s[L.BOON + WARBANDS.index("reptilios")] == BN.DYAD
    assert E.total_strike(s, env, 0) == E.total_strike(before, env, 0)
    assert E.total_shield(s, env, 0) == E.total_shield(before, env, 0)


# --- issue 10, item 5: readings as options ---------------------------------------------------------------

@pytest.mark.parametrize("spent, where", [("graveyard", "GRAVEYARD"), ("loot", "LOOT")])
def test_spent_events_go_to_the_graveyard_or_the_loot_deck(spent, where):
    where = getattr(L, where)
    env = env_of(rules=rules_vector(spent_events=spent))
    fear = ev_cards(E.EV_FEAR)[0]
    s = blank_state(krone=0, stamina=3)
    E.front_add(s, env, A)
    E.add_marauder(s, env, M)
    s[L.WHERE + fear] = L.HAND
    E.start_battle(s)
    rng, _ = streams()
    E.advance(s, rng, env)
    E.apply_action(s, rng, env, L.SP_FEAR + 0)
    # "Once the effect of an Event card has resolved, these cards are discarded to the Graveyard"
    assert s[L.WHERE + fear] == where and s[L.MAR_N] == 0 and s[L.DEFEATED] == 0


@pytest.mark.parametrize("equipment, kept", [("all", False), ("equipped", True)])
def test_retreat_sends_all_your_equipment_to_the_loot_pile(equipment, kept):
    env = env_of(rules=rules_vector(retreat_equipment=equipment))
    s = blank_state(krone=0, stamina=6)
    E.front_add(s, env, A)
    E.add_marauder(s, env, M)
    shield = next(c for c, b in enumerate(CARDS.buffs) if b.type == 1)
    strike = next(c for c, b in enumerate(CARDS.buffs) if b.type == 0)
    s[slot_buff(0, 1)] = shield
    s[L.WHERE + shield] = L.EQUIPPED
    s[L.WHERE + strike] = L.HAND  # "This is your starting equipment": Buffs in hand are equipment too
    E.start_battle(s)
    rng, _ = streams()
    E.advance(s, rng, env)
    dest = next(t for t in range(L.N_LOC) if DATA[5][0, t])
    E.apply_action(s, rng, env, L.SP_RETREAT + dest)
    assert s[L.WHERE + shield] == L.LOOT and s[L.WHERE + strike] == (L.HAND if kept else L.LOOT)


@pytest.mark.parametrize("paid", [True, False])
def test_a_location_emptied_by_an_escape_pays_its_reward_or_not(paid):
    env = env_of(rules=rules_vector(escape_reward=paid))
    s = blank_state(krone=20, stamina=3, loc=1)
    s[L.LOC_N + 1] = 1
    s[L.CLEARED + 1] = 0
    s[L.LOC_CARDS + L.LOC_SIZE * 1] = M  # its last card: a Marauder
    E.front_add(s, env, A)
    s[L.T_STAGE] = L.T_EXPLORE
    rng, _ = streams()
    E.advance(s, rng, env)
    assert s[L.PHASE] == L.PH_SPECIAL
    E.apply_action(s, rng, env, L.SP_BRIBE + 0)
    # "After emptying a Location of all Marauders and Quests, you receive 10 Krone and 3 Stamina"
    assert s[L.CLEARED + 1] == 1 and E.is_won(s)
    assert (s[L.KRONE], s[L.STAMINA]) == ((20, 6) if paid else (10, 3))


@pytest.mark.parametrize("lone_one, damage", [("loses", 1), ("fails", 0)])
def test_an_attackers_lone_one_against_a_defenders_ten(lone_one, damage):
    # "If either player rolls a 10, they win the combat" against "If either player rolls a 1 they automatically
    # fail to strike": the 1 is checked first. "loses": the defender wins and deals 1 damage; "fails": no damage
    data = with_changes({A: (1, 3, 0), M: (0, 5, 9)})
    env = env_of(data, rules_vector(lone_one=lone_one), dice=(1, 10, 3))
    s = blank_state(krone=0, stamina=3)
    E.front_add(s, env, A)
    E.add_marauder(s, env, M)
    battle(s, env, until=lambda s: s[L.PHASE] == L.PH_STRIKE)
    rng, _ = streams()
    E.apply_action(s, rng, env, L.ST_CHANCE + 0)
    assert s[L.FRONT + L.F_DAMAGE] == damage and s[L.MAR + 1] == 0


def test_docs_list_every_lonequest_rule_option():
    """docs/rules.md names every [rules] option of the Lonequest with its default (issue 10: the README's claim
    that every two-way reading is an option)."""
    import inspect
    from pathlib import Path

    docs = (Path(__file__).parents[2] / "docs" / "rules.md").read_text(encoding="utf-8")
    section = docs[docs.index("### Lonequest (Lonequest Rules)"):docs.index("### Multiplayer")]
    chance = docs[docs.index("### Chance Strike"):docs.index("### Test Fate")]
    setup = {"step_cap", "krone", "stamina", "quests", "random_fighters"}
    for name, p in inspect.signature(rules_vector).parameters.items():
        if name in setup:
            continue
        default = f"`{str(p.default).lower()}`" if isinstance(p.default, bool) else f'`"{p.default}"`'
        rows = [line for line in (section + chance).splitlines() if line.startswith(f"| `{name}` |")]
        assert rows and default in rows[0].split("|")[-3], (name, default)


# --- the shared combat rules (simkit.games.valka.combat) in the Lonequest -----------------------------------

def test_lonequest_fireblast_on_double_ones_only_hurts_the_target():
    for dice, expected in (((1, 1), [0, 1, 0]), ((10, 5), [1, 2, 1]), ((2, 9), [0, 0, 0])):
        # Strike 0 + 3 against Shields 6, 7, 6: rolled. Double 1s: the target deals itself 1 damage (no 2 + 1 + 1).
        data = with_changes({A: (0, 3, 3), M: (0, 5, 6), M2: (0, 5, 7), B: (0, 5, 6)})
        env = env_of(data, dice=dice)
        fire = next(L.N_BUFFS + e for e, ev in enumerate(CARDS.events) if ev.kind == E.EV_FIREBLAST)
        s = blank_state(stamina=3)
        E.front_add(s, env, A)
        for m in (M, M2, B):
            E.add_marauder(s, env, m)
        s[L.WHERE + fire] = L.HAND
        rng, _ = streams()
        E.apply_special(s, rng, env, L.SP_FIREBLAST + 1)
        assert [s[L.MAR + 2 * j + 1] for j in range(3)] == expected, dice


def test_lonequest_team_strike_leaves_the_strongest_fighter_free():
    knights = fighter_ids(KNIGHTS)
    A_, B_, D = knights[:3]
    data = with_changes({A_: (5, 2, 5), B_: (2, 2, 5), D: (2, 2, 5), M: (0, 3, 3)})
    env = env_of(data, rules=OFF_RULES)
    s = blank_state(stamina=3)
    for f in (A_, B_, D):
        E.front_add(s, env, f)
    E.add_marauder(s, env, M)
    s[L.B_TEAM] = 1
    buf = np.empty(L.MAX_ACTIONS, np.int64)
    assert L.ST_TEAM + 0 in buf[:E.strike_list(s, env, buf)]
    rng, _ = streams()
    E.apply_strike(s, rng, env, L.ST_TEAM + 0)
    # 2 + 2 = 4 > 3 is the weakest pair; the 5 may still strike on its own
    assert [s[E.slot(i) + L.F_USED] for i in range(3)] == [0, 1, 1]
    assert s[L.MAR + 1] == 1


# --- regressions found in the sentence-by-sentence review ------------------------------------------------------

def test_a_strong_enuf_blow_stopped_by_natures_wrath_calls_no_reinforcement():
    """"Strong Enuf - If the Marauder(s) strike score(s) exceeds the combined Shield Score … your left most Frontline
    Fighter will take one damage. The Marauders' turn is over." A blow that Nature's Wrath turns into a failed Chance
    Strike is still Strong Enuf: the "Not Enuf" Test Fate for reinforcements does not follow."""
    t1, t2 = WB["tree_beasts"][:2]
    data = with_changes({t1: (1, 3, 0), t2: (1, 3, 0), M: (5, 5, 9)})
    env = env_of(data, dice=(1, 5, 2))  # the blow's Chance Strike: a lone 1, it fails; then an even d10
    s = blank_state(krone=0, stamina=2)  # defend first
    frontline(env, [t1, t2], s)
    E.add_marauder(s, env, M)
    L.deck_push_bottom(s, L.FD_HEAD, M2)
    battle(s, env, until=lambda s: s[L.PHASE] == L.PH_STRIKE)
    assert s[L.FRONT + L.F_DAMAGE] == 0
    assert s[L.MAR_N] == 1 and L.deck_len(s, L.FD_HEAD) == 1 and env[E.E_SCRIPT][0] == 3  # the even die unused


def test_a_grave_robber_can_be_used_before_a_mid_location_prepare():
    """"The GRAVE ROBBER can be used outside of combat to recover a defeated fighter in the Graveyard pile. They
    will be placed at the bottom of your Warband deck." Between cards of a Location, with the Frontline and the
    Warband Deck empty, the Grave Robber recovers a Fighter before "If you have no Warband Fighters to draw or battle
    with, you have failed this Lonequest" applies."""
    env = env_of(with_changes(quests=[[{"op": "krone", "amount": 1}]]))
    s = blank_state(krone=0, stamina=3, loc=1)
    s[L.LOC_N + 1] = 1
    s[L.CLEARED + 1] = 0
    s[L.LOC_CARDS + L.LOC_SIZE * 1] = -1  # Quest 0, the Location's last card
    s[L.GRAVE + A] = 1  # one of your Fighters has fallen
    robber = ev_cards(E.EV_GRAVE_ROBBER)[0]
    s[L.WHERE + robber] = L.HAND
    taken = play_out(s, env)
    assert taken[0] == ("grave", 1 + A)
    assert E.is_won(s) and s[L.GRAVE + A] == 0 and s[L.WHERE + robber] == L.GRAVEYARD


# --- Markets, Healing Potion, Thief, Grave Robber and Fireblast readings (second review) -------------------------

def _buff(t, v, k=0):
    """The k-th Buff card of type t and value v."""
    return [c for c, b in enumerate(CARDS.buffs) if b.type == t and b.value == v][k]


def _market_position(krone=0):
    s = blank_state(krone=krone)
    E.front_add(s, env_of(), A)
    return s


def test_market_trades_a_buff_for_another_type_of_the_same_cost():
    """"Buff cards can be traded at the same cost at Markets": +2 Strike for +2 Shield, no Krone (market_trade =
    "same_cost", the default); under "up" only the printed trade up (+1 and 5 Krone for a +2 of that type)."""
    market = with_changes(quests=[[{"op": "market", "sells": ["buffs"], "recruit": False}]])
    strike2, shield2, health2 = _buff(0, 2), _buff(1, 2), _buff(2, 2)
    for trade in ("same_cost", "up"):
        env = env_of(market, rules=rules_vector(market_trade=trade))
        s = _market_position(krone=0)
        s[L.WHERE + strike2] = L.HAND
        E.start_quest(s, env, 0)
        rng, prng = streams()
        E.advance(s, rng, env)
        if trade == "up":
            assert s[L.PHASE] != L.PH_MARKET  # nothing affordable, nothing to trade: the Market closes
            continue
        # one swap per (type, value) in the Loot deck, the lowest-numbered card: +2 Shield and +2 Health
        assert s[L.PHASE] == L.PH_MARKET
        assert legal_list(FNS, s, env, L.MAX_ACTIONS) == [L.MK_STOP, L.MK_SWAP + 3 * shield2 + 0,
                                                          L.MK_SWAP + 3 * health2 + 0]
        E.apply_action(s, rng, env, L.MK_SWAP + 3 * shield2 + 0)
        assert s[L.WHERE + strike2] == L.LOOT and s[L.WHERE + shield2] == L.HAND and s[L.KRONE] == 0
        assert sum(s[L.WHERE + c] == L.HAND for c in range(L.N_BUFFS)) == 1  # one card out, one in


def _market_by_the_rules(where, krone, trade):
    """The Buff goods a Market that sells Buffs lists, written from the rule text: for each (type, value) in the
    Loot deck (the lowest-numbered card), buy it at 5 Krone a point; trade the lowest Buff of its type in hand up
    to it for 5 Krone a point of difference; and (market_trade = "same_cost") swap for it a Buff in hand of another
    type and the same value."""
    firsts, seen = [], set()
    for c, b in enumerate(CARDS.buffs):
        if where[c] == L.LOOT and (b.type, b.value) not in seen:
            seen.add((b.type, b.value))
            firsts.append(c)
    hand = [(b.type, b.value) for c, b in enumerate(CARDS.buffs) if where[c] == L.HAND]
    buys = [L.MK_BUY + c for c in firsts if 5 * CARDS.buffs[c].value <= krone]
    trades = []
    for c in firsts:
        b = CARDS.buffs[c]
        low = min((v for t, v in hand if t == b.type), default=None)
        if low is not None and b.value > low and 5 * (b.value - low) <= krone:
            trades.append(L.MK_TRADE + c)
    swaps = [L.MK_SWAP + 3 * c + t for c in firsts for t in range(3)
             if trade == "same_cost" and t != CARDS.buffs[c].type and (t, CARDS.buffs[c].value) in hand]
    return [L.MK_STOP, *buys, *trades, *swaps]


def test_market_lists_every_buy_trade_and_swap_the_rules_allow():
    """The Market's Buff goods over 400 random splits of the Buffs between the Loot deck, the hand and play, and
    random Krone, under both trade readings, against ``_market_by_the_rules``."""
    gen = np.random.default_rng(11)
    out = np.empty(L.MAX_ACTIONS, np.int64)
    for trade in ("same_cost", "up"):
        env = env_of(rules=rules_vector(market_trade=trade))
        for _ in range(200):
            s = blank_state(krone=int(gen.integers(0, 31)))
            where = gen.choice([L.LOOT, L.HAND, L.EQUIPPED], size=L.N_BUFFS, p=[0.5, 0.3, 0.2])
            s[L.WHERE:L.WHERE + L.N_BUFFS] = where
            s[L.MK_SELLS] = 1  # Buffs only
            n = E.market_list(s, env, out, True)
            assert list(out[:n]) == _market_by_the_rules(where, int(s[L.KRONE]), trade)
            assert E.market_count(s, env) == n


def test_the_heuristic_swaps_a_spare_buff_for_a_type_it_lacks():
    # greedy_trader (buffs_per_type 2, Health first) holds three +1 Strikes and nothing else, with no Krone: it
    # swaps one +1 Strike for a +1 Health, then stops (two Strikes left: none spare)
    market = with_changes(quests=[[{"op": "market", "sells": ["buffs"], "recruit": False}]])
    strikes = [_buff(0, 1, k) for k in range(3)]
    for trade, want in (("same_cost", [("market", L.MK_SWAP + 3 * _buff(2, 1) + 0), ("market", L.MK_STOP)]),
                        ("up", [])):
        env = env_of(market, rules=rules_vector(market_trade=trade))
        s = _market_position(krone=0)
        for c in strikes:
            s[L.WHERE + c] = L.HAND
        taken = quest(s, env, params=GREEDY, until=lambda s: s[L.Q_ACTIVE] < 0)
        assert taken == want
        held = sorted((CARDS.buffs[c].type, CARDS.buffs[c].value) for c in range(L.N_BUFFS)
                      if s[L.WHERE + c] == L.HAND)
        assert held == ([(0, 1), (0, 1), (2, 1)] if trade == "same_cost" else [(0, 1)] * 3)


def _potion_position(potion, damage):
    """A (printed Health 2) with a +2 Health Buff (4 Health) and ``damage``, a Healing Potion in hand."""
    data = with_changes({A: (1, 2, 0), M: (0, 5, 9)})
    env = env_of(data, rules=rules_vector(potion=potion))
    s = blank_state()
    E.front_add(s, env, A)
    E.add_marauder(s, env, M)
    hb = _buff(2, 2)
    s[slot_buff(0, 2)] = hb
    s[L.WHERE + hb] = L.EQUIPPED
    s[L.FRONT + L.F_DAMAGE] = damage
    s[L.WHERE + ev_cards(E.EV_POTION)[0]] = L.HAND
    return s, env


@pytest.mark.parametrize("potion, damage_after", [("full", 0), ("base", 2)])
def test_healing_potion_full_or_printed_health(potion, damage_after):
    """"Brings one fighter back to full HEALTH (ignore Buffs)": all damage gone ("full"), or back to the printed
    Health only ("base": the Health Buff's 2 points of damage stay)."""
    s, env = _potion_position(potion, 3)  # 1 Health left
    out = np.empty(L.MAX_ACTIONS, np.int64)
    assert L.SP_POTION in out[:E.special_list(s, env, out)]
    E.apply_special(s, streams()[0], env, L.SP_POTION)
    assert s[L.FRONT + L.F_DAMAGE] == damage_after and E.health_left(s, env, 0) == 4 - damage_after
    # at its printed Health already (2 damage: 2 left), "base" would heal nothing: not offered
    s, env = _potion_position(potion, 2)
    assert (L.SP_POTION in out[:E.special_list(s, env, out)]) == (potion == "full")


def test_a_thief_steals_the_one_loot_card_there_is():
    """"steal two random cards from the Loot deck into your hand": with one card left, that one."""
    env = env_of(with_changes(quests=[[{"op": "market", "sells": [], "recruit": False}]]))
    thief = ev_cards(E.EV_THIEF)[0]
    s = blank_state(krone=0)
    E.front_add(s, env, A)
    for c in range(L.N_BUFFS):
        s[L.WHERE + c] = L.LOOT if c == 5 else L.HAND  # the Loot deck: one Buff
    for c in range(L.N_BUFFS, L.N_BUFFS + L.N_EVENTS):
        s[L.WHERE + c] = L.HAND if c == thief else -1  # the other Events out of play in this position
    taken = quest(s, env, params=GREEDY, until=lambda s: s[L.Q_ACTIVE] < 0)
    assert taken == [("market", L.MK_THIEF)]
    assert s[L.WHERE + 5] == L.HAND and s[L.WHERE + thief] == L.GRAVEYARD


def test_a_grave_robber_is_offered_when_a_quest_kills_the_last_fighter():
    """"The GRAVE ROBBER can be used outside of combat": a Quest's damage kills the only Frontline Fighter with
    the Warband Deck empty; the Grave Robber recovers B before "If you have no Warband Fighters to draw …, you
    have failed", B is drawn and the Quest goes on (5 Krone)."""
    env = env_of(with_changes({A: (1, 2, 0), B: (3, 3, 3)},
                              quests=[[{"op": "damage", "amount": 2}, {"op": "krone", "amount": 5}]]))
    s = blank_state(krone=0)
    E.front_add(s, env, A)
    s[L.GRAVE + B] = 1
    robber = ev_cards(E.EV_GRAVE_ROBBER)[0]
    s[L.WHERE + robber] = L.HAND
    taken = quest(s, env)
    assert taken[0] == ("grave", 1 + B)
    assert s[L.CAUSE] == L.CAUSE_NONE and E.is_won(s) and s[L.KRONE] == 5
    assert s[L.GRAVE + A] == 1 and s[L.GRAVE + B] == 0 and s[L.FRONT_N] == 1 and s[L.FRONT] == B
    # without the Grave Robber: the Lonequest is lost there
    s = blank_state(krone=0)
    E.front_add(s, env, A)
    s[L.GRAVE + B] = 1
    assert quest(s, env) == [] and s[L.CAUSE] == L.CAUSE_NO_FIGHTERS and s[L.KRONE] == 0


@pytest.mark.parametrize("fireblast, dice, damage", [("plus_3", (1, 9), 0), ("plus_3", (9, 1), 2),
                                                      ("fighter_plus_3", (), 2)])
def test_fireblast_strikes_with_3_by_default(fireblast, dice, damage):
    """"make a Chance Strike or True Strike against them with +3": by default (as the multiplayer engine) the
    Event strikes with 3 (3 against Shield 4: rolled, 1 + 3 < 9 + 4 misses, 9 + 3 > 1 + 4 hits); under
    "fighter_plus_3" with A's Strike 5 + 3 = 8 > 4, a True Strike."""
    env = env_of(with_changes({A: (5, 3, 3), M: (0, 5, 4)}), rules=rules_vector(fireblast=fireblast), dice=dice)
    s = blank_state()
    E.front_add(s, env, A)
    E.add_marauder(s, env, M)
    s[L.WHERE + ev_cards(E.EV_FIREBLAST)[0]] = L.HAND
    assert E.fireblast_strike(s, env) == (3 if fireblast == "plus_3" else 8)
    E.apply_special(s, streams()[0], env, L.SP_FIREBLAST)
    assert s[L.MAR + 1] == damage and env[E.E_SCRIPT][0] == 1 + len(dice)


def test_the_heuristic_fireblasts_where_its_strike_hits_most_often():
    # Shields 6, 7, 6 against Strike 5: no True Strike. The default Fireblast strikes with 3: a Chance Strike,
    # likelier against Shield 6 than 7: the first of them (under fighter_plus_3 the middle one: see above)
    data = with_changes({A: (5, 3, 3), M: (0, 5, 6), M2: (0, 5, 7), B: (0, 5, 6)})
    env = env_of(data)
    s = blank_state(stamina=3)
    E.front_add(s, env, A)
    for m in (M, M2, B):
        E.add_marauder(s, env, m)
    s[L.WHERE + ev_cards(E.EV_FIREBLAST)[0]] = L.HAND
    assert E.fireblast_probability(3, 6, RULES) > E.fireblast_probability(3, 7, RULES) > 0
    assert pol.heuristic_special(s, env, CAUTIOUS, streams()[1]) == L.SP_FIREBLAST + 0
