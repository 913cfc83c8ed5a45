"""The 2d6 roll simulator behind ``simkit odds valeria --mc`` (numba kernel, aggregated rows)."""

from __future__ import annotations

import numpy as np

from simkit.core.simulation import Metric, Simulation
from simkit.games.valeria.rules_version import RULES_VERSION
from simkit.games.valeria.odds import citizen_array, count_rolls, label


class ValeriaRollSim(Simulation):
    """2d6 rolls, counted in bulk (aggregated rows), for ``--mc``."""

    game = "valeria"
    mode = "roll"
    rules_version = RULES_VERSION
    default_block_size = 1_000_000

    def __init__(self, citizens):
        self.citizens = list(citizens)
        self._arr = citizen_array(self.citizens)
        m = [Metric(f"citizen_{i}", f"citizen_{i}", "rate", (), label(c), "trials") for i, c in enumerate(self.citizens)]
        m += [Metric(f"herald_{k}", f"herald_{k}", "rate", (), f"{k} Herald activations", "trials") for k in range(3)]
        m += [Metric(f"monster_{n}", f"monster_{n}", "rate", (), f"Monster Event {n}", "trials") for n in range(1, 13)]
        self.metrics = m

    def run_block(self, key, n):
        cit, her, mon = count_rolls(key, n, self._arr)
        cols = {"trials": np.array([n], np.int64)}
        for i in range(len(self.citizens)):
            cols[f"citizen_{i}"] = cit[i:i + 1]
        for k in range(3):
            cols[f"herald_{k}"] = her[k:k + 1]
        for m in range(1, 13):
            cols[f"monster_{m}"] = mon[m:m + 1]
        return cols

    def describe(self):
        return {"citizens": [label(c) for c in self.citizens]}
