"""The Lonequest scenario file: defaults, overrides, and clear errors for bad input."""

from pathlib import Path

import pytest
from click.testing import CliRunner

from simkit.cli import cli
from simkit.core import loader
from simkit.errors import InputError

ROOT = Path(__file__).resolve().parents[2]
CARDS = ROOT / "scenarios" / "valka" / "cards.toml"
BASE = f'''game = "valka"
mode = "lonequest"
cards = "{CARDS}"
warbands = ["knights"]
play = ["cautious"]
'''


def write(tmp_path, text):
    p = tmp_path / "lq.toml"
    p.write_text(text)
    return p


def test_bundled_scenario_loads_every_warband_and_policy():
    sim = loader.load(ROOT / "scenarios" / "valka" / "lonequest.toml").simulation
    assert sim.cells == 8 * 6  # learned, greedy_trader_tuned, cautious, aggressive, greedy_trader, random
    assert sim.describe()["policies"]["cautious"]["krone_reserve"] == 25
    assert sim.describe()["policies"]["learned"]["kind"] == "learned"


def test_policy_overrides_and_new_named_policies(tmp_path):
    p = write(tmp_path, BASE.replace('play = ["cautious"]', 'play = ["hoarder"]')
              + "[policies.hoarder]\nkind = \"heuristic\"\nkrone_reserve = 60\n")
    sim = loader.load(p).simulation
    assert sim.describe()["policies"]["hoarder"] == {"kind": "heuristic", "krone_reserve": 60.0}


@pytest.mark.parametrize("change, needles", [
    (('play = ["cautious"]', 'play = ["timid"]'), ["play[0]", "timid", "cautious", "greedy_trader"]),
    (('warbands = ["knights"]', 'warbands = ["elves"]'), ["warbands[0]", "elves", "'knights'"]),
    (("", '[rules]\nstrong_enuf = "total"\n'), ["rules.strong_enuf", "'sum'", "'each'"]),
    (("", '[rules]\nmarket_trade = "down"\n'), ["rules.market_trade", "'same_cost'", "'up'"]),
    (("", '[rules]\npotion = "half"\n'), ["rules.potion", "'full'", "'base'"]),
    (("", "[setup]\nquests = 20\n"), ["setup.quests", "30"]),
    (("", "[policies.cautious]\nkrone_reserv = 3\n"), ["policies.cautious.krone_reserv", "krone_reserve"]),
    ((f'cards = "{CARDS}"', 'cards = "missing.toml"'), ["cards", "does not exist"]),
])
def test_bad_scenarios_name_file_field_and_allowed_values(tmp_path, change, needles):
    old, new = change
    text = BASE.replace(old, new) if old else BASE + new
    p = write(tmp_path, text)
    with pytest.raises(InputError) as err:
        loader.load(p)
    msg = str(err.value)
    assert "lq.toml" in msg
    for n in needles:
        assert n in msg, (n, msg)
    res = CliRunner().invoke(cli, ["run", str(p), "--quiet", "--out", str(tmp_path / "out")])
    assert res.exit_code == 2 and len(res.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "out").exists()


def test_same_seed_same_rows_for_one_and_two_jobs(tmp_path):
    import simkit

    p = write(tmp_path, BASE.replace('warbands = ["knights"]', 'warbands = ["knights", "wizards"]')
              .replace('play = ["cautious"]', 'play = ["cautious", "random"]'))
    a = simkit.run(p, games=600, seed=4, jobs=1, block_size=200, out=tmp_path / "a")
    b = simkit.run(p, games=600, seed=4, jobs=2, block_size=200, out=tmp_path / "b")
    assert a.frame.equals(b.frame)
    assert (tmp_path / "a/summary.json").read_bytes() == (tmp_path / "b/summary.json").read_bytes()


def test_search_policy_runs_through_the_scenario(tmp_path):
    """`kind = "search"` (the generic search over a base policy) plays through the search kernel;
    reproducible, and its manifest names its base."""
    from simkit.core.seeding import block_key

    p = write(tmp_path, BASE.replace('play = ["cautious"]', 'play = ["cautious", "quick"]')
              + '[policies.quick]\nkind = "search"\nrollouts = 2\nbase = "aggressive"\n')
    sim = loader.load(p).simulation
    assert sim.search and sim.describe()["policies"]["quick"] == {
        "kind": "search", "rollouts": 2, "base": "aggressive", "budget": "halving", "caution": 1.0}
    a = sim.run_block(block_key(3, 0), 3)
    b = sim.run_block(block_key(3, 0), 3)
    assert list(a["policy"]) == ["cautious"] * 3 + ["quick"] * 3
    for k in ("won", "turns", "battles", "krone"):
        assert (a[k] == b[k]).all()
    assert (a["turns"] > 0).all()
    assert set(loader.load(p).simulation.policy_specs[1][2]) >= {"rollouts", "base"}


def test_bundled_search_preset_and_parameter_ranges():
    from simkit.core.policies import declared_range
    from simkit.games.valka.lonequest import policies as pol

    assert pol.PRESETS["search"][0] == "search" and pol.PRESETS["search"][1]["base"] in pol.PRESETS
    for name, entry in pol.PARAMS.items():
        low, high = declared_range(pol.PARAMS, name)
        assert low <= entry[1] <= high, name
        for preset, (kind, values) in pol.PRESETS.items():
            if kind == "heuristic" and name in values:
                assert low <= values[name] <= high, (preset, name)
