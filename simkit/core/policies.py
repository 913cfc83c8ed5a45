"""Reading a scenario's policies: presets by name, overrides and new named policies.

A game's policies are a *kind* (its decision logic) and a parameter vector.
The scenario names the ones to compare in ``play = [...]`` and may define or
adjust any in ``[policies.NAME]`` tables (``kind`` plus parameters).
"""

from __future__ import annotations


def read_policies(fields, presets: dict, kinds, params, default_play: list[str]) -> list[tuple[str, str, dict]]:
    """``(name, kind, parameters)`` for every policy the scenario plays.

    ``presets``: name -> (kind, parameter overrides); ``kinds``: allowed kinds;
    ``params``: the allowed parameter names. Errors name the file, the field and
    the allowed values.
    """
    ptable = fields.table("policies", default={})
    defined = {}
    for name in ptable.keys():
        t = ptable.table(name)
        kind = t.get("kind", str, presets.get(name, ("heuristic", {}))[0], choices=list(kinds))
        values = dict(presets.get(name, (kind, {}))[1])
        for pname in params:
            v = t.get(pname, float, None)
            if v is not None:
                values[pname] = v
        t.finish()
        defined[name] = (kind, values)
    ptable.finish()
    names = fields.get("play", list, default_play)
    allowed = sorted(set(presets) | set(defined))
    out = []
    for i, name in enumerate(names):
        if name in defined:
            out.append((name, *defined[name]))
        elif name in presets:
            out.append((name, *presets[name]))
        else:
            raise fields.error(f"play[{i}]", f"names an unknown policy {name!r}; allowed values: {', '.join(allowed)}")
    if not out:
        raise fields.error("play", "must name at least one policy")
    return out
