"""Reading a Lonequest scenario: every field is checked here, before any numba kernel is imported, so a bad
scenario fails fast (``simkit run`` on a bad field costs a fraction of a second, not the kernels' import).

``read_lonequest(fields)`` returns the keyword arguments of ``simulation.LonequestSim``.
"""

from __future__ import annotations

from simkit.core.policies import LEARNED_KINDS, read_policies
from simkit.core.registry import literal_from_source
from simkit.core.scenario import cwd_relative
from simkit.games.valka.cards import WARBANDS, load_cards

STRONG_ENUF = ("sum", "each", "strongest")
SCOPES = ("location", "lonequest")
GRAVE = ("own", "any")
FIREBLAST = ("plus_3", "fighter_plus_3")
ESCAPE = ("reachable", "arrow")
SPENT_EVENTS = ("graveyard", "loot")
RETREAT_EQUIPMENT = ("all", "equipped")
MARKET_TRADE = ("same_cost", "up")
POTION = ("full", "base")


def _layout(name: str) -> int:
    """A constant of ``layout`` (the state vector), read without importing it (it compiles kernels)."""
    return literal_from_source("simkit.games.valka.lonequest.layout", name)


def read_lonequest(fields) -> dict:
    """Scenario ``mode = "lonequest"`` (see scenarios/valka/lonequest.toml for every field): the checked
    ``LonequestSim`` arguments."""
    cards_path = fields.file_path("cards", "cards.toml")
    cards = load_cards(cards_path)
    warbands = fields.get("warbands", list, list(WARBANDS))
    for i, w in enumerate(warbands):
        if w not in WARBANDS:
            raise fields.error(f"warbands[{i}]", f"must be one of {', '.join(map(repr, WARBANDS))} (got {w!r})")
    if not warbands:
        raise fields.error("warbands", "must name at least one Warband")
    presets = literal_from_source("simkit.games.valka.lonequest.policies", "PRESETS")
    params = literal_from_source("simkit.games.valka.lonequest.policies", "PARAMS")
    policies = read_policies(fields, presets, LEARNED_KINDS, params, ["cautious", "aggressive", "greedy_trader"])
    r = fields.table("rules", default={})
    opts = {
        "strong_enuf": r.get("strong_enuf", str, "sum", choices=STRONG_ENUF),
        "lone_one": r.get("lone_one", str, "loses", choices=("loses", "fails")),
        "defender_deals_damage": r.get("defender_deals_damage", bool, True),
        "warband_boons": r.get("warband_boons", bool, True),
        "played_faced_scope": r.get("played_faced_scope", str, "location", choices=SCOPES),
        "grave_robber": r.get("grave_robber", str, "own", choices=GRAVE),
        "fireblast": r.get("fireblast", str, "plus_3", choices=FIREBLAST),
        "escape": r.get("escape", str, "reachable", choices=ESCAPE),
        "spent_events": r.get("spent_events", str, "graveyard", choices=SPENT_EVENTS),
        "retreat_equipment": r.get("retreat_equipment", str, "all", choices=RETREAT_EQUIPMENT),
        "escape_reward": r.get("escape_reward", bool, True),
        "market_trade": r.get("market_trade", str, "same_cost", choices=MARKET_TRADE),
        "potion": r.get("potion", str, "full", choices=POTION),
        "step_cap": r.get("step_cap", int, 5000, min=50, max=1_000_000),
    }
    r.finish()
    spaces = _layout("N_LOC") * _layout("LOC_SIZE")
    su = fields.table("setup", default={})
    opts.update(krone=su.get("krone", int, 12, min=0, max=99), stamina=su.get("stamina", int, 3, min=0, max=9),
                quests=su.get("quests", int, 18, min=0, max=len(cards.quests)),
                random_fighters=su.get("random_fighters", int, 12, min=0, max=_layout("N_FIGHTERS") - 5))
    if opts["quests"] + opts["random_fighters"] != spaces:
        raise su.error("quests", f"plus setup.random_fighters must fill the map's {spaces} "
                                 f"card spaces (got {opts['quests']} + {opts['random_fighters']})")
    su.finish()
    fields.finish()  # an unknown top-level field is reported here, before the kernels are imported
    rel = cwd_relative(cards_path)
    return {"cards": cards, "warbands": warbands, "policies": policies, "rules": opts, "cards_file": rel}
