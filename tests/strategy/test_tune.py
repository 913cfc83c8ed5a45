"""`simkit tune` on Draw to Ten, whose best parameter is known by hand: draw while the total is below 8 wins
most (any stop_at in (7, 8] plays that way; exact win rates in simkit.games.toy.engine)."""

from __future__ import annotations

from click.testing import CliRunner

from simkit.cli import cli
from simkit.core.tune import tune
from simkit.games.toy import engine as E

SCENARIO = "scenarios/toy/draw.toml"


def test_tune_finds_the_known_optimum_and_reports_it_on_fresh_seeds(tmp_path):
    for seed in (1, 2):
        r = tune(SCENARIO, "timid", 30_000, seed=seed)
        assert 7.0 < r.best["stop_at"] <= 8.0, r.best
        exact_best = float(E.exact_win_probability(8))
        exact_default = float(E.exact_win_probability(6))
        # the fresh-seed comparison: interval around the exact improvement, and the exact rates themselves
        assert r.low <= exact_best - exact_default <= r.high
        assert abs(r.best_value - exact_best) < 0.04 and abs(r.default_value - exact_default) < 0.04
        assert r.low > 0


def test_tune_cli_writes_a_reusable_policy_table(tmp_path):
    out = tmp_path / "tuned.toml"
    res = CliRunner().invoke(cli, ["tune", SCENARIO, "--policy", "timid", "--budget", "20000", "--seed", "3",
                                   "--out", str(out), "-q", "-j", "1"])
    assert res.exit_code == 0, res.output
    text = out.read_text()
    assert "[policies.timid_tuned]" in text
    value = float(text.split("stop_at = ")[1].split()[0])
    assert 7.0 < value <= 8.0
    # the table plugs back into the scenario
    scen = tmp_path / "s.toml"
    src = open(SCENARIO).read().replace('play = ["stop_at_8", "timid", "random", "search"]',
                                        'play = ["timid", "timid_tuned"]')
    scen.write_text(src.replace("cards = [", 'cards = [', 1) + "\n" + text)
    res = CliRunner().invoke(cli, ["run", str(scen), "--games", "2000", "--seed", "1", "--out", str(tmp_path / "r"),
                                   "-q", "-j", "1"])
    assert res.exit_code == 0, res.output


def test_tune_bad_input_is_one_clean_line():
    cases = [
        (["--policy", "nope"], "--policy"),
        (["--policy", "random"], "--policy"),
        (["--policy", "timid", "--param", "nope"], "--param"),
        (["--policy", "timid", "--metric", "nope"], "--metric"),
    ]
    for extra, needle in cases:
        res = CliRunner().invoke(cli, ["tune", SCENARIO, "--budget", "200", "-q", "-j", "1", *extra])
        assert res.exit_code == 2, (extra, res.output)
        lines = res.stderr.strip().splitlines()
        assert len(lines) == 1 and needle in lines[0], (extra, res.stderr)


def test_a_poor_final_mean_loses_the_selection_round_to_the_searchs_best_candidate(monkeypatch):
    """The answer is the best of the finalists (CMA-ES's final mean and the search's best candidates) replayed on
    selection seeds, not the final mean on its word: with the mean forced to ``stop_at`` = 0 (stop at once: the
    exact win rate of Draw to Ten's worst play), a candidate of the search in (7, 8] (the exact optimum's play)
    wins the round, and the fresh check reports it."""
    from types import SimpleNamespace

    import cma

    real = cma.CMAEvolutionStrategy

    class PoorMean(real):
        @property
        def result(self):  # tune reads only the final mean of the result
            return SimpleNamespace(xfavorite=[0.0])

    monkeypatch.setattr(cma, "CMAEvolutionStrategy", PoorMean)
    r = tune(SCENARIO, "timid", 20_000, seed=2, eval_games=2000)
    assert r.finalists[0]["finalist"] == "the search's final mean"
    assert r.finalists[0]["won"] == min(f["won"] for f in r.finalists)
    assert r.chosen != "the search's final mean" and 7.0 < r.best["stop_at"] <= 8.0, (r.chosen, r.best)
    assert r.chosen == max(r.finalists, key=lambda f: f["won"])["finalist"]
    assert abs(r.best_value - float(E.exact_win_probability(8))) < 0.04
