"""A scenario's ``opponent`` field for the games that seat each played policy, as a *hero*, against a *field* of
one other policy in the other seats (Valeria, Valhalla multiplayer): the field's policy spec, read and checked in
one place. (The Valkyrie Incident's ``opponent`` also takes a list and ``"others"``: its own reader.)"""

from __future__ import annotations


def read_field(fields, presets: dict, policies: list) -> tuple | None:
    """``opponent``: ``"self"`` (the default: every seat plays the cell's policy, tables of equals; returns None)
    or the field's policy, returned as ``(name, kind, values)``: a played policy of ``policies`` (as
    ``read_policies`` read it) or a preset of ``presets`` (a `search` preset with the search defaults and its base
    policy's kind and parameters, as ``read_policies`` fills them for a played `search`). Anything else is one
    line naming the file, the field and the allowed values."""
    opponent = fields.get("opponent", str, "self")
    if opponent == "self":
        return None
    played = {name: (name, kind, values) for name, kind, values in policies}
    if opponent in played:
        return played[opponent]
    if opponent in presets:
        kind, values = presets[opponent]
        if kind == "search":
            from simkit.core.policies import SEARCH_DEFAULTS

            values = {**SEARCH_DEFAULTS, **values}
            values["base_kind"], values["base_params"] = presets[values["base"]][0], dict(presets[values["base"]][1])
        return (opponent, kind, dict(values))
    raise fields.error("opponent", f"must be 'self' or a policy (got {opponent!r}); allowed values: 'self', "
                       + ", ".join(repr(x) for x in sorted(set(presets) | set(played))))
