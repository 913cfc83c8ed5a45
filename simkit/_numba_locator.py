"""numba's cache locator for simkit's kernels (see ``simkit._numba_cache``): imported by numba, through
``NUMBA_CACHE_LOCATOR_CLASSES``, when it first caches a function."""

from __future__ import annotations

from pathlib import Path

from numba.core.caching import _CacheLocator

from simkit import _numba_cache as nc
from simkit import _numba_dispatch

_numba_dispatch.install()  # numba imports this module before it compiles a cached kernel


class SourceLocator(_CacheLocator):
    """Files a function of a keyed package under ``<cache>/<module path>/<key of the module's closure>/``; the key
    is also the index's source stamp, so an index of other source is never read as fresh."""

    def __init__(self, py_func, path: Path):
        self._lineno = py_func.__code__.co_firstlineno
        self._folder = nc.folder(path)
        self._key = self._folder.name

    def get_cache_path(self):
        return str(self._folder)

    def get_source_stamp(self):
        return self._key

    def get_disambiguator(self):
        return str(self._lineno)

    @classmethod
    def from_function(cls, py_func, py_file):
        path = Path(py_file).resolve()
        if not path.is_file() or nc.package_of(path) is None:
            return None
        self = cls(py_func, path)
        fresh = not self._folder.is_dir()
        try:
            self.ensure_cache_path()
        except OSError:
            return None  # an unwritable cache: numba's other locators are tried
        if fresh:
            nc.prune(self._folder.parent)
        return self
