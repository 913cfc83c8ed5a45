"""`learned` policies: the fit, the kernel's arithmetic, `simkit train` on a game whose best play is known, no
peeking, and weights refused when they were trained on other card data or features."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from simkit.core import learned as LM
from simkit.core import loader, registry
from simkit.core.policies import LEARNED, param_vector
from simkit.core.rng import seed_stream
from simkit.errors import InputError
from simkit.games.toy import engine as TE

ROOT = Path(__file__).resolve().parents[2]
TOY = ROOT / "scenarios" / "toy" / "draw.toml"
LEARNED_ENGINES = sorted(f"{g.name}/{m.name}" for g, m in registry.all_modes() if m.features is not None)


def _stream(seed, stream=0):
    rng = np.empty(4, np.uint64)
    seed_stream(rng, np.array([seed, 11], np.uint64), 0, stream)
    return rng


def test_fit_learns_a_hand_built_teacher():
    """The teacher always takes the action whose feature 0 minus feature 1 is largest: the fit must agree on
    held-out decisions and weigh feature 0 up and feature 1 down (feature 2 is noise)."""
    rng = np.random.default_rng(3)

    def decisions(k):
        counts = rng.integers(2, 6, k)
        X = rng.normal(size=(counts.sum(), 3))
        starts = np.concatenate([[0], np.cumsum(counts)])
        target = np.array([np.argmax(X[a:b, 0] - X[a:b, 1]) for a, b in zip(starts[:-1], starts[1:])])
        return X, starts, target

    X, starts, target = decisions(3000)
    f = LM.fit(X, starts, target, l2=1e-6)
    assert f.w[0] > 1.0 and f.w[1] < -1.0 and abs(f.w[2]) < 0.2 * f.w[0]
    Xh, sh, th = decisions(1000)
    assert LM.agreement(LM.scores(f.w, f.W1, f.b1, f.v, Xh), sh, th) > 0.97


def test_fit_gradient_matches_finite_differences():
    rng = np.random.default_rng(5)
    counts = rng.integers(2, 5, 40)
    X = rng.normal(size=(counts.sum(), 4))
    starts = np.concatenate([[0], np.cumsum(counts)])
    target = rng.integers(0, 2, 40)
    h = 3
    theta = rng.normal(size=4 + h * 4 + 2 * h)
    weight = rng.uniform(0.5, 2.0, 40)
    _, grad = LM._loss(theta, X, starts, target, weight, 4, h, 1e-3)
    eps = 1e-6
    for k in range(len(theta)):
        e = np.zeros_like(theta)
        e[k] = eps
        up, _ = LM._loss(theta + e, X, starts, target, weight, 4, h, 1e-3)
        dn, _ = LM._loss(theta - e, X, starts, target, weight, 4, h, 1e-3)
        assert abs((up - dn) / (2 * eps) - grad[k]) < 1e-6


def _toy_model(hidden: int, seed: int, base: str = "timid") -> LM.Model:
    rng = np.random.default_rng(seed)
    f = TE.N_FEATURES
    return LM.Model("toy", "draw", list(TE.FEATURES), rng.normal(size=f), rng.normal(size=(hidden, f)),
                    rng.normal(size=hidden), rng.normal(size=hidden), base, {"stop_at": 6.0}, "x")


def test_kernel_scores_equal_the_numpy_scorer():
    """The numba scorer (sparse features, hidden layer) computes what ``learned.scores`` computes on the dense
    feature rows; the policy plays the best-scored action."""
    dg = registry.get_mode("toy", "draw")[1].engine()
    model = _toy_model(3, 1)
    vec = np.concatenate([param_vector(TE.PARAMS, {"stop_at": 6.0}), model.vector(0.0)])
    buf = np.empty(2, np.int64)
    X = np.zeros((2, TE.N_FEATURES))
    out = np.zeros(2)
    checked = 0
    for seed in range(30):
        s, rng, env = dg.new_game(seed)
        while not dg.fns.is_over(s):
            n = dg.fns.legal_actions(s, env, buf)
            if n == 2:
                dg.learned.action_features(s, env, buf, n, vec, _stream(seed), X)
                dg.learned.learned_scores(s, env, buf, n, vec, _stream(seed), out)
                want = LM.scores(model.w, model.W1, model.b1, model.v, X)
                assert np.allclose(out, want, atol=1e-12)
                a = dg.fns.policy(LEARNED, s, env, buf, n, vec, _stream(seed))
                assert a == buf[int(np.argmax(want))]
                checked += 1
            dg.fns.apply_action(s, rng, env, buf[0] if n == 1 else buf[seed % 2])
    assert checked > 20


def test_temperature_samples_by_softmax():
    """With temperature T the policy draws action a with probability exp(score_a / T) / sum (within 4 SE)."""
    dg = registry.get_mode("toy", "draw")[1].engine()
    model = _toy_model(0, 2)
    vec = np.concatenate([param_vector(TE.PARAMS, {"stop_at": 6.0}), model.vector(1.5)])
    s, rng, env = dg.new_game(4)
    buf = np.empty(2, np.int64)
    n = dg.fns.legal_actions(s, env, buf)
    sc = np.zeros(2)
    dg.learned.learned_scores(s, env, buf, n, vec, _stream(1), sc)
    p = np.exp(sc / 1.5) / np.exp(sc / 1.5).sum()
    prng = _stream(9)
    k = 20_000
    draws = sum(int(dg.fns.policy(LEARNED, s, env, buf, n, vec, prng) == buf[1]) for _ in range(k))
    assert abs(draws / k - p[1]) < 4 * np.sqrt(p[1] * (1 - p[1]) / k)


@pytest.fixture(scope="module")
def toy_trained(tmp_path_factory):
    """`simkit train` on Draw to Ten from the weak `timid` heuristic (stops from 6 on)."""
    from simkit.core.train import train

    out = tmp_path_factory.mktemp("toy-train")
    r = train(TOY, "learned", out, base="timid", rollouts=16, budget=400, iterations=2, seed=5, eval_games=2000,
              teacher_games=1000, weights=out / "learned.npz")
    return r


def _optimal_values(low=8, high=10):
    """Exact win probabilities of stopping and of drawing (then playing best) at (total, cards left)."""
    from fractions import Fraction
    from functools import lru_cache

    @lru_cache(maxsize=None)
    def best(total, left):
        if total > high:
            return Fraction(0)
        return max(q(total, left))

    @lru_cache(maxsize=None)
    def q(total, left):
        stop = Fraction(int(low <= total <= high))
        if not left:
            return stop, Fraction(-1)
        draw = sum(Fraction(left.count(c), len(left)) * best(total + c, left[:left.index(c)] + left[left.index(c) + 1:])
                   for c in sorted(set(left)))
        return stop, draw

    return q


def toy_wins_playing_best(dg, kind, vec, games: int, first: int) -> int:
    """Play ``games`` Draw to Ten games (seeds ``first``, ``first + 1``, …) with policy ``(kind, vec)``, asserting
    that every decision takes an action of the highest exact value (``_optimal_values``); returns the wins."""
    q = _optimal_values()
    buf = np.empty(2, np.int64)
    wins = 0
    for seed in range(games):
        s, rng, env = dg.new_game(first + seed)
        while not dg.fns.is_over(s):
            n = dg.fns.legal_actions(s, env, buf)
            a = dg.fns.policy(kind, s, env, buf, n, vec, _stream(seed))
            values = q(int(s[TE.TOTAL]), tuple(sorted(int(c) for c in s[TE.DECK:TE.DECK + s[TE.DECK_N]])))
            assert values[a] == max(values), f"total {s[TE.TOTAL]}: learned plays {a}, exact values {values}"
            dg.fns.apply_action(s, rng, env, a)
        wins += int(TE.won(s, env))
    return wins


def test_train_finds_the_best_play(toy_trained):
    """Best play is known exactly (a DP over the total and the cards left; by hand: draw below 8, then stop):
    at every decision of 3,000 games the trained policy takes an action of the highest exact value, and its
    simulated win rate matches the exact optimum 137/198 within 4 SE."""
    from fractions import Fraction

    r = toy_trained
    assert r.weights.is_file() and r.scenario.is_file()
    sc = loader.load(r.scenario)
    dg = registry.get_mode("toy", "draw")[1].engine(r.scenario)
    kind, vec = dg.policies["learned"]
    assert kind == LEARNED
    games = 3000
    wins = toy_wins_playing_best(dg, kind, vec, games, 10_000)
    exact = TE.exact_win_probability(8)
    assert exact == Fraction(137, 198)
    assert abs(wins / games - float(exact)) < 4 * np.sqrt(float(exact) * (1 - float(exact)) / games)
    assert sc.warnings == []
    # every iteration is judged: far above timid, level with its teacher
    last = r.iterations[-1]
    assert last.vs_base.low > 0.2 and last.vs_teacher.low <= 0.0 <= last.vs_teacher.high + 0.01


def test_train_is_reproducible_from_its_seed_whatever_the_jobs(tmp_path, toy_trained):
    from simkit.core.train import train

    again = train(TOY, "learned", tmp_path, base="timid", rollouts=16, budget=400, iterations=2, seed=5,
                  eval_games=2000, teacher_games=1000, weights=tmp_path / "learned.npz", jobs=2)
    a, b = LM.load_model(toy_trained.weights), LM.load_model(again.weights)
    assert np.array_equal(a.w, b.w) and a.meta == b.meta


def test_train_with_a_named_teacher_learns_its_play(tmp_path):
    """--teacher-policy: the scenario's own `search` (the preset: rollouts of `stop_at_8`, which plays best here)
    labels every iteration instead of a search over the current policy, so one iteration from the weak `timid`
    already plays best: an action of the highest exact value at every decision of 1,000 games. Its weights say
    who taught them, and it is judged against that teacher (level with it)."""
    from simkit.core.train import train

    r = train(TOY, "learned", tmp_path, base="timid", budget=400, iterations=1, seed=7, eval_games=500,
              teacher_games=500, weights=tmp_path / "learned.npz", teacher_policy="search")
    model = LM.load_model(r.weights)
    assert model.meta["teacher_policy"] == "search"
    dg = registry.get_mode("toy", "draw")[1].engine(r.scenario)
    kind, vec = dg.policies["learned"]
    toy_wins_playing_best(dg, kind, vec, 1000, 50_000)
    it = r.iterations[0]
    assert it.vs_base.low > 0.2 and it.vs_teacher.low <= 0.0 <= it.vs_teacher.high + 0.01


def test_a_named_teacher_may_search_over_the_policy_being_trained(tmp_path, toy_trained):
    """The Lonequest's `vsearch` searches over `learned`: retraining `learned` with it as the teacher uses the
    scenario's own `learned` weights in the teacher's rollouts (the training copy leaves the trained policy out)."""
    from simkit.core.train import train

    shutil.copy(toy_trained.weights, tmp_path / "draw.learned.npz")
    text = TOY.read_text() + ('\n[policies.learned]\nkind = "learned"\nweights = "draw.learned.npz"\n'
                              '\n[policies.teach]\nkind = "search"\nrollouts = 8\nbase = "learned"\n')
    (tmp_path / "draw.toml").write_text(text)
    r = train(tmp_path / "draw.toml", "learned", tmp_path / "out", base="timid", budget=60, iterations=1, seed=3,
              eval_games=100, teacher_games=100, weights=tmp_path / "again.npz", teacher_policy="teach")
    meta = LM.load_model(r.weights).meta
    assert meta["teacher_policy"] == "teach" and meta["teacher_rollouts"] == 8
    assert r.iterations[0].vs_teacher.n == 100


def test_stale_weights_warn_and_are_refused_under_strict(tmp_path, toy_trained):
    """Weights trained on other rules than the scenario's: a warning by default, an error with --strict (exit 2,
    one line naming the scenario and the policy)."""
    d = tmp_path / "edited"
    shutil.copytree(toy_trained.scenario.parent, d)
    text = (d / "scenario.toml").read_text().replace("win_high = 10", "win_high = 11")
    (d / "scenario.toml").write_text(text)
    sc = loader.load(d / "scenario.toml")
    assert len(sc.warnings) == 1 and "'learned'" in sc.warnings[0] and "other card data or rules" in sc.warnings[0]
    with pytest.raises(InputError, match="trained on other card data or rules"):
        loader.load(d / "scenario.toml", strict=True)
    p = subprocess.run([sys.executable, "-m", "simkit", "run", str(d / "scenario.toml"), "--strict", "-n", "10",
                        "--out", str(tmp_path / "run")], capture_output=True, text=True)
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1 and "--strict" in p.stderr
    assert not (tmp_path / "run").exists()
    # the unchanged copy loads without a warning: the hash covers rules and card data, not where the file lies
    assert loader.load(toy_trained.scenario).warnings == []


def test_weights_with_other_features_are_refused(tmp_path, toy_trained):
    d = tmp_path / "feat"
    shutil.copytree(toy_trained.scenario.parent, d)
    m = LM.load_model(d / "learned.npz")
    m.feature_names = m.feature_names[:-1] + ["something_else"]
    m.save(d / "learned.npz")
    with pytest.raises(InputError, match="other features"):
        loader.load(d / "scenario.toml")
    (d / "learned.npz").write_bytes(b"not a model")
    with pytest.raises(InputError, match="not a learned policy"):
        loader.load(d / "scenario.toml")


# the modes with bundled weights, whose features are split into ``Parts`` (``decision.score_actions_by_kind``)
SPLIT_ENGINES = ["valka/lonequest", "valka/bounty-hunter", "valhalla/solo", "valkyrie-incident/standard",
                 "valkyrie-incident/blitz", "valhalla/multi", "valeria/kingdoms"]


@pytest.mark.parametrize("name", SPLIT_ENGINES)
def test_scores_by_kind_equal_the_plain_scorer_to_the_bit(name):
    """The scorer that sums each action kind's state block once per decision gives, to the bit, the scores of the
    plain scorer that sums every action's features in turn (random linear weights, every decision of random
    games, where most actions share their kind with others: reroll masks, strikes, cards to play), and both
    match the dense features' dot product."""
    g, m = name.split("/")
    dg = registry.get_mode(g, m)[1].engine()
    fns, lf = dg.fns, dg.learned
    base_vec = next(v for k, v in dg.policies.values() if k == 0)
    f = len(dg.feature_names)
    w = np.random.default_rng(3).normal(size=f)
    vec = np.concatenate([base_vec, [f, 0, 0.0], w])
    size = max(dg.max_actions, 4096)
    buf = np.empty(size, np.int64)
    X = np.zeros((size, f))
    fast, plain = np.zeros(size), np.zeros(size)
    pick = np.random.default_rng(5)
    checked = 0
    for seed in range(12):
        s, rng, env = dg.new_game(seed)
        steps = 0
        while not fns.is_over(s) and steps < 400:
            n = fns.legal_actions(s, env, buf)
            if n >= 2:
                a_base = lf.action_features(s, env, buf, n, vec, _stream(seed, 4), X)
                lf.learned_scores(s, env, buf, n, vec, _stream(seed, 4), fast)
                lf.score_actions(s, env, buf, n, a_base, vec, plain)
                assert fast[:n].tobytes() == plain[:n].tobytes(), f"{name}: scores differ at seed {seed} step {steps}"
                assert np.allclose(fast[:n], X[:n] @ w, atol=1e-9)
                checked += 1
            fns.apply_action(s, rng, env, buf[int(pick.integers(n))])
            steps += 1
    assert checked >= 20


@pytest.mark.parametrize("name", LEARNED_ENGINES)
def test_learned_policy_does_not_peek(name):
    """Two states that differ only in hidden information (resampled for the mover) get the same learned
    decision, from a model with random weights (so that every feature counts). Half the states are a few random
    steps from the start, half up to 209 steps in (a two-seat card game's set-up draft takes dozens of decisions:
    only later does the other seat hold a hidden hand)."""
    g, m = name.split("/")
    mode = registry.get_mode(g, m)[1]
    dg = mode.engine()
    fns = dg.fns
    base_vec = next(v for k, v in dg.policies.values() if k == 0)  # a heuristic: the base of ``is_base``
    rng_w = np.random.default_rng(7)
    f = len(dg.feature_names)
    head = np.array([f, 2, 0.0])
    vec = np.concatenate([base_vec, head, rng_w.normal(size=f + 2 * f + 4)])
    buf = np.empty(dg.max_actions, np.int64)
    differed = checked = 0
    for seed in range(40):
        s, rng, env = dg.new_game(seed)
        prng = _stream(seed, 1)
        for _ in range(seed % 9 if seed < 20 else (seed - 20) * 11):
            if fns.is_over(s):
                break
            n = fns.legal_actions(s, env, buf)
            fns.apply_action(s, rng, env, buf[int(prng[0] % np.uint64(n))])
            prng = _stream(seed * 31 + _, 1)
        if fns.is_over(s) or fns.legal_actions(s, env, buf) < 2:
            continue
        other, orng = s.copy(), rng.copy()
        fns.resample(other, orng, env, fns.to_move(s), _stream(77 + seed, 3))
        differed += not np.array_equal(other, s)
        picks = []
        for st in (s, other):
            n = fns.legal_actions(st, env, buf)
            picks.append(fns.policy(LEARNED, st, env, buf, n, vec, _stream(seed, 5)))
        assert picks[0] == picks[1], f"{name}: learned chose {picks} from states differing only in hidden information"
        checked += 1
    assert checked >= 5 and differed >= 1


def test_lonequest_hit_share_tables_match_the_dice():
    """The Lonequest features look a Chance Strike's (and a rolled Fireblast's) share of hits up by Strike − Shield:
    equal to counting the 100 rolls (combat.hit_share) for every Strike and Shield from 0 to 24, both lone-one
    readings."""
    from simkit.games.valka import combat
    from simkit.games.valka.lonequest import engine as LE
    from simkit.games.valka.lonequest import features as LF

    for lone in (0, 1):
        rules = np.zeros(LE.N_RULES, np.int64)
        rules[LE.R_LONE_ONE_LOSES] = lone
        for strike in range(25):
            for shield in range(25):
                assert LF.share(LF.HIT_SHARE, strike, shield, rules) == combat.hit_share(strike, shield, lone == 1, True)
                assert LF.share(LF.FIREBLAST_SHARE, strike, shield, rules) == \
                    combat.hit_share(strike, shield, lone == 1, False)


def test_tolerance_stop_needs_enough_teacher_games():
    """Two games that agree give the interval [0, 0]: no evidence. The rule of three needs 3 / 0.02 = 150 games
    before agreement shows the gap within 0.02; with them, a lower bound above -0.02 stops, one below does not."""
    from simkit.core.train import Gap, min_teacher_games, shown_within

    assert min_teacher_games(0.02) == 150
    assert min_teacher_games(0.05) == 60
    assert not shown_within(Gap(0.5, 0.5, 0.0, 0.0, 0.0, 2), 0.02)
    assert not shown_within(Gap(0.5, 0.5, 0.0, 0.0, 0.0, 149), 0.02)
    assert shown_within(Gap(0.5, 0.5, 0.0, 0.0, 0.0, 150), 0.02)
    assert shown_within(Gap(0.5, 0.51, -0.01, -0.019, -0.001, 400), 0.02)
    assert not shown_within(Gap(0.5, 0.51, -0.01, -0.021, 0.001, 400), 0.02)


def test_train_keeps_the_best_iteration_not_the_last(tmp_path, toy_trained):
    """Two hand-built iterations on Draw to Ten with the optimal `stop_at_8` as the base: one plays the base's
    action always (is_base weight +10: P(win) 137/198), the next never does (−10: it stops where it should draw
    and draws where it should stop). Kept by "best", the first, with the replayed means in the sentence; by
    "last", the second. (The old rule wrote the last iteration whatever its judgement said.)"""
    from simkit.core.scenario import read_toml
    from simkit.core.train import keep_iteration

    f = TE.N_FEATURES
    paths = []
    for i, w0 in enumerate((10.0, -10.0)):
        w = np.zeros(f)
        w[0] = w0
        m = LM.Model("toy", "draw", list(TE.FEATURES), w, np.zeros((0, f)), np.zeros(0), np.zeros(0), "stop_at_8",
                     {}, LM.load_model(toy_trained.weights).data_hash)
        paths.append(m.save(tmp_path / f"it{i + 1}.npz"))
    data = read_toml(toy_trained.scenario)[0]
    base = {"kind": "heuristic", "stop_at": 8.0}
    best, said = keep_iteration(toy_trained.scenario, data, base, paths, "best", 5, 400, "won", 1)
    assert best == 0 and said.startswith("iteration 1 of 2, the best on 400 fresh games")
    scores = [float(x) for x in said.split("(")[1].split(";")[0].split(", ")]
    assert scores[0] > scores[1] + 0.3  # 0.69 against well under 0.3
    assert keep_iteration(toy_trained.scenario, data, base, paths, "last", 5, 400, "won", 1) == (1, "iteration 2 (the last)")
    assert keep_iteration(toy_trained.scenario, data, base, paths[:1], "best", 5, 400, "won", 1)[0] == 0
