"""What the gate checks over seats on the Valhalla multiplayer page: each Jarl's edge over its fair win share.

The page leads with the strongest and the weakest Jarl by that edge (``report.jarl_table``): over the seats that
kept the Jarl, the win share (a win shared by k seats counts 1/k) minus 1/n of the table it sat at, the deal as the
unit. No per-game metric carries it, so ``simkit baseline`` and ``check`` add two columns a Jarl to each block's
rows: 60 × Σ (share − 1/n) over the seats that kept it (shares 1/k and fair shares 1/n of at most 6 seats are whole
numbers times 60, which the baseline stores in a byte) and the number of those seats; and check their ratio
(:class:`check.SeatNumber`). A Jarl kept in fewer than 3% of the games is left out, as the page leaves it out of
its lead.
"""

from __future__ import annotations

import numpy as np

from simkit.core.check import SeatNumber

SEATS = 6
SCALE = 60  # 1/k and 1/n times 60 are whole numbers for k, n ≤ 6
# As the page, which leaves out of its lead a Jarl kept in fewer than 30 of its 1,000 deals (report.MIN_DEALS): a
# Jarl kept in fewer than 3% of the games is too few to judge (Egil, about 1%, would need 42,000 games a cell)
MIN_DEALS, MIN_SHARE = 30, 0.03


def seat_numbers(sim) -> list[SeatNumber]:
    """One number per Jarl of the deck: ``jarl_edge[NAME]``, per policy, pooled over table sizes and decks."""
    return [SeatNumber(f"jarl_edge[{j.name}]", (f"jarl_edge_{i}", f"jarl_seats_{i}"), ("policy",),
                       f"{j.name}'s win share minus 1/n over the seats that kept it", scale=SCALE,
                       min_units=MIN_DEALS, min_share=MIN_SHARE)
            for i, j in enumerate(sim.deck.jarls)]


def columns(sim, rows: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Per row (a game of a cell): for every Jarl, 60 × Σ (share − 1/n) over the seats that kept it, and their
    number."""
    players = np.asarray(rows["players"], np.int64)
    seats = [k for k in range(SEATS) if f"win_{k}" in rows]
    sitting = [players > k for k in seats]
    win = [np.where(s, np.asarray(rows[f"win_{k}"], np.int64), 0).clip(0) for k, s in zip(seats, sitting)]
    winners = np.maximum(sum(win), 1)
    edge = [w * (SCALE // winners) - SCALE // players for w in win]  # 60 × (share − 1/n), exact
    jarl = [np.where(s, np.asarray(rows[f"jarl_{k}"], np.int64), -1) for k, s in zip(seats, sitting)]
    out = {}
    for i in range(len(sim.deck.jarls)):
        kept = [j == i for j in jarl]
        out[f"jarl_edge_{i}"] = sum(np.where(h, e, 0) for h, e in zip(kept, edge)).astype(np.int16)
        out[f"jarl_seats_{i}"] = sum(h.astype(np.int8) for h in kept).astype(np.int8)
    return out
