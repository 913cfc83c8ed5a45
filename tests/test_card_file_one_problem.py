"""One problem in a card file is reported on one line (issue 38): whichever single field of a bundled card file is
set to a wrong value, the loader either accepts the file (the value is allowed) or refuses it with exactly one
message, naming the file. Hypothesis picks the field and the wrong value.

A name in one of the lists of names a file defines (Valeria's ``roles``, The Valkyrie Incident's ``clans``,
Valhalla's die ``symbols``) is the one exception: renaming it makes every card that uses the old name wrong, and
each of them is named, once."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
import tomli_w
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simkit.errors import InputError
from simkit.core.registry import scenarios_dir


def _loaders():
    from simkit.games.valeria import cards as valeria
    from simkit.games.valhalla import cards as valhalla_cards
    from simkit.games.valhalla import deck as valhalla_deck
    from simkit.games.valka import cards as valka
    from simkit.games.valkyrie_incident import cards as vi

    root = scenarios_dir()
    return {
        "valka/cards.toml": valka.load_cards,
        "valeria/cards.toml": valeria.load_cards,
        "valkyrie_incident/cards.toml": vi.load_cards,
        "valhalla/cards.toml": valhalla_cards.load_cards,
        "valhalla/deck.toml": lambda p: valhalla_deck.load_deck(p, root / "valhalla" / "cards.toml"),
    }


def _leaves(data, path=()):
    """Every scalar of the file, as the path of keys and indices that reaches it."""
    if isinstance(data, dict):
        for k, v in data.items():
            yield from _leaves(v, (*path, k))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            yield from _leaves(v, (*path, i))
    else:
        yield path, data


def _set(data, path, value):
    for p in path[:-1]:
        data = data[p]
    data[path[-1]] = value


def _wrong(value) -> st.SearchStrategy:
    """Values of the wrong kind or out of range for a field that holds ``value``."""
    if isinstance(value, bool):
        return st.sampled_from([2, "yes", -1])
    if isinstance(value, int):
        return st.sampled_from([-1, -1000, 10**9, 2**70, "3", 2.5, True, [value]])
    if isinstance(value, float):
        return st.sampled_from([-1.0, 1e300, "0.5", [value]])
    if isinstance(value, str):
        return st.sampled_from(["", "no_such_thing", 3, [value]])
    return st.just("?")


FILES = list(_loaders())


@pytest.mark.parametrize("name", FILES)
@settings(max_examples=120, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_one_wrong_field_is_one_line(name, data, tmp_path_factory):
    load = _loaders()[name]
    src = scenarios_dir() / name
    original = tomllib.loads(src.read_text(encoding="utf-8"))
    leaves = list(_leaves(original))
    path, value = data.draw(st.sampled_from(leaves), label="field")
    bad = data.draw(_wrong(value), label="value")
    edited = tomllib.loads(src.read_text(encoding="utf-8"))
    _set(edited, path, bad)
    out = tmp_path_factory.mktemp("cards") / Path(name).name
    out.write_text(tomli_w.dumps(edited), encoding="utf-8")
    # a list of names the file defines (reached by keys only): roles, areas, clans, die symbols
    vocabulary = isinstance(path[-1], int) and all(isinstance(p, str) for p in path[:-1])
    try:
        load(out)
    except InputError as exc:
        lines = exc.messages
        assert all(out.name in line for line in lines), lines
        fields = [line.split("field ", 1)[1].split(" ", 1)[0] if "field " in line else line for line in lines]
        if vocabulary:
            assert len(set(fields)) == len(fields), f"{name}: {path} = {bad!r}: a field named twice:\n" + \
                "\n".join(lines)
        else:
            assert len(lines) == 1, f"{name}: {path} = {bad!r} gave {len(lines)} lines:\n" + "\n".join(lines)
