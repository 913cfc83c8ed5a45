"""Seeds and per-block streams.

Work is cut into blocks of a fixed number of games. Block ``i`` of a run with
root seed ``r`` draws from ``SeedSequence(r, spawn_key=(i,))`` and from nothing
else, so results do not depend on how many workers run the blocks or in which
order they finish. Inside a block, game ``g`` gets its own counter-based
stream (see :mod:`simkit.core.rng`), so two scenarios run on the same seed see
the same shuffles and dice game by game (common random numbers).
"""

from __future__ import annotations

import secrets

import numpy as np

from simkit.errors import InputError

SEED_BITS = 128


def new_root_seed() -> int:
    """A fresh 128-bit root seed, for runs started without ``--seed``."""
    return secrets.randbits(SEED_BITS)


def normalize_seed(seed: int | str | None) -> int:
    """Return a non-negative integer root seed; draw one when ``seed`` is None."""
    if seed is None:
        return new_root_seed()
    try:
        value = int(seed)
    except (TypeError, ValueError):
        raise InputError(f"--seed: expected a non-negative integer, got {seed!r}") from None
    if value < 0:
        raise InputError(f"--seed: expected a non-negative integer, got {seed!r}")
    return value


def block_seed_sequence(root_seed: int, block: int) -> np.random.SeedSequence:
    """The stream of block ``block``: ``SeedSequence(root_seed, spawn_key=(block,))``."""
    return np.random.SeedSequence(root_seed, spawn_key=(block,))


def block_key(root_seed: int, block: int) -> np.ndarray:
    """Two 64-bit words that key every random draw of one block (for numba kernels)."""
    return block_seed_sequence(root_seed, block).generate_state(2, np.uint64)


def block_generator(root_seed: int, block: int) -> np.random.Generator:
    """A numpy Generator on the block's stream, for set-up done in Python."""
    return np.random.Generator(np.random.PCG64(block_seed_sequence(root_seed, block)))
