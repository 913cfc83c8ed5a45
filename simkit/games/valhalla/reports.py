"""Valhalla Solo reports: when the monster attacks (exact, with Monte Carlo beside it)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from simkit.core.report import STAND_IN_NOTICE, lead_paragraph, write_markdown
from simkit.core.tables import render
from simkit.games.valhalla import cards as cards_mod
from simkit.games.valhalla.odds_cli import (
    RULE_CITATION, SIDES, _weapons_text, card_heading, fraction_note, mc_cells, monster_plot, monster_rows, run_mc,
    select_cards, summary_display, turn_display,
)

TURNS = 20
SEED = 2026
REPLICATES = 40  # further Monte Carlo seeds of the coverage check (seed + 1 .. seed + REPLICATES)


def monster_markdown(die, monsters, mc_trials: int, seed, jobs, png_name: str, turns: int = TURNS,
                     wild_matches: bool = False, replicates: int = REPLICATES):
    """The Markdown of the monster-dice report and every row behind it (both sides, every card)."""
    rows, firsts = [], {}
    for side in SIDES:
        selection = select_cards(monsters, None, side, None)
        rows += monster_rows(selection, die, side, turns, wild_matches)
        firsts[side] = [s for s in selection if s[2] == 1]
    cells = [c for side in SIDES for c in mc_cells(firsts[side], side)]
    est, root = run_mc(cells, die, turns, wild_matches, mc_trials, seed, jobs)
    detail = [r for side in SIDES for r in monster_rows(firsts[side], die, side, turns, wild_matches, est)]
    values = [(p, lo, hi) for r in detail for p, lo, hi in
              zip(r["attack_by_turn_p"], r["attack_by_turn_low"], r["attack_by_turn_high"])]
    inside = sum(lo <= p <= hi for p, lo, hi in values)
    text = (
        "# Valhalla Solo: when does the monster attack?\n\n"
        f"{STAND_IN_NOTICE}\n\n"
        + monster_answer(rows) + "\n\n"
        f"{RULE_CITATION} The monster has 6 dice of faces {', '.join(die.faces)}. "
        f"Rule option `wild_matches_monster = {str(wild_matches).lower()}`: the wild face "
        f"{'covers' if wild_matches else 'never covers'} a weapon (see docs/rules.md).\n\n"
        "Each card is followed on its own from an empty card: P(attack on turn t) is the chance that the "
        f"monster phase of turn t (t = 1..{turns}) completes the card, whether or not it attacked before (after "
        "an attack all dice come off and the same card fills again). It is a **renewal rate**, not the chance "
        "of a first attack: one game can attack on several turns, so a card's rates add up to its expected "
        f"number of attacks in {turns} turns, not to 1, and settle at 1 / E[turns]. E[turns] is the expected "
        "number of monster phases from an empty card to the attack (and between two attacks). The player's own "
        "attacks, which replace the card, are not modelled here.\n\n"
        f"![P(attack on turn t)]({png_name})\n\n"
        "## Every card, both sides\n\n"
        + render(summary_display(rows), "md")
        + "\n## Per turn: the first card of each monster, Monte Carlo beside exact\n\n"
        f"The Monte Carlo column simulates {mc_trials:,} games of {turns} monster phases per card "
        f"(seed {root}) with its 95% Wilson interval. {inside} of {len(values)} exact values lie inside "
        "their 95% interval (about 95% are expected to)." + _dependence_note(detail) + " "
        + coverage_note(coverage_check(cells, firsts, die, turns, wild_matches, mc_trials, seed, jobs,
                                       replicates), inside, len(values)) + "\n\n"
        + fraction_note(detail)
    )
    for r in detail:
        text += "\n### " + card_heading(r) + "\n\n" + render(turn_display(r), "md")
    return text, rows, detail


def monster_answer(rows: list[dict]) -> str:
    """The page's answer, first: the expected monster phases from an empty card to the attack, for the fastest
    and the slowest card, and for each monster's first card (valhalla-solo.txt, monster phase)."""
    fin = [r for r in rows if r["expected_turns_p"] is not None]
    never = [r for r in rows if r["expected_turns_p"] is None]
    if not fin:
        return lead_paragraph("No card is ever completed: the monster never attacks.")
    fast = min(fin, key=lambda r: r["expected_turns_p"])
    slow = max(fin, key=lambda r: r["expected_turns_p"])

    def name(r):
        return f"{r['monster']} {r['side']} card {r['card']}"

    firsts = [r for r in fin if r["card"] == 1 and r["side"] == fin[0]["side"]]
    return lead_paragraph("From an empty card the monster attacks after "
            f"{fast['expected_turns_p']:.2f} monster phases on average on the fastest card ({name(fast)}, "
            f"{_weapons_text(fast['weapons'])}) and after {slow['expected_turns_p']:.2f} on the slowest ({name(slow)}, "
            f"{_weapons_text(slow['weapons'])})"
            + ("; first cards: " + ", ".join(f"{r['monster']} {r['expected_turns_p']:.2f}" for r in firsts)
               if firsts else "")
            + (f"; {len(never)} card{'s' if len(never) != 1 else ''} never complete" if never else "")
            + " (exact expectations; the per-turn odds and the Monte Carlo check follow).")


def misses(detail) -> int:
    """How many exact per-turn values lie outside their Monte Carlo 95% interval."""
    return sum(not lo <= p <= hi for r in detail for p, lo, hi in
               zip(r["attack_by_turn_p"], r["attack_by_turn_low"], r["attack_by_turn_high"]))


def coverage_check(cells, firsts, die, turns, wild_matches, trials, seed, jobs, replicates) -> dict:
    """The page's Monte Carlo replayed on ``replicates`` further root seeds (seed + 1, ...; same trials): per seed
    the number of exact values outside their 95% interval. Whether the Monte Carlo n and the Wilson interval hold
    their 95% is a coverage question; one seed's count cannot answer it, because a card's turns come from the same
    games and their intervals miss together."""
    from simkit.core.stats import clustered_rate

    per = []
    for i in range(1, replicates + 1):
        est, _ = run_mc(cells, die, turns, wild_matches, trials, int(seed) + i, jobs)
        detail = [r for side in SIDES for r in monster_rows(firsts[side], die, side, turns, wild_matches, est)]
        per.append((misses(detail), sum(len(r["attack_by_turn_p"]) for r in detail)))
    k = np.array([m for m, _ in per], dtype=float)
    n = np.array([t for _, t in per], dtype=float)
    return {"misses": k.astype(int).tolist(), "intervals": n.astype(int).tolist(), "trials": trials,
            "first_seed": int(seed) + 1, "rate": clustered_rate(k, n) if replicates else None}


def coverage_note(cov: dict, inside: int, total: int) -> str:
    """The coverage check in words: the replicate seeds' miss rate (the seed as the unit of its interval) and
    where this page's count of misses falls among them."""
    k = cov["misses"]
    if not k:
        return ""
    e = cov["rate"]
    mine = total - inside
    as_many = sum(1 for m in k if m >= mine)
    holds = e.low <= 0.05 <= e.high
    return (f"Coverage check: the same simulation on {len(k)} further root seeds ({cov['first_seed']}.."
            f"{cov['first_seed'] + len(k) - 1}, {cov['trials']:,} games each) left the exact value outside its "
            f"interval in {sum(k):,} of {sum(cov['intervals']):,} intervals, {e.estimate:.3f} [{e.low:.3f}, "
            f"{e.high:.3f}] (95%, the seed as the unit; nominal 0.05), from {min(k)} to {max(k)} of {total} per "
            f"seed; {as_many} of the {len(k)} seeds missed {mine} or more, as this page's seed does. "
            + ("So neither the Monte Carlo n nor the Wilson interval is wrong: the intervals hold their 95%, and "
               f"{mine} misses on one seed is the spread of intervals that miss together."
               if holds else
               "The intervals do not hold their 95%: the Monte Carlo or its interval needs a look."))


def _dependence_note(detail) -> str:
    """Why the inside-count is not a count of independent checks."""
    return (" These are not independent checks: one card's turns come from the same simulated games, so "
            "they move together (each card is simulated on its own streams, independent of the others).")


def bundled_reports(out_dir: Path, quick: bool = False, jobs=None) -> list[Path]:
    """What ``make report`` writes for Valhalla Solo: the monster-dice odds with a plot."""
    out = Path(out_dir) / "odds"
    trials = 20_000 if quick else 200_000
    die, monsters = cards_mod.load_cards(cards_mod.default_cards_path())
    text, rows, detail = monster_markdown(die, monsters, trials, SEED, jobs, "valhalla-monster.png",
                                          replicates=4 if quick else REPLICATES)
    by_key = {(r["monster"], r["side"], r["card"]): r for r in detail}
    plot_rows = [by_key.get((r["monster"], r["side"], r["card"]), r) for r in rows]
    return [write_markdown(out / "valhalla-monster.md", text),
            monster_plot(out / "valhalla-monster.png", plot_rows)]
