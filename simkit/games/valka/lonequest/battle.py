"""One Lonequest battle solved exactly: P(clearing the Location's Marauders) under optimal play and under each policy.

"Once you reveal a Marauder on a Map Location, your Warband is engaged in battle!" (valka.txt, Lonequest Rules,
Battle): Strike First if Able, Attack with "True, Chance, Reckless and Team Strikes", Defend ("Strong Enuf" /
"Not Enuf" and its Reinforcements), the Special Combat Actions and the Events in hand, "Fight On!!" until the
revealed Marauders are defeated or you are. The battle is the Lonequest engine's (``engine.py``): the solver is an
expectimax over its own decisions, run through ``legal_actions`` / ``apply_action`` / ``advance``; nothing of the
rules is re-stated here. Chance is enumerated, never sampled: every d10 the engine rolls comes from its dice script
(``env`` slot ``E_SCRIPT``), each of the ten faces in turn (a run that reaches past the script is rerun once per
face of the next die), and every card drawn from the Fighter deck (Reinforcements) or the Warband deck (Rally,
Reinforce, a new Fighter) is each card left in turn, with its share of the cards left: both decks are treated as
shuffled, face down. Values are exact Fractions.

The position: a Frontline (Fighters left to right with their Buffs), the Buffs and Events in hand, Stamina and
Krone, the Location's Marauders (revealed one after another; the solver knows them in order), the Fighter deck and
the Warband deck (as multisets). The Location holds one more card under them (never revealed): the battle is won
when the last Marauder's battle ends with the Warband standing; it is lost when the Lonequest ends ("If you have no
Warband Fighters to draw or battle with, you have failed") or when you escape (Bribe, Retreat!: the Marauders are
not cleared; the solver scores an escape 0 without playing it). Between two Marauders the engine's own turn runs
(a new Fighter, Equip, Grave Robber); at "EXPLORE or MARCH" the solver explores.

Memoised over the engine state with what cannot matter to the battle cleared (counters, Quest marks) and the decks
as sorted multisets. A position with more than ``max_states`` memoised states is refused (``TooLarge``); one whose
play can return to an earlier state (a rule reading where a Strike may deal no damage) is refused too (``Cyclic``).
"""

from __future__ import annotations

import sys
from collections import Counter
from fractions import Fraction

import numpy as np
from numba import njit

from simkit.games.valka.lonequest import engine as E
from simkit.games.valka.lonequest import layout as L
from simkit.games.valka.lonequest import policies as pol

MAX_STATES = 20_000  # memoised decision states of one battle (the optimum and every policy); beyond: refused
HOME, ELSEWHERE = 0, 1  # the battle's Location; the start Location (one card: "EXPLORE or MARCH" stays a decision)
DUMMY = -1  # the card under the Location's Marauders (a Quest code, never revealed)
ESCAPES = range(L.SP_BRIBE, L.SP_FEAR)  # Bribe and Retreat! to a Location
_CLEARED_SLOTS = [L.BATTLES, L.TESTS, L.TESTS_WON, L.TURNS, L.CHANCE_STRIKES, L.MARCHES, L.PICKPOCKETED, L.STEPS,
                  L.B_BEFORE, *range(L.PLAYED, L.PLAYED + L.N_LOC), *range(L.FACED, L.FACED + L.N_LOC),
                  *range(L.VISITED, L.VISITED + L.N_LOC), *range(L.QSEEN, L.QSEEN + L.MAX_QUESTS)]


_CLEARED = np.array(_CLEARED_SLOTS, np.int64)


class TooLarge(Exception):
    """The battle has more states than the solver's budget."""


class Cyclic(Exception):
    """The battle can return to a state it has left: the recursion would not end."""


@njit(cache=True)
def run_batch(s, env, a, dice, out, flags):
    """Row r: ``apply_action(s, a)`` (``a`` < 0: ``advance``) with the dice script ``dice[r]`` on a copy of ``s`` in
    ``out[r]``; ``flags[r]``: (1 if a die past the script was rolled, the two decks' tops after the run)."""
    for r in range(dice.shape[0]):
        t = out[r]
        t[:] = s
        script = np.empty(dice.shape[1] + 1, np.int32)
        script[0] = 1
        script[1:] = dice[r]
        env2 = (env[0], env[1], env[2], env[3], env[4], env[5], env[6], env[7], script, env[9])
        rng = np.array([1, 2, 3, 4], np.uint64)
        if a < 0:
            E.advance(t, rng, env2)
        else:
            E.apply_action(t, rng, env2, a)
        flags[r, 0] = 1 if (rng[0] != 1 or rng[1] != 2 or rng[2] != 3 or rng[3] != 4) else 0
        flags[r, 1] = t[L.FD_HEAD]
        flags[r, 2] = t[L.WB_HEAD]


def deck_cards(s, head) -> list[int]:
    n = L.deck_len(s, head)
    return [int(L.deck_peek(s, head, i)) for i in range(n)]


def set_deck(s, head, cards) -> None:
    s[head], s[head + 1] = 0, len(cards)
    s[head + 2:head + 2 + L.DECK] = 0
    for i, c in enumerate(cards):
        s[head + 2 + i] = c


def _arrange(cards: list[int], prefix: tuple) -> list[int]:
    """The deck with ``prefix`` on top and the rest sorted."""
    rest = Counter(cards)
    rest.subtract(prefix)
    return list(prefix) + sorted(rest.elements())


class LonequestBattle:
    """Exact values of one battle. ``s0``: an engine state before its first ``advance`` (``position``); ``env``:
    the engine's env; ``policies``: {name: (kind, params)} that ``value(name)`` evaluates beside the optimum.

    ``standing``: what counts as won. False (the default): the Marauders are cleared, even when the last Marauder
    and the last Fighter fall together (a Reckless Strike's double 1s, a Chance Strike with the defender's damage).
    True: cleared *with the Warband standing*, a Fighter left on the Frontline or in the Warband Deck (else "If
    you have no Warband Fighters to draw or battle with, you have failed" ends the Lonequest right after).
    ``shared``: another solver of the same position whose enumerated outcomes this one reuses."""

    def __init__(self, s0, env, policies=None, max_states: int | None = None, max_work: int | None = None,
                 standing: bool = False, shared: "LonequestBattle | None" = None):
        self.s0, self.env = s0.copy(), env
        self.standing = standing
        self.max_work, self.work = max_work, 0  # engine runs (one per dice path and deck prefix); beyond: refused
        self.home = int(s0[L.LOC])  # the battle's Location (``position``: HOME)
        self.base = env[:E.E_SCRIPT]
        self.log = np.zeros(1, np.int32)
        self.max_states = MAX_STATES if max_states is None else max_states
        self.policies = dict(policies or {})
        self.buf = np.empty(L.MAX_ACTIONS, np.int64)
        self.rng0 = np.array([1, 2, 3, 4], np.uint64)  # a fixed stream: any draw from it means "not scripted"
        self.prng = np.zeros(4, np.uint64)
        self._v: dict = {}  # (who, key) -> value
        self._best: dict = {}  # key -> optimal action
        self._busy: set = set()
        self._out: dict = {} if shared is None else shared._out  # (key, action) -> [(probability, state)]
        if sys.getrecursionlimit() < 20_000:
            sys.setrecursionlimit(20_000)

    # --- the engine with its chance enumerated ----------------------------------------------------------------

    def key(self, s) -> bytes:
        """What the rest of the battle depends on: the state without counters and marks, decks as multisets."""
        t = s.copy()
        t[L.DEFEATED] = s[L.DEFEATED] - s[L.B_BEFORE]  # (the Reward counts the Marauders defeated in this battle)
        t[_CLEARED] = 0
        for head in (L.WB_HEAD, L.FD_HEAD):
            set_deck(t, head, sorted(deck_cards(s, head)))
        return t.tobytes()

    def legal(self, s) -> list[int]:
        n = E.legal_actions(s, self.env, self.buf)
        return [int(a) for a in self.buf[:n]]

    def outcomes(self, s, a=None) -> list:
        """[(probability, state)] after ``apply_action(s, a)`` (``a`` None: ``advance``), every d10 and every card
        drawn from the two decks enumerated; states with the same key merged."""
        fd, wb = deck_cards(s, L.FD_HEAD), deck_cards(s, L.WB_HEAD)
        s = s.copy()
        set_deck(s, L.FD_HEAD, fd)  # (the top at slot 0: a run's draws are where the top has moved to)
        set_deck(s, L.WB_HEAD, wb)
        merged: dict = {}
        act = -1 if a is None else a
        # a job: deck prefixes (Fighter deck, Warband deck) and the dice paths run with them, each with its weight
        jobs = {((), ()): ([()], [Fraction(1)])}
        while jobs:
            (fdp, wbp), (paths, weights) = jobs.popitem()
            u = s.copy()
            if fd or wb:
                set_deck(u, L.FD_HEAD, _arrange(fd, fdp))
                set_deck(u, L.WB_HEAD, _arrange(wb, wbp))
            while paths:
                self.work += len(paths)
                if self.max_work is not None and self.work > self.max_work:
                    raise TooLarge(f"more than {self.max_work:,} engine runs")
                depth = max(len(d) for d in paths)
                dice = np.zeros((len(paths), depth), np.int32)
                for r, d in enumerate(paths):
                    dice[r, :len(d)] = d
                    dice[r, len(d):] = 1  # (never read: a shorter path did not roll past its script)
                out = np.empty((len(paths), L.STATE_SIZE), np.int32)
                flags = np.empty((len(paths), 3), np.int64)
                run_batch(u, self.env, act, dice, out, flags)
                nxt_paths, nxt_weights, leaves, leaf_w = [], [], [], []
                for r in range(len(paths)):
                    d, w = paths[r], weights[r]
                    if flags[r, 0]:  # a die past the script: each face of it
                        nxt_paths += [d + (f,) for f in range(1, 11)]
                        nxt_weights += [w / 10] * 10
                        continue
                    grown = False
                    for cards, pre, col in ((fd, fdp, 1), (wb, wbp, 2)):
                        if int(flags[r, col]) % L.DECK > len(pre):  # a card past the prefix: each card left
                            left = Counter(cards)
                            left.subtract(pre)
                            total = sum(left.values())
                            for card, k in sorted(left.items()):
                                if k > 0:
                                    job = (fdp + (card,), wbp) if col == 1 else (fdp, wbp + (card,))
                                    ps, ws = jobs.setdefault(job, ([], []))
                                    ps.append(d)
                                    ws.append(w * Fraction(k, total))
                            grown = True
                            break
                    if not grown:
                        leaves.append(r)
                        leaf_w.append(w)
                if leaves:
                    same: dict = {}  # the same engine state from several dice paths: one key computed
                    for r, w in zip(leaves, leaf_w):
                        b = out[r].tobytes()
                        if b in same:
                            same[b][1] += w
                        else:
                            same[b] = [r, w]
                    for r, p in same.values():
                        t = out[r]
                        k = self.key(t)
                        if k in merged:
                            merged[k][0] += p
                        else:
                            merged[k] = [p, t.copy()]
                paths, weights = nxt_paths, nxt_weights
        return [(p, t) for p, t in merged.values()]

    # --- values -----------------------------------------------------------------------------------------------

    def terminal(self, s):
        """1 won, 0 lost, None when the battle goes on. Won: the Location's last Marauder's battle is over (only
        the card under them is left, or it was revealed with no decision between: the engine waits at "EXPLORE or
        MARCH", or, when it cannot march, at the next turn's first decision); with ``standing``, a Fighter is also
        left on the Frontline or in the Warband Deck."""
        if s[L.DONE]:
            return Fraction(0)
        if s[L.B_ACTIVE] == 0 and s[L.LOC_N + self.home] <= 1:
            if self.standing and s[L.FRONT_N] == 0 and s[L.WB_N] == 0:
                return Fraction(0)  # cleared, but no Fighter left to battle with or to draw
            return Fraction(1)
        return None

    def actions(self, s) -> list[int]:
        """The choices the solver weighs: at "EXPLORE or MARCH" between two Marauders, explore (the battle goes on)."""
        if s[L.PHASE] == L.PH_EXPLORE:
            return [L.EXPLORE]
        return self.legal(s)

    def q(self, s, a, who, k=None) -> Fraction:
        """The value of action ``a`` at decision ``s`` for ``who``."""
        if s[L.PHASE] == L.PH_SPECIAL and a in ESCAPES:
            return Fraction(0)  # an escape does not clear the Marauders
        k = self.key(s) if k is None else k
        if (k, a) not in self._out:
            self._out[(k, a)] = self.outcomes(s, a)
        return sum((p * self.value_at(t, who) for p, t in self._out[(k, a)]), Fraction(0))

    def value_at(self, s, who) -> Fraction:
        """Value of an engine state at a decision (or over) for ``who`` (None: optimal; else a policy name)."""
        v = self.terminal(s)
        if v is not None:
            return v
        k = self.key(s)
        memo = (who, k)
        if memo in self._v:
            return self._v[memo]
        if memo in self._busy:
            raise Cyclic("the battle can return to a state it has left")
        if len(self._v) >= self.max_states:
            raise TooLarge(f"more than {self.max_states:,} states")
        self._busy.add(memo)
        acts = self.actions(s)
        if who is None:
            best_a, best = acts[0], Fraction(-1)
            for a in acts:
                v = self.q(s, a, None, k)
                if v > best:
                    best_a, best = a, v
            self._best[k] = best_a
            value = best
        elif self.policies[who][0] == pol.RANDOM and s[L.PHASE] != L.PH_EXPLORE:
            value = sum((self.q(s, a, who, k) for a in acts), Fraction(0)) / len(acts)
        else:
            value = self.q(s, self.policy_action(s, who), who, k)
        self._busy.discard(memo)
        self._v[memo] = value
        return value

    def first(self) -> list:
        """[(probability, state)] of the first decisions (the engine advanced from the position)."""
        if "first" not in self._out:
            self._out["first"] = self.outcomes(self.s0, None)
        return self._out["first"]

    def value(self, who=None) -> Fraction:
        """P(the Location's Marauders are cleared) under optimal play (``who`` None) or the named policy."""
        return sum((p * self.value_at(t, who) for p, t in self.first()), Fraction(0))

    def best_action(self, s) -> int:
        """The optimal action at an engine decision (solving from it when not yet seen)."""
        k = self.key(s)
        if k not in self._best:
            self.value_at(s.copy(), None)
        return self._best[k]

    def policy_action(self, s, who) -> int:
        """The named policy's action at an engine decision ("EXPLORE" between two Marauders)."""
        if s[L.PHASE] == L.PH_EXPLORE:
            return L.EXPLORE
        legal = self.legal(s)
        kind, params = self.policies[who]
        return int(pol.policy(kind, s, self.env, np.asarray(legal, np.int64), len(legal), params, self.prng))


# --- actions in words ------------------------------------------------------------------------------------------

def describe_action(a: int, s, env, names) -> str:
    """An action of the pending decision in words (``names``: Fighter names by card id)."""
    ph = s[L.PHASE]
    front = [names[int(s[L.FRONT + L.F_SIZE * i])] for i in range(s[L.FRONT_N])]
    mar = [names[int(s[L.MAR + 2 * j])] for j in range(s[L.MAR_N])]
    if ph == L.PH_STRIKE:
        if a >= L.ST_CHANCE:
            i, j = divmod(a - L.ST_CHANCE, L.MAX_MAR)
            return f"Chance Strike: {front[i]} on {mar[j]}"
        if a >= L.ST_RECKLESS:
            i, j = divmod(a - L.ST_RECKLESS, L.MAX_MAR)
            return f"Reckless Strike: {front[i]} on {mar[j]}"
        if a >= L.ST_TEAM:
            return f"Team Strike on {mar[a - L.ST_TEAM]}"
        i, j = divmod(a - L.ST_TRUE, L.MAX_MAR)
        return f"True Strike: {front[i]} on {mar[j]}"
    if ph == L.PH_SPECIAL:
        table = [(L.SP_LIGHTNING, "Lightning Bolt", None), (L.SP_FIREBLAST, "Fireblast on", mar),
                 (L.SP_RETREAT_EV, "Retreat (Event):", front), (L.SP_CHANGELING, "Changeling on", front),
                 (L.SP_REINFORCE, "Reinforce", None), (L.SP_POTION, "Potion on", front),
                 (L.SP_FEAR, "Fear on", mar), (L.SP_RETREAT, "Retreat! to Location", "loc"),
                 (L.SP_BRIBE, "Bribe, escape to Location", "loc"), (L.SP_RALLY, "Rally", None),
                 (L.SP_NONE, "attack now", None)]
        for base, text, what in table:
            if a >= base:
                if what is None:
                    return text
                if what == "loc":
                    return f"{text} {a - base}"
                return f"{text} {what[a - base]}"
    if ph == L.PH_EQUIP:
        if a == L.EQ_DONE:
            return "equip nothing more"
        i, c = divmod(a - L.EQ_BASE, L.N_BUFFS)
        b = env[E.E_BUFFS][c]
        return f"equip +{b[1]} {('Strike', 'Shield', 'Health')[b[0]]} to {front[i]}"
    if ph == L.PH_OFFER:
        return "offer 20 Krone to VÁLKA" if a == 1 else "accept the failed Test Fate"
    if ph == L.PH_DIVINE_DEFEND:
        return "Divine Aid: prevent the blow" if a == 1 else "take the blow"
    if ph == L.PH_BOON:
        return f"Boon on {mar[a]}"
    if ph == L.PH_GRAVE:
        return "keep the Grave Robber" if a == 0 else f"Grave Robber: recover {names[a - 1]}"
    if ph == L.PH_SUMMON:
        return "summon a 2nd Fighter" if a == 1 else "no summon"
    if ph == L.PH_EXPLORE:
        return "explore" if a == L.EXPLORE else f"march to {a}"
    return f"{L.PHASES[ph]} {a}"


# --- a position, and the engine played by the optimal table -----------------------------------------------------

def position(data, rules, warband: int, front, hand_buffs, hand_events, marauders, fighter_deck=(),
             warband_deck=(), stamina: int = 3, krone: int = 0):
    """(engine state before its first ``advance``, env) of a battle. ``front``: [(fighter id, [buff card ids])]
    left to right; ``hand_buffs`` / ``hand_events``: card ids (Buffs 0..21, Events 0..21); ``marauders``: Fighter
    ids, the first revealed first; the decks: Fighter ids. Card ids must be distinct (``battle_cli`` checks)."""
    from simkit.games.valka.lonequest.simulation import make_env

    env = make_env(data, rules)
    s = np.zeros(L.STATE_SIZE, np.int32)
    E.blank(s, rules)
    s[L.WARBAND], s[L.KRONE], s[L.STAMINA] = warband, krone, stamina
    s[L.LOC], s[L.START], s[L.PREV_LOC] = HOME, ELSEWHERE, -1
    s[L.VISITED + HOME] = 1
    for c in hand_buffs:
        s[L.WHERE + c] = L.HAND
    for e in hand_events:
        s[L.WHERE + L.N_BUFFS + e] = L.HAND
    buffs = data[1]
    for f, equipped in front:
        E.front_add(s, env, f)
        i = s[L.FRONT_N] - 1
        for c in equipped:
            s[L.FRONT + L.F_SIZE * i + L.F_BUFF0 + buffs[c, 0]] = c
            s[L.WHERE + c] = L.EQUIPPED
    cards = [DUMMY, *reversed(list(marauders))]  # the top card is the last
    s[L.LOC_N + HOME] = len(cards)
    for i, c in enumerate(cards):
        s[L.LOC_CARDS + L.LOC_SIZE * HOME + i] = c
    s[L.LOC_N + ELSEWHERE] = 1
    s[L.LOC_CARDS + L.LOC_SIZE * ELSEWHERE] = DUMMY
    set_deck(s, L.FD_HEAD, list(fighter_deck))
    set_deck(s, L.WB_HEAD, list(warband_deck))
    s[L.T_STAGE] = L.T_EXPLORE  # "Explore! - Reveal the Top card of the Map Location you're visiting."
    return s, env


def play(solver: LonequestBattle, n: int, seed: int, who=None) -> int:
    """Battles won out of ``n`` played by the engine with its own dice (battle g: stream (g, 0) of block 0 of
    ``seed``; both decks shuffled from it first) and every choice read from the solver's optimal table (``who``
    None) or made by the named policy."""
    from simkit.core.rng import seed_stream, shuffle
    from simkit.core.seeding import block_key

    key, rng = block_key(seed, 0), np.empty(4, np.uint64)
    wins = 0
    for g in range(n):
        s = solver.s0.copy()
        seed_stream(rng, key, g, 0)
        for head in (L.FD_HEAD, L.WB_HEAD):
            cards = np.array(deck_cards(s, head), np.int64)
            shuffle(rng, cards, len(cards))
            set_deck(s, head, [int(c) for c in cards])
        E.advance(s, rng, solver.env)
        while True:
            v = solver.terminal(s)
            if v is not None:
                wins += int(v)
                break
            if s[L.PHASE] == L.PH_EXPLORE:
                a = L.EXPLORE
            elif who is None:
                a = solver.best_action(s)
            else:
                a = solver.policy_action(s, who)
            if s[L.PHASE] == L.PH_SPECIAL and a in ESCAPES:
                break  # an escape: lost
            E.apply_action(s, rng, solver.env, a)
    return wins
