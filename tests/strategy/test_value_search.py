"""`search` standing on a learned value (issue 41): rollouts cut after ``depth`` decisions and scored by a value
model, checked on hand-built Draw to Ten positions whose every outcome is known; the value model written by
``simkit train --method value``; and the scenario fields that name it."""

from __future__ import annotations

import csv
import io
import math
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from simkit.cli import cli
from simkit.core import decision as D
from simkit.core.learned import Model, load_model
from simkit.core.policies import HEURISTIC, compile_policy
from simkit.core.rng import seed_stream
from simkit.games.toy import engine as E
from simkit.games.toy.simulation import decision_game

SCENARIO = "scenarios/toy/draw.toml"
FEATS = list(E.FEATURES)


def _sigmoid(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-z))


def _value_file(tmp_path, w, intercept, base_params=None, name="value.npz", method="value"):
    """A value model by hand: scores with ``w`` over the toy's features, ``intercept`` in its meta."""
    m = Model("toy", "draw", FEATS, np.asarray(w, np.float64), np.zeros((0, len(FEATS))), np.zeros(0),
              np.zeros(0), "stop_at_8", base_params or {"stop_at": 8.0}, "x",
              {"method": method, "intercept": intercept})
    return m.save(tmp_path / name)


def _position(total: int, deck: list[int]):
    """A Draw to Ten position by hand: ``total`` drawn so far, ``deck`` left face down."""
    game = decision_game()
    s, rng, env = game.new_game(0)
    s[:] = 0
    s[E.TOTAL] = total
    s[E.DRAWS] = 2
    s[E.DECK_N] = len(deck)
    s[E.DECK:E.DECK + len(deck)] = deck
    return game, s, rng, env


def _srng(k: int) -> np.ndarray:
    r = np.empty(4, np.uint64)
    seed_stream(r, np.array([k, 17], np.uint64), 0, 0)
    return r


def _values(game, s, rng, env, cfg, params):
    buf = np.empty(2, np.int64)
    n = game.fns.legal_actions(s, env, buf)
    values = np.empty(n)
    a = game.search.search_values(s.copy(), rng.copy(), env, buf, n, cfg, params, _srng(1), values)
    return {int(buf[i]): float(values[i]) for i in range(n)}, int(a)


def _search(tmp_path, depth, w, c, rollouts=8, budget="uniform"):
    """``compile_policy`` of a search over ``stop_at_8`` standing on a value model by hand."""
    path = _value_file(tmp_path, w, c)
    values = {"rollouts": rollouts, "budget": budget, "caution": 1.0, "base_kind": "heuristic",
              "base_params": {"stop_at": 8.0}, "depth": depth, "value": str(path)}
    _, _, cfg, params = compile_policy("search", values, E.PARAMS)
    return cfg, params


def test_leaf_value_is_the_logistic_value_of_the_base_action_by_hand(tmp_path):
    # total 5, deck 1 2 3 6: stop_at_8 draws; its features: is_base 1, draw 1, total 5, the share of the cards
    # left that go above 10 (6: 1/4) and that land on 8 to 10 (3: 1/4)
    w = [0.5, -0.25, 0.1, -2.0, 3.0, 1.0]
    cfg, params = _search(tmp_path, 1, w, -0.75)
    game, s, rng, env = _position(5, [1, 2, 3, 6])
    buf = np.empty(2, np.int64)
    n = game.fns.legal_actions(s, env, buf)
    got = game.search.leaf_value(s, env, n, cfg, params, _srng(3), buf)
    z = -0.75 + 0.5 * 1 - 0.25 * 1 + 0.1 * 5 - 2.0 * 0.25 + 3.0 * 0.25
    assert got == pytest.approx(_sigmoid(z), abs=1e-12)
    # at total 9 it stops, and a stop on 9 wins: is_base 1, stop_x_wins 1
    game, s, rng, env = _position(9, [1, 2, 3, 6])
    n = game.fns.legal_actions(s, env, buf)
    got = game.search.leaf_value(s, env, n, cfg, params, _srng(3), buf)
    assert got == pytest.approx(_sigmoid(-0.75 + 0.5 + 1.0), abs=1e-12)


@pytest.mark.parametrize("budget", ["uniform", "halving"])
def test_rollouts_stop_after_depth_and_read_the_value(tmp_path, budget):
    """Total 4 over a deck of 2s: every outcome is certain. Stop: 4 loses (0). Draw: 6, then stop_at_8 draws
    (8), then stops and wins. With depth 1 the rollout stops at 8, the base policy's stop there worth
    sigmoid(c + w[is_base] + w[stop_x_wins]); with depth 2 it plays the stop (1.0); without a value, 1.0."""
    w = [0.5, 0.0, 0.0, 0.0, 0.0, 0.25]
    c = -1.0
    for depth, expect in ((1, _sigmoid(c + 0.5 + 0.25)), (2, 1.0), (50, 1.0)):
        cfg, params = _search(tmp_path, depth, w, c, budget=budget)
        game, s, rng, env = _position(4, [2, 2, 2, 2])
        values, a = _values(game, s, rng, env, cfg, params)
        assert values[E.STOP] == 0.0
        assert values[E.DRAW] == pytest.approx(expect, abs=1e-12), depth
        assert a == E.DRAW
    # the same search without the value plays every rollout to the end, whatever depth says
    cfg = D.search_config(rollouts=8, base_kind=HEURISTIC, budget=budget, depth=1)
    game, s, rng, env = _position(4, [2, 2, 2, 2])
    values, _ = _values(game, s, rng, env, cfg, np.array([8.0]))
    assert values == {E.STOP: 0.0, E.DRAW: 1.0}


def _scenario(tmp_path, table: str) -> str:
    text = open(SCENARIO, encoding="utf-8").read().replace('play = ["stop_at_8", "timid", "random", "search"]',
                                                          'play = ["stop_at_8", "vs"]')
    p = tmp_path / "draw.toml"
    p.write_text(text + "\n[policies.vs]\nkind = \"search\"\nbase = \"stop_at_8\"\n" + table, encoding="utf-8")
    return str(p)


def _cli(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from test_cli_errors import _assert_one_line_error  # noqa: E402  (the house check of a one-line error)


@pytest.mark.parametrize("table, field, needle", [
    ("depth = 4\n", "depth", "needs a value model"),
    ('value = "missing.npz"\ndepth = 4\n', "value", "names a file that does not exist"),
    ('value = "learned.npz"\ndepth = 4\n', "value", "names a policy's weights, not a value model"),
    ('value = "value.npz"\n', "depth", "must be at least 1 with a value model"),
    ('value = "value.npz"\ndepth = 3\nbudget = "ismcts"\n', "value", "allowed budgets with a value: halving, uniform"),
])
def test_bad_value_fields_are_one_line_errors(tmp_path, table, field, needle):
    _value_file(tmp_path, [0.0] * 6, 0.0)
    _value_file(tmp_path, [0.0] * 6, 0.0, name="learned.npz", method="outcomes")
    r = _cli("run", _scenario(tmp_path, table), "--games", "10", "-q", "--out", tmp_path / "run")
    _assert_one_line_error(r, "draw.toml", f"field 'policies.vs.{field}'", needle)
    assert not (tmp_path / "run").exists()


def test_train_method_value_writes_a_value_the_search_plays(tmp_path):
    out = tmp_path / "out"
    weights = tmp_path / "draw.vs.npz"
    r = _cli("train", SCENARIO, "--name", "vs", "--base", "timid", "--method", "value", "--depth", "1",
             "--budget", "3000", "--teacher", "8", "--seed", "3", "--out", str(out), "--weights", str(weights), "-q")
    assert r.exit_code == 0, r.output
    model = load_model(weights)
    assert model.meta["method"] == "value" and model.meta["policy"] == "timid"
    # the value of timid's positions: a stop on a winning total is worth more than a stop on a losing one, and
    # the fit ranks won decisions above lost ones on its held-out games
    assert model.w[FEATS.index("stop_x_wins")] > 1.0
    assert model.meta["heldout_auc"] > 0.7
    # the scenario it wrote plays the search standing on it, one rollout deep, and beats timid by a margin
    r = _cli("ladder", str(out / "scenario.toml"), "-p", "vs", "-p", "timid", "-n", "1500", "--seed", "2", "-q",
             "--format", "csv")
    assert r.exit_code == 0, r.output
    rows = {row["policy"]: float(row["won"]) for row in csv.DictReader(io.StringIO(r.stdout))}
    assert rows["vs"] > rows["timid"] + 0.1, r.stdout


def test_set_plays_the_value_games_in_part_of_the_scenario_and_only_for_method_value(tmp_path):
    """Over a deck of three 5s timid (draw while below 6) draws at 0 and at 5, then stops on 10 and wins: under the
    override every game has these 3 decisions and is won (on the bundled deck timid wins 0.39)."""
    r = _cli("train", SCENARIO, "--name", "vs", "--base", "timid", "--method", "value", "--budget", "50",
             "--set", "cards=[5, 5, 5]", "--out", tmp_path / "out", "--weights", tmp_path / "v.npz", "-q")
    assert r.exit_code == 0, r.output
    row = r.output.splitlines()[2].split()
    assert row[:5] == ["timid", "50", "150", "120", "1.0000"], r.output  # decisions, fitted (4 games in 5), won
    r = _cli("train", SCENARIO, "--name", "vs", "--base", "timid", "--budget", "50", "--set", "cards=[5, 5, 5]",
             "--out", tmp_path / "out2", "-q")
    _assert_one_line_error(r, "--set", "only with --method value")
    assert not (tmp_path / "out2").exists()
