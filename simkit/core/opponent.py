"""A scenario's ``opponent`` field for the games that seat each played policy, as a *hero*, against a *field* of
one other policy in the other seats (Valeria, Valhalla multiplayer): the field's policy spec, read and checked in
one place. (The Valkyrie Incident's ``opponent`` also takes a list and ``"others"``: its own reader.)"""

from __future__ import annotations


def table_names(fields) -> list[str]:
    """The policies the scenario's ``[policies]`` table defines (played or not)."""
    table = fields.data.get("policies")
    return list(table) if isinstance(table, dict) else []


def unplayed_policy(fields, name: str, presets: dict, kinds, params, default_play: list[str]) -> tuple | None:
    """A policy ``play`` does not name, as a field plays it, ``(name, kind, values)``: one the ``[policies]``
    table defines (read as ``read_policies`` reads a played one, its errors naming the file and field), else a
    preset (a `search` with the search defaults and its base policy's kind and parameters, as ``read_policies``
    fills them for a played `search`), else None. Read only when a field needs it: a scenario whose field is
    played or ``"self"`` parses its table once."""
    if name in table_names(fields):
        from simkit.core.policies import read_policies
        from simkit.core.scenario import Fields

        view = Fields(fields.file, {**{k: fields.data[k] for k in ("game", "mode") if k in fields.data},
                                    "policies": fields.data["policies"], "play": [name]})
        return read_policies(view, presets, kinds, params, default_play)[0]
    if name not in presets:
        return None
    kind, values = presets[name]
    values = dict(values)
    if kind == "search":
        from simkit.core.policies import SEARCH_DEFAULTS

        values = {**SEARCH_DEFAULTS, **values}
        values["base_kind"], values["base_params"] = presets[values["base"]][0], dict(presets[values["base"]][1])
    return (name, kind, values)


def read_field(fields, presets: dict, policies: list, kinds, params, default_play: list[str]) -> tuple | None:
    """``opponent``: ``"self"`` (the default: every seat plays the cell's policy, tables of equals; returns None)
    or the field's policy, returned as ``(name, kind, values)``: a played policy of ``policies`` (as
    ``read_policies`` read it), or one ``play`` does not name (:func:`unplayed_policy`: defined by the
    ``[policies]`` table, or a preset; ``kinds``, ``params``, ``default_play`` as ``read_policies`` takes them).
    Anything else is one line naming the file, the field and the allowed values."""
    opponent = fields.get("opponent", str, "self")
    if opponent == "self":
        return None
    played = {name: (name, kind, values) for name, kind, values in policies}
    if opponent in played:
        return played[opponent]
    spec = unplayed_policy(fields, opponent, presets, kinds, params, default_play)
    if spec is not None:
        return spec
    raise fields.error("opponent", f"must be 'self' or a policy (got {opponent!r}); allowed values: 'self', "
                       + ", ".join(repr(x) for x in sorted(set(presets) | set(played) | set(table_names(fields)))))
