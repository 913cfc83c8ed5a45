"""A gated `search` (issue 41): over a `learned` base it searches only where the base's best score leads the
second by less than ``gate``, and elsewhere plays the base's action. Checked on a hand-built Draw to Ten position
whose every outcome is certain, with a scorer by hand; then through a scenario (a gate below every lead of the scorer
plays exactly as its base) and the fields' one-line errors."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from simkit.cli import cli
from simkit.core import loader
from simkit.core.learned import Model
from simkit.core.policies import compile_policy
from simkit.core.rng import seed_stream
from simkit.games.toy import engine as E

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_value_search import _position  # noqa: E402  (a Draw to Ten position by hand)

SCENARIO = "scenarios/toy/draw.toml"
FEATS = list(E.FEATURES)
# the scorer by hand: is_base 1.0, draw_x_total 0.21, stop_x_wins 2.0; its base heuristic stops at once
# (stop_at 0), so a stop is always the base's action. Over a deck of 2s from total 4: stop 1.0 against draw 0.84
# (it stops: a lead of 0.16); at 6 the draw leads (1.26 against 1.0); at 8 the stop wins (1.0 + 2.0 against
# 1.68). So from 4 a draw goes on to 6, 8 and a winning stop (worth 1), while the base's stop at 4 loses (worth
# 0). At every total the lead is at least 0.05 (at 5: 1.05 against 1.0), so a gate of 0.01 never searches.
W = [1.0, 0.0, 0.21, 0.0, 0.0, 2.0]


def _weights(tmp_path, name="learned.npz"):
    m = Model("toy", "draw", FEATS, np.asarray(W, np.float64), np.zeros((0, len(FEATS))), np.zeros(0),
              np.zeros(0), "stop_at_0", {"stop_at": 0.0}, "x", {"method": "outcomes"})
    return m.save(tmp_path / name)


def _search_values(tmp_path, gate: float, budget: str):
    values = {"rollouts": 8, "budget": budget, "caution": 1.0, "base_kind": "learned",
              "base_params": {"weights": str(_weights(tmp_path)), "temperature": 0.0,
                              "base_params": {"stop_at": 0.0}}, "gate": gate}
    _, _, cfg, params = compile_policy("search", values, E.PARAMS)
    game, s, rng, env = _position(4, [2, 2, 2, 2])
    buf = np.empty(2, np.int64)
    n = game.fns.legal_actions(s, env, buf)
    out = np.empty(n)
    srng = np.empty(4, np.uint64)
    seed_stream(srng, np.array([5, 17], np.uint64), 0, 0)
    a = game.search.search_values(s, rng, env, buf, n, cfg, params, srng, out)
    return int(a), {int(buf[i]): float(out[i]) for i in range(n)}


@pytest.mark.parametrize("budget", ["uniform", "halving"])
def test_the_gate_searches_only_where_the_base_is_unsure(tmp_path, budget):
    # the base's stop leads the draw by 0.16: a gate of 0.1 finds it sure and plays the stop unsearched (no values)
    a, values = _search_values(tmp_path, 0.1, budget)
    assert a == E.STOP
    assert all(math.isnan(v) for v in values.values())
    # a gate of 0.3 (and no gate at all) finds it unsure: the rollouts value the stop 0 and the draw 1, and play it
    for gate in (0.3, 0.0):
        a, values = _search_values(tmp_path, gate, budget)
        assert a == E.DRAW, gate
        assert values == {E.STOP: 0.0, E.DRAW: 1.0}, gate


def _scenario(tmp_path, table: str) -> str:
    _weights(tmp_path)
    text = open(SCENARIO, encoding="utf-8").read().replace('play = ["stop_at_8", "timid", "random", "search"]',
                                                          'play = ["lb", "gs"]')
    p = tmp_path / "draw.toml"
    p.write_text(text + '\n[policies.lb]\nkind = "learned"\nweights = "learned.npz"\n'
                 + '\n[policies.gs]\nkind = "search"\nbase = "lb"\nrollouts = 8\n' + table, encoding="utf-8")
    return str(p)


def _cli(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def test_a_gate_below_every_lead_plays_as_its_base_and_no_gate_does_not(tmp_path):
    """With a gate below the base's every lead (0.01) the search plays its `learned` base's action at every
    decision: the same games, each won or lost alike; without a gate it beats the base by a margin (the base
    stops below 5, where a draw can win)."""
    def games(table):
        sim = loader.load(_scenario(tmp_path, table)).simulation
        cols = sim.run_block(np.array([4, 9], np.uint64), 400)
        won, pol = np.asarray(cols["won"]), np.asarray(cols["policy"])
        return won[pol == "gs"], won[pol == "lb"]

    gs, lb = games("gate = 0.01\n")
    assert len(gs) == len(lb) == 400
    assert np.array_equal(gs, lb)
    gs, lb = games("")
    assert gs.mean() > lb.mean() + 0.1, (gs.mean(), lb.mean())


sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from test_cli_errors import _assert_one_line_error  # noqa: E402  (the house check of a one-line error)


@pytest.mark.parametrize("table, needle", [
    ('gate = 0.5\nbudget = "ismcts"\n', "allowed budgets with a gate: halving, uniform"),
    ("gate = -1\n", "must be at least 0"),
])
def test_bad_gate_fields_are_one_line_errors(tmp_path, table, needle):
    r = _cli("run", _scenario(tmp_path, table), "--games", "10", "-q", "--out", tmp_path / "run")
    _assert_one_line_error(r, "draw.toml", "field 'policies.gs.gate'", needle)
    assert not (tmp_path / "run").exists()


def test_a_gate_over_a_heuristic_base_is_a_one_line_error(tmp_path):
    text = open(SCENARIO, encoding="utf-8").read()
    p = tmp_path / "draw.toml"
    p.write_text(text + '\n[policies.search]\nkind = "search"\nbase = "stop_at_8"\ngate = 0.5\n', encoding="utf-8")
    r = _cli("run", str(p), "--games", "10", "-q", "--out", tmp_path / "run")
    _assert_one_line_error(r, "draw.toml", "field 'policies.search.gate'",
                           "reads the scores of a learned base policy, and base names 'stop_at_8'")
    assert not (tmp_path / "run").exists()
