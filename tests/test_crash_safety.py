"""Crash safety where real machines fail: a full disk, two writers on one run folder, SIGTERM and Ctrl-C.

After every kind of stop the manifest says ``interrupted`` and counts the blocks that are on disk, no hidden
temporary file is left, the command says how to ``--resume``, and the resumed run is byte-identical to one that
was never stopped. A run folder is owned by one process at a time (an OS lock on the folder).
"""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from simkit.cli import cli
from simkit.core import results

ROOT = Path(__file__).resolve().parents[1]
SIMKIT = str(Path(sys.executable).with_name("simkit"))
SCENARIO = str(ROOT / "scenarios/valka/chance_strike.toml")
# 24 blocks of 4,000 games × 169 cells: a few seconds on 2 cores, long enough to stop in the middle
ARGS = ["--games", "96000", "--block-size", "4000", "--seed", "11", "--quiet"]
# 20 blocks of 1,000 games × 169 cells, about 190 KiB a block: a 1 MiB disk fills after 5 blocks
SMALL = ["--games", "20000", "--block-size", "1000", "--seed", "11", "--quiet"]


def simkit(*args, cwd, **kw):
    return subprocess.run([SIMKIT, *args], cwd=cwd, capture_output=True, text=True, timeout=300, **kw)


def start(out: Path, cwd: Path, *extra: str, args=ARGS, jobs: str = "2") -> subprocess.Popen:
    cmd = [SIMKIT, "run", *extra] if extra else [SIMKIT, "run", SCENARIO, *args, "--out", str(out)]
    return subprocess.Popen([*cmd, "--jobs", jobs], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)


def block_names(out: Path) -> list[str]:
    return sorted(p.name for p in (out / "blocks").glob("block-*.parquet"))


def wait_for_blocks(out: Path, proc: subprocess.Popen, k: int) -> None:
    deadline = time.time() + 240
    while len(block_names(out)) < k:
        assert proc.poll() is None, proc.communicate()
        assert time.time() < deadline, "the run wrote no blocks"
        time.sleep(0.05)


def hidden(out: Path) -> list[str]:
    return sorted(p.name for d in (out, out / "blocks") if d.exists() for p in d.iterdir() if p.name.startswith("."))


def assert_identical(run: Path, ref: Path) -> None:
    assert (run / "summary.json").read_bytes() == (ref / "summary.json").read_bytes()
    names = sorted(p.name for p in (ref / "blocks").iterdir())
    assert sorted(p.name for p in (run / "blocks").iterdir()) == names  # no stray temporary files either
    for name in names:
        assert (run / "blocks" / name).read_bytes() == (ref / "blocks" / name).read_bytes(), name
    a, b = json.loads((run / "manifest.json").read_text()), json.loads((ref / "manifest.json").read_text())
    for volatile in ("wall_seconds", "jobs", "resumed", "scenario", "scenario_path"):
        a.pop(volatile, None)
        b.pop(volatile, None)
    assert a == b and a["status"] == "complete"


def assert_manifest_counts_disk(out: Path, block_size: int) -> dict:
    man = json.loads((out / "manifest.json").read_text())
    on_disk = block_names(out)
    assert man["status"] == "interrupted", man["status"]
    assert man["blocks"] == len(on_disk), (man["blocks"], on_disk)
    assert man["games"] == len(on_disk) * block_size
    assert "pid" not in man
    assert hidden(out) == [], hidden(out)
    return man


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The runs never interrupted (one job: results do not depend on --jobs)."""
    tmp = tmp_path_factory.mktemp("ref")
    for name, args in (("ref", ARGS), ("small", SMALL)):
        res = simkit("run", SCENARIO, *args, "--jobs", "1", "--out", str(tmp / name), cwd=tmp)
        assert res.returncode == 0, res.stderr
    return tmp


# --- SIGTERM and Ctrl-C -------------------------------------------------------------------------------------

@pytest.mark.parametrize("signum, group, code", [
    (signal.SIGTERM, False, 143),  # `timeout`, a scheduler or a CI runner stopping the command
    (signal.SIGTERM, True, 143),  # ... or its whole process group
    (signal.SIGINT, False, 130),  # SIGINT to the main process alone: its workers' finished blocks are counted
    (signal.SIGINT, True, 130),  # Ctrl-C in a terminal: the whole process group
], ids=["sigterm-main", "sigterm-group", "sigint-main", "sigint-group"])
def test_a_signal_keeps_blocks_counts_them_cleans_up_and_resumes(tmp_path, reference, signum, group, code):
    out = tmp_path / "run"
    proc = start(out, tmp_path)
    wait_for_blocks(out, proc, 2)
    if group:
        os.killpg(proc.pid, signum)
    else:
        proc.send_signal(signum)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == code, err
    assert "finished blocks were kept" in err and f"simkit run --resume {out}" in err, err
    assert "Traceback" not in err
    assert_manifest_counts_disk(out, 4000)
    res = simkit("run", "--resume", str(out), "--jobs", "2", "--quiet", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert_identical(out, reference / "ref")


def test_a_worker_leaves_ctrl_c_to_the_main_process():
    """Ctrl-C signals the whole group; a loky worker interrupted between tasks printed a traceback (CI, stop 28).
    Every worker the runner starts ignores SIGINT: the main process stops the run and ends the workers."""
    code = ("import signal; from simkit.core import runner; "
            "print(signal.getsignal(signal.SIGINT) is signal.SIG_IGN); runner._worker_init(); "
            "print(signal.getsignal(signal.SIGINT) is signal.SIG_IGN)")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == ["False", "True"]


def test_the_manifest_counts_blocks_a_stop_left_unconsumed_and_temporary_files_go(tmp_path, monkeypatch):
    """Deterministic version of "SIGINT to the main process alone": block 2 is on disk, but the main process is
    interrupted before it counts it (the old manifest said 2 blocks, the folder held 3), while a killed worker's
    hidden temporary file lies in the folder (the old run left it there)."""
    from simkit.core import loader, runner
    from simkit.core.simulation import StatsAccumulator

    sim = loader.load(SCENARIO).simulation
    out = tmp_path / "run"
    real_add = StatsAccumulator.add
    calls = []

    def add(self, rows):
        calls.append(1)
        if len(calls) == 3:
            (out / "blocks" / ".block-000003.parquet.abc.tmp").write_bytes(b"")  # what a killed worker leaves
            raise KeyboardInterrupt
        real_add(self, rows)

    monkeypatch.setattr(StatsAccumulator, "add", add)
    with pytest.raises(KeyboardInterrupt):
        runner.run_simulation(sim, 5000, seed=3, jobs=1, block_size=1000, out=out)
    assert block_names(out) == [f"block-{i:06d}.parquet" for i in range(3)]
    assert_manifest_counts_disk(out, 1000)


# --- one writer per run folder ------------------------------------------------------------------------------

def _manifest_pid(out: Path):
    try:
        return json.loads((out / "manifest.json").read_text()).get("pid")
    except (OSError, ValueError):
        return None


def test_a_second_run_on_the_same_out_is_refused(tmp_path, reference):
    """Two runs started a second apart, before the first wrote a block: the old code ran both, mixing their
    blocks under one manifest and summary."""
    out = tmp_path / "run"
    first = start(out, tmp_path)
    deadline = time.time() + 120
    while _manifest_pid(out) != first.pid:
        assert first.poll() is None and time.time() < deadline, first.communicate()
        time.sleep(0.01)
    # the first run paused while the second starts (under a loaded CI the first could finish, and release the
    # folder, before the second process had imported simkit: the race this test is about would not happen)
    os.killpg(first.pid, signal.SIGSTOP)
    try:
        second = simkit("run", SCENARIO, *ARGS[:4], "--seed", "12", "--quiet", "--jobs", "1", "--out", str(out),
                        cwd=tmp_path)
    finally:
        os.killpg(first.pid, signal.SIGCONT)
    assert second.returncode == 2, second.stderr
    err = second.stderr.strip()
    assert len(err.splitlines()) == 1 and "another simkit run is writing this run folder" in err, err
    assert f"process {first.pid}" in err and str(out) in err
    _, err = first.communicate(timeout=300)
    assert first.returncode == 0, err
    assert_identical(out, reference / "ref")  # the blocks, manifest and summary of the first run alone


def test_two_resumes_started_together_one_runs_and_the_lock_dies_with_kill_9(tmp_path, reference):
    out = tmp_path / "run"
    proc = start(out, tmp_path)
    wait_for_blocks(out, proc, 2)
    proc.kill()  # kill -9: the kernel releases the folder's lock
    proc.wait()
    both = [start(out, tmp_path, "--resume", str(out), "--quiet") for _ in range(2)]
    done = [p.communicate(timeout=300) for p in both]
    codes = sorted(p.returncode for p in both)
    assert codes == [0, 2], [d[1] for d in done]
    refused = next(err for p, (_, err) in zip(both, done) if p.returncode == 2)
    assert "another simkit run is writing this run folder" in refused or "already complete" in refused, refused
    assert_identical(out, reference / "ref")


# --- a full disk ---------------------------------------------------------------------------------------------

def _full_after(monkeypatch, blocks: int | None):
    """A fault-injected writer: the disk is full after ``blocks`` block files (None: full for every file)."""
    real = results._write_bytes
    written = []

    def write(path, data):
        if blocks is None or (path.parent.name == "blocks" and len(written) >= blocks):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
        if path.parent.name == "blocks":
            written.append(path)
        real(path, data)

    monkeypatch.setattr(results, "_write_bytes", write)


def _one_line(res) -> str:
    assert res.exit_code == 2, (res.exit_code, res.output, res.exception)
    err = res.stderr.strip()
    assert len(err.splitlines()) == 1 and err.startswith("simkit: error:") and "Traceback" not in res.output, err
    return err


def test_full_disk_mid_run_stops_cleanly_and_resumes(tmp_path, reference, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _full_after(monkeypatch, 3)
    err = _one_line(CliRunner().invoke(cli, ["run", SCENARIO, *SMALL, "--jobs", "1", "--out", "run"]))
    assert "--out run: cannot write block 3 (No space left on device)" in err, err
    assert "each block needs about" in err and "KiB" in err
    assert "3 finished blocks (3,000 games per cell) kept" in err and "`simkit run --resume run`" in err, err
    assert_manifest_counts_disk(tmp_path / "run", 1000)
    assert len(block_names(tmp_path / "run")) == 3
    monkeypatch.undo()
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(cli, ["run", "--resume", "run", "--jobs", "1", "--quiet"])
    assert res.exit_code == 0, res.output
    assert_identical(tmp_path / "run", reference / "small")


@pytest.mark.parametrize("blocks", [0, None], ids=["no-room-for-a-block", "no-room-for-the-manifest"])
def test_full_disk_before_any_block_leaves_no_run_folder(tmp_path, monkeypatch, blocks):
    monkeypatch.chdir(tmp_path)
    _full_after(monkeypatch, blocks)
    err = _one_line(CliRunner().invoke(cli, ["run", SCENARIO, *SMALL, "--jobs", "1", "--out", "run"]))
    assert "run" in err and "No space left on device" in err, err
    assert not (tmp_path / "run").exists()


@pytest.fixture
def small_disk(tmp_path):
    """A real 1 MiB tmpfs (needs root and a kernel that lets this process mount; skipped otherwise)."""
    mnt = tmp_path / "disk"
    mnt.mkdir()
    if os.geteuid() != 0 or subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mnt)],
                                           capture_output=True).returncode != 0:
        pytest.skip("cannot mount a small tmpfs here (the fault-injected tests cover the same paths)")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], capture_output=True)


def test_full_tmpfs_stops_cleanly_and_resumes_when_space_is_freed(small_disk, reference):
    out = small_disk / "run"
    res = simkit("run", SCENARIO, *SMALL, "--jobs", "1", "--out", str(out), cwd=small_disk)
    assert res.returncode == 2, res.stderr
    err = res.stderr.strip()
    assert len(err.splitlines()) == 1 and "No space left on device" in err and "each block needs about" in err
    assert f"simkit run --resume {out}" in err and "Traceback" not in err
    man = assert_manifest_counts_disk(out, 1000)
    assert 1 <= man["blocks"] < 20
    # a disk that is already full refuses the next run and leaves no empty run folder behind
    try:
        with open(small_disk / "fill", "wb", buffering=0) as fh:
            while True:
                fh.write(b"\0" * 4096)
    except OSError:
        pass
    again = simkit("run", SCENARIO, *SMALL, "--jobs", "1", "--out", str(small_disk / "run2"), cwd=small_disk)
    assert again.returncode == 2 and "No space left on device" in again.stderr, again.stderr
    assert not (small_disk / "run2").exists()
    # more room: the resumed run is the run that was never stopped
    (small_disk / "fill").unlink()
    assert subprocess.run(["mount", "-o", "remount,size=8m", str(small_disk)]).returncode == 0
    res = simkit("run", "--resume", str(out), "--jobs", "1", "--quiet", cwd=small_disk)
    assert res.returncode == 0, res.stderr
    assert_identical(out, reference / "small")
