"""Valhalla multiplayer rule readings made explicit (issue 40): the set-up discard refused when it leaves too few
cards for one round, and the options ``game_end``, ``shield_glory`` and ``attack_empty`` on hand-built
positions whose outcome is worked out by hand (docs/rules.md, "Multiplayer games")."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from simkit.core import loader
from simkit.core.rng import seed_stream
from simkit.errors import InputError
from simkit.games.valhalla.deck import load_deck
from simkit.games.valhalla.multi import engine as E
from simkit.games.valhalla.multi import layout as L
from simkit.games.valhalla.multi.scenario import round_needs
from simkit.games.valhalla.multi.simulation import rules_vector, tables
from simkit.games.valhalla.multi.state import hand, pb, team, val

ROOT = Path(__file__).resolve().parents[2] / "scenarios" / "valhalla"
DECK = load_deck(ROOT / "deck.toml", ROOT / "cards.toml")
T, IDS = tables(DECK)
KEYS = [r.key for r in DECK.rows()]
NO_POWER = [j for j in range(T[3].shape[0]) if T[3][j, 0] == 0][0]  # a stand-in Jarl without a power (J_NONE)

BASE = f'''game = "valhalla"
mode = "multi"
cards = "{ROOT / "cards.toml"}"
deck = "{ROOT / "deck.toml"}"
players = [PLAYERS]
variants = [VARIANTS]
play = ["builder"]
[rules]
'''


def _scenario(tmp_path, rules, players="6", variants='"base"'):
    p = tmp_path / "multi.toml"
    p.write_text(BASE.replace("PLAYERS", players).replace("VARIANTS", variants) + rules + "\n")
    return p


def _refused(path):
    with pytest.raises(InputError) as err:
        loader.load(path)
    msg = str(err.value)
    assert "\n" not in msg and str(path) in msg
    return msg


def test_round_needs_by_hand():
    """6 players, base deck: 7 revealed for the draft + 6 x 7 dealt + 6 x 2 drawn in part B = 61, so at most
    120 - 61 = 59 cards may be discarded at set-up; Valkyries: 7 + 42 + 18 = 67 of 160, at most 93; 2 players,
    base: 3 + 14 + 4 = 21 of 120, at most 99."""
    assert round_needs(6, "base") == 61 and round_needs(6, "valkyries") == 67 and round_needs(2, "base") == 21


def test_start_discard_that_leaves_less_than_a_round_is_refused(tmp_path):
    msg = _refused(_scenario(tmp_path, "start_discard = 100"))
    assert "rules.start_discard" in msg and "from 0 to 59" in msg and "6 players" in msg and "(got 100)" in msg
    msg = _refused(_scenario(tmp_path, "start_discard = 60"))
    assert "from 0 to 59" in msg and "(got 60)" in msg
    msg = _refused(_scenario(tmp_path, "start_discard = 100", players="2, 6", variants='"valkyries"'))
    assert "from 0 to 93" in msg and "6 players and the valkyries deck" in msg
    msg = _refused(_scenario(tmp_path, "start_discard = 100", players="2, 3, 4, 5, 6", variants='"base", "valkyries"'))
    assert "from 0 to 59 with 6 players and the base deck" in msg  # the tightest limit is named
    msg = _refused(_scenario(tmp_path, "start_discard = -1"))
    assert "rules.start_discard" in msg and "at least 0" in msg
    msg = _refused(_scenario(tmp_path, 'start_discard = "forty"'))
    assert "rules.start_discard" in msg and "an integer" in msg
    sim = loader.load(_scenario(tmp_path, "start_discard = 59")).simulation
    assert sim.groups[0]["rules"][0][L.R_START_DISCARD] == 59
    sim = loader.load(_scenario(tmp_path, "")).simulation  # the default, 40, loads at 6 players
    assert sim.groups[0]["rules"][0][L.R_START_DISCARD] == 40


def test_start_discard_by_table_size(tmp_path):
    """A table by table size; sizes not listed discard 40; a size's value is checked against its own limit."""
    sim = loader.load(_scenario(tmp_path, "start_discard = { 6 = 20 }", players="2, 6")).simulation
    assert [int(r[L.R_START_DISCARD]) for r in sim.groups[0]["rules"]] == [40, 20]
    sim = loader.load(_scenario(tmp_path, "start_discard = { 2 = 99 }", players="2")).simulation
    assert int(sim.groups[0]["rules"][0][L.R_START_DISCARD]) == 99
    msg = _refused(_scenario(tmp_path, "start_discard = { 2 = 40, 6 = 60 }", players="2, 6"))
    assert "rules.start_discard.6" in msg and "from 0 to 59" in msg and "(got 60)" in msg
    msg = _refused(_scenario(tmp_path, "start_discard = { 7 = 40 }"))
    assert "rules.start_discard.7" in msg and "2, 3, 4, 5, 6" in msg


@pytest.mark.parametrize("name, allowed", [("game_end", ("'turn'", "'round'")),
                                           ("shield_glory", ("'taken'", "'held'")),
                                           ("attack_empty", ("'allowed'", "'forbidden'"))])
def test_bad_rule_options_are_refused(tmp_path, name, allowed):
    msg = _refused(_scenario(tmp_path, f'{name} = "sometimes"'))
    assert f"rules.{name}" in msg and "(got 'sometimes')" in msg
    for a in allowed:
        assert a in msg
    sim = loader.load(_scenario(tmp_path, f"{name} = {allowed[1]}".replace("'", '"'))).simulation
    assert sim.options[name] == allowed[1].strip("'")


def _position(n_p, teams, hands, vals, deck, variant="base"):
    """A hand-built state between turns (``ST_TURN``, seat 0 to play), a Jarl without a power each, 4 shields: the given
    Warbands, hands, Valhallas and deck (card keys, the deck's top last); every other card of the variant in the
    discard pile, so that the invariants hold."""
    pool = {k: [i for i in IDS[variant] if KEYS[i] == k] for k in set(KEYS)}
    s = np.zeros(L.STATE_SIZE, np.int32)
    s[L.NP] = n_p
    for p in range(L.MAX_P):
        s[pb(p) + L.P_JARL] = -1
    for p in range(n_p):
        s[pb(p) + L.P_JARL] = NO_POWER
        s[pb(p) + L.P_SHIELDS] = 4
        for base, keys in ((team(p), teams[p]), (hand(p), hands[p]), (val(p), vals[p])):
            s[base] = len(keys)
            s[base + 1:base + 1 + len(keys)] = [pool[k].pop() for k in keys]
    s[L.DECK_N] = len(deck)
    s[L.DECK:L.DECK + len(deck)] = [pool[k].pop() for k in deck]
    rest = sorted(i for ids in pool.values() for i in ids)
    s[L.DISC_N] = len(rest)
    s[L.DISC:L.DISC + len(rest)] = rest
    s[L.CUR] = 0
    s[L.PHASE] = L.ST_TURN
    return s


def _glory(s, p, key_glory):
    """Seat p's Glory from its Valhalla (``key_glory``: the Warriors' Glory by hand) and its taken shields."""
    s[pb(p) + L.P_VGLORY] = key_glory
    s[pb(p) + L.P_GLORY] = key_glory + 2 * s[pb(p) + L.P_TAKEN]


def _play_out(s, env, choose):
    """Advance, then answer every decision with ``choose(s, legal)`` until the game ends; returns the seats that
    had a part A decision, in order."""
    rng = np.zeros(4, np.uint64)
    rng[0] = 1
    E.advance(s, rng, env)
    buf = np.empty(L.MAX_ACTIONS, np.int64)
    movers = []
    while not E.is_over(s):
        assert E.invariants(s, env) == 0
        if s[L.PHASE] == L.PH_A:
            movers.append(int(s[L.CUR]))
        n = E.legal_actions(s, env, buf)
        E.apply_action(s, rng, env, choose(s, list(buf[:n])))
    assert E.invariants(s, env) == 0
    return movers


def _first(s, legal):
    return legal[0]


@pytest.mark.parametrize("game_end, turns, movers, team2", [("turn", 2, [0, 1], 0), ("round", 3, [0, 1, 2], 1)])
def test_game_end_turn_or_round(game_end, turns, movers, team2):
    """3 players, base deck (part B draws 2), 4 cards left, every Warband empty and every hand one Warrior (so
    part A must play it: the only action). Seat 0 plays its Warrior and draws 2 (2 left); seat 1 plays its
    Warrior and draws the last 2: the deck has run out in seat 1's turn. "turn": the game ends there, after 2
    turns, seat 2 never played (Warband empty). "round": seat 2 plays its turn too (its Warrior into its Warband,
    part B draws nothing), then the round is over: 3 turns, and seat 0 does not play again. Both: the deck ended
    it, nobody has Glory, a shared win of 1/3 each."""
    s = _position(3, [[], [], []], [["wolf_thrall"], ["boar_thrall"], ["frost_thrall"]], [[], [], []],
                  ["raven_scout", "raven_scout", "raven_thrall", "raven_thrall"])
    env = (*T, rules_vector(players=3, variant="base", game_end=game_end))
    assert _play_out(s, env, _first) == movers
    assert s[L.TURNS] == turns and s[L.CAUSE] == L.CAUSE_DECK and s[L.DECK_N] == 0
    assert [int(s[team(p)]) for p in range(3)] == [1, 1, team2]
    assert s[L.WIN_MASK] == 0b111 and E.reward(s, env, 2) == pytest.approx(1 / 3)


def test_game_end_round_skips_a_seat_with_no_action():
    """The round reading with the deck empty: seat 2 (empty Warband, empty hand) has no part A action (no
    Warrior to play, nothing to draw, nobody to attack with): its turn is counted, it makes no decision, and the
    game ends after it."""
    s = _position(3, [[], [], []], [["wolf_thrall"], ["boar_thrall"], []], [[], [], []],
                  ["raven_scout", "raven_scout", "raven_thrall", "raven_thrall"])
    env = (*T, rules_vector(players=3, variant="base", game_end="round"))
    assert _play_out(s, env, _first) == [0, 1]
    assert s[L.TURNS] == 3 and s[L.CAUSE] == L.CAUSE_DECK and s[hand(2)] == 0


@pytest.mark.parametrize("shield_glory, glory, winners", [("taken", (2, 3), 0b10), ("held", (10, 9), 0b01)])
def test_shield_glory_taken_or_held(shield_glory, glory, winners):
    """2 players, the deck's last 2 cards (seat 0's part B draw ends the game). Seat 0 took one shield from seat
    1 (2 Glory) and holds its own 4; seat 1 has 3 Glory in Valhalla (a Raven Hunter, 2, and a Raven Thrall, 1)
    and holds 3 shields. "taken": 2 against 3, seat 1 wins. "held", every shield held is worth 2: seat 0
    2 + 2 x 4 = 10, seat 1 3 + 2 x 3 = 9, seat 0 wins."""
    s = _position(2, [[], []], [["wolf_thrall"], []], [[], ["raven_hunter", "raven_thrall"]],
                  ["raven_scout", "raven_scout"])
    s[pb(1) + L.P_SHIELDS] = 3
    s[pb(0) + L.P_TAKEN] = 1
    s[L.ATT_WINS] = 1
    _glory(s, 0, 0)
    _glory(s, 1, 3)
    env = (*T, rules_vector(players=2, variant="base", shield_glory=shield_glory))
    _play_out(s, env, _first)
    assert s[L.TURNS] == 1 and s[L.CAUSE] == L.CAUSE_DECK
    assert (int(s[pb(0) + L.P_GLORY]), int(s[pb(1) + L.P_GLORY])) == glory
    assert s[L.WIN_MASK] == winners


@pytest.mark.parametrize("attack_empty, targets", [("allowed", [1, 2]), ("forbidden", [2])])
def test_attack_empty_warband(attack_empty, targets):
    """3 players: seat 0 has a Warrior in its Warband and none in hand; seat 1's Warband is empty, seat 2's holds
    one. Part A offers drawing and attacking: "allowed" lists both other seats as targets, "forbidden" only seat
    2 (an empty Warband cannot be attacked)."""
    s = _position(3, [["wolf_thrall"], [], ["boar_thrall"]], [[], [], []], [[], [], []],
                  ["raven_scout"] * 3 + ["raven_thrall"] * 3)
    env = (*T, rules_vector(players=3, variant="base", attack_empty=attack_empty))
    rng = np.zeros(4, np.uint64)
    E.advance(s, rng, env)
    assert s[L.PHASE] == L.PH_A and s[L.CUR] == 0
    buf = np.empty(L.MAX_ACTIONS, np.int64)
    legal = list(buf[:E.legal_actions(s, env, buf)])
    assert L.A_DRAW in legal
    assert [a - L.A_ATTACK for a in legal if L.A_ATTACK <= a < L.A_ATTACK + L.MAX_P] == targets
    assert E.invariants(s, env) == 0


def test_invariants_under_the_other_readings(tmp_path):
    """Every step of 60 games (2–6 players, both decks, random and builder seats) keeps the invariants with
    ``game_end = "round"``, ``shield_glory = "held"``, ``attack_empty = "forbidden"`` and a set-up discard by table
    size: no open decision without a legal action once the deck is empty, Glory adding up with the held shields;
    a game ended by the deck gives every seat the same number of turns."""
    from simkit.core.policies import RANDOM
    from simkit.games.valhalla.multi import policies as pol
    from simkit.games.valhalla.multi.simulation import decision_game

    path = _scenario(tmp_path, 'game_end = "round"\nshield_glory = "held"\nattack_empty = "forbidden"\n'
                     "start_discard = { 5 = 30, 6 = 20 }", players="2, 3, 4, 5, 6", variants='"base", "valkyries"')
    game = decision_game(path)
    buf = np.empty(game.max_actions, np.int64)
    causes = set()
    for seed in range(30):
        for kind, params in ((RANDOM, np.zeros(pol.N_PARAMS)), game.policies["builder"]):
            s, rng, env = game.new_game(seed)
            prng = np.array([seed + 1, 5, 7, 11], np.uint64)
            while not game.fns.is_over(s):
                n = game.fns.legal_actions(s, env, buf)
                assert n > 0
                game.fns.apply_action(s, rng, env, game.fns.policy(kind, s, env, buf, n, params, prng))
                assert game.invariants(s, env) == 0
            causes.add(int(s[L.CAUSE]))
            if s[L.CAUSE] == L.CAUSE_DECK:
                assert s[L.TURNS] % s[L.NP] == 0 and s[L.CUR] == s[L.NP] - 1
    assert L.CAUSE_DECK in causes


# --- the +80 help card (valhalla-valkyries.txt, "Combining with the Dwarves of Svartalfheim") -----------------------

def test_plus80_discards_20_more_at_set_up_and_draws_3_to_keep_1_in_part_a(tmp_path):
    """"First, during setup, at step 5, discard 20 more cards to the discard pile. Second, when a player in part A
    chooses action 4, they draw 3 cards and keep 1 of them." 4 players, Valkyries deck, the default discard of 40:
    the rule vector discards 60 and draws 3 in part A; a game set up under it has 20 more cards in its discard
    pile than the same deal without it, and its part A draw offers 3 cards to keep (the others go face up to the
    discard pile)."""
    sim = loader.load(_scenario(tmp_path, "plus80 = true", players="4", variants='"valkyries"')).simulation
    rules = sim.groups[0]["rules"][0]
    assert rules[L.R_START_DISCARD] == 60 and rules[L.R_DRAW_A] == 3
    plain = loader.load(_scenario(tmp_path, "", players="4", variants='"valkyries"')).simulation.groups[0]["rules"][0]
    assert plain[L.R_START_DISCARD] == 40 and plain[L.R_DRAW_A] == 2
    assert np.array_equal(np.delete(rules, [L.R_START_DISCARD, L.R_DRAW_A]),
                          np.delete(plain, [L.R_START_DISCARD, L.R_DRAW_A]))
    for r, discard, draw in ((rules, 60, 3), (plain, 40, 2)):
        env = (*T, r)
        s = np.zeros(L.STATE_SIZE, np.int32)
        rng, shuffler = np.empty(4, np.uint64), np.empty(4, np.uint64)
        seed_stream(rng, np.array([3, 1], np.uint64), 0, 0)
        seed_stream(shuffler, np.array([3, 0], np.uint64), 0, 0)
        E.new_game(s, rng, env, shuffler, np.array(IDS["valkyries"], np.int64))
        assert s[L.DISC_N] == discard, (s[L.DISC_N], discard)
        buf = np.empty(L.MAX_ACTIONS, np.int64)
        steps = 0
        while s[L.PHASE] != L.PH_A and steps < 200:  # through the set-up draft, each seat's first choice
            E.apply_action(s, rng, env, int(buf[0]) if E.legal_actions(s, env, buf) else 0)
            steps += 1
        assert s[L.PHASE] == L.PH_A
        n = E.legal_actions(s, env, buf)
        assert L.A_DRAW in buf[:n]
        deck, disc = s[L.DECK_N], s[L.DISC_N]
        E.apply_action(s, rng, env, L.A_DRAW)
        assert s[L.PHASE] == L.PH_KEEP and s[L.DRAWN_N] == draw and s[L.DECK_N] == deck - draw
        E.apply_action(s, rng, env, int(buf[0]) if E.legal_actions(s, env, buf) else 0)
        assert s[L.DISC_N] == disc + draw - 1  # the cards not kept, face up on the discard pile


def test_plus80_is_refused_without_the_valkyries_and_where_the_20_more_leave_too_few(tmp_path):
    msg = _refused(_scenario(tmp_path, "plus80 = true", players="4", variants='"base"'))
    assert "rules.plus80" in msg and "valkyries" in msg and "['base']" in msg
    # 6 players, Valkyries: at most 93 may be discarded, so with 20 more at most 73
    msg = _refused(_scenario(tmp_path, "plus80 = true\nstart_discard = 80", players="6", variants='"valkyries"'))
    assert "rules.start_discard" in msg and "from 0 to 73" in msg and "+80" in msg and "(got 80)" in msg
    sim = loader.load(_scenario(tmp_path, "plus80 = true\nstart_discard = 73", players="6",
                                variants='"valkyries"')).simulation
    assert sim.groups[0]["rules"][0][L.R_START_DISCARD] == 93
    msg = _refused(_scenario(tmp_path, 'plus80 = "yes"', players="4", variants='"valkyries"'))
    assert "rules.plus80" in msg
