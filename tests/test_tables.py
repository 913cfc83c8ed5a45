"""Tables: Markdown from tabulate with a real alignment row and escaped cells, number/text alignment, all-zero
columns left out with a note, terminal tables that fit the terminal."""

from __future__ import annotations

import markdown

from simkit.core.tables import is_number_cell, numeric_columns, render

ROWS = [{"card": "+2 Health", "P(win) [95%]": "0.770 [0.737, 0.801]", "n": 5100, "dead": 0, "note": "a|b"},
        {"card": "troll", "P(win) [95%]": "27/50 ≈ 0.5400", "n": 3, "dead": 0.0, "note": "c"}]


def test_markdown_has_an_alignment_row_and_escaped_cells():
    lines = render(ROWS, "md").splitlines()
    head, rule, first = lines[0], lines[1], lines[2]
    cols = [c.strip() for c in rule.strip("|").split("|")]
    # card and note are text (left), the rate and n numbers (right); "dead" is 0 in every row and left out
    assert [c[0] == ":" for c in cols] == [True, False, False, True]
    assert [c[-1] == ":" for c in cols] == [False, True, True, False]
    assert "dead" not in head and "*Left out, 0 in every row: dead.*" in lines
    assert first.rstrip("| ").endswith("a\\|b")  # an escaped pipe, not a fifth column
    html = markdown.markdown(render(ROWS, "md"), extensions=["tables"])
    assert html.count("<th ") == 4 and "a|b" in html
    assert 'style="text-align: right;">5100<' in html and 'style="text-align: left;">+2 Health<' in html


def test_a_word_that_starts_with_a_number_is_text():
    for text in ("+2 Health", "+3 Strike", "2,000 fresh", "0.993 vs 0.927", "4-player Bounty Hunter"):
        assert not is_number_cell(text), text
    for text in ("0.770 [0.737, 0.801]", "27/50 ≈ 0.5400", "5,100", "−0.012", "12%", "< 0.0001", "6.9e-05",
                 "0.45 [0.41, 0.48] **!**", "[0.7459, 0.9037]", "+0.0088 [-0.0178, +0.0354]", "6 / 12 / 19"):
        assert is_number_cell(text), text
    assert numeric_columns(["card", "n"], [{"card": "+2 Health", "n": 1}, {"card": "+3 Strike", "n": "–"}]) \
        == [False, True]


def test_a_column_zero_only_to_the_digits_shown_is_not_called_zero():
    """Issue 39: "0.000 [0.000, 0.000]" may be 0.00002 (Valhalla Solo's endings table said "0 in every row" of an
    ending its plot draws above 0)."""
    rows = [{"level": "I", "rare": "0.000 [0.000, 0.000]", "none": 0, "won": "0.873"},
            {"level": "II", "rare": "0.000 [0.000, 0.000]", "none": 0, "won": "0.872"}]
    lines = render(rows, "md").splitlines()
    assert "rare" not in lines[0] and "none" not in lines[0]
    assert "*Left out, 0 in every row: none.*" in lines
    assert "*Left out, 0 to the digits shown in every row (small, not necessarily 0): rare.*" in lines


def test_zero_columns_stay_when_asked_or_when_every_column_is_zero():
    assert "dead" in render(ROWS, "md", drop_zero=False).splitlines()[0]
    assert "dead" in render(ROWS, "table").splitlines()[0]  # the terminal table keeps them
    zero = [{"a": 0, "b": "0.000 [0.000, 0.000]"}]
    assert render(zero, "md").splitlines()[0].split("|")[1].strip() == "a"


def test_terminal_table_fits_the_width():
    rows = [{"metric": f"metric_{i}", "group": "policy=balanced_tuned, warband=tree_beasts",
             "A [95%]": "0.7700 [0.7370, 0.8010]", "B [95%]": "0.7800 [0.7470, 0.8110]",
             "B − A [95%]": "+0.0100 [-0.0040, +0.0230]", "p": "0.123", "p (Holm)": "0.456",
             "significant": "no", "paired needs": "35% of the games", "n": 20000} for i in range(3)]
    wide = render(rows, "table", width=10_000)
    assert max(map(len, wide.splitlines())) > 180
    for width in (100, 140):  # (at 100 the group breaks inside a word; at 140 between words)
        text = render(rows, "table", width=width)
        assert max(map(len, text.splitlines())) <= width, text
        assert "20000" in text and ("balanced_tuned" in text or width < 140)  # wrapped, not cut


def test_terminal_width_comes_from_columns(monkeypatch):
    rows = [{"x": "word " * 40}]
    monkeypatch.setenv("COLUMNS", "60")
    assert max(map(len, render(rows, "table").splitlines())) <= 60
    monkeypatch.delenv("COLUMNS")
    assert max(map(len, render(rows, "table").splitlines())) > 150  # not a terminal: no limit


def test_a_narrow_table_breaks_a_number_line_before_a_word():
    # the Chance Strike table at 60 columns: with every number line whole it cannot fit (3 × 14 + the rest),
    # with every word whole it can; so no word of a header ("P(attacker", "E[strikes]") is broken, and the
    # "27/50 ≈ 0.5400" cells break between their words
    rows = [{"Strike": 0, "Shield": s, "P(attacker hits)": "27/50 ≈ 0.5400", "P(defender hits)": "9/20 ≈ 0.4500",
             "P(both hurt)": "1/100 ≈ 0.0100", "E[strikes] to defeat H=1": "1.818"} for s in range(3)]
    text = render(rows, "table", width=60)
    assert max(map(len, text.splitlines())) <= 60, text
    words = " ".join(text.split())
    for word in ("P(attacker", "P(defender", "E[strikes]", "27/50", "0.5400"):
        assert word in words, (word, text)
    # at 50 columns no table with whole words fits: the words break, at 8 characters a column
    assert "P(attack" in render(rows, "table", width=50) and "P(attacker" not in render(rows, "table", width=50)


def test_render_parts_splits_a_wide_table_by_column_groups_keeping_the_keys_and_every_row():
    from simkit.core.tables import render_parts

    rows = [{"players": n, "a": n * 1.5, "b": f"{n}", "c": "x" * n} for n in (2, 3)]
    text = render_parts(rows, ["players"], [["a"], ["b", "c"]])
    first, second = (t for t in text.split("\n\n") if t.strip())
    assert [c.strip() for c in first.splitlines()[0].strip("|").split("|")] == ["players", "a"]
    assert [c.strip() for c in second.splitlines()[0].strip("|").split("|")] == ["players", "b", "c"]
    assert len(first.splitlines()) == len(second.splitlines()) == 4  # header, rule, 2 rows each
    assert [c.strip() for c in second.splitlines()[3].strip("|").split("|")] == ["3", "3", "xxx"]
