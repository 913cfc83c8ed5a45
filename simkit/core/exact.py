"""Exact discrete distributions as small immutable objects with Fraction weights.

Modelled on icepool's style: a :class:`Dist` maps outcomes to exact
probabilities; dice are built with :func:`die`, combined with :meth:`Dist.map`
and :func:`product`, and absorbing Markov chains are solved exactly with
:func:`absorbing_expected_steps`.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Hashable, Iterable, Mapping
from fractions import Fraction


class Dist:
    """A finite probability distribution with exact ``Fraction`` weights."""

    __slots__ = ("_p",)

    def __init__(self, weights: Mapping[Hashable, int | Fraction]):
        total = sum(Fraction(w) for w in weights.values())
        if total <= 0:
            raise ValueError("a distribution needs positive total weight")
        p: dict = {}
        for k, w in weights.items():
            w = Fraction(w)
            if w < 0:
                raise ValueError("weights must be non-negative")
            if w:
                p[k] = p.get(k, Fraction(0)) + w / total
        self._p = p

    def __getitem__(self, outcome) -> Fraction:
        return self._p.get(outcome, Fraction(0))

    def items(self):
        return self._p.items()

    def outcomes(self):
        return self._p.keys()

    def __len__(self) -> int:
        return len(self._p)

    def __repr__(self) -> str:
        inner = ", ".join(f"{k!r}: {v}" for k, v in self._p.items())
        return f"Dist({{{inner}}})"

    def __eq__(self, other) -> bool:
        return isinstance(other, Dist) and self._p == other._p

    def __hash__(self):
        return hash(frozenset(self._p.items()))

    def map(self, fn: Callable) -> "Dist":
        """The distribution of ``fn(outcome)``."""
        out: dict = {}
        for k, v in self._p.items():
            key = fn(k)
            out[key] = out.get(key, Fraction(0)) + v
        return Dist(out)

    def probability(self, predicate: Callable) -> Fraction:
        """P(predicate(outcome))."""
        return sum((v for k, v in self._p.items() if predicate(k)), Fraction(0))

    def mean(self) -> Fraction:
        return sum((Fraction(k) * v for k, v in self._p.items()), Fraction(0))

    def __add__(self, other: "Dist") -> "Dist":
        return product(self, other).map(lambda kv: kv[0] + kv[1])

    def repeat_sum(self, n: int) -> "Dist":
        """The sum of ``n`` independent copies."""
        result = Dist({0: 1})
        for _ in range(n):
            result = result + self
        return result


def die(sides: int) -> Dist:
    """A fair die with faces ``1..sides``."""
    return Dist({face: 1 for face in range(1, sides + 1)})


def faces(values: Iterable[Hashable]) -> Dist:
    """A fair die whose faces carry ``values`` (repeats count: two 'axe' faces weigh double)."""
    out: dict = {}
    for v in values:
        out[v] = out.get(v, 0) + 1
    return Dist(out)


def product(*dists: Dist) -> Dist:
    """The joint distribution of independent ``dists`` (outcomes are tuples)."""
    out: dict = {}
    for combo in itertools.product(*(d.items() for d in dists)):
        key = tuple(k for k, _ in combo)
        p = Fraction(1)
        for _, v in combo:
            p *= v
        out[key] = out.get(key, Fraction(0)) + p
    return Dist(out)


def binomial(n: int, p: Fraction) -> Dist:
    """Number of successes in ``n`` independent trials of probability ``p``."""
    from math import comb

    p = Fraction(p)
    return Dist({k: comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1) if comb(n, k) * p**k * (1 - p) ** (n - k)})


def solve_linear(a: list[list[Fraction]], b: list[Fraction]) -> list[Fraction]:
    """Solve ``a x = b`` exactly by Gauss–Jordan elimination over Fractions."""
    n = len(a)
    m = [list(map(Fraction, row)) + [Fraction(bi)] for row, bi in zip(a, b)]
    for col in range(n):
        pivot = next((r for r in range(col, n) if m[r][col] != 0), None)
        if pivot is None:
            raise ValueError("singular system")
        m[col], m[pivot] = m[pivot], m[col]
        pv = m[col][col]
        m[col] = [x / pv for x in m[col]]
        for r in range(n):
            if r != col and m[r][col] != 0:
                f = m[r][col]
                m[r] = [x - f * y for x, y in zip(m[r], m[col])]
    return [m[r][n] for r in range(n)]


def absorbing_expected_steps(transient: list, step: Callable[[Hashable], Mapping[Hashable, Fraction]], absorbing: Callable[[Hashable], bool]) -> dict:
    """Expected number of steps to absorption from each transient state.

    ``step(state)`` gives the next-state probabilities; ``absorbing(state)``
    says whether a state ends the chain. Solves ``(I − Q) t = 1`` exactly.
    """
    index = {s: i for i, s in enumerate(transient)}
    n = len(transient)
    a = [[Fraction(int(i == j)) for j in range(n)] for i in range(n)]
    for s, i in index.items():
        for nxt, p in step(s).items():
            if not absorbing(nxt):
                a[i][index[nxt]] -= p
    t = solve_linear(a, [Fraction(1)] * n)
    return {s: t[i] for s, i in index.items()}


def fraction_str(x: Fraction) -> str:
    """``num/den`` (``num`` alone when the denominator is 1)."""
    x = Fraction(x)
    return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"
