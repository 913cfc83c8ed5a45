"""Crash safety: workers die with their parent, killed or interrupted runs resume to identical results,
and `report` on an unfinished run says so with the right counts."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

ROOT = Path(__file__).resolve().parents[1]
SIMKIT = str(Path(sys.executable).with_name("simkit"))
SCENARIO = str(ROOT / "scenarios/valka/chance_strike.toml")
# 24 blocks of 4,000 games × 169 cells: a few seconds on 2 cores, long enough to kill in the middle
ARGS = ["--games", "96000", "--block-size", "4000", "--seed", "11", "--quiet"]


def simkit(*args, cwd, **kw):
    return subprocess.run([SIMKIT, *args], cwd=cwd, capture_output=True, text=True, timeout=300, **kw)


def start(out: Path, cwd: Path, jobs: str = "2") -> subprocess.Popen:
    return subprocess.Popen([SIMKIT, "run", SCENARIO, *ARGS, "--jobs", jobs, "--out", str(out)], cwd=cwd,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)


def wait_for_blocks(out: Path, proc: subprocess.Popen, k: int = 3) -> None:
    deadline = time.time() + 240
    while len(list((out / "blocks").glob("block-*.parquet"))) < k:
        assert proc.poll() is None, proc.communicate()
        assert time.time() < deadline, "the run wrote no blocks"
        time.sleep(0.05)


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The same run, never interrupted (one job: results do not depend on --jobs)."""
    tmp = tmp_path_factory.mktemp("ref")
    res = simkit("run", SCENARIO, *ARGS, "--jobs", "1", "--out", str(tmp / "ref"), cwd=tmp)
    assert res.returncode == 0, res.stderr
    return tmp / "ref"


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


def test_kill_9_stops_the_workers_and_resume_is_byte_identical(tmp_path, reference):
    out = tmp_path / "run"
    proc = start(out, tmp_path)
    main = psutil.Process(proc.pid)
    wait_for_blocks(out, proc)
    workers = [c for c in main.children(recursive=True)]
    assert workers, "the run started no worker processes"
    proc.kill()
    proc.wait()
    gone, alive = psutil.wait_procs(workers, timeout=30)
    assert not alive, f"processes outlived their run: {[p.cmdline() for p in alive]}"
    man = json.loads((out / "manifest.json").read_text())
    assert man["status"] == "running"  # what a kill -9 leaves

    # report on the unfinished run: says so, with the games its blocks hold
    blocks = len(list((out / "blocks").glob("block-*.parquet")))
    rep = simkit("report", str(out), cwd=tmp_path)
    assert rep.returncode == 0, rep.stderr
    assert "Unfinished run" in rep.stderr and f"{blocks} of 24 blocks" in rep.stderr
    text = (out / "report/report.md").read_text()
    assert "**Unfinished run**" in text and f"{blocks} of 24 blocks" in text and f"{blocks * 4000:,} games" in text
    assert re.search(rf"\|\s*games\s*\|\s*{blocks * 4000}\s*\|", text)

    res = simkit("run", "--resume", str(out), "--jobs", "2", "--quiet", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert_identical(out, reference)
    again = simkit("run", "--resume", str(out), cwd=tmp_path)
    assert again.returncode == 2 and "already complete" in again.stderr


def test_ctrl_c_keeps_blocks_says_so_and_resumes(tmp_path, reference):
    out = tmp_path / "run"
    proc = start(out, tmp_path)
    wait_for_blocks(out, proc, 2)
    os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C in a terminal does: the whole process group
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "interrupted; finished blocks were kept" in err and f"simkit run --resume {out}" in err
    assert "Traceback" not in err
    assert json.loads((out / "manifest.json").read_text())["status"] == "interrupted"
    res = simkit("run", "--resume", str(out), "--jobs", "1", "--quiet", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert_identical(out, reference)


def test_resume_redoes_a_damaged_block_and_refuses_a_changed_scenario(tmp_path, reference):
    import shutil

    out = tmp_path / "run"
    shutil.copytree(reference, out)
    man = json.loads((out / "manifest.json").read_text())
    man.update(status="running", pid=2**22 + 12345, host="elsewhere")
    (out / "manifest.json").write_text(json.dumps(man))
    (out / "summary.json").unlink()
    for i in (3, 7, 20):
        (out / "blocks" / f"block-{i:06d}.parquet").unlink()
    (out / "blocks" / "block-000005.parquet").write_bytes(b"PAR1 truncated")
    (out / "blocks" / ".block-000009.parquet.abc.tmp").write_bytes(b"half")
    # a damaged block: report names it; resume plays it again
    rep = simkit("report", str(out), cwd=tmp_path)
    assert rep.returncode == 2 and "block-000005.parquet" in rep.stderr and "Traceback" not in rep.stderr
    res = simkit("run", "--resume", str(out), "--jobs", "2", "--quiet", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert_identical(out, reference)

    # a run whose scenario changed since it started cannot be resumed into a mixture
    scen = tmp_path / "cs.toml"
    scen.write_text(Path(SCENARIO).read_text())
    out2 = tmp_path / "run2"
    proc = subprocess.Popen([SIMKIT, "run", str(scen), *ARGS, "--jobs", "1", "--out", str(out2)], cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    wait_for_blocks(out2, proc, 1)
    proc.kill()
    proc.wait()
    scen.write_text(scen.read_text().replace('lone_one = "loses"', 'lone_one = "fails"'))
    res = simkit("run", "--resume", str(out2), cwd=tmp_path)
    assert res.returncode == 2 and "changed since the run" in res.stderr, res.stderr


def test_resume_option_misuse(tmp_path):
    for args, needle in [(["run", "--resume", str(tmp_path / "nope")], "not found"),
                         (["run", SCENARIO, "--resume", str(tmp_path)], "drop SCENARIO"),
                         (["run", "--resume", str(tmp_path), "--games", "5"], "drop --games"),
                         (["run", "--resume", str(tmp_path)], "no manifest.json")]:
        res = simkit(*args, cwd=tmp_path)
        assert res.returncode == 2 and needle in res.stderr, (args, res.stderr)
        assert len(res.stderr.strip().splitlines()) == 1


def test_python_api_overrides_and_temporary_folder(tmp_path):
    import gc

    import simkit

    a = simkit.run(SCENARIO, games=500, seed=3, jobs=1, overrides={"grid.strike": "0:1", "grid.shield": "2"})
    b = simkit.run(SCENARIO, games=500, seed=3, jobs=1, overrides=['grid.strike="0:1"', 'grid.shield="2"'])
    assert a.summary == b.summary and a.frame.height == 500 * 2
    assert a.manifest["overrides"] == ["grid.strike='0:1'", "grid.shield='2'"]
    from simkit.errors import InputError

    with pytest.raises(InputError, match="helth"):
        simkit.run(SCENARIO, games=10, overrides=["rules.lone_one=fails", "grid.helth=1"])
    folder = a.run_dir
    assert folder.is_dir()
    del a
    gc.collect()
    assert not folder.exists(), "simkit.run() without out= left its temporary folder behind"
    kept = simkit.run(SCENARIO, games=100, seed=3, jobs=1, out=tmp_path / "kept", overrides={"grid.strike": "1"})
    del kept
    gc.collect()
    assert (tmp_path / "kept/summary.json").is_file()
