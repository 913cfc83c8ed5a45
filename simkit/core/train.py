"""`simkit train`: learned policies by expert iteration over `search`.

Each iteration plays games with the current policy (at first the base heuristic; DAgger: the states are the
ones the policy itself reaches), and at a share of its decisions with more than one legal action asks the
teacher — `search` with the current policy as its rollout policy — which action it plays, recording the mover's
features of every legal action (``features``: only what the mover may see). A scorer is fitted to all the
teacher's choices so far (``learned.fit``; one game in five held out to measure how often the model agrees with
the teacher), and becomes the next iteration's policy, so that the next teacher searches over a stronger policy.

Every iteration is judged on fresh seeds that neither the training nor an earlier iteration used, paired game by
game (common random numbers): against the base heuristic and the previous iteration at heuristic speed on many
games, and against its own teacher on fewer. Training stops when the gap to the teacher is inside the noise (its
95% interval covers 0) or the iterations are spent.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from simkit.errors import InputError

EVAL = 1 << 21  # spawn-key offset of the fresh-seed evaluations (never a training game's)
SELECT = EVAL + 5000  # spawn key of the games that pick the iteration to keep (neither training nor judgement)
KEEP = ("best", "last")


@dataclass
class Gap:
    """A paired difference of per-game win rates (``a`` − ``b``) with its 95% interval and n."""

    a: float
    b: float
    diff: float
    low: float
    high: float
    n: int


@dataclass
class Iteration:
    iteration: int
    games: int  # training games played this iteration
    decisions: int  # teacher-labelled decisions this iteration
    agreement: float  # held-out share of decisions where the model plays the teacher's action
    base_agreement: float  # the same share for the base heuristic (feature 0, ``is_base``)
    vs_base: Gap
    vs_prev: Gap | None
    vs_teacher: Gap | None
    weights: str


@dataclass
class TrainResult:
    name: str
    base: str
    weights: Path
    scenario: Path
    iterations: list[Iteration] = field(default_factory=list)
    stopped: str = ""
    chosen: str = ""  # which iteration's weights were written, and why (:func:`keep_iteration`)

    def rows(self) -> list[dict]:
        def g(x: Gap | None, digits=4):
            return "–" if x is None else f"{x.diff:+.{digits}f} [{x.low:+.{digits}f}, {x.high:+.{digits}f}]"

        return [{"iteration": it.iteration, "games": it.games, "decisions": it.decisions,
                 "agrees with teacher": f"{it.agreement:.3f}", f"{self.base} agrees": f"{it.base_agreement:.3f}",
                 "learned": f"{it.vs_base.a:.4f}", f"vs {self.base}": g(it.vs_base),
                 "vs previous": g(it.vs_prev), "vs teacher (search)": g(it.vs_teacher),
                 "n (base / teacher)": f"{it.vs_base.n:,} / {it.vs_teacher.n if it.vs_teacher else 0:,}"}
                for it in self.iterations]


def _gap(a: np.ndarray, b: np.ndarray) -> Gap:
    from simkit.core import stats

    d = a - b
    e = stats.mean_interval(len(d), float(d.sum()), float((d * d).sum()))
    return Gap(float(a.mean()), float(b.mean()), e.estimate, e.low, e.high, len(d))


def min_teacher_games(tolerance: float) -> int:
    """Games needed before "within ``tolerance`` of the teacher" can be shown: ``ceil(3 / tolerance)``.

    When learned and teacher agree in every judged game the t interval of the gap is [0, 0] whatever n; the
    rule of three bounds the share of games where they differ by 3 / n (95%), and the gap of per-game values in
    [0, 1] by that share, so n ≥ 3 / tolerance games are needed for such agreement to show the gap within it.
    """
    return math.ceil(3.0 / tolerance) if tolerance > 0 else 1 << 62


def shown_within(gap: Gap, tolerance: float) -> bool:
    """The stop rule: the 95% interval of learned − teacher starts at or above −``tolerance``, on at least
    ``min_teacher_games(tolerance)`` games (fewer games are no evidence, however narrow their interval)."""
    return gap.n >= min_teacher_games(tolerance) and gap.low >= -tolerance


def keep_iteration(scenario: Path, data: dict, base_table: dict, paths: list[Path], keep: str, seed: int,
                   games: int, metric: str, jobs: int) -> tuple[int, str]:
    """Which iteration's weights to write: the last (``keep = "last"``, or one iteration), or the best: every
    iteration replayed with the base heuristic on the same fresh games (spawn key ``SELECT``, games neither the
    training nor the per-iteration judgements played), the highest mean kept (a tie: the later). Each
    iteration's own judgement is on its own games, so those are not compared with each other. Returns the index
    into ``paths`` and the sentence saying what was kept."""
    from simkit.core.tune import _build, per_game_means

    last = len(paths) - 1
    if keep == "last" or len(paths) == 1:
        return last, f"iteration {last + 1} (the last)"
    pols = {"__base": base_table, **{f"__it{i + 1}": {"kind": "learned", "weights": str(Path(p).resolve())}
                                     for i, p in enumerate(paths)}}
    means = per_game_means(_build(scenario, data, pols), seed, (SELECT,), games, metric, jobs)
    scores = [float(means[f"__it{i + 1}"].mean()) for i in range(len(paths))]
    best = max(range(len(paths)), key=lambda i: (scores[i], i))
    gap = _gap(means[f"__it{best + 1}"], means["__base"])
    return best, (f"iteration {best + 1} of {len(paths)}, the best on {games:,} fresh games per cell that replayed "
                  f"every iteration ({', '.join(f'{x:.4f}' for x in scores)}; against the base heuristic "
                  f"{gap.diff:+.4f} [{gap.low:+.4f}, {gap.high:+.4f}])")


def _stream(*words: int) -> np.ndarray:
    return np.random.SeedSequence([int(w) for w in words]).generate_state(4, np.uint64)


def collect(dg, kind: int, params: np.ndarray, base_vec: np.ndarray, cfg: np.ndarray, teacher_params: np.ndarray,
            seeds: list[int], share: float, seed: int):
    """Play one game per seed with policy ``(kind, params)`` at every seat; at a ``share`` of the decisions with
    two or more legal actions record every action's features and the teacher's choice (``search`` with
    configuration ``cfg`` over ``teacher_params``). Returns ``(X, counts, target, game)``: the feature rows, the
    number of rows of each decision, the row the teacher chose and the game index of each decision."""
    fns = dg.fns
    search_values = fns_search_values(dg)
    f = len(dg.feature_names)
    buf = np.empty(max(dg.max_actions, 1), np.int64)
    xbuf = np.zeros((max(dg.max_actions, 1), f), np.float64)
    values = np.empty(max(dg.max_actions, 1), np.float64)
    rows, counts, target, games = [], [], [], []
    threshold = int(share * 2 ** 53)
    for gi, sd in enumerate(seeds):
        s, rng, env = dg.new_game(sd)
        prng = _stream(seed, sd, 1)
        frng = _stream(seed, sd, 2)
        srng = _stream(seed, sd, 3)
        pick = np.random.default_rng([seed, sd, 4])
        steps = 0
        while not fns.is_over(s) and steps < 1_000_000:
            n = fns.legal_actions(s, env, buf)
            if n == 0:
                break
            if n >= 2 and int(pick.integers(0, 2 ** 53)) < threshold:
                dg.learned.action_features(s, env, buf, n, base_vec, frng, xbuf)
                a_t = search_values(s, rng, env, buf, n, cfg, teacher_params, srng, values)
                hit = [i for i in range(n) if buf[i] == a_t]
                rows.append(xbuf[:n].copy())
                counts.append(n)
                target.append(hit[0])
                games.append(gi)
            a = fns.policy(kind, s, env, buf, n, params, prng)
            fns.apply_action(s, rng, env, a)
            steps += 1
    X = np.concatenate(rows) if rows else np.zeros((0, f))
    return X, np.array(counts, np.int64), np.array(target, np.int64), np.array(games, np.int64)


def fns_search_values(dg):
    """The engine's compiled teacher: ``search``'s action values."""
    if dg.search is None:
        raise InputError(f"{dg.name}: this engine has no compiled search to be the teacher")
    return dg.search.search_values


def _collect_chunk(mode_game, mode_name, scenario, kind, params, base_vec, cfg, teacher_params, seeds, share, seed):
    """``collect`` in a worker process (the decision game is rebuilt there from the scenario)."""
    from simkit.core import registry

    _, mode = registry.get_mode(mode_game, mode_name)
    dg = mode.engine(scenario)
    return collect(dg, kind, params, base_vec, cfg, teacher_params, seeds, share, seed)


def _repointed(scenario: Path, data: dict, out_dir: Path, relative: bool) -> dict:
    """A copy of the scenario's tables whose card files, and the files its policies name (a learned policy's
    ``weights``, a search's ``value``), are named from ``out_dir`` (relative or absolute paths; the data hash is
    unchanged: it hashes their contents)."""
    from simkit.core.learned import named_files

    def moved(p: Path) -> str:
        return os.path.relpath(p.resolve(), out_dir.resolve()) if relative else str(p.resolve())

    d = dict(data)
    for field_name, p in named_files(scenario, data).items():
        d[field_name] = moved(p)
    pols = d.get("policies")
    if isinstance(pols, dict):
        d["policies"] = {k: dict(v) if isinstance(v, dict) else v for k, v in pols.items()}
        for table in d["policies"].values():
            for key in ("weights", "value"):
                v = table.get(key) if isinstance(table, dict) else None
                if isinstance(v, str) and v and not Path(v).is_absolute():
                    table[key] = moved(Path(scenario).parent / v)
    return d


def _write_toml(path: Path, d: dict, header: str = "") -> Path:
    """Write ``d`` to ``path`` through a temporary file, so a stopped run never leaves half a scenario."""
    import tomli_w

    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(header + tomli_w.dumps(d), encoding="utf-8")
    os.replace(tmp, path)
    return path


def _training_copy(scenario: Path, data: dict, out_dir: Path, name: str) -> Path:
    """``out_dir/.train-scenario.toml``: the scenario without policy ``name`` (and out of ``play``), its card files
    named by absolute path."""
    d = _repointed(scenario, data, out_dir, relative=False)
    d["policies"] = {k: v for k, v in d.get("policies", {}).items() if k != name}
    d["play"] = [p for p in d.get("play", []) if p != name] or d.get("play", [])
    return _write_toml(out_dir / ".train-scenario.toml", d)


def _write_scenario(scenario: Path, data: dict, out_dir: Path, name: str, weights: Path,
                    tables: dict | None = None, what: str = "") -> Path:
    """``out_dir/scenario.toml``: the scenario with ``[policies.NAME]`` played first, its card files and the files
    its policies name relative to ``out_dir``. ``[policies.NAME]`` plays the learned policy ``weights``, or is
    ``tables[NAME]`` (``tables``: policy tables to add, their files already named from ``out_dir``; ``what``
    says what NAME is in the header)."""
    d = _repointed(scenario, data, out_dir, relative=True)
    pols = dict(d.get("policies", {}))
    pols.update(tables or {name: {"kind": "learned", "weights": os.path.relpath(weights.resolve(), out_dir.resolve())}})
    d["policies"] = pols
    d["play"] = [name] + [p for p in d.get("play", []) if p != name]
    return _write_toml(out_dir / "scenario.toml", d, f"# written by simkit train from {scenario}: the scenario with "
                                                     f"{what or 'the learned policy'} {name!r}\n")


def prepare(scenario: str | Path, name: str, out_dir: str | Path, weights: str | Path | None, overrides=()):
    """The checks every training method makes first, before any game and before anything is written: the
    scenario (with ``overrides``, ``--set``) and its mode's engine, the policy name, the ``--out`` folder and the
    ``--weights`` file (default ``SCENARIO_STEM.NAME.npz`` next to the scenario). Returns ``(scenario, out_dir,
    data, mode, weights, data hash)``."""
    from simkit.core import learned as LM
    from simkit.core import registry
    from simkit.core.paths import check_out_path
    from simkit.core.tune import _scenario_parts

    scenario = Path(scenario)
    out_dir = Path(out_dir)
    data, mode = _scenario_parts(scenario, list(overrides))
    game = registry.get_game(data["game"])
    if mode.engine is None:
        raise InputError(f"{scenario}: mode {data['game']}/{data['mode']} has no decision-point engine to train on")
    if not name.isidentifier():
        raise InputError(f"--name: must be a policy name of letters, digits and _ (got {name!r})")
    check_out_path(out_dir, "--out")
    if out_dir.exists() and not out_dir.is_dir():
        raise InputError(f"--out {out_dir}: is a file, not a folder")
    weights = Path(weights) if weights is not None else scenario.parent / f"{scenario.stem}.{name}.npz"
    if not weights.parent.is_dir():
        raise InputError(f"--weights: the folder {weights.parent} does not exist")
    check_out_path(weights, "--weights")
    if weights.is_dir():
        raise InputError(f"--weights {weights}: is a folder; name the .npz file to write")
    return scenario, out_dir, data, mode, weights, LM.data_hash(scenario, data, game.rules_version)


@dataclass
class Staged:
    """What a training method starts from (:func:`stage`)."""

    scenario: Path  # the training copy in ``out_dir`` (``.train-scenario.toml``)
    data: dict  # its tables
    dg: object  # the mode's decision-point engine, built from it
    spec: dict  # the mode's policy parameters
    base: str  # the base heuristic
    base_vec: np.ndarray
    base_params: dict
    base_table: dict  # the base heuristic as a ``[policies]`` table


def stage(source: Path, data: dict, mode, name: str, base: str | None, out_dir: Path, metric: str,
          check=None) -> Staged:
    """Check what a training run needs before anything is written: the engine is built from a training copy of
    ``source`` in a temporary folder; the mode must have a feature function; ``base`` must be one of its heuristics
    (default: the first heuristic ``play`` names, else the first one); ``metric`` a per-game number column. Only
    then is ``out_dir`` made and the training copy written into it (``train`` and ``value.train_outcomes``);
    ``check(dg)``, if given, runs before that too (a method's own checks against the engine)."""
    import shutil
    import tempfile

    from simkit.core.policies import HEURISTIC
    from simkit.core.scenario import read_toml
    from simkit.core.tune import _build

    staging = Path(tempfile.mkdtemp(prefix="simkit-train-"))
    try:
        scenario = _training_copy(source, data, staging, name)
        data = read_toml(scenario)[0]
        dg = mode.engine(scenario)
        if dg.learned is None or not dg.feature_names:
            raise InputError(f"{source}: mode {data['game']}/{data['mode']} has no feature function yet, so it "
                             "cannot play a learned policy")
        spec = mode.params()
        heuristics = [p for p, (k, _) in dg.policies.items() if k == HEURISTIC]
        if base is None:
            play = [p for p in data.get("play", []) if p in heuristics]
            base = play[0] if play else (heuristics[0] if heuristics else None)
        if base not in heuristics:
            raise InputError(f"--base: {base!r} is not a heuristic policy of {source}; allowed values: "
                             f"{', '.join(heuristics)}")
        base_vec = dg.policies[base][1].astype(np.float64)
        names = sorted(spec, key=lambda k: spec[k][0])
        base_params = {k: float(base_vec[spec[k][0]]) for k in names}
        base_table = {"kind": "heuristic", **base_params}
        declared = _build(scenario, data, {"__base": base_table}).declared_columns()
        if declared is not None:
            numeric = sorted(k for k, kind in declared.items() if kind == "number" and k != "game")
            if metric not in numeric:
                raise InputError(f"--metric: {metric!r} is not a per-game column of this mode; allowed values: "
                                 f"{', '.join(numeric)}")
        if check is not None:
            check(dg)
        out_dir.mkdir(exist_ok=True)
        copy = _training_copy(source, read_toml(source)[0], out_dir, name)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return Staged(copy, data, dg, spec, base, base_vec, base_params, base_table)


def named_teacher(scenario: Path, data: dict, policy: str, spec: dict) -> tuple[np.ndarray, np.ndarray]:
    """``(search configuration, base parameter vector)`` of the scenario's `search` policy ``policy`` (a
    ``[policies.NAME]`` table or a preset), the fixed teacher of ``train(..., teacher_policy=policy)``."""
    from simkit.core.policies import compile_policy
    from simkit.core.tune import _build_named

    try:
        sim = _build_named(scenario, data, policy)
    except InputError as exc:
        raise InputError(str(exc).replace("--policy:", "--teacher-policy:", 1)) from None
    specs = getattr(sim, "policy_specs", None)
    if not specs:
        raise InputError(f"--teacher-policy: mode {data.get('game')}/{data.get('mode')} cannot name its teacher "
                         "yet; leave it out (the teacher is then `search` over the current policy)")
    _, kind, values = specs[0]
    if kind != "search":
        raise InputError(f"--teacher-policy: {policy!r} is a {kind} policy of {scenario}; the teacher must be a "
                         "search policy (kind = \"search\")")
    _, _, cfg, vec = compile_policy(kind, values, spec)
    return cfg, vec.astype(np.float64)


def train(scenario: str | Path, name: str, out_dir: str | Path, *, base: str | None = None, rollouts: int = 32,
          budget: int = 2000, iterations: int = 3, seed: int = 1, hidden: int = 0, share: float = 0.5,
          eval_games: int = 2000, teacher_games: int = 40, l2: float = 1e-4, metric: str = "won", jobs: int = 1,
          teacher_base: str = "learned", weights: str | Path | None = None, tolerance: float = 0.02,
          progress: bool = False, keep: str = "best", teacher_policy: str | None = None,
          echo=None) -> TrainResult:
    """Train the learned policy ``name`` for ``scenario`` (see the module docstring). ``budget``: training games
    in all (split evenly over the iterations); ``eval_games`` / ``teacher_games``: fresh games (per cell) of the
    judgement against the base heuristic and the previous iteration / against the teacher. The final weights go
    to ``weights`` (default: ``SCENARIO_STEM.NAME.npz`` next to the scenario), each iteration's into ``out_dir``
    with ``out_dir/scenario.toml``, the scenario playing the learned policy. ``teacher_policy``: a `search` policy
    of the scenario that labels and judges every iteration instead (its own rollouts, base, depth and value)."""
    from joblib import Parallel, delayed

    from simkit.core import learned as LM
    from simkit.core.decision import CFG_ROLLOUTS, search_config
    from simkit.core.policies import HEURISTIC, LEARNED, learned_vector
    from simkit.core.scenario import read_toml
    from simkit.core.tune import _build, per_game_means

    # every argument is checked before the first game and before anything is written (the --out folder, its
    # scenario copies, a weights file): the engine is built from a training copy in a temporary folder first
    scenario, out_dir, data, mode, weights, dhash = prepare(scenario, name, out_dir, weights)
    if budget < iterations:
        raise InputError(f"--budget: must be at least the number of iterations ({iterations}; got {budget})")
    if teacher_base not in ("learned", "heuristic"):
        raise InputError(f"--teacher-base: must be one of 'learned', 'heuristic' (got {teacher_base!r})")
    if keep not in KEEP:
        raise InputError(f"--keep: must be one of {', '.join(map(repr, KEEP))} (got {keep!r})")
    source, source_data = scenario, data
    # a named teacher is compiled from the scenario as given (its base may be the policy being trained: the
    # scenario's own weights of it), and checked before anything is written
    fixed = named_teacher(source, data, teacher_policy, mode.params()) if teacher_policy is not None else None
    st = stage(source, data, mode, name, base, out_dir, metric)
    scenario, data, dg, spec, base = st.scenario, st.data, st.dg, st.spec, st.base
    base_vec, base_params, base_table = st.base_vec, st.base_params, st.base_table
    result = TrainResult(name=name, base=base, weights=weights, scenario=out_dir / "scenario.toml")
    kind, cur = HEURISTIC, base_vec
    X_all, counts_all, target_all, game_all = [], [], [], []
    per_iter = budget // iterations
    prev_path: Path | None = None
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=iterations, desc=f"train {name}", unit="iteration", leave=False)
    for it in range(1, iterations + 1):
        tkind = kind if teacher_base == "learned" else HEURISTIC
        tparams = cur if teacher_base == "learned" else base_vec
        cfg = search_config(rollouts, tkind, "halving")
        if fixed is not None:
            cfg, tparams = fixed
        seeds = [(seed * 1000 + it) * 1_000_000 + g for g in range(per_iter)]
        chunks = [seeds[i::max(jobs, 1)] for i in range(max(jobs, 1))] if jobs > 1 else [seeds]
        if jobs > 1:
            parts = Parallel(n_jobs=jobs)(delayed(_collect_chunk)(data["game"], data["mode"], str(scenario), kind,
                                                                  cur, base_vec, cfg, tparams, ch, share, seed)
                                          for ch in chunks if ch)
        else:
            parts = [collect(dg, kind, cur, base_vec, cfg, tparams, seeds, share, seed)]
        decisions = 0
        for ch, (X, counts, target, games) in zip(chunks, parts):
            X_all.append(X)
            counts_all.append(counts)
            target_all.append(target)
            game_all.append(np.array([ch[g] for g in games], np.int64))  # the game's seed: the same for any jobs
            decisions += len(counts)
        X = np.concatenate(X_all)
        counts = np.concatenate(counts_all)
        target = np.concatenate(target_all)
        gseed = np.concatenate(game_all)
        if len(counts) == 0:
            raise InputError(f"{scenario}: the training games had no decision with two or more legal actions")
        # one order whatever --jobs: by game seed, each game's decisions in play order (a stable sort)
        order = np.argsort(gseed, kind="stable")
        starts = np.concatenate([[0], np.cumsum(counts)])
        X = np.concatenate([X[starts[d]:starts[d + 1]] for d in order])
        counts, target, gseed = counts[order], target[order], gseed[order]
        X_all, counts_all, target_all, game_all = [X], [counts], [target], [gseed]
        held = (gseed % 5) == 0
        if held.all() or not held.any():
            held = np.zeros(len(counts), bool)
        keep_rows = np.repeat(~held, counts)
        tr_counts = counts[~held]
        tr = LM.fit(X[keep_rows], np.concatenate([[0], np.cumsum(tr_counts)]), target[~held], hidden=hidden,
                    l2=l2, seed=seed + it)
        ho = held if held.any() else np.ones(len(counts), bool)
        ho_rows = np.repeat(ho, counts)
        ho_starts = np.concatenate([[0], np.cumsum(counts[ho])])
        agree = LM.agreement(LM.scores(tr.w, tr.W1, tr.b1, tr.v, X[ho_rows]), ho_starts, target[ho])
        base_agree = LM.agreement(X[ho_rows, 0], ho_starts, target[ho])  # feature 0: the base heuristic's choice
        model = LM.Model(data["game"], data["mode"], list(dg.feature_names), tr.w, tr.W1, tr.b1, tr.v, base,
                         base_params, dhash,
                         {"iteration": it, "trained_decisions": int(len(counts)),
                          "teacher_rollouts": int(cfg[CFG_ROLLOUTS]), "seed": seed, "hidden": hidden,
                          "heldout_agreement": round(agree, 6),
                          **({"teacher_policy": teacher_policy} if teacher_policy is not None else {})})
        path = model.save(out_dir / f"{name}.iter{it}.npz")
        # judged on fresh seeds, paired: against the base heuristic and the previous iteration
        pols = {"__base": base_table, "__learned": {"kind": "learned", "weights": str(path.resolve())}}
        if prev_path is not None:
            pols["__prev"] = {"kind": "learned", "weights": str(prev_path.resolve())}
        means = per_game_means(_build(scenario, data, pols), seed, (EVAL + it,), eval_games, metric, jobs)
        vs_base = _gap(means["__learned"], means["__base"])
        vs_prev = _gap(means["__learned"], means["__prev"]) if prev_path is not None else None
        vs_teacher = None
        if teacher_games > 0:
            if teacher_policy is None:  # `search` over the policy the iteration played
                cur_table = base_table if kind == HEURISTIC or teacher_base != "learned" else \
                    {"kind": "learned", "weights": str(prev_path.resolve())}
                judge = _build(scenario, data, {"__learned": pols["__learned"], "__cur": cur_table,
                                                "__teacher": {"kind": "search", "rollouts": rollouts, "base": "__cur"}})
                teacher = "__teacher"
            else:  # the named teacher, as the scenario defines it
                from simkit.core.loader import build

                judge = build(source, {**source_data, "policies": {**source_data.get("policies", {}),
                                                                   "__learned": pols["__learned"]},
                                       "play": ["__learned", teacher_policy]})
                teacher = teacher_policy
            tm = per_game_means(judge, seed, (EVAL + 1000 + it,), teacher_games, metric, jobs)
            vs_teacher = _gap(tm["__learned"], tm[teacher])
        result.iterations.append(Iteration(it, per_iter, decisions, agree, base_agree, vs_base, vs_prev, vs_teacher,
                                           str(path)))
        if echo is not None:
            r = result.rows()[-1]
            echo("  ".join(f"{k}: {v}" for k, v in r.items()))
        if bar is not None:
            bar.update(1)
        prev_path = path
        kind, cur = LEARNED, learned_vector(spec, {"weights": str(path), "temperature": 0.0,
                                                   "base_params": base_params})
        if vs_teacher is not None and shown_within(vs_teacher, tolerance):
            result.stopped = (f"iteration {it}: within {tolerance} of the teacher (the 95% interval of learned − "
                              f"teacher starts at {vs_teacher.low:+.4f}, n = {vs_teacher.n} games)")
            break
    else:
        result.stopped = f"all {iterations} iterations spent"
    if bar is not None:
        bar.close()
    chosen, result.chosen = keep_iteration(scenario, data, base_table, [Path(it.weights) for it in result.iterations],
                                           keep, seed, eval_games, metric, jobs)
    final = LM.load_model(result.iterations[chosen].weights)
    final.save(result.weights)
    _write_scenario(source, read_toml(source)[0], out_dir, name, result.weights)
    return result
