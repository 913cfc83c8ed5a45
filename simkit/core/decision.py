"""The decision-point interface every game engine implements, and the generic `search` policy on it.

A game engine (one module per game mode; models: pgx's ``step`` functions and
OpenSpiel's games) works on

    s    int32[STATE_SIZE]   the whole state, flat and cheap to copy; it records whose decision it is
    rng  uint64[4]           the game's own chance stream (part of the state: a copy copies both)
    env  tuple               the cell's read-only tables and rule-option vector

and provides these numba functions, with exactly these signatures:

    legal_actions(s, env, out) -> n      the legal actions now, in ``out[:n]`` (distinct ids, 0 <= id <
                                         MAX_ACTIONS, in a fixed order); n >= 1 unless the game is over
    apply_action(s, rng, env, a)         apply action ``a``, then resolve chance (from ``rng``) and forced steps
                                         until the next decision or the end of the game
    is_over(s) -> bool
    to_move(s) -> seat                   whose decision it is (always 0 in a solo game)
    reward(s, env, seat) -> float        an ended game's result for ``seat`` (1.0 win, 0.0 loss; shared ties)
    resample(s, rng, env, seat, srng)    determinization: rewrite from ``srng`` everything ``seat`` cannot see
                                         (the order of unseen cards, other seats' hidden cards, the chance stream
                                         ``rng``) consistently with what it has seen. Canonical: the result depends
                                         only on what ``seat`` has seen and on ``srng`` (sort unseen cards before
                                         shuffling them, reseed ``rng``), so two states that differ only in hidden
                                         information resample to the same state.
    policy(kind, s, env, legal, n, params, prng) -> a
                                         the game's heuristics (``kind`` HEURISTIC, steered by ``params``) and the
                                         random baseline (RANDOM); reads only what ``to_move(s)`` may see; returns
                                         one of ``legal[:n]``

A game is played by: set up (game-specific), then ``while not is_over(s): n =
legal_actions(s, env, buf); a = choose(...); apply_action(s, rng, env, a)``.

``search_action`` below is the generic `search` policy: it evaluates each
legal action by rollouts from resampled copies of the state (never the true
hidden information) under a base policy, and plays the best by mean reward.
It is written once and compiled per game by ``specialize(fns, __name__)``,
which binds the game's functions as globals of a copy filed under the
game's module, so numba caches it like any other kernel.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from simkit.core.policies import HEURISTIC, RANDOM, SEARCH  # noqa: F401  (re-exported kinds)
from simkit.core.rng import next_u64, randbelow

# search configuration vector (int64): what a `search` policy's parameters compile to
# (``CFG_DEPTH``: decisions a rollout plays before it reads the value; ``CFG_VALUE``: where the value model starts in
# the base parameter vector, plus one; 0: no value, every rollout plays to the end)
# ``CFG_GATE``: with a `learned` base, search only where its best score leads the second by less than this (in
# thousandths; 0: search every decision); ``CFG_DECISIONS``: a bit mask of the decision kinds (the game's feature
# kinds, ``Parts.kind``) searched, by the kind of the base policy's action (0: every kind)
(CFG_ROLLOUTS, CFG_BASE_KIND, CFG_BUDGET, CFG_MAX_STEPS, CFG_CAUTION, CFG_EXPLORE, CFG_DEPTH, CFG_VALUE, CFG_GATE,
 CFG_DECISIONS) = range(10)
N_CFG = 10
BUDGET_UNIFORM, BUDGET_HALVING, BUDGET_TREE = 0, 1, 2
BUDGETS = {"uniform": BUDGET_UNIFORM, "halving": BUDGET_HALVING, "ismcts": BUDGET_TREE}
# capacity of the rollouts' action buffer in `search_action`: every engine's MAX_ACTIONS must be at most this
ROLLOUT_BUFFER = 4096


class Fns(NamedTuple):
    """A game engine's decision-point functions (numba dispatchers), in the order the kernels take them."""

    legal_actions: Callable
    apply_action: Callable
    is_over: Callable
    to_move: Callable
    reward: Callable
    resample: Callable
    policy: Callable


@dataclass
class DecisionGame:
    """What the generic tests and tools need to drive one game mode through the interface.

    ``new_game(seed)`` returns ``(s, rng, env)`` of a fresh game from the bundled scenario, advanced to its first
    decision; ``invariants(s, env) -> int`` is 0 when the state keeps every rule invariant (else a code the
    game documents); ``policies`` maps the bundled policy names to ``(kind, params)``.
    """

    name: str
    fns: Fns
    max_actions: int
    new_game: Callable[[int], tuple[np.ndarray, np.ndarray, Any]]
    policies: dict[str, tuple[int, np.ndarray]] = field(default_factory=dict)
    invariants: Callable | None = None
    seats: int = 1
    search: Search | None = None  # the game's compiled search (``specialize``)
    learned: Learned | None = None  # the game's compiled `learned` policy (``specialize_learned``)
    feature_names: tuple[str, ...] = ()  # what each slot of the game's feature vector means


# --- scratch on the stack ----------------------------------------------------------------------------------------

@intrinsic
def stack_empty(typingctx, size, dtype):
    """An uninitialised 1-d array of ``size`` items of ``dtype`` on the calling function's stack (``size`` a
    constant known when compiling), alive until that function returns. Unlike ``np.empty`` it involves no
    allocator and no reference counting, so a function whose only arrays are these compiles with ``_nrt=False``."""
    if not isinstance(size, types.IntegerLiteral):
        return None
    n = size.literal_value
    elty = dtype.dtype
    aryty = types.Array(elty, 1, "C")

    def codegen(context, builder, sig, args):
        from numba.np.arrayobj import make_array, populate_array

        ptr = cgutils.alloca_once(builder, context.get_value_type(elty), size=max(n, 1))
        ary = make_array(aryty)(context, builder)
        itemsize = context.get_abi_sizeof(context.get_data_type(elty))
        intp = context.get_value_type(types.intp)
        populate_array(ary, data=ptr, shape=[intp(n)], strides=[intp(itemsize)], itemsize=intp(itemsize),
                       meminfo=None)
        return ary._getvalue()

    return aryty(size, dtype), codegen


# --- streams ---------------------------------------------------------------------------------------------------

@njit(cache=True)
def reseed(state, src):
    """Fill the stream ``state`` (uint64[4]) from the stream ``src``."""
    for i in range(4):
        state[i] = next_u64(src)
    if state[0] == 0 and state[1] == 0 and state[2] == 0 and state[3] == 0:
        state[0] = np.uint64(0x9E3779B97F4A7C15)


@njit(cache=True)
def reshuffle_unseen(s, base, n, srng):
    """Put the ``n`` unseen cards ``s[base:base+n]`` in a fresh random order that does not depend on their old
    order: sort them, then shuffle from ``srng`` (the canonical resample of a face-down pile)."""
    s[base:base + n] = np.sort(s[base:base + n])
    for i in range(n - 1, 0, -1):
        j = randbelow(srng, i + 1)
        t = s[base + i]
        s[base + i] = s[base + j]
        s[base + j] = t


# --- rollouts and search -----------------------------------------------------------------------------------------
# Written once here, compiled once per game by ``specialize``: the game's functions are the globals ``_legal_actions``,
# ``_apply_action``, ``_is_over``, ``_to_move``, ``_reward``, ``_resample`` and ``_policy`` of each compiled copy.

def rollout(s, rng, env, base_kind, base_params, prng, buf, max_steps):
    """Play on from ``s`` with the base policy for every seat until the end (or ``max_steps`` decisions)."""
    steps = 0
    while not _is_over(s) and steps < max_steps:
        n = _legal_actions(s, env, buf)
        if n == 0:
            break
        a = _policy(base_kind, s, env, buf, n, base_params, prng)
        _apply_action(s, rng, env, a)
        steps += 1
    return steps


def leaf_value(s, env, n, cfg, base_params, prng, buf):
    """The value of ``s`` for the mover, whose decision among ``buf[:n]`` it is: the value model's estimate of the
    mover's reward under the rollouts' base policy, ``1 / (1 + exp(-(c + v . x(π(s)))))`` with ``x(π(s))`` the
    features of the base policy's action here (``simkit.core.value.train_value``). The model sits in
    ``base_params`` from ``cfg[CFG_VALUE] - 1``: its intercept ``c``, then a `learned` parameter vector scoring
    with ``v``."""
    off = cfg[CFG_VALUE] - 1
    a = _policy(cfg[CFG_BASE_KIND], s, env, buf, n, base_params, prng)
    scores = stack_empty(ROLLOUT_BUFFER, np.float64)  # n <= MAX_ACTIONS <= ROLLOUT_BUFFER
    _value_scores(s, env, buf, n, base_params[off + 1:], prng, scores)
    z = base_params[off]
    for i in range(n):
        if buf[i] == a:
            z += scores[i]
            break
    return 1.0 / (1.0 + np.exp(-z))


def rollout_value(s, rng, env, seat, cfg, base_params, prng, buf):
    """``seat``'s reward after playing on from ``s`` with the base policy for every seat: to the end, or with a
    value model (``cfg[CFG_VALUE]``) up to ``seat``'s first decision after ``cfg[CFG_DEPTH]`` decisions, where the
    value's estimate stands in for the rest of the game (a rollout cut short: more rollouts for the same work)."""
    base_kind = cfg[CFG_BASE_KIND]
    max_steps = cfg[CFG_MAX_STEPS]
    depth = cfg[CFG_DEPTH] if cfg[CFG_VALUE] > 0 else max_steps
    steps = 0
    while not _is_over(s) and steps < max_steps:
        n = _legal_actions(s, env, buf)
        if n == 0:
            break
        if steps >= depth and _to_move(s) == seat:
            return leaf_value(s, env, n, cfg, base_params, prng, buf)
        a = _policy(base_kind, s, env, buf, n, base_params, prng)
        _apply_action(s, rng, env, a)
        steps += 1
    return _reward(s, env, seat)


def no_value_scores(s, env, legal, n, params, prng, scores):
    """The value scorer of a game without features (never called: its searches have no value model)."""
    for i in range(n):
        scores[i] = 0.0


def learned_unsure(s, env, legal, n, base_params, prng, gate):
    """Is the `learned` base policy unsure here: does its best score lead the second best by less than ``gate``?
    (A gated `search` plays the base policy's action where it is sure, and searches only the rest.)"""
    scores = stack_empty(ROLLOUT_BUFFER, np.float64)  # n <= MAX_ACTIONS <= ROLLOUT_BUFFER
    _value_scores(s, env, legal, n, base_params, prng, scores)
    top, second = -np.inf, -np.inf
    for i in range(n):
        if scores[i] > top:
            top, second = scores[i], top
        elif scores[i] > second:
            second = scores[i]
    return top - second < gate


def no_kind(s, env, a):
    """The decision kind of a game whose features name none (never called: its searches search every kind)."""
    return 0


def searched_kind(s, env, a, mask):
    """Is the base policy's action ``a`` of a kind a `search` with ``decisions`` searches (bit ``kind`` of
    ``mask``)?"""
    return (mask >> _kind(s, env, a)) & 1 == 1


def search_action(s, rng, env, legal, n, cfg, base_params, srng):
    """The `search` policy's choice among ``legal[:n]`` (``search_values`` without the values)."""
    values = np.empty(max(n, 1), np.float64)
    return search_values(s, rng, env, legal, n, cfg, base_params, srng, values)


def search_values(s, rng, env, legal, n, cfg, base_params, srng, values):
    """The `search` policy's choice among ``legal[:n]`` (see the module docstring), and in ``values[:n]`` each
    action's mean rollout reward for the mover (NaN for none played): rollout-based policy
    improvement over the base policy.

    Every sample draws one determinization (hidden cards and chance stream resampled from ``srng``) and plays
    *each* surviving action from it (common random numbers across actions). ``cfg[CFG_ROLLOUTS]`` is the mean
    number of rollouts per legal action; ``BUDGET_HALVING`` spends them by successive halving (each round, the
    better half of the actions by mean reward survives; the base policy's own action always survives),
    ``BUDGET_UNIFORM`` on every action alike. The best action by mean replaces the base policy's action only when
    it is better on the shared samples by more than ``cfg[CFG_CAUTION] / 100`` standard errors of the paired
    difference: with few rollouts or ties, search plays as its base policy does."""
    values[:n] = np.nan
    if n == 1:
        return legal[0]
    seat = _to_move(s)
    total = cfg[CFG_ROLLOUTS] * n
    base_kind = cfg[CFG_BASE_KIND]
    caution = cfg[CFG_CAUTION] / 100.0
    s2 = np.zeros(s.shape[0], s.dtype)
    rng2 = np.zeros(4, np.uint64)
    sample_rng = np.zeros(4, np.uint64)
    rs = np.zeros(4, np.uint64)
    prng2 = np.zeros(4, np.uint64)
    # the base policy's own choice here (what search improves on)
    reseed(prng2, srng)
    a_base = _policy(base_kind, s, env, legal, n, base_params, prng2)
    if cfg[CFG_GATE] > 0 and not learned_unsure(s, env, legal, n, base_params, prng2, cfg[CFG_GATE] / 1000.0):
        return a_base
    if cfg[CFG_DECISIONS] != 0 and not searched_kind(s, env, a_base, cfg[CFG_DECISIONS]):
        return a_base
    ib = 0
    for i in range(n):
        if legal[i] == a_base:
            ib = i
    alive = np.zeros(n, np.int64)
    for i in range(n):
        alive[i] = i
    n_alive = n
    rounds = 1
    if cfg[CFG_BUDGET] == BUDGET_HALVING:
        m = n
        while m > 2:
            m = (m + 1) // 2
            rounds += 1
    # rewards per sample and action (NaN where the action was not played in that sample)
    max_samples = 0
    m_alive = n
    for r in range(rounds):
        per = total // (m_alive * rounds)
        max_samples += max(per, 1)
        if r < rounds - 1 and m_alive > 2:
            m_alive = (m_alive + 1) // 2
    rew = np.full((max_samples, n), np.nan)
    n_samples = 0
    # the rollouts' own action buffer: any later decision's legal actions, since ``legal`` may be just ``legal[:n]``
    buf = np.zeros(max(legal.shape[0], ROLLOUT_BUFFER), np.int64)
    chosen = np.zeros(n, np.bool_)
    sums = np.zeros(n, np.float64)
    cnt = np.zeros(n, np.int64)
    for r in range(rounds):
        per = total // (n_alive * rounds)
        if per < 1:
            per = 1
        for _ in range(per):
            if n_samples >= max_samples:
                break
            reseed(sample_rng, srng)
            for k in range(n_alive):
                i = alive[k]
                for j in range(s.shape[0]):
                    s2[j] = s[j]
                for j in range(4):
                    rng2[j] = rng[j]
                    rs[j] = sample_rng[j]
                _resample(s2, rng2, env, seat, rs)
                reseed(prng2, rs)
                _apply_action(s2, rng2, env, legal[i])
                v = rollout_value(s2, rng2, env, seat, cfg, base_params, prng2, buf)
                rew[n_samples, i] = v
                sums[i] += v
                cnt[i] += 1
            n_samples += 1
        if r < rounds - 1 and n_alive > 2:
            # keep the better half, and always the base policy's action; among equal means the earlier action
            keep = (n_alive + 1) // 2
            chosen[:] = False
            chosen[ib] = True
            got = 1
            while got < keep:
                bi, bv = -1, -1e300
                for k in range(n_alive):
                    i = alive[k]
                    v = sums[i] / cnt[i]
                    if not chosen[i] and v > bv:
                        bi, bv = i, v
                chosen[bi] = True
                got += 1
            m = 0
            for k in range(n_alive):
                if chosen[alive[k]]:
                    alive[m] = alive[k]
                    m += 1
            n_alive = m
    for i in range(n):
        if cnt[i] > 0:
            values[i] = sums[i] / cnt[i]
    # the best surviving action by mean, against the base action on the samples both were played in
    ic, vc = ib, -1e300
    for k in range(n_alive):
        i = alive[k]
        v = sums[i] / cnt[i]
        if v > vc:
            ic, vc = i, v
    if ic == ib:
        return legal[ib]
    d_sum = 0.0
    d_sq = 0.0
    m = 0
    for j in range(n_samples):
        a = rew[j, ic]
        b = rew[j, ib]
        if not (np.isnan(a) or np.isnan(b)):
            d = a - b
            d_sum += d
            d_sq += d * d
            m += 1
    if m == 0 or (m < 2 and caution > 0.0):  # one sample is no evidence against the base action
        return legal[ib]
    mean = d_sum / m
    if mean <= 0.0:
        return legal[ib]
    var = (d_sq - m * mean * mean) / (m - 1) if m > 1 else 0.0
    if var <= 0.0:
        return legal[ic]
    if mean > caution * np.sqrt(var / m):
        return legal[ic]
    return legal[ib]


def ismcts_action(s, rng, env, legal, n, cfg, base_params, srng):
    """`search` with ``budget = "ismcts"``: information-set Monte Carlo tree search over determinizations
    (single-observer ISMCTS, Cowling, Powley and Whitehouse 2012; OpenSpiel's ``ismcts.py``).

    Each of ``cfg[CFG_ROLLOUTS] * n`` iterations resamples what the mover cannot see (``_resample`` from
    ``srng``), walks down one tree whose nodes are action histories, choosing among the children whose action is
    legal in this determinization by UCB1 with availability counts (exploration ``cfg[CFG_EXPLORE] / 100``),
    adds one node (the base policy's own action first), plays on with the base policy, and credits every node on
    the path with the reward of the seat that chose its action. Decisions with one legal action add no node.
    Plays the root's most visited action (the base policy's among equals)."""
    if n == 1:
        return legal[0]
    root_seat = _to_move(s)
    iters = max(cfg[CFG_ROLLOUTS] * n, 1)
    c = cfg[CFG_EXPLORE] / 100.0
    base_kind = cfg[CFG_BASE_KIND]
    max_steps = cfg[CFG_MAX_STEPS]
    cap = iters + 2
    act = np.zeros(cap, np.int64)
    child = np.full(cap, -1, np.int64)  # first child
    sib = np.full(cap, -1, np.int64)  # next sibling
    seat_of = np.zeros(cap, np.int64)  # the seat that chose the node's action
    visits = np.zeros(cap, np.float64)
    value = np.zeros(cap, np.float64)
    avail = np.zeros(cap, np.float64)
    n_nodes = 1
    path = np.zeros(cap, np.int64)
    buf = np.zeros(max(legal.shape[0], ROLLOUT_BUFFER), np.int64)
    s2 = np.zeros(s.shape[0], s.dtype)
    rng2 = np.zeros(4, np.uint64)
    rs = np.zeros(4, np.uint64)
    prng2 = np.zeros(4, np.uint64)
    reseed(prng2, srng)
    a_base = _policy(base_kind, s, env, legal, n, base_params, prng2)
    for _ in range(iters):
        for j in range(s.shape[0]):
            s2[j] = s[j]
        for j in range(4):
            rng2[j] = rng[j]
        reseed(rs, srng)
        _resample(s2, rng2, env, root_seat, rs)
        reseed(prng2, rs)
        node = 0
        depth = 0
        steps = 0
        while not _is_over(s2) and steps < max_steps:
            m = _legal_actions(s2, env, buf)
            if m == 0:
                break
            steps += 1
            if m == 1:
                _apply_action(s2, rng2, env, buf[0])
                continue
            mover = _to_move(s2)
            # availability: every child whose action is legal here was available to choose
            best, best_v = -1, -1e300
            k = child[node]
            while k >= 0:
                ok = False
                for i in range(m):
                    if buf[i] == act[k]:
                        ok = True
                        break
                if ok:
                    avail[k] += 1.0
                    u = value[k] / visits[k] + c * np.sqrt(np.log(avail[k]) / visits[k])
                    if u > best_v:
                        best, best_v = k, u
                k = sib[k]
            # an untried legal action: the base policy's own first
            a_new = -1
            if n_nodes < cap:
                a_pol = _policy(base_kind, s2, env, buf, m, base_params, prng2) if node > 0 else a_base
                for r in range(m + 1):
                    a = a_pol if r == 0 else buf[r - 1]
                    tried = False
                    k = child[node]
                    while k >= 0:
                        if act[k] == a:
                            tried = True
                            break
                        k = sib[k]
                    if not tried:
                        a_new = a
                        break
            if a_new >= 0:
                k = n_nodes
                n_nodes += 1
                act[k] = a_new
                seat_of[k] = mover
                avail[k] = 1.0
                sib[k] = child[node]
                child[node] = k
                path[depth] = k
                depth += 1
                _apply_action(s2, rng2, env, a_new)
                break
            if best < 0:
                break
            path[depth] = best
            depth += 1
            node = best
            _apply_action(s2, rng2, env, act[best])
        rollout(s2, rng2, env, base_kind, base_params, prng2, buf, max_steps)
        for d in range(depth):
            k = path[d]
            visits[k] += 1.0
            value[k] += _reward(s2, env, seat_of[k])
    pick, most = a_base, -1.0
    k = child[0]
    while k >= 0:
        if visits[k] > most or (visits[k] == most and act[k] == a_base):
            pick, most = act[k], visits[k]
        k = sib[k]
    return pick


def choose(s, rng, env, legal, n, kind, params, cfg, base_params, prng):
    """One decision by a policy of any kind: the game's own (heuristic, random, learned) or `search` (flat, or
    with ``budget = "ismcts"`` the tree)."""
    if kind == SEARCH:
        if cfg[CFG_BUDGET] == BUDGET_TREE:
            return ismcts_action(s, rng, env, legal, n, cfg, base_params, prng)
        return search_action(s, rng, env, legal, n, cfg, base_params, prng)
    return _policy(kind, s, env, legal, n, params, prng)


def play_to_end(s, rng, env, kinds, params, cfgs, base_params, prng, buf, max_steps):
    """Play a set-up game to its end; seat ``i`` plays ``kinds[i]`` with ``params[i]`` (search: ``cfgs[i]`` and
    ``base_params[i]``). Returns the number of decisions taken."""
    steps = 0
    while not _is_over(s) and steps < max_steps:
        n = _legal_actions(s, env, buf)
        if n == 0:
            break
        seat = _to_move(s)
        a = choose(s, rng, env, buf, n, kinds[seat], params[seat], cfgs[seat], base_params[seat], prng)
        _apply_action(s, rng, env, a)
        steps += 1
    return steps


class Search(NamedTuple):
    """A game's compiled `search` machinery (numba dispatchers; see ``specialize``)."""

    rollout: Callable
    leaf_value: Callable
    rollout_value: Callable
    learned_unsure: Callable
    searched_kind: Callable
    search_action: Callable
    search_values: Callable
    ismcts_action: Callable
    choose: Callable
    play_to_end: Callable


_TEMPLATES = (rollout, leaf_value, rollout_value, learned_unsure, searched_kind, search_action, search_values,
              ismcts_action, choose, play_to_end)


def _compile(templates, bindings: dict, module: str, prefix: str, nrt: bool = True) -> dict:
    """Compile copies of ``templates`` with ``bindings`` as their globals, filed under ``module``'s source file
    (so that numba caches them like any kernel of that module); ``nrt=False`` compiles them without numba's
    reference counting (for templates that allocate nothing)."""
    import sys
    import types

    mod = sys.modules[module]
    filename = mod.__file__
    g = {k: v for k, v in globals().items() if not k.startswith("__")}
    g.update(bindings, __name__=module)
    out = {}
    for f in templates:
        name = f"{prefix}_{f.__name__}"
        code = f.__code__.replace(co_filename=filename, co_name=name, co_qualname=name)
        py = types.FunctionType(code, g, name, f.__defaults__)
        py.__module__ = module
        py.__qualname__ = name
        py.__doc__ = f.__doc__
        out[f.__name__] = g[f.__name__] = njit(cache=True, _nrt=nrt)(py)
    return out


def specialize(fns: Fns, module: str, learned: Learned | None = None) -> Search:
    """Compile the generic search for one game, with the game's functions bound as globals.

    ``module`` is the name of the calling module (pass ``__name__``): the compiled copies are filed under its
    source file and names, so numba caches them like any kernel of that module (a function taking other
    functions as arguments could not be cached, and would be compiled afresh in every process). Call it once, at
    module level, and bind the result to module-level names so that the game's kernels can call them::

        SEARCH = D.specialize(FNS, __name__, LEARNED_FNS)
        play_to_end = SEARCH.play_to_end

    ``learned``: the game's compiled `learned` machinery (``specialize_learned``), whose scorer reads a `search`'s
    value model (``leaf_value``); without it a search cannot have one."""
    value_scores = learned.learned_scores if learned is not None else \
        _compile((no_value_scores,), {}, module, "search")["no_value_scores"]
    kind = learned.kind if learned is not None and learned.kind is not None else \
        _compile((no_kind,), {}, module, "search", nrt=False)["no_kind"]
    bindings = dict(_legal_actions=fns.legal_actions, _apply_action=fns.apply_action, _is_over=fns.is_over,
                    _to_move=fns.to_move, _reward=fns.reward, _resample=fns.resample, _policy=fns.policy,
                    _value_scores=value_scores, _kind=kind)
    return Search(**_compile(_TEMPLATES, bindings, module, "search"))


# --- learned policies ------------------------------------------------------------------------------------------
# A `learned` policy scores every legal action with a small model over the features the game's ``features``
# function writes for (state, action) from the mover's view, and plays the best. Its float64 parameter vector:
#
#     [ the base heuristic's parameters (the game's N_PARAMS) | F H T | w (F) | W1 (H x F) | b1 (H) | v (H) ]
#
# score(a) = w . x(a) + sum_h v[h] tanh(b1[h] + W1[h] . x(a)) with x(a) the features; F features, H hidden units
# (0: a linear scorer), T the temperature (0: the best action; above 0: sample from softmax(score / T)). One
# feature the game may use is whether ``a`` is the base heuristic's own choice here (``is_base``), so a model
# can start from the heuristic and learn where it should depart from it.
#
# Features are sparse: ``_features(s, env, a, is_base, st, idx, val) -> m`` writes the m non-zero features of
# action ``a`` as slots ``idx[:m]`` (0 <= slot < _N_FEATURES; a slot may repeat, its values add up) and values
# ``val[:m]``, m <= _MAX_NNZ, so that scoring costs the non-zeros, not the length of the vector. ``st`` holds what
# the game's ``_state(s, env, st)`` computed once per decision (numbers that every action's features share).
# Written once here, compiled per game by ``specialize_learned`` with the game's ``_features``, ``_state``,
# ``_base_policy(s, env, legal, n, params, prng)`` (a heuristic), ``_N_PARAMS``, ``_N_FEATURES``, ``_N_STATE`` and
# ``_MAX_NNZ`` bound as globals.
LH_FEATURES, LH_HIDDEN, LH_TEMPERATURE = range(3)
N_LH = 3


def action_features(s, env, legal, n, params, prng, out):
    """The (dense) features of each of ``legal[:n]`` in the rows ``out[:n]``, with ``is_base`` from the base
    heuristic steered by ``params[:_N_PARAMS]``; returns the base heuristic's action (for training)."""
    a_base = _base_policy(s, env, legal, n, params[:_N_PARAMS], prng)
    idx = stack_empty(_MAX_NNZ, np.int64)
    val = stack_empty(_MAX_NNZ, np.float64)
    st = stack_empty(_N_STATE, np.float64)
    _state(s, env, st)
    for i in range(n):
        out[i, :] = 0.0
        m = _features(s, env, legal[i], legal[i] == a_base, st, idx, val)
        for k in range(m):
            if idx[k] < out.shape[1]:
                out[i, idx[k]] += val[k]
    return a_base


def score_actions(s, env, legal, n, a_base, params, scores):
    """The model's score of each of ``legal[:n]`` in ``scores[:n]``, given the base heuristic's action ``a_base``
    (see the layout above). Allocates nothing (its scratch is on the stack) and is compiled without numba's
    reference counting, as must be the game's ``_state`` and ``_features`` it calls."""
    p = _N_PARAMS
    f = int(params[p + LH_FEATURES])
    h = int(params[p + LH_HIDDEN])
    w = p + N_LH
    w1 = w + f
    b1 = w1 + h * f
    v = b1 + h
    idx = stack_empty(_MAX_NNZ, np.int64)
    val = stack_empty(_MAX_NNZ, np.float64)
    st = stack_empty(_N_STATE, np.float64)
    _state(s, env, st)
    for i in range(n):
        m = _features(s, env, legal[i], legal[i] == a_base, st, idx, val)
        z = 0.0
        for k in range(m):
            if idx[k] < f:
                z += params[w + idx[k]] * val[k]
        for j in range(h):
            u = params[b1 + j]
            for k in range(m):
                if idx[k] < f:
                    u += params[w1 + j * f + idx[k]] * val[k]
            z += params[v + j] * np.tanh(u)
        scores[i] = z


def score_actions_by_kind(s, env, legal, n, a_base, params, scores):
    """``score_actions`` for a game whose features are is_base, then a block that depends on the action's kind
    only, then the action's own numbers (``Parts``): a linear model's sum over each kind's block is counted once
    per decision and kind, then each action adds its own numbers to it. The sums run in the same order as
    ``score_actions``'s, so the scores are the same to the bit. The base action (whose features start with
    is_base) is scored from its whole features, and a model with a hidden layer by ``score_actions``."""
    p = _N_PARAMS
    f = int(params[p + LH_FEATURES])
    if int(params[p + LH_HIDDEN]) > 0:
        score_actions(s, env, legal, n, a_base, params, scores)
        return
    w = p + N_LH
    idx = stack_empty(_MAX_NNZ, np.int64)
    val = stack_empty(_MAX_NNZ, np.float64)
    st = stack_empty(_N_STATE, np.float64)
    kind_sum = stack_empty(_N_KINDS, np.float64)
    counted = stack_empty(_N_KINDS, np.int64)
    for c in range(_N_KINDS):
        counted[c] = 0
    _state(s, env, st)
    for i in range(n):
        a = legal[i]
        if a == a_base:
            m = _features(s, env, a, True, st, idx, val)
            z = 0.0
            for k in range(m):
                if idx[k] < f:
                    z += params[w + idx[k]] * val[k]
            scores[i] = z
            continue
        c = _kind(s, env, a)
        if counted[c] == 0:
            m = _block(s, env, c, st, idx, val, 0)
            z = 0.0
            for k in range(m):
                if idx[k] < f:
                    z += params[w + idx[k]] * val[k]
            kind_sum[c] = z
            counted[c] = 1
        z = kind_sum[c]
        m = _numbers(s, env, a, c, st, idx, val, 0)
        for k in range(m):
            if idx[k] < f:
                z += params[w + idx[k]] * val[k]
        scores[i] = z


def learned_scores(s, env, legal, n, params, prng, scores):
    """The model's score of each of ``legal[:n]`` in ``scores[:n]`` (see the layout above)."""
    a_base = _base_policy(s, env, legal, n, params[:_N_PARAMS], prng)
    _score(s, env, legal, n, a_base, params, scores)


def learned_action(s, env, legal, n, params, prng):
    """The `learned` policy's choice among ``legal[:n]``: the best score (the earliest among equals), or with a
    temperature above 0 a draw from the softmax of the scores (from ``prng``)."""
    if n == 1:
        return legal[0]
    scores = stack_empty(ROLLOUT_BUFFER, np.float64)  # n <= MAX_ACTIONS <= ROLLOUT_BUFFER
    a_base = _base_policy(s, env, legal, n, params[:_N_PARAMS], prng)
    _score(s, env, legal, n, a_base, params, scores)
    t = params[_N_PARAMS + LH_TEMPERATURE]
    best = 0
    for i in range(1, n):
        if scores[i] > scores[best]:
            best = i
    if t <= 0.0:
        return legal[best]
    top = scores[best]
    total = 0.0
    for i in range(n):
        scores[i] = np.exp((scores[i] - top) / t)
        total += scores[i]
    u = (next_u64(prng) >> np.uint64(11)) * (1.0 / 9007199254740992.0) * total
    acc = 0.0
    for i in range(n):
        acc += scores[i]
        if u < acc:
            return legal[i]
    return legal[best]


class Learned(NamedTuple):
    """A game's compiled `learned` machinery (numba dispatchers; see ``specialize_learned``)."""

    action_features: Callable
    learned_scores: Callable
    learned_action: Callable
    score_actions: Callable
    kind: Callable | None = None  # the kind of an action (``Parts.kind``), for a `search` with ``decisions``


_LEARNED_TEMPLATES = (action_features, learned_scores, learned_action)


def no_state(s, env, st):
    """A game without shared per-decision numbers."""
    st[0] = 0.0


def stateless_features(s, env, a, is_base, st, idx, val):
    """The features of a game whose ``features(s, env, a, is_base, idx, val)`` takes no shared state."""
    return _plain_features(s, env, a, is_base, idx, val)


class Parts(NamedTuple):
    """A game's features split so that scoring can share work between actions (``score_actions_by_kind``):
    ``features(s, env, a, is_base, st, idx, val)`` must write is_base and is_base x kind (when ``is_base``),
    then ``block(s, env, kind(s, env, a), st, idx, val, m) -> m`` (numbers that depend on the state and the
    action's kind only), then ``numbers(s, env, a, kind, st, idx, val, m) -> m`` (the action's own), each
    appending at ``m``; ``kind(s, env, a)`` is below ``n_kinds``. All compiled with ``_nrt=False``."""

    kind: Callable
    block: Callable
    numbers: Callable
    n_kinds: int


def specialize_learned(features: Callable, base_policy: Callable, n_params: int, n_features: int, max_nnz: int,
                       module: str, state: Callable | None = None, n_state: int = 1,
                       parts: Parts | None = None) -> Learned:
    """Compile the `learned` policy for one game: ``features(s, env, a, is_base, st, idx, val) -> m`` writes the
    non-zero features of action ``a`` (reading only what the mover may see; at most ``max_nnz``) from the
    ``n_state`` numbers ``state(s, env, st)`` computed once for the decision (without ``state``:
    ``features(s, env, a, is_base, idx, val)``), ``base_policy(s, env, legal, n, params,
    prng)`` is the heuristic whose choice ``is_base`` names, ``n_params`` its parameter count, ``n_features``
    the length of the feature vector (a model with another length is refused when a scenario is loaded, and never
    makes the kernel write out of bounds); ``parts`` (default: the ``learned_parts`` attribute of ``features``,
    if it has one) splits the features for faster scoring; with ``parts``, ``features`` and ``state`` run
    without numba's reference counting (``_nrt=False``) and must allocate nothing. Call it at module
    level in the module that defines the game's ``policy`` (pass ``__name__``), whose ``LEARNED`` branch then
    calls ``learned_action``."""
    if parts is None:
        parts = getattr(features, "learned_parts", None)
    if state is None:  # ``features(s, env, a, is_base, idx, val)``: give it the shared-state signature
        adapters = _compile((no_state, stateless_features), dict(_plain_features=features), module, "learned",
                            nrt=parts is None)
        state, features, n_state = adapters["no_state"], adapters["stateless_features"], 1
    bindings = dict(_features=features, _state=state, _base_policy=base_policy, _N_PARAMS=int(n_params),
                    _N_FEATURES=int(n_features), _N_STATE=max(int(n_state), 1), _MAX_NNZ=int(max_nnz))
    # the per-action loop without NRT for games that declare their ``Parts`` (their features allocate nothing);
    # other games' features may allocate (Valeria's, Valhalla multiplayer's), so their loop keeps NRT
    fast = _compile((score_actions,), bindings, module, "learned", nrt=parts is None)
    bindings.update(fast, _score=fast["score_actions"])
    if parts is not None:
        bindings.update(_kind=parts.kind, _block=parts.block, _numbers=parts.numbers,
                        _N_KINDS=max(int(parts.n_kinds), 1))
        bindings["_score"] = _compile((score_actions_by_kind,), bindings, module, "learned",
                                      nrt=False)["score_actions_by_kind"]
    # likewise the policy itself where its base heuristic has no reference counting either (numba compiles a callee
    # in its caller's context): a function with it increfs and decrefs every array it is passed (the engine's card
    # tables), a few hundred nanoseconds a decision
    counting = parts is None or getattr(base_policy, "targetoptions", {}).get("_nrt") is not False
    return Learned(**_compile(_LEARNED_TEMPLATES, bindings, module, "learned", nrt=counting), **fast,
                   kind=parts.kind if parts is not None else None)


def search_config(rollouts: int = 16, base_kind: int = HEURISTIC, budget: str = "halving",
                  max_steps: int = 100_000, caution: float = 1.0, exploration: float = 0.7, depth: int = 0,
                  value_at: int = -1, gate: float = 0.0, decisions: int = 0) -> np.ndarray:
    """The int64 configuration vector of a `search` policy (``caution`` in standard errors and ``exploration``,
    the tree's UCB constant, kept in hundredths; ``value_at``: where a value model starts in the base parameter
    vector, -1 for none, and ``depth`` the decisions a rollout plays before reading it; ``gate``: with a `learned`
    base, search only where its best score leads the second by less than this, kept in thousandths;
    ``decisions``: a bit mask of the decision kinds searched, by the kind of the base policy's action, 0 for all)."""
    cfg = np.zeros(N_CFG, np.int64)
    cfg[CFG_DECISIONS] = decisions
    cfg[CFG_GATE] = int(round(gate * 1000))
    cfg[CFG_DEPTH] = depth
    cfg[CFG_VALUE] = value_at + 1
    cfg[CFG_EXPLORE] = int(round(exploration * 100))
    cfg[CFG_ROLLOUTS] = rollouts
    cfg[CFG_BASE_KIND] = base_kind
    cfg[CFG_BUDGET] = BUDGETS[budget]
    cfg[CFG_MAX_STEPS] = max_steps
    cfg[CFG_CAUTION] = int(round(caution * 100))
    return cfg


def legal_list(fns: Fns, s, env, max_actions: int) -> list[int]:
    """The legal actions as a Python list (tests, notebooks)."""
    buf = np.empty(max_actions, np.int64)
    n = fns.legal_actions(s, env, buf)
    return [int(x) for x in buf[:n]]
