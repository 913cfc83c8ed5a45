"""Valhalla: the Solo Mode (rules: ../shared/rules/valhalla-solo.txt) with the monster's weapon dice, and the
multiplayer game with the Valkyries expansion (../shared/rules/valhalla-valkyries.txt and the base game's public
rules, ``multi``).

The bundled monster die and cards (``scenarios/valhalla/cards.toml``) are STAND-IN data.
"""

from __future__ import annotations

from simkit.games.valhalla.rules_version import RULES_VERSION  # noqa: E402,F401  (its own module: kernels read it
# without importing the package, whose reports key no kernel)
# (dice fitted jointly, named symbols before "any" ones; a won attack keeps the most Glory that fits)

from simkit.core.registry import Game, LazyCommand, Mode, literal_from_source  # noqa: E402


def _bundled(out_dir, quick=False, jobs=None):
    from simkit.games.valhalla.reports import bundled_reports
    from simkit.games.valhalla.multi.report import bundled_multi
    from simkit.games.valhalla.solo.report import bundled_solo

    return (bundled_reports(out_dir, quick=quick, jobs=jobs) + bundled_solo(out_dir, quick=quick, jobs=jobs)
            + bundled_multi(out_dir, quick=quick, jobs=jobs))


def _odds_commands():
    return [LazyCommand("valhalla-monster", "simkit.games.valhalla.odds_cli:monster_cmd",
                        "Valhalla Solo: exact P(the monster attacks on turn t) and the turns between attacks."),
            LazyCommand("valhalla-battle", "simkit.games.valhalla.battle_cli:battle_cmd",
                        "Valhalla Solo: one battle solved exactly, optimal play against the policies.")]


def _monster_dice_check():
    from simkit.games.valhalla import cards
    from simkit.games.valhalla.dice_checks import MonsterDiceSim
    from simkit.games.valhalla.odds_cli import mc_cells, select_cards

    die, monsters = cards.load_cards(cards.default_cards_path())
    return MonsterDiceSim(mc_cells(select_cards(monsters, None, "base", None), "base"), die, 20)


def _solo_report(run_dir, out_dir):
    from simkit.games.valhalla.solo.report import solo_report

    return solo_report(run_dir, out_dir)


def _policies():
    found = literal_from_source("simkit.games.valhalla.solo.policies", "POLICY_DESCRIPTIONS")
    multi = literal_from_source("simkit.games.valhalla.multi.policies", "POLICY_DESCRIPTIONS")
    return {**{f"solo: {k}": v for k, v in found.items()}, **{f"multi: {k}": v for k, v in multi.items()}}


def _solo_params():
    from simkit.games.valhalla.solo.policies import PARAMS

    return PARAMS


def _solo_engine(scenario=None):
    from simkit.games.valhalla.solo.simulation import decision_game

    return decision_game(scenario)


def _multi_report(run_dir, out_dir):
    from simkit.games.valhalla.multi.report import multi_report

    return multi_report(run_dir, out_dir)


def _multi_params():
    from simkit.games.valhalla.multi.policies import PARAMS

    return PARAMS


def _multi_engine(scenario=None):
    from simkit.games.valhalla.multi.simulation import decision_game

    return decision_game(scenario)


def _build_multi(fields):
    from simkit.games.valhalla.multi.scenario import read_multi

    args = read_multi(fields)  # every field checked before the kernels (numba) are imported
    from simkit.games.valhalla.multi.simulation import MultiSim

    return MultiSim(**args)


def _build_solo(fields):
    from simkit.games.valhalla.solo.scenario import read_solo

    args = read_solo(fields)  # every field checked before the kernels (numba) are imported
    from simkit.games.valhalla.solo.simulation import SoloSim

    return SoloSim(**args)


GAME = Game(
    name="valhalla",
    title="Valhalla (Solo Mode and multiplayer)",
    rules_file="valhalla-solo.txt",
    rules_version=RULES_VERSION,
    modes=[Mode("solo", "Valhalla Solo Mode (Levels I–III, +40 deck, Valkyries)", _build_solo,
                default_scenario="valhalla/solo.toml", report=_solo_report, bench_games=100,
                engine=_solo_engine, params=_solo_params,
                one_cell={"monsters": ["troll"], "variants": ["base"], "levels": [1], "jarls": ["sigurd"]},
                features="simkit.games.valhalla.solo.features:FEATURES"),
           Mode("multi", "Valhalla multiplayer, 2–6 players (base deck or Valkyries)", _build_multi,
                default_scenario="valhalla/multi.toml", report=_multi_report, bench_games=2000, engine=_multi_engine,
                params=_multi_params, one_cell={"players": [4], "variants": ["valkyries"]},
                # issue 23's speed bar: 4-player games with the Valkyries deck, every seat one heuristic
                bench_cells={f"4 players, {h}": {"players": [4], "variants": ["valkyries"], "play": [h]}
                             for h in ("builder", "raider")},
                features="simkit.games.valhalla.multi.features:FEATURES",
                rules_file="valhalla-valkyries.txt")],
    policies=_policies,
    odds_commands=_odds_commands(),
    bundled_reports=_bundled,
    dice_checks={"monster-dice": _monster_dice_check},
    rule_options={
        "wild_matches_monster (odds valhalla-monster)": "the wild (⊗) face of a monster die covers any one "
                                "uncovered weapon on the monster card (default false: it never covers one; "
                                "--wild-matches)",
        "rules.wild_warriors (solo)": "the ⊗ face activates any Warrior except Ice Giants (default true; false: "
                                      "it activates nothing)",
        "rules.wild_monster (solo)": "the ⊗ face covers a weapon on the monster card, as wild_matches_monster "
                                     "(default false)",
        "rules.monster_powers (solo)": "monsters' special powers apply (default true; false: the first-game "
                                       "variant)",
        "rules.path_to_valhalla (solo)": "Path to Valhalla in solo: 'unplayable' (default) or 'own'",
        "rules.turn_cap (solo)": "a game still running after this many turns ends as 'cap' (default 400)",
        "rules.wild_warriors (multi)": "the ⊗ face activates any Warrior except Ice Giants (default true)",
        "rules.ties (multi)": "a tied battle goes to the 'attacker' (default, as the solo rules) or the 'defender'",
        "rules.boar (multi)": "the Boar Clan's +3: 'opponent' (default: a Warrior of its colour in the opposing "
                              "Warband) or 'never'",
        "rules.start_discard (multi)": "cards discarded at set-up to create the discard pile (default 40; or a "
                                       "table by table size, { 5 = 20, 6 = 10 }; at most what leaves the set-up "
                                       "and one round their cards)",
        "rules.game_end (multi)": "the deck ran out: the game ends at the end of that 'turn' (default) or 'round'",
        "rules.shield_glory (multi)": "2 Glory a shield: those 'taken' from others (default) or every shield "
                                      "'held' at the end",
        "rules.attack_empty (multi)": "a player whose Warband is empty may be attacked: 'allowed' (default) or "
                                      "'forbidden'",
        "rules.turn_cap (multi)": "a game still running after this many turns ends as 'cap' (default 400)",
        "rules.plus80 (multi)": "the +80 help card with the Dwarves of Svartalfheim: 20 more cards discarded at "
                                "set-up and part A's draw takes 3 and keeps 1 (default false; Valkyries only; "
                                "the stand-in deck has no Dwarves cards)",
    },
)
