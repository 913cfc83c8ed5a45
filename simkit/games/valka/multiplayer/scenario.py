"""Reading a VÁLKA multiplayer scenario: every field is checked here, before any numba kernel is imported, so a
bad scenario fails fast (a fraction of a second, not the kernels' import).

``read_multiplayer(fields, variant)`` returns the keyword arguments of ``simulation.MultiplayerSim``.
"""

from __future__ import annotations

from simkit.core.policies import LEARNED_KINDS, read_policies
from simkit.core.registry import literal_from_source
from simkit.core.scenario import cwd_relative
from simkit.games.valka.cards import load_cards

CHANCE = ("fallback", "any")
THIEF = ("backline_buff", "hand")
LIGHTNING = ("around", "one_lap")
LIGHTNING_AID = ("absorbs", "passes")
BOON_ENTRY = ("newcomer", "together")
BOUNTY_SCORE = ("infamy", "captures")


def read_options(fields, variant: str) -> dict:
    r = fields.table("rules", default={})
    o = {
        "lone_one": r.get("lone_one", str, "loses", choices=("loses", "fails")),
        "defender_deals_damage": r.get("defender_deals_damage", bool, True),
        "chance_strike": r.get("chance_strike", str, "fallback", choices=CHANCE),
        "thief": r.get("thief", str, "backline_buff", choices=THIEF),
        "lightning": r.get("lightning", str, "around", choices=LIGHTNING),
        "lightning_aid": r.get("lightning_aid", str, "absorbs", choices=LIGHTNING_AID),
        "divine_aid": r.get("divine_aid", bool, True),
        "warband_boons": r.get("warband_boons", bool, True),
        "boon_entry": r.get("boon_entry", str, "newcomer", choices=BOON_ENTRY),
        "play_cap": r.get("play_cap", int, 12, min=1, max=100),
        "reshuffle_graveyard": r.get("reshuffle_graveyard", bool, False),
        "fireblast_power": r.get("fireblast_power", int, 3, min=0, max=20),
        "turn_cap": r.get("turn_cap", int, 400, min=10, max=100_000),
    }
    if variant == "bounty-hunter":
        o["bounty_score"] = r.get("bounty_score", str, "infamy", choices=BOUNTY_SCORE)
        o["trigger"] = r.get("trigger", int, 6 if o["bounty_score"] == "captures" else 10, min=1, max=200)
    r.finish()
    return o


def presets():
    """The bundled policies (``policies.PRESETS``) and the `search` preset over `balanced`."""
    pr = dict(literal_from_source("simkit.games.valka.multiplayer.policies", "PRESETS"))
    pr["search"] = ("search", {"rollouts": 8, "base": "balanced", "budget": "halving"})
    return pr


def read_multiplayer(fields, variant: str) -> dict:
    """Scenario ``mode = "bounty-hunter" | "annihilation" | "duel"`` (see scenarios/valka/bounty_hunter.toml): the
    checked ``MultiplayerSim`` arguments."""
    cards_path = fields.file_path("cards", "cards.toml")
    cards = load_cards(cards_path)
    allowed = (2,) if variant == "duel" else (3, 4, 5)
    players = fields.get("players", list, [2] if variant == "duel" else [4])
    if not players:
        raise fields.error("players", "must name at least one table size")
    for i, np_ in enumerate(players):
        if np_ not in allowed:
            raise fields.error(f"players[{i}]", f"must be one of {', '.join(map(str, allowed))} for {variant} "
                                                f"(got {np_!r})")
    pr = presets()
    policies = read_policies(fields, pr, LEARNED_KINDS,  # a search's base kind and parameters filled in
                             literal_from_source("simkit.games.valka.multiplayer.policies", "PARAMS"), ["balanced", "aggressive", "cautious"])
    opponents = fields.get("opponents", list, [])
    known = {p[0] for p in policies}
    extra = []
    for i, o in enumerate(opponents):
        if o in known:
            continue
        if o in pr and pr[o][0] != "search":
            extra.append((o, pr[o][0], dict(pr[o][1])))
            known.add(o)
        else:
            raise fields.error(f"opponents[{i}]", f"names {o!r}: opponents must be presets ("
                               f"{', '.join(k for k, v in pr.items() if v[0] != 'search')}) or policies in play")
    options = read_options(fields, variant)
    fields.finish()  # an unknown top-level field is reported here, before the kernels are imported
    rel = cwd_relative(cards_path)
    return {"variant": variant, "cards": cards, "players": players, "policies": policies + extra,
            "opponents": opponents, "options": options, "cards_file": rel, "heroes": [p[0] for p in policies]}
