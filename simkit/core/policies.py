"""Reading a scenario's policies: presets by name, overrides and new named policies.

A game's policies are a *kind* (its decision logic) and a parameter vector.
The scenario names the ones to compare in ``play = [...]`` and may define or
adjust any in ``[policies.NAME]`` tables (``kind`` plus parameters).
"""

from __future__ import annotations

import math

import numpy as np

# the policy kinds every game shares: rules of thumb steered by parameters, the random legal baseline, and the
# generic `search` (simkit.core.decision), which a game offers once its engine has the decision-point interface
HEURISTIC, RANDOM, SEARCH, LEARNED = 0, 1, 2, 3
KINDS = {"heuristic": HEURISTIC, "random": RANDOM}
SEARCH_KINDS = {"heuristic": HEURISTIC, "random": RANDOM, "search": SEARCH}
# the kinds of a game whose engine has a feature function (`learned` policies, simkit.core.learned)
LEARNED_KINDS = {**SEARCH_KINDS, "learned": LEARNED}
# a `search` policy's own parameters: rollouts per legal action (mean), the base policy of the rollouts (a
# heuristic or random policy of the scenario, by name), how the rollouts are spent; with a value model (``value``,
# a file ``simkit train --method value`` wrote) each rollout stops after ``depth`` decisions and the model's
# estimate of the rest of the game stands in for it; with a `learned` base, ``gate`` searches only the decisions where
# the base's best score leads the second by less than the gate (elsewhere it plays the base's action), and
# ``decisions = [KIND, ...]`` searches only where the base's action is of one of these kinds (the game's feature kinds)
SEARCH_DEFAULTS = {"rollouts": 16, "base": "", "budget": "halving", "caution": 1.0}
EXPLORATION = 0.7  # the tree's UCB constant (budget = "ismcts")


def param_range(entry) -> tuple[float, float]:
    """The allowed ``(low, high)`` of a parameter spec entry.

    An entry is ``(index, default, description)`` or ``(index, default, description, low, high)``
    (``low``/``high`` may be None for no bound). Without a declared range a parameter must be
    non-negative (every parameter so far is a threshold, a share, a count or a 0/1 switch).
    """
    if len(entry) >= 5:
        low, high = entry[3], entry[4]
        return (-math.inf if low is None else float(low), math.inf if high is None else float(high))
    return 0.0, math.inf


def param_vector(spec: dict, overrides: dict | None = None) -> np.ndarray:
    """A float64 parameter vector from ``spec`` (name -> (index, default, description[, low, high])) and
    overrides. ``low``/``high`` declare the range `simkit tune` searches and scenarios may set."""
    v = np.zeros(len(spec), dtype=np.float64)
    for entry in spec.values():
        v[entry[0]] = entry[1]
    for name, value in (overrides or {}).items():
        v[spec[name][0]] = float(value)
    return v


def _read_params(t, params) -> dict:
    """The heuristic parameters a ``[policies.NAME]`` table sets, each checked against its declared range."""
    out = {}
    for pname in params:
        v = t.get(pname, float, None)
        if v is not None:
            low, high = param_range(params[pname]) if isinstance(params, dict) else (0.0, math.inf)
            if not math.isfinite(v):
                raise t.error(pname, f"must be a finite number (got {v!r})")
            if not low <= v <= high:
                shown = (f"at least {low:g}" if high == math.inf else
                         f"at most {high:g}" if low == -math.inf else f"between {low:g} and {high:g}")
                raise t.error(pname, f"must be {shown} (got {v!r})")
            out[pname] = v
    return out


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
        if kind == "learned":
            from simkit.core.learned import read_learned_table

            over = _read_params(t, params)  # the base heuristic's parameters the table changes
            spec = read_learned_table(t, values, (fields.data.get("game"), fields.data.get("mode")))
            if over:
                spec["base_params"] = {**spec["base_params"], **over}
                spec["base_overrides"] = over
            defined[name] = (kind, spec)
            continue
        if kind == "search":
            values = {**SEARCH_DEFAULTS, **values}
            values["rollouts"] = t.get("rollouts", int, values["rollouts"], min=1, max=100_000)
            values["base"] = t.get("base", str, values["base"] or default_play[0])
            values["budget"] = t.get("budget", str, values["budget"], choices=["halving", "uniform", "ismcts"])
            values["caution"] = t.get("caution", float, values["caution"], min=0.0, max=10.0)
            exploration = t.get("exploration", float, values.get("exploration", EXPLORATION), min=0.0, max=10.0)
            if values["budget"] == "ismcts":
                values["exploration"] = exploration
            gate = t.get("gate", float, values.get("gate", 0.0), min=0.0, max=1000.0)
            if gate > 0.0:
                if values["budget"] == "ismcts":
                    raise t.error("gate", "gates the flat search only; allowed budgets with a gate: halving, uniform")
                values["gate"] = gate
            if t.has("decisions"):
                if values["budget"] == "ismcts":
                    raise t.error("decisions", "restricts the flat search only; allowed budgets with decisions: "
                                               "halving, uniform")
                values["decisions"], values["decision_mask"] = read_decisions(t, fields)
            depth = t.get("depth", int, values.get("depth", 0), min=0, max=100_000)
            if t.has("value") or values.get("value"):
                from simkit.core.learned import read_value_file

                values["depth"] = depth
                values.update(read_value_file(t, values, (fields.data.get("game"), fields.data.get("mode"))))
            elif depth:
                raise t.error("depth", "needs a value model (value = \"FILE.npz\", written by simkit train --method "
                                       "value) to score the positions where the rollouts stop")
            t.finish()
            defined[name] = (kind, values)
            continue
        values.update(_read_params(t, params))
        t.finish()
        defined[name] = (kind, values)
    ptable.finish()
    names = fields.get("play", list, default_play)
    allowed = sorted(set(presets) | set(defined))
    out = []
    seen = set()
    for i, name in enumerate(names):
        if not isinstance(name, str):
            raise fields.error(f"play[{i}]", f"must be a policy name (a string; got {name!r}); allowed values: "
                                             f"{', '.join(allowed)}")
        if name in seen:
            raise fields.error(f"play[{i}]", f"names {name!r} twice; each policy is played once")
        seen.add(name)
        if name in defined:
            out.append((name, defined[name][0], dict(defined[name][1])))
        elif name in presets:
            out.append((name, presets[name][0], dict(presets[name][1])))
        else:
            raise fields.error(f"play[{i}]", f"names an unknown policy {name!r}; allowed values: {', '.join(allowed)}")
    if not out:
        raise fields.error("play", "must name at least one policy")
    known = {**{n: p for n, p in presets.items()}, **defined}
    for name, kind, values in out:
        if kind == "search":
            base = values["base"]
            if base not in known or known[base][0] == "search":
                ok = sorted(n for n, p in known.items() if p[0] != "search")
                raise fields.error(f"policies.{name}.base",
                                   f"names {base!r}, not a heuristic, learned or random policy; allowed values: "
                                   f"{', '.join(ok)}")
            if values.get("gate") and known[base][0] != "learned":
                ok = sorted(n for n, p in known.items() if p[0] == "learned")
                raise fields.error(f"policies.{name}.gate",
                                   f"reads the scores of a learned base policy, and base names {base!r}, a "
                                   f"{known[base][0]} policy; allowed bases with a gate: {', '.join(ok) or 'none here'}")
            values["base_kind"], values["base_params"] = known[base][0], dict(known[base][1])
    return out


def decision_kinds(game, mode) -> list[str]:
    """The decision kinds a `search` may be restricted to: the game mode's feature kinds (its features'
    ``CATEGORIES``, in the order of ``Parts.kind``; empty for a mode without them)."""
    from simkit.core import registry
    from simkit.errors import InputError

    try:
        return list(registry.get_mode(str(game), str(mode))[1].decision_kinds())
    except InputError:  # an unknown game or mode is reported where it is read
        return []


def read_decisions(t, fields) -> tuple[list[str], int]:
    """A `search`'s ``decisions = [KIND, ...]``: the kinds of decision it searches (by the kind of its base
    policy's action; elsewhere it plays the base's action), as names and as a bit mask."""
    allowed = decision_kinds(fields.data.get("game"), fields.data.get("mode"))
    names = t.get("decisions", list)
    if not allowed:
        raise t.error("decisions", "names decision kinds, and this game's engine has none (no learned features); "
                                   "remove it")
    if not names:
        raise t.error("decisions", f"must name at least one decision kind; allowed values: {', '.join(allowed)}")
    mask = 0
    for i, name in enumerate(names):
        if name not in allowed:
            raise t.error(f"decisions[{i}]",
                          f"names an unknown decision kind {name!r}; allowed values: {', '.join(allowed)}")
        mask |= 1 << allowed.index(name)
    return list(names), mask


def compile_policy(kind: str, values: dict, params: dict):
    """``(kind number, parameter vector, search configuration, base parameter vector)`` of a policy spec."""
    from simkit.core.decision import search_config

    if kind == "search":
        if values["base_kind"] == "learned":
            base = learned_vector(params, values["base_params"])
        else:
            base = param_vector(params, values["base_params"])
        value_at = -1
        if values.get("value"):  # the value model after the base policy's vector: its intercept, then its scorer
            from simkit.core.learned import load_model

            model = load_model(values["value"])
            value_at = len(base)
            base = np.concatenate([base, [float(model.meta["intercept"])],
                                   learned_vector(params, {"weights": values["value"], "temperature": 0.0,
                                                           "base_params": model.base_params})])
        cfg = search_config(values["rollouts"], LEARNED_KINDS[values["base_kind"]], values["budget"],
                            caution=float(values.get("caution", SEARCH_DEFAULTS["caution"])),
                            exploration=float(values.get("exploration", EXPLORATION)),
                            depth=int(values.get("depth", 0)), value_at=value_at,
                            gate=float(values.get("gate", 0.0)), decisions=int(values.get("decision_mask", 0)))
        return SEARCH, np.zeros(len(params), np.float64), cfg, base
    if kind == "learned":
        vec = learned_vector(params, values)
        return LEARNED, vec, search_config(), vec
    vec = param_vector(params, values)
    return SEARCH_KINDS[kind], vec, search_config(), vec


def decision_policies(policy_specs, params: dict) -> dict[str, tuple[int, np.ndarray]]:
    """A scenario's policies for the decision-point interface (``DecisionGame.policies``): every one but `search`
    (a search plays through the engine's own searcher) as ``(kind number, parameter vector)``."""
    out = {}
    for name, kind, values in policy_specs:
        if kind != "search":
            k, vec, _, _ = compile_policy(kind, values, params)
            out[name] = (k, vec)
    return out


def learned_vector(params: dict, values: dict) -> np.ndarray:
    """A `learned` policy's parameter vector: its base heuristic's parameters, then the model
    (``simkit.core.decision``: the layout)."""
    from simkit.core.learned import load_model

    base = param_vector(params, values["base_params"])
    return np.concatenate([base, load_model(values["weights"]).vector(float(values["temperature"]))])


def stack_params(vectors) -> np.ndarray:
    """The parameter vectors of a simulation's cells as one float64 matrix, each padded with zeros to the longest
    (a `learned` policy's vector is its base heuristic's parameters followed by its model)."""
    vectors = [np.asarray(v, np.float64) for v in vectors]
    width = max((v.shape[0] for v in vectors), default=0)
    out = np.zeros((len(vectors), width), np.float64)
    for i, v in enumerate(vectors):
        out[i, :v.shape[0]] = v
    return out


def declared_range(spec: dict, name: str) -> tuple[float, float] | None:
    """The declared ``(low, high)`` of a parameter, or None where the game declares none."""
    entry = spec[name]
    return (float(entry[3]), float(entry[4])) if len(entry) >= 5 else None
