"""Valeria: Card Kingdoms 2E roll odds, checked against hand counts over the 36 rolls."""

from fractions import Fraction as F

import numpy as np
import pytest
from scipy.stats import chisquare

from simkit.errors import InputError
from simkit.games.valeria.odds import (
    activates,
    citizen_activation,
    citizen_array,
    count_rolls,
    herald_distribution,
    herald_expected,
    monster_event,
    parse_citizens,
    roll_distribution,
)


def test_parse_citizens():
    assert parse_citizens("1,2,6") == [(1,), (2,), (6,)]
    assert parse_citizens(" 1, 6,6 , 9/10") == [(1,), (6,), (6,), (9, 10)]
    assert parse_citizens("") == []


@pytest.mark.parametrize("text", ["0", "13", "1,,2", "a", "9/10/11", "9/", "-1", "1.5", "²"])
def test_parse_citizens_rejects(text):
    with pytest.raises(InputError, match="--citizens") as exc:
        parse_citizens(text)
    assert "\n" not in str(exc.value) and "1..12" in str(exc.value)


def test_roll_distribution_and_activates():
    rolls = roll_distribution()
    assert len(rolls) == 36 and all(rolls.probability(r) == F(1, 36) for r in rolls.outcomes())
    assert activates(3, 1, 2) and activates(1, 1, 2) and activates(2, 1, 2)
    assert not activates(4, 1, 2)
    assert activates(2, 1, 1) and not activates(12, 6, 5)


def test_citizen_activation():
    got = dict(citizen_activation(parse_citizens("6,1,12,7,9/10,4")))
    # 6: 11 rolls show a 6 + 5 sums of 6 without one (1+5,2+4,3+3,4+2,5+1) = 16
    assert got["6"] == F(16, 36) == F(4, 9)
    # 1: only on a die, 11 rolls show a 1
    assert got["1"] == F(11, 36)
    # 12: only 6+6
    assert got["12"] == F(1, 36)
    # 7: only as a sum, 1+6 .. 6+1
    assert got["7"] == F(6, 36)
    # 9 as a sum: 3+6,4+5,5+4,6+3 (4); 10: 4+6,5+5,6+4 (3); disjoint -> 7
    assert got["9/10"] == F(7, 36)
    # 4: 11 rolls show a 4 + sums of 4 without one: 1+3,2+2,3+1 = 14
    assert got["4"] == F(14, 36)
    assert [lbl for lbl, _ in citizen_activation([(6,), (6,)])] == ["6", "6"]


def test_herald_no_citizens():
    # nothing ever activates: Herald once on the 30 non-doubles, twice on the 6 doubles
    assert herald_distribution([]) == {0: 0, 1: F(30, 36), 2: F(6, 36)}
    assert herald_expected([]) == 1 + F(1, 6) == F(7, 6)


def test_herald_small_set():
    # Citizens 1 and 6: no activation needs both dice in {2,3,4,5} (16 rolls)
    # minus sums of 6 (2+4,3+3,4+2) -> 13 rolls. Doubles among them: 2+2,4+4,5+5 (3) -> 2 Heralds.
    # One Herald: 10 non-double misses + 3 doubles that activate (1+1,3+3,6+6) = 13.
    # None: 36 - 3 - 13 = 20.
    d = herald_distribution([(1,), (6,)])
    assert (d[0], d[1], d[2]) == (F(20, 36), F(13, 36), F(3, 36))
    assert herald_expected([(1,), (6,)]) == F(13 + 2 * 3, 36) == F(19, 36)


def test_herald_all_rolls_covered():
    # Citizens 1..6 hit every roll: only doubles give a Herald (once)
    d = herald_distribution([(n,) for n in range(1, 7)])
    assert (d[0], d[1], d[2]) == (F(30, 36), F(6, 36), 0)


def test_monster_event():
    m = monster_event()
    assert sorted(m) == list(range(1, 13))
    assert m[1] == F(11, 36)  # on a die only
    assert m[2] == F(12, 36)  # 11 rolls show a 2, plus 1+1; 2+2 fires once, not twice
    assert m[6] == F(16, 36)  # as for the Citizen 6 above
    assert m[7] == F(6, 36)
    assert m[11] == F(2, 36)  # 5+6, 6+5
    assert m[12] == F(1, 36)


def test_monte_carlo_matches_exact():
    citizens = parse_citizens("1,6,6,9/10,12,4/7")
    key = np.random.SeedSequence(1, spawn_key=(0,)).generate_state(2, np.uint64)
    n = 400_000
    cit, her, mon = count_rolls(key, n, citizen_array(citizens))
    assert cit.sum() > 0 and her.sum() == n and mon[0] == 0

    def close(count, p):
        se = np.sqrt(float(p * (1 - p)) / n)
        assert abs(count / n - float(p)) <= 4.5 * se + 1e-12, (count / n, p)

    for count, (_, p) in zip(cit, citizen_activation(citizens)):
        close(count, p)
    exact_h = herald_distribution(citizens)
    for k in range(3):
        close(her[k], exact_h[k])
    for m, p in monster_event().items():
        close(mon[m], p)

    ks = [k for k in range(3) if exact_h[k] > 0]
    assert her[[k for k in range(3) if k not in ks]].sum() == 0
    assert chisquare(her[ks], [n * float(exact_h[k]) for k in ks]).pvalue > 0.001


def test_monte_carlo_no_citizens():
    key = np.random.SeedSequence(2, spawn_key=(0,)).generate_state(2, np.uint64)
    cit, her, _ = count_rolls(key, 1000, citizen_array([]))
    assert cit.shape == (0,) and her[0] == 0 and her.sum() == 1000


def test_bundled_report_opens_with_the_answer(tmp_path):
    """The page (and its index card) opens with how often the Herald activates per bundled Duchy and the
    Monster Event numbers that fire most and least often, exact, counted by hand over the 36 rolls: with Citizens
    1,2 no die shows 1 or 2 on 16 rolls (4/9) and doubles add 1/6, so 11/18; 6 fires on 16 rolls, 4/9 (11 with a
    die showing 6, and the sum 6 on 1+5, 5+1, 2+4, 4+2, 3+3); 12 only on double 6 (1/36)."""
    from simkit.games.valeria.odds_cli import bundled_reports

    text = bundled_reports(tmp_path, quick=True, jobs=1)[0].read_text()
    answer, details = text.split("\n\n")[1:3]
    # the Herald activates at all on the 16 rolls with no 1 or 2 and on the doubles 1-1 and 2-2: 18/36 = 1/2
    assert answer.startswith("**In one sentence.** The Herald activates on 1/2 of rolls with Citizens 1,2, ")
    assert "most often on 6 (4/9 ≈ 0.444 of rolls) and least often on 12 (1/36 ≈ 0.028)" in answer
    assert details.startswith("**The details.** Counting a double's second activation, the Herald activates 11/18 ≈ "
                              "0.611 with Citizens 1,2; 7/18 ≈ 0.389 with Citizens 1,2,6; 1/4 ≈ 0.250 with Citizens "
                              "1,2,5,6,9/10 times per roll on average.")
