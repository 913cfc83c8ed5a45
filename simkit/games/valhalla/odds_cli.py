"""``simkit odds valhalla-monster``: when does the Valhalla Solo monster attack?"""

from __future__ import annotations

import json
from pathlib import Path

import click
import numpy as np

from simkit.core.oddscli import MAX_FRACTION_CHARS, emit, monte_carlo, odds_options
from simkit.core.tables import render, fraction_str
from simkit.errors import InputError
from simkit.games.valhalla import cards as cards_mod

SIDES = ("base", "plus40")
SUMMARY_TURNS = 5  # P(attack on turn t) columns in the compact summary

RULE_CITATION = (
    "\"The player rolls the monster dice … If all of the weapons on the card are filled, the monster attacks\" "
    "(valhalla-solo.txt, Gameplay → monster phase): every monster phase rolls the dice not already on the card, "
    "matching weapons stay on the card, and when the card is full the monster attacks and all dice come off."
)


def side_cards(monster, side: str):
    return monster.cards_base if side == "base" else monster.cards_plus40


def select_cards(monsters: dict, monster: str | None, side: str, card: int | None):
    """The selected ``(monster key, monster, 1-based card index, MonsterCard)``; bad choices are InputErrors."""
    if monster is not None and monster not in monsters:
        raise InputError(f"--monster: unknown monster {monster!r}; allowed values: {', '.join(monsters)}")
    chosen = [monster] if monster is not None else list(monsters)
    if card is not None:
        counts = {k: len(side_cards(monsters[k], side)) for k in chosen}
        fewest = min(counts.values())
        if not 1 <= card <= fewest:
            if len(chosen) == 1:
                allowed = f"1..{fewest} ({chosen[0]!r} has {fewest} cards)"
            else:
                allowed = (f"1..{fewest} (the card must exist for every selected monster: "
                           + ", ".join(f"{k} 1..{n}" for k, n in counts.items()) + "; pick one with --monster)")
            raise InputError(f"--card: no card {card}; allowed values: {allowed}")
    out = []
    for k in chosen:
        for i, c in enumerate(side_cards(monsters[k], side), start=1):
            if card is None or i == card:
                out.append((k, monsters[k], i, c))
    return out


def monster_rows(selection, die, side: str, turns: int, wild_matches: bool = False, mc: dict | None = None):
    """One row per selected card: exact expected turns and P(attack on turn t), with the MC estimate."""
    from simkit.games.valhalla.monster_dice import attack_by_turn, expected_turns_between_attacks

    rows = []
    for key, mon, idx, c in selection:
        try:
            e = expected_turns_between_attacks(c.weapons, die, wild_matches)
        except ValueError:  # a weapon missing from the die: the monster never attacks
            e = None
        probs = attack_by_turn(c.weapons, die, turns, wild_matches)
        row = {
            "monster": key, "side": side, "card": idx, "name": c.name, "strength": c.strength,
            "weapons": list(c.weapons),
            "expected_turns": None if e is None else fraction_str(e),
            "expected_turns_p": None if e is None else float(e),
            "attack_by_turn": [fraction_str(p) for p in probs],
            "attack_by_turn_p": [float(p) for p in probs],
        }
        if mc is not None:
            ests = [mc.get((f"attack_t{t}", (key, side, idx))) for t in range(1, turns + 1)]
            row["attack_by_turn_mc"] = [r["estimate"] for r in ests]
            row["attack_by_turn_low"] = [r["low"] for r in ests]
            row["attack_by_turn_high"] = [r["high"] for r in ests]
            row["mc_n"] = ests[0]["n"]
        rows.append(row)
    return rows


JSON_KEYS = ("monster", "side", "card", "strength", "weapons", "expected_turns", "expected_turns_p",
             "attack_by_turn", "attack_by_turn_p", "attack_by_turn_mc", "attack_by_turn_low",
             "attack_by_turn_high", "mc_n")


def json_rows(rows):
    return [{k: r[k] for k in JSON_KEYS if k in r} for r in rows]


def csv_rows(rows):
    """Long form for CSV: one line per card per turn."""
    out = []
    for r in rows:
        for t, (f, p) in enumerate(zip(r["attack_by_turn"], r["attack_by_turn_p"]), start=1):
            d = {"monster": r["monster"], "side": r["side"], "card": r["card"], "strength": r["strength"],
                 "weapons": " ".join(r["weapons"]), "expected_turns": r["expected_turns"],
                 "expected_turns_p": r["expected_turns_p"], "turn": t, "attack": f, "attack_p": p}
            if "attack_by_turn_mc" in r:
                d.update(attack_mc=r["attack_by_turn_mc"][t - 1], attack_low=r["attack_by_turn_low"][t - 1],
                         attack_high=r["attack_by_turn_high"][t - 1], mc_n=r["mc_n"])
            out.append(d)
    return out


def _weapons_text(weapons) -> str:
    counts = dict.fromkeys(weapons, 0)
    for w in weapons:
        counts[w] += 1
    return ", ".join(w if n == 1 else f"{w}×{n}" for w, n in counts.items())


def _e_text(r) -> str:
    return "∞ (never)" if r["expected_turns"] is None else f"{r['expected_turns_p']:.3f} (exactly {r['expected_turns']})"


def summary_display(rows):
    """The compact summary: one line per card, P(attack on turn t) for the first few turns."""
    out = []
    for r in rows:
        d = {"Monster": r["monster"], "Side": r["side"], "Card": r["card"], "Strength": r["strength"],
             "Weapons": _weapons_text(r["weapons"]), "E[turns]": _e_text(r)}
        for t, p in enumerate(r["attack_by_turn_p"][:SUMMARY_TURNS], start=1):
            d[f"P(t={t})"] = f"{p:.4f}"
        out.append(d)
    return out


def exact_text(frac: str, p: float) -> str:
    if len(frac) <= MAX_FRACTION_CHARS:
        return f"{frac} ≈ {p:.6f}"
    return f"≈ {p:.10f}"


def turn_display(row):
    """Per-turn table for one card: exact P(attack on turn t), and the simulated value with its interval."""
    out = []
    mc = "attack_by_turn_mc" in row
    for t in range(len(row["attack_by_turn"])):
        p = row["attack_by_turn_p"][t]
        d = {"Turn": t + 1, "P(attack) exact": exact_text(row["attack_by_turn"][t], p)}
        if mc:
            lo, hi = row["attack_by_turn_low"][t], row["attack_by_turn_high"][t]
            d["MC [95%]"] = f"{row['attack_by_turn_mc'][t]:.4f} [{lo:.4f}, {hi:.4f}]"
            d["inside"] = "yes" if lo <= p <= hi else "NO"
            d["MC n"] = row.get("mc_n", "")
        out.append(d)
    return out


def card_heading(r) -> str:
    side = " (+40 side)" if r["side"] == "plus40" and "+40" not in r["name"] else ""
    return (f"{r['name']}{side}: card {r['card']} of monster '{r['monster']}', strength {r['strength']}, "
            f"weapons {_weapons_text(r['weapons'])}; E[turns between attacks] = {_e_text(r)}")


def fraction_note(rows) -> str:
    long = any(len(f) > MAX_FRACTION_CHARS for r in rows for f in r["attack_by_turn"])
    return (f"Exact fractions longer than {MAX_FRACTION_CHARS} characters are shown as decimals here; "
            "--format json or csv gives every exact fraction.\n") if long else ""


def text_output(rows, fmt: str, with_detail: bool) -> str:
    md = fmt == "md"
    parts = [("## " if md else "") + "Monster attacks: expected turns between attacks and P(attack on turn t)\n\n"
             + render(summary_display(rows), fmt)]
    if with_detail:
        for r in rows:
            parts.append(("### " if md else "") + card_heading(r) + "\n\n" + render(turn_display(r), fmt)
                         + (f"\n{note}" if (note := fraction_note([r])) else ""))
    return "\n".join(parts)


def mc_cells(selection, side: str):
    from simkit.games.valhalla.dice_checks import MonsterCell

    return [MonsterCell(key, side, idx, tuple(c.weapons)) for key, _, idx, c in selection]


def run_mc(cells, die, turns, wild_matches, trials, seed, jobs):
    from simkit.games.valhalla.dice_checks import MonsterDiceSim

    return monte_carlo(MonsterDiceSim(cells, die, turns, wild_matches), trials, seed, jobs)


@click.command("valhalla-monster")
@click.option("--cards", "cards_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Monster cards file (default: the bundled stand-in scenarios/valhalla/cards.toml).")
@click.option("--monster", default=None, help="Monster key from the cards file (default: every monster).")
@click.option("--side", type=click.Choice(SIDES), default="base", show_default=True,
              help="Card side: base, or plus40 (the stronger reverse side for the +40-card deck).")
@click.option("--card", type=int, default=None,
              help="1-based index of the monster card in the pile (1 = the top, active card; default: every card).")
@click.option("--turns", type=click.IntRange(1, 100), default=20, show_default=True,
              help="Monster phases to follow from an empty card.")
@click.option("--wild-matches/--no-wild-matches", default=False, show_default=True,
              help="Whether a wild (⊗) face covers any one uncovered weapon (rule option wild_matches_monster).")
@odds_options
def monster_cmd(cards_path, monster, side, card, turns, wild_matches, fmt, out, mc, seed, jobs, plot):
    """Valhalla Solo: when does the monster attack?

    Each monster phase rolls the monster dice not on the card (6 at first);
    rolled weapons that match uncovered weapons on the active card stay on it,
    and when every weapon is covered the monster attacks and all dice come off.
    Exact P(attack on turn t) from an empty card, and the expected number of
    turns between attacks. Rule text: valhalla-solo.txt, Gameplay → monster phase.
    The bundled cards are STAND-IN data.
    """
    if cards_path is not None and not Path(cards_path).is_file():
        raise InputError(f"--cards {cards_path}: " + ("is a folder, expected a cards file (.toml)"
                                                      if Path(cards_path).is_dir() else "file not found"))
    die, monsters = cards_mod.load_cards(cards_path)
    selection = select_cards(monsters, monster, side, card)
    est = None
    if mc:
        est, _ = run_mc(mc_cells(selection, side), die, turns, wild_matches, mc, seed, jobs)
    rows = monster_rows(selection, die, side, turns, wild_matches, est)
    if plot:
        monster_plot(plot, rows, wild_matches)
    if fmt == "json":
        emit(json.dumps(json_rows(rows), indent=2) + "\n", out)
    elif fmt == "csv":
        emit(render(csv_rows(rows), "csv"), out)
    else:
        emit(text_output(rows, fmt, with_detail=card is not None), out)


def _curve_names(rs, all_sides) -> list[str]:
    """``troll 1`` for a card whose every plotted side is on this curve, else ``troll 1 (+40)``."""
    sides: dict[tuple, list] = {}
    for r in rs:
        sides.setdefault((r["monster"], r["card"]), []).append(r["side"])
    out = []
    for (m, c), ss in sides.items():
        if set(ss) == all_sides:
            out.append(f"{m} {c}")
        else:
            out += [f"{m} {c}" + (" (+40)" if s == "plus40" else " (base)") for s in ss]
    return out


LEGEND_GAP = 0.2  # the legend under the plot starts below the x-axis label, never over it (with the taller figure)


def monster_plot(path, rows, wild_matches: bool = False, title: str | None = None):
    """P(attack on turn t) per card. Cards with identical exact odds (same weapon pattern) share one
    curve, labelled with every card that has it; MC intervals are shaded when present."""
    import matplotlib
    from cycler import cycler

    from simkit.core.plotting import lines

    all_sides = {r["side"] for r in rows}
    curves: dict[tuple, list] = {}
    for r in rows:
        curves.setdefault(tuple(r["attack_by_turn"]), []).append(r)
    series, bands = {}, {}
    for rs in curves.values():
        weapons = " = ".join(dict.fromkeys(_weapons_text(r["weapons"]) for r in rs))
        names = ", ".join(_curve_names(rs, all_sides))
        label = f"{weapons}: {names}"
        series[label] = np.array(rs[0]["attack_by_turn_p"])
        with_mc = next((r for r in rs if "attack_by_turn_mc" in r), None)
        if with_mc is not None:
            bands[label] = (np.array(with_mc["attack_by_turn_low"]), np.array(with_mc["attack_by_turn_high"]))
    turns = np.arange(1, len(rows[0]["attack_by_turn_p"]) + 1)
    if title is None:
        title = "Valhalla Solo: P(monster attacks on turn t)" + (", wild matches" if wild_matches else "")
        if all_sides == set(SIDES):
            title += ", base and +40 sides"
        elif all_sides == {"plus40"}:
            title += ", +40 side"
    colors = matplotlib.colormaps["tab10" if len(series) <= 10 else "tab20"].colors
    with matplotlib.rc_context({"axes.prop_cycle": cycler(color=colors), "legend.framealpha": 0.6}):
        return lines(path, turns, series, bands=bands or None, title=title, xlabel="monster phase (turn t)",
                     ylabel="P(attack on turn t), a renewal rate", legend_gap=LEGEND_GAP,
                     figsize=(7, 4 + 0.2 * len(series)))
