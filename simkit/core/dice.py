"""Exact dice odds on icepool (``HighDiceRoller/icepool``): the helpers every ``simkit odds`` command shares, and
the small dice-expression language of ``simkit odds dice``.

icepool's dice are immutable distributions with integer quantities; :func:`probabilities` turns one into the
``{outcome: Fraction}`` the odds tables print. The expression language (see :func:`parse`) is a designer's
what-if without Python::

    3d6 + 2          sums and differences of dice and numbers
    4d6kh3  2d20kl1  keep the highest / lowest k of a pool
    2d6r1            reroll, once, every die showing 1 or less (r2: 2 or less)
    d6!              exploding die (a 6 rolls again and adds, at most 3 times)
    2d6 >= 8         comparisons: 1 (true) or 0 (false)
    d10+3 vs d10+5   opposed rolls: 1 when the left side is higher, 0 on a tie, -1 when the right side is
"""

from __future__ import annotations

import re
from fractions import Fraction

import icepool

from simkit.core.tables import fraction_str  # noqa: F401  (the odds tables' exact numbers; no icepool needed)
from simkit.errors import InputError

MAX_DICE, MAX_SIDES = 20, 100  # dice in one term, sides of one die: larger expressions are refused
EXPLODE_DEPTH = 3  # an exploding die rolls again at most this many times


def probabilities(die: icepool.Die) -> dict:
    """``{outcome: Fraction}`` of an icepool die, in outcome order (zero-quantity outcomes left out)."""
    den = die.denominator()
    return {o: Fraction(q, den) for o, q in die.items() if q}


# --- the expression language -----------------------------------------------------------------------------

_TOKEN = re.compile(r"\s*(?:(?P<dice>(?P<n>\d*)d(?P<x>\d+|%)(?P<mods>(?:kh\d+|kl\d+|k\d+|r\d+|!)*))"
                    r"|(?P<num>\d+)|(?P<op>>=|<=|==|!=|>|<|\+|-|\*|\(|\)|vs\b))")
COMPARISONS = (">=", "<=", "==", "!=", ">", "<")


class _Parser:
    """Recursive descent over ``expr := side ['vs' side]; side := sum [cmp sum]; sum := term (('+'|'-') term)*;
    term := unary ('*' unary)*; unary := '-' unary | atom; atom := NUMBER | DICE | '(' side ')'``."""

    def __init__(self, text: str, option: str):
        self.text, self.option, self.tokens = text, option, []
        pos = 0
        while pos < len(text):
            if text[pos:].strip() == "":
                break
            m = _TOKEN.match(text, pos)
            if not m or m.end() == pos:
                self.fail(f"cannot read {text[pos:].strip()[:12]!r} at character {pos + 1}")
            self.tokens.append(m)
            pos = m.end()
        self.i = 0

    def fail(self, why: str):
        raise InputError(f"{self.option} {self.text!r}: {why}; allowed: NdX, numbers, + - *, ( ), "
                         "kh/kl (keep highest/lowest), rN (reroll N or less once), ! (explode), "
                         ">= <= == != > <, vs")

    def peek(self):
        if self.i < len(self.tokens):
            t = self.tokens[self.i]
            return t.group("op") or ("dice" if t.group("dice") else "num")
        return None

    def take(self):
        t = self.tokens[self.i]
        self.i += 1
        return t

    def parse(self) -> icepool.Die:
        if not self.tokens:
            self.fail("is empty")
        left = self.side()
        if self.peek() == "vs":
            self.take()
            right = self.side()
            left = icepool.map(lambda a, b: (a > b) - (a < b), left, right)
        if self.peek() is not None:
            self.fail(f"unexpected {self.tokens[self.i].group().strip()!r}")
        return left

    def side(self):
        left = self.sum()
        op = self.peek()
        if op in COMPARISONS:
            self.take()
            right = self.sum()
            fn = {">=": lambda a, b: a >= b, "<=": lambda a, b: a <= b, "==": lambda a, b: a == b,
                  "!=": lambda a, b: a != b, ">": lambda a, b: a > b, "<": lambda a, b: a < b}[op]
            left = icepool.map(lambda a, b: int(fn(a, b)), left, right)
        return left

    def sum(self):
        left = self.term()
        while self.peek() in ("+", "-"):
            op = self.take().group("op")
            right = self.term()
            left = left + right if op == "+" else left - right
        return left

    def term(self):
        left = self.unary()
        while self.peek() == "*":
            self.take()
            left = left * self.unary()
        return left

    def unary(self):
        if self.peek() == "-":
            self.take()
            return -self.unary()
        return self.atom()

    def atom(self):
        kind = self.peek()
        if kind is None:
            self.fail("ends too early")
        t = self.take()
        if kind == "num":
            return icepool.Die([int(t.group("num"))])
        if kind == "dice":
            return self.dice(t)
        if kind == "(":
            inner = self.side()
            if self.peek() != ")":
                self.fail("a '(' is not closed")
            self.take()
            return inner
        self.fail(f"unexpected {t.group().strip()!r}")

    def dice(self, t):
        n = int(t.group("n")) if t.group("n") else 1
        x = 100 if t.group("x") == "%" else int(t.group("x"))
        if not 1 <= n <= MAX_DICE or not 2 <= x <= MAX_SIDES:
            self.fail(f"{t.group('dice')!r}: 1..{MAX_DICE} dice of 2..{MAX_SIDES} sides")
        die = icepool.d(x)
        keep = None
        for mod in re.findall(r"kh\d+|kl\d+|k\d+|r\d+|!", t.group("mods")):
            if mod == "!":
                die = die.explode(depth=EXPLODE_DEPTH)
            elif mod.startswith("r"):
                r = int(mod[1:])
                if r >= x:
                    self.fail(f"r{r} on a d{x} would reroll every face")
                die = die.reroll(lambda v, r=r: v <= r, depth=1)
            else:
                k = int(mod.lstrip("khl"))
                if not 1 <= k <= n:
                    self.fail(f"keeps {k} of {n} dice (allowed 1..{n})")
                keep = ("l" if mod.startswith("kl") else "h", k)
        if keep is None:
            return n @ die
        pool = die.pool(n)
        return (pool.lowest(keep[1]) if keep[0] == "l" else pool.highest(keep[1])).sum()


def parse(text: str, option: str = "EXPR") -> icepool.Die:
    """The distribution of a dice expression (see the module docstring); bad input is an InputError naming
    ``option``."""
    return _Parser(text, option).parse()


def quantile(die: icepool.Die, q: Fraction):
    """The smallest outcome x with P(X <= x) >= q."""
    below = Fraction(0)
    for o, p in probabilities(die).items():
        below += p
        if below >= q:
            return o
    return die.max_outcome()


def summary(die: icepool.Die, percents=(5, 25, 50, 75, 95)) -> dict:
    """Mean (exact), standard deviation and the percentiles (smallest x with P(X <= x) >= q%)."""
    return {"mean": Fraction(die.mean()), "sd": float(die.standard_deviation()),
            "quantiles": {q: quantile(die, Fraction(q, 100)) for q in percents}}


def table_rows(die: icepool.Die) -> list[dict]:
    """One row per outcome: P(X = x), P(X >= x), P(X <= x) as ``num/den`` with float twins."""
    probs = probabilities(die)
    rows, below = [], Fraction(0)
    for o, p in probs.items():
        row = {"outcome": o}
        for name, v in (("probability", p), ("at_least", 1 - below), ("at_most", below + p)):
            row[name] = fraction_str(v)
            row[f"{name}_p"] = float(v)
        below += p
        rows.append(row)
    return rows
