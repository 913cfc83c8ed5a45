"""Draw to Ten: a tiny card game, the worked example of the decision-point interface.

It exists so that the generic machinery (``search``, ``simkit tune``, the
skill ladder, the tests every engine passes) has a game whose best play is
known by hand. Rules (``rules.txt`` beside this file): twelve cards, two each of 1 to 6, are
shuffled face down. Before each draw the player decides: draw the top card
(adding it to the total) or stop. Stopping with a total of 8, 9 or 10 wins;
stopping below 8 or going above 10 loses. Best play, by hand: a total of 7
or less cannot win by stopping, so draw; 8 to 10 wins by stopping, so stop.
"""

from __future__ import annotations

from simkit.games.toy.rules_version import RULES_VERSION  # noqa: E402,F401  (its own module: kernels read it
# without importing the package, whose reports key no kernel)

from simkit.core.registry import Game, Mode  # noqa: E402


def _build(fields):
    from simkit.games.toy.simulation import build_draw

    return build_draw(fields)


def _engine(scenario=None):
    from simkit.games.toy.simulation import decision_game

    return decision_game(scenario)


def _params():
    from simkit.games.toy.engine import PARAMS

    return PARAMS


GAME = Game(
    name="toy",
    title="Draw to Ten (the worked example of the decision-point interface)",
    rules_file="simkit/games/toy/rules.txt",
    rules_version=RULES_VERSION,
    modes=[Mode("draw", "Draw to Ten", _build, default_scenario="toy/draw.toml", bench_games=100_000,
                engine=_engine, params=_params, features="simkit.games.toy.engine:FEATURES")],
    rule_options={
        "rules.win_low": "the least total that wins when you stop (8)",
        "rules.win_high": "the greatest total that wins; above it you lose at once (10)",
    },
    policies={
        "stop_at_8": "heuristic: draws while the total is below stop_at (8: the best play)",
        "timid": "heuristic: stops from 6 on",
        "random": "baseline: draws or stops at random",
        "search": "search over timid: 16 rollouts per action",
        "learned": "learned: a linear scorer over the draw's features, as simkit train writes it (README: Learned policies)",
    },
)
