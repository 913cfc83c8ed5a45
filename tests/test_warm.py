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


def test_warming_search_at_one_rollout_compiles_what_its_full_rollouts_run(tmp_path):
    """``simkit warm`` plays a `search` target at one rollout per action (``WARM_ROLLOUTS``): the kernels it
    compiles are the ones the scenario's own rollouts run, so on the cache warm filled (a fresh one), the bench
    target at full rollouts writes no new file."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "SIMKIT_NUMBA_CACHE": str(tmp_path)}
    env.pop("NUMBA_CACHE_DIR", None)
    code = ("import sys; from simkit.core.warm import warm_group, groups; "
            "from simkit.core.bench import _targets; from simkit.core.runner import run_simulation\n"
            "if sys.argv[1] == 'warm':\n"
            "    warm_group('simkit.games.toy', groups('toy')['simkit.games.toy'])\n"
            "else:\n"
            "    sim = next(t[2] for t in _targets('toy', 1) if t[4])\n"
            "    assert sim.describe()['policies']['search']['rollouts'] > 1\n"
            "    run_simulation(sim, 2, seed=0, jobs=1, block_size=1)\n")

    def files():
        return sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file())

    subprocess.run([sys.executable, "-c", code, "warm"], env=env, check=True)
    warmed = files()
    assert any(f.endswith(".nbc") for f in warmed)
    subprocess.run([sys.executable, "-c", code, "search"], env=env, check=True)
    assert files() == warmed
