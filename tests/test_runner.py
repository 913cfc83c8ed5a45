"""The runner: same seed, same results for any number of workers; interrupted runs keep their blocks."""

import json

import numpy as np
import polars as pl
import pytest

import simkit
from simkit.core import loader, results
from simkit.core.runner import run_simulation
from simkit.core.simulation import Metric, Simulation
from simkit.games.valka.chance_strike import ChanceStrikeRules
from simkit.games.valka.dice_checks import ChanceStrikeSim


def small_sim():
    return ChanceStrikeSim([0, 3, 6], [0, 4], 0, ChanceStrikeRules())


def test_jobs_1_and_2_give_identical_summary_and_rows(tmp_path):
    a = run_simulation(small_sim(), 25_000, seed=42, jobs=1, block_size=4_000, out=tmp_path / "a")
    b = run_simulation(small_sim(), 25_000, seed=42, jobs=2, block_size=4_000, out=tmp_path / "b")
    assert (tmp_path / "a/summary.json").read_bytes() == (tmp_path / "b/summary.json").read_bytes()
    fa, fb = results.load(tmp_path / "a"), results.load(tmp_path / "b")
    assert fa.height == 25_000 * 6
    assert fa.equals(fb)
    assert a.blocks == b.blocks == 7  # ceil(25000 / 4000), the last block holds 1000 games
    assert len(results.block_files(tmp_path / "a")) == 7


def test_different_seed_differs(tmp_path):
    a = run_simulation(small_sim(), 5_000, seed=1, jobs=1, block_size=5_000)
    b = run_simulation(small_sim(), 5_000, seed=2, jobs=1, block_size=5_000)
    assert a.summary != b.summary


def test_run_without_seed_records_one_that_reproduces(tmp_path):
    a = run_simulation(small_sim(), 3_000, jobs=1, block_size=1_000, out=tmp_path / "a")
    man = json.loads((tmp_path / "a/manifest.json").read_text())
    assert int(man["root_seed"]) > 2**64  # 128-bit draws are this large with probability ~1
    b = run_simulation(small_sim(), 3_000, seed=int(man["root_seed"]), jobs=1, block_size=1_000)
    assert a.summary == b.summary


def test_manifest_records_what_was_run(tmp_path, chance_strike_scenario):
    res = simkit.run(chance_strike_scenario, games=2_000, seed=5, out=tmp_path / "r", jobs=1)
    man = results.manifest(tmp_path / "r")
    for key in ("simkit_version", "game", "mode", "rules_version", "scenario", "scenario_sha256",
                "rule_options", "root_seed", "block_size", "games", "wall_seconds"):
        assert key in man, key
    assert man["status"] == "complete" and man["games"] == 2_000 and man["root_seed"] == 5
    rows = results.summary(tmp_path / "r")
    assert {"metric", "group", "estimate", "low", "high", "n"} <= set(rows[0])
    assert all(r["low"] <= r["estimate"] <= r["high"] and r["n"] == 2_000 for r in rows)
    assert isinstance(res.frame, pl.DataFrame) and res.frame.height == 2_000 * 169


class ExplodingSim(Simulation):
    """Counts coin flips, and is interrupted (like Ctrl-C) when it reaches block 3."""

    game, mode, rules_version = "test", "exploding", "0"
    metrics = [Metric("heads", "heads")]

    def run_block(self, key, n):
        if int(key[0]) == int(self.stop_key[0]):
            raise KeyboardInterrupt
        rng = np.random.default_rng(key)
        return {"heads": rng.integers(0, 2, n).astype(np.int8)}


def test_interrupted_run_keeps_valid_blocks(tmp_path):
    from simkit.core.seeding import block_key

    sim = ExplodingSim()
    sim.stop_key = block_key(7, 3)
    with pytest.raises(KeyboardInterrupt):
        run_simulation(sim, 10_000, seed=7, jobs=1, block_size=1_000, out=tmp_path / "run")
    files = results.block_files(tmp_path / "run")
    assert [f.name for f in files] == [f"block-{i:06d}.parquet" for i in range(3)]
    frame = results.load(tmp_path / "run")
    assert frame.height == 3_000 and frame["block"].unique().sort().to_list() == [0, 1, 2]
    man = results.manifest(tmp_path / "run")
    assert man["status"] == "interrupted" and man["blocks"] == 3
    assert not list((tmp_path / "run").rglob("*.tmp"))


def test_precision_stops_at_the_same_block_for_any_jobs(tmp_path):
    sim = ChanceStrikeSim([0], [0], 0, ChanceStrikeRules())
    a = run_simulation(sim, seed=3, jobs=1, block_size=500, precision=0.01, out=tmp_path / "a")
    b = run_simulation(sim, seed=3, jobs=2, block_size=500, precision=0.01, out=tmp_path / "b")
    assert a.games == b.games and a.summary == b.summary
    assert max(r["high"] - r["low"] for r in a.summary) / 2 <= 0.01
    # one block fewer would not have been enough (stopping is at the first block that meets it)
    fewer = run_simulation(sim, a.games - 500, seed=3, jobs=1, block_size=500)
    assert max(r["high"] - r["low"] for r in fewer.summary) / 2 > 0.01
    assert len(results.block_files(tmp_path / "b")) == a.blocks


def test_precision_respects_max_games():
    sim = ChanceStrikeSim([0], [0], 0, ChanceStrikeRules())
    r = run_simulation(sim, seed=3, jobs=1, block_size=100, precision=0.0001, max_games=1_000)
    assert r.games == 1_000


def test_loader_reads_run_defaults(chance_strike_scenario):
    sc = loader.load(chance_strike_scenario)
    assert sc.game == "valka" and sc.mode == "chance-strike"
    assert sc.run.games == 20_000 and sc.run.block_size == 10_000
    assert sc.simulation.cells == 169


class PooledSim(Simulation):
    """Two cells that replay the same coin flips: pooling them must not double the information."""

    game, mode, rules_version = "test", "pooled", "0"
    metrics = [Metric("heads_rows", "heads", "rate", ()), Metric("heads_games", "heads", "rate", (), unit="game")]

    @property
    def cells(self):
        return 2

    def run_block(self, key, n):
        rng = np.random.default_rng(key)
        flips = rng.integers(0, 2, n).astype(np.int8)
        return {"game": np.tile(np.arange(n, dtype=np.int32), 2), "heads": np.concatenate([flips, flips])}


def test_pooled_cells_use_the_game_as_the_unit():
    res = run_simulation(PooledSim(), 4000, seed=1, jobs=1, block_size=1000)
    rows = {r["metric"]: r for r in res.summary}
    a, b = rows["heads_rows"], rows["heads_games"]
    assert a["estimate"] == pytest.approx(b["estimate"])
    assert a["n"] == 8000 and b["n"] == 4000
    # identical copies carry the information of 4000 games, not 8000: the interval is sqrt(2) wider
    assert (b["high"] - b["low"]) / (a["high"] - a["low"]) == pytest.approx(2 ** 0.5, rel=0.02)


class SeatRowsSim(PooledSim):
    """A game that writes one row per seat (as Valeria does): 2 cells of 3-seat games, 6 rows per game index."""

    metrics = [Metric("won", "won", "rate", ())]

    @property
    def cells(self):
        return 6

    @property
    def games_per_index(self):
        return 2

    def run_block(self, key, n):
        won = np.zeros(6 * n, np.int8)
        won[::3] = 1
        return {"game": np.repeat(np.arange(n, dtype=np.int32), 6), "won": won}


def test_the_run_line_counts_games_not_seat_rows(tmp_path, monkeypatch):
    """`simkit run`'s closing line says how many games were played: cells of games, not one row per seat."""
    from click.testing import CliRunner

    from simkit import cli

    class Loaded:
        simulation, warnings, sha256, overrides, mode = SeatRowsSim(), [], "0", [], "pooled"

        class run:
            seed, games, block_size = 1, 10, 10

    monkeypatch.setattr(loader, "load", lambda *a, **k: Loaded())
    scenario = tmp_path / "s.toml"
    scenario.write_text("")
    got = CliRunner().invoke(cli.cli, ["run", str(scenario), "--out", str(tmp_path / "run"), "--jobs", "1",
                                       "--quiet"])
    assert got.exit_code == 0, got.output
    assert "10 games per cell × 2 cells in" in got.output, got.output
