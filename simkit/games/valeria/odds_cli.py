"""``simkit odds valeria``: Citizen, Herald and Monster Event activation odds on 2d6."""

from __future__ import annotations

import json
from pathlib import Path

import click
import numpy as np

from simkit.core.oddscli import display_rows, emit, frac_cols, mc_cols, monte_carlo, odds_options
from simkit.core.tables import render, fraction_str


def _o():
    """The exact-odds module (numba kernels): imported when a command runs, so input errors stay fast."""
    from simkit.games.valeria import odds

    return odds


def __getattr__(name):
    if name == "ValeriaRollSim":  # moved to roll_sim; still importable from here
        from simkit.games.valeria.roll_sim import ValeriaRollSim

        return ValeriaRollSim
    raise AttributeError(name)


def valeria_sections(citizens, est=None):
    """(title, rows) tables: each Citizen, the Herald, each Monster Event number."""
    get = (lambda name: est.get((name, ()))) if est else (lambda name: None)
    crow = []
    for i, (lab, p) in enumerate(_o().citizen_activation(citizens)):
        row = {"citizen": lab}
        frac_cols(row, "activates", p)
        mc_cols(row, "activates", get(f"citizen_{i}"))
        crow.append(row)
    hd = _o().herald_distribution(citizens)
    hrow = []
    for k in range(3):
        row = {"herald_activations": k}
        frac_cols(row, "probability", hd[k])
        mc_cols(row, "probability", get(f"herald_{k}"))
        hrow.append(row)
    mrow = []
    for n, p in _o().monster_event().items():
        row = {"activation_number": n}
        frac_cols(row, "fires", p)
        mc_cols(row, "fires", get(f"monster_{n}"))
        mrow.append(row)
    return [("Citizens", crow), ("Herald activations per roll", hrow), ("Monster Event fires on a roll", mrow)]


def valeria_text(citizens, sections, fmt):
    he = _o().herald_expected(citizens)
    head = (f"Citizens: {', '.join(_o().label(c) for c in citizens) or '(none)'}\n"
            f"Expected Herald activations per roll: {fraction_str(he)} ≈ {float(he):.4f}\n")
    if fmt == "md":
        head = "\n".join(f"- {line}" for line in head.strip().splitlines()) + "\n"
    parts = [head]
    for title, rows in sections:
        if rows:
            parts.append(("## " if fmt == "md" else "") + title + "\n\n" + render(display_rows(rows), fmt))
    return "\n".join(parts)


@click.command("valeria")
@click.option("--citizens", default="", show_default=True,
              help="Activation numbers of the Citizens you own, e.g. 1,2,6 (two-number Citizens as 9/10).")
@odds_options
def valeria_cmd(citizens, fmt, out, mc, seed, jobs, plot):
    """Valeria: Card Kingdoms 2E: activation odds on a 2d6 roll.

    A number activates if it shows on either die or is the sum. The Herald
    fires when no owned Citizen activates, and again on doubles; a Monster
    Event fires once per roll, even on doubles. Rule text:
    valeria-card-kingdoms-2e.txt, Herald Starter Card and Monster Event Variant.
    """
    from simkit.games.valeria.citizens import parse_citizens

    cits = parse_citizens(citizens)
    est = None
    if mc:
        from simkit.games.valeria.roll_sim import ValeriaRollSim

        est, _ = monte_carlo(ValeriaRollSim(cits), mc, seed, jobs)
    sections = valeria_sections(cits, est)
    if plot:
        valeria_plot(plot, sections)
    if fmt == "json":
        data = {
            "citizens": dict(sections)["Citizens"],
            "herald_expected": fraction_str(_o().herald_expected(cits)),
            "herald_expected_p": float(_o().herald_expected(cits)),
            "herald_distribution": dict(sections)["Herald activations per roll"],
            "monster_event": {str(n): fraction_str(p) for n, p in _o().monster_event().items()},
            "monster_event_p": {str(n): float(p) for n, p in _o().monster_event().items()},
        }
        if est:
            data["monster_event_mc"] = dict(sections)["Monster Event fires on a roll"]
        emit(json.dumps(data, indent=2) + "\n", out)
    elif fmt == "csv":
        emit("".join(f"# {t}\n" + render(rows, "csv") for t, rows in sections if rows), out)
    else:
        emit(valeria_text(cits, sections, fmt), out)


def valeria_answer(specs, monster_rows) -> str:
    """The page's answer, first: how often the Herald activates at all on a roll for each bundled Duchy, and the
    Monster Event numbers that fire most and least often; then the Herald's expected activations per roll
    (doubles count twice) (rulebook: Herald; Monster Events)."""
    from simkit.core.report import DETAILS_MARKER, lead_paragraph, names

    chance, expected = [], []
    for spec in specs:
        cits = _o().parse_citizens(spec)
        p = 1 - _o().herald_distribution(cits).get(0, 0)
        he = _o().herald_expected(cits)
        chance.append(f"{fraction_str(p)} of rolls with Citizens {spec}")
        expected.append(f"{fraction_str(he)} ≈ {float(he):.3f} with Citizens {spec}")
    top = max(monster_rows, key=lambda r: r["fires_p"])
    low = min(monster_rows, key=lambda r: r["fires_p"])
    lead = ("The Herald activates on " + names(chance) + f" (exact); a Monster Event fires most often on "
            f"{top['activation_number']} ({top['fires']} ≈ {top['fires_p']:.3f} of rolls) and least often on "
            f"{low['activation_number']} ({low['fires']} ≈ {low['fires_p']:.3f}).")
    return (lead_paragraph(lead) + "\n\n" + DETAILS_MARKER + " Counting a double's second activation, the Herald "
            "activates " + "; ".join(expected) + " times per roll on average.")


def valeria_plot(path, sections):
    from simkit.core.plotting import bars

    rows = dict(sections)["Monster Event fires on a roll"]
    return bars(path, [r["activation_number"] for r in rows], [r["fires_p"] for r in rows],
                title="Valeria: P(Monster Event fires) by activation number", ylabel="probability per roll",
                xlabel="Monster Event activation number (2d6)")


def bundled_reports(out_dir: Path, quick: bool = False, jobs=None) -> list[Path]:
    """``reports/odds/valeria.md`` and ``valeria.png``: a few starting duchies, exact and simulated."""
    from simkit.core.report import write_markdown
    from simkit.games.valeria.roll_sim import ValeriaRollSim

    out = Path(out_dir) / "odds"
    trials = 50_000 if quick else 500_000
    text = ("# Valeria: Card Kingdoms 2E activation odds\n\n"
            "\"The Monster Event card is activated if the value is rolled on the dice, including the sum of both "
            "dice. The card does not activate twice in the case of doubles.\" The Herald \"activates\" when the "
            "roll activates none of your Citizens, and again on doubles. Exact values are fractions; the Monte "
            f"Carlo columns are {trials:,} simulated rolls (seed 2026) with 95% intervals.\n\n"
            "![Monster Event odds](valeria.png)\n\n")
    sections = None
    specs = ("1,2", "1,2,6", "1,2,5,6,9/10")
    for spec in specs:
        cits = _o().parse_citizens(spec)
        est, _ = monte_carlo(ValeriaRollSim(cits), trials, 2026, jobs)
        sections = valeria_sections(cits, est)
        text += f"## Duchy with Citizens {spec}\n\n" + valeria_text(cits, sections[:2], "md") + "\n"
    text += "## Monster Event fires on a roll\n\n" + render(display_rows(sections[2][1]), "md")
    head, rest = text.split("\n\n", 1)
    text = head + "\n\n" + valeria_answer(specs, sections[2][1]) + "\n\n" + rest
    return [write_markdown(out / "valeria.md", text), valeria_plot(out / "valeria.png", sections)]
