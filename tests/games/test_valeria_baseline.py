"""The committed ``valeria`` baseline gates the game: the 1E consolation in place of the 2E Herald (a real rule
change) fails it on the Herald-per-roll numbers, and an unchanged tree passes with every difference 0."""

import json
import shutil
from pathlib import Path

from click.testing import CliRunner

from simkit.cli import cli

ROOT = Path(__file__).resolve().parents[2]
BASE = ROOT / "reports" / "baseline"


def _copy(tmp_path, **changes):
    d = tmp_path / "b"
    d.mkdir()
    shutil.copy(BASE / "valeria.npz", d / "valeria.npz")
    data = json.loads((BASE / "valeria.json").read_text())
    data.update(changes)
    (d / "valeria.json").write_text(json.dumps(data))
    return d, data


def test_valeria_baseline_fails_on_the_consolation(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    recorded = json.loads((BASE / "valeria.json").read_text())["overrides"]
    d, _ = _copy(tmp_path, overrides=[*recorded, 'rules.herald="consolation"'])
    res = CliRunner().invoke(cli, ["check", "--baselines", str(d), "--jobs", "1", "--format", "csv"])
    assert res.exit_code == 1, res.output
    failed = [ln for ln in res.stdout.strip().splitlines()[1:] if ln.endswith("FAIL")]
    for seat in range(4):  # 2E: about 0.27 gifts a roll; 1E: about 0.10
        assert any(ln.startswith("valeria,herald_per_roll") and f"seat={seat}" in ln for ln in failed), seat


def test_valeria_baseline_passes_unchanged(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    res = CliRunner().invoke(cli, ["check", "--baselines", str(BASE), "--only", "valeria", "--jobs", "1"])
    assert res.exit_code == 0, res.output
    assert "check passed" in res.stderr
