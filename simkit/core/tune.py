"""`simkit tune`: search a heuristic's parameters for the best win rate (or another per-game column).

CMA-ES (the ``cma`` package) works in the parameter box the game declares
(``PARAMS`` entries ``(index, default, description, low, high)``), scaled to
[0, 1]. Each generation plays all its candidates as the cells of one
simulation on the same game streams (common random numbers), so candidates
are compared on the same deals and dice. The answer is chosen from
**finalists**: CMA-ES's final mean and the best-scoring candidates of the
search (``FINALISTS``), played again as the cells of one simulation on
selection seeds the search never used (``SELECT``). The search's scores of
its best candidates are inflated by luck, and its final mean can sit between
two good regions where neither plays well (Valeria's `hunter` against a field
of `hunter`: the mean of 20 generations won 0.08 where a finalist won 0.55),
so neither is taken on its word. The winner is then played against the
default parameters on *fresh* seeds that neither the search nor the selection
saw: the reported improvement and its interval are not inflated by either.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from simkit.errors import InputError

FRESH = 1 << 20  # spawn-key offset of the fresh-seed evaluation: never used by a generation
SELECT = FRESH + 1  # … of the finalists' selection round: used by neither a generation nor the fresh check
FINALISTS = 8  # the final mean and the best candidates of the search, at most this many in all


@dataclass
class TuneResult:
    policy: str
    metric: str
    names: list[str]
    default: dict[str, float]
    best: dict[str, float]
    default_value: float
    best_value: float
    difference: float
    low: float
    high: float
    games: int  # paired games in the fresh evaluation
    cells: int
    search_games: int
    history: list[dict] = field(default_factory=list)
    chosen: str = "the search's final mean"  # which finalist won the selection round
    finalists: list[dict] = field(default_factory=list)  # each finalist: its origin and selection-round value
    select_games: int = 0  # games per cell of the selection round

    def toml(self, name: str, kind: str = "heuristic") -> str:
        lines = [f"[policies.{name}]", f'kind = "{kind}"']
        lines += [f"{k} = {v:.6g}" for k, v in self.best.items()]
        return "\n".join(lines) + "\n"


def _scenario_parts(scenario: Path, overrides):
    from simkit.core import registry
    from simkit.core.overrides import Override, apply_overrides, parse_set
    from simkit.core.scenario import read_toml

    data, _ = read_toml(scenario)
    ovs = [o if isinstance(o, Override) else parse_set(o) for o in (overrides or [])]
    data, _ = apply_overrides(scenario, data, ovs)
    game_name = data.get("game")
    mode_name = data.get("mode")
    if not isinstance(game_name, str) or not isinstance(mode_name, str):
        raise InputError(f"{scenario}: fields 'game' and 'mode' must name a registered game and mode")
    _, mode = registry.get_mode(game_name, mode_name, where=f"{scenario}: field 'mode'")
    if mode.params is None:
        raise InputError(f"{scenario}: mode {game_name}/{mode_name} has no tunable policy parameters")
    return data, mode


def _build(scenario: Path, data: dict, policies: dict[str, dict]):
    """The scenario's simulation playing exactly ``policies`` (name -> table with kind and parameters)."""
    from simkit.core.loader import build

    d = dict(data)
    table = dict(d.get("policies", {}))
    table.update(policies)
    d["policies"] = table
    d["play"] = list(policies)
    return build(scenario, d)


def _block(sim, seed, spawn, n):
    key = np.random.SeedSequence(seed, spawn_key=spawn).generate_state(2, np.uint64)
    return sim.run_block(key, n)


def per_game_means(sim, seed: int, spawn: tuple, games: int, metric: str, jobs: int = 1,
                   progress=None, stop=None) -> dict[str, np.ndarray]:
    """For each policy, the per-game value of ``metric`` averaged over the policy's cells (the game is the unit:
    all cells replay the same game streams). Games are played in blocks of the simulation's block size;
    ``progress(games_done)`` is called as each block ends (in block order). ``stop(means)``, if given, is asked
    after each block (in block order, so the answer does not depend on ``jobs``) with the means of the blocks
    so far; when it says yes no further block counts, and those means are the answer."""
    from joblib import Parallel, delayed

    bs = int(sim.default_block_size)
    sizes = [min(bs, games - b * bs) for b in range(math.ceil(games / bs))]
    work = [delayed(_block)(sim, seed, (*spawn, b), n) for b, n in enumerate(sizes)]
    played = Parallel(n_jobs=jobs, return_as="generator")(work) if jobs > 1 and len(work) > 1 \
        else (w[0](*w[1], **w[2]) for w in work)
    parts = []
    for cols in played:
        parts.append(cols)
        if progress is not None:
            progress(sizes[len(parts) - 1])
        if stop is not None and len(parts) < len(sizes) and stop(_means_of(parts, sizes, metric)):
            break
    return _means_of(parts, sizes, metric)


def _means_of(parts: list[dict], sizes: list[int], metric: str) -> dict[str, np.ndarray]:
    """:func:`per_game_means` of the blocks ``parts`` (the first ``len(parts)`` of ``sizes``)."""
    out: dict[str, list[np.ndarray]] = {}
    for b, cols in enumerate(parts):
        if metric not in cols:
            allowed = ", ".join(sorted(k for k, v in cols.items() if np.asarray(v).dtype.kind in "iub"))
            raise InputError(f"--metric: {metric!r} is not a per-game column of this mode; allowed values: {allowed}")
        pol = np.asarray(cols["policy"])
        g = np.asarray(cols["game"], np.int64)
        v = np.asarray(cols[metric], np.float64)
        n = sizes[b]
        for name in dict.fromkeys(pol.tolist()):
            m = pol == name
            sums = np.bincount(g[m], weights=v[m], minlength=n)
            cnt = np.bincount(g[m], minlength=n)
            out.setdefault(name, []).append(sums / np.maximum(cnt, 1))
    return {k: np.concatenate(v) for k, v in out.items()}


def tune(scenario: str | Path, policy: str, budget: int, *, seed: int = 1, metric: str = "won",
         params: list[str] | None = None, games_per_candidate: int | None = None, eval_games: int | None = None,
         jobs: int = 1, overrides=(), progress: bool = False, popsize: int | None = None) -> TuneResult:
    """Tune ``policy`` of ``scenario`` (see the module docstring). ``budget``: games per cell spent by the search,
    summed over all candidates."""
    import cma

    from simkit.core import stats
    from simkit.core.policies import declared_range

    scenario = Path(scenario)
    data, mode = _scenario_parts(scenario, overrides)
    spec = mode.params()
    base_sim = _build_named(scenario, data, policy)
    described = base_sim.describe().get("policies", {}).get(policy)
    if described is None:
        raise InputError(f"--policy: {policy!r} is not a policy of {scenario}")
    kind = described.get("kind", "heuristic")
    if kind != "heuristic":
        raise InputError(f"--policy: {policy!r} is a {kind} policy; only heuristic policies have parameters to tune")
    default = {k: float(described.get(k, spec[k][1])) for k in spec}
    tunable = [k for k in spec if declared_range(spec, k) is not None]
    if params:
        for p in params:
            if p not in spec:
                raise InputError(f"--param: unknown parameter {p!r}; allowed values: {', '.join(tunable)}")
            if p not in tunable:
                raise InputError(f"--param: {p!r} has no declared range to search")
        tunable = list(dict.fromkeys(params))
    if not tunable:
        raise InputError(f"--policy: {policy!r} has no parameter with a declared range")
    if budget < 1:
        raise InputError(f"--budget: must be at least 1 (got {budget})")
    lo = np.array([declared_range(spec, k)[0] for k in tunable])
    hi = np.array([declared_range(spec, k)[1] for k in tunable])
    is_int = [len(spec[k]) >= 6 and spec[k][5] == "int" for k in tunable]
    x0 = np.clip((np.array([default[k] for k in tunable]) - lo) / np.where(hi > lo, hi - lo, 1.0), 0.0, 1.0)
    d = len(tunable)
    lam = popsize or (4 + int(3 * math.log(max(d, 1))))
    per = games_per_candidate or max(100, budget // (lam * 20))
    generations = max(1, budget // (lam * per))
    es = cma.CMAEvolutionStrategy(list(x0) if d > 1 else [float(x0[0])], 0.3,
                                  {"bounds": [0.0, 1.0], "seed": int(seed) % (2 ** 31 - 1) + 1, "verbose": -9,
                                   "popsize": lam})

    def values(x) -> dict[str, float]:
        v = dict(default)
        for k, xi, a, b, integer in zip(tunable, np.atleast_1d(x), lo, hi, is_int):
            val = float(a + min(max(xi, 0.0), 1.0) * (b - a))
            v[k] = float(round(val)) if integer else val
        return v

    n_eval = eval_games or max(2000, per * 4)
    n_select = max(per * 2, 500)
    n_final = min(FINALISTS, 1 + generations * lam)
    bar = None
    if progress:
        from tqdm import tqdm

        # the bar counts games per candidate cell, the search's and the final check's (2 policies), so its ETA
        # covers the whole run; the rate is the average since the first generation (which compiles the kernels)
        bar = tqdm(total=generations * lam * per + n_final * n_select + 2 * n_eval, desc=f"tune {policy}", unit="game",
                   unit_scale=True, smoothing=0, leave=False, dynamic_ncols=True)
    history = []
    tried: list[tuple[float, int, int, np.ndarray]] = []  # (search score, generation, candidate, x)
    best_so_far = -math.inf
    for gen in range(generations):
        xs = es.ask()
        cands = {f"__tune{i}": {"kind": "heuristic", **values(x)} for i, x in enumerate(xs)}
        sim = _build(scenario, data, cands)
        means = per_game_means(sim, seed, (gen,), per, metric, jobs,
                               progress=None if bar is None else (lambda g: bar.update(g * lam)))
        scores = [float(means[name].mean()) for name in cands]
        es.tell(xs, [-s for s in scores])
        tried += [(sc, gen, i, np.array(x, float)) for i, (sc, x) in enumerate(zip(scores, xs))]
        history.append({"generation": gen, "best": max(scores), "mean": float(np.mean(scores))})
        best_so_far = max(best_so_far, max(scores))
        if bar is not None:
            if gen == 0:  # the ETA from here on: the first generation paid for compiling
                bar.initial, bar.start_t = bar.n, bar._time()
            bar.set_postfix_str(f"gen {gen + 1}/{generations}, {metric}: best so far {best_so_far:.4f} "
                                f"(this gen {max(scores):.4f})")
    # the finalists, played again on selection seeds: the final mean, then the search's best candidates
    finalists = {"the search's final mean": values(es.result.xfavorite)}
    for sc, gen, i, x in sorted(tried, key=lambda t: (-t[0], t[1], t[2])):
        if len(finalists) >= n_final:
            break
        finalists[f"generation {gen + 1}'s candidate {i + 1} ({metric} {sc:.4f} in the search)"] = values(x)
    if bar is not None:
        bar.set_postfix_str(f"playing {len(finalists)} finalists on {n_select:,} selection games")
    keys = {name: f"__final{j}" for j, name in enumerate(finalists)}
    sim = _build(scenario, data, {keys[n]: {"kind": "heuristic", **v} for n, v in finalists.items()})
    sel = per_game_means(sim, seed, (SELECT,), n_select, metric, jobs,
                         progress=None if bar is None else (lambda g: bar.update(g * len(finalists))))
    scored = [{"finalist": n, metric: float(sel[keys[n]].mean())} for n in finalists]
    chosen = max(scored, key=lambda r: r[metric])["finalist"]  # ties: the first, the final mean
    best = finalists[chosen]
    # fresh seeds: the default against the tuned parameters, paired game by game
    if bar is not None:
        bar.set_postfix_str(f"checking the winner on {n_eval:,} fresh games (best so far {best_so_far:.4f})")
    sim = _build(scenario, data, {"__default": {"kind": "heuristic", **default}, "__tuned": {"kind": "heuristic", **best}})
    means = per_game_means(sim, seed, (FRESH,), n_eval, metric, jobs,
                           progress=None if bar is None else (lambda g: bar.update(2 * g)))
    if bar is not None:
        bar.close()
    diff = means["__tuned"] - means["__default"]
    e = stats.mean_interval(len(diff), float(diff.sum()), float((diff * diff).sum()))
    return TuneResult(policy=policy, metric=metric, names=tunable, default={k: default[k] for k in tunable},
                      best={k: best[k] for k in tunable}, default_value=float(means["__default"].mean()),
                      best_value=float(means["__tuned"].mean()), difference=e.estimate, low=e.low, high=e.high,
                      games=len(diff), cells=sim.cells // 2, search_games=generations * lam * per, history=history,
                      chosen=chosen, finalists=scored, select_games=n_select)


def _build_named(scenario: Path, data: dict, policy: str):
    """The scenario's simulation playing only ``policy`` (a preset or a ``[policies.NAME]`` table)."""
    from simkit.core.loader import build

    d = dict(data)
    d["play"] = [policy]
    try:
        return build(scenario, d)
    except InputError as exc:
        if "play[0]" in str(exc):
            allowed = str(exc).split("allowed values:")[-1].strip()
            raise InputError(f"--policy: unknown policy {policy!r}; allowed values: {allowed}") from None
        raise


def _build_play(scenario: Path, data: dict, policies: list[str] | None):
    """The scenario's simulation playing ``policies`` (default: its own ``play`` list)."""
    from simkit.core.loader import build

    d = dict(data)
    if policies:
        d["play"] = list(policies)
    return build(scenario, d)
