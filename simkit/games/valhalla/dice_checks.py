"""Monte Carlo of the Valhalla Solo monster dice on the runner (``simkit odds valhalla-monster --mc N``).

Aggregated rows, one per monster card (cell) per block:

    monster, side, card       which card (card is 1-based, in pile order)
    trials                    games behind the row (each plays ``turns`` monster phases from an empty card)
    attack_t1 .. attack_tT    how many of those games saw the monster attack on turn t

Every cell replays the same game streams (common random numbers). The metrics
are the rates ``attack_t{t}`` = P(the monster attacks on turn t), the twin of
:func:`simkit.games.valhalla.monster_dice.attack_by_turn`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simkit.core.simulation import Metric, Simulation
from simkit.games.valhalla.rules_version import RULES_VERSION
from simkit.games.valhalla.monster_dice import numeric_arrays, simulate_attacks


@dataclass(frozen=True)
class MonsterCell:
    """One monster card to simulate: where it is and what it needs."""

    monster: str
    side: str
    card: int  # 1-based
    weapons: tuple[str, ...]


class MonsterDiceSim(Simulation):
    """Monster phases (6 dice) against each card of ``cells``, ``turns`` phases per game."""

    game = "valhalla"
    mode = "monster-dice"
    rules_version = RULES_VERSION
    default_block_size = 50_000

    def __init__(self, cells, die, turns: int = 20, wild_matches: bool = False, n_dice: int = 6):
        self.cell_list = list(cells)
        self.die_faces = tuple(getattr(die, "faces", die))
        self.turns = int(turns)
        self.wild_matches = bool(wild_matches)
        self.n_dice = int(n_dice)
        self._arrays = [numeric_arrays(c.weapons, self.die_faces) for c in self.cell_list]
        by = ("monster", "side", "card")
        self.metrics = [Metric(f"attack_t{t}", f"attack_t{t}", "rate", by, f"P(attack on turn {t})", "trials")
                        for t in range(1, self.turns + 1)]

    @property
    def cells(self) -> int:
        return len(self.cell_list)

    def run_block(self, key, n):
        counts = np.empty((self.cells, self.turns), np.int64)
        for i, (need, faces, wild) in enumerate(self._arrays):
            # each card on its own stream: independent cells, so a chi-square over the table is valid
            counts[i] = simulate_attacks(key, n, self.turns, need, faces, wild, self.wild_matches, self.n_dice, i)
        cols = {
            "monster": [c.monster for c in self.cell_list],
            "side": [c.side for c in self.cell_list],
            "card": np.array([c.card for c in self.cell_list], np.int16),
            "trials": np.full(self.cells, n, np.int64),
        }
        for t in range(self.turns):
            cols[f"attack_t{t + 1}"] = counts[:, t].copy()
        return cols

    def describe(self):
        return {"rule_options": {"wild_matches_monster": self.wild_matches}, "turns": self.turns,
                "die": list(self.die_faces),
                "cards": [{"monster": c.monster, "side": c.side, "card": c.card, "weapons": list(c.weapons)}
                          for c in self.cell_list]}
