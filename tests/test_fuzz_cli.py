"""Every command and input file kind against malformed input: a corpus of the cases found by hand, and
property-based fuzzing (hypothesis).

For every case: no traceback, exit code 2 with one line on stderr naming what the user wrote (never 0 on
invalid input), no hang, and nothing written anywhere (the named output included). The commands run in
this process (click's test runner), from an empty working folder, so the suite stays fast.
"""

from __future__ import annotations

import json
import math
import re
import os
import shutil
import signal
import string
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as hs

from simkit.cli import cli

ROOT = Path(__file__).resolve().parents[1]
SC = ROOT / "scenarios"
LQ, CS, VH = str(SC / "valka/lonequest.toml"), str(SC / "valka/chance_strike.toml"), str(SC / "valhalla/solo.toml")
HANG_SECONDS = 60


class Hang(BaseException):
    """Raised by the alarm: not an OSError (TimeoutError is one, and the CLI turns an OSError into a clean exit 2,
    which hid a slow case as 'failed but wrote a run folder'), so a hang fails the test as a hang."""


@pytest.fixture(autouse=True)
def no_hang():
    """A case that runs this long is a hang: fail it instead of waiting (a hypothesis test re-arms the alarm
    for each example, so the limit is per command, not per 150 examples)."""
    def boom(*_):
        raise Hang(f"a command ran for more than {HANG_SECONDS} s (a hang?)")

    old = signal.signal(signal.SIGALRM, boom)
    signal.alarm(HANG_SECONDS)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    """An empty working folder with files the cases refer to: a small finished run and damaged copies."""
    w = tmp_path_factory.mktemp("fuzz")
    small = w / "inputs" / "small.toml"
    small.parent.mkdir()
    small.write_text(Path(CS).read_text().replace('"0:12"', '"0:1"'))
    old = os.getcwd()
    os.chdir(w)
    try:
        res = CliRunner().invoke(cli, ["run", str(small), "--games", "200", "--block-size", "100", "--seed", "1",
                                       "--jobs", "1", "--quiet", "--out", "inputs/run"])
    finally:
        os.chdir(old)
    assert res.exit_code == 0, (res.output, res.exception)
    return w


def invoke(args, cwd: Path):
    old = os.getcwd()
    os.chdir(cwd)
    try:
        return CliRunner().invoke(cli, [str(a) for a in args])
    finally:
        os.chdir(old)


def snapshot(folder: Path) -> dict:
    return {p: p.stat().st_mtime_ns for p in folder.rglob("*")}


def assert_clean_error(res, *needles):
    assert res.exception is None or isinstance(res.exception, SystemExit), \
        f"traceback: {res.exception!r}\n{res.output}"
    assert res.exit_code == 2, f"exit code {res.exit_code} on invalid input:\n{res.output}"
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("simkit: error: "), res.stderr
    assert "Traceback" not in res.output
    for n in needles:
        assert n in lines[0], (n, lines[0])


def check_case(workdir: Path, args, needles=(), prepare=None):
    """Run one invalid case in a fresh copy of the inputs; nothing may be written anywhere."""
    case = workdir / "case"
    if case.exists():
        shutil.rmtree(case)
    shutil.copytree(workdir / "inputs", case / "inputs")
    if prepare:
        prepare(case)
    before = snapshot(case)
    res = invoke(args, case)
    assert_clean_error(res, *needles)
    assert snapshot(case) == before, "an invalid command wrote files: " + ", ".join(
        str(p.relative_to(case)) for p in set(snapshot(case)) ^ set(before))


def write(rel: str, data: bytes | str):
    def prep(case: Path):
        p = case / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data if isinstance(data, bytes) else data.encode())
    return prep


def scenario(base: str, old: str, new: str, name: str = "s.toml"):
    """A copy of a bundled scenario (beside its card files) with one edit."""
    def prep(case: Path):
        text = Path(base).read_text()
        assert old in text, old
        dst = case / name
        for f in [*Path(base).parent.glob("*.toml"), *Path(base).parent.glob("*.npz")]:
            if f.name not in ("lonequest.toml", "solo.toml", "chance_strike.toml"):
                shutil.copy(f, case / f.name)
        dst.write_text(text.replace(old, new, 1))
    return prep


def damage_block(how: str):
    def prep(case: Path):
        import polars as pl

        blk = case / "inputs/run/blocks/block-000001.parquet"
        if how == "truncated":
            blk.write_bytes(blk.read_bytes()[:100])
        elif how == "garbage":
            blk.write_bytes(os.urandom(3000))
        elif how == "missing column":
            pl.read_parquet(blk).drop("attacker_hits").write_parquet(blk)
        elif how == "wrong type":
            f = pl.read_parquet(blk)
            f.with_columns(f["attacker_hits"].cast(pl.String)).write_parquet(blk)
        elif how == "all blocks miss a column":
            for b in blk.parent.glob("*.parquet"):
                pl.read_parquet(b).drop("shield").write_parquet(b)
    return prep


RUN_DIR = "inputs/run"
GAMES = ["--games", "10", "--jobs", "1", "--quiet"]

# (id, args, words the one-line error must contain, preparation)
CORPUS = [
    # malformed run folders in `report`
    ("manifest truncated", ["report", RUN_DIR], ["manifest.json", "JSON"], write("inputs/run/manifest.json", '{"game": "va')),
    ("manifest not UTF-8", ["report", RUN_DIR], ["manifest.json", "text"], write("inputs/run/manifest.json", b"\xff\xfe\x00{")),
    ("manifest a list", ["report", RUN_DIR], ["manifest.json", "list"], write("inputs/run/manifest.json", "[1, 2]")),
    ("manifest wrong mode", ["report", RUN_DIR], ["mode"], write("inputs/run/manifest.json", json.dumps({"game": "valka", "mode": 3}))),
    ("block truncated", ["report", RUN_DIR], ["block-000001.parquet"], damage_block("truncated")),
    ("block garbage", ["report", RUN_DIR], ["block-000001.parquet"], damage_block("garbage")),
    ("block missing a column", ["report", RUN_DIR], ["block-000001.parquet", "attacker_hits"], damage_block("missing column")),
    ("block wrong column type", ["report", RUN_DIR], ["block-000001.parquet", "attacker_hits"], damage_block("wrong type")),
    ("every block misses a column", ["report", RUN_DIR], [RUN_DIR], damage_block("all blocks miss a column")),
    ("report of nothing", ["report", "nope"], ["nope", "not found"], None),
    ("report --quick without --bundled", ["report", RUN_DIR, "--quick"], ["--quick"], None),
    ("report RUN --bundled", ["report", RUN_DIR, "--bundled"], ["--bundled"], None),
    ("report --out under a file", ["report", RUN_DIR, "--out", "inputs/small.toml/x"], ["--out", "is a file"], None),
    ("report --out under /proc", ["report", RUN_DIR, "--out", "/proc/simkit"], ["--out", "not writable"], None),
    ("report --out ''", ["report", RUN_DIR, "--out", ""], ["--out", "empty"], None),
    # scenario lists with wrong shapes
    ("play nested list", ["run", "s.toml", *GAMES], ["s.toml", "play[0]"], scenario(LQ, 'play = [', 'play = [["cautious"], ')),
    ("play duplicated", ["run", "s.toml", *GAMES], ["s.toml", "play[1]", "twice"], scenario(LQ, 'play = ["learned", "greedy_trader_tuned"', 'play = ["cautious", "cautious"')),
    ("empty levels", ["run", "s.toml", *GAMES], ["s.toml", "field 'levels' must list at least one value"], scenario(VH, "levels = [1, 2, 3]", "levels = []")),
    ("empty monsters", ["run", "s.toml", *GAMES], ["s.toml", "field 'monsters' must list at least one value"], scenario(VH, 'monsters = ["troll", "dragon", "serpent"]', "monsters = []")),
    # messages that name the right thing
    ("mode the game does not have", ["run", "inputs/v.toml"], ["v.toml", "field 'mode'", "'kingdoms'", "chance-strike"],
     write("inputs/v.toml", 'game = "valeria"\nmode = "chance-strike"\n')),
    ("cards empty", ["run", "s.toml", *GAMES], ["s.toml", "field 'cards' must name a file"], scenario(LQ, 'cards = "cards.toml"', 'cards = ""')),
    ("cards a folder", ["run", "s.toml", *GAMES], ["s.toml", "field 'cards' names a folder"], scenario(LQ, 'cards = "cards.toml"', 'cards = "."')),
    ("run.block_size huge", ["run", "s.toml", *GAMES], ["s.toml", "run.block_size", "at most 1000000000"], scenario(LQ, "block_size = 1000 ", "block_size = 99999999999 ")),
    ("run.games huge", ["run", "s.toml", "--jobs", "1", "--quiet"], ["s.toml", "run.games", "at most 1000000000"], scenario(LQ, "games = 5000 ", "games = 99999999999 ")),
    ("empty warbands", ["run", "s.toml", *GAMES], ["s.toml", "warbands"], scenario(LQ, "warbands = [", "warbands = [] #")),
    # policy parameters
    ("krone_reserve nan", ["run", LQ, *GAMES, "--set", "policies.cautious.krone_reserve=nan"], ["krone_reserve", "finite"], None),
    ("summon_min_stamina inf", ["run", LQ, *GAMES, "--set", "policies.cautious.summon_min_stamina=inf"], ["summon_min_stamina"], None),
    ("krone_reserve negative", ["run", LQ, *GAMES, "--set", "policies.cautious.krone_reserve=-5"], ["krone_reserve", "between 0 and"], None),
    ("attack_ratio nan in file", ["run", "s.toml", *GAMES], ["s.toml", "attack_ratio"], scenario(VH, "attack_ratio = 1.0", "attack_ratio = nan")),
    ("attack_ratio negative", ["run", VH, *GAMES, "--set", "policies.builder.attack_ratio=-1"], ["attack_ratio"], None),
    # absurd sizes: the limit, at once
    ("run --games huge", ["run", LQ, "--games", "99999999999999999999999"], ["--games", "1000000000"], None),
    ("odds --mc huge", ["odds", "chance-strike", "--mc", "99999999999999999999"], ["--mc", "1000000000"], None),
    ("run --block-size huge", ["run", LQ, "--block-size", "99999999999999999999"], ["--block-size"], None),
    ("sweep axis too long", ["sweep", LQ, "--set", "fighters.old_gob.health=1:99999999999"], ["at most"], None),
    # values that must be rejected
    ("--delta above 1", ["compare", LQ, "--set", "rules.strong_enuf=each", "--sprt", "--delta", "2"], ["--delta"], None),
    ("--delta nan", ["compare", LQ, "--set", "rules.strong_enuf=each", "--sprt", "--delta", "nan"], ["--delta"], None),
    ("--citizens 7/7", ["odds", "valeria", "--citizens", "7/7"], ["--citizens", "7/7"], None),
    ("--citizens arabic digit", ["odds", "valeria", "--citizens", "\u0663"], ["--citizens"], None),
    ("--citizens fullwidth", ["odds", "valeria", "--citizens", "\uff11,2"], ["--citizens"], None),
    ("--precision nan", ["run", LQ, "--precision", "nan", "--quiet"], ["--precision"], None),
    ("--precision 1", ["run", LQ, "--precision", "1", "--quiet"], ["--precision"], None),
    # silently ignored options
    ("--set cards= missing file", ["run", LQ, *GAMES, "--set", "cards=nope.toml"], ["cards=nope.toml", "does not exist"], None),
    ("--set multi-line unknown key", ["run", LQ, *GAMES, "--set", 'rules.strong_enuf="each"\nbogus = 1'], ["--set", "bogus"], None),
    ("--max-games without --precision", ["run", LQ, "--max-games", "100"], ["--max-games", "--precision"], None),
    ("--scheduler without dask", ["run", LQ, "--scheduler", "tcp://127.0.0.1:8786"], ["--scheduler", "--backend dask"], None),
    ("--scheduler garbage", ["run", CS, *GAMES, "--backend", "dask", "--scheduler", "garbage"], ["--scheduler", "garbage"], None),
    # paths
    ("run --out ''", ["run", LQ, "--out", ""], ["--out", "empty"], None),
    ("run --out under a file", ["run", LQ, "--out", "inputs/small.toml/x"], ["--out", "is a file"], None),
    ("run --out under /proc", ["run", LQ, "--out", "/proc/simkit-run"], ["--out", "not writable"], None),
    ("odds --plot ''", ["odds", "chance-strike", "--plot", ""], ["--plot"], None),
    ("odds --plot unknown extension", ["odds", "chance-strike", "--strike", "1:2", "--shield", "1", "--plot", "x.gif"], ["--plot", ".gif"], None),
    ("odds --plot under /proc", ["odds", "chance-strike", "--plot", "/proc/x.png"], ["--plot"], None),
    ("odds --out under a file", ["odds", "test-fate", "--out", "inputs/small.toml/x.md"], ["--out"], None),
    # only the last level of an output path is created (as git does), never its missing parents
    ("run --out in a missing folder", ["run", LQ, *GAMES, "--out", "no/such/run"], ["--out", "folder no/such does not exist"], None),
    ("report --out in a missing folder", ["report", RUN_DIR, "--out", "no/such/rep"], ["--out", "folder no/such does not exist"], None),
    ("odds --plot in a missing folder", ["odds", "chance-strike", "--strike", "1:2", "--plot", "no/such/x.png"], ["--plot", "folder no/such does not exist"], None),
    ("odds --out in a missing folder", ["odds", "test-fate", "--out", "no/x.md"], ["--out", "folder no does not exist"], None),
    ("compare --out in a missing folder", ["compare", LQ, *GAMES, "--set", "rules.strong_enuf=each", "--out", "no/such/c"], ["--out", "folder no/such does not exist"], None),
    ("sweep --out in a missing folder", ["sweep", LQ, *GAMES, "--set", "fighters.old_gob.health=1:2", "--out", "no/such/s"], ["--out", "folder no/such does not exist"], None),
    ("sweep --out ''", ["sweep", LQ, "--set", "fighters.old_gob.health=1:2", "--out", ""], ["--out"], None),
    ("sweep same axis twice", ["sweep", LQ, "--set", "fighters.old_gob.health=1:3", "--set", "fighters.old_gob.health=2:4"], ["twice"], None),
    ("baseline name a/b", ["baseline", "a/b", LQ, "--games", "10", "--baselines", "bl"], ["a/b"], None),
    ("baseline name ../../x", ["baseline", "../../x", LQ, "--games", "10", "--baselines", "bl"], ["../../x"], None),
    # messages name what the user wrote
    ("--set error names the user's card file", ["run", LQ, *GAMES, "--set", "fighters.old_gob.health=0"], [str(SC / "valka/cards.toml"), "health"], None),
    ("--cards not found", ["odds", "valhalla-monster", "--cards", "nope.toml"], ["--cards", "nope.toml"], None),
    ("check --only unknown", ["check", "--baselines", str(ROOT / "reports/baseline"), "--only", "nope"], ["--only", "nope"], None),
    ("check empty baselines", ["check", "--baselines", "inputs"], ["no baselines"], None),
    ("resume of a complete run", ["run", "--resume", RUN_DIR], ["already complete"], None),
    ("resume of nothing", ["run", "--resume", "nope"], ["nope"], None),
    ("run without scenario", ["run"], ["SCENARIO"], None),
    ("bad scenario TOML", ["run", "inputs/bad.toml"], ["bad.toml", "TOML"], write("inputs/bad.toml", "game = = 1")),
    ("scenario not UTF-8", ["run", "inputs/bad.toml"], ["bad.toml"], write("inputs/bad.toml", b"\xff\xfe\xfa")),
    ("scenario is a folder", ["run", "inputs"], ["inputs"], None),
    ("unknown monster card table", ["odds", "valhalla-monster", "--cards", "c.toml"], ["c.toml", "monsters.troll.bas"],
     lambda case: (case / "c.toml").write_text(_misspelled_side())),
    ("--jobs absurd", ["run", LQ, "--jobs", "100000"], ["--jobs", "512"], None),
    ("bench --games absurd", ["bench", "--games", "99999999999999"], ["--games"], None),
    ("list takes no argument", ["list", "x"], [], None),
    ("unknown command", ["nope"], [], None),
]

def _misspelled_side() -> str:
    text = (SC / "valhalla/cards.toml").read_text()
    first = text.index("[[monsters.base]]")
    second = text.index("[[monsters.base]]", first + 1)
    return text[:second] + "[[monsters.bas]]" + text[second + len("[[monsters.base]]"):]


# Found in the trial and belonging to the statistics issue (baseline JSON, simkit/core/check.py): kept here so
# the suite turns green for them as soon as they are fixed there (non-strict xfail).
BASELINE = Path(__file__).resolve().parents[1] / "reports" / "baseline" / "chance-strike.json"


def baseline(**changes):
    """A copy of the committed chance-strike baseline (and its outcome file) with fields changed."""
    def prep(case: Path):
        data = json.loads(BASELINE.read_text())
        data["scenario"] = CS
        data.update(changes)
        (case / "bl").mkdir(parents=True, exist_ok=True)
        (case / "bl" / "x.json").write_text(json.dumps(data))
        shutil.copy(BASELINE.with_suffix(".npz"), case / "bl" / BASELINE.with_suffix(".npz").name)
    return prep


BASELINE_CASES = [
    ("baseline not UTF-8", ["check", "--baselines", "bl"], ["x.json"], write("bl/x.json", b"\xff\xfe{")),
    ("baseline scenario wrong type", ["check", "--baselines", "bl"], ["x.json", "scenario"], baseline(scenario=3)),
    ("baseline seed wrong type", ["check", "--baselines", "bl"], ["x.json", "seed"], baseline(seed="x")),
    ("baseline games wrong type", ["check", "--baselines", "bl"], ["x.json", "games"], baseline(games=[1])),
    ("baseline metrics wrong type", ["check", "--baselines", "bl"], ["x.json", "metrics"], baseline(metrics=5)),
    ("baseline alpha out of range", ["check", "--baselines", "bl"], ["x.json", "alpha"], baseline(alpha=2)),
    ("baseline block_size zero", ["check", "--baselines", "bl"], ["x.json", "block_size"], baseline(block_size=0)),
    ("baseline unknown key", ["check", "--baselines", "bl"], ["x.json", "colour"], baseline(colour=1)),
    ("baseline tolerance negative", ["check", "--baselines", "bl"], ["x.json", "tolerance"],
     baseline(tolerance={"rate": {"absolute": -1}, "mean": {"relative": 0.05}, "metrics": {}})),
    ("baseline old format", ["check", "--baselines", "bl"], ["x.json", "format"],
     write("bl/x.json", json.dumps({"scenario": CS, "seed": 1, "games": 10, "metrics": []}))),
    ("baseline a list", ["check", "--baselines", "bl"], ["x.json"], write("bl/x.json", "[1]")),
]


@pytest.mark.parametrize("name,args,needles,prepare", CORPUS, ids=[c[0] for c in CORPUS])
def test_corpus(workdir, name, args, needles, prepare):
    check_case(workdir, args, needles, prepare)


@pytest.mark.parametrize("name,args,needles,prepare", BASELINE_CASES, ids=[c[0] for c in BASELINE_CASES])
def test_baseline_corpus(workdir, name, args, needles, prepare):
    check_case(workdir, args, needles, prepare)


def test_unfinished_run_report_counts_its_blocks(workdir):
    case = workdir / "unfinished"
    if case.exists():
        shutil.rmtree(case)
    shutil.copytree(workdir / "inputs/run", case)
    man = json.loads((case / "manifest.json").read_text())
    man.update(status="running", games_requested=400)
    del man["games"], man["blocks"]
    (case / "manifest.json").write_text(json.dumps(man))
    (case / "summary.json").unlink()
    res = invoke(["report", str(case)], workdir)
    assert res.exit_code == 0, res.output
    text = (case / "report/report.md").read_text()
    assert "**Unfinished run** (status: running): 2 of 4 blocks were written, 200 games per cell" in text
    assert re.search(r"\|\s*games\s*\|\s*200\s*\|", text) and not re.search(r"\b0 games", text)


def test_a_scenario_with_a_utf8_bom_is_read(tmp_path):
    """Some Windows editors start a UTF-8 file with a byte-order mark: it is not part of the TOML, so it is
    accepted (it used to be "Invalid statement (at line 1, column 1)")."""
    import tomllib

    from simkit.core.scenario import read_toml

    p = tmp_path / "s.toml"
    p.write_bytes("\ufeff".encode() + Path(LQ).read_bytes())
    data, sha = read_toml(p)
    assert data == tomllib.loads(Path(LQ).read_text()) and len(sha) == 64


def test_a_damaged_block_0_is_the_one_named(tmp_path):
    """The reference schema is the one most blocks share: a block 0 missing a column is named as itself (it used
    to be reported as `block-000001.parquet: unexpected column ...`)."""
    import polars as pl

    from simkit.core import results
    from simkit.errors import InputError

    for b in range(3):
        frame = pl.DataFrame({"block": [b] * 4, "won": [1, 0, 1, 1], "turns": [3, 4, 5, 6]})
        results.write_block(tmp_path, b, frame.drop("turns") if b == 0 else frame)
    files = results.block_files(tmp_path)
    with pytest.raises(InputError) as exc:
        results.check_blocks(files)
    assert str(exc.value).startswith(f"{files[0]}: column 'turns' is missing (present in block-000001.parquet)")
    files[1].unlink()  # two blocks alone: both are named
    with pytest.raises(InputError) as exc:
        results.check_blocks(results.block_files(tmp_path))
    assert "block-000000.parquet" in str(exc.value) and "block-000002.parquet" in str(exc.value)
    assert "disagree" in str(exc.value)


# --- property-based fuzzing -------------------------------------------------------------------------------

junk = hs.text(alphabet=string.printable + "٣１éß\u200b", max_size=12)
bad_numbers = hs.sampled_from(["nan", "inf", "-inf", "-1", "-0.5", "1e400", "", " ", "0x10", "1_0", "٣",
                               "99999999999999999999999", "1.5", "abc", "--", "1:2:3", "3:1"])
OPTIONS = {
    "run": ["--games", "--seed", "--jobs", "--block-size", "--precision", "--max-games", "--backend", "--format",
            "--out", "--resume"],
    "odds chance-strike": ["--strike", "--shield", "--bonus", "--health", "--lone-one", "--mc", "--seed", "--jobs",
                           "--format", "--plot"],
    "odds test-fate": ["--battles", "--tests", "--not-enuf", "--mc", "--format", "--plot"],
    "odds valeria": ["--citizens", "--mc", "--format", "--plot"],
    "odds valhalla-monster": ["--monster", "--side", "--card", "--turns", "--mc", "--format", "--cards"],
    "compare": ["--games", "--seed", "--block-size", "--precision", "--delta", "--alpha", "--beta", "--metric"],
    "sweep": ["--games", "--seed", "--metric", "--where", "--out"],
    "check": ["--only", "--jobs", "--format"],
    "baseline": ["--games", "--seed", "--tolerance", "--alpha"],
    "report": ["--out", "--jobs"],
    "bench": ["--games", "--jobs"],
}
PREFIX = {"run": [LQ], "compare": [LQ, "--set", "rules.strong_enuf=each"],
          "sweep": [LQ, "--set", "fighters.old_gob.health=1:2"], "baseline": ["n", LQ],
          "report": ["nope"], "check": ["--baselines", "nope"],
          "bench": ["chance-strike"]}  # one cheap target: a valid --games (say '1_0' or '٣') times it, not every game


def _valid_somewhere(cmd: str, option: str, value: str) -> bool:
    """Values that some option legitimately accepts: these cases may run, so only 'no traceback' is checked."""
    v = value.strip()
    if option in ("--format",) and v in ("table", "md", "csv", "json"):
        return True
    if option in ("--out", "--plot", "--metric", "--where", "--only", "--monster", "--cards", "--resume",
                  "--citizens"):
        return True  # names: many are valid
    try:
        x = float(v)
    except ValueError:
        return v.isdigit() or ":" in v and all(p.strip().isdigit() for p in v.split(":", 1))
    return math.isfinite(x) and x >= 0


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cmd=hs.sampled_from(sorted(OPTIONS)), data=hs.data())
def test_fuzz_option_values(workdir, cmd, data):
    option = data.draw(hs.sampled_from(OPTIONS[cmd]))
    value = data.draw(hs.one_of(bad_numbers, junk))
    args = cmd.split() + PREFIX.get(cmd, []) + [option, value]
    if cmd == "bench" and option == "--games":
        try:  # a valid count of games per cell runs: keep it one a test can wait for (169 cells a game)
            assume(int(value) <= 1000)
        except ValueError:
            pass
    if cmd == "run" and option != "--games":
        args += ["--games", "99999999999"]  # an error before anything runs, whatever the fuzzed value
    if cmd.startswith("odds"):
        args += ["--mc", "0"] if option != "--mc" else []
    if cmd in ("compare", "baseline", "sweep", "check", "bench", "report") and option not in ("--games",):
        args += ["--games", "0"] if cmd not in ("check", "report") else []
    case = workdir / "fuzz-case"
    if case.exists():
        shutil.rmtree(case)
    case.mkdir()
    signal.alarm(HANG_SECONDS)  # per example: the limit is one command's
    res = invoke(args, case)
    assert res.exception is None or isinstance(res.exception, SystemExit), \
        f"traceback for {args!r}: {res.exception!r}\n{res.output}"
    assert "Traceback" not in res.output
    if res.exit_code != 0:
        assert res.exit_code == 2, (args, res.output)
        lines = res.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("simkit: error: "), (args, res.stderr)
    elif not cmd.startswith("odds") or option in ("--mc", "--seed", "--jobs"):
        assert _valid_somewhere(cmd, option, value), f"exit 0 on invalid input {args!r}"
    assert not list(case.iterdir()) or res.exit_code == 0, f"{args!r} failed but wrote {list(case.iterdir())}"


policy_values = hs.one_of(hs.just(float("nan")), hs.just(float("inf")), hs.just(-math.inf),
                          hs.floats(max_value=-1e-9, allow_nan=False, allow_infinity=False))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(target=hs.sampled_from([(LQ, "cautious", "krone_reserve"), (LQ, "aggressive", "summon_min_stamina"),
                               (LQ, "greedy_trader", "stamina_target"), (VH, "builder", "attack_ratio"),
                               (VH, "aggressive", "full_team_ratio")]),
       value=policy_values)
def test_fuzz_policy_parameters_are_rejected(workdir, target, value):
    path, policy, param = target
    text = {math.inf: "inf", -math.inf: "-inf"}.get(value, "nan" if value != value else repr(value))
    signal.alarm(HANG_SECONDS)  # per example
    res = invoke(["run", path, *GAMES, "--set", f"policies.{policy}.{param}={text}", "--out", "o"], workdir)
    assert_clean_error(res, param)
    assert not (workdir / "o").exists()


toml_values = hs.one_of(hs.integers(-10**20, 10**20), hs.floats(), hs.booleans(), hs.text(max_size=6),
                        hs.lists(hs.integers(-3, 3), max_size=3), hs.just([["x"]]), hs.just([]), hs.just({}))


def _toml(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return "nan" if v != v else ("inf" if v == math.inf else "-inf" if v == -math.inf else repr(v))
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ", ".join(_toml(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{}"
    return str(v)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(base=hs.sampled_from([LQ, VH]),
       key=hs.sampled_from(["play", "warbands", "monsters", "variants", "levels", "jarls", "rules.step_cap",
                            "rules.turn_cap", "rules.strong_enuf", "rules.wild_monster", "setup.krone",
                            "run.games", "run.block_size", "cards", "deck", "bogus"]),
       value=toml_values)
def test_fuzz_scenario_fields(workdir, base, key, value):
    """Any value in any scenario field: it loads, or it is an InputError (a one-line error), never another one."""
    from simkit.core import loader
    from simkit.errors import InputError

    signal.alarm(HANG_SECONDS)  # per example
    try:
        loader.load(base, [f"{key}={_toml(value)}"])
    except InputError as exc:
        assert "\n" not in str(exc).strip() and str(exc).strip()
