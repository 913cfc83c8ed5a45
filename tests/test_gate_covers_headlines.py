"""Issue 39: the gate guards what the pages lead with.

Every bundled report page (``reports/**/report.md``) leads with one policy's numbers (its lead sentence and the
first sentence of its details name it in backticks), or with the practical policies' tables (the VÁLKA
multiplayer pages: every policy of the scenario's ``play`` list but the random one). Its scenario is the one its
``Runs`` tables name. A committed baseline in ``reports/baseline`` *covers* that headline when it replays the same
scenario with nothing changed but ``play`` (so the page's cells: every Warband, Jarl, table size or match-up of
the page's run), and its ``play`` holds the headline policy (the practical pages: exactly the practical policies,
as the page's first-player rate pools their tables). Nothing here is a copy of the answer: the policies are read
from the committed pages, the scenarios from the pages' run tables, the baselines from their files.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
from functools import lru_cache
from pathlib import Path

import pytest

from simkit.core.overrides import parse_set
from simkit.core.report import DETAILS_MARKER, lead_of

ROOT = Path(__file__).resolve().parents[1]
BASE = ROOT / "reports" / "baseline"
PAGES = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "reports").glob("**/report.md"))
RUN_SCENARIO = re.compile(r"^\| scenario\s+\| (scenarios/\S+\.toml)\s+\|", re.M)
# a run table's overrides row, right under its scenario row: --set 'PATH=VALUE' …
RUN_OVERRIDES = re.compile(r"^\| scenario\s+\| (scenarios/\S+\.toml)\s+\|\n\| overrides\s+\| (.+?)\s+\|$", re.M)
TICKED = re.compile(r"`([A-Za-z0-9_]+)`")


@lru_cache(maxsize=None)
def _sim(scenario: str, overrides: tuple[str, ...] = ()):
    from simkit.core import loader

    return loader.load(ROOT / scenario, list(overrides)).simulation


def _policies(scenario: str, overrides: tuple[str, ...] = ()) -> dict[str, str]:
    """``{policy: kind}`` the scenario plays (in ``play`` order) under ``overrides``."""
    return {name: kind for name, kind, _ in _sim(scenario, overrides).policy_specs}


def _details_first_sentence(md: str) -> str:
    para = next((p.strip() for p in md.split("\n\n") if p.strip().startswith(DETAILS_MARKER)), "")
    return re.split(r"(?<=[.)])\s+(?=\*\*|[A-Z])", para[len(DETAILS_MARKER):].strip(), maxsplit=1)[0]


def page_policies(page: str, scenario: str) -> dict[str, str]:
    """``{policy: kind}`` a page plays on ``scenario``: what each of its run tables' ``--set`` values make the
    scenario play (a report may add a policy to ``play``, as the Lonequest's adds its lead ``learned_search``),
    then the scenario's own ``play``."""
    md = (ROOT / page).read_text(encoding="utf-8")
    out: dict[str, str] = {}
    for s, row in RUN_OVERRIDES.findall(md):
        if s == scenario:
            out.update(_policies(s, tuple(shlex.split(row)[1::2])))
    return {**out, **_policies(scenario)}


def headlines(page: str) -> list[tuple[str, frozenset[str], bool]]:
    """``[(scenario, policies, practical)]`` a page leads with: the policies its lead sentence and the first
    sentence of its details name, each on the scenario whose mode the text names last before it (a page of one
    scenario: that one); ``practical``: the page leads with the practical policies' tables (no policy named)."""
    md = (ROOT / page).read_text(encoding="utf-8")
    scenarios = list(dict.fromkeys(RUN_SCENARIO.findall(md)))
    assert scenarios, f"{page}: no run table names its scenario"
    lead = lead_of(md)
    assert lead, f"{page}: no lead sentence"
    text = lead + " " + _details_first_sentence(md)
    modes = {_sim(s).mode: s for s in scenarios}
    plays = {s: page_policies(page, s) for s in scenarios}
    named: dict[str, set[str]] = {}
    for m in TICKED.finditer(text):
        before = {mode: text.rfind(mode, 0, m.start()) for mode in modes}
        mode = max(before, key=before.get)
        scenario = modes[mode] if len(scenarios) > 1 and before[mode] >= 0 else scenarios[0]
        if m.group(1) in plays[scenario]:
            named.setdefault(scenario, set()).add(m.group(1))
    if named:
        return [(s, frozenset(p), False) for s, p in named.items()]
    assert "practical policies" in lead, f"{page}: the lead names no policy of {scenarios} and no practical policies"
    return [(s, frozenset(p for p, kind in _policies(s).items() if kind not in ("random", "search")), True)
            for s in scenarios]


def covering(base: Path, scenario: str, policies: frozenset[str], practical: bool) -> list[str]:
    """The baselines in ``base`` that replay ``scenario`` with only ``play`` changed and play ``policies``."""
    out = []
    for f in sorted(base.glob("*.json")):
        d = json.loads(f.read_text(encoding="utf-8"))
        overrides = tuple(d.get("overrides") or ())
        if d["scenario"] != scenario or any(parse_set(o).path != ("play",) for o in overrides):
            continue
        plays = set(_policies(scenario, overrides))
        if (plays == policies) if practical else (policies <= plays):
            out.append(f.stem)
    return out


def uncovered(base: Path) -> list[str]:
    return [f"{page}: {sorted(pols)} on {scenario}" + (" (the practical policies)" if practical else "")
            for page in PAGES for scenario, pols, practical in headlines(page)
            if not covering(base, scenario, pols, practical)]


def test_the_pages_headlines_are_read():
    """The reading itself: every bundled page yields a headline, and the pages the issue names lead with the
    policies it names (a check of the reader, not the list the gate test uses)."""
    assert len(PAGES) >= 9
    got = {page: headlines(page) for page in PAGES}
    assert all(got.values())
    lq = got["reports/lonequest/report.md"]
    assert lq == [("scenarios/valka/lonequest.toml", frozenset({"learned_search"}), False)]
    vi = dict((s, p) for s, p, _ in got["reports/valkyrie-incident/report.md"])
    assert vi == {"scenarios/valkyrie_incident/standard.toml": {"learned"},
                  "scenarios/valkyrie_incident/blitz.toml": {"learned"}}
    bh = got["reports/multiplayer/bounty-hunter/report.md"]
    assert bh[0][2] and "balanced_tuned" in bh[0][1] and "random" not in bh[0][1]


def test_every_pages_headline_policy_has_a_baseline():
    """A page's headline table with no committed baseline replaying it fails here: record one with
    ``simkit baseline NAME SCENARIO --set 'play=[...]'`` (docs/gate.md)."""
    missing = uncovered(BASE)
    assert not missing, "no baseline replays these pages' headlines:\n" + "\n".join(missing)


def test_a_deleted_headline_baseline_is_caught(tmp_path):
    """The mutation check, kept: every baseline that alone covers a page's headline, removed, fails the gate test."""
    needed = {names[0] for page in PAGES for s, p, practical in headlines(page)
              if len(names := covering(BASE, s, p, practical)) == 1}
    assert needed
    for name in sorted(needed):
        d = tmp_path / name
        d.mkdir()
        for f in BASE.glob("*.json"):
            if f.stem != name:
                shutil.copy(f, d / f.name)
        assert uncovered(d), name


def headline_table(base: Path = BASE) -> str:
    """The pages' headlines and the baselines that replay them, as docs/gate.md lists them (a test keeps the two
    equal, so the list cannot drift from the pages or the baseline files)."""
    rows = ["| page | leads with | scenario | baselines |", "|---|---|---|---|"]
    for page in PAGES:
        for scenario, pols, practical in headlines(page):
            played = page_policies(page, scenario)
            what = ", ".join(f"`{p}`" for p in played if p in pols)
            if practical:
                what = f"the practical policies ({what})"
            names = ", ".join(f"`{n}`" for n in covering(base, scenario, pols, practical)) or "**none**"
            rows.append(f"| `{page}` | {what} | `{scenario}` | {names} |")
    return "\n".join(rows) + "\n"


def test_the_gate_page_lists_the_headlines_and_their_baselines():
    text = (ROOT / "docs" / "gate.md").read_text(encoding="utf-8")
    listed = text.split("<!-- headlines: begin -->\n", 1)[1].split("<!-- headlines: end -->", 1)[0]
    assert listed == headline_table()


# The numbers over seats a page leads with (check.SeatNumber): the Jarl or the Warband its lead names.
SEAT_LEADS = {  # what the lead names → the baseline's number
    re.compile(r"[Ss]trongest Jarl: ([^\s,;()]+)[^;]*; weakest: ([^\s,;()]+)"): "jarl_edge[{}]",
    re.compile(r"(?:[Ss]trongest|[Ww]eakest) opening Warband: ([^\s,;()]+)"): "warband_effect[{}]",
}


def seat_leads(page: str) -> list[str]:
    """The seat numbers a page's lead names (``jarl_edge[Agnar]``, ``warband_effect[brotherhood]``)."""
    lead = lead_of((ROOT / page).read_text(encoding="utf-8"))
    return [fmt.format(name) for rx, fmt in SEAT_LEADS.items() for m in rx.finditer(lead)
            for name in m.groups() if name]


def test_the_jarl_and_warband_a_lead_names_are_numbers_of_its_baseline():
    """Valhalla multiplayer leads with its strongest and weakest Jarl, the VÁLKA multiplayer pages with their
    strongest (or weakest) opening Warband: each such number is replayed by every baseline that covers the page's
    headline (so a change that moves it fails `make check`)."""
    found = 0
    for page in PAGES:
        names = seat_leads(page)
        if not names:
            continue
        for scenario, pols, practical in headlines(page):
            bases = covering(BASE, scenario, pols, practical)
            assert bases, page
            for b in bases:
                recorded = {m["metric"] for m in json.loads((BASE / f"{b}.json").read_text())["metrics"]}
                for name in names:
                    found += 1
                    assert name in recorded, f"{page}: the lead names {name}; baseline {b} does not replay it"
    assert found >= 6  # Valhalla multiplayer's two Jarls and the four VÁLKA pages' Warbands
