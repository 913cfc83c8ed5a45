"""A field (`opponent`) that the scenario's `[policies]` table defines but `play` does not name is played with the
table's parameters, in every game that seats a hero against a field (The Valkyrie Incident refused it, and so
did Valeria and Valhalla multiplayer: only played policies and presets were allowed)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from simkit.core import loader
from simkit.errors import InputError

R = Path(__file__).resolve().parents[1] / "scenarios"


def test_valkyrie_incident_plays_a_defined_unplayed_opponent(tmp_path):
    text = (R / "valkyrie_incident" / "standard.toml").read_text(encoding="utf-8")
    for f in ("cards.toml", "standard.learned.npz"):  # the copy in tmp_path reads the bundled files
        text = text.replace(f'"{f}"', f'"{(R / "valkyrie_incident" / f).as_posix()}"')
    text = re.sub(r"(?m)^play = \[.*\]$", 'play = ["focused"]', text)
    text = text.replace('opponent = "self"', 'opponent = "focused_tuned"')
    p = tmp_path / "vi.toml"
    p.write_text(text, encoding="utf-8")
    pols = loader.load(p).simulation.describe()["policies"]
    assert list(pols) == ["focused", "focused_tuned"]
    assert pols["focused_tuned"]["draft_strength"] == 2.99865 and pols["focused_tuned"]["margin"] == 1.2075


def test_valhalla_multi_plays_a_defined_unplayed_opponent(tmp_path):
    p = tmp_path / "vm.toml"
    p.write_text(f'game = "valhalla"\nmode = "multi"\ncards = "{R / "valhalla" / "cards.toml"}"\n'
                 f'deck = "{R / "valhalla" / "deck.toml"}"\nplayers = [3]\nvariants = ["valkyries"]\n'
                 'play = ["builder"]\nopponent = "mine"\n[policies.mine]\nkind = "heuristic"\nattack_ratio = 0.7\n',
                 encoding="utf-8")
    assert loader.load(p).simulation.field == ("mine", "heuristic", {"attack_ratio": 0.7})


def test_valeria_plays_a_defined_unplayed_opponent_and_still_refuses_an_unknown_one(tmp_path):
    p = tmp_path / "va.toml"
    body = (f'game = "valeria"\nmode = "kingdoms"\ncards = "{R / "valeria" / "cards.toml"}"\nplayers = [4]\n'
            'play = ["economy"]\nopponent = "{}"\n[policies.mine]\nkind = "heuristic"\nvp = 2.0\n')
    p.write_text(body.format("mine"), encoding="utf-8")
    sim = loader.load(p).simulation
    assert sim.opponent == "mine" and sim.describe()["policies"]["mine"] == {"kind": "heuristic", "vp": 2.0}
    p.write_text(body.format("nobody"), encoding="utf-8")
    with pytest.raises(InputError, match=r"field 'opponent' must be 'self' or a policy \(got 'nobody'\); allowed "
                                         r"values: .*'mine'"):
        loader.load(p)
