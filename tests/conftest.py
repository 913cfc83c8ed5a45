import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = ROOT / "scenarios"


@pytest.fixture
def chance_strike_scenario():
    return SCENARIOS / "valka" / "chance_strike.toml"


@pytest.fixture(autouse=True)
def _quiet_numba_threads(monkeypatch):
    monkeypatch.setenv("NUMBA_NUM_THREADS", os.environ.get("NUMBA_NUM_THREADS", "1"))
