"""VÁLKA Chance Strike (rulebook, "On Your Turn" → Attack → Chance Strike).

    "The Striking and Defending players each roll a D10. The Striking Fighter
    adds their total Strike score to the outcome of their roll. The defending
    Fighter adds their total Shield score to the outcome of their roll. If
    either player rolls a 10, they win the combat. If both roll a 10 or there
    is a tie of any value, advantage goes to the attacker. The Fighter with
    the higher total value wins the Combat, and deals 1 damage to the other
    Fighter. If either player rolls a 1 they automatically fail to strike or
    fail to defend, regardless of their equipped Buffs. If both roll a 1, they
    both deal 1 damage to themselves."

Two readings are left open and are rule options (see docs/rules.md):

* ``lone_one`` — what a natural 1 rolled by one fighter alone does.
  ``"loses"`` (default): that fighter loses the combat, so an attacker's lone
  1 lets the defender win. ``"fails"``: it only fails, so an attacker's lone 1
  means nobody is damaged (a defender's lone 1 lets the strike land either way).
* ``defender_deals_damage`` — whether a defender who wins deals 1 damage to
  the attacker (default true, "deals 1 damage to the other Fighter"), or only
  blocks.

Outcome codes: 0 = no damage, 1 = attacker hits (defender takes 1),
2 = defender hits (attacker takes 1), 3 = both hurt (double 1s).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simkit.core.rng import roll, seed_stream
from simkit.games.valka import strike_rule
from simkit.games.valka.strike_rule import (  # noqa: F401  (the public names of this module)
    ATTACKER_HITS, BOTH_HURT, D10, DEFENDER_HITS, LONE_ONE_READINGS, NO_DAMAGE, OUTCOME_NAMES, ChanceStrikeRules,
    chance_strike, expected_strikes_to_defeat, outcome_distribution)

# the rule of strike_rule.resolve, compiled for the kernels (the exact odds run the same source as plain Python)
resolve = njit(cache=True, _nrt=False)(strike_rule.resolve)


@njit(cache=True)
def count_outcomes(key, n, strikes, shields, lone_one_loses, defender_deals_damage):
    """Monte Carlo: ``counts[cell, outcome]`` over ``n`` strikes per (strike, shield) cell.

    Strike ``i`` of cell ``c`` draws both d10s from stream ``(i, c)``: the
    cells of a table are independent samples, so a chi-square test summed over
    the cells is valid.
    """
    cells = strikes.shape[0]
    counts = np.zeros((cells, 4), dtype=np.int64)
    state = np.empty(4, dtype=np.uint64)
    for c in range(cells):
        for i in range(n):
            seed_stream(state, key, i, c)
            a = roll(state, D10)
            d = roll(state, D10)
            counts[c, resolve(a, d, strikes[c], shields[c], lone_one_loses, defender_deals_damage)] += 1
    return counts


@njit(cache=True)
def roll_events(key, n, strikes, shields, lone_one_loses, defender_deals_damage):
    """Monte Carlo, one row per strike per cell: (game, cell, attacker_roll, defender_roll, outcome).

    Strike ``i`` of cell ``c`` rolls on stream ``(i, c)``, as in :func:`count_outcomes`.
    """
    cells = strikes.shape[0]
    rows = n * cells
    game = np.empty(rows, np.int32)
    cell = np.empty(rows, np.int32)
    a_roll = np.empty(rows, np.int8)
    d_roll = np.empty(rows, np.int8)
    outcome = np.empty(rows, np.int8)
    state = np.empty(4, dtype=np.uint64)
    for c in range(cells):
        for i in range(n):
            seed_stream(state, key, i, c)
            a = roll(state, D10)
            d = roll(state, D10)
            r = c * n + i
            game[r] = i
            cell[r] = c
            a_roll[r] = a
            d_roll[r] = d
            outcome[r] = resolve(a, d, strikes[c], shields[c], lone_one_loses, defender_deals_damage)
    return game, cell, a_roll, d_roll, outcome
