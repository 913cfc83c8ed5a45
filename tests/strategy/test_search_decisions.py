"""A `search` restricted to some kinds of decision (issue 41): ``decisions = [KIND, ...]`` searches only where the
base policy's action is of one of these kinds (the engine's feature kinds) and elsewhere plays the base's action
unsearched. Checked on dealt Valhalla Solo positions (a battle's roll and a turn's play), then the fields'
one-line errors."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from simkit.cli import cli
from simkit.core.policies import compile_policy, decision_kinds
from simkit.core.rng import seed_stream
from simkit.games.valhalla.solo import features as F
from simkit.games.valhalla.solo import layout as L
from simkit.games.valhalla.solo import policies as P
from simkit.games.valhalla.solo.simulation import decision_game

ROLL = ["roll_stop", "free_reroll", "basic_reroll", "deliver"]
GAME = decision_game()
BASE_KIND, BASE = GAME.policies["builder_tuned"]


def test_the_kinds_are_the_engines_feature_kinds_in_order():
    """Every mode's kinds, read from its features' source, are the kinds its ``is_base_x_KIND`` features name, in
    order (the order of ``Parts.kind``); a mode without kinds has none."""
    from simkit.core import registry

    assert decision_kinds("valhalla", "solo") == list(F.CATEGORIES)
    assert decision_kinds("toy", "draw") == [] and decision_kinds("valeria", "kingdoms") == []
    with_kinds = 0
    for game, mode in registry.all_modes():
        kinds = decision_kinds(game.name, mode.name)
        if kinds:
            with_kinds += 1
            names = mode.feature_names()
            assert list(names[1:1 + len(kinds)]) == [f"is_base_x_{k}" for k in kinds], (game.name, mode.name)
    assert with_kinds == 8  # Valhalla Solo and multiplayer, Lonequest, three VÁLKA multiplayer, two Incident


def _mask(names):
    kinds = decision_kinds("valhalla", "solo")
    return sum(1 << kinds.index(k) for k in names)


def _position(phase: int, seed: int = 0):
    """The first decision of a dealt game (played on by `builder_tuned`) in ``phase`` with at least two actions."""
    buf = np.empty(GAME.max_actions, np.int64)
    prng = np.array([seed, 1, 2, 3], np.uint64)
    for g in range(seed, seed + 50):
        s, rng, env = GAME.new_game(g)
        while not GAME.fns.is_over(s):
            n = GAME.fns.legal_actions(s, env, buf)
            if s[L.PHASE] == phase and n >= 2:
                return s, rng, env, buf[:n].copy()
            GAME.fns.apply_action(s, rng, env, GAME.fns.policy(BASE_KIND, s, env, buf, n, BASE, prng))
    raise AssertionError(f"no decision in phase {phase}")


def _search(position, names):
    """The search's action and each action's value (4 rollouts of `builder_tuned` an action, on the same samples
    whatever the kinds), restricted to ``names`` (none: every kind)."""
    s, rng, env, legal = position
    values = {"rollouts": 4, "budget": "uniform", "caution": 1.0, "base_kind": "heuristic", "base_params": {},
              "decision_mask": _mask(names)}
    _, _, cfg, _ = compile_policy("search", values, P.PARAMS)
    out = np.empty(len(legal))
    srng = np.empty(4, np.uint64)
    seed_stream(srng, np.array([3, 11], np.uint64), 0, 0)
    a = GAME.search.search_values(s.copy(), rng.copy(), env, legal, len(legal), cfg, BASE, srng, out)
    return int(a), out


@pytest.mark.parametrize("phase, searched, skipped", [
    (L.PH_ROLL, ROLL, ["play", "pair", "draw", "attack"]),
    (L.PH_A, ["play", "pair", "draw", "attack"], ROLL),
])
def test_search_only_at_the_named_kinds(phase, searched, skipped):
    pos = _position(phase)
    s, rng, env, legal = pos
    base = int(GAME.fns.policy(BASE_KIND, s, env, legal, len(legal), BASE, np.zeros(4, np.uint64)))
    # a kind the base's action is not of: the base's action, unsearched (no action valued)
    a, values = _search(pos, skipped)
    assert a == base
    assert all(math.isnan(v) for v in values)
    # its own kind: searched, every action valued by its rollouts (uniform budget) as a win rate
    a, values = _search(pos, searched)
    assert a in set(int(x) for x in legal)
    assert not any(math.isnan(v) for v in values)
    assert all(0.0 <= v <= 1.0 for v in values)
    # no restriction (mask 0) values the same actions alike: the same samples
    _, every = _search(pos, [])
    assert np.array_equal(every, values)


sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from test_cli_errors import _assert_one_line_error  # noqa: E402  (the house check of a one-line error)


def _cli(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


@pytest.mark.parametrize("table, field, needle", [
    ('decisions = ["roll"]\n', "policies.rs.decisions[0]",
     "names an unknown decision kind 'roll'; allowed values: exchange_keep, exchange_aside, play"),
    ('decisions = []\n', "policies.rs.decisions", "must name at least one decision kind; allowed values: "),
    ('decisions = "roll_stop"\n', "policies.rs.decisions", "must be"),
    ('decisions = ["roll_stop"]\nbudget = "ismcts"\n', "policies.rs.decisions",
     "allowed budgets with decisions: halving, uniform"),
])
def test_bad_decisions_fields_are_one_line_errors(tmp_path, table, field, needle):
    text = Path("scenarios/valhalla/solo.toml").read_text(encoding="utf-8")
    p = tmp_path / "solo.toml"
    here = Path("scenarios/valhalla").resolve()
    text = text.replace('"cards.toml"', f'"{here / "cards.toml"}"').replace('"deck.toml"', f'"{here / "deck.toml"}"')
    for name in ("solo.value.npz", "solo.learned.npz"):
        text = text.replace(f'"{name}"', f'"{here / name}"')
    p.write_text(text + '\n[policies.rs]\nkind = "search"\nbase = "builder_tuned"\n' + table, encoding="utf-8")
    r = _cli("run", p, "--games", "10", "-q", "--set", 'play=["rs"]', "--out", tmp_path / "run")
    _assert_one_line_error(r, "solo.toml", f"field '{field}'", needle)
    assert not (tmp_path / "run").exists()


def test_decisions_in_a_game_without_kinds_is_a_one_line_error(tmp_path):
    text = Path("scenarios/toy/draw.toml").read_text(encoding="utf-8")
    p = tmp_path / "draw.toml"
    p.write_text(text + '\n[policies.search]\nkind = "search"\nbase = "stop_at_8"\ndecisions = ["draw"]\n',
                 encoding="utf-8")
    r = _cli("run", p, "--games", "10", "-q", "--out", tmp_path / "run")
    _assert_one_line_error(r, "draw.toml", "field 'policies.search.decisions'",
                           "this game's engine has none (no learned features)")
    assert not (tmp_path / "run").exists()


def test_decision_policies_are_every_policy_but_search_compiled():
    """``decision_policies``: the decision game's policies are the scenario's non-search ones, each the kind and
    vector ``compile_policy`` gives (a search plays through the engine's own searcher)."""
    from simkit.core.policies import SEARCH, decision_policies

    specs = [("tuned", "heuristic", {"attack_ratio": 1.5}), ("s", "search", {}), ("r", "random", {})]
    got = decision_policies(specs, P.PARAMS)
    assert list(got) == ["tuned", "r"]
    for name, kind, values in specs[::2]:
        k, vec, _, _ = compile_policy(kind, values, P.PARAMS)
        assert got[name][0] == k != SEARCH and np.array_equal(got[name][1], vec)
    assert got["tuned"][1][P.PARAMS["attack_ratio"][0]] == 1.5
