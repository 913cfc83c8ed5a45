"""Where numba keeps its compiled kernels: one folder per module, keyed by the source that module compiles in.

numba's ``cache=True`` re-compiles a function only when *its own* file
changes. A kernel in one module that calls (and so compiles in) a function of
another module would otherwise keep running the old code after that other
module is edited, silently. So each cached function is filed under

    <cache>/<its module's path in the package>/<key>/

where ``key`` hashes the source of its module and of every module of the
package that module imports, transitively (``closure``): an edit to a jitted
helper in ``simkit/core/rng.py`` re-keys every kernel that can reach it, and an
edit to a module no kernel module imports (a report, the CLI, the HTML writer,
another game) re-keys nothing. Imports are read from the source (every
``import`` statement of the file, at module level or in a function), so the
closure is a superset of what a kernel can call or read as a global.

The locator (``simkit._numba_locator.SourceLocator``) is put first in numba's
list through ``NUMBA_CACHE_LOCATOR_CLASSES`` when numba is first imported
(``configure_on_numba_import``), so a command that never compiles a kernel
(``simkit odds chance-strike``, ``--help``) never reads the source.

Set ``SIMKIT_NUMBA_CACHE`` to choose the parent folder (default:
``$XDG_CACHE_HOME/simkit/numba`` or ``~/.cache/simkit/numba``), and
``SIMKIT_CACHE_PACKAGES`` (folders joined by ``os.pathsep``) to key the kernels
of other packages, such as a plug-in game, the same way.
"""

from __future__ import annotations

import ast
import hashlib
import os
import re
import sys
from functools import lru_cache
from pathlib import Path

KEEP = 8  # key folders of one module kept before the oldest are removed
PACKAGE_DIR = Path(__file__).resolve().parent
LOCATORS = ("simkit._numba_locator.SourceLocator", "UserProvidedCacheLocator", "InTreeCacheLocator",
            "UserWideCacheLocator", "IPythonCacheLocator", "ZipCacheLocator")
_OLD_FOLDER = re.compile(r"[0-9a-f]{16}")  # the whole-package folders of the cache before this one


def cache_root() -> Path:
    return Path(os.environ.get("SIMKIT_NUMBA_CACHE")
                or Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "simkit" / "numba")


def package_dirs() -> tuple[Path, ...]:
    """simkit's package folder and those named in ``SIMKIT_CACHE_PACKAGES``."""
    extra = [Path(p).resolve() for p in os.environ.get("SIMKIT_CACHE_PACKAGES", "").split(os.pathsep) if p]
    return (PACKAGE_DIR, *extra)


def package_of(path: Path) -> Path | None:
    """The package folder (of ``package_dirs``) holding the source file ``path``, or None."""
    for pkg in package_dirs():
        if path.is_relative_to(pkg):
            return pkg
    return None


def _module_file(pkg: Path, dotted: str) -> Path | None:
    """The file of module ``dotted`` (``simkit.core.rng``) when it lies in the package ``pkg``."""
    parts = dotted.split(".")
    if parts[0] != pkg.name:
        return None
    base = pkg.parent.joinpath(*parts)
    for f in (base.with_suffix(".py"), base / "__init__.py"):
        if f.is_file():
            return f
    return None


@lru_cache(maxsize=None)
def imports(path: Path) -> frozenset[Path]:
    """The package's modules that the source file ``path`` imports (each statement anywhere in the file): for
    ``from M import n``, the submodule ``M.n`` when it is one, else ``M`` itself."""
    pkg = package_of(path)
    if pkg is None:
        return frozenset()
    rel = path.relative_to(pkg.parent).with_suffix("")
    package = list(rel.parts[:-1])  # the package a relative import starts from (for a.py and for __init__.py)
    out = set()
    for node in ast.walk(ast.parse(path.read_bytes(), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                f = _module_file(pkg, alias.name)
                if f:
                    out.add(f)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                up = package[:len(package) - (node.level - 1)]
                base = ".".join([*up, *([node.module] if node.module else [])])
            else:
                base = node.module or ""
            for alias in node.names:
                f = _module_file(pkg, f"{base}.{alias.name}") if alias.name != "*" else None
                f = f or _module_file(pkg, base)
                if f:
                    out.add(f)
    out.discard(path)
    return frozenset(out)


def closure(path: Path) -> list[Path]:
    """``path`` and every module of its package it imports, transitively, sorted."""
    seen = {path}
    todo = [path]
    while todo:
        for f in imports(todo.pop()):
            if f not in seen:
                seen.add(f)
                todo.append(f)
    return sorted(seen)


@lru_cache(maxsize=None)
def key(path: Path) -> str:
    """The cache key of the kernels defined in ``path``: a hash of the source of ``closure(path)`` (names and
    bytes), numba's version and Python's."""
    import numba

    pkg = package_of(path)
    h = hashlib.sha256()
    for f in closure(path):
        h.update(str(f.relative_to(pkg)).encode() + b"\0")
        h.update(hashlib.sha256(f.read_bytes()).digest())
    h.update(numba.__version__.encode() + sys.version.encode())
    return h.hexdigest()[:16]


def folder(path: Path) -> Path:
    """Where the kernels of the source file ``path`` (in a keyed package) are cached."""
    pkg = package_of(path)
    rel = path.relative_to(pkg.parent).with_suffix("")
    return cache_root().joinpath(*rel.parts) / key(path)


def prune(module_folder: Path, keep: int = KEEP) -> None:
    """Remove the oldest key folders of one module beyond ``keep`` (other versions of its source)."""
    import shutil

    try:
        olds = sorted((p for p in module_folder.iterdir() if p.is_dir()), key=lambda p: p.stat().st_mtime)
    except OSError:
        return
    for old in olds[:-keep] if len(olds) > keep else []:
        shutil.rmtree(old, ignore_errors=True)


def configure() -> Path:
    """Point numba at the cache (before any kernel is compiled) and put ``SourceLocator`` first; returns the
    cache's parent folder."""
    import shutil

    root = cache_root()
    try:
        root.mkdir(parents=True, exist_ok=True)
        for old in root.iterdir():  # the cache's earlier layout: a whole-package folder per source version
            if old.is_dir() and _OLD_FOLDER.fullmatch(old.name):
                shutil.rmtree(old, ignore_errors=True)
    except OSError:
        return root  # an unwritable home: numba falls back to its own default
    os.environ["NUMBA_CACHE_DIR"] = str(root)  # inherited by worker processes
    os.environ["NUMBA_CACHE_LOCATOR_CLASSES"] = ",".join(LOCATORS)
    if "numba" in sys.modules:  # numba imported first: set its config directly
        from numba.core import config

        config.CACHE_DIR = str(root)
        config.CACHE_LOCATOR_CLASSES = os.environ["NUMBA_CACHE_LOCATOR_CLASSES"]
    return root


class _ConfigureBeforeNumba:
    """A ``sys.meta_path`` entry that runs ``configure`` once, just before ``numba`` is first imported (finding
    nothing itself: the ordinary finders then import numba, which reads the environment as it loads)."""

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
