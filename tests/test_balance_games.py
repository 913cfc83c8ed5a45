"""`simkit balance` on each game's bundled data: a tiny budget, one cell where a game has many (smoke tests).

Each test compiles its engine's kernels on first use; the search itself plays a few hundred games.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from simkit.core import balance as B

ROOT = Path(__file__).resolve().parents[1]
SMALL = dict(budget=300, games_per_trial=100, eval_games=200, seed=1, max_edits=2, beside=False)


def _check(r, n_targets):
    assert len(r.rows) == n_targets and r.trials >= 2
    assert r.search_games <= SMALL["budget"]
    for row in r.rows:
        assert row.after.n == SMALL["eval_games"] or row.after.n > 0
        assert row.after.low <= row.after.estimate <= row.after.high
        assert row.after_status in ("met", "missed", "unclear")
    assert len(r.deviation) == len(r.edits) <= SMALL["max_edits"]


def test_lonequest(tmp_path):
    r = B.balance(ROOT / "scenarios/valka/lonequest.toml",
                  ["fighters.old_gob.health=3:5", "fighters.elder_oak.strike=2:5"], ["won[warband]=0.8±0.04"],
                  sets=['warbands=["goblins", "tree_beasts"]'], out=tmp_path / "run", **SMALL)
    assert r.policy == "learned"  # the strongest practical policy the scenario plays
    assert [x.target for x in r.rows] == ["won[warband=goblins]", "won[warband=tree_beasts]"]
    _check(r, 2)


def test_valhalla_solo(tmp_path):
    r = B.balance(ROOT / "scenarios/valhalla/solo.toml", ["monsters.troll.base.0.strength=5:9"],
                  ["won[level]=0.5:0.9"], out=tmp_path / "run",
                  sets=['monsters=["troll"]', 'variants=["base"]', 'jarls=["sigurd"]'], **SMALL)
    assert r.policy == "builder_tuned"
    assert [x.target for x in r.rows] == ["won[level=1]", "won[level=2]", "won[level=3]"]
    _check(r, 3)


def test_valka_duel_first_player(tmp_path):
    r = B.balance(ROOT / "scenarios/valka/duel.toml", ["fighters.axe_maiden.strike=3:5"],
                  ["first_won=0.45:0.55"], out=tmp_path / "run", **SMALL)
    assert r.policy == "balanced"
    _check(r, 1)


def test_valkyrie_incident_matchup(tmp_path):
    r = B.balance(ROOT / "scenarios/valkyrie_incident/blitz.toml", ["cards.skyla.strength=1:4"],
                  ["alpha_win=0.35:0.65"], out=tmp_path / "run",
                  sets=['emblems=[["raven", "iron"]]', 'play=["balanced"]'], **SMALL)
    _check(r, 1)


def test_valeria_first_seat(tmp_path):
    r = B.balance(ROOT / "scenarios/valeria/standard.toml", ["citizens.monk.cost=1:3"], ["won[seat=0]=0.2:0.3"],
                  sets=['play=["economy"]'], out=tmp_path / "run", **SMALL)
    assert r.policy == "economy"
    assert [x.target for x in r.rows] == ["won[seat=0]"]
    _check(r, 1)


def test_valhalla_multi_first_seat(tmp_path):
    r = B.balance(ROOT / "scenarios/valhalla/multi.toml", ["warriors.raven_berserker.strength=1:6"],
                  ["win_0=0.2:0.3"], out=tmp_path / "run",
                  sets=["players=[4]", 'variants=["valkyries"]', 'play=["builder"]'], **SMALL)
    assert r.policy == "builder"
    _check(r, 1)


@pytest.mark.parametrize("bad, needle", [("fighters.old_gob.helth=3:5", "did you mean"),
                                         ("fighters.old_gob.name=3:5", "not a number")])
def test_lonequest_bad_vary(bad, needle):
    from simkit.core.scenario import read_toml
    from simkit.errors import InputError

    path = ROOT / "scenarios/valka/lonequest.toml"
    with pytest.raises(InputError, match=needle):
        B.parse_vary(bad, path, read_toml(path)[0])
