"""Run folders: per-block Parquet files, ``manifest.json`` and ``summary.json``.

Layout of a run folder::

    runs/<run-id>/
        manifest.json          # what was run: version, game, scenario + hash, options, seed, …
        summary.json           # every reported number with its 95% interval and count
        blocks/block-000000.parquet   # one row per game (zstd), written when the block ends

Every file is written to a temporary name and renamed into place, so a killed
run never leaves a half-written file under its final name; an interrupted run
keeps the blocks it finished.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import polars as pl

from simkit.errors import InputError

BLOCKS = "blocks"


def block_path(run_dir: Path, block: int) -> Path:
    return Path(run_dir) / BLOCKS / f"block-{block:06d}.parquet"


def _atomic_target(path: Path):
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    os.chmod(tmp, 0o644)
    return Path(tmp)


def write_block(run_dir: Path, block: int, frame: pl.DataFrame) -> Path:
    """Write one block's rows atomically (temp file + rename)."""
    path = block_path(run_dir, block)
    tmp = _atomic_target(path)
    try:
        frame.write_parquet(tmp, compression="zstd")
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()
    return path


def write_json(path: Path, data) -> None:
    """Write JSON atomically."""
    path = Path(path)
    tmp = _atomic_target(path)
    try:
        tmp.write_text(json.dumps(data, indent=2, sort_keys=False, default=str) + "\n")
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def read_json(path: Path):
    return json.loads(Path(path).read_text())


def block_files(run_dir: Path) -> list[Path]:
    return sorted((Path(run_dir) / BLOCKS).glob("block-*.parquet"))


def scan(run_dir: str | Path) -> pl.LazyFrame:
    """All finished blocks of a run as a lazy polars frame, in block order."""
    run_dir = Path(run_dir)
    files = block_files(run_dir)
    if not files:
        if not run_dir.exists():
            raise InputError(f"{run_dir}: run folder not found")
        raise InputError(f"{run_dir}: no result blocks (expected {BLOCKS}/block-*.parquet)")
    return pl.scan_parquet([str(f) for f in files])


def load(run_dir: str | Path) -> pl.DataFrame:
    """The per-game rows of a run as a polars DataFrame (for notebooks)."""
    return scan(run_dir).collect()


def manifest(run_dir: str | Path) -> dict:
    p = Path(run_dir) / "manifest.json"
    if not p.exists():
        raise InputError(f"{run_dir}: not a run folder (no manifest.json)")
    return read_json(p)


def summary(run_dir: str | Path) -> list[dict]:
    p = Path(run_dir) / "summary.json"
    if not p.exists():
        raise InputError(f"{run_dir}: run has no summary.json (interrupted before it ended?)")
    return read_json(p)
