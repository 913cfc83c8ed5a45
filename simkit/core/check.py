"""``simkit check``: the balance numbers against committed baselines, game by game (a regression gate for CI).

A baseline is two files in ``reports/baseline/``:

* ``NAME.json`` — the scenario, its ``--set`` overrides, seed, games, block
  size, the gate's settings (``alpha``, ``power``, ``redeal``, tolerances),
  every summary number with its 95% interval, its tolerance and its minimum
  detectable effect, and the SHA-256 of
* ``NAME.npz`` — the compact per-game outcomes: for every row the run
  produced (one per game per cell, in block order) its cell, game index and
  the value of every metric column, 0/1 columns packed as bits of one
  integer, the others in the smallest integer type (zlib-compressed; a few
  bytes a game).

``check`` replays the baseline: the same seed, games and block size give
every cell the same game streams, so game g of block b in the new run is the
same game as in the baseline. Each number is then a *paired* comparison of
new against old outcomes of the same games:

* rates of one cell: the paired 2×2 table of (old, new) outcomes, Newcombe's
  hybrid score interval (method 10) for the difference and the exact
  McNemar test (a binomial test of the discordant games);
* numbers pooled over cells that replay the same games (``unit="game"``):
  the game is the pair; the exact sign-flip test of the per-game differences
  and, for rates, Newcombe's interval on the effective counts (divided by
  the design effect);
* means: the exact sign-flip (randomisation) test of the per-game integer
  differences and the normal interval of their mean;
* seat numbers (:class:`SeatNumber`: a number over seats that a page leads
  with, a Jarl's edge or a Warband's effect, a ratio of sums or the
  difference of two): the game is the pair; the new minus the old value,
  with the cluster-robust (linearised) variance of the per-game
  differences and Student's t.

The p-values of a baseline's numbers are adjusted by Holm's method (the
family-wise error rate stays at most ``alpha`` on a real null). A number
fails when its Holm-adjusted p is below ``alpha`` AND it moved by more than
its tolerance: absolute for rates, and for means a share of the metric's
scale (the mean of its old values over all its groups, so that "5%" of
``turns`` is the same number of turns in every cell), unless the baseline
sets a metric's own tolerance. An unchanged tree replays every game
identically: every difference is exactly 0 and every p-value 1.

The minimum detectable effect (MDE) of a number is the smallest true change
the gate flags with probability ``power`` when the change re-deals a share
``redeal`` of the games (each re-dealt game played again independently):
the paired difference then has variance 2·redeal·σ², σ² the number's
per-game variance in the baseline. ``simkit baseline`` sizes the games so
that every MDE is at most its tolerance.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import polars as pl

from simkit.core import stats
from simkit.errors import InputError

FORMAT = 3  # 3: the .npz carries the checksum of the JSON's record (2: only the JSON that of the .npz)
READABLE_FORMATS = (2, 3)
DEFAULT_ALPHA = 0.01
DEFAULT_POWER = 0.8
DEFAULT_REDEAL = 0.35  # measured: The Old Gob's Health 3→4 re-dealt about 35% of the Goblins games
DEFAULT_RATE_TOLERANCE = 0.02
DEFAULT_MEAN_TOLERANCE = 0.05  # relative to the baseline value
FIELDS = ("format", "scenario", "overrides", "seed", "games", "block_size", "alpha", "power", "redeal",
          "tolerance", "outcomes", "cells", "metrics")
# What the gate replays, not what it recorded: changing these tries another experiment against the same record
REPLAYED = ("scenario", "overrides", "seed")
RECORD_ARRAY = "record_sha256"


@dataclass(frozen=True)
class SeatNumber:
    """A number the gate checks over seats rather than games (a Jarl's edge, a Warband's effect): one a page leads
    with that no per-game metric carries. A simulation lists them in ``seat_numbers`` and computes their part
    columns from a block's rows in ``gate_columns(columns)`` (only ``baseline`` and ``check`` ask for them).

    With two ``parts`` the number is the ratio of sums Σ parts[0] / Σ parts[1] over the rows of a group (say, over
    the seats that kept a Jarl: Σ (win share − 1/n) and the number of those seats); with four, the difference of two
    such ratios, Σ parts[0] / Σ parts[1] − Σ parts[2] / Σ parts[3]; either divided by ``scale`` (the numerators may
    be stored times a whole number, so they pack as small integers). The game, which every cell replays, is the unit:
    the recorded interval is :func:`stats.clustered_mean`'s (a ratio) or :func:`stats.clustered_difference`'s (a
    difference), and the paired test the same linearisation applied to new − old. Compared with the absolute
    (rate) tolerance. A group whose denominators have rows in fewer than ``min_units`` games, or in fewer than a
    share ``min_share`` of its games (a Jarl hardly ever kept), is too few to judge and is left out, as the pages
    leave it out of their leads (a share, so that more games do not bring in a number no affordable game count
    could measure to its tolerance)."""

    name: str
    parts: tuple[str, ...]
    by: tuple[str, ...] = ()
    label: str = ""
    scale: int = 1  # the numerators are stored times this (whole numbers pack small): divided out of the value
    min_units: int = 30  # a group with a denominator row in fewer games is too few to judge: not a number
    min_share: float = 0.0  # ... or in fewer than this share of its games (a Jarl hardly ever kept)
    tolerance: float | None = None  # absolute; None: the baseline's rate tolerance (``baseline`` records it)
    kind: str = "rate"  # how its tolerance is read (absolute)
    unit: str = "game"

    def __post_init__(self):
        if len(self.parts) not in (2, 4):
            raise ValueError(f"SeatNumber {self.name}: 2 parts (a ratio) or 4 (a difference of two ratios)")


def seat_numbers(sim) -> list[SeatNumber]:
    return list(getattr(sim, "seat_numbers", None) or [])


def record_sha256(data: dict) -> str:
    """SHA-256 of a baseline JSON's record: every field but those the gate replays (``REPLAYED``) and the
    outcome file's own checksum (which covers this one), as canonical JSON. The ``.npz`` carries it."""
    rec = {k: v for k, v in data.items() if k not in REPLAYED and not k.startswith("_")}
    rec["outcomes"] = {k: v for k, v in (rec.get("outcomes") or {}).items() if k != "sha256"}
    text = json.dumps(rec, sort_keys=True, separators=(",", ":"), default=_json_default)
    return hashlib.sha256(text.encode()).hexdigest()


# ---------------------------------------------------------------- tolerances


@dataclass(frozen=True)
class Tolerance:
    """A practical tolerance: ``value`` absolute, or a share of the metric's scale when ``relative``."""

    value: float
    relative: bool = False

    def of(self, scale: float) -> float:
        return self.value * abs(scale) if self.relative else self.value

    def text(self) -> str:
        return f"{self.value:g}×old" if self.relative else f"{self.value:g}"

    def to_json(self):
        return {"relative": self.value} if self.relative else {"absolute": self.value}


def parse_tolerance(text: str, where: str) -> Tolerance:
    """``0.02`` (absolute) or ``5%`` (relative to the metric's scale: its mean old value over its groups)."""
    t = str(text).strip()
    try:
        if t.endswith("%"):
            v, rel = float(t[:-1]) / 100, True
        else:
            v, rel = float(t), False
    except ValueError:
        raise InputError(f"{where}: expected a number (absolute, e.g. 0.02) or a percentage of the metric's scale "
                         f"(e.g. 5%) (got {text!r})") from None
    if not (v > 0 and math.isfinite(v)):
        raise InputError(f"{where}: must be positive (got {text!r})")
    return Tolerance(v, rel)


def _tolerance_from_json(obj, where: str) -> Tolerance:
    if isinstance(obj, dict) and len(obj) == 1:
        (k, v), = obj.items()
        if k in ("absolute", "relative") and isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0:
            return Tolerance(float(v), k == "relative")
    raise InputError(f"{where}: must be {{\"absolute\": X}} or {{\"relative\": X}} with X > 0 (got {obj!r})")


@dataclass
class Tolerances:
    rate: Tolerance = Tolerance(DEFAULT_RATE_TOLERANCE)
    mean: Tolerance = Tolerance(DEFAULT_MEAN_TOLERANCE, True)
    metrics: dict[str, Tolerance] = field(default_factory=dict)

    def for_metric(self, name: str, kind: str) -> Tolerance:
        return self.metrics.get(name) or (self.rate if kind == "rate" else self.mean)

    def to_json(self) -> dict:
        return {"rate": self.rate.to_json(), "mean": self.mean.to_json(),
                "metrics": {k: v.to_json() for k, v in sorted(self.metrics.items())}}

    @classmethod
    def from_json(cls, obj, where: str) -> Tolerances:
        if not isinstance(obj, dict) or set(obj) - {"rate", "mean", "metrics"} or not {"rate", "mean"} <= set(obj):
            raise InputError(f"{where}: field 'tolerance' must hold 'rate', 'mean' and optionally 'metrics' "
                             f"(got {obj!r})")
        per = obj.get("metrics") or {}
        if not isinstance(per, dict):
            raise InputError(f"{where}: field 'tolerance.metrics' must map metric names to tolerances")
        return cls(_tolerance_from_json(obj["rate"], f"{where}: field 'tolerance.rate'"),
                   _tolerance_from_json(obj["mean"], f"{where}: field 'tolerance.mean'"),
                   {k: _tolerance_from_json(v, f"{where}: field 'tolerance.metrics.{k}'") for k, v in per.items()})


# ---------------------------------------------------------------- playing the blocks and keeping compact outcomes


def _metric_specs(sim) -> list:
    """The metrics a baseline checks: every per-game metric of the simulation (not pre-aggregated ones)."""
    specs = [m for m in sim.metrics if m.trials is None]
    if not specs:
        raise InputError(f"baseline: {sim.game}/{sim.mode} reports no per-game metrics to check")
    return specs


def _layout(sim) -> tuple[list[str], list[str]]:
    specs = _metric_specs(sim)
    by_cols: list[str] = []
    for m in specs:
        for b in m.by:
            if b not in by_cols:
                by_cols.append(b)
    cols: list[str] = []
    for m in specs:
        if m.column not in cols:
            cols.append(m.column)
    for x in seat_numbers(sim):
        for b in x.by:
            if b not in by_cols:
                by_cols.append(b)
        cols += [c for c in x.parts if c not in cols]
    return by_cols, cols


def _play_block(sim, seed: int, block: int, n: int, by_cols: list[str], cols: list[str]):
    """One block in a worker: its summary statistics and its compact outcomes."""
    from simkit.core.seeding import block_key
    from simkit.core.simulation import block_stats

    columns = sim.run_block(block_key(seed, block), n)
    if seat_numbers(sim):
        columns = {**columns, **sim.gate_columns(columns)}
    frame = pl.DataFrame(columns)
    frame = frame.insert_column(0, pl.Series("block", np.full(frame.height, block, dtype=np.int32)))
    st = block_stats(frame, sim.metrics)
    if by_cols:
        keys = frame.select(by_cols)
        uniq = keys.unique(maintain_order=True)
        cell = (keys.with_row_index("__r").join(uniq.with_row_index("__cell"), on=by_cols, how="left")
                .sort("__r")["__cell"].to_numpy().astype(np.int64))
        table = [{b: _plain(v) for b, v in row.items()} for row in uniq.iter_rows(named=True)]
    else:
        cell = np.zeros(frame.height, np.int64)
        table = [{}]
    out = {"cell": cell.astype(np.int32),
           "game": frame["game"].to_numpy().astype(np.int64) if "game" in frame.columns
           else np.arange(frame.height, dtype=np.int64)}
    for c in cols:
        s = frame[c]
        out[c] = s.cast(pl.Int64).to_numpy() if (s.dtype.is_integer() or s.dtype == pl.Boolean) \
            else s.cast(pl.Float64).to_numpy()
    return block, n, st, table, out


def _plain(v):
    return v.item() if isinstance(v, np.generic) else v


def play(sim, seed: int, games: int, block_size: int, jobs: int | None = None, bar=None):
    """Play ``games`` games per cell in blocks; return (summary rows, cell table, outcome columns, rows per block).

    Blocks run on ``jobs`` workers and are merged in block order, so the
    result is the same for any ``jobs``. ``bar`` (a tqdm bar, or None) is
    advanced by each block's games × cells as the block finishes.
    """
    from simkit.core.runner import default_jobs
    from simkit.core.simulation import StatsAccumulator

    by_cols, cols = _layout(sim)
    n_blocks = math.ceil(games / block_size)
    sizes = [min(block_size, games - b * block_size) for b in range(n_blocks)]
    tasks = [(sim, seed, b, sizes[b], by_cols, cols) for b in range(n_blocks)]
    jobs = default_jobs() if jobs in (None, 0) else int(jobs)
    cells = max(1, int(getattr(sim, "cells", 1) or 1))
    if jobs == 1 or n_blocks == 1:
        results = []
        for t in tasks:
            results.append(_play_block(*t))
            if bar is not None:
                bar.update(t[3] * cells)
    else:
        from joblib import Parallel, delayed

        results = []
        for r in Parallel(n_jobs=min(jobs, n_blocks), return_as="generator_unordered")(
                delayed(_play_block)(*t) for t in tasks):
            results.append(r)
            if bar is not None:
                bar.update(sizes[r[0]] * cells)
    results.sort(key=lambda r: r[0])
    acc = StatsAccumulator(sim.metrics)
    table = results[0][3]
    parts: dict[str, list] = {k: [] for k in results[0][4]}
    block_rows = []
    for _, _, st, tab, out in results:
        if tab != table:
            raise InputError("baseline: the simulation's cells differ between blocks; cannot pair games")
        acc.add(st)
        for k, v in out.items():
            parts[k].append(v)
        block_rows.append(len(out["cell"]))
    outcomes = {k: np.concatenate(v) for k, v in parts.items()}
    return acc, table, outcomes, np.array(block_rows, np.int64)


# ---------------------------------------------------------------- the outcome file


def outcome_spec(outcomes: dict[str, np.ndarray]) -> dict:
    """The column spec recorded in the JSON (which columns are 0/1 flags, offset integers or floats)."""
    return pack_outcomes(outcomes, np.zeros(0, np.int64))[1]


def pack_outcomes(outcomes: dict[str, np.ndarray], block_rows: np.ndarray,
                  record: str | None = None) -> tuple[bytes, dict]:
    """The compact ``.npz`` bytes (with the JSON record's checksum ``record``, when given) and the column spec
    recorded in the JSON."""
    arrays = {"block_rows": block_rows.astype(np.int64)}
    if record is not None:
        arrays[RECORD_ARRAY] = np.frombuffer(bytes.fromhex(record), np.uint8)
    spec = {"flags": [], "ints": {}, "floats": []}
    flags = []
    for k, v in outcomes.items():
        if k in ("cell", "game"):
            continue
        if v.dtype.kind == "f":
            spec["floats"].append(k)
            arrays["f_" + k] = v.astype(np.float64)
        elif v.size == 0 or (v.min() >= 0 and v.max() <= 1):
            spec["flags"].append(k)
            flags.append(v.astype(np.uint64))
        else:
            lo = int(v.min())
            span = int(v.max()) - lo
            dt = np.uint8 if span < 2 ** 8 else np.uint16 if span < 2 ** 16 else np.uint32 if span < 2 ** 32 \
                else np.int64
            spec["ints"][k] = lo
            arrays["i_" + k] = (v - lo).astype(dt)
    if len(spec["flags"]) > 32:
        raise InputError("baseline: more than 32 0/1 metric columns")
    if flags:
        word = np.zeros(flags[0].size, np.uint64)
        for j, f in enumerate(flags):
            word |= f << np.uint64(j)
        dt = np.uint8 if len(flags) <= 8 else np.uint16 if len(flags) <= 16 else np.uint32
        arrays["flags"] = word.astype(dt)
    for k in ("cell", "game"):
        v = outcomes[k]
        arrays[k] = v.astype(np.uint16 if v.size == 0 or v.max() < 2 ** 16 else np.uint32)
    buf = io.BytesIO()
    np.savez_compressed(buf, **arrays)
    return buf.getvalue(), spec


def unpack_outcomes(data: bytes, spec: dict, rows: int, where: str, record: str | None = None,
                    json_name: str = "") -> tuple[dict[str, np.ndarray], np.ndarray]:
    """Read the ``.npz`` back into columns, validating every array against the JSON's spec; with ``record``
    (format 3), the checksum the ``.npz`` carries must be the JSON record's."""
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as z:
            arrays = {k: z[k] for k in z.files}
    except Exception as exc:  # noqa: BLE001  (zip, header or dtype errors all mean a bad file)
        raise InputError(f"{where}: not a readable outcome file ({type(exc).__name__}: {exc})") from None
    if record is not None:
        carried = arrays.pop(RECORD_ARRAY, None)
        if carried is None or carried.dtype != np.uint8 or carried.shape != (32,):
            raise InputError(f"{where}: carries no checksum of its baseline JSON (array {RECORD_ARRAY!r}); "
                             "re-record with `simkit baseline --all`")
        if carried.tobytes().hex() != record:
            raise InputError(f"{where}: the checksum it carries does not match the record of its baseline JSON "
                             f"{json_name} (its metrics, cells, tolerances or settings were edited, or the two files come from "
                             "different recordings); re-record with `simkit baseline --all`")
    expected = {"block_rows", "cell", "game"} | {"i_" + k for k in spec["ints"]} | {"f_" + k for k in spec["floats"]}
    if spec["flags"]:
        expected.add("flags")
    if set(arrays) != expected:
        raise InputError(f"{where}: holds arrays {sorted(arrays)}; the baseline's JSON expects {sorted(expected)}")
    for k, v in arrays.items():
        if v.ndim != 1 or (k != "block_rows" and v.size != rows):
            raise InputError(f"{where}: array {k!r} has shape {v.shape}; expected ({rows},)")
        if v.dtype.kind not in "uif":
            raise InputError(f"{where}: array {k!r} has dtype {v.dtype}; expected integers or floats")
    block_rows = arrays["block_rows"].astype(np.int64)
    if int(block_rows.sum()) != rows or (block_rows < 0).any():
        raise InputError(f"{where}: field 'block_rows' sums to {int(block_rows.sum())}; expected {rows} rows")
    out = {"cell": arrays["cell"].astype(np.int64), "game": arrays["game"].astype(np.int64)}
    if spec["flags"]:
        word = arrays["flags"].astype(np.uint64)
        for j, k in enumerate(spec["flags"]):
            out[k] = ((word >> np.uint64(j)) & np.uint64(1)).astype(np.int64)
    for k, lo in spec["ints"].items():
        out[k] = arrays["i_" + k].astype(np.int64) + int(lo)
    for k in spec["floats"]:
        out[k] = arrays["f_" + k].astype(np.float64)
    return out, block_rows


# ---------------------------------------------------------------- paired numbers


@dataclass
class Number:
    """One checked number: old and new on the same games, their paired difference and its test."""

    metric: str
    group: str
    kind: str
    n: int
    old: float
    new: float
    diff: float
    low: float
    high: float
    p_value: float
    sd: float = math.nan  # per-unit standard deviation of the old values (for the MDE)
    p_holm: float = math.nan
    tolerance: float = math.nan
    status: str = "ok"


def _group_text(group: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in group.items()) or "all"


def _units(m, cells: list[dict], outcomes: dict[str, np.ndarray], block_rows: np.ndarray):
    """One row per (group, unit) with the unit's summed values: a unit is a row, or a game for pooled metrics."""
    by = list(m.by)
    gid_of_cell = {}
    groups: list[dict] = []
    seen = {}
    for i, c in enumerate(cells):
        key = tuple(c.get(b) for b in by)
        if key not in seen:
            seen[key] = len(groups)
            groups.append(dict(zip(by, key)))
        gid_of_cell[i] = seen[key]
    cell_gid = np.array([gid_of_cell[i] for i in range(len(cells))], np.int64)
    gid = cell_gid[outcomes["cell"]]
    if m.unit == "game":
        block = np.repeat(np.arange(block_rows.size, dtype=np.int64), block_rows)
        unit = block * (int(outcomes["game"].max(initial=0)) + 1) + outcomes["game"]
    else:
        unit = np.arange(gid.size, dtype=np.int64)
    return gid, unit, groups


def paired_numbers(sim, cells: list[dict], old: dict, new: dict, block_rows: np.ndarray) -> list[Number]:
    """Every metric × group of ``sim`` as a paired comparison of ``new`` against ``old`` outcomes."""
    out = []
    for m in _metric_specs(sim):
        gid, unit, groups = _units(m, cells, old, block_rows)
        a, b = old[m.column], new[m.column]
        integer = a.dtype.kind in "iu" and b.dtype.kind in "iu"
        f = pl.DataFrame({"g": gid, "u": unit, "a": a, "b": b})
        if m.unit == "game":
            per = f.group_by("g", "u").agg(pl.col("a").sum(), pl.col("b").sum(), pl.len().alias("c"),
                                           (pl.col("a") * pl.col("b")).sum().alias("ab"))
        else:
            per = f.with_columns(c=pl.lit(1, pl.Int64), ab=pl.col("a") * pl.col("b"))
        per = per.with_columns(d=pl.col("b") - pl.col("a"))
        agg = per.group_by("g").agg(pl.len().alias("n"), pl.col("c").max().alias("c"), pl.col("c").sum().alias("rows"),
                                    pl.col("a").sum().alias("sa"), (pl.col("a") ** 2).sum().alias("saa"),
                                    pl.col("b").sum().alias("sb"), pl.col("ab").sum().alias("sab"),
                                    pl.col("d").sum().alias("sd"), (pl.col("d") ** 2).sum().alias("sdd"),
                                    pl.col("d"))
        for r in agg.sort("g").iter_rows(named=True):
            n, c, rows = int(r["n"]), int(r["c"]), int(r["rows"])
            d = np.asarray(r["d"])
            old_v, new_v = r["sa"] / rows, r["sb"] / rows
            diff = new_v - old_v
            if integer:
                p = stats.signflip_test(d)
            else:
                p = 1.0 if not np.any(d) else float(2 * stats._st.norm.sf(abs(d.sum()) / math.sqrt((d * d).sum())))
            var_a = max(0.0, (r["saa"] / (c * c) - n * (r["sa"] / rows) ** 2) / (n - 1)) if n > 1 else math.nan
            if m.kind == "rate":
                n11 = float(r["sab"])
                n10 = float(r["sa"]) - n11
                n01 = float(r["sb"]) - n11
                n00 = rows - n11 - n10 - n01
                deff = 1.0
                if c > 1 and n > 1:
                    psi = (n10 + n01) / rows
                    v_iid = (psi - diff * diff) / rows
                    v_cl = max(0.0, (r["sdd"] / (c * c) - n * (r["sd"] / rows) ** 2) / (n - 1)) / n
                    deff = min(float(c), v_cl / v_iid) if v_iid > 0 else float(c)
                pr = stats.paired_rate(n11, n10, n01, n00, deff)
                low, high = pr.low, pr.high
            else:
                dm = d / c
                if n > 1:
                    half = stats.z_value() * float(np.std(dm, ddof=1)) / math.sqrt(n)
                else:
                    half = math.inf
                low, high = diff - half, diff + half
            out.append(Number(m.name, _group_text(groups[r["g"]]), m.kind, n, old_v, new_v, diff, low, high, p,
                              math.sqrt(var_a) if var_a == var_a else math.nan))
    return out + paired_seat_numbers(sim, cells, old, new, block_rows)


def _seat_sums(x: SeatNumber, cells: list[dict], outcomes: dict[str, np.ndarray], block_rows: np.ndarray,
               new: dict[str, np.ndarray] | None = None):
    """Per group of ``x``: (group, the per-unit sums of each part of ``outcomes`` and, with ``new``, of ``new``),
    the units those with a row in a denominator (old or new); a group whose first denominator has rows (in
    ``outcomes``) in too few games (``min_units``, ``min_share``) is left out."""
    gid, unit, groups = _units(x, cells, outcomes, block_rows)
    games = pl.DataFrame({"g": gid, "u": unit}).group_by("g").agg(pl.col("u").n_unique())
    total = dict(zip(games["g"].to_list(), games["u"].to_list()))
    k = len(x.parts)
    cols = {f"a{i}": outcomes[c].astype(np.float64) for i, c in enumerate(x.parts)}
    if new is not None:
        cols.update({f"b{i}": new[c].astype(np.float64) for i, c in enumerate(x.parts)})
    per = (pl.DataFrame({"g": gid, "u": unit, **cols}).group_by("g", "u")
           .agg([pl.col(c).sum() for c in cols]).sort("g", "u"))
    dens = [f"{s}{i}" for s in ("ab" if new is not None else "a") for i in range(1, k, 2)]
    per = per.filter(pl.sum_horizontal([pl.col(c).abs() for c in dens]) > 0)
    out = []
    for (g,), sub in per.group_by("g", maintain_order=True):
        a = [sub[f"a{i}"].to_numpy() for i in range(k)]
        b = [sub[f"b{i}"].to_numpy() for i in range(k)] if new is not None else None
        if int((a[1] > 0).sum()) >= max(x.min_units, x.min_share * total[g]):  # else too few to judge
            out.append((groups[g], a, b))
    return out


def _linearised(parts: list[np.ndarray], scale: int = 1) -> tuple[float, np.ndarray]:
    """The value of a :class:`SeatNumber` from its per-unit part sums, and each unit's linearised contribution
    (its variance is n/(n−1)·Σz², as in :func:`stats.clustered_difference`); nan when a denominator is empty."""
    r1 = float(parts[1].sum())
    if r1 == 0:
        return math.nan, np.zeros_like(parts[0])
    v = float(parts[0].sum()) / r1
    z = (parts[0] - v * parts[1]) / r1
    if len(parts) == 4:
        r3 = float(parts[3].sum())
        if r3 == 0:
            return math.nan, z
        v2 = float(parts[2].sum()) / r3
        v, z = v - v2, z - (parts[2] - v2 * parts[3]) / r3
    return v / scale, z / scale


def seat_summary(sim, cells: list[dict], outcomes: dict[str, np.ndarray], block_rows: np.ndarray) -> list[dict]:
    """The summary rows (metric, group, estimate, low, high, n) of the simulation's :class:`SeatNumber` s, the
    game as the unit: :func:`stats.clustered_mean` for a ratio, :func:`stats.clustered_difference` for a
    difference of two."""
    rows = []
    for x in seat_numbers(sim):
        for group, a, _ in _seat_sums(x, cells, outcomes, block_rows):
            a = [a[0] / x.scale, a[1]] if len(a) == 2 else [a[0] / x.scale, a[1], a[2] / x.scale, a[3]]
            e = stats.clustered_mean(a[0], a[1]) if len(a) == 2 else stats.clustered_difference(*a)
            if e.estimate == e.estimate:
                rows.append({"metric": x.name, "group": group, "estimate": e.estimate, "low": e.low,
                             "high": e.high, "n": e.n})
    return rows


def paired_seat_numbers(sim, cells: list[dict], old: dict, new: dict, block_rows: np.ndarray) -> list[Number]:
    """Every :class:`SeatNumber` × group as a paired comparison of ``new`` against ``old`` on the same games: the
    difference of the two values, with the cluster-robust (linearised) variance of new − old per game and
    Student's t with n − 1 degrees of freedom. A number whose parts the baseline did not record is skipped (a
    baseline recorded before the simulation carried it); one that is empty in the old games is not a number."""
    out = []
    for x in seat_numbers(sim):
        if any(c not in old for c in x.parts):
            continue
        for group, a, b in _seat_sums(x, cells, old, block_rows, new):
            va, za = _linearised(a, x.scale)
            if va != va:
                continue
            vb, zb = _linearised(b, x.scale)
            n = int(za.size)
            if vb != vb:  # the new games never reach the number's seats: a change the gate must flag
                out.append(Number(x.name, _group_text(group), x.kind, n, va, math.nan, math.inf, -math.inf,
                                  math.inf, 0.0, math.nan))
                continue
            diff, d = vb - va, zb - za
            if n < 2:  # one game: no variance, no evidence either way
                p, half, sd_old = 1.0, math.inf, math.nan
            else:
                se = math.sqrt(n / (n - 1) * float((d * d).sum()))
                sd_old = math.sqrt(n / (n - 1) * float((za * za).sum()) * n)  # the old values' se times √n
                if se == 0:
                    p, half = (1.0 if diff == 0 else 0.0), 0.0
                else:
                    p = float(2 * stats._st.t.sf(abs(diff) / se, n - 1))
                    half = float(stats._st.t.ppf(0.5 + stats.CONFIDENCE / 2, n - 1)) * se
            out.append(Number(x.name, _group_text(group), x.kind, n, va, vb, diff, diff - half, diff + half, p,
                              sd_old))
    return out


def judge(numbers: list[Number], alpha: float, tolerances: Tolerances) -> list[Number]:
    """Holm-adjust the p-values of one baseline and set each number's tolerance and verdict."""
    adj = stats.holm([x.p_value for x in numbers])
    scale: dict[str, list[float]] = {}
    for x in numbers:
        scale.setdefault(x.metric, []).append(abs(x.old))
    for x, p in zip(numbers, adj):
        x.p_holm = p
        x.tolerance = tolerances.for_metric(x.metric, x.kind).of(float(np.mean(scale[x.metric])))
        x.status = "FAIL" if (p < alpha and abs(x.diff) > x.tolerance) else "ok"
    return numbers


def minimum_detectable(x: Number, m: int, alpha: float, power: float, redeal: float) -> float:
    """MDE of one number (see the module docstring), with Bonferroni's alpha/m (Holm's first step)."""
    if not (x.sd == x.sd) or x.n < 2:
        return math.inf
    return stats.mde(math.sqrt(2 * redeal) * x.sd, x.n, alpha / max(1, m), power)


def games_needed(x: Number, m: int, alpha: float, power: float, redeal: float, tol: float) -> int:
    if not (x.sd == x.sd):
        return 0
    return stats.games_for_mde(math.sqrt(2 * redeal) * x.sd, tol, alpha / max(1, m), power)


# ---------------------------------------------------------------- the baseline files


def _num(data, key, where, kind=int, lo=None, hi=None):
    v = data.get(key)
    ok = isinstance(v, (int, float)) and not isinstance(v, bool) and (kind is float or isinstance(v, int))
    if ok and lo is not None and not (v >= lo if hi is None else lo <= v <= hi):
        ok = False
    if ok and hi is not None and v > hi:
        ok = False
    if not ok:
        rng = f" between {lo} and {hi}" if hi is not None else f" at least {lo}" if lo is not None else ""
        raise InputError(f"{where}: field {key!r} must be {'an integer' if kind is int else 'a number'}{rng} "
                         f"(got {v!r})")
    return v


def load_baseline(path: Path) -> dict:
    """Read and validate ``NAME.json`` and its outcome file; returns the JSON with ``_old`` outcomes attached."""
    path = Path(path)
    where = str(path)
    try:
        data = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{where}: cannot read the baseline ({exc.__class__.__name__}: {exc})") from None
    except json.JSONDecodeError as exc:
        raise InputError(f"{where}: not valid JSON (line {exc.lineno}: {exc.msg})") from None
    if not isinstance(data, dict):
        raise InputError(f"{where}: a baseline must be a JSON object with fields {', '.join(FIELDS)}")
    if data.get("format") not in READABLE_FORMATS or isinstance(data.get("format"), bool):
        raise InputError(f"{where}: field 'format' must be {FORMAT} (or {READABLE_FORMATS[0]}, before the cross "
                         f"checksums) (got {data.get('format')!r}); re-record it with `simkit baseline --all` "
                         "(format 1 kept no per-game outcomes)")
    record = record_sha256(data) if data["format"] >= 3 else None
    missing = [f for f in FIELDS if f not in data]
    if missing:
        raise InputError(f"{where}: baseline field {missing[0]!r} is missing (expected {', '.join(FIELDS)})")
    extra = sorted(set(data) - set(FIELDS) - {"mde"})
    if extra:
        raise InputError(f"{where}: unknown baseline field {extra[0]!r} (allowed: {', '.join(FIELDS)}, mde)")
    if not isinstance(data["scenario"], str) or not data["scenario"]:
        raise InputError(f"{where}: field 'scenario' must be a scenario file path (got {data['scenario']!r})")
    if not isinstance(data["overrides"], list) or not all(isinstance(o, str) for o in data["overrides"]):
        raise InputError(f"{where}: field 'overrides' must be a list of PATH=VALUE strings")
    _num(data, "seed", where, int, 0)
    _num(data, "games", where, int, 1)
    _num(data, "block_size", where, int, 1)
    _num(data, "alpha", where, float, 1e-12, 0.5)
    _num(data, "power", where, float, 0.5, 0.9999)
    _num(data, "redeal", where, float, 1e-6, 1.0)
    data["_tolerances"] = Tolerances.from_json(data["tolerance"], where)
    o = data["outcomes"]
    if not isinstance(o, dict) or set(o) != {"file", "sha256", "rows", "columns"}:
        raise InputError(f"{where}: field 'outcomes' must hold file, sha256, rows and columns")
    spec = o["columns"]
    if (not isinstance(spec, dict) or set(spec) != {"flags", "ints", "floats"} or not isinstance(spec["flags"], list)
            or not isinstance(spec["ints"], dict) or not isinstance(spec["floats"], list)):
        raise InputError(f"{where}: field 'outcomes.columns' must hold flags (list), ints (name: offset) and "
                         "floats (list)")
    _num(o, "rows", f"{where}: outcomes", int, 0)
    if not isinstance(o["file"], str) or "/" in o["file"] or "\\" in o["file"]:
        raise InputError(f"{where}: field 'outcomes.file' must be a file name beside the baseline "
                         f"(got {o['file']!r})")
    npz = path.parent / o["file"]
    try:
        raw = npz.read_bytes()
    except OSError as exc:
        raise InputError(f"{npz}: cannot read the baseline's per-game outcomes ({exc.__class__.__name__}); "
                         "re-record with `simkit baseline --all`") from None
    if hashlib.sha256(raw).hexdigest() != o["sha256"]:
        raise InputError(f"{npz}: SHA-256 does not match field 'outcomes.sha256' of {path.name} (the two files "
                         "come from different recordings); re-record with `simkit baseline --all`")
    if not isinstance(data["cells"], list) or not data["cells"] or not all(isinstance(c, dict) for c in data["cells"]):
        raise InputError(f"{where}: field 'cells' must be a non-empty list of objects")
    if not isinstance(data["metrics"], list):
        raise InputError(f"{where}: field 'metrics' must be a list")
    old, block_rows = unpack_outcomes(raw, spec, int(o["rows"]), str(npz), record, path.name)
    if int(old["cell"].max(initial=0)) >= len(data["cells"]):
        raise InputError(f"{npz}: array 'cell' refers to cell {int(old['cell'].max())}; field 'cells' lists "
                         f"{len(data['cells'])}")
    data["_old"], data["_block_rows"] = old, block_rows
    return data


def _scenario(data: dict, root: Path):
    from simkit.core import loader

    return loader.load(root / data["scenario"], data.get("overrides") or [])


def _scenario_sim(data: dict, root: Path):
    return _scenario(data, root).simulation


def run_check(data: dict, root: Path, jobs=None, where: str = "baseline") -> list[Number]:
    """Replay one loaded baseline and judge every number (paired, Holm-adjusted, with tolerances)."""
    sim = _scenario_sim(data, root)
    acc, table, new, block_rows = play(sim, int(data["seed"]), int(data["games"]), int(data["block_size"]), jobs)
    old = data["_old"]
    if table != data["cells"] or not np.array_equal(block_rows, data["_block_rows"]) \
            or not np.array_equal(new["cell"], old["cell"]) or not np.array_equal(new["game"], old["game"]):
        raise CellsChanged(f"{where}: the scenario's cells or games changed since the baseline was recorded "
                           f"({len(table)} cells now, {len(data['cells'])} recorded); the games cannot be paired")
    missing = [k for k in old if k not in new]
    if missing:
        raise CellsChanged(f"{where}: the simulation no longer reports column {missing[0]!r}")
    numbers = paired_numbers(sim, table, old, new, block_rows)
    return judge(numbers, float(data["alpha"]), data["_tolerances"])


class CellsChanged(Exception):
    """The new run's games cannot be paired with the baseline's (a failed check, not bad input)."""


def record(path: Path, scenario: str, overrides: list[str], seed: int, games: int | None, block_size: int | None,
           alpha: float, power: float, redeal: float, tolerances: Tolerances, root: Path, jobs=None,
           max_games: int = 20_000, pilot_games: int = 1_000, log=print, progress: bool = False) -> dict:
    """Record a baseline (``NAME.json`` + ``NAME.npz``); size the games when ``games`` is None. ``progress``: a
    tqdm bar on stderr for the pilot and for the recorded games (the CLI asks for it when stderr is a terminal).

    Sizing: a pilot run of ``pilot_games`` estimates every number's per-game
    variance; the games are the most any number needs for an MDE at most its
    tolerance (plus 10%), rounded up to whole blocks (or thousands). Raises
    :class:`CannotSize` when that exceeds ``max_games``.
    """
    sc = _scenario({"scenario": scenario, "overrides": overrides}, root)
    sim = sc.simulation
    own = {x.name: Tolerance(x.tolerance) for x in seat_numbers(sim)
           if x.tolerance is not None and x.name not in tolerances.metrics}
    if own:  # a seat number's own tolerance, written into the baseline like one given with --metric-tolerance
        tolerances = Tolerances(tolerances.rate, tolerances.mean, {**tolerances.metrics, **own})
    from simkit.core.runner import _progress as bar_of  # the runner's tqdm bar on stderr (games)

    block_size = int(block_size or sc.run.block_size or sim.default_block_size)
    step = min(block_size, 1000)  # whole blocks, or whole thousands within one block

    def sized(nums: list[Number], played: int) -> tuple[int, Number]:
        """The games per cell every number needs (its units scaled to games: a seat number is measured on the
        games that reach its seats), rounded up, and the number that needs the most."""
        def need(x):
            return games_needed(x, len(nums), alpha, power, redeal, x.tolerance) * played / max(x.n, 1)
        worst = max(nums, key=need)
        n = need(worst)
        n = int(math.ceil(n * 1.1 / step) * step) if n else step
        if n > max_games:
            raise CannotSize(
                f"{path.stem}: an MDE at most the tolerance needs about {n:,} games per cell (worst: "
                f"{worst.metric} {worst.group}, sd {worst.sd:.3g}, tolerance {worst.tolerance:.3g}), more than "
                f"--max-games {max_games:,}; raise --max-games, or widen the tolerance, alpha or redeal")
        return n, worst

    sizing = games is None
    if sizing:
        pilot = min(pilot_games, max_games)
        with bar_of(pilot * sim.cells, progress, f"{path.stem}: pilot") as bar:
            acc, table, out, rows = play(sim, seed, pilot, min(block_size, pilot), jobs, bar)
        nums = paired_numbers(sim, table, out, out, rows)
        judge(nums, alpha, tolerances)
        games, worst = sized(nums, pilot)
        log(f"{path.stem}: sized at {games:,} games per cell (pilot of {pilot:,}: {worst.metric} {worst.group} "
            "needs the most)")
    for attempt in range(3):
        with bar_of(games * sim.cells, progress, path.stem) as bar:
            acc, table, out, rows = play(sim, seed, games, block_size, jobs, bar)
        nums = judge(paired_numbers(sim, table, out, out, rows), alpha, tolerances)
        if not sizing or attempt == 2:
            break
        # more games can bring in numbers the pilot was too small for (a seat number needs min_units games
        # with its seats): size again on what was played, and replay if that asks for more
        more, worst = sized(nums, games)
        if more <= games:
            break
        games = more
        log(f"{path.stem}: sized again at {games:,} games per cell ({worst.metric} {worst.group} needs the most)")
    spec = outcome_spec(out)
    summary = acc.summary() + seat_summary(sim, table, out, rows)
    by_key = {(x.metric, x.group): x for x in nums}
    m = len(nums)
    mdes = []
    for r in summary:
        x = by_key.get((r["metric"], _group_text(r["group"])))
        if x is None:
            continue
        r["tolerance"] = x.tolerance
        r["mde"] = minimum_detectable(x, m, alpha, power, redeal)
        mdes.append((r["mde"] / x.tolerance if x.tolerance > 0 else math.inf, r))
    worst_ratio, worst = max(mdes, key=lambda t: t[0])
    above = sum(1 for ratio, _ in mdes if ratio > 1)
    npz = path.with_suffix(".npz")
    data = {
        "format": FORMAT, "scenario": scenario, "overrides": list(overrides), "seed": seed, "games": games,
        "block_size": block_size, "alpha": alpha, "power": power, "redeal": redeal,
        "tolerance": tolerances.to_json(),
        "mde": {"worst_ratio": worst_ratio, "above_tolerance": above, "metric": worst["metric"],
                "group": worst["group"],
                "mde": worst["mde"], "tolerance": worst["tolerance"]},
        "outcomes": {"file": npz.name, "sha256": None, "rows": int(rows.sum()), "columns": spec},
        "cells": table,
        "metrics": [r for r in summary if "tolerance" in r],
    }
    data = json.loads(json.dumps(data, default=_json_default))  # as `check` will read it back
    raw, _ = pack_outcomes(out, rows, record_sha256(data))  # the .npz carries the JSON record's checksum ...
    data["outcomes"]["sha256"] = hashlib.sha256(raw).hexdigest()  # ... and the JSON the .npz's
    path.parent.mkdir(parents=True, exist_ok=True)
    npz.write_bytes(raw)
    path.write_text(json.dumps(data, indent=1, default=_json_default) + "\n")
    return data


def _json_default(v):
    if isinstance(v, np.generic):
        return v.item()
    raise TypeError(f"not JSON serialisable: {type(v).__name__}")


class CannotSize(Exception):
    """``simkit baseline`` cannot reach MDE ≤ tolerance within ``--max-games``."""


def mde_line(name: str, data: dict) -> str:
    """One line: the baseline's largest MDE relative to its tolerance."""
    w = data.get("mde") or {}
    if not w:
        return f"{name}: no MDE recorded"
    ok = ("≤ tolerance for every number" if w["worst_ratio"] <= 1
          else f"ABOVE tolerance for {w.get('above_tolerance', '?')} of {len(data['metrics'])} numbers")
    group = _group_text(w["group"]) if isinstance(w["group"], dict) else w["group"]
    return (f"{name}: {data['games']:,} games per cell; minimum detectable effect {ok} "
            f"(largest: {w['metric']} {group}: MDE {w['mde']:.4g} vs tolerance {w['tolerance']:.4g}; "
            f"{data['power']:.0%} power at Holm alpha {data['alpha']:g}, a change re-dealing "
            f"{data['redeal']:.0%} of the games)")


def baselines_table(base: str | Path) -> str:
    """The committed baselines as a Markdown table (name, scenario, what it plays, seed, games per cell, cells,
    numbers, worst MDE / tolerance), read from the files: the manual's list of baselines is this table, so it
    cannot drift from them (a test compares the two)."""
    rows = ["| baseline | scenario | plays | seed | games per cell | cells | numbers | worst MDE / tolerance |",
            "|---|---|---|---:|---:|---:|---:|---:|"]
    for f in sorted(Path(base).glob("*.json")):
        d = json.loads(f.read_text(encoding="utf-8"))
        plays = "; ".join(f"`{o}`" for o in d.get("overrides", [])) or "the scenario as it is"
        rows.append(f"| `{f.stem}` | `{d['scenario']}` | {plays} | {d['seed']} | {d['games']:,} | "
                    f"{len(d['cells'])} | {len(d['metrics'])} | {d['mde']['worst_ratio']:.2f} |")
    return "\n".join(rows) + "\n"
