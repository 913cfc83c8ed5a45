"""Where numba keeps its compiled kernels: one folder per module, keyed by the source that module compiles in.

numba's ``cache=True`` re-compiles a function only when *its own* file
changes. A kernel in one module that calls (and so compiles in) a function of
another module would otherwise keep running the old code after that other
module is edited, silently. So each cached function is filed under

    <cache>/<its module's path in the package>/<key>/

where ``key`` hashes the source of its module and of every module of the
package that can shape its compiled code, transitively (``closure``): the
modules it imports when it is imported (what defines its globals, which numba
freezes into a kernel), those imported inside a function its import-time code
calls, and those imported inside a decorated function (numba runs an
intrinsic's body when compiling). An edit to a jitted helper in
``simkit/core/rng.py`` re-keys every kernel that can reach it; an edit to a
module only imported inside a function that runs later (a report, a command,
the loader) re-keys nothing. Kernels cannot import, and no kernel module
assigns a global after it is imported (a test keeps it so), so the closure
holds everything a compiled kernel can depend on in the package.

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
DISPATCH = PACKAGE_DIR / "_numba_dispatch.py"  # how kernel-to-kernel calls are typed (part of every key)
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


def _named(pkg: Path, package: list[str], node) -> list[tuple[str, Path]]:
    """What an import statement binds: (name it binds, the package's file it names), for the statement's names
    that are modules of the package or names defined in one: for ``from M import n``, the submodule ``M.n``
    when it is one, else ``M`` itself."""
    out = []
    if isinstance(node, ast.Import):
        for alias in node.names:
            f = _module_file(pkg, alias.name)
            if f:
                out.append((alias.asname or alias.name.split(".")[0], f))
    else:
        if node.level:
            up = package[:len(package) - (node.level - 1)]
            base = ".".join([*up, *([node.module] if node.module else [])])
        else:
            base = node.module or ""
        for alias in node.names:
            f = _module_file(pkg, f"{base}.{alias.name}") if alias.name != "*" else None
            f = f or _module_file(pkg, base)
            if f:
                out.append((alias.asname or alias.name, f))
    return out


class _Module:
    """One source file read for its imports: those that run when the module is imported (statements outside
    function bodies), the imports inside each function, and what its module-level code calls."""

    def __init__(self, path: Path):
        pkg = package_of(path)
        rel = path.relative_to(pkg.parent).with_suffix("")
        self.package = list(rel.parts[:-1])  # where a relative import starts (for a.py and for __init__.py)
        self.pkg = pkg
        self.top: set[Path] = set()  # files imported at import time
        self.bound: dict[str, Path] = {}  # module-level name -> the file it was imported from
        self.defs: dict[str, ast.AST] = {}  # module-level functions and classes
        self.top_calls: list[ast.Call] = []  # calls made at import time
        self.decorated: list[ast.AST] = []  # functions with decorators (numba's intrinsics and overloads run
        # them when compiling)
        tree = ast.parse(path.read_bytes(), str(path))
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                self.defs[node.name] = node
        self._walk_top(tree)
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.decorator_list:
                self.decorated.append(node)

    def _walk_top(self, node) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                # decorators and default values run at import time; the body does not
                for sub in [*getattr(child, "decorator_list", []), *child.args.defaults,
                            *[d for d in child.args.kw_defaults if d is not None]]:
                    self._walk_top_node(sub)
                continue
            self._walk_top_node(child)

    def _walk_top_node(self, node) -> None:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for name, f in _named(self.pkg, self.package, node):
                self.top.add(f)
                self.bound[name] = f
        elif isinstance(node, ast.Call):
            self.top_calls.append(node)
        self._walk_top(node)

    def local_imports(self, fn) -> set[Path]:
        """The files imported inside the function (or class) ``fn``, nested functions included."""
        out = set()
        for node in ast.walk(fn):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                out.update(f for _, f in _named(self.pkg, self.package, node))
        return out

    def callees(self, node) -> list[tuple[Path, str]]:
        """The package's functions and classes that calls within ``node`` name: a module-level name of this
        file, a name imported from another of the package's files, or ``alias.name`` of an imported module."""
        out = []
        calls = [node] if isinstance(node, ast.Call) else [n for n in ast.walk(node) if isinstance(n, ast.Call)]
        for call in calls:
            func = call.func
            if isinstance(func, ast.Name):
                if func.id in self.defs:
                    out.append((None, func.id))
                elif func.id in self.bound:
                    out.append((self.bound[func.id], func.id))
            elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in self.bound:
                out.append((self.bound[func.value.id], func.attr))
        return out


@lru_cache(maxsize=None)
def _module(path: Path) -> _Module:
    return _Module(path)


def _reached_imports(path: Path, name: str, seen: set) -> set[Path]:
    """The files imported inside function or class ``name`` of ``path`` and inside every function of the package
    it calls, transitively (the imports a call at import time can run)."""
    if (path, name) in seen:
        return set()
    seen.add((path, name))
    mod = _module(path)
    fn = mod.defs.get(name)
    if fn is None:
        return set()
    out = mod.local_imports(fn)
    for f, callee in mod.callees(fn):
        out |= _reached_imports(f or path, callee, seen)
    return out


@lru_cache(maxsize=None)
def imports(path: Path) -> frozenset[Path]:
    """The package's modules that can shape the compiled code of ``path``'s kernels: those it imports at import
    time (every import statement outside a function body: what defines the module's globals), those imported
    inside a function that its import-time code calls (the package's functions it calls, transitively), and
    those imported inside a decorated function (numba runs an intrinsic's or overload's body when compiling).
    An import inside any other function (a report, a command) runs only after the module's globals are set
    and so keys nothing; kernels cannot import."""
    if package_of(path) is None:
        return frozenset()
    mod = _module(path)
    out = set(mod.top)
    seen: set = set()
    for call in mod.top_calls:
        for f, callee in mod.callees(call):
            out |= _reached_imports(f or path, callee, seen)
    for fn in mod.decorated:
        out |= mod.local_imports(fn)
    out.discard(path)
    return frozenset(out)


def closure(path: Path) -> list[Path]:
    """``path`` and every module of its package that ``imports`` names for it, transitively, sorted."""
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
    bytes), ``simkit._numba_dispatch`` (which specialisations exist), numba's version and Python's."""
    import numba

    pkg = package_of(path)
    h = hashlib.sha256()
    for f in closure(path):
        h.update(str(f.relative_to(pkg)).encode() + b"\0")
        h.update(hashlib.sha256(f.read_bytes()).digest())
    h.update(hashlib.sha256(DISPATCH.read_bytes()).digest())  # which specialisations exist
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
