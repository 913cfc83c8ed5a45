"""`simkit balance`'s outputs (issue 24): the edited copies beside the originals and in the run folder, the printed
before → after and its diff, the HTML report and the progress bar's best so far.

Two small games: Draw to Ten (the README's example; its numbers live in the scenario's `[rules]`) and a test coin
whose chance of heads lives in a card file (`coins.toml`), so that the rate a copy plays is known by hand: the
penny lands heads with its `p` plus the scenario's `rules.shift`. The bundled Lonequest data is edited by
`write_copies` alone (no game played) to check that its copies load.
"""

from __future__ import annotations

import difflib
import html
import json
import math
import re
import shutil
import tomllib
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from simkit.cli import cli
from simkit.core import balance as B
from simkit.core import loader, registry
from simkit.core.scenario import read_toml
from simkit.core.simulation import Metric, Simulation

ROOT = Path(__file__).resolve().parents[1]
DRAW = ROOT / "scenarios/toy/draw.toml"
DRAW_ARGS = ["--policy", "stop_at_8", "--vary", "rules.win_low=6:10", "--vary", "rules.win_high=9:12",
             "--target", "won[policy=stop_at_8]=0.44±0.03", "--budget", "3000", "--games-per-trial", "150",
             "--eval-games", "1000", "--seed", "3", "--jobs", "1", "--quiet"]


def _toml(path: Path) -> dict:
    return tomllib.loads(path.read_text(encoding="utf-8"))


def _balance(args: list[str]):
    res = CliRunner().invoke(cli, ["balance", *args])
    assert res.exit_code == 0, res.output
    return res


# --- a coin whose chance of heads is card data ----------------------------------------------------------------

COINS = """# test coins: the penny is the one played
coins = [
  {key = "penny", name = "Penny", p = 0.5, weight = 3},  # p: chance of heads
  {key = "dime",  name = "Dime",  p = 0.3, weight = 1},
]
"""

SCENARIO = """# a coin toss; the coins live in coins.toml
game = "cardcoin-test"
mode = "coin"
cards = "coins.toml"

[rules]
shift = 0.0  # added to the penny's chance of heads
"""


class CardCoinSim(Simulation):
    """Heads (``won`` = 1) with chance ``p + shift``; every candidate replays the same uniforms."""

    game, mode, rules_version = "cardcoin-test", "coin", "1"
    default_block_size = 1000

    def __init__(self, p: float, shift: float):
        self.p, self.shift = p, shift
        self.metrics = [Metric("win_rate", "won", "rate")]

    def run_block(self, key, n):
        u = np.random.default_rng([int(key[0]), int(key[1])]).random(n)
        return {"game": np.arange(n, dtype=np.int32), "won": (u < self.p + self.shift).astype(np.int8)}


def _build_cardcoin(fields):
    path = fields.file_path("cards", "coins.toml")
    r = fields.table("rules", default={})
    shift = r.get("shift", float, 0.0, min=-1.0, max=1.0)
    r.finish()
    penny = next(c for c in read_toml(path)[0]["coins"] if c["key"] == "penny")
    return CardCoinSim(float(penny["p"]), shift)


@pytest.fixture()
def coins(tmp_path):
    registry.register(registry.Game("cardcoin-test", "a coin from a card file (tests)", "none.txt", "1",
                                    modes=[registry.Mode("coin", "coin", _build_cardcoin)]))
    data = tmp_path / "data"
    data.mkdir()
    (data / "coins.toml").write_text(COINS, encoding="utf-8")
    (data / "coin.toml").write_text(SCENARIO, encoding="utf-8")
    yield data / "coin.toml"
    registry.games().pop("cardcoin-test", None)


def _coin_args(scenario, out, *more):
    return [str(scenario), *more, "--budget", "8000", "--games-per-trial", "400", "--eval-games", "2000",
            "--seed", "1", "--jobs", "1", "--quiet", "--out", str(out)]


def _penny(data: dict) -> dict:
    return next(c for c in data["coins"] if c["key"] == "penny")


def _heads(scenario: Path, games: int = 20_000) -> float:
    sim = loader.load(scenario).simulation
    return float(sim.run_block(np.array([7, 11], np.uint64), games)["won"].mean())


def test_a_card_edit_is_copied_beside_the_card_file_and_the_scenario_copy_plays_it(coins, tmp_path):
    # by hand: heads with 0.5, 0.6, 0.7 or 0.8; only 0.7 lies in 0.70 ± 0.03
    cards = coins.parent / "coins.toml"
    card_bytes, scen_bytes = cards.read_bytes(), coins.read_bytes()
    res = _balance(_coin_args(coins, tmp_path / "run", "--vary", "coins.penny.p=0.5,0.6,0.7,0.8",
                              "--target", "won=0.70±0.03"))
    result = json.loads((tmp_path / "run/result.json").read_text())
    assert result["edits"] == [["coins.penny.p", 0.5, 0.7]]
    # (a) the card file's copy beside it: the edit, and every other field as in the original, which is unchanged
    assert cards.read_bytes() == card_bytes and coins.read_bytes() == scen_bytes
    copy = coins.parent / "coins.balanced.toml"
    original = _toml(cards)
    _penny(original)["p"] = 0.7
    assert _toml(copy) == original
    assert "# p: chance of heads" in copy.read_text()  # comments kept
    # (b) the scenario's copy names the card copy, loads, and plays the edited chance
    scen_copy = coins.parent / "coin.balanced.toml"
    assert _toml(scen_copy) == {**_toml(coins), "cards": "coins.balanced.toml"}
    sim = loader.load(scen_copy).simulation
    assert (sim.p, sim.shift) == (0.7, 0.0)
    assert abs(_heads(scen_copy) - 0.7) < 4 * math.sqrt(0.21 / 20_000)
    # the run folder's copies load too, and the printed diff is the card file's change to its copy
    assert (tmp_path / "run/coins.balanced.toml").read_text() == copy.read_text()
    assert loader.load(tmp_path / "run/coin.balanced.toml").simulation.p == 0.7
    diff = "".join(difflib.unified_diff(cards.read_text().splitlines(True), copy.read_text().splitlines(True),
                                        fromfile=str(cards), tofile=str(copy)))
    assert diff.rstrip("\n") in res.stdout
    assert result["diffs"] == {str(cards): diff}
    for p in (copy, scen_copy, tmp_path / "run/coins.balanced.toml", tmp_path / "run/coin.balanced.toml"):
        assert f"Wrote {p}" in res.stdout


def test_a_rule_edit_is_copied_into_the_scenario_and_the_run_folder_copy_still_finds_the_cards(coins, tmp_path):
    # (c) by hand: 0.5 + shift in 0.70 ± 0.03 only for shift 0.2
    res = _balance(_coin_args(coins, tmp_path / "run", "--vary", "rules.shift=0,0.1,0.2,0.3",
                              "--target", "won=0.70±0.03"))
    assert json.loads((tmp_path / "run/result.json").read_text())["edits"] == [["rules.shift", 0.0, 0.2]]
    scen_copy = coins.parent / "coin.balanced.toml"
    original = _toml(coins)
    original["rules"]["shift"] = 0.2
    assert _toml(scen_copy) == original  # still names the unedited coins.toml
    assert not (coins.parent / "coins.balanced.toml").exists()
    # the run folder's copy holds no card file: it must name the original one, wherever the run folder is
    run_copy = tmp_path / "run/coin.balanced.toml"
    for p in (scen_copy, run_copy):
        sim = loader.load(p).simulation
        assert (sim.p, sim.shift) == (0.5, 0.2), p
    assert abs(_heads(run_copy) - 0.7) < 4 * math.sqrt(0.21 / 20_000)
    diff = "".join(difflib.unified_diff(coins.read_text().splitlines(True), scen_copy.read_text().splitlines(True),
                                        fromfile=str(coins), tofile=str(scen_copy)))
    assert diff.rstrip("\n") in res.stdout


def test_edits_to_both_files_print_the_diffs_of_the_written_copies(coins, tmp_path):
    # by hand: p + shift in 0.70 ± 0.03 only for p 0.6 and shift 0.1 (two edits)
    res = _balance(_coin_args(coins, tmp_path / "run", "--vary", "coins.penny.p=0.5,0.6", "--vary",
                              "rules.shift=0,0.1", "--target", "won=0.70±0.03", "--max-edits", "2"))
    result = json.loads((tmp_path / "run/result.json").read_text())
    assert sorted(map(tuple, result["edits"])) == [("coins.penny.p", 0.5, 0.6), ("rules.shift", 0.0, 0.1)]
    cards = coins.parent / "coins.toml"
    pairs = [(cards, coins.parent / "coins.balanced.toml"), (coins, coins.parent / "coin.balanced.toml")]
    assert _toml(pairs[1][1])["cards"] == "coins.balanced.toml" and _toml(pairs[1][1])["rules"]["shift"] == 0.1
    assert _penny(_toml(pairs[0][1]))["p"] == 0.6
    for old, new in pairs:  # each printed diff takes the original to exactly the copy written beside it
        diff = "".join(difflib.unified_diff(old.read_text().splitlines(True), new.read_text().splitlines(True),
                                            fromfile=str(old), tofile=str(new)))
        assert result["diffs"][str(old)] == diff
        assert diff.rstrip("\n") in res.stdout
    assert loader.load(pairs[1][1]).simulation.p + loader.load(pairs[1][1]).simulation.shift == pytest.approx(0.7)


def test_no_copies_writes_nothing_beside_the_originals(coins, tmp_path):
    # (d) the copies go into the run folder only, and that scenario copy names the run folder's card copy
    before = sorted(p.name for p in coins.parent.iterdir())
    res = _balance(_coin_args(coins, tmp_path / "run", "--vary", "coins.penny.p=0.5,0.6,0.7,0.8",
                              "--target", "won=0.70±0.03", "--no-copies"))
    assert sorted(p.name for p in coins.parent.iterdir()) == before
    assert not list(coins.parent.glob("*.balanced.toml"))
    run_copy = tmp_path / "run/coin.balanced.toml"
    assert _toml(run_copy)["cards"] == "coins.balanced.toml"
    assert loader.load(run_copy).simulation.p == 0.7
    assert f"Wrote {run_copy}" in res.stdout and f"Wrote {coins.parent}" not in res.stdout
    # the printed diffs name the copies written, in the run folder, never a copy beside the original
    assert f"+++ {tmp_path / 'run/coins.balanced.toml'}" in res.stdout
    assert f"+++ {coins.parent / 'coins.balanced.toml'}" not in res.stdout


# --- the bundled Lonequest data: copies that load (no game played) ----------------------------------------------

def test_the_lonequest_copies_load_with_an_edit_to_a_printed_rulebook_value(tmp_path):
    # The Old Gob's base Health 3 is a rulebook fact the card loader checks; --set copies are marked experiments so
    # it may change, and so must the balanced copy (the README's Lonequest answer edits it). The run folder's copy
    # of the scenario must still find the learned policy's weights.
    data = tmp_path / "valka"
    data.mkdir()
    for name in ("lonequest.toml", "cards.toml", "lonequest.learned.npz", "lonequest.learned_v1.npz",
                 "lonequest.value.npz"):
        shutil.copy(ROOT / "scenarios/valka" / name, data / name)
    scenario = data / "lonequest.toml"
    card_bytes = (data / "cards.toml").read_bytes()
    d = read_toml(scenario)[0]
    varies = {v.name: v for v in (B.parse_vary(t, scenario, d) for t in
                                  ("fighters.old_gob.health=3:5", "setup.krone=0:20"))}
    out = tmp_path / "run"
    out.mkdir()
    diffs, written = B.write_copies(scenario, d, varies, (("fighters.old_gob.health", 4), ("setup.krone", 10)), out)
    assert (data / "cards.toml").read_bytes() == card_bytes
    assert sorted(p.name for p in written) == ["cards.balanced.toml"] * 2 + ["lonequest.balanced.toml"] * 2
    for copy in (data / "lonequest.balanced.toml", out / "lonequest.balanced.toml"):
        sc = loader.load(copy)
        old_gob = next(f for f in sc.simulation.cards.fighters if f.key == "old_gob")
        assert old_gob.health == 4 and sc.simulation.rule_options["krone"] == 10, copy
    # every other card value as printed
    original, edited = _toml(data / "cards.toml"), _toml(data / "cards.balanced.toml")
    next(f for f in original["fighters"] if f["key"] == "old_gob")["health"] = 4
    edited.pop("experiment", None)
    assert edited == original
    for old in (scenario, data / "cards.toml"):
        new = data / B.balanced_name(old).name
        assert diffs[str(old)] == "".join(difflib.unified_diff(
            old.read_text().splitlines(True), new.read_text().splitlines(True), fromfile=str(old), tofile=str(new)))


def test_the_valhalla_solo_copies_find_the_unedited_deck(tmp_path):
    # the scenario names two files (cards, deck) and a learned policy's weights: an edit to the cards leaves the deck
    # as it is, and the run folder's copy of the scenario must name the original deck.toml from where it lies
    data = tmp_path / "valhalla"
    data.mkdir()
    for name in ("solo.toml", "cards.toml", "deck.toml", "solo.learned.npz", "solo.value.npz"):
        shutil.copy(ROOT / "scenarios/valhalla" / name, data / name)
    scenario = data / "solo.toml"
    d = read_toml(scenario)[0]
    v = B.parse_vary("monsters.troll.base.0.strength=5:9", scenario, d)
    out = tmp_path / "runs" / "run"
    out.mkdir(parents=True)
    B.write_copies(scenario, d, {v.name: v}, ((v.name, 8),), out)
    for copy, cards in ((data / "solo.balanced.toml", data / "cards.balanced.toml"),
                        (out / "solo.balanced.toml", out / "cards.balanced.toml")):
        files = loader.load(copy).simulation.files
        assert Path(files["cards"]).resolve() == cards.resolve(), copy
        assert Path(files["deck"]).resolve() == (data / "deck.toml").resolve(), copy
        troll = next(m for m in _toml(cards)["monsters"] if m["key"] == "troll")
        assert troll["base"][0]["strength"] == 8
    assert _toml(out / "solo.balanced.toml")["deck"] == "../../valhalla/deck.toml"


# --- Draw to Ten through the command: printed result, report, plot -----------------------------------------------

@pytest.fixture(scope="module")
def draw_run(tmp_path_factory):
    """One balance of a copy of Draw to Ten (copies beside it), the convergence plot's series captured."""
    from simkit.core import plotting

    tmp = tmp_path_factory.mktemp("draw")
    shutil.copy(DRAW, tmp / "draw.toml")
    plotted = {}
    real = plotting.lines

    def spy(path, x, series, **kw):
        plotted.update({k: np.asarray(v, float) for k, v in series.items()})
        return real(path, x, series, **kw)

    mp = pytest.MonkeyPatch()
    mp.setattr(plotting, "lines", spy)
    try:
        res = _balance([str(tmp / "draw.toml"), *DRAW_ARGS, "--out", str(tmp / "run")])
    finally:
        mp.undo()
    return tmp, res.stdout, json.loads((tmp / "run/result.json").read_text()), plotted


def _iv(e: dict) -> str:
    return f"{e['estimate']:.3f} [{e['low']:.3f}, {e['high']:.3f}]"


def test_the_rule_edit_of_draw_to_ten_is_copied_and_plays(draw_run):
    tmp, out, result, _ = draw_run
    assert DRAW.read_bytes() == (tmp / "draw.toml").read_bytes()
    assert result["edits"], "the printed rules (0.692) are far outside 0.44 ± 0.03: some edit scores better"
    expect = _toml(tmp / "draw.toml")
    for name, old, new in result["edits"]:
        assert expect["rules"][name.split(".")[1]] == old
        expect["rules"][name.split(".")[1]] = new
    copy = tmp / "draw.balanced.toml"
    assert _toml(copy) == expect and (tmp / "run/draw.balanced.toml").read_text() == copy.read_text()
    # the copy plays the edited rules: stop_at_8's rate on it is the exact rate under them (by hand)
    from simkit.games.toy.engine import exact_win_probability

    low, high = expect["rules"]["win_low"], expect["rules"]["win_high"]
    sim = loader.load(copy, ['play=["stop_at_8"]']).simulation
    assert list(sim.rules) == [low, high]
    won = sim.run_block(np.array([5, 9], np.uint64), 4000)["won"].mean()
    exact = float(exact_win_probability(8.0, low=low, high=high))
    assert abs(won - exact) < 4 * math.sqrt(exact * (1 - exact) / 4000)
    diff = "".join(difflib.unified_diff((tmp / "draw.toml").read_text().splitlines(True),
                                        copy.read_text().splitlines(True), fromfile=str(tmp / "draw.toml"),
                                        tofile=str(copy)))
    assert diff.rstrip("\n") in out and result["diffs"] == {str(tmp / "draw.toml"): diff}


def test_the_printed_before_and_after_are_the_result_data(draw_run):
    tmp, out, result, _ = draw_run
    md = (tmp / "run/report.md").read_text()
    for row, own in zip(result["rows"], result["search_best"]):
        printed = next(ln for ln in out.splitlines() if ln.startswith(row["target"] + " "))
        cells = re.split(r"\s{2,}", printed.strip())
        assert cells == [row["target"], row["band"], _iv(row["before"]), row["before_status"], _iv(row["after"]),
                         row["after_status"], str(row["after"]["n"]), f"{own:.3f}"]
        md_row = next(ln for ln in md.splitlines() if ln.startswith(f"| {row['target']} "))
        assert [c.strip() for c in md_row.strip("|").split("|")] == cells
    edits = ", ".join(f"{k} {a} → {b}" for k, a, b in result["edits"])
    assert f"Edits ({len(result['edits'])}): {edits}" in out and f"Edits ({len(result['edits'])}): {edits}" in md
    assert f"{result['eval_games']:,} fresh games per cell" in out


def test_the_html_report_holds_before_after_edits_and_the_plot(draw_run):
    tmp, _, result, plotted = draw_run
    # the page's text (a number cell's estimate and interval are two spans, so the interval can wrap)
    raw = (tmp / "run/report.html").read_text()
    page = html.unescape(re.sub(r"<[^>]+>", "", raw))
    for row in result["rows"]:
        assert row["target"] in page and _iv(row["before"]) in page and _iv(row["after"]) in page
    for k, a, b in result["edits"]:
        assert f"{k} {a} → {b}" in page
    assert re.search(r'<img[^>]+src="data:image/png;base64,[A-Za-z0-9+/=]{1000,}', raw)
    # the convergence plot: the best so far never rises (the score is minimised), is the running minimum of the
    # candidates' scores, one point per candidate scored, and ends at the search's best
    best, cand = plotted["best so far"], plotted["candidate"]
    assert len(best) == len(cand) == result["trials"] == len(result["history"])
    assert np.all(np.diff(best) <= 0)
    assert np.array_equal(best, np.minimum.accumulate(np.where(np.isnan(cand), np.inf, cand)))
    assert best[-1] == result["search_score"]


def test_the_progress_bar_shows_the_best_score_so_far(tmp_path, capsys):
    shutil.copy(DRAW, tmp_path / "draw.toml")
    r = B.balance(tmp_path / "draw.toml", ["rules.win_low=6:10", "rules.win_high=9:12"],
                  ["won[policy=stop_at_8]=0.44±0.03"], policy="stop_at_8", budget=1500, games_per_trial=150,
                  eval_games=500, seed=2, beside=False, out=tmp_path / "run", progress=True)
    err = capsys.readouterr().err
    shown = re.findall(r"best: score (\d+\.\d+) \(max violation (\d+\.\d+), (\d+) edits?\)", err)
    assert shown, err[-500:]
    score, violation, edits = shown[-1]
    assert float(score) == pytest.approx(r.search_score, abs=5e-5)
    assert float(violation) == pytest.approx(r.search_violation, abs=5e-5) and int(edits) == len(r.edits)
    scores = [float(s) for s, _, _ in shown]
    assert all(b <= a for a, b in zip(scores, scores[1:]))  # the best so far never gets worse
    assert json.loads((tmp_path / "run/result.json").read_text())["search_score"] == r.search_score
