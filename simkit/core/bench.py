"""``simkit bench``: games per second per core for each registered simulator."""

from __future__ import annotations

import os
import time

from simkit.core import loader, registry
from simkit.core.runner import run_simulation
from simkit.errors import InputError


SEARCH_GAMES = 4  # games a `search` policy plays in its one cell: about a CPU-second each


def _split(path, one_cell: dict | None = None, rollouts: int | None = None):
    """The default scenario's simulation with its heuristic and random policies only, one with its `learned`
    policies only (None without any), and one playing just its `search` policy in one cell (``one_cell``: the
    mode's scenario values for that; None when the mode has no `search`): the three are timed apart.
    ``rollouts`` replaces the `search` policy's rollouts per action (``simkit warm``: the same kernels, compiled
    by a cheaper game)."""
    from simkit.core.scenario import read_toml

    sc = loader.load(path)
    pols = sc.simulation.describe().get("policies", {})
    kinds = {name: v.get("kind") for name, v in pols.items() if isinstance(v, dict)}
    fast = [name for name, k in kinds.items() if k not in ("search", "learned")]
    learned = [name for name, k in kinds.items() if k == "learned"]
    sim = sc.simulation
    data, _ = read_toml(path)
    if fast and len(fast) < len(pols):
        sim = loader.build(path, {**data, "play": fast})
    learned_sim = loader.build(path, {**data, "play": learned}) if learned else None
    search = None
    if rollouts is not None:
        policies = data.get("policies", {})
        data = {**data, "policies": {**policies, "search": {"kind": "search", **policies.get("search", {}),
                                                            "rollouts": rollouts}}}
    try:
        search = loader.build(path, {**data, **(one_cell or {}), "play": ["search"]})
    except InputError:
        pass
    return sim, learned_sim, search


def _cell(path, values: dict):
    """The default scenario's simulation with the scenario ``values`` (a mode's ``bench_cells`` row); a
    ``policies`` table in ``values`` adds to the scenario's policies (a `learned` policy it does not play)."""
    from simkit.core.scenario import read_toml

    data, _ = read_toml(path)
    policies = {**data.get("policies", {}), **values.get("policies", {})}
    return loader.build(path, {**data, **values, **({"policies": policies} if policies else {})})


def _targets(name: str | None, games: int | None, rollouts: int | None = None):
    """(game, label, simulation, games per cell, search) for every matching mode and dice check; ``search`` marks
    the row of a mode's `search` policy (a few games in one cell; ``rollouts``: see :func:`_split`)."""
    wanted = name or None
    for game, mode in registry.all_modes():
        if wanted in (None, game.name, mode.name, f"{game.name}/{mode.name}") and mode.default_scenario:
            path = registry.scenarios_dir() / mode.default_scenario
            if not path.exists():
                raise InputError(f"bench: default scenario {path} of {game.name}/{mode.name} not found")
            sim, learned, search = _split(path, mode.one_cell, rollouts)
            yield game, mode.name, sim, games or mode.bench_games, False
            if learned is not None:
                yield game, f"{mode.name} (learned)", learned, games or mode.bench_games, False
            if search is not None:
                cells = getattr(search, "games_per_index", search.cells)  # games per index, not rows
                yield game, f"{mode.name} (search, {SEARCH_GAMES} games × {cells} cell{'s' if cells != 1 else ''})", \
                    search, SEARCH_GAMES, True
            for label, values in (mode.bench_cells or {}).items():
                yield game, f"{mode.name} ({label})", _cell(path, values), games or mode.bench_games, False
    for game in registry.games().values():
        for check, factory in game.dice_checks.items():
            if wanted in (None, game.name, check, f"{game.name}/{check}"):
                yield game, f"{check} (dice check)", factory(), games or 1_000_000, False


def unknown(command: str, name: str) -> InputError:
    """The error for a name that matches no game, mode or dice check, with the allowed values."""
    allowed = sorted({g.name for g in registry.games().values()} | {m.name for _, m in registry.all_modes()}
                     | {c for g in registry.games().values() for c in g.dice_checks})
    return InputError(f"{command}: unknown game, mode or dice check {name!r}; allowed values: {', '.join(allowed)}")


def bench(name: str | None = None, games: int | None = None, jobs: int | None = None, progress=None) -> list[dict]:
    """Time each matching mode (on its default scenario) and dice check after a warm-up run.

    A mode's `search` policy is timed apart, in one cell of the default scenario (the mode's ``one_cell``
    values) on ``SEARCH_GAMES`` games, whatever ``games`` says: it costs about a CPU-second a game.

    ``progress``, when given, is called with one line of text before each simulator is timed."""
    rows = []
    all_jobs = jobs or os.cpu_count() or 1
    targets = list(_targets(name, games))
    if not targets:
        raise unknown("bench", name)
    for i, (game, label, sim, n, slow) in enumerate(targets, 1):
        if progress is not None:
            progress(f"[{i}/{len(targets)}] {game.name} {label}: warming up and timing …")
        # slow: the `search` row, a few games in one cell, timed on one core only
        bs = 1 if slow else max(1, min(sim.default_block_size, n // max(2 * all_jobs, 1) or 1))
        run_simulation(sim, min(n, bs), seed=0, jobs=1, block_size=bs)  # warm-up: compile / load cache
        if all_jobs > 1 and not slow:  # warm-up the worker processes too (imports, numba cache)
            run_simulation(sim, min(n, bs) * all_jobs, seed=0, jobs=all_jobs, block_size=bs)
        t0 = time.perf_counter()
        run_simulation(sim, n, seed=1, jobs=1, block_size=bs)
        t1 = time.perf_counter() - t0
        played = n * getattr(sim, "games_per_index", sim.cells)  # games, not rows (a game may write one per seat)
        row = {"game": game.name, "simulator": label, "games": played, "games/s per core": _rate(played / t1)}
        if all_jobs > 1:
            row[f"games/s, {all_jobs} jobs"] = row["speed-up"] = "–"
            if not slow:
                t0 = time.perf_counter()
                run_simulation(sim, n, seed=1, jobs=all_jobs, block_size=bs)
                tn = time.perf_counter() - t0
                row[f"games/s, {all_jobs} jobs"] = round(played / tn)
                row["speed-up"] = round(t1 / tn, 2)
        rows.append(row)
    return rows


def _rate(x: float):
    """Games per second: whole numbers, two significant digits below 100 (a `search` plays about one a second)."""
    return round(x) if x >= 100 else float(f"{x:.2g}")
