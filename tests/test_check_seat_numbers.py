"""The gate's seat numbers (``check.SeatNumber``): a ratio of sums, or the difference of two, over seats, the game
as the unit. Values, intervals and paired tests computed by hand on a few games; the games' own hook
(``gate_columns``) through ``check.play``; and the two pages' columns (Valhalla multiplayer's Jarl edges, VÁLKA
multiplayer's Warband effects) on hand-built rows."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest
from scipy import stats as st

from simkit.core import check
from simkit.core.check import SeatNumber
from simkit.core.simulation import Metric, Simulation
from simkit.core import stats


def _stub(*numbers):
    return SimpleNamespace(seat_numbers=list(numbers), metrics=[])


def _outcomes(**cols):
    n = len(next(iter(cols.values())))
    return {"cell": np.zeros(n, np.int32), "game": np.arange(n, dtype=np.int64),
            **{k: np.asarray(v) for k, v in cols.items()}}


def test_a_ratio_paired_by_hand():
    """Old: 2 of 4 seats over 3 games (y = 1, 0, 1 over m = 1, 1, 2), 0.5; new: 3 of 4, 0.75. The linearised
    contributions z = (y − R·m)/Σm are (0.125, −0.125, 0) and (0.0625, 0.0625, −0.125); their differences
    d = (−0.0625, 0.1875, −0.125), Σd² = 0.0546875, and the variance of new − old is 3/2·Σd²."""
    x = SeatNumber("r", ("y", "m"), min_units=1)
    old, new = _outcomes(y=[1, 0, 1], m=[1, 1, 2]), _outcomes(y=[1, 1, 1], m=[1, 1, 2])
    (num,) = check.paired_seat_numbers(_stub(x), [{}], old, new, np.array([3]))
    se = math.sqrt(1.5 * 0.0546875)
    assert (num.old, num.new, num.diff, num.n) == (0.5, 0.75, 0.25, 3)
    assert num.high - num.diff == pytest.approx(st.t.ppf(0.975, 2) * se)
    assert num.p_value == pytest.approx(2 * st.t.sf(0.25 / se, 2))
    # the per-game sd behind the MDE: the old values' standard error times √n
    assert num.sd == pytest.approx(math.sqrt(1.5 * (0.125 ** 2 * 2) * 3))
    (same,) = check.paired_seat_numbers(_stub(x), [{}], old, old, np.array([3]))
    assert (same.diff, same.p_value) == (0.0, 1.0)


def test_a_difference_of_two_ratios_with_a_scale():
    """Shares stored times 60: with the property, 60 + 30 of 3 seats → 0.5; without, 0 + 60 of 3 → 1/3. The
    value is 1/6, and the summary's interval is clustered_difference's on the shares themselves."""
    x = SeatNumber("e", ("y1", "m1", "y0", "m0"), scale=60, min_units=1)
    old = _outcomes(y1=[60, 30, 0], m1=[1, 1, 1], y0=[0, 0, 60], m0=[1, 2, 0])
    (row,) = check.seat_summary(_stub(x), [{}], old, np.array([3]))
    ref = stats.clustered_difference([1, 0.5, 0], [1, 1, 1], [0, 0, 1], [1, 2, 0])
    assert row["estimate"] == pytest.approx(0.5 - 1 / 3)
    assert (row["low"], row["high"], row["n"]) == pytest.approx((ref.low, ref.high, ref.n))
    (num,) = check.paired_seat_numbers(_stub(x), [{}], old, old, np.array([3]))
    assert num.old == pytest.approx(1 / 6) and num.diff == 0.0


def test_too_few_games_and_unrecorded_parts_are_not_numbers():
    x = SeatNumber("r", ("y", "m"), min_units=3)
    old = _outcomes(y=[1, 0, 0, 1], m=[1, 1, 0, 0])  # rows in 2 games only
    assert check.seat_summary(_stub(x), [{}], old, np.array([4])) == []
    assert check.paired_seat_numbers(_stub(x), [{}], old, old, np.array([4])) == []
    # or a share of the group's games: 2 of 4 games is below 60%, not below 50%
    assert check.seat_summary(_stub(SeatNumber("r", ("y", "m"), min_units=1, min_share=0.6)), [{}], old,
                              np.array([4])) == []
    assert len(check.seat_summary(_stub(SeatNumber("r", ("y", "m"), min_units=1, min_share=0.5)), [{}], old,
                                  np.array([4]))) == 1
    # a baseline recorded before the simulation carried the number has no such columns: skipped, not an error
    assert check.paired_seat_numbers(_stub(SeatNumber("q", ("a", "b"), min_units=1)), [{}], old, old,
                                     np.array([4])) == []


def test_new_games_that_never_reach_the_seats_fail():
    x = SeatNumber("r", ("y", "m"), min_units=1)
    old, new = _outcomes(y=[1, 0], m=[1, 1]), _outcomes(y=[0, 0], m=[0, 0])
    (num,) = check.paired_seat_numbers(_stub(x), [{}], old, new, np.array([2]))
    check.judge([num], 0.01, check.Tolerances())
    assert num.status == "FAIL"


class SeatSim(Simulation):
    """Two cells that replay the same games; 3 seats a game, each with a Jarl 0..2 and one winner. ``favour``
    moves half of Jarl 1's wins to the seat of Jarl 0 (edges +1/6 and −1/6; Jarl 2's unchanged)."""

    game, mode, rules_version = "test", "seats", "0"
    metrics = [Metric("seat0_win", "win_0", "rate", ("policy",))]
    seat_numbers = [SeatNumber(f"edge[{j}]", (f"e{j}", f"s{j}"), ("policy",), scale=3) for j in range(3)]

    def __init__(self, favour=False):
        self.favour = favour

    @property
    def cells(self):
        return 2

    def run_block(self, key, n):
        rng = np.random.default_rng(key)
        jarl = np.stack([rng.permutation(3) for _ in range(n)])
        winner = rng.integers(0, 3, n)
        if self.favour:  # half the wins of Jarl 1 go to Jarl 0; Jarl 2's games are untouched
            rows_ = np.arange(n)
            won_by_1 = (jarl[rows_, winner] == 1) & (rng.random(n) < 0.5)
            winner = np.where(won_by_1, np.argmax(jarl == 0, axis=1), winner)
        cols = {"game": np.tile(np.arange(n), 2), "policy": np.repeat(["a", "b"], n)}
        for k in range(3):
            cols[f"win_{k}"] = np.tile((winner == k).astype(np.int8), 2)
            cols[f"jarl_{k}"] = np.tile(jarl[:, k], 2)
        return cols

    def gate_columns(self, c):
        out = {}
        for j in range(len(self.seat_numbers)):  # 3 × (share − 1/3) over the seats that kept Jarl j, and their number
            kept = [c[f"jarl_{k}"] == j for k in range(3)]
            out[f"e{j}"] = sum(np.where(h, 3 * c[f"win_{k}"] - 1, 0) for k, h in enumerate(kept)).astype(np.int8)
            out[f"s{j}"] = sum(h.astype(np.int8) for h in kept)
        return out


def test_the_gate_plays_the_seat_numbers_and_flags_the_one_that_moved():
    """Through ``check.play`` (the hook adds the columns per block): unchanged, every difference is 0 and every p
    1; with half of Jarl 1's wins given to Jarl 0, their edges fail in both cells, and Jarl 2's is exactly
    unchanged."""
    sim = SeatSim()
    _, table, old, rows = check.play(sim, 3, 2000, 500, 1)
    nums = check.paired_numbers(sim, table, old, old, rows)
    assert {x.metric for x in nums} == {"seat0_win", "edge[0]", "edge[1]", "edge[2]"}
    assert all(x.diff == 0 and x.p_value == 1 for x in nums)
    e0 = next(x for x in nums if x.metric == "edge[0]" and x.group == "policy=a")
    assert e0.old == pytest.approx(0, abs=0.03) and e0.n == 2000  # three Jarls, one winner in three
    _, table2, new, rows2 = check.play(SeatSim(favour=True), 3, 2000, 500, 1)
    assert table2 == table
    judged = check.judge(check.paired_numbers(sim, table, old, new, rows), 0.01, check.Tolerances())
    failed = {(x.metric, x.group) for x in judged if x.status == "FAIL"}
    assert {(f"edge[{j}]", f"policy={p}") for j in (0, 1) for p in "ab"} <= failed
    assert all(m in ("edge[0]", "edge[1]", "seat0_win") for m, _ in failed)
    assert all(x.diff == 0 and x.p_value == 1 for x in judged if x.metric == "edge[2]")
    assert all(x.diff == pytest.approx(1 / 6, abs=0.03) for x in judged if x.metric == "edge[0]")


def test_valhalla_jarl_columns_by_hand():
    """3 players; seats 0 and 2 share the win (1/2 each, fair 1/3): 60 × (share − 1/n) = 10, −20, 10 for Jarls 4,
    1, 7; seats 3–5 are not at the table (−1) and count for nothing."""
    from simkit.games.valhalla.multi import gate

    sim = SimpleNamespace(deck=SimpleNamespace(jarls=[SimpleNamespace(name=f"J{i}") for i in range(8)]))
    rows = {"players": np.array([3])}
    for k, (w, j) in enumerate([(1, 4), (0, 1), (1, 7), (-1, -1), (-1, -1), (-1, -1)]):
        rows[f"win_{k}"], rows[f"jarl_{k}"] = np.array([w]), np.array([j])
    c = gate.columns(sim, rows)
    assert {i: (int(c[f"jarl_edge_{i}"][0]), int(c[f"jarl_seats_{i}"][0])) for i in (1, 4, 7)} == \
        {1: (-20, 1), 4: (10, 1), 7: (10, 1)}
    assert all(int(c[f"jarl_seats_{i}"][0]) == 0 for i in (0, 2, 3, 5, 6))
    assert [x.name for x in gate.seat_numbers(sim)][:2] == ["jarl_edge[J0]", "jarl_edge[J1]"]


def test_valka_warband_columns_by_hand():
    """4 players at a table of `balanced` with one `random` seat (left out); seats 0 and 1 share the win (30 each
    of 60). Seat 0 holds 2 goblins, seat 1 one, seat 2 three, seat 3 (random) two."""
    from simkit.games.valka.cards import WARBANDS
    from simkit.games.valka.multiplayer import gate

    sim = SimpleNamespace(policy_names=["balanced", "random"], kinds=np.array([0, 1]))
    rows = {"policy": np.array(["balanced"]), "winners": np.array([2])}
    seats = [("balanced", 0, 1, 2), ("balanced", 1, 1, 1), ("balanced", 2, 0, 3), ("random", 3, 0, 2),
             ("", -1, -1, -1)]
    for k, (pol, order, won, gob) in enumerate(seats):
        rows[f"seat{k}_policy"], rows[f"seat{k}_order"] = np.array([pol]), np.array([order])
        rows[f"seat{k}_won"] = np.array([won])
        for w in WARBANDS:
            rows[f"seat{k}_wb_{w}"] = np.array([gob if w == "goblins" else 0])
    c = gate.columns(sim, rows)
    assert [int(c[f"wb_goblins_{p}"][0]) for p in ("y1", "m1", "y0", "m0")] == [30, 2, 30, 1]
    assert [int(c[f"wb_knights_{p}"][0]) for p in ("y1", "m1", "y0", "m0")] == [0, 0, 60, 3]
    rows["policy"] = np.array(["random"])  # a random hero's table: no practical seat
    assert int(gate.columns(sim, rows)["wb_goblins_m0"][0]) + int(gate.columns(sim, rows)["wb_goblins_m1"][0]) == 0


class RareSim(SeatSim):
    """Jarl 3 is kept at seat 0 in about one game in 50: a pilot of 1,000 games has too few games with it (fewer
    than ``min_units``) for a number, the games the other numbers need have enough."""

    seat_numbers = [SeatNumber(f"edge[{j}]", (f"e{j}", f"s{j}"), ("policy",), scale=3) for j in range(4)]

    def run_block(self, key, n):
        cols = super().run_block(key, n)
        rare = np.random.default_rng([*key, 9]).random(n) < 0.02
        cols["jarl_0"] = np.where(np.tile(rare, 2), 3, cols["jarl_0"])
        return cols


def test_sizing_counts_a_seat_numbers_games_and_sizes_again_for_numbers_the_pilot_missed(tmp_path, monkeypatch):
    """``baseline`` sizing: a seat number is measured on the games that reach its seats, so its units scale to
    games; a number the pilot had too few games for appears in the sized run, and the games are sized again, so
    every number's MDE ends at most its tolerance (the record says so)."""
    monkeypatch.setattr(check, "_scenario", lambda data, root: SimpleNamespace(
        simulation=RareSim(), run=SimpleNamespace(block_size=None)))
    logs = []
    tol = check.Tolerances(check.Tolerance(0.04), check.Tolerance(0.05, True), {"edge[3]": check.Tolerance(0.2)})
    data = check.record(tmp_path / "rare.json", "rare.toml", [], 5, None, 500, 0.01, 0.8, 0.35, tol, tmp_path,
                        jobs=1, log=logs.append)
    first = int(logs[0].split("sized at ")[1].split(" games")[0].replace(",", ""))
    assert any("sized again" in ln and "edge[3]" in ln for ln in logs), logs
    assert data["games"] > first and data["mde"]["worst_ratio"] <= 1.0
    assert "edge[3]" in {m["metric"] for m in data["metrics"]}
