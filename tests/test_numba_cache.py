"""The numba cache folder: keyed by simkit's source, and chosen only when numba is first imported."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import simkit
from simkit import _numba_cache

PKG = Path(simkit.__file__).resolve().parent


def _run(code: str) -> list[str]:
    env_free = "import os; os.environ.pop('NUMBA_CACHE_DIR', None)\n"
    out = subprocess.run([sys.executable, "-c", env_free + code], capture_output=True, text=True, check=True)
    return out.stdout.split()


def test_the_folder_is_chosen_when_numba_is_first_imported_not_before():
    got = _run("import os, sys, simkit\n"
               "print('NUMBA_CACHE_DIR' in os.environ, 'numba' in sys.modules)\n"
               "import numba\n"
               "from numba.core import config\n"
               "print(os.environ['NUMBA_CACHE_DIR'] == config.CACHE_DIR, config.CACHE_DIR)")
    assert got[:3] == ["False", "False", "True"]
    assert Path(got[3]).name == _numba_cache.source_hash(PKG)


def test_numba_imported_before_simkit_is_configured_at_once():
    got = _run("import numba, simkit\nfrom numba.core import config\nprint(config.CACHE_DIR)")
    assert Path(got[0]).name == _numba_cache.source_hash(PKG)


def test_the_hash_follows_every_source_file(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.py").write_text("y = 2\n")
    before = _numba_cache.source_hash(tmp_path)
    (tmp_path / "sub" / "b.py").write_text("y = 3\n")
    assert _numba_cache.source_hash(tmp_path) != before
