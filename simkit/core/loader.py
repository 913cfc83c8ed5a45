"""Turn a scenario file into a :class:`~simkit.core.simulation.Simulation`.

A scenario names its game and mode at the top; the optional ``[run]`` table
holds defaults for the runner. Everything else belongs to the mode, whose
``build`` validates it.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from simkit.core import registry
from simkit.core.scenario import Fields, read_toml


@dataclass
class RunDefaults:
    games: int | None = None
    block_size: int | None = None
    seed: int | None = None


@dataclass
class Scenario:
    """A loaded scenario: its file, hash, raw data and the simulation it builds."""

    path: Path
    sha256: str
    game: str
    mode: str
    data: dict
    simulation: object
    run: RunDefaults = field(default_factory=RunDefaults)
    overrides: list[str] = field(default_factory=list)


def load(path: str | Path, overrides=None) -> Scenario:
    """Read, validate and build a scenario file; raises InputError on any problem.

    ``overrides`` (``--set``): ``Override`` objects or ``"path=value"`` strings, applied before validation.
    """
    from simkit.core.overrides import Override, apply_overrides, parse_set

    path = Path(path)
    data, sha = read_toml(path)
    ovs = [o if isinstance(o, Override) else parse_set(o) for o in (overrides or [])]
    data, set_hash = apply_overrides(path, data, ovs)
    if set_hash:
        sha = hashlib.sha256((sha + set_hash).encode()).hexdigest()
    sc = _from_data(path, data)
    sc.sha256 = sha
    sc.overrides = [o.text for o in ovs]
    return sc


def build(path: str | Path, data: dict):
    """The simulation of scenario data already in memory (``path`` names the file it came from, for messages
    and relative card files); raises InputError on any problem."""
    return _from_data(Path(path), data).simulation


def _from_data(path: Path, data: dict) -> Scenario:
    top = Fields(path, data)
    game_names = sorted(registry.games())
    game_name = top.get("game", str, choices=game_names)
    game = registry.get_game(game_name)
    mode_name = top.get("mode", str, choices=[m.name for m in game.modes])
    mode = game.mode(mode_name)
    top.get("description", str, "")
    run = top.table("run", default={})
    defaults = RunDefaults(
        games=run.get("games", int, None, min=1),
        block_size=run.get("block_size", int, None, min=1),
        seed=run.get("seed", int, None, min=0),
    )
    run.finish()
    sim = mode.build(top)
    top.finish()
    return Scenario(path=path, sha256="", game=game_name, mode=mode_name, data=data, simulation=sim, run=defaults)
