"""The pieces the `simkit odds …-battle` commands share (simkit/core/oddscli.py), by hand."""

from fractions import Fraction

import pytest

from simkit.core.oddscli import MAX_FRACTION_CHARS, check_file_options, exact_text, first_choices, keys, mc_cells
from simkit.errors import InputError


def test_keys_drop_blanks_and_spaces():
    assert keys(" squire, lancer,,old_gob ") == ["squire", "lancer", "old_gob"]
    assert keys("") == []


def test_exact_text_shows_a_short_fraction_and_only_the_decimal_of_a_long_one():
    assert exact_text(Fraction(5, 9)) == "5/9 ≈ 0.555556"
    medium = Fraction(1, 3 ** 60)  # "1/" and 29 digits: 31 characters, shown
    assert len(f"1/{3 ** 60}") <= MAX_FRACTION_CHARS
    longer = Fraction(1, 7 ** 60)
    assert len(f"1/{7 ** 60}") > MAX_FRACTION_CHARS
    assert exact_text(medium).startswith("1/")
    assert exact_text(longer) == f"≈ {float(longer):.10f}"


def test_check_file_options_names_the_option(tmp_path):
    f = tmp_path / "deck.toml"
    f.write_text("")
    check_file_options(deck=f, cards=None)  # a file, and an option not given: fine
    with pytest.raises(InputError, match=r"^--deck .*: file not found$"):
        check_file_options(deck=tmp_path / "missing.toml")
    with pytest.raises(InputError, match=r"^--cards .*: is a folder, expected a \.toml file$"):
        check_file_options(cards=tmp_path)


def test_mc_cells_fill_the_optimal_row_only():
    mc = {"text": "0.5000 [0.4, 0.6]", "inside": "yes", "n": 100}
    assert mc_cells({}, {"play": "optimal"}, mc) == {"MC [95%]": "0.5000 [0.4, 0.6]", "inside": "yes", "MC n": 100}
    assert mc_cells({}, {"play": "builder"}, mc) == {"MC [95%]": "", "inside": "", "MC n": ""}
    assert mc_cells({"Play": "x"}, {"play": "optimal"}, None) == {"Play": "x"}


def test_first_choices_shows_the_likeliest_and_the_agreement():
    first = [{"roll": f"r{i}", "probability_p": 0.5 ** (i + 1), "optimal": "stop", "optimal_win": 0.9,
              "builder": "reroll", "builder_win": 0.8} for i in range(3)]
    text = first_choices(first, 2, "roll", "First roll", "P(roll)", "rolls", ["builder"],
                         {"builder": Fraction(1, 4)}, "md")
    assert text.startswith("## The 2 most likely first rolls (of 3)")
    assert "r0" in text and "r1" in text and "r2" not in text
    assert "builder: 0.2500" in text
