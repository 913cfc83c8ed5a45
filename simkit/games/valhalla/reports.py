"""Valhalla Solo reports: when the monster attacks (exact, with Monte Carlo beside it)."""

from __future__ import annotations

from pathlib import Path

from simkit.core.report import STAND_IN_NOTICE, write_markdown
from simkit.core.tables import render
from simkit.games.valhalla import cards as cards_mod
from simkit.games.valhalla.odds_cli import (
    RULE_CITATION, SIDES, _weapons_text, card_heading, fraction_note, mc_cells, monster_plot, monster_rows, run_mc,
    select_cards, summary_display, turn_display,
)

TURNS = 20
SEED = 2026


def monster_markdown(die, monsters, mc_trials: int, seed, jobs, png_name: str, turns: int = TURNS,
                     wild_matches: bool = False):
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
        f"monster phase of turn t (t = 1..{turns}) completes the card, and E[turns] is the expected number "
        "of monster phases from an empty card to the attack. The player's own attacks, which replace the "
        "card, are not modelled here.\n\n"
        f"![P(attack on turn t)]({png_name})\n\n"
        "## Every card, both sides\n\n"
        + render(summary_display(rows), "md")
        + "\n## Per turn: the first card of each monster, Monte Carlo beside exact\n\n"
        f"The Monte Carlo column simulates {mc_trials:,} games of {turns} monster phases per card "
        f"(seed {root}) with its 95% Wilson interval. {inside} of {len(values)} exact values lie inside "
        "their 95% interval (about 95% are expected to)." + _dependence_note(detail) + "\n\n"
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
        return "**The answer.** No card is ever completed: the monster never attacks."
    fast = min(fin, key=lambda r: r["expected_turns_p"])
    slow = max(fin, key=lambda r: r["expected_turns_p"])

    def name(r):
        return f"{r['monster']} {r['side']} card {r['card']}"

    firsts = [r for r in fin if r["card"] == 1 and r["side"] == fin[0]["side"]]
    return ("**The answer.** From an empty card the monster attacks after "
            f"{fast['expected_turns_p']:.2f} monster phases on average on the fastest card ({name(fast)}, "
            f"{_weapons_text(fast['weapons'])}) and after {slow['expected_turns_p']:.2f} on the slowest ({name(slow)}, "
            f"{_weapons_text(slow['weapons'])})"
            + ("; first cards: " + ", ".join(f"{r['monster']} {r['expected_turns_p']:.2f}" for r in firsts)
               if firsts else "")
            + (f"; {len(never)} card{'s' if len(never) != 1 else ''} never complete" if never else "")
            + " (exact expectations; the per-turn odds and the Monte Carlo check follow).")


def _dependence_note(detail) -> str:
    """Why the inside-count is not a count of independent checks."""
    return (" These are not independent checks: one card's turns come from the same simulated games, so "
            "they move together (each card is simulated on its own streams, independent of the others).")


def bundled_reports(out_dir: Path, quick: bool = False, jobs=None) -> list[Path]:
    """What ``make report`` writes for Valhalla Solo: the monster-dice odds with a plot."""
    out = Path(out_dir) / "odds"
    trials = 20_000 if quick else 200_000
    die, monsters = cards_mod.load_cards(cards_mod.default_cards_path())
    text, rows, detail = monster_markdown(die, monsters, trials, SEED, jobs, "valhalla-monster.png")
    by_key = {(r["monster"], r["side"], r["card"]): r for r in detail}
    plot_rows = [by_key.get((r["monster"], r["side"], r["card"]), r) for r in rows]
    return [write_markdown(out / "valhalla-monster.md", text),
            monster_plot(out / "valhalla-monster.png", plot_rows)]
