"""`search` with ``budget = "ismcts"``: information-set MCTS over determinizations (decision.ismcts_action)."""

from __future__ import annotations

import numpy as np
import pytest

from simkit.core import decision as D
from simkit.core import loader, registry
from simkit.core.policies import HEURISTIC
from simkit.core.rng import seed_stream
from simkit.games.toy import engine as TE

ROOT = registry.scenarios_dir()
ENGINES = sorted(f"{g.name}/{m.name}" for g, m in registry.all_modes() if m.engine is not None)


def _stream(seed, stream=0):
    rng = np.empty(4, np.uint64)
    seed_stream(rng, np.array([seed, 13], np.uint64), 0, stream)
    return rng


def test_tree_search_finds_the_best_play_at_draw_to_ten(tmp_path):
    """Over the weak `timid` heuristic (39% wins), the tree plays close to the exact optimum 137/198."""
    text = (ROOT / "toy" / "draw.toml").read_text().replace('play = ["stop_at_8", "timid", "random", "search"]',
                                                           'play = ["tree", "timid"]')
    text += '\n[policies.tree]\nkind = "search"\nbase = "timid"\nrollouts = 16\nbudget = "ismcts"\n'
    p = tmp_path / "draw.toml"
    p.write_text(text)
    sim = loader.load(p).simulation
    key = np.random.SeedSequence(4, spawn_key=(0,)).generate_state(2, np.uint64)
    cols = sim.run_block(key, 2000)
    won = {name: cols["won"][cols["policy"] == name].mean() for name in ("tree", "timid")}
    exact = float(TE.exact_win_probability(8))
    se = np.sqrt(exact * (1 - exact) / 2000)
    assert won["tree"] > exact - 4 * se - 0.01 and won["tree"] > won["timid"] + 0.2


def test_tree_search_takes_the_winning_draw():
    """Total 7 with only 1s, 2s and 3s left: every draw wins, stopping loses; the tree must draw."""
    dg = registry.get_mode("toy", "draw")[1].engine()
    s, rng, env = dg.new_game(1)
    s[TE.TOTAL] = 7
    s[TE.DRAWS] = 0
    s[TE.DECK_N] = 3
    s[TE.DECK:TE.DECK + 3] = [1, 2, 3]
    buf = np.empty(2, np.int64)
    n = dg.fns.legal_actions(s, env, buf)
    timid = dg.policies["timid"][1]
    cfg = D.search_config(rollouts=8, base_kind=HEURISTIC, budget="ismcts")
    assert dg.search.ismcts_action(s, rng, env, buf, n, cfg, timid, _stream(2)) == TE.DRAW


@pytest.mark.parametrize("name", ENGINES)
def test_tree_search_does_not_peek(name):
    """Two states that differ only in hidden information get the same tree-search decision from the same
    search stream."""
    g, m = name.split("/")
    game = registry.get_mode(g, m)[1].engine()
    fns = game.fns
    kind, params = next(iter(game.policies.values()))
    cfg = D.search_config(rollouts=2, base_kind=kind, budget="ismcts")
    buf = np.empty(game.max_actions, np.int64)
    differed = checked = 0
    for seed in range(10):
        s, rng, env = game.new_game(seed)
        prng = _stream(seed, 1)
        for _ in range(seed % 5):
            if fns.is_over(s):
                break
            n = fns.legal_actions(s, env, buf)
            fns.apply_action(s, rng, env, fns.policy(1, s, env, buf, n, params, prng))
        if fns.is_over(s) or fns.legal_actions(s, env, buf) < 2:
            continue
        other, orng = s.copy(), rng.copy()
        fns.resample(other, orng, env, fns.to_move(s), _stream(77 + seed, 3))
        differed += not np.array_equal(other, s)
        n = fns.legal_actions(s, env, buf)
        legal = buf[:n].copy()
        picks = [game.search.ismcts_action(st.copy(), r.copy(), env, legal, n, cfg, params, _stream(seed, 9))
                 for st, r in ((s, rng), (other, orng))]
        assert picks[0] == picks[1], f"{name}: the tree chose {picks} from states differing only in hidden information"
        assert picks[0] in legal
        checked += 1
    assert checked >= 3 and differed >= 1
