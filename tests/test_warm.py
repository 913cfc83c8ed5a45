"""`simkit warm`: the bench targets grouped by the engine package they compile, each group played in one process;
an unknown name is one line and exit code 2."""

from __future__ import annotations

from click.testing import CliRunner

from simkit.cli import cli
from simkit.core.warm import groups


def test_modes_that_share_an_engine_are_one_group():
    g = groups("valka")
    assert set(g["simkit.games.valka.multiplayer"]) == {"valka/bounty-hunter", "valka/annihilation", "valka/duel"}
    assert g["simkit.games.valka.lonequest"] == ["valka/lonequest"]
    assert set(g["simkit.games.valka"]) == {"valka/chance-strike", "valka/test-fate"}  # the dice checks
    assert not any(t.startswith("valka/") for k, v in groups("toy").items() for t in v)


def test_warm_plays_a_groups_targets_and_its_engine():
    res = CliRunner().invoke(cli, ["warm", "toy", "--jobs", "1"])
    assert res.exit_code == 0, res.output
    row = next(ln.split() for ln in res.stdout.splitlines() if ln.startswith("toy"))
    assert row[:2] == ["toy", "3"]  # Draw to Ten's heuristics, its `search` cell and one game through its engine


def test_an_unknown_name_is_one_line():
    res = CliRunner().invoke(cli, ["warm", "chess"])
    assert res.exit_code == 2 and res.stderr.count("\n") == 1 and "allowed values" in res.stderr
