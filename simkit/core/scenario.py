"""Reading and validating scenario files (TOML).

Every problem becomes an :class:`~simkit.errors.InputError` whose one-line
message names the file, the field and the allowed values, e.g.::

    scenarios/valka/chance_strike.toml: field 'rules.lone_one' must be one of
    'loses', 'fails' (got 'lose')
"""

from __future__ import annotations

import difflib
import hashlib
import tomllib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from simkit.errors import InputError

_MISSING = object()


def read_toml(path: str | Path) -> tuple[dict, str]:
    """Parse a TOML file; return its data and the SHA-256 of its bytes."""
    p = Path(path)
    if not p.exists():
        raise InputError(f"{p}: scenario file not found")
    if p.is_dir():
        raise InputError(f"{p}: is a folder, expected a scenario file (.toml)")
    raw = p.read_bytes()
    try:
        # a UTF-8 byte-order mark (written by some Windows editors) is not TOML, but harmless: accepted
        data = tomllib.loads(raw.decode("utf-8").removeprefix("\ufeff"))
    except UnicodeDecodeError:
        raise InputError(f"{p}: not a text file (expected TOML)") from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{p}: not valid TOML: {exc}") from None
    return data, hashlib.sha256(raw).hexdigest()


def _type_name(t) -> str:
    names = {int: "an integer", float: "a number", str: "a string", bool: "true or false", list: "a list", dict: "a table"}
    if isinstance(t, tuple):
        return " or ".join(names.get(x, x.__name__) for x in t)
    return names.get(t, t.__name__)


def _is_type(value, t) -> bool:
    ts = t if isinstance(t, tuple) else (t,)
    for x in ts:
        if x is int and isinstance(value, int) and not isinstance(value, bool):
            return True
        if x is float and isinstance(value, (int, float)) and not isinstance(value, bool):
            return True
        if x is not int and x is not float and isinstance(value, x):
            return True
    return False


class Fields:
    """A validating view of one TOML table.

    Read each field with :meth:`get` (or :meth:`table`, :meth:`tables`), then
    call :meth:`finish`, which rejects any field that was not read.
    """

    def __init__(self, file: str | Path, data: dict, prefix: str = ""):
        if not isinstance(data, dict):
            raise InputError(f"{file}: field '{prefix.rstrip('.') or '(top)'}' must be a table")
        self.file = str(file)
        self.data = data
        self.prefix = prefix
        self._seen: set[str] = set()

    def where(self, name: str) -> str:
        return f"{self.file}: field '{self.prefix}{name}'"

    def error(self, name: str, message: str) -> InputError:
        return InputError(f"{self.where(name)} {message}")

    def has(self, name: str) -> bool:
        return name in self.data

    def get(self, name: str, type=str, default: Any = _MISSING, *, choices: Iterable | None = None,
            min: float | None = None, max: float | None = None) -> Any:
        """Read one field, checking its type, allowed values and bounds."""
        self._seen.add(name)
        if name not in self.data:
            if default is _MISSING:
                extra = ""
                if choices is not None:
                    extra = "; allowed values: " + ", ".join(repr(c) for c in choices)
                raise self.error(name, f"is missing (expected {_type_name(type)}{extra})")
            return default
        value = self.data[name]
        if not _is_type(value, type):
            raise self.error(name, f"must be {_type_name(type)} (got {value!r})")
        if type is float and isinstance(value, int):
            value = float(value)
        if choices is not None:
            allowed = list(choices)
            if value not in allowed:
                raise self.error(name, f"must be one of {', '.join(repr(c) for c in allowed)} (got {value!r})")
        if min is not None and value < min:
            raise self.error(name, f"must be at least {min} (got {value!r})")
        if max is not None and value > max:
            raise self.error(name, f"must be at most {max} (got {value!r})")
        return value

    def table(self, name: str, default: Any = _MISSING) -> "Fields":
        """A sub-table as :class:`Fields` (an empty one when absent and ``default`` is given)."""
        self._seen.add(name)
        if name not in self.data:
            if default is _MISSING:
                raise self.error(name, "is missing (expected a table)")
            return Fields(self.file, {}, f"{self.prefix}{name}.")
        value = self.data[name]
        if not isinstance(value, dict):
            raise self.error(name, f"must be a table (got {value!r})")
        return Fields(self.file, value, f"{self.prefix}{name}.")

    def tables(self, name: str) -> list["Fields"]:
        """An array of tables (``[[name]]``) as a list of :class:`Fields`."""
        self._seen.add(name)
        value = self.data.get(name)
        if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
            raise self.error(name, "must be an array of tables ([[" + self.prefix + name + "]])")
        return [Fields(self.file, v, f"{self.prefix}{name}[{i}].") for i, v in enumerate(value)]

    def file_path(self, name: str, default: str) -> Path:
        """A field naming a data file (``cards = "cards.toml"``): its path, relative to the scenario file unless
        absolute; an error naming the field when the file does not exist."""
        rel = self.get(name, str, default)
        if not rel.strip():
            raise self.error(name, f"must name a file (got {rel!r})")
        path = Path(rel) if Path(rel).is_absolute() else Path(self.file).parent / rel
        if not path.exists():
            raise self.error(name, f"names a file that does not exist: {path}")
        if path.is_dir():
            raise self.error(name, f"names a folder, not a file: {path}")
        return path

    def keys(self) -> list[str]:
        return list(self.data.keys())

    def finish(self) -> None:
        """Reject fields nobody read, naming the nearest allowed ones."""
        unknown = [k for k in self.data if k not in self._seen]
        if unknown:
            k = unknown[0]
            allowed = sorted(self._seen)
            near = difflib.get_close_matches(k, allowed, n=1)
            hint = f" (did you mean '{self.prefix}{near[0]}'?)" if near else ""
            raise InputError(f"{self.where(k)} is not a known field{hint}; allowed fields: {', '.join(allowed) or '(none)'}")


def cwd_relative(path: str | Path) -> str:
    """``path`` relative to the working folder when it lies below it (as a manifest records a data file)."""
    try:
        return str(Path(path).relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def parse_int_range(text: str, option: str, lo: int | None = None, hi: int | None = None) -> list[int]:
    """Parse ``"a:b"`` (inclusive) or ``"a"`` into a list of integers, for options like ``--strike 0:12``."""
    s = str(text).strip()
    try:
        if ":" in s:
            a_s, b_s = s.split(":", 1)
            a, b = int(a_s), int(b_s)
        else:
            a = b = int(s)
    except ValueError:
        raise InputError(f"{option}: expected a whole number or an inclusive range like 0:12 (got {text!r})") from None
    if a > b:
        raise InputError(f"{option}: range start {a} is above its end {b} (got {text!r})")
    if lo is not None and a < lo or hi is not None and b > hi:
        raise InputError(f"{option}: values must lie in {lo}:{hi} (got {text!r})")
    return list(range(a, b + 1))
