"""The Valkyrie Incident's features for `learned` policies: they read only what the mover may see (the other
hand, Deck and picks, the Incident Deck, the face-down Conflict and Victory Cards resampled never change a row),
a War play's numbers in a scripted position, the simulation playing a learned policy (a model that only trusts
``is_base`` plays exactly its base heuristic), and the scenario-driven decision game ``simkit train`` uses."""

from __future__ import annotations

import re

from pathlib import Path

import numpy as np
import pytest

from simkit.core import learned as LM
from simkit.core import loader
from simkit.core.policies import HEURISTIC, param_vector
from simkit.core.rng import seed_stream
from simkit.games.valkyrie_incident import cards as K
from simkit.games.valkyrie_incident import engine as E
from simkit.games.valkyrie_incident import features as F
from simkit.games.valkyrie_incident.simulation import decision_game, rules_vector

ROOT = Path(__file__).resolve().parents[2]
SCEN = ROOT / "scenarios" / "valkyrie_incident"
DATA = K.load_cards().arrays()
FOCUSED = param_vector(E.PARAMS, E.PRESETS["focused"][1])


def _stream(*words):
    r = np.empty(4, np.uint64)
    seed_stream(r, np.array(words[:2], np.uint64), 0, words[2] if len(words) > 2 else 0)
    return r


def _env(ruleset, emb=(-1, -1)):
    r = rules_vector(ruleset)
    r[E.R_EMB0], r[E.R_EMB1] = emb
    return (DATA[0], DATA[1], DATA[2], r)


def _rows(s, env, vec, buf):
    n = E.legal_actions(s, env, buf)
    X = np.zeros((n, F.N_FEATURES))
    E.LEARNED_FNS.action_features(s, env, buf, n, vec, _stream(1, 1), X)
    return n, X


def test_feature_names_match_the_slots():
    assert len(F.FEATURES) == F.N_FEATURES == 1 + F.N_CAT + F.N_CAT * F.N_SCALARS + len(F.NUMBERS)
    assert F.FEATURES[F.CAT0 + F.K_PLAY * F.N_SCALARS + 10] == "play_x_conflicts_led"
    assert F.FEATURES[F.LEAD_AFTER] == "lead_after" and F.FEATURES[-1] == "excess_lead"


@pytest.mark.parametrize("ruleset", ["standard", "blitz"])
def test_features_read_only_what_the_mover_sees(ruleset):
    """At decisions all through the game, the mover's hidden information is redealt (``resample``: the other
    seat's hand, Deck, picks and draft hand, the Incident Deck, the Conflict and Victory Cards, the own Deck's
    order): every legal action's feature row stays the same. The other hand differs in most War decisions
    checked, so a feature that read it would fail here."""
    env = _env(ruleset, (0, 1))
    buf = np.empty(E.MAX_ACTIONS, np.int64)
    buf2 = np.empty(E.MAX_ACTIONS, np.int64)
    checked = hands_differ = war = 0
    for seed in range(8):
        s = np.zeros(E.STATE_SIZE, np.int32)
        rng = _stream(seed, 4)
        E.new_game(s, rng, env)
        prng = _stream(seed, 5, 1)
        step = 0
        while not E.is_over(s):
            n = E.legal_actions(s, env, buf)
            if n > 1 and step % 3 == 0:
                p = E.to_move(s)
                o = 1 - p
                other, orng = s.copy(), rng.copy()
                E.resample(other, orng, env, p, _stream(seed, step, 3))
                n1, X1 = _rows(s, env, FOCUSED, buf)
                n2, X2 = _rows(other, env, FOCUSED, buf2)
                assert n1 == n2 and np.array_equal(buf[:n1], buf2[:n2])
                assert np.array_equal(X1, X2), f"{ruleset}: features changed with hidden information (step {step})"
                h = s[E.N_HAND + o]
                if h and sorted(s[E.HAND + o * E.NC:E.HAND + o * E.NC + h]) != \
                        sorted(other[E.HAND + o * E.NC:E.HAND + o * E.NC + h]):
                    hands_differ += 1
                war += s[E.PHASE] == E.P_WAR
                checked += 1
                n = E.legal_actions(s, env, buf)
            E.apply_action(s, rng, env, E.policy(HEURISTIC, s, env, buf, n, FOCUSED, prng))
            step += 1
    assert checked > 200 and war > 50 and hands_differ > 0.5 * war


def _war_state(ruleset="standard"):
    """A standard War decision of the focused heuristic with 4 Conflicts and a hand of at least 2 cards."""
    env = _env(ruleset, (0, 1))
    s = np.zeros(E.STATE_SIZE, np.int32)
    rng = _stream(3, 4)
    E.new_game(s, rng, env)
    prng = _stream(3, 5, 1)
    buf = np.empty(E.MAX_ACTIONS, np.int64)
    while not (s[E.PHASE] == E.P_WAR and s[E.NCONF] == 4 and s[E.N_HAND + s[E.TO_MOVE]] >= 2
               and s[E.ACTS] == 2 and s[E.KINDS] == 0):
        assert not E.is_over(s)
        n = E.legal_actions(s, env, buf)
        E.apply_action(s, rng, env, E.policy(HEURISTIC, s, env, buf, n, FOCUSED, prng))
    return s, env


def _scripted_war():
    """``_war_state`` with the played cards replaced: the mover a card of Strength 3 on Conflict 0, the other seat
    cards of 5 there and 2 on Conflict 1, an ability's +1 on the mover's Conflict 2 (leads -2, -2, +1, 0)."""
    s, env = _war_state()
    p = s[E.TO_MOVE]
    o = 1 - p
    for q in range(2):
        s[E.N_PLAYED + q] = 0
        s[E.TOK + q * E.MAX_CONF:E.TOK + (q + 1) * E.MAX_CONF] = 0
    for q, i, k, st in [(p, 0, 0, 3), (o, 0, 0, 5), (o, 1, 1, 2)]:
        s[E.PLAYED + q * E.NC + i] = -1  # the card itself is not read by these numbers
        s[E.PLAYK + q * E.NC + i] = k
        s[E.PLAYSTR + q * E.NC + i] = st
    s[E.N_PLAYED + p], s[E.N_PLAYED + o] = 1, 2
    s[E.TOK + p * E.MAX_CONF + 2] = 1
    return s, env


def _feats(s, env, a, is_base=False):
    """Action ``a``'s non-zero features by name, the decision's ``state`` counted afresh."""
    idx = np.empty(F.MAX_NNZ, np.int64)
    val = np.empty(F.MAX_NNZ, np.float64)
    shared = np.empty(F.N_STATE, np.float64)
    F.state(s, env, shared)
    m = F.features(s, env, a, is_base, shared, idx, val)
    return {F.FEATURES[i]: v for i, v in zip(idx[:m], val[:m])}


def test_a_war_play_in_a_scripted_position():
    """The mover has a card of Strength 3 on Conflict 0, the other seat cards of 5 there and 2 on Conflict 1, and an
    ability added 1 to the mover's Conflict 2: leads -2, -2, +1, 0, so conflicts_led = (1 - 2) / 4. Playing hand
    card c (Strength st here) to Conflict 0: lead_before -2/5, lead_after (st - 2)/5, contested, takes the lead
    when st > 2; to Conflict 3: lead 0, not contested."""
    s, env = _scripted_war()
    p = s[E.TO_MOVE]
    o = 1 - p
    c = s[E.HAND + p * E.NC]
    st = E.card_strength(s, env, c, p)

    def feats(a):
        return _feats(s, env, a)

    x = feats(E.A_PLAY + c * 5 + 0)
    assert x["play_x_bias"] == 1.0 and x["play_x_conflicts_led"] == pytest.approx(-0.25)
    assert x["play_x_hand"] == pytest.approx(s[E.N_HAND + p] / 7.0)
    assert x["play_x_opp_hand"] == pytest.approx(s[E.N_HAND + o] / 7.0)
    assert x["lead_before"] == pytest.approx(-0.4) and x["lead_after"] == pytest.approx((st - 2) / 5.0)
    assert x["contested"] == 1.0 and x["card_strength"] == pytest.approx(st / 5.0)
    assert ("takes_lead" in x) == (st > 2) and "was_leading" not in x and "is_base" not in x
    y = feats(E.A_PLAY + c * 5 + 3)
    assert y.get("lead_before", 0.0) == 0.0 and y["lead_after"] == pytest.approx(st / 5.0) and "contested" not in y
    assert ("takes_lead" in y) == (st > 0)
    z = feats(E.A_PLAY + c * 5 + 2)
    assert z["was_leading"] == 1.0 and z["lead_before"] == pytest.approx(0.2)
    # is_base adds the flag and the kind's flag, nothing else
    assert set(_feats(s, env, E.A_PLAY + c * 5 + 0, True)) - set(x) == {"is_base", "is_base_x_play"}


def test_the_hands_race_and_the_stakes_in_a_scripted_position():
    """The position above (leads -2, -2, +1, 0), with the Blitz slots on. Counted by hand: a play to Conflict 0 leaves the others at one led
    and one trailed (and one even): it is pivotal, and takes the lead there when st > 2; to Conflict 2 the others are
    two trailed: not pivotal; to Conflict 3 one led, two trailed: pivotal. The hands race is the mover's hand less
    the other's, clipped to -2 .. +2, one slot per value, for every War action; the other seat's unused Emblem
    ability is flagged until it is used. With the other hand empty, taking a lead is the last word; a lead above 4
    after the play is the excess. None of it in the standard game, nor outside the War."""
    s, std = _scripted_war()
    env = (std[0], std[1], std[2], std[3].copy())
    env[3][E.R_BLITZ] = 1  # the Blitz slots, on the standard position's four Conflicts (they count any number)
    p = s[E.TO_MOVE]
    o = 1 - p
    c = s[E.HAND + p * E.NC]
    st = E.card_strength(s, env, c, p)

    def feats(a):
        return _feats(s, env, a)

    x0, x2, x3 = (feats(E.A_PLAY + c * 5 + k) for k in (0, 2, 3))
    assert x0["pivotal"] == 1.0 and ("pivotal_takes_lead" in x0) == (st > 2)
    assert "pivotal" not in x2 and "pivotal_takes_lead" not in x2
    assert x3["pivotal"] == 1.0 and ("pivotal_takes_lead" in x3) == (st > 0)
    assert x2.get("excess_lead", 0.0) == pytest.approx(max(0, 1 + st - 4) / 5.0)
    assert "last_word_takes_lead" not in x0 and "last_word_takes_lead" not in x3
    races = ("hands_behind2", "hands_behind1", "hands_even", "hands_ahead1", "hands_ahead2")
    for mine, theirs, slot in [(3, 3, "hands_even"), (4, 3, "hands_ahead1"), (7, 2, "hands_ahead2"),
                               (2, 3, "hands_behind1"), (1, 5, "hands_behind2")]:
        s[E.N_HAND + p], s[E.N_HAND + o] = mine, theirs
        x = feats(E.A_PLAY + c * 5 + 3)
        assert [r for r in races if f"play_x_{r}" in x] == [slot]
        assert x[f"play_x_{slot}"] == 1.0
    s[E.EMB_USED + o] = 0
    assert feats(E.A_PLAY + c * 5 + 3)["play_x_opp_emblem_ready"] == 1.0
    s[E.EMB_USED + o] = 1
    assert "play_x_opp_emblem_ready" not in feats(E.A_PLAY + c * 5 + 3)
    s[E.N_HAND + o] = 0  # the mover's hand is 1 (the last case above)
    x = feats(E.A_PLAY + c * 5 + 3)
    assert ("last_word_takes_lead" in x) == (st > 0) and x["play_x_hands_ahead1"] == 1.0
    # in the standard game, and outside the War: no race, no stakes
    blitz_only = {f"{k}_x_{r}" for k in F.CATEGORIES for r in races + ("opp_emblem_ready",)} | {
        "pivotal", "pivotal_takes_lead", "last_word_takes_lead", "excess_lead"}
    assert set(_feats(s, std, E.A_PLAY + c * 5 + 3)) & blitz_only == set()
    s[E.PHASE] = E.P_LOCATION
    assert set(_feats(s, env, E.A_LOC)) & blitz_only == set()


def _model(path, w):
    m = LM.Model("valkyrie-incident", "standard", list(F.FEATURES), w, np.zeros((0, F.N_FEATURES)), np.zeros(0),
                 np.zeros(0), "focused", {k: float(FOCUSED[v[0]]) for k, v in E.PARAMS.items()}, "x")
    return m.save(path)


def test_a_learned_policy_that_trusts_is_base_plays_its_base(tmp_path):
    """A model whose only weight is on ``is_base`` scores the base heuristic's action 1 and every other 0: in the
    simulation (the policies' parameter matrix stacked per seat) it wins exactly the games `focused` wins, against
    `balanced` in both seats; with the weight on a feature that is not ``is_base`` it plays differently."""
    w = np.zeros(F.N_FEATURES)
    w[0] = 1.0
    _model(tmp_path / "base.npz", w)
    w2 = np.zeros(F.N_FEATURES)
    w2[F.CARD_STRENGTH] = -1.0  # the weakest card first
    _model(tmp_path / "odd.npz", w2)
    text = (SCEN / "ladder.toml").read_text().split("[run]")[0]
    text = text.replace('play = ["focused_tuned", "balanced_tuned", "focused", "balanced", "concentrated", "random"]',
                        'play = ["focused", "mirror", "odd"]').replace('opponent = "others"', 'opponent = "balanced"')
    assert 'play = ["focused", "mirror", "odd"]' in text and 'opponent = "balanced"' in text
    text = text.replace('cards = "cards.toml"', f'cards = "{(SCEN / "cards.toml").as_posix()}"')
    text += ('\n[policies.mirror]\nkind = "learned"\nweights = "base.npz"\n'
             '\n[policies.odd]\nkind = "learned"\nweights = "odd.npz"\n')
    (tmp_path / "s.toml").write_text(text)
    sim = loader.load(tmp_path / "s.toml").simulation
    cols = sim.run_block(np.array([5, 6], np.uint64), 20)
    pol = np.asarray(cols["policy"])
    won = np.asarray(cols["won"])
    margin = np.asarray(cols["margin"])
    assert np.array_equal(won[pol == "mirror"], won[pol == "focused"])
    assert np.array_equal(margin[pol == "mirror"], margin[pol == "focused"])
    assert not np.array_equal(margin[pol == "odd"], margin[pol == "focused"])


def test_the_training_decision_game_follows_the_scenario():
    """``decision_game(ruleset, scenario)``: game ``seed`` is dealt in match-up ``seed % cells`` of the training
    scenario (the Emblems fixed: 5 match-ups in the standard one, all 20 ordered pairs in Blitz's), its policies
    include the scenario's, and the learned machinery is bound."""
    dg = decision_game("standard", SCEN / "train_standard.toml")
    cards = K.load_cards()
    alias = {cards.clans[e.clan]: i for i, e in enumerate(cards.emblems)}  # the scenario names Emblems by Clan
    want = [(alias[a], alias[b]) for a, b in
            [("raven", "iron"), ("iron", "ember"), ("ember", "tide"), ("tide", "thorn"), ("thorn", "raven")]]
    for seed in range(10):
        s, rng, env = dg.new_game(seed)
        assert (env[3][E.R_EMB0], env[3][E.R_EMB1]) == want[seed % 5]
    assert dg.policies["focused"][0] == HEURISTIC and np.array_equal(dg.policies["focused"][1], FOCUSED)
    assert dg.learned is E.LEARNED_FNS and dg.feature_names == F.FEATURES
    blitz = decision_game("blitz", SCEN / "train_blitz.toml")  # every ordered pair of distinct Emblems
    pairs = [(a, b) for a in range(5) for b in range(5) if a != b]
    assert blitz.cells == 20
    for seed in (0, 7, 19, 20, 33):
        s, rng, env = blitz.new_game(seed)
        assert env[3][E.R_BLITZ] == 1 and (s[E.EMB], s[E.EMB + 1]) == pairs[seed % 20]


@pytest.mark.parametrize("ruleset", ["standard", "blitz"])
def test_the_training_scenario_judges_against_the_bundled_tuned_heuristic(ruleset):
    """``train_RULESET.toml`` plays every policy against the ruleset's tuned heuristic, `focused_tuned`, in both
    seats, and that heuristic's table is ``RULESET.toml``'s: retune it there, and this fails until the copy
    follows."""
    from simkit.core.scenario import read_toml

    train, _ = read_toml(SCEN / f"train_{ruleset}.toml")
    bundled, _ = read_toml(SCEN / f"{ruleset}.toml")
    tuned = "focused_tuned"
    assert train["play"] == [tuned] and train["opponent"] == tuned
    assert train["policies"] == {tuned: bundled["policies"][tuned]}


@pytest.mark.parametrize("ruleset", ["standard", "blitz"])
def test_training_scenarios_share_the_bundled_data_hash(ruleset):
    """``train_RULESET.toml`` (every policy against one heuristic in both seats) has the bundled scenario's rules
    and cards, so weights trained on it are current for ``RULESET.toml``."""
    from simkit.core.scenario import read_toml
    from simkit.games.valkyrie_incident import RULES_VERSION

    hashes = []
    for name in (ruleset, f"train_{ruleset}"):
        path = SCEN / f"{name}.toml"
        data, _ = read_toml(path)
        hashes.append(LM.data_hash(path, data, RULES_VERSION))
    assert hashes[0] == hashes[1]


@pytest.mark.parametrize("ruleset", ["standard", "blitz"])
def test_the_committed_weights_are_current(ruleset, tmp_path):
    """``RULESET.learned.npz`` (make train) was trained on this mode's features from its base heuristic,
    `focused_tuned`, from game outcomes, with that heuristic's parameters, and a copy of the bundled scenario playing
    it loads without a stale-policy warning."""
    weights = SCEN / f"{ruleset}.learned.npz"
    m = LM.load_model(weights)
    base = "focused_tuned"
    assert (m.game, m.mode, m.base) == ("valkyrie-incident", ruleset, base)
    assert tuple(m.feature_names) == F.FEATURES
    vec = decision_game(ruleset, SCEN / f"{ruleset}.toml").policies[base][1]  # what `simkit train` reads
    assert m.base_params == {k: float(vec[v[0]]) for k, v in E.PARAMS.items()}
    text = (SCEN / f"{ruleset}.toml").read_text().replace('cards = "cards.toml"',
                                                          f'cards = "{(SCEN / "cards.toml").as_posix()}"')
    text = re.sub(r"(?m)^play = \[.*\]$", 'play = ["learned"]', text)
    if "[policies.learned]" in text:  # the scenario plays it (standard.toml): its own table, the bundled file
        text = text.replace(f'weights = "{weights.name}"', f'weights = "{weights.as_posix()}"')
    else:
        text += f'\n[policies.learned]\nkind = "learned"\nweights = "{weights.as_posix()}"\n'
    (tmp_path / "s.toml").write_text(text)
    sc = loader.load(tmp_path / "s.toml", strict=True)
    assert sc.warnings == []
