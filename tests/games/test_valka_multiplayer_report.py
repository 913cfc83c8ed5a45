"""The VÁLKA multiplayer report's table of every seat by its policy: the game is the unit of its intervals."""

from __future__ import annotations

import numpy as np
import polars as pl

from simkit.core.stats import clustered_rate, wilson
from simkit.games.valka.multiplayer.report import seat_policy_rows


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
    values = {"search": [1, 1, 0, 1], "balanced_tuned": [1, 0, 0, 1], "balanced": [0, 0, 1, 0], "random": [0] * 4}

    def fake(sim, seed, spawn, games, metric, jobs=1):
        seen.append((sim.describe(), sim.policy_specs, sim.default_block_size, seed, spawn, games, metric))
        return {k: np.array(v, float) for k, v in values.items()}

    monkeypatch.setattr(tune, "per_game_means", fake)
    path = registry.scenarios_dir() / "valka" / "bounty_hunter.toml"
    got = report.search_ladder(path, 4, jobs=1)
    want = ladder.ladder(path, report.SEARCH_LADDER, games=4, seed=2026, jobs=1, block_size=5)
    assert seen[0] == seen[1] and seen[0][2:] == (5, 2026, (0,), 4, "won")
    assert got["rungs"] == want and [r.policy for r in want] == ["search", "balanced_tuned", "balanced", "random"]
    assert [r.kind for r in want] == ["search", "heuristic", "heuristic", "random"]
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
    from simkit.games.valka.multiplayer.report import deal_ids, deal_rate, multiplayer_report, seat_rows

    run = run_bundled("valka/bounty_hunter.toml", tmp_path / "run", 20, seed=3, jobs=1)
    files = multiplayer_report(run, tmp_path / "out")
    text = files[0].read_text(encoding="utf-8")
    for section in ("## Is the first player favoured?", "## How long games last", "## Cards", "deal"):
        assert section in text
    seats = seat_rows(results.load(run))
    first = seats.filter((pl.col("players") == 4) & (pl.col("order") == 0))
    e = deal_rate(first["won"].to_numpy() > 0, deal_ids(first))
    deals = seats.select("block", "game").unique().height
    frame = results.load(run)
    assert e.n == deals and len(first) == frame.height > deals  # one first player per game and cell
    row = next(line for line in text.splitlines() if line.replace(" ", "").startswith("|4|1|"))
    assert f"{e.estimate:.3f} [{e.low:.3f}, {e.high:.3f}]" in row
