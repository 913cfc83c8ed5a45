"""simkit: Monte Carlo balance and strategy analysis for tabletop card and dice games.

Python API (everything the CLI does)::

    import simkit
    result = simkit.run("scenarios/valka/chance_strike.toml", games=100_000, seed=1)
    result.summary          # rows with estimate, 95% interval and n
    result.summary_frame()  # the same as a polars frame, one column per group key
    result.frame            # per-game polars DataFrame
    simkit.results.load("runs/<run-id>")
    simkit.compare(A, B) / simkit.compare(A, overrides=...) / simkit.compare(RUN_A, RUN_B)
    simkit.sweep(scenario, {"fighters.old_gob.health": [1, 2, 3]})
    simkit.ladder(scenario)
    simkit.wilson(k, n), simkit.pooled_rate(...), simkit.clustered_rate(y, m), simkit.holm(p) ...
"""

from __future__ import annotations

__version__ = "0.1.0"

from simkit import _numba_cache  # noqa: E402

_numba_cache.configure_on_numba_import()  # before any kernel compiles: a cache keyed by simkit's source

from pathlib import Path


# The interval helpers of simkit.core.stats, exposed as simkit.NAME (imported on first use, with scipy).
STATS = ("wilson", "clopper_pearson", "mean_interval", "pooled_rate", "clustered_rate", "clustered_mean",
         "clustered_difference", "paired_rate", "newcombe_paired", "mcnemar_exact", "signflip_test", "holm",
         "benjamini_hochberg", "confidence_sequence", "Estimate")


def __getattr__(name: str):
    # simkit.results (polars) and the statistics (scipy) are imported on first use: `simkit --help` must not
    # pay for them
    import importlib

    if name == "results":
        return importlib.import_module("simkit.results")
    if name in STATS:
        return getattr(importlib.import_module("simkit.core.stats"), name)
    raise AttributeError(f"module 'simkit' has no attribute {name!r}")


def __dir__():
    return sorted([*globals(), "results", *STATS])


def _overrides(overrides) -> list:
    """``overrides`` as ``--set`` changes: TOML text (``"path=value"`` or a list of them) or ``{path: value}``."""
    from simkit.core.overrides import Override, parse_set

    if overrides is None:
        return []
    if isinstance(overrides, dict):
        ovs = []
        for path, value in overrides.items():
            parts = tuple(p.strip() for p in str(path).split("."))
            if not all(parts):
                raise ValueError(f"overrides: {path!r} is not a path of names joined by dots")
            ovs.append(Override(parts, value, f"{path}={value!r}"))
        return ovs
    if isinstance(overrides, str):
        return [parse_set(overrides)]
    return [o if isinstance(o, Override) else parse_set(str(o)) for o in overrides]


def compare(a: str | Path, b: str | Path | None = None, *, overrides=None, games: int | None = None, seed=None,
            jobs: int | None = 0, block_size: int | None = None, metrics: list[str] | None = None):
    """Compare B with A on common random numbers; return the rows of ``simkit compare`` (each with ``a``, ``b``,
    the paired difference ``d`` and its interval ``d_low``/``d_high``, ``p_value``, ``p_holm``, ``n``).

    ``a`` and ``b`` are scenario files (B defaults to A with ``overrides``, the ``--set`` changes), or two
    finished run folders played with the same seed, compared without re-simulating (``simkit compare RUN_A
    RUN_B``). ``jobs=0`` uses every core, as the CLI does.
    """
    from simkit.core import compare as cmp

    if Path(a).is_dir() or (b is not None and Path(b).is_dir()):
        if b is None or overrides or games is not None or seed is not None or block_size is not None:
            raise ValueError("compare: two run folders are compared as they were played (no overrides, games, "
                             "seed or block_size)")
        return cmp.compare_runs(a, b, metrics).rows
    from simkit.core import loader
    from simkit.core.runner import run_simulation
    from simkit.core.seeding import normalize_seed

    sa = loader.load(a)
    sb = loader.load(b or a, _overrides(overrides))
    paired = cmp.PairedSim(sa.simulation, sb.simulation, metrics)
    res = run_simulation(paired, games if games is not None else (sa.run.games or 10_000),
                         seed=normalize_seed(seed if seed is not None else sa.run.seed), jobs=jobs,
                         block_size=block_size or sa.run.block_size)
    return cmp.rows_from(res.accumulator, paired.kinds)


def sweep(scenario: str | Path, axes: dict, *, overrides=None, games: int | None = None, seed=None,
          jobs: int | None = 0, metrics: list[str] | None = None, where: dict | None = None) -> list[dict]:
    """Play ``scenario`` at every point of a grid on common random numbers (``simkit sweep``); ``axes`` maps one
    or two paths to their values (``{"fighters.old_gob.health": [1, 2, 3]}``); ``where`` keeps only the groups
    with these values. Returns one row per point, metric and group: the axis values, ``estimate``, ``low``,
    ``high`` (95%) and ``n``."""
    from simkit.core import sweep as sw
    from simkit.core.seeding import normalize_seed

    if not 1 <= len(axes) <= 2:
        raise ValueError(f"sweep: give one or two axes (got {len(axes)})")
    parsed = [sw.Axis(tuple(str(k).split(".")), list(v), f"{k}={','.join(map(str, v))}") for k, v in axes.items()]
    rows, _ = sw.run_points(scenario, parsed, _overrides(overrides), games=games, seed=normalize_seed(seed),
                            jobs=jobs, metrics=metrics, filters=[(k, str(v)) for k, v in (where or {}).items()])
    return rows


def ladder(scenario: str | Path, policies: list[str] | None = None, *, games: int = 2000, seed: int = 1,
           metric: str = "won", jobs: int | None = 0, overrides=None):
    """The skill ladder (``simkit ladder``): every policy on the same games, strongest first, each rung with
    its rate, 95% interval and paired gap to the best."""
    from simkit.core.ladder import ladder as _ladder
    from simkit.core.runner import default_jobs

    return _ladder(scenario, policies, games=games, seed=seed, metric=metric, jobs=jobs or default_jobs(),
                   overrides=_overrides(overrides))


def run(scenario: str | Path, games: int | None = None, *, seed=None, jobs: int | None = 0,
        out: str | Path | None = None, block_size: int | None = None, precision: float | None = None,
        max_games: int | None = None, progress: bool = False, backend: str | None = None,
        scheduler: str | None = None, overrides=None):
    """Run a scenario file; return a :class:`~simkit.core.runner.RunResult`. ``jobs=0`` (the default, as on the
    command line) uses every core; results do not depend on it.

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
    from simkit.core.runner import run_simulation

    sc = loader.load(scenario, _overrides(overrides))
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
