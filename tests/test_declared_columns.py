"""A mode's declared columns (``Simulation.declared_columns``) are what its games write, and `simkit balance`
refuses a mistyped target from them before a single game is played (issue 24)."""

from __future__ import annotations

import numpy as np
import pytest

from simkit.core import balance as B
from simkit.core import loader, registry
from simkit.core.scenario import read_toml
from simkit.errors import InputError

ROOT = registry.scenarios_dir()
MODES = [(g.name, m.name, m.default_scenario) for g, m in registry.all_modes() if m.default_scenario]


def _sim(scenario: str):
    """The mode's default scenario, its play list without `search` (seconds a game; its columns are the same)."""
    path = ROOT / scenario
    data, _ = read_toml(path)
    if isinstance(data.get("play"), list) and len(data["play"]) > 1:
        data["play"] = [p for p in data["play"] if p != "search"]
    return loader.build(path, data)


@pytest.mark.parametrize("game, mode, scenario", MODES, ids=[f"{g}-{m}" for g, m, _ in MODES])
def test_declared_columns_are_the_columns_a_block_writes(game, mode, scenario):
    sim = _sim(scenario)
    declared = sim.declared_columns()
    if declared is None:
        pytest.skip(f"{game} {mode} declares no columns (balance reads them from the first block)")
    cols = sim.run_block(np.random.SeedSequence(5).generate_state(2, np.uint64), 3)
    assert list(declared) == list(cols)  # the same names, in the same order
    for name, kind in declared.items():
        dtype = np.asarray(cols[name]).dtype.kind
        assert (dtype in "iubf") == (kind == "number"), (name, kind, dtype)
    values = sim.column_values()
    assert set(values) <= set(declared)
    for name, allowed in values.items():
        seen = set(str(v) for v in np.asarray(cols[name]).tolist())
        assert seen <= set(allowed), (name, seen - set(allowed))
    # the scenario's own groups are declared whole: every Warband / policy / table size it names has rows
    for name in ("warband", "policy", "players", "monster", "jarl", "level"):
        if name in values:
            assert set(str(v) for v in np.asarray(cols[name]).tolist()) == set(values[name]), name


def _never_played(*_a, **_k):
    raise AssertionError("a game was played before the targets were checked")


@pytest.mark.parametrize("scenario, target, needles", [
    ("valka/lonequest.toml", "wins[warband]=0.8±0.04", ["'wins'", "allowed values", "won"]),
    ("valka/lonequest.toml", "won[warband=gobins]=0.8±0.04", ["warband=gobins", "allowed values", "goblins"]),
    ("valka/lonequest.toml", "won[colour]=0.8±0.04", ["'colour'", "allowed values", "warband"]),
    ("valhalla/solo.toml", "won[level=4]=0.5:0.9", ["level=4", "allowed values: 1, 2, 3"]),
    ("valka/duel.toml", "first_won[players=3]=0.5±0.02", ["players=3", "allowed values: 2"]),
])
def test_a_mistyped_target_is_refused_before_any_game(monkeypatch, tmp_path, scenario, target, needles):
    monkeypatch.setattr(B, "_block", _never_played)
    monkeypatch.setattr(B, "play", _never_played)
    vary = {"valka/lonequest.toml": "fighters.old_gob.strike=1:4",
            "valhalla/solo.toml": "monsters.troll.base.0.strength=5:9",
            "valka/duel.toml": "fighters.axe_maiden.strike=3:5"}[scenario]
    with pytest.raises(InputError) as err:
        B.balance(ROOT / scenario, [vary], [target], budget=100, out=tmp_path / "run")
    for n in needles:
        assert n in str(err.value), (n, str(err.value))
    assert not (tmp_path / "run").exists()
