"""``simkit odds dice``: an expression is sized before icepool computes anything (issue 38). Every expression
either computes, exactly as the plain icepool operations give it, or is refused at once with one line naming
EXPR, the estimate, the limit and the option that raises it; the refusal never reaches icepool."""

from __future__ import annotations

import operator

import icepool
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as hs

import simkit.core.dice as dice
import simkit.core.dice_cli as dice_cli
from simkit.cli import cli
from simkit.core.dice import MAX_NESTING, MAX_OUTCOMES, MAX_WORK, estimate, parse, probabilities
from simkit.errors import InputError


class _NoIcepool:
    """Stands in for the exact operations: a refused expression must never get this far."""

    def __getattr__(self, name):
        raise AssertionError(f"icepool was asked to compute ({name}) an expression that should be refused")


@pytest.fixture
def no_icepool(monkeypatch):
    monkeypatch.setattr(dice, "_Exact", _NoIcepool)


def one_line_refusal(res, *needles):
    assert res.exception is None or isinstance(res.exception, SystemExit), repr(res.exception)
    assert res.exit_code == 2, (res.exit_code, res.output)
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("simkit: error: EXPR "), res.stderr
    assert "Traceback" not in res.output and res.stdout == ""
    for n in needles:
        assert n in lines[0], (n, lines[0])
    return lines[0]


# --- the tester's cases, by hand ---------------------------------------------------------------------------------

NESTED = "(" * 300 + "d6" + ")" * 300
TESTER = [
    ("20d100*20d100", "--max-outcomes"),  # a product of pools: 3.9 million outcomes
    ("(20d100)*(20d100)*(20d100)", "--max-outcomes"),
    ("+".join(["20d100"] * 40), "--max-work"),  # a long sum of pools
    ("20d100!!!!!!!!", "--max-outcomes"),  # stacked explosions
    ("20d100!", "--max-work"),
    ("20d100 >= 20d100", "--max-work"),
    ("20d100kh19", "--max-work"),
    ("d100!!!r99", "--max-work"),
]


@pytest.mark.parametrize("expr,option", TESTER)
def test_tester_cases_are_refused_before_icepool(expr, option, no_icepool):
    line = one_line_refusal(CliRunner().invoke(cli, ["odds", "dice", "--", expr]), "too large to compute exactly",
                            option, "upper bound")
    limit = MAX_OUTCOMES if option == "--max-outcomes" else MAX_WORK
    assert f"over the limit of {limit:,}" in line
    with pytest.raises(InputError, match=option):
        estimate(expr)


@pytest.mark.parametrize("expr", [NESTED, "-" * 300 + "3", "(" * 300, "(-" * 300 + "1" + ")" * 300])
def test_deep_nesting_is_one_line_not_a_recursion_error(expr, no_icepool):
    one_line_refusal(CliRunner().invoke(cli, ["odds", "dice", "--", expr]), f"at most {MAX_NESTING} levels")


def test_nesting_at_the_cap_still_computes():
    text = "(" * MAX_NESTING + "d6" + ")" * MAX_NESTING
    assert probabilities(parse(text)) == probabilities(icepool.d(6))
    assert probabilities(parse("-" * MAX_NESTING + "3")) == {3: 1}
    with pytest.raises(InputError, match="nested"):
        parse("(" * (MAX_NESTING + 1) + "d6" + ")" * (MAX_NESTING + 1))


def test_the_limits_are_options_and_the_refused_cases_compute_when_raised():
    assert (dice_cli.MAX_WORK, dice_cli.MAX_OUTCOMES) == (MAX_WORK, MAX_OUTCOMES)  # --help's copy of the defaults
    help_text = CliRunner().invoke(cli, ["odds", "dice", "--help"]).output
    assert "--max-work" in help_text and "--max-outcomes" in help_text
    res = CliRunner().invoke(cli, ["odds", "dice", "2d6", "--max-work", "100"])
    one_line_refusal(res, "--max-work", "over the limit of 100")
    res = CliRunner().invoke(cli, ["odds", "dice", "d6*d6", "--max-outcomes", "20"])
    one_line_refusal(res, "--max-outcomes", "up to 36 outcomes", "over the limit of 20")
    res = CliRunner().invoke(cli, ["odds", "dice", "d6*d6", "--max-outcomes", "36", "--format", "json"])
    assert res.exit_code == 0, res.output
    # the estimates of the classic expressions, and every single NdX term of plain dice, fit the defaults
    for text in ("4d6kh3", "2d20kl1", "d12+3 vs d12+5", "2d6 >= 8", "20d100", "20d100r99", "5d100+5d100", "3d100!",
                 "d100*d100"):
        work, outcomes, _ = estimate(text)
        assert work <= MAX_WORK and outcomes <= MAX_OUTCOMES, text


def test_nothing_written_on_refusal(tmp_path, no_icepool):
    out, plot = tmp_path / "o.json", tmp_path / "p.png"
    one_line_refusal(CliRunner().invoke(cli, ["odds", "dice", "20d100*20d100", "--out", str(out), "--plot",
                                              str(plot)]))
    assert list(tmp_path.iterdir()) == []


# --- hypothesis: random trees of dice, sums, products, explosions, parentheses ----------------------------------

CMP = {">=": operator.ge, "<=": operator.le, "==": operator.eq, "!=": operator.ne, ">": operator.gt,
       "<": operator.lt}


@hs.composite
def dice_term(draw):
    n = draw(hs.sampled_from([1, 1, 2, 3, 4, 6, 10, 20]))
    x = draw(hs.sampled_from([2, 3, 4, 6, 8, 10, 12, 20, 100]))
    mods = draw(hs.lists(hs.sampled_from(["!", "r"]), max_size=3))
    text, ops = f"{'' if n == 1 and draw(hs.booleans()) else n}d{x}", []
    for m in mods:
        if m == "!":
            text, ops = text + "!", ops + [("!",)]
        else:
            r = draw(hs.integers(1, x - 1))
            text, ops = text + f"r{r}", ops + [("r", r)]
    keep = None
    if n > 1 and draw(hs.booleans()):
        keep = (draw(hs.sampled_from(["kh", "kl"])), draw(hs.integers(1, n)))
        text += f"{keep[0]}{keep[1]}"
    return text, ("dice", n, x, tuple(ops), keep)


def leaf():
    return hs.one_of(hs.integers(0, 30).map(lambda v: (str(v), ("num", v))), dice_term())


def extend(children):
    binary = hs.tuples(hs.sampled_from(["+", "-", "*", *CMP]), children, children).map(
        lambda t: (f"({t[1][0]} {t[0]} {t[2][0]})", (t[0], t[1][1], t[2][1])))
    neg = children.map(lambda c: (f"-({c[0]})", ("neg", c[1])))
    return hs.one_of(binary, neg)


def expressions():
    side = hs.recursive(leaf(), extend, max_leaves=6)
    vs = hs.tuples(side, side).map(lambda t: (f"{t[0][0]} vs {t[1][0]}", ("vs", t[0][1], t[1][1])))
    return hs.one_of(side, vs)


def reference(tree):
    """The tree computed by plain icepool operations, as simkit computed every expression before the limits."""
    kind = tree[0]
    if kind == "num":
        return icepool.Die([tree[1]])
    if kind == "dice":
        _, n, x, mods, keep = tree
        die = icepool.d(x)
        for m in mods:
            die = die.explode(depth=3) if m[0] == "!" else die.reroll(lambda v, r=m[1]: v <= r, depth=1)
        if keep is None:
            return n @ die
        pool = die.pool(n)
        return (pool.lowest(keep[1]) if keep[0] == "kl" else pool.highest(keep[1])).sum()
    if kind == "neg":
        return -reference(tree[1])
    a, b = reference(tree[1]), reference(tree[2])
    if kind == "+":
        return a + b
    if kind == "-":
        return a - b
    if kind == "*":
        return a * b
    if kind == "vs":
        return icepool.map(lambda p, q: (p > q) - (p < q), a, b)
    fn = CMP[kind]
    return icepool.map(lambda p, q: int(fn(p, q)), a, b)


SMALL_WORK, SMALL_OUTCOMES = 300_000, 3_000  # limits that keep each computed example well under a second


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(expressions())
def test_random_expressions_compute_exactly_or_are_refused_by_the_estimate(expr):
    text, tree = expr
    try:
        work, outcomes, size = estimate(text, max_work=SMALL_WORK, max_outcomes=SMALL_OUTCOMES)
    except InputError as exc:
        msg = str(exc)
        assert "\n" not in msg and msg.startswith("EXPR ") and "too large to compute exactly" in msg, msg
        assert ("--max-work" in msg) != ("--max-outcomes" in msg), msg
        with pytest.raises(InputError):
            parse(text, max_work=SMALL_WORK, max_outcomes=SMALL_OUTCOMES)
        event("refused")
        return
    event("computed")
    assert work <= SMALL_WORK and outcomes <= SMALL_OUTCOMES
    die = parse(text, max_work=SMALL_WORK, max_outcomes=SMALL_OUTCOMES)
    assert probabilities(die) == probabilities(reference(tree)), text
    # the estimate is an upper bound: the outcomes lie in its range and there are no more than it said
    assert len(die) <= size.n <= outcomes
    assert size.lo <= die.min_outcome() and die.max_outcome() <= size.hi


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hs.recursive(leaf(), extend, max_leaves=40))
def test_large_random_expressions_are_sized_without_icepool(expr):
    """Trees far past the defaults: sizing alone decides, and a refusal never reaches icepool."""
    text, _ = expr
    saved = dice._Exact
    dice._Exact = _NoIcepool
    try:
        try:
            work, outcomes, _ = estimate(text)
        except InputError as exc:
            assert "\n" not in str(exc) and ("--max-work" in str(exc) or "--max-outcomes" in str(exc))
            res = CliRunner().invoke(cli, ["odds", "dice", "--", text])
            one_line_refusal(res, "too large to compute exactly")
            return
        assert work <= MAX_WORK and outcomes <= MAX_OUTCOMES
    finally:
        dice._Exact = saved


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(expressions())
def test_random_expressions_through_the_command(expr):
    text, tree = expr
    res = CliRunner().invoke(cli, ["odds", "dice", "--format", "json", "--max-work", str(SMALL_WORK),
                                   "--max-outcomes", str(SMALL_OUTCOMES), "--", text])
    try:
        estimate(text, max_work=SMALL_WORK, max_outcomes=SMALL_OUTCOMES)
    except InputError:
        one_line_refusal(res, "too large to compute exactly")
        return
    assert res.exit_code == 0, (text, res.output, res.exception)
