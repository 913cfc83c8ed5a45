"""VÁLKA reports: Chance Strike and Test Fate odds (exact, with Monte Carlo beside them)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
from scipy import stats as st

from simkit.core import results
from simkit.core.oddscli import display_rows as plain_rows
from simkit.core.report import DETAILS_MARKER, lead_paragraph, manifest_section, write_markdown
from simkit.core.tables import render
from simkit.games.valka.chance_strike import ChanceStrikeRules, outcome_distribution
from simkit.games.valka.odds_cli import (
    RATES, chance_strike_heatmap, chance_strike_rows, display_rows, test_fate_plot, test_fate_sections,
)


def chi_square_cells(observed: np.ndarray, expected_p: np.ndarray) -> tuple[float, int, float]:
    """Pearson chi-square over many cells: ``observed[cell, k]`` counts against exact ``expected_p[cell, k]``.

    Categories of probability zero are left out (they must have zero counts).
    Returns (statistic, degrees of freedom, p-value).
    """
    stat = 0.0
    dof = 0
    for obs, p in zip(observed, expected_p):
        n = obs.sum()
        keep = p > 0
        if np.any(obs[~keep] > 0):
            return float("inf"), 1, 0.0
        e = n * p[keep]
        stat += float(((obs[keep] - e) ** 2 / e).sum())
        dof += int(keep.sum()) - 1
    return stat, dof, float(st.chi2.sf(stat, dof)) if dof > 0 else 1.0


def _odds(frac: str, p: float) -> str:
    return f"{frac} ≈ {p:.3f}"


def _reach(rows: list[dict], value: str, attacker_ahead: bool) -> str:
    """Where the table's lowest (``attacker_ahead`` False) or highest P(attacker hits) is reached: "Shield 8 or more
    above Strike" when those are exactly the cells at that value, else the one cell."""
    at = [r for r in rows if r["attacker_hits_p"] == value]
    lead = [(r["strike"] - r["shield"]) if attacker_ahead else (r["shield"] - r["strike"]) for r in at]
    d = min(lead)
    same = [r for r in rows if ((r["strike"] - r["shield"]) if attacker_ahead else (r["shield"] - r["strike"])) >= d]
    if d > 0 and len(same) == len(at) > 1:
        return f"Strike {d} or more above Shield" if attacker_ahead else f"Shield {d} or more above Strike"
    r = max(at, key=lambda r: (r["strike"] - r["shield"]) if attacker_ahead else (r["shield"] - r["strike"]))
    return f"Strike {r['strike']} against Shield {r['shield']}"


def chance_strike_answer(rows: list[dict], health: int) -> str:
    """The page's answer, first: how often a Chance Strike hits between equals (Strike = Shield) and the range over
    the table (where its floor and ceiling are reached), then both hurt and the Chance Strikes a defender of
    ``health`` Health takes (valka.txt, Chance Strike)."""
    eq = [r for r in rows if r["strike"] == r["shield"]]
    lo = min(rows, key=lambda r: (r["attacker_hits_p"], r["shield"] - r["strike"]))
    hi = max(rows, key=lambda r: (r["attacker_hits_p"], r["shield"] - r["strike"]))
    spread = (f"P(attacker hits) runs from {_odds(lo['attacker_hits'], lo['attacker_hits_p'])} "
              f"({_reach(rows, lo['attacker_hits_p'], False)}) to {_odds(hi['attacker_hits'], hi['attacker_hits_p'])} "
              f"({_reach(rows, hi['attacker_hits_p'], True)})")
    if not eq:
        return lead_paragraph(f"Over the table, {spread}.") + "\n\n" + DETAILS_MARKER + \
            " The natural 1 and 10 keep every strike uncertain."
    r = eq[0]
    lead = (f"Between equals (Strike = Shield) the attacker hits {_odds(r['attacker_hits'], r['attacker_hits_p'])} "
            f"of Chance Strikes and the defender {_odds(r['defender_hits'], r['defender_hits_p'])}; over the table, "
            f"{spread}.")
    details = (f"Between equals both are hurt {_odds(r['both_hurt'], r['both_hurt_p'])}"
               + (f", and a defender with {health} Health falls after {r['expected_strikes_p']:.2f} Chance Strikes on "
                  "average" if r["expected_strikes_p"] is not None else "")
               + "; the natural 1 and 10 keep every strike uncertain.")
    return lead_paragraph(lead) + "\n\n" + DETAILS_MARKER + " " + details


def test_fate_answer(sections: list[tuple[str, list[dict]]]) -> str:
    """The page's answer, first: one Test Fate, and a Buff that must survive the Test Fates of the six Locations
    of a Lonequest, without and with the once-per-Lonequest offering (valka.txt, Test Fate)."""
    d = dict(sections)
    one = d["Single tests"][0]
    surv = d["A Buff survives k Locations' Test Fates"]
    six = next((r for r in surv if r["locations"] == 6), surv[-1])
    return lead_paragraph(f"One Test Fate succeeds {_odds(one['probability'], one['probability_p'])}; a Buff "
                          f"survives the Test Fates of {six['locations']} Locations "
                          f"{_odds(six['without_offering'], six['without_offering_p'])} without the 20-Krone offering "
                          f"and {_odds(six['with_offering'], six['with_offering_p'])} with it (exact).")


def chance_strike_markdown(strikes, shields, mc_trials, seed, jobs, png_name, rules=ChanceStrikeRules(), health=3):
    from simkit.core.oddscli import monte_carlo
    from simkit.games.valka.dice_checks import ChanceStrikeSim

    sim = ChanceStrikeSim(strikes, shields, 0, rules, aggregate=True)
    est, root = monte_carlo(sim, mc_trials, seed, jobs)
    rows = chance_strike_rows(strikes, shields, 0, rules, health, est)
    obs = np.array([[r["attacker_hits_mc"], r["defender_hits_mc"], r["both_hurt_mc"]] for r in rows]) * mc_trials
    obs = np.rint(obs).astype(np.int64)
    obs = np.column_stack([mc_trials - obs.sum(axis=1), obs])
    exact = np.array([[float(v) for v in outcome_distribution(r["strike"] , r["shield"], rules).values()] for r in rows])
    # outcome_distribution is ordered no_damage, attacker_hits, defender_hits, both_hurt
    stat, dof, p = chi_square_cells(obs, exact)
    inside = sum(r[f"{k}_low"] <= r[f"{k}_p"] <= r[f"{k}_high"] for r in rows for k in RATES)
    text = (
        "# VÁLKA Chance Strike odds\n\n"
        + chance_strike_answer(rows, health) + "\n\n"
        "Both fighters roll a d10: the attacker adds its total Strike, the defender its total Shield. "
        "A 10 wins (both 10: the attacker); ties go to the attacker; a natural 1 fails regardless of Buffs; "
        "double 1s hurt both (valka.txt, \"On Your Turn\" → Chance Strike). Rule options: "
        f"`lone_one = \"{rules.lone_one}\"`, `defender_deals_damage = {str(rules.defender_deals_damage).lower()}` "
        "(see docs/rules.md).\n\n"
        f"![P(attacker hits)]({png_name})\n\n"
        f"Exact values are fractions; the Monte Carlo column is {mc_trials:,} simulated strikes per cell "
        f"(seed {root}) with its 95% Wilson interval. {inside} of {3 * len(rows)} exact values lie inside "
        f"their 95% interval (about 95% are expected to). Chi-square over all {len(rows)} cells: "
        f"{stat:.1f} on {dof} degrees of freedom, p = {p:.3f}.\n\n"
        f"`E[strikes]` is the expected number of Chance Strikes to defeat a defender with {health} Health.\n\n"
    )
    return text + render(display_rows(rows, health, True), "md"), rows


def test_fate_markdown(tests, battles, not_enuf, mc_trials, seed, jobs, png_name):
    from simkit.core.oddscli import monte_carlo
    from simkit.games.valka.dice_checks import TestFateSim

    est, root = monte_carlo(TestFateSim(tests, offering=True), mc_trials, seed, jobs)
    mc_counts = {k: est.get((f"successes_{k}", ())) for k in range(tests + 1)}
    sections = test_fate_sections(tests, battles, not_enuf, mc_counts)
    text = (
        "# VÁLKA Test Fate odds\n\n"
        + test_fate_answer(sections) + "\n\n"
        "Test Fate: roll a d10, even is good fortune. Once per Lonequest, 20 Krone turns a failed test "
        "(valka.txt, Lonequest Rules → Test Fate). Exact values are fractions; the Monte Carlo column "
        f"simulates {mc_trials:,} sequences of {tests} tests with the offering (seed {root}), with 95% intervals.\n\n"
        f"![Buff survival]({png_name})\n\n"
    )
    for title, rows in sections:
        text += f"## {title}\n\n" + render(plain_rows(rows), "md") + "\n"
    return text, sections


def bundled_reports(out_dir: Path, quick: bool = False, jobs=None) -> list[Path]:
    """What ``make report`` writes for VÁLKA: Chance Strike and Test Fate odds with plots."""
    out = Path(out_dir) / "odds"
    trials = 20_000 if quick else 200_000
    strikes = shields = list(range(0, 13))
    text, rows = chance_strike_markdown(strikes, shields, trials, 2026, jobs, "chance-strike.png")
    files = [write_markdown(out / "chance-strike.md", text),
             chance_strike_heatmap(out / "chance-strike.png", rows, strikes, shields)]
    text, sections = test_fate_markdown(6, 8, 4, trials, 2026, jobs, "test-fate.png")
    files += [write_markdown(out / "test-fate.md", text), test_fate_plot(out / "test-fate.png", sections, 6)]
    return files


def chance_strike_run_report(run_dir: Path, out_dir: Path) -> list[Path]:
    """Report of a ``chance-strike`` run: simulated rates beside the exact ones, per cell."""
    man = results.manifest(run_dir)
    summ = results.summary(run_dir)
    opts = man.get("rule_options", {})
    rules = ChanceStrikeRules(lone_one=opts.get("lone_one", "loses"),
                              defender_deals_damage=opts.get("defender_deals_damage", True))
    bonus = int(man.get("bonus", 0))
    est = {(r["metric"], (r["group"]["strike"], r["group"]["shield"])): r for r in summ}
    strikes, shields = man["strikes"], man["shields"]
    rows = chance_strike_rows(strikes, shields, bonus, rules, 1, est)
    frame = results.scan(run_dir).select("attacker_hits", "defender_hits", "both_hurt", "strike", "shield")
    frame = frame.group_by("strike", "shield").agg(
        n=pl.len(), a=pl.col("attacker_hits").cast(int).sum(), d=pl.col("defender_hits").cast(int).sum(),
        b=pl.col("both_hurt").cast(int).sum()).sort("strike", "shield").collect()
    obs = np.array([[n - a - d - b, a, d, b] for n, a, d, b in frame.select("n", "a", "d", "b").iter_rows()])
    exact = np.array([[float(v) for v in outcome_distribution(s + bonus, h, rules).values()]
                      for s, h in frame.select("strike", "shield").iter_rows()])
    stat, dof, p = chi_square_cells(obs, exact)
    png = chance_strike_heatmap(Path(out_dir) / "chance-strike.png", rows, strikes, shields, bonus)
    text = (
        "# VÁLKA Chance Strike: simulated against exact\n\n"
        f"![P(attacker hits)]({png.name})\n\n"
        f"Chi-square of the simulated outcomes against the exact odds over all {len(rows)} cells: "
        f"{stat:.1f} on {dof} degrees of freedom, p = {p:.3f} (a p-value below 0.001 would mean the "
        "simulator disagrees with the rules' exact odds).\n\n"
        + render(display_rows(rows, 1, True), "md") + "\n" + manifest_section(man)
    )
    return [write_markdown(Path(out_dir) / "report.md", text), png]
