"""A scenario's ``opponent`` field for the games that seat each played policy, as a *hero*, against a *field* of
one other policy in the other seats (Valeria, Valhalla multiplayer): the field's policy spec, read and checked in
one place. (The Valkyrie Incident's ``opponent`` also takes a list and ``"others"``: its own reader.)"""

from __future__ import annotations


def defined_policies(fields, presets: dict, kinds, params, default_play: list[str]) -> dict[str, tuple]:
    """Every policy the scenario's ``[policies]`` table defines, played or not, read as ``read_policies`` reads a
    played one: ``{name: (name, kind, values)}``. A field (``opponent``) may be a policy the scenario defines but
    does not play."""
    from simkit.core.policies import read_policies
    from simkit.core.scenario import Fields

    table = fields.data.get("policies")
    if not isinstance(table, dict) or not table:
        return {}
    view = Fields(fields.file, {**{k: fields.data[k] for k in ("game", "mode") if k in fields.data},
                                "policies": table, "play": list(table)})
    return {p[0]: p for p in read_policies(view, presets, kinds, params, default_play)}


def with_search_base(spec: tuple, presets: dict, defined: dict) -> tuple:
    """A `search` policy with its base policy's kind and parameters filled in (``base_kind``, ``base_params``),
    as the readers fill them for a played `search`; any other policy as it is."""
    name, kind, values = spec
    if kind != "search" or "base_kind" in values:
        return spec
    from simkit.core.policies import SEARCH_DEFAULTS

    values = {**SEARCH_DEFAULTS, **values}
    base = values["base"]
    b = (defined[base][1], defined[base][2]) if base in defined else presets[base]
    values["base_kind"], values["base_params"] = b[0], dict(b[1])
    return (name, kind, values)


def read_field(fields, presets: dict, policies: list, defined: dict | None = None) -> tuple | None:
    """``opponent``: ``"self"`` (the default: every seat plays the cell's policy, tables of equals; returns None)
    or the field's policy, returned as ``(name, kind, values)``: a played policy of ``policies`` (as
    ``read_policies`` read it), one the ``[policies]`` table defines but ``play`` does not name (``defined``:
    :func:`defined_policies`), or a preset of ``presets`` (a `search` with the search defaults and its base
    policy's kind and parameters, as ``read_policies`` fills them for a played `search`). Anything else is one
    line naming the file, the field and the allowed values."""
    defined = defined or {}
    opponent = fields.get("opponent", str, "self")
    if opponent == "self":
        return None
    played = {name: (name, kind, values) for name, kind, values in policies}
    if opponent in played:
        return played[opponent]
    if opponent in defined:
        return with_search_base(defined[opponent], presets, defined)
    if opponent in presets:
        kind, values = presets[opponent]
        return with_search_base((opponent, kind, dict(values)), presets, defined)
    raise fields.error("opponent", f"must be 'self' or a policy (got {opponent!r}); allowed values: 'self', "
                       + ", ".join(repr(x) for x in sorted(set(presets) | set(played) | set(defined))))
