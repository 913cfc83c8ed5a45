"""Valeria: Card Kingdoms (rules: the base game as issue 22 states it, and ../shared/rules/valeria-card-kingdoms-2e.txt):
the game for 2 to 5 players with the 2E Herald or the 1E consolation, and the exact Herald and Monster Event
activation odds on 2d6 (``simkit odds valeria``).

Modules: ``cards`` (the card data, its validation and the effect language), ``state`` (the engine's state
layout), one module per phase (``setup``, ``roll``: Roll and Harvest, ``actions``: Action and End Phases,
``end``: end of game and scoring), ``engine`` (the decision-point interface, heuristics, features),
``scenario`` and ``simulation`` (the runner); ``odds``, ``odds_cli``, ``roll_sim`` (the dice odds).
"""

from __future__ import annotations

from simkit.games.valeria.rules_version import RULES_VERSION  # noqa: E402,F401  (its own module: kernels read it
# without importing the package, whose reports key no kernel)

from simkit.core.registry import Game, LazyCommand, Mode  # noqa: E402

FEATURES = "simkit.games.valeria.engine:FEATURES"


def _build(fields):
    from simkit.games.valeria.scenario import read_valeria

    args = read_valeria(fields)  # every field checked before the kernels (numba) are imported
    from simkit.games.valeria.simulation import ValeriaSim

    return ValeriaSim(**args)


def _engine(scenario=None):
    from simkit.games.valeria.simulation import decision_game

    return decision_game(scenario)


def _params():
    from simkit.games.valeria.engine import PARAMS

    return PARAMS


def _odds_commands():
    return [LazyCommand("valeria", "simkit.games.valeria.odds_cli:valeria_cmd",
                        "Valeria: Card Kingdoms 2E: Citizen, Herald and Monster Event activation odds on 2d6.")]


def _bundled(out_dir, quick=False, jobs=None):
    from simkit.games.valeria.odds_cli import bundled_reports
    from simkit.games.valeria.report import bundled_report

    return [*bundled_reports(out_dir, quick=quick, jobs=jobs), *bundled_report(out_dir, quick=quick, jobs=jobs)]


def _roll_check():
    from simkit.games.valeria.odds import parse_citizens
    from simkit.games.valeria.roll_sim import ValeriaRollSim

    return ValeriaRollSim(parse_citizens("1,2,6"))


GAME = Game(
    name="valeria",
    title="Valeria: Card Kingdoms 2E (the game; Herald and Monster Event odds)",
    rules_file="valeria-card-kingdoms-2e.txt",
    rules_version=RULES_VERSION,
    modes=[Mode("kingdoms", "Valeria: Card Kingdoms, 2 to 5 players", _build, default_scenario="valeria/standard.toml",
                bench_games=2000, engine=_engine, params=_params, one_cell={"players": [4]},
                features=FEATURES)],
    policies={
        "economy": "heuristic: recruits for income over the game left, builds Domains, gains Gold",
        "hunter": "heuristic: slays Monsters first, gains Strength and Magic toward the next one",
        "random": "baseline: a legal action at random",
        "search": "search over economy: 8 rollouts per action (face-down Domains, other Dukes and face-down Monster "
                  "Events resampled)",
    },
    rule_options={
        "rules.herald": "'herald' (2E Herald Starter; default) or 'consolation' (1E: any 1 Resource when no Citizen "
                        "activates)",
        "rules.magic_gold": "'augment' (default, the public base rules: Magic tops up Gold to Recruit and Build, at "
                            "least 1 Gold paid) or 'never' (Gold alone pays, as issue 22 stated the rules)",
        "rules.five_player": "at 5 players: 'variant' (default, the published 5-player variant: Monster stacks with "
                             "the five_player cards, Citizen stacks of 6, Domain stacks of 4, a Resting Player who "
                             "does not harvest) or 'base' (the 2-4-player set-up)",
        "rules.doubles": "a Citizen matching both dice of a double activates 'twice' (default: each die activates) "
                         "or 'once'",
        "rules.monster_events": "true: the 2E Monster Event variant (1 Event per player shuffled on top of the "
                                "Exhausted stack); default false",
        "rules.preselect_event": "a Monster Event key (scenarios/valeria/cards.toml) preselected among those "
                                 "shuffled in (needs monster_events; default none)",
        "rules.if_able": "Monster Events, \"All [player]\" to return n: 'what_it_holds' (default: up to n) or "
                         "'in_full' (a player holding fewer than n returns none)",
        "rules.all_slain": "Monster Events, the end \"all Monsters are slain\": 'areas' (default: the Monster areas) "
                           "or 'and_events' (an Event face up must be slain too)",
        "rules.token_on": "Monster Events, a 'choice' or 'every' token: on 'any' Monster (default: the Event itself "
                          "included) or an 'other' one (not the Event carrying out the instruction)",
        "rules.turn_cap": "a game still running after this many rounds ends, scored, as capped (a simulator guard; "
                          "default 60)",
    },
    odds_commands=_odds_commands(),
    bundled_reports=_bundled,
    dice_checks={"valeria-roll": _roll_check},
)
