"""Bad input: one line on stderr, exit code 2, nothing written, never a traceback."""

import string
import tempfile

from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

from simkit.cli import cli

VALID = """game = "valka"
mode = "chance-strike"
[grid]
strike = "0:2"
shield = "0:2"
[rules]
lone_one = "loses"
"""


def _run(args):
    return CliRunner().invoke(cli, args)


def _assert_one_line_error(res, *needles):
    assert res.exit_code == 2, (res.exit_code, res.output, res.exception)
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, res.stderr
    assert lines[0].startswith("simkit: error:")
    assert "Traceback" not in res.output
    for n in needles:
        assert n in lines[0], (n, lines[0])
    return lines[0]


def test_missing_scenario(tmp_path):
    _assert_one_line_error(_run(["run", str(tmp_path / "nope.toml"), "--quiet"]), "not found")


def test_not_toml(tmp_path):
    p = tmp_path / "bad.toml"
    p.write_text("game = = valka\n")
    _assert_one_line_error(_run(["run", str(p), "--quiet"]), "bad.toml", "TOML")


def test_wrong_field_names_file_field_and_allowed_values(tmp_path):
    p = tmp_path / "s.toml"
    p.write_text(VALID.replace('lone_one = "loses"', 'lone_one = "lose"'))
    _assert_one_line_error(_run(["run", str(p), "--quiet", "--out", str(tmp_path / "out")]),
                           "s.toml", "rules.lone_one", "'loses'", "'fails'")
    assert not (tmp_path / "out").exists()


def test_unknown_field_suggests_nearest(tmp_path):
    p = tmp_path / "s.toml"
    p.write_text(VALID.replace("[rules]", "[rules]\ndefender_deal_damage = true"))
    _assert_one_line_error(_run(["run", str(p), "--quiet"]), "rules.defender_deal_damage", "defender_deals_damage")


def test_unknown_game_lists_games(tmp_path):
    p = tmp_path / "s.toml"
    p.write_text(VALID.replace('game = "valka"', 'game = "chess"'))
    _assert_one_line_error(_run(["run", str(p), "--quiet"]), "game", "valka")


def test_bad_range_option():
    _assert_one_line_error(_run(["odds", "chance-strike", "--strike", "5:1"]), "--strike")
    _assert_one_line_error(_run(["odds", "chance-strike", "--shield", "x"]), "--shield")


def test_unknown_option_value():
    _assert_one_line_error(_run(["odds", "chance-strike", "--lone-one", "maybe"]), "--lone-one")
    _assert_one_line_error(_run(["odds", "chance-strike", "--format", "xml"]), "--format")


toml_junk = hs.text(alphabet=string.printable, max_size=120)
field_values = hs.one_of(hs.integers(-5, 50), hs.text(alphabet=string.ascii_letters + ":0123456789-", max_size=8),
                         hs.booleans(), hs.floats(allow_nan=False, allow_infinity=False))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=toml_junk)
def test_any_malformed_text_is_a_clean_error(tmp_path, body):
    p = tmp_path / "junk.toml"
    p.write_text(body)
    res = _run(["run", str(p), "--quiet", "--games", "10", "--out", tempfile.mkdtemp(dir=tmp_path)])
    if res.exit_code == 0:  # hypothesis may write a valid scenario by chance: then it must have run
        return
    _assert_one_line_error(res)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(section=hs.sampled_from(["grid", "rules", "run"]),
       key=hs.sampled_from(["strike", "shield", "bonus", "lone_one", "defender_deals_damage", "games",
                            "block_size", "seed", "colour"]),
       value=field_values)
def test_wrong_field_values_are_clean_errors(tmp_path, section, key, value):
    import tomllib

    data = tomllib.loads(VALID)
    data.setdefault(section, {})[key] = value
    lines = ['game = "valka"', 'mode = "chance-strike"']
    for name, table in data.items():
        if isinstance(table, dict):
            lines.append(f"[{name}]")
            for k, v in table.items():
                lines.append(f"{k} = {_toml(v)}")
    p = tmp_path / "s.toml"
    p.write_text("\n".join(lines) + "\n")
    res = _run(["run", str(p), "--quiet", "--games", "5", "--block-size", "5", "--seed", "1",
                "--jobs", "1", "--out", tempfile.mkdtemp(dir=tmp_path)])
    if res.exit_code == 0:
        return
    _assert_one_line_error(res, "s.toml")


def _toml(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return '"' + v + '"'
    return repr(v)


@settings(max_examples=60, deadline=None)
@given(option=hs.sampled_from(["--games", "--seed", "--jobs", "--block-size", "--precision"]),
       value=hs.text(alphabet=string.ascii_letters + "-.:,", min_size=1, max_size=6))
def test_bad_run_option_values(option, value):
    res = _run(["run", "scenarios/valka/chance_strike.toml", "--quiet", option, value])
    _assert_one_line_error(res, option)


@settings(max_examples=40, deadline=None)
@given(value=hs.text(alphabet=string.printable.replace("\n", ""), min_size=1, max_size=8))
def test_bad_citizen_and_range_values(value):
    import re

    if re.fullmatch(r"\s*\d+(\s*:\s*\d+)?\s*", value):
        return  # a well-formed range: not bad input
    res = _run(["odds", "chance-strike", "--strike", value])
    _assert_one_line_error(res, "--strike")


def test_data_file_field_relative_to_the_scenario(tmp_path, monkeypatch):
    """``cards = "…"`` (every game's card files): relative to the scenario file unless absolute; a missing file
    names the file, the field and the path tried; the manifest path is shown relative to the working folder."""
    from pathlib import Path

    from simkit.core.scenario import Fields, cwd_relative
    from simkit.errors import InputError

    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "c.toml").write_text("")
    scen = tmp_path / "sub" / "s.toml"
    assert Fields(scen, {"cards": "c.toml"}).file_path("cards", "x.toml") == tmp_path / "sub" / "c.toml"
    assert Fields(scen, {}).file_path("cards", "c.toml") == tmp_path / "sub" / "c.toml"  # the default
    absolute = tmp_path / "sub" / "c.toml"
    assert Fields("elsewhere/s.toml", {"cards": str(absolute)}).file_path("cards", "x.toml") == absolute
    try:
        Fields("elsewhere/s.toml", {"cards": "nope.toml"}).file_path("cards", "x.toml")
        raise AssertionError("a missing file must be an error")
    except InputError as e:
        assert str(e) == "elsewhere/s.toml: field 'cards' names a file that does not exist: elsewhere/nope.toml"
    monkeypatch.chdir(tmp_path)
    assert cwd_relative(absolute) == str(Path("sub") / "c.toml")
    assert cwd_relative("/nowhere/c.toml") == "/nowhere/c.toml"
