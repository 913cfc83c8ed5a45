"""Random numbers inside numba kernels.

xoshiro256** (Blackman & Vigna), seeded per game by splitmix64 from the block
key and the game's index in the block. The state of one stream is a
``uint64[4]`` array; kernels keep one per game they are playing.

Game ``g`` of a block therefore always sees the same stream, whichever cell
(warband, policy, variant) is being played: that is what makes comparisons use
common random numbers.
"""

from __future__ import annotations

import numpy as np
from numba import njit

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


@njit(cache=True, inline="always")
def _splitmix64(x):
    z = x + _GOLDEN
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31)), x + _GOLDEN


@njit(cache=True, _nrt=False)
def seed_stream(state, key, game, stream=0):
    """Fill ``state`` (uint64[4]) with the stream of game ``game`` under block ``key``.

    ``stream`` separates independent uses within one game (e.g. 0 for the
    game's dice, 1 for a policy's own coin flips).
    """
    x = key[0] ^ (np.uint64(game) * _MIX2) ^ (np.uint64(stream) * _MIX1)
    x = x + key[1]
    for i in range(4):
        out, x = _splitmix64(x)
        state[i] = out
    # xoshiro must not start all-zero; splitmix64 output never is in practice,
    # but guard anyway.
    if state[0] == 0 and state[1] == 0 and state[2] == 0 and state[3] == 0:
        state[0] = _GOLDEN


@njit(cache=True, inline="always")
def _rotl(x, k):
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@njit(cache=True, _nrt=False)
def next_u64(state):
    """The next 64-bit output of the stream (xoshiro256**)."""
    result = _rotl(state[1] * np.uint64(5), 7) * np.uint64(9)
    t = state[1] << np.uint64(17)
    state[2] ^= state[0]
    state[3] ^= state[1]
    state[1] ^= state[2]
    state[0] ^= state[3]
    state[2] ^= t
    state[3] = _rotl(state[3], 45)
    return result


@njit(cache=True, _nrt=False)
def randbelow(state, n):
    """A uniform integer in ``[0, n)`` (1 <= n < 2**31), without modulo bias."""
    limit = (np.uint64(1) << np.uint64(31)) // np.uint64(n) * np.uint64(n)
    while True:
        x = next_u64(state) >> np.uint64(33)
        if x < limit:
            return np.int64(x % np.uint64(n))


@njit(cache=True, _nrt=False)
def roll(state, sides):
    """One roll of a fair die with faces ``1..sides``."""
    return randbelow(state, sides) + 1


@njit(cache=True, _nrt=False)
def shuffle(state, arr, n):
    """Fisher–Yates shuffle of the first ``n`` items of ``arr`` in place."""
    for i in range(n - 1, 0, -1):
        j = randbelow(state, i + 1)
        tmp = arr[i]
        arr[i] = arr[j]
        arr[j] = tmp


@njit(cache=True, _nrt=False)
def pick_uniform(state, mask):
    """A uniformly random index i with ``mask[i] != 0`` (-1 when there is none): a random legal choice."""
    n = 0
    for i in range(mask.shape[0]):
        if mask[i]:
            n += 1
    if n == 0:
        return -1
    k = randbelow(state, n)
    for i in range(mask.shape[0]):
        if mask[i]:
            if k == 0:
                return i
            k -= 1
    return -1
