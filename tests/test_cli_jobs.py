"""--jobs: 0 means every core for every command; the searches (tune, balance, ladder) default to one worker."""

from __future__ import annotations

import os

import pytest
from click.testing import CliRunner

from simkit.cli import cli


@pytest.mark.parametrize("cmd", ["tune", "balance", "ladder"])
def test_the_searches_default_to_one_worker(cmd):
    out = " ".join(CliRunner().invoke(cli, [cmd, "--help"]).output.split())
    assert "--jobs INTEGER RANGE Worker processes (0 = all cores). Results do not depend on it. [default: 1;" in out


@pytest.mark.parametrize("given, expected", [("0", os.cpu_count() or 1), ("1", 1), ("3", 3)])
def test_ladder_jobs_zero_is_every_core(monkeypatch, given, expected):
    import simkit.core.ladder as ladder_mod

    seen = {}

    def fake_ladder(*args, **kw):
        seen["jobs"] = kw["jobs"]
        return []

    monkeypatch.setattr(ladder_mod, "ladder", fake_ladder)
    monkeypatch.setattr(ladder_mod, "table_rows", lambda rungs, metric: [])
    CliRunner().invoke(cli, ["ladder", "scenarios/toy/draw.toml", "--games", "10", "--jobs", given, "--quiet"])
    assert seen == {"jobs": expected}
