"""Reading a Valeria scenario: every field is checked here, before any numba kernel is imported.

``read_valeria(fields)`` returns the keyword arguments of ``simulation.ValeriaSim``.
"""

from __future__ import annotations

from simkit.core.policies import LEARNED_KINDS, read_policies
from simkit.core.registry import literal_from_source
from simkit.core.scenario import cwd_relative
from simkit.games.valeria.cards import load_cards

ENGINE = "simkit.games.valeria.engine"
# rule options: name -> (allowed values in the engine's order: the rules vector holds the index, default); the
# default is the plain reading (docs/rules.md)
OPTIONS = {
    "herald": (("herald", "consolation"), "herald"),   # 2E Herald, or the 1E consolation
    "doubles": (("twice", "once"), "twice"),           # a Citizen matching both dice of a double
    "magic_gold": (("never", "augment"), "augment"),   # Magic paying Gold costs (Recruit, Build), at least 1 Gold
    "five_player": (("base", "variant"), "variant"),   # at 5 players: the 2-4-player set-up, or the published variant
    # Monster Event variant only (refused with monster_events = false unless the default):
    "if_able": (("what_it_holds", "in_full"), "what_it_holds"),  # "All [player]" to return n: up to n, or n or none
    "all_slain": (("areas", "and_events"), "areas"),  # "all Monsters are slain": the areas, or Events face up too
    "token_on": (("any", "other"), "any"),  # a choice/every token on any Monster, or not on the Event itself
}
EVENT_OPTIONS = ("if_able", "all_slain", "token_on")
PLAYERS = (2, 3, 4, 5)


def presets() -> dict:
    """The bundled policies (``engine.PRESETS``) and the `search` preset (over the economy heuristic)."""
    p = dict(literal_from_source(ENGINE, "PRESETS"))
    p["search"] = ("search", {"rollouts": 8, "base": "economy", "budget": "halving", "caution": 1.0})
    return p


def read_valeria(fields) -> dict:
    """Scenario ``mode = "kingdoms"`` (see scenarios/valeria/*.toml for every field): the checked ``ValeriaSim``
    arguments."""
    cards_path = fields.file_path("cards", "cards.toml")
    cards = load_cards(cards_path)
    raw = fields.get("players", (int, list), [4])
    players = [raw] if isinstance(raw, int) else raw
    if not players or not all(isinstance(n, int) and not isinstance(n, bool) and n in PLAYERS for n in players) \
            or len(set(players)) != len(players):
        raise fields.error("players", f"must be a player count or a list of distinct ones; allowed values: 2, 3, 4, 5 "
                                      f"(got {raw!r})")
    from simkit.core.opponent import read_field  # not imported with the kernels: it keys none of them

    pre = presets()
    params, default_play = literal_from_source(ENGINE, "PARAMS"), ["economy", "hunter", "random"]
    policies = read_policies(fields, pre, LEARNED_KINDS, params, default_play)  # a search's base filled in
    names = [p[0] for p in policies]
    field = read_field(fields, pre, policies, LEARNED_KINDS, params, default_play)
    opponent = "self" if field is None else field[0]
    if field is not None and opponent not in names:
        policies.append(field)
    r = fields.table("rules", default={})
    options = {name: r.get(name, str, default, choices=allowed) for name, (allowed, default) in OPTIONS.items()}
    turn_cap = r.get("turn_cap", int, 60, min=5, max=10_000)
    options["monster_events"] = r.get("monster_events", bool, False)
    keys = [e["key"] for e in cards.events]
    options["preselect_event"] = r.get("preselect_event", str, "", choices=["", *keys] if keys else [""])
    if options["monster_events"] and not keys:
        raise r.error("monster_events", f"needs Monster Events in the cards file {cwd_relative(cards_path)} "
                                        "([[monster_events]], 5 to 10); allowed values: false")
    for name in EVENT_OPTIONS:
        allowed, default = OPTIONS[name]
        if options[name] != default and not options["monster_events"]:
            raise r.error(name, f"needs rules.monster_events = true; allowed values: {default!r} with the variant "
                                "off, " + ", ".join(repr(x) for x in allowed) + " with it on")
    if options["preselect_event"] and not options["monster_events"]:
        raise r.error("preselect_event", "needs rules.monster_events = true; allowed values: '' (none) or an "
                                         "Event key with the variant on")
    if 5 in players and options["five_player"] == "variant" and not cards.domains_five:
        raise r.error("five_player", f"'variant' at 5 players needs one Domain per stack marked five_player = true in "
                                     f"the cards file {cwd_relative(cards_path)} (stacks of 4); allowed values: 'base'")
    r.finish()
    fields.finish()
    return {"cards": cards, "players": players, "policies": policies, "opponent": opponent, "options": options,
            "turn_cap": turn_cap, "cards_file": cwd_relative(cards_path), "tested": names}
