"""Valhalla multiplayer on the runner: scenario, block kernel and per-game rows.

Rows (one per game per cell; a cell is players × deck variant × policy, every seat playing the cell's policy)::

    game, players, variant (base | valkyries), policy, cause (shields | deck | cap), shared (1 when seats share the
    most Glory), winner (the winning seat; the lowest one of a shared win), turns, battles, attacker_wins,
    cards_left, and per seat k = 0..5 (-1 for seats not at the table): win_k (1 when seat k has the most Glory,
    shared or not), glory_k, shields_k (own shields left), taken_k (shields taken), jarl_k (the Jarl kept), and
    what seat k scored and played: bless_companions_k, bless_clan_k, bless_alone_k (Valkyrie blessings that scored:
    "+1 … for each other Warrior going", "+2 … a Warrior of the colour shown", "+3 … alone"), bless_glory_k (the
    Glory they drew), mission_no_rerolls_k, mission_strength_k, mission_three_k (Missions completed: "Not using
    basic rerolls", "Strength 5 higher", "Three activated Warriors"; 2 Glory each), missions_held_k (Missions
    still in hand at the end), valhalla_glory_k (the Warriors' Glory in Valhalla, the blessings' draws included),
    tactic_strength_k, tactic_reroll_k, tactic_smaller_k, tactic_delivery_k, tactic_path_k, tactic_silence_k
    (Battle Tactic cards played, by effect: Weapon Delivery one a card, Path to Valhalla, Silence, the strength,
    "smaller team" and reroll Tactics)

With a scenario ``opponent`` (the *field*, a policy name; the default ``"self"`` is the tables of equals above), a
cell is players × deck variant × *hero* policy: game g of a block seats the hero in seat ``g % players`` and the
field in every other seat (``lineups.play_lineup``), so the hero is rotated through every seat, and the row is the
hero's: ``policy`` names the hero, and beside the columns above (the whole table's) come ``field`` (the field's
policy), ``seat`` (the hero's), ``won`` (1 when the hero alone has the most Glory), ``tie`` (1 when the hero shares
the most Glory) and ``share`` (the hero's win share: 1, 1/k of a k-way shared win, or 0). ``simkit tune`` and
``simkit ladder`` play such a scenario on ``won`` by default.

Every cell of a block replays the same streams per game: the deck and Jarl order from stream (g, 0), the policies'
choices from (g, 1) and the dice from (g, 2) (common random numbers across policies).
"""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
from numba import njit

from simkit.core.decision import DecisionGame, Fns, specialize
from simkit.core.policies import SEARCH, compile_policy, decision_policies, stack_params
from simkit.core.rng import seed_stream
from simkit.core.simulation import Metric, Simulation, distinct
from simkit.games.valhalla.rules_version import RULES_VERSION
from simkit.games.valhalla.multi import engine as E
from simkit.games.valhalla.multi import layout as L
from simkit.games.valhalla.multi import policies as pol
from simkit.games.valhalla.multi.features import FEATURES
from simkit.games.valhalla.multi.scenario import PLUS80_DISCARD, PLUS80_DRAW_A, START_DISCARD
from simkit.games.valhalla.multi.state import hand, pb, team
from simkit.games.valhalla.solo import layout as C

SCALARS = ("cause", "shared", "winner", "turns", "battles", "attacker_wins", "cards_left")
BLESSINGS = ("bless_companions", "bless_clan", "bless_alone")  # +1, +2, +3 (card column C_BLESS - 1)
MISSIONS = ("mission_no_rerolls", "mission_strength", "mission_three")  # by C_REQ
TACTICS = ("tactic_strength", "tactic_reroll", "tactic_smaller", "tactic_delivery", "tactic_path",
           "tactic_silence")  # by C_EFFECT (T_STRENGTH .. T_SILENCE)
RECORDS = (*BLESSINGS, "bless_glory", *MISSIONS, "missions_held", "valhalla_glory", *TACTICS)
PER_SEAT = ("win", "glory", "shields", "taken", "jarl") + RECORDS
COLUMNS = SCALARS + tuple(f"{c}_{k}" for c in PER_SEAT for k in range(L.MAX_P))
FNS = Fns(E.legal_actions, E.apply_action, E.is_over, E.to_move, E.reward, E.resample, pol.policy)
SEARCHER = specialize(FNS, __name__, pol.LEARNED_FNS)
play_to_end = SEARCHER.play_to_end
MAX_STEPS = 200_000


def rules_vector(players=4, variant="valkyries", wild_warriors=True, ties="attacker", boar="opponent",
                 start_discard=START_DISCARD, turn_cap=400, hand=7, shields=4, dice=6, game_end="turn", shield_glory="taken",
                 attack_empty="allowed", plus80=False) -> np.ndarray:
    """The kernel's rule vector of one cell; ``start_discard`` may be a table {players: cards} (``START_DISCARD``
    where a table size is not listed). ``plus80``: the +80 help card's two rule changes ("during setup, at step 5,
    discard 20 more cards"; "when a player in part A chooses action 4, they draw 3 cards and keep 1")."""
    if isinstance(start_discard, dict):
        start_discard = start_discard.get(players, START_DISCARD)
    if plus80:
        start_discard += PLUS80_DISCARD
    r = np.zeros(L.N_RULES, np.int64)
    r[L.R_PLAYERS] = players
    r[L.R_VALK] = variant == "valkyries"
    r[L.R_WILD_WARRIORS] = bool(wild_warriors)
    r[L.R_TIES_ATTACKER] = ties == "attacker"
    r[L.R_BOAR_OPP] = boar == "opponent"
    r[L.R_START_DISCARD] = start_discard
    r[L.R_HAND] = hand
    r[L.R_HAND_DISCARD] = 2
    r[L.R_SHIELDS] = shields
    r[L.R_DICE] = dice
    r[L.R_TURN_CAP] = turn_cap
    r[L.R_PART_B] = 3 if variant == "valkyries" else 2  # Valkyries: "draws 3 cards instead of 2"
    r[L.R_DRAW_A] = PLUS80_DRAW_A if plus80 else 2  # part A: "draw 2 and keep 1" (+80: "draw 3 cards and keep 1")
    r[L.R_END_ROUND] = game_end == "round"  # the deck ran out: the game ends at the end of the round
    r[L.R_SHIELDS_HELD] = shield_glory == "held"  # every shield held at the end scores 2, own ones too
    r[L.R_ATTACK_EMPTY] = attack_empty == "allowed"  # a player with an empty Warband may be attacked
    return r


def engine_columns(out) -> dict:
    """The engine's columns (``COLUMNS``; ``cause`` by name) of the kernels' rows ``out``."""
    return {name: np.array(L.CAUSES)[out[:, k]] if name == "cause" else out[:, k].astype(np.int16)
            for k, name in enumerate(COLUMNS)}


def hero_wins(out, seats, players: int):
    """Per game of a hero-against-field block (``lineups.play_lineup``): 1 when the hero's seat (``seats``) has the
    most Glory, shared or not, else 0; and how many seats have it."""
    wins = np.stack([out[:, COLUMNS.index(f"win_{p}")] for p in range(players)], axis=1).clip(0)
    return wins[np.arange(len(seats)), seats], wins.sum(axis=1)


def tables(deck, wild_warriors=True):
    """The kernel's card tables ``(cards, need, p_act, jarls, clan_ability, faces)`` (the solo card table: one for
    the family) and the deck's card ids per variant."""
    from simkit.games.valhalla.solo.simulation import deck_tables

    D = deck_tables(deck, wild_warriors)
    a = D["arrays"]
    jarls = np.stack([a["jarl_ability"], a["jarl_value"]], axis=1).astype(np.int64)
    n = len(a["card_type"])
    ids = {"base": np.array([c for c in range(n) if a["expansion"][c] == 0], np.int64),
           "valkyries": np.arange(n, dtype=np.int64)}
    return (D["cards"], D["need"], D["p_act"], jarls, D["clan_ability"], np.asarray(D["faces"], np.int32)), ids


@njit(cache=True)
def write_row(s, cards, row):
    row[:] = -1
    row[0] = s[L.CAUSE]
    m = s[L.WIN_MASK]
    k = 0
    first = -1
    for p in range(s[L.NP]):
        if (m >> p) & 1:
            k += 1
            if first < 0:
                first = p
    row[1] = 1 if k > 1 else 0
    row[2] = first
    row[3] = s[L.TURNS]
    row[4] = s[L.BATTLES]
    row[5] = s[L.ATT_WINS]
    row[6] = s[L.DECK_N]
    base = 7
    for p in range(s[L.NP]):
        row[base + p] = (m >> p) & 1
        row[base + L.MAX_P + p] = s[pb(p) + L.P_GLORY]
        row[base + 2 * L.MAX_P + p] = s[pb(p) + L.P_SHIELDS]
        row[base + 3 * L.MAX_P + p] = s[pb(p) + L.P_TAKEN]
        row[base + 4 * L.MAX_P + p] = s[pb(p) + L.P_JARL]
        k = L.K0 + p * L.KSTRIDE
        r = base + 5 * L.MAX_P + p
        for j in range(3):
            row[r + j * L.MAX_P] = s[k + L.K_BLESS + j]
        row[r + 3 * L.MAX_P] = s[k + L.K_BLESS_GLORY]
        for j in range(3):
            row[r + (4 + j) * L.MAX_P] = s[k + L.K_MISSION + j]
        held = 0
        h = hand(p)
        for i in range(s[h]):
            if cards[s[h + 1 + i], C.C_TYPE] == C.MISSION:
                held += 1
        row[r + 7 * L.MAX_P] = held
        row[r + 8 * L.MAX_P] = s[pb(p) + L.P_VGLORY]
        for j in range(L.N_TACTICS):
            row[r + (9 + j) * L.MAX_P] = s[k + L.K_TACTIC + j]


@njit(cache=True)
def play_cells(key, n, T, deck_ids, kinds, params, rules, out):
    """Play ``n`` games in each cell (heuristic or random policies, every seat the cell's); row c * n + g gets
    game g of cell c."""
    cards, need, p_act, jarls, clan_ability, faces = T
    s = np.zeros(L.STATE_SIZE, np.int32)
    rng = np.empty(4, np.uint64)
    prng = np.empty(4, np.uint64)
    shuffler = np.empty(4, np.uint64)
    buf = np.empty(L.MAX_ACTIONS, np.int64)
    for c in range(kinds.shape[0]):
        env = (cards, need, p_act, jarls, clan_ability, faces, rules[c])
        kind = kinds[c]
        par = params[c]
        for g in range(n):
            seed_stream(shuffler, key, g, 0)
            seed_stream(prng, key, g, 1)
            seed_stream(rng, key, g, 2)
            E.new_game(s, rng, env, shuffler, deck_ids)
            steps = 0
            while s[L.DONE] == 0 and steps < MAX_STEPS:
                m = E.legal_actions(s, env, buf)
                a = pol.policy(kind, s, env, buf, m, par, prng)
                E.apply_action(s, rng, env, a)
                steps += 1
            write_row(s, cards, out[c * n + g])


@njit(cache=True)
def play_cells_search(key, n, T, deck_ids, kinds, params, cfgs, base_params, rules, out):
    """``play_cells`` for cells of any kind, `search` included (every seat searches)."""
    cards, need, p_act, jarls, clan_ability, faces = T
    s = np.zeros(L.STATE_SIZE, np.int32)
    rng = np.empty(4, np.uint64)
    prng = np.empty(4, np.uint64)
    shuffler = np.empty(4, np.uint64)
    buf = np.empty(L.MAX_ACTIONS, np.int64)
    for c in range(kinds.shape[0]):
        env = (cards, need, p_act, jarls, clan_ability, faces, rules[c])
        np_ = rules[c][L.R_PLAYERS]
        ks = np.full(np_, kinds[c], np.int64)
        ps = np.empty((np_, params.shape[1]), np.float64)
        cs = np.empty((np_, cfgs.shape[1]), np.int64)
        bs = np.empty((np_, base_params.shape[1]), np.float64)
        for p in range(np_):
            ps[p] = params[c]
            cs[p] = cfgs[c]
            bs[p] = base_params[c]
        for g in range(n):
            seed_stream(shuffler, key, g, 0)
            seed_stream(prng, key, g, 1)
            seed_stream(rng, key, g, 2)
            E.new_game(s, rng, env, shuffler, deck_ids)
            play_to_end(s, rng, env, ks, ps, cs, bs, prng, buf, MAX_STEPS)
            write_row(s, cards, out[c * n + g])


class MultiSim(Simulation):
    """Valhalla multiplayer games for every players × variant × policy cell."""

    game = "valhalla"
    mode = "multi"
    rules_version = RULES_VERSION
    default_block_size = 1_000

    def __init__(self, deck, players, variants, policies, options=None, files=None, field=None):
        self.deck = deck
        self.field = tuple(field) if field is not None else None  # the opponent's (name, kind, values), or None
        self.options = dict(options or {})
        self.files = dict(files or {})
        self.players, self.variants, self.policy_specs = list(players), list(variants), list(policies)
        self.T, self.ids = tables(deck, self.options.get("wild_warriors", True))
        self.groups = []
        for var in self.variants:
            cells = list(itertools.product(self.players, self.policy_specs))
            comp = [compile_policy(p[1], p[2], pol.PARAMS) for _, p in cells]
            self.groups.append({
                "variant": var, "cells": cells,
                "rules": np.stack([rules_vector(players=np_, variant=var, **self.options) for np_, _ in cells]),
                "kinds": np.array([c[0] for c in comp], np.int64), "params": stack_params([c[1] for c in comp]),
                "cfgs": np.stack([c[2] for c in comp]), "base_params": stack_params([c[3] for c in comp]),
            })
        by = ("players", "variant", "policy")
        if self.field is not None:
            fk, fv, fc, fb = compile_policy(self.field[1], self.field[2], pol.PARAMS)
            for g in self.groups:  # row 0 the hero, row 1 the field: lineups.play_lineup's layout, per cell
                comp = [compile_policy(p[1], p[2], pol.PARAMS) for _, p in g["cells"]]
                g["lineup"] = [(np.array([k, fk], np.int64), stack_params([v, fv]), np.stack([c, fc]),
                                stack_params([b, fb])) for k, v, c, b in comp]
            self.metrics = [
                Metric("win_rate", "won", "rate", by, "the hero alone has the most Glory"),
                Metric("tie", "tie", "rate", by, "the hero shares the most Glory"),
                Metric("share", "share", "mean", by, "the hero's win share (1/k of a k-way shared win)"),
                Metric("turns", "turns", "mean", by, "turns"),
            ]
            return
        self.metrics = [
            Metric("seat0_win", "win_0", "rate", by, "seat 0 has the most Glory (shared wins count)"),
            Metric("shared", "shared", "rate", by, "the most Glory shared"),
            Metric("ended_by_shields", "ended_by_shields", "rate", by, "ended: a player lost all 4 shields"),
            # a game's battles are not independent: counts per game, the game as the unit
            Metric("attacker_wins", "attacker_wins", "mean", by, "battles won by the attacker, a game"),
            Metric("turns", "turns", "mean", by, "turns"),
            Metric("battles", "battles", "mean", by, "battles a game"),
        ]

    @property
    def cells(self) -> int:
        return sum(len(g["cells"]) for g in self.groups)

    @property
    def seat_numbers(self):
        """Each Jarl's edge over its fair win share, for the gate (``gate.py``)."""
        from simkit.games.valhalla.multi import gate

        return gate.seat_numbers(self)

    def gate_columns(self, columns):
        from simkit.games.valhalla.multi import gate

        return gate.columns(self, columns)

    @property
    def opponent(self) -> str:
        """The scenario's ``opponent``: the field's policy, or ``"self"`` for tables of equals."""
        return self.field[0] if self.field else "self"

    def run_lineups(self, key, n):
        """``run_block`` with a field: every cell's games through ``lineups.play_lineup``, the hero's rows."""
        from simkit.games.valhalla.multi.lineups import play_lineup

        parts = []
        for g in self.groups:
            ids = self.ids[g["variant"]]
            for ci, (np_, spec) in enumerate(g["cells"]):
                out = np.zeros((n, len(COLUMNS)), np.int32)
                seats = np.zeros(n, np.int64)
                kinds, params, cfgs, base = g["lineup"][ci]
                play_lineup(key, n, self.T, ids, g["rules"][ci], kinds, params, cfgs, base, out, seats)
                cols = {"game": np.arange(n, dtype=np.int32), "players": np.full(n, np_, np.int8),
                        "variant": np.full(n, g["variant"]), "policy": np.full(n, spec[0]),
                        "field": np.full(n, self.field[0]), "seat": seats.astype(np.int8)}
                cols.update(engine_columns(out))
                cols["ended_by_shields"] = (out[:, 0] == L.CAUSE_SHIELDS).astype(np.int8)
                mine, k = hero_wins(out, seats, np_)
                cols["won"] = ((mine == 1) & (k == 1)).astype(np.int8)
                cols["tie"] = ((mine == 1) & (k > 1)).astype(np.int8)
                cols["share"] = mine / np.maximum(k, 1)
                parts.append(cols)
        return {c: np.concatenate([p[c] for p in parts]) for c in parts[0]}

    def run_block(self, key, n):
        if self.field is not None:
            return self.run_lineups(key, n)
        parts = []
        for g in self.groups:
            c = len(g["cells"])
            out = np.zeros((c * n, len(COLUMNS)), np.int32)
            ids = self.ids[g["variant"]]
            if (g["kinds"] == SEARCH).any():
                play_cells_search(key, n, self.T, ids, g["kinds"], g["params"], g["cfgs"], g["base_params"],
                                  g["rules"], out)
            else:
                play_cells(key, n, self.T, ids, g["kinds"], g["params"], g["rules"], out)
            cell = np.repeat(np.arange(c), n)
            cols = {
                "game": np.tile(np.arange(n, dtype=np.int32), c),
                "players": np.array([np_ for np_, _ in g["cells"]], np.int8)[cell],
                "variant": np.full(c * n, g["variant"]),
                "policy": np.array([p[0] for _, p in g["cells"]])[cell],
            }
            cols.update(engine_columns(out))
            cols["ended_by_shields"] = (out[:, 0] == L.CAUSE_SHIELDS).astype(np.int8)
            parts.append(cols)
        return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}

    def declared_columns(self):
        cols = {"game": "number", "players": "number", "variant": "text", "policy": "text"}
        cols.update({c: "text" if c == "cause" else "number" for c in COLUMNS})
        cols["ended_by_shields"] = "number"
        if self.field is not None:
            cols.update({"field": "text", "seat": "number", "won": "number", "tie": "number", "share": "number"})
        return cols

    def column_values(self):
        cells = [c for g in self.groups for c in g["cells"]]
        out = {"players": distinct([np_ for np_, _ in cells]), "variant": distinct([g["variant"] for g in self.groups]),
               "policy": distinct([p[0] for _, p in cells]), "cause": list(L.CAUSES)}
        if self.field is not None:
            out["field"] = [self.field[0]]
        return out

    def describe(self):
        return {"files": self.files, "rule_options": self.options, "players": self.players,
                "variants": self.variants,
                "policies": {name: {"kind": kind, **params} for name, kind, params in self.policy_specs},
                "cards_notice": getattr(self.deck, "notice", ""),
                # a field only: the tables of equals describe themselves as before
                **({"opponent": {"name": self.field[0], "kind": self.field[1], **self.field[2]}} if self.field else {})}


def decision_game(scenario: str | Path | None = None) -> DecisionGame:
    """The multiplayer mode through the decision-point interface, from the bundled scenario (or ``scenario``):
    ``new_game(seed)`` deals game 0 of block ``seed`` for the scenario's players × variant number
    ``seed % cells`` and stops at its first decision; ``invariants`` is ``engine.invariants``."""
    from simkit.core import loader
    from simkit.core.registry import scenarios_dir
    from simkit.core.seeding import block_key

    sim = loader.load(Path(scenario) if scenario else scenarios_dir() / "valhalla" / "multi.toml").simulation
    deals = [(g["rules"][ci].copy(), sim.ids[g["variant"]]) for g in sim.groups
             for ci, (_, p) in enumerate(g["cells"]) if p[0] == sim.policy_specs[0][0]]

    def new_game(seed: int):
        rules, deck_ids = deals[seed % len(deals)]
        env = (*sim.T, rules)
        key = block_key(seed, 0)
        s = np.zeros(L.STATE_SIZE, np.int32)
        rng, shuffler = np.empty(4, np.uint64), np.empty(4, np.uint64)
        seed_stream(shuffler, key, 0, 0)
        seed_stream(rng, key, 0, 2)
        E.new_game(s, rng, env, shuffler, deck_ids)
        return s, rng, env

    policies = decision_policies(sim.policy_specs, pol.PARAMS)
    dg = DecisionGame("valhalla/multi", FNS, L.MAX_ACTIONS, new_game, policies, E.invariants,
                      max(sim.players), SEARCHER, learned=pol.LEARNED_FNS, feature_names=FEATURES)
    dg.cells = len(deals)  # game seed in deal seed % cells (simkit.core.value.held_out)
    return dg
