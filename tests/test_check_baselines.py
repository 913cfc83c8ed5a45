"""The committed baselines as a gate: a real balance move fails, an unchanged tree and another --jobs pass.

Plus the baseline files' strict validation (one clean line naming the file and the field, exit code 2) and a
real null (the games re-dealt with another seed) on a small baseline.
"""

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from simkit.cli import cli

ROOT = Path(__file__).resolve().parents[1]
BASE = ROOT / "reports" / "baseline"


def _copy(tmp_path, name, **changes):
    d = tmp_path / "b"
    d.mkdir(exist_ok=True)
    shutil.copy(BASE / f"{name}.npz", d / f"{name}.npz")
    data = json.loads((BASE / f"{name}.json").read_text())
    data.update(changes)
    (d / f"{name}.json").write_text(json.dumps(data))
    return d


def test_committed_baselines_are_small_and_sized():
    from simkit.core import check, loader

    for f in sorted(BASE.glob("*.json")):
        data = json.loads(f.read_text())
        npz = f.with_suffix(".npz")
        sim = loader.load(ROOT / data["scenario"], data["overrides"]).simulation
        seat = {x.name for x in check.seat_numbers(sim)} & {m["metric"] for m in data["metrics"]}
        # a few bytes a game per cell, and as many again where the baseline keeps per-seat outcomes (which Jarl
        # or Warband each of up to 6 seats held, and its share of the win) for its seat numbers
        assert npz.stat().st_size <= (8 if seat else 4) * data["outcomes"]["rows"], f
        assert data["mde"]["worst_ratio"] <= 1.0, (f, data["mde"])  # MDE <= tolerance for every number


def test_check_fails_on_old_gob_health_3_to_4(tmp_path, monkeypatch):
    """The issue's acceptance case: The Old Gob's Health 3→4 against the committed lonequest baseline."""
    monkeypatch.chdir(ROOT)
    recorded = json.loads((BASE / "lonequest.json").read_text())["overrides"]  # the recorded play list
    d = _copy(tmp_path, "lonequest", overrides=[*recorded, "fighters.old_gob.health=4"])
    res = CliRunner().invoke(cli, ["check", "--baselines", str(d), "--jobs", "1", "--format", "csv"])
    assert res.exit_code == 1, res.output
    lines = res.stdout.strip().splitlines()
    header = lines[0].split(",")
    assert header[:4] == ["baseline", "metric", "group", "old"] and "p (Holm)" in header and "tolerance" in header
    failed = [ln for ln in lines[1:] if ln.endswith("FAIL")]
    # the three Goblins heuristic win rates and their failure shares moved, and were caught
    for policy in ("cautious", "aggressive", "greedy_trader"):
        assert any(f"win_rate,\"warband=goblins, policy={policy}\"" in ln for ln in failed), policy
        assert any(f"fail_no_fighters,\"warband=goblins, policy={policy}\"" in ln for ln in failed), policy
    assert all("goblins" in ln or "all" in ln or "policy=" in ln for ln in failed)
    assert "check FAILED" in res.stderr and "minimum detectable effect" in res.stderr


def test_check_passes_unchanged_with_other_jobs(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    res = CliRunner().invoke(cli, ["check", "--baselines", str(BASE), "--only", "lonequest", "--jobs", "2"])
    assert res.exit_code == 0, res.output
    assert "check passed" in res.stderr and "0.0000" in res.stdout


# --- a small baseline: real null, update, validation -------------------------------------------------------


def _small(tmp_path):
    p = tmp_path / "lq.toml"
    p.write_text(f'game = "valka"\nmode = "lonequest"\ncards = "{(ROOT / "scenarios/valka/cards.toml").as_posix()}"\n'
                 'warbands = ["goblins", "knights"]\nplay = ["cautious"]\n[run]\ngames = 1000\nblock_size = 200\n')
    base = tmp_path / "base"
    res = CliRunner().invoke(cli, ["baseline", "small", str(p), "--games", "600", "--seed", "4", "--jobs", "1",
                                   "--baselines", str(base)])
    assert res.exit_code == 0, res.output
    assert "minimum detectable effect" in res.stdout
    return base


def test_check_passes_a_real_null(tmp_path, monkeypatch):
    """Another seed re-deals every game (a change that moves nothing): the paired test does not cry wolf."""
    base = _small(tmp_path)
    f = base / "small.json"
    data = json.loads(f.read_text())
    data["seed"] = 5
    f.write_text(json.dumps(data))
    res = CliRunner().invoke(cli, ["check", "--baselines", str(base), "--jobs", "1", "--all", "--format", "csv"])
    assert res.exit_code == 0, res.output
    assert "FAIL" not in res.stdout and "check passed" in res.stderr
    # the games really differ: numbers moved, none significantly after Holm's correction
    import csv
    import io

    rows = list(csv.DictReader(io.StringIO(res.stdout)))
    assert sum(float(r["new − old [95%]"].split()[0]) != 0 for r in rows) > len(rows) // 2
    assert all(r["verdict"] == "ok" for r in rows)


@pytest.mark.parametrize("mutate, needle", [
    (lambda d, z: d.update(format=1), "field 'format' must be 3"),
    (lambda d, z: d.pop("seed"), "baseline field 'seed' is missing"),
    (lambda d, z: d.update(games=-3), "field 'games' must be an integer at least 1"),
    (lambda d, z: d.update(alpha="low"), "field 'alpha' must be a number"),
    (lambda d, z: d.update(extra=1), "unknown baseline field 'extra'"),
    (lambda d, z: d["tolerance"].update(rate={"absolute": -1}), "field 'tolerance.rate'"),
    (lambda d, z: z.write_bytes(z.read_bytes()[:-10]), "SHA-256 does not match"),
    (lambda d, z: z.unlink(), "cannot read the baseline's per-game outcomes"),
])
def test_bad_baseline_is_one_clean_line(tmp_path, mutate, needle):
    base = _small(tmp_path)
    f, z = base / "small.json", base / "small.npz"
    data = json.loads(f.read_text())
    mutate(data, z)
    f.write_text(json.dumps(data))
    res = CliRunner().invoke(cli, ["check", "--baselines", str(base), "--jobs", "1"])
    assert res.exit_code == 2, res.output
    err = res.stderr.strip()
    assert len(err.splitlines()) == 1 and err.startswith("simkit: error:") and needle in err, err
    assert str(base) in err


@pytest.mark.parametrize("mutate", [
    lambda d: d["metrics"].pop(),  # an entry dropped
    lambda d: d["metrics"][0].update(metric="renamed"),  # renamed
    lambda d: d["metrics"][1].update(estimate=d["metrics"][1]["estimate"] + 0.1),  # a value changed
    lambda d: d["metrics"][0].update(tolerance=1e9),  # a tolerance loosened
    lambda d: d["tolerance"]["rate"].update(absolute=0.5),
    lambda d: d.update(alpha=1e-9),
    lambda d: d["cells"].reverse(),
], ids=["dropped", "renamed", "value", "tolerance", "rate-tolerance", "alpha", "cells"])
def test_a_baseline_whose_json_and_npz_disagree_is_refused(tmp_path, mutate):
    """The JSON and its .npz carry each other's checksum: an edited record is a clean error naming the file,
    never "check passed" (the old gate replayed the .npz and never read the JSON's metrics)."""
    base = _small(tmp_path)
    f = base / "small.json"
    data = json.loads(f.read_text())
    assert data["format"] == 3
    mutate(data)
    f.write_text(json.dumps(data, indent=1))
    res = CliRunner().invoke(cli, ["check", "--baselines", str(base), "--jobs", "1"])
    assert res.exit_code == 2, res.output
    err = res.stderr.strip()
    assert len(err.splitlines()) == 1 and err.startswith("simkit: error:"), err
    assert str(base / "small.npz") in err and "does not match the record of its baseline JSON small.json" in err, err


def test_an_npz_from_another_recording_is_refused(tmp_path):
    """Both checksums are checked: the JSON's of the .npz, and the .npz's of the JSON."""
    import hashlib

    base = _small(tmp_path)
    f, z = base / "small.json", base / "small.npz"
    data = json.loads(f.read_text())
    other = tmp_path / "other"
    p = tmp_path / "lq.toml"
    res = CliRunner().invoke(cli, ["baseline", "small", str(p), "--games", "600", "--seed", "5", "--jobs", "1",
                                   "--baselines", str(other)])
    assert res.exit_code == 0, res.output
    shutil.copy(other / "small.npz", z)
    res = CliRunner().invoke(cli, ["check", "--baselines", str(base), "--jobs", "1"])
    assert res.exit_code == 2 and "SHA-256 does not match" in res.stderr, res.output
    data["outcomes"]["sha256"] = hashlib.sha256(z.read_bytes()).hexdigest()  # the JSON re-hashed by hand
    data["metrics"] = json.loads((other / "small.json").read_text())["metrics"]
    f.write_text(json.dumps(data))
    res = CliRunner().invoke(cli, ["check", "--baselines", str(base), "--jobs", "1"])
    assert res.exit_code == 2 and "does not match the record" in res.stderr, res.output


def test_npz_arrays_are_validated(tmp_path):
    """A well-hashed outcome file with a wrong array is still refused, naming the array."""
    import hashlib
    import io

    base = _small(tmp_path)
    f, z = base / "small.json", base / "small.npz"
    with np.load(z) as arrays:
        a = {k: arrays[k] for k in arrays.files}
    a["cell"] = a["cell"][:-1]
    buf = io.BytesIO()
    np.savez_compressed(buf, **a)
    z.write_bytes(buf.getvalue())
    data = json.loads(f.read_text())
    data["outcomes"]["sha256"] = hashlib.sha256(buf.getvalue()).hexdigest()
    f.write_text(json.dumps(data))
    res = CliRunner().invoke(cli, ["check", "--baselines", str(base), "--jobs", "1"])
    assert res.exit_code == 2 and "array 'cell'" in res.stderr, res.output


def test_baseline_options_are_validated(tmp_path):
    p = ROOT / "scenarios" / "valka" / "lonequest.toml"
    for args, needle in ((["--tolerance", "abc"], "--tolerance"), (["--metric-tolerance", "nope=5%"], "unknown metric"),
                         (["--redeal", "2"], "--redeal"), (["--alpha", "0.9"], "--alpha")):
        res = CliRunner().invoke(cli, ["baseline", "x", str(p), "--baselines", str(tmp_path), *args])
        assert res.exit_code == 2 and needle in res.stderr, (args, res.output)
    res = CliRunner().invoke(cli, ["baseline", "x", str(p), "--baselines", str(tmp_path), "--max-games", "100"])
    assert res.exit_code == 1 and "cannot size" in res.stderr, res.output


def test_baseline_all_only_names_existing_baselines(tmp_path):
    """``--only`` picks baselines by file name under ``--all``; an unknown name, or ``--only`` without ``--all``, is
    one line naming the option and the allowed names, exit 2, and nothing is written."""
    base = tmp_path / "b"
    shutil.copytree(BASE, base)
    before = {f.name: f.read_bytes() for f in base.iterdir()}
    res = CliRunner().invoke(cli, ["baseline", "--all", "--only", "chess", "--baselines", str(base)])
    assert res.exit_code == 2 and "--only" in res.stderr and "lonequest" in res.stderr, res.output
    p = ROOT / "scenarios" / "valka" / "lonequest.toml"
    res = CliRunner().invoke(cli, ["baseline", "x", str(p), "--only", "lonequest", "--baselines", str(base)])
    assert res.exit_code == 2 and "--only" in res.stderr, res.output
    assert {f.name: f.read_bytes() for f in base.iterdir()} == before
