"""simkit.core.dice: icepool helpers and the ``odds dice`` expression language, against hand-derived fractions."""

import json
from fractions import Fraction as F

import pytest
from click.testing import CliRunner

from simkit.cli import cli
from simkit.core.dice import parse, probabilities, quantile, summary, table_rows
from simkit.core.tables import fraction_str
from simkit.errors import InputError


def test_fraction_str():
    assert fraction_str(F(27, 50)) == "27/50"
    assert fraction_str(F(3)) == "3"
    assert fraction_str(F(-1, 2)) == "-1/2"
    assert fraction_str(F(6, 4)) == "3/2"


def test_sum_and_target():
    two = probabilities(parse("2d6"))
    assert two[7] == F(6, 36) and two[2] == F(1, 36) and sum(two.values()) == 1
    # 2d6 >= 8: 5+4+3+2+1 = 15 of 36
    assert probabilities(parse("2d6 >= 8")) == {0: F(21, 36), 1: F(15, 36)}
    assert probabilities(parse("d6 + 2 - 1"))[7] == F(1, 6)
    assert probabilities(parse("2*d4"))[8] == F(1, 4)


def test_keep_highest_and_lowest():
    # 2d6kh1 = the higher die: P(max = 6) = 11/36; 2d6kl1 = the lower: P(min = 6) = 1/36
    assert probabilities(parse("2d6kh1"))[6] == F(11, 36)
    assert probabilities(parse("2d6kl1"))[6] == F(1, 36)
    assert parse("4d6kh3").mean() == F(15869, 1296)  # the classic ability-score mean


def test_reroll_and_explode():
    # d6r1: a 1 is rerolled once: P(1) = 1/36, every other face 1/6 + 1/36 = 7/36
    d = probabilities(parse("d6r1"))
    assert d[1] == F(1, 36) and d[4] == F(7, 36)
    # d4!: 4 rolls again and adds: P(5) = 1/16, P(4) = 0 (a 4 always goes on); depth 3 caps at 4+4+4+4 = 16
    e = probabilities(parse("d4!"))
    assert 4 not in e and e[5] == F(1, 16) and e[16] == F(1, 256)


def test_opposed_roll():
    # d6 vs d6: ties 6/36, each side higher 15/36
    assert probabilities(parse("d6 vs d6")) == {-1: F(15, 36), 0: F(6, 36), 1: F(15, 36)}
    # a Chance-Strike-like opposed total, d12 + 3 against d12 + 5: left higher when a >= d + 3 (45 of 144)
    assert probabilities(parse("d12+3 vs d12+5"))[1] == F(45, 144)


def test_quantiles_and_cumulative():
    d = parse("2d6")
    assert quantile(d, F(1, 2)) == 7 and quantile(d, F(1, 36)) == 2 and quantile(d, 1) == 12
    assert summary(d)["mean"] == 7
    rows = {r["outcome"]: r for r in table_rows(d)}
    assert rows[8]["at_least"] == "5/12" and rows[7]["at_most"] == "7/12" and rows[12]["at_least"] == "1/36"


@pytest.mark.parametrize("bad", ["", "2d", "3x", "2d6 +", "4d6kh5", "(2d6", "d6r6", "2d6 vs", "21d6", "d1", "2d6)"])
def test_bad_expressions_are_one_line_errors(bad):
    with pytest.raises(InputError, match="EXPR") as exc:
        parse(bad)
    assert "\n" not in str(exc.value)


def test_odds_dice_command():
    res = CliRunner().invoke(cli, ["odds", "dice", "2d6 >= 8", "--format", "json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["mean"] == "5/12" and data["distribution"][1]["probability"] == "5/12"
    res = CliRunner().invoke(cli, ["odds", "dice", "4d6kh9"])
    assert res.exit_code == 2 and "EXPR" in res.output and res.output.count("\n") == 1
    res = CliRunner().invoke(cli, ["odds", "dice", "d10 vs d10", "--format", "md"])
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in res.stdout.splitlines()
            if line.startswith("|")]
    assert ["0", "1/10 ≈ 0.1000"] == rows[[r[0] for r in rows].index("0")][:2]
