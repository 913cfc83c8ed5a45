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
The game's functions are passed in as arguments (numba compiles one
specialisation per game); such callers cannot be cached by numba, so games
keep their heuristic-only kernels apart from the search ones.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np
from numba import njit

from simkit.core.policies import HEURISTIC, RANDOM, SEARCH  # noqa: F401  (re-exported kinds)
from simkit.core.rng import next_u64, randbelow

# search configuration vector (int64): what a `search` policy's parameters compile to
CFG_ROLLOUTS, CFG_BASE_KIND, CFG_BUDGET, CFG_MAX_STEPS = range(4)
N_CFG = 4
BUDGET_UNIFORM, BUDGET_HALVING = 0, 1
BUDGETS = {"uniform": BUDGET_UNIFORM, "halving": BUDGET_HALVING}
ROLLOUT_BUFFER = 4096  # at least any engine's MAX_ACTIONS


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

@njit
def rollout(legal_fn, apply_fn, over_fn, policy_fn, s, rng, env, base_kind, base_params, prng, buf, max_steps):
    """Play on from ``s`` with the base policy for every seat until the end (or ``max_steps`` decisions)."""
    steps = 0
    while not over_fn(s) and steps < max_steps:
        n = legal_fn(s, env, buf)
        if n == 0:
            break
        a = policy_fn(base_kind, s, env, buf, n, base_params, prng)
        apply_fn(s, rng, env, a)
        steps += 1
    return steps


@njit
def search_action(legal_fn, apply_fn, over_fn, move_fn, reward_fn, resample_fn, policy_fn,
                  s, rng, env, legal, n, cfg, base_params, srng):
    """The `search` policy's choice among ``legal[:n]`` (see the module docstring).

    Every sample draws one determinization (hidden cards and chance stream resampled from ``srng``) and plays
    *each* surviving action from it (common random numbers across actions). ``cfg[CFG_ROLLOUTS]`` is the mean
    number of rollouts per legal action; ``BUDGET_HALVING`` spends them by successive halving (each round, the
    better half of the actions by mean reward survives), ``BUDGET_UNIFORM`` on every action alike. Ties go to the
    earlier legal action."""
    if n == 1:
        return legal[0]
    seat = move_fn(s)
    total = cfg[CFG_ROLLOUTS] * n
    base_kind = cfg[CFG_BASE_KIND]
    max_steps = cfg[CFG_MAX_STEPS]
    sums = np.zeros(n, np.float64)
    cnt = np.zeros(n, np.int64)
    alive = np.arange(n)
    n_alive = n
    rounds = 1
    if cfg[CFG_BUDGET] == BUDGET_HALVING:
        m = n
        while m > 1:
            m = (m + 1) // 2
            rounds += 1
        rounds -= 1
        if rounds < 1:
            rounds = 1
    s2 = np.empty_like(s)
    rng2 = np.empty_like(rng)
    sample_rng = np.empty_like(srng)
    prng2 = np.empty_like(srng)
    # the rollouts' buffer must hold any later decision's legal actions, not just this one's (``legal`` may be
    # sized to the ``n`` actions of this decision)
    buf = np.empty(max(legal.shape[0], ROLLOUT_BUFFER), legal.dtype)
    for r in range(rounds):
        per = total // (n_alive * rounds)
        if per < 1:
            per = 1
        for _ in range(per):
            reseed(sample_rng, srng)
            for k in range(n_alive):
                i = alive[k]
                s2[:] = s
                rng2[:] = rng
                rs = sample_rng.copy()
                resample_fn(s2, rng2, env, seat, rs)
                reseed(prng2, rs)
                apply_fn(s2, rng2, env, legal[i])
                rollout(legal_fn, apply_fn, over_fn, policy_fn, s2, rng2, env, base_kind, base_params, prng2, buf,
                        max_steps)
                sums[i] += reward_fn(s2, env, seat)
                cnt[i] += 1
        if r < rounds - 1 and n_alive > 1:
            # keep the better half (stable: earlier actions first among equals)
            means = np.empty(n_alive, np.float64)
            for k in range(n_alive):
                means[k] = sums[alive[k]] / cnt[alive[k]]
            order = np.argsort(-means, kind="mergesort")
            keep = (n_alive + 1) // 2
            kept = np.sort(alive[order[:keep]])
            alive[:keep] = kept
            n_alive = keep
    best, best_v = legal[alive[0]], -1.0
    for k in range(n_alive):
        i = alive[k]
        v = sums[i] / cnt[i]
        if v > best_v:
            best, best_v = legal[i], v
    return best


@njit
def choose(legal_fn, apply_fn, over_fn, move_fn, reward_fn, resample_fn, policy_fn,
           s, rng, env, legal, n, kind, params, cfg, base_params, prng):
    """One decision by a policy of any kind: the game's own (heuristic, random) or `search`."""
    if kind == SEARCH:
        return search_action(legal_fn, apply_fn, over_fn, move_fn, reward_fn, resample_fn, policy_fn,
                             s, rng, env, legal, n, cfg, base_params, prng)
    return policy_fn(kind, s, env, legal, n, params, prng)


@njit
def play_to_end(legal_fn, apply_fn, over_fn, move_fn, reward_fn, resample_fn, policy_fn,
                s, rng, env, kinds, params, cfgs, base_params, prng, buf, max_steps):
    """Play a set-up game to its end; seat ``i`` plays ``kinds[i]`` with ``params[i]`` (search: ``cfgs[i]`` and
    ``base_params[i]``). Returns the number of decisions taken."""
    steps = 0
    while not over_fn(s) and steps < max_steps:
        n = legal_fn(s, env, buf)
        if n == 0:
            break
        seat = move_fn(s)
        a = choose(legal_fn, apply_fn, over_fn, move_fn, reward_fn, resample_fn, policy_fn,
                   s, rng, env, buf, n, kinds[seat], params[seat], cfgs[seat], base_params[seat], prng)
        apply_fn(s, rng, env, a)
        steps += 1
    return steps


def search_config(rollouts: int = 16, base_kind: int = HEURISTIC, budget: str = "halving",
                  max_steps: int = 100_000) -> np.ndarray:
    """The int64 configuration vector of a `search` policy."""
    cfg = np.zeros(N_CFG, np.int64)
    cfg[CFG_ROLLOUTS] = rollouts
    cfg[CFG_BASE_KIND] = base_kind
    cfg[CFG_BUDGET] = BUDGETS[budget]
    cfg[CFG_MAX_STEPS] = max_steps
    return cfg


def legal_list(fns: Fns, s, env, max_actions: int) -> list[int]:
    """The legal actions as a Python list (tests, notebooks)."""
    buf = np.empty(max_actions, np.int64)
    n = fns.legal_actions(s, env, buf)
    return [int(x) for x in buf[:n]]
