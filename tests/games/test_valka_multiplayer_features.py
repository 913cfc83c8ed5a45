"""VÁLKA multiplayer's features for `learned` policies: they read only what the mover may see (other hands,
face-down cards and pile orders resampled never change a row, in all three modes), a strike's, a Buff's and a
placement's numbers in a scripted position, the simulation playing a learned policy (a model that only trusts
``is_base`` plays exactly its base heuristic), and the scenario-driven decision game ``simkit train`` uses."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from simkit.core import learned as LM
from simkit.core import loader
from simkit.core.policies import HEURISTIC, LEARNED, param_vector
from simkit.core.rng import seed_stream
from simkit.games.valka.cards import load_cards
from simkit.games.valka.chance_strike import ChanceStrikeRules, chance_strike
from simkit.games.valka.multiplayer import engine as E
from simkit.games.valka.multiplayer import features as F
from simkit.games.valka.multiplayer import layout as L
from simkit.games.valka.multiplayer import policies as P
from simkit.games.valka.multiplayer import simulation as S

ROOT = Path(__file__).resolve().parents[2]
SCEN = ROOT / "scenarios" / "valka"
CARDS = load_cards()
FI = {f.key: i for i, f in enumerate(CARDS.fighters)}
BALANCED = param_vector(P.PARAMS, P.PRESETS["balanced"][1])


def _stream(*words):
    r = np.empty(4, np.uint64)
    seed_stream(r, np.array(words[:2], np.uint64), 0, words[2] if len(words) > 2 else 0)
    return r


def _rows(s, env, buf):
    n = E.legal_actions(s, env, buf)
    X = np.zeros((n, F.N_FEATURES))
    P.LEARNED_FNS.action_features(s, env, buf, n, BALANCED, _stream(1, 1), X)
    return n, X


def test_feature_names_match_the_slots():
    assert len(F.FEATURES) == F.N_FEATURES == 1 + F.N_CAT + F.N_CAT * F.N_SCALARS + len(F.NUMBERS)
    assert F.FEATURES[F.BASE0 + F.K_STRIKE + L.ST_CHANCE] == "is_base_x_chance_strike"
    assert F.FEATURES[F.CAT0 + (F.K_STRIKE + L.ST_TEAM) * F.N_SCALARS + 6] == "team_strike_x_score"
    assert F.FEATURES[F.CAT0 + F.event_category(L.EV_GRAVE_ROBBER) * F.N_SCALARS] == "grave_robber_x_bias"
    assert F.FEATURES[F.CAT0 + F.event_category(L.EV_FIREBLAST) * F.N_SCALARS] == "fireblast_x_bias"
    assert F.FEATURES[F.HIT_CHANCE] == "hit_chance" and F.FEATURES[-1] == "guard_falls"


def _heuristic_decisions(variant, players, games, every, tag):
    """Walk ``games`` games of `balanced` (seeds 0, 1, …; its coin flips from stream ``tag``) and stop at every
    ``every``-th step that has two or more legal actions: yields ``(seed, step, s, rng, env, buf, n)``; the game
    goes on once the caller is done (it may reuse ``buf``, not change ``s`` or ``rng``)."""
    g = S.decision_game(variant, players)
    buf = np.empty(L.MAX_ACTIONS, np.int64)
    for seed in range(games):
        s, rng, env = g.new_game(seed)
        prng = _stream(seed, tag, 1)
        step = 0
        while not E.is_over(s) and step < 3000:
            n = E.legal_actions(s, env, buf)
            if n > 1 and step % every == 0:
                yield seed, step, s, rng, env, buf, n
                n = E.legal_actions(s, env, buf)
            E.apply_action(s, rng, env, P.policy(HEURISTIC, s, env, buf, n, BALANCED, prng))
            step += 1


@pytest.mark.parametrize("variant, players", [("bounty-hunter", 4), ("annihilation", 3), ("duel", 2)])
def test_features_read_only_what_the_mover_sees(variant, players):
    """At decisions all through heuristic games, the mover's hidden information is redealt (``resample``: the
    other hands, their face-down cards, the pile orders): every legal action's feature row stays the same, and no
    action writes more than MAX_NNZ features. The next seat's hand differs in a third or more of the decisions
    checked (a Duel's public draft takes many of them), so a feature that read it would fail here."""
    buf2 = np.empty(L.MAX_ACTIONS, np.int64)
    idx = np.empty(4 * F.MAX_NNZ, np.int64)
    val = np.empty(4 * F.MAX_NNZ, np.float64)
    st = np.empty(F.N_STATE)
    checked = differ = most = 0
    kinds = set()
    for seed, step, s, rng, env, buf, _ in _heuristic_decisions(variant, players, 6, 2, 5):
        p = E.to_move(s)
        other, orng = s.copy(), rng.copy()
        E.resample(other, orng, env, p, _stream(seed, step, 3))
        n1, X1 = _rows(s, env, buf)
        n2, X2 = _rows(other, env, buf2)
        assert n1 == n2 and np.array_equal(buf[:n1], buf2[:n2])
        assert np.array_equal(X1, X2), f"{variant}: features changed with hidden information (step {step})"
        F.state(s, env, st)
        for a in buf[:n1]:
            most = max(most, F.features(s, env, a, True, st, idx, val))
            kinds.add(F.category(s, env, a))
        q = (p + 1) % players
        b = E.sb(q)
        h = s[b + L.S_HANDN]
        differ += sorted(s[b + L.S_HAND:b + L.S_HAND + h]) != sorted(other[b + L.S_HAND:b + L.S_HAND + h])
        checked += 1
    assert checked > 100 and differ > 0.3 * checked and most <= F.MAX_NNZ
    assert F.K_STRIKE + L.ST_TRUE in kinds and F.K_MAIN_DONE in kinds and F.K_SETUP_FRONT in kinds


def test_slot_numbers_counted_once_a_decision_are_the_engines():
    """The Strike, Shield, Health left and worth of a Frontline slot are counted once per decision, on first use
    (``slot_number``): at decisions all through 4-player Bounty Hunter games each equals the engine's own count,
    and every action's features are the same whether the decision's numbers were counted for it alone or shared
    with the actions before it (the order the scorer takes them in)."""
    idx = np.empty(F.MAX_NNZ, np.int64)
    val = np.empty(F.MAX_NNZ, np.float64)
    idx1 = np.empty(F.MAX_NNZ, np.int64)
    val1 = np.empty(F.MAX_NNZ, np.float64)
    shared = np.empty(F.N_STATE)
    fresh = np.empty(F.N_STATE)
    strikes = slots = 0
    for _, _, s, _, env, buf, n in _heuristic_decisions("bounty-hunter", 4, 4, 3, 7):
        F.state(s, env, shared)
        for a in buf[:n]:
            m = F.features(s, env, a, False, shared, idx, val)
            F.state(s, env, fresh)
            m1 = F.features(s, env, a, False, fresh, idx1, val1)
            assert m == m1 and np.array_equal(idx[:m], idx1[:m1]) and np.array_equal(val[:m], val1[:m1])
            strikes += F.category(s, env, a) in range(F.K_STRIKE, F.K_STRIKE + 4)
        for q in range(s[L.H_NP]):
            for j in range(F.ROW):
                if 0 <= s[E.lb(q, j) + L.L_CARD] < L.N_FIGHTERS:
                    F.state(s, env, fresh)
                    assert F.slot_number(s, env, fresh, q, j, F.C_STRIKE) == E.strike_total(s, env, q, j)
                    assert F.slot_number(s, env, fresh, q, j, F.C_SHIELD) == E.shield_total(s, env, q, j)
                    assert F.slot_number(s, env, fresh, q, j, F.C_HEALTH) == E.health_left(s, env, q, j)
                    assert F.slot_number(s, env, fresh, q, j, F.C_WORTH) == F.fighter_worth(s, env, q, j)
                    slots += 1
    assert strikes > 200 and slots > 500


def _table(players=4, **rules):
    """An empty table in seat 0's main phase (every card in the draw pile), as the engine tests build it."""
    env = S.make_env(CARDS, S.rules_vector("bounty-hunter", players, **rules))
    s = np.zeros(L.STATE_SIZE, np.int32)
    s[L.H_NP] = players
    s[L.H_TRIGGER] = -1
    for p in range(players):
        for j in range(8):
            E.clear_slot(s, p, j)
    s[L.DECKS] = L.N_CARDS
    s[L.DECKS + 1:L.DECKS + 1 + L.N_CARDS] = np.arange(L.N_CARDS)[::-1]
    s[L.H_PHASE] = L.PH_MAIN
    s[L.H_BEGUN] = 1
    return s, env


def _take(s, c):
    n = s[L.DECKS]
    cards = [x for x in s[L.DECKS + 1:L.DECKS + 1 + n] if x != c]
    s[L.DECKS + 1:L.DECKS + n] = cards
    s[L.DECKS + n] = 0
    s[L.DECKS] = n - 1


def _put(s, p, j, c, dmg=0):
    _take(s, c)
    b = E.lb(p, j)
    s[b + L.L_CARD], s[b + L.L_FACE], s[b + L.L_DMG] = c, 1, dmg


def _give(s, p, c):
    _take(s, c)
    E.hand_add(s, p, c)


def _scripted():
    """Seat 0: Aurochs Rider (Strike 5, Shield 1, Health 3, Infamy 3) in front, Squire in the Backline, a Berserker
    and a Strike +2 Buff in hand. Seat 1: Glacier Raider (Shield 1, Health 2, Infamy 1); seat 2: Skald of the
    Plains (Shield 2) with 1 damage and 4 Infamy (the leader); seat 3: The Lost One. Chance Strikes allowed
    anywhere (rule chance_strike = "any")."""
    s, env = _table(chance_strike="any")
    _put(s, 0, 0, FI["aurochs_rider"])
    _put(s, 0, 4, FI["squire"])
    for p, (front, back) in enumerate([("glacier_raider", "crawler"), ("skald", "thornling"),
                                       ("the_lost_one", "quiet_keeper")], start=1):
        _put(s, p, 0, FI[front], dmg=1 if p == 2 else 0)
        _put(s, p, 4, FI[back])
    s[E.sb(2) + L.S_INFAMY] = 4
    _give(s, 0, FI["berserker"])
    buff = next(L.BUFF0 + i for i, b in enumerate(CARDS.buffs) if b.type == 0 and b.value == 2)
    _give(s, 0, buff)
    return s, env


def _feats(s, env, a, is_base=False):
    st = np.empty(F.N_STATE)
    F.state(s, env, st)
    idx = np.empty(F.MAX_NNZ, np.int64)
    val = np.empty(F.MAX_NNZ, np.float64)
    m = F.features(s, env, a, is_base, st, idx, val)
    out = {}
    for i, v in zip(idx[:m], val[:m]):
        out[F.FEATURES[i]] = out.get(F.FEATURES[i], 0.0) + v
    return out


def _attack(i, q, j, t):
    return L.B_ATTACK + ((i * 5 + q) * 4 + j) * 4 + t


def test_a_strike_in_a_scripted_position():
    """Aurochs Rider's True Strike on the Glacier Raider (seat 1, to the left, one Frontline Fighter): hits for
    sure, does not defeat it (Health 2), margin (5 - 1) / 5; its worth 3 + 1 + 1.5 x 2 + 0.5 x 1 = 7.5, Infamy 1.
    The Chance Strike on the damaged Skald (seat 2, the leader): the exact odds of Strike 5 against Shield 2, and
    a hit defeats it. The state: one Fighter of Health 3 and Strike 5 up front, one in the Backline, 2 cards in
    hand, the leader's score 4 / 10, 3 of 12 opposing Frontline places filled."""
    s, env = _scripted()
    legal = S.D.legal_list(S.FNS, s, env, L.MAX_ACTIONS)
    true1, chance2 = _attack(0, 1, 0, L.ST_TRUE), _attack(0, 2, 0, L.ST_CHANCE)
    assert true1 in legal and chance2 in legal
    x = _feats(s, env, true1)
    assert x["true_strike_x_bias"] == 1.0 and x["true_strike_x_front"] == 0.25 and x["true_strike_x_back"] == 0.25
    assert x["true_strike_x_hand"] == pytest.approx(0.2) and x["true_strike_x_front_health"] == pytest.approx(0.3)
    assert x["true_strike_x_front_strike"] == pytest.approx(0.5)
    assert x["true_strike_x_best_opp_score"] == pytest.approx(0.4) and x["true_strike_x_score"] == 0.0
    assert x["true_strike_x_opp_front"] == pytest.approx(0.25) and x["true_strike_x_opponents"] == 0.75
    assert x["true_strike_x_pile"] == pytest.approx((L.N_CARDS - 10) / 40.0)
    assert x["hit_chance"] == 1.0 and "hurt_chance" not in x and "target_falls" not in x
    assert x["target_left"] == 1.0 and "target_leader" not in x and x["target_last_front"] == 1.0
    assert x["target_health"] == pytest.approx(0.4) and x["target_worth"] == pytest.approx(0.75)
    assert x["target_infamy"] == pytest.approx(1 / 3) and x["strike_margin"] == pytest.approx(0.8)
    assert x["attacker_health"] == pytest.approx(0.6) and x["attacker_worth"] == pytest.approx(1.2)
    odds = chance_strike(5, 2, ChanceStrikeRules("loses", True))
    y = _feats(s, env, chance2)
    assert y["hit_chance"] == pytest.approx(float(odds["attacker_hits"] + odds["both_hurt"]))
    assert y["hurt_chance"] == pytest.approx(float(odds["defender_hits"] + odds["both_hurt"]))
    assert y["target_falls"] == 1.0 and y["target_leader"] == 1.0 and "target_left" not in y
    assert y["target_health"] == pytest.approx(0.2) and y["strike_margin"] == pytest.approx(0.6)
    assert y["chance_strike_x_bias"] == 1.0 and "true_strike_x_bias" not in y
    # is_base adds the flag and the kind's flag, nothing else
    z = _feats(s, env, true1, True)
    assert set(z) - set(x) == {"is_base", "is_base_x_true_strike"}
    assert all(z[k] == x[k] for k in x)


def test_plays_in_a_scripted_position():
    """Equipping the Strike +2 Buff on the face-up Squire in the Backline: the Buff's value 2 / 3, the Squire's
    worth and Health; setting the Berserker (a Barbarian, like the Aurochs Rider up front) face up in the Backline:
    its value (5 + 0 + 1.5 x 1 + 0.5 x 2) / 10 and one Warband mate, face up or down."""
    s, env = _scripted()
    legal = S.D.legal_list(S.FNS, s, env, L.MAX_ACTIONS)
    sq = CARDS.fighters[FI["squire"]]
    eq = L.B_EQUIP + 1 * 8 + 4  # Buff kind 1: Strike (type 0), value 2; Backline slot 4
    up = L.B_BACK_UP + FI["berserker"]
    assert eq in legal and up in legal
    x = _feats(s, env, eq)
    assert x["equip_strike_x_bias"] == 1.0 and x["buff_value"] == pytest.approx(2 / 3) and "to_front" not in x
    assert x["target_worth"] == pytest.approx((sq.strike + sq.shield + 1.5 * sq.health + 0.5 * sq.infamy) / 10)
    assert x["slot_health"] == pytest.approx(sq.health / 5)
    y = _feats(s, env, up)
    assert y["back_up_x_bias"] == 1.0 and y["card_value"] == pytest.approx(0.75)
    assert y["warband_mates"] == pytest.approx(1 / 3) and "to_front" not in y
    down = _feats(s, env, L.B_BACK_DOWN + FI["berserker"])
    assert down["back_down_x_bias"] == 1.0 and down["card_value"] == y["card_value"]


def _model(path, w):
    m = LM.Model("valka", "bounty-hunter", list(F.FEATURES), w, np.zeros((0, F.N_FEATURES)), np.zeros(0),
                 np.zeros(0), "balanced", {k: float(BALANCED[v[0]]) for k, v in P.PARAMS.items()}, "x")
    return m.save(path)


def test_a_learned_policy_that_trusts_is_base_plays_its_base(tmp_path):
    """A model whose only weight is on ``is_base`` scores the base heuristic's action 1 and every other 0: in the
    simulation (the hero's parameter vector stacked with the heuristics') it plays exactly the games `balanced`
    plays, against balanced, aggressive and cautious; with its weight on another feature it plays differently."""
    w = np.zeros(F.N_FEATURES)
    w[0] = 1.0
    _model(tmp_path / "base.npz", w)
    w2 = np.zeros(F.N_FEATURES)
    w2[F.TARGET_WORTH] = -1.0  # the least worthy target first
    _model(tmp_path / "odd.npz", w2)
    text = (SCEN / "bounty_hunter.toml").read_text().split("[policies.balanced_tuned]")[0]
    text, n = re.subn(r"(?m)^play = \[.*\]$", 'play = ["balanced", "mirror", "odd"]', text)
    assert n == 1
    text = text.replace('cards = "cards.toml"', f'cards = "{(SCEN / "cards.toml").as_posix()}"')
    text += ('\n[policies.mirror]\nkind = "learned"\nweights = "base.npz"\n'
             '\n[policies.odd]\nkind = "learned"\nweights = "odd.npz"\n')
    (tmp_path / "s.toml").write_text(text)
    sim = loader.load(tmp_path / "s.toml").simulation
    assert list(sim.kinds[:3]) == [HEURISTIC, LEARNED, LEARNED] and sim.params.shape[1] > len(P.PARAMS)
    cols = sim.run_block(np.array([5, 6], np.uint64), 12)
    pol = np.asarray(cols["policy"])
    for c in ("won", "turns", "winner", "seat0_infamy", "seat1_captures", "chance_strikes"):
        v = np.asarray(cols[c])
        assert np.array_equal(v[pol == "mirror"], v[pol == "balanced"]), c
    turns = np.asarray(cols["turns"])
    assert not np.array_equal(turns[pol == "odd"], turns[pol == "balanced"])


def test_the_training_decision_game_follows_the_scenario():
    """``decision_game(variant, players, scenario)``: game ``seed`` is dealt at table size number ``seed % 3`` of
    a 3-, 4- and 5-player scenario, its policies include the scenario's (`balanced_tuned` of bounty_hunter.toml),
    and the learned machinery is bound."""
    dg = S.decision_game("bounty-hunter", 4, SCEN / "bounty_hunter_tables.toml")
    for seed in range(6):
        s, rng, env = dg.new_game(seed)
        assert s[L.H_NP] == (3, 4, 5)[seed % 3] == env[9][L.R_NP]
    assert dg.learned is P.LEARNED_FNS and dg.feature_names == F.FEATURES
    tuned = S.decision_game("bounty-hunter", 4, SCEN / "bounty_hunter.toml")
    specs = loader.load(SCEN / "bounty_hunter.toml").simulation.policy_specs
    spec = dict(next(s for s in specs if s[0] == "balanced_tuned")[2])
    assert tuned.policies["balanced_tuned"][0] == HEURISTIC
    assert np.array_equal(tuned.policies["balanced_tuned"][1], param_vector(P.PARAMS, spec))


def test_the_committed_weights_are_current(tmp_path):
    """``bounty_hunter.learned.npz`` (make train) was trained on these features from `balanced_tuned`, and the
    bundled scenario, which plays it first, loads under --strict without a stale-policy warning."""
    weights = SCEN / "bounty_hunter.learned.npz"
    m = LM.load_model(weights)
    assert (m.game, m.mode, m.base) == ("valka", "bounty-hunter", "balanced_tuned")
    assert tuple(m.feature_names) == F.FEATURES
    text = (SCEN / "bounty_hunter.toml").read_text().replace('cards = "cards.toml"',
                                                             f'cards = "{(SCEN / "cards.toml").as_posix()}"')
    assert 'weights = "bounty_hunter.learned.npz"' in text  # the bundled scenario plays them (its report leads)
    text = text.replace('weights = "bounty_hunter.learned.npz"', f'weights = "{weights.as_posix()}"')
    (tmp_path / "s.toml").write_text(text)
    sc = loader.load(tmp_path / "s.toml", strict=True)
    assert sc.warnings == [] and sc.simulation.kinds[0] == LEARNED
