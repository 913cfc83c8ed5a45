"""simkit: Monte Carlo balance and strategy analysis for tabletop card and dice games.

Python API (everything the CLI does)::

    import simkit
    result = simkit.run("scenarios/valka/chance_strike.toml", games=100_000, seed=1)
    result.summary          # rows with estimate, 95% interval and n
    result.frame            # per-game polars DataFrame
    simkit.results.load("runs/<run-id>")
"""

from __future__ import annotations

__version__ = "0.1.0"

from simkit import _numba_cache  # noqa: E402

_numba_cache.configure()  # before any kernel compiles: a cache keyed by simkit's source

from pathlib import Path


def __getattr__(name: str):
    # simkit.results (polars) is imported on first use: `simkit --help` must not pay for it
    if name == "results":
        import importlib

        return importlib.import_module("simkit.results")
    raise AttributeError(f"module 'simkit' has no attribute {name!r}")


def run(scenario: str | Path, games: int | None = None, *, seed=None, jobs: int | None = 1,
        out: str | Path | None = None, block_size: int | None = None, precision: float | None = None,
        max_games: int | None = None, progress: bool = False, backend: str | None = None,
        scheduler: str | None = None, overrides=None):
    """Run a scenario file; return a :class:`~simkit.core.runner.RunResult`.

    ``overrides`` are the changes ``--set`` makes: ``["fighters.old_gob.health=4"]`` (TOML values, as on
    the command line) or ``{"fighters.old_gob.health": 4}`` (Python values), validated the same way.

    With ``out=None`` the rows go to a fresh temporary folder, so ``result.frame``
    still works; the folder is removed when the result is garbage-collected or the
    process ends.
    """
    import shutil
    import tempfile
    import weakref

    from simkit.core import loader
    from simkit.core.overrides import Override, parse_set
    from simkit.core.runner import run_simulation

    if overrides is None:
        ovs = []
    elif isinstance(overrides, dict):
        ovs = []
        for path, value in overrides.items():
            parts = tuple(p.strip() for p in str(path).split("."))
            if not all(parts):
                raise ValueError(f"overrides: {path!r} is not a path of names joined by dots")
            ovs.append(Override(parts, value, f"{path}={value!r}"))
    elif isinstance(overrides, str):
        ovs = [parse_set(overrides)]
    else:
        ovs = [o if isinstance(o, Override) else parse_set(str(o)) for o in overrides]
    sc = loader.load(scenario, ovs)
    temporary = out is None
    if temporary:
        out = Path(tempfile.mkdtemp(prefix="simkit-run-"))
    try:
        res = run_simulation(
            sc.simulation,
            games if games is not None else (sc.run.games or 10_000),
            seed=seed if seed is not None else sc.run.seed,
            jobs=jobs,
            block_size=block_size or sc.run.block_size,
            out=out,
            progress=progress,
            precision=precision,
            max_games=max_games,
            backend=backend,
            scheduler=scheduler,
            manifest_extra={"scenario": str(scenario), "scenario_path": str(Path(scenario).resolve()),
                            "scenario_sha256": sc.sha256, "overrides": sc.overrides},
        )
    except BaseException:
        if temporary:
            shutil.rmtree(out, ignore_errors=True)
        raise
    if temporary:
        weakref.finalize(res, shutil.rmtree, str(out), True)
    return res
