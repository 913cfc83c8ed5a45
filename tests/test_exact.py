"""Exact distributions against hand-derived fractions."""

from fractions import Fraction as F

from simkit.core.exact import Dist, absorbing_expected_steps, binomial, die, faces, fraction_str, product


def test_die_and_sum():
    two = die(6) + die(6)
    assert two[7] == F(6, 36)
    assert two[2] == F(1, 36)
    assert sum(p for _, p in two.items()) == 1
    assert two.mean() == 7


def test_faces_weights_repeats():
    d = faces(["axe", "axe", "sword", "bow", "bow", "bow"])
    assert d["axe"] == F(1, 3) and d["bow"] == F(1, 2)


def test_binomial():
    b = binomial(4, F(1, 2))
    assert [b[k] for k in range(5)] == [F(1, 16), F(4, 16), F(6, 16), F(4, 16), F(1, 16)]


def test_product_is_joint():
    p = product(die(2), die(3))
    assert p[(2, 3)] == F(1, 6)
    assert len(p) == 6


def test_absorbing_chain_geometric():
    # one state that ends with probability 1/6 per step: expected 6 steps
    t = absorbing_expected_steps(["s"], lambda s: {"s": F(5, 6), "end": F(1, 6)}, lambda s: s == "end")
    assert t["s"] == 6


def test_absorbing_chain_two_steps():
    # a -> b surely, b -> end with 1/2, b -> b with 1/2: from a, 1 + 2 = 3
    step = {"a": {"b": F(1)}, "b": {"b": F(1, 2), "end": F(1, 2)}}
    t = absorbing_expected_steps(["a", "b"], lambda s: step[s], lambda s: s == "end")
    assert t == {"a": 3, "b": 2}


def test_fraction_str():
    assert fraction_str(F(27, 50)) == "27/50"
    assert fraction_str(F(3)) == "3"
    assert Dist({1: 1, 2: 3})[2] == F(3, 4)
