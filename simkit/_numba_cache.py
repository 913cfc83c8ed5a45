"""Where numba keeps its compiled kernels: a folder keyed by a hash of simkit's own source.

numba's ``cache=True`` re-compiles a function only when *its own* file
changes. A kernel in one module that calls (and so compiles in) a function of
another module would otherwise keep running the old code after that other
module is edited, silently. Keying the whole cache by the package's source
makes any change to simkit compile everything afresh, and two checkouts of the
same code share one cache.

The folder is chosen when numba is first imported (``configure_on_numba_import``), so a command that never
compiles a kernel (``simkit odds chance-strike``, ``--help``) never reads the source to hash it.

Set ``SIMKIT_NUMBA_CACHE`` to choose the parent folder (default:
``$XDG_CACHE_HOME/simkit/numba`` or ``~/.cache/simkit/numba``).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

KEEP = 16  # cache folders of other source versions kept before the oldest are removed


def source_hash(package_dir: Path) -> str:
    import hashlib

    h = hashlib.sha256()
    for p in sorted(package_dir.rglob("*.py")):
        h.update(str(p.relative_to(package_dir)).encode())
        h.update(p.read_bytes())
    h.update(sys.version.encode())
    return h.hexdigest()[:16]


def configure() -> Path:
    """Point numba's cache at the folder for this source version (before any kernel is compiled)."""
    import shutil

    package_dir = Path(__file__).resolve().parent
    parent = Path(os.environ.get("SIMKIT_NUMBA_CACHE")
                  or Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "simkit" / "numba")
    folder = parent / source_hash(package_dir)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        others = sorted((p for p in parent.iterdir() if p.is_dir() and p != folder), key=lambda p: p.stat().st_mtime)
        for old in others[:-KEEP] if len(others) > KEEP else []:
            shutil.rmtree(old, ignore_errors=True)
        os.utime(folder)
    except OSError:
        return folder  # an unwritable home: numba falls back to its own default
    os.environ["NUMBA_CACHE_DIR"] = str(folder)  # inherited by worker processes
    if "numba" in sys.modules:  # numba imported first: set its config directly
        from numba.core import config

        config.CACHE_DIR = str(folder)
    return folder


class _ConfigureBeforeNumba:
    """A ``sys.meta_path`` entry that runs ``configure`` once, just before ``numba`` is first imported (finding
    nothing itself: the ordinary finders then import numba, which reads ``NUMBA_CACHE_DIR`` as it loads)."""

    def find_spec(self, name, path=None, target=None):
        if name == "numba":
            _remove_hook()
            configure()
        return None


_HOOK = _ConfigureBeforeNumba()


def _remove_hook() -> None:
    while _HOOK in sys.meta_path:
        sys.meta_path.remove(_HOOK)


def configure_on_numba_import() -> None:
    """Configure now if numba is already imported, else just before it is."""
    if "numba" in sys.modules:
        configure()
    elif _HOOK not in sys.meta_path:
        sys.meta_path.insert(0, _HOOK)
