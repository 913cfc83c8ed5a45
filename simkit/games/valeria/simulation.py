"""Valeria on the runner: scenario, cell kernels and per-seat rows.

A cell is a player count x a policy under test x (with an ``opponent``) the seat it takes; the other seats play
the opponent. With ``opponent = "self"`` every seat plays the policy (a mirror game) and each seat of the game is
reported: the seat advantage. Every cell replays the same game streams (game g of a block: chance from stream
(g, 0), the policies' coin flips from (g, 1)): common random numbers.

Rows (one per game per cell per reported seat)::

    game, players, policy, seat, seat_policy, won (the seat is the sole winner), tie (a shared win), score,
    margin (score less the best other score), rounds, turns, capped, herald_per_roll, income_per_round,
    ended (the end conditions that held when the end was triggered: "monsters", "domains", "exhausted" joined by
    "+", or "capped"), slain (Monsters slain in the game, Monster Events included), events_slain
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from numba import njit

from simkit.core import decision as D
from simkit.core.policies import SEARCH, compile_policy, decision_policies, stack_params
from simkit.core.rng import seed_stream
from simkit.core.simulation import Metric, Simulation, distinct
from simkit.games.valeria.rules_version import RULES_VERSION
from simkit.games.valeria import engine as E
from simkit.games.valeria import state as S
from simkit.games.valeria.cards import K_NUM0, CardSet, load_cards
from simkit.games.valeria.scenario import OPTIONS, read_valeria  # noqa: F401  (re-exported)

FNS = D.Fns(E.legal_actions, E.apply_action, E.is_over, E.to_move, E.reward, E.resample, E.policy)
SEARCHER = D.specialize(FNS, __name__, E.LEARNED_FNS)  # the generic search, compiled (and cached) for Valeria
play_to_end = SEARCHER.play_to_end
# per game: winner mask, rounds, turns, decisions, capped, end conditions, Monsters slain, Events slain, then per
# seat: score, herald, harvest
NHEAD = 8
ENDED = ("capped", "monsters", "domains", "monsters+domains", "exhausted", "monsters+exhausted",
         "domains+exhausted", "monsters+domains+exhausted")  # by END_WHY
NCOL = NHEAD + 3 * S.MAX_P


def _defaults(options) -> dict:
    opts = {k: v[1] for k, v in OPTIONS.items()}
    opts.update({"monster_events": False, "preselect_event": ""})
    opts.update(options)
    return opts


def rules_vector(cards: CardSet, players: int = 4, turn_cap: int = 60, **options) -> np.ndarray:
    r = np.zeros(S.N_RULES, np.int64)
    opts = _defaults(options)
    r[S.R_PLAYERS] = players
    r[S.R_HERALD] = S.HERALD_2E if opts["herald"] == "herald" else S.CONSOLATION_1E
    r[S.R_DOUBLES] = OPTIONS["doubles"][0].index(opts["doubles"])
    r[S.R_TURN_CAP] = turn_cap
    r[S.R_START_GOLD] = 2  # "each player 2 Gold and 1 Magic"
    r[S.R_START_MAGIC] = 1
    r[S.R_FIVE] = OPTIONS["five_player"][0].index(opts["five_player"])
    five = players == 5 and r[S.R_FIVE] == S.FIVE_VARIANT
    if five and not cards.domains_five:
        raise ValueError("rules.five_player = 'variant' at 5 players needs one Domain per stack marked five_player = "
                         "true in the cards file (stacks of 4); allowed values: 'base'")
    r[S.R_N_DOM] = len(cards.domains) + (len(cards.domains_five) if five else 0)
    r[S.R_N_DUKE] = len(cards.dukes)
    r[S.R_N_MON] = len(cards.monsters_five if five else cards.monsters)
    r[S.R_MAGIC_GOLD] = OPTIONS["magic_gold"][0].index(opts["magic_gold"])
    keys = [e["key"] for e in cards.events]
    r[S.R_EVENTS] = int(bool(opts["monster_events"]))
    r[S.R_PRESELECT] = keys.index(opts["preselect_event"]) if opts["preselect_event"] else -1
    r[S.R_N_EV] = len(cards.events)
    r[S.R_IF_ABLE] = OPTIONS["if_able"][0].index(opts["if_able"])
    r[S.R_ALL_SLAIN] = OPTIONS["all_slain"][0].index(opts["all_slain"])
    r[S.R_TOKEN_ON] = OPTIONS["token_on"][0].index(opts["token_on"])
    if r[S.R_EVENTS] and len(cards.events) < 5:
        raise ValueError("rules.monster_events needs 5 to 10 Monster Events in the cards file")
    return r


def expected_activations(cards: CardSet, doubles: str = "twice") -> np.ndarray:
    """Expected activations per roll of one copy of each Citizen kind (exact over the 36 rolls; the heuristics'
    income estimate)."""
    k = cards.arrays()[0]
    out = np.zeros(k.shape[0], np.float64)
    for i in range(k.shape[0]):
        total = Fraction(0)
        for d1 in range(1, 7):
            for d2 in range(1, 7):
                for j in range(2):
                    m = int(k[i, K_NUM0 + j])
                    if m == 0:
                        continue
                    dice = int(m == d1) if (doubles == "once" and d1 == d2) else int(m == d1) + int(m == d2)
                    total += dice + int(m == d1 + d2)
        out[i] = float(total / 36)
    return out


def make_env(cards: CardSet, players: int = 4, turn_cap: int = 60, **options):
    """The environment of a ``players``-player game (at 5 players with ``rules.five_player = "variant"``: the
    5-player Monster and Domain tables, ``CardSet.arrays(five=True)``)."""
    opts = _defaults(options)
    k, m, d, u, a = cards.arrays(players == 5 and opts["five_player"] == "variant")
    return (k, m, d, u, a, rules_vector(cards, players, turn_cap, **opts), expected_activations(cards, opts["doubles"]),
            cards.event_array())


@njit(cache=True)
def _cell_env(env, players):
    """``env`` for ``players`` players (for 5 players pass the 5-player environment, ``make_env(cards, 5)``: its
    tables differ in the 5-player variant)."""
    rules = env[5].copy()
    rules[S.R_PLAYERS] = players
    return (env[0], env[1], env[2], env[3], env[4], rules, env[6], env[7])


@njit(cache=True)
def record(s, row):
    row[0] = s[S.WIN_MASK]
    row[1] = s[S.ROUNDS]
    row[2] = s[S.TURNS]
    row[3] = s[S.DECISIONS]
    row[4] = s[S.CAPPED]
    row[5] = s[S.END_WHY]
    slain = 0
    for m in range(S.MAX_MON):
        slain += 1 if s[S.MON_OWNER + m] >= 0 else 0
    ev = 0
    for e in range(S.MAX_EV):
        ev += 1 if s[S.EV_OWNER + e] >= 0 and s[S.EV_POS + e] == S.EV_TAKEN else 0
    row[6] = slain + ev
    row[7] = ev
    for p in range(S.MAX_P):
        row[NHEAD + 3 * p] = s[S.SCORE + p]
        row[NHEAD + 3 * p + 1] = s[S.HERALD + p]
        row[NHEAD + 3 * p + 2] = s[S.HARVEST + p]


@njit(cache=True)
def play_cells(key, n, env, env5, players, kinds, params, out):
    """Heuristic and random policies (the cached fast path): row c * n + g gets game g of cell c; ``kinds[c, p]``
    and ``params[c, p]`` are seat p's policy; ``env5``: the 5-player environment."""
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
            record(s, out[c * n + g])


@njit(cache=True)
def play_cells_search(key, n, env, env5, players, kinds, params, cfgs, base_params, out):
    """The same with any policy, `search` included."""
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
            play_to_end(s, rng, cenv, kinds[c], params[c], cfgs[c], base_params[c], prng, buf, 100_000)
            record(s, out[c * n + g])


class ValeriaSim(Simulation):
    """Games for every player count x policy (x seat) cell of a scenario."""

    game = "valeria"
    mode = "kingdoms"
    rules_version = RULES_VERSION
    default_block_size = 500

    def __init__(self, cards: CardSet, players: list[int], policies, opponent: str = "self",
                 options: dict | None = None, turn_cap: int = 60, cards_file: str = "", tested=None):
        self.cards = cards
        self.cards_file = cards_file
        self.players = list(players)
        self.options = _defaults(options or {})
        self.turn_cap = turn_cap
        self._env = make_env(cards, 4, turn_cap, **self.options)
        self._env5 = make_env(cards, 5, turn_cap, **self.options) if 5 in self.players else self._env
        self.policy_specs = list(policies)
        self.opponent = opponent
        specs = {name: (kind, values) for name, kind, values in self.policy_specs}
        compiled = {name: compile_policy(kind, values, E.PARAMS) for name, (kind, values) in specs.items()}
        self.tested = list(tested or specs)
        cells = []  # (players, policy, lineup, reported seats)
        for np_ in self.players:
            for name in self.tested:
                if opponent == "self":
                    cells.append((np_, name, [name] * np_, list(range(np_))))
                else:
                    for seat in range(np_):
                        lineup = [opponent] * np_
                        lineup[seat] = name
                        cells.append((np_, name, lineup, [seat]))
        self._cells = cells
        nc = len(cells)
        self._players = np.array([c[0] for c in cells], np.int64)
        self._kinds = np.zeros((nc, S.MAX_P), np.int64)
        self._cfgs = np.zeros((nc, S.MAX_P, D.N_CFG), np.int64)
        seat_params, seat_base = [], []
        first = next(iter(compiled.values()))
        for i, (_, _, lineup, _) in enumerate(cells):
            for p in range(S.MAX_P):
                k, v, cfg, base = compiled[lineup[p]] if p < len(lineup) else first
                self._kinds[i, p], self._cfgs[i, p] = k, cfg
                seat_params.append(v)
                seat_base.append(base)
        self._params = stack_params(seat_params)[:S.MAX_P * nc].reshape(nc, S.MAX_P, -1)
        self._base = stack_params(seat_base)[:S.MAX_P * nc].reshape(nc, S.MAX_P, -1)
        self._row_cell = np.array([i for i, c in enumerate(cells) for _ in c[3]], np.int64)
        self._row_seat = np.array([seat for c in cells for seat in c[3]], np.int64)
        by = ("players", "policy", "seat")
        self.metrics = [
            Metric("win_rate", "won", "rate", by, "the seat won (sole winner)"),
            Metric("score", "score", "mean", by, "Victory Points"),
            Metric("herald_per_roll", "herald_per_roll", "mean", by, "Herald (1E: consolation) activations per roll"),
            Metric("income_per_round", "income_per_round", "mean", by, "Resources harvested per round"),
            # every reported seat of a game is a row of its own: the game is the unit
            Metric("rounds", "rounds", "mean", ("players", "policy"), "rounds per game", unit="game"),
            Metric("tie_rate", "tie", "rate", ("players", "policy"), "shared win", unit="game"),
            Metric("capped_rate", "capped", "rate", ("players", "policy"), "ended by rules.turn_cap", unit="game"),
        ]

    @property
    def cells(self) -> int:
        """Rows per game index: one per reported seat of each cell."""
        return len(self._row_cell)

    @property
    def games_per_index(self) -> int:
        return len(self._cells)

    def env(self):
        return self._env

    def env_for(self, players: int):
        """The environment of a ``players``-player cell."""
        return _cell_env(self._env5 if players == 5 else self._env, players)

    def run_block(self, key, n):
        nc = len(self._cells)
        out = np.zeros((nc * n, NCOL), np.int64)
        if (self._kinds == SEARCH).any():
            play_cells_search(key, n, self._env, self._env5, self._players, self._kinds, self._params, self._cfgs,
                              self._base, out)
        else:
            play_cells(key, n, self._env, self._env5, self._players, self._kinds, self._params, out)
        nr = len(self._row_cell)
        cell = np.repeat(self._row_cell, n)
        seat = np.repeat(self._row_seat, n)
        g = np.tile(np.arange(n), nr)
        o = out[cell * n + g]
        mask = o[:, 0]
        winners = np.zeros(len(mask), np.int64)
        for p in range(S.MAX_P):
            winners += (mask >> p) & 1
        won_seat = (mask >> seat) & 1
        scores = o[:, NHEAD::3][:, :S.MAX_P].copy()
        sc = scores[np.arange(len(seat)), seat]
        others = scores.copy()
        others[np.arange(len(seat)), seat] = -10**6
        players = self._players[cell]
        for p in range(S.MAX_P):
            others[players <= p, p] = -10**6
        rounds = np.maximum(o[:, 1], 1)
        turns = np.maximum(o[:, 2], 1)
        lineups = np.array([c[2][s_] for c in self._cells for s_ in c[3]])
        return {
            "game": g.astype(np.int32),
            "players": players.astype(np.int8),
            "policy": np.array([c[1] for c in self._cells])[cell],
            "seat": seat.astype(np.int8),
            "seat_policy": np.repeat(lineups, n),
            "won": ((won_seat == 1) & (winners == 1)).astype(np.int8),
            "tie": (winners > 1).astype(np.int8),
            "score": sc.astype(np.int16),
            "margin": (sc - others.max(axis=1)).astype(np.int16),
            "rounds": o[:, 1].astype(np.int16),
            "turns": o[:, 2].astype(np.int16),
            "capped": o[:, 4].astype(np.int8),
            "herald_per_roll": o[np.arange(len(seat)), NHEAD + 3 * seat + 1] / turns,
            "income_per_round": o[np.arange(len(seat)), NHEAD + 3 * seat + 2] / rounds,
            "ended": np.array(ENDED)[o[:, 5]],
            "slain": o[:, 6].astype(np.int16),
            "events_slain": o[:, 7].astype(np.int8),
        }

    def declared_columns(self):
        return {"game": "number", "players": "number", "policy": "text", "seat": "number", "seat_policy": "text",
                **dict.fromkeys(("won", "tie", "score", "margin", "rounds", "turns", "capped", "herald_per_roll",
                                 "income_per_round"), "number"),
                "ended": "text", "slain": "number", "events_slain": "number"}

    def column_values(self):
        return {"players": distinct(self._players), "policy": distinct([c[1] for c in self._cells]),
                "seat": distinct(self._row_seat), "seat_policy": distinct([c[2][s] for c in self._cells for s in c[3]]),
                "ended": list(ENDED)}

    def describe(self):
        return {"cards": self.cards_file, "cards_notice": self.cards.notice, "players": self.players,
                "rule_options": self.options, "turn_cap": self.turn_cap, "opponent": self.opponent,
                "policies": {name: {"kind": kind, **{k: v for k, v in values.items() if k != "base_params"}}
                             for name, kind, values in self.policy_specs}}


def decision_game(scenario=None) -> D.DecisionGame:
    """The interface's view: without ``scenario``, the bundled cards, 2E rules, game ``seed`` with ``2 + seed % 4``
    players and the bundled heuristic and random policies (the generic tests); with a scenario file, its cards,
    rule options and player counts (``seed % len(players)``) and its heuristic, random and learned policies."""
    pols = {}
    for name, (kind, values) in E.PRESETS.items():
        k, p, _, _ = compile_policy(kind, values, E.PARAMS)
        pols[name] = (k, p)
    if scenario is None:
        cards = load_cards()
        envs = [make_env(cards, n) for n in (2, 3, 4, 5)]
    else:
        from simkit.core import loader

        sim = loader.load(scenario).simulation
        envs = [sim.env_for(n) for n in sim.players]
        pols.update(decision_policies(sim.policy_specs, E.PARAMS))

    def new(seed: int):
        env = envs[seed % len(envs)]
        s = np.zeros(S.STATE_SIZE, np.int32)
        rng = np.empty(4, np.uint64)
        seed_stream(rng, np.array([seed, 0], np.uint64), 0, 0)
        E.new_game(s, rng, env)
        return s, rng, env

    dg = D.DecisionGame("valeria/kingdoms", FNS, S.MAX_ACTIONS, new, pols, E.invariants, S.MAX_P, SEARCHER,
                        learned=E.LEARNED_FNS, feature_names=E.FEATURES)
    dg.cells = len(envs)  # game seed at player count seed % cells (simkit.core.value.held_out)
    return dg
