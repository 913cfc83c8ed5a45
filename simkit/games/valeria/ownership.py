"""What each seat owned at the end of a Valeria game: the rows of the report's Citizen and Domain value table.

:func:`owned_games` replays a scenario's cells on the runner's streams (block ``b`` keyed by
``block_key(seed, b)``, game ``g`` of a block: chance from stream (g, 0), coin flips from (g, 1), as
:func:`simkit.games.valeria.simulation.play_cells`), so its games are the run's games at the same seed and block
size, and records per game the winners and per seat the Citizens owned by kind and the Domains built. Heuristic
and random policies only (the cached fast path). Nothing here changes a rule: it reads the engine's state
(``state.py``: ``OWN``, ``DOM_OWNER``, ``WIN_MASK``) when the game is over.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from simkit.core.policies import SEARCH
from simkit.core.rng import seed_stream
from simkit.core.seeding import block_key
from simkit.games.valeria import engine as E
from simkit.games.valeria import state as S
from simkit.games.valeria.simulation import _cell_env

# per game: winner mask, players, then per seat: Citizens owned by kind (N_CIT), a bit per Domain built
NCOL = 2 + S.MAX_P * (S.N_CIT + 1)


@njit(cache=True)
def play_owned(key, n, env, env5, players, kinds, params, out):
    """Row ``c * n + g``: game ``g`` of cell ``c`` (the streams of ``play_cells``), what each seat owned at the
    end."""
    s = np.zeros(S.STATE_SIZE, np.int32)
    rng = np.empty(4, np.uint64)
    prng = np.empty(4, np.uint64)
    buf = np.empty(S.MAX_ACTIONS, np.int64)
    for c in range(kinds.shape[0]):
        cenv = _cell_env(env5 if players[c] == 5 else env, players[c])
        for g in range(n):
            seed_stream(rng, key, g, 0)
            seed_stream(prng, key, g, 1)
            E.new_game(s, rng, cenv)
            while not E.is_over(s):
                k = E.legal_actions(s, cenv, buf)
                p = E.to_move(s)
                E.apply_action(s, rng, cenv, E.policy(kinds[c, p], s, cenv, buf, k, params[c, p], prng))
            row = out[c * n + g]
            row[0] = s[S.WIN_MASK]
            row[1] = players[c]
            for p in range(S.MAX_P):
                base = 2 + p * (S.N_CIT + 1)
                for k in range(S.N_CIT):
                    row[base + k] = s[S.OWN + p * S.N_KINDS + k]
                bits = 0
                for d in range(S.MAX_DOM):
                    if s[S.DOM_OWNER + d] == p:
                        bits |= 1 << d
                row[base + S.N_CIT] = bits


def owned_games(sim, games: int, seed: int, block_size: int | None = None) -> dict[str, np.ndarray]:
    """Every cell of ``sim`` (a :class:`~simkit.games.valeria.simulation.ValeriaSim` of heuristic or random
    policies) for ``games`` games: ``cell`` (index into ``sim._cells``), ``block``, ``game``, ``players``,
    ``winners`` (bit mask), ``own[row, seat, kind]`` (Citizens owned at the end) and ``domains[row, seat, d]``
    (1: the seat built Domain ``d``)."""
    if (sim._kinds == SEARCH).any():
        raise ValueError("owned_games: heuristic and random policies only (not search)")
    bs = int(block_size or sim.default_block_size)
    nc = len(sim._cells)
    parts = {k: [] for k in ("cell", "block", "game", "raw")}
    for b in range(math.ceil(games / bs)):
        n = min(bs, games - b * bs)
        out = np.zeros((nc * n, NCOL), np.int64)
        play_owned(block_key(seed, b), n, sim._env, sim._env5, sim._players, sim._kinds, sim._params, out)
        parts["cell"].append(np.repeat(np.arange(nc), n))
        parts["block"].append(np.full(nc * n, b))
        parts["game"].append(np.tile(np.arange(n), nc))
        parts["raw"].append(out)
    raw = np.concatenate(parts["raw"])
    per = raw[:, 2:].reshape(len(raw), S.MAX_P, S.N_CIT + 1)
    nd = S.MAX_DOM
    domains = ((per[:, :, S.N_CIT][:, :, None] >> np.arange(nd)[None, None, :]) & 1).astype(np.int8)
    return {"cell": np.concatenate(parts["cell"]), "block": np.concatenate(parts["block"]),
            "game": np.concatenate(parts["game"]), "players": raw[:, 1], "winners": raw[:, 0],
            "own": per[:, :, :S.N_CIT], "domains": domains}
