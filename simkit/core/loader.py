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
from simkit.core.limits import MAX_GAMES
from simkit.core.scenario import Fields, read_toml
from simkit.errors import InputError


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
    warnings: list[str] = field(default_factory=list)  # e.g. a learned policy trained on other card data


def load(path: str | Path, overrides=None, strict: bool = False) -> Scenario:
    """Read, validate and build a scenario file; raises InputError on any problem.

    ``overrides`` (``--set``): ``Override`` objects or ``"path=value"`` strings, applied before validation.
    A learned policy trained on other card data or rules than the scenario's is a warning in
    ``Scenario.warnings``, or with ``strict`` an error.
    """
    from simkit.core.overrides import Override, apply_overrides, parse_set

    path = Path(path)
    data, sha = read_toml(path)
    ovs = [o if isinstance(o, Override) else parse_set(o) for o in (overrides or [])]
    copies: dict[str, Path] = {}
    data, set_hash = apply_overrides(path, data, ovs, copies)
    if set_hash:
        sha = hashlib.sha256((sha + set_hash).encode()).hexdigest()
    try:
        sc = _build(path, sha, data, ovs)
        sc.warnings = stale_learned(path, data, sc.simulation)
        if strict and sc.warnings:
            raise InputError(f"{path}: {sc.warnings[0]} (--strict)")
        return sc
    except InputError as exc:
        if not copies:
            raise
        # name the user's card file, not the temporary copy the --set changes were written to
        messages = exc.messages
        for tmp, original in copies.items():
            messages = [m.replace(tmp, f"{original} (with {' '.join('--set ' + o.text for o in ovs)})")
                        for m in messages]
        raise InputError.of(messages) from None


def _build(path: Path, sha: str, data: dict, ovs) -> Scenario:
    top = Fields(path, data)
    game_names = sorted(registry.games())
    game_name = top.get("game", str, choices=game_names)
    game = registry.get_game(game_name)
    if not game.modes:
        with_modes = [g.name for g in registry.games().values() if g.modes]
        odds = ", ".join(f"simkit odds {c.name}" for c in game.odds_commands)
        raise top.error("mode", f"cannot be given: game {game_name!r} has no simulation modes"
                        f"{' (its odds: ' + odds + ')' if odds else ''}; games with modes: {', '.join(with_modes)}")
    mode_name = top.get("mode", str, choices=[m.name for m in game.modes])
    mode = game.mode(mode_name)
    top.get("description", str, "")
    run = top.table("run", default={})
    defaults = RunDefaults(
        games=run.get("games", int, None, min=1, max=MAX_GAMES),
        block_size=run.get("block_size", int, None, min=1, max=MAX_GAMES),  # capped as --block-size is
        seed=run.get("seed", int, None, min=0),
    )
    run.finish()
    try:
        sim = mode.build(top)
    except (InputError, KeyboardInterrupt):
        raise
    except Exception as exc:  # a shape the game's validation did not foresee: still one line, naming the file
        first = (str(exc).strip().splitlines() or [""])[0][:200]
        raise InputError(f"{path}: the {game_name} {mode_name} scenario is not valid ({type(exc).__name__}: "
                         f"{first}); check the lists and tables against the bundled scenarios/") from None
    top.finish()
    try:
        cells = int(sim.cells)
    except Exception:  # noqa: BLE001 - a simulation that cannot count its cells has none to run
        cells = 0
    if cells < 1:
        raise InputError(f"{path}: the scenario has nothing to simulate (0 cells: is a list such as 'monsters', "
                         "'levels', 'warbands' or 'play' empty?)")
    return Scenario(path=path, sha256=sha, game=game_name, mode=mode_name, data=data, simulation=sim, run=defaults,
                    overrides=[o.text for o in ovs])


def load_for_run(run_dir: str | Path, man: dict) -> Scenario:
    """The scenario a run folder was made from (its file and ``--set`` changes), checked unchanged by its hash."""
    run_dir = Path(run_dir)
    where = run_dir / "manifest.json"
    given = man.get("scenario")
    if not isinstance(given, str) or not given:
        raise InputError(f"{where}: field 'scenario' is missing: this run was not made from a scenario file")
    candidates = [Path(given)]
    if isinstance(man.get("scenario_path"), str):
        candidates.append(Path(man["scenario_path"]))
    candidates.append(registry.scenarios_dir().parent / given)  # bundled runs record the path in the checkout
    path = next((c for c in candidates if c.is_file()), None)
    if path is None:
        raise InputError(f"{where}: the run's scenario file {given!r} is not found (run from the folder the run "
                         "was started in)")
    overrides = man.get("overrides") or []
    if not isinstance(overrides, list) or not all(isinstance(o, str) for o in overrides):
        raise InputError(f"{where}: field 'overrides' must be a list of PATH=VALUE strings")
    sc = load(path, overrides)
    if man.get("scenario_sha256") != sc.sha256:
        raise InputError(f"{path}: the scenario (or a card file it names) changed since the run {run_dir} was "
                         "started (its SHA-256 differs from the manifest's scenario_sha256); restore it, or "
                         "start a new run")
    return sc


def stale_learned(path: Path, data: dict, sim) -> list[str]:
    """Messages for the scenario's learned policies that were trained on other card data or rules."""
    try:
        policies = sim.describe().get("policies") or {}
    except Exception:  # noqa: BLE001 - a simulation without policies has no learned one
        return []
    if not any(isinstance(p, dict) and (p.get("kind") == "learned" or p.get("value")) for p in policies.values()):
        return []
    from simkit.core.learned import data_hash, load_model, stale_policies

    game, mode = registry.get_mode(data["game"], data["mode"])
    names = mode.feature_names()
    for name, spec in policies.items():
        if not isinstance(spec, dict):
            continue
        for fld in ("weights",) * (spec.get("kind") == "learned") + ("value",) * bool(spec.get("value")):
            model = load_model(spec[fld])
            if (model.game, model.mode) != (data["game"], data["mode"]):
                raise InputError(f"{path}: field 'policies.{name}.{fld}' names a model trained for "
                                 f"{model.game}/{model.mode}, not {data['game']}/{data['mode']}")
            if names is None or tuple(model.feature_names) != names:
                raise InputError(f"{path}: field 'policies.{name}.{fld}' names a model trained on other features "
                                 f"({model.n_features}) than this engine has ({len(names or ())}): retrain it with "
                                 "simkit train")
    return stale_policies(policies, data_hash(path, data, game.rules_version))


def build(path: str | Path, data: dict):
    """The simulation of scenario data already in memory (``path`` names the file it came from, for messages
    and relative card files); raises InputError on any problem."""
    return _build(Path(path), "", data, []).simulation
