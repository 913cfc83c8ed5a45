"""The VÁLKA multiplayer report's table of every seat by its policy: the game is the unit of its intervals."""

from __future__ import annotations

import re

import numpy as np
import polars as pl
import pytest

from simkit.core.stats import clustered_rate, wilson
from simkit.games.valka.multiplayer.report import seat_policy_rows

from test_report_lead import same_tie as _same_tie  # noqa: E402  (the house check of a tie clause)


def _seats(rows):
    return pl.DataFrame(rows, schema=["block", "game", "players", "policy", "won"], orient="row")


def test_seat_policy_rows_cluster_by_game():
    # two blocks of games; in each game `b` has 3 seat rows (3 cells replay the game's deal), all won or all lost:
    # games (0, 0) and (1, 0) won, (0, 1) lost; `r` has one seat a game and wins game (1, 0) only
    rows = []
    for (block, game), won in (((0, 0), 1), ((0, 1), 0), ((1, 0), 1)):
        rows += [(block, game, 4, "b", won)] * 3 + [(block, game, 4, "r", int((block, game) == (1, 0)))]
    out = {r["seat policy"]: r for r in seat_policy_rows(_seats(rows))}
    assert out["b"]["seats"] == 9 and out["b"]["games"] == 3 and out["r"]["games"] == 3
    e = clustered_rate([3, 0, 3], [3, 3, 3])  # by game, not the 9 rows
    assert out["b"]["win rate"] == f"{e.estimate:.3f} [{e.low:.3f}, {e.high:.3f}]"
    assert e.estimate == 6 / 9 and e.high - e.low > wilson(6, 9).high - wilson(6, 9).low
    assert out["r"]["win rate"].startswith("0.333 ")


def test_seat_policy_rows_game_is_the_unit_not_the_seat():
    # 400 games, each replayed in 5 cells where policy `p` sits once: a game's deal decides all 5 seats (won in
    # every cell or none), so the 2,000 seat rows carry the information of 400 games
    rng = np.random.default_rng(4)
    won = rng.random(400) < 0.3
    df = pl.DataFrame({"block": np.repeat(np.arange(400) // 100, 5), "game": np.repeat(np.arange(400) % 100, 5),
                       "players": 3, "policy": "p", "won": np.repeat(won, 5).astype(int)})
    (row,) = seat_policy_rows(df)
    games = wilson(int(won.sum()), 400)
    assert row["seats"] == 2000 and row["games"] == 400
    assert row["win rate"] == f"{games.estimate:.3f} [{games.low:.3f}, {games.high:.3f}]"


def test_search_ladder_describes_search_from_the_simulation_it_plays(monkeypatch):
    # the report's small `search` ladder builds one simulation and describes `search` from it (no second read
    # of the TOML); it plays what `ladder.ladder` would: the same policies, block size and seed (the games
    # themselves are replaced by fixed per-game values here, so no kernel runs)
    from simkit.core import ladder, registry, tune
    from simkit.games.valka.multiplayer import report

    seen = []
    values = {"search": [1, 1, 1, 1], "learned": [1, 1, 0, 1], "balanced_tuned": [1, 0, 0, 1], "balanced": [0, 0, 1, 0],
              "random": [0] * 4}

    def fake(sim, seed, spawn, games, metric, jobs=1, **kw):
        seen.append((sim.describe(), sim.policy_specs, sim.default_block_size, seed, spawn, games, metric, kw))
        return {k: np.array(v, float) for k, v in values.items()}

    monkeypatch.setattr(tune, "per_game_means", fake)
    path = registry.scenarios_dir() / "valka" / "bounty_hunter.toml"
    got = report.search_ladder(path, 4, jobs=1)
    want = ladder.ladder(path, report.SEARCH_LADDER, games=4, seed=2026, jobs=1, block_size=5)
    assert seen[0] == seen[1] and seen[0][2:] == (5, 2026, (0,), 4, "won", {})
    assert got["rungs"] == want
    assert [r.policy for r in want] == ["search", "learned", "balanced_tuned", "balanced", "random"]
    assert [r.kind for r in want] == ["search", "learned", "heuristic", "heuristic", "random"]
    assert got["search"] == "8 rollouts per action of `balanced_tuned`"  # scenarios/valka/bounty_hunter.toml


def test_card_and_warband_effects_take_the_deal_as_the_unit():
    # three deals, each replayed in 2 cells of 2 seats; the seats that played the card (mask) win deal 0 in both
    # cells, the others win deals 1 and 2: the difference is clustered_difference over the 3 deals, not 12 rows
    from simkit.core.stats import clustered_difference
    from simkit.games.valka.multiplayer.report import _effect, deal_ids

    df = pl.DataFrame({"block": [0] * 12, "game": np.repeat([0, 1, 2], 4)})
    mask = np.array([1, 0, 1, 0] * 3, bool)
    won = np.array([1, 0, 1, 0, 0, 1, 0, 1, 0, 1, 0, 1], bool)
    with_, without, d, seats = _effect(won, mask, deal_ids(df))
    want = clustered_difference([2, 0, 0], [2, 2, 2], [0, 2, 2], [2, 2, 2])
    assert (d.estimate, d.low, d.high) == (want.estimate, want.low, want.high) and seats == 6
    assert with_.estimate == 1 / 3 and without.estimate == 2 / 3 and with_.n == 3


def test_report_of_a_small_run_takes_the_deal_as_the_unit(tmp_path):
    # 4-player Bounty Hunter, a few games per cell: every cell replays the same deals, so each turn-order row
    # counts each deal once as a cluster (games = deals) and its seats once per cell
    from simkit.core import results
    from simkit.core.report import run_bundled
    from simkit.games.valka.multiplayer.report import deal_ids, deal_rate, multiplayer_report, seat_rows, win_share

    run = run_bundled("valka/bounty_hunter.toml", tmp_path / "run", 20, seed=3, jobs=1)
    files = multiplayer_report(run, tmp_path / "out")
    text = files[0].read_text(encoding="utf-8")
    for section in ("## Is the first player favoured?", "## How long games last", "## Cards", "deal"):
        assert section in text
    seats = seat_rows(results.load(run))
    # the tables where `random` plays are left out (its seats lose, the seats facing it win, whatever the order)
    first = seats.filter((pl.col("players") == 4) & (pl.col("order") == 0) & (pl.col("hero") != "random"))
    e = deal_rate(first["won"].to_numpy() > 0, deal_ids(first))
    deals = seats.select("block", "game").unique().height
    frame = results.load(run)
    assert e.n == deals and len(first) == frame.filter(pl.col("policy") != "random").height > deals
    assert "(the tables where `random` plays are left out" in text.split("## Is the first player favoured?")[1]
    row = next(line for line in text.splitlines() if line.replace(" ", "").startswith("|4|1|"))
    assert f"{e.estimate:.3f} [{e.low:.3f}, {e.high:.3f}]" in row


# --- issue 19: ladders where policies meet, card effects under one practical policy, Holm flags, the answer first --

def _played_seats(plays, deals, policy="p"):
    """Seat rows of 2-seat deals (seat 0 wins every deal) with ``plays[(deal, seat)]`` = cards that seat played."""
    rows = []
    for g in range(deals):
        for seat in (0, 1):
            words = [0, 0, 0]
            for c in plays.get((g, seat), ()):
                words[c // 32] |= 1 << (c % 32)
            rows.append((0, g, 2, policy, int(seat == 0), *words, 0, 0, 0))
    return pl.DataFrame(rows, schema=["block", "game", "players", "policy", "won", "played0", "played1", "played2",
                                      "open0", "open1", "open2"], orient="row")


def test_card_flags_test_the_effect_against_zero_with_holm():
    # 400 deals: card 0 played by the winner in 180 of deals 0..199 (by the loser in 20): effect +0.53; card 1 by
    # the winner in 140 of deals 200..399: +0.27; card 2 in the 200 even deals, by the winner in 104: +0.027, not
    # different from zero. The old flag compared with the median card (+0.27) and called card 2 "below".
    from simkit.games.valka.cards import load_cards
    from simkit.games.valka.multiplayer.report import card_table

    plays = {}
    for g in range(200):
        plays.setdefault((g, 0 if g < 180 else 1), []).append(0)
    for g in range(200, 400):
        plays.setdefault((g, 0 if g < 340 else 1), []).append(1)
    for i, g in enumerate(range(0, 400, 2)):
        plays.setdefault((g, 0 if i < 104 else 1), []).append(2)
    cards = load_cards()
    rows, flagged = card_table(_played_seats(plays, 400), cards, "played")
    by = {r["card"]: r for r in rows}
    names = [f.name for f in cards.fighters[:3]]
    assert [by[n]["flag"] for n in names] == ["above zero", "above zero", ""] and flagged == 2
    assert by[names[0]]["effect"].startswith("0.533 ") and by[names[2]]["effect"].startswith("0.027 ")


def test_card_table_measures_one_policy_and_says_never_played():
    # the Duel case: only `random` seats play Retreat (and lose); `balanced` never does. Under `balanced` the
    # Retreat row says "never played by `balanced`" instead of the random seats' effect
    from simkit.games.valka.cards import EVENT_KINDS, load_cards
    from simkit.games.valka.multiplayer.layout import EVENT0
    from simkit.games.valka.multiplayer.report import card_table

    cards = load_cards()
    retreat = EVENT0 + next(i for i, e in enumerate(cards.events) if EVENT_KINDS[e.kind] == "retreat")
    rand = _played_seats({(g, 1): [retreat] for g in range(150)}, 300, policy="random")
    bal = _played_seats({(g, 0): [0] for g in range(150)}, 300, policy="balanced").with_columns(
        pl.col("game") + 1000)
    seats = pl.concat([rand, bal])
    mixed, _ = card_table(seats, cards, "played")
    assert next(r for r in mixed if r["card"] == "Retreat")["effect"].startswith("-")  # what the old table showed
    rows, _ = card_table(seats, cards, "played", "balanced")
    row = next(r for r in rows if r["card"] == "Retreat")
    assert row["effect"] == "never played by `balanced`" and row["seats with"] == 0 and row["flag"] == ""


@pytest.fixture(scope="module")
def tables_of_equals(tmp_path_factory):
    from simkit.core.report import run_bundled
    from simkit.games.valka.multiplayer.report import multiplayer_report

    tmp = tmp_path_factory.mktemp("equals")
    run = run_bundled("valka/annihilation.toml", tmp / "run", 10, seed=3, jobs=1)
    return run, multiplayer_report(run, tmp / "out")


def test_tables_of_equals_get_their_ladder_against_a_field(tables_of_equals, tmp_path):
    # `make report` adds to a report of tables of equals the ladder of its heroes against a field of its strongest
    # heuristic: a first ladder against the first heuristic (`balanced`) finds the top heuristic; the heroes then
    # meet that one in every other seat
    from simkit.core import ladder
    from simkit.core.registry import scenarios_dir
    from simkit.games.valka.multiplayer.report import field_ladder, multiplayer_report

    run, _ = tables_of_equals
    path = scenarios_dir() / "valka" / "annihilation.toml"
    fl = field_ladder(path, "balanced", 6)
    first = ladder.ladder(path, games=6, seed=2026, overrides=['opponents=["balanced"]'])
    assert {r.policy for r in first} == {"balanced", "aggressive", "cautious", "random"}
    strongest = next(r.policy for r in first if r.kind == "heuristic")
    assert fl["first"] == "balanced" and fl["field"] == strongest
    want = first if strongest == "balanced" else \
        ladder.ladder(path, games=6, seed=2026, overrides=[f'opponents=["{strongest}"]'])
    assert fl["rungs"] == want and fl.get("first_rungs", first) == first
    text = multiplayer_report(run, tmp_path / "out", field_ladder=fl)[0].read_text(encoding="utf-8")
    assert f"Skill against a field of **`{strongest}`**" in text
    assert f"against a field of the strongest heuristic, `{strongest}` (" in text
    head = text.split("## What was simulated")[0]
    best, worst = want[0], want[-1]
    at_top = [r.policy for r in want[1:] if not r.below_best]
    # a tie at the top crowns nobody in the headline either
    crown = "the strongest hero policy" if not at_top else \
        f"no single strongest hero policy ({', '.join(f'`{p}`' for p in [best.policy, *at_top])} are not told " \
        "apart); the highest estimate,"
    assert f"Skill (against a field of `{strongest}`): {crown} `{best.policy}` wins " \
           f"{best.value:.3f}" in head and f"the weakest `{worst.policy}` {worst.value:.3f}" in head
    assert ("strongest hero policy `" in head) == (not at_top)
    # the cards are played under the strongest heuristic of that ladder, not the scenario's first heuristic
    top = next(r.policy for r in want if r.kind == "heuristic")
    tied = [r.policy for r in want[1:] if not r.below_best and r.kind == "heuristic"]
    # a tie at the top crowns nobody: the reason then names the highest estimate and who it is not told apart from
    why = "the strongest policy of" if not tied else "the highest estimate of"
    assert f"over the seats played by **`{top}`** ({why} the ladder against a field" in text
    assert all(f"`{p}`" in text.split("not told apart from", 1)[-1][:300] for p in tied)


def test_tables_of_equals_show_no_skill_ladder(tables_of_equals):
    _, files = tables_of_equals
    text = files[0].read_text(encoding="utf-8")
    assert "skill-ladder.png" not in {p.name for p in files} and "![Skill ladder]" not in text
    assert "No skill ladder here" in text and "how much skill matters" not in text
    assert "no skill ladder" in text.split("## What was simulated")[0]  # the answer says so too


def test_tables_of_equals_measure_cards_under_a_heuristic(tables_of_equals):
    _, files = tables_of_equals
    text = files[0].read_text(encoding="utf-8")
    assert "over the seats played by **`balanced`**" in text and "Holm-corrected" in text


def test_headline_numbers_come_from_the_games_rows(tmp_path):
    from simkit.core import results
    from simkit.core.report import run_bundled
    from simkit.games.valka.multiplayer.report import deal_ids, deal_rate, multiplayer_report, seat_rows, win_share

    run = run_bundled("valka/bounty_hunter.toml", tmp_path / "run", 30, seed=5, jobs=1)
    text = multiplayer_report(run, tmp_path / "out")[0].read_text(encoding="utf-8")
    head = text.split("## What was simulated")[0]
    answer = next(p for p in head.split("\n\n") if p.startswith("**The details.**"))
    frame = results.load(run)
    first = seat_rows(frame).filter((pl.col("order") == 0) & (pl.col("hero") != "random"))
    share = np.where(first["won"].to_numpy() > 0, 1 / np.maximum(first["winners"].to_numpy(), 1), 0.0)
    assert np.array_equal(win_share(first), share)
    e = deal_rate(share, deal_ids(first))
    assert (f"the first player wins (a shared win counted 1/k to each of its k winners) {e.estimate:.3f} "
            f"[{e.low:.3f}, {e.high:.3f}] at 4 players (fair share 0.250)") in answer
    means = {p: float(g["won"].mean()) for (p,), g in frame.group_by("policy")}  # one cell per hero policy
    got = re.search(r"(?:strongest hero policy|the highest estimate,) `(\w+)` wins ([\d.]+) \[.*?the weakest `(\w+)` "
                    r"([\d.]+) \[.*?"
                    r"spread ([\d.-]+) \[", answer)
    assert got, answer
    best, v_best, worst, v_worst, spread = got.groups()
    assert float(v_best) == pytest.approx(max(means.values()), abs=5e-4) == pytest.approx(means[best], abs=5e-4)
    assert float(v_worst) == pytest.approx(min(means.values()), abs=5e-4) == pytest.approx(means[worst], abs=5e-4)
    assert float(spread) == pytest.approx(means[best] - means[worst], abs=1e-3)


def test_tables_of_equals_show_no_seat_policy_table(tables_of_equals):
    """At tables of equals every seat of a cell plays the hero's policy, so "every seat by the policy it played"
    is each policy's fair share by construction: the table (captioned "mixed tables") is not shown."""
    _, files = tables_of_equals
    text = files[0].read_text(encoding="utf-8")
    assert "Every seat by the policy it played" not in text and "seat policy" not in text


def test_warband_effects_leave_out_the_random_policys_tables(tables_of_equals):
    """The random policy's seats lose whatever they hold (and the seats facing it win), so the Warband table
    measures the practical policies' tables only, and says so: its numbers are the effect recomputed without
    the random hero's cells, not the one over every seat."""
    from simkit.core import results
    from simkit.games.valka.multiplayer.report import _effect, deal_ids, seat_rows, win_share

    run, files = tables_of_equals
    text = files[0].read_text(encoding="utf-8")
    section = text.split("## Warbands", 1)[1].split("\n## ", 1)[0]  # up to the next section
    assert "`random` plays are left out" in section
    seats = seat_rows(results.load(run))
    kept = seats.filter(pl.col("hero") != "random")
    assert kept.height < seats.height and set(kept["policy"].unique()) == {"balanced", "aggressive", "cautious"}
    shown = {ln.split("|")[1].strip(): ln.split("|")[4].strip() for ln in section.splitlines()
             if ln.startswith("| ") and not ln.startswith("| Warband")}
    assert shown
    for w, cell in shown.items():
        e = _effect(win_share(kept), kept[f"wb_{w}"].to_numpy() >= 2, deal_ids(kept))[2]
        assert cell == f"{e.estimate:.3f} [{e.low:.3f}, {e.high:.3f}]", w


# --- issue 19, second read: events with enough plays, titles, the seat table, game length, search in the answer --

def test_events_with_too_few_plays_are_not_tested():
    # Fireblast played by the winner in 150 of 300 deals (tested, +1.0 effect, flagged); Retreat in 6 seats only
    # (the Bounty Hunter case: 6 seats behind a +0.153 effect): "too few plays (6)", no effect, no flag, and not
    # in the Holm family of the Events
    from simkit.games.valka.cards import EVENT_KINDS, load_cards
    from simkit.games.valka.multiplayer.layout import EVENT0
    from simkit.games.valka.multiplayer.report import MIN_SEATS, card_table

    cards = load_cards()
    ev = {EVENT_KINDS[e.kind]: EVENT0 + i for i, e in enumerate(cards.events)}
    plays = {(g, 0): [ev["fireblast"]] for g in range(150)}
    for g in range(150, 153):
        plays[(g, 0)] = [ev["retreat"]]
        plays[(g, 1)] = [ev["retreat"]]
    rows, flagged = card_table(_played_seats(plays, 300), cards, "played", kinds=("Event",))
    by = {r["card"]: r for r in rows}
    assert {r["type"] for r in rows} == {"Event"} and flagged == 1
    assert by["Fireblast"]["flag"] == "above zero" and by["Fireblast"]["seats with"] == 150 >= MIN_SEATS
    assert by["Retreat"]["effect"] == "too few plays (6)" and by["Retreat"]["flag"] == "" \
        and by["Retreat"]["win with"] == "–"


def test_mixed_tables_and_tables_of_equals_have_distinct_titles():
    from simkit.games.valka.multiplayer.report import page_title

    mixed, equals = page_title("bounty-hunter", [4], True), page_title("bounty-hunter", [3, 4, 5], False)
    assert mixed != equals
    assert mixed.startswith("VÁLKA Bounty Hunter, mixed tables at 4 players: is the first player favoured")
    assert equals.startswith("VÁLKA Bounty Hunter, tables of equals at 3–5 players: is the first player favoured")


def _fake_search_ladder():
    from simkit.core.ladder import rungs_from

    rng = np.random.default_rng(2)
    means = {"search": (rng.random(60) < 0.5).astype(float), "balanced_tuned": (rng.random(60) < 0.3).astype(float),
             "random": np.zeros(60)}
    kinds = {"search": "search", "balanced_tuned": "heuristic", "random": "random"}
    return {"games": 60, "search": "8 rollouts per action of `balanced_tuned`", "rungs": rungs_from(means, kinds)}


@pytest.fixture(scope="module")
def mixed_bh(tmp_path_factory):
    from simkit.core import results
    from simkit.core.report import run_bundled
    from simkit.games.valka.multiplayer.report import multiplayer_report

    tmp = tmp_path_factory.mktemp("mixed")
    run = run_bundled("valka/bounty_hunter.toml", tmp / "run", 20, seed=3, jobs=1)
    sl = _fake_search_ladder()
    text = multiplayer_report(run, tmp / "out", search_ladder=sl)[0].read_text(encoding="utf-8")
    return results.load(run), text, sl


def test_the_answer_names_search_and_its_gap_with_interval_and_n(mixed_bh):
    _, text, sl = mixed_bh
    answer = text.split("## What was simulated")[0]
    s, b = sl["rungs"][0], sl["rungs"][1]
    assert s.policy == "search"
    assert (f"With `search` as the hero (60 games, 8 rollouts per action of `balanced_tuned`): {s.value:.3f} "
            f"[{s.low:.3f}, {s.high:.3f}]; search − `{b.policy}` = {-b.gap:+.3f} [{-b.gap_high:+.3f}, "
            f"{-b.gap_low:+.3f}] (paired, n = 60;") in answer


def test_seat_policy_table_is_labelled_not_skill(mixed_bh):
    _, text, _ = mixed_bh
    before, table = text.split("| seat policy", 1)
    caption = before.rsplit("\n\n", 2)[-2]
    assert caption.startswith("**Not a measure of skill:**") and "read skill from the ladder" in caption


def test_game_length_leaves_out_the_random_heros_tables(mixed_bh):
    from simkit.games.valka.multiplayer.report import _sums, deal_ids
    from simkit.core.stats import clustered_mean

    frame, text, _ = mixed_bh
    section = text.split("## How long games last", 1)[1].split("## Warbands", 1)[0]
    assert "the tables of the `random` hero are left out" in section
    kept = frame.filter(pl.col("policy") != "random")
    t = kept["turns"].to_numpy().astype(float)
    ids = deal_ids(kept)
    e = clustered_mean(_sums(ids, t), _sums(ids, np.ones(len(t))))
    row = next(ln for ln in section.splitlines() if ln.replace(" ", "").startswith("|4|"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[1] == f"{e.estimate:.2f} [{e.low:.2f}, {e.high:.2f}]" and int(cells[-2]) == kept.height
    assert kept.height < frame.height


def test_the_headline_names_the_warbands_the_games_cannot_tell_from_the_best_or_the_worst():
    """Hand-made effects: goblins -0.080 [-0.120, -0.040] and monsters -0.050 [-0.090, -0.010] overlap, so the
    worst names monsters beside goblins; knights +0.060 [+0.030, +0.090] is alone at the top; wizards +0.000
    [-0.025, +0.025] overlaps neither end."""
    from simkit.core.stats import Estimate, overlapping
    from simkit.games.valka.multiplayer.report import _alongside

    effects = {"goblins": Estimate(-0.080, -0.120, -0.040, 500), "monsters": Estimate(-0.050, -0.090, -0.010, 500),
               "wizards": Estimate(0.000, -0.025, 0.025, 500), "knights": Estimate(0.060, 0.030, 0.090, 500)}
    assert overlapping("knights", effects) == [] and overlapping("goblins", effects) == ["monsters"]
    assert _alongside("goblins", effects) == " (intervals overlapping it: monsters -0.050 [-0.090, -0.010])"
    assert _alongside("knights", effects) == ""


def test_a_shared_win_counts_one_kth_to_each_winner_so_the_places_add_up_to_at_most_one():
    """Hand-made 3-player games: game 0 won by order 0 alone, game 1 shared by orders 1 and 2, game 2 won by
    nobody. Shares per place: order 0 1/3, orders 1 and 2 (1/2)/3 each; the three add up to 2/3, the share of
    games someone won. Counted whole (the old reading) they add up to 1: a number the rules make impossible."""
    from simkit.games.valka.multiplayer.report import win_share

    rows = [(0, 0, 1, 1), (0, 1, 0, 1), (0, 2, 0, 1),
            (1, 0, 0, 2), (1, 1, 1, 2), (1, 2, 1, 2),
            (2, 0, 0, 0), (2, 1, 0, 0), (2, 2, 0, 0)]
    seats = pl.DataFrame({"game": [r[0] for r in rows], "order": [r[1] for r in rows], "won": [r[2] for r in rows],
                          "winners": [r[3] for r in rows]})
    share = win_share(seats)
    by_order = {k: float(share[seats["order"].to_numpy() == k].mean()) for k in range(3)}
    assert by_order == pytest.approx({0: 1 / 3, 1: 1 / 6, 2: 1 / 6})
    assert sum(by_order.values()) == pytest.approx(2 / 3)
    assert float((seats["won"].to_numpy() > 0).mean()) * 3 == pytest.approx(1.0)  # whole wins: 1/3 + 1/3 + 1/3
    # without a winners column every win counts whole
    assert win_share(seats.drop("winners")).tolist() == (seats["won"].to_numpy() > 0).astype(float).tolist()


def test_the_places_of_a_table_add_up_to_at_most_one(tmp_path):
    """On a small Bounty Hunter run, the turn-order table's win rates of one table size add up to the share of
    games someone won (at most 1), not more: a shared win is split."""
    from simkit.core.report import run_bundled
    from simkit.games.valka.multiplayer.report import multiplayer_report

    run = run_bundled("valka/bounty_hunter.toml", tmp_path / "run", 30, seed=5, jobs=1)
    text = multiplayer_report(run, tmp_path / "out")[0].read_text(encoding="utf-8")
    part = text.split("## Is the first player favoured?", 1)[1].split("\n## ", 1)[0]
    rates = {}
    for line in part.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) > 3 and cells[0].isdigit() and cells[1].isdigit():
            rates.setdefault(int(cells[0]), []).append(float(cells[2].split(" ")[0]))
    assert rates
    for np_, rs in rates.items():
        assert len(rs) == np_
        assert sum(rs) <= 1 + 0.0005 * np_  # each printed to 3 digits


def test_the_field_ladder_says_how_its_field_was_chosen():
    from simkit.games.valka.multiplayer.report import _field_origin

    assert _field_origin({"field": "balanced", "first": "balanced"}) == (
        "the strongest heuristic, `balanced` (the scenario's first heuristic, and the top of the ladder against it)")
    assert _field_origin({"field": "aggressive", "first": "balanced"}) == (
        "the strongest heuristic, `aggressive` (the top heuristic of a first ladder against the scenario's first "
        "heuristic, `balanced`, on the same deals)")


def test_card_effects_count_a_shared_win_one_kth():
    # 200 two-seat deals; in the 100 deals 0..99 both seats share the win (winners = 2) and seat 0 played card 0;
    # in deals 100..199 seat 1 wins alone and nobody played card 0. With the card: 100 seats, each half a win, so
    # 0.500; without: 300 seats holding 100 + 50 wins = 0.500 (the 100 shared wins of seat 1 count 1/2): effect 0.
    # Counting a shared win whole would read 1.000 against 0.667.
    from simkit.games.valka.cards import load_cards
    from simkit.games.valka.multiplayer.report import card_table

    seats = _played_seats({(g, 0): [0] for g in range(100)}, 200)
    shared = pl.col("game") < 100
    seats = seats.with_columns(
        won=pl.when(shared).then(1).otherwise((pl.col("won") == 0).cast(pl.Int64)),
        winners=pl.when(shared).then(2).otherwise(1))
    rows, _ = card_table(seats, load_cards(), "played")
    row = next(r for r in rows if r["card"] == load_cards().fighters[0].name)
    assert row["win with"].startswith("0.500 ") and row["win without"].startswith("0.500 ")
    assert row["effect"].startswith("0.000 ") and row["seats with"] == 100


def test_the_sensitivity_section_ranks_warbands_and_places_under_each_policy_from_the_rows(mixed_bh):
    # issue 18: the page compares the Warband ranking (and each table size's turn order) under every practical
    # policy with the card tables' policy; its Spearman cells and the answer's sentence come from the seat rows
    import re

    from simkit.core.sensitivity import ranking_sentence, sensitivity
    from simkit.games.valka.multiplayer.report import policy_rankings, seat_rows, warband_effects

    frame, text, _ = mixed_bh
    seats = seat_rows(frame).filter((pl.col("policy") != "random") & (pl.col("hero") != "random"))
    section = text.split("## Does the ranking depend on the policy?", 1)[1].split("## Cards", 1)[0]
    ref = re.search(r"against the rankings under `(\w+)`", section).group(1)
    rankings = policy_rankings(seats, [4])
    assert set(rankings) == {"Warbands", "4 players"} and ref in rankings["Warbands"] and "random" not in str(
        list(rankings["Warbands"]))
    # a policy's Warband effects are those of its own seats
    some = next(p for p in rankings["Warbands"] if p != ref)
    mine = warband_effects(seats.filter(pl.col("policy") == some))
    assert {w: e[2] for w, e in mine.items()} == rankings["Warbands"][some]
    comps = {c.policy: c for c in sensitivity(rankings["Warbands"], ref)}
    rows = section.split("### The Warbands", 1)[1].split("###", 1)[0]
    cell = next(ln for ln in rows.splitlines() if ln.startswith(f"| {some} ")).split("|")[2].strip()
    assert cell == f"{comps[some].rho:+.3f}"
    # the effects themselves, a column per policy (the reference first), the rows in the reference's order
    effects = _md_table(rows.split("order of", 1)[1].split("\n\n", 2)[1])
    ref_order = sorted(rankings["Warbands"][ref], key=lambda w: -rankings["Warbands"][ref][w].estimate)
    assert [r["Warband"] for r in effects] == ref_order
    for r in effects:
        e = rankings["Warbands"][some][r["Warband"]]
        assert r[f"`{some}`"] == f"{e.estimate:+.3f} [{e.low:+.3f}, {e.high:+.3f}], n {e.n:,}"
        assert IV.match(r[f"`{ref}` (reference)"].split(", n ")[0])
    # the places of 4 players: each policy's share of wins at each place, a shared win counted 1/k
    assert set(rankings["4 players"][ref]) == {"place 1", "place 2", "place 3", "place 4"}
    assert ranking_sentence(list(comps.values()), rankings["Warbands"], ref, "Warband") in text.split("\n\n")[3]


# --- issue 39: the page opens with one plain sentence -----------------------------------------------------------

IV = re.compile(r"^([+-]?\d\.\d{3}) \[([+-]?\d\.\d{3}), ([+-]?\d\.\d{3})\]$")


def _md_table(section: str) -> list[dict]:
    lines = [ln for ln in section.splitlines() if ln.startswith("|")]
    header = [c.strip() for c in lines[0].strip("|").split("|")]
    return [dict(zip(header, (c.strip() for c in ln.strip("|").split("|")))) for ln in lines[2:]]


def _check_lead(text: str) -> str:
    """The lead is the first paragraph after the notice, one sentence of at most 45 words, and says the numbers
    of the page's own tables: the first player (turn order 1) at the size farthest from fair, and the Warband
    with the largest effect, named with every Warband its interval overlaps as a tie."""
    from simkit.core.report import LEAD_MARKER, LEAD_WORDS, lead_of, lead_problems, lead_words
    from simkit.core.stats import Estimate, overlapping

    paras = text.split("\n\n")
    assert paras[1].startswith("> **Stand-in card data.**") and paras[2].startswith(LEAD_MARKER)
    assert paras[3].startswith("**The details.** At the practical policies' tables")
    lead = lead_of(text)
    assert lead.endswith(".") and lead_words(lead) <= LEAD_WORDS and not re.search(r"[.!?] [A-Z]", lead[:-1]), lead
    assert not lead_problems(lead), (lead_problems(lead), lead)  # and no statistics word: those come below
    seat = _md_table(text.split("## Is the first player favoured?", 1)[1].split("\n## ", 1)[0])
    firsts = {int(r["players"]): r for r in seat if r["turn order"] == "1"}
    est = {n: float(IV.match(r["win rate"]).group(1)) for n, r in firsts.items()}
    far = max(abs(est[n] * n - 1) for n in est)
    size = int(re.search(r"at (\d) players they win", lead).group(1))
    assert abs(est[size] * size - 1) >= far - 3e-3 * size  # the cells are rounded
    r = firsts[size]
    assert f"at {size} players they win {r['win rate']} against a fair {r['fair share']}" in lead
    assert lead.endswith(f"(practical policies, {int(r['games']):,} deals).")
    lo, hi = map(float, IV.match(r["win rate"]).groups()[1:])
    fair = float(r["fair share"])
    how = " is favoured" if lo > fair else " is at a disadvantage" if hi < fair else "'s edge is within the noise"
    assert lead.startswith(f"The first player{how}: ")
    wb = _md_table(text.split("## Warbands", 1)[1].split("\n## ", 1)[0])
    eff = {w["Warband"]: Estimate(*map(float, IV.match(w["effect"]).groups()), 1) for w in wb}
    ends = {"weakest": min(eff, key=lambda w: eff[w].estimate), "strongest": max(eff, key=lambda w: eff[w].estimate)}
    if ends["strongest"] in overlapping(ends["weakest"], eff):  # the two ends overlap: nobody stands out
        got = re.search(r"; no opening Warband stands out \(the intervals of (\w+), (\S+ \[\S+, \S+\]) on P\(win\), "
                        r"and (\w+) overlap\)", lead)
        assert got and {got.group(1), got.group(3)} == set(ends.values()), lead
        e = eff[got.group(1)]
        assert abs(e.estimate) >= max(abs(eff[w].estimate) for w in ends.values()) - 1e-3
        assert got.group(2) == f"{e.estimate:+.3f} [{e.low:+.3f}, {e.high:+.3f}]"
        return lead
    got = re.search(r"; (weakest|strongest) opening Warband: (\w+)(, tied with (.*?) \(intervals overlap\))?, "
                    r"([+-]\d\.\d{3} \[[+-]\d\.\d{3}, [+-]\d\.\d{3}\]) on P\(win\)", lead)
    assert got, lead
    word, pick, _, tied, shown = got.groups()
    assert pick == ends[word]
    assert abs(eff[pick].estimate) >= max(abs(eff[w].estimate) for w in ends.values()) - 1e-3
    e = eff[pick]
    assert shown == f"{e.estimate:+.3f} [{e.low:+.3f}, {e.high:+.3f}]"
    near = overlapping(pick, eff)
    _same_tie(tied, near)
    return lead




def test_the_page_opens_with_one_sentence_from_its_own_tables(mixed_bh, tables_of_equals):
    _, text, _ = mixed_bh
    _check_lead(text)
    _check_lead(tables_of_equals[1][0].read_text(encoding="utf-8"))


def test_the_lead_names_warbands_it_cannot_tell_apart_as_a_tie():
    from simkit.core.stats import Estimate
    from simkit.games.valka.multiplayer.report import lead_sentence

    first = {3: Estimate(0.40, 0.38, 0.42, 1000), 4: Estimate(0.30, 0.28, 0.32, 1000)}
    close = {"goblins": Estimate(-0.080, -0.120, -0.040, 500), "monsters": Estimate(-0.050, -0.090, -0.010, 500),
             "knights": Estimate(0.060, 0.030, 0.090, 500)}
    lead = lead_sentence(first, close)
    assert lead == ("The first player is favoured: at 3 players they win 0.400 [0.380, 0.420] against a fair 0.333; "
                    "weakest opening Warband: goblins, tied with monsters (intervals overlap), -0.080 [-0.120, "
                    "-0.040] on P(win) (practical policies, 1,000 deals).")
    level = {"goblins": Estimate(-0.030, -0.090, 0.030, 500), "knights": Estimate(0.020, -0.040, 0.080, 500)}
    assert lead_sentence(first, level).endswith(
        "; no opening Warband stands out (the intervals of goblins, -0.030 [-0.090, +0.030] on P(win), and knights "
        "overlap) (practical policies, 1,000 deals).")
    apart = {**close, "monsters": Estimate(-0.010, -0.030, 0.010, 500)}
    assert "weakest opening Warband: goblins, -0.080 [-0.120, -0.040] on P(win)" in lead_sentence(first, apart)
