"""Reading a Valhalla multiplayer scenario: every field is checked here, before any numba kernel is imported.

``read_multi(fields)`` returns the keyword arguments of ``simulation.MultiSim``.
"""

from __future__ import annotations

from simkit.core.policies import LEARNED_KINDS, read_policies
from simkit.core.registry import literal_from_source

VARIANTS = ("base", "valkyries")
# rule options: name -> (allowed values, default); the first value is the plain reading (docs/rules.md)
OPTIONS = {
    "ties": (("attacker", "defender"), "attacker"),
    "boar": (("opponent", "never"), "opponent"),
    "game_end": (("turn", "round"), "turn"),
    "shield_glory": (("taken", "held"), "taken"),
    "attack_empty": (("allowed", "forbidden"), "allowed"),
}
START_DISCARD = 40  # the solo rules' number: "discards 40 cards from the top of the deck, creating a discard pile"
HAND, PART_B = 7, {"base": 2, "valkyries": 3}  # the deal ("draws 7"), part B's draw ("draws 3 cards instead of 2")


def round_needs(players: int, variant: str) -> int:
    """The fewest cards the deck must hold after the set-up discard for the set-up and one round of turns: the
    draft's players + 1 revealed Warriors, the deal of 7 each, and every seat's part B draw (2; Valkyries 3)."""
    return players + 1 + HAND * players + PART_B[variant] * players


PLUS80_DISCARD, PLUS80_DRAW_A = 20, 3  # the +80 help card: "discard 20 more cards", part A "draw 3 cards and keep 1"


def read_start_discard(r, deck, players, variants, extra: int = 0):
    """``start_discard``: one number for every table size, or a table by table size (``{ 5 = 20, 6 = 10 }``; a
    size not listed discards 40). Refused when it, plus ``extra`` (the +80 variant's 20 more), leaves fewer cards
    than the set-up and one round need at a table size and deck the scenario plays. Returns an int, or a dict
    {players: cards} when a table is given (without ``extra``)."""
    value = r.data.get("start_discard", START_DISCARD)
    if isinstance(value, dict):
        sub = r.table("start_discard")
        by = {}
        for key in sub.keys():
            if key not in ("2", "3", "4", "5", "6"):
                raise sub.error(key, "is not a table size; allowed keys: 2, 3, 4, 5, 6")
            by[int(key)] = sub.get(key, int, min=0)
        sub.finish()
        per = {p: by.get(p, START_DISCARD) for p in players}
        name = lambda p: f"start_discard.{p}" if p in by else "start_discard"  # noqa: E731
        result = {p: by[p] for p in sorted(by)}
    else:
        v = r.get("start_discard", int, START_DISCARD, min=0)
        per = {p: v for p in players}
        name = lambda p: "start_discard"  # noqa: E731
        result = v
    limits = []  # (the most that may be discarded, players, deck), the tightest first
    for p in players:
        for var in variants:
            size = deck.count("base") + (deck.count("valkyries") if var == "valkyries" else 0)
            limits.append((size - round_needs(p, var), p, var, size))
    for top, p, var, size in sorted(limits):
        if per[p] + extra > top:
            more = f" with the +80 variant's {extra} more (plus80 = true)" if extra else ""
            raise r.error(name(p), f"must be from 0 to {top - extra} with {p} players and the {var} deck ({size} "
                          f"cards, {round_needs(p, var)} of them needed for the set-up and one round of turns{more}) "
                          f"(got {per[p]})")
    return result


def read_multi(fields) -> dict:
    """Scenario ``mode = "multi"`` (see scenarios/valhalla/multi.toml): the checked ``MultiSim`` arguments."""
    from simkit.games.valhalla.deck import load_deck

    cards_path, deck_path = fields.file_path("cards", "cards.toml"), fields.file_path("deck", "deck.toml")
    deck = load_deck(deck_path, cards_path)
    players = fields.get("players", list, [2, 3, 4, 5, 6])
    for i, p in enumerate(players):
        if not (isinstance(p, int) and not isinstance(p, bool) and 2 <= p <= 6):
            raise fields.error(f"players[{i}]", f"must be one of 2, 3, 4, 5, 6 (got {p!r})")
    variants = fields.get("variants", list, ["valkyries"])
    for i, v in enumerate(variants):
        if v not in VARIANTS:
            raise fields.error(f"variants[{i}]", f"must be one of 'base', 'valkyries' (got {v!r})")
    for name, value in (("players", players), ("variants", variants)):
        if not value:
            raise fields.error(name, "must list at least one value (got [])")
        if len(set(map(repr, value))) != len(value):
            raise fields.error(name, f"must list distinct values (got {value!r}); allowed values: "
                               + ("2, 3, 4, 5, 6" if name == "players" else "'base', 'valkyries'"))
    presets = literal_from_source("simkit.games.valhalla.multi.policies", "PRESETS")
    params = literal_from_source("simkit.games.valhalla.multi.policies", "PARAMS")
    policies = read_policies(fields, presets, LEARNED_KINDS, params, ["builder", "raider"])
    from simkit.core.opponent import read_field  # not imported with the kernels: it keys none of them

    field = read_field(fields, presets, policies, LEARNED_KINDS, params, ["builder", "raider"])
    r = fields.table("rules", default={})
    options = {name: r.get(name, str, default, choices=list(allowed)) for name, (allowed, default) in OPTIONS.items()}
    options["wild_warriors"] = r.get("wild_warriors", bool, True)
    # the +80 help card (valhalla-valkyries.txt, "Combining with the Dwarves of Svartalfheim"): only with the
    # Valkyries; the stand-in deck has no Dwarves cards, so it plays the two rule changes on deck.toml's cards
    plus80 = r.get("plus80", bool, False)
    if plus80 and any(v != "valkyries" for v in variants):
        raise r.error("plus80", "the +80 variant combines the Valkyries with the Dwarves of Svartalfheim: it needs "
                                f"variants = [\"valkyries\"] (got {variants!r})")
    options["start_discard"] = read_start_discard(r, deck, players, variants, PLUS80_DISCARD if plus80 else 0)
    if plus80:  # the default (false) keeps MultiSim's options, and so every run's manifest, as they were
        options["plus80"] = True
    options["turn_cap"] = r.get("turn_cap", int, 400, min=10, max=100_000)
    r.finish()
    fields.finish()
    out = {"deck": deck, "players": players, "variants": variants, "policies": policies, "options": options,
           "files": {"cards": str(cards_path), "deck": str(deck_path)}}
    if field is not None:  # tables of equals (the default) keep MultiSim's arguments as they were
        out["field"] = field
    return out
