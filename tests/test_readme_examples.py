"""Every example of the README and of the manual (docs/*.md) is checked, so neither can drift from what the
commands print. (Below, "the README" means the README and the manual's pages.)

An example is a fenced block whose lines start with ``$ simkit``. A block that shows output is run (in a scratch
folder that sees the bundled ``scenarios/``; ``--jobs 1`` is added where the command takes it: results do not
depend on it) and its output compared line by line: a line that is only ``…`` stands for any number of lines, a
``…`` inside a line for any text on it (a path with a run id, a timing). A block of commands without output is
checked without playing: every option it names exists on its command and every bundled file it names exists. A
block marked ``<!-- readme-example: not run: REASON -->`` on the line above is left out, with its reason.
Also checked: the README's per-game column lists against the columns a run writes, with the types it says.
"""

from __future__ import annotations

import os
import re
import shlex
import tomllib
from pathlib import Path

import click
import pytest
import tomli_w
from click.testing import CliRunner

from simkit.cli import cli

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
MANUAL = [README, *sorted((ROOT / "docs").glob("*.md"))]


def manual_text() -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in MANUAL)
SKIP = re.compile(r"<!--\s*readme-example:\s*not run:\s*(.+?)\s*-->")


def examples() -> list[dict]:
    """The README's example blocks: their commands, the output they show, where they start, a skip reason."""
    out = []
    for page in MANUAL:
        out += _examples(page)
    return out


def _examples(page: Path) -> list[dict]:
    lines = page.read_text(encoding="utf-8").splitlines()
    name = page.relative_to(ROOT).as_posix()
    out, i = [], 0
    while i < len(lines):
        if lines[i].startswith("```"):
            j = i + 1
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            body = lines[i + 1:j]
            if body and body[0].startswith("$ simkit"):
                above = next((ln for ln in reversed(lines[:i]) if ln.strip()), "")
                skip = SKIP.search(above)
                cmds = [ln[2:] for ln in body if ln.startswith("$ ")]
                shown = [ln for ln in body if not ln.startswith("$ ")]
                out.append({"line": f"{name}:{i + 1}", "commands": cmds, "output": shown,
                            "skip": skip.group(1) if skip else None})
            i = j + 1
        else:
            i += 1
    return out


EXAMPLES = examples()
RUN = [e for e in EXAMPLES if e["output"] and not e["skip"] and len(e["commands"]) == 1]
SHOWN = [e for e in EXAMPLES if not e["output"] and not e["skip"]]


def _args(command: str) -> list[str]:
    command = re.split(r"\s{2,}#", command, maxsplit=1)[0]  # a trailing comment
    args = shlex.split(command)
    assert args[0] == "simkit", command
    return args[1:]


def _command(args: list[str]) -> tuple[click.Command, list[str]]:
    """The click command ``args`` call, and the arguments left for it."""
    cmd, rest = cli, list(args)
    while isinstance(cmd, click.Group) and rest and not rest[0].startswith("-"):
        sub = cmd.get_command(click.Context(cmd), rest[0])
        assert sub is not None, f"no command {rest[0]!r} in {args}"
        cmd, rest = sub, rest[1:]
    return cmd, rest


def _options(cmd: click.Command) -> set[str]:
    return {o for p in cmd.params for o in (*p.opts, *p.secondary_opts)}


def _pattern(shown: list[str]) -> re.Pattern:
    parts = []
    for line in shown:
        line = line.rstrip()
        if line == "…":
            parts.append(r"(?:[^\n]*\n)*?")
        else:
            parts.append(".*".join(re.escape(p) for p in line.split("…")) + r"[ \t]*\n")
    return re.compile("".join(parts))


def matches(shown: list[str], actual: str) -> bool:
    text = "\n".join(ln.rstrip() for ln in actual.splitlines()) + "\n"
    pattern = _pattern(shown)
    if shown and shown[-1].rstrip() == "…":
        return pattern.match(text) is not None
    return pattern.fullmatch(text) is not None


def _setup(command: str, cwd: Path) -> None:
    """Files an example works on that the README only names (a broken scenario, a broken card file)."""
    if command.startswith("simkit run broken.toml"):
        text = (ROOT / "scenarios/valka/chance_strike.toml").read_text(encoding="utf-8")
        assert 'lone_one = "loses"' in text
        (cwd / "broken.toml").write_text(text.replace('lone_one = "loses"', 'lone_one = "lose"'), encoding="utf-8")
    if command.startswith("simkit check --baselines reports/baseline"):  # the committed baselines, read only
        (cwd / "reports").mkdir(exist_ok=True)
        (cwd / "reports" / "baseline").symlink_to(ROOT / "reports" / "baseline", target_is_directory=True)
    if command.startswith("simkit run lonequest.toml"):
        (cwd / "lonequest.toml").write_text((ROOT / "scenarios/valka/lonequest.toml").read_text(encoding="utf-8"),
                                            encoding="utf-8")
        data = tomllib.loads((ROOT / "scenarios/valka/cards.toml").read_text(encoding="utf-8"))
        by_key = {f["key"]: f for f in data["fighters"]}
        by_key["raider_boss"]["health"] = 0
        by_key["mountain_gob"]["strike"] = 99
        data["buffs"][0]["value"] = 7
        (cwd / "cards.toml").write_text(tomli_w.dumps(data), encoding="utf-8")


@pytest.fixture()
def scratch(tmp_path):
    (tmp_path / "scenarios").symlink_to(ROOT / "scenarios", target_is_directory=True)
    old = os.getcwd()
    os.chdir(tmp_path)
    try:
        yield tmp_path
    finally:
        os.chdir(old)


def test_the_readme_has_examples_and_says_why_any_is_not_run():
    assert len(RUN) >= 10 and len(SHOWN) >= 3
    for e in EXAMPLES:
        if e["output"] and not e["skip"]:
            assert len(e["commands"]) == 1, f"{e['line']}: one command per example with output"


@pytest.mark.parametrize("example", RUN, ids=[e["commands"][0][:60] for e in RUN])
def test_readme_example_prints_what_the_readme_shows(example, scratch):
    command = example["commands"][0]
    _setup(command, scratch)
    args = _args(command)
    cmd, _ = _command(args)
    if "--jobs" in _options(cmd) and not {"--jobs", "-j"} & set(args):
        args += ["--jobs", "1"]
    res = CliRunner().invoke(cli, args)
    assert res.exception is None or isinstance(res.exception, SystemExit), res.output
    if os.environ.get("SIMKIT_README_DUMP"):
        with open(os.environ["SIMKIT_README_DUMP"], "a", encoding="utf-8") as fh:
            fh.write(f"=== {example['line']}: $ {command}\n{res.output}")
    assert matches(example["output"], res.output), (
        f"{example['line']}: `{command}` no longer prints what the README shows.\n"
        f"--- README ---\n" + "\n".join(example["output"]) + f"\n--- actual ---\n{res.output}")


@pytest.mark.parametrize("example", SHOWN, ids=[e["commands"][0][:60] for e in SHOWN])
def test_readme_commands_name_real_options_and_files(example):
    for command in example["commands"]:
        if not command.startswith("simkit"):
            continue
        args = _args(command)
        cmd, rest = _command(args)
        known = _options(cmd)
        for a in rest:
            if a.startswith("-") and not re.fullmatch(r"-?\d+(\.\d+)?", a):
                assert a.split("=", 1)[0] in known, f"{example['line']}: {a} is not an option of " \
                                                    f"`simkit {cmd.name}` ({command})"
            if a.startswith("scenarios/") and "…" not in a:
                assert (ROOT / a).exists(), f"{example['line']}: {a} does not exist"


def test_matching_rules():
    assert matches(["a", "…", "z"], "a\nb\nc\nz\n") and matches(["a", "…"], "a\nb\n")
    assert matches(["x in … s; seed 7"], "x in 1.56 s; seed 7\n")
    assert not matches(["a", "b"], "a\nc\n") and not matches(["a"], "a\nb\n")


PARQUET_COLUMNS = {"lonequest": ("scenarios/valka/lonequest.toml", {"games": 20, "block_size": 20}),
                   "chance-strike": ("scenarios/valka/chance_strike.toml",
                                     {"games": 10, "overrides": ['grid.strike="1"', 'grid.shield="1"']})}


def test_readme_parquet_columns_are_the_columns_a_run_writes():
    import polars as pl

    import simkit

    text = manual_text()
    said_bool = re.search(r"A 0/1 outcome behind a rate\s+is a \*\*boolean\*\* \(([^)]*)\)", text)
    assert said_bool, "the README's sentence on boolean columns moved"
    for mode, (scenario, kw) in PARQUET_COLUMNS.items():
        row = re.search(rf"^\| `{re.escape(mode)}` \| (.*) \|$", text, re.M)
        assert row, mode
        listed = re.findall(r"`([a-z_0-9]+)`", row.group(1).split(" (")[0])
        schema = simkit.run(ROOT / scenario, seed=1, jobs=1, **kw).frame.schema
        assert listed == list(schema), f"README's {mode} columns: {listed} != {list(schema)}"
        for name in re.findall(r"`([a-z_0-9]+)`", said_bool.group(1).split(";")[0]):
            if name in schema:
                assert schema[name] == pl.Boolean, f"the README calls {name} a boolean; it is {schema[name]}"


def test_policy_descriptions_agree_with_the_readme():
    """`simkit list` describes each policy; a description that cites the README's measurements quotes numbers
    the README prints, and none calls a policy weaker than one the README measures it beating."""
    res = CliRunner().invoke(cli, ["list"])
    assert res.exit_code == 0
    text = manual_text()
    for line in res.output.splitlines():
        if "README" not in line:
            continue
        for number in re.findall(r"\d\.\d{3}", line):
            assert number in text, f"`simkit list` quotes {number}, which the README does not print: {line}"
    valhalla = res.output.split("valhalla:", 1)[1].split("\n\n", 1)[0]
    search = next(ln for ln in valhalla.splitlines() if re.match(r"(\w+: )?search: ", ln.strip()))
    assert "0.993 vs 0.927" in text and "weaker" not in search, search
