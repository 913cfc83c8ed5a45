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
}


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
    r = fields.table("rules", default={})
    options = {name: r.get(name, str, default, choices=list(allowed)) for name, (allowed, default) in OPTIONS.items()}
    options["wild_warriors"] = r.get("wild_warriors", bool, True)
    options["start_discard"] = r.get("start_discard", int, 40, min=0, max=100)
    options["turn_cap"] = r.get("turn_cap", int, 400, min=10, max=100_000)
    r.finish()
    fields.finish()
    return {"deck": deck, "players": players, "variants": variants, "policies": policies, "options": options,
            "files": {"cards": str(cards_path), "deck": str(deck_path)}}
