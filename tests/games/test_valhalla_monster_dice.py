"""Valhalla Solo monster dice: exact chain against hand counts and Monte Carlo; the cards loader."""

from fractions import Fraction as F
from pathlib import Path

import numpy as np
import pytest

from simkit.errors import InputError
from simkit.games.valhalla.cards import WeaponDie, default_cards_path, load_cards
from simkit.games.valhalla.monster_dice import (
    ATTACK, attack_by_turn, expected_turns_between_attacks, numeric_arrays, simulate_attacks, transition)

DIE = WeaponDie(("axe", "sword", "hammer", "spear", "bow", "wild"))  # one axe face of six
NO_AXE = F(5, 6)


def test_single_axe_is_geometric():
    # any of the 6 dice showing the one axe face attacks: 1 - (5/6)^6 = 31031/46656;
    # otherwise nothing stays on the card, so every turn looks like turn 1
    p = 1 - NO_AXE**6
    assert p == F(31031, 46656)
    assert transition((0,), ["axe"], DIE) == {ATTACK: p, (0,): 1 - p}
    assert attack_by_turn(["axe"], DIE, turns=5) == [p] * 5
    assert expected_turns_between_attacks(["axe"], DIE) == 1 / p == F(46656, 31031)


def test_two_axes_turn_one_and_two():
    # turn 1: 0 axes (5/6)^6 -> (0,); exactly 1 axe 6*(1/6)*(5/6)^5 = (5/6)^5 -> (1,) keeps that die;
    # 2+ axes attack: 1 - 15625/46656 - 18750/46656 = 12281/46656
    p0, p1 = NO_AXE**6, 6 * F(1, 6) * NO_AXE**5
    a1 = 1 - p0 - p1
    assert a1 == F(12281, 46656)
    assert transition((0,), ["axe", "axe"], DIE) == {(0,): p0, (1,): p1, ATTACK: a1}
    # from (1,) only 5 dice roll and one axe among them attacks: 1 - (5/6)^5
    assert transition((1,), ["axe", "axe"], DIE) == {(1,): NO_AXE**5, ATTACK: 1 - NO_AXE**5}
    # turn 2: empty card (no axe, or attacked and cleared) attacks with a1 again; the kept die with 1 - (5/6)^5
    a2 = (p0 + a1) * a1 + p1 * (1 - NO_AXE**5)
    assert attack_by_turn(["axe", "axe"], DIE, turns=2) == [a1, a2]
    # E1 = 1/(1 - (5/6)^5); E0 = 1 + p0*E0 + p1*E1  =>  E0 = (1 + p1*E1)/(1 - p0)
    e1 = 1 / (1 - NO_AXE**5)
    assert expected_turns_between_attacks(["axe", "axe"], DIE) == (1 + p1 * e1) / (1 - p0)


def test_wild_option():
    # wild covers the axe too: each die misses with 4/6
    assert attack_by_turn(["axe"], DIE, turns=1, wild_matches=True) == [1 - F(4, 6) ** 6]
    assert expected_turns_between_attacks(["axe"], DIE, wild_matches=True) == 1 / (1 - F(4, 6) ** 6)
    # 2 dice, card [sword, axe], die with 2 axe, 1 sword, 1 wild, 2 bow faces; ordered pairs out of 36:
    die = ("axe", "axe", "sword", "wild", "bow", "bow")
    # no wild:   (0,1) axe-bow 8 + axe-axe 4 + axe-wild 4 = 16; (1,0) sword-bow 4 + sword-sword 1 + sword-wild 2 = 7;
    #            attack axe-sword 4; (0,0) bow-bow 4 + wild-bow 4 + wild-wild 1 = 9
    assert transition((0, 0), ["sword", "axe"], die, n_dice=2) == {
        (0, 1): F(16, 36), (1, 0): F(7, 36), ATTACK: F(4, 36), (0, 0): F(9, 36)}
    # wild: a lone wild goes on the axe (more faces), so wild-bow 4 -> (0,1); axe-wild 4, sword-wild 2,
    #       wild-wild 1 now attack: (0,1) 8+4+4 = 16; (1,0) 4+1 = 5; attack 4+4+2+1 = 11; (0,0) bow-bow 4
    assert transition((0, 0), ["sword", "axe"], die, n_dice=2, wild_matches=True) == {
        (0, 1): F(16, 36), (1, 0): F(5, 36), ATTACK: F(11, 36), (0, 0): F(4, 36)}


def test_transitions_sum_to_one_and_never_attack():
    die, mons = load_cards()
    for m in mons.values():
        for card in m.cards_base + m.cards_plus40:
            assert sum(transition((0,) * len(set(card.weapons)), card.weapons, die).values()) == 1
    with pytest.raises(ValueError, match="never attack"):
        expected_turns_between_attacks(["axe"], ("sword",) * 6)


def test_bundled_cards():
    die, mons = load_cards()
    assert len(die.faces) == 6 and len(mons) >= 3
    for m in mons.values():
        assert 3 <= len(m.cards_base) == len(m.cards_plus40) <= 5
        for side in (m.cards_base, m.cards_plus40):
            assert [c.strength for c in side] == sorted(c.strength for c in side)
        assert all(p.strength > b.strength for b, p in zip(m.cards_base, m.cards_plus40))
    assert "STAND-IN" in default_cards_path().read_text().splitlines()[0]


GOOD = '''notice = "test"
clans = ["red"]
[die]
symbols = ["axe", "sword", "wild"]
faces = ["axe", "axe", "sword", "sword", "wild", "wild"]
[[monsters]]
key = "troll"
name = "Troll"
[[monsters.base]]
name = "T1"
strength = 5
max_glory = 3
clans = ["red"]
weapons = ["axe"]
warrior_symbols = 1
[[monsters.base]]
name = "T2"
strength = 8
max_glory = 6
clans = []
weapons = ["axe", "sword"]
warrior_symbols = 2
[[monsters.plus40]]
name = "T1+"
strength = 7
max_glory = 4
clans = ["red"]
weapons = ["axe"]
warrior_symbols = 1
[[monsters.plus40]]
name = "T2+"
strength = 10
max_glory = 7
clans = ["red"]
weapons = ["axe", "sword"]
warrior_symbols = 2
'''


@pytest.mark.parametrize("old, new, field", [
    ('"wild", "wild"]', '"wild"]', "die.faces"),
    ('faces = ["axe", "axe"', 'faces = ["axe", "mace"', "die.faces[1]"),
    ('weapons = ["axe", "sword"]\nwarrior_symbols = 2\n[[monsters.plus40]]',
     'weapons = ["axe", "wild"]\nwarrior_symbols = 2\n[[monsters.plus40]]', "monsters.troll.base[1].weapons[1]"),
    ("strength = 8", "strength = 4", "monsters.troll.base[1].strength"),
    ("max_glory = 3", "max_glory = 3\ncolour = 1", "monsters.troll.base[0].colour"),
    ('notice = "test"', 'notice = "test"\nnotes = 1', "notes"),
])
def test_bad_cards_files(tmp_path, old, new, field):
    ok = tmp_path / "ok.toml"
    ok.write_text(GOOD)
    die, mons = load_cards(ok)
    assert die.faces.count("wild") == 2 and [c.name for c in mons["troll"].cards_base] == ["T1", "T2"]
    bad = tmp_path / "bad_cards.toml"
    assert old in GOOD
    bad.write_text(GOOD.replace(old, new, 1))
    with pytest.raises(InputError) as exc:
        load_cards(bad)
    msg = str(exc.value)
    assert "bad_cards.toml" in msg and f"field '{field}'" in msg, msg


@pytest.mark.parametrize("monster, index, wild", [("serpent", 1, False), ("dragon", 2, True), ("troll", 3, True)])
def test_monte_carlo_matches_exact(monster, index, wild):
    die, mons = load_cards()
    card = mons[monster].cards_base[index]
    exact = attack_by_turn(card.weapons, die, turns=20, wild_matches=wild)
    key = np.random.SeedSequence(7, spawn_key=(0,)).generate_state(2, np.uint64)
    n = 200_000
    counts = simulate_attacks(key, n, 20, *numeric_arrays(card.weapons, die), wild)
    for t, (c, p) in enumerate(zip(counts, exact), 1):
        se = (float(p) * (1 - float(p)) / n) ** 0.5
        assert abs(c / n - float(p)) <= 4.5 * se, (t, c / n, float(p))


def test_every_wrong_name_of_a_card_file_is_reported_in_one_pass(tmp_path):
    # two wrong weapons in one card, a wrong face and a wrong strength: four problems, one error, one line each
    bad = tmp_path / "bad_cards.toml"
    text = GOOD.replace('weapons = ["axe", "sword"]\nwarrior_symbols = 2\n[[monsters.plus40]]',
                        'weapons = ["spoon", "fork"]\nwarrior_symbols = 2\n[[monsters.plus40]]', 1)
    text = text.replace('faces = ["axe", "axe"', 'faces = ["axe", "mace"', 1).replace("strength = 8", "strength = 0", 1)
    assert text.count("spoon") == 1 and "mace" in text and "strength = 0" in text
    bad.write_text(text)
    with pytest.raises(InputError) as exc:
        load_cards(bad)
    msg = str(exc.value)
    for field in ("die.faces[1]", "monsters.troll.base[1].weapons[0]", "monsters.troll.base[1].weapons[1]",
                  "monsters.troll.base[1].strength"):
        assert f"field '{field}'" in msg, (field, msg)
