"""Valhalla Solo deck data: the bundled stand-in deck, the array contract, monster arrays, bad files."""

import re

import numpy as np
import pytest

from simkit.errors import InputError
from simkit.games.valhalla.cards import default_cards_path, load_cards
from simkit.games.valhalla.deck import (
    BLESSINGS, CARD_TYPES, CLAN_ABILITIES, EFFECTS, JARL_ABILITIES, JARL_KEYS, POWERS, REQUIREMENTS, Mission,
    Tactic, Warrior, default_deck_path, load_deck, monster_arrays)

DECK = load_deck()
ARR = DECK.arrays()
N_ARRAYS = ("card_type", "expansion", "clan", "strength", "glory", "special", "need_any", "distinct", "blessing",
            "blessing_clan", "effect", "value", "symbol", "requirement")


def test_bundled_deck_totals():
    assert "STAND-IN" in default_deck_path().read_text().splitlines()[0] and "STAND-IN" in DECK.notice
    assert DECK.count("base") == 120 and DECK.count("valkyries") == 40
    base_warriors = sum(w.copies for w in DECK.warriors if w.expansion == "base")
    assert 80 <= base_warriors <= 90
    assert {w.clan for w in DECK.warriors if w.expansion == "base"} == set(DECK.clan_keys)
    abilities = {c.key: c.ability for c in DECK.clans}
    assert [k for k, a in abilities.items() if a == "boar"] == ["yellow"]
    assert [k for k, a in abilities.items() if a == "ice_giant"] == ["blue"]
    assert tuple(DECK.jarl_keys) == JARL_KEYS and len(DECK.jarls) == 17
    assert [j.name for j in DECK.jarls][3] == "Hödr" and DECK.jarls[13].name == "Esbjörn"
    assert sum(j.ability == "none" for j in DECK.jarls) <= 3
    assert len({j.ability for j in DECK.jarls}) == len(JARL_ABILITIES)
    valk = [w for w in DECK.warriors if w.expansion == "valkyries"]
    assert {w.blessing for w in valk} >= {"plus1", "plus2", "plus3"} and any(w.distinct for w in valk)
    assert {m.requirement for m in DECK.missions} == set(REQUIREMENTS)
    assert len(DECK.card_keys) == 160


def test_array_contract_shapes_and_codes():
    n, s, c = len(DECK.card_keys), len(DECK.symbols), len(DECK.clan_keys)
    assert DECK.symbols == ("axe", "sword", "hammer", "spear", "bow") and c == 6
    assert set(ARR) == {*N_ARRAYS, "need", "clan_ability", "jarl_ability", "jarl_value", "die_faces"}
    for name, a in ARR.items():
        assert a.dtype == np.int32, name
    for name in N_ARRAYS:
        assert ARR[name].shape == (n,), name
    assert ARR["need"].shape == (n, s) and ARR["clan_ability"].shape == (c,)
    assert ARR["jarl_ability"].shape == ARR["jarl_value"].shape == (17,) and ARR["die_faces"].shape == (6,)
    assert ARR["die_faces"].tolist() == [0, 1, 2, 3, 4, s]  # the bundled die: one face per symbol, wild last
    assert ARR["clan_ability"].tolist() == [CLAN_ABILITIES.index(cl.ability) for cl in DECK.clans]
    assert ARR["jarl_ability"].tolist() == [JARL_ABILITIES.index(j.ability) for j in DECK.jarls]

    exp = ARR["expansion"]
    assert (np.diff(exp) >= 0).all() and (exp == 0).sum() == 120 and (exp == 1).sum() == 40  # base first
    ct = ARR["card_type"]
    assert set(ct.tolist()) == set(range(len(CARD_TYPES)))
    rows = DECK.rows()
    assert [r.key for r in rows] == DECK.card_keys
    for r, e in enumerate(rows):
        weapons = getattr(e, "weapons", ())
        assert ARR["need"][r].sum() + ARR["need_any"][r] == len(weapons), e.key
        for j, sym in enumerate(DECK.symbols):
            assert ARR["need"][r, j] == weapons.count(sym)
        if isinstance(e, Warrior):
            assert ct[r] == 0 and ARR["clan"][r] == DECK.clan_keys.index(e.clan) >= 0
            assert 1 <= ARR["strength"][r] <= 9 and ARR["glory"][r] == e.glory
            assert ARR["effect"][r] == ARR["symbol"][r] == ARR["requirement"][r] == -1
            assert ARR["blessing"][r] == BLESSINGS.index(e.blessing)
            assert (ARR["blessing_clan"][r] >= 0) == (ARR["blessing"][r] == 2)
            assert ARR["blessing"][r] == 0 or exp[r] == 1
            assert not ARR["distinct"][r] or ARR["clan_ability"][ARR["clan"][r]] == CLAN_ABILITIES.index("ice_giant")
            assert not ARR["special"][r] or ARR["clan_ability"][ARR["clan"][r]] != 0
        else:
            assert ARR["clan"][r] == ARR["blessing_clan"][r] == -1
            assert ARR["strength"][r] == ARR["special"][r] == ARR["distinct"][r] == ARR["blessing"][r] == 0
        if isinstance(e, Tactic):
            assert ct[r] == 1 and ARR["effect"][r] == EFFECTS.index(e.effect) and ARR["value"][r] == e.value
            assert (ARR["symbol"][r] >= 0) == (e.effect == "weapon_delivery") and ARR["requirement"][r] == -1
            if e.effect in ("strength", "reroll", "smaller_team"):
                assert ARR["value"][r] >= 1
            if e.effect in ("weapon_delivery", "path_to_valhalla"):
                assert exp[r] == 1
        if isinstance(e, Mission):
            assert ct[r] == 2 and exp[r] == 1 and ARR["requirement"][r] == REQUIREMENTS.index(e.requirement)
            assert ARR["effect"][r] == -1 and ARR["glory"][r] == 2
    # the stand-in deck is plausible: mostly weak-to-middling Warriors with 1-2 weapons and 1-3 Glory
    w = (ct == 0) & (exp == 0)
    assert np.median(ARR["strength"][w]) <= 4 and ARR["strength"][w].max() <= 6
    assert ((ARR["need"][w].sum(1) + ARR["need_any"][w]) <= 2).mean() > 0.8
    assert ((ARR["glory"][w] >= 1) & (ARR["glory"][w] <= 3)).all()


def test_monster_arrays():
    die, monsters = load_cards()
    powers = set()
    for key, mon in monsters.items():
        for side, cards in (("base", mon.cards_base), ("plus40", mon.cards_plus40)):
            m = DECK.monster_arrays(key, side)
            assert set(m) == {"m_strength", "m_max_glory", "m_clans", "m_weapons", "m_warrior_symbols", "m_power",
                              "m_power_value"}
            k = len(cards)
            assert all(a.dtype == np.int32 for a in m.values()) and m["m_weapons"].shape == (k, 5)
            assert m["m_strength"].tolist() == [c.strength for c in cards]
            assert m["m_max_glory"].tolist() == [c.max_glory for c in cards]
            assert m["m_warrior_symbols"].tolist() == [c.warrior_symbols for c in cards]
            assert m["m_weapons"].sum(1).tolist() == [len(c.weapons) for c in cards]
            for i, c in enumerate(cards):
                assert {cl for b, cl in enumerate(DECK.clan_keys) if m["m_clans"][i] >> b & 1} == set(c.clans)
                assert m["m_power"][i] == POWERS.index(c.power_effect) and m["m_power_value"][i] == c.power_value
                powers.add(c.power_effect)
            default = monster_arrays(monsters, key, side)  # clans and symbols from the bundled cards.toml
            assert all((default[n] == m[n]).all() for n in m)
    assert len(powers) == len(POWERS)  # the bundled monsters use every power
    with pytest.raises(InputError, match="plus40"):
        monster_arrays(monsters, "troll", "plus80")
    with pytest.raises(InputError, match="kraken"):
        monster_arrays(monsters, "kraken", "base")


def _bad(tmp_path, old, new, name="bad_deck.toml", source=None):
    text = (source or default_deck_path()).read_text()
    assert old in text, old
    bad = tmp_path / name
    bad.write_text(text.replace(old, new, 1))
    return bad


JARL_BERNHARD = '\n[[jarls]]\nkey = "bernhard"\nname = "Bernhard"\nability = "extra_shield"\nvalue = 1\n'


@pytest.mark.parametrize("old, new, field", [
    ('copies = 3\nexpansion = "base"', 'copies = 2\nexpansion = "base"', r"warriors"),  # 119 base cards
    ('clan = "red"', 'clan = "pink"', r"warriors\.raven_thrall\.clan"),
    ('weapons = ["axe"]', 'weapons = ["wild"]', r"warriors\.raven_thrall\.weapons\[0\]"),
    ('blessing_clan = "yellow"\n', '', r"warriors\.\w+\.blessing_clan"),
    ('expansion = "base"', 'expansion = "base"\nblessing = "plus1"', r"warriors\.raven_thrall\.blessing"),
    ('expansion = "base"', 'expansion = "base"\ndistinct = true', r"warriors\.raven_thrall\.distinct"),
    (JARL_BERNHARD, "", r"jarls"),
    ('key = "hodr"', 'key = "hoder"', r"jarls\.hoder\.key"),
    ('symbol = "axe"\n', '', r"tactics\.\w+\.symbol"),
    ('effect = "strength"', 'effect = "strenght"', r"tactics\.battle_fury\.effect"),
    ('name = "Raven Clan"', 'name = "Raven Clan"\ncolour = "red"', r"clans\.red\.colour"),
])
def test_bad_deck_files(tmp_path, old, new, field):
    bad = _bad(tmp_path, old, new)
    with pytest.raises(InputError) as exc:
        load_deck(bad)
    msg = str(exc.value)
    assert "bad_deck.toml" in msg and re.search(rf"field '{field}'", msg), msg


@pytest.mark.parametrize("old, new, field, words", [
    ('power_effect = "no_reroll"', 'power_effect = "no_rerolls"', r"monsters\.troll\.base\[3\]\.power_effect",
     "'discard'"),
    ('power_effect = "defence_bonus"\npower_value = 1', 'power_effect = "defence_bonus"',
     r"monsters\.troll\.base\[1\]\.power_value", "at least 1"),
    ('power = ""', 'power = ""\npower_value = 2', r"monsters\.troll\.base\[0\]\.power_value", "must be 0"),
])
def test_bad_monster_powers(tmp_path, old, new, field, words):
    bad = _bad(tmp_path, old, new, "bad_cards.toml", default_cards_path())
    with pytest.raises(InputError) as exc:
        load_deck(cards_path=bad)
    msg = str(exc.value)
    assert "bad_cards.toml" in msg and re.search(rf"field '{field}'", msg) and words in msg, msg


def test_deck_clans_follow_cards_file(tmp_path):
    # a cards file without 'black' makes the deck's black clan an unknown colour
    cards = _bad(tmp_path, ', "black"]', "]", "cards.toml", default_cards_path())
    cards.write_text(cards.read_text().replace('"red", "black"', '"red"'))
    with pytest.raises(InputError) as exc:
        load_deck(cards_path=cards)
    assert "deck.toml" in str(exc.value) and "field 'clans.black.key'" in str(exc.value), str(exc.value)


def test_every_bad_field_of_a_deck_file_is_reported_at_once(tmp_path):
    # a Warrior's clan, another field of the same Warrior, a Jarl's key and a Tactic's effect: one error, a line each
    text = default_deck_path().read_text()
    for old, new in (('clan = "red"', 'clan = "pink"'), ('weapons = ["axe"]', 'weapons = ["wild", "mace"]'),
                     ('key = "hodr"', 'key = "hoder"'), ('effect = "strength"', 'effect = "strenght"')):
        assert old in text, old
        text = text.replace(old, new, 1)
    bad = tmp_path / "bad_deck.toml"
    bad.write_text(text)
    with pytest.raises(InputError) as exc:
        load_deck(bad)
    msg = str(exc.value)
    for field in (r"warriors\.raven_thrall\.clan", r"warriors\.raven_thrall\.weapons\[0\]",
                  r"warriors\.raven_thrall\.weapons\[1\]", r"jarls\.hoder\.key", r"tactics\.battle_fury\.effect"):
        assert re.search(rf"field '{field}'", msg), (field, msg)
