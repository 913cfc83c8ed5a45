"""One specialisation of a kernel for the calls other kernels make to it, not one per type a constant happens to have.

numba compiles a jitted function once for each tuple of argument types it is called with, and a call from
another kernel passes each constant with a type of its own (``Literal[int](3)``, ``Literal[bool](True)``) and a
value read from an ``int32`` state array as ``int32``. So VÁLKA's ``q_push`` (queue a pending decision) was
compiled 27 times, The Valkyrie Incident's ``_put`` (one feature) 24 times, and a fifth of the cold compile of
the VÁLKA engines went to such copies.

``install`` makes numba widen the argument types of a call from a kernel to a kernel of a keyed package
(``simkit._numba_cache.package_dirs``) before it picks or compiles the specialisation: a literal becomes its
plain type, and a signed integer narrower than 64 bits becomes ``int64`` (numba computes in ``int64`` anyway:
``int32 + int32`` is ``int64``, and a value stored into an ``int32`` array is cast back as before). Arrays,
floats and unsigned integers keep their types. A function whose typing needs the caller's own types (a literal
index into a heterogeneous tuple) falls back to them.

Calls from Python are not touched. The source of this module is part of every kernel's cache key
(``simkit._numba_cache.key``): it decides which specialisations exist.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

_INSTALLED = False


def widen(ty):
    """The type a kernel-to-kernel call passes ``ty`` as: literals unliteral, signed integers as int64."""
    from numba.core import types

    if isinstance(ty, types.Literal):
        ty = types.unliteral(ty)
    if isinstance(ty, types.Integer) and ty.signed and ty.bitwidth < 64:
        return types.int64
    return ty


def _keyed(py_func) -> bool:
    code = getattr(py_func, "__code__", None)
    return code is not None and _keyed_file(code.co_filename)


@lru_cache(maxsize=None)
def _keyed_file(filename: str) -> bool:
    """Whether a source file lies in a keyed package (asked at every call numba types: once per file)."""
    from simkit import _numba_cache as nc

    try:
        return nc.package_of(Path(filename).resolve()) is not None
    except (OSError, ValueError):
        return False


def install() -> None:
    """Wrap numba's ``Dispatcher.get_call_template`` (how a kernel's call to another is typed) once per process."""
    global _INSTALLED
    if _INSTALLED:
        return
    _INSTALLED = True
    from numba.core import dispatcher, errors

    original = dispatcher.Dispatcher.get_call_template

    def get_call_template(self, args, kws):
        if _keyed(self.py_func):
            wide = tuple(widen(a) for a in args)
            wide_kws = {k: widen(v) for k, v in kws.items()}
            if wide != tuple(args) or wide_kws != kws:
                try:
                    return original(self, wide, wide_kws)
                except (errors.TypingError, errors.ForceLiteralArg):
                    pass  # the function needs the caller's own types
        return original(self, args, kws)

    get_call_template.__doc__ = original.__doc__
    dispatcher.Dispatcher.get_call_template = get_call_template
