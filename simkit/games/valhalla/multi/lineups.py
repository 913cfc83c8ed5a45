"""Valhalla multiplayer with mixed tables, for the report's skill ladder: one *hero* policy against a *field*.

The bundled runner plays every seat of a table with the cell's policy (tables of equals), where every policy wins
about the fair share 1/n whatever its skill. Here game ``g`` seats the hero in seat ``g % players`` and the field
policy in every other seat, so each hero meets the same field, rotated through every seat. Every hero replays the
same deals, choices stream and dice per game (the streams of ``simulation.play_cells``: common random numbers), so
heroes are compared game by game.

Rows (one per game, a polars frame): ``block, game, players, variant, hero, field, hero_seat, hero_win`` (the hero
has the most Glory, shared or not), ``hero_share`` (its reward: 1, or 1/k of a k-way shared win, 0) and the
engine's own columns (``simulation.COLUMNS``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simkit.core.policies import compile_policy, stack_params
from simkit.core.rng import seed_stream
from simkit.games.valhalla.multi import engine as E
from simkit.games.valhalla.multi import layout as L
from simkit.games.valhalla.multi import policies as pol
from simkit.games.valhalla.multi.simulation import (
    COLUMNS, MAX_STEPS, engine_columns, hero_wins, play_to_end, rules_vector, write_row,
)


@njit(cache=True)
def play_lineup(key, n, T, deck_ids, rules, kinds, params, cfgs, base_params, out, seats):
    """Play games ``0..n-1`` of block ``key``: row 0 of ``kinds`` etc. is the hero (seat ``g % players``), row 1
    the field (every other seat); ``out[g]`` gets the engine's row, ``seats[g]`` the hero's seat."""
    cards, need, p_act, jarls, clan_ability, faces = T
    env = (cards, need, p_act, jarls, clan_ability, faces, rules)
    np_ = rules[L.R_PLAYERS]
    s = np.zeros(L.STATE_SIZE, np.int32)
    rng = np.empty(4, np.uint64)
    prng = np.empty(4, np.uint64)
    shuffler = np.empty(4, np.uint64)
    buf = np.empty(L.MAX_ACTIONS, np.int64)
    ks = np.empty(np_, np.int64)
    ps = np.empty((np_, params.shape[1]), np.float64)
    cs = np.empty((np_, cfgs.shape[1]), np.int64)
    bs = np.empty((np_, base_params.shape[1]), np.float64)
    for g in range(n):
        hero = g % np_
        for p in range(np_):
            r = 0 if p == hero else 1
            ks[p] = kinds[r]
            ps[p] = params[r]
            cs[p] = cfgs[r]
            bs[p] = base_params[r]
        seed_stream(shuffler, key, g, 0)
        seed_stream(prng, key, g, 1)
        seed_stream(rng, key, g, 2)
        E.new_game(s, rng, env, shuffler, deck_ids)
        play_to_end(s, rng, env, ks, ps, cs, bs, prng, buf, MAX_STEPS)
        write_row(s, cards, out[g])
        seats[g] = hero


def _compiled(spec):
    """``compile_policy`` of a ``(name, kind, values)`` spec."""
    return compile_policy(spec[1], spec[2], pol.PARAMS)


def play_heroes(sim, heroes: list[str], field: str, players: list[int], variant: str, games: int, seed: int,
                block_size: int = 600):
    """Rows (polars) of every hero in ``heroes`` against ``field`` at each table size, ``games`` games each, in
    blocks of ``block_size`` keyed ``block_key(seed, block)`` (the same deals for every hero and table size).

    ``sim``: a loaded ``MultiSim`` whose ``policy_specs`` name every hero and the field."""
    import polars as pl

    from simkit.core.seeding import block_key

    specs = {name: (name, kind, values) for name, kind, values in sim.policy_specs}
    missing = [p for p in [*heroes, field] if p not in specs]
    if missing:
        raise ValueError(f"policies not in the scenario: {missing}")
    fk, fv, fc, fb = _compiled(specs[field])
    ids = sim.ids[variant]
    parts = []
    for np_ in players:
        rules = rules_vector(players=np_, variant=variant, **sim.options)
        for hero in heroes:
            hk, hv, hc, hb = _compiled(specs[hero])
            kinds = np.array([hk, fk], np.int64)
            params, base = stack_params([hv, fv]), stack_params([hb, fb])
            cfgs = np.stack([hc, fc])
            for b, start in enumerate(range(0, games, block_size)):
                n = min(block_size, games - start)
                out = np.zeros((n, len(COLUMNS)), np.int32)
                seats = np.zeros(n, np.int64)
                play_lineup(block_key(seed, b), n, sim.T, ids, rules, kinds, params, cfgs, base, out, seats)
                cols = {"block": np.full(n, b, np.int32), "game": np.arange(n, dtype=np.int32),
                        "players": np.full(n, np_, np.int8), "variant": [variant] * n, "hero": [hero] * n,
                        "field": [field] * n, "hero_seat": seats.astype(np.int8)}
                cols.update(engine_columns(out))
                mine, k = hero_wins(out, seats, np_)
                cols["hero_win"] = mine.astype(np.int8)
                cols["hero_share"] = mine / np.maximum(k, 1)
                parts.append(pl.DataFrame(cols))
    return pl.concat(parts)
