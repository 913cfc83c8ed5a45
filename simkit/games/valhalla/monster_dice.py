"""Valhalla Solo monster phase: the monster's weapon dice as an exact Markov chain.

Each monster phase rolls every die not on the active card; a rolled weapon
that matches a still-uncovered weapon on the card goes on it, the rest are set
aside. When every weapon is covered the monster attacks and all dice return.
The state is the tuple of covered counts per distinct required weapon (in
order of first appearance on the card); :data:`ATTACK` marks a phase that
completes the card. Probabilities are exact Fractions computed by icepool: the
rolled dice are a sum of one-hot face categories (each required weapon, wild,
other), and the expected turns come from icepool's absorbing-chain solver.

Rule option ``wild_matches`` (default False: the ⊗ face never covers a
weapon). When True each wild covers one uncovered slot, after the natural
matches; which slot is a choice the rules leave open, so we ASSUME the player
covers the weapon with the most faces on the die first (ties: card order),
leaving the rarest weapons open — the choice that delays the attack.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

import icepool
import numpy as np
from numba import njit

from simkit.core.dice import probabilities
from simkit.core.rng import randbelow, seed_stream
from simkit.games.valhalla.cards import WILD

ATTACK = "attack"
_ATTACK = ()  # ATTACK inside icepool, whose outcomes must sort with the state tuples


def _faces(die) -> tuple[str, ...]:
    return tuple(getattr(die, "faces", die))


def weapon_types(required) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """The distinct required weapons (card order) and how many of each the card needs."""
    required = list(required)
    if not required or WILD in required:
        raise ValueError(f"a card needs 1+ non-wild weapons (got {required!r})")
    types = tuple(dict.fromkeys(required))
    return types, tuple(required.count(t) for t in types)


def empty_state(required) -> tuple[int, ...]:
    return (0,) * len(weapon_types(required)[0])


def _wild_order(types, faces) -> list[int]:
    return sorted(range(len(types)), key=lambda i: (-faces.count(types[i]), i))


def _compositions(m: int, parts: int):
    """Every way to write m as an ordered sum of ``parts`` non-negative counts (solo.simulation uses it)."""
    if parts == 1:
        yield (m,)
        return
    for k in range(m + 1):
        for rest in _compositions(m - k, parts - 1):
            yield (k, *rest)


@lru_cache(maxsize=None)
def _categories(faces: tuple, types: tuple) -> icepool.Die:
    """One monster die as one-hot counts over (each required weapon, wild, other)."""
    k = len(types)

    def cat(f):
        i = types.index(f) if f in types else k if f == WILD else k + 1
        return icepool.Vector(tuple(int(j == i) for j in range(k + 2)))

    return icepool.Die([cat(f) for f in faces])


def _transition_die(state, need, types, faces, n_dice, wild_matches) -> icepool.Die:
    """The next state of one monster phase as an icepool die (``_ATTACK`` when the card is completed)."""
    k, order = len(types), _wild_order(types, faces)

    def cover(counts):
        cov = [min(r, c + x) for r, c, x in zip(need, state, counts)]
        if wild_matches:
            w = counts[k]
            for i in order:
                add = min(w, need[i] - cov[i])
                cov[i], w = cov[i] + add, w - add
        return _ATTACK if tuple(cov) == need else tuple(cov)

    return ((n_dice - sum(state)) @ _categories(faces, types)).map(cover)


def transition(state, required, die, n_dice: int = 6, wild_matches: bool = False) -> dict:
    """Next-state probabilities of one monster phase (``ATTACK`` when the card is completed)."""
    types, need = weapon_types(required)
    faces, state = _faces(die), tuple(state)
    if sum(need) > n_dice:
        raise ValueError(f"the card needs {sum(need)} weapons but the monster has {n_dice} dice")
    if len(state) != len(types) or state == need or any(not 0 <= c <= r for c, r in zip(state, need)):
        raise ValueError(f"state {state!r} is not a partial cover of {need!r}")
    dist = probabilities(_transition_die(state, need, types, faces, n_dice, wild_matches))
    return {(ATTACK if t == _ATTACK else t): p for t, p in dist.items()}


def _chain(required, die, n_dice, wild_matches):
    """(start state, one-phase step as an icepool die function; after an attack the card starts empty)."""
    types, need = weapon_types(required)
    faces, start = _faces(die), empty_state(required)
    transition(start, required, die, n_dice, wild_matches)  # checks the card against the dice
    cache: dict = {}

    def step(s):
        if s not in cache:
            cache[s] = _transition_die(start if s == _ATTACK else s, need, types, faces, n_dice, wild_matches)
        return cache[s]

    return start, step


def attack_by_turn(required, die, turns: int = 20, wild_matches: bool = False, n_dice: int = 6) -> list[Fraction]:
    """P(the monster attacks on turn t), t = 1..turns, from an empty card; an attack clears the card."""
    start, step = _chain(required, die, n_dice, wild_matches)
    dist, out = icepool.Die([start]), []
    for _ in range(turns):
        dist = dist.map(step)
        out.append(dist.probability(_ATTACK))
    return out


def expected_turns_between_attacks(required, die, wild_matches: bool = False, n_dice: int = 6) -> Fraction:
    """Expected monster phases from an empty card up to and including the attack (icepool's absorbing chain)."""
    start, step = _chain(required, die, n_dice, wild_matches)
    if not _reaches_attack(start, step):
        raise ValueError(f"the monster can never attack with card {list(required)!r} and die {list(_faces(die))!r}")
    return icepool.mean_time_to_absorb(lambda s: s if s == _ATTACK else step(s), start)


def _reaches_attack(start, step) -> bool:
    seen, todo = {start}, [start]
    while todo:
        for t in step(todo.pop()).outcomes():
            if t == _ATTACK:
                return True
            if t not in seen:
                seen.add(t)
                todo.append(t)
    return False


def numeric_arrays(required, die) -> tuple[np.ndarray, np.ndarray, int]:
    """``(required_counts, face_codes, wild_code)`` for :func:`simulate_attacks`."""
    types, need = weapon_types(required)
    code = {t: i for i, t in enumerate(types)}
    wild = len(types)
    faces = [code.get(f, wild if f == WILD else -1) for f in _faces(die)]
    return np.array(need, np.int64), np.array(faces, np.int64), wild


@njit(cache=True)
def simulate_attacks(key, n_games, turns, required_counts, face_codes, wild_code, wild_matches, n_dice=6, stream=0):
    """Monte Carlo twin of :func:`attack_by_turn`: ``attacks[t-1]`` = games attacked on turn t."""
    k, n_faces = required_counts.shape[0], face_codes.shape[0]
    face_n = np.zeros(k, np.int64)
    for f in range(n_faces):
        if 0 <= face_codes[f] < k:
            face_n[face_codes[f]] += 1
    order = np.arange(k)  # wild fill order: most faces first, ties by card order (stable)
    for i in range(1, k):
        j = i
        while j > 0 and face_n[order[j - 1]] < face_n[order[j]]:
            order[j - 1], order[j] = order[j], order[j - 1]
            j -= 1
    need_total = required_counts.sum()
    attacks = np.zeros(turns, np.int64)
    state = np.empty(4, np.uint64)
    covered = np.zeros(k, np.int64)
    for g in range(n_games):
        seed_stream(state, key, g, stream)
        covered[:] = 0
        on_card = 0
        for t in range(turns):
            wild = 0
            for _ in range(n_dice - on_card):
                c = face_codes[randbelow(state, n_faces)]
                if c == wild_code:
                    wild += 1
                elif c >= 0 and covered[c] < required_counts[c]:
                    covered[c] += 1
                    on_card += 1
            if wild_matches:
                for i in order:
                    add = min(wild, required_counts[i] - covered[i])
                    covered[i] += add
                    on_card += add
                    wild -= add
            if on_card == need_total:
                attacks[t] += 1
                covered[:] = 0
                on_card = 0
    return attacks
