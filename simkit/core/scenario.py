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
# the top-level scenario fields that name a data file (read with Fields.file_path); no other string is a path
FILE_FIELDS = ("cards", "deck")


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


class Problems:
    """Every problem of one file, so that it is reported at once (a card file with 42 Fighters is fixed in one
    pass): :class:`Fields` made with ``problems`` record a bad field here and go on with a stand-in value;
    :meth:`row` keeps one card's explicit error and goes on with the next card; :meth:`check` raises them all
    as one :class:`InputError` (one line per problem)."""

    def __init__(self) -> None:
        self.errors: list[InputError] = []

    def add(self, exc: InputError) -> None:
        self.errors.append(exc)

    def row(self):
        """A context for one card: an :class:`InputError` raised inside is recorded (unless a field of the same
        card was already wrong: that error may follow from the stand-in value) and the next card is read."""
        import contextlib

        problems = self

        @contextlib.contextmanager
        def _row():
            before = len(problems.errors)
            try:
                yield
            except InputError as exc:
                if len(problems.errors) == before:
                    problems.add(exc)

        return _row()

    def check(self) -> None:
        if self.errors:
            exc = InputError.of([m for e in self.errors for m in e.messages])
            exc.collected = True  # every problem so far: the caller need not record it again
            raise exc


def _stand_in(type, default, choices, lo, hi):
    """The value a wrong field reads as while the rest of the file is checked."""
    if default is not _MISSING:
        return default
    if choices is not None:
        return next(iter(choices))
    t = type[0] if isinstance(type, tuple) else type
    if t in (int, float):
        return t(lo if lo is not None else hi if hi is not None and hi < 0 else 0)
    return {str: "", bool: False, list: [], dict: {}}.get(t)


def row_name(value: dict, i: int, keys: list) -> str:
    """How a card in a list is named in messages: its ``key`` (``fighters.raider_boss``) when it has a distinct
    one, else its place (``fighters[12]``)."""
    key = value.get("key") if isinstance(value, dict) else None
    if isinstance(key, str) and key and keys.count(key) == 1 and "." not in key and "[" not in key:
        return f".{key}"
    return f"[{i}]"


class Fields:
    """A validating view of one TOML table.

    Read each field with :meth:`get` (or :meth:`table`, :meth:`tables`), then
    call :meth:`finish`, which rejects any field that was not read. With
    ``problems`` (a :class:`Problems`), a bad field is recorded there instead
    of raised, and reads as a stand-in value, so that every problem of the
    file is found in one pass.
    """

    def __init__(self, file: str | Path, data: dict, prefix: str = "", problems: Problems | None = None):
        if not isinstance(data, dict):
            raise InputError(f"{file}: field '{prefix.rstrip('.') or '(top)'}' must be a table")
        self.file = str(file)
        self.data = data
        self.prefix = prefix
        self.problems = problems
        self._seen: set[str] = set()

    def sub(self, data: dict, prefix: str) -> "Fields":
        """A view of a nested table (``prefix`` is its full name with a trailing dot), sharing ``problems``."""
        return Fields(self.file, data, prefix, self.problems)

    def rows(self, name: str, value: list) -> list["Fields"]:
        """The tables of the list ``value`` (field ``name``), each named by its key where it has one."""
        keys = [v.get("key") if isinstance(v, dict) else None for v in value]
        return [self.sub(v, f"{self.prefix}{name}{row_name(v, i, keys)}.") for i, v in enumerate(value)
                if isinstance(v, dict)]

    def _bad(self, name: str, message: str, fallback):
        exc = self.error(name, message)
        if self.problems is None:
            raise exc
        self.problems.add(exc)
        return fallback

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
        stand_in = _stand_in(type, default, choices, min, max)
        if name not in self.data:
            if default is _MISSING:
                extra = ""
                if choices is not None:
                    extra = "; allowed values: " + ", ".join(repr(c) for c in choices)
                return self._bad(name, f"is missing (expected {_type_name(type)}{extra})", stand_in)
            return default
        value = self.data[name]
        if not _is_type(value, type):
            return self._bad(name, f"must be {_type_name(type)} (got {value!r})", stand_in)
        if type is float and isinstance(value, int):
            value = float(value)
        if choices is not None:
            allowed = list(choices)
            if value not in allowed:
                return self._bad(name, f"must be one of {', '.join(repr(c) for c in allowed)} (got {value!r})",
                                 stand_in)
        if isinstance(value, float) and value != value and (min is not None or max is not None):
            lo, hi = "" if min is None else f" from {min}", "" if max is None else f" to {max}"
            return self._bad(name, f"must be a number{lo}{hi} (got nan)", stand_in)
        if min is not None and value < min:
            return self._bad(name, f"must be at least {min} (got {value!r})", min)
        if max is not None and value > max:
            return self._bad(name, f"must be at most {max} (got {value!r})", max)
        return value

    def table(self, name: str, default: Any = _MISSING) -> "Fields":
        """A sub-table as :class:`Fields` (an empty one when absent and ``default`` is given)."""
        self._seen.add(name)
        if name not in self.data:
            if default is _MISSING:
                raise self.error(name, "is missing (expected a table)")
            return self.sub({}, f"{self.prefix}{name}.")
        value = self.data[name]
        if not isinstance(value, dict):
            return self._bad(name, f"must be a table (got {value!r})", self.sub({}, f"{self.prefix}{name}."))
        return self.sub(value, f"{self.prefix}{name}.")

    def tables(self, name: str) -> list["Fields"]:
        """An array of tables (``[[name]]``) as a list of :class:`Fields`."""
        self._seen.add(name)
        value = self.data.get(name)
        if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
            return self._bad(name, "must be an array of tables ([[" + self.prefix + name + "]])", [])
        return self.rows(name, value)

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
        for k in unknown if self.problems is not None else unknown[:1]:
            allowed = sorted(self._seen)
            near = difflib.get_close_matches(k, allowed, n=1)
            hint = f" (did you mean '{self.prefix}{near[0]}'?)" if near else ""
            self._bad(k, f"is not a known field{hint}; allowed fields: {', '.join(allowed) or '(none)'}", None)


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
