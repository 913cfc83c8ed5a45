"""Bad input to balance, train, learned weights and scenario files (issue 38 part B): one line on stderr, exit code
2, nothing written, never a traceback."""

import math
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as hs

from simkit.cli import cli

from test_cli_errors import _assert_one_line_error  # noqa: E402  (the house check of a one-line error)

ROOT = Path(__file__).resolve().parents[1]
DRAW = ROOT / "scenarios" / "toy" / "draw.toml"


def _run(args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def _balance(out, vary="rules.win_low=6:10", target="won=0.5±0.05", *more):
    return _run(["balance", DRAW, "--vary", vary, "--target", target, "--budget", 100, "--out", out, "-q",
                 "--no-copies", *more])


# --- 1. balance --vary ranges --------------------------------------------------------------------------------

@pytest.mark.parametrize("vary, needles", [
    ("rules.win_low=0:99999999999999999999999", ["--vary", "rules.win_low", "whole number", "within"]),
    ("rules.win_low=-99999999999999999999999:8", ["--vary", "rules.win_low", "within"]),
    ("rules.win_low=0:999", ["--vary", "rules.win_low=999", "must be at most 200"]),
    ("rules.win_high=9:201", ["--vary", "rules.win_high=201", "must be at most 200"]),
    ("rules.win_low=-3:8", ["--vary", "rules.win_low=-3", "must be at least 0"]),
    ("rules.win_low=8,300", ["--vary", "rules.win_low=300", "must be at most 200"]),
    ("rules.win_low=0:100000000:1", ["--vary", "100,000,001 values", "at most 1,000"]),  # was a runaway list
])
def test_balance_vary_range_past_what_the_game_allows(tmp_path, vary, needles):
    out = tmp_path / "out"
    _assert_one_line_error(_balance(out, vary), *needles)
    assert not out.exists()


num = hs.one_of(hs.integers(-5, 205), hs.integers(-10**25, 10**25), hs.floats(-300, 300, allow_nan=False).map(
    lambda x: round(x, 2)))
varies = hs.one_of(
    hs.tuples(hs.integers(-3, 203), hs.integers(-3, 203)).map(lambda t: f"{min(t)}:{max(t)}"),  # mostly allowed
    hs.tuples(num, num).map(lambda t: f"{t[0]}:{t[1]}"),
    hs.tuples(num, num, hs.integers(-2, 50)).map(lambda t: f"{t[0]}:{t[1]}:{t[2]}"),
    hs.lists(num, min_size=1, max_size=4).map(lambda xs: ",".join(map(str, xs))),
)


@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(values=varies)
def test_any_vary_range_is_refused_in_one_line_or_stays_in_what_the_game_allows(tmp_path, values):
    """``--vary rules.win_low=…`` (the toy's stopping total, 0 to 200 by its rules): a range or list with a value
    the field cannot hold (past 200, below 0, not whole, huge) ends in one line naming --vary and the field, exit
    code 2 and no run folder; any other is searched, and only values the game allows are tried."""
    import json

    text = f"rules.win_low={values}"
    out = tmp_path / "out"
    shutil.rmtree(out, ignore_errors=True)
    res = _run(["balance", DRAW, "--vary", text, "--target", "won=0.5±0.05", "--budget", 400, "--out", out, "-q",
                "--no-copies"])
    assert res.exit_code in (0, 2), (text, res.output, res.exception)
    event(f"exit code {res.exit_code}")
    if res.exit_code == 2:
        _assert_one_line_error(res, "--vary", "rules.win_low")
        assert not out.exists()
        return
    trials = [json.loads(line) for line in (out / "trials.jsonl").read_text().splitlines()]
    assert len(trials) == 4, text  # 400 games, 100 a trial
    for t in trials:
        for v in t["edits"].values():
            assert isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 200, (text, t)


# --- 2. balance bands no rate can reach -----------------------------------------------------------------------

@pytest.mark.parametrize("target, needles", [
    ("won=1.5±0.01", ["--target", "won is a rate", "0:1"]),
    ("won>=2", ["--target", "won is a rate"]),
    ("won<=-1", ["--target", "won is a rate"]),
    ("won>=1", ["--target", "won is a rate"]),
    ("won<=0", ["--target", "won is a rate"]),
    ("won=0.5±0", ["--target", "no width"]),
    ("won=0.4:0.4", ["--target", "no width"]),
    ("won[policy=timid]-won[policy=timid]>=0.1", ["--target", "compared with itself"]),
    ("won[policy]-won[policy]=0:0.1", ["--target", "compared with itself"]),
    ("won[policy=stop_at_8]-won>=1.5", ["--target", "difference of two rates", "-1:1"]),
])
def test_balance_unreachable_band(tmp_path, target, needles):
    out = tmp_path / "out"
    _assert_one_line_error(_balance(out, target=target), *needles)
    assert not out.exists()


bands = hs.one_of(
    hs.tuples(hs.just("±"), hs.floats(-5, 5), hs.floats(0, 3)),
    hs.tuples(hs.just(":"), hs.floats(-5, 5), hs.floats(-5, 5)),
    hs.tuples(hs.sampled_from([">=", "<="]), hs.floats(-5, 5), hs.just(0.0)),
)


def _reachable(op, a, b):
    low, high = {"±": (a - b, a + b), ":": (a, b), ">=": (a, math.inf), "<=": (-math.inf, a)}[op]
    return low < high and max(low, 0.0) < min(high, 1.0)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(band=bands)
def test_any_band_a_rate_cannot_reach_is_refused(tmp_path, band):
    """A band is refused (one line, exit 2, no run folder) exactly when no rate's interval can lie in it; a band a
    rate can reach passes the check."""
    from simkit.core.balance import check_reachable, parse_target
    from simkit.errors import InputError

    op, a, b = band
    a, b = round(a, 3), round(b, 3)
    text = {"±": f"won={a}±{b}", ":": f"won={a}:{b}", ">=": f"won>={a}", "<=": f"won<={a}"}[op]
    if op == ":" and b < a:
        return  # LOW above HIGH: refused by an older check
    if _reachable(op, a, b):
        check_reachable([parse_target(text)], {"won"})  # no error
        return
    with pytest.raises(InputError):
        check_reachable([parse_target(text)], {"won"})
    out = tmp_path / "out"
    shutil.rmtree(out, ignore_errors=True)
    _assert_one_line_error(_balance(out, target=text), "--target", text)
    assert not out.exists()


# --- 3. a learned policy's temperature, Valhalla multiplayer's player counts ----------------------------------

def _copy(tmp_path, game):
    d = tmp_path / game
    shutil.copytree(ROOT / "scenarios" / game, d)
    return d


@pytest.mark.parametrize("value", ["nan", "+nan", "-nan"])
def test_learned_temperature_nan(tmp_path, value):
    d = _copy(tmp_path, "valka")
    p = d / "lonequest.toml"
    table = '[policies.learned]\nkind = "learned"\n'
    assert table in p.read_text()
    p.write_text(p.read_text().replace(table, f'{table}temperature = {value}\n', 1))
    _assert_one_line_error(_run(["run", p, "-q", "--out", tmp_path / "o"]), "lonequest.toml",
                           "policies.learned.temperature", "0.0 to 100.0", "nan")
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("line, needles", [
    ("smart_rerolls = 3", ("policies.learned.smart_rerolls", "between 0 and 1", "3")),
    ("last_stand_reroll = nan", ("policies.learned.last_stand_reroll", "finite", "nan")),
    ("no_such_parameter = 1", ("policies.learned", "no_such_parameter")),
])
def test_learned_base_parameter_out_of_range(tmp_path, line, needles):
    """A `learned` table may set its base heuristic's parameters, each checked as in a heuristic's table."""
    d = _copy(tmp_path, "valhalla")
    p = d / "solo.toml"
    table = '[policies.learned]\nkind = "learned"\nweights = "solo.learned.npz"\n'
    assert table in p.read_text()
    p.write_text(p.read_text().replace(table, f'{table}{line}\n', 1))
    _assert_one_line_error(_run(["run", p, "-q", "--out", tmp_path / "o", "--set", 'play=["learned"]']),
                           "solo.toml", *needles)
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("players, variants", [("[2, 2]", None), ("[3, 4, 3]", None),
                                               (None, '["base", "base"]')])
def test_valhalla_multi_duplicates(tmp_path, players, variants):
    d = _copy(tmp_path, "valhalla")
    p = d / "multi.toml"
    text = p.read_text()
    if players:
        text = text.replace("players = [2, 3, 4, 5, 6]", f"players = {players}")
    if variants:
        text = text.replace('variants = ["base", "valkyries"]', f"variants = {variants}")
    p.write_text(text)
    field = "players" if players else "variants"
    _assert_one_line_error(_run(["run", p, "-q", "--out", tmp_path / "o"]), "multi.toml", f"'{field}'",
                           "distinct", "allowed values")
    assert not (tmp_path / "o").exists()


# --- 4. train checks every argument before the first game and before anything is written ---------------------

def _train(tmp_path, *args, out=True):
    shutil.copy(DRAW, tmp_path / "draw.toml")
    base = ["train", tmp_path / "draw.toml", "--name", "learned", "--budget", 40, "--iterations", 1,
            "--eval-games", 10, "--teacher-games", 0, "-q"]
    return _run(base + (["--out", tmp_path / "out"] if out else []) + list(args))


@pytest.mark.parametrize("args, needles", [
    (["--base", "nosuch"], ["--base", "'nosuch'", "allowed values", "timid"]),
    (["--budget", 2, "--iterations", 3], ["--budget", "iterations"]),
    (["--weights", "{tmp}/nodir/w.npz"], ["--weights", "does not exist"]),
    (["--weights", "/proc/x.npz"], ["--weights /proc/x.npz", "not writable"]),
    (["--metric", "nosuch"], ["--metric", "'nosuch'", "allowed values", "won"]),
    (["--metric", "policy"], ["--metric", "'policy'", "allowed values"]),
    (["--teacher-policy", "nosuch"], ["--teacher-policy", "'nosuch'", "allowed values", "search"]),
    (["--teacher-policy", "timid"], ["--teacher-policy", "'timid'", "heuristic", "search policy"]),
    (["--teacher-policy", "search", "--method", "outcomes"], ["--teacher-policy", "--method expert"]),
])
def test_train_bad_argument_writes_nothing(tmp_path, args, needles):
    args = [str(a).replace("{tmp}", str(tmp_path)) for a in args]
    _assert_one_line_error(_train(tmp_path, *args), *needles)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["draw.toml"]


@pytest.mark.parametrize("out, needles", [("/proc/x", ["--out /proc/x", "not writable"]),
                                          ("{tmp}/a/b", ["--out", "does not exist"])])
def test_train_bad_out_is_named(tmp_path, out, needles):
    _assert_one_line_error(_train(tmp_path, "--out", out.replace("{tmp}", str(tmp_path)), out=False), *needles)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["draw.toml"]


# --- 5. a weights file that is truncated, empty, corrupted, or of another game or mode -----------------------

REAL_WEIGHTS = (ROOT / "scenarios" / "valka" / "lonequest.learned.npz").read_bytes()


def _weights_error(tmp_path, data: bytes):
    d = tmp_path / "valka"
    if not d.exists():
        shutil.copytree(ROOT / "scenarios" / "valka", d)
    (d / "lonequest.learned.npz").write_bytes(data)
    return _run(["run", d / "lonequest.toml", "-q", "--out", tmp_path / "o"])


@pytest.mark.parametrize("data, needles", [
    (b"", ["the file is empty"]),
    (REAL_WEIGHTS[:3000], ["truncated or corrupted"]),
    (REAL_WEIGHTS[:-100], ["truncated or corrupted"]),
    (b"hello, not a zip" * 40, ["not a .npz archive"]),
    ((ROOT / "scenarios" / "valka" / "bounty_hunter.learned.npz").read_bytes(),
     ["trained for valka/bounty-hunter, not valka/lonequest"]),
    ((ROOT / "scenarios" / "valkyrie_incident" / "blitz.learned.npz").read_bytes(),
     ["trained for valkyrie-incident/blitz, not valka/lonequest"]),
])
def test_bad_weights_file_is_one_line_naming_it(tmp_path, data, needles):
    line = _assert_one_line_error(_weights_error(tmp_path, data), "policies.learned.weights",
                                  "lonequest.learned.npz", *needles)
    assert "KeyError" not in line and "scenario is not valid" not in line
    assert not (tmp_path / "o").exists()


def _check_load(path):
    from simkit.core.learned import load_model
    from simkit.errors import InputError

    load_model.cache_clear()
    try:
        load_model(path)
    except InputError as exc:
        msg = str(exc)
        assert str(path) in msg and "\n" not in msg, msg
        return msg
    return None


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cut=hs.integers(0, len(REAL_WEIGHTS) - 1))
def test_any_truncation_of_a_weights_file_is_a_clean_error(tmp_path, cut):
    p = tmp_path / "w.npz"
    p.write_bytes(REAL_WEIGHTS[:cut])
    assert _check_load(p) is not None


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=hs.binary(max_size=400), keep_head=hs.booleans())
def test_random_bytes_as_weights_are_a_clean_error(tmp_path, data, keep_head):
    p = tmp_path / "w.npz"
    p.write_bytes((REAL_WEIGHTS[:64] if keep_head else b"") + data)
    assert _check_load(p) is not None


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(at=hs.integers(0, len(REAL_WEIGHTS) - 1), byte=hs.integers(0, 255))
def test_a_corrupted_byte_is_a_clean_error_or_loads(tmp_path, at, byte):
    """One byte changed: the file is refused in one line naming it, or (a byte the archive does not check) loads."""
    p = tmp_path / "w.npz"
    p.write_bytes(REAL_WEIGHTS[:at] + bytes([byte]) + REAL_WEIGHTS[at + 1:])
    _check_load(p)


def test_bundled_weights_still_load():
    assert _check_load(ROOT / "scenarios" / "valka" / "lonequest.learned.npz") is None


# --- 6. a long description is not a file name --------------------------------------------------------------

@pytest.mark.parametrize("length", [300, 5000])
def test_long_description_with_a_learned_policy_loads(tmp_path, length):
    import re

    from simkit.core import loader

    d = _copy(tmp_path, "valka")
    p = d / "lonequest.toml"
    text = re.sub(r'^description = .*$', 'description = "' + "x" * length + '.toml"', p.read_text(), count=1,
                  flags=re.M)
    p.write_text(text)
    sc = loader.load(p)  # was: "File name too long"
    assert sc.warnings == []  # the learned policy's data hash is unchanged: the description is no card file


# --- 7. compare names the folder it was given ----------------------------------------------------------------

@pytest.mark.parametrize("option", [["--games", "10"], ["--seed", "3"], ["--set", "rules.win_low=7"]])
def test_compare_a_folder_with_scenario_options_names_the_folder(tmp_path, option):
    folder = tmp_path / "some_folder"
    folder.mkdir()
    _assert_one_line_error(_run(["compare", folder, DRAW, *option]), str(folder), "is a folder", option[0])
