"""``--set path=value``: change any scenario value from the command line.

A path walks the scenario's tables (``rules.strong_enuf``), and continues into
the card files the scenario names (``cards = "cards.toml"``): entries of a
list of tables are addressed by their ``key`` field or by index
(``fighters.old_gob.health``, ``monsters.troll.base.0.strength``). Values are
read as TOML (``4``, ``2.5``, ``true``, ``"text"``, ``[1, 2]``); a bare word
is a string. A wrong path names the nearest valid ones.

Overridden card files are written to a temporary folder and the scenario
points there, so every game reads them exactly as it reads its own files and
validates them the same way.
"""

from __future__ import annotations

import atexit
import copy
import difflib
import hashlib
import json
import shutil
import tempfile
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from simkit.errors import InputError


@dataclass(frozen=True)
class Override:
    path: tuple[str, ...]
    value: Any
    text: str  # as given, for messages and the manifest


def parse_value(text: str, option: str = "--set") -> Any:
    """A TOML value, or the text itself when it is not one (a bare word).

    A value that runs on into more TOML (``"x"\nother = 1``, possible with a multi-line argument) is an
    error: the rest would otherwise be ignored silently.
    """
    try:
        parsed = tomllib.loads(f"v = {text}")
    except tomllib.TOMLDecodeError:
        if "\n" in text or "\r" in text:
            raise InputError(f"{option}: the value {text!r} is not one TOML value (it spans several lines)") from None
        return text
    if set(parsed) != {"v"}:
        extra = next(k for k in parsed if k != "v")
        raise InputError(f"{option}: the value {text!r} holds more than one value (an unknown key {extra!r} after "
                         "the first line); give one value per --set")
    return parsed["v"]


def parse_set(text: str, option: str = "--set") -> Override:
    """``"a.b.c=value"`` → Override."""
    if "=" not in text:
        raise InputError(f"{option} {text!r}: expected path=value, e.g. fighters.old_gob.health=4")
    path, value = text.split("=", 1)
    parts = tuple(p.strip() for p in path.strip().split("."))
    if not path.strip() or any(not p for p in parts):
        raise InputError(f"{option} {text!r}: the path must be names joined by dots, e.g. rules.step_cap")
    return Override(parts, parse_value(value.strip(), f"{option} {path.strip()}"), text)


def _names(node) -> list[str]:
    if isinstance(node, dict):
        return [str(k) for k in node]
    if isinstance(node, list):
        keys = [str(item["key"]) for item in node if isinstance(item, dict) and "key" in item]
        return keys or [str(i) for i in range(len(node))]
    return []


def _step(node, name: str, where: str, option_text: str):
    if isinstance(node, dict):
        if name in node:
            return node, name
    elif isinstance(node, list):
        for i, item in enumerate(node):
            if isinstance(item, dict) and str(item.get("key")) == name:
                return node, i
        if name.isdigit() and int(name) < len(node):
            return node, int(name)
    names = _names(node)
    near = difflib.get_close_matches(name, names, n=3)
    hint = f" (did you mean {', '.join(repr(where + n) for n in near)}?)" if near else ""
    shown = ", ".join(names[:12]) + (", …" if len(names) > 12 else "")
    raise InputError(f"--set {option_text}: there is no {(where + name)!r}{hint}; "
                     f"valid names{' after ' + repr(where) if where else ''}: {shown or '(none)'}")


def _depth(node, path) -> int:
    """How many leading names of ``path`` exist in ``node``."""
    for depth, name in enumerate(path):
        try:
            parent, key = _step(node, name, "", "")
        except InputError:
            return depth
        node = parent[key]
    return len(path)


def apply(data: dict, ov: Override, create_leaf: bool = False) -> None:
    """Set ``ov.value`` at ``ov.path`` inside ``data`` (in place)."""
    node = data
    where = ""
    for depth, name in enumerate(ov.path):
        last = depth == len(ov.path) - 1
        if last and create_leaf and isinstance(node, dict) and name not in node:
            node[name] = ov.value
            return
        if not last and create_leaf and isinstance(node, dict) and name not in node and depth == 0:
            node[name] = {}
        parent, key = _step(node, name, where, ov.text)
        if last:
            old = parent[key]
            if isinstance(old, (dict, list)) and not isinstance(ov.value, type(old)):
                raise InputError(f"--set {ov.text}: {'.'.join(ov.path)} is a table or list, not a single value; "
                                 f"set one of its fields: {', '.join(_names(old)[:12])}")
            parent[key] = ov.value
            return
        node = parent[key]
        where += f"{name}."


def file_references(scenario: Path, data: dict) -> dict[str, Path]:
    """Top-level fields of a scenario that name another TOML file (e.g. ``cards``, ``deck``)."""
    from simkit.core.scenario import FILE_FIELDS

    out = {}
    for k, v in data.items():
        if k in FILE_FIELDS and isinstance(v, str) and v.endswith(".toml"):
            p = Path(v) if Path(v).is_absolute() else scenario.parent / v
            if p.exists():
                out[k] = p
    return out


def apply_overrides(scenario: Path, data: dict, overrides: list[Override],
                    copies: dict[str, Path] | None = None) -> tuple[dict, str | None]:
    """Apply overrides to the scenario data (in place) and to copies of the card files it names.

    Returns the data (with file fields pointing at the overridden copies) and a
    hash of everything that was changed (None without overrides). ``copies``, when
    given, receives ``{temporary copy: the user's file}`` so messages can name the user's file.
    """
    if not overrides:
        return data, None
    import tomli_w

    from simkit.core.scenario import read_toml

    refs = file_references(scenario, data)
    files: dict[str, dict] = {}
    changed: set[str] = set()
    scenario_tables = {"rules", "run", "setup", "grid", "policies"}
    for ov in overrides:
        head = ov.path[0]
        if len(ov.path) == 1 and head in data and isinstance(data[head], str) and data[head].endswith(".toml"):
            # a card file exchanged for another (--set cards=other.toml): later changes go into the new file
            if not isinstance(ov.value, str) or not ov.value.endswith(".toml"):
                raise InputError(f"--set {ov.text}: {head} names a card file; give a .toml path "
                                 f"(got {ov.value!r})")
            new = Path(ov.value) if Path(ov.value).is_absolute() else scenario.parent / ov.value
            if not new.is_file():
                raise InputError(f"--set {ov.text}: the file {new} does not exist")
            data[head] = ov.value
            refs[head] = new
            files.pop(head, None)
            changed.discard(head)
            continue
        candidates = []
        if head in data or head in scenario_tables:
            candidates.append(("scenario", data, True))
        for field, path in refs.items():
            if field not in files:
                files[field] = read_toml(path)[0]
            if head in files[field]:
                candidates.append((field, files[field], False))
        if not candidates:
            names = sorted(set(data) | {k for f in refs for k in files.get(f, {})})
            near = difflib.get_close_matches(head, names, n=3)
            hint = f" (did you mean {', '.join(map(repr, near))}?)" if near else ""
            raise InputError(f"--set {ov.text}: no {head!r} in {scenario.name} or the files it names "
                             f"({', '.join(p.name for p in refs.values()) or 'none'}){hint}; valid names: "
                             f"{', '.join(names)}")
        # the first place where the whole path exists wins (a scenario's "monsters" list may shadow a card
        # file's "monsters" table); if none has it, the error comes from the first
        best_error, best_depth = None, -1
        for _, target, create in candidates:
            trial = copy.deepcopy(target)
            try:
                apply(trial, ov, create_leaf=create)
            except InputError as exc:
                depth = _depth(target, ov.path)
                if depth > best_depth:
                    best_error, best_depth = exc, depth
                continue
            apply(target, ov, create_leaf=create)
            if target is not data:
                changed.add(next(f for f, c in files.items() if c is target))
            best_error = None
            break
        if best_error is not None:
            raise best_error
    if changed:
        folder = Path(tempfile.mkdtemp(prefix="simkit-set-"))
        # the games read their card files while the scenario loads; the copies go when the process ends
        atexit.register(shutil.rmtree, folder, True)
        for field in sorted(changed):
            content = files[field]
            # an experiment may change what a rulebook prints (e.g. a card's stat); games that check printed
            # facts relax only those checks for files marked so (impossible values are still rejected)
            if "experiment" not in content and "notice" in content:
                content["experiment"] = True
            out = folder / refs[field].name
            out.write_text(tomli_w.dumps(content))
            data[field] = str(out)
            if copies is not None:
                copies[str(out)] = refs[field]
    digest = hashlib.sha256(json.dumps([[list(o.path), o.value] for o in overrides], default=str,
                                       sort_keys=True).encode()).hexdigest()
    return data, digest
