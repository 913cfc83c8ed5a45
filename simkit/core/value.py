"""`simkit train --method outcomes`: a learned policy's weights fitted to how games ended (issue 41, first step).

Every game played at heuristic speed labels each decision it passed, for free, with how the game ended for the
mover. Each iteration plays games with the current policy (at first the base heuristic, or ``init`` weights),
playing a uniformly random legal action instead at a share ``epsilon`` of the decisions (exploration: how else
would an action the policy never plays get a value), and records at every decision with two or more legal actions
the mover's features (``features``, sparse) of the action the policy plays there, ``x(π(s))``, and of the action
played, ``x(a)``, and whether the mover won in the end. A logistic regression (:func:`fit_value`: L2 on
standardised columns, an intercept, scikit-learn's ``LogisticRegression``) fits

    logit P(win) = c + v . x(π(s)) + w . (x(a) − x(π(s)))

``v . x(π(s))``: the value of the state under the policy, which every decision informs; ``w``: the advantage of an
action over the policy's own, which only the explored decisions inform, where the action was drawn at random
whatever the state (regressing the outcome on ``x(a)`` alone, ``target="q"``, credits an action with the won
positions the policy plays it in). The policy's weights plus ``w`` are saved as an ordinary linear `learned` model
(the same ``.npz``, the same data hash, so ``--strict`` refuses it when stale): the fitted advantage of the
policy's own action is 0 and the state's part is the same for every action of a decision, so the existing kernel,
playing ``argmax`` of the scores, leaves the policy's action only where another's fitted advantage is higher — a
step of policy iteration at heuristic speed. The next iteration plays the new weights (with exploration) and fits
again on its own games (``window`` > 1, the latest iterations' games pooled, only with ``target="q"``: an advantage
is over the policy that played the games).

Every iteration is judged like ``train``'s, on fresh seeds, paired game by game (common random numbers): against
the base heuristic, the previous iteration and (``reference``) other weights, e.g. the committed ones; optionally
against `search` over the base heuristic on fewer games. The fit is judged on held-out games (every fifth game
seed): its log loss against the constant win rate's, and how well it ranks won above lost decisions (AUC; 0.5 is
chance).
"""

from __future__ import annotations

import hashlib
import math
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from simkit.core.train import EVAL, KEEP, Gap, _gap, _stream, _write_scenario, keep_iteration, prepare, stage
from simkit.errors import InputError


@dataclass
class Decisions:
    """The decisions of some games, one row each (CSR, ``2 * n_features`` columns): the features of the action
    the policy plays there, ``x(π(s))`` (columns ``0 .. F-1``: a function of the state), and how the action played
    differs from it, ``x(a) − x(π(s))`` (columns ``F .. 2F-1``: zero but where exploration played another action);
    the mover's outcome."""

    indptr: np.ndarray  # (d + 1,) int64
    indices: np.ndarray  # int32 column
    values: np.ndarray  # float32
    y: np.ndarray  # (d,) the mover's reward at the end of the game (1 win, 0 loss; shared ties in between)
    game: np.ndarray  # (d,) the game's seed
    n_features: int

    def __len__(self) -> int:
        return len(self.y)

    def matrix(self, target: str = "advantage"):
        """The design matrix of the fit: ``advantage``: ``[x(π(s)), x(a) − x(π(s))]`` as stored (weights ``v`` of
        the state, ``w`` of the action's advantage over the policy's); ``q``: ``x(a)`` alone."""
        from scipy.sparse import csr_matrix

        f = self.n_features
        M = csr_matrix((self.values.astype(np.float64), self.indices, self.indptr), shape=(len(self.y), 2 * f))
        if target == "q":
            return (M[:, :f] + M[:, f:]).tocsr()
        return M

    def take(self, mask: np.ndarray) -> Decisions:
        rows = np.flatnonzero(mask)
        indptr, pick = _gather(self.indptr[:-1][rows], np.diff(self.indptr)[rows])
        return Decisions(indptr, self.indices[pick], self.values[pick], self.y[rows], self.game[rows],
                         self.n_features)

    @staticmethod
    def join(parts: list[Decisions], n_features: int) -> Decisions:
        """The parts' decisions in one order whatever they came in: by game seed (stable: play order within)."""
        parts = [p for p in parts if len(p)]
        if not parts:
            z = np.zeros(0, np.int64)
            return Decisions(np.zeros(1, np.int64), z.astype(np.int32), np.zeros(0, np.float32), np.zeros(0), z,
                             n_features)
        lens = np.concatenate([np.diff(p.indptr) for p in parts])
        indices = np.concatenate([p.indices for p in parts])
        values = np.concatenate([p.values for p in parts])
        y = np.concatenate([p.y for p in parts])
        game = np.concatenate([p.game for p in parts])
        starts = np.concatenate([[0], np.cumsum(lens)])
        order = np.argsort(game, kind="stable")
        indptr, pick = _gather(starts[:-1][order], lens[order])
        return Decisions(indptr, indices[pick], values[pick], y[order], game[order], n_features)


def _gather(starts: np.ndarray, lens: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The CSR row pointer of rows of ``lens`` entries taken from ``starts``, and the entries' positions."""
    indptr = np.concatenate([[0], np.cumsum(lens)]).astype(np.int64)
    pick = np.arange(indptr[-1], dtype=np.int64) + np.repeat(np.asarray(starts, np.int64) - indptr[:-1], lens)
    return indptr, pick


def collect_outcomes(dg, kind: int, params: np.ndarray, base_vec: np.ndarray, seeds: list[int], epsilon: float,
                     seed: int, opponents: tuple = ()) -> Decisions:
    """Play one game per seed with policy ``(kind, params)``, a uniformly random legal action instead at a share
    ``epsilon`` of the decisions with two or more legal actions; record at each such decision the features of the
    action the policy plays and of the action played (``Decisions``; ``is_base`` from the base heuristic
    ``base_vec``) and, once the game has ended, the mover's reward. With ``opponents`` (``(kind, params)`` pairs)
    the policy plays only the hero's seat, ``seed % dg.seats`` as in the scenarios' cells, and the other seats play
    the opponents in turn, unrecorded (with more opponents than other seats, the lineup turns by ``dg.seats - 1``
    every ``dg.seats`` game seeds, so each opponent meets the hero in each seat); without, every seat plays the
    policy. ``dg.seats`` is the mode's largest table: in a scenario of several table sizes, a game at a smaller
    table whose hero seat is beyond it records nothing. Reproducible from ``seed`` and the game seeds alone."""
    from simkit.core.outcome_rows import record_pair

    fns = dg.fns
    f = len(dg.feature_names)
    m = max(dg.max_actions, 1)
    buf = np.empty(m, np.int64)
    xbuf = np.zeros((m, f), np.float64)
    threshold = int(epsilon * 2 ** 53)
    lens, ys, games = [], [], []
    idx, val, pos = np.empty(1 << 16, np.int32), np.empty(1 << 16, np.float32), 0  # the rows, grown by doubling
    for sd in seeds:
        s, rng, env = dg.new_game(sd)
        prng = _stream(seed, sd, 11)
        frng = _stream(seed, sd, 12)
        pick = np.random.default_rng([seed, sd, 13])
        orng = _stream(seed, sd, 14)
        hero = sd % dg.seats if opponents else -1
        # more opponents than other seats (e.g. a field against a two-seat game): the lineup turns game by game
        turn = (sd // dg.seats) * (dg.seats - 1) if len(opponents) > dg.seats - 1 else 0
        movers = []
        steps = 0
        while not fns.is_over(s) and steps < 1_000_000:
            n = fns.legal_actions(s, env, buf)
            if n == 0:
                break
            mover = int(fns.to_move(s))
            if hero >= 0 and mover != hero:
                ok, op = opponents[(mover - (mover > hero) + turn) % len(opponents)]  # in turn (seat_lineup)
                a = int(fns.policy(ok, s, env, buf, n, op, orng)) if n >= 2 else int(buf[0])
            elif n >= 2:
                a_pol = int(fns.policy(kind, s, env, buf, n, params, prng))
                a = int(buf[int(pick.integers(0, n))]) if int(pick.integers(0, 2 ** 53)) < threshold else a_pol
                dg.learned.action_features(s, env, buf, n, base_vec, frng, xbuf)
                while pos + 2 * f > len(idx):
                    idx, val = np.concatenate([idx, np.empty_like(idx)]), np.concatenate([val, np.empty_like(val)])
                end = record_pair(xbuf, buf, n, a_pol, a, idx, val, pos)
                lens.append(end - pos)
                pos = end
                movers.append(mover)
            else:
                a = int(buf[0])
            fns.apply_action(s, rng, env, a)
            steps += 1
        for mv in movers:
            ys.append(float(fns.reward(s, env, mv)))
            games.append(sd)
    return Decisions(np.concatenate([[0], np.cumsum(lens)]).astype(np.int64) if lens else np.zeros(1, np.int64),
                     idx[:pos].copy(), val[:pos].copy(), np.array(ys, np.float64), np.array(games, np.int64), f)


def _collect_chunk(mode_game, mode_name, scenario, kind, params, base_vec, seeds, epsilon, seed, opponents):
    """``collect_outcomes`` in a worker process (the decision game is rebuilt there from the scenario)."""
    from simkit.core import registry

    _, mode = registry.get_mode(mode_game, mode_name)
    return collect_outcomes(mode.engine(scenario), kind, params, base_vec, seeds, epsilon, seed, opponents)


def collect(data: dict, scenario: Path, dg, kind: int, params: np.ndarray, base_vec: np.ndarray, seeds: list[int],
            epsilon: float, seed: int, jobs: int, opponents: tuple = ()) -> Decisions:
    """``collect_outcomes`` over ``seeds``, in ``jobs`` worker processes (each rebuilds the engine from
    ``scenario``, the training copy) or here with ``dg``: the same decisions whatever ``jobs``."""
    from joblib import Parallel, delayed

    jobs = max(jobs, 1)
    if jobs == 1:
        return Decisions.join([collect_outcomes(dg, kind, params, base_vec, seeds, epsilon, seed, opponents)],
                              len(dg.feature_names))
    parts = Parallel(n_jobs=jobs)(delayed(_collect_chunk)(data["game"], data["mode"], str(scenario), kind, params,
                                                          base_vec, seeds[i::jobs], epsilon, seed, opponents)
                                  for i in range(jobs) if seeds[i::jobs])
    return Decisions.join(parts, len(dg.feature_names))


def cells_of(dg) -> int:
    """How many cells a decision game deals its seeds over (game ``g`` in cell ``g % cells``): its ``cells``
    attribute, 1 where it has none."""
    return max(int(getattr(dg, "cells", 1)), 1)


def held_out(data: Decisions, cells: int = 1) -> np.ndarray:
    """The decisions of a fifth of each cell's games (what a fit is judged on, and not fitted on), or none when
    that leaves nothing on either side. A decision game that deals game ``g`` in its cell ``g % cells`` says so by
    a ``cells`` attribute (``held_out(pool, cells_of(dg))``). Game ``g`` is held out when ``g % 5 == 0``; where the
    cells come in a multiple of five, every fifth seed would be one cell's games (the Valkyrie Incident's five
    match-ups: the fit never saw match-up 0 and was judged on it alone), so there it is the game's number within
    its cell, ``(g // cells) % 5 == 0``. Both hold out a fifth of every cell."""
    g = data.game if cells % 5 else data.game // cells
    held = (g % 5) == 0
    return np.zeros(len(data), bool) if held.all() or not held.any() else held


@dataclass
class ValueFit:
    w: np.ndarray  # weights on the features of the action (logit units): what the policy plays by
    v: np.ndarray  # weights on the features of the policy's action, a function of the state (0 for ``q``)
    intercept: float
    loss: float
    iterations: int
    target: str

    def logits(self, data: Decisions) -> np.ndarray:
        """The fitted logit of the outcome of each decision of ``data``."""
        M = data.matrix(self.target)
        return M @ (np.concatenate([self.v, self.w]) if self.target == "advantage" else self.w) + self.intercept


def _objective(theta: np.ndarray, Z, y: np.ndarray, l2: float) -> float:
    """Mean log loss of the logits ``Z @ theta[1:] + theta[0]`` plus ``l2`` times the squared weights (not the
    intercept): what :func:`fit_value` minimises, reported with the fit."""
    z = Z @ theta[1:] + theta[0]
    return float(np.mean(np.logaddexp(0.0, z) - y * z)) + l2 * float(theta[1:] @ theta[1:])


TARGETS = ("advantage", "q")
TOL = 1e-6  # L-BFGS's gradient tolerance: tight, so the weights do not hang on where the solver stopped


def fit_value(data: Decisions, *, l2: float = 1e-4, max_iter: int = 500, target: str = "advantage") -> ValueFit:
    """The logistic regression of the outcome: mean log loss plus ``l2`` times the squared weights of the
    standardised columns (each divided by its root mean square; the sparse columns are not centred, the intercept
    absorbs the mean), fitted by scikit-learn's ``LogisticRegression`` (L-BFGS from zero, deterministic): its
    objective ``C Σ loss + ½ |w|²`` with ``C = 1 / (2 · l2 · n)`` is this one times a constant, so the same
    weights; ``l2 = 0`` is unpenalised (``C = inf``).

    ``advantage``: ``logit = c + v . x(π(s)) + w . (x(a) − x(π(s)))``. ``v`` takes the value of the state under
    the policy (every decision informs it); ``w`` the advantage of the action played over the policy's own, which
    only the explored decisions inform, and there the action is drawn at random whatever the state, so ``w`` is not
    confounded with how good the states are where the policy plays an action (the logistic regression of the
    outcome on ``x(a)`` alone, ``q``, is: its ``w`` learns which actions the policy plays in won positions). The
    advantage is 0 for the policy's action, so playing ``argmax w . x(a)`` is a policy improvement step."""
    from sklearn.linear_model import LogisticRegression

    if target not in TARGETS:
        raise InputError(f"--target: must be one of {', '.join(TARGETS)} (got {target!r})")
    if len(data) == 0:
        raise InputError("the training games had no decision with two or more legal actions")
    X = data.matrix(target)
    rms = np.sqrt(np.asarray(X.multiply(X).mean(axis=0)).ravel())
    scale = np.where(rms > 1e-12, rms, 1.0)
    Z = (X @ _diag(1.0 / scale)).tocsr()
    y = np.asarray(data.y, dtype=np.float64)
    theta = np.zeros(X.shape[1] + 1)
    iterations = 0
    if 0 < y.mean() < 1:
        model = LogisticRegression(C=1.0 / (2.0 * l2 * len(y)) if l2 > 0 else np.inf, solver="lbfgs",
                                   max_iter=max_iter, tol=TOL)
        model.fit(Z, y.astype(np.int8))
        theta = np.concatenate([model.intercept_, model.coef_[0]])
        iterations = int(model.n_iter_[0])
    else:  # every decision won (or lost): the constant model, the intercept at the clipped rate
        p0 = min(max(float(y.mean()), 1e-6), 1 - 1e-6)
        theta[0] = math.log(p0 / (1 - p0))
    coef = theta[1:] / scale
    loss = _objective(theta, Z, y, l2)
    f = data.n_features
    if target == "advantage":
        return ValueFit(coef[f:], coef[:f], float(theta[0]), loss, iterations, target)
    return ValueFit(coef, np.zeros(f), float(theta[0]), loss, iterations, target)


def _diag(d):
    from scipy.sparse import diags

    return diags(d)


def auc(score: np.ndarray, y: np.ndarray) -> float:
    """The chance that a won decision scores above a lost one (ties count half): 0.5 is no better than chance."""
    from scipy.stats import rankdata

    pos = y > 0.5
    n1, n0 = int(pos.sum()), int((~pos).sum())
    if n1 == 0 or n0 == 0:
        return float("nan")
    r = rankdata(score)
    return float((r[pos].sum() - n1 * (n1 + 1) / 2) / (n1 * n0))


def heldout_scores(fit: ValueFit, data: Decisions) -> tuple[float, float, float]:
    """On ``data``: the fitted model's mean log loss, the constant win rate's (of ``data``), and the AUC."""
    z = fit.logits(data)
    y = data.y
    loss = float(np.mean(np.logaddexp(0.0, z) - y * z))
    p = min(max(float(y.mean()), 1e-9), 1 - 1e-9)
    base = float(-(y * math.log(p) + (1 - y) * math.log(1 - p)).mean())
    return loss, base, auc(z, y)


@dataclass
class OutcomeIteration:
    iteration: int
    games: int  # training games played this iteration
    decisions: int  # decisions recorded this iteration
    fitted: int  # decisions the fit saw (the window, less the held-out games)
    won: float  # share of the recorded decisions whose mover won (the behaviour policy, exploring)
    logloss: float  # held-out log loss of the fit
    base_logloss: float  # held-out log loss of the constant win rate
    auc: float  # held-out AUC
    vs_base: Gap
    vs_prev: Gap | None
    vs_reference: Gap | None
    vs_search: Gap | None
    weights: str


@dataclass
class OutcomeResult:
    name: str
    base: str
    weights: Path
    scenario: Path
    reference: str = ""
    iterations: list[OutcomeIteration] = field(default_factory=list)
    stopped: str = ""
    chosen: str = ""  # which iteration's weights were written, and why (``train.keep_iteration``)

    def rows(self) -> list[dict]:
        def g(x: Gap | None, digits=4):
            return "–" if x is None else f"{x.diff:+.{digits}f} [{x.low:+.{digits}f}, {x.high:+.{digits}f}]"

        return [{"iteration": it.iteration, "games": it.games, "decisions": f"{it.decisions:,}",
                 "held-out log loss (constant)": f"{it.logloss:.4f} ({it.base_logloss:.4f})",
                 "AUC": f"{it.auc:.3f}", "learned": f"{it.vs_base.a:.4f}", f"vs {self.base}": g(it.vs_base),
                 "vs previous": g(it.vs_prev), f"vs {self.reference or 'reference'}": g(it.vs_reference),
                 "vs search": g(it.vs_search),
                 "n (base / search)": f"{it.vs_base.n:,} / {it.vs_search.n if it.vs_search else 0:,}"}
                for it in self.iterations]


def opponent_policies(dg, names, source) -> tuple:
    """``(kind, params)`` of each of ``names``, the policies of the scenario's engine ``dg`` that play the seats
    other than the hero's (``collect_outcomes``); an ``InputError`` naming the option if the mode has one seat or
    a name is not one of its policies."""
    if not names:
        return ()
    if dg.seats < 2:
        raise InputError(f"--opponent: {source} is a one-seat game; the option is for games of two or more seats")
    out = []
    for n in names:
        if n not in dg.policies:
            raise InputError(f"--opponent: {n!r} is not a policy of {source}; allowed values: "
                             f"{', '.join(sorted(dg.policies))}")
        k, v = dg.policies[n]
        out.append((k, np.asarray(v, np.float64)))
    return tuple(out)


def train_outcomes(scenario: str | Path, name: str, out_dir: str | Path, *, base: str | None = None,
                   budget: int = 20000, iterations: int = 3, seed: int = 1, epsilon: float = 0.02,
                   window: int = 1, l2: float = 1e-4, eval_games: int = 2000, search_games: int = 0,
                   rollouts: int = 32, metric: str = "won", jobs: int = 1, weights: str | Path | None = None,
                   init: str | Path | None = None, reference: str | Path | None = None, target: str = "advantage",
                   margin: float = 0.0, opponents: tuple[str, ...] = (), progress: bool = False, keep: str = "best",
                   echo=None) -> OutcomeResult:
    """Train the learned policy ``name`` for ``scenario`` from game outcomes (see the module docstring).
    ``budget``: training games in all, split evenly over the iterations; ``window``: iterations of games each fit
    sees (the latest ones); ``init``: weights the first iteration plays (default: the base heuristic);
    ``reference``: weights every iteration is also judged against (the committed ones); ``target``: what the fit
    learns (``fit_value``: with ``advantage`` each iteration's weights are the previous policy's plus the fitted
    advantage over it, so that where the fit finds no advantage the policy keeps its choice); ``eval_games`` /
    ``search_games``: fresh games per cell of the judgements; ``margin``: without ``init``, the weight of
    ``is_base`` (feature 0) the fitted advantage is added to, so that the first iteration leaves the heuristic's
    action only for a fitted advantage above ``margin`` (logit units); ``opponents``: policies of the scenario
    the other seats play in turn while collecting, the learned policy only in the hero's seat (as the scenarios'
    cells seat them; default: every seat plays it). Output as ``train``'s: each iteration's weights and
    ``scenario.toml`` in ``out_dir``, the final weights at ``weights``."""
    from simkit.core import learned as LM
    from simkit.core.policies import HEURISTIC, LEARNED, learned_vector
    from simkit.core.scenario import read_toml
    from simkit.core.tune import _build, per_game_means

    scenario, out_dir, data, mode, weights, dhash = prepare(scenario, name, out_dir, weights)
    if budget < iterations:
        raise InputError(f"--budget: must be at least the number of iterations ({iterations}; got {budget})")
    if not 0.0 <= epsilon <= 1.0:
        raise InputError(f"--epsilon: must be from 0 to 1 (got {epsilon})")
    if target not in TARGETS:
        raise InputError(f"--target: must be one of {', '.join(TARGETS)} (got {target!r})")
    if window < 1:
        raise InputError(f"--window: must be at least 1 (got {window})")
    if window > 1 and target == "advantage":
        # each iteration's advantage is over the policy that played its games: pooled with older games, the fit
        # would add to the current weights advantages measured over older policies
        raise InputError(f"--window: must be 1 with --target advantage (got {window}; the fitted advantage is "
                         "over the policy that played the games, so only the latest iteration's games fit it); "
                         "use --target q to pool iterations")
    if margin and init is not None:
        raise InputError("--margin: only without --init (it is the start from the base heuristic)")
    if keep not in KEEP:
        raise InputError(f"--keep: must be one of {', '.join(map(repr, KEEP))} (got {keep!r})")
    for p in (init, reference):
        if p is not None:
            LM.load_model(p)  # an InputError naming the file if it is not one
    source = scenario
    # every check before anything is written
    st = stage(source, data, mode, name, base, out_dir, metric,
               check=lambda dg: opponent_policies(dg, opponents, source))
    scenario, data, dg, spec, base = st.scenario, st.data, st.dg, st.spec, st.base
    base_vec, base_params, base_table = st.base_vec, st.base_params, st.base_table
    opp = opponent_policies(dg, opponents, source)

    def vector(path):
        return learned_vector(spec, {"weights": str(path), "temperature": 0.0, "base_params": base_params})

    result = OutcomeResult(name=name, base=base, weights=weights, scenario=out_dir / "scenario.toml",
                           reference=Path(reference).stem if reference is not None else "")
    if init is not None:
        start = LM.load_model(init)
        if start.hidden or list(start.feature_names) != list(dg.feature_names):
            raise InputError(f"--init {init}: must be a linear model over this mode's features")
        kind, cur, scores_w = LEARNED, vector(init), start.w.copy()
        init_meta = {"init": Path(init).name,
                     "init_sha256": hashlib.sha256(Path(init).read_bytes()).hexdigest()[:16]}
    else:
        kind, cur, scores_w = HEURISTIC, base_vec, np.zeros(len(dg.feature_names))
        scores_w[0] = margin  # feature 0 is is_base in every game (simkit.core.learned)
        init_meta = {"margin": margin} if margin else {}
    per_iter = budget // iterations
    recent: list[Decisions] = []
    prev_path: Path | None = Path(init) if init is not None else None
    f = len(dg.feature_names)
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=iterations, desc=f"train {name} (outcomes)", unit="iteration", leave=False)
    for it in range(1, iterations + 1):
        seeds = [(seed * 1000 + it) * 1_000_000 + 500_000 + g for g in range(per_iter)]
        new = collect(data, scenario, dg, kind, cur, base_vec, seeds, epsilon, seed, jobs, opp)
        if len(new) == 0:
            raise InputError(f"{source}: the training games had no decision with two or more legal actions")
        recent = (recent + [new])[-window:]
        pool = Decisions.join(recent, f)
        held = held_out(pool, cells_of(dg))
        fit = fit_value(pool.take(~held), l2=l2, target=target)
        w = scores_w + fit.w if target == "advantage" else fit.w
        ho = pool.take(held) if held.any() else pool
        loss, base_loss, area = heldout_scores(fit, ho)
        model = LM.Model(data["game"], data["mode"], list(dg.feature_names), w, np.zeros((0, f)), np.zeros(0),
                         np.zeros(0), base, base_params, dhash,
                         {"iteration": it, "method": "outcomes", "trained_decisions": int((~held).sum()),
                          "target": target, **init_meta,
                          "seed": seed, "epsilon": epsilon, "window": window, "l2": l2,
                          "intercept": round(fit.intercept, 9), "heldout_logloss": round(loss, 6),
                          "heldout_auc": round(area, 6)})
        path = model.save(out_dir / f"{name}.iter{it}.npz")
        pols = {"__base": base_table, "__learned": {"kind": "learned", "weights": str(path.resolve())}}
        if prev_path is not None:
            pols["__prev"] = {"kind": "learned", "weights": str(prev_path.resolve())}
        if reference is not None:
            pols["__ref"] = {"kind": "learned", "weights": str(Path(reference).resolve())}
        means = per_game_means(_build(scenario, data, pols), seed, (EVAL + 2000 + it,), eval_games, metric, jobs)
        vs_search = None
        if search_games > 0:
            tp = {"__learned": pols["__learned"], "__base": base_table,
                  "__search": {"kind": "search", "rollouts": rollouts, "base": "__base"}}
            tm = per_game_means(_build(scenario, data, tp), seed, (EVAL + 3000 + it,), search_games, metric, jobs)
            vs_search = _gap(tm["__learned"], tm["__search"])
        result.iterations.append(OutcomeIteration(
            it, per_iter, len(new), int((~held).sum()), float(new.y.mean()), loss, base_loss, area,
            _gap(means["__learned"], means["__base"]),
            _gap(means["__learned"], means["__prev"]) if prev_path is not None else None,
            _gap(means["__learned"], means["__ref"]) if reference is not None else None, vs_search, str(path)))
        if echo is not None:
            echo("  ".join(f"{k}: {v}" for k, v in result.rows()[-1].items()))
        if bar is not None:
            bar.update(1)
        prev_path = path
        kind, cur, scores_w = LEARNED, vector(path), w
    result.stopped = f"all {iterations} iterations spent"
    if bar is not None:
        bar.close()
    chosen, result.chosen = keep_iteration(scenario, data, base_table, [Path(it.weights) for it in result.iterations],
                                           keep, seed, eval_games, metric, jobs)
    LM.load_model(result.iterations[chosen].weights).save(result.weights)
    _write_scenario(source, read_toml(source)[0], out_dir, name, result.weights)
    return result


# --- a value model for `search` (issue 41: search that stands on a learned value) ------------------------------

@dataclass
class ValueResult:
    name: str
    policy: str  # the policy the value is of (the rollouts' base policy)
    weights: Path
    scenario: Path
    games: int
    decisions: int
    fitted: int
    won: float
    logloss: float
    base_logloss: float
    auc: float
    intercept: float

    def rows(self) -> list[dict]:
        return [{"policy": self.policy, "games": f"{self.games:,}", "decisions": f"{self.decisions:,}",
                 "fitted": f"{self.fitted:,}", "mover won": f"{self.won:.4f}",
                 "held-out log loss (constant)": f"{self.logloss:.4f} ({self.base_logloss:.4f})",
                 "AUC": f"{self.auc:.3f}", "intercept": f"{self.intercept:+.4f}"}]


def train_value(scenario: str | Path, name: str, out_dir: str | Path, *, base: str | None = None,
                init: str | Path | None = None, budget: int = 20000, seed: int = 1, l2: float = 1e-4,
                depth: int = 8, rollouts: int = 32, jobs: int = 1, weights: str | Path | None = None,
                metric: str = "won", overrides=()) -> ValueResult:
    """Fit the value of a policy (``init`` weights, else the base heuristic) for `search` to stand on: ``budget``
    games played by it without exploration, at every decision with two or more legal actions the features of the
    policy's action ``x(π(s))`` and how the game ended for the mover, and the logistic regression ``logit P(won)
    = c + v . x(π(s))`` (:func:`fit_value`; one game seed in five held out to judge it). Written as a model
    scoring with ``v`` (``meta``: ``method = "value"``, ``intercept = c``) at ``weights`` (default
    ``SCENARIO_STEM.NAME.npz`` next to the scenario), with ``out_dir/scenario.toml``: the scenario playing
    ``[policies.NAME]``, a `search` over the policy with ``rollouts`` whose rollouts stop after ``depth``
    decisions and read the value there (``decision.rollout_value``). ``overrides`` (``--set``) play the games
    in part of the scenario, e.g. one cell: the value is then that part's (the written scenario has none)."""
    from simkit.core import learned as LM
    from simkit.core.policies import HEURISTIC, LEARNED, learned_vector
    from simkit.core.scenario import read_toml
    from simkit.core.train import _training_copy

    scenario, out_dir, data, mode, weights, dhash = prepare(scenario, name, out_dir, weights, overrides)
    if depth < 1:
        raise InputError(f"--depth: must be at least 1 (got {depth})")
    start = LM.load_model(init) if init is not None else None  # an InputError naming the file if it is not one
    source = scenario
    st = stage(source, data, mode, name, base, out_dir, metric)
    dg, spec, base, base_vec, base_params = st.dg, st.spec, st.base, st.base_vec, st.base_params
    if overrides:  # the workers' copy plays what the engine above plays: the scenario with the overrides
        _training_copy(source, data, out_dir, name)
    if start is not None:
        if list(start.feature_names) != list(dg.feature_names):
            raise InputError(f"--init {init}: must be a model over this mode's features")
        kind = LEARNED
        cur = learned_vector(spec, {"weights": str(init), "temperature": 0.0, "base_params": base_params})
        policy = Path(init).name
    else:
        kind, cur, policy = HEURISTIC, base_vec, base
    f = len(dg.feature_names)
    seeds = [(seed * 1000 + 900) * 1_000_000 + g for g in range(budget)]
    pool = collect(data, st.scenario, dg, kind, cur, base_vec, seeds, 0.0, seed, jobs)
    if len(pool) == 0:
        raise InputError(f"{source}: the games had no decision with two or more legal actions")
    held = held_out(pool, cells_of(dg))
    fit = fit_value(pool.take(~held), l2=l2, max_iter=5000)
    loss, base_loss, area = heldout_scores(fit, pool.take(held) if held.any() else pool)
    model = LM.Model(data["game"], data["mode"], list(dg.feature_names), fit.v, np.zeros((0, f)), np.zeros(0),
                     np.zeros(0), base, base_params, dhash,
                     {"method": "value", "policy": policy, "intercept": float(fit.intercept), "seed": seed,
                      "games": budget, "trained_decisions": int((~held).sum()), "l2": l2,
                      "heldout_logloss": round(loss, 6), "heldout_auc": round(area, 6),
                      **({"set": [str(o) for o in overrides]} if overrides else {})})
    model.save(weights)
    source_data = read_toml(source)[0]
    pols = source_data.get("policies", {})
    tables, base_name = {}, base
    if start is not None:  # the scenario's own learned policy that plays these weights, else a new one
        same = [k for k, v in pols.items() if k != name and isinstance(v, dict) and v.get("kind") == "learned"
                and not v.get("temperature") and isinstance(v.get("weights"), str)
                and (source.parent / v["weights"]).resolve() == Path(init).resolve()]
        base_name = same[0] if same else f"{name}_policy"
        if not same:
            tables[base_name] = {"kind": "learned", "weights": os.path.relpath(Path(init).resolve(),
                                                                                out_dir.resolve())}
    tables[name] = {"kind": "search", "base": base_name, "rollouts": rollouts, "depth": depth,
                    "value": os.path.relpath(weights.resolve(), out_dir.resolve())}
    out = _write_scenario(source, source_data, out_dir, name, weights, tables,
                          "the search standing on the value")
    return ValueResult(name, policy, weights, out, budget, len(pool), int((~held).sum()), float(pool.y.mean()),
                       loss, base_loss, area, float(fit.intercept))
