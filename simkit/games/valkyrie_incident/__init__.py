"""The Valkyrie Incident (rules: ../shared/rules/valkyrie-incident.txt, ver 1.3): a two-player deck-building and
area-control card game, simulated in full under the standard rules and the Blitz rules.

Modules: ``cards`` (the card data, its validation and the effect language), ``engine`` (the rules as numba
functions on the decision-point interface), ``simulation`` (the runner: scenario, cells, rows), ``report`` (the
Emblem match-up report).
"""

from __future__ import annotations

from simkit.games.valkyrie_incident.rules_version import RULES_VERSION  # noqa: E402,F401  (its own module: kernels read it
# without importing the package, whose reports key no kernel)

from simkit.core.registry import Game, Mode  # noqa: E402

# the `learned` policies' feature names (standard and Blitz share one engine and one feature function)
FEATURES = "simkit.games.valkyrie_incident.features:FEATURES"


def _build_standard(fields):
    from simkit.games.valkyrie_incident.scenario import read_incident

    args = read_incident(fields, "standard")  # every field checked before the kernels (numba) are imported
    from simkit.games.valkyrie_incident.simulation import IncidentSim

    return IncidentSim(**args)


def _build_blitz(fields):
    from simkit.games.valkyrie_incident.scenario import read_incident

    args = read_incident(fields, "blitz")  # every field checked before the kernels (numba) are imported
    from simkit.games.valkyrie_incident.simulation import IncidentSim

    return IncidentSim(**args)


def _engine_standard(scenario=None):
    from simkit.games.valkyrie_incident.simulation import decision_game

    return decision_game("standard", scenario)


def _engine_blitz(scenario=None):
    from simkit.games.valkyrie_incident.simulation import decision_game

    return decision_game("blitz", scenario)


def _params():
    from simkit.games.valkyrie_incident.engine import PARAMS

    return PARAMS


def _report(run_dir, out_dir):
    from simkit.games.valkyrie_incident.report import run_report

    return run_report(run_dir, out_dir)


def _bundled(out_dir, quick=False, jobs=None):
    from simkit.games.valkyrie_incident.report import bundled_report

    return bundled_report(out_dir, quick=quick, jobs=jobs)


GAME = Game(
    name="valkyrie-incident",
    title="The Valkyrie Incident",
    rules_file="valkyrie-incident.txt",
    rules_version=RULES_VERSION,
    modes=[
        Mode("standard", "The Valkyrie Incident, standard rules", _build_standard,
             default_scenario="valkyrie_incident/standard.toml", report=_report, bench_games=500,
             engine=_engine_standard, params=_params, one_cell={"emblems": [["raven", "iron"]]},
             features=FEATURES),
        Mode("blitz", "The Valkyrie Incident, Blitz rules", _build_blitz,
             default_scenario="valkyrie_incident/blitz.toml", report=_report, bench_games=500,
             engine=_engine_blitz, params=_params, one_cell={"emblems": [["raven", "iron"]]},
             features=FEATURES),
    ],
    bundled_reports=_bundled,
    policies={
        "balanced": "heuristic: drafts by Strength and Clan, fights for the Conflicts it can swing, keeps a margin",
        "focused": "heuristic: drafts more, smaller margins, piles onto contested Conflicts, discards to dig",
        "concentrated": "heuristic: fights for the cheapest majority of Conflicts and neglects the rest",
        "random": "baseline: a legal action at random",
        "search": "search over focused: 8 rollouts per action (opponent's hand and Conflict cards resampled)",
        "learned": "learned: a linear scorer over the Valkyrie Incident features (features.py), trained from "
                   "`focused_tuned` on game outcomes (make train); heuristic speed",
    },
    rule_options={
        "rules.deck_scoring": "which cards score 2/1: 'owned' (Deck, Pile and hand; default) or 'draw_pile'",
        "rules.emblem_bonus": "an Emblem's Strength bonus for its owner's cards 'own' (default) or 'both' players'",
        "rules.war_end": "a player unable to take 2 different actions: 'at_once' (default) or 'act_then_end'",
        "rules.wreckage_conflicts": "Conflict cards from the Wreckage when the Incident Deck is empty: 'random' "
                                    "(default) or 'none'",
        "rules.victory_bonus_tie": "the +4 for most Victory Cards on a tie: 'none' (default) or 'both'",
        "rules.blitz_discard": "Blitz discard-to-draw takes 'action' cards (as printed; default) or "
                               "'action_valkyrie'",
        "rules.tie_tokens": "ability Strength on a tied Conflict when Assault/Action cards leave: 'keep' (default) "
                            "or 'drop'",
        "rules.blitz_initial_hand": "Blitz: the hand left after the Initial Draft is 'keep' (default) or goes to "
                                    "the 'pile'",
        "rules.turn_cap": "a War still running after this many turns ends as stalled (a simulator guard; default 400)",
    },
)
