"""Bad input to balance, train, learned weights and scenario files (issue 38 part B): one line on stderr, exit code
2, nothing written, never a traceback."""

import math
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

from simkit.cli import cli

ROOT = Path(__file__).resolve().parents[1]
DRAW = ROOT / "scenarios" / "toy" / "draw.toml"


def _run(args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def _assert_one_line_error(res, *needles):
    assert res.exit_code == 2, (res.exit_code, res.output, res.exception)
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, res.stderr
    assert lines[0].startswith("simkit: error:")
    assert "Traceback" not in res.output
    for n in needles:
        assert n in lines[0], (n, lines[0])
    return lines[0]


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
])
def test_balance_vary_range_past_what_the_game_allows(tmp_path, vary, needles):
    out = tmp_path / "out"
    _assert_one_line_error(_balance(out, vary), *needles)
    assert not out.exists()


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
