"""`learned` policies: a small model that scores each legal action from the mover's features.

A game whose engine has a feature function (``features(s, env, a, is_base, idx, val) -> m``: the non-zero slots
of a fixed-length float vector describing action ``a`` in state ``s``, read only from what the mover may see;
``is_base`` says whether ``a`` is the base heuristic's own choice, and by convention slot 0 is that flag) can
play a `learned` policy. The numba side (scoring, playing, the parameter vector's
layout) is ``simkit.core.decision``'s ``specialize_learned``; this module is the Python side:

- :class:`Model`: the weights of a linear scorer with an optional tanh hidden layer, saved as a versioned
  ``.npz`` together with the game and mode, the feature names, the base heuristic's parameters and a hash of the
  card data and rules it was trained on (:func:`data_hash`);
- :func:`read_learned_table`: a scenario's ``[policies.NAME]`` table with ``kind = "learned"``;
- :func:`fit`: the model fitted to a teacher's choices by softmax cross-entropy (scipy's L-BFGS), with the
  features standardised during the fit and the scaling folded back into the weights.

Training (expert iteration over `search`) is ``simkit.core.train``.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np

from simkit.errors import InputError

FORMAT = "simkit-learned-1"
# top-level scenario tables that are not card data or rules: a learned policy stays valid when they change
NOT_RULES = ("run", "policies")


@dataclass
class Model:
    """A learned scorer: ``score(x) = w . x + v . tanh(W1 x + b1)`` over a game's features ``x``."""

    game: str
    mode: str
    feature_names: list[str]
    w: np.ndarray
    W1: np.ndarray  # (hidden, features)
    b1: np.ndarray
    v: np.ndarray
    base: str  # the base heuristic's name, and its parameters (the ``is_base`` feature is its choice)
    base_params: dict[str, float]
    data_hash: str
    meta: dict = field(default_factory=dict)

    @property
    def n_features(self) -> int:
        return len(self.feature_names)

    @property
    def hidden(self) -> int:
        return int(self.v.shape[0])

    def vector(self, temperature: float = 0.0) -> np.ndarray:
        """The model part of the policy's parameter vector (``decision``: ``F H T | w | W1 | b1 | v``)."""
        head = np.array([self.n_features, self.hidden, float(temperature)], np.float64)
        return np.concatenate([head, self.w, self.W1.ravel(), self.b1, self.v]).astype(np.float64)

    def save(self, path: str | Path) -> Path:
        """Write the model as ``.npz`` (atomically: a temporary file renamed into place)."""
        path = Path(path)
        meta = {"format": FORMAT, "game": self.game, "mode": self.mode, "features": self.feature_names,
                "base": self.base, "base_params": self.base_params, "data_hash": self.data_hash, **self.meta}
        tmp = path.with_name(f".{path.name}.tmp")
        with open(tmp, "wb") as fh:
            np.savez(fh, meta=np.array(json.dumps(meta, sort_keys=True)), w=self.w, W1=self.W1, b1=self.b1,
                     v=self.v)
        os.replace(tmp, path)
        load_model.cache_clear()
        return path


def _what_is_wrong(path: str, exc: Exception) -> str:
    import zipfile

    size = os.path.getsize(path) if os.path.exists(path) else -1
    if size == 0:
        return "the file is empty"
    with open(path, "rb") as fh:
        head = fh.read(4)
    if head != b"PK\x03\x04":
        return f"not a .npz archive (it does not start as a zip file does; {size:,} bytes)"
    if isinstance(exc, (zipfile.BadZipFile, EOFError)):
        return f"not a .npz archive, or a truncated or corrupted one ({type(exc).__name__}: {exc})"
    return f"a corrupted or incomplete archive ({type(exc).__name__}: {exc})"


@lru_cache(maxsize=64)
def _load(path: str, mtime: float) -> Model:
    what = "not a simkit learned-policy file"
    try:
        with np.load(path, allow_pickle=False) as z:
            if not hasattr(z, "files") or not {"meta", "w", "W1", "b1", "v"} <= set(z.files):
                missing = sorted({"meta", "w", "W1", "b1", "v"} - set(getattr(z, "files", ())))
                raise InputError(f"{path}: {what}: it lacks the arrays {', '.join(missing)} (write it with "
                                 "simkit train)")
            meta = json.loads(str(z["meta"]))
            arrays = {k: np.asarray(z[k], np.float64) for k in ("w", "W1", "b1", "v")}
    except InputError:
        raise
    except Exception as exc:  # noqa: BLE001 - a truncated, empty or corrupted file: one line naming it
        first = (str(_what_is_wrong(path, exc)).splitlines() or [""])[0][:200]
        raise InputError(f"{path}: {what}: {first}") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        got = meta.get("format") if isinstance(meta, dict) else meta
        raise InputError(f"{path}: field 'format' must be {FORMAT!r} (got {got!r}); retrain it with "
                         "simkit train")
    fields = {"game": str, "mode": str, "features": list, "base": str, "base_params": dict, "data_hash": str}
    for k, t in fields.items():
        if not isinstance(meta.get(k), t):
            raise InputError(f"{path}: {what}: its field {k!r} is missing or not {t.__name__} (got "
                             f"{meta.get(k)!r:.60}); retrain it with simkit train")
    if not all(isinstance(x, str) for x in meta["features"]) or not all(
            isinstance(x, (int, float)) and not isinstance(x, bool) for x in meta["base_params"].values()):
        raise InputError(f"{path}: {what}: its feature names or base parameters are malformed; retrain it with "
                         "simkit train")
    f = len(meta["features"])
    if arrays["v"].ndim != 1:
        raise InputError(f"{path}: the weights' shapes do not match its {f} features")
    h = arrays["v"].shape[0]
    if arrays["w"].shape != (f,) or arrays["W1"].shape != (h, f) or arrays["b1"].shape != (h,):
        raise InputError(f"{path}: the weights' shapes do not match its {f} features and {h} hidden units")
    if not all(np.isfinite(a).all() for a in arrays.values()):
        raise InputError(f"{path}: {what}: its weights hold nan or infinite values; retrain it with simkit train")
    extra = {k: v for k, v in meta.items()
             if k not in ("format", "game", "mode", "features", "base", "base_params", "data_hash")}
    return Model(meta["game"], meta["mode"], list(meta["features"]), arrays["w"], arrays["W1"], arrays["b1"],
                 arrays["v"], meta["base"], dict(meta["base_params"]), meta["data_hash"], extra)


def load_model(path: str | Path) -> Model:
    """The model in ``path`` (cached while the file is unchanged); InputError naming the file if it is not one."""
    p = Path(path)
    if not p.is_file():
        raise InputError(f"{p}: learned-policy file not found")
    return _load(str(p), p.stat().st_mtime)


load_model.cache_clear = _load.cache_clear  # type: ignore[attr-defined]


def _table_model(t, field: str, path, noun: str) -> Model:
    """The model a ``[policies.NAME]`` table's ``field`` names; one line naming the field if it is not ``noun``."""
    try:
        return load_model(path)
    except InputError as exc:
        raise t.error(field, f"names a file that is not {noun} ({exc})") from None


def _check_trained_for(t, field: str, path, model: Model, expect: tuple | None, trained: str, hint: str) -> None:
    """One line naming ``field`` unless ``model`` was trained for the scenario's ``expect = (game, mode)``
    (``trained``: what the message calls the model; ``hint``: the fix)."""
    if expect is not None and all(isinstance(x, str) for x in expect) and (model.game, model.mode) != tuple(expect):
        raise t.error(field, f"names {trained} trained for {model.game}/{model.mode}, not {expect[0]}/{expect[1]} "
                             f"({path}); {hint}")


def read_learned_table(t, values: dict, expect: tuple | None = None) -> dict:
    """A ``[policies.NAME]`` table of kind ``learned``: ``weights`` (a ``.npz`` written by ``simkit train``,
    relative to the scenario file) and ``temperature`` (0: always the best-scored action). ``expect``: the
    scenario's ``(game, mode)``, which the weights must have been trained for."""
    if not t.has("weights") and not values.get("weights"):
        raise t.error("weights", "is missing (expected the .npz file simkit train wrote)")
    path = t.file_path("weights", values.get("weights", ""))
    temperature = t.get("temperature", float, float(values.get("temperature", 0.0)), min=0.0, max=100.0)
    t.finish()
    model = _table_model(t, "weights", path, "a learned policy")
    _check_trained_for(t, "weights", path, model, expect, "a policy",
                       "name weights trained on this mode (simkit train)")
    from simkit.core.scenario import cwd_relative

    return {"weights": cwd_relative(path), "temperature": temperature, "base": model.base,
            "base_params": dict(model.base_params), "data_hash": model.data_hash}


def read_value_file(t, values: dict, expect: tuple | None = None) -> dict:
    """A `search` table's ``value``: a value model (``simkit train --method value``; relative to the scenario
    file) the rollouts stop at after ``depth`` decisions (at least 1), for the scenario's ``(game, mode)``; not
    with ``budget = "ismcts"`` (the tree credits every seat, the value is the mover's)."""
    path = t.file_path("value", values.get("value", ""))
    model = _table_model(t, "value", path, "a value model")
    if model.meta.get("method") != "value" or not isinstance(model.meta.get("intercept"), (int, float)):
        raise t.error("value", f"names a policy's weights, not a value model ({path}); write one with simkit train "
                               "--method value")
    _check_trained_for(t, "value", path, model, expect, "a value model",
                       "write one for this mode (simkit train --method value)")
    if values.get("depth", 0) < 1:
        raise t.error("depth", "must be at least 1 with a value model (the decisions each rollout plays before the "
                               f"value scores its position; got {values.get('depth', 0)})")
    if values.get("budget") == "ismcts":
        raise t.error("value", "cannot score the rollouts of budget = \"ismcts\" (the tree credits every seat, a "
                               "value model is the mover's); allowed budgets with a value: halving, uniform")
    from simkit.core.scenario import cwd_relative

    return {"value": cwd_relative(path), "value_data_hash": model.data_hash}


# --- what a model was trained on -------------------------------------------------------------------------------

def named_files(path: Path, data: dict) -> dict[str, Path]:
    """The scenario's top-level fields that name a data file (``FILE_FIELDS``: card data) and name an existing one,
    by field name; no other string (a long ``description``) is tried as a path."""
    from simkit.core.scenario import FILE_FIELDS

    out = {}
    for k, v in sorted(data.items()):
        if k in FILE_FIELDS and isinstance(v, str) and v:
            p = Path(v) if Path(v).is_absolute() else Path(path).parent / v
            if p.is_file():
                out[k] = p
    return out


def data_hash(path: str | Path, data: dict, rules_version: str = "") -> str:
    """A hash of what a learned policy depends on: the game, mode and rules version, the scenario's tables
    other than ``[run]`` and ``[policies]`` (``[rules]``, ``[setup]``, …) and the bytes of every card file it
    names. Cell selections (which Warbands, levels, Emblems) and run sizes are not part of it."""
    h = hashlib.sha256()
    head = {"game": data.get("game"), "mode": data.get("mode"), "rules_version": rules_version,
            "tables": {k: v for k, v in sorted(data.items()) if isinstance(v, dict) and k not in NOT_RULES}}
    h.update(json.dumps(head, sort_keys=True, default=str).encode())
    for name, p in named_files(Path(path), data).items():
        h.update(name.encode())
        h.update(hashlib.sha256(p.read_bytes()).digest())
    return h.hexdigest()[:16]


def stale_policies(policies: dict, current: str) -> list[str]:
    """One message for each learned policy (``describe()['policies']``) trained on other data than ``current``."""
    out = []
    for name, spec in policies.items():
        if isinstance(spec, dict) and spec.get("value") and spec.get("value_data_hash") != current:
            out.append(f"policy {name!r}'s value model ({spec.get('value')}) was trained on other card data or rules "
                       f"than this scenario's (data hash {spec.get('value_data_hash')} against {current}): retrain "
                       "it with simkit train --method value")
        if isinstance(spec, dict) and spec.get("kind") == "learned" and spec.get("data_hash") != current:
            out.append(f"policy {name!r} ({spec.get('weights')}) was trained on other card data or rules than this "
                       f"scenario's (data hash {spec.get('data_hash')} against {current}): retrain it with "
                       "simkit train")
    return out


# --- fitting ---------------------------------------------------------------------------------------------------

def _unpack(theta, f, h):
    w = theta[:f]
    W1 = theta[f:f + h * f].reshape(h, f)
    b1 = theta[f + h * f:f + h * f + h]
    v = theta[f + h * f + h:]
    return w, W1, b1, v


def _loss(theta, X, starts, target, weight, f, h, l2):
    """Mean softmax cross-entropy of the teacher's choices over decisions (rows ``starts[d]:starts[d+1]`` of
    ``X``), weighted, plus ``l2`` times the squared weights; and its gradient."""
    w, W1, b1, v = _unpack(theta, f, h)
    score = X @ w
    if h:
        A = np.tanh(X @ W1.T + b1)
        score = score + A @ v
    seg = starts[:-1]
    mx = np.maximum.reduceat(score, seg)
    counts = np.diff(starts)
    e = np.exp(score - np.repeat(mx, counts))
    z = np.add.reduceat(e, seg)
    p = e / np.repeat(z, counts)
    dw = weight / weight.sum()
    loss = float(-(dw * np.log(np.maximum(p[starts[:-1] + target], 1e-300))).sum())
    g_score = p * np.repeat(dw, counts)
    g_score[starts[:-1] + target] -= dw
    gw = X.T @ g_score
    parts = [gw]
    if h:
        gv = A.T @ g_score
        dU = np.outer(g_score, v) * (1.0 - A * A)
        parts = [gw, (dU.T @ X).ravel(), dU.sum(axis=0), gv]
    loss += l2 * float(theta @ theta)
    grad = np.concatenate(parts) + 2.0 * l2 * theta
    return loss, grad


@dataclass
class Fit:
    w: np.ndarray
    W1: np.ndarray
    b1: np.ndarray
    v: np.ndarray
    loss: float
    iterations: int


def fit(X: np.ndarray, starts: np.ndarray, target: np.ndarray, *, hidden: int = 0, l2: float = 1e-4,
        weight: np.ndarray | None = None, seed: int = 0, max_iter: int = 500) -> Fit:
    """Fit the scorer so that the softmax over each decision's actions puts its mass on the teacher's choice.

    ``X`` (rows, features): one row per legal action; decision ``d`` is rows ``starts[d]:starts[d+1]`` and the
    teacher chose its row ``target[d]``. The features are standardised for the fit (the mean of a feature
    cancels within a decision's softmax; the scale is folded back into the weights), so the returned weights
    apply to the raw features."""
    from scipy.optimize import minimize

    X = np.asarray(X, np.float64)
    starts = np.asarray(starts, np.int64)
    target = np.asarray(target, np.int64)
    d = len(starts) - 1
    weight = np.ones(d) if weight is None else np.asarray(weight, np.float64)
    f = X.shape[1]
    mean = X.mean(axis=0)
    sd = X.std(axis=0)
    sd = np.where(sd > 1e-12, sd, 1.0)
    Z = (X - mean) / sd
    rng = np.random.default_rng(seed)
    theta0 = np.zeros(f + hidden * f + 2 * hidden)
    if hidden:
        theta0[f:f + hidden * f] = rng.normal(0.0, 0.3 / np.sqrt(f), hidden * f)
        theta0[f + hidden * f + hidden:] = rng.normal(0.0, 0.3, hidden)
    res = minimize(_loss, theta0, args=(Z, starts, target, weight, f, hidden, l2), jac=True, method="L-BFGS-B",
                   options={"maxiter": max_iter})
    w, W1, b1, v = _unpack(res.x, f, hidden)
    # back to raw features: w . (x - m) / sd = (w / sd) . x + const (the constant cancels in the softmax)
    W1r = W1 / sd
    return Fit(w / sd, W1r, b1 - W1r @ mean, v.copy(), float(res.fun), int(res.nit))


def agreement(model_scores: np.ndarray, starts: np.ndarray, target: np.ndarray) -> float:
    """The share of decisions where the best-scored row is the teacher's choice (the first among equals)."""
    hits = 0
    for d in range(len(starts) - 1):
        seg = model_scores[starts[d]:starts[d + 1]]
        hits += int(np.argmax(seg) == target[d])
    return hits / max(len(starts) - 1, 1)


def scores(w, W1, b1, v, X) -> np.ndarray:
    """The scorer's value of each row of ``X`` (the numba kernel's arithmetic, in numpy)."""
    s = X @ w
    if len(v):
        s = s + np.tanh(X @ W1.T + b1) @ v
    return s
