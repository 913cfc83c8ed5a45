"""The Valkyrie Incident cards, read from TOML (rules: ../shared/rules/valkyrie-incident.txt).

The rulebook does not print the cards. The bundled ``scenarios/valkyrie_incident/cards.toml`` is STAND-IN data
that keeps every fact the rulebook does print, and :func:`load_cards` checks each of them:

* 90 Incident cards: 30 Valkyrie, 25 Action, 20 Cogdrive, 15 Assault ("Valkyrie Cards (30 Cards)", …);
* each has one of 5 Clan Emblems, a name, an Incident type (War or Draft), an ability, a Draft Cost and a
  Strength ("All Incident cards contain this information: …");
* Valkyrie and Action abilities are used "during his Draft turn", Cogdrive and Assault abilities "during the
  War phase", so their Incident types are Draft and War; the Assault card "Firestorm" exists and its type is
  War (the rulebook's erratum: "has its Incident card type listed as "Conflict." This should say "War."");
* every Clan has exactly 10 Valkyrie and Cogdrive cards (Blitz: "Players should end up with 10 Incident Cards
  that match his selected Clan Emblem");
* 5 Emblem cards, one per Clan, each with a Morale requirement, a Strength bonus for its Clan's cards and a
  once-per-War ability; 5 Location cards, each with an ability that changes Strength in its War.

The effect language
-------------------
An ability is a list of effects ``{op = "...", n = N}`` run in order. Allowed ops, by the phase that uses them:

Draft abilities (Valkyrie, Action; used in the Recruit step):
  ``draw``        draw ``n`` cards from your Deck
  ``draft_free``  draft a Barracks card whose Draft Cost is at most ``n`` without discarding (target: a slot)
  ``recruit``     recruit a Barracks card whose Draft Cost is at most ``n``: it goes to your Pile (target: a slot)
  ``wreck``       wreck a Barracks card (target: a slot; ``n`` unused)
  ``fill``        place ``n`` cards from the Incident Deck into empty Barracks spaces
  ``victory``     add the top ``n`` cards of the Incident Deck to your Victory Cards
War abilities (Cogdrive, Assault, Emblem; a War action):
  ``draw``        draw ``n`` cards from your Deck
  ``strength``    add ``n`` Strength to your side of a Conflict (target: a Conflict)
  ``weaken``      take ``n`` Strength from the other side of a Conflict (target: a Conflict)
  ``destroy``     destroy the other player's strongest card of printed Strength at most ``n`` on a Conflict
                  (to his Pile; target: a Conflict)
  ``wreck_card``  the same, but the card is wrecked (to the Wreckage)
  ``bounce``      return the other player's strongest card of printed Strength at most ``n`` on a Conflict to
                  his hand (target: a Conflict)
  ``move``        move your strongest card from the Conflict where you lead most to the target Conflict
  ``discard``     the other player discards ``n`` cards at random from his hand to his Pile
Locations: ``strength`` (``n`` added to every card in this War that passes the filters ``type``, ``clan``,
``min_strength``) and ``no_emblem_bonus`` (Emblems give no Strength bonus in this War).

Targeted ops of one ability share its one target; an ability has at most one kind of target. Effects compile
to an integer table (:func:`CardSet.arrays`) that the numba engine interprets.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from simkit.core.scenario import Fields, Problems, read_toml
from simkit.errors import InputError

TYPES = ("valkyrie", "action", "cogdrive", "assault")
TYPE_COUNTS = (30, 25, 20, 15)
VALKYRIE, ACTION, COGDRIVE, ASSAULT = range(4)
INCIDENTS = ("war", "draft")
WAR, DRAFT = 0, 1
N_CARDS, N_CLANS, N_EMBLEMS, N_LOCATIONS = 90, 5, 5, 5
BLITZ_DECK = 10  # Valkyrie + Cogdrive cards per Clan
FIRESTORM = "Firestorm"
MORALE_COUNT = 3
MAX_EFFECTS = 3
MAX_COST, MAX_STRENGTH = 6, 9

OPS = ("nop", "draw", "draft_free", "recruit", "wreck", "fill", "victory",
       "strength", "weaken", "destroy", "wreck_card", "bounce", "move", "discard")
(OP_NOP, OP_DRAW, OP_DRAFT_FREE, OP_RECRUIT, OP_WRECK, OP_FILL, OP_VICTORY,
 OP_STRENGTH, OP_WEAKEN, OP_DESTROY, OP_WRECK_CARD, OP_BOUNCE, OP_MOVE, OP_DISCARD) = range(len(OPS))
DRAFT_OPS = ("draw", "draft_free", "recruit", "wreck", "fill", "victory")
WAR_OPS = ("draw", "strength", "weaken", "destroy", "wreck_card", "bounce", "move", "discard")
SLOT_OPS = ("draft_free", "recruit", "wreck")
CONFLICT_OPS = ("strength", "weaken", "destroy", "wreck_card", "bounce", "move")
OP_N = {"draw": (1, 4), "draft_free": (0, MAX_COST), "recruit": (0, MAX_COST), "wreck": (0, 5), "fill": (1, 5),
        "victory": (1, 2), "strength": (1, 6), "weaken": (1, 6), "destroy": (0, MAX_STRENGTH),
        "wreck_card": (0, MAX_STRENGTH), "bounce": (0, MAX_STRENGTH), "move": (0, 0), "discard": (1, 3)}
LOC_OPS = ("strength", "no_emblem_bonus")
LOC_NOP, LOC_STRENGTH, LOC_NO_EMBLEM = 0, 1, 2
MAX_LOC_MODS = 2

# packed card table columns
C_TYPE, C_CLAN, C_INCIDENT, C_COST, C_STR, C_TARGET, C_CODE = range(7)
TARGET_NONE, TARGET_SLOT, TARGET_CONFLICT = 0, 1, 2
CARD_COLS = C_CODE + 2 * MAX_EFFECTS
# packed emblem table columns: clan, bonus, morale (type, incident, min_strength, own_clan), target, code
E_CLAN, E_BONUS, E_M_TYPE, E_M_INCIDENT, E_M_MIN_STR, E_M_CLAN, E_TARGET, E_CODE = range(8)
EMBLEM_COLS = E_CODE + 2 * MAX_EFFECTS
# packed location modifiers: op, type (-1 any), clan (-1 any), min_strength, n
LOC_COLS = 5


@dataclass(frozen=True)
class Card:
    key: str
    name: str
    type: int
    clan: int
    incident: int
    cost: int
    strength: int
    ability: str
    effects: tuple  # ((op, n), ...)


@dataclass(frozen=True)
class Emblem:
    key: str
    name: str
    clan: int
    bonus: int
    morale: tuple  # (type or -1, incident or -1, min_strength, own clan 0/1)
    morale_text: str
    ability: str
    effects: tuple


@dataclass(frozen=True)
class Location:
    key: str
    name: str
    ability: str
    mods: tuple  # ((op, type, clan, min_strength, n), ...)


@dataclass(frozen=True)
class CardSet:
    notice: str
    clans: tuple[str, ...]
    cards: tuple[Card, ...]
    emblems: tuple[Emblem, ...]
    locations: tuple[Location, ...]

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(cards int32[90, CARD_COLS], emblems int32[5, EMBLEM_COLS], locations int32[5, 2, LOC_COLS])``."""
        c = np.zeros((len(self.cards), CARD_COLS), np.int32)
        for i, k in enumerate(self.cards):
            c[i, :C_CODE] = (k.type, k.clan, k.incident, k.cost, k.strength, _target(k.effects))
            for j, (op, n) in enumerate(k.effects):
                c[i, C_CODE + 2 * j:C_CODE + 2 * j + 2] = (op, n)
        e = np.zeros((len(self.emblems), EMBLEM_COLS), np.int32)
        for i, m in enumerate(self.emblems):
            e[i, :E_CODE] = (m.clan, m.bonus, *m.morale, _target(m.effects))
            for j, (op, n) in enumerate(m.effects):
                e[i, E_CODE + 2 * j:E_CODE + 2 * j + 2] = (op, n)
        lo = np.zeros((len(self.locations), MAX_LOC_MODS, LOC_COLS), np.int32)
        for i, loc in enumerate(self.locations):
            for j, mod in enumerate(loc.mods):
                lo[i, j] = mod
        return c, e, lo

    def card_index(self, key_or_name: str) -> int:
        for i, k in enumerate(self.cards):
            if key_or_name in (k.key, k.name):
                return i
        raise KeyError(key_or_name)


def _target(effects) -> int:
    for op, _ in effects:
        name = OPS[op]
        if name in SLOT_OPS:
            return TARGET_SLOT
        if name in CONFLICT_OPS:
            return TARGET_CONFLICT
    return TARGET_NONE


def default_cards_path() -> Path:
    from simkit.core.registry import scenarios_dir

    return scenarios_dir() / "valkyrie_incident" / "cards.toml"


def _choices(names) -> str:
    return ", ".join(repr(n) for n in names)


def _effects(f: Fields, what: str, allowed: tuple[str, ...]) -> tuple:
    """Parse ``effects`` of one card/emblem: unknown ops are a one-line error naming the file, the card and the
    allowed ops."""
    raw = f.get("effects", list)
    if not 1 <= len(raw) <= MAX_EFFECTS:
        raise f.error("effects", f"of {what} must list 1 to {MAX_EFFECTS} effects (got {len(raw)})")
    out, kinds = [], set()
    for j, e in enumerate(raw):
        if not isinstance(e, dict):
            raise f.error(f"effects[{j}]", f"of {what} must be a table like {{op = \"draw\", n = 1}} (got {e!r})")
        ef = Fields(f.file, e, f"{f.prefix}effects[{j}].")
        op = ef.get("op", str)
        if op not in allowed:
            raise ef.error("op", f"of {what}: unknown op {op!r}; allowed ops: {', '.join(allowed)}")
        lo, hi = OP_N[op]
        n = ef.get("n", int, lo, min=lo, max=hi)
        ef.finish()
        if op in SLOT_OPS:
            kinds.add("slot")
        if op in CONFLICT_OPS:
            kinds.add("conflict")
        out.append((OPS.index(op), n))
    if len(kinds) > 1:
        raise f.error("effects", f"of {what} mixes Barracks and Conflict targets; an ability has one target")
    return tuple(out)


def _key(f: Fields, seen: dict[str, int]) -> str:
    key = f.get("key", str)
    if not key or key in seen:
        raise f.error("key", f"must be a distinct non-empty name (got {key!r})")
    seen[key] = len(seen)
    return key


def _rows(top: Fields, name: str, count: int) -> list[Fields]:
    value = top.get(name, list)
    if len(value) != count:
        top.problems.add(top.error(name, f"must list exactly {count} entries (got {len(value)})"))
    for i, v in enumerate(value):
        if not isinstance(v, dict):
            top.problems.add(top.error(f"{name}[{i}]", f"must be a table (got {v!r})"))
    return top.rows(name, value)  # each named by its key in messages: cards.firestorm.cost


def _cards(top: Fields, clans: tuple[str, ...], experiment: bool = False) -> tuple[Card, ...]:
    cards, keys = [], {}
    counts = [0] * len(TYPES)
    for f in _rows(top, "cards", N_CARDS):
        with top.problems.row():
            key, name = _key(f, keys), f.get("name", str)
            t = TYPES.index(f.get("type", str, choices=TYPES))
            clan = clans.index(f.get("clan", str, choices=clans))
            incident_raw = f.get("incident", str)
            if incident_raw == "conflict" and name == FIRESTORM:
                raise f.error("incident", f"of {name!r} must be 'war': the rulebook's erratum says the printed "
                              "'Conflict' should say 'War'")
            if incident_raw not in INCIDENTS:
                raise f.error("incident", f"must be one of {_choices(INCIDENTS)} (got {incident_raw!r})")
            incident = INCIDENTS.index(incident_raw)
            want = DRAFT if t in (VALKYRIE, ACTION) else WAR
            if incident != want:
                raise f.error("incident", f"of {TYPES[t]} card {name!r} must be {INCIDENTS[want]!r}: the rulebook "
                              f"uses {TYPES[t]} abilities in the {'Draft turn' if want == DRAFT else 'War phase'} "
                              f"(got {incident_raw!r})")
            cost = f.get("cost", int, min=0, max=MAX_COST)
            strength = f.get("strength", int, min=0, max=MAX_STRENGTH)
            ability = f.get("ability", str)
            allowed = DRAFT_OPS if want == DRAFT else WAR_OPS
            effects = _effects(f, f"card {name!r}", allowed)
            f.finish()
            counts[t] += 1
            cards.append(Card(key, name, t, clan, incident, cost, strength, ability, effects))
    top.problems.check()  # the counts below only over cards that are all right
    for t, (have, want) in enumerate(zip(counts, TYPE_COUNTS)):
        if have != want:
            raise top.error("cards", f"must hold exactly {want} {TYPES[t]} cards (got {have}); the rulebook has "
                            + ", ".join(f"{n} {TYPES[i]}" for i, n in enumerate(TYPE_COUNTS)))
    if experiment:  # a --set experiment may move cards between Clans or rename them; counts still hold
        return tuple(cards)
    if not any(c.name == FIRESTORM and c.type == ASSAULT for c in cards):
        raise top.error("cards", f"must include the Assault card {FIRESTORM!r} (named in the rulebook's erratum)")
    for k, clan in enumerate(clans):
        n = sum(1 for c in cards if c.clan == k and c.type in (VALKYRIE, COGDRIVE))
        if n != BLITZ_DECK:
            raise top.error("cards", f"must give Clan {clan!r} exactly {BLITZ_DECK} Valkyrie and Cogdrive cards "
                            f"(the Blitz clan deck; got {n})")
    return tuple(cards)


def _emblems(top: Fields, clans: tuple[str, ...]) -> tuple[Emblem, ...]:
    out, keys = [], {}
    for f in _rows(top, "emblems", N_EMBLEMS):
        with top.problems.row():
            key, name = _key(f, keys), f.get("name", str)
            clan = clans.index(f.get("clan", str, choices=clans))
            bonus = f.get("bonus", int, min=0, max=3)
            m = f.table("morale")
            mt = m.get("type", str, "any", choices=("any",) + TYPES)
            mi = m.get("incident", str, "any", choices=("any",) + INCIDENTS)
            ms = m.get("min_strength", int, 0, min=0, max=MAX_STRENGTH)
            mc = m.get("own_clan", bool, False)
            m.finish()
            morale_text = f.get("morale_text", str)
            ability = f.get("ability", str)
            effects = _effects(f, f"emblem {name!r}", WAR_OPS)
            f.finish()
            morale = (TYPES.index(mt) if mt != "any" else -1, INCIDENTS.index(mi) if mi != "any" else -1, ms, int(mc))
            out.append(Emblem(key, name, clan, bonus, morale, morale_text, ability, effects))
    top.problems.check()
    if sorted(e.clan for e in out) != list(range(len(clans))):
        raise top.error("emblems", f"must give each Clan ({_choices(clans)}) exactly one Emblem")
    return tuple(out)


def _locations(top: Fields, clans: tuple[str, ...]) -> tuple[Location, ...]:
    out, keys = [], {}
    for f in _rows(top, "locations", N_LOCATIONS):
        with top.problems.row():
            key, name, ability = _key(f, keys), f.get("name", str), f.get("ability", str)
            raw = f.get("effects", list)
            if not 1 <= len(raw) <= MAX_LOC_MODS:
                raise f.error("effects", f"of location {name!r} must list 1 to {MAX_LOC_MODS} effects (got {len(raw)})")
            mods = []
            for j, e in enumerate(raw):
                if not isinstance(e, dict):
                    raise f.error(f"effects[{j}]", f"of location {name!r} must be a table (got {e!r})")
                ef = Fields(f.file, e, f"{f.prefix}effects[{j}].")
                op = ef.get("op", str)
                if op not in LOC_OPS:
                    raise ef.error("op", f"of location {name!r}: unknown op {op!r}; allowed ops: {', '.join(LOC_OPS)}")
                if op == "strength":
                    t = ef.get("type", str, "any", choices=("any",) + TYPES)
                    c = ef.get("clan", str, "any", choices=("any",) + clans)
                    ms = ef.get("min_strength", int, 0, min=0, max=MAX_STRENGTH)
                    n = ef.get("n", int, min=-5, max=5)
                    mods.append((LOC_STRENGTH, TYPES.index(t) if t != "any" else -1,
                                 clans.index(c) if c != "any" else -1, ms, n))
                else:
                    mods.append((LOC_NO_EMBLEM, -1, -1, 0, 0))
                ef.finish()
            f.finish()
            out.append(Location(key, name, ability, tuple(mods)))
    top.problems.check()
    return tuple(out)


def load_cards(path: str | Path | None = None) -> CardSet:
    """Read and check a cards file (default: the bundled stand-in ``scenarios/valkyrie_incident/cards.toml``)."""
    path = Path(path) if path is not None else default_cards_path()
    data, _ = read_toml(path)
    # every wrong field of every card is reported at once, each by card key and field
    problems = Problems()
    top = Fields(path, data, problems=problems)
    notice = top.get("notice", str)
    clans = top.get("clans", list)
    if len(clans) != N_CLANS or not all(isinstance(c, str) and c for c in clans) or len(set(clans)) != N_CLANS:
        problems.add(top.error("clans", f"must list {N_CLANS} distinct Clan Emblem names (got {clans!r})"))
    problems.check()
    clans = tuple(clans)
    # experiment = true (set on files changed by --set) relaxes the printed facts that name cards (Firestorm, the
    # 10-card Blitz clan decks); the card counts and every value's range are still checked
    experiment = top.get("experiment", bool, False)
    sections = []
    for read in (lambda: _cards(top, clans, experiment), lambda: _emblems(top, clans),
                 lambda: _locations(top, clans)):
        try:
            sections.append(read())
        except InputError as exc:  # recorded; the next kind of card is still checked
            if not getattr(exc, "collected", False):
                problems.add(exc)
            sections.append(())
    top.finish()
    problems.check()
    cards, emblems, locations = sections
    return CardSet(notice, clans, cards, emblems, locations)
