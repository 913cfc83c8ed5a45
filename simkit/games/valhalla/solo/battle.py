"""One Valhalla Solo battle solved exactly: P(win) under optimal play and under each named policy.

"they roll their dice, use Battle Tactics cards and rerolls in order to attempt to win the battle"
(valhalla-solo.txt, Battle); "the player may discard 1 die from their pool of dice to reroll any remaining dice
they have". The battle is the solo engine's (``engine.py``) from ``begin_battle`` to the commit: a Silence before
the roll (attacks on a card with a power), then at every ``PH_ROLL`` decision stop, play a Weapon Delivery, a free
reroll (Jarl, clan powers, a reroll Battle Tactic) or a basic reroll, repeatedly; then the commit of strength
Battle Tactics, with the Warriors activated as the engine does (the most strength the dice allow, which is what
wins). Chance is the dice: a reroll of k dice has the multinomial outcomes of the die's faces (icepool), and an
activated Ice Giant's extra die its six faces.

The dynamic programme runs over the engine's own state vectors: the legal actions, the Warrior/Tactic fitting,
the commit and the policies are the engine's numba functions; only the steps that draw dice are re-stated here
(``_roll``, ``_post_roll``: the draws of ``reroll_mask``, ``roll_battle_dice`` and ``post_roll`` enumerated). The
state of a decision is (dice, Weapon Deliveries played, hand, free rerolls left, clan rerolls given, Ice Giant
die rolled, Silence); every reroll shrinks the dice or spends a reroll, so the recursion ends. Values are exact
Fractions. A battle with more than ``max_states`` memoised states is refused (``TooLarge``).
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

import icepool
import numpy as np

from simkit.core.dice import probabilities
from simkit.games.valhalla import battle as FB
from simkit.games.valhalla.solo import engine as E
from simkit.games.valhalla.solo import layout as L
from simkit.games.valhalla.solo import policies as pol
from simkit.games.valhalla.solo.battle_roll import prepare_roll

MAX_STATES = 60_000  # memoised states of one battle (decisions and rerolls, every policy); beyond: refused


class TooLarge(Exception):
    """The battle has more states than the solver's budget."""


def _symbols(env) -> int:
    return env[1].shape[1]


@lru_cache(maxsize=None)
def _reroll_outcomes(faces: tuple, k: int) -> tuple:
    """The outcomes of rolling k dice with these faces: ((count per symbol 0..S), Fraction) pairs (icepool)."""
    syms = sorted(set(faces))
    one = icepool.Die([icepool.Vector(tuple(int(f == s) for s in syms)) for f in faces])
    out = []
    for counts, p in probabilities(k @ one).items():
        dice = []
        for s, c in zip(syms, counts):
            dice += [s] * c
        out.append((tuple(dice), p))
    return tuple(out)


class BattleSolver:
    """Exact values of one battle. ``s0``: an engine state just after ``E.begin_battle`` (phase ``PH_SILENCE`` or
    ``ST_ROLL``); ``env``: the engine tables; ``policies``: {name: (kind, params)} that ``value(name)`` evaluates
    beside the optimum (``value(None)``)."""

    def __init__(self, s0, env, policies=None, max_states: int | None = None):
        if s0[L.PHASE] not in (L.PH_SILENCE, L.ST_ROLL):
            raise ValueError("s0 must be a state just after begin_battle")
        self.s0, self.env = s0.copy(), env
        self.max_states = MAX_STATES if max_states is None else max_states
        self.policies = dict(policies or {})
        self.faces = tuple(int(f) for f in env[8])
        self.S = _symbols(env)
        self.buf = np.empty(L.MAX_ACTIONS, np.int64)
        self.prng = np.zeros(4, np.uint64)
        self.rng = np.zeros(4, np.uint64)
        self._v: dict = {}  # (policy, key) -> value at a PH_ROLL decision
        self._best: dict = {}  # key -> optimal action
        self._term: dict = {}

    # --- state keys and the engine's pieces -------------------------------------------------------------------

    def key(self, s) -> tuple:
        """What a battle decision depends on (see the module docstring)."""
        nd = int(s[L.ND])
        hand = sorted(int(s[L.HAND + h]) for h in range(s[L.HAND_N]))
        return (tuple(int(x) for x in s[L.DICE:L.DICE + nd]), tuple(int(x) for x in s[L.DELIV:L.DELIV + self.S + 1]),
                tuple(hand), int(s[L.B_FREE]), int(s[L.B_CLAN_GIVEN]), int(s[L.B_ICE_DONE]), int(s[L.B_SILENCED]))

    def legal(self, s) -> list[int]:
        n = E.legal_actions(s, self.env, self.buf)
        return [int(a) for a in self.buf[:n]]

    def terminal(self, s, who=None):
        """P(win) of the commit. Optimal: 1 when the best commit wins (the Glory and Jarl bonus, the most strength
        the dice and Weapon Deliveries give the Warriors together with any activatable set of strength Battle
        Tactics, as ``commit`` counts it). A policy: its own commit choice (random: each legal one alike)."""
        if who is not None:
            t = s.copy()
            E.enter_commit(t, self.env)
            if t[L.PHASE] != L.PH_COMMIT:
                return Fraction(int(t[L.B_TOTAL] >= t[L.B_NEEDED]))
            legal = self.legal(t)
            kind, params = self.policies[who]
            if kind == pol.RANDOM:
                acts = legal
            else:
                acts = [int(pol.policy(kind, t, self.env, np.asarray(legal, np.int64), len(legal), params,
                                       self.prng))]
            won = 0
            for a in acts:
                u = t.copy()
                E.commit(u, self.env, a - L.A_COMMIT)
                won += int(u[L.B_TOTAL] >= u[L.B_NEEDED])
            return Fraction(won, len(acts))
        pool = int(E.battle_pool(s, self.S))
        k = (pool, int(s[L.B_NEEDED]))
        if k not in self._term:
            v, _, _ = pol.best_total(s, self.env, np.int64(pool))
            self._term[k] = int(pol.base_strength(s, self.env) + v >= s[L.B_NEEDED])
        return Fraction(self._term[k])

    def _set_dice(self, s, dice) -> None:
        s[L.ND] = len(dice)
        for i, d in enumerate(sorted(dice)):
            s[L.DICE + i] = d

    def _post_roll(self, s) -> list:
        """``engine.post_roll`` with its Ice Giant die enumerated: [(probability, state)]."""
        env, cards, ca = self.env, self.env[0], self.env[6]
        if not FB.wants_post_roll(s, L.TEAM_N, L.B_ICE_DONE, cards, ca):
            return [(Fraction(1), s)]
        m, _ = E.best_joint(s, env, E.battle_pool(s, self.S), 0)
        if FB.ice_giant_activated(s, L.TEAM_N, L.B_ICE_DONE, cards, ca, m):
            s[L.B_ICE_DONE] = 1
            if s[L.ND] >= L.MAX_DICE:
                return self._clan_rerolls(s)
            out = []
            for dice, p in _reroll_outcomes(self.faces, 1):
                t = s.copy()
                self._set_dice(t, [int(x) for x in s[L.DICE:L.DICE + s[L.ND]]] + list(dice))
                out += [(p * q, u) for q, u in self._clan_rerolls(t)]
            return out
        return self._clan_rerolls(s, m)

    def _clan_rerolls(self, s, m=None) -> list:
        """The second pass of ``post_roll``: a free reroll per activated clan-reroll Warrior (once each)."""
        if m is None:
            m, _ = E.best_joint(s, self.env, E.battle_pool(s, self.S), 0)
        FB.give_clan_rerolls(s, L.TEAM_N, L.B_FREE, L.B_CLAN_GIVEN, self.env[0], self.env[6], m)
        return [(Fraction(1), s)]

    def _roll(self, s, kept, k) -> list:
        """Roll k dice beside ``kept``, then ``post_roll``: [(probability, state at ST_ROLLED)]."""
        out = []
        for dice, p in _reroll_outcomes(self.faces, k):
            t = s.copy()
            self._set_dice(t, list(kept) + list(dice))
            out += [(p * q, u) for q, u in self._post_roll(t)]
        return out

    # --- values -----------------------------------------------------------------------------------------------

    def rolled(self, s, who) -> Fraction:
        """Value at ``ST_ROLLED``: a decision when the roll has options, else the commit."""
        if E.roll_has_options(s, self.env):
            s[L.PHASE] = L.PH_ROLL
            return self.decision(s, who)
        return self.terminal(s, who)

    def chance(self, branches, who) -> Fraction:
        return sum((p * self.rolled(t, who) for p, t in branches), Fraction(0))

    def after(self, s, a, who) -> Fraction:
        """Q(s, a) at a ``PH_ROLL`` decision: the engine's ``apply_action`` with its draws enumerated."""
        if a == L.A_STOP:
            return self.terminal(s, who)
        t = s.copy()
        # the part before the dice fall: a Weapon Delivery played, a free reroll spent (a reroll Tactic when none is
        # left), a basic reroll's die discarded; ``t`` keeps the dice that stay
        k = prepare_roll(t, self.env, a)
        if a < L.A_SEND:  # Weapon Delivery: a card that counts as a die, nothing rolled
            return self.chance(self._post_roll(t), who)
        kept = [int(x) for x in t[L.DICE:L.DICE + t[L.ND]]]
        memo = ("q", who, tuple(kept), k, self.key(t)[1:])
        if memo not in self._v:
            self._v[memo] = self.chance(self._roll(t, kept, k), who)
        return self._v[memo]

    def decision(self, s, who) -> Fraction:
        """Value of a ``PH_ROLL`` decision for ``who`` (None: optimal; else a name in ``policies``)."""
        key = (who, self.key(s))
        if key in self._v:
            return self._v[key]
        if len(self._v) >= self.max_states:
            raise TooLarge(f"more than {self.max_states:,} states of decisions and rerolls")
        legal = self.legal(s)
        if who is None:
            best_a, best = legal[0], Fraction(-1)
            for a in legal:
                q = self.after(s, a, who)
                if q > best:
                    best_a, best = a, q
            self._best[key[1]] = best_a
            value = best
        elif self.policies[who][0] == pol.RANDOM:
            value = sum((self.after(s, a, who) for a in legal), Fraction(0)) / len(legal)
        else:
            value = self.after(s, self.policy_action(s, who), who)
        self._v[key] = value
        return value

    def value(self, who=None) -> Fraction:
        """P(win) of the battle under optimal play (``who`` None) or the named policy."""
        return self.start(who)

    def start(self, who=None, silence: bool | None = None) -> Fraction:
        """P(win) from the battle's start; ``silence`` forces the Silence decision (None: ``who`` chooses)."""
        s = self.s0.copy()
        if s[L.PHASE] == L.PH_SILENCE:
            if silence is None:
                if who is None:
                    return max(self.start(who, False), self.start(who, True))
                if self.policies[who][0] == pol.RANDOM:
                    return (self.start(who, False) + self.start(who, True)) / 2
                return self.start(who, self.silence_of(who))
            if silence:
                E.play_tactic(s, E.hand_effect(s, self.env[0], L.T_SILENCE))
                s[L.B_SILENCED] = 1
            s[L.PHASE] = L.ST_ROLL
        return self.chance(self.first_roll(s), who)

    def first_roll(self, s) -> list:
        """``engine.roll_battle_dice`` enumerated: [(probability, state at ST_ROLLED)]."""
        env = self.env
        jarl_row, rules = env[7], env[9]
        attacking = s[L.B_ATTACK] == 1
        target = E.monster_strength(s, env, attacking, s[L.B_SILENCED] == 1)
        s[L.B_NEEDED] = target if attacking else target + 1
        dice = int(rules[E.R_DICE])
        if jarl_row[0] == L.J_EXTRA_DIE:
            dice += int(jarl_row[1])
        if E.power_on(s, env, L.P_EXTRA_DIE):
            dice = max(1, dice - int(env[3][s[L.MON], L.M_PVAL]))
        dice = min(dice, L.MAX_DICE)
        return self._roll(s, [], dice)

    def silence_choice(self) -> bool | None:
        """The optimal Silence decision (None when it is not offered); ties: no Silence (the card is kept)."""
        if self.s0[L.PHASE] != L.PH_SILENCE:
            return None
        return self.start(None, True) > self.start(None, False)

    def best_action(self, s) -> int:
        """The optimal action at an engine state in ``PH_ROLL`` (solving from it when not yet seen)."""
        k = self.key(s)
        if k not in self._best:
            self.decision(s.copy(), None)
        return self._best[k]

    def policy_action(self, s, who) -> int:
        """The named policy's action at an engine state (heuristics are deterministic)."""
        legal = self.legal(s)
        kind, params = self.policies[who]
        return int(pol.policy(kind, s, self.env, np.asarray(legal, np.int64), len(legal), params, self.prng))

    def silence_of(self, who) -> bool | None:
        """The named policy's Silence decision (None when it is not offered)."""
        if self.s0[L.PHASE] != L.PH_SILENCE:
            return None
        kind, params = self.policies[who]
        buf = np.array([L.A_NO, L.A_YES], np.int64)
        return int(pol.policy(kind, self.s0, self.env, buf, 2, params, self.prng)) == L.A_YES


def describe_action(a: int, s, env, names) -> str:
    """An action of ``PH_ROLL`` in words: the symbols of the dice it touches (``names``: symbol names, wild last)."""
    dice = [names[int(x)] for x in s[L.DICE:L.DICE + s[L.ND]]]
    if a == L.A_STOP:
        return "stop"
    if a < L.A_SEND:
        return f"Weapon Delivery ({names[int(env[0][s[L.HAND + a - L.A_DELIVER], L.C_SYMBOL])]})"
    if a < L.A_BASIC:
        m = a - L.A_FREE
        return "free reroll of " + ", ".join(d for i, d in enumerate(dice) if (m >> i) & 1)
    m = a - L.A_BASIC
    top = max(i for i in range(len(dice)) if (m >> i) & 1)
    rest = [d for i, d in enumerate(dice) if (m >> i) & 1 and i != top]
    return f"basic: discard {dice[top]}, reroll " + ", ".join(rest)


# --- a position from the deck file, and the engine played by the optimal table -----------------------------------

def position(deck, team, hand, monster: str, card: int = 1, side: str = "base", attacking: bool = True,
             glory: int = 0, jarl: str | None = None, dice: int = 6, wild_warriors: bool = True,
             monster_powers: bool = True):
    """(state just after ``begin_battle``, env) of a battle: ``team`` and ``hand`` are card keys of ``deck`` (a
    key given twice takes two copies), ``card`` the 1-based monster card of ``side``, ``glory`` the Glory in
    Valhalla, ``jarl`` a Jarl key (None: no ability). Unknown or impossible choices raise ``InputError``."""
    from simkit.games.valhalla.battle_cli import check_position
    from simkit.games.valhalla.solo.battle_roll import new_roll
    from simkit.games.valhalla.solo.simulation import deck_tables, rules_vector, tables

    team_ids, hand_ids = check_position(deck, team, hand, monster, card, side, jarl)
    D = deck_tables(deck, wild_warriors)
    T0, _ = tables(deck, D, deck.monsters, monster, side)
    if jarl is None:
        jarl_row = np.zeros(2, np.int64)
    else:
        j = deck.jarl_keys.index(jarl)
        jarl_row = np.array([D["arrays"]["jarl_ability"][j], D["arrays"]["jarl_value"][j]], np.int64)
    rules = rules_vector(variant=side, wild_warriors=wild_warriors, monster_powers=monster_powers, dice=dice)
    env = (*T0[:7], jarl_row, T0[7], rules, new_roll(T0[7], T0[1].shape[1]))
    s = np.zeros(L.STATE_SIZE, np.int32)
    s[L.SHIELDS], s[L.GLORY], s[L.WGLORY], s[L.MON], s[L.B_PATH] = 4, glory, glory, card - 1, -1
    for c in team_ids:
        E.push(s, L.TEAM_N, c)
    for c in hand_ids:
        E.push(s, L.HAND_N, c)
    E.begin_battle(s, env, 1 if attacking else 0, L.CTX_HALT)
    return s, env


def play(solver: BattleSolver, n: int, seed: int, who=None) -> int:
    """Battles won out of ``n`` played by the engine (its own dice: battle g on stream (g, 2) of block 0 of
    ``seed``) with every choice read from the solver's optimal table (``who`` None) or made by the named policy."""
    from simkit.core.rng import seed_stream
    from simkit.core.seeding import block_key

    env, key, rng = solver.env, block_key(seed, 0), np.empty(4, np.uint64)
    silence = solver.silence_choice() if who is None else solver.silence_of(who)
    kind, params = (None, None) if who is None else solver.policies[who]
    prng = np.zeros(4, np.uint64)
    seed_stream(prng, key, 0, 1)
    wins = 0
    for g in range(n):
        s = solver.s0.copy()
        seed_stream(rng, key, g, 2)
        E.advance(s, rng, env)
        while s[L.DONE] == 0 and s[L.PHASE] != L.PH_OVER:
            ph = s[L.PHASE]
            legal = solver.legal(s)
            if ph in (L.PH_SEND1, L.PH_GROUP, L.PH_PATH):
                a = legal[-1] if ph != L.PH_PATH else L.A_NO  # after the commit: the result is already decided
            elif who is not None:
                a = int(pol.policy(kind, s, env, np.asarray(legal, np.int64), len(legal), params, prng))
            elif ph == L.PH_SILENCE:
                a = L.A_YES if silence else L.A_NO
            elif ph == L.PH_ROLL:
                a = solver.best_action(s)
            else:  # PH_COMMIT: the commit with the most strength (it wins when any does)
                best_total = -1
                for c in legal:
                    u = s.copy()
                    E.commit(u, env, c - L.A_COMMIT)
                    if u[L.B_TOTAL] > best_total:
                        a, best_total = c, u[L.B_TOTAL]
            E.apply_action(s, rng, env, a)
        wins += int(s[L.ATT_WON] + s[L.DEF_WON] > 0)
    return wins
