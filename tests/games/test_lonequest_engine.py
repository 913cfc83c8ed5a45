"""Lonequest rules, played from hand-built positions with fixed dice to a known end (OpenSpiel style),
plus statistical checks on whole games."""

import numpy as np
import pytest
from scipy import stats as st

from simkit.core.seeding import block_key
from simkit.games.valka.cards import WARBANDS, load_cards
from simkit.games.valka.chance_strike import ATTACKER_HITS, DEFENDER_HITS, ChanceStrikeRules, outcome_distribution
from simkit.games.valka.lonequest import engine as E
from simkit.games.valka.lonequest import layout as L
from simkit.games.valka.lonequest import policies as pol
from simkit.games.valka.lonequest.simulation import card_data, play_block, play_logged, rules_vector
from simkit.games.valka.quests import compile_effects

CARDS = load_cards()
DATA = card_data(CARDS)
RULES = rules_vector()
KNIGHTS = WARBANDS.index("knights")
GOBLINS = WARBANDS.index("goblins")
CAUTIOUS = pol.param_vector(pol.PRESETS["cautious"][1])
GREEDY = pol.param_vector(pol.PRESETS["greedy_trader"][1])
H = pol.HEURISTIC


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


def blank_state(krone=20, stamina=3, loc=0):
    """An empty position: every Location cleared, all cards in the Loot deck, nothing in play."""
    s = np.zeros(L.STATE_SIZE, np.int32)
    s[L.KRONE], s[L.STAMINA], s[L.LOC], s[L.PREV_LOC] = krone, stamina, loc, -1
    return s


def streams(seed=0):
    rng, prng = np.empty(4, np.uint64), np.empty(4, np.uint64)
    from simkit.core.rng import seed_stream

    key = block_key(seed, 0)
    seed_stream(rng, key, 0, 0)
    seed_stream(prng, key, 0, 1)
    return rng, prng


def dice(*values):
    return np.array([1, *values], np.int32)


def no_log():
    return np.zeros(1, np.int32)


A, B = fighter_ids(KNIGHTS)[:2]
M, M2 = fighter_ids(GOBLINS)[:2]


# --- battles with fixed dice -------------------------------------------------------------

def test_chance_strike_tie_goes_to_the_attacker_and_the_reward_is_paid():
    data = with_changes({A: (2, 2, 1), M: (3, 1, 4)})
    s = blank_state(krone=20, stamina=3)
    E.front_add(s, data, RULES, A)
    E.add_marauder(s, data, M)
    log = np.zeros(1 + 3 * 4, np.int32)
    rng, prng = streams()
    # Stamina 3: attack first. Strike 2 cannot beat Shield 4 (no True Strike), one Fighter (no Team
    # Strike), 2 Health (no Reckless): a Chance Strike. 5 + 2 = 7 against 3 + 4 = 7: a tie, the attacker wins.
    E.battle(s, data, RULES, H, CAUTIOUS, rng, prng, dice(5, 3), log)
    assert s[L.MAR_N] == 0 and s[L.DEFEATED] == 1 and s[L.GRAVE + M] == 2
    assert list(log[:4]) == [1, 2, 4, ATTACKER_HITS]
    assert s[L.KRONE] == 20 + 10 and s[L.STAMINA] == 3 + 1  # "10 Krone and 1 Stamina for each defeated Marauder"
    assert s[L.FRONT_N] == 1 and s[L.FRONT + L.F_DAMAGE] == 0


def test_strong_enuf_then_a_natural_one_ends_the_lonequest():
    data = with_changes({A: (2, 2, 1), M: (3, 3, 4)})
    s = blank_state(krone=0, stamina=2)
    E.front_add(s, data, RULES, A)
    E.add_marauder(s, data, M)
    rng, prng = streams()
    # Stamina 2: defend first. Strike 3 > Shield 1: "Strong Enuf", the left-most Fighter takes 1 damage.
    # Then the attack: a lone natural 1 (1 against 5) loses the combat; the defender deals the last damage.
    # The Warband Deck is empty: "If you have no Warband Fighters to draw … you have failed".
    E.battle(s, data, RULES, H, CAUTIOUS, rng, prng, dice(1, 5), no_log())
    assert s[L.FRONT_N] == 0 and s[L.GRAVE + A] == 1
    assert s[L.DONE] == 1 and s[L.CAUSE] == L.CAUSE_NO_FIGHTERS
    assert s[L.MAR + 1] == 0  # the Marauder was never hurt


def test_true_strike_needs_no_dice_and_team_strike_combines():
    data = with_changes({A: (3, 2, 5), B: (2, 2, 5), M: (0, 2, 4)})
    s = blank_state(stamina=3)
    E.front_add(s, data, RULES, A)
    E.front_add(s, data, RULES, B)
    E.add_marauder(s, data, M)
    rng, prng = streams()
    # neither 3 nor 2 exceeds Shield 4, but together 5 does: a Team Strike (1 damage), no dice used.
    script = dice()
    E.attack(s, data, RULES, H, CAUTIOUS, rng, prng, script, no_log())
    assert s[L.MAR + 1] == 1 and s[L.CHANCE_STRIKES] == 0 and script[0] == 1
    # next round the Marauder's 0 Strike is "Not Enuf": odd, no reinforcements; then another Team Strike kills it
    E.defend(s, data, RULES, H, CAUTIOUS, rng, prng, dice(3))
    assert s[L.MAR_N] == 1
    E.attack(s, data, RULES, H, CAUTIOUS, rng, prng, dice(), no_log())
    assert s[L.MAR_N] == 0 and s[L.DEFEATED] == 1


def test_not_enuf_even_calls_a_reinforcement_from_the_fighter_deck():
    data = with_changes({A: (1, 2, 1), M: (0, 5, 9)})
    s = blank_state(stamina=2)
    E.front_add(s, data, RULES, A)
    E.add_marauder(s, data, M)
    L.deck_push_bottom(s, L.FD_HEAD, M2)
    rng, prng = streams()
    E.defend(s, data, RULES, H, CAUTIOUS, rng, prng, dice(3))  # odd: nothing
    assert s[L.MAR_N] == 1
    E.defend(s, data, RULES, H, CAUTIOUS, rng, prng, dice(4))  # even: "Draw and reveal a card from the Fighter deck"
    assert s[L.MAR_N] == 2 and s[L.MAR + 2] == M2 and L.deck_len(s, L.FD_HEAD) == 0
    assert s[L.FACED + 0] & (1 << GOBLINS)


def test_strong_enuf_readings_sum_each_strongest():
    data = with_changes({A: (1, 3, 2), B: (1, 3, 0), M: (2, 5, 0), M2: (2, 5, 0)})
    for reading, expected_damage in (("sum", 1), ("each", 0), ("strongest", 0)):
        s = blank_state(stamina=2)
        E.front_add(s, data, RULES, A)
        E.add_marauder(s, data, M)
        E.add_marauder(s, data, M2)
        rng, prng = streams()
        # Strikes 2 + 2 = 4 exceed the Frontline's Shield 2 only when added up
        E.defend(s, data, rules_vector(strong_enuf=reading), H, CAUTIOUS, rng, prng, dice(3))
        assert s[L.FRONT + L.F_DAMAGE] == expected_damage, reading


# --- quests ---------------------------------------------------------------------------------

SHRINE = [{"op": "test_fate", "even": [{"op": "krone", "amount": 10}], "odd": [{"op": "stamina", "amount": -1}]},
          {"op": "krone", "amount": -5}]


@pytest.mark.parametrize("roll, offering_used, krone, stamina, offering_after", [
    (4, 0, 20 + 10 - 5, 3, 0),       # even: the good branch, then the common -5
    (3, 1, 20 - 5, 3 - 1, 1),        # odd, the offering already made: the bad branch
    (3, 0, 20 - 20 + 10 - 5, 3, 1),  # odd, 20 Krone offered to VÁLKA: the failure "instead goes in your favor"
])
def test_quest_test_fate_branches(roll, offering_used, krone, stamina, offering_after):
    data = with_changes(quests=[SHRINE])
    s = blank_state(krone=20, stamina=3)
    s[L.OFFERING_USED] = offering_used
    E.front_add(s, data, RULES, A)
    rng, prng = streams()
    E.quest(s, data, RULES, H, CAUTIOUS, rng, prng, dice(roll), no_log(), 0)
    assert (s[L.KRONE], s[L.STAMINA], s[L.OFFERING_USED]) == (krone, stamina, offering_after)
    assert s[L.TESTS] == 1 and s[L.TESTS_WON] == (roll % 2 == 0 or offering_used == 0)


def test_quest_played_condition_and_jokers():
    tribute = [{"op": "if", "played": "knights", "then": [{"op": "krone", "amount": 7}],
                "else": [{"op": "krone", "amount": -7}]}]
    data = with_changes(quests=[tribute])
    joker = next(i for i, f in enumerate(CARDS.fighters) if f.warband == 8)
    for fighter, expected in ((A, 27), (M, 13), (joker, 27)):
        s = blank_state(krone=20)
        E.front_add(s, data, RULES, fighter)
        rng, prng = streams()
        E.quest(s, data, RULES, H, CAUTIOUS, rng, prng, dice(), no_log(), 0)
        assert s[L.KRONE] == expected


def test_market_purchase_greedy_trader():
    market = [{"op": "market", "sells": ["buffs", "stamina"], "recruit": False}]
    data = with_changes(quests=[market])
    s = blank_state(krone=30, stamina=5)
    E.front_add(s, data, RULES, A)
    rng, prng = streams()
    E.quest(s, data, RULES, H, GREEDY, rng, prng, dice(), no_log(), 0)
    # greedy_trader: Stamina up to 7 (2 x 10 Krone), then Health first: the best Health Buff for the
    # last 10 Krone is a +2 (5 Krone per point); then nothing is affordable.
    assert s[L.KRONE] == 0 and s[L.STAMINA] == 7
    held = [c for c in range(L.N_BUFFS) if s[L.WHERE + c] == L.HAND]
    assert [(CARDS.buffs[c].type, CARDS.buffs[c].value) for c in held] == [(2, 2)]


def test_pickpocket_and_thief():
    data = with_changes(quests=[[{"op": "pickpocket", "amount": 10}]])
    thief = next(L.N_BUFFS + e for e, ev in enumerate(CARDS.events) if ev.kind == E.EV_THIEF)
    for has_thief, krone in ((False, 5), (True, 15)):
        s = blank_state(krone=15)
        E.front_add(s, data, RULES, A)
        if has_thief:
            s[L.WHERE + thief] = L.HAND
        rng, prng = streams()
        E.quest(s, data, RULES, H, CAUTIOUS, rng, prng, dice(), no_log(), 0)
        assert s[L.KRONE] == krone and s[L.WHERE + thief] == L.LOOT


# --- whole Lonequests from a position --------------------------------------------------------

def test_defeat_by_stamina():
    s = blank_state(stamina=1, loc=0)
    for loc in range(1, L.N_LOC):
        s[L.LOC_N + loc] = 5
    L.deck_push_bottom(s, L.WB_HEAD, A)
    rng, prng = streams()
    # Location 0 is cleared; every other one is not, and marching costs 2 Stamina: "Too Tired to Go On?"
    E.run(s, DATA, RULES, H, CAUTIOUS, rng, prng, dice(), no_log())
    assert s[L.DONE] == 1 and s[L.CAUSE] == L.CAUSE_NO_STAMINA


def test_a_win_clearing_the_last_location():
    data = with_changes(quests=[[{"op": "krone", "amount": 1}]])
    s = blank_state(krone=20, stamina=3, loc=1)
    s[L.LOC_N + 1] = 1
    s[L.LOC_CARDS + L.LOC_SIZE * 1] = -1  # Quest 0
    L.deck_push_bottom(s, L.WB_HEAD, A)
    rng, prng = streams()
    E.run(s, data, RULES, H, CAUTIOUS, rng, prng, dice(), no_log())
    assert s[L.DONE] == 1 and s[L.CAUSE] == L.CAUSE_NONE
    assert all(s[L.LOC_N + loc] == 0 for loc in range(L.N_LOC)) and s[L.CLEARED + 1] == 1
    assert s[L.KRONE] == 20 + 1 + 10 and s[L.STAMINA] == 3 + 3  # the Quest, then "10 Krone and 3 Stamina"
    assert L.deck_len(s, L.WB_HEAD) == 1 and s[L.FRONT_N] == 0  # the Fighter back at the bottom of the deck


# --- statistical checks ------------------------------------------------------------------------

def _win_rate(data, rules, warband, kind, params, n=400, seed=5):
    out = np.zeros((n, 14), np.int32)
    play_block(block_key(seed, 0), n, np.array([warband]), np.array([kind]), params[None, :], data, rules, out)
    return out[:, 0].mean(), out


def test_degenerate_scenario_is_always_won():
    own = set(fighter_ids(KNIGHTS))
    weak = {f: (0, 1, 0) for f in range(len(CARDS.fighters)) if f not in own}  # 0 Strike, 1 Health, 0 Shield
    harmless = [[{"op": "krone", "amount": 1}]] * 36
    data = with_changes(weak, harmless)
    for params in (CAUTIOUS, GREEDY, pol.param_vector(pol.PRESETS["aggressive"][1])):
        rate, out = _win_rate(data, RULES, KNIGHTS, H, params)
        assert rate == 1.0, np.unique(out[:, 1], return_counts=True)


def test_unwinnable_scenario_is_never_won():
    own = fighter_ids(KNIGHTS)
    stats = {f: (9, 120, 9) for f in range(len(CARDS.fighters)) if f not in own}
    stats.update({f: (0, 1, 0) for f in own})
    tiring = [[{"op": "stamina", "amount": -9}]] * 36
    data = with_changes(stats, tiring)
    rules = rules_vector(krone=0, stamina=0)
    for kind, params in ((H, CAUTIOUS), (pol.RANDOM, pol.param_vector())):
        rate, _ = _win_rate(data, rules, KNIGHTS, kind, params)
        assert rate == 0.0


def test_chance_strikes_in_battles_match_the_exact_odds():
    """Every Chance Strike of 3,000 Lonequests, grouped by (Strike, Shield), against the exact outcome odds."""
    log = np.zeros(1 + 3 * 400_000, np.int32)
    play_logged(block_key(9, 0), 3000, KNIGHTS, H, CAUTIOUS, DATA, RULES, log)
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


def test_cards_are_conserved_in_every_game():
    """After each game every Fighter is in exactly one place, and every equipped Buff on exactly one Fighter."""
    s = np.zeros(L.STATE_SIZE, np.int32)
    from simkit.core.rng import seed_stream

    rng, prng = np.empty(4, np.uint64), np.empty(4, np.uint64)
    key = block_key(77, 0)
    for g in range(300):
        kind = pol.RANDOM if g % 3 == 0 else H
        params = (CAUTIOUS, GREEDY, pol.param_vector(pol.PRESETS["aggressive"][1]))[g % 3]
        seed_stream(rng, key, g, 0)
        seed_stream(prng, key, g, 1)
        E.play(s, DATA, RULES, kind, params, rng, prng, dice(), no_log(), g % 8)
        places = []
        for head in (L.WB_HEAD, L.FD_HEAD):
            places += [L.deck_peek(s, head, i) for i in range(L.deck_len(s, head))]
        for loc in range(L.N_LOC):
            places += [c for c in s[L.LOC_CARDS + 5 * loc:L.LOC_CARDS + 5 * loc + s[L.LOC_N + loc]] if c >= 0]
        places += [s[L.FRONT + 5 * i] for i in range(s[L.FRONT_N])]
        places += [s[L.MAR + 2 * j] for j in range(s[L.MAR_N])]
        places += [f for f in range(L.N_FIGHTERS) if s[L.GRAVE + f]]
        assert sorted(places) == list(range(L.N_FIGHTERS)), g
        equipped = [s[L.FRONT + 5 * i + 2 + t] for i in range(s[L.FRONT_N]) for t in range(3)]
        equipped = [c for c in equipped if c >= 0]
        assert sorted(equipped) == [c for c in range(L.N_BUFFS) if s[L.WHERE + c] == L.EQUIPPED], g
        assert all(s[L.WHERE + L.N_BUFFS + e] != L.EQUIPPED for e in range(L.N_EVENTS))
        assert 0 <= s[L.KRONE] <= 99 and 0 <= s[L.STAMINA] <= 9


# --- regressions found in review ---------------------------------------------------------------

def test_fireblast_hits_its_target_even_when_the_left_neighbour_survives():
    # three Marauders no Fighter can True Strike (Shields 6, 7, 6 against Strike 5): the heuristic Fireblasts the
    # highest Shield, the middle one, with Strike 5 + 3 = 8 > 7 (a True Strike, no dice)
    data = with_changes({A: (5, 3, 3), M: (0, 5, 6), M2: (0, 5, 7), B: (0, 5, 6)})
    fire = next(L.N_BUFFS + e for e, ev in enumerate(CARDS.events) if ev.kind == E.EV_FIREBLAST)
    s = blank_state(stamina=3)
    E.front_add(s, data, RULES, A)
    for m in (M, M2, B):
        E.add_marauder(s, data, m)
    s[L.WHERE + fire] = L.HAND
    rng, prng = streams()
    E.special_actions(s, data, RULES, H, CAUTIOUS, rng, prng, dice(), no_log())
    # "deal 2 damage to it and 1 damage to any other Frontline enemies on either side of it"
    assert [s[L.MAR + 2 * j + 1] for j in range(3)] == [1, 2, 1]
    assert s[L.WHERE + fire] == L.LOOT


def test_played_follows_the_fighters_to_a_new_location():
    s = blank_state(loc=0)
    E.front_add(s, DATA, RULES, A)
    E.move_to(s, DATA, 3)
    assert s[L.PLAYED + 3] & (1 << KNIGHTS)


def test_forced_move_back_at_the_start_costs_nothing():
    data = with_changes(quests=[[{"op": "move", "to": "back", "stamina_cost": 2}]])
    s = blank_state(stamina=3, loc=0)  # PREV_LOC = -1: the start of the game
    E.front_add(s, data, RULES, A)
    rng, prng = streams()
    E.quest(s, data, RULES, H, CAUTIOUS, rng, prng, dice(), no_log(), 0)
    assert s[L.STAMINA] == 3 and s[L.LOC] == 0


def test_the_start_location_is_always_reachable_for_free():
    # only the start Location (0) is left uncleared and no arrow leads to it from here: marching there is free
    s = blank_state(stamina=0, loc=5)
    s[L.START] = 0
    s[L.LOC_N + 0] = 1
    s[L.LOC_CARDS + 0] = -1
    L.deck_push_bottom(s, L.WB_HEAD, A)
    data = with_changes(quests=[[{"op": "krone", "amount": 1}]])
    rng, prng = streams()
    E.run(s, data, RULES, H, CAUTIOUS, rng, prng, dice(), no_log())
    assert s[L.CAUSE] == L.CAUSE_NONE and s[L.CLEARED + 0] == 1


def test_thief_cannot_steal_itself():
    market = [{"op": "market", "sells": [], "recruit": False}]
    data = with_changes(quests=[market])
    thieves = [L.N_BUFFS + e for e, ev in enumerate(CARDS.events) if ev.kind == E.EV_THIEF]
    params = pol.param_vector(pol.PRESETS["greedy_trader"][1])
    for seed in range(40):
        s = blank_state(krone=0)
        E.front_add(s, data, RULES, A)
        for c in range(L.N_BUFFS + L.N_EVENTS):
            s[L.WHERE + c] = L.LOOT if c in (0, 1, 2) else L.HAND
        for t in thieves[1:]:
            s[L.WHERE + t] = -1  # out of play in this position
        rng, prng = streams(seed)
        E.quest(s, data, RULES, H, params, rng, prng, dice(), no_log(), 0)
        # the Loot deck held Buffs 0, 1, 2: the Thief steals two of them and then goes to the Loot deck
        assert s[L.WHERE + thieves[0]] == L.LOOT
        assert sum(s[L.WHERE + c] == L.HAND for c in (0, 1, 2)) == 2
