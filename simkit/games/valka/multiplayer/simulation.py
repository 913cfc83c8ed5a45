"""VÁLKA multiplayer on the runner: scenarios, the cell kernels and the per-game rows.

Cells: every table size in ``players`` × every policy in ``play`` (the policy under test, the *hero*). In game
``g`` of a block the hero sits in seat ``g % players``; the other seats play ``opponents`` in turn (or the hero's
policy too when ``opponents`` is empty: a table of equals). Every cell replays the same game streams (the deck
shuffle, the dice: stream ``(g, 0)``; the policies' coin flips: stream ``(g, 1)``), so policies are compared on
common random numbers.

Rows: one per game per cell, *wide* (the per-seat values are columns ``seat0_...`` to ``seat4_...``; seats a
table does not have hold -1 and an empty policy):

    game, variant, players, policy (the hero's), hero_seat, hero_order, won (the hero won or shared the win),
    win_share, first_seat, first_won, winner (the seat, -1 when none or shared), winner_policy, winners, turns
    (player turns begun, the one in which the game ended included: the same count in every mode, whether the game
    ends inside a turn, as Annihilation and Duel do, or between turns, as Bounty Hunter does), stalled,
    events_played, traps_sprung, chance_strikes,
    seatK_policy, seatK_order (0 = the first player), seatK_won, seatK_infamy, seatK_captures,
    seatK_eliminated (the turn it fell in, 1 = the first player's first turn, 0 at the set-up reveal, -1 if never), seatK_wb_<warband> (Fighters of that Warband in the opening hand,
    jokers as ``joker``), seatK_open0..2 and seatK_played0..2 (bit sets over the 86 cards: in the opening hand,
    played by the seat).

``won`` and ``policy`` make `simkit tune` and `simkit ladder` work as for any mode.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simkit.core import decision as D
from simkit.core.policies import HEURISTIC, SEARCH, compile_policy, decision_policies, stack_params
from simkit.core.rng import seed_stream
from simkit.core.simulation import Metric, Simulation, distinct
from simkit.games.valka.rules_version import RULES_VERSION
from simkit.games.valka.cards import WARBANDS, CardSet, load_cards
from simkit.games.valka.chance_strike import ChanceStrikeRules
from simkit.games.valka.multiplayer import engine as E
from simkit.games.valka.multiplayer import layout as L
from simkit.games.valka.multiplayer import policies as P
from simkit.games.valka.multiplayer.features import FEATURES
from simkit.games.valka.multiplayer.scenario import (  # noqa: F401  (re-exported)
    BOON_ENTRY, BOUNTY_SCORE, CHANCE, LIGHTNING, LIGHTNING_AID, THIEF, presets, read_multiplayer, read_options,
)

FNS = D.Fns(E.legal_actions, E.apply_action, E.is_over, E.to_move, E.reward, E.resample, P.policy)
SEARCHER = D.specialize(FNS, __name__, P.LEARNED_FNS)  # the generic search, compiled (and cached) for VÁLKA multiplayer
play_to_end = SEARCHER.play_to_end
VARIANTS = {"bounty-hunter": L.MODE_BOUNTY, "annihilation": L.MODE_ANNIHILATION, "duel": L.MODE_DUEL}
G_COLS = ("hero_seat", "hero_order", "won", "first_seat", "first_won", "winner", "winners", "turns", "stalled",
          "events_played", "traps_sprung", "chance_strikes")
S_COLS = ("order", "won", "infamy", "captures", "eliminated") + tuple(f"wb_{w}" for w in WARBANDS) + ("wb_joker",) \
    + ("open0", "open1", "open2", "played0", "played1", "played2")
N_G, N_S = len(G_COLS), len(S_COLS)
MAX_STEPS = 200_000


def rules_vector(variant="bounty-hunter", players=4, trigger=None, bounty_score="infamy", turn_cap=400,
                 lone_one="loses", defender_deals_damage=True, chance_strike="fallback", thief="backline_buff",
                 lightning="around", divine_aid=True, warband_boons=True, boon_entry="newcomer", play_cap=12,
                 reshuffle_graveyard=False, fireblast_power=3, lightning_aid="absorbs") -> np.ndarray:
    """The int64 rule vector (``layout.R_*``) from the scenario's rule options (defaults: the plain readings)."""
    r = np.zeros(L.N_RULES, np.int64)
    r[L.R_MODE] = VARIANTS[variant]
    r[L.R_NP] = players
    r[L.R_CAPTURE_COUNT] = bounty_score == "captures"
    r[L.R_TRIGGER] = trigger if trigger is not None else (6 if bounty_score == "captures" else 10)
    r[L.R_TURN_CAP] = turn_cap
    r[L.R_LONE_ONE_LOSES] = lone_one == "loses"
    r[L.R_DEF_DAMAGE] = bool(defender_deals_damage)
    r[L.R_CHANCE_ANY] = chance_strike == "any"
    r[L.R_THIEF_HAND] = thief == "hand"
    r[L.R_LIGHTNING_LAPS] = lightning == "around"
    r[L.R_DIVINE_AID] = bool(divine_aid)
    r[L.R_BOONS] = bool(warband_boons)
    r[L.R_BOON_TOGETHER] = boon_entry == "together"
    r[L.R_PLAY_CAP] = play_cap
    r[L.R_RESHUFFLE] = bool(reshuffle_graveyard)
    r[L.R_DUEL_DECK] = 1
    r[L.R_FIREBLAST_POWER] = fireblast_power
    r[L.R_LIGHTNING_AID_PASSES] = lightning_aid == "passes"
    return r


def make_env(cards: CardSet, rules: np.ndarray, log_size: int = 1) -> tuple:
    """The engine's ``env`` for one table (see ``engine``): card tables, heuristic values, rules, a log."""
    a = cards.arrays()
    values = P.card_values(a)
    P.chance_tables(values, ChanceStrikeRules("loses" if rules[L.R_LONE_ONE_LOSES] else "fails",
                                              bool(rules[L.R_DEF_DAMAGE])))
    return (a["fighter_warband"], a["fighter_infamy"], a["fighter_strike"], a["fighter_health"],
            a["fighter_shield"], a["buff_type"], a["buff_value"], a["event_kind"], values, rules,
            np.zeros(log_size, np.int32))


@njit(cache=True)
def record(s, env, g_out, s_out, hero, log_before):
    np_ = s[L.H_NP]
    first = s[L.H_FIRST]
    m = s[L.H_WINMASK]
    k = 0
    w = -1
    for p in range(np_):
        if (m >> p) & 1:
            k += 1
            w = p
    g_out[0] = hero
    g_out[1] = (hero - first) % np_
    g_out[2] = (m >> hero) & 1
    g_out[3] = first
    g_out[4] = (m >> first) & 1
    g_out[5] = w if k == 1 else -1
    g_out[6] = k
    g_out[7] = s[L.H_BEGUN]  # turns begun, the last one included, in every mode
    g_out[8] = s[L.H_STALLED]
    g_out[9] = s[L.H_EVENTS_PLAYED]
    g_out[10] = s[L.H_TRAPS_SPRUNG]
    g_out[11] = env[10][0] - log_before if env[10].shape[0] > 1 else 0
    for p in range(5):
        if p >= np_:
            for c in range(s_out.shape[1]):
                s_out[p, c] = -1
            continue
        b = E.sb(p)
        s_out[p, 0] = (p - first) % np_
        s_out[p, 1] = (m >> p) & 1
        s_out[p, 2] = s[b + L.S_INFAMY]
        s_out[p, 3] = s[b + L.S_CAPN]
        s_out[p, 4] = s[b + L.S_ELIM_TURN] if s[b + L.S_ELIM] == 1 else -1
        for x in range(9):
            s_out[p, 5 + x] = 0
        for word in range(3):
            bits = s[b + L.S_OPEN + word]
            for i in range(32):
                c = word * 32 + i
                if c < L.N_FIGHTERS and (bits >> i) & 1:
                    s_out[p, 5 + env[0][c]] += 1
            s_out[p, 14 + word] = bits
            s_out[p, 17 + word] = s[b + L.S_PLAYED + word]


@njit(cache=True)
def play_game(s, rng, prng, env, seat_kinds, seat_params, buf, max_steps):
    """Heuristic and random seats (the cached fast path: heuristics choose without listing the legal actions)."""
    E.start(s, rng, env)
    steps = 0
    while not E.is_over(s) and steps < max_steps:
        p = E.to_move(s)
        if seat_kinds[p] == HEURISTIC:
            a = P.heuristic(s, env, seat_params[p], prng)
        else:
            n = E.legal_actions(s, env, buf)
            a = P.policy(seat_kinds[p], s, env, buf, n, seat_params[p], prng)
        E.apply_action(s, rng, env, a)
        steps += 1
    if not E.is_over(s):
        E.stall(s)
    return steps


@njit(cache=True)
def seat_lineup(g, np_, hero_policy, opponents, seat_pol):
    """Seat policies of game ``g``: the hero in seat g % np_, the opponents in turn in the other seats."""
    hero = g % np_
    k = 0
    for p in range(np_):
        if p == hero or opponents.shape[0] == 0:
            seat_pol[p] = hero_policy
        else:
            seat_pol[p] = opponents[k % opponents.shape[0]]
            k += 1
    return hero


@njit(cache=True)
def play_cells(key, n, fwb, finf, fstr, fhp, fshd, btype, bval, ekind, values, rules, log, cell_rules, cell_policy,
               opponents, kinds, params, g_out, s_out):
    s = np.zeros(L.STATE_SIZE, np.int32)
    rng = np.empty(4, np.uint64)
    prng = np.empty(4, np.uint64)
    buf = np.empty(L.MAX_ACTIONS, np.int64)
    seat_pol = np.zeros(5, np.int64)
    seat_kinds = np.zeros(5, np.int64)
    seat_params = np.zeros((5, params.shape[1]), np.float64)
    for c in range(cell_rules.shape[0]):
        env = (fwb, finf, fstr, fhp, fshd, btype, bval, ekind, values, cell_rules[c], log)
        np_ = cell_rules[c][L.R_NP]
        for g in range(n):
            seed_stream(rng, key, g, 0)
            seed_stream(prng, key, g, 1)
            hero = seat_lineup(g, np_, cell_policy[c], opponents, seat_pol)
            for p in range(np_):
                seat_kinds[p] = kinds[seat_pol[p]]
                seat_params[p, :] = params[seat_pol[p]]
            before = log[0]
            play_game(s, rng, prng, env, seat_kinds, seat_params, buf, MAX_STEPS)
            record(s, env, g_out[c * n + g], s_out[c * n + g], hero, before)


@njit(cache=True)
def play_cells_search(key, n, fwb, finf, fstr, fhp, fshd, btype, bval, ekind, values, rules, log, cell_rules,
                      cell_policy, opponents, kinds, params, cfgs, base_params, g_out, s_out):
    """The same with any policy, `search` included."""
    s = np.zeros(L.STATE_SIZE, np.int32)
    rng = np.empty(4, np.uint64)
    prng = np.empty(4, np.uint64)
    buf = np.empty(L.MAX_ACTIONS, np.int64)
    seat_pol = np.zeros(5, np.int64)
    sk = np.zeros(5, np.int64)
    sp = np.zeros((5, params.shape[1]), np.float64)
    sc = np.zeros((5, cfgs.shape[1]), np.int64)
    sbp = np.zeros((5, params.shape[1]), np.float64)
    for c in range(cell_rules.shape[0]):
        env = (fwb, finf, fstr, fhp, fshd, btype, bval, ekind, values, cell_rules[c], log)
        np_ = cell_rules[c][L.R_NP]
        for g in range(n):
            seed_stream(rng, key, g, 0)
            seed_stream(prng, key, g, 1)
            hero = seat_lineup(g, np_, cell_policy[c], opponents, seat_pol)
            for p in range(np_):
                sk[p] = kinds[seat_pol[p]]
                sp[p, :] = params[seat_pol[p]]
                sc[p, :] = cfgs[seat_pol[p]]
                sbp[p, :] = base_params[seat_pol[p]]
            before = log[0]
            E.start(s, rng, env)
            play_to_end(s, rng, env, sk, sp, sc, sbp, prng, buf, MAX_STEPS)
            if not E.is_over(s):
                E.stall(s)
            record(s, env, g_out[c * n + g], s_out[c * n + g], hero, before)


class MultiplayerSim(Simulation):
    game = "valka"
    rules_version = RULES_VERSION
    default_block_size = 2000

    def __init__(self, variant: str, cards: CardSet, players: list[int], policies, opponents: list[str],
                 options: dict, cards_file: str = "cards.toml", heroes: list[str] | None = None):
        self.hero_names = list(heroes) if heroes is not None else [p[0] for p in policies]
        self.mode = variant
        self.variant = variant
        self.cards = cards
        self.cards_file = cards_file
        self.players = list(players)
        self.policy_specs = list(policies)
        self.opponent_names = list(opponents)
        self.options = dict(options)
        names = [p[0] for p in self.policy_specs]
        compiled = [compile_policy(kind, values, P.PARAMS) for _, kind, values in self.policy_specs]
        self.kinds = np.array([c[0] for c in compiled], np.int64)
        # a `learned` policy's vector is its base heuristic's parameters followed by its model: padded to the longest
        self.params = stack_params([c[1] for c in compiled])
        self.cfgs = np.stack([c[2] for c in compiled])
        self.base_params = stack_params([c[3] for c in compiled])
        self.policy_names = names
        self.opponents = np.array([names.index(o) for o in opponents], np.int64)
        cells = [(np_, k) for np_ in self.players for k in self._hero_indices()]
        self.cell_rules = np.stack([rules_vector(variant, np_, **self.options) for np_, _ in cells])
        self.cell_policy = np.array([k for _, k in cells], np.int64)
        self._cells = cells
        self.env = make_env(cards, self.cell_rules[0])
        by = ("players", "policy")
        self.metrics = [
            Metric("win_rate", "won", "rate", by, "the hero's seat won (or shared the win)"),
            Metric("first_player_win", "first_won", "rate", ("players",), "the first player won (or shared)",
                   unit="game"),
            Metric("stalled", "stalled", "rate", ("players",), "stopped at the turn cap", unit="game"),
            Metric("turns", "turns", "mean", ("players",), "player turns begun, the last one included", unit="game"),
        ]

    def _hero_indices(self):
        return [self.policy_names.index(n) for n in self.hero_names]

    @property
    def cells(self) -> int:
        return len(self._cells)

    @property
    def seat_numbers(self):
        """Each Warband's effect in the opening hand, for the gate (``gate.py``)."""
        from simkit.games.valka.multiplayer import gate

        return gate.seat_numbers(self)

    def gate_columns(self, columns):
        from simkit.games.valka.multiplayer import gate

        return gate.columns(self, columns)

    def run_block(self, key, n):
        nc = self.cells
        g_out = np.zeros((nc * n, N_G), np.int32)
        s_out = np.zeros((nc * n, 5, N_S), np.int32)
        e = self.env
        args = (key, n, *e[:9], e[9], e[10], self.cell_rules, self.cell_policy, self.opponents, self.kinds,
                self.params)
        if (self.kinds == SEARCH).any():
            play_cells_search(*args, self.cfgs, self.base_params, g_out, s_out)
        else:
            play_cells(*args, g_out, s_out)
        return self.columns(g_out, s_out, n)

    def declared_columns(self):
        cols = {"game": "number", "variant": "text", "players": "number", "policy": "text"}
        cols.update(dict.fromkeys(G_COLS, "number"))
        cols.update({"win_share": "number", "winner_policy": "text"})
        for p in range(5):
            cols[f"seat{p}_policy"] = "text"
            cols.update({f"seat{p}_{name}": "number" for name in S_COLS})
        return cols

    def column_values(self):
        heroes = distinct([self.policy_names[k] for k in self.cell_policy])
        seated = list(dict.fromkeys(heroes + [self.policy_names[k] for k in self.opponents])) + [""]
        return {"variant": [self.variant], "players": distinct([p for p, _ in self._cells]), "policy": heroes,
                "winner_policy": seated, **{f"seat{p}_policy": seated for p in range(5)}}

    def columns(self, g_out, s_out, n):
        nc = self.cells
        names = np.array(self.policy_names + [""], dtype=object)
        cell = np.repeat(np.arange(nc), n)
        players = np.array([p for p, _ in self._cells], np.int8)[cell]
        hero_pol = self.cell_policy[cell]
        cols = {"game": np.tile(np.arange(n, dtype=np.int32), nc),
                "variant": np.full(nc * n, self.variant),
                "players": players,
                "policy": names[hero_pol].astype(str)}
        for k, name in enumerate(G_COLS):
            cols[name] = g_out[:, k].astype(np.int16 if name in ("turns", "winner", "hero_seat", "first_seat",
                                                                 "events_played", "traps_sprung") else np.int8)
            if name == "chance_strikes":
                cols[name] = g_out[:, k].astype(np.int32)
        cols["win_share"] = np.where(g_out[:, 6] > 0, g_out[:, 2] / np.maximum(g_out[:, 6], 1), 0.0)
        # seat policies: game g, hero seat g % players, opponents in turn
        g = np.tile(np.arange(n), nc)
        seat_pol = np.full((nc * n, 5), len(self.policy_names), np.int64)
        for r_players in set(self.players):
            rows = players == r_players
            hero_seat = g[rows] % r_players
            hp = hero_pol[rows]
            block = np.full((rows.sum(), 5), len(self.policy_names), np.int64)
            k = np.zeros(rows.sum(), np.int64)
            for p in range(r_players):
                if len(self.opponents) == 0:
                    block[:, p] = hp
                    continue
                is_hero = hero_seat == p
                opp = self.opponents[k % len(self.opponents)]
                block[:, p] = np.where(is_hero, hp, opp)
                k = k + (~is_hero)
            seat_pol[rows] = block
        winner = g_out[:, 5]
        cols["winner_policy"] = np.where(winner >= 0, names[seat_pol[np.arange(nc * n), np.maximum(winner, 0)]],
                                         "").astype(str)
        for p in range(5):
            cols[f"seat{p}_policy"] = names[seat_pol[:, p]].astype(str)
            for k, name in enumerate(S_COLS):
                v = s_out[:, p, k]
                cols[f"seat{p}_{name}"] = v if name.startswith(("open", "played")) else v.astype(np.int16)
        return cols

    def describe(self):
        return {"variant": self.variant, "cards": self.cards_file, "cards_notice": self.cards.notice,
                "players": self.players, "rule_options": self.options, "opponents": self.opponent_names,
                "policies": {name: {"kind": kind, **{k: v for k, v in values.items() if k != "base_params"}}
                             for name, kind, values in self.policy_specs}}


def build_multiplayer(fields, variant: str) -> MultiplayerSim:
    """Scenario ``mode = "bounty-hunter" | "annihilation" | "duel"`` (see scenarios/valka/bounty_hunter.toml; the
    fields are read and checked by ``scenario.read_multiplayer`` before any kernel is imported)."""
    return MultiplayerSim(**read_multiplayer(fields, variant))


def decision_game(variant: str = "bounty-hunter", players: int = 4, scenario=None, **options) -> D.DecisionGame:
    """The interface's view of a table: without ``scenario``, the bundled cards at ``players`` seats with the
    bundled policies (the generic tests and tools); with a scenario file (``simkit train``), its cards and rule
    options, game ``seed`` at its table size number ``seed % len(players)``, and the bundled policies with the
    scenario's heuristic, random and learned ones."""
    pols = {}
    for name, (kind, values) in P.PRESETS.items():
        k, p, _, _ = compile_policy(kind, values, P.PARAMS)
        pols[name] = (k, p)
    if scenario is None:
        envs = [make_env(load_cards(), rules_vector(variant, players, **options))]
    else:
        from simkit.core import loader

        sim = loader.load(scenario).simulation
        envs = [make_env(sim.cards, rules_vector(variant, np_, **sim.options)) for np_ in sim.players]
        players = max(sim.players)
        pols.update(decision_policies(sim.policy_specs, P.PARAMS))

    def new(seed: int):
        env = envs[seed % len(envs)]
        s = np.zeros(L.STATE_SIZE, np.int32)
        rng = np.empty(4, np.uint64)
        seed_stream(rng, np.array([seed, 0], np.uint64), 0, 0)
        E.start(s, rng, env)
        return s, rng, env

    dg = D.DecisionGame(f"valka/{variant}", FNS, L.MAX_ACTIONS, new, pols, E.invariants, players, SEARCHER,
                        learned=P.LEARNED_FNS, feature_names=FEATURES)
    dg.cells = len(envs)  # game seed at table size seed % cells (simkit.core.value.held_out)
    return dg


@njit(cache=True)
def random_games_check(key, n, env, kind, params):
    """Play ``n`` games with every seat on policy ``kind`` (random by default in the tests), checking every rule
    invariant after every action. Returns ``(bad games, first bad game, its invariant code, games stalled)``;
    Chance Strikes are logged into ``env``'s log as usual."""
    s = np.zeros(L.STATE_SIZE, np.int32)
    rng = np.empty(4, np.uint64)
    prng = np.empty(4, np.uint64)
    buf = np.empty(L.MAX_ACTIONS, np.int64)
    bad = 0
    first_bad = -1
    code = 0
    stalled = 0
    for g in range(n):
        seed_stream(rng, key, g, 0)
        seed_stream(prng, key, g, 1)
        E.start(s, rng, env)
        steps = 0
        while not E.is_over(s) and steps < MAX_STEPS:
            k = E.legal_actions(s, env, buf)
            if k < 1:
                break
            a = P.policy(kind, s, env, buf, k, params, prng)
            ok = False
            for i in range(k):
                if buf[i] == a:
                    ok = True
            E.apply_action(s, rng, env, a)
            c = E.invariants(s, env) if ok else 99
            if c != 0:
                bad += 1
                if first_bad < 0:
                    first_bad = g
                    code = c
                break
            steps += 1
        if not E.is_over(s) or s[L.H_STALLED] == 1:
            stalled += 1
    return bad, first_bad, code, stalled
