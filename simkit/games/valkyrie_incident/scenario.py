"""Reading a Valkyrie Incident scenario: every field is checked here, before any numba kernel is imported, so a
bad scenario fails fast (a fraction of a second, not the kernels' import).

``read_incident(fields, ruleset)`` returns the keyword arguments of ``simulation.IncidentSim``.
"""

from __future__ import annotations

from simkit.core.policies import LEARNED_KINDS, read_policies
from simkit.core.registry import literal_from_source
from simkit.core.scenario import cwd_relative
from simkit.games.valkyrie_incident.cards import load_cards

RULESETS = ("standard", "blitz")
SEATS = ("alpha", "omega")
# rule options: name -> (allowed values, default); the first value is the plain reading (docs/rules.md)
OPTIONS = {
    "deck_scoring": (("owned", "draw_pile"), "owned"),
    "emblem_bonus": (("own", "both"), "own"),
    "war_end": (("at_once", "act_then_end"), "at_once"),
    "wreckage_conflicts": (("random", "none"), "random"),
    "victory_bonus_tie": (("none", "both"), "none"),
    "blitz_discard": (("action", "action_valkyrie"), "action"),
    "tie_tokens": (("keep", "drop"), "keep"),
    "blitz_initial_hand": (("keep", "pile"), "keep"),
}


def presets() -> dict:
    """The bundled policies (``engine.PRESETS``) and the `search` preset."""
    p = dict(literal_from_source("simkit.games.valkyrie_incident.engine", "PRESETS"))
    # over the strongest heuristic (focused beats balanced 0.66); caution 1 standard error: measured better than 2
    # (paired, standard game: against focused 0.750 at caution 1, 0.675 at caution 2, 120 games each)
    p["search"] = ("search", {"rollouts": 8, "base": "focused", "budget": "halving", "caution": 1.0})
    return p


def read_incident(fields, ruleset: str) -> dict:
    """Scenario ``mode = "standard"`` or ``"blitz"`` (see scenarios/valkyrie_incident/*.toml for every field): the
    checked ``IncidentSim`` arguments."""
    cards_path = fields.file_path("cards", "cards.toml")
    cards = load_cards(cards_path)
    keys = [e.key for e in cards.emblems]
    alias = {**{e.key: i for i, e in enumerate(cards.emblems)},
             **{cards.clans[e.clan]: i for i, e in enumerate(cards.emblems)}}  # an Emblem's key or its Clan
    raw = fields.get("emblems", (str, list), "all")
    if raw == "all":
        matchups = [(a, o) for a in range(len(keys)) for o in range(len(keys)) if a != o]
    elif raw == "choose":
        matchups = [(-1, -1)]
    elif isinstance(raw, list) and raw:
        matchups = []
        for i, pair in enumerate(raw):
            if not (isinstance(pair, list) and len(pair) == 2 and all(x in alias for x in pair)
                    and alias[pair[0]] != alias[pair[1]]):
                raise fields.error(f"emblems[{i}]", f"must be an [Alpha, Omega] pair of different Emblems from "
                                   f"{', '.join(map(repr, alias))} (got {pair!r})")
            matchups.append((alias[pair[0]], alias[pair[1]]))
    else:
        raise fields.error("emblems", f"must be 'all', 'choose' or a list of [Alpha, Omega] pairs (got {raw!r})")
    from simkit.core.opponent import table_names, unplayed_policy  # not imported with the kernels

    pre = presets()
    params = literal_from_source("simkit.games.valkyrie_incident.engine", "PARAMS")
    default_play = ["balanced", "focused", "random"]
    policies = read_policies(fields, pre, LEARNED_KINDS, params, default_play)  # a search's base filled in
    names = [p[0] for p in policies]
    raw_opp = fields.get("opponent", (str, list), "self")
    allowed = "'self', 'others', " + ", ".join(repr(x) for x in sorted({*pre, *names, *table_names(fields)}))
    if raw_opp in ("self", "others"):  # a mirror match, or a round robin: every other policy of `play`
        opponent = raw_opp
        if raw_opp == "others" and len(names) < 2:
            raise fields.error("opponent", f"'others' needs at least two policies in play (got {names!r})")
    else:  # one policy, or a field of policies: each tested policy meets every one of them
        field = [raw_opp] if isinstance(raw_opp, str) else raw_opp
        if not field:
            raise fields.error("opponent", f"must be 'self', a policy or a non-empty list of policies; allowed "
                               f"values: {allowed}")
        for i, opp in enumerate(field):
            where = "opponent" if isinstance(raw_opp, str) else f"opponent[{i}]"
            spec = None if not isinstance(opp, str) or opp == "self" or opp in names else \
                unplayed_policy(fields, opp, pre, LEARNED_KINDS, params, default_play)
            if not isinstance(opp, str) or opp == "self" or (opp not in names and spec is None):
                raise fields.error(where, f"must be 'self' or a policy of the scenario (got {opp!r}); allowed "
                                   f"values: {allowed}")
            if field.index(opp) != i:
                raise fields.error(where, f"names {opp!r} twice; each opponent is met once")
            if spec is not None:
                policies.append(spec)
        opponent = raw_opp if isinstance(raw_opp, str) else list(field)
    seats = fields.get("seats", list, list(SEATS))
    for i, st in enumerate(seats):
        if st not in SEATS:
            raise fields.error(f"seats[{i}]", f"must be one of 'alpha', 'omega' (got {st!r})")
    r = fields.table("rules", default={})
    options = {name: r.get(name, str, default, choices=allowed) for name, (allowed, default) in OPTIONS.items()}
    turn_cap = r.get("turn_cap", int, 400, min=20, max=100_000)
    r.finish()
    fields.finish()  # an unknown top-level field is reported here, before the kernels are imported
    rel = cwd_relative(cards_path)
    return {"cards": cards, "ruleset": ruleset, "matchups": matchups, "policies": policies, "opponent": opponent,
            "seats": seats, "options": options, "cards_file": rel, "turn_cap": turn_cap, "tested": names}
