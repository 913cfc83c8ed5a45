"""`simkit baseline` shows its progress (the pilot and the recorded games) on stderr when stderr is a terminal, as
`simkit run` does, and nothing of it when not (issue 38)."""

from pathlib import Path

import pytest
from click.testing import CliRunner

import simkit.cli as simkit_cli
from simkit.cli import cli

ROOT = Path(__file__).resolve().parents[1]
DRAW = ROOT / "scenarios" / "toy" / "draw.toml"


def _baseline(tmp_path):
    return CliRunner().invoke(cli, ["baseline", "small", str(DRAW), "--seed", "3", "--jobs", "1", "--tolerance",
                                    "0.1", "--baselines", str(tmp_path / "b")])


@pytest.mark.parametrize("terminal", [False, True])
def test_baseline_progress_only_on_a_terminal(tmp_path, monkeypatch, terminal):
    if terminal:
        monkeypatch.setattr(simkit_cli, "_stderr_is_terminal", lambda: True)
    res = _baseline(tmp_path)
    assert res.exit_code == 0, res.output
    assert "sized at" in res.stderr and (tmp_path / "b" / "small.json").is_file()
    if terminal:
        assert "small: pilot: 100%" in res.stderr, res.stderr
        assert "small: 100%" in res.stderr and "games" in res.stderr, res.stderr
    else:
        assert "%|" not in res.stderr and "pilot:" not in res.stderr, res.stderr
        assert "it/s" not in res.stderr and "games/s" not in res.stderr, res.stderr
