"""The numba kernel cache: each module's kernels keyed by the source they compile in (``simkit._numba_cache``).

The guarantee: a kernel that calls a jitted function of another module picks up an edit to that module; the
gain: an edit to a module no kernel module imports (a report, the CLI) recompiles nothing. Both are checked on a
small package of our own in a subprocess (counting the files the cache gains), and against numba's own per-file
cache, which keeps running the old code (so the check can fail).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import simkit
from simkit import _numba_cache as nc

PKG = Path(simkit.__file__).resolve().parent


def _clean_env(**extra) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_") and not k.startswith("SIMKIT_")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # two edits within a second must not load an old .pyc
    env.update(extra)
    return env


def _run(code: str, **env) -> list[str]:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env=_clean_env(**env))
    return out.stdout.split()


def test_the_cache_is_configured_when_numba_is_first_imported_not_before(tmp_path):
    got = _run("import os, sys, simkit\n"
               "print('NUMBA_CACHE_LOCATOR_CLASSES' in os.environ, 'numba' in sys.modules)\n"
               "import numba\n"
               "from numba.core import config\n"
               "print(os.environ['NUMBA_CACHE_DIR'] == config.CACHE_DIR, config.CACHE_DIR,\n"
               "      config.CACHE_LOCATOR_CLASSES.split(',')[0])",
               SIMKIT_NUMBA_CACHE=str(tmp_path / "c"))
    assert got == ["False", "False", "True", str(tmp_path / "c"), "simkit._numba_locator.SourceLocator"]


def test_numba_imported_before_simkit_is_configured_at_once(tmp_path):
    got = _run("import numba, simkit\nfrom numba.core import config\n"
               "print(config.CACHE_DIR, config.CACHE_LOCATOR_CLASSES.split(',')[0])",
               SIMKIT_NUMBA_CACHE=str(tmp_path / "c"))
    assert got == [str(tmp_path / "c"), "simkit._numba_locator.SourceLocator"]


# --- a package of our own: a kernel calling a helper of another module, and a report importing the kernel ---

HELPER = "from numba import njit\n\n\n@njit(cache=True)\ndef bump(x):\n    return x + {n}\n"
KERNEL = ("from numba import njit\n\nfrom kpkg.sub.helper import bump\n\n\n"
          "def _scale():\n    from kpkg.sub.data import SCALE\n    return SCALE\n\n\n"
          "SCALE = _scale()  # a global set at import time through an import inside a function\n\n\n"
          "def describe():\n    from kpkg import lazy  # only when called, after the kernel's globals are set\n"
          "    return lazy.TEXT\n\n\n"
          "@njit(cache=True)\ndef kernel(x):\n    return bump(x) * SCALE\n")
REPORT = "from kpkg import kernel\n\nCAPTION = {caption!r}\n"
RUN = "import simkit\nfrom kpkg.kernel import kernel\nfrom kpkg import report\nprint(kernel(1))\n"


def _package(tmp_path: Path) -> Path:
    pkg = tmp_path / "src" / "kpkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "helper.py").write_text(HELPER.format(n=1))
    (pkg / "kernel.py").write_text(KERNEL)
    (pkg / "report.py").write_text(REPORT.format(caption="Win rates"))
    (pkg / "sub" / "data.py").write_text("SCALE = 10\n")
    (pkg / "lazy.py").write_text("TEXT = 'a caption'\n")
    return pkg


def _files(folder: Path) -> set[Path]:
    return {p for p in folder.rglob("*") if p.is_file()}


def test_an_edit_reaches_the_kernels_that_call_it_and_no_others(tmp_path):
    pkg = _package(tmp_path)
    cache = tmp_path / "cache"
    env = dict(PYTHONPATH=str(pkg.parent), SIMKIT_NUMBA_CACHE=str(cache), SIMKIT_CACHE_PACKAGES=str(pkg))

    assert _run(RUN, **env) == ["20"]
    first = _files(cache)
    assert any(p.suffix == ".nbc" for p in first) and all("kpkg" in p.parts for p in first)
    assert _run(RUN, **env) == ["20"] and _files(cache) == first  # warm: nothing compiled

    (pkg / "report.py").write_text(REPORT.format(caption="Win rates, 95% intervals"))
    (pkg / "lazy.py").write_text("TEXT = 'another caption'\n")
    assert _run(RUN, **env) == ["20"]
    assert _files(cache) == first  # modules no kernel's globals depend on: no kernel recompiled

    (pkg / "sub" / "helper.py").write_text(HELPER.format(n=2))
    assert _run(RUN, **env) == ["30"]  # the kernel runs the helper's new code
    gained = _files(cache) - first
    assert {p.parent.parent.name for p in gained if p.suffix == ".nbi"} == {"kernel", "helper"}

    second = _files(cache)
    (pkg / "sub" / "data.py").write_text("SCALE = 100\n")
    assert _run(RUN, **env) == ["300"]  # a global set through a function's import at import time
    assert {p.parent.parent.name for p in _files(cache) - second if p.suffix == ".nbi"} == {"kernel"}


def test_numbas_own_cache_keeps_the_old_helper(tmp_path):
    """The control: with numba's per-file cache the same edit is missed, which is what the keyed cache is for."""
    pkg = _package(tmp_path)
    env = dict(PYTHONPATH=str(pkg.parent), NUMBA_CACHE_DIR=str(tmp_path / "numba"))
    plain = "from kpkg.kernel import kernel\nprint(kernel(1))\n"
    assert _run(plain, **env) == ["20"]
    (pkg / "sub" / "helper.py").write_text(HELPER.format(n=2))
    assert _run(plain, **env) == ["20"]  # stale: kernel.py did not change


# --- the import closures of simkit's own modules ---

def test_imports_resolve_absolute_relative_and_submodule_forms(tmp_path):
    pkg = tmp_path / "kpkg"
    (pkg / "a").mkdir(parents=True)
    for f in ("__init__.py", "x.py", "y.py", "a/__init__.py", "a/b.py", "a/c.py", "a/d.py"):
        (pkg / f).write_text("")
    (pkg / "z.py").write_text("")
    (pkg / "a" / "b.py").write_text("from . import c\nfrom .d import NAME\nfrom .. import x\nimport kpkg.y\nimport numpy\n\n"
                                    "def f():\n    from kpkg.a import NAME2  # runs only when called\n\n"
                                    "def g():\n    from kpkg import z  # called at import time, below\n\n"
                                    "TABLE = g()\n")
    os.environ["SIMKIT_CACHE_PACKAGES"] = str(pkg)
    try:
        got = {str(p.relative_to(pkg)) for p in nc.imports(pkg / "a" / "b.py")}
    finally:
        del os.environ["SIMKIT_CACHE_PACKAGES"]
    assert got == {"a/c.py", "a/d.py", "x.py", "y.py", "z.py"}


def _kernel_modules() -> list[Path]:
    return [f for f in sorted(PKG.rglob("*.py")) if "njit(cache=True" in f.read_text() and f.name != "_numba_cache.py"]


def test_no_kernel_module_imports_a_report_the_cli_or_another_game():
    kernels = _kernel_modules()
    assert len(kernels) > 30
    for f in kernels:
        rel = [p.relative_to(PKG) for p in nc.closure(f)]
        assert PKG / "cli.py" not in nc.closure(f)
        assert not [p for p in rel if p.name in ("report.py", "reports.py", "html.py", "runner.py", "cli.py")], f
        game = f.relative_to(PKG).parts[1] if f.relative_to(PKG).parts[0] == "games" else None
        assert not [p for p in rel if p.parts[0] == "games" and p.parts[1] != game], f


def test_the_lonequest_kernels_follow_the_core_helpers_they_call():
    engine = nc.closure(PKG / "games" / "valka" / "lonequest" / "engine.py")
    for needed in ("core/rng.py", "core/decision.py", "games/valka/combat.py", "games/valka/boons.py"):
        assert PKG / needed in engine
    for edited in ("core/html.py", "cli.py", "games/valeria/engine.py"):  # issue 37's bar
        for f in _kernel_modules():
            if "lonequest" in f.parts or f.parent.name == "valka":
                assert PKG / edited not in nc.closure(f)


def test_no_module_a_kernel_depends_on_sets_a_global_later():
    """The closure holds what a module's import sets. A ``global`` statement in a kernel module (a function
    rebinding a global a kernel reads, perhaps from a module the closure does not hold) would escape it; in the
    other modules of a closure only private names (``_GAMES``, a cache no other module reads) may be rebound."""
    import ast

    kernels = set(_kernel_modules())
    held = {f for k in kernels for f in nc.closure(k)}
    for f in held:
        tree = ast.parse(f.read_bytes())
        names = [name for n in ast.walk(tree) if isinstance(n, ast.Global) for name in n.names]
        assert not (names if f in kernels else [n for n in names if not n.startswith("_")]), (f, names)
        assert "globals()[" not in f.read_text(), f


# --- one specialisation per helper for the calls kernels make (``simkit._numba_dispatch``) ---

SPECS = ("import numpy as np\nfrom numba import njit\n\n\n"
         "@njit(cache=True)\ndef put(a, i, x, front):\n    a[i] = x + (1 if front else 0)\n\n\n"
         "@njit(cache=True)\ndef pick(t, i):\n    return t[i]  # a heterogeneous tuple: needs a literal index\n\n\n"
         "@njit(cache=True)\ndef kernel(a, b):\n"
         "    put(a, 0, 5, False)\n    put(a, 1, 6, True)\n    put(a, 2, b[0], False)\n    put(a, 3, b[1] + b[0], True)\n"
         "    t = (7, 2.5)\n    return pick(t, 0) + pick(t, 1)\n")
SPECS_RUN = ("{imp}import numpy as np\nfrom kpkg.specs import kernel, put, pick\n"
             "a = np.zeros(4, np.int32)\nprint(kernel(a, np.array([3, 4], np.int32)), *a.tolist(),"
             " len(put.signatures), len(pick.signatures))\n")


def test_calls_from_kernels_compile_one_specialisation_not_one_per_constant(tmp_path):
    pkg = _package(tmp_path)
    (pkg / "specs.py").write_text(SPECS)
    env = dict(PYTHONPATH=str(pkg.parent), SIMKIT_NUMBA_CACHE=str(tmp_path / "cache"), SIMKIT_CACHE_PACKAGES=str(pkg))
    # constants (0, 5, False, True ...) and int32 values widened: one `put`; `pick` keeps its literal indices
    assert _run(SPECS_RUN.format(imp="import simkit\n"), **env) == ["9.5", "5", "7", "3", "8", "1", "2"]
    assert _files(tmp_path / "cache") and len([p for p in _files(tmp_path / "cache") if ".put-" in p.name
                                               and p.suffix == ".nbc"]) == 1
    # from the cache: the same results (a cached kernel loads without compiling its helpers)
    assert _run(SPECS_RUN.format(imp="import simkit\n"), **env)[:5] == ["9.5", "5", "7", "3", "8"]
    # the control: plain numba compiles `put` once per tuple of argument types (4 here)
    plain = dict(PYTHONPATH=str(pkg.parent), NUMBA_CACHE_DIR=str(tmp_path / "numba"))
    assert _run(SPECS_RUN.format(imp=""), **plain) == ["9.5", "5", "7", "3", "8", "4", "2"]


def test_how_calls_are_typed_is_part_of_every_key(tmp_path, monkeypatch):
    f = PKG / "games" / "toy" / "engine.py"
    before = nc.key(f)
    edited = tmp_path / "_numba_dispatch.py"
    edited.write_bytes(nc.DISPATCH.read_bytes() + b"\n# edited\n")
    monkeypatch.setattr(nc, "DISPATCH", edited)
    nc.key.cache_clear()
    try:
        assert nc.key(f) != before
    finally:
        nc.key.cache_clear()
