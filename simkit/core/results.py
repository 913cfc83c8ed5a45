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


class BlockWriteError(Exception):
    """A block could not be written (a full disk, a quota, an I/O error); picklable, so a worker can raise it.

    ``args``: (run folder, block, bytes the block needs, errno, the system's message)."""

    def __init__(self, run_dir: str, block: int, nbytes: int, errno: int | None, strerror: str):
        super().__init__(run_dir, block, nbytes, errno, strerror)
        self.run_dir, self.block, self.nbytes, self.errno, self.strerror = run_dir, block, nbytes, errno, strerror


def _write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` and flush it to the disk (so a full disk is found here, not later)."""
    with open(path, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())


def write_block(run_dir: Path, block: int, frame: pl.DataFrame) -> Path:
    """Write one block's rows atomically (temp file + rename).

    The Parquet bytes are made in memory and then written by Python, so a full disk is an ``OSError`` with its
    errno (not a polars ComputeError), raised as :class:`BlockWriteError` with the bytes the block needs.
    """
    import io

    path = block_path(run_dir, block)
    buf = io.BytesIO()
    frame.write_parquet(buf, compression="zstd")
    data = buf.getvalue()
    tmp = None
    try:
        tmp = _atomic_target(path)
        _write_bytes(tmp, data)
        os.replace(tmp, path)
    except OSError as exc:
        raise BlockWriteError(str(run_dir), block, len(data), exc.errno, exc.strerror or str(exc)) from None
    finally:
        if tmp is not None and tmp.exists():
            tmp.unlink()
    return path


def write_json(path: Path, data, in_place_fallback: bool = False) -> None:
    """Write JSON atomically. With ``in_place_fallback``, a file that cannot be written beside (a full disk) is
    overwritten in place instead: a small file reuses the disk blocks it already holds."""
    path = Path(path)
    text = json.dumps(data, indent=2, sort_keys=False, default=str) + "\n"
    tmp = None
    try:
        tmp = _atomic_target(path)
        _write_bytes(tmp, text.encode())
        os.replace(tmp, path)
    except OSError:
        if not (in_place_fallback and path.is_file()):
            raise
        with open(path, "r+b") as fh:
            fh.write(text.encode())
            fh.truncate()
            fh.flush()
            os.fsync(fh.fileno())
    finally:
        if tmp is not None and tmp.exists():
            tmp.unlink()


def remove_temporary(run_dir: Path) -> None:
    """Remove the hidden temporary files a stopped run left (a block or manifest being written)."""
    run_dir = Path(run_dir)
    for tmp in [*run_dir.glob(".*.tmp"), *(run_dir / BLOCKS).glob(".block-*.tmp")]:
        tmp.unlink(missing_ok=True)


def read_json(path: Path):
    """Parsed JSON; an unreadable, non-UTF-8 or malformed file is an InputError naming it."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{path}: not a text file (expected JSON)") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}: not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno}); "
                         "truncated?") from None


def block_files(run_dir: Path) -> list[Path]:
    return sorted((Path(run_dir) / BLOCKS).glob("block-*.parquet"))


def block_index(path: Path) -> int | None:
    """The block number in ``block-000012.parquet`` (None for another name)."""
    try:
        return int(Path(path).stem.split("-", 1)[1])
    except (IndexError, ValueError):
        return None


def check_blocks(files: list[Path]) -> None:
    """Every block readable and with the same columns and types as the others; else an InputError naming the
    block that differs. The reference is the schema most blocks share (so a damaged block 0 is the one named);
    when two blocks alone disagree, both are named."""
    from collections import Counter

    schemas = []
    for f in files:
        try:
            schema = dict(pl.read_parquet_schema(f))
        except Exception as exc:  # truncated, garbage, not Parquet
            raise InputError(f"{f}: not a readable Parquet block ({type(exc).__name__}); the run folder is "
                             "damaged: delete the block and finish the run with `simkit run --resume`") from None
        if "block" not in schema:
            raise InputError(f"{f}: not a simkit block (no 'block' column)")
        schemas.append((f, schema))
    if not schemas:
        return
    counts = Counter(tuple(map(str, s.items())) for _, s in schemas)
    (top, n_top), *rest = counts.most_common()
    f0, s0 = next((f, s) for f, s in schemas if tuple(map(str, s.items())) == top)
    tie = bool(rest) and rest[0][1] == n_top
    for f, schema in schemas:
        if schema == s0:
            continue
        where = f"{f}" if not tie else f"{f} (or {f0.name}: the two blocks disagree)"
        for col, dtype in s0.items():
            if col not in schema:
                raise InputError(f"{where}: column '{col}' is missing (present in {f0.name})")
            if schema[col] != dtype:
                raise InputError(f"{where}: column '{col}' has type {schema[col]} (expected {dtype}, as in "
                                 f"{f0.name})")
        extra = [c for c in schema if c not in s0]
        raise InputError(f"{where}: unexpected column '{extra[0]}' (not in {f0.name})")


def scan(run_dir: str | Path) -> pl.LazyFrame:
    """All finished blocks of a run as a lazy polars frame, in block order."""
    run_dir = Path(run_dir)
    files = block_files(run_dir)
    if not files:
        if not run_dir.exists():
            raise InputError(f"{run_dir}: run folder not found")
        raise InputError(f"{run_dir}: no result blocks (expected {BLOCKS}/block-*.parquet)")
    check_blocks(files)
    return pl.scan_parquet([str(f) for f in files])


def load(run_dir: str | Path) -> pl.DataFrame:
    """The per-game rows of a run as a polars DataFrame (for notebooks)."""
    return scan(run_dir).collect()


def raw_manifest(run_dir: str | Path) -> dict:
    """``manifest.json`` as written, checked to be a run's manifest."""
    run_dir = Path(run_dir)
    p = run_dir / "manifest.json"
    if not run_dir.exists():
        raise InputError(f"{run_dir}: run folder not found")
    if not p.is_file():
        raise InputError(f"{run_dir}: not a run folder (no manifest.json)")
    man = read_json(p)
    if not isinstance(man, dict):
        raise InputError(f"{p}: expected a JSON object (a run's manifest), got a {type(man).__name__}")
    for key in ("game", "mode"):
        if not isinstance(man.get(key), str):
            raise InputError(f"{p}: field '{key}' must be a string (got {man.get(key)!r})")
    for key in ("block_size", "cells"):
        if key in man and (not isinstance(man[key], int) or isinstance(man[key], bool) or man[key] < 1):
            raise InputError(f"{p}: field '{key}' must be a whole number of at least 1 (got {man[key]!r})")
    return man


def unfinished(man: dict) -> bool:
    return man.get("status") != "complete"


def blocks_planned(man: dict) -> int | None:
    """How many blocks a run with a fixed number of games was going to write (None: it stops on its own)."""
    games, size = man.get("games_requested"), man.get("block_size")
    if isinstance(games, int) and isinstance(size, int) and size > 0:
        return -(-games // size)
    return None


def manifest(run_dir: str | Path) -> dict:
    """The run's manifest. For an unfinished run (killed, interrupted), ``games`` and ``blocks`` are
    counted from the blocks it wrote, and ``unfinished`` is True."""
    man = raw_manifest(run_dir)
    if unfinished(man):
        files = block_files(run_dir)
        check_blocks(files)
        rows = sum(pl.scan_parquet(str(f)).select(pl.len()).collect().item() for f in files) if files else 0
        cells = man.get("cells") or 1
        man = dict(man, games=rows // cells, blocks=len(files), unfinished=True)
    return man


def summary(run_dir: str | Path) -> list[dict]:
    """Every reported number. For an unfinished run, computed from the blocks it wrote."""
    p = Path(run_dir) / "summary.json"
    man = raw_manifest(run_dir)
    if unfinished(man) or not p.exists():
        from simkit.core.runner import summary_from_blocks

        return summary_from_blocks(run_dir)
    rows = read_json(p)
    if not isinstance(rows, list) or not all(isinstance(r, dict) and {"metric", "group", "estimate", "low",
                                                                      "high", "n"} <= set(r) for r in rows):
        raise InputError(f"{p}: expected a list of {{metric, group, estimate, low, high, n}} rows")
    return rows
