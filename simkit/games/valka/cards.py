"""VÁLKA cards and the Lonequest map, read from TOML (rules: ../shared/rules/valka.txt).

The bundled ``scenarios/valka/cards.toml`` is STAND-IN data: the rulebook prints
no card numbers. What the rulebook does fix is checked here: 86 VÁLKA cards =
42 Fighters (8 Warbands x 5 + 2 Jokers) + 22 Buffs (strike/shield/health, values
1-3, at least one +1 of each type: the Lonequest starting equipment) + 22
Events; 36 Quest cards; The Old Gob is a Goblin with base Health 3; the map has
6 Locations of 5 cards each, two of them southern start Locations, with arrows
that reach every Location from the south.

Every problem is an :class:`~simkit.errors.InputError` naming the file, the
field and the allowed values. Quest effects are parsed and compiled by
:mod:`simkit.games.valka.quests`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from simkit.core.scenario import Fields, Problems, read_toml
from simkit.errors import InputError

# Integer codes (index into the tuple) shared with the quest bytecode and the simulator.
WARBANDS = ("barbarians", "brotherhood", "goblins", "knights", "monsters", "reptilios", "tree_beasts", "wizards")
WARBAND_NAMES = ("Barbarians", "The Brotherhood", "Goblins", "Knights", "Monsters", "Reptilios", "Tree Beasts",
                 "Wizards")
JOKER = len(WARBANDS)  # 8: counts as a Fighter of any Warband
JOKER_NAME = "joker"
BUFF_TYPES = ("strike", "shield", "health")
BUFF_ANY = len(BUFF_TYPES)  # 3: "any" in quest effects only
EVENT_KINDS = ("fear", "potion", "retreat", "reinforce", "changeling", "divine_aid", "fireblast", "lightning_bolt",
               "thief", "grave_robber")

N_FIGHTERS, N_BUFFS, N_EVENTS, N_QUESTS = 42, 22, 22, 36
PER_WARBAND, N_JOKERS = 5, 2
N_LOCATIONS, N_SOUTH, CARDS_PER_LOCATION = 6, 2, 5
BUFF_VALUES = (1, 2, 3)
OLD_GOB, OLD_GOB_HEALTH = "The Old Gob", 3
MAX_STAT = 9


@dataclass(frozen=True)
class Fighter:
    key: str
    name: str
    warband: int  # index into WARBANDS, or JOKER
    infamy: int
    strike: int
    health: int
    shield: int

    @property
    def warband_name(self) -> str:
        return JOKER_NAME if self.warband == JOKER else WARBANDS[self.warband]


@dataclass(frozen=True)
class Buff:
    type: int  # index into BUFF_TYPES
    value: int  # 1..3


@dataclass(frozen=True)
class Event:
    kind: int  # index into EVENT_KINDS


@dataclass(frozen=True)
class Quest:
    key: str
    name: str
    text: str
    effects: tuple  # normalised effect tables, see simkit.games.valka.quests


@dataclass(frozen=True)
class Location:
    key: str
    name: str
    south: bool  # a start Location
    cards: int  # cards dealt here at set-up


@dataclass(frozen=True)
class CardSet:
    notice: str
    fighters: tuple[Fighter, ...]
    buffs: tuple[Buff, ...]
    events: tuple[Event, ...]
    quests: tuple[Quest, ...]
    locations: tuple[Location, ...]
    arrows: tuple[tuple[int, int], ...]  # (from, to) indices into locations

    def warband_deck(self, warband: int) -> tuple[int, ...]:
        """Indices of the 5 Fighters of one Warband: the player's Warband deck."""
        return tuple(i for i, f in enumerate(self.fighters) if f.warband == warband)

    def fighter_deck(self, warband: int) -> tuple[int, ...]:
        """Indices of every other Fighter: the Fighter deck that Marauders and recruits come from."""
        return tuple(i for i, f in enumerate(self.fighters) if f.warband != warband)

    @property
    def loot_deck(self) -> tuple[Buff | Event, ...]:
        """Buffs then Events: the Loot deck."""
        return self.buffs + self.events

    def starting_equipment(self) -> tuple[int, ...]:
        """Indices into ``buffs`` of the first +1 Buff of each type (strike, shield, health)."""
        return tuple(next(i for i, b in enumerate(self.buffs) if b.type == t and b.value == 1)
                     for t in range(len(BUFF_TYPES)))

    def arrays(self) -> dict[str, np.ndarray]:
        """Flat int32 arrays for numba: fighter stats, buffs, events and the map."""
        i32 = lambda xs: np.asarray(list(xs), dtype=np.int32)  # noqa: E731
        f = self.fighters
        return {
            "fighter_warband": i32(x.warband for x in f), "fighter_infamy": i32(x.infamy for x in f),
            "fighter_strike": i32(x.strike for x in f), "fighter_shield": i32(x.shield for x in f),
            "fighter_health": i32(x.health for x in f),
            "buff_type": i32(b.type for b in self.buffs), "buff_value": i32(b.value for b in self.buffs),
            "event_kind": i32(e.kind for e in self.events),
            "location_south": i32(int(loc.south) for loc in self.locations),
            "location_cards": i32(loc.cards for loc in self.locations),
            "arrows": np.asarray(self.arrows, dtype=np.int32).reshape(-1, 2),
        }


def default_cards_path() -> Path:
    from simkit.core.registry import scenarios_dir

    return scenarios_dir() / "valka" / "cards.toml"


def _choices(names) -> str:
    return ", ".join(repr(n) for n in names)


def _rows(top: Fields, name: str, count: int) -> list[Fields]:
    """A list of tables (``[[name]]`` or an array of inline tables) holding exactly ``count`` entries, each
    named by its key in messages (``fighters.old_gob.health``); a wrong count or a row that is not a table is
    recorded and the other rows are still checked."""
    value = top.get(name, list)
    if len(value) != count:
        top.problems.add(top.error(name, f"must list exactly {count} cards (got {len(value)})"))
    for i, v in enumerate(value):
        if not isinstance(v, dict):
            top.problems.add(top.error(f"{name}[{i}]", f"must be a table (got {v!r})"))
    return top.rows(name, value)


def _key(f: Fields, seen: dict[str, int]) -> str:
    key = f.get("key", str)
    if not key or key in seen:
        used = f" (already the key of {f.prefix.split('[')[0]}[{seen[key]}])" if key else ""
        raise f.error("key", f"must be a distinct non-empty name (got {key!r}){used}")
    seen[key] = len(seen)
    return key


def _fighters(top: Fields, experiment: bool = False) -> tuple[Fighter, ...]:
    allowed = WARBANDS + (JOKER_NAME,)
    fighters, keys, count = [], {}, [0] * (len(WARBANDS) + 1)
    for f in _rows(top, "fighters", N_FIGHTERS):
        with top.problems.row():
            key, name = _key(f, keys), f.get("name", str)
            band = allowed.index(f.get("warband", str, choices=allowed))
            count[band] += f.data.get("warband") in allowed  # a wrong warband is not counted in any band
            limit = N_JOKERS if band == JOKER else PER_WARBAND
            if count[band] > limit:
                raise f.error("warband", f"is Fighter number {count[band]} of {allowed[band]!r}; the rulebook has "
                              f"exactly {PER_WARBAND} per Warband and {N_JOKERS} jokers (allowed: "
                              f"{_choices(allowed)})")
            fighter = Fighter(key, name, band, f.get("infamy", int, min=0, max=MAX_STAT),
                              f.get("strike", int, min=0, max=MAX_STAT), f.get("health", int, min=1, max=MAX_STAT),
                              f.get("shield", int, min=0, max=MAX_STAT))
            f.finish()
            if not experiment and name == OLD_GOB and (band != WARBANDS.index("goblins")
                                                       or fighter.health != OLD_GOB_HEALTH):
                field = "warband" if band != WARBANDS.index("goblins") else "health"
                raise f.error(field, f"breaks the rulebook: {OLD_GOB} is a 'goblins' Fighter with base Health "
                              f"{OLD_GOB_HEALTH} (got warband {allowed[band]!r}, health {fighter.health})")
            fighters.append(fighter)
    top.problems.check()  # the checks below count the cards: only on cards that are all right
    # the counts are 42 in all and no band is over its limit, so none can be short
    if not experiment and not any(f.name == OLD_GOB for f in fighters):
        raise top.error("fighters", f"must include {OLD_GOB!r}, a 'goblins' Fighter with base Health {OLD_GOB_HEALTH} "
                        "(the rulebook's example)")
    return tuple(fighters)


def _buffs(top: Fields) -> tuple[Buff, ...]:
    buffs = []
    for f in _rows(top, "buffs", N_BUFFS):
        with top.problems.row():
            buffs.append(Buff(BUFF_TYPES.index(f.get("type", str, choices=BUFF_TYPES)),
                              f.get("value", int, choices=BUFF_VALUES)))
            f.finish()
    top.problems.check()
    for t, name in enumerate(BUFF_TYPES):
        if Buff(t, 1) not in buffs:
            raise top.error("buffs", f"must include a +1 {name!r} Buff: the Lonequest starting equipment is a +1 of "
                            f"each type ({_choices(BUFF_TYPES)})")
    return tuple(buffs)


def _events(top: Fields) -> tuple[Event, ...]:
    events = []
    for f in _rows(top, "events", N_EVENTS):
        with top.problems.row():
            events.append(Event(EVENT_KINDS.index(f.get("kind", str, choices=EVENT_KINDS))))
            f.finish()
    top.problems.check()
    missing = [k for i, k in enumerate(EVENT_KINDS) if Event(i) not in events]
    if missing:
        raise top.error("events", f"must include every Event kind the rulebook names ({_choices(EVENT_KINDS)}); "
                        f"missing: {_choices(missing)}")
    return tuple(events)


def _quests(top: Fields) -> tuple[Quest, ...]:
    from simkit.games.valka.quests import parse_effects

    quests, keys = [], {}
    for f in _rows(top, "quests", N_QUESTS):
        with top.problems.row():
            key, name, text = _key(f, keys), f.get("name", str), f.get("text", str)
            quests.append(Quest(key, name, text, parse_effects(f, "effects")))
            f.finish()
    top.problems.check()
    return tuple(quests)


def _map(top: Fields) -> tuple[tuple[Location, ...], tuple[tuple[int, int], ...]]:
    locations, keys = [], {}
    for f in _rows(top, "locations", N_LOCATIONS):
        with top.problems.row():
            locations.append(Location(_key(f, keys), f.get("name", str), f.get("south", bool, False),
                                      f.get("cards", int)))
            f.finish()
            if locations[-1].cards != CARDS_PER_LOCATION:
                raise f.error("cards", f"must be {CARDS_PER_LOCATION}: set-up deals {CARDS_PER_LOCATION} cards onto "
                              f"every Location (got {locations[-1].cards})")
    top.problems.check()
    if sum(loc.south for loc in locations) != N_SOUTH:
        raise top.error("locations", f"must mark exactly {N_SOUTH} southern start Locations with 'south = true' "
                        f"(got {[loc.key for loc in locations if loc.south]})")
    pairs = top.get("arrows", list)
    arrows = []
    for i, pair in enumerate(pairs):
        if not (isinstance(pair, list) and len(pair) == 2):
            raise top.error(f"arrows[{i}]", f"must be a [from, to] pair of Location keys (got {pair!r})")
        for j, k in enumerate(pair):
            if not isinstance(k, str) or k not in keys:
                raise top.error(f"arrows[{i}][{j}]", f"must be one of {_choices(keys)} (got {k!r})")
        arrow = (keys[pair[0]], keys[pair[1]])
        if arrow[0] == arrow[1] or arrow in arrows:
            raise top.error(f"arrows[{i}]", f"must join two different Locations, once (got {pair!r})")
        arrows.append(arrow)
    reached = {i for i, loc in enumerate(locations) if loc.south}
    grew = True
    while grew:
        new = {b for a, b in arrows if a in reached} - reached
        reached |= new
        grew = bool(new)
    lost = [loc.key for i, loc in enumerate(locations) if i not in reached]
    if lost:
        raise top.error("arrows", "must let every Location be reached from a southern one; "
                        f"unreachable: {_choices(lost)}")
    return tuple(locations), tuple(arrows)


def load_cards(path: str | Path | None = None) -> CardSet:
    """Read and check a VÁLKA cards file (default: the bundled stand-in ``scenarios/valka/cards.toml``)."""
    path = Path(path) if path is not None else default_cards_path()
    data, _ = read_toml(path)
    # every wrong field of every card is reported at once, each by card key and field
    problems = Problems()
    top = Fields(path, data, problems=problems)
    notice = top.get("notice", str)
    # experiment = true (set on files changed by --set) lets card stats differ from the rulebook's printed
    # example (The Old Gob's base Health 3); impossible values and the card counts are still checked
    experiment = top.get("experiment", bool, False)
    sections = []
    for read in (lambda: _fighters(top, experiment), lambda: _buffs(top), lambda: _events(top),
                 lambda: _quests(top)):
        try:
            sections.append(read())
        except InputError as exc:  # recorded; the next kind of card is still checked
            if not getattr(exc, "collected", False):
                problems.add(exc)
            sections.append(())
    problems.check()
    fighters, buffs, events, quests = sections
    locations, arrows = _map(top)
    top.finish()
    problems.check()
    return CardSet(notice, fighters, buffs, events, quests, locations, arrows)

