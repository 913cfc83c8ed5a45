"""The numba random streams: deterministic per (block key, game), uniform."""

import numpy as np
from scipy import stats as st

from simkit.core.rng import next_u64, randbelow, roll, seed_stream, shuffle
from simkit.core.seeding import block_key


def _stream(key, game):
    s = np.empty(4, np.uint64)
    seed_stream(s, key, game)
    return s


def test_same_key_and_game_same_stream():
    k = block_key(123, 4)
    a, b = _stream(k, 7), _stream(k, 7)
    assert [next_u64(a) for _ in range(5)] == [next_u64(b) for _ in range(5)]


def test_games_and_blocks_differ():
    k0, k1 = block_key(123, 0), block_key(123, 1)
    firsts = {int(next_u64(_stream(k, g))) for k in (k0, k1) for g in range(50)}
    assert len(firsts) == 100


def test_roll_is_uniform_d10():
    s = _stream(block_key(5, 0), 0)
    counts = np.bincount([roll(s, 10) for _ in range(50_000)], minlength=11)[1:]
    assert counts.sum() == 50_000
    assert st.chisquare(counts).pvalue > 0.001


def test_randbelow_range_and_shuffle_is_permutation():
    s = _stream(block_key(9, 2), 3)
    vals = [randbelow(s, 7) for _ in range(2000)]
    assert min(vals) == 0 and max(vals) == 6
    arr = np.arange(20)
    shuffle(s, arr, 20)
    assert sorted(arr.tolist()) == list(range(20)) and arr.tolist() != list(range(20))
