"""The tests every decision-point engine passes (OpenSpiel-style generic tests), run on every registered mode
that exposes an engine: legal actions only, invariants after every step, playthroughs to the end that reproduce
from their seed, a canonical resample, and a `search` that does not peek at hidden information."""

from __future__ import annotations

import numpy as np
import pytest

from simkit.core import decision as D
from simkit.core import registry
from simkit.core.policies import RANDOM
from simkit.core.rng import seed_stream

ENGINES = [(f"{g.name}/{m.name}", m.engine) for g, m in registry.all_modes() if m.engine is not None]
GAMES = {name: make() for name, make in ENGINES}
IDS = sorted(GAMES)


def _stream(seed, stream=0):
    rng = np.empty(4, np.uint64)
    seed_stream(rng, np.array([seed, 7], np.uint64), 0, stream)
    return rng


def _random_playthrough(game, seed, max_steps=20_000):
    """Random legal play to the end; returns the actions taken. Checks legality and invariants at every step."""
    s, rng, env = game.new_game(seed)
    prng = _stream(seed, 1)
    buf = np.empty(game.max_actions, np.int64)
    zero = np.zeros(1, np.float64)
    actions = []
    while not game.fns.is_over(s):
        n = game.fns.legal_actions(s, env, buf)
        assert 1 <= n <= game.max_actions, f"{game.name}: {n} legal actions in a game not over"
        legal = set(int(x) for x in buf[:n])
        assert len(legal) == n, f"{game.name}: duplicate legal actions {buf[:n]}"
        a = int(game.fns.policy(RANDOM, s, env, buf, n, zero if not game.policies else
                                next(iter(game.policies.values()))[1], prng))
        assert a in legal, f"{game.name}: random policy chose {a}, not in {sorted(legal)}"
        game.fns.apply_action(s, rng, env, a)
        actions.append(a)
        if game.invariants is not None:
            code = game.invariants(s, env)
            assert code == 0, f"{game.name}: invariant {code} broken after action {a} (step {len(actions)})"
        assert len(actions) < max_steps, f"{game.name}: no end after {max_steps} decisions"
    return actions, s


@pytest.mark.parametrize("name", IDS)
def test_random_play_is_legal_keeps_invariants_and_ends(name):
    game = GAMES[name]
    for seed in range(40):
        _random_playthrough(game, seed)


@pytest.mark.parametrize("name", IDS)
def test_every_policy_returns_legal_actions(name):
    game = GAMES[name]
    buf = np.empty(game.max_actions, np.int64)
    for pname, (kind, params) in game.policies.items():
        for seed in range(20):
            s, rng, env = game.new_game(seed)
            prng = _stream(seed, 1)
            steps = 0
            while not game.fns.is_over(s) and steps < 20_000:
                n = game.fns.legal_actions(s, env, buf)
                a = game.fns.policy(kind, s, env, buf, n, params, prng)
                assert a in buf[:n], f"{name}: policy {pname} chose {a}, not in {list(buf[:n])}"
                game.fns.apply_action(s, rng, env, a)
                steps += 1
            assert game.fns.is_over(s)


@pytest.mark.parametrize("name", IDS)
def test_playthrough_reproduces_from_its_seed(name):
    game = GAMES[name]
    a1, s1 = _random_playthrough(game, 123)
    a2, s2 = _random_playthrough(game, 123)
    assert a1 == a2 and np.array_equal(s1, s2)
    a3, _ = _random_playthrough(game, 124)
    b3, _ = _random_playthrough(game, 125)
    assert a1 != a3 or a1 != b3, "different seeds should give different games"


def _mid_game(game, seed, steps):
    """A state after ``steps`` random decisions (or fewer if the game ends sooner) with a real choice pending."""
    s, rng, env = game.new_game(seed)
    prng = _stream(seed, 1)
    buf = np.empty(game.max_actions, np.int64)
    zero = next(iter(game.policies.values()))[1] if game.policies else np.zeros(1)
    for _ in range(steps):
        if game.fns.is_over(s):
            return None
        n = game.fns.legal_actions(s, env, buf)
        game.fns.apply_action(s, rng, env, game.fns.policy(RANDOM, s, env, buf, n, zero, prng))
    if game.fns.is_over(s) or game.fns.legal_actions(s, env, buf) < 2:
        return None
    return s, rng, env


@pytest.mark.parametrize("name", IDS)
def test_resample_is_canonical(name):
    """Resampling depends only on what the seat has seen: resampling a state whose hidden part was already
    resampled gives the same result as resampling the original."""
    game = GAMES[name]
    checked = 0
    for seed in range(30):
        got = _mid_game(game, seed, seed % 7)
        if got is None:
            continue
        s, rng, env = got
        seat = game.fns.to_move(s)
        other, orng = s.copy(), rng.copy()
        game.fns.resample(other, orng, env, seat, _stream(999 + seed, 3))
        a, arng = s.copy(), rng.copy()
        b, brng = other.copy(), orng.copy()
        game.fns.resample(a, arng, env, seat, _stream(5, 4))
        game.fns.resample(b, brng, env, seat, _stream(5, 4))
        assert np.array_equal(a, b) and np.array_equal(arng, brng)
        checked += 1
    assert checked >= 5


@pytest.mark.parametrize("name", IDS)
def test_search_does_not_peek(name):
    assert GAMES[name].search is not None, f"{name}: DecisionGame.search (decision.specialize) is missing"
    """Two states that differ only in hidden information (unseen card order, the chance stream) get the same
    `search` decision from the same search stream, so the same decision distribution."""
    game = GAMES[name]
    fns = game.fns
    kind, params = next(iter(game.policies.values()))
    cfg = D.search_config(rollouts=4, base_kind=kind)
    buf = np.empty(game.max_actions, np.int64)
    differed = checked = 0
    for seed in range(12):
        got = _mid_game(game, seed, seed % 5)
        if got is None:
            continue
        s, rng, env = got
        other, orng = s.copy(), rng.copy()
        fns.resample(other, orng, env, fns.to_move(s), _stream(77 + seed, 3))
        differed += not np.array_equal(other, s)
        n = fns.legal_actions(s, env, buf)
        legal = buf[:n].copy()
        picks = []
        for st, r in ((s, rng), (other, orng)):
            picks.append(game.search.search_action(st.copy(), r.copy(), env, legal, n, cfg, params,
                                                   _stream(seed, 9)))
        assert picks[0] == picks[1], f"{name}: search chose {picks} from states differing only in hidden information"
        checked += 1
    assert checked >= 3 and differed >= 1
