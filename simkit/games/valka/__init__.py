"""VÁLKA (rules: ../shared/rules/valka.txt): Chance Strike and Test Fate dice
mechanics; the Lonequest simulator plugs in here as further modes."""

from __future__ import annotations

RULES_VERSION = "valka-rulebook-1"

from simkit.core.registry import Game, LazyCommand, Mode, literal_from_source  # noqa: E402


def _build_chance_strike(fields):
    from simkit.games.valka.dice_checks import build_chance_strike

    return build_chance_strike(fields)


def _build_lonequest(fields):
    from simkit.games.valka.lonequest.simulation import build_lonequest

    return build_lonequest(fields)


def _lonequest_report(run_dir, out_dir):
    from simkit.games.valka.lonequest.report import lonequest_report

    return lonequest_report(run_dir, out_dir)


def _lonequest_engine():
    from simkit.games.valka.lonequest.simulation import decision_game

    return decision_game()


def _report(run_dir, out_dir):
    from simkit.games.valka.reports import chance_strike_run_report

    return chance_strike_run_report(run_dir, out_dir)


def _bundled(out_dir, quick=False, jobs=None):
    from simkit.games.valka.lonequest.report import bundled_lonequest
    from simkit.games.valka.reports import bundled_reports

    return bundled_reports(out_dir, quick=quick, jobs=jobs) + bundled_lonequest(out_dir, quick=quick, jobs=jobs)


def _odds_commands():
    return [LazyCommand("chance-strike", "simkit.games.valka.odds_cli:chance_strike_cmd",
                        "VÁLKA Chance Strike: exact odds for every Strike × Shield pair."),
            LazyCommand("test-fate", "simkit.games.valka.odds_cli:test_fate_cmd",
                        "VÁLKA Test Fate: exact odds of even rolls on a d10, with and without the offering.")]


def _chance_strike_check():
    from simkit.games.valka.dice_checks import ChanceStrikeSim

    return ChanceStrikeSim(range(13), range(13), aggregate=True)


def _test_fate_check():
    from simkit.games.valka.dice_checks import TestFateSim

    return TestFateSim(6, offering=True)


def _lonequest_params():
    from simkit.games.valka.lonequest.policies import PARAMS

    return PARAMS


def _policies():
    found = literal_from_source("simkit.games.valka.lonequest.policies", "POLICY_DESCRIPTIONS")
    return {f"lonequest: {k}": v for k, v in found.items()}


GAME = Game(
    name="valka",
    title="VÁLKA",
    rules_file="valka.txt",
    rules_version=RULES_VERSION,
    modes=[
        Mode("chance-strike", "VÁLKA Chance Strike (dice check)", _build_chance_strike,
             default_scenario="valka/chance_strike.toml", report=_report, bench_games=200_000),
        Mode("lonequest", "VÁLKA Lonequest (solo)", _build_lonequest,
             default_scenario="valka/lonequest.toml", report=_lonequest_report, bench_games=20_000,
             engine=_lonequest_engine, params=_lonequest_params),
    ],
    odds_commands=_odds_commands(),
    bundled_reports=_bundled,
    dice_checks={"chance-strike": _chance_strike_check, "test-fate": _test_fate_check},
    policies=_policies,
    rule_options={
        "rules.lone_one": "a lone natural 1 in a Chance Strike: 'loses' (default) or 'fails'",
        "rules.defender_deals_damage": "a defender who wins a Chance Strike deals 1 damage (default true)",
        "rules.strong_enuf (lonequest)": "several Marauders' Strikes against your Shields: 'sum' (default), 'each', 'strongest'",
        "rules.warband_boons (lonequest)": "core-rules Warband Boons (Goblins, Knights, Barbarians) apply (default false)",
        "rules.played_faced_scope (lonequest)": "Quests' played/faced Warbands: 'location' (default) or 'lonequest'",
        "rules.grave_robber (lonequest)": "Grave Robber recovers 'own' Fighters (default) or 'any'",
        "rules.fireblast (lonequest)": "Fireblast strikes with 'fighter_plus_3' (default) or 'plus_3'",
        "rules.step_cap (lonequest)": "a game still running after this many steps ends as 'cap' (default 5000)",
    },
)
