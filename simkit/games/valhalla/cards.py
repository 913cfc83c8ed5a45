"""Valhalla Solo monster cards and the monster's weapon die, read from TOML.

The bundled ``scenarios/valhalla/cards.toml`` is STAND-IN data: the real
faces and cards are not in our rulebooks. Every problem in a cards file is an
:class:`~simkit.errors.InputError` naming the file, the field and the allowed
values.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path

from simkit.core.scenario import Fields, Problems, read_toml

WILD = "wild"  # the ⊗ face

# Machine-readable monster powers (``power_effect``); the codes are the indices (see deck.monster_arrays).
POWERS = ("none", "defence_bonus", "attack_bonus", "extra_die", "no_reroll", "discard")
# powers whose ``power_value`` must be at least 1; the others must have power_value 0
POWERS_WITH_VALUE = ("defence_bonus", "attack_bonus", "extra_die", "discard")


@dataclass(frozen=True)
class WeaponDie:
    faces: tuple[str, ...]


@dataclass(frozen=True)
class MonsterCard:
    name: str
    strength: int
    max_glory: int
    clans: tuple[str, ...]
    weapons: tuple[str, ...]  # the multiset of weapons that triggers the attack
    warrior_symbols: int
    power: str  # free text, as printed
    power_effect: str = "none"  # one of POWERS
    power_value: int = 0


@dataclass(frozen=True)
class Monster:
    key: str
    name: str
    cards_base: list[MonsterCard]  # ascending strength; [0] is the active card
    cards_plus40: list[MonsterCard]  # the (+40) side, same number of cards


def default_cards_path() -> Path:
    from simkit.core.registry import scenarios_dir

    return scenarios_dir() / "valhalla" / "cards.toml"


def _names(f: Fields, name: str, allowed, lo: int = 0, hi: int | None = None, unique: bool = False) -> tuple[str, ...]:
    """A list of names, each from ``allowed`` (any non-empty string when ``allowed`` is None). With a
    :class:`Problems` every wrong entry is recorded (``weapons[0]`` and ``weapons[1]`` in one pass) and the
    good ones are kept; without, the first wrong entry raises."""
    value = f.get(name, list)
    if not lo <= len(value) <= (len(value) if hi is None else hi):
        span = f"exactly {lo}" if lo == hi else f"{lo} to {hi}" if hi is not None else f"at least {lo}"
        f._bad(name, f"must list {span} names (got {len(value)})", None)
    good = []
    for i, v in enumerate(value):
        if allowed is None and not (isinstance(v, str) and v):
            f._bad(f"{name}[{i}]", f"must be a non-empty string (got {v!r})", None)
        elif allowed is not None and v not in allowed:
            f._bad(f"{name}[{i}]", f"must be one of {', '.join(map(repr, allowed))} (got {v!r})", None)
        elif unique and v in value[:i]:
            f._bad(f"{name}[{i}]", f"repeats {v!r}; names must be distinct", None)
        else:
            good.append(v)
    return tuple(good)


def _cards(m: Fields, side: str, weapons: list[str] | None, clans: tuple[str, ...] | None) -> list[MonsterCard]:
    cards = []
    for f in m.tables(side):
        with m.problems.row() if m.problems is not None else contextlib.nullcontext():
            _card(f, cards, weapons, clans)
    if not cards and not (m.problems and m.problems.errors):
        raise m.error(side, "must hold at least one card")
    return cards


def _card(f: Fields, cards: list[MonsterCard], weapons: list[str] | None, clans: tuple[str, ...] | None) -> None:
    """Read one monster card and append it to ``cards`` (the cards above it)."""
    card = MonsterCard(
        name=f.get("name", str),
        strength=f.get("strength", int, min=1),
        max_glory=f.get("max_glory", int, min=0),
        clans=_names(f, "clans", clans),
        weapons=_names(f, "weapons", weapons, lo=1, hi=6),
        warrior_symbols=f.get("warrior_symbols", int, min=0),
        power=f.get("power", str, ""),
        power_effect=f.get("power_effect", str, "none", choices=POWERS),
        power_value=f.get("power_value", int, 0, min=0),
    )
    f.finish()
    above = cards[-1].strength if cards else None
    cards.append(card)  # kept even when a check below fails: the next card is compared with this one, once
    if card.power_effect in POWERS_WITH_VALUE and card.power_value < 1:
        raise f.error("power_value", f"must be at least 1 when power_effect is {card.power_effect!r} "
                      f"(got {card.power_value})")
    if card.power_effect not in POWERS_WITH_VALUE and card.power_value != 0:
        raise f.error("power_value", f"must be 0 (or left out) when power_effect is {card.power_effect!r}; "
                      f"only {', '.join(map(repr, POWERS_WITH_VALUE))} take a value (got {card.power_value})")
    if above is not None and card.strength < above:
        raise f.error("strength", f"must be at least {above}, the strength of the card above it "
                      f"(cards go in ascending order of strength) (got {card.strength})")


@dataclass(frozen=True)
class CardsFile:
    """Everything in a cards file: the die, the monsters and the names other files refer to."""

    path: Path
    clans: tuple[str, ...]  # clan colours, in file order
    symbols: tuple[str, ...]  # every die symbol, in file order (may include WILD)
    die: WeaponDie
    monsters: dict[str, Monster]

    @property
    def weapons(self) -> tuple[str, ...]:
        """The non-wild symbols, in file order."""
        return tuple(s for s in self.symbols if s != WILD)


def load_cards(path: str | Path | None = None) -> tuple[WeaponDie, dict[str, Monster]]:
    """Read the monster die and the monsters (keyed by ``key``) from a cards file."""
    cf = load_cards_file(path)
    return cf.die, cf.monsters


def load_cards_file(path: str | Path | None = None) -> CardsFile:
    """Read a whole cards file (see :class:`CardsFile`)."""
    path = Path(path) if path is not None else default_cards_path()
    data, _ = read_toml(path)
    # every wrong field of every card is reported at once, each by monster key, side, card and field
    problems = Problems()
    top = Fields(path, data, problems=problems)
    top.get("notice", str)
    top.get("experiment", bool, False)  # marks files changed by --set; no printed facts to relax here
    # a wrong name in a list of names (clans, die symbols) is reported once: the names checked against that list
    # are then only checked to be names (else each use of a name the wrong entry stood for is reported again)
    before = len(problems.errors)
    clans = _names(top, "clans", None, lo=1, unique=True)
    clans_known = clans if len(problems.errors) == before else None
    d = top.table("die")
    before = len(problems.errors)
    symbols = _names(d, "symbols", None, lo=1, unique=True)
    known = len(problems.errors) == before
    die = WeaponDie(_names(d, "faces", symbols if known else None, lo=6, hi=6))
    d.finish()
    weapons = [s for s in symbols if s != WILD] if known else None
    monsters: dict[str, Monster] = {}
    for m in top.tables("monsters"):
        with problems.row():
            key = m.get("key", str)
            if key in monsters or not key:
                raise m.error("key", f"must be a distinct non-empty name (got {key!r}; already used: "
                              f"{', '.join(monsters)})")
            before = len(problems.errors)
            mon = Monster(key, m.get("name", str), _cards(m, "base", weapons, clans_known),
                          _cards(m, "plus40", weapons, clans_known))
            m.finish()  # an unknown table (e.g. [[monsters.bas]]) is named as such, not reported as a count mismatch
            if len(problems.errors) == before and len(mon.cards_plus40) != len(mon.cards_base):
                raise m.error("plus40", f"must hold as many cards as 'base' ({len(mon.cards_base)}), being their "
                              f"reverse sides (got {len(mon.cards_plus40)})")
            monsters[key] = mon
    top.finish()
    problems.check()
    return CardsFile(path, clans, symbols, die, monsters)
