"""Valhalla Solo player deck (Warriors, Battle Tactics, Valkyrie Missions), clans and Jarls, read from TOML,
and the numeric arrays the solo engine works on.

The bundled ``scenarios/valhalla/deck.toml`` is STAND-IN data (see its header). Every problem in a deck
file is an :class:`~simkit.errors.InputError` naming the file, the field and the allowed values.

Array contract (all ``numpy.int32``; see :meth:`Deck.arrays` and :func:`monster_arrays`):
N = one row per physical card (entries expanded by ``copies``), base cards first, then Valkyries;
within an expansion: Warriors, then Battle Tactics, then Missions, each in file order.
S = the non-wild die symbols in cards.toml ``[die] symbols`` order; C = the clans in cards.toml order;
J = the 17 solo Jarls in :data:`JARL_KEYS` order. Codes are the indices into the tuples below.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from simkit.core.scenario import Fields, Problems, read_toml
from simkit.errors import InputError
from simkit.games.valhalla.cards import POWERS, WILD, CardsFile, Monster, WeaponDie, _names, load_cards_file

__all__ = [
    "CARD_TYPES", "EXPANSIONS", "EFFECTS", "REQUIREMENTS", "CLAN_ABILITIES", "JARL_ABILITIES", "POWERS",
    "BLESSINGS", "JARL_KEYS", "JARL_NAMES", "ANY", "BASE_TOTAL", "VALKYRIES_TOTAL", "MISSION_GLORY",
    "Clan", "Warrior", "Tactic", "Mission", "Jarl", "Deck", "default_deck_path", "load_deck", "monster_arrays",
]

CARD_TYPES = ("warrior", "tactic", "mission")
EXPANSIONS = ("base", "valkyries")
EFFECTS = ("strength", "reroll", "smaller_team", "weapon_delivery", "path_to_valhalla", "silence")
REQUIREMENTS = ("no_basic_rerolls", "strength_5_higher", "three_activated")
CLAN_ABILITIES = ("none", "boar", "ice_giant", "reroll", "pack")
JARL_ABILITIES = ("none", "attack_bonus", "defence_bonus", "free_reroll", "extra_die", "glory_start",
                  "draw_more", "extra_shield")
BLESSINGS = ("none", "plus1", "plus2", "plus3")  # code = index = the bonus's number
# POWERS (monster powers) is defined in cards.py and re-exported here.

JARL_KEYS = ("sigurd", "solveig", "sigvard", "hodr", "agnar", "villsvin", "valgard", "styr", "vingor", "aslaug",
             "einar", "thord", "ottar", "esbjorn", "egil", "beinir", "bernhard")
JARL_NAMES = ("Sigurd", "Solveig", "Sigvard", "Hödr", "Agnar", "Villsvin", "Valgard", "Styr", "Vingor", "Aslaug",
              "Einar", "Thord", "Ottar", "Esbjörn", "Egil", "Beinir", "Bernhard")

ANY = "any"  # a weapon slot any non-wild symbol fills
BASE_TOTAL = 120
VALKYRIES_TOTAL = 40
MISSION_GLORY = 2  # Glory Points a completed Mission adds to Valhalla (its `glory` in the arrays)

_EFFECTS_NEED_VALUE = ("strength", "reroll", "smaller_team")
_VALKYRIES_ONLY_EFFECTS = ("weapon_delivery", "path_to_valhalla")


@dataclass(frozen=True)
class Clan:
    key: str  # the colour, as in cards.toml
    name: str
    ability: str  # one of CLAN_ABILITIES


@dataclass(frozen=True)
class Warrior:
    key: str
    name: str
    clan: str
    strength: int
    weapons: tuple[str, ...]  # 1..3 symbols or ANY
    glory: int
    special: bool
    copies: int
    expansion: str
    blessing: str = "none"
    blessing_clan: str | None = None
    distinct: bool = False


@dataclass(frozen=True)
class Tactic:
    key: str
    name: str
    effect: str
    value: int
    symbol: str | None
    copies: int
    expansion: str
    weapons: tuple[str, ...] = ()  # the weapons that activate it (0..3 symbols or ANY)


@dataclass(frozen=True)
class Mission:
    key: str
    name: str
    requirement: str
    copies: int
    expansion: str = "valkyries"


@dataclass(frozen=True)
class Jarl:
    key: str
    name: str
    ability: str
    value: int


@dataclass
class Deck:
    path: Path
    notice: str
    cards: CardsFile  # the cards.toml it was checked against (die, monsters, clans, symbols)
    clans: list[Clan]  # in cards.toml clan order
    warriors: list[Warrior]
    tactics: list[Tactic]
    missions: list[Mission]
    jarls: list[Jarl]  # JARL_KEYS order
    card_keys: list[str] = field(default_factory=list)  # one per physical card, the arrays' row order
    jarl_keys: list[str] = field(default_factory=list)

    @property
    def symbols(self) -> tuple[str, ...]:
        """The S non-wild symbols (the columns of ``need``)."""
        return self.cards.weapons

    @property
    def clan_keys(self) -> tuple[str, ...]:
        return self.cards.clans

    @property
    def die(self) -> WeaponDie:
        return self.cards.die

    @property
    def monsters(self) -> dict[str, Monster]:
        return self.cards.monsters

    def rows(self) -> list[Warrior | Tactic | Mission]:
        """One entry per physical card, in the arrays' row order."""
        out: list = []
        for exp in EXPANSIONS:
            for entry in [*self.warriors, *self.tactics, *self.missions]:
                if entry.expansion == exp:
                    out.extend([entry] * entry.copies)
        return out

    def count(self, expansion: str) -> int:
        return sum(e.copies for e in [*self.warriors, *self.tactics, *self.missions] if e.expansion == expansion)

    def arrays(self) -> dict[str, np.ndarray]:
        """The int32 arrays of the contract (module docstring)."""
        syms = self.symbols
        s_idx = {s: i for i, s in enumerate(syms)}
        c_idx = {c: i for i, c in enumerate(self.clan_keys)}
        rows = self.rows()
        n, s = len(rows), len(syms)
        a = {name: np.zeros(n, np.int32) for name in (
            "card_type", "expansion", "clan", "strength", "glory", "special", "need_any", "distinct",
            "blessing", "blessing_clan", "effect", "value", "symbol", "requirement")}
        need = np.zeros((n, s), np.int32)
        for name in ("clan", "blessing_clan", "effect", "symbol", "requirement"):
            a[name][:] = -1
        for r, e in enumerate(rows):
            a["expansion"][r] = EXPANSIONS.index(e.expansion)
            weapons: tuple[str, ...] = ()
            if isinstance(e, Warrior):
                a["card_type"][r] = 0
                a["clan"][r] = c_idx[e.clan]
                a["strength"][r] = e.strength
                a["glory"][r] = e.glory
                a["special"][r] = int(e.special)
                a["distinct"][r] = int(e.distinct)
                a["blessing"][r] = BLESSINGS.index(e.blessing)
                a["blessing_clan"][r] = c_idx[e.blessing_clan] if e.blessing_clan is not None else -1
                weapons = e.weapons
            elif isinstance(e, Tactic):
                a["card_type"][r] = 1
                a["effect"][r] = EFFECTS.index(e.effect)
                a["value"][r] = e.value
                a["symbol"][r] = s_idx[e.symbol] if e.symbol is not None else -1
                weapons = e.weapons
            else:
                a["card_type"][r] = 2
                a["requirement"][r] = REQUIREMENTS.index(e.requirement)
                a["glory"][r] = MISSION_GLORY
            for w in weapons:
                if w == ANY:
                    a["need_any"][r] += 1
                else:
                    need[r, s_idx[w]] += 1
        a["need"] = need
        clans_by_key = {c.key: c for c in self.clans}
        a["clan_ability"] = np.array([CLAN_ABILITIES.index(clans_by_key[k].ability) for k in self.clan_keys],
                                     np.int32)
        a["jarl_ability"] = np.array([JARL_ABILITIES.index(j.ability) for j in self.jarls], np.int32)
        a["jarl_value"] = np.array([j.value for j in self.jarls], np.int32)
        a["die_faces"] = np.array([s if f == WILD else s_idx[f] for f in self.die.faces], np.int32)
        return a

    def monster_arrays(self, key: str, side: str) -> dict[str, np.ndarray]:
        """:func:`monster_arrays` for this deck's cards file."""
        return monster_arrays(self.monsters, key, side, clans=self.clan_keys, symbols=self.symbols)


def default_deck_path() -> Path:
    from simkit.core.registry import scenarios_dir

    return scenarios_dir() / "valhalla" / "deck.toml"


def monster_arrays(monsters: dict[str, Monster], key: str, side: str, *, clans=None,
                   symbols=None) -> dict[str, np.ndarray]:
    """int32 arrays over one side (``"base"`` or ``"plus40"``) of one monster's cards, top card first.

    ``clans`` (the bit order of ``m_clans``) and ``symbols`` (the non-wild symbols, the columns of
    ``m_weapons``) default to the bundled cards.toml's.
    """
    if key not in monsters:
        raise InputError(f"monster: must be one of {', '.join(map(repr, monsters))} (got {key!r})")
    if side not in ("base", "plus40"):
        raise InputError(f"monster side: must be one of 'base', 'plus40' (got {side!r})")
    if clans is None or symbols is None:
        cf = load_cards_file()
        clans = cf.clans if clans is None else clans
        symbols = cf.weapons if symbols is None else symbols
    c_idx = {c: i for i, c in enumerate(clans)}
    s_idx = {s: i for i, s in enumerate(symbols)}
    mon = monsters[key]
    cards = mon.cards_base if side == "base" else mon.cards_plus40
    k = len(cards)
    weapons = np.zeros((k, len(symbols)), np.int32)
    mask = np.zeros(k, np.int32)
    for i, card in enumerate(cards):
        for w in card.weapons:
            if w not in s_idx:
                raise InputError(f"monster {key!r} card {card.name!r}: weapon {w!r} is not one of "
                                 f"{', '.join(map(repr, symbols))}")
            weapons[i, s_idx[w]] += 1
        for c in card.clans:
            if c not in c_idx:
                raise InputError(f"monster {key!r} card {card.name!r}: clan {c!r} is not one of "
                                 f"{', '.join(map(repr, clans))}")
            mask[i] |= 1 << c_idx[c]
    return {
        "m_strength": np.array([c.strength for c in cards], np.int32),
        "m_max_glory": np.array([c.max_glory for c in cards], np.int32),
        "m_clans": mask,
        "m_weapons": weapons,
        "m_warrior_symbols": np.array([c.warrior_symbols for c in cards], np.int32),
        "m_power": np.array([POWERS.index(c.power_effect) for c in cards], np.int32),
        "m_power_value": np.array([c.power_value for c in cards], np.int32),
    }


# ---------------------------------------------------------------------------------------------- loading


def _key(f: Fields, used: dict[str, str]) -> str:
    key = f.get("key", str)
    if not key:
        raise f.error("key", "must be a non-empty name (got '')")
    if key in used:
        raise f.error("key", f"repeats {key!r} (already used by {used[key]}); keys must be distinct")
    used[key] = f"{f.prefix.rstrip('.')}"
    return key


def _weapons(f: Fields, name: str, symbols: tuple[str, ...], lo: int, hi: int) -> tuple[str, ...]:
    return _names(f, name, (*symbols, ANY), lo=lo, hi=hi)


def _warrior(f: Fields, used, clans: dict[str, Clan], symbols) -> Warrior:
    key = _key(f, used)
    name = f.get("name", str)
    clan = f.get("clan", str, choices=list(clans))
    strength = f.get("strength", int, min=1, max=9)
    weapons = _weapons(f, "weapons", symbols, 1, 3)
    glory = f.get("glory", int, min=0, max=5)
    special = f.get("special", bool, False)
    copies = f.get("copies", int, 1, min=1)
    expansion = f.get("expansion", str, choices=EXPANSIONS)
    blessing = f.get("blessing", str, "none", choices=BLESSINGS)
    blessing_clan = f.get("blessing_clan", str, None, choices=list(clans))
    distinct = f.get("distinct", bool, False)
    f.finish()
    ability = clans[clan].ability
    if special and ability == "none":
        raise f.error("special", f"must be false: clan {clan!r} ({clans[clan].name}) has no special power "
                      f"(its ability is 'none')")
    if blessing != "none" and expansion != "valkyries":
        raise f.error("blessing", f"must be 'none' for a base Warrior; only expansion 'valkyries' Warriors carry "
                      f"a Valkyrie blessing (got {blessing!r})")
    if blessing == "plus2" and blessing_clan is None:
        raise f.error("blessing_clan", f"is missing: blessing 'plus2' needs the clan whose Warrior must go to "
                      f"Valhalla with it; allowed values: {', '.join(map(repr, clans))}")
    if blessing != "plus2" and blessing_clan is not None:
        raise f.error("blessing_clan", f"is only for blessing 'plus2' (blessing is {blessing!r}; "
                      f"got {blessing_clan!r})")
    if distinct:
        if ability != "ice_giant":
            ice = [c.key for c in clans.values() if c.ability == "ice_giant"]
            raise f.error("distinct", f"is only for Ice Giants (clan {', '.join(map(repr, ice))}); clan {clan!r} "
                          f"has ability {ability!r}")
        named = [w for w in weapons if w != ANY]
        if len(set(named)) != len(named):
            raise f.error("weapons", f"must name different symbols when distinct is true (got {list(weapons)!r})")
    return Warrior(key, name, clan, strength, weapons, glory, special, copies, expansion, blessing, blessing_clan,
                   distinct)


def _tactic(f: Fields, used, symbols) -> Tactic:
    key = _key(f, used)
    name = f.get("name", str)
    effect = f.get("effect", str, choices=EFFECTS)
    if effect in _EFFECTS_NEED_VALUE:
        if not f.has("value"):
            raise f.error("value", f"is missing: effect {effect!r} needs a whole number >= 1")
        value = f.get("value", int, min=1)
    else:
        value = f.get("value", int, 0, min=0)
    symbol = f.get("symbol", str, None, choices=symbols)
    weapons = _weapons(f, "weapons", symbols, 0, 3) if f.has("weapons") else ()
    copies = f.get("copies", int, 1, min=1)
    expansion = f.get("expansion", str, choices=EXPANSIONS)
    f.finish()
    if effect == "weapon_delivery" and symbol is None:
        raise f.error("symbol", f"is missing: effect 'weapon_delivery' needs the die symbol the card counts as; "
                      f"allowed values: {', '.join(map(repr, symbols))}")
    if effect != "weapon_delivery" and symbol is not None:
        raise f.error("symbol", f"is only for effect 'weapon_delivery' (effect is {effect!r}; got {symbol!r})")
    if effect in _VALKYRIES_ONLY_EFFECTS and expansion != "valkyries":
        raise f.error("expansion", f"must be 'valkyries' for effect {effect!r} (got {expansion!r})")
    return Tactic(key, name, effect, value, symbol, copies, expansion, weapons)


def _mission(f: Fields, used) -> Mission:
    key = _key(f, used)
    m = Mission(key, f.get("name", str), f.get("requirement", str, choices=REQUIREMENTS),
                f.get("copies", int, 1, min=1), f.get("expansion", str, choices=("valkyries",)))
    f.finish()
    return m


def _jarls(top: Fields) -> list[Jarl]:
    tables = top.tables("jarls")
    if len(tables) != len(JARL_KEYS):
        raise top.error("jarls", f"must list exactly the {len(JARL_KEYS)} solo Jarls, in this order: "
                        f"{', '.join(JARL_NAMES)} (got {len(tables)})")
    jarls = []
    for i, f in enumerate(tables):
        with top.problems.row():
            jarls.append(_jarl(i, f))
    return jarls


def _jarl(i: int, f: Fields) -> Jarl:
    """Jarl number ``i`` (the rulebook's order)."""
    key = f.get("key", str)
    if key != JARL_KEYS[i]:
        raise f.error("key", f"must be {JARL_KEYS[i]!r} ({JARL_NAMES[i]}): the Jarls go in the rulebook's order, "
                      f"keyed {', '.join(map(repr, JARL_KEYS))} (got {key!r})")
    name = f.get("name", str)
    if not name:
        raise f.error("name", "must be a non-empty string (got '')")
    ability = f.get("ability", str, choices=JARL_ABILITIES)
    value = f.get("value", int, 0, min=0)
    f.finish()
    if ability == "none" and value != 0:
        raise f.error("value", f"must be 0 (or left out) when ability is 'none' (got {value})")
    if ability != "none" and value < 1:
        raise f.error("value", f"must be at least 1 when ability is {ability!r} (got {value})")
    return Jarl(key, name, ability, value)


def load_deck(path: str | Path | None = None, cards_path: str | Path | None = None) -> Deck:
    """Read and check a deck file against the die symbols and clans of a cards file (both default to the
    bundled ones)."""
    path = Path(path) if path is not None else default_deck_path()
    cf = load_cards_file(cards_path)
    symbols = cf.weapons
    data, _ = read_toml(path)
    # every wrong field of every card is reported at once, each by card key and field
    problems = Problems()
    top = Fields(path, data, problems=problems)
    notice = top.get("notice", str)
    top.get("experiment", bool, False)  # marks files changed by --set; no printed facts to relax here

    clans: dict[str, Clan] = {}
    for f in top.tables("clans"):
        with problems.row():
            key = f.get("key", str, choices=cf.clans)
            if key in clans:
                raise f.error("key", f"repeats {key!r}; give each clan colour one [[clans]] table")
            clans[key] = Clan(key, f.get("name", str), f.get("ability", str, choices=CLAN_ABILITIES))
            f.finish()
    problems.check()
    missing = [c for c in cf.clans if c not in clans]
    if missing:
        raise top.error("clans", f"must hold one table per clan colour of {cf.path} "
                        f"({', '.join(map(repr, cf.clans))}); missing: {', '.join(map(repr, missing))}")
    for ability in ("boar", "ice_giant"):
        have = [c.key for c in clans.values() if c.ability == ability]
        if len(have) != 1:
            raise top.error("clans", f"must give exactly one clan the ability {ability!r} "
                            f"(got {len(have)}: {', '.join(map(repr, have)) or 'none'})")

    used: dict[str, str] = {}

    def each(name, read):
        out = []
        for f in top.tables(name):
            with problems.row():
                out.append(read(f))
        return out

    warriors = each("warriors", lambda f: _warrior(f, used, clans, symbols))
    tactics = each("tactics", lambda f: _tactic(f, used, symbols))
    missions = each("missions", lambda f: _mission(f, used))
    try:
        jarls = _jarls(top)
    except InputError as exc:
        problems.add(exc)
    top.finish()
    problems.check()  # the totals below count the cards: only on cards that are all right

    deck = Deck(path, notice, cf, [clans[k] for k in cf.clans], warriors, tactics, missions, jarls)
    _check_totals(top, deck)
    deck.card_keys = [e.key for e in deck.rows()]
    deck.jarl_keys = [j.key for j in jarls]
    return deck


def _check_totals(top: Fields, deck: Deck) -> None:
    base, valk = deck.count("base"), deck.count("valkyries")
    if base != BASE_TOTAL:
        raise top.error("warriors", f"and 'tactics' with expansion 'base' must total exactly {BASE_TOTAL} cards, "
                        f"counting copies (got {base})")
    if valk != VALKYRIES_TOTAL:
        raise top.error("warriors", f"'tactics' and 'missions' with expansion 'valkyries' must total exactly "
                        f"{VALKYRIES_TOTAL} cards, counting copies (got {valk})")
    base_clans = {w.clan for w in deck.warriors if w.expansion == "base"}
    missing = [c.key for c in deck.clans if c.key not in base_clans]
    if missing:
        raise top.error("warriors", f"must hold at least one base Warrior of every clan (none of: "
                        f"{', '.join(map(repr, missing))})")
    valk_w = [w for w in deck.warriors if w.expansion == "valkyries"]
    for b in BLESSINGS[1:]:
        if not any(w.blessing == b for w in valk_w):
            raise top.error("warriors", f"must hold at least one Valkyries Warrior with blessing {b!r} (got none)")
    if not any(w.distinct for w in valk_w):
        raise top.error("warriors", "must hold at least one Valkyries Ice Giant with distinct = true (got none)")
    for e in _VALKYRIES_ONLY_EFFECTS:
        if not any(t.effect == e for t in deck.tactics):
            raise top.error("tactics", f"must hold at least one card with effect {e!r} (got none)")
    for r in REQUIREMENTS:
        if not any(m.requirement == r for m in deck.missions):
            raise top.error("missions", f"must hold at least one card with requirement {r!r} (got none)")
