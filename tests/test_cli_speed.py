"""A snappy CLI: `--help`, `list` and input errors import no heavy module (numba kernels, polars, scipy,
matplotlib), so they cost a fraction of a second whatever the machine's load; and `simkit list` shows every rule
option each mode reads.

The test checks the cause (what a command imports, in a fresh subprocess), never a time: a CPU bar fails on a
busy machine. The CPU figure itself is measured by `python tests/bench_cli_cpu.py`.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("numba", "polars", "scipy", "matplotlib", "pandas", "pyarrow", "joblib")

CASES = [
    ["--help"],
    ["list"],
    ["odds", "--help"],
    ["run", "--help"],
    ["run", "nope.toml"],
    ["run", "scenarios/valka/lonequest.toml", "--games", "x"],
    ["run", "scenarios/valka/lonequest.toml", "--set", "play=3"],
    ["run", "scenarios/valka/lonequest.toml", "--out", ""],
    # errors found by a game's own validation (its build), before any kernel is imported
    ["run", "scenarios/valka/lonequest.toml", "--set", 'warbands=["nope"]'],
    ["run", "scenarios/valka/lonequest.toml", "--set", "rules.strong_enuf=most"],
    ["run", "scenarios/valka/lonequest.toml", "--set", "policies.cautious.krone_reserve=-1"],
    ["run", "scenarios/valhalla/solo.toml", "--set", "levels=[4]"],
    ["run", "scenarios/valhalla/solo.toml", "--set", "rules.turn_cap=1"],
    ["run", "scenarios/valhalla/solo.toml", "--set", 'play=["builder", "nope"]'],
    ["run", "scenarios/valka/bounty_hunter.toml", "--set", "players=[9]"],
    ["run", "scenarios/valka/duel.toml", "--set", "rules.turn_cap=1"],
    ["run", "scenarios/valka/annihilation.toml", "--set", "policies.balanced.front_size=-1"],
    ["run", "scenarios/valkyrie_incident/standard.toml", "--set", 'rules.deck_scoring="nope"'],
    ["run", "scenarios/valkyrie_incident/blitz.toml", "--set", 'emblems=[["raven", "raven"]]'],
    ["odds", "chance-strike", "--strike", "9:1"],
    ["odds", "test-fate", "--tests", "0"],
    ["odds", "valeria", "--citizens", "7/7"],
    ["odds", "valhalla-monster", "--cards", "nope.toml"],
    ["odds", "dice", "4d6kh9"],
    ["odds", "chance-strike", "--die", "12", "--mc", "10"],
    ["odds", "valhalla-battle", "--team", "nope"],
    ["odds", "valhalla-battle", "--team", "raven_thrall", "--policies", "search"],
    ["odds", "lonequest-battle", "--front", "nope", "--marauders", "old_gob"],
    ["odds", "lonequest-battle", "--front", "squire", "--marauders", "old_gob", "--policies", "search"],
    ["compare", "nope.toml"],
    ["sweep", "nope.toml", "--set", "a=1:2"],
    ["balance", "nope.toml", "--vary", "a=1:2", "--target", "won=0.5±0.1"],
    ["balance", "scenarios/toy/draw.toml", "--vary", "rules.win_low=1:2", "--vary-file", "nope.txt"],
    ["check", "--baselines", "nope"],
    ["baseline", "a/b", "x.toml", "--games", "1"],
    ["report", "nope"],
]


def case_id(args) -> str:
    """The whole command as a test id of plain characters (so `-k lonequest and strong_enuf` selects a case)."""
    text = " ".join(a if a else "''" for a in args)
    return re.sub(r"[^A-Za-z0-9_.=:/-]+", "_", text.replace("scenarios/", "")).strip("_")


# Runs the command line as `simkit ARGS` does, in a fresh interpreter, then reports its exit code and which heavy
# modules it imported on the last line of stdout.
PROBE = """
import json, sys
args = json.loads(sys.argv[1])
code = 0
try:
    from simkit.cli import main
    sys.argv = ["simkit", *args]
    main()
except SystemExit as exc:
    code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
heavy = [m for m in HEAVY if m in sys.modules]
print("\\nPROBE " + json.dumps({"code": code, "heavy": heavy}))
"""


def probe(args) -> tuple[dict, subprocess.CompletedProcess]:
    code = f"HEAVY = {HEAVY!r}\n{PROBE}"
    proc = subprocess.run([sys.executable, "-c", code, json.dumps(args)], capture_output=True, text=True,
                          timeout=120, cwd=ROOT)
    last = proc.stdout.rstrip().splitlines()[-1] if proc.stdout.strip() else ""
    assert last.startswith("PROBE "), proc.stdout + proc.stderr
    return json.loads(last[len("PROBE "):]), proc


@pytest.mark.parametrize("args", CASES, ids=[case_id(a) for a in CASES])
def test_fast_commands_import_no_heavy_module(args):
    """The cause of a fast `--help`, `list` or input error, whatever the load: no numba, polars, scipy, ... ."""
    got, proc = probe(args)
    assert got["code"] in (0, 2), proc.stderr
    if got["code"] == 2:
        assert proc.stderr.startswith("simkit: error:") and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert got["heavy"] == [], f"simkit {' '.join(args)} imported {', '.join(got['heavy'])}"


def test_case_ids_are_whole_and_distinct():
    ids = [case_id(a) for a in CASES]
    assert len(set(ids)) == len(ids)
    assert "run_valka/lonequest.toml_--set_rules.strong_enuf=most" in ids


def test_cli_imports_no_heavy_module():
    code = ("import sys, simkit.cli, simkit\n"
            "from simkit.core import registry\n"
            "for g in registry.games().values(): g.policy_descriptions(); [c.name for c in g.odds_commands]\n"
            "import simkit.games.valka.odds_cli, simkit.games.valhalla.odds_cli, simkit.games.valeria.odds_cli\n"
            "import simkit.games.valhalla.battle_cli, simkit.core.dice_cli, simkit.games.valka.strike_rule\n"
            f"print(' '.join(m for m in {HEAVY!r} if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "", f"imported by the CLI before any command runs: {out}"


def test_lazy_odds_commands_and_policies_match_the_real_ones():
    from simkit.core import registry
    from simkit.games.valhalla.solo.policies import POLICY_DESCRIPTIONS as VH
    from simkit.games.valka.chance_strike import LONE_ONE_READINGS
    from simkit.games.valka.lonequest.policies import POLICY_DESCRIPTIONS as LQ
    from simkit.games.valka.odds_cli import LONE_ONE_READINGS as SHOWN

    assert tuple(SHOWN) == tuple(LONE_ONE_READINGS)
    games = registry.games()
    from simkit.games.valka.multiplayer.policies import POLICY_DESCRIPTIONS as MP

    want = {f"lonequest: {k}": v for k, v in LQ.items()}
    want.update({f"multiplayer: {k}": v for k, v in MP.items()})
    got = games["valka"].policy_descriptions()
    assert {k: v for k, v in got.items() if k in want} == want
    from simkit.games.valhalla.multi.policies import POLICY_DESCRIPTIONS as VM

    assert games["valhalla"].policy_descriptions() == {**{f"solo: {k}": v for k, v in VH.items()},
                                                       **{f"multi: {k}": v for k, v in VM.items()}}
    for game in games.values():
        for lazy in game.odds_commands:
            cmd = lazy.load() if isinstance(lazy, registry.LazyCommand) else lazy
            assert cmd.name == lazy.name


def test_list_shows_every_rule_option_each_mode_reads(monkeypatch):
    """Build every mode's default scenario, record the [rules] fields it reads: `simkit list` names each."""
    from click.testing import CliRunner

    from simkit.cli import cli
    from simkit.core import loader, registry
    from simkit.core.scenario import Fields

    read: set[str] = set()
    original = Fields.get

    def recording_get(self, name, *a, **kw):
        if self.prefix == "rules.":
            read.add(name)
        return original(self, name, *a, **kw)

    monkeypatch.setattr(Fields, "get", recording_get)
    listing = CliRunner().invoke(cli, ["list"]).output
    for game, mode in registry.all_modes():
        read.clear()
        loader.load(registry.scenarios_dir() / mode.default_scenario)
        assert read, mode.name
        section = listing.split(f"{game.name}: ", 1)[1].split("\n\n", 1)[0]
        for name in sorted(read):
            assert f"rules.{name}" in section, f"simkit list does not show rules.{name} ({game.name} {mode.name})"


def test_a_bundled_odds_command_scans_no_installed_distribution():
    """`simkit odds chance-strike` finds its game in `registry.BUNDLED`: the entry points (a scan of every
    installed distribution's metadata, about a tenth of a second of start-up) are never read; `simkit list`
    still reads them, so a plug-in game shows up there."""
    code = ("import importlib.metadata, sys\n"
            "calls = []\n"
            "real = importlib.metadata.entry_points\n"
            "importlib.metadata.entry_points = lambda *a, **k: calls.append(1) or real(*a, **k)\n"
            "from simkit.cli import main\n"
            "sys.argv = ['simkit'] + sys.argv[1:]\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            "print('\\nSCANS', len(calls))")
    odds = ["odds", "chance-strike", "--strike", "3", "--shield", "5"]
    out = subprocess.run([sys.executable, "-c", code, *odds], capture_output=True, text=True, check=True,
                         cwd=ROOT).stdout
    assert "39/100" in out and out.rstrip().endswith("SCANS 0"), out
    out = subprocess.run([sys.executable, "-c", code, "list"], capture_output=True, text=True, check=True,
                         cwd=ROOT).stdout
    assert "valkyrie-incident:" in out and out.rstrip().endswith("SCANS 1"), out
