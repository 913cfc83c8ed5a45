"""`simkit balance`: the fewest, smallest card or rule edits that meet a designer's targets.

What may change (``--vary PATH=RANGE``) is addressed exactly as ``--set`` addresses it (the scenario's tables,
then the card files it names, list entries by their ``key``); a field that holds a whole number stays one. A
target (``--target METRIC[GROUP]=VALUE±TOL``) is a per-game column of the mode averaged over the rows of a group
(``won[warband=goblins]``; ``won[warband]`` is one target per Warband), or the paired difference of two such
means (``won[seat=0]-won[seat=1]=0:0.05``). Candidates are scored by the largest violation of any target (how
far its estimate lies outside the allowed band) plus a cost per edit and per unit of edit size.

The search is Optuna's TPE sampler, seeded: a candidate is up to ``--max-edits`` slots, each off or naming one
varied field and its value, so a candidate never changes more fields than allowed and TPE learns which fields
matter. Every candidate plays the same games (common random numbers, the streams of spawn key ``SEARCH``). A
greedy polish then undoes each edit, and moves each whole-number edit one step back towards the printed value,
while the score does not get worse.

The search's own estimate of its best candidate is biased upward (it is the best of many noisy scores). The
result is therefore re-played on *fresh* streams (spawn key ``FRESH``) that the search never saw, against the
unedited scenario on the same fresh games, and each target is judged on a Bonferroni interval (95% for the
family of targets): met (inside the band), missed (outside) or unclear (more games needed).

So that a candidate the search puts just inside a band is not then left "unclear" by that check, the search aims
inside each band by the half-width the check's interval will have (the *margin*: the interval on the unedited
data's search games, scaled by the square root of search games over fresh games; at most half the band). The
score's violation is measured against that narrower band; the printed violations are against the band asked for.
``aim=False`` (``--no-margin``) aims at the band itself.
"""

from __future__ import annotations

import difflib
import json
import math
import os
import re
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from simkit.errors import InputError

SEARCH = 1 << 21  # spawn key of the search's common games
FRESH = (1 << 21) + 1  # spawn key of the re-evaluation: never seen by the search
SEARCH_CHECK = (1 << 21) + 2  # spawn key of the check under `search`
SCENARIO_TABLES = {"rules", "run", "setup", "grid", "policies"}
MAX_EDITS = 32
MAX_WHOLE = 2 ** 62  # a whole-number range's bounds: the search draws them as 64-bit integers
MAX_STEPS = 1000  # values a LO:HI:STEP range may list (each is a choice the search keeps in memory)


# --- what may change -------------------------------------------------------------------------------------------

@dataclass
class Vary:
    """One field the search may change: integers ``lo..hi``, reals in ``[lo, hi]`` or a list of choices."""

    path: tuple[str, ...]
    text: str
    kind: str  # "int" | "float" | "choice"
    current: Any
    where: str  # "scenario" or the scenario field naming the card file ("cards")
    lo: float = 0.0
    hi: float = 0.0
    choices: list = field(default_factory=list)

    @property
    def name(self) -> str:
        return ".".join(self.path)

    def size(self, value) -> float:
        """The size of an edit to ``value``, as a share of the range (1 for a choice)."""
        if self.kind == "choice":
            return 0.0 if value == self.current else 1.0
        width = max(self.hi - self.lo, 1e-12)
        return abs(float(value) - float(self.current)) / width


def _walk(node, path: tuple[str, ...]):
    """The value at ``path`` inside ``node`` (as ``--set`` walks it), or raise InputError."""
    from simkit.core.overrides import _step

    where = ""
    for name in path:
        parent, key = _step(node, name, where, ".".join(path))
        node = parent[key]
        where += f"{name}."
    return node


def locate(scenario: Path, data: dict, path: tuple[str, ...], option: str) -> tuple[str, Any]:
    """Where ``path`` lives (``"scenario"`` or the field naming its card file) and its current value; the first
    place holding the whole path wins, as for ``--set``."""
    from simkit.core.overrides import file_references
    from simkit.core.scenario import read_toml

    head = path[0]
    places: list[tuple[str, dict]] = []
    if head in data or head in SCENARIO_TABLES:
        places.append(("scenario", data))
    for fld, p in file_references(scenario, data).items():
        content = read_toml(p)[0]
        if head in content:
            places.append((fld, content))
    if not places:
        raise InputError(f"{option}: no {head!r} in {scenario.name} or the card files it names")
    first_error = None
    for where, content in places:
        try:
            value = _walk(content, path)
        except InputError as exc:
            first_error = first_error or exc
            continue
        if isinstance(value, (dict, list)):
            raise InputError(f"{option}: {'.'.join(path)} is a table or list, not a single value")
        return where, value
    raise InputError(str(first_error).replace("--set ", f"{option} ", 1))


def parse_vary(text: str, scenario: Path, data: dict, option: str = "--vary") -> Vary:
    """``PATH=LO:HI`` (whole numbers stay whole: ``2:6`` is 2, 3, …, 6; ``0.5:1.5`` is any real between),
    ``PATH=LO:HI:STEP`` or ``PATH=A,B,C`` (the listed values)."""
    from simkit.core.overrides import parse_value

    if "=" not in text:
        raise InputError(f"{option} {text!r}: expected PATH=LO:HI or PATH=A,B,…, e.g. fighters.old_gob.health=2:5")
    path_text, raw = (s.strip() for s in text.split("=", 1))
    path = tuple(p.strip() for p in path_text.split("."))
    if not path_text or any(not p for p in path):
        raise InputError(f"{option} {text!r}: the path must be names joined by dots, e.g. rules.win_low")
    where, current = locate(scenario, data, path, f"{option} {text}")
    whole = isinstance(current, int) and not isinstance(current, bool)
    real = isinstance(current, float)

    def number(s: str):
        v = parse_value(s.strip(), option)
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise InputError(f"{option} {text!r}: {s.strip()!r} is not a number; a range is LO:HI or LO:HI:STEP")
        return v

    if ":" in raw and not raw.startswith(("[", '"')):
        parts = raw.split(":")
        if len(parts) not in (2, 3):
            raise InputError(f"{option} {text!r}: a range is LO:HI or LO:HI:STEP")
        nums = [number(p) for p in parts]
        if not (whole or real):
            raise InputError(f"{option} {text!r}: {path_text} holds {current!r}, not a number; list its values "
                             "instead (PATH=A,B,…)")
        lo, hi = nums[0], nums[1]
        if whole and any(abs(x) > MAX_WHOLE for x in nums):
            raise InputError(f"{option} {text!r}: {path_text} is a whole number; its bounds must lie within "
                             f"±{MAX_WHOLE:,} (a larger value no card can hold)")
        if hi <= lo:
            raise InputError(f"{option} {text!r}: the range must go up (LO < HI)")
        if whole and not all(isinstance(x, int) for x in nums):
            raise InputError(f"{option} {text!r}: {path_text} is a whole number ({current}); give whole-number "
                             "bounds (e.g. 2:6)")
        if len(parts) == 3:
            step = nums[2]
            if step <= 0:
                raise InputError(f"{option} {text!r}: the step must be above 0")
            count = math.floor((hi - lo) / step + 1e-9) + 1
            if count > MAX_STEPS:
                raise InputError(f"{option} {text!r}: LO:HI:STEP gives {count:,} values; at most {MAX_STEPS:,} "
                                 "(a wider step, or LO:HI to search the whole range)")
            values = [lo + i * step for i in range(count)]
            values = [int(v) if whole else float(round(v, 10)) for v in values]
            if current not in values:
                values = sorted(set(values) | {current})
            return Vary(path, text, "choice", current, where, choices=values)
        if whole:
            return Vary(path, text, "int", current, where, lo=int(min(lo, current)), hi=int(max(hi, current)))
        return Vary(path, text, "float", float(current), where, lo=float(min(lo, current)), hi=float(max(hi, current)))
    if "," in raw and not raw.startswith(("[", '"')):
        values = [parse_value(v.strip(), option) for v in raw.split(",")]
        for v in values:
            if type(v) is not type(current) and not (real and isinstance(v, int) and not isinstance(v, bool)):
                raise InputError(f"{option} {text!r}: {v!r} is not of the type of {path_text} ({current!r})")
        values = [float(v) if real else v for v in values]
        if len(set(map(repr, values))) < len(values):
            raise InputError(f"{option} {text!r}: a value appears twice")
        if current not in values:
            values = [current] + values
        return Vary(path, text, "choice", current, where, choices=values)
    raise InputError(f"{option} {text!r}: give a range LO:HI (e.g. {path_text}=2:6) or values A,B,C")


def check_ends(varies: dict[str, Vary], build, option: str = "--vary") -> None:
    """Refuse a range whose end (or a listed value) the game refuses for the field itself (a Health above any
    card's, a total past the rules' bound): ``build(edits)`` builds the scenario with one edit, raising
    ``_Impossible`` with the game's message. A refusal that names another field (a win_low above the current
    win_high) is left to the search: another edit may make it possible."""
    for v in varies.values():
        ends = v.choices if v.kind == "choice" else dict.fromkeys((v.lo, v.hi))
        for x in ends:
            if x == v.current:
                continue
            x = int(x) if v.kind == "int" else x
            try:
                build(((v.name, x),))
            except _Impossible as exc:
                message = " ".join(str(exc).split())
                if f"'{v.name}'" in message or f"'{v.name}[" in message:
                    raise InputError(f"{option} {v.text!r}: {v.name}={_fmt(x)} is refused by the game: "
                                     f"{message}") from None


def read_vary_file(path: Path, option: str = "--vary-file") -> list[str]:
    """A ``--vary`` file: one ``PATH=RANGE`` a line; blank lines and ``#`` comments are skipped."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise InputError(f"{option} {path}: cannot read it ({exc.strerror})") from None
    out = [ln.split("#", 1)[0].strip() for ln in lines]
    out = [ln for ln in out if ln]
    if not out:
        raise InputError(f"{option} {path}: lists no PATH=RANGE line")
    return out


# --- targets ---------------------------------------------------------------------------------------------------

_TERM = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:\[([^\]]*)\])?\s*$")


@dataclass
class Term:
    metric: str
    groups: dict  # column -> value (text), or column -> None: one target per value

    def label(self) -> str:
        g = ",".join(k if v is None else f"{k}={v}" for k, v in self.groups.items())
        return f"{self.metric}[{g}]" if g else self.metric


@dataclass
class Target:
    text: str
    terms: list  # one Term, or two: terms[0] − terms[1]
    low: float
    high: float

    def label(self) -> str:
        return " − ".join(t.label() for t in self.terms)

    def band(self) -> str:
        if math.isinf(self.low):
            return f"≤ {self.high:.4g}"
        if math.isinf(self.high):
            return f"≥ {self.low:.4g}"
        mid, tol = (self.low + self.high) / 2, (self.high - self.low) / 2
        return f"{mid:.4g} ± {tol:.4g}"

    def violation(self, x: float, margin: float = 0.0) -> float:
        """How far ``x`` lies outside the band, or outside the band narrowed by ``margin`` at each finite end (at
        most to its midpoint)."""
        if not math.isfinite(x):
            return math.inf
        if math.isfinite(self.low) and math.isfinite(self.high):
            margin = min(margin, (self.high - self.low) / 2)
        return max(0.0, self.low + margin - x, x - self.high + margin)


def _split_depth0(text: str, seps: tuple[str, ...]) -> tuple[str, str, str] | None:
    depth = 0
    i = 0
    while i < len(text):
        ch = text[i]
        depth += ch == "["
        depth -= ch == "]"
        if depth == 0:
            for s in seps:
                if text.startswith(s, i):
                    return text[:i], s, text[i + len(s):]
        i += 1
    return None


def parse_target(text: str, option: str = "--target") -> Target:
    """``METRIC[GROUP]=VALUE±TOL`` (or ``VALUE+-TOL``), ``=LOW:HIGH`` (either side may be empty), ``>=V``,
    ``<=V``; GROUP is ``COL=VALUE`` pairs joined by commas, a bare ``COL`` meaning every value of it; the left
    side may be a difference ``A[…]-B[…]``."""
    form = "expected METRIC[GROUP]=VALUE±TOL, =VALUE+-TOL, =LOW:HIGH, >=V or <=V, e.g. won[warband=goblins]=0.8±0.04"
    split = _split_depth0(text, (">=", "<=", "="))
    if split is None:
        raise InputError(f"{option} {text!r}: {form}")
    left, op, right = split
    right = right.strip()
    parts = [left]
    dash = _split_depth0(left, ("-",))
    if dash is not None:
        parts = [dash[0], dash[2]]
    terms = []
    for p in parts:
        m = _TERM.match(p)
        if not m:
            raise InputError(f"{option} {text!r}: {p.strip()!r} is not METRIC or METRIC[GROUP]; {form}")
        groups: dict = {}
        for g in (m.group(2) or "").split(","):
            g = g.strip()
            if not g:
                continue
            if "=" in g:
                k, v = (s.strip() for s in g.split("=", 1))
                groups[k] = None if v in ("*", "") else v
            else:
                groups[g] = None
        terms.append(Term(m.group(1), groups))

    def num(s: str) -> float:
        try:
            v = float(s.strip().replace("−", "-"))
        except ValueError:
            raise InputError(f"{option} {text!r}: {s.strip()!r} is not a number; {form}") from None
        if math.isnan(v):
            raise InputError(f"{option} {text!r}: {s.strip()!r} is not a number; {form}")
        return v

    if op in (">=", "<="):
        v = num(right)
        low, high = (v, math.inf) if op == ">=" else (-math.inf, v)
    elif "±" in right or "+-" in right:
        mid, tol = re.split(r"±|\+-", right, maxsplit=1)
        mid, tol = num(mid), num(tol)
        if tol < 0:
            raise InputError(f"{option} {text!r}: the tolerance must not be negative")
        low, high = mid - tol, mid + tol
    elif ":" in right:
        a, b = right.split(":", 1)
        low = num(a) if a.strip() else -math.inf
        high = num(b) if b.strip() else math.inf
        if high < low:
            raise InputError(f"{option} {text!r}: LOW must not exceed HIGH")
        if math.isinf(low) and math.isinf(high):
            raise InputError(f"{option} {text!r}: give LOW, HIGH or both")
    else:
        raise InputError(f"{option} {text!r}: {form}")
    if not low < high:
        raise InputError(f"{option} {text!r}: the band has no width (LOW = HIGH); no estimate's interval fits in "
                         "it: give a tolerance above 0")
    if len(terms) == 2 and terms[0] == terms[1]:
        raise InputError(f"{option} {text!r}: {terms[0].label()} is compared with itself (the difference is "
                         "always 0); name two different groups")
    return Target(text, terms, low, high)


def check_reachable(targets: list[Target], rates: set[str], option: str = "--target") -> None:
    """Refuse a band no estimate of a rate can be inside: a rate lies in [0, 1], a difference of two rates in
    [−1, 1]; a band must overlap that range by more than a point (``rates``: the mode's 0/1 columns)."""
    for t in targets:
        if not all(term.metric in rates for term in t.terms):
            continue
        lo_r, hi_r = (0.0, 1.0) if len(t.terms) == 1 else (-1.0, 1.0)
        if max(t.low, lo_r) >= min(t.high, hi_r):
            what = "a rate" if len(t.terms) == 1 else "a difference of two rates"
            raise InputError(f"{option} {t.text!r}: {t.label()} is {what}, from {lo_r:g} to {hi_r:g}; the band "
                             f"{t.band()} leaves no room inside that range; allowed values: a band overlapping "
                             f"{lo_r:g}:{hi_r:g}")


def _col_values(cols: dict, name: str) -> list[str]:
    from simkit.core.simulation import distinct  # here, not at the top: `simkit balance`'s input errors stay fast

    return distinct(cols[name])


def check_targets(targets: list[Target], numeric: list[str], grouping: list[str], values, option: str = "--target"):
    """Refuse a target whose metric is not a numeric column, whose group is not a column, or whose group value no
    row can have (``values(column)``: the values it can take, or None when not known)."""
    for t in targets:
        for term in t.terms:
            if term.metric not in numeric:
                raise InputError(f"{option} {t.text!r}: {term.metric!r} is not a per-game column of this mode; "
                                 f"allowed values: {', '.join(numeric)}")
            for k, v in term.groups.items():
                if k not in grouping:
                    raise InputError(f"{option} {t.text!r}: {k!r} is not a per-game column to group by; allowed "
                                     f"values: {', '.join(grouping)}")
                known = values(k) if v is not None else None
                if known is not None and v not in known:
                    raise InputError(f"{option} {t.text!r}: no rows with {k}={v}; allowed values: "
                                     f"{', '.join(known)}")


def check_declared(targets: list[Target], sim, option: str = "--target") -> None:
    """Check targets against the columns the mode declares (:meth:`Simulation.declared_columns`) before any game
    is played; a mode that declares none is checked by its first block of games instead."""
    declared = sim.declared_columns()
    if declared is None:
        return
    numeric = sorted(k for k, kind in declared.items() if k != "game" and kind == "number")
    grouping = sorted(k for k in declared if k != "game")
    check_targets(targets, numeric, grouping, sim.column_values().get, option)


def expand_targets(targets: list[Target], cols: dict, option: str = "--target") -> list[Target]:
    """Check targets against one block's columns; a group column without a value becomes one target per value."""
    numeric = sorted(k for k, v in cols.items() if k != "game" and np.asarray(v).dtype.kind in "iubf")
    grouping = sorted(k for k in cols if k != "game")
    check_targets(targets, numeric, grouping, lambda k: _col_values(cols, k), option)
    out = []
    for t in targets:
        # one target per combination of the open group columns (shared by both sides of a difference)
        open_cols = list(dict.fromkeys(k for term in t.terms for k, v in term.groups.items() if v is None))
        combos = [()]
        for k in open_cols:
            combos = [c + ((k, v),) for c in combos for v in _col_values(cols, k)]
        for combo in combos:
            fill = dict(combo)
            terms = [Term(term.metric, {k: fill[k] if v is None else v for k, v in term.groups.items()})
                     for term in t.terms]
            out.append(Target(t.text, terms, t.low, t.high))
    return out


@dataclass
class Estimate:
    estimate: float
    low: float
    high: float
    n: int


def _term_per_game(cols: dict, term: Term) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per game of the group: its game id, the sum of the metric over its rows and the number of rows."""
    mask = np.ones(len(cols["game"]), bool)
    for k, v in term.groups.items():
        mask &= np.asarray(cols[k]).astype(str) == v
    g = np.asarray(cols["game"], np.int64)[mask]
    x = np.asarray(cols[term.metric], np.float64)[mask]
    ids, inv = np.unique(g, return_inverse=True)
    return ids, np.bincount(inv, weights=x, minlength=len(ids)), np.bincount(inv, minlength=len(ids))


def estimate(cols: dict, target: Target, confidence: float = 0.95) -> Estimate:
    """The target's value with its interval: the game is the unit (cells of a game replay its streams).

    A 0/1 column over one row a game: Wilson; over c rows a game: Wilson on the effective number of rows (the
    design effect, :func:`simkit.core.stats.pooled_rate`); any other column, and a difference (paired by game):
    the normal interval over games.
    """
    from simkit.core import stats

    if len(target.terms) == 1:
        ids, s, c = _term_per_game(cols, target.terms[0])
        n = len(ids)
        if n == 0:
            return Estimate(math.nan, math.nan, math.nan, 0)
        x = np.asarray(cols[target.terms[0].metric])
        binary = x.dtype.kind == "b" or (x.size and np.isin(x, (0, 1)).all())
        if binary and (c == c[0]).all():
            k = int(c[0])
            e = stats.wilson(int(s.sum()), n, confidence) if k == 1 else \
                stats.pooled_rate(n, float(s.sum()), float((s * s).sum()), k, confidence)
        else:
            m = s / c
            e = stats.mean_interval(n, float(m.sum()), float((m * m).sum()), confidence)
        return Estimate(float(e.estimate), float(e.low), float(e.high), n)
    a_ids, a_s, a_c = _term_per_game(cols, target.terms[0])
    b_ids, b_s, b_c = _term_per_game(cols, target.terms[1])
    common, ia, ib = np.intersect1d(a_ids, b_ids, return_indices=True)
    if len(common) == 0:
        return Estimate(math.nan, math.nan, math.nan, 0)
    d = a_s[ia] / a_c[ia] - b_s[ib] / b_c[ib]
    e = stats.mean_interval(len(d), float(d.sum()), float((d * d).sum()), confidence)
    return Estimate(float(e.estimate), float(e.low), float(e.high), len(d))


def point(cols: dict, target: Target) -> float:
    """The target's point estimate (the search's score needs no interval)."""
    vals = []
    for term in target.terms:
        _, s, c = _term_per_game(cols, term)
        vals.append(float(s.sum() / c.sum()) if c.sum() else math.nan)
    if len(vals) == 1:
        return vals[0]
    ids_a, s_a, c_a = _term_per_game(cols, target.terms[0])
    ids_b, s_b, c_b = _term_per_game(cols, target.terms[1])
    _, ia, ib = np.intersect1d(ids_a, ids_b, return_indices=True)
    return float(np.mean(s_a[ia] / c_a[ia] - s_b[ib] / c_b[ib])) if len(ia) else math.nan


def margin(cols: dict, target: Target, confidence: float, games: int, eval_games: int) -> float:
    """The half-width the fresh check's interval of ``target`` will have on ``eval_games`` games, from its interval
    on ``cols`` (``games`` games per cell): the half-width scales as one over the square root of the games."""
    e = estimate(cols, target, confidence)
    if not (math.isfinite(e.low) and math.isfinite(e.high)):
        return 0.0
    return (e.high - e.low) / 2 * math.sqrt(games / eval_games)


def judge(e: Estimate, t: Target) -> str:
    """"met" (the interval inside the band), "missed" (outside it) or "unclear"."""
    if not math.isfinite(e.estimate):
        return "unclear"
    if e.low >= t.low and e.high <= t.high:
        return "met"
    if e.high < t.low or e.low > t.high:
        return "missed"
    return "unclear"


# --- playing candidates ----------------------------------------------------------------------------------------

def _block(sim, seed, spawn, n):
    key = np.random.SeedSequence(seed, spawn_key=spawn).generate_state(2, np.uint64)
    return sim.run_block(key, n)


def play(sim, seed: int, spawn: int, games: int, jobs: int = 1, progress=None) -> dict[str, np.ndarray]:
    """``games`` games per cell on the streams ``SeedSequence(seed, spawn_key=(spawn, block))``; the columns of all
    blocks, game ids made unique across blocks. The same (seed, spawn, games) replays the same games in any
    candidate (common random numbers)."""
    from joblib import Parallel, delayed

    bs = int(getattr(sim, "default_block_size", 10_000)) or 10_000
    sizes = [min(bs, games - b * bs) for b in range(math.ceil(games / bs))]
    work = [delayed(_block)(sim, seed, (spawn, b), n) for b, n in enumerate(sizes)]
    played = Parallel(n_jobs=jobs, return_as="generator")(work) if jobs > 1 and len(work) > 1 \
        else (w[0](*w[1], **w[2]) for w in work)
    parts = []
    for b, cols in enumerate(played):
        cols = dict(cols)
        cols["game"] = np.asarray(cols["game"], np.int64) + b * bs
        parts.append(cols)
        if progress is not None:
            progress(sizes[b])
    return {k: np.concatenate([np.asarray(p[k]) for p in parts]) for k in parts[0]}


def default_policy(data: dict, sim) -> str | None:
    """The strongest practical policy the scenario plays: its first learned policy, else its first tuned
    heuristic (``*_tuned``), else the first of its play list (never ``search``: seconds a game)."""
    play_list = data.get("play")
    if not isinstance(play_list, list) or not play_list:
        return None
    described = (sim.describe() or {}).get("policies") or {}
    kinds = {name: (described.get(name) or {}).get("kind", "") for name in play_list}
    for name in play_list:
        if kinds[name] == "learned":
            return name
    for name in play_list:
        if str(name).endswith("_tuned") and kinds[name] != "search":
            return name
    return next((n for n in play_list if kinds[n] != "search"), play_list[0])


def _edits_text(edits: tuple) -> str:
    return ", ".join(f"{k}={_fmt(v)}" for k, v in edits) or "(no edit)"


def _fmt(v) -> str:
    if isinstance(v, float):
        return f"{v:.4g}"
    return json.dumps(v) if isinstance(v, str) else str(v)


@dataclass
class Evaluation:
    edits: tuple  # ((name, value), …) sorted by name
    score: float
    violation: float
    values: list  # point estimates, one per target


@dataclass
class Row:
    target: str
    band: str
    before: Estimate
    after: Estimate
    before_status: str
    after_status: str


@dataclass
class BalanceResult:
    scenario: str
    policy: str | None
    targets: list  # labels of the expanded targets
    edits: list  # [(name, old, new)]
    rows: list  # Row per target
    deviation: list  # [{"undone": name, "violation": …, "met": k, "missed": [...]}]
    search_games: int
    eval_games: int
    cells: int
    trials: int
    seconds: float
    confidence: float
    search_best: list  # the search's own estimates of the best candidate (same order as targets)
    search_violation: float
    history: list
    diffs: dict  # file -> unified diff text
    written: list  # copies written
    search_check: list = field(default_factory=list)  # rows under `search`, if asked
    notes: list = field(default_factory=list)
    margins: list = field(default_factory=list)  # how far inside each band the search aimed (module docstring)
    search_score: float = math.nan  # the best candidate's score on the search's games (what the search minimises)

    @property
    def all_met(self) -> bool:
        return all(r.after_status == "met" for r in self.rows)


class _Writer:
    """The run folder: ``balance.json`` (what was asked, ``status`` running → done), ``trials.jsonl`` (one line
    per candidate, written as it is scored), and at the end ``result.json``, ``report.md`` and the edited copies.
    Every file is whole: JSON files are replaced in one step, lines are appended whole and flushed."""

    def __init__(self, out: Path | None, manifest: dict):
        self.out = out
        self.manifest = manifest
        self.fh = None
        if out is not None:
            out.mkdir(parents=True, exist_ok=True)
            self.dump("balance.json", manifest)
            self.fh = open(out / "trials.jsonl", "a", encoding="utf-8")

    def dump(self, name: str, obj) -> None:
        if self.out is None:
            return
        self.text(name, json.dumps(obj, indent=2, default=_json_default) + "\n")

    def text(self, name: str, text: str) -> None:
        if self.out is None:
            return
        write_atomic(self.out / name, text)

    def trial(self, obj) -> None:
        if self.fh is not None:
            self.fh.write(json.dumps(obj, default=_json_default) + "\n")
            self.fh.flush()

    def close(self, status: str) -> None:
        if self.fh is not None:
            self.fh.close()
            self.fh = None
        if self.out is not None:
            self.manifest["status"] = status
            self.dump("balance.json", self.manifest)


def _json_default(o):
    if isinstance(o, np.generic):
        return o.item()
    if isinstance(o, float) and not math.isfinite(o):
        return None
    if hasattr(o, "__dataclass_fields__"):
        return asdict(o)
    raise TypeError(type(o).__name__)


def write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


# --- edited copies ---------------------------------------------------------------------------------------------

def edited_texts(scenario: Path, data: dict, varies: dict[str, Vary], edits: tuple) -> dict[Path, tuple[str, str]]:
    """``{original file: (its text, the edited text)}`` for every file the edits touch, formatting and comments
    kept (tomlkit)."""
    import tomlkit

    from simkit.core.overrides import _step, file_references

    refs = file_references(scenario, data)
    by_file: dict[Path, list] = {}
    for name, value in edits:
        v = varies[name]
        path = scenario if v.where == "scenario" else refs[v.where]
        by_file.setdefault(path, []).append((v.path, value))
    out = {}
    for path, changes in by_file.items():
        text = path.read_text(encoding="utf-8")
        doc = tomlkit.parse(text)
        for p, value in changes:
            node = doc
            for name in p[:-1]:
                parent, key = _step(node, name, "", ".".join(p))
                node = parent[key]
            parent, key = _step(node, p[-1], "", ".".join(p))
            parent[key] = value
        if path != scenario:
            _mark_experiment(doc)
        out[path] = (text, tomlkit.dumps(doc))
    return out


def _mark_experiment(doc) -> None:
    """Mark an edited card file ``experiment = true`` after its ``notice``, as ``--set`` marks its copies: games
    that check facts the rulebook prints (The Old Gob's base Health 3) relax only those checks for such files, so
    the copy loads (impossible values are still refused)."""
    import tomlkit

    if "experiment" in doc or "notice" not in doc:
        return
    item = tomlkit.item(True)
    item.comment("an edited copy (simkit balance): its values may differ from the rulebook's")
    item.trivia.comment_ws = "  "
    at = next((i for i, (k, _) in enumerate(doc.body) if k is not None and k.key == "notice"), None)
    if at is None:
        doc["experiment"] = item
    else:
        doc._insert_at(at + 1, "experiment", item)  # beside the notice, not after the last table


def balanced_name(path: Path) -> Path:
    return path.with_name(f"{path.stem}.balanced{path.suffix}")


def write_copies(scenario: Path, data: dict, varies: dict[str, Vary], edits: tuple, out: Path | None,
                 beside: bool = True) -> tuple[dict[str, str], list[Path]]:
    """Write the edited files as ``NAME.balanced.toml`` beside the originals (never over them) and into the run
    folder, with a copy of the scenario that names the edited card files; return the diffs (each original to the
    copy written beside it) and the paths. The run folder's copy of the scenario names the run folder's card copies
    and, by paths relative to the run folder, every other file the scenario names (an unedited card file, a
    learned policy's weights), so it loads where it is."""
    import tomlkit

    from simkit.core.overrides import file_references

    texts = edited_texts(scenario, data, varies, edits)
    if not texts:
        return {}, []
    refs = {p.resolve(): f for f, p in file_references(scenario, data).items()}
    scen_new = texts.get(scenario, (None, scenario.read_text(encoding="utf-8")))[1]
    doc = tomlkit.parse(scen_new)
    for path in texts:
        fld = refs.get(path.resolve())
        if fld is not None:
            doc[fld] = str(Path(str(data[fld])).with_name(balanced_name(path).name))
    scen_beside = tomlkit.dumps(doc)
    diffs = {}
    for path, (old, new) in texts.items():
        new = scen_beside if path == scenario else new
        # the diff names the copy written: beside the original, or (--no-copies) the run folder's
        copy = balanced_name(path) if beside or out is None else out / balanced_name(path).name
        diffs[str(path)] = "".join(difflib.unified_diff(old.splitlines(True), new.splitlines(True),
                                                        fromfile=str(path), tofile=str(copy)))
    edited = {refs[p.resolve()] for p in texts if p.resolve() in refs}
    files = {scenario: scen_beside, **{p: t[1] for p, t in texts.items() if p != scenario}}
    written = []
    for path, text in files.items():
        if beside:
            target = balanced_name(path)
            write_atomic(target, text)
            written.append(target)
        if out is not None:
            if path == scenario:
                text = _in_run_folder(tomlkit.parse(text), scenario, out, edited)
            write_atomic(out / balanced_name(path).name, text)
            written.append(out / balanced_name(path).name)
    return diffs, written


def _in_run_folder(doc, scenario: Path, out: Path, edited: set[str]) -> str:
    """The scenario copy ``doc`` as the run folder holds it: an edited card file named by its copy there, every
    other relative path that names an existing file (``cards``, ``deck``, ``policies.*.weights``) made relative to
    the run folder."""
    def repoint(node, top: bool):
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        for key, value in list(items):
            if top and key in edited:
                node[key] = Path(str(value)).name
            elif isinstance(value, str) and Path(value).suffix and not Path(value).is_absolute() \
                    and (scenario.parent / value).is_file():
                try:
                    node[key] = os.path.relpath((scenario.parent / value).resolve(), out.resolve())
                except ValueError:  # another drive: no relative path
                    node[key] = str((scenario.parent / value).resolve())
            elif isinstance(value, (dict, list)):
                repoint(value, False)

    import tomlkit

    repoint(doc, True)
    return tomlkit.dumps(doc)


# --- the search ------------------------------------------------------------------------------------------------

def balance(scenario: str | Path, vary: list[str], targets: list[str], *, policy: str | None = None,
            budget: int = 20_000, max_edits: int = 3, seed: int = 1, games_per_trial: int | None = None,
            eval_games: int | None = None, edit_cost: float = 0.002, search_games: int = 0, jobs: int = 1,
            sets: list[str] = (), aim: bool = True,
            out: str | Path | None = None, beside: bool = True, progress: bool = False,
            argv: list[str] | None = None) -> BalanceResult:
    """Search for the fewest, smallest edits meeting ``targets`` and verify them on fresh games (module docstring).

    ``budget``: games per cell the search plays, summed over its candidates; ``games_per_trial``: games per cell
    per candidate; ``eval_games``: games per cell of each fresh evaluation (the unedited scenario, the result,
    and the result with each edit undone); ``sets``: fixed ``--set`` changes the whole search plays under (they
    are not written into the edited copies); ``search_games``: games per cell of the check under ``search``
    (0: none); ``edit_cost``: the score's cost of one edit, in the targets' units (an edit size, as a share of
    its range, costs half that per unit); ``aim``: score against each band narrowed by its margin (module
    docstring)."""
    import optuna

    from simkit.core import loader, stats
    from simkit.core.overrides import Override, apply_overrides
    from simkit.core.scenario import read_toml

    start = time.time()
    scenario = Path(scenario)
    if not scenario.is_file():
        raise InputError(f"SCENARIO {scenario}: no such file")
    if not vary:
        raise InputError("--vary: give at least one PATH=RANGE (or --vary-file)")
    if not targets:
        raise InputError("--target: give at least one METRIC[GROUP]=VALUE±TOL")
    if not 1 <= max_edits <= MAX_EDITS:
        raise InputError(f"--max-edits: must be from 1 to {MAX_EDITS} (got {max_edits})")
    if budget < 1:
        raise InputError(f"--budget: must be at least 1 (got {budget})")
    if not (edit_cost >= 0 and math.isfinite(edit_cost)):
        raise InputError(f"--edit-cost: must be a number ≥ 0 (got {edit_cost})")
    from simkit.core.overrides import parse_set

    fixed = [parse_set(x) for x in sets]
    data0, _ = read_toml(scenario)
    data0, _ = apply_overrides(scenario, data0, list(fixed))
    parsed_targets = [parse_target(t) for t in targets]
    varies: dict[str, Vary] = {}
    for text in vary:
        v = parse_vary(text, scenario, data0)
        if v.name in varies:
            raise InputError(f"--vary {text!r}: {v.name} is varied twice")
        if any(o.path == v.path for o in fixed):
            raise InputError(f"--vary {text!r}: {v.name} is also fixed by --set; vary it or fix it")
        varies[v.name] = v
    names = list(varies)

    # the scenario played by one policy: the chosen one, or the strongest practical
    base_sim = loader.build(scenario, dict(data0))
    if policy is None:
        policy = default_policy(data0, base_sim)
    elif not isinstance(data0.get("play"), list):
        raise InputError(f"--policy: {scenario.name} has no play list (its mode plays no named policies)")
    if policy is not None:
        data0 = dict(data0)
        data0["play"] = [policy]
        try:
            base_sim = loader.build(scenario, dict(data0))
        except InputError as exc:
            if "play[0]" in str(exc):
                allowed = str(exc).split("allowed values:")[-1].strip()
                raise InputError(f"--policy: unknown policy {policy!r}; allowed values: {allowed}") from None
            raise

    if search_games and policy is not None:
        try:
            loader.build(scenario, {**data0, "play": ["search"]})
        except InputError:
            raise InputError("--search-games: the scenario has no `search` policy to check the result under") \
                from None
    elif search_games:
        raise InputError("--search-games: the scenario plays no named policies, so none to check under `search`")

    def build(edits: tuple, play_as: str | None = None):
        d = read_toml(scenario)[0]
        if policy is not None:
            d["play"] = [play_as or policy]
        ovs = list(fixed) + [Override(varies[k].path, v, f"{k}={_fmt(v)}") for k, v in edits]
        d, _ = apply_overrides(scenario, d, ovs)
        try:
            return loader.build(scenario, d)
        except InputError as exc:
            # an edit the game refuses (a Health of 0): the candidate is impossible, not the user's input
            raise _Impossible(str(exc)) from None

    # a mistyped target is refused now, before a kernel compiles (minutes on a cold cache), where the mode says
    # its columns; the first block of games then fixes the values an open group expands to
    check_declared(parsed_targets, base_sim)
    check_reachable(parsed_targets, {m.column for m in getattr(base_sim, "metrics", []) or []
                                     if m.kind == "rate" and m.trials is None})
    check_ends(varies, build)
    bs = int(getattr(base_sim, "default_block_size", 10_000)) or 10_000
    first = _block(base_sim, seed, (SEARCH, 0), min(bs, 8))
    expanded = expand_targets(parsed_targets, first)
    m = len(expanded)
    confidence = 1 - (1 - stats.CONFIDENCE) / m  # Bonferroni over the targets
    cells = int(base_sim.cells)
    per = games_per_trial or max(100, min(5000, budget // 60))
    per = min(per, budget)
    n_trials = max(1, budget // per)
    tols = [(t.high - t.low) / 2 if math.isfinite(t.high - t.low) else math.inf for t in expanded]
    tol = min([x for x in tols if x > 0] or [0.05])
    z = stats.z_value(confidence)
    n_eval = eval_games or int(min(50_000, max(1000, math.ceil((z * 0.5 / (tol / 2)) ** 2))))
    fresh_runs = 2 + max_edits
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=n_trials * per + fresh_runs * n_eval + 2 * search_games, desc="balance", unit="game",
                   unit_scale=True, smoothing=0, leave=False, dynamic_ncols=True)
    tick = None if bar is None else bar.update
    out_dir = Path(out) if out is not None else None
    writer = _Writer(out_dir, {
        "command": "balance", "argv": argv, "scenario": str(scenario), "policy": policy, "vary": vary,
        "targets": targets, "sets": list(sets), "expanded_targets": [t.label() for t in expanded], "budget": budget,
        "games_per_trial": per, "eval_games": n_eval, "max_edits": max_edits, "seed": seed, "edit_cost": edit_cost,
        "aim": aim,
        "status": "running", "started": time.strftime("%Y-%m-%dT%H:%M:%S"),
    })
    cache: dict[tuple, Evaluation] = {}
    history: list[dict] = []
    used = [0]
    margins: list[float] = []  # set from the first candidate scored (the unedited data)

    def canonical(edits) -> tuple:
        """A candidate's key: its edits that change a value, sorted (the same candidate whatever the slots)."""
        return tuple(sorted((k, v) for k, v in edits if v != varies[k].current))

    def evaluate(edits: tuple) -> Evaluation:
        edits = canonical(edits)
        if edits in cache:
            return cache[edits]
        try:
            sim = build(edits)
            cols = play(sim, seed, SEARCH, per, jobs, tick)
            values = [point(cols, t) for t in expanded]
            viol = max(t.violation(x) for t, x in zip(expanded, values))
            if not margins:
                margins.extend(margin(cols, t, confidence, per, n_eval) if aim else 0.0 for t in expanded)
            aimed = max(t.violation(x, d) for t, x, d in zip(expanded, values, margins))
            refused = None
        except _Impossible as exc:  # the game refuses the values (a Health of 0): never the answer
            values, viol, aimed, refused = [math.nan] * m, math.inf, math.inf, str(exc)
            if tick:
                tick(per)
        used[0] += per
        size = sum(varies[k].size(v) for k, v in edits)
        score = aimed + edit_cost * (len(edits) + 0.5 * size)
        ev = Evaluation(edits, score, viol, values)
        cache[edits] = ev
        best = min(cache.values(), key=lambda e: e.score)
        history.append({"trial": len(history), "score": score, "violation": viol, "best_score": best.score,
                        "best_violation": best.violation, "edits": len(edits)})
        writer.trial({"trial": len(history) - 1, "edits": dict(edits), "score": score, "violation": viol,
                      "values": values, **({"refused": refused} if refused else {})})
        if bar is not None:
            n_best = len(best.edits)
            bar.set_postfix_str(f"best: score {best.score:.4f} (max violation {best.violation:.4f}, {n_best} "
                                f"edit{'s' if n_best != 1 else ''})")
        return ev

    baseline = evaluate(())
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    sampler = optuna.samplers.TPESampler(seed=int(seed) % (2 ** 32), n_startup_trials=max(5, min(20, n_trials // 4)))
    study = optuna.create_study(direction="minimize", sampler=sampler)
    k_slots = min(max_edits, len(names))
    polish_reserve = n_trials // 4
    tpe_trials = max(0, n_trials - 1 - polish_reserve)

    def objective(trial):
        edits = {}
        for i in range(k_slots):
            if trial.suggest_categorical(f"on{i}", [False, True]):
                name = trial.suggest_categorical(f"slot{i}", names)
                v = varies[name]
                if v.kind == "int":
                    edits[name] = trial.suggest_int(name, int(v.lo), int(v.hi))
                elif v.kind == "float":
                    edits[name] = trial.suggest_float(name, v.lo, v.hi)
                else:
                    edits[name] = v.choices[trial.suggest_categorical(name, list(range(len(v.choices))))]
        return evaluate(tuple(edits.items())).score

    # warm start, when there are few enough: every single edit to an end of its range (TPE then knows which
    # fields move which targets)
    singles = []
    for name in names:
        v = varies[name]
        if v.kind == "choice":
            singles += [(name, i) for i, c in enumerate(v.choices) if c != v.current]
        else:
            singles += [(name, x) for x in dict.fromkeys((v.lo, v.hi)) if x != v.current]
    if k_slots and len(singles) <= tpe_trials // 3:
        for name, x in singles:
            study.enqueue_trial({"on0": True, "slot0": name, name: int(x) if varies[name].kind != "float" else x,
                                 **{f"on{i}": False for i in range(1, k_slots)}})
    from simkit.core.runner import _Signals

    explore = np.random.default_rng([int(seed) % (2 ** 32), 24])  # the search's own stream: reproducible

    def unseen() -> tuple[dict, tuple] | None:
        """Parameters (and edits) of a random candidate not scored yet (1 to ``k_slots`` edits), for TPE to try
        when it proposes one it has already scored: in a small space TPE repeats itself, and a repeat costs no
        games, so without this the search would stop exploring (Draw to Ten's 0.60 band, two edits away, was
        missed)."""
        for _ in range(100):
            k = int(explore.integers(1, k_slots + 1))
            chosen = [names[i] for i in explore.choice(len(names), size=min(k, len(names)), replace=False)]
            params = {f"on{i}": False for i in range(k_slots)}
            edits = []
            for i, name in enumerate(chosen):
                v = varies[name]
                params[f"on{i}"], params[f"slot{i}"] = True, name
                if v.kind == "int":
                    x = int(explore.integers(int(v.lo), int(v.hi) + 1))
                    params[name], value = x, x
                elif v.kind == "float":
                    x = float(explore.uniform(v.lo, v.hi))
                    params[name], value = x, x
                else:
                    x = int(explore.integers(len(v.choices)))
                    params[name], value = x, v.choices[x]
                edits.append((name, value))
            if canonical(edits) not in cache:
                return params, tuple(edits)
        return None

    tries = 0
    signals = _Signals().__enter__()  # SIGTERM stops like Ctrl-C: the run folder then says "interrupted"
    try:
        while used[0] < (1 + tpe_trials) * per and tries < 20 * max(1, tpe_trials):
            before = used[0]
            study.optimize(objective, n_trials=1)
            tries += 1
            if used[0] == before and k_slots and (new := unseen()) is not None:
                study.enqueue_trial(new[0])
                study.optimize(objective, n_trials=1)
        # local search on the same games: drop an edit or step a whole number back towards the printed value
        # (kept unless the score gets worse), then one step of any varied field from the best (an edit added
        # while slots are free; kept if the score gets better); when no step helps, the games left go to
        # candidates not tried yet
        best = min(cache.values(), key=lambda e: e.score)

        def room() -> bool:
            return used[0] + per <= n_trials * per

        improved = True
        while improved and room():
            improved = False
            shrink = [best.edits[:i] + best.edits[i + 1:] for i in range(len(best.edits))]
            for i, (k, v) in enumerate(best.edits):
                back = _step_value(varies[k], v, toward=True)
                if back is not None:
                    shrink.append(best.edits[:i] + ((k, back),) + best.edits[i + 1:])
            for cand_edits in shrink:
                if not room():
                    break
                cand = evaluate(cand_edits)
                if cand.score <= best.score and cand.edits != best.edits:
                    best, improved = cand, True
                    break
            if improved:
                continue
            now = dict(best.edits)
            moves = []
            for k in names:
                if k not in now and len(now) >= max_edits:
                    continue
                for up in (False, True):
                    x = _step_value(varies[k], now.get(k, varies[k].current), up=up)
                    if x is not None:
                        moves.append(tuple({**now, k: x}.items()))
            for cand_edits in moves:
                if not room():
                    break
                cand = evaluate(cand_edits)
                if cand.score < best.score:
                    best, improved = cand, True
                    break
            if not improved and room() and k_slots and (new := unseen()) is not None:
                # no step helps: the games left go to candidates not tried yet, each a new start for the steps
                cand, improved = evaluate(new[1]), True
                if cand.score < best.score:
                    best = cand
        best = min(cache.values(), key=lambda e: e.score)

        # fresh games: the unedited scenario, the result, and the result with each edit undone
        if bar is not None:
            bar.set_postfix_str(f"checking the result on {n_eval:,} fresh games")

        def fresh(edits: tuple, spawn=FRESH, games=n_eval, play_as=None) -> list[Estimate]:
            cols = play(build(edits, play_as), seed, spawn, games, jobs, tick)
            return [estimate(cols, t, confidence) for t in expanded]

        before = fresh(())
        after = fresh(best.edits) if best.edits else before
        rows = [Row(t.label(), t.band(), b, a, judge(b, t), judge(a, t)) for t, b, a in zip(expanded, before, after)]
        deviation = []
        after_met = sum(r.after_status == "met" for r in rows)
        after_viol = max(t.violation(r.after.estimate) for t, r in zip(expanded, rows))
        for i, (k, v) in enumerate(best.edits):
            undone = best.edits[:i] + best.edits[i + 1:]
            ests = fresh(undone) if undone else before
            status = [judge(e, t) for e, t in zip(ests, expanded)]
            deviation.append({"undone": k, "value": v, "back_to": varies[k].current,
                              "violation": max(t.violation(e.estimate) for t, e in zip(expanded, ests)),
                              "met": status.count("met"), "missed": status.count("missed"),
                              "needed": status.count("met") < after_met
                              or max(t.violation(e.estimate) for t, e in zip(expanded, ests)) > after_viol + edit_cost})
        check = []
        if search_games:
            sb = fresh((), SEARCH_CHECK, search_games, "search")
            sa = fresh(best.edits, SEARCH_CHECK, search_games, "search") if best.edits else sb
            check = [Row(t.label(), t.band(), b, a, judge(b, t), judge(a, t)) for t, b, a in zip(expanded, sb, sa)]
        diffs, written = write_copies(scenario, read_toml(scenario)[0], varies, best.edits, out_dir, beside)
    except BaseException as exc:
        signals.__exit__(None, None, None)
        if bar is not None:
            bar.close()
        writer.close("interrupted" if isinstance(exc, KeyboardInterrupt) else "failed")
        raise
    signals.__exit__(None, None, None)
    if bar is not None:
        bar.close()
    notes = []
    if policy is not None:
        described = (base_sim.describe() or {}).get("policies", {}).get(policy, {})
        if described.get("kind") == "learned" and best.edits:
            notes.append(f"{policy} is a learned policy trained on the unedited data: retrain it (simkit train) on "
                         "the balanced copy before trusting these numbers under best play")
    result = BalanceResult(
        scenario=str(scenario), policy=policy, targets=[t.label() for t in expanded],
        edits=[(k, varies[k].current, v) for k, v in best.edits], rows=rows, deviation=deviation,
        search_games=used[0], eval_games=n_eval, cells=cells, trials=len(cache), seconds=time.time() - start,
        confidence=confidence, search_best=best.values, search_violation=best.violation, history=history,
        diffs=diffs, written=[str(p) for p in written], search_check=check, notes=notes,
        margins=list(margins) or [0.0] * m, search_score=best.score)
    result.baseline_search = baseline.values  # type: ignore[attr-defined]
    writer.dump("result.json", asdict(result))
    if out_dir is not None:
        write_report(result, out_dir, argv)
    writer.close("done")
    return result


def _step_value(v: Vary, x, up: bool = True, toward: bool = False):
    """The value one step from ``x`` (a whole number, a tenth of a real range, the next listed choice): up or
    down, or ``toward`` the printed value; None past the range's end or at the printed value."""
    if toward:
        if x == v.current:
            return None
        up = x < v.current if v.kind != "choice" else v.choices.index(x) < v.choices.index(v.current)
    if v.kind == "choice":
        i = v.choices.index(x) + (1 if up else -1)
        return v.choices[i] if 0 <= i < len(v.choices) else None
    step = 1 if v.kind == "int" else (v.hi - v.lo) / 10
    y = x + step if up else x - step
    if toward and (y - v.current) * (x - v.current) < 0:
        y = v.current
    if y < v.lo - 1e-12 or y > v.hi + 1e-12:
        return None
    return int(y) if v.kind == "int" else float(y)


class _Impossible(Exception):
    """A candidate the game refuses to build (an impossible value)."""


def write_report(r: BalanceResult, out: Path, argv: list[str] | None = None) -> list[Path]:
    """The run folder's ``report.md`` and its self-contained ``report.html``: the command, the edits and their
    diff, every target before → after, the one-step deviations and the convergence plot (each candidate's score
    on the search's games, and the best so far)."""
    from simkit.core import plotting
    from simkit.core.html import markdown_to_html

    h = r.history
    x = np.arange(len(h))
    score = np.array([e["score"] if math.isfinite(e["score"]) else np.nan for e in h])
    plot = plotting.lines(out / "convergence.png", x, {"best so far": np.array([e["best_score"] for e in h]),
                                                        "candidate": score},
                          title="balance search: score = max violation + edit costs", xlabel="candidate",
                          ylabel="score (search games)")
    head = ["# simkit balance: " + Path(r.scenario).name, ""]
    if argv:
        head += ["```", "simkit " + " ".join(argv), "```", ""]
    body = report_lines(r, "md")
    text = "\n".join(head + body + ["", "## Convergence", "", f"![convergence]({plot.name})", ""])
    write_atomic(out / "report.md", text)
    return [out / "report.md", markdown_to_html(out / "report.md"), plot]


# --- output ----------------------------------------------------------------------------------------------------

def _iv(e: Estimate) -> str:
    if not math.isfinite(e.estimate):
        return "–"
    return f"{e.estimate:.3f} [{e.low:.3f}, {e.high:.3f}]"


def report_lines(r: BalanceResult, fmt: str = "table") -> list[str]:
    """The printed result: edits, the diff, targets before → after, the one-step-deviation table."""
    from simkit.core.tables import render

    pct = f"{100 * r.confidence:.4g}%"
    lines = []
    if r.edits:
        lines.append(f"Edits ({len(r.edits)}): " + ", ".join(f"{k} {_fmt(a)} → {_fmt(b)}" for k, a, b in r.edits))
    else:
        lines.append("Edits: none (no candidate scored better than the unedited data)")
    for text in r.diffs.values():
        lines += ["", "```diff", text.rstrip("\n"), "```"] if fmt == "md" else ["", text.rstrip("\n")]
    lines.append("")
    rows = [{"target": x.target, "band": x.band, "before": _iv(x.before), "": x.before_status,
             "after": _iv(x.after), " ": x.after_status, "n": x.after.n,
             "search's own": f"{v:.3f}" if math.isfinite(v) else "–"} for x, v in zip(r.rows, r.search_best)]
    lines.append(render(rows, fmt))
    met = sum(x.after_status == "met" for x in r.rows)
    lines.append(f"Targets met after: {met} of {len(r.rows)} ({pct} Bonferroni intervals, {len(r.rows)} target"
                 f"{'s' if len(r.rows) != 1 else ''}; {r.eval_games:,} fresh games per cell × {r.cells} cell"
                 f"{'s' if r.cells != 1 else ''}, never seen by the search; policy {r.policy or '(the mode’s own)'})")
    if r.deviation:
        lines.append("")
        lines += ["One-step deviation (each edit undone alone, on the same fresh games):", ""]
        lines.append(render([{"undone": d["undone"], "back to": _fmt(d["back_to"]),
                              "max violation": f"{d['violation']:.4f}",
                              "targets met": f"{d['met']} of {len(r.rows)}", "missed": d["missed"],
                              "needed": "yes" if d["needed"] else "no"} for d in r.deviation], fmt))
    if r.search_check:
        lines.append("")
        lines += ["Under `search` (a sample of fresh games):", ""]
        lines.append(render([{"target": x.target, "band": x.band, "before": _iv(x.before), "": x.before_status,
                              "after": _iv(x.after), " ": x.after_status, "n": x.after.n}
                             for x in r.search_check], fmt))
        held = sum(x.after_status != "missed" for x in r.search_check)
        lines.append(f"Under search: {held} of {len(r.search_check)} targets not missed.")
    lines.append("")
    aimed = sorted(x for x in r.margins if x > 0)
    span = "" if not aimed else f"{aimed[0]:.3f}" + (f"–{aimed[-1]:.3f}" if aimed[-1] != aimed[0] else "")
    aim = f"; it aimed inside each band by the fresh check's expected half-width, {span}" if aimed else ""
    lines.append(f"Search: {r.trials} candidates, {r.search_games:,} games per cell (the search's own estimate of "
                 f"the result, biased upward: max violation {r.search_violation:.4f}{aim}); {r.seconds:.0f} s in all.")
    for p in r.written:
        lines.append(f"Wrote {p}")
    lines += [f"Note: {n}" for n in r.notes]
    return lines
