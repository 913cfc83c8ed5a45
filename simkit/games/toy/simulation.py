"""Draw to Ten on the runner: scenario, cell kernels and per-game rows.

Rows (one per game per policy): ``game, policy, won, total, draws``. Every
policy replays the same shuffles game by game (common random numbers).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simkit.core import decision as D
from simkit.core.policies import LEARNED_KINDS, SEARCH, compile_policy, decision_policies, read_policies, stack_params
from simkit.core.rng import seed_stream
from simkit.core.simulation import Metric, Simulation, distinct
from simkit.games.toy.rules_version import RULES_VERSION
from simkit.games.toy import engine as E

FNS = D.Fns(E.legal_actions, E.apply_action, E.is_over, E.to_move, E.reward, E.resample, E.policy)
SEARCHER = D.specialize(FNS, __name__, E.LEARNED_FNS)
play_to_end = SEARCHER.play_to_end


@njit(cache=True)
def play_cells(key, n, env, kinds, params, out):
    """Heuristic and random policies (the cached fast path): row c * n + g gets game g of cell c."""
    s = np.zeros(E.STATE_SIZE, np.int32)
    rng = np.empty(4, np.uint64)
    prng = np.empty(4, np.uint64)
    buf = np.empty(E.MAX_ACTIONS, np.int64)
    for c in range(kinds.shape[0]):
        for g in range(n):
            seed_stream(rng, key, g, 0)
            seed_stream(prng, key, g, 1)
            E.new_game(s, rng, env)
            while not E.is_over(s):
                k = E.legal_actions(s, env, buf)
                E.apply_action(s, rng, env, E.policy(kinds[c], s, env, buf, k, params[c], prng))
            out[c * n + g, 0] = E.won(s, env)
            out[c * n + g, 1] = s[E.TOTAL]
            out[c * n + g, 2] = s[E.DRAWS]


@njit(cache=True)
def play_cells_search(key, n, env, kinds, params, cfgs, base_params, out):
    """The same with any policy, `search` included."""
    s = np.zeros(E.STATE_SIZE, np.int32)
    rng = np.empty(4, np.uint64)
    prng = np.empty(4, np.uint64)
    buf = np.empty(E.MAX_ACTIONS, np.int64)
    for c in range(kinds.shape[0]):
        for g in range(n):
            seed_stream(rng, key, g, 0)
            seed_stream(prng, key, g, 1)
            E.new_game(s, rng, env)
            play_to_end(s, rng, env, kinds[c:c + 1], params[c:c + 1], cfgs[c:c + 1], base_params[c:c + 1], prng,
                        buf, 1000)
            out[c * n + g, 0] = E.won(s, env)
            out[c * n + g, 1] = s[E.TOTAL]
            out[c * n + g, 2] = s[E.DRAWS]


class DrawSim(Simulation):
    game = "toy"
    mode = "draw"
    rules_version = RULES_VERSION
    default_block_size = 10_000

    def __init__(self, cards, low, high, policies):
        self.cards = np.asarray(cards, np.int32)
        self.rules = np.array([low, high], np.int64)
        self.policy_specs = list(policies)
        compiled = [compile_policy(kind, values, E.PARAMS) for _, kind, values in self.policy_specs]
        self.kinds = np.array([c[0] for c in compiled], np.int64)
        self.params = stack_params([c[1] for c in compiled])
        self.cfgs = np.stack([c[2] for c in compiled])
        self.base_params = stack_params([c[3] for c in compiled])
        self.metrics = [
            Metric("win_rate", "won", "rate", ("policy",), "stopped on 8, 9 or 10"),
            Metric("draws", "draws", "mean", ("policy",), "cards drawn"),
        ]

    @property
    def cells(self):
        return len(self.policy_specs)

    def env(self):
        return (self.cards, self.rules)

    def run_block(self, key, n):
        c = len(self.policy_specs)
        out = np.zeros((c * n, 3), np.int32)
        if (self.kinds == SEARCH).any():
            play_cells_search(key, n, self.env(), self.kinds, self.params, self.cfgs, self.base_params, out)
        else:
            play_cells(key, n, self.env(), self.kinds, self.params, out)
        names = np.array([p[0] for p in self.policy_specs])
        return {
            "game": np.tile(np.arange(n, dtype=np.int32), c),
            "policy": np.repeat(names, n),
            "won": out[:, 0].astype(np.int8),
            "total": out[:, 1].astype(np.int16),
            "draws": out[:, 2].astype(np.int16),
        }

    def declared_columns(self):
        return {"game": "number", "policy": "text", "won": "number", "total": "number", "draws": "number"}

    def column_values(self):
        return {"policy": distinct([p[0] for p in self.policy_specs])}

    def describe(self):
        return {"cards": self.cards.tolist(), "win": self.rules.tolist(),
                "policies": {name: {"kind": kind, **{k: v for k, v in values.items() if k != "base_params"}}
                             for name, kind, values in self.policy_specs}}


def build_draw(fields) -> DrawSim:
    """Scenario ``mode = "draw"`` (see scenarios/toy/draw.toml)."""
    cards = fields.get("cards", list, [1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6])
    if not 1 <= len(cards) <= E.MAX_DECK:
        raise fields.error("cards", f"must list 1 to {E.MAX_DECK} cards (got {len(cards)})")
    for i, c in enumerate(cards):
        if not isinstance(c, int) or isinstance(c, bool) or not 1 <= c <= 20:
            raise fields.error(f"cards[{i}]", f"must be a whole number from 1 to 20 (got {c!r})")
    r = fields.table("rules", default={})
    low = r.get("win_low", int, 8, min=0, max=200)
    high = r.get("win_high", int, 10, min=low, max=200)
    r.finish()
    presets = dict(E.PRESETS)
    presets["search"] = ("search", {"rollouts": 16, "base": "timid", "budget": "halving"})
    # a search's base kind and parameters are filled in by read_policies (a preset's too)
    policies = read_policies(fields, presets, LEARNED_KINDS, E.PARAMS, ["stop_at_8", "timid", "random"])
    return DrawSim(cards, low, high, policies)


def decision_game(scenario=None) -> D.DecisionGame:
    """The interface's view of the bundled scenario (or ``scenario``): its deck and winning totals, and its
    heuristic, random and learned policies (for the generic tests and tools)."""
    from pathlib import Path

    from simkit.core import loader, registry

    path = Path(scenario) if scenario else registry.scenarios_dir() / "toy" / "draw.toml"
    sim = loader.load(path).simulation
    env = sim.env()

    def new(seed: int):
        s = np.zeros(E.STATE_SIZE, np.int32)
        rng = np.empty(4, np.uint64)
        seed_stream(rng, np.array([seed, 0], np.uint64), 0, 0)
        E.new_game(s, rng, env)
        return s, rng, env

    pols = decision_policies(sim.policy_specs, E.PARAMS)
    return D.DecisionGame("toy/draw", FNS, E.MAX_ACTIONS, new, pols, E.invariants, 1, SEARCHER, E.LEARNED_FNS,
                          E.FEATURES)
