"""`simkit train --method outcomes` (simkit.core.value): a value fitted to how games ended recovers the known best
play of Draw to Ten, is reproducible from its seed, and on the Lonequest ranks won above lost decisions on held-out
games better than chance."""

from __future__ import annotations

import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from simkit.core import learned as LM
from simkit.core import loader, registry
from simkit.core import value as V
from simkit.core.policies import HEURISTIC, LEARNED
from simkit.games.toy import engine as TE

ROOT = Path(__file__).resolve().parents[2]
TOY = ROOT / "scenarios" / "toy" / "draw.toml"
LONEQUEST = ROOT / "scenarios" / "valka" / "lonequest.toml"
VI_TRAIN = ROOT / "scenarios" / "valkyrie_incident" / "train_standard.toml"
TOY_ARGS = dict(base="timid", budget=4000, iterations=2, seed=5, epsilon=0.2, eval_games=2000)


@pytest.fixture(scope="module")
def toy_outcomes(tmp_path_factory):
    out = tmp_path_factory.mktemp("toy-outcomes")
    return V.train_outcomes(TOY, "learned", out, weights=out / "learned.npz", **TOY_ARGS)


def test_outcomes_find_the_best_play_of_draw_to_ten(toy_outcomes):
    """From the weak `timid` (stops from 6 on), the outcome-fitted value plays an action of the highest exact value
    at every decision of 3,000 games (the DP of test_learned; by hand: draw below 8, then stop), and wins the exact
    optimum 137/198 within 4 SE; the fit beats the constant win rate on held-out games."""
    from test_learned import toy_wins_playing_best  # (this file's folder is on the path: pytest's prepend import)

    r = toy_outcomes
    assert r.weights.is_file() and r.scenario.is_file()
    sc = loader.load(r.scenario)
    assert sc.warnings == []
    dg = registry.get_mode("toy", "draw")[1].engine(r.scenario)
    kind, vec = dg.policies["learned"]
    assert kind == LEARNED
    wins = toy_wins_playing_best(dg, kind, vec, 3000, 20_000)
    exact = float(Fraction(137, 198))
    assert abs(wins / 3000 - exact) < 4 * np.sqrt(exact * (1 - exact) / 3000)
    for it in r.iterations:
        assert it.logloss < it.base_logloss and it.auc > 0.6
        assert it.vs_base.low > 0.2  # far above timid
    m = LM.load_model(r.weights)
    assert m.meta["method"] == "outcomes" and m.hidden == 0


def test_outcomes_are_reproducible_from_the_seed(tmp_path, toy_outcomes):
    again = V.train_outcomes(TOY, "learned", tmp_path, weights=tmp_path / "learned.npz", **TOY_ARGS)
    a, b = LM.load_model(toy_outcomes.weights), LM.load_model(again.weights)
    assert np.array_equal(a.w, b.w) and a.meta == b.meta and a.data_hash == b.data_hash
    other = V.train_outcomes(TOY, "learned", tmp_path / "o", weights=tmp_path / "other.npz",
                             **{**TOY_ARGS, "seed": 6})
    assert not np.array_equal(LM.load_model(other.weights).w, a.w)


def test_outcomes_are_the_same_whatever_the_jobs(tmp_path, toy_outcomes):
    """Two worker processes (the games split into chunks, collected apart and joined in one order, the judgements'
    blocks on both workers) give the weights, metadata and judgement of one process."""
    two = V.train_outcomes(TOY, "learned", tmp_path, weights=tmp_path / "learned.npz", jobs=2, **TOY_ARGS)
    a, b = LM.load_model(toy_outcomes.weights), LM.load_model(two.weights)
    assert np.array_equal(a.w, b.w) and a.meta == b.meta
    assert [r for r in toy_outcomes.rows()] == [r for r in two.rows()]


def test_collection_is_in_one_order_whatever_the_chunks():
    """Decisions collected in chunks and joined are the decisions collected at once (what --jobs relies on)."""
    dg = registry.get_mode("toy", "draw")[1].engine(TOY)
    kind, vec = dg.policies["timid"]
    seeds = list(range(100, 160))
    whole = V.collect_outcomes(dg, kind, vec, vec, seeds, 0.3, 7)
    parts = [V.collect_outcomes(dg, kind, vec, vec, seeds[i::3], 0.3, 7) for i in range(3)]
    joined = V.Decisions.join(parts, whole.n_features)
    for k in ("indptr", "indices", "values", "y", "game"):
        assert np.array_equal(getattr(joined, k), getattr(whole, k)), k
    # the label is the mover's outcome: a stop on a winning total is always a win
    X = whole.matrix("q").toarray()
    stop_wins = X[:, TE.FEATURES.index("stop_x_wins")] == 1.0
    assert stop_wins.any() and (whole.y[stop_wins] == 1.0).all()


def test_opponents_play_the_other_seat_and_only_the_hero_is_recorded():
    """``opponents`` (--opponent): the policy plays the hero's seat and the opponent the other, unrecorded. With
    `focused` against `random` every row of a game carries one outcome, the hero's, and it is a win almost always;
    with the seats' policies swapped, almost never; in self-play the rows of both seats are recorded, half of them
    won."""
    dg = registry.get_mode("valkyrie-incident", "standard")[1].engine(VI_TRAIN)
    (fk, fv), (rk, rv) = dg.policies["focused"], dg.policies["random"]
    seeds = list(range(60))
    hero = V.collect_outcomes(dg, fk, fv, fv, seeds, 0.0, 7, ((rk, rv),))
    swapped = V.collect_outcomes(dg, rk, rv, fv, seeds, 0.0, 7, ((fk, fv),))
    both = V.collect_outcomes(dg, fk, fv, fv, seeds, 0.0, 7)
    for data in (hero, swapped):
        assert set(data.game.tolist()) == set(seeds)
        assert all(np.unique(data.y[data.game == g]).size == 1 for g in seeds)
    assert hero.y.mean() > 0.9 and swapped.y.mean() < 0.1, (hero.y.mean(), swapped.y.mean())
    mixed = sum(np.unique(both.y[both.game == g]).size > 1 for g in seeds)
    assert mixed > 50 and 0.4 < both.y.mean() < 0.6 and len(hero) < len(both), (mixed, both.y.mean())


def test_more_opponents_than_seats_take_turns_game_by_game():
    """Two seats, two named opponents (`random`, then `focused`): the other seat plays `random` in games whose
    ``seed // 2`` is even and `focused` in the others, so `focused` as the hero wins nearly every game of the first
    kind and about half of the second, in either seat."""
    dg = registry.get_mode("valkyrie-incident", "standard")[1].engine(VI_TRAIN)
    (fk, fv), (rk, rv) = dg.policies["focused"], dg.policies["random"]
    seeds = list(range(160))
    data = V.collect_outcomes(dg, fk, fv, fv, seeds, 0.0, 7, ((rk, rv), (fk, fv)))
    won = {g: float(data.y[data.game == g][0]) for g in seeds}
    against_random = [won[g] for g in seeds if (g // 2) % 2 == 0]
    against_focused = [won[g] for g in seeds if (g // 2) % 2 == 1]
    assert np.mean(against_random) > 0.9, np.mean(against_random)
    assert 0.25 < np.mean(against_focused) < 0.75, np.mean(against_focused)
    for seat in (0, 1):  # the hero meets each opponent in each seat
        assert {(g // 2) % 2 for g in seeds if g % 2 == seat} == {0, 1}


def test_held_out_games_are_a_fifth_of_every_cell():
    """The games a fit is judged on (and not fitted on) are a fifth of each cell's. The Valkyrie Incident's training
    scenario deals its 5 match-ups as ``seed % 5``, and `simkit train`'s seeds count up from a multiple of five, so
    every fifth seed alone would be match-up 0's games only; the decision game says how many cells it deals over."""
    dg = registry.get_mode("valkyrie-incident", "standard")[1].engine(VI_TRAIN)
    matchups = len(loader.load(VI_TRAIN).simulation.matchups)
    assert V.cells_of(dg) == matchups == 5
    # which match-up a seed is dealt in: the decision game's own deal, read from the env it returns
    envs = [dg.new_game(g)[2] for g in range(matchups)]
    cell = [next(i for i, e in enumerate(envs) if all(np.array_equal(x, y) for x, y in zip(e, dg.new_game(g)[2])))
            for g in range(matchups * 4)]
    assert cell == [g % matchups for g in range(matchups * 4)]
    seeds = np.arange(45_000_500_000, 45_000_500_000 + 1000)  # as simkit train counts them
    data = V.Decisions(np.zeros(len(seeds) + 1, np.int64), np.zeros(0, np.int32), np.zeros(0, np.float32),
                       np.zeros(len(seeds)), seeds, 1)
    held = V.held_out(data, V.cells_of(dg))
    for c in range(matchups):
        assert held[seeds % matchups == c].sum() == 40, c  # 200 games a match-up, a fifth held out
    assert not (seeds[held] % 5 == 0).all()  # not merely every fifth seed (the old rule: match-up 0 alone)
    # cells coprime to five keep every fifth seed (the bundled Lonequest's 8 Warbands: weights unchanged)
    lonequest = registry.get_mode("valka", "lonequest")[1].engine(None)
    assert V.cells_of(lonequest) == 8
    assert np.array_equal(V.held_out(data, 8), seeds % 5 == 0)
    assert np.array_equal(V.held_out(data), seeds % 5 == 0)
    for c in range(8):
        assert held_share(V.held_out(data, 8)[seeds % 8 == c]) == 0.2


def held_share(mask):
    return round(float(mask.mean()), 6)


def test_fit_value_recovers_a_known_logistic_model():
    """Decisions drawn from a known logistic model: the fit recovers its weights (on the raw features)."""
    rng = np.random.default_rng(3)
    d, f = 40_000, 4
    X = rng.normal(size=(d, f)) * np.array([1.0, 3.0, 0.5, 2.0])
    X[rng.random((d, f)) < 0.3] = 0.0
    w = np.array([1.0, -0.4, 2.0, 0.25])
    y = (rng.random(d) < 1 / (1 + np.exp(-(X @ w + 0.5)))).astype(float)
    nz = [np.flatnonzero(r) for r in X]
    data = V.Decisions(np.concatenate([[0], np.cumsum([len(z) for z in nz])]).astype(np.int64),
                       np.concatenate(nz).astype(np.int64), np.concatenate([X[i, z] for i, z in enumerate(nz)]),
                       y, np.arange(d, dtype=np.int64), f)
    fit = V.fit_value(data, l2=0.0, target="q")
    assert np.allclose(fit.w, w, atol=0.06) and abs(fit.intercept - 0.5) < 0.06
    assert V.auc(np.array([0.1, 0.4, 0.35, 0.8]), np.array([0.0, 0.0, 1.0, 1.0])) == 0.75


def test_lonequest_outcome_value_beats_chance_on_held_out_games():
    """A small Lonequest budget: 300 games of greedy_trader_tuned with exploration, fitted on four games in five;
    on the held-out fifth the fitted value ranks won above lost decisions better than chance and beats the constant
    win rate's log loss. Collection is reproducible from the seed."""
    dg = registry.get_mode("valka", "lonequest")[1].engine(LONEQUEST)
    kind, vec = dg.policies["greedy_trader_tuned"]
    assert kind == HEURISTIC
    seeds = list(range(300))
    data = V.collect_outcomes(dg, kind, vec, vec, seeds, 0.05, 41)
    again = V.collect_outcomes(dg, kind, vec, vec, seeds[:20], 0.05, 41)
    first = data.take(data.game < 20)
    assert np.array_equal(first.indices, again.indices) and np.array_equal(first.y, again.y)
    held = data.game % 5 == 0
    fit = V.fit_value(data.take(~held), l2=1e-3)
    loss, base, area = V.heldout_scores(fit, data.take(held))
    assert area > 0.6 and loss < base, (area, loss, base)


def test_cli_method_outcomes(tmp_path):
    out = tmp_path / "run"
    p = subprocess.run([sys.executable, "-m", "simkit", "train", str(TOY), "--name", "learned", "--method",
                        "outcomes", "--base", "timid", "--budget", "600", "--iterations", "2", "--epsilon", "0.2",
                        "--eval-games", "200", "--seed", "3", "-j", "1", "-q", "--out", str(out), "--weights",
                        str(tmp_path / "w.npz")], capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 0, p.stderr
    assert "vs timid" in p.stdout and "AUC" in p.stdout and "stopped: all 2 iterations spent" in p.stdout
    assert LM.load_model(tmp_path / "w.npz").meta["method"] == "outcomes"
    assert loader.load(out / "scenario.toml").warnings == []


@pytest.mark.parametrize("args,needle", [(["--base", "nope"], "--base: 'nope' is not a heuristic policy"),
                                         (["--metric", "nope"], "--metric: 'nope' is not a per-game column"),
                                         (["--window", "2"], "--window: must be 1 with --target advantage"),
                                         (["--opponent", "timid"], "is a one-seat game"),
                                         (["--opponent", "timid", "--method", "expert"],
                                          "--opponent: only with --method outcomes")])
def test_cli_method_outcomes_refuses_before_writing(tmp_path, args, needle):
    """As ``train``'s own method (issue 38): a bad --base or --metric ends in one line, exit code 2, and --out is
    not created (both methods check through ``train.stage`` before anything is written)."""
    out = tmp_path / "run"
    p = subprocess.run([sys.executable, "-m", "simkit", "train", str(TOY), "--name", "learned", "--method",
                        "outcomes", "--budget", "600", "--iterations", "2", "-q", "--out", str(out), "--weights",
                        str(tmp_path / "w.npz"), *args], capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 2, p.stderr
    lines = [ln for ln in p.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and needle in lines[0], p.stderr
    assert not out.exists() and not (tmp_path / "w.npz").exists()


def test_cli_opponent_must_be_a_policy_of_the_scenario(tmp_path):
    out = tmp_path / "run"
    p = subprocess.run([sys.executable, "-m", "simkit", "train", str(VI_TRAIN), "--name", "learned", "--method",
                        "outcomes", "--opponent", "nope", "-q", "--out", str(out)], capture_output=True, text=True,
                       cwd=ROOT)
    assert p.returncode == 2, p.stderr
    lines = [ln for ln in p.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and "--opponent: 'nope' is not a policy of" in lines[0], p.stderr
    assert "allowed values: balanced, concentrated, focused, focused_tuned, random" in lines[0] and not out.exists()


def _decisions(rows_pol, rows_diff, y, f):
    """``Decisions`` from dense rows: the policy's action's features and the action played less them."""
    idx, val, lens = [], [], []
    for xp, d in zip(rows_pol, rows_diff):
        nz, nzd = np.flatnonzero(xp), np.flatnonzero(d)
        idx.append(np.concatenate([nz, nzd + f]).astype(np.int32))
        val.append(np.concatenate([xp[nz], d[nzd]]).astype(np.float32))
        lens.append(len(nz) + len(nzd))
    return V.Decisions(np.concatenate([[0], np.cumsum(lens)]).astype(np.int64), np.concatenate(idx),
                       np.concatenate(val), np.asarray(y, float), np.arange(len(y), dtype=np.int64), f)


def test_advantage_is_not_fooled_by_where_the_policy_plays_an_action():
    """A policy that plays A in good positions (s > 0) and B in bad ones, though A is worse by 0.5 logits
    everywhere; 10% of the decisions explored at random. Regressing the outcome on the action played (q) credits A
    with the good positions it is played in; the advantage over the policy's action, informed only by the explored
    decisions, finds A worse."""
    rng = np.random.default_rng(8)
    d, f = 60_000, 2
    s = rng.normal(size=d)
    pol = (s > 0).astype(int)  # 1: A, 0: B
    explore = rng.random(d) < 0.1
    played = np.where(explore, rng.integers(0, 2, d), pol)
    onehot = np.eye(2)[[1, 0]]  # action 1 (A) -> [1, 0], action 0 (B) -> [0, 1]
    y = rng.random(d) < 1 / (1 + np.exp(-(2.0 * s - 0.5 * played)))
    data = _decisions(onehot[pol], onehot[played] - onehot[pol], y, f)
    q = V.fit_value(data, l2=0.0, target="q")
    adv = V.fit_value(data, l2=0.0, target="advantage")
    assert q.w[0] - q.w[1] > 1.0  # confounded: A looks far better
    assert adv.w[0] - adv.w[1] < -0.2  # A is worse
    # on-policy decisions carry no advantage columns; the explored ones add up to the action played
    M = data.matrix("advantage").toarray()
    assert (M[~explore | (played == pol), f:] == 0).all()
    assert np.allclose(M[:, :f] + M[:, f:], onehot[played])


def test_outcome_weights_are_refused_when_stale_and_init_is_recorded(tmp_path, toy_outcomes):
    """The outcome method writes the same weights format with the data hash: edited rules warn, --strict refuses.
    Started from other weights (--init), the run records which, and judges against --reference."""
    import shutil

    from simkit.errors import InputError

    d = tmp_path / "edited"
    shutil.copytree(toy_outcomes.scenario.parent, d)
    (d / "scenario.toml").write_text((d / "scenario.toml").read_text().replace("win_high = 10", "win_high = 11"))
    assert "other card data or rules" in loader.load(d / "scenario.toml").warnings[0]
    with pytest.raises(InputError, match="trained on other card data or rules"):
        loader.load(d / "scenario.toml", strict=True)
    r = V.train_outcomes(TOY, "learned", tmp_path / "more", weights=tmp_path / "more.npz",
                         init=toy_outcomes.weights, reference=toy_outcomes.weights,
                         **{**TOY_ARGS, "iterations": 1, "budget": 1000})
    m = LM.load_model(r.weights)
    assert m.meta["init"] == toy_outcomes.weights.name and len(m.meta["init_sha256"]) == 16
    it = r.iterations[0]
    assert it.vs_reference is not None and it.vs_prev is not None
    assert abs(it.vs_reference.diff) < 0.03  # the best play already: nothing left to gain


def test_margin_starts_from_the_heuristic_and_is_refused_with_init(tmp_path, toy_outcomes):
    """--margin: the first weights are the margin on is_base plus the fitted advantage, recorded in the weights;
    with an enormous margin the first iteration keeps the heuristic's play (its gap to timid is exactly 0)."""
    from simkit.errors import InputError

    args = {**TOY_ARGS, "iterations": 1, "budget": 1000}
    r = V.train_outcomes(TOY, "learned", tmp_path / "m", weights=tmp_path / "m.npz", margin=1000.0, **args)
    m = LM.load_model(r.weights)
    assert m.meta["margin"] == 1000.0 and m.w[0] > 900.0
    g = r.iterations[0].vs_base
    assert g.diff == 0.0 and g.low == 0.0 == g.high
    with pytest.raises(InputError, match="--margin"):
        V.train_outcomes(TOY, "learned", tmp_path / "n", weights=tmp_path / "n.npz", margin=0.5,
                         init=toy_outcomes.weights, **args)


def test_a_decisions_row_is_the_non_zero_features_then_the_difference():
    """``record_pair`` (the kernel ``collect_outcomes`` writes its rows with): by hand, three legal actions of four
    features. The policy's action (7) has features (0, 2.5, -0.0, 1e-40): its row is slots 1 and 3 (a negative zero
    is zero; 1e-40 is not, and rounds to float32's subnormal); the action played (9) has (1, 2.5, 0, 0), so the
    difference adds slots 4 + 0 (1.0) and 4 + 3 (-1e-40). The same action played writes the first part alone."""
    from simkit.core.outcome_rows import record_pair

    xbuf = np.array([[5.0, 5.0, 5.0, 5.0], [0.0, 2.5, -0.0, 1e-40], [1.0, 2.5, 0.0, 0.0], [9.0, 9.0, 9.0, 9.0]])
    buf = np.array([3, 7, 9, 7], np.int64)  # 7 twice: the first is the policy's row
    idx, val = np.full(12, -1, np.int32), np.zeros(12, np.float32)
    end = record_pair(xbuf, buf, 3, 7, 9, idx, val, 2)
    assert end == 6
    assert idx[2:6].tolist() == [1, 3, 4, 7] and idx[:2].tolist() == [-1, -1] and idx[6] == -1
    assert val[2:6].tolist() == [np.float32(2.5), np.float32(1e-40), np.float32(1.0), np.float32(-1e-40)]
    assert record_pair(xbuf, buf, 3, 7, 7, idx, val, 0) == 2 and idx[:2].tolist() == [1, 3]
