"""`simkit bench`: a mode's `search` policy is timed in one cell of its default scenario on a fixed small number
of games (it costs about a CPU-second a game; the Valhalla default scenario has 1,224 cells)."""

from __future__ import annotations

from simkit.core import bench, registry


def test_search_is_timed_in_one_cell_of_every_mode_that_has_it():
    searched = []
    for game, mode in registry.all_modes():
        if not mode.default_scenario:
            continue
        fast, learned, search = bench._split(registry.scenarios_dir() / mode.default_scenario, mode.one_cell)
        assert fast.cells >= 1
        assert "learned" not in {v.get("kind") for v in (fast.describe().get("policies") or {}).values()}
        if learned is not None:  # timed apart from the heuristics: the bar is a third of their speed
            d = learned.describe()  # multiplayer scenarios also list their heuristic opponents
            heroes = {k: v.get("kind") for k, v in d["policies"].items() if k not in (d.get("opponents") or [])}
            assert set(heroes.values()) == {"learned"}, heroes
        if search is not None:
            searched.append(mode.name)
            cells = getattr(search, "games_per_index", search.cells)  # a mirror game may write a row per seat
            assert cells == 1, f"{game.name}/{mode.name}: search timed in {cells} cells"
            # the one cell plays `search` (multiplayer scenarios also list their heuristic opponents)
            assert "search" in {v.get("kind") for v in search.describe()["policies"].values()}
    assert {"lonequest", "solo", "draw"} <= set(searched)


def test_bench_rows_say_how_search_was_timed():
    rows = bench.bench("draw", games=2000, jobs=1)
    assert [r["simulator"] for r in rows] == ["draw", f"draw (search, {bench.SEARCH_GAMES} games × 1 cell)"]
    assert rows[0]["games"] % 2000 == 0  # 2,000 games in each cell of the heuristic policies
    assert rows[1]["games"] == bench.SEARCH_GAMES
    assert rows[1]["games/s per core"] > 0


def test_targets_flag_the_search_row():
    # the flag, not the label, says which row is `search` (timed on one core, a few games in one cell)
    rows = [(label, n, slow) for _, label, _, n, slow in bench._targets("draw", 100)]
    assert rows == [("draw", 100, False), (f"draw (search, {bench.SEARCH_GAMES} games × 1 cell)",
                                            bench.SEARCH_GAMES, True)]
    # every mode and dice check: flagged exactly when the simulation plays a `search` policy
    for _, label, sim, _, slow in bench._targets(None, 10):
        kinds = {v.get("kind") for v in (sim.describe().get("policies") or {}).values()} \
            if hasattr(sim, "describe") else set()
        assert slow == ("search" in kinds), label


def test_bench_cells_time_the_speed_bar_of_issue_23():
    # Valhalla multiplayer's bar is stated for 4-player heuristic games: one row per heuristic, one cell each
    rows = {label: sim for _, label, sim, _, _ in bench._targets("multi", 10)}
    for h in ("builder", "raider"):
        sim = rows[f"multi (4 players, {h})"]
        assert sim.cells == 1
        assert set(sim.describe()["policies"]) == {h}
        assert sim.describe()["players"] == [4]


def test_bounty_hunter_bench_times_the_learned_hero_beside_its_base():
    # issue 18's speed bar: `make train`'s Bounty Hunter weights as the hero against the scenario's opponents,
    # timed beside balanced_tuned (its base) in the same seats; the scenario itself does not play `learned`
    rows = {label: sim for _, label, sim, _, _ in bench._targets("bounty-hunter", 10)}
    learned, base = rows["bounty-hunter (learned)"], rows["bounty-hunter (balanced_tuned)"]
    assert {v["kind"] for v in learned.describe()["policies"].values()} >= {"learned"}
    assert learned.cells == base.cells == 1 and learned.hero_names == ["learned"]
    assert base.hero_names == ["balanced_tuned"] and learned.opponent_names == base.opponent_names != []


def test_bench_prints_rates_as_rounded_not_at_four_decimals():
    # a `search` plays about a game a second: bench rounds its rate to two significant digits ("1.3") and the
    # table shows it so, not at a rate's four decimals ("1.3000")
    import re

    from click.testing import CliRunner

    from simkit.cli import cli

    res = CliRunner().invoke(cli, ["bench", "draw", "--games", "500", "--jobs", "1"])
    assert res.exit_code == 0, res.output
    line = next(ln for ln in res.output.splitlines() if "search" in ln)
    assert re.search(r"\s\d+(\.\d{1,2})?\s*$", line), line  # the last cell: the rate, as rounded
    assert not re.search(r"\d\.\d{3,}", res.output), res.output
