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

from simkit.errors import InputError

MAX_DICE, MAX_SIDES = 20, 100  # dice in one term, sides of one die: larger expressions are refused
EXPLODE_DEPTH = 3  # an exploding die rolls again at most this many times
MAX_NESTING = 40  # parentheses and unary minus signs nested in one another: deeper is refused
# An expression is sized before icepool computes anything (see :class:`_Bound`): an upper bound on the outcomes of
# every sub-expression and on the elementary steps of the whole computation. Over either limit it is refused, in
# one line naming the option that raises the limit (``simkit odds dice --max-work / --max-outcomes``). One step
# (a pair of outcomes added) takes about 0.2 microseconds on the shared 2-core machine, so the default work is a
# computation of 2 s at most, and the default outcomes a table of well under a second: 20d100, 5d100+5d100 and
# 3d100! fit; 20d100!, 20d100*20d100 and 20d100kh19 are refused.
MAX_WORK = 10_000_000
MAX_OUTCOMES = 20_000
OP_STEPS = 200  # the fixed cost of one icepool operation (a Python call, a new die), in steps
MAP_STEPS = 10  # steps per pair of outcomes of a comparison or 'vs' (a Python function per pair)


def probabilities(die: icepool.Die) -> dict:
    """``{outcome: Fraction}`` of an icepool die, in outcome order (zero-quantity outcomes left out)."""
    den = die.denominator()
    return {o: Fraction(q, den) for o, q in die.items() if q}


# --- the expression language -----------------------------------------------------------------------------

_TOKEN = re.compile(r"\s*(?:(?P<dice>(?P<n>\d*)d(?P<x>\d+|%)(?P<mods>(?:kh\d+|kl\d+|k\d+|r\d+|!)*))"
                    r"|(?P<num>\d+)|(?P<op>>=|<=|==|!=|>|<|\+|-|\*|\(|\)|vs\b))")
COMPARISONS = (">=", "<=", "==", "!=", ">", "<")
_CMP = {">=": lambda a, b: a >= b, "<=": lambda a, b: a <= b, "==": lambda a, b: a == b,
        "!=": lambda a, b: a != b, ">": lambda a, b: a > b, "<": lambda a, b: a < b}


class _Exact:
    """The operations of the language on icepool dice: the exact distribution."""

    def number(self, v):
        return icepool.Die([v])

    def add(self, a, b):
        return a + b

    def sub(self, a, b):
        return a - b

    def mul(self, a, b):
        return a * b

    def neg(self, a):
        return -a

    def compare(self, op, a, b):
        fn = _CMP[op]
        return icepool.map(lambda x, y: int(fn(x, y)), a, b)

    def versus(self, a, b):
        return icepool.map(lambda x, y: (x > y) - (x < y), a, b)

    def die(self, x):
        return icepool.d(x)

    def explode(self, die):
        return die.explode(depth=EXPLODE_DEPTH)

    def reroll(self, die, r):
        return die.reroll(lambda v, r=r: v <= r, depth=1)

    def roll(self, n, die):
        return n @ die

    def keep(self, n, die, low, k):
        pool = die.pool(n)
        return (pool.lowest(k) if low else pool.highest(k)).sum()


class Size:
    """An upper bound on a sub-expression's distribution: every outcome lies in ``lo..hi`` and there are at most
    ``n`` of them (never more than ``hi - lo + 1``: the outcomes are integers)."""

    __slots__ = ("lo", "hi", "n")

    def __init__(self, lo: int, hi: int, n: int):
        self.lo, self.hi, self.n = lo, hi, min(n, hi - lo + 1)

    def __repr__(self):
        return f"Size({self.lo}, {self.hi}, {self.n})"


class _Bound:
    """The same operations on :class:`Size` bounds, adding up the steps icepool will take: a sum, difference or
    product visits every pair of outcomes (``a.n * b.n``), a comparison or 'vs' calls a Python function per pair,
    NdX adds the die to a running total N - 1 times, an explosion copies the die once per level, a reroll mixes the
    die into each rerolled face, and a kept pool walks every face with every partial sum of the kept dice and every
    count of the dice left. Over ``max_outcomes`` (any sub-expression) or ``max_work`` (the total so far), the
    parser is stopped with an InputError before icepool has done anything."""

    def __init__(self, fail, max_work: int, max_outcomes: int):
        self.fail, self.max_work, self.max_outcomes = fail, max_work, max_outcomes
        self.work, self.outcomes = 0, 1

    def _charge(self, steps: int, size: Size) -> Size:
        self.work += OP_STEPS + steps
        self.outcomes = max(self.outcomes, size.n)
        if size.n > self.max_outcomes:
            self.fail(f"too large to compute exactly: a part of it may have up to {size.n:,} outcomes (an upper "
                      f"bound from the expression), over the limit of {self.max_outcomes:,}; raise the limit with "
                      "--max-outcomes", limits=True)
        if self.work > self.max_work:
            self.fail(f"too large to compute exactly: estimated at {self.work:,} steps for the part read so far "
                      f"(an upper bound from the expression), over the limit of {self.max_work:,}; raise the limit "
                      "with --max-work", limits=True)
        return size

    def number(self, v):
        return self._charge(0, Size(v, v, 1))

    def _pairs(self, a, b, lo, hi, weight=1):
        return self._charge(weight * a.n * b.n, Size(lo, hi, a.n * b.n))

    def add(self, a, b):
        return self._pairs(a, b, a.lo + b.lo, a.hi + b.hi)

    def sub(self, a, b):
        return self._pairs(a, b, a.lo - b.hi, a.hi - b.lo)

    def mul(self, a, b):
        corners = (a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi)
        return self._pairs(a, b, min(corners), max(corners))

    def neg(self, a):
        return self._charge(a.n, Size(-a.hi, -a.lo, a.n))

    def compare(self, op, a, b):
        return self._pairs(a, b, 0, 1, MAP_STEPS)

    def versus(self, a, b):
        return self._pairs(a, b, -1, 1, MAP_STEPS)

    def die(self, x):
        return self._charge(x, Size(1, x, x))

    def explode(self, d):
        # the top face rolls again: the other faces, each shifted by 0..depth times the top, and the top face
        # depth + 1 times over (the faces of a die are positive, so the top is the largest)
        levels = EXPLODE_DEPTH + 1
        size = Size(d.lo, d.hi * levels, (d.n - 1) * levels + 1)
        return self._charge(size.n * levels, size)

    def reroll(self, d, r):
        return self._charge(d.n * d.n, Size(d.lo, d.hi, d.n))

    def roll(self, n, d):
        steps, total = 0, d
        for i in range(2, n + 1):  # the running total of i - 1 dice meets one more die
            steps += total.n * d.n
            total = Size(d.lo * i, d.hi * i, total.n * d.n)
            self._charge(0, total)
        return self._charge(steps, total)

    def keep(self, n, d, low, k):
        # every face, times every partial sum of the kept dice, times every (dice left, dice on this face) split
        sums = k * (d.hi - d.lo) + 1
        return self._charge(d.n * sums * (n + 1) * (n + 2) // 2, Size(d.lo * k, d.hi * k, sums))


class _Parser:
    """Recursive descent over ``expr := side ['vs' side]; side := sum [cmp sum]; sum := term (('+'|'-') term)*;
    term := unary ('*' unary)*; unary := '-' unary | atom; atom := NUMBER | DICE | '(' side ')'``, on the
    operations of ``ops`` (:class:`_Exact` computes, :class:`_Bound` sizes)."""

    def __init__(self, text: str, option: str, ops=None):
        self.text, self.option, self.tokens = text, option, []
        self.ops = ops if ops is not None else _Exact()
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
        self.depth = 0

    def fail(self, why: str, limits: bool = False):
        shown = self.text if len(self.text) <= 60 else self.text[:57] + "..."
        if limits:  # the expression is valid: say what is too large and how to allow it
            raise InputError(f"{self.option} {shown!r}: {why}")
        raise InputError(f"{self.option} {shown!r}: {why}; allowed: NdX, numbers, + - *, ( ), "
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

    def parse(self):
        if not self.tokens:
            self.fail("is empty")
        left = self.side()
        if self.peek() == "vs":
            self.take()
            right = self.side()
            left = self.ops.versus(left, right)
        if self.peek() is not None:
            self.fail(f"unexpected {self.tokens[self.i].group().strip()!r}")
        return left

    def side(self):
        left = self.sum()
        op = self.peek()
        if op in COMPARISONS:
            self.take()
            right = self.sum()
            left = self.ops.compare(op, left, right)
        return left

    def sum(self):
        left = self.term()
        while self.peek() in ("+", "-"):
            op = self.take().group("op")
            right = self.term()
            left = self.ops.add(left, right) if op == "+" else self.ops.sub(left, right)
        return left

    def term(self):
        left = self.unary()
        while self.peek() == "*":
            self.take()
            left = self.ops.mul(left, self.unary())
        return left

    def nest(self):
        self.depth += 1
        if self.depth > MAX_NESTING:
            self.fail(f"more than {MAX_NESTING} parentheses and minus signs nested in one another; "
                      f"allowed: at most {MAX_NESTING} levels", limits=True)

    def unary(self):
        if self.peek() == "-":
            self.take()
            self.nest()
            value = self.ops.neg(self.unary())
            self.depth -= 1
            return value
        return self.atom()

    def atom(self):
        kind = self.peek()
        if kind is None:
            self.fail("ends too early")
        t = self.take()
        if kind == "num":
            return self.ops.number(int(t.group("num")))
        if kind == "dice":
            return self.dice(t)
        if kind == "(":
            self.nest()
            inner = self.side()
            if self.peek() != ")":
                self.fail("a '(' is not closed")
            self.take()
            self.depth -= 1
            return inner
        self.fail(f"unexpected {t.group().strip()!r}")

    def dice(self, t):
        n = int(t.group("n")) if t.group("n") else 1
        x = 100 if t.group("x") == "%" else int(t.group("x"))
        if not 1 <= n <= MAX_DICE or not 2 <= x <= MAX_SIDES:
            self.fail(f"{t.group('dice')!r}: 1..{MAX_DICE} dice of 2..{MAX_SIDES} sides")
        die = self.ops.die(x)
        keep = None
        for mod in re.findall(r"kh\d+|kl\d+|k\d+|r\d+|!", t.group("mods")):
            if mod == "!":
                die = self.ops.explode(die)
            elif mod.startswith("r"):
                r = int(mod[1:])
                if r >= x:
                    self.fail(f"r{r} on a d{x} would reroll every face")
                die = self.ops.reroll(die, r)
            else:
                k = int(mod.lstrip("khl"))
                if not 1 <= k <= n:
                    self.fail(f"keeps {k} of {n} dice (allowed 1..{n})")
                keep = (mod.startswith("kl"), k)
        if keep is None:
            return self.ops.roll(n, die)
        return self.ops.keep(n, die, *keep)


def estimate(text: str, option: str = "EXPR", max_work: int = MAX_WORK, max_outcomes: int = MAX_OUTCOMES):
    """(steps, outcomes, :class:`Size` of the result): upper bounds on what computing ``text`` costs, from the
    expression alone (no icepool). A bad expression, or one over a limit, is an InputError naming ``option``."""
    bound = _Bound(None, max_work, max_outcomes)
    parser = _Parser(text, option, bound)
    bound.fail = parser.fail
    size = parser.parse()
    return bound.work, bound.outcomes, size


def parse(text: str, option: str = "EXPR", max_work: int = MAX_WORK,
          max_outcomes: int = MAX_OUTCOMES) -> icepool.Die:
    """The distribution of a dice expression (see the module docstring); bad input is an InputError naming
    ``option``, and so is an expression whose :func:`estimate` exceeds ``max_work`` steps or ``max_outcomes``
    outcomes (refused before icepool computes anything)."""
    estimate(text, option, max_work, max_outcomes)
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
    from simkit.core.tables import fraction_str  # here, not at import: the kernels that import this module do not
    # depend on how tables print (simkit._numba_cache)

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
