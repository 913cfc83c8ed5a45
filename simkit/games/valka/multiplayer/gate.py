"""What the gate checks over seats on the VÁLKA multiplayer pages: each Warband's effect in the opening hand.

The pages lead with the strongest opening Warband (``report.warband_effects``): the win share of the seats whose
opening hand held 2 or more of its Fighters minus that of the seats whose hand did not (a win shared by k seats
counts 1/k), at the practical policies' tables (no seat or hero of a `random` policy), the deal as the unit. No
per-game metric carries it, so ``simkit baseline`` and ``check`` add four columns a Warband to each block's rows
(the win shares times 60, whole numbers for at most 5 winners, and the seats, with and without) and check the
difference of the two ratios (:class:`check.SeatNumber`).
"""

from __future__ import annotations

import numpy as np

from simkit.core.check import SeatNumber
from simkit.core.policies import RANDOM
from simkit.games.valka.cards import WARBANDS

SEATS = 5
SCALE = 60  # 1/k times 60 is a whole number for k ≤ 5
# A difference of two win shares, each over the seats with (or without) a Warband, about an eighth of them: it moves
# with more noise than a cell's win rate (the gate's 0.02), and 0.03 keeps the games a baseline needs near those
# the win rates need (the effects the pages lead with are 0.1 to 0.17).
TOLERANCE = 0.03


def seat_numbers(sim) -> list[SeatNumber]:
    """One number per Warband: ``warband_effect[NAME]``, pooled over every cell (table size and hero)."""
    return [SeatNumber(f"warband_effect[{w}]", (f"wb_{w}_y1", f"wb_{w}_m1", f"wb_{w}_y0", f"wb_{w}_m0"), (),
                       f"win share with 2+ {w} Fighters in the opening hand minus without", scale=SCALE,
                       tolerance=TOLERANCE)
            for w in WARBANDS]


def columns(sim, rows: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Per row (a game of a cell): for every Warband, the win shares (times 60) and the number of the practical
    seats whose opening hand held 2+ of its Fighters (``y1``, ``m1``) and of those whose hand did not (``y0``,
    ``m0``)."""
    randoms = [n for n, k in zip(sim.policy_names, sim.kinds) if k == RANDOM]
    practical_table = ~np.isin(np.asarray(rows["policy"]).astype(str), randoms)
    winners = np.maximum(np.asarray(rows["winners"], np.int64), 1)
    seats = [k for k in range(SEATS) if f"seat{k}_order" in rows]
    keep = [practical_table & (np.asarray(rows[f"seat{k}_order"]) >= 0)
            & ~np.isin(np.asarray(rows[f"seat{k}_policy"]).astype(str), randoms) for k in seats]
    share = [np.where(h, (np.asarray(rows[f"seat{k}_won"]) > 0) * (SCALE // winners), 0)
             for k, h in zip(seats, keep)]
    out = {}
    for w in WARBANDS:
        held = [np.asarray(rows[f"seat{k}_wb_{w}"]) >= 2 for k in seats]
        out[f"wb_{w}_y1"] = sum(np.where(h, s, 0) for h, s in zip(held, share)).astype(np.int16)
        out[f"wb_{w}_m1"] = sum((h & k).astype(np.int8) for h, k in zip(held, keep)).astype(np.int8)
        out[f"wb_{w}_y0"] = sum(np.where(h, 0, s) for h, s in zip(held, share)).astype(np.int16)
        out[f"wb_{w}_m0"] = sum((~h & k).astype(np.int8) for h, k in zip(held, keep)).astype(np.int8)
    return out
