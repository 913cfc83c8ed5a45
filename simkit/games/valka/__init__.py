"""VÁLKA (rules: ../shared/rules/valka.txt): Chance Strike and Test Fate dice
mechanics, the Lonequest (solo) and the multiplayer core rules (Bounty Hunter,
Annihilation, Duel: ``simkit.games.valka.multiplayer``) as modes."""

from __future__ import annotations

from simkit.games.valka.rules_version import RULES_VERSION  # noqa: E402,F401  (its own module: kernels read it
# without importing the package, whose reports key no kernel)

from simkit.core.registry import Game, LazyCommand, Mode, literal_from_source  # noqa: E402


def _build_chance_strike(fields):
    from simkit.games.valka.dice_checks import build_chance_strike

    return build_chance_strike(fields)


def _build_lonequest(fields):
    from simkit.games.valka.lonequest.scenario import read_lonequest

    args = read_lonequest(fields)  # every field checked before the kernels (numba) are imported
    from simkit.games.valka.lonequest.simulation import LonequestSim

    return LonequestSim(**args)


def _lonequest_report(run_dir, out_dir):
    from simkit.games.valka.lonequest.report import lonequest_report

    return lonequest_report(run_dir, out_dir)


def _lonequest_engine(scenario=None):
    from simkit.games.valka.lonequest.simulation import decision_game

    return decision_game(scenario)


def _build_multiplayer(variant):
    def build(fields):
        from simkit.games.valka.multiplayer.scenario import read_multiplayer

        args = read_multiplayer(fields, variant)  # every field checked before the kernels (numba) are imported
        from simkit.games.valka.multiplayer.simulation import MultiplayerSim

        return MultiplayerSim(**args)

    return build


def _multiplayer_engine(variant, players):
    def engine(scenario=None):
        from simkit.games.valka.multiplayer.simulation import decision_game

        return decision_game(variant, players, scenario)

    return engine


# the multiplayer modes' `learned` policies' feature names (one engine and one feature function for all three)
MULTIPLAYER_FEATURES = "simkit.games.valka.multiplayer.features:FEATURES"


def _multiplayer_params():
    from simkit.games.valka.multiplayer.policies import PARAMS

    return PARAMS


def _multiplayer_report(run_dir, out_dir):
    from simkit.games.valka.multiplayer.report import multiplayer_report

    return multiplayer_report(run_dir, out_dir)


def _report(run_dir, out_dir):
    from simkit.games.valka.reports import chance_strike_run_report

    return chance_strike_run_report(run_dir, out_dir)


def _bundled(out_dir, quick=False, jobs=None):
    from simkit.games.valka.lonequest.report import bundled_lonequest
    from simkit.games.valka.multiplayer.report import bundled_multiplayer
    from simkit.games.valka.reports import bundled_reports

    return (bundled_reports(out_dir, quick=quick, jobs=jobs) + bundled_lonequest(out_dir, quick=quick, jobs=jobs)
            + bundled_multiplayer(out_dir, quick=quick, jobs=jobs))


def _odds_commands():
    return [LazyCommand("chance-strike", "simkit.games.valka.odds_cli:chance_strike_cmd",
                        "VÁLKA Chance Strike: exact odds for every Strike × Shield pair."),
            LazyCommand("test-fate", "simkit.games.valka.odds_cli:test_fate_cmd",
                        "VÁLKA Test Fate: exact odds of even rolls on a d10, with and without the offering."),
            LazyCommand("lonequest-battle", "simkit.games.valka.battle_cli:lonequest_battle_cmd",
                        "VÁLKA Lonequest: one battle solved exactly, optimal play against the policies.")]


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
    mp = literal_from_source("simkit.games.valka.multiplayer.policies", "POLICY_DESCRIPTIONS")
    out = {f"lonequest: {k}": v for k, v in found.items()}
    out.update({f"multiplayer: {k}": v for k, v in mp.items()})
    out.setdefault("multiplayer: search", "search over balanced: 8 rollouts per action (hands and deck order "
                   "resampled)")
    return out


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
             engine=_lonequest_engine, params=_lonequest_params, one_cell={"warbands": ["knights"]},
             features="simkit.games.valka.lonequest.features:FEATURES"),
        Mode("bounty-hunter", "VÁLKA Bounty Hunter (3-5 players)", _build_multiplayer("bounty-hunter"),
             default_scenario="valka/bounty_hunter.toml", report=_multiplayer_report, bench_games=8_000,
             engine=_multiplayer_engine("bounty-hunter", 4), params=_multiplayer_params,
             features=MULTIPLAYER_FEATURES,
             # the speed bar of a learned policy (issue 18): `make train`'s Bounty Hunter weights as the hero,
             # beside its base heuristic, against the scenario's opponents
             bench_cells={h: {"play": [h], **({"policies": {"learned": {
                 "kind": "learned", "weights": "bounty_hunter.learned.npz"}}} if h == "learned" else {})}
                 for h in ("balanced_tuned", "learned")}),
        Mode("annihilation", "VÁLKA Annihilation (3-5 players)", _build_multiplayer("annihilation"),
             default_scenario="valka/annihilation.toml", report=_multiplayer_report, bench_games=4_000,
             engine=_multiplayer_engine("annihilation", 3), params=_multiplayer_params, one_cell={"players": [4]},
             features=MULTIPLAYER_FEATURES),
        Mode("duel", "VÁLKA Duel (2 players, drafted decks)", _build_multiplayer("duel"),
             default_scenario="valka/duel.toml", report=_multiplayer_report, bench_games=8_000,
             engine=_multiplayer_engine("duel", 2), params=_multiplayer_params,
             features=MULTIPLAYER_FEATURES),
    ],
    odds_commands=_odds_commands(),
    bundled_reports=_bundled,
    dice_checks={"chance-strike": _chance_strike_check, "test-fate": _test_fate_check},
    policies=_policies,
    rule_options={
        "rules.lone_one": "a lone natural 1 in a Chance Strike: 'loses' (default) or 'fails'",
        "rules.defender_deals_damage": "a defender who wins a Chance Strike deals 1 damage (default true)",
        "rules.strong_enuf (lonequest)": "several Marauders' Strikes against your Shields: 'sum' (default), 'each', 'strongest'",
        "rules.warband_boons (lonequest)": "the eight Warband Boons with their Lonequest meanings (default true)",
        "rules.played_faced_scope (lonequest)": "Quests' played/faced Warbands: 'location' (default) or 'lonequest'",
        "rules.grave_robber (lonequest)": "Grave Robber recovers 'own' Fighters (default) or 'any'",
        "rules.fireblast (lonequest)": "Fireblast strikes with 'plus_3' (default, as multiplayer) or 'fighter_plus_3'",
        "rules.market_trade (lonequest)": "Market trades: 'same_cost' swaps across types and trade-ups (default) or "
                                          "trade-ups only 'up'",
        "rules.potion (lonequest)": "Healing Potion heals to 'full' Health (default) or the printed Health 'base'",
        "rules.escape (lonequest)": "Bribe/Retreat go where marching can 'reachable' (default) or along an 'arrow'",
        "rules.spent_events (lonequest)": "spent Events go to the 'graveyard' (default) or back to the 'loot' deck",
        "rules.retreat_equipment (lonequest)": "Retreat loses 'all' your Buffs (default) or the 'equipped' ones",
        "rules.escape_reward (lonequest)": "a Location emptied by an escape pays its reward (default true)",
        "rules.step_cap (lonequest)": "a game still running after this many steps ends as 'cap' (default 5000)",
        "rules.chance_strike (multiplayer)": "Chance Strike only where no True Strike lands 'fallback' (default) or 'any'",
        "rules.thief (multiplayer)": "Thief takes a Backline Buff 'backline_buff' (default) or 2 random cards 'hand'",
        "rules.lightning (multiplayer)": "Lightning Bolt spill-over goes 'around' the table (default) or 'one_lap'",
        "rules.divine_aid (multiplayer)": "Divine Aid windows out of turn (default true)",
        "rules.lightning_aid (multiplayer)": "Divine Aid against a Lightning Bolt at your Frontline: its damage "
                                             "'absorbs' there (default) or 'passes' on to the next Frontline",
        "rules.warband_boons (multiplayer)": "Warband Boons (default true)",
        "rules.boon_entry (multiplayer)": "a Boon activates on a 'newcomer' (default) or needs 2 entering 'together'",
        "rules.bounty_score (bounty-hunter)": "'infamy' (default, trigger 10) or 'captures' (trigger 6)",
        "rules.trigger (bounty-hunter)": "the endgame trigger value",
        "rules.turn_cap (multiplayer)": "a game still running after this many turns is recorded as stalled (400)",
        "rules.play_cap (multiplayer)": "plays (not attacks) per turn, a guard against endless rearranging (12)",
        "rules.reshuffle_graveyard (multiplayer)": "an empty draw pile is refilled from the Graveyard (default false)",
        "rules.fireblast_power (multiplayer)": "the Strike Fireblast strikes with (default 3: 'with +3')",
    },
)
