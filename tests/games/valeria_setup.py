"""Hand-built Valeria positions for the tests: a fresh game on a chosen random stream, and a seat's Resources
read and set (held = gained − spent kept)."""

from __future__ import annotations

import numpy as np

from pathlib import Path

from simkit.core.rng import seed_stream
from simkit.games.valeria import cards as K
from simkit.games.valeria import engine as E
from simkit.games.valeria import events as EV
from simkit.games.valeria import state as S
from simkit.games.valeria.simulation import make_env

CARDS = K.load_cards()
EVK = {e["key"]: i for i, e in enumerate(CARDS.events)}
SCEN = Path(K.default_cards_path()).parent


def new_game(players, seed, cards, stream, keep_dukes=False, **options):
    """A new game of ``players`` seeded ``(seed, stream)``; with ``keep_dukes`` every seat keeps its first Duke."""
    env = make_env(cards, players, **options)
    s = np.zeros(S.STATE_SIZE, np.int32)
    rng = np.empty(4, np.uint64)
    seed_stream(rng, np.array([seed, stream], np.uint64), 0, 0)
    E.new_game(s, rng, env)
    while keep_dukes and s[S.PHASE] == S.P_DUKE:
        E.apply_action(s, rng, env, S.A_KEEP)
    return s, rng, env


def legal(s, env):
    buf = np.empty(S.MAX_ACTIONS, np.int64)
    n = E.legal_actions(s, env, buf)
    return [int(x) for x in buf[:n]]


def res(s, p):
    return [int(s[S.GOLD + r * S.MAX_P + p]) for r in range(3)]


def set_res(s, p, gold, strength, magic):
    """Set a seat's Resources, keeping the bookkeeping (held = gained - spent)."""
    for r, v in enumerate((gold, strength, magic)):
        s[S.GOLD + r * S.MAX_P + p] = v
        s[S.GAINED + p * 3 + r] = v
        s[S.SPENT + p * 3 + r] = 0


def empty_area(s, env, a, seat=1):
    """Slay every Monster of area ``a`` for ``seat`` by hand (the area's stack is exhausted)."""
    first, cnt = env[4][a]
    for i in range(cnt):
        s[S.MON_OWNER + first + i] = seat
    s[S.MON_LEFT + a] = 0


def action_phase(s, p=0):
    """Seat ``p``'s Action Phase with both actions left and no Harvest pending."""
    s[S.PHASE], s[S.ACTIVE], s[S.ACTS], s[S.TO_MOVE] = S.P_ACTION, p, 2, p
    s[S.PEND_ANY:S.PEND_ANY + S.MAX_P] = 0


def face_up(s, key, slot):
    """Turn Event ``key`` (in the Exhausted stack: preselect it) face up in Center stack ``slot``, as an action
    that empties that stack would: it is moved to the top of the stack first."""
    e = EVK[key]
    seq = [int(x) for x in s[S.EV_SEQ + s[S.EV_LO]:S.EV_SEQ + s[S.EV_HI]]]
    i = seq.index(e) + s[S.EV_LO]
    top = s[S.EV_HI] - 1
    s[S.EV_SEQ + i], s[S.EV_SEQ + top] = s[S.EV_SEQ + top], s[S.EV_SEQ + i]
    EV.reveal(s, slot)
    assert s[S.EV_POS + e] == slot and s[S.EV_SLOT + slot] == e + 1
    return e
