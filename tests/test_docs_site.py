"""The README is a front page and the manual a MkDocs site: the site builds with --strict (a broken link, a
missing anchor or a page left out of the menu fails), the README stays short, and every page headline the
README quotes is the bundled page's own (so a regenerated page cannot leave the front page behind)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from simkit.core.html import page_headline

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
QUOTE = re.compile(r"<!-- headline: (\S+) -->\n> (.+)")


def test_the_manual_builds_strictly(tmp_path):
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    res = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
                         cwd=ROOT, capture_output=True, text=True, env=env)
    assert res.returncode == 0, res.stderr[-3000:]
    pages = {p.relative_to(tmp_path / "site").as_posix() for p in (tmp_path / "site").rglob("index.html")}
    for md in (ROOT / "docs").glob("*.md"):
        want = "index.html" if md.stem == "index" else f"{md.stem}/index.html"
        assert want in pages, f"docs/{md.name} is not in the built site"


def test_a_broken_link_fails_the_build(tmp_path):
    """The check above can fail: a copy of the manual with one link to a missing anchor does not build."""
    import shutil

    shutil.copytree(ROOT / "docs", tmp_path / "docs")
    shutil.copy(ROOT / "mkdocs.yml", tmp_path / "mkdocs.yml")
    with open(tmp_path / "docs" / "statistics.md", "a", encoding="utf-8") as fh:
        fh.write("\nSee [the rules](rules.md#no-such-heading).\n")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    res = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict"], cwd=tmp_path, capture_output=True,
                         text=True, env=env)
    assert res.returncode != 0 and "no-such-heading" in res.stderr


def test_the_readme_is_a_front_page():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 250, f"the README has {len(lines)} lines; the manual belongs in docs/"
    for link in re.findall(r"\]\((docs/[^)#]+)", README.read_text(encoding="utf-8")):
        assert (ROOT / link).is_file(), link


def test_the_readmes_quoted_headlines_are_the_pages_own():
    quotes = QUOTE.findall(README.read_text(encoding="utf-8"))
    assert len(quotes) >= 3
    for page, quote in quotes:
        headline = page_headline(ROOT / page)[0]
        assert headline.startswith(quote.strip()), f"README quotes {page} as {quote!r}; the page says {headline!r}"


def test_the_gate_page_lists_the_committed_baselines():
    from simkit.core.check import baselines_table

    text = (ROOT / "docs" / "gate.md").read_text(encoding="utf-8")
    listed = text.split("<!-- baselines: begin -->\n", 1)[1].split("<!-- baselines: end -->", 1)[0]
    assert listed == baselines_table(ROOT / "reports" / "baseline")
