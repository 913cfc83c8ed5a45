"""``simkit odds chance-strike`` and ``simkit odds test-fate``."""

from __future__ import annotations

import click

from simkit.core.oddscli import display_rows as plain_rows
from simkit.core.oddscli import emit, frac_cols, mc_cols, monte_carlo, odds_options
from simkit.core.scenario import parse_int_range
from simkit.core.tables import render, fraction_str
from simkit.errors import InputError

# The exact-odds modules compile numba kernels: they are imported when a command runs, so its --help and
# input errors stay fast. The same readings as chance_strike.LONE_ONE_READINGS (a test checks).
LONE_ONE_READINGS = ("loses", "fails")

RATES = ("attacker_hits", "defender_hits", "both_hurt")


def chance_strike_rows(strikes, shields, bonus=0, rules=None, health=1, mc=None, sides=10):
    from simkit.games.valka.strike_rule import ChanceStrikeRules, chance_strike, expected_strikes_to_defeat

    rules = ChanceStrikeRules() if rules is None else rules
    rows = []
    for s in strikes:
        for h in shields:
            odds = chance_strike(s + bonus, h, rules, sides)
            row = {"strike": s, "shield": h}
            for r in RATES:
                frac_cols(row, r, odds[r])
            e = expected_strikes_to_defeat(health, s + bonus, h, rules, sides)
            row["expected_strikes"] = None if e is None else fraction_str(e)
            row["expected_strikes_p"] = None if e is None else float(e)
            if mc is not None:
                for r in RATES:
                    mc_cols(row, r, mc.get((r, (s, h))))
            rows.append(row)
    return rows


def display_rows(rows, health, with_mc):
    """Rows for table/Markdown output: exact fraction with its decimal, and the simulated interval."""
    out = []
    for row in rows:
        d = {"Strike": row["strike"], "Shield": row["shield"]}
        for r, title in zip(RATES, ("P(attacker hits)", "P(defender hits)", "P(both hurt)")):
            d[title] = f"{row[r]} ≈ {row[r + '_p']:.4f}"
            if with_mc:
                d[f"{title} MC [95%]"] = f"{row[r + '_mc']:.4f} [{row[r + '_low']:.4f}, {row[r + '_high']:.4f}]"
        d[f"E[strikes] to defeat H={health}"] = "∞" if row["expected_strikes"] is None else f"{row['expected_strikes_p']:.3f}"
        if with_mc:
            d["MC n"] = row["mc_n"]
        out.append(d)
    return out


@click.command("chance-strike")
@click.option("--strike", "strike", default="0:12", show_default=True,
              help="Attacker's total Strike: a value or an inclusive range a:b.")
@click.option("--shield", "shield", default="0:12", show_default=True,
              help="Defender's total Shield: a value or an inclusive range a:b.")
@click.option("--bonus", type=click.IntRange(0, 20), default=0, show_default=True,
              help="Added to the Strike (Fireblast is +3).")
@click.option("--lone-one", type=click.Choice(LONE_ONE_READINGS), default="loses", show_default=True,
              help="A natural 1 rolled by one fighter alone: the roller loses the combat, or only fails.")
@click.option("--defender-damage/--no-defender-damage", default=True, show_default=True,
              help="Whether a defender who wins the combat deals 1 damage to the attacker.")
@click.option("--health", type=click.IntRange(1, 99), default=1, show_default=True,
              help="Health for the expected number of strikes to defeat the defender.")
@click.option("--die", "sides", type=click.IntRange(4, 100), default=10, show_default=True,
              help="Sides of both fighters' die (a variant; the rulebook's d10 by default). Its top face wins "
                   "as the 10 does, its 1 fails as the 1 does.")
@odds_options
def chance_strike_cmd(strike, shield, bonus, lone_one, defender_damage, health, sides, fmt, out, mc, seed, jobs,
                      plot):
    """VÁLKA Chance Strike: exact odds for every Strike × Shield pair.

    Both fighters roll a d10 and add Strike / Shield; a 10 wins (both 10: the
    attacker); ties go to the attacker; a natural 1 fails regardless of Buffs;
    double 1s hurt both. Rule text: valka.txt, "On Your Turn" → Chance Strike.
    """
    strikes = parse_int_range(strike, "--strike", 0, 30)
    shields = parse_int_range(shield, "--shield", 0, 30)
    from simkit.games.valka.strike_rule import ChanceStrikeRules

    rules = ChanceStrikeRules(lone_one=lone_one, defender_deals_damage=defender_damage)
    if mc and sides != 10:
        raise InputError(f"--mc: the simulation rolls the rulebook's d10 only (got --die {sides}); "
                         "allowed: --mc 0 with --die other than 10")
    est = None
    if mc:
        from simkit.games.valka.dice_checks import ChanceStrikeSim

        est, _ = monte_carlo(ChanceStrikeSim(strikes, shields, bonus, rules, aggregate=True), mc, seed, jobs)
    rows = chance_strike_rows(strikes, shields, bonus, rules, health, est, sides)
    if plot:
        chance_strike_heatmap(plot, rows, strikes, shields, bonus, sides)
    if fmt in ("json", "csv"):
        emit(render(rows, fmt), out)
    else:
        emit(render(display_rows(rows, health, bool(mc)), fmt), out)


def chance_strike_heatmap(path, rows, strikes, shields, bonus=0, sides=10):
    import numpy as np

    from simkit.core.plotting import heatmap

    grid = np.array([[r["attacker_hits_p"] for r in rows if r["strike"] == s] for s in strikes]).T
    title = ("VÁLKA Chance Strike: P(attacker hits)" + (f", Strike bonus +{bonus}" if bonus else "")
             + (f", d{sides}" if sides != 10 else ""))
    return heatmap(path, grid, strikes, shields, title=title, xlabel="attacker total Strike",
                   ylabel="defender total Shield", cbar_label="P(attacker hits: deals 1 damage)")


def parse_good_fortune(text: str, sides: int) -> str:
    """``--good-fortune``: 'even' or 'N+' with 2 <= N <= sides."""
    t = text.strip()
    if t == "even":
        return t
    if t.endswith("+") and t[:-1].isascii() and t[:-1].isdigit() and 2 <= int(t[:-1]) <= sides:
        return f"{int(t[:-1])}+"
    raise InputError(f"--good-fortune: {text!r} is not a rule; allowed values: even, or N+ with N in 2..{sides} "
                     f"(a result of N or more on the d{sides})")


def test_fate_sections(tests: int, battles: int, not_enuf: int, mc_counts=None, sides: int = 10,
                       good: str = "even"):
    """The Test Fate tables as (title, rows) pairs; exact values as fractions (``sides``, ``good``: a variant)."""
    from functools import partial

    from simkit.games.valka import test_fate as tf

    v = {"sides": sides, "good": good}
    p_success, rally, reinforcements = partial(tf.p_success, **v), partial(tf.rally, **v), partial(tf.reinforcements, **v)
    sections = []
    single = []
    for label, p in (("one Test Fate", p_success()), ("one Test Fate, offering available (20 Krone, once)", p_success(True)),
                     ("Rally brings a Fighter", rally()), ("Marauders call Reinforcements (Not Enuf)", reinforcements(1)[1])):
        row = {"event": label}
        frac_cols(row, "probability", p)
        single.append(row)
    e = tf.rally_stamina_per_fighter(**v)
    row = {"event": "expected Stamina spent on Rallies per Fighter"}
    row["probability"], row["probability_p"] = fraction_str(e), float(e)
    single.append(row)
    sections.append(("Single tests", single))
    surv = []
    for k in range(1, battles + 1):
        row = {"locations": k}
        frac_cols(row, "without_offering", tf.buff_survival(k, **v))
        frac_cols(row, "with_offering", tf.buff_survival(k, True, **v))
        surv.append(row)
    sections.append(("A Buff survives k Locations' Test Fates", surv))
    dist, dist_o = tf.successes(tests, **v), tf.successes(tests, True, **v)
    succ = []
    for k in range(tests + 1):
        row = {"successes": k}
        frac_cols(row, "without_offering", dist[k])
        frac_cols(row, "with_offering", dist_o[k])
        if mc_counts is not None:
            mc_cols(row, "with_offering", mc_counts[k])
        succ.append(row)
    sections.append((f"Successes in {tests} Tests of Fate", succ))
    reinf = reinforcements(not_enuf)
    rrows = []
    for k in range(not_enuf + 1):
        row = {"reinforcements": k}
        frac_cols(row, "probability", reinf[k])
        rrows.append(row)
    sections.append((f"Marauder reinforcements over {not_enuf} Not Enuf steps", rrows))
    return sections


@click.command("test-fate")
@click.option("--tests", type=click.IntRange(1, 60), default=6, show_default=True,
              help="n for the distribution of successes in n Tests of Fate.")
@click.option("--battles", type=click.IntRange(1, 30), default=6, show_default=True,
              help="Largest k for P(a Buff survives k Locations' Test Fates).")
@click.option("--not-enuf", type=click.IntRange(1, 30), default=4, show_default=True,
              help="Number of 'Not Enuf' defend steps for the reinforcements distribution.")
@click.option("--die", "sides", type=click.IntRange(2, 100), default=10, show_default=True,
              help="Sides of the Test Fate die (a variant; the rulebook's d10 by default).")
@click.option("--good-fortune", "good", default="even", show_default=True,
              help="Which results are good fortune: 'even' (the rule) or 'N+' (N or more, a variant).")
@odds_options
def test_fate_cmd(tests, battles, not_enuf, sides, good, fmt, out, mc, seed, jobs, plot):
    """VÁLKA Test Fate: even on a d10 is good fortune.

    P(success) with and without the once-per-Lonequest offering to VÁLKA,
    P(a Buff survives k Locations), P(Rally succeeds), P(Marauders call
    Reinforcements), and the number of successes in n tests. Rule text:
    valka.txt, Lonequest Rules → Test Fate, Battle, Victory.
    """
    good = parse_good_fortune(good, sides)
    if mc and (sides, good) != (10, "even"):
        raise InputError(f"--mc: the simulation rolls the rule's d10 with even results good (got --die {sides} "
                         f"--good-fortune {good}); allowed: --mc 0 with a variant")
    mc_counts = None
    if mc:
        from simkit.games.valka.dice_checks import TestFateSim

        est, _ = monte_carlo(TestFateSim(tests, offering=True), mc, seed, jobs)
        mc_counts = {k: est.get((f"successes_{k}", ())) for k in range(tests + 1)}
    sections = test_fate_sections(tests, battles, not_enuf, mc_counts, sides, good)
    if plot:
        test_fate_plot(plot, sections, tests)
    if fmt == "json":
        import json

        emit(json.dumps({title: rows for title, rows in sections}, indent=2) + "\n", out)
    elif fmt == "csv":
        emit("".join(f"# {t}\n" + render(rows, "csv") for t, rows in sections), out)
    else:
        parts = []
        for title, rows in sections:
            parts.append(("## " if fmt == "md" else "") + title + "\n\n" + render(plain_rows(rows), fmt))
        emit("\n".join(parts), out)


def test_fate_plot(path, sections, tests):
    import numpy as np

    from simkit.core.plotting import lines

    surv = dict(sections)["A Buff survives k Locations' Test Fates"]
    ks = [r["locations"] for r in surv]
    return lines(path, ks, {"without offering": np.array([r["without_offering_p"] for r in surv]),
                            "with the offering": np.array([r["with_offering_p"] for r in surv])},
                 title="VÁLKA Test Fate: P(a Buff survives k Locations)", xlabel="Locations cleared (k)",
                 ylabel="P(Buff survives)")
