"""``simkit check``: the balance numbers against committed baselines (a regression gate for CI).

A baseline (``reports/baseline/NAME.json``) records a scenario, its ``--set``
overrides, seed, games and block size, and every summary number with its
interval. ``check`` re-runs it and flags a number that moved **both**
significantly — a two-sided z-test on the two estimates at ``alpha`` after a
Bonferroni correction for the number of metrics — **and** by more than the
practical ``tolerance`` the baseline states. The same seed and games give the
same numbers whatever the number of workers, so an unchanged tree passes
exactly.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

from scipy import stats as st

from simkit.core.stats import z_value
from simkit.errors import InputError

DEFAULT_ALPHA = 0.001
DEFAULT_TOLERANCE = 0.02


@dataclass
class Verdict:
    baseline: str
    metric: str
    group: str
    old: float
    new: float
    diff: float
    p_value: float
    status: str  # "ok", "FAIL", "new", "missing"


def _key(row: dict) -> tuple[str, str]:
    return row["metric"], ", ".join(f"{k}={v}" for k, v in row["group"].items()) or "all"


def _se(row: dict) -> float:
    half = (row["high"] - row["low"]) / 2
    return half / z_value() if math.isfinite(half) else math.inf


def compare_rows(name: str, old: list[dict], new: list[dict], alpha: float, tolerance: float) -> list[Verdict]:
    olds = {_key(r): r for r in old}
    news = {_key(r): r for r in new}
    m = max(1, len(olds))
    out = []
    for k in sorted(set(olds) | set(news)):
        if k not in news:
            out.append(Verdict(name, *k, olds[k]["estimate"], math.nan, math.nan, math.nan, "missing"))
            continue
        if k not in olds:
            out.append(Verdict(name, *k, math.nan, news[k]["estimate"], math.nan, math.nan, "new"))
            continue
        a, b = olds[k], news[k]
        d = b["estimate"] - a["estimate"]
        se = math.hypot(_se(a), _se(b))
        if d == 0:
            p = 1.0
        elif se == 0 or not math.isfinite(se):
            p = 0.0 if se == 0 else 1.0
        else:
            p = float(2 * st.norm.sf(abs(d) / se))
        fail = p < alpha / m and abs(d) > tolerance
        out.append(Verdict(name, *k, a["estimate"], b["estimate"], d, p, "FAIL" if fail else "ok"))
    return out


def load_baseline(path: Path) -> dict:
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise InputError(f"{path}: not a readable baseline ({exc})") from None
    for field in ("scenario", "seed", "games", "metrics"):
        if field not in data:
            raise InputError(f"{path}: baseline field {field!r} is missing (expected scenario, overrides, seed, "
                             "games, block_size, alpha, tolerance, metrics)")
    return data


def run_baseline(data: dict, root: Path, jobs=None) -> list[dict]:
    from simkit.core import loader
    from simkit.core.runner import run_simulation

    sc = loader.load(root / data["scenario"], data.get("overrides") or [])
    res = run_simulation(sc.simulation, int(data["games"]), seed=int(data["seed"]), jobs=jobs,
                         block_size=data.get("block_size") or sc.run.block_size)
    return res.summary


def write_baseline(path: Path, scenario: str, overrides: list[str], seed: int, games: int, block_size: int | None,
                   metrics: list[dict], alpha: float = DEFAULT_ALPHA, tolerance: float = DEFAULT_TOLERANCE) -> Path:
    data = {"scenario": scenario, "overrides": overrides, "seed": seed, "games": games, "block_size": block_size,
            "alpha": alpha, "tolerance": tolerance, "metrics": metrics}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + "\n")
    return path
