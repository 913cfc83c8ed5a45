"""The Valkyrie Incident's field: how strong a heuristic is, and whether moving one parameter beats it.

A policy's strength is its win rate against the **field**, the bundled heuristics (``FIELD``), in both seats and
all 20 ordered Emblem match-ups, on common game streams: every policy plays the same deals (game g of a block),
so two policies are compared game by game. A draw is no win (valkyrie-incident.txt: "the player with the most
points wins").

``field_games`` plays it; ``strength`` ranks policies by it (the report's choice of the strongest preset);
``one_parameter_variants`` and ``ablation`` move every parameter of a preset to both ends of its declared range
(``engine.PARAMS``) and test each variant against the preset, paired game by game, Holm-corrected.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

FIELD = ("balanced", "focused", "concentrated")  # the bundled heuristics (engine.PRESETS; `random` wins nothing)
SEATS = ["alpha", "omega"]
FAMILY = 0.05  # family-wise level (Holm over a preset's variants)


def scenario_path(ruleset: str) -> Path:
    """The bundled scenario of a ruleset (``scenarios/valkyrie_incident/{standard,blitz}.toml``)."""
    from simkit.core.registry import scenarios_dir

    return scenarios_dir() / "valkyrie_incident" / f"{ruleset}.toml"


def policy_values(scenario: str | Path, name: str) -> dict[str, float]:
    """Every heuristic parameter of policy ``name`` (a preset or a ``[policies.NAME]`` table of the scenario)."""
    from simkit.core.scenario import read_toml
    from simkit.core.tune import _build_named
    from simkit.games.valkyrie_incident.engine import PARAMS

    data, _ = read_toml(Path(scenario))
    described = _build_named(Path(scenario), data, name).describe()["policies"][name]
    if described.get("kind", "heuristic") != "heuristic":
        raise ValueError(f"{name!r} is a {described.get('kind')} policy, not a heuristic")
    return {k: float(described.get(k, spec[1])) for k, spec in PARAMS.items()}


def policy_entry(scenario: str | Path, name: str) -> dict:
    """What ``field_games`` plays for policy ``name`` of the scenario: a heuristic's every parameter, or a learned
    policy's own ``[policies.NAME]`` table (its weights file, beside the scenario)."""
    from simkit.core.scenario import read_toml

    data, _ = read_toml(Path(scenario))
    own = data.get("policies", {}).get(name, {})
    if own.get("kind") == "learned":
        return dict(own)
    return policy_values(scenario, name)


def field_games(scenario: str | Path, tested: dict[str, dict], games: int, seed: int,
                field=FIELD, jobs: int = 1) -> dict[str, np.ndarray]:
    """Per game g, each tested policy's share of wins over its cells (every opponent of ``field`` × both seats ×
    all match-ups); ``tested``: name -> heuristic parameters, or a policy table with its ``kind`` (a learned
    policy's, ``policy_entry``). Cards and rule options are the scenario's."""
    from simkit.core.loader import build
    from simkit.core.scenario import read_toml
    from simkit.core.tune import per_game_means

    scenario = Path(scenario)
    data, _ = read_toml(scenario)
    d = dict(data)
    table = dict(d.get("policies", {}))
    names = {name: f"__{i}" for i, name in enumerate(tested)}  # never the name of a field opponent
    for name, values in tested.items():
        table[names[name]] = dict(values) if "kind" in values else {"kind": "heuristic", **values}
    d.update(policies=table, play=list(names.values()), opponent=list(field), seats=SEATS, emblems="all")
    means = per_game_means(build(scenario, d), seed, (0,), games, "won", jobs)
    return {name: means[key] for name, key in names.items()}


def strength(scenario: str | Path, policies: list[str], games: int, seed: int, jobs: int = 1) -> list[dict]:
    """The scenario's heuristics and learned policies ranked by their win rate against the field (strongest first):
    name, estimate, low, high (95%, normal over the per-game shares; the game is the unit, its cells share its
    deal), games, and ``per_game`` (the shares, game by game: the same deals for every policy, for paired
    comparisons)."""
    from simkit.core.stats import mean_interval

    rates = field_games(scenario, {p: policy_entry(scenario, p) for p in policies}, games, seed, jobs=jobs)
    rows = []
    for name, v in rates.items():
        e = mean_interval(len(v), float(v.sum()), float((v * v).sum()))
        rows.append({"policy": name, "estimate": e.estimate, "low": e.low, "high": e.high, "games": len(v),
                     "per_game": v})
    return sorted(rows, key=lambda r: -r["estimate"])


def head_to_head(scenario: str | Path, top: str, other: str, games: int, seed: int, jobs: int = 1,
                 confidence: float = 0.95) -> dict:
    """``top`` and ``other`` each against ``other`` alone, in both seats and all 20 match-ups on the same deals:
    per game, each one's share of wins over its 40 cells (``other`` against itself wins about half of what is not
    drawn), and the paired difference ``top − other`` (normal interval at ``confidence`` over the games, the deal
    the unit; a report breaking ties in two rulesets asks for 97.5% in each, Bonferroni)."""
    from simkit.core.stats import mean_interval, paired_difference

    rates = field_games(scenario, {top: policy_entry(scenario, top), other: policy_entry(scenario, other)}, games,
                        seed, field=(other,), jobs=jobs)
    d = rates[top] - rates[other]
    share = {name: mean_interval(len(v), float(v.sum()), float((v * v).sum())) for name, v in rates.items()}
    return {"top": top, "other": other, "share": share, "gap": paired_difference(len(d), float(d.sum()),
                                                                                  float((d * d).sum()), confidence),
            "games": len(d), "confidence": confidence}


def one_parameter_variants(values: dict[str, float]) -> dict[str, dict[str, float]]:
    """``"name=end"`` -> the parameters with ``name`` moved to the low and to the high end of its declared range
    (an end the preset already sits at is skipped)."""
    from simkit.games.valkyrie_incident.engine import PARAMS

    out = {}
    for name, spec in PARAMS.items():
        for end in (spec[3], spec[4]):
            if float(end) != values[name]:
                out[f"{name}={end:g}"] = {**values, name: float(end)}
    return out


@dataclass
class Variant:
    variant: str
    preset_rate: float
    variant_rate: float
    difference: float  # variant − preset, paired game by game
    low: float
    high: float
    p_value: float  # two-sided, normal (per-game shares over 120 cells)
    p_holm: float  # Holm over the preset's variants
    sd: float  # standard deviation of one game's paired difference
    games: int

    @property
    def beats(self) -> bool:
        return self.difference > 0 and self.p_holm < FAMILY


def ablation(scenario: str | Path, preset: str, games: int, seed: int, jobs: int = 1) -> list[Variant]:
    """Every one-parameter variant of ``preset`` against the preset itself, both against the field on the same
    games (common random numbers), sorted by the difference (largest first)."""
    from simkit.core.stats import holm, paired_difference

    values = policy_values(scenario, preset)
    variants = one_parameter_variants(values)
    rates = field_games(scenario, {preset: values, **variants}, games, seed, jobs=jobs)
    base = rates[preset]
    rows = []
    for name in variants:
        dd = rates[name] - base
        e = paired_difference(len(dd), float(dd.sum()), float((dd * dd).sum()))
        rows.append([name, float(base.mean()), float(rates[name].mean()), e, float(dd.std(ddof=1))])
    adjusted = holm([r[3].p_value for r in rows])
    out = [Variant(name, b, v, e.estimate, e.low, e.high, e.p_value, q, sd, e.n)
           for (name, b, v, e, sd), q in zip(rows, adjusted)]
    return sorted(out, key=lambda r: -r.difference)
