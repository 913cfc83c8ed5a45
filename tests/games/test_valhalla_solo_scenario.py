"""The Valhalla Solo scenario file: the bundled one loads; bad input is a clear error."""

from pathlib import Path

import pytest

from simkit.core import loader
from simkit.errors import InputError

ROOT = Path(__file__).resolve().parents[2] / "scenarios" / "valhalla"
BASE = f'''game = "valhalla"
mode = "solo"
cards = "{ROOT / "cards.toml"}"
deck = "{ROOT / "deck.toml"}"
monsters = ["troll"]
levels = [1]
jarls = ["sigurd"]
play = ["builder"]
'''


def test_bundled_solo_scenario():
    sim = loader.load(ROOT / "solo.toml").simulation
    assert sim.cells == 3 * 2 * 3 * 17 * 4  # builder_tuned, builder, aggressive, random


@pytest.mark.parametrize("old, new, needles", [
    ('monsters = ["troll"]', 'monsters = ["kraken"]', ["monsters[0]", "kraken", "'troll'"]),
    ("levels = [1]", "levels = [4]", ["levels[0]", "1, 2, 3"]),
    ('jarls = ["sigurd"]', 'jarls = ["odin"]', ["jarls[0]", "odin", "'bernhard'"]),
    ('play = ["builder"]', 'play = ["careful"]', ["play[0]", "careful", "builder"]),
    ("", '[rules]\npath_to_valhalla = "mine"\n', ["rules.path_to_valhalla", "'unplayable'", "'own'"]),
    ("", 'variants = ["plus80"]\n', ["variants[0]", "'plus40'"]),
])
def test_bad_solo_scenarios(tmp_path, old, new, needles):
    text = BASE.replace(old, new) if old else BASE.replace('play = ["builder"]\n', new + 'play = ["builder"]\n') \
        if new.startswith("variants") else BASE + new
    p = tmp_path / "solo.toml"
    p.write_text(text)
    with pytest.raises(InputError) as err:
        loader.load(p)
    msg = str(err.value)
    assert "solo.toml" in msg
    for n in needles:
        assert n in msg, (n, msg)


def test_search_policies(tmp_path):
    from simkit.core.policies import SEARCH

    p = tmp_path / "solo.toml"
    p.write_text(BASE.replace('play = ["builder"]', 'play = ["builder", "search", "deep"]')
                 + '[policies.deep]\nkind = "search"\nrollouts = 8\nbase = "aggressive"\nbudget = "uniform"\n')
    sim = loader.load(p).simulation
    g = sim.groups[0]
    assert list(g["kinds"]) == [0, SEARCH, SEARCH]
    assert g["cfgs"][1][0] == 16 and g["cfgs"][2][0] == 8
    p.write_text(BASE.replace('play = ["builder"]', 'play = ["bad"]')
                 + '[policies.bad]\nkind = "search"\nbase = "nobody"\n')
    with pytest.raises(InputError) as err:
        loader.load(p)
    assert "policies.bad.base" in str(err.value) and "builder" in str(err.value)
