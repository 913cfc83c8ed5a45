"""--backend dask --scheduler tcp://HOST:PORT: the blocks run on an existing Dask cluster, and the
results are identical to a local run with the same seed."""

import socket
import time
from pathlib import Path

import pytest

pytest.importorskip("distributed")

from click.testing import CliRunner  # noqa: E402
from distributed import LocalCluster  # noqa: E402

from simkit.cli import cli  # noqa: E402
from simkit.core import loader, results  # noqa: E402
from simkit.core.runner import run_simulation  # noqa: E402
from simkit.errors import InputError  # noqa: E402

SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"

GAMES, BLOCK, SEED = 300, 100, 20240611  # 3 blocks of 100 games per cell


def _tasks_seen(cluster) -> bool:
    """Whether the scheduler ran any of simkit's block tasks (joblib names them batch_of__block_task_...)."""
    return any("_block_task" in name for name in cluster.scheduler.task_prefixes)


@pytest.fixture(scope="module")
def lonequest_toml(tmp_path_factory):
    """Lonequest trimmed to 2 Warbands x 2 policies (4 cells), cards by absolute path."""
    path = tmp_path_factory.mktemp("scenario") / "lonequest_small.toml"
    cards = (SCENARIOS / "valka" / "cards.toml").resolve()
    path.write_text(f'''game = "valka"
mode = "lonequest"
cards = "{cards.as_posix()}"
warbands = ["goblins", "knights"]
play = ["cautious", "aggressive"]

[run]
games = {GAMES}
block_size = {BLOCK}
''')
    return path


@pytest.fixture(scope="module")
def cluster():
    c = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                     dashboard_address=":0")
    try:
        yield c
    finally:
        c.close()


@pytest.fixture(scope="module")
def local_run(lonequest_toml, tmp_path_factory):
    out = tmp_path_factory.mktemp("local") / "run"
    sim = loader.load(lonequest_toml).simulation
    run_simulation(sim, GAMES, seed=SEED, jobs=1, block_size=BLOCK, out=out)
    return out


def test_dask_run_matches_local_run(cluster, lonequest_toml, local_run, tmp_path):
    sim = loader.load(lonequest_toml).simulation
    res = run_simulation(sim, GAMES, seed=SEED, block_size=BLOCK, out=tmp_path / "dask",
                         backend="dask", scheduler=cluster.scheduler_address)
    assert _tasks_seen(cluster)
    assert res.blocks == 3 and res.games == GAMES
    assert res.manifest["backend"] == "dask" and res.manifest["status"] == "complete"
    assert (tmp_path / "dask/summary.json").read_bytes() == (local_run / "summary.json").read_bytes()
    frame = results.load(tmp_path / "dask")
    assert frame.height == GAMES * sim.cells
    assert frame.equals(results.load(local_run))
    assert len(results.block_files(tmp_path / "dask")) == 3


def test_cli_dask_backend(cluster, lonequest_toml, local_run, tmp_path):
    res = CliRunner().invoke(cli, ["run", str(lonequest_toml), "--backend", "dask",
                                   "--scheduler", cluster.scheduler_address, "--seed", str(SEED),
                                   "--out", str(tmp_path / "cli"), "--quiet"])
    assert res.exit_code == 0, (res.output, res.exception)
    assert (tmp_path / "cli/summary.json").read_bytes() == (local_run / "summary.json").read_bytes()
    assert results.load(tmp_path / "cli").equals(results.load(local_run))


def test_one_thread_cluster_still_runs_the_blocks_on_the_cluster(lonequest_toml, local_run, tmp_path):
    # joblib falls back to running in the calling process when a backend reports one
    # core; the blocks must still go to the cluster's single worker.
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=":0") as one:
        sim = loader.load(lonequest_toml).simulation
        run_simulation(sim, GAMES, seed=SEED, block_size=BLOCK, out=tmp_path / "one",
                       backend="dask", scheduler=one.scheduler_address)
        assert _tasks_seen(one)
    assert (tmp_path / "one/summary.json").read_bytes() == (local_run / "summary.json").read_bytes()


def test_unreachable_scheduler_is_a_clear_input_error(lonequest_toml, tmp_path):
    with socket.socket() as s:  # a port on which nothing listens
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    sim = loader.load(lonequest_toml).simulation
    start = time.perf_counter()
    with pytest.raises(InputError, match="--scheduler"):
        run_simulation(sim, GAMES, seed=SEED, block_size=BLOCK, backend="dask",
                       scheduler=f"tcp://127.0.0.1:{port}")
    assert time.perf_counter() - start < 20


def test_malformed_scheduler_address_is_a_clear_input_error(lonequest_toml):
    sim = loader.load(lonequest_toml).simulation
    with pytest.raises(InputError, match="--scheduler"):
        run_simulation(sim, GAMES, seed=SEED, block_size=BLOCK, backend="dask", scheduler="no-port-here")


def test_unreachable_scheduler_writes_nothing(tmp_path):
    from click.testing import CliRunner

    from simkit.cli import cli

    out = tmp_path / "never"
    res = CliRunner().invoke(cli, ["run", "scenarios/valka/chance_strike.toml", "--games", "100", "--seed", "1",
                                   "--backend", "dask", "--scheduler", "tcp://127.0.0.1:9", "--out", str(out), "-q"])
    assert res.exit_code == 2 and "--scheduler" in res.stderr
    assert not out.exists()
