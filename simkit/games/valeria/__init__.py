"""Valeria: Card Kingdoms 2E additions (rules: ../shared/rules/valeria-card-kingdoms-2e.txt):
Herald starter card and Monster Event activation odds on 2d6."""

from __future__ import annotations

RULES_VERSION = "vck2e-additions-1"

from simkit.core.registry import Game, LazyCommand  # noqa: E402


def _odds_commands():
    return [LazyCommand("valeria", "simkit.games.valeria.odds_cli:valeria_cmd",
                        "Valeria: Card Kingdoms 2E: Citizen, Herald and Monster Event activation odds on 2d6.")]


def _bundled(out_dir, quick=False, jobs=None):
    from simkit.games.valeria.odds_cli import bundled_reports

    return bundled_reports(out_dir, quick=quick, jobs=jobs)


def _roll_check():
    from simkit.games.valeria.odds import parse_citizens
    from simkit.games.valeria.roll_sim import ValeriaRollSim

    return ValeriaRollSim(parse_citizens("1,2,6"))


GAME = Game(
    name="valeria",
    title="Valeria: Card Kingdoms 2E (Herald, Monster Events)",
    rules_file="valeria-card-kingdoms-2e.txt",
    rules_version=RULES_VERSION,
    modes=[],
    odds_commands=_odds_commands(),
    bundled_reports=_bundled,
    dice_checks={"valeria-roll": _roll_check},
)
