"""Issue 39: the one-sentence lead every report page opens with (simkit.core.report)."""

from __future__ import annotations

from simkit.core.report import (
    DETAILS_MARKER, LEAD_MARKER, extreme, interval, lead_of, lead_paragraph, lead_problems, names, tie_words,
)
from simkit.core.stats import Estimate


def test_a_rate_with_its_interval():
    assert interval(Estimate(0.645, 0.636, 0.655, 1)) == "0.645 [0.636, 0.655]"
    assert interval(Estimate(0.02, 0.0171, 0.023, 1), 4, signed=True) == "+0.0200 [+0.0171, +0.0230]"
    assert interval(Estimate(-0.109, -0.136, -0.077, 1), signed=True) == "-0.109 [-0.136, -0.077]"


def test_two_groups_whose_intervals_overlap_are_named_as_a_tie_and_separated_ones_are_not():
    overlap = {"goblins": Estimate(0.60, 0.57, 0.63, 1), "wizards": Estimate(0.62, 0.59, 0.65, 1)}
    pick, tied = extreme(overlap, worst=True)
    assert (pick, tied) == ("goblins", ["wizards"])
    assert tie_words(pick, tied, "Warband", "weakest") == "Weakest Warband: goblins, tied with wizards (intervals overlap)"
    apart = {"goblins": Estimate(0.60, 0.57, 0.63, 1), "wizards": Estimate(0.70, 0.67, 0.73, 1)}
    pick, tied = extreme(apart, worst=True)
    assert (pick, tied) == ("goblins", [])
    assert tie_words(pick, tied, "Warband", "weakest") == "Weakest Warband: goblins"
    assert extreme(apart) == ("wizards", [])


def test_a_long_tie_names_three_and_counts_the_rest():
    assert names(["a"]) == "a" and names(["a", "b"]) == "a and b" and names(["a", "b", "c"], 3) == "a, b and c"
    assert names(["a", "b", "c", "d", "e"], 3) == "a, b and 3 others"


def test_the_lead_is_the_first_paragraph_after_the_title_and_notices():
    page = f"# T\n\n> **Stand-in card data.** x\n\n{lead_paragraph('One sentence.')}\n\n{DETAILS_MARKER} More."
    assert lead_of(page) == "One sentence." and page.split("\n\n")[2].startswith(LEAD_MARKER)
    assert lead_of("# T\n\n> notice\n\n**The answer.** Old page.") == ""


def test_lead_problems():
    assert lead_problems("Weakest Warband: goblins, winning 0.645 [0.636, 0.655] (learned policy, 10 games).") == []
    assert lead_problems("One. Two.") == ["more than one sentence"]
    assert "no full stop at the end" in lead_problems("No stop")
    assert lead_problems(" ".join(["word"] * 46) + ".") == ["46 words (at most 45)"]
    assert lead_problems("Seat 1 wins 0.5 (Holm 5%).") == ["the statistics word 'Holm'"]


def test_a_page_ends_with_the_glossary_entries_of_the_words_it_uses(tmp_path):
    from simkit.core.report import glossary_entries, glossary_section, write_markdown

    entries = {head: words for words, head, _ in glossary_entries()}
    assert "Holm, family-wise, p (Holm), p adj." in entries and "Hero, field" in entries
    text = "# T\n\nGoblins win 0.645 [0.636, 0.655]; p (Holm) 0.01. The heroes' tables.\n"
    section = glossary_section(text)
    assert section.startswith("## Words on this page")
    assert "**Holm, family-wise, p (Holm), p adj.**" in section  # one full stop, not two
    assert "**Hero, field.**" not in section  # "heroes" is not the word "hero"
    assert "**Design effect" not in section
    page = write_markdown(tmp_path / "report.md", text)
    assert page.read_text() == text + "\n" + section
    assert glossary_section("# T\n\nNothing statistical.\n") == ""
    plain = write_markdown(tmp_path / "plain.md", "# T\n\nNothing statistical.\n")
    assert plain.read_text() == "# T\n\nNothing statistical.\n"


def test_every_bundled_page_ends_with_its_words():
    from pathlib import Path

    from simkit.core.report import glossary_section

    root = Path(__file__).resolve().parents[1] / "reports"
    pages = [p for p in root.rglob("*.md") if "baseline" not in p.parts]
    assert len(pages) >= 12
    with_words = 0
    for p in pages:
        text = p.read_text()
        body, sep, words = text.partition("\n## Words on this page")
        # the section holds exactly the entries of the words the page uses (none: no section)
        assert ("## Words on this page" + words if sep else "") == glossary_section(body), p
        with_words += bool(sep)
    assert with_words >= 9  # every report page (an odds page may use no statistics word)


def same_tie(said, near: list[str]) -> None:
    """A tie clause ("X, Y and 3 others") names the overlapping groups (in any order where the rounded cells tie
    in distance) and counts the rest (the pages' tests share this check)."""
    import re

    if not near:
        assert said is None
        return
    parts = re.split(r", | and ", said)
    shown = parts[:-1] if parts[-1].endswith(" others") else parts
    rest = int(parts[-1].split()[0]) if parts[-1].endswith(" others") else 0
    assert set(shown) <= set(near) and len(shown) + rest == len(near), (said, near)
