"""The reproducible parallel runner.

Games are cut into blocks of ``block_size`` games (per cell). Block ``i``
draws only from ``SeedSequence(root_seed, spawn_key=(i,))``; joblib runs the
blocks on any number of workers, results come back in block order, and each
block's rows are written to Parquet as soon as it ends. The same seed gives
byte-identical ``summary.json`` and identical rows for any ``jobs``.
"""

from __future__ import annotations

import math
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import polars as pl

from simkit.core import results
from simkit.core.limits import MAX_GAMES
from simkit.core.paths import check_scheduler
from simkit.core.seeding import block_key, normalize_seed
from simkit.core.simulation import Simulation, StatsAccumulator, block_stats
from simkit.errors import InputError

DEFAULT_MAX_GAMES = 10_000_000


@dataclass
class RunResult:
    """What a run returns: where it wrote, what it recorded, and its summary rows."""

    run_dir: Path | None
    manifest: dict
    summary: list[dict]
    games: int
    blocks: int
    wall_seconds: float
    accumulator: StatsAccumulator | None = field(default=None, repr=False)
    _frame: pl.DataFrame | None = field(default=None, repr=False)

    @property
    def frame(self) -> pl.DataFrame:
        """Per-game rows (read lazily from the run's Parquet files)."""
        if self._frame is None:
            if self.run_dir is None:
                raise ValueError("this run kept no per-game rows (it was run without an output folder)")
            self._frame = results.load(self.run_dir)
        return self._frame

    def summary_frame(self) -> pl.DataFrame:
        return summary_frame(self.summary)


def summary_frame(rows: list[dict]) -> pl.DataFrame:
    """Summary rows as a polars frame: ``metric``, one column per group key (in order of first appearance;
    null where a metric is not grouped by it), ``estimate``, ``low``, ``high`` (the 95% interval) and ``n``."""
    fixed = ("metric", "estimate", "low", "high", "n")
    keys = list(dict.fromkeys(k for r in rows for k in r["group"]))
    name = {k: (f"group_{k}" if k in fixed else k) for k in keys}
    data = {"metric": [r["metric"] for r in rows]}
    for k in keys:
        data[name[k]] = [r["group"].get(k) for r in rows]
    for c in fixed[1:]:
        data[c] = [r[c] for r in rows]
    schema = {"metric": pl.String, **{name[k]: None for k in keys}, "estimate": pl.Float64, "low": pl.Float64,
              "high": pl.Float64, "n": pl.Int64}
    return pl.DataFrame(data, schema_overrides={k: v for k, v in schema.items() if v is not None}, strict=False)


def default_jobs() -> int:
    return max(1, os.cpu_count() or 1)


_PARENT: int | None = None  # in a loky worker: the process that started it


def _worker_init() -> None:
    """Run first in every loky worker: the worker ends once the process that started it is gone.

    A watchdog thread checks every 0.2 s whether the parent still lives (a numba kernel holds the
    GIL, so the check runs between blocks at the latest), and a block is never written once the
    parent is gone: after a ``kill -9`` no worker keeps computing, writing or idling. (The kernel's
    parent-death signal is not used: it fires when the parent *thread* that spawned the worker ends,
    and loky may spawn from a thread that ends before the run does.)
    """
    import signal
    import threading

    # Ctrl-C reaches the whole process group: the main process stops the run and ends its workers, so a
    # worker ignores SIGINT (loky's own loop, between tasks, would otherwise print a KeyboardInterrupt traceback)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    global _PARENT
    _PARENT = os.getppid()
    if _PARENT == 1:  # the parent died before this worker started
        os._exit(1)

    def watch():
        while True:
            time.sleep(0.2)
            if os.getppid() != _PARENT:
                os._exit(1)

    threading.Thread(target=watch, name="simkit-parent-watch", daemon=True).start()


def _orphaned() -> bool:
    return _PARENT is not None and os.getppid() != _PARENT


def _read_block(path: Path, block: int, n: int, cells: int) -> pl.DataFrame | None:
    """A finished block's rows, or None when the file is not a whole block ``block`` of ``n`` games."""
    try:
        frame = pl.read_parquet(path)
    except Exception:  # truncated or garbage: the block is run again
        return None
    if frame.height != n * cells or "block" not in frame.columns or frame["block"].n_unique() != 1 \
            or frame["block"][0] != block:
        return None
    return frame


def typed_frame(frame: pl.DataFrame, sim: Simulation) -> pl.DataFrame:
    """Column types a data tool expects: a 0/1 column behind a rate is a boolean flag, and text columns
    (Warband, policy, cause, monster, …) are categories (dictionary-encoded in Parquet)."""
    flags = {m.column for m in sim.metrics if m.kind == "rate" and m.trials is None}
    casts = {}
    for name, dtype in frame.schema.items():
        if name in flags and dtype.is_integer() and frame.height:
            col = frame[name]
            if col.min() >= 0 and col.max() <= 1:
                casts[name] = pl.Boolean
        elif dtype == pl.String:
            casts[name] = pl.Categorical
    return frame.cast(casts) if casts else frame


def _block_task(sim: Simulation, root_seed: int, block: int, n: int, out_dir: str | None, reuse: bool = False):
    """Run one block in a worker: rows → Parquet (if an out folder is set) → sufficient stats.

    With ``reuse`` (a resumed run), a block whose file is already complete is read back instead of
    played again: blocks are deterministic, so its rows are the ones the run would write.
    """
    if reuse and out_dir is not None:
        path = results.block_path(Path(out_dir), block)
        if path.exists():
            frame = _read_block(path, block, n, sim.cells)
            if frame is not None:
                return block, n, block_stats(frame, sim.metrics)
            path.unlink(missing_ok=True)
    columns = sim.run_block(block_key(root_seed, block), n)
    frame = typed_frame(pl.DataFrame(columns), sim)
    frame = frame.insert_column(0, pl.Series("block", np.full(frame.height, block, dtype=np.int32)))
    stats = block_stats(frame, sim.metrics)
    if _orphaned():  # the run was killed while this block ran: write nothing more
        os._exit(1)
    if out_dir is not None:
        results.write_block(Path(out_dir), block, frame)
    return block, n, stats


def _execute(tasks, jobs: int, backend: str | None, scheduler: str | None):
    """Yield task results in submission order, sequentially or through joblib."""
    if jobs == 1 and backend in (None, "loky"):
        for args in tasks:
            yield _block_task(*args)
        return
    from joblib import Parallel, delayed, parallel_config

    if backend == "dask":
        # The blocks run on the cluster's workers, and each worker writes its block's
        # Parquet file itself: the out folder must be writable at the same path on
        # every worker (a shared file system).
        try:
            from distributed import Client
            from joblib._dask import DaskDistributedBackend
        except ImportError:
            raise InputError("--backend dask needs the 'dask' extra: pip install 'simkit[dask]'") from None

        class ClusterBackend(DaskDistributedBackend):
            # joblib runs a call sequentially *in this process* when the backend reports
            # one core: a one-thread cluster must still run the blocks on its worker.
            def effective_n_jobs(self, n_jobs):
                return max(2, super().effective_n_jobs(n_jobs))

        connect_s, workers_s = 5, 10
        if scheduler:
            check_scheduler(scheduler)
            try:
                client = Client(scheduler, timeout=connect_s, set_as_default=False)
            except Exception as e:  # OSError (unreachable), ValueError (malformed address), ...
                raise InputError(f"--scheduler: cannot connect to the Dask scheduler at {scheduler!r} "
                                 f"within {connect_s} s ({e})") from None
        else:
            client = Client(processes=False, dashboard_address=None, set_as_default=False)
        try:
            try:
                client.wait_for_workers(1, timeout=workers_s)
            except Exception:
                raise InputError(f"--scheduler: no Dask worker joined {scheduler} within {workers_s} s; "
                                 f"start workers with `dask worker {scheduler}`") from None
            with parallel_config(backend=ClusterBackend(client=client, wait_for_workers_timeout=0)):
                yield from Parallel(return_as="generator")(delayed(_block_task)(*a) for a in tasks)
        finally:
            client.close()
        return
    if backend in (None, "loky"):
        from joblib._parallel_backends import LokyBackend

        # workers that die with this process: no orphan keeps computing after a kill -9
        chosen = LokyBackend(initializer=_worker_init)
    else:
        chosen = backend
    yield from Parallel(n_jobs=jobs, backend=chosen, return_as="generator",
                        pre_dispatch="2*n_jobs")(delayed(_block_task)(*a) for a in tasks)


def _progress(total: int, enabled: bool, desc: str):
    from tqdm import tqdm

    return tqdm(total=total, unit=" games", unit_scale=True, disable=not enabled, desc=desc,
                dynamic_ncols=True, smoothing=0.1, file=sys.stderr)


class Terminated(KeyboardInterrupt):
    """SIGTERM (what schedulers, CI runners and ``timeout`` send) during a run: it stops like Ctrl-C, and the
    command exits with 128 + ``signum`` (143)."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


class _Signals:
    """While a run plays its blocks: SIGTERM raises :class:`Terminated` in the main thread (a second one is
    ignored while the run stops); ``signum`` records it even when a worker's death reaches the loop first."""

    def __init__(self):
        self.signum: int | None = None
        self._old = None

    def _handler(self, signum, frame):
        if self.signum is None:
            self.signum = signum
            raise Terminated(signum)

    def __enter__(self):
        import signal
        import threading

        if threading.current_thread() is threading.main_thread():
            self._old = signal.signal(signal.SIGTERM, self._handler)
        return self

    def __exit__(self, *exc):
        import signal

        if self._old is not None:
            signal.signal(signal.SIGTERM, self._old)
        return False


def lock_run_dir(run_dir: Path, option: str) -> int | None:
    """Own the run folder: an exclusive OS lock (flock) on the folder, held until the process ends or
    :func:`unlock_run_dir`; the kernel releases it on any exit, a kill -9 included. A folder another process
    owns is refused. (A file system without flock, such as some network mounts, runs unlocked: None.)"""
    import errno
    import fcntl

    fd = os.open(run_dir, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        os.close(fd)
        if exc.errno not in (errno.EAGAIN, errno.EWOULDBLOCK, errno.EACCES):
            return None
        who = ""
        try:
            man = results.read_json(run_dir / "manifest.json")
            if isinstance(man, dict) and isinstance(man.get("pid"), int):
                who = f" (process {man['pid']}{' on ' + man['host'] if man.get('host') else ''})"
        except InputError:
            pass
        raise InputError(f"{option} {run_dir}: another simkit run is writing this run folder{who}; one process "
                         "owns a run folder at a time: wait for it to end, stop it, or choose another --out") from None
    return fd


def unlock_run_dir(fd: int | None) -> None:
    if fd is not None:
        os.close(fd)  # closing the descriptor releases the flock


def _stop_run(run_dir: Path, manifest: dict, size, n_blocks: int, start: float) -> tuple[int, int]:
    """A run stopped before its end (Ctrl-C, SIGTERM, a full disk, an error): remove its temporary files and
    record ``interrupted`` with the blocks that are on disk (what ``--resume`` will keep). Returns (blocks,
    games per cell) kept."""
    results.remove_temporary(run_dir)
    kept = sorted(i for i in (results.block_index(f) for f in results.block_files(run_dir))
                  if i is not None and i < n_blocks)
    games = sum(size(i) for i in kept)
    manifest.pop("pid", None)
    manifest.pop("host", None)
    manifest.update(status="interrupted", games=games, blocks=len(kept),
                    wall_seconds=round(time.perf_counter() - start, 3))
    results.write_json(run_dir / "manifest.json", manifest, in_place_fallback=True)
    return len(kept), games


def _size_text(nbytes: int) -> str:
    for unit, k in (("GiB", 2 ** 30), ("MiB", 2 ** 20), ("KiB", 2 ** 10)):
        if nbytes >= k:
            return f"{nbytes / k:.1f} {unit}"
    return f"{nbytes} bytes"


def make_run_dir(base: str | Path, mode: str, root_seed: int) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    base = Path(base)
    candidate = base / f"{mode}-{stamp}-{root_seed % (1 << 24):06x}"
    k = 1
    while candidate.exists():
        k += 1
        candidate = base / f"{mode}-{stamp}-{root_seed % (1 << 24):06x}-{k}"
    return candidate


def run_simulation(sim: Simulation, games: int | None = None, *, seed=None, jobs: int | None = None,
                   block_size: int | None = None, out: str | Path | None = None,
                   progress: bool = False, precision: float | None = None,
                   max_games: int | None = None, backend: str | None = None,
                   scheduler: str | None = None, manifest_extra: dict | None = None,
                   stop_when=None, min_games: int = 0, resume: bool = False) -> RunResult:
    """Run ``games`` games per cell of ``sim`` and return the summary.

    ``out`` is the run folder to write (None keeps nothing on disk). With
    ``precision`` set, blocks are added in order until every rate's 95%
    half-width is at most ``precision`` (or ``max_games`` is reached); the
    stopping block depends only on the seed, never on ``jobs``. ``stop_when``
    generalises this: a function of the accumulated statistics, asked after
    each block in block order (from ``min_games`` games on), that ends the run
    when it returns True.

    ``resume=True`` finishes an unfinished run in ``out``: blocks already written are read back, the
    others are played, so the finished run is identical to one that was never interrupted.
    """
    root_seed = normalize_seed(seed)
    block_size = int(block_size or sim.default_block_size)
    if block_size < 1:
        raise InputError(f"--block-size: must be at least 1 (got {block_size})")
    jobs = default_jobs() if jobs in (None, 0) else int(jobs)
    if jobs < 1:
        raise InputError(f"--jobs: must be at least 1 (got {jobs})")
    if precision is not None and stop_when is None:
        if not (0 < precision < 0.5):
            raise InputError(f"--precision: must lie strictly between 0 and 0.5 (got {precision})")

        def stop_when(acc):
            return acc.max_rate_half_width() <= precision
    sequential = stop_when is not None
    if sequential:
        cap = int(max_games or DEFAULT_MAX_GAMES)
        target = cap
    else:
        if games is None or games < 1:
            raise InputError(f"--games: must be at least 1 (got {games})")
        target = int(games)
        cap = target
    if target > MAX_GAMES:
        raise InputError(f"--{'max-games' if sequential else 'games'}: at most {MAX_GAMES:,} games per cell "
                         f"(got {target:,})")
    n_blocks = math.ceil(target / block_size)

    def size(b: int) -> int:
        return min(block_size, target - b * block_size)

    run_dir = Path(out) if out is not None else None
    manifest = {
        "simkit_version": _version(),
        "game": sim.game,
        "mode": sim.mode,
        "rules_version": sim.rules_version,
        **(manifest_extra or {}),
        **sim.describe(),
        "root_seed": root_seed,  # a JSON integer, exact in Python (up to 128 bits; above 2**53 in JavaScript use a big-int reader)
        "block_size": block_size,
        "games_requested": None if sequential else target,
        "precision": precision,
        "max_games": cap if sequential else None,
        "cells": sim.cells,
        "status": "running",
        "pid": os.getpid(),
        "host": _host(),
    }
    created = False
    lock = None
    if resume and run_dir is None:
        raise InputError("--resume: needs the run folder")
    if run_dir is not None:
        option = "--resume" if resume else "--out"
        created = not run_dir.exists()
        try:
            run_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise InputError(f"--out: cannot create the run folder {run_dir} ({exc.strerror or exc})") from None
        try:
            lock = lock_run_dir(run_dir, option)  # before anything is read or written: one writer at a time
        except InputError:
            if created:
                run_dir.rmdir()
            raise
        try:
            if results.block_files(run_dir) and not resume:
                raise InputError(f"--out: {run_dir} already holds result blocks; choose a new folder "
                                 f"(or finish that run with `simkit run --resume {run_dir}`)")
            if resume:
                old = results.read_json(run_dir / "manifest.json")
                manifest["resumed"] = int(old.get("resumed", 0) or 0) + 1 if isinstance(old, dict) else 1
                results.remove_temporary(run_dir)  # a block a killed worker was writing
            results.write_json(run_dir / "manifest.json", manifest)
        except (OSError, InputError) as exc:
            unlock_run_dir(lock)
            if created:  # refused before any game (e.g. a disk already full): leave no empty run folder
                import shutil

                shutil.rmtree(run_dir, ignore_errors=True)
            if isinstance(exc, InputError):
                raise
            raise InputError(f"--out: cannot write the run folder {run_dir} ({exc.strerror or exc})") from None
    try:
        with _Signals() as signals:
            return _play(sim, run_dir, manifest, created, signals, root_seed, n_blocks, size, target, jobs,
                         backend, scheduler, progress, sequential, stop_when, min_games, resume)
    finally:
        unlock_run_dir(lock)


def _play(sim, run_dir, manifest, created, signals, root_seed, n_blocks, size, target, jobs, backend, scheduler,
          progress, sequential, stop_when, min_games, resume) -> RunResult:
    """The blocks of :func:`run_simulation`, in order, and what a stop before the end leaves on disk."""

    acc = StatsAccumulator(sim.metrics)
    done_games = 0
    done_blocks = 0
    start = time.perf_counter()
    bar = _progress(target * sim.cells, progress, sim.mode)
    round_size = n_blocks if not sequential else max(2 * jobs, 1)
    stop = False
    try:
        b = 0
        while b < n_blocks and not stop:
            chunk = range(b, min(n_blocks, b + round_size))
            tasks = ((sim, root_seed, i, size(i), None if run_dir is None else str(run_dir), resume) for i in chunk)
            for block, n, rows in _execute(tasks, jobs, backend, scheduler):
                if stop:
                    # computed past the deterministic stopping block: discard it
                    if run_dir is not None:
                        results.block_path(run_dir, block).unlink(missing_ok=True)
                    continue
                acc.add(rows)
                done_games += n
                done_blocks += 1
                bar.update(n * sim.cells)
                if sequential and done_games >= min_games and stop_when(acc):
                    stop = True
            b = chunk.stop
    except InputError:
        # bad input found only when the blocks start (e.g. an unreachable --scheduler): leave nothing half-done
        bar.close()
        if run_dir is not None and done_blocks == 0:
            import shutil

            if created:
                shutil.rmtree(run_dir, ignore_errors=True)
            else:
                (run_dir / "manifest.json").unlink(missing_ok=True)
        raise
    except results.BlockWriteError as exc:
        bar.close()
        kept, games = _stop_run(run_dir, manifest, size, n_blocks, start)
        need = _size_text(exc.nbytes)
        if kept == 0 and created:
            import shutil

            shutil.rmtree(run_dir, ignore_errors=True)
            raise InputError(f"--out {run_dir}: cannot write block {exc.block} ({exc.strerror}); each block needs "
                             f"about {need}; no block was finished, so the run folder was removed") from None
        raise InputError(f"--out {run_dir}: cannot write block {exc.block} ({exc.strerror}); each block needs "
                         f"about {need}; the run stopped with {kept} finished block{'s' if kept != 1 else ''} "
                         f"({games:,} games per cell) kept and its manifest marked 'interrupted': free space, then "
                         f"finish the run with `simkit run --resume {run_dir}`") from None
    except BaseException as exc:
        # Ctrl-C, SIGTERM, or a worker killed by the same signal: keep what is on disk, and say so in the manifest
        bar.close()
        if run_dir is not None:
            _stop_run(run_dir, manifest, size, n_blocks, start)
        if signals.signum is not None and not isinstance(exc, KeyboardInterrupt):
            raise Terminated(signals.signum) from None
        raise
    bar.close()
    if run_dir is not None and sequential:
        # blocks past the deterministic stopping block (e.g. left by a killed run): not part of the run
        for f in results.block_files(run_dir):
            if int(f.stem.split("-")[1]) >= done_blocks:
                f.unlink(missing_ok=True)
    wall = time.perf_counter() - start
    summary = acc.summary()
    manifest.pop("pid", None)
    manifest.pop("host", None)
    manifest.update(status="complete", games=done_games, blocks=done_blocks,
                    wall_seconds=round(wall, 3), jobs=jobs, backend=backend or "loky")
    if run_dir is not None:
        results.write_json(run_dir / "summary.json", summary)
        results.write_json(run_dir / "manifest.json", manifest)
    return RunResult(run_dir=run_dir, manifest=manifest, summary=summary, games=done_games,
                     blocks=done_blocks, wall_seconds=wall, accumulator=acc)


def _host() -> str:
    import socket

    return socket.gethostname()


def _version() -> str:
    from simkit import __version__

    return __version__


def summary_from_blocks(run_dir: str | Path) -> list[dict]:
    """The summary of the blocks a run wrote (for an unfinished run), reduced in block order."""
    from simkit.core import loader

    run_dir = Path(run_dir)
    man = results.raw_manifest(run_dir)
    sim = loader.load_for_run(run_dir, man).simulation
    files = results.block_files(run_dir)
    results.check_blocks(files)
    acc = StatsAccumulator(sim.metrics)
    for f in files:
        acc.add(block_stats(pl.read_parquet(f), sim.metrics))
    return acc.summary()


def resume_run(run_dir: str | Path, *, jobs: int | None = None, progress: bool = False,
               backend: str | None = None, scheduler: str | None = None) -> tuple[RunResult, object]:
    """Finish an unfinished run from its manifest; returns the result and the loaded scenario.

    Blocks are deterministic, so the finished run (its blocks and summary.json) is identical to a run that
    was never interrupted.
    """
    from simkit.core import loader

    run_dir = Path(run_dir)
    man = results.raw_manifest(run_dir)
    where = f"--resume {run_dir}"
    if man.get("status") == "complete":
        raise InputError(f"{where}: the run is already complete (nothing to resume)")
    # a run still going owns its folder (an OS lock): run_simulation refuses to resume it
    sc = loader.load_for_run(run_dir, man)
    try:
        seed = int(man.get("root_seed"))
        block_size = int(man["block_size"])
    except (KeyError, TypeError, ValueError):
        raise InputError(f"{run_dir / 'manifest.json'}: fields 'root_seed' and 'block_size' must be whole "
                         "numbers") from None
    precision = man.get("precision")
    games = man.get("games_requested")
    if precision is None and (not isinstance(games, int) or isinstance(games, bool) or games < 1):
        raise InputError(f"{run_dir / 'manifest.json'}: field 'games_requested' must be a whole number of at "
                         f"least 1 (got {games!r}); this run cannot be resumed")
    if precision is not None and not isinstance(precision, (int, float)):
        raise InputError(f"{run_dir / 'manifest.json'}: field 'precision' must be a number (got {precision!r})")
    extra = {k: man[k] for k in ("scenario", "scenario_path", "scenario_sha256", "overrides") if k in man}
    res = run_simulation(sc.simulation, games, seed=seed, jobs=jobs, block_size=block_size, out=run_dir,
                         progress=progress, precision=precision, max_games=man.get("max_games"),
                         backend=backend, scheduler=scheduler, manifest_extra=extra, resume=True)
    return res, sc
