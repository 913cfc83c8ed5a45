"""Draw to Ten, whose best play is known by hand: the simulator against exact odds, `search` against the
heuristics, and a peeking search caught by the no-peeking check."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from numba import njit

import simkit
from simkit.core import decision as D
from simkit.core.policies import HEURISTIC
from simkit.core.rng import seed_stream
from simkit.games.toy import engine as E
from simkit.games.toy.simulation import decision_game

SCENARIO = "scenarios/toy/draw.toml"


def test_exact_odds_by_hand():
    assert E.exact_win_probability(1, cards=(5,), low=5, high=5) == 1
    # cards 1 and 2, draw while below 2, win on 3: only the order 1 then 2 wins
    assert E.exact_win_probability(2, cards=(1, 2), low=3, high=3) == Fraction(1, 2)
    # cards 1 and 6, draw while below 2, win on 2..6: first card 1 (1/2) then 6 -> 7 busts; first 6 stops: win
    assert E.exact_win_probability(2, cards=(1, 6), low=2, high=6) == Fraction(1, 2)
    best = max(range(0, 12), key=lambda t: E.exact_win_probability(t))
    assert best == 8


def test_simulated_rates_match_exact_odds():
    res = simkit.run(SCENARIO, games=20_000, seed=3, jobs=1)
    rates = {r["group"]["policy"]: r for r in res.summary if r["metric"] == "win_rate"}
    for name, stop_at in (("stop_at_8", 8), ("timid", 6)):
        exact = float(E.exact_win_probability(stop_at))
        assert rates[name]["low"] <= exact <= rates[name]["high"], (name, exact, rates[name])


def test_search_with_one_rollout_per_action_plays_as_its_base_policy():
    """One shared sample per action is no evidence: with caution > 0, search keeps the base action."""
    game = decision_game()
    fns = game.fns
    cfg = D.search_config(rollouts=1, base_kind=HEURISTIC, caution=1.0)
    timid = np.array([6.0])
    buf = np.empty(2, np.int64)
    prng = np.empty(4, np.uint64)
    srng = np.empty(4, np.uint64)
    seed_stream(srng, np.array([5, 6], np.uint64), 0, 0)
    seed_stream(prng, np.array([7, 8], np.uint64), 0, 0)
    decisions = 0
    for seed in range(200):
        s, rng, env = game.new_game(seed)
        while not fns.is_over(s):
            n = fns.legal_actions(s, env, buf)
            a = game.search.search_action(s, rng, env, buf, n, cfg, timid, srng)
            if n > 1:
                assert a == fns.policy(HEURISTIC, s, env, buf, n, timid, prng), int(s[E.TOTAL])
                decisions += 1
            fns.apply_action(s, rng, env, a)
    assert decisions > 200


def test_search_finds_best_play_from_a_bad_base_policy():
    """search over `timid` (stop from 6) plays like stop-at-8: in every state the right action is known."""
    game = decision_game()
    fns = game.fns
    cfg = D.search_config(rollouts=64, base_kind=HEURISTIC)
    timid = np.array([6.0])
    buf = np.empty(2, np.int64)
    srng = np.empty(4, np.uint64)
    seed_stream(srng, np.array([1, 2], np.uint64), 0, 0)
    seen = set()
    for seed in range(60):
        s, rng, env = game.new_game(seed)
        while not fns.is_over(s):
            n = fns.legal_actions(s, env, buf)
            a = game.search.search_action(s, rng, env, buf, n, cfg, timid, srng)
            right = E.DRAW if s[E.TOTAL] < 8 else E.STOP
            if s[E.TOTAL] != 7 or s[E.DECK_N] > 0:  # at 7 drawing is right whatever is left
                assert a == right, (s[E.TOTAL], a)
            seen.add(int(s[E.TOTAL]))
            fns.apply_action(s, rng, env, a)
    assert {6, 7, 8}.issubset(seen)


@njit(cache=True)
def _peek_resample(s, rng, env, seat, srng):
    """A cheating resample: leaves the true deck order in place."""
    return


_FNS = decision_game().fns
CHEAT = D.specialize(D.Fns(_FNS.legal_actions, _FNS.apply_action, _FNS.is_over, _FNS.to_move, _FNS.reward,
                           _peek_resample, _FNS.policy), __name__)


def test_no_peeking_check_catches_a_peeking_search():
    """The check of test_decision_interface.py fails for a search that sees the true deck order."""
    game = decision_game()
    fns = game.fns
    cfg = D.search_config(rollouts=8, base_kind=HEURISTIC)
    params = np.array([6.0])  # timid: stops at 7, where drawing is right
    buf = np.empty(2, np.int64)
    caught = 0
    for seed in range(40):
        s, rng, env = game.new_game(seed)
        fns.apply_action(s, rng, env, E.DRAW)
        fns.apply_action(s, rng, env, E.DRAW)
        if s[E.TOTAL] != 7 or fns.is_over(s):
            continue
        other, orng = s.copy(), rng.copy()
        fns.resample(other, orng, env, 0, _srng(seed))
        n = fns.legal_actions(s, env, buf)
        picks = [CHEAT.search_action(st.copy(), r.copy(), env, buf.copy(), n, cfg, params, _srng(1))
                 for st, r in ((s, rng), (other, orng))]
        honest = [game.search.search_action(st.copy(), r.copy(), env, buf.copy(), n, cfg, params, _srng(1))
                  for st, r in ((s, rng), (other, orng))]
        assert honest[0] == honest[1]
        caught += picks[0] != picks[1]
    assert caught > 0


def _srng(seed):
    r = np.empty(4, np.uint64)
    seed_stream(r, np.array([seed, 99], np.uint64), 0, 5)
    return r
