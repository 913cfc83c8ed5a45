"""Lonequest on the runner: the scenario file, the block kernel and the per-game rows.

Rows (one per game per Warband × policy cell)::

    game, warband, policy, won, cause (none | no_fighters | no_stamina | stranded | cap), locations_cleared,
    battles, marauders_defeated, krone, stamina, test_fates, test_fates_won, turns,
    chance_strikes, marches, offering_used, pickpocketed

Every cell replays the same game streams (game g of a block draws its dice
from stream (g, 0) and the policy's coin flips from (g, 1)): Warbands and
policies are compared on common random numbers. Heuristic and random cells
run in the cached kernel ``play_block``; a scenario with a `search` policy in
any cell runs ``play_block_search`` (the search compiled for this game by ``decision.specialize``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from numba import njit

from simkit.core.decision import DecisionGame, Fns, specialize
from simkit.core.policies import HEURISTIC, SEARCH, compile_policy, decision_policies, stack_params
from simkit.core.rng import seed_stream
from simkit.core.simulation import Metric, Simulation, distinct
from simkit.games.valka.rules_version import RULES_VERSION
from simkit.games.valka.cards import WARBANDS, CardSet
from simkit.games.valka.lonequest import engine as E
from simkit.games.valka.lonequest import layout as L
from simkit.games.valka.lonequest.features import FEATURES
from simkit.games.valka.lonequest import policies as pol
from simkit.games.valka.lonequest.scenario import (  # noqa: F401  (re-exported)
    ESCAPE, FIREBLAST, GRAVE, MARKET_TRADE, POTION, RETREAT_EQUIPMENT, SCOPES, SPENT_EVENTS, STRONG_ENUF,
    read_lonequest,
)
from simkit.games.valka.quests import compile_quests

COLUMNS = ("won", "cause", "locations_cleared", "battles", "marauders_defeated", "krone", "stamina", "test_fates",
           "test_fates_won", "turns", "chance_strikes", "marches", "offering_used", "pickpocketed")


def rules_vector(strong_enuf="sum", lone_one="loses", defender_deals_damage=True, warband_boons=True,
                 played_faced_scope="location", grave_robber="own", fireblast="plus_3", escape="reachable",
                 spent_events="graveyard", retreat_equipment="all", escape_reward=True, market_trade="same_cost",
                 potion="full", step_cap=5000,
                 krone=12, stamina=3, quests=18, random_fighters=12) -> np.ndarray:
    """The engine's int64 rule vector; the defaults are the plain readings (docs/rules.md)."""
    r = np.zeros(E.N_RULES, np.int64)
    r[E.R_STRONG_ENUF] = STRONG_ENUF.index(strong_enuf)
    r[E.R_LONE_ONE_LOSES] = lone_one == "loses"
    r[E.R_DEFENDER_DAMAGE] = bool(defender_deals_damage)
    r[E.R_BOONS] = bool(warband_boons)
    r[E.R_SCOPE_GAME] = SCOPES.index(played_faced_scope)
    r[E.R_GRAVE_ANY] = GRAVE.index(grave_robber)
    r[E.R_FIREBLAST_OWN] = fireblast == "fighter_plus_3"
    r[E.R_ESCAPE_ARROW] = ESCAPE.index(escape)
    r[E.R_SPENT_LOOT] = SPENT_EVENTS.index(spent_events)
    r[E.R_RETREAT_EQUIPPED] = RETREAT_EQUIPMENT.index(retreat_equipment)
    r[E.R_ESCAPE_REWARD] = bool(escape_reward)
    r[E.R_MARKET_UP] = MARKET_TRADE.index(market_trade)
    r[E.R_POTION_BASE] = POTION.index(potion)
    r[E.R_STEP_CAP] = step_cap
    r[E.R_START_KRONE] = krone
    r[E.R_START_STAMINA] = stamina
    r[E.R_QUESTS] = quests
    r[E.R_RANDOM_FIGHTERS] = random_fighters
    return r


def card_data(cards: CardSet) -> tuple:
    """The card tuple (fighters, buffs, events, quest_code, quest_off, adj, south)."""
    code, offsets = compile_quests(cards.quests)
    d = L.pack_cards(cards, code, offsets)
    return (d["fighters"], d["buffs"], d["events"], d["quest_code"], d["quest_off"], d["adj"], d["south"])


def make_env(data: tuple, rules: np.ndarray, script=None, log=None) -> tuple:
    """The engine's ``env``: the card tuple, the rule vector, a dice script (``[next, d10, …]``; none by
    default) and a Chance Strike log (``[count, (strike, shield, outcome) …]``; none by default)."""
    script = np.ones(1, np.int32) if script is None else np.asarray(script, np.int32)
    log = np.zeros(1, np.int32) if log is None else log
    return (*data, np.asarray(rules, np.int64), script, log)


def fns() -> Fns:
    """The engine's decision-point functions."""
    return Fns(E.legal_actions, E.apply_action, E.is_over, E.to_move, E.reward, E.resample, pol.policy)


SEARCHER = specialize(fns(), __name__, pol.LEARNED_FNS)  # the generic search, compiled (and cached) for the Lonequest
play_to_end = SEARCHER.play_to_end


@njit(cache=True)
def play_game(s, rng, prng, env, warband, kind, params, buf):
    """Set up and play one game with a heuristic or random policy (the fast path: a heuristic that does not
    read the legal list skips building it; tests check that its choices are legal)."""
    E.setup(s, rng, env, warband)
    E.advance(s, rng, env)
    while not E.is_over(s):
        if kind == HEURISTIC and not pol.needs_legal(s):
            a = pol.heuristic(s, env, buf, 0, params, prng)
        else:
            n = E.legal_actions(s, env, buf)
            a = pol.policy(kind, s, env, buf, n, params, prng)
        E.apply_action(s, rng, env, a)


@njit(cache=True)
def play_block(key, n, warbands, kinds, params, env, out):
    """Play ``n`` games in every cell; row ``c * n + g`` of ``out`` gets game g of cell c."""
    s = np.zeros(L.STATE_SIZE, np.int32)
    rng = np.empty(4, np.uint64)
    prng = np.empty(4, np.uint64)
    buf = np.empty(L.MAX_ACTIONS, np.int64)
    for c in range(warbands.shape[0]):
        for g in range(n):
            seed_stream(rng, key, g, 0)
            seed_stream(prng, key, g, 1)
            play_game(s, rng, prng, env, warbands[c], kinds[c], params[c], buf)
            record(s, out[c * n + g])


@njit(cache=True)
def play_block_search(key, n, warbands, kinds, params, cfgs, base_params, env, out):
    """``play_block`` for scenarios with a `search` policy in any cell."""
    s = np.zeros(L.STATE_SIZE, np.int32)
    rng = np.empty(4, np.uint64)
    prng = np.empty(4, np.uint64)
    buf = np.empty(L.MAX_ACTIONS, np.int64)
    for c in range(warbands.shape[0]):
        for g in range(n):
            seed_stream(rng, key, g, 0)
            seed_stream(prng, key, g, 1)
            E.setup(s, rng, env, warbands[c])
            E.advance(s, rng, env)
            play_to_end(s, rng, env, kinds[c:c + 1], params[c:c + 1], cfgs[c:c + 1], base_params[c:c + 1], prng,
                        buf, 1_000_000)
            record(s, out[c * n + g])


@njit(cache=True)
def locations_cleared(s):
    return E.locations_cleared(s)


@njit(cache=True)
def is_won(s):
    """Rule: "You have won Lonequest if you've cleared the entire map!" """
    return E.is_won(s)


@njit(cache=True)
def record(s, row):
    row[0] = is_won(s)
    row[1] = s[L.CAUSE]
    row[2] = locations_cleared(s)
    row[3] = s[L.BATTLES]
    row[4] = s[L.DEFEATED]
    row[5] = s[L.KRONE]
    row[6] = s[L.STAMINA]
    row[7] = s[L.TESTS]
    row[8] = s[L.TESTS_WON]
    row[9] = s[L.TURNS]
    row[10] = s[L.CHANCE_STRIKES]
    row[11] = s[L.MARCHES]
    row[12] = s[L.OFFERING_USED]
    row[13] = s[L.PICKPOCKETED]


@njit(cache=True)
def play_logged(key, n, warband, kind, params, env):
    """Play n games of one cell; the env's log records every Chance Strike (strike, shield, outcome)."""
    s = np.zeros(L.STATE_SIZE, np.int32)
    rng = np.empty(4, np.uint64)
    prng = np.empty(4, np.uint64)
    buf = np.empty(L.MAX_ACTIONS, np.int64)
    won = 0
    for g in range(n):
        seed_stream(rng, key, g, 0)
        seed_stream(prng, key, g, 1)
        play_game(s, rng, prng, env, warband, kind, params, buf)
        won += is_won(s)
    return won


class LonequestSim(Simulation):
    """Lonequest games for every Warband × policy cell of a scenario."""

    game = "valka"
    mode = "lonequest"
    rules_version = RULES_VERSION
    default_block_size = 2_000

    def __init__(self, cards: CardSet, warbands: list[str], policies: list[tuple[str, str, dict]],
                 rules: dict | None = None, cards_file: str = ""):
        self.cards = cards
        self.cards_file = cards_file
        self.rule_options = dict(rules or {})
        self.rules = rules_vector(**self.rule_options)
        self.data = card_data(cards)
        self.env = make_env(self.data, self.rules)
        self.warband_names = list(warbands)
        self.policy_specs = list(policies)
        cells = [(w, p) for w in warbands for p in policies]
        self._warbands = np.array([WARBANDS.index(w) for w, _ in cells], np.int64)
        compiled = [compile_policy(p[1], p[2], pol.PARAMS) for _, p in cells]
        self._kinds = np.array([c[0] for c in compiled], np.int64)
        self._params = stack_params([c[1] for c in compiled]) if cells else np.zeros((0, pol.N_PARAMS))
        self._cfgs = np.stack([c[2] for c in compiled]) if cells else np.zeros((0, 4), np.int64)
        self._base = stack_params([c[3] for c in compiled]) if cells else np.zeros((0, pol.N_PARAMS))
        self.search = bool((self._kinds == SEARCH).any())
        self._cell_warband = np.array([w for w, _ in cells], dtype=object)
        self._cell_policy = np.array([p[0] for _, p in cells], dtype=object)
        by = ("warband", "policy")
        self.metrics = [
            Metric("win_rate", "won", "rate", by, "Lonequest conquered"),
            Metric("fail_no_fighters", "fail_no_fighters", "rate", by, "failed: no Warband Fighter left"),
            Metric("fail_no_stamina", "fail_no_stamina", "rate", by, "failed: too tired to march"),
            Metric("fail_stranded", "fail_stranded", "rate", by, "failed: no route to an uncleared Location"),
            Metric("fail_cap", "fail_cap", "rate", by, "stopped at the step cap"),
            Metric("locations_cleared", "locations_cleared", "mean", by, "Locations cleared"),
            Metric("battles", "battles", "mean", by, "battles fought"),
            Metric("marauders_defeated", "marauders_defeated", "mean", by, "Marauders defeated"),
            Metric("turns", "turns", "mean", by, "turns"),
            # pooled over Warbands, whose games share streams: the game is the unit of the interval
            Metric("win_rate_by_policy", "won", "rate", ("policy",), "Lonequest conquered, all Warbands",
                   unit="game"),
        ]

    @property
    def cells(self) -> int:
        return len(self._warbands)

    def run_block(self, key, n):
        out = np.zeros((self.cells * n, len(COLUMNS)), np.int32)
        if self.search:
            play_block_search(key, n, self._warbands, self._kinds, self._params, self._cfgs, self._base,
                              self.env, out)
        else:
            play_block(key, n, self._warbands, self._kinds, self._params, self.env, out)
        cell = np.repeat(np.arange(self.cells), n)
        cols = {"game": np.tile(np.arange(n, dtype=np.int32), self.cells),
                "warband": self._cell_warband[cell].astype(str), "policy": self._cell_policy[cell].astype(str)}
        for k, name in enumerate(COLUMNS):
            if name == "cause":
                cols[name] = np.array(L.CAUSES)[out[:, k]]
            elif name in ("won", "offering_used"):
                cols[name] = out[:, k].astype(np.int8)
            else:
                cols[name] = out[:, k].astype(np.int16)
        cols["fail_no_fighters"] = (out[:, 1] == L.CAUSE_NO_FIGHTERS).astype(np.int8)
        cols["fail_no_stamina"] = (out[:, 1] == L.CAUSE_NO_STAMINA).astype(np.int8)
        cols["fail_stranded"] = (out[:, 1] == L.CAUSE_STRANDED).astype(np.int8)
        cols["fail_cap"] = (out[:, 1] == L.CAUSE_CAP).astype(np.int8)
        return cols

    def declared_columns(self):
        cols = {"game": "number", "warband": "text", "policy": "text"}
        cols.update({c: "text" if c == "cause" else "number" for c in COLUMNS})
        cols.update(dict.fromkeys(("fail_no_fighters", "fail_no_stamina", "fail_stranded", "fail_cap"), "number"))
        return cols

    def column_values(self):
        return {"warband": distinct(self._cell_warband), "policy": distinct(self._cell_policy),
                "cause": list(L.CAUSES)}

    def describe(self):
        return {"cards": self.cards_file, "cards_notice": self.cards.notice, "rule_options": self.rule_options,
                "warbands": self.warband_names,
                "policies": {name: {"kind": kind, **_plain(params)} for name, kind, params in self.policy_specs}}


def _plain(params: dict) -> dict:
    """A policy's parameters for the manifest (a search policy's base is named, not copied)."""
    return {k: v for k, v in params.items() if k not in ("base_kind", "base_params")}


def decision_game(scenario: str | Path | None = None) -> DecisionGame:
    """The Lonequest on the decision-point interface, from the bundled scenario (or ``scenario``):
    ``new_game(seed)`` deals a game for the scenario's Warband number ``seed % len(warbands)`` with the chance
    stream of seed ``seed`` and stops at its first decision; ``invariants`` is ``engine.invariants`` (codes:
    ``engine.INVARIANTS``); ``policies`` are the scenario's heuristic and random policies."""
    from simkit.core import loader, registry
    from simkit.core.seeding import block_key

    path = Path(scenario) if scenario else registry.scenarios_dir() / "valka" / "lonequest.toml"
    sim = loader.load(path).simulation
    env = sim.env
    warbands = [WARBANDS.index(w) for w in sim.warband_names]

    def new_game(seed: int):
        s = np.zeros(L.STATE_SIZE, np.int32)
        rng = np.empty(4, np.uint64)
        seed_stream(rng, block_key(seed, 0), 0, 0)
        E.setup(s, rng, env, warbands[seed % len(warbands)])
        E.advance(s, rng, env)
        return s, rng, env

    policies = decision_policies(sim.policy_specs, pol.PARAMS)
    dg = DecisionGame(name="valka/lonequest", fns=fns(), max_actions=L.MAX_ACTIONS, new_game=new_game,
                      policies=policies, invariants=E.invariants, search=SEARCHER, learned=pol.LEARNED_FNS,
                      feature_names=FEATURES)
    dg.cells = len(warbands)  # game seed in Warband seed % cells (simkit.core.value.held_out)
    return dg


def build_lonequest(fields) -> LonequestSim:
    """Scenario ``mode = "lonequest"`` (see scenarios/valka/lonequest.toml; the fields are read and checked by
    ``scenario.read_lonequest``)."""
    return LonequestSim(**read_lonequest(fields))
