"""Progress: `ladder` shows a bar of the games it plays; `tune` a running best and an ETA over the whole run
(search and final check), and no bar at all when its output is not a terminal."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from simkit.cli import cli
from simkit.core.ladder import ladder
from simkit.core.tune import tune

TOY = Path(__file__).resolve().parents[2] / "scenarios" / "toy" / "draw.toml"


def test_ladder_shows_progress(capsys):
    rungs = ladder(TOY, ["stop_at_8", "timid"], games=300, seed=1, progress=True)
    err = capsys.readouterr().err
    assert len(rungs) == 2
    assert "ladder: 2 policies" in err and "300/300" in err, err


def test_tune_shows_a_running_best_and_counts_the_final_check(capsys):
    tune(TOY, "timid", 1200, seed=2, games_per_candidate=100, eval_games=200, progress=True, popsize=4)
    err = capsys.readouterr().err
    assert "best so far" in err and "checking the winner on 200 fresh games" in err, err
    assert "playing 8 finalists on 500 selection games" in err, err
    # the bar's total is the search's games (3 generations × 4 candidates × 100), the selection round's (the final
    # mean and the 7 best candidates × 500) and the check's (2 × 200)
    assert "/5.60k" in err, err


def test_tune_draws_no_bar_into_a_pipe():
    res = CliRunner().invoke(cli, ["tune", str(TOY), "--policy", "timid", "--budget", "1200", "--seed", "2",
                                   "--games-per-candidate", "100", "--eval-games", "200", "--jobs", "1"])
    assert res.exit_code == 0, res.output
    assert "tune timid" not in res.stderr and "it/s" not in res.stderr and "game/s" not in res.stderr, res.stderr
    assert "stop_at" in res.stdout
