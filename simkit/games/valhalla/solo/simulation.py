"""Valhalla Solo on the runner: scenario, block kernel and per-game rows.

Rows (one per game per cell; a cell is monster × deck variant × level × Jarl × policy)::

    game, monster, variant (base | plus40), level (1..3), jarl, policy, won, cause (none | shields | deck | cap),
    cards_defeated, shields_left, turns, attacks_won, attacks_lost, defences_won, defences_lost, glory,
    monster_attacks, missions, cards_left (deck cards left at the end), final_attack (0 none, 1 won, 2 lost)

Every cell of a block replays the same streams per game: the deck order from
stream (g, 0), the policy's choices from (g, 1) and the dice from (g, 2). The
levels of one monster and variant therefore start from the same shuffled deck
with the same dice: the level comparisons use common random numbers.

Two kernels play the games through the decision-point interface (``engine``):
``play_cells`` (cached by numba) for heuristic and random policies, calling
``policies.policy`` directly — the fast path; and ``play_cells_search``
(also cached) which plays through the generic search compiled for this game
by ``simkit.core.decision.specialize``; it is used when any cell plays a
``search`` policy.
"""

from __future__ import annotations

import itertools
from math import factorial
from pathlib import Path

import numpy as np
from numba import njit

from simkit.core.decision import DecisionGame, Fns, specialize
from simkit.core.policies import SEARCH, compile_policy, decision_policies, stack_params
from simkit.core.rng import seed_stream
from simkit.core.simulation import Metric, Simulation, distinct
from simkit.games.valhalla.rules_version import RULES_VERSION
from simkit.games.valhalla.monster_dice import _compositions
from simkit.games.valhalla.solo import engine as E
from simkit.games.valhalla.solo import layout as L
from simkit.games.valhalla.solo import policies as pol
from simkit.games.valhalla.solo.battle_roll import new_roll, no_roll
from simkit.games.valhalla.solo.features import FEATURES
from simkit.games.valhalla.solo.scenario import DISCARDS, PATH, VARIANTS, read_solo  # noqa: F401  (re-exported)

COLUMNS = ("won", "cause", "cards_defeated", "shields_left", "turns", "attacks_won", "attacks_lost", "defences_won",
           "defences_lost", "glory", "monster_attacks", "missions", "cards_left", "final_attack")


# The engine's `legal_actions` and `apply_action` and the policies' `policy` are inlined (numba's
# inline="always") into the heuristic kernel `play_cells`, where it pays; the search calls them through these
# kernels instead, so that its six kernels each call one compiled copy rather than compiling their bodies again
# at every call site (the search's compile was 95 of Valhalla Solo's 217 cold CPU-seconds).
@njit(cache=True)
def legal_actions(s, env, out):
    return E.legal_actions(s, env, out)


@njit(cache=True)
def apply_action(s, rng, env, a):
    E.apply_action(s, rng, env, a)


@njit(cache=True)
def policy(kind, s, env, legal, n, params, prng):
    return pol.policy(kind, s, env, legal, n, params, prng)


FNS = Fns(legal_actions, apply_action, E.is_over, E.to_move, E.reward, E.resample, policy)
SEARCHER = specialize(FNS, __name__, pol.LEARNED_FNS)  # the generic search, compiled (and cached) for Valhalla Solo
play_to_end = SEARCHER.play_to_end
MAX_STEPS = 100_000


def rules_vector(level=1, variant="base", wild_warriors=True, wild_monster=False, monster_powers=True,
                 path_to_valhalla="unplayable", turn_cap=400, dice=6, start_discard=40, hand=6,
                 shields=4) -> np.ndarray:
    r = np.zeros(E.N_RULES, np.int64)
    r[E.R_DISCARD] = DISCARDS[level]
    r[E.R_PLUS40] = variant == "plus40"
    r[E.R_WILD_WARRIORS] = bool(wild_warriors)
    r[E.R_WILD_MONSTER] = bool(wild_monster)
    r[E.R_POWERS] = bool(monster_powers)
    r[E.R_PATH_OWN] = path_to_valhalla == "own"
    r[E.R_TURN_CAP] = turn_cap
    r[E.R_DICE] = dice
    r[E.R_START_DISCARD] = start_discard
    r[E.R_HAND] = hand
    r[E.R_SHIELDS] = shields
    return r


def activation_probability(T, rules, card, dice=6) -> float:
    """P(``dice`` rolls of the die activate ``card`` on its own), exact: every face-count vector, weighted by its
    multinomial count, checked with the engine's own ``fit``."""
    faces = [int(f) for f in T[-1]]
    kinds = sorted(set(faces))
    weight = {k: faces.count(k) for k in kinds}
    S = T[1].shape[1]
    env = (*T, rules)
    total = good = 0
    for counts in _compositions(dice, len(kinds)):
        w = factorial(dice)
        for k, c in zip(kinds, counts):
            w = w // factorial(c) * weight[k] ** c
        total += w
        pool = np.int64(0)
        for k, c in zip(kinds, counts):
            pool += np.int64(c) << np.int64(4 * k)
        if E.fit_env(env, card, pool) >= 0:
            good += w
    return good / total


def deck_tables(deck, wild_warriors=True) -> dict:
    """The deck's part of the kernel's tables, the same for every monster and side: computed once a scenario."""
    a = deck.arrays()
    n = len(a["card_type"])
    cards = np.zeros((n, L.N_CCOLS), np.int32)
    cols = {L.C_TYPE: "card_type", L.C_CLAN: "clan", L.C_STR: "strength", L.C_GLORY: "glory", L.C_SPECIAL: "special",
            L.C_ANY: "need_any", L.C_DISTINCT: "distinct", L.C_BLESS: "blessing", L.C_BLESS_CLAN: "blessing_clan",
            L.C_EFFECT: "effect", L.C_VALUE: "value", L.C_SYMBOL: "symbol", L.C_REQ: "requirement",
            L.C_EXP: "expansion"}
    for col, name in cols.items():
        cards[:, col] = a[name]
    need = np.ascontiguousarray(a["need"], dtype=np.int32)
    faces = [int(x) for x in a["die_faces"]]
    clan_ability = np.asarray(a["clan_ability"], np.int32)
    p_act = np.zeros(n, np.float64)
    rules = rules_vector(wild_warriors=wild_warriors)
    probe = (cards, need, p_act, np.zeros((1, L.N_MCOLS), np.int32), np.zeros((1, need.shape[1]), np.int32),
             np.zeros((1, need.shape[1]), np.int32), clan_ability, np.zeros(2, np.int64), np.asarray(faces, np.int32))
    cache = {}
    for c in range(n):
        if cards[c, L.C_TYPE] != L.WARRIOR:
            continue
        ice = cards[c, L.C_CLAN] >= 0 and clan_ability[cards[c, L.C_CLAN]] == L.A_ICE_GIANT
        key = (tuple(need[c]), int(cards[c, L.C_ANY]), int(cards[c, L.C_DISTINCT]), bool(ice))
        if key not in cache:
            cache[key] = activation_probability(probe, rules, c)
        p_act[c] = cache[key]
    return {"arrays": a, "cards": cards, "need": need, "p_act": p_act, "clan_ability": clan_ability,
            "faces": faces}


def tables(deck, D: dict, monsters, monster_key, variant):
    """The kernel's tables for one monster and side, from the deck's part ``D`` (the Jarl row is added per cell)."""
    from simkit.games.valhalla.monster_dice import weapon_types

    a, faces = D["arrays"], D["faces"]
    n = len(a["card_type"])
    m = deck.monster_arrays(monster_key, "plus40" if variant == "plus40" else "base")
    K = len(m["m_strength"])
    mon = np.zeros((K, L.N_MCOLS), np.int32)
    for col, name in {L.M_STRENGTH: "m_strength", L.M_MAX_GLORY: "m_max_glory", L.M_CLANS: "m_clans",
                      L.M_WSYM: "m_warrior_symbols", L.M_POWER: "m_power", L.M_PVAL: "m_power_value"}.items():
        mon[:, col] = m[name]
    mweap = np.ascontiguousarray(m["m_weapons"], dtype=np.int32)
    S = mweap.shape[1]
    # the ⊗ fill order of the exact monster-dice model: most faces first, ties in card order
    mwild = -np.ones((K, S), np.int32)
    side = monsters[monster_key].cards_plus40 if variant == "plus40" else monsters[monster_key].cards_base
    symbols = deck.symbols
    for k, card in enumerate(side):
        types = weapon_types(card.weapons)[0]
        names = [symbols[f] if f < S else "wild" for f in faces]
        order = sorted(range(len(types)), key=lambda i: (-names.count(types[i]), i))
        for j, i in enumerate(order):
            mwild[k, j] = symbols.index(types[i])
    deck_ids = np.array([c for c in range(n) if variant == "plus40" or a["expansion"][c] == 0], np.int64)
    return (D["cards"], D["need"], D["p_act"], mon, mweap, mwild, D["clan_ability"],
            np.asarray(faces, np.int32)), deck_ids


@njit(cache=True)
def write_row(s, env, row, counters):
    mon = env[3]
    row[0] = E.won(s, env)
    row[1] = s[L.CAUSE]
    row[2] = s[L.MON]
    row[3] = max(0, s[L.SHIELDS])
    row[4] = s[L.TURNS]
    row[5] = s[L.ATT_WON]
    row[6] = s[L.ATT_LOST]
    row[7] = s[L.DEF_WON]
    row[8] = s[L.DEF_LOST]
    row[9] = s[L.GLORY]
    row[10] = s[L.MON_ATTACKS]
    row[11] = s[L.MISSIONS]
    row[12] = s[L.DECK_N]
    row[13] = s[L.FINAL]
    for k in range(mon.shape[0]):
        counters[k, 0] += s[L.EMPTY_PHASES + k]
        counters[k, 1] += s[L.EMPTY_ATTACKS + k]


@njit(cache=True, _nrt=False)
def play_out(s, rng, env, kind, par, prng, buf):
    """A dealt game played to its end by one heuristic, `learned` or random policy (compiled without reference
    counting: the engine's and the policy's bodies are inlined here, and each of their reads of the card tables
    would otherwise count a reference)."""
    steps = 0
    while s[L.DONE] == 0 and steps < MAX_STEPS:
        m = E.legal_actions(s, env, buf)
        a = pol.policy(kind, s, env, buf, m, par, prng)
        E.apply_action(s, rng, env, a)
        steps += 1


@njit(cache=True, _nrt=False)
def exact_rolls(params):
    """Does a cell's policy (a row of ``params``) ever roll exactly (``exact_rolls`` or ``exact_last_stand``)?"""
    for c in range(params.shape[0]):
        if params.shape[1] > pol.EXACT_ROLLS and params[c, pol.EXACT_ROLLS] > 0:
            return True
        if params.shape[1] > pol.LAST_STAND and params[c, pol.LAST_STAND] > 0:
            return True
    return False


@njit(cache=True)
def play_cells(key, n, T0, deck_ids, jarls, jarl_idx, kinds, params, rules, out, counters):
    """Play ``n`` games in each cell of one monster and side with heuristic or random policies; row c * n + g gets
    game g of cell c. ``counters[card, 0/1]`` accumulate monster phases begun on an empty card and the attacks
    among them."""
    cards, need, p_act, mon, mweap, mwild, clan_ability, faces = T0
    s = np.zeros(L.STATE_SIZE, np.int32)
    rng = np.empty(4, np.uint64)
    prng = np.empty(4, np.uint64)
    shuffler = np.empty(4, np.uint64)
    buf = np.empty(L.MAX_ACTIONS, np.int64)
    roll = new_roll(faces, need.shape[1]) if exact_rolls(params) else no_roll()
    for c in range(kinds.shape[0]):
        env = (cards, need, p_act, mon, mweap, mwild, clan_ability, jarls[jarl_idx[c]], faces, rules[c], roll)
        kind = kinds[c]
        par = params[c]
        for g in range(n):
            seed_stream(shuffler, key, g, 0)
            seed_stream(prng, key, g, 1)
            seed_stream(rng, key, g, 2)
            E.new_game(s, rng, env, shuffler, deck_ids)
            play_out(s, rng, env, kind, par, prng, buf)
            write_row(s, env, out[c * n + g], counters)


@njit(cache=True)
def play_cells_search(key, n, T0, deck_ids, jarls, jarl_idx, kinds, params, cfgs, base_params, rules, out,
                      counters):
    """``play_cells`` for cells of any kind, `search` included."""
    cards, need, p_act, mon, mweap, mwild, clan_ability, faces = T0
    s = np.zeros(L.STATE_SIZE, np.int32)
    rng = np.empty(4, np.uint64)
    prng = np.empty(4, np.uint64)
    shuffler = np.empty(4, np.uint64)
    buf = np.empty(L.MAX_ACTIONS, np.int64)
    roll = new_roll(faces, need.shape[1]) if exact_rolls(params) or exact_rolls(base_params) else no_roll()
    for c in range(kinds.shape[0]):
        env = (cards, need, p_act, mon, mweap, mwild, clan_ability, jarls[jarl_idx[c]], faces, rules[c], roll)
        for g in range(n):
            seed_stream(shuffler, key, g, 0)
            seed_stream(prng, key, g, 1)
            seed_stream(rng, key, g, 2)
            E.new_game(s, rng, env, shuffler, deck_ids)
            play_to_end(s, rng, env, kinds[c:c + 1], params[c:c + 1], cfgs[c:c + 1], base_params[c:c + 1], prng,
                        buf, MAX_STEPS)
            write_row(s, env, out[c * n + g], counters)


def compiled(cells) -> dict:
    """The kernels' policy arrays of a group's cells: kinds, parameter vectors, search configurations and the
    search policies' base parameter vectors."""
    comp = [compile_policy(p[1], p[2], pol.PARAMS) for _, _, p in cells]
    return {"kinds": np.array([c[0] for c in comp], np.int64), "params": stack_params([c[1] for c in comp]),
            "cfgs": np.stack([c[2] for c in comp]), "base_params": stack_params([c[3] for c in comp])}


def run_group(g: dict, jarl_tab, key, n, out, counters) -> None:
    """Play a group's cells: the cached heuristic kernel unless a cell plays `search`."""
    if (g["kinds"] == SEARCH).any():
        play_cells_search(key, n, g["T0"], g["deck_ids"], jarl_tab, g["jarl_idx"], g["kinds"], g["params"],
                          g["cfgs"], g["base_params"], g["rules"], out, counters)
    else:
        play_cells(key, n, g["T0"], g["deck_ids"], jarl_tab, g["jarl_idx"], g["kinds"], g["params"], g["rules"],
                   out, counters)


class SoloSim(Simulation):
    """Valhalla Solo games for every monster × variant × level × Jarl × policy cell."""

    game = "valhalla"
    mode = "solo"
    rules_version = RULES_VERSION
    default_block_size = 1_000

    def __init__(self, deck, monsters, monster_keys, variants, levels, jarl_keys, policies, options=None,
                 files=None):
        self.deck = deck
        self.options = dict(options or {})
        self.files = dict(files or {})
        self.monster_keys, self.variants, self.levels = list(monster_keys), list(variants), list(levels)
        self.jarl_keys, self.policy_specs = list(jarl_keys), list(policies)
        self.groups = []  # one per (monster, variant): tables and the cells inside
        D = deck_tables(deck, self.options.get("wild_warriors", True))
        jarl_tab = np.stack([D["arrays"]["jarl_ability"], D["arrays"]["jarl_value"]], axis=1).astype(np.int64)
        for mk, var in itertools.product(self.monster_keys, self.variants):
            T0, deck_ids = tables(deck, D, monsters, mk, var)
            cells = list(itertools.product(self.levels, self.jarl_keys, self.policy_specs))
            rules = np.stack([rules_vector(level=lv, variant=var, **self.options) for lv, _, _ in cells])
            self.groups.append({
                "monster": mk, "variant": var, "T0": T0, "deck_ids": deck_ids, "cells": cells, "rules": rules,
                "jarl_idx": np.array([deck.jarl_keys.index(j) for _, j, _ in cells], np.int64),
                **compiled(cells),
            })
        self.jarl_tab = jarl_tab
        by = ("monster", "variant", "level")
        # pooled over Jarls (and levels/policies for the Jarl table): cells share game streams, so the game is
        # the unit of these intervals
        g = "game"
        self.metrics = [
            Metric("win_rate", "won", "rate", by + ("policy",), "monster defeated", unit=g),
            Metric("win_rate_by_jarl", "won", "rate", ("monster", "variant", "jarl"), "monster defeated, per Jarl",
                   unit=g),
            Metric("lost_shields", "lost_shields", "rate", by + ("policy",), "lost: fourth shield", unit=g),
            Metric("lost_deck", "lost_deck", "rate", by + ("policy",), "lost: deck ran out", unit=g),
            Metric("cards_defeated", "cards_defeated", "mean", by + ("policy",), "monster cards defeated", unit=g),
            Metric("turns", "turns", "mean", by + ("policy",), "turns", unit=g),
        ]

    @property
    def cells(self) -> int:
        return sum(len(g["cells"]) for g in self.groups)

    def run_block(self, key, n):
        parts = []
        for g in self.groups:
            c = len(g["cells"])
            out = np.zeros((c * n, len(COLUMNS)), np.int32)
            counters = np.zeros((L.MAX_MON, 2), np.int64)
            run_group(g, self.jarl_tab, key, n, out, counters)
            cell = np.repeat(np.arange(c), n)
            cols = {
                "game": np.tile(np.arange(n, dtype=np.int32), c),
                "monster": np.full(c * n, g["monster"]), "variant": np.full(c * n, g["variant"]),
                "level": np.array([lv for lv, _, _ in g["cells"]], np.int8)[cell],
                "jarl": np.array([j for _, j, _ in g["cells"]])[cell],
                "policy": np.array([p[0] for _, _, p in g["cells"]])[cell],
            }
            for k, name in enumerate(COLUMNS):
                cols[name] = np.array(L.CAUSES)[out[:, k]] if name == "cause" else out[:, k].astype(np.int16)
            cols["won"] = cols["won"].astype(np.int8)
            cols["lost_shields"] = (out[:, 1] == L.CAUSE_SHIELDS).astype(np.int8)
            cols["lost_deck"] = (out[:, 1] == L.CAUSE_DECK).astype(np.int8)
            parts.append(cols)
        return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}

    def declared_columns(self):
        cols = {"game": "number", "monster": "text", "variant": "text", "level": "number", "jarl": "text",
                "policy": "text"}
        cols.update({c: "text" if c == "cause" else "number" for c in COLUMNS})
        cols.update(dict.fromkeys(("lost_shields", "lost_deck"), "number"))
        return cols

    def column_values(self):
        cells = [c for g in self.groups for c in g["cells"]]
        return {"monster": distinct([g["monster"] for g in self.groups]),
                "variant": distinct([g["variant"] for g in self.groups]),
                "level": distinct([lv for lv, _, _ in cells]), "jarl": distinct([j for _, j, _ in cells]),
                "policy": distinct([p[0] for _, _, p in cells]), "cause": list(L.CAUSES)}

    def describe(self):
        return {"files": self.files, "rule_options": self.options, "monsters": self.monster_keys,
                "variants": self.variants, "levels": self.levels, "jarls": self.jarl_keys,
                "policies": {name: {"kind": kind, **params} for name, kind, params in self.policy_specs},
                "cards_notice": getattr(self.deck, "notice", "")}


def build_solo(fields) -> SoloSim:
    """Scenario ``mode = "solo"`` (see scenarios/valhalla/solo.toml; the fields are read and checked by
    ``scenario.read_solo``)."""
    return SoloSim(**read_solo(fields))


def cell_env(sim: SoloSim, group: int = 0, cell: int = 0, roll=None, params=None):
    """The ``env`` of one cell of a simulation (tables, the cell's Jarl row and rule vector, and ``roll``: the
    exact rolls' tables and scratch, ``battle_roll.new_roll``). When ``roll`` is not given it is made, unless the
    policies that will play (``params``, rows of parameter vectors) never roll exactly: then the small
    ``no_roll``."""
    g = sim.groups[group]
    cards, need, p_act, mon, mweap, mwild, clan_ability, faces = g["T0"]
    if roll is None:
        needed = params is None or exact_rolls(np.atleast_2d(np.asarray(params, np.float64)))
        roll = new_roll(faces, need.shape[1]) if needed else no_roll()
    return (cards, need, p_act, mon, mweap, mwild, clan_ability, sim.jarl_tab[g["jarl_idx"][cell]].copy(), faces,
            g["rules"][cell].copy(), roll)


def decision_game(scenario: str | Path | None = None) -> DecisionGame:
    """The solo mode through the decision-point interface, from the bundled scenario (or ``scenario``):
    ``new_game(seed)`` deals game 0 of block ``seed`` (deck order and dice as ``simkit run`` deals them) for the
    scenario's monster × variant × level × Jarl number ``seed % cells`` and stops at its first decision;
    ``invariants`` is ``engine.invariants``; ``policies`` are the scenario's heuristic, random and learned
    policies."""
    from simkit.core import loader
    from simkit.core.registry import scenarios_dir
    from simkit.core.seeding import block_key

    sim = loader.load(Path(scenario) if scenario else scenarios_dir() / "valhalla" / "solo.toml").simulation
    first = sim.policy_specs[0][0]
    roll = new_roll(sim.groups[0]["T0"][7], sim.groups[0]["T0"][1].shape[1])  # one scratch for every deal
    deals = [(cell_env(sim, gi, ci, roll), g["deck_ids"]) for gi, g in enumerate(sim.groups)
             for ci, (_, _, p) in enumerate(g["cells"]) if p[0] == first]

    def new_game(seed: int):
        env, deck_ids = deals[seed % len(deals)]
        key = block_key(seed, 0)
        s = np.zeros(L.STATE_SIZE, np.int32)
        rng, shuffler = np.empty(4, np.uint64), np.empty(4, np.uint64)
        seed_stream(shuffler, key, 0, 0)
        seed_stream(rng, key, 0, 2)
        E.new_game(s, rng, env, shuffler, deck_ids)
        return s, rng, env

    policies = decision_policies(sim.policy_specs, pol.PARAMS)
    dg = DecisionGame("valhalla/solo", FNS, L.MAX_ACTIONS, new_game, policies, E.invariants, 1, SEARCHER,
                      learned=pol.LEARNED_FNS, feature_names=FEATURES)
    dg.cells = len(deals)  # game seed in cell seed % cells (simkit.core.value.held_out)
    return dg
