"""The Valkyrie Incident on the runner: scenario, cell kernels and per-game rows.

A cell is an (Alpha Emblem, Omega Emblem) match-up × a policy under test × the seat it takes; the other seat
plays the scenario's ``opponent`` (``"self"``: the same policy, a mirror match; a list of policies, a field: one
cell per opponent, so a metric grouped by the tested policy pools the field; ``"others"``: a round robin, every
other policy of ``play``). Every cell replays the same game
streams (game g of a block: chance from stream (g, 0), the policies' coin flips from (g, 1)), so match-ups and
policies are compared on common random numbers.

Rows (one per game per cell)::

    game, ruleset, alpha_emblem, omega_emblem, alpha_policy, omega_policy, policy, seat,
    won (the policy under test won), alpha_win, draw, winner (alpha | omega | draw),
    alpha_score, omega_score, margin (alpha − omega), alpha_victory, omega_victory,
    alpha_locations, omega_locations, turns (War turns), decisions,
    alpha_cards_lo, alpha_cards_hi, omega_cards_lo, omega_cards_hi   (bit masks of the Incident cards each seat
                                                                      owns at the end: cards 0-44 and 45-89)
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simkit.core import decision as D
from simkit.core.policies import SEARCH, compile_policy, decision_policies, stack_params
from simkit.core.rng import seed_stream
from simkit.core.simulation import Metric, Simulation, distinct
from simkit.games.valkyrie_incident.rules_version import RULES_VERSION
from simkit.games.valkyrie_incident import engine as E
from simkit.games.valkyrie_incident.cards import CardSet, load_cards
from simkit.games.valkyrie_incident.features import FEATURES
from simkit.games.valkyrie_incident.scenario import (  # noqa: F401  (re-exported)
    OPTIONS, RULESETS, SEATS, presets, read_incident,
)

FNS = D.Fns(E.legal_actions, E.apply_action, E.is_over, E.to_move, E.reward, E.resample, E.policy)
SEARCHER = D.specialize(FNS, __name__, E.LEARNED_FNS)  # the generic search, compiled (and cached) for The Valkyrie Incident
play_to_end = SEARCHER.play_to_end
COLUMNS = ("alpha_score", "omega_score", "alpha_victory", "omega_victory", "alpha_locations", "omega_locations",
           "winner", "turns", "decisions", "alpha_cards_lo", "alpha_cards_hi", "omega_cards_lo", "omega_cards_hi")
NCOL = len(COLUMNS)


def rules_vector(ruleset: str = "standard", turn_cap: int = 400, **options) -> np.ndarray:
    r = np.zeros(E.N_RULES, np.int64)
    r[E.R_BLITZ] = RULESETS.index(ruleset)
    r[E.R_EMB0] = -1
    r[E.R_EMB1] = -1
    opts = {k: v[1] for k, v in OPTIONS.items()}
    opts.update(options)
    r[E.R_DECK_SCORING] = OPTIONS["deck_scoring"][0].index(opts["deck_scoring"])
    r[E.R_EMBLEM_BONUS] = OPTIONS["emblem_bonus"][0].index(opts["emblem_bonus"])
    r[E.R_WAR_END] = OPTIONS["war_end"][0].index(opts["war_end"])
    r[E.R_WRECKAGE_CONFLICTS] = opts["wreckage_conflicts"] == "random"
    r[E.R_VBONUS_TIE] = OPTIONS["victory_bonus_tie"][0].index(opts["victory_bonus_tie"])
    r[E.R_BLITZ_DISCARD] = OPTIONS["blitz_discard"][0].index(opts["blitz_discard"])
    r[E.R_TIE_TOKENS] = OPTIONS["tie_tokens"][0].index(opts["tie_tokens"])
    r[E.R_BLITZ_INIT_HAND] = OPTIONS["blitz_initial_hand"][0].index(opts["blitz_initial_hand"])
    r[E.R_TURN_CAP] = turn_cap
    return r


@njit(cache=True)
def owned_mask(s, p):
    lo = np.int64(0)
    hi = np.int64(0)
    for z in range(4):
        base = (E.DECK, E.HAND, E.PILE, E.PLAYED)[z] + p * E.NC
        for i in range(s[(E.N_DECK, E.N_HAND, E.N_PILE, E.N_PLAYED)[z] + p]):
            c = s[base + i]
            if c < 45:
                lo |= np.int64(1) << np.int64(c)
            else:
                hi |= np.int64(1) << np.int64(c - 45)
    return lo, hi


@njit(cache=True)
def record(s, row):
    row[0] = s[E.SCORE]
    row[1] = s[E.SCORE + 1]
    row[2] = s[E.N_VICT]
    row[3] = s[E.N_VICT + 1]
    row[4] = s[E.LOCWON]
    row[5] = s[E.LOCWON + 1]
    row[6] = s[E.WINNER]
    row[7] = s[E.WAR_TURNS]
    row[8] = s[E.DECISIONS]
    row[9], row[10] = owned_mask(s, 0)
    row[11], row[12] = owned_mask(s, 1)


@njit(cache=True)
def _cell_env(env, emb):
    rules = env[3].copy()
    rules[E.R_EMB0] = emb[0]
    rules[E.R_EMB1] = emb[1]
    return (env[0], env[1], env[2], rules)


@njit(cache=True)
def play_cells(key, n, env, embs, kinds, params, out):
    """Heuristic and random policies (the cached fast path): row c * n + g gets game g of cell c; ``kinds[c]``
    and ``params[c]`` hold the Alpha and Omega seats' policies."""
    s = np.zeros(E.STATE_SIZE, np.int32)
    rng = np.empty(4, np.uint64)
    prng = np.empty(4, np.uint64)
    buf = np.empty(E.MAX_ACTIONS, np.int64)
    for c in range(kinds.shape[0]):
        cenv = _cell_env(env, embs[c])
        for g in range(n):
            seed_stream(rng, key, g, 0)
            seed_stream(prng, key, g, 1)
            E.new_game(s, rng, cenv)
            while not E.is_over(s):
                k = E.legal_actions(s, cenv, buf)
                p = E.to_move(s)
                E.apply_action(s, rng, cenv, E.policy(kinds[c, p], s, cenv, buf, k, params[c, p], prng))
            record(s, out[c * n + g])


@njit(cache=True)
def play_cells_search(key, n, env, embs, kinds, params, cfgs, base_params, out):
    """The same with any policy, `search` included."""
    s = np.zeros(E.STATE_SIZE, np.int32)
    rng = np.empty(4, np.uint64)
    prng = np.empty(4, np.uint64)
    buf = np.empty(E.MAX_ACTIONS, np.int64)
    for c in range(kinds.shape[0]):
        cenv = _cell_env(env, embs[c])
        for g in range(n):
            seed_stream(rng, key, g, 0)
            seed_stream(prng, key, g, 1)
            E.new_game(s, rng, cenv)
            play_to_end(s, rng, cenv, kinds[c], params[c], cfgs[c], base_params[c], prng, buf, 100_000)
            record(s, out[c * n + g])


class IncidentSim(Simulation):
    """Games of one ruleset for every match-up × policy × seat cell of a scenario."""

    game = "valkyrie-incident"
    rules_version = RULES_VERSION
    default_block_size = 500

    def __init__(self, cards: CardSet, ruleset: str, matchups: list[tuple[int, int]], policies,
                 opponent: str | list[str], seats: list[str], options: dict | None = None, cards_file: str = "", turn_cap: int = 400,
                 tested: list[str] | None = None):
        self.mode = ruleset
        self.cards = cards
        self.cards_file = cards_file
        self.ruleset = ruleset
        self.options = {k: v[1] for k, v in OPTIONS.items()}
        self.options.update(options or {})
        self.rules = rules_vector(ruleset, turn_cap, **self.options)
        self.data = cards.arrays()
        self.policy_specs = list(policies)
        self.opponent = opponent
        self.matchups = list(matchups)
        specs = {name: (kind, values) for name, kind, values in self.policy_specs}
        compiled = {name: compile_policy(kind, values, E.PARAMS) for name, (kind, values) in specs.items()}
        seats = ["alpha"] if opponent == "self" else list(seats)
        field = [None] if opponent == "self" else [opponent] if isinstance(opponent, str) else list(opponent)
        cells = []
        self.tested = list(tested or specs)
        for a, o in self.matchups:
            for name in self.tested:
                # "others": a round robin, every other tested policy (never itself: a mirror is 1/2 by construction)
                for other in ([t for t in self.tested if t != name] if opponent == "others" else field):
                    for seat in seats:
                        other_name = name if other is None else other
                        pair = (name, other_name) if seat == "alpha" else (other_name, name)
                        cells.append((a, o, name, seat, pair))
        self._cells = cells
        nc = len(cells)
        self._embs = np.array([(a, o) for a, o, *_ in cells], np.int64).reshape(nc, 2)
        self._kinds = np.zeros((nc, 2), np.int64)
        self._cfgs = np.zeros((nc, 2, D.N_CFG), np.int64)
        seat_params, seat_base = [], []
        for i, (*_, pair) in enumerate(cells):
            for p, name in enumerate(pair):
                k, v, cfg, base = compiled[name]
                self._kinds[i, p], self._cfgs[i, p] = k, cfg
                seat_params.append(v)
                seat_base.append(base)
        # a `learned` policy's vector is its base heuristic's parameters followed by its model: padded to the longest
        self._params = stack_params(seat_params or [np.zeros(E.N_PARAMS)])[:2 * nc].reshape(nc, 2, -1)
        self._base = stack_params(seat_base or [np.zeros(E.N_PARAMS)])[:2 * nc].reshape(nc, 2, -1)
        names = [e.key for e in cards.emblems] + ["chosen"]
        self._col = {
            "alpha_emblem": np.array([names[a] for a, *_ in cells]),
            "omega_emblem": np.array([names[o] for _, o, *_ in cells]),
            "policy": np.array([c[2] for c in cells]), "seat": np.array([c[3] for c in cells]),
            "alpha_policy": np.array([c[4][0] for c in cells]), "omega_policy": np.array([c[4][1] for c in cells]),
        }
        by = ("policy", "seat", "alpha_emblem", "omega_emblem")
        pair = ("alpha_policy", "omega_policy")
        self.metrics = [
            Metric("win_rate", "won", "rate", by, "the policy under test won"),
            Metric("alpha_win_rate", "alpha_win", "rate", pair + ("alpha_emblem", "omega_emblem"), "Alpha won"),
            Metric("draw_rate", "draw", "rate", pair, "drawn (equal scores and Victory Cards)", unit="game"),
            # pooled over match-ups, whose games share streams: the game is the unit of the interval
            Metric("win_rate_by_policy", "won", "rate", ("policy", "seat"), "won, all match-ups", unit="game"),
            Metric("alpha_win_by_policy", "alpha_win", "rate", pair, "Alpha won, all match-ups", unit="game"),
            Metric("margin", "margin", "mean", pair, "score margin, Alpha − Omega", unit="game"),
            Metric("turns", "turns", "mean", pair, "War turns per game", unit="game"),
        ]

    @property
    def cells(self) -> int:
        return len(self._cells)

    def env(self):
        return (self.data[0], self.data[1], self.data[2], self.rules)

    def run_block(self, key, n):
        nc = self.cells
        out = np.zeros((nc * n, NCOL), np.int64)
        if (self._kinds == SEARCH).any():
            play_cells_search(key, n, self.env(), self._embs, self._kinds, self._params, self._cfgs, self._base, out)
        else:
            play_cells(key, n, self.env(), self._embs, self._kinds, self._params, out)
        cell = np.repeat(np.arange(nc), n)
        cols = {"game": np.tile(np.arange(n, dtype=np.int32), nc), "ruleset": np.full(nc * n, self.ruleset)}
        for k, v in self._col.items():
            cols[k] = v[cell]
        idx = {name: i for i, name in enumerate(COLUMNS)}
        winner = out[:, idx["winner"]]
        seat = np.where(cols["seat"] == "alpha", 0, 1)
        cols["won"] = (winner == seat).astype(np.int8)
        cols["alpha_win"] = (winner == 0).astype(np.int8)
        cols["draw"] = (winner == 2).astype(np.int8)
        cols["winner"] = np.array(["alpha", "omega", "draw"])[winner]
        for name in ("alpha_score", "omega_score", "alpha_victory", "omega_victory", "alpha_locations",
                     "omega_locations", "turns", "decisions"):
            cols[name] = out[:, idx[name]].astype(np.int16)
        cols["margin"] = (out[:, 0] - out[:, 1]).astype(np.int16)
        for name in ("alpha_cards_lo", "alpha_cards_hi", "omega_cards_lo", "omega_cards_hi"):
            cols[name] = out[:, idx[name]]
        return cols

    def declared_columns(self):
        cols = {"game": "number", "ruleset": "text", **dict.fromkeys(self._col, "text")}
        cols.update(dict.fromkeys(("won", "alpha_win", "draw"), "number"))
        cols["winner"] = "text"
        cols.update(dict.fromkeys(("alpha_score", "omega_score", "alpha_victory", "omega_victory", "alpha_locations",
                                   "omega_locations", "turns", "decisions", "margin", "alpha_cards_lo",
                                   "alpha_cards_hi", "omega_cards_lo", "omega_cards_hi"), "number"))
        return cols

    def column_values(self):
        return {"ruleset": [self.ruleset], **{k: distinct(v) for k, v in self._col.items()},
                "winner": ["alpha", "omega", "draw"]}

    def describe(self):
        return {"cards": self.cards_file, "cards_notice": self.cards.notice, "ruleset": self.ruleset,
                "rule_options": self.options, "opponent": self.opponent,
                "matchups": [[_name(self.cards, a), _name(self.cards, o)] for a, o in self.matchups],
                "policies": {name: {"kind": kind, **{k: v for k, v in values.items() if k != "base_params"}}
                             for name, kind, values in self.policy_specs}}


def _name(cards: CardSet, e: int) -> str:
    return cards.emblems[e].key if e >= 0 else "chosen"


def build(fields, ruleset: str) -> IncidentSim:
    """Scenario ``mode = "standard"`` or ``"blitz"`` (see scenarios/valkyrie_incident/*.toml; the fields are read
    and checked by ``scenario.read_incident`` before any kernel is imported)."""
    return IncidentSim(**read_incident(fields, ruleset))


def decision_game(ruleset: str = "standard", scenario=None) -> D.DecisionGame:
    """The interface's view of a ruleset: without ``scenario``, the bundled cards with the Emblems chosen by the
    policies and the bundled heuristic and random policies (the generic tests); with a scenario file (``simkit
    train``), its cards and rule options, game ``seed`` in its match-up number ``seed % len(match-ups)``, and the
    bundled policies with the scenario's heuristic, random and learned ones."""
    pols = {}
    for name, (kind, values) in E.PRESETS.items():
        k, p, _, _ = compile_policy(kind, values, E.PARAMS)
        pols[name] = (k, p)
    if scenario is None:
        data = load_cards().arrays()
        envs = [(data[0], data[1], data[2], rules_vector(ruleset))]
    else:
        from simkit.core import loader

        sim = loader.load(scenario).simulation
        base = sim.env()
        envs = [_cell_env(base, np.array(m, np.int64)) for m in sim.matchups]
        pols.update(decision_policies(sim.policy_specs, E.PARAMS))

    def new(seed: int):
        env = envs[seed % len(envs)]
        s = np.zeros(E.STATE_SIZE, np.int32)
        rng = np.empty(4, np.uint64)
        seed_stream(rng, np.array([seed, 0], np.uint64), 0, 0)
        E.new_game(s, rng, env)
        return s, rng, env

    dg = D.DecisionGame(f"valkyrie-incident/{ruleset}", FNS, E.MAX_ACTIONS, new, pols, E.invariants, 2, SEARCHER,
                        learned=E.LEARNED_FNS, feature_names=FEATURES)
    dg.cells = len(envs)  # game seed in match-up seed % cells (simkit.core.value.held_out)
    return dg
