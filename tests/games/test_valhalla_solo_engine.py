"""Valhalla Solo rules played from hand-built positions to a known end, and statistical checks.

Fixed dice come from a die whose six faces all show one symbol."""

from fractions import Fraction

import numpy as np
import pytest

from simkit.core.rng import seed_stream
from simkit.core.seeding import block_key
from simkit.core.stats import wilson
from simkit.games.valhalla.solo import engine as E
from simkit.games.valhalla.solo import layout as L
from simkit.games.valhalla.solo import policies as pol
from simkit.games.valhalla.solo.simulation import rules_vector

AXE, SWORD, HAMMER, SPEAR, BOW, WILD = range(6)
S = 5
# clan indices as in cards.toml (red, blue, green, yellow, purple, black); blue = Ice Giants, yellow = Boar Clan
RED, BLUE, YELLOW = 0, 1, 3
CLAN_ABILITY = np.array([L.A_NONE, L.A_ICE_GIANT, L.A_NONE, L.A_BOAR, L.A_NONE, L.A_NONE], np.int32)
BUILDER = pol.param_vector(pol.PRESETS["builder"][1])
H = pol.HEURISTIC


def warrior(strength, glory=1, need=(), clan=RED, special=0, bless=0, bless_clan=-1, any_=0, distinct=0):
    return dict(type=L.WARRIOR, strength=strength, glory=glory, need=need, clan=clan, special=special,
                bless=bless, bless_clan=bless_clan, any_=any_, distinct=distinct)


def make_T(cards_spec, monster, face, p_act=None):
    """Tables for hand-built positions: ``monster`` is a list of (strength, max_glory, clan mask, weapons)."""
    n = len(cards_spec)
    cards = np.zeros((n, L.N_CCOLS), np.int32)
    need = np.zeros((n, S), np.int32)
    for i, c in enumerate(cards_spec):
        cards[i, L.C_TYPE], cards[i, L.C_STR], cards[i, L.C_GLORY] = c["type"], c["strength"], c["glory"]
        cards[i, L.C_CLAN], cards[i, L.C_SPECIAL] = c["clan"], c["special"]
        cards[i, L.C_BLESS], cards[i, L.C_BLESS_CLAN] = c["bless"], c["bless_clan"]
        cards[i, L.C_ANY], cards[i, L.C_DISTINCT] = c["any_"], c["distinct"]
        cards[i, L.C_EFFECT], cards[i, L.C_REQ], cards[i, L.C_SYMBOL] = -1, -1, -1
        for sym in c["need"]:
            need[i, sym] += 1
    K = len(monster)
    mon = np.zeros((K, L.N_MCOLS), np.int32)
    mweap = np.zeros((K, S), np.int32)
    mwild = -np.ones((K, S), np.int32)
    for k, (strength, max_glory, clans, weapons) in enumerate(monster):
        mon[k, L.M_STRENGTH], mon[k, L.M_MAX_GLORY], mon[k, L.M_CLANS] = strength, max_glory, clans
        mon[k, L.M_WSYM] = 2
        for sym in weapons:
            mweap[k, sym] += 1
    p = np.zeros(n) if p_act is None else np.asarray(p_act, float)
    faces = np.full(6, face, np.int32)
    return (cards, need, p, mon, mweap, mwild, CLAN_ABILITY, np.array([0, 0], np.int64), faces)


def state(team=(), hand=(), deck=(), discard=(), glory=0, mon=0):
    s = np.zeros(L.STATE_SIZE, np.int32)
    s[L.SHIELDS], s[L.GLORY], s[L.MON] = 4, glory, mon
    for pile, cards in ((L.TEAM_N, team), (L.HAND_N, hand), (L.DECK_N, deck), (L.DISC_N, discard)):
        for c in cards:
            E.push(s, pile, c)
    return s


def streams(seed=0):
    rng, prng = np.empty(4, np.uint64), np.empty(4, np.uint64)
    key = block_key(seed, 0)
    seed_stream(rng, key, 0, 2)
    seed_stream(prng, key, 0, 1)
    return rng, prng


def pile(s, base_n):
    return [int(s[base_n + 1 + i]) for i in range(s[base_n])]


RULES = rules_vector(level=1)


def test_attack_with_fixed_dice_activates_the_matching_warrior_and_wins():
    # every die shows an axe: Warrior 0 (axe, axe; strength 5) activates, Warrior 1 (sword) does not
    T = make_T([warrior(5, glory=2, need=(AXE, AXE)), warrior(4, glory=1, need=(SWORD,))],
               [(5, 10, 0, (HAMMER,)), (9, 10, 0, (HAMMER,))], AXE)
    s = state(team=[0, 1], deck=[1] * 0)
    rng, prng = streams()
    E.battle(s, T, RULES, H, BUILDER, rng, prng, True)  # attacking: 5 >= 5 wins ("match or exceed")
    assert s[L.ATT_WON] == 1 and s[L.MON] == 1
    assert pile(s, L.VAL_N) == [0] and s[L.GLORY] == 2  # the activated Warrior goes to Valhalla
    assert pile(s, L.TEAM_N) == [1]                      # the other stays in the team


def test_defence_needs_more_than_the_monster():
    T = make_T([warrior(5, need=(AXE,))], [(5, 10, 0, (HAMMER,))], AXE)
    s = state(team=[0], deck=list(range(0)) + [0] * 0)
    rng, prng = streams()
    # "can only successfully defend himself by achieving a Battle Strength higher than the monster's": 5 is not
    E.battle(s, T, RULES, H, BUILDER, rng, prng, False)
    assert s[L.DEF_LOST] == 1 and s[L.SHIELDS] == 3


def test_glory_cap_of_the_newly_revealed_card():
    # two activated Warriors of Glory 2 each; the old card allows 10 but the new card only 3: one goes to
    # Valhalla, "the excess Warriors are discarded" ("After winning on the attack, the new monster card is
    # revealed and the new limit is revealed. After that, Warriors go to Valhalla.")
    T = make_T([warrior(3, glory=2, need=(AXE,)), warrior(3, glory=2, need=(AXE,))],
               [(6, 10, 0, (HAMMER,)), (9, 3, 0, (HAMMER,))], AXE)
    s = state(team=[0, 1])
    rng, prng = streams()
    E.battle(s, T, RULES, H, BUILDER, rng, prng, True)
    assert s[L.MON] == 1 and s[L.GLORY] == 2
    assert len(pile(s, L.VAL_N)) == 1 and len(pile(s, L.DISC_N)) == 1 and s[L.TEAM_N] == 0


def test_plus3_blessing_draws_glory_from_the_discard_pile_in_order():
    # "+3 – When this Warrior goes to Valhalla alone, the player adds 3 additional Glory Points", drawn from the
    # discard pile "without changing the order of the cards in it"
    T = make_T([warrior(6, glory=1, need=(AXE,), bless=3), warrior(1, glory=1), warrior(1, glory=3),
                warrior(1, glory=2)], [(6, 20, 0, (HAMMER,)), (9, 20, 0, (HAMMER,))], AXE)
    s = state(team=[0], discard=[1, 2, 3])
    rng, prng = streams()
    E.battle(s, T, RULES, H, BUILDER, rng, prng, True)
    assert s[L.GLORY] == 1 + 3
    assert pile(s, L.VAL_N) == [0, 2] and pile(s, L.DISC_N) == [1, 3]


def test_plus1_blessing_counts_the_others_going_along():
    T = make_T([warrior(3, glory=1, need=(AXE,), bless=1), warrior(3, glory=1, need=(AXE,)),
                warrior(3, glory=1, need=(AXE,)), warrior(1, glory=2)], [(9, 20, 0, (HAMMER,)), (9, 20, 0, ())], AXE)
    s = state(team=[0, 1, 2], discard=[3])
    rng, prng = streams()
    E.battle(s, T, RULES, H, BUILDER, rng, prng, True)
    # three go together: +1 for each of the two others, taken as the Glory-2 Warrior from the discard pile
    assert s[L.GLORY] == 3 + 2 and 3 in pile(s, L.VAL_N)


def test_boar_clan_plus_three_against_a_matching_colour():
    T = make_T([warrior(4, need=(AXE,), clan=YELLOW, special=1)],
               [(7, 10, 1 << YELLOW, (HAMMER,)), (9, 10, 0, ())], AXE)
    s = state(team=[0])
    rng, prng = streams()
    E.battle(s, T, RULES, H, BUILDER, rng, prng, True)  # 4 + 3 = 7 >= 7
    assert s[L.ATT_WON] == 1
    T2 = make_T([warrior(4, need=(AXE,), clan=YELLOW, special=1)], [(7, 10, 1 << RED, (HAMMER,)), (9, 10, 0, ())],
                AXE)
    s2 = state(team=[0], deck=[0] * 3)
    E.battle(s2, T2, RULES, H, BUILDER, rng, prng, True)  # another colour: 4 < 7
    assert s2[L.ATT_LOST] == 1


def test_wild_face_and_ice_giants():
    # every die shows the (x) face: wild for a normal Warrior, never for an Ice Giant
    T = make_T([warrior(5, need=(AXE,)), warrior(5, need=(AXE,), clan=BLUE)],
               [(5, 10, 0, (HAMMER,)), (9, 10, 0, ())], WILD)
    cards, need = T[0], T[1]
    pool = np.array([0, 0, 0, 0, 0, 6], np.int64)
    rem = pool.copy()
    assert E.fit(T, RULES, 0, rem)
    rem = pool.copy()
    assert not E.fit(T, RULES, 1, rem)
    rem = pool.copy()
    assert not E.fit(T, rules_vector(wild_warriors=False), 0, rem)


def test_lost_attack_discards_by_level_and_keeps_the_dice():
    T = make_T([warrior(1, need=(AXE,))], [(9, 10, 0, (HAMMER, HAMMER)), (9, 10, 0, ())], AXE)
    for level, discarded in ((1, 2), (2, 4), (3, 6)):
        s = state(team=[0], deck=[0] * 10)
        s[L.COVER + HAMMER] = 1
        rng, prng = streams()
        E.battle(s, T, rules_vector(level=level), H, BUILDER, rng, prng, True)
        assert s[L.ATT_LOST] == 1 and s[L.DECK_N] == 10 - discarded and s[L.DISC_N] == discarded
        assert s[L.COVER + HAMMER] == 1  # "All of the monster's dice remain where they are."


def test_monster_phase_attacks_when_the_card_is_covered():
    T = make_T([warrior(9, need=(HAMMER,))], [(5, 10, 0, (HAMMER, HAMMER)), (9, 10, 0, ())], HAMMER)
    s = state(team=[0], deck=[0] * 5)
    rng, prng = streams()
    E.monster_phase(s, T, RULES, H, BUILDER, rng, prng)
    # six hammers cover both weapons: the monster attacks; the player defends with 9 > 5; all dice come off
    assert s[L.MON_ATTACKS] == 1 and s[L.DEF_WON] == 1
    assert s[L.EMPTY_PHASES + 0] == 1 and s[L.EMPTY_ATTACKS + 0] == 1 and s[L.COVER + HAMMER] == 0
    T2 = make_T([warrior(9, need=(HAMMER,))], [(5, 10, 0, (HAMMER,)), (9, 10, 0, ())], AXE)
    s2 = state(team=[0])
    E.monster_phase(s2, T2, RULES, H, BUILDER, rng, prng)
    assert s2[L.MON_ATTACKS] == 0 and s2[L.COVER + HAMMER] == 0


def _last_card_game(monster_strength, on_last_card):
    """The deck holds one card; the heuristic estimates nothing (p_act 0) so it draws, taking the last card."""
    monster = [(3, 10, 0, (HAMMER,)), (monster_strength, 10, 0, (SPEAR,))]
    T = make_T([warrior(5, need=(AXE, AXE))], monster, AXE, p_act=[0.0])
    s = state(team=[0], deck=[0], mon=1 if on_last_card else 0)
    rng, prng = streams()
    E.run(s, T, RULES, H, BUILDER, rng, prng)
    return s


def test_empty_deck_without_the_final_attack():
    # "It is only possible if the active Monster card is the last one. If any other card is on the top of the
    # monster deck, the player loses immediately."
    s = _last_card_game(5, on_last_card=False)
    assert s[L.DONE] == 1 and s[L.CAUSE] == L.CAUSE_DECK and s[L.ATT_WON] + s[L.ATT_LOST] == 0


def test_empty_deck_final_attack_wins_or_loses():
    s = _last_card_game(5, on_last_card=True)  # the final attack: 5 >= 5, the last card falls: a win
    assert s[L.DONE] == 1 and s[L.CAUSE] == L.CAUSE_NONE and s[L.MON] == 2 and s[L.ATT_WON] == 1
    s = _last_card_game(6, on_last_card=True)  # "If the player loses the final attack, they lose the game."
    assert s[L.CAUSE] == L.CAUSE_DECK and s[L.ATT_LOST] == 1


def test_fourth_shield_lost_ends_the_game():
    T = make_T([warrior(1, need=(AXE,))], [(9, 10, 0, (HAMMER,)), (9, 10, 0, ())], AXE)
    s = state(team=[0], deck=[0] * 10)
    s[L.SHIELDS] = 1
    rng, prng = streams()
    E.battle(s, T, RULES, H, BUILDER, rng, prng, False)
    assert s[L.DONE] == 1 and s[L.CAUSE] == L.CAUSE_SHIELDS


# --- statistical checks on whole games ---------------------------------------------------------------

def _bundled_sim(levels=(1, 2, 3), play=("builder",), jarls=("sigurd",)):
    from pathlib import Path

    from simkit.core import loader

    root = Path(__file__).resolve().parents[2] / "scenarios" / "valhalla"
    text = (f'game = "valhalla"\nmode = "solo"\ncards = "{root / "cards.toml"}"\ndeck = "{root / "deck.toml"}"\n'
            f'variants = ["base", "plus40"]\nlevels = {list(levels)}\njarls = {list(jarls)}\nplay = {list(play)}\n')
    import tempfile

    p = Path(tempfile.mkdtemp()) / "solo.toml"
    p.write_text(text)
    return loader.load(p).simulation


def test_levels_get_harder_on_common_random_numbers():
    """Win rate I >= II >= III per monster: no paired difference is significantly reversed, and over all
    monsters Level I is significantly easier than Level III."""
    import polars as pl

    from simkit.core.stats import paired_difference

    sim = _bundled_sim()
    frame = pl.DataFrame(sim.run_block(block_key(31, 0), 3000))
    wide = frame.pivot(on="level", index=["game", "monster", "variant"], values="won")
    for monster in ("troll", "dragon", "serpent"):
        w = wide.filter(pl.col("monster") == monster)
        for a, b in (("1", "2"), ("2", "3")):
            d = (w[a].cast(int) - w[b].cast(int)).to_numpy()
            pd = paired_difference(d.size, float(d.sum()), float((d * d).sum()))
            assert pd.estimate >= -3.29 * (pd.high - pd.estimate) / 1.96, (monster, a, b, pd)
    d = (wide["1"].cast(int) - wide["3"].cast(int)).to_numpy()
    pd = paired_difference(d.size, float(d.sum()), float((d * d).sum()))
    assert pd.low > 0, pd


def test_monster_attack_frequency_matches_the_exact_odds():
    """Monster phases that begin with no dice on card k attack with the exact turn-1 probability."""
    from simkit.games.valhalla import cards as cards_mod
    from simkit.games.valhalla.monster_dice import attack_by_turn
    from simkit.games.valhalla.solo.simulation import play_cells

    die, monsters = cards_mod.load_cards()
    sim = _bundled_sim(levels=(1,), play=("builder", "random"))
    checked = 0
    for g in sim.groups:
        counters = np.zeros((L.MAX_MON, 2), np.int64)
        out = np.zeros((len(g["cells"]) * 4000, 12), np.int32)
        play_cells(block_key(8, 0), 4000, g["T0"], g["deck_ids"], sim.jarl_tab, g["jarl_idx"], g["kinds"],
                   g["params"], g["rules"], out, counters)
        side = monsters[g["monster"]].cards_plus40 if g["variant"] == "plus40" else monsters[g["monster"]].cards_base
        for k, card in enumerate(side):
            phases, attacks = int(counters[k, 0]), int(counters[k, 1])
            if phases < 500:
                continue
            exact = float(attack_by_turn(card.weapons, die, turns=1)[0])
            e = wilson(attacks, phases, confidence=0.999)
            assert e.low <= exact <= e.high, (g["monster"], g["variant"], k, attacks / phases, exact)
            checked += 1
    assert checked >= 6


# --- regressions found in review -------------------------------------------------------------------

def tactic(effect, value=0, symbol=-1):
    return dict(type=L.TACTIC, strength=0, glory=0, need=(), clan=-1, special=0, bless=0, bless_clan=-1, any_=0,
                distinct=0, effect=effect, value=value, symbol=symbol)


def make_T2(specs, monster, face, p_act=None):
    T = make_T(specs, monster, face, p_act)
    for i, c in enumerate(specs):
        if c["type"] == L.TACTIC:
            T[0][i, L.C_EFFECT], T[0][i, L.C_VALUE], T[0][i, L.C_SYMBOL] = c["effect"], c["value"], c["symbol"]
    return T


def test_path_to_valhalla_keeps_every_other_activated_warrior_in_the_group():
    # three activated Warriors (3 strength each) defend against 4: Path to Valhalla ("own" reading) takes the first;
    # the other two still make 6 > 4, and after the won defence both go to Valhalla with it
    T = make_T2([warrior(3, need=(AXE,)), warrior(3, need=(AXE,)), warrior(3, need=(AXE,)), tactic(L.T_PATH)],
                [(4, 20, 0, (HAMMER,)), (9, 20, 0, ())], AXE)
    s = state(team=[0, 1, 2], hand=[3])
    rng, prng = streams()
    E.battle(s, T, rules_vector(path_to_valhalla="own"), H, BUILDER, rng, prng, False)
    assert s[L.DEF_WON] == 1 and s[L.TEAM_N] == 0 and sorted(pile(s, L.VAL_N)) == [0, 1, 2]


def test_a_silenced_discard_power_discards_nothing_extra():
    T = make_T2([warrior(1, need=(AXE,)), tactic(L.T_SILENCE)], [(9, 20, 0, (HAMMER,)), (9, 20, 0, ())], AXE)
    T[3][0, L.M_POWER], T[3][0, L.M_PVAL] = L.P_DISCARD, 1
    for silence_in_hand, discarded in ((False, 2 + 1), (True, 2)):
        s = state(team=[0], hand=[1] if silence_in_hand else [], deck=[0] * 10)
        rng, prng = streams()
        E.battle(s, T, RULES, H, BUILDER, rng, prng, True)  # a lost attack at Level I
        assert s[L.ATT_LOST] == 1 and s[L.DECK_N] == 10 - discarded


def test_glory_limit_counts_only_the_warriors():
    # a Jarl's 3 starting Glory against a new card whose limit is 3: a Glory-2 Warrior still fits
    T = make_T([warrior(5, glory=2, need=(AXE,))], [(5, 20, 0, (HAMMER,)), (9, 3, 0, ())], AXE)
    s = state(team=[0], glory=3)
    rng, prng = streams()
    E.battle(s, T, RULES, H, BUILDER, rng, prng, True)  # 3 Glory + 5 >= 5
    assert s[L.ATT_WON] == 1 and pile(s, L.VAL_N) == [0] and s[L.GLORY] == 5 and s[L.WGLORY] == 2


def test_final_attack_with_an_empty_team_counts_the_glory():
    T = make_T([warrior(1, need=(SPEAR,))], [(3, 10, 0, (HAMMER,)), (5, 10, 0, (SPEAR,))], AXE, p_act=[0.0])
    s = state(deck=[0], hand=[], mon=1, glory=5)
    rng, prng = streams()
    E.run(s, T, RULES, H, BUILDER, rng, prng)  # Phase A: draw (takes the last card); the final attack: 5 >= 5
    assert s[L.DONE] == 1 and s[L.CAUSE] == L.CAUSE_NONE and s[L.MON] == 2


def test_blessing_reaches_the_exact_sum_from_smaller_cards():
    # +3 alone; the discard pile holds Glory 2, 2, 1 (no 3): the draw must still add exactly 3, as 2 + 1, and leave
    # the rest of the pile in its order
    T = make_T([warrior(6, glory=1, need=(AXE,), bless=3), warrior(1, glory=2), warrior(1, glory=2),
                warrior(1, glory=1)], [(6, 20, 0, (HAMMER,)), (9, 20, 0, (HAMMER,))], AXE)
    s = state(team=[0], discard=[1, 2, 3])
    rng, prng = streams()
    E.battle(s, T, RULES, H, BUILDER, rng, prng, True)
    assert s[L.GLORY] == 1 + 3 and pile(s, L.DISC_N) == [2] and sorted(pile(s, L.VAL_N)) == [0, 1, 3]


def test_heuristic_keeps_silence_for_powers_that_matter_in_an_attack():
    T = make_T2([warrior(9, need=(AXE,)), tactic(L.T_SILENCE)], [(5, 20, 0, (HAMMER,)), (9, 20, 0, ())], AXE)
    for power, spent in ((L.P_DEFENCE, False), (L.P_ATTACK, True)):
        T[3][0, L.M_POWER], T[3][0, L.M_PVAL] = power, 1
        s = state(team=[0], hand=[1], deck=[0] * 5)
        rng, prng = streams()
        E.battle(s, T, RULES, H, BUILDER, rng, prng, True)
        assert (1 in pile(s, L.DISC_N)) == spent and (1 in pile(s, L.HAND_N)) != spent
