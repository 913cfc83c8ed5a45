"""Self-contained HTML report pages, checked as text and in a real headless browser (Debian's chromium)."""

from __future__ import annotations

import base64
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

import simkit
from simkit.core.html import html_for_reports, markdown_to_html, write_index
from simkit.core.report import report_run

ROOT = Path(__file__).resolve().parents[1]
WIDTH, HEIGHT = 1200, 2000
NOTICE = "Stand-in card data."


def chromium() -> str:
    exe = shutil.which("chromium")
    if exe is None:
        pytest.fail("chromium (Debian's headless browser) is not installed: run `make setup` "
                    "(it runs `apt-get install -y chromium`).")
    return exe


def run_chromium(tmp: Path, *args: str) -> subprocess.CompletedProcess:
    profile = tmp / "chromium-profile"
    profile.mkdir(parents=True, exist_ok=True)
    cmd = [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           "--disable-extensions", "--hide-scrollbars", "--force-device-scale-factor=1",
           f"--user-data-dir={profile}", f"--window-size={WIDTH},{HEIGHT}", *args]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stderr[-3000:]}"
    return proc


class Parsed(HTMLParser):
    """Tags with attributes, and the page text (enough to check a page without a DOM library)."""

    def __init__(self, text: str):
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.text: list[str] = []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)

    def all(self, tag: str) -> list[dict]:
        return [a for t, a in self.tags if t == tag]

    @property
    def plain(self) -> str:
        return re.sub(r"\s+", " ", "".join(self.text))


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """Two small runs reported into one reports folder, converted to HTML, with an index."""
    tmp = tmp_path_factory.mktemp("html")
    reports = tmp / "reports"
    written = []
    simkit.run(ROOT / "scenarios/valka/lonequest.toml", games=40, seed=1, block_size=20, out=tmp / "runs/lq", jobs=1)
    written += report_run(tmp / "runs/lq", reports / "lonequest")
    simkit.run(ROOT / "scenarios/valka/chance_strike.toml", games=2000, seed=1, out=tmp / "runs/cs", jobs=1)
    written += report_run(tmp / "runs/cs", reports / "chance-strike")
    pages = html_for_reports(written)
    index = write_index(reports, pages)
    return {"tmp": tmp, "reports": reports, "written": written, "pages": pages, "index": index,
            "page": reports / "lonequest" / "report.html"}


def test_one_page_per_markdown_report(site):
    mds = [p for p in site["written"] if p.suffix == ".md"]
    assert len(mds) == 2 and any(p.suffix == ".png" for p in site["written"])
    assert sorted(site["pages"]) == sorted(p.with_suffix(".html") for p in mds)
    assert all(p.is_file() for p in site["pages"])


def test_page_is_self_contained(site):
    text = site["page"].read_text(encoding="utf-8")
    doc = Parsed(text)
    assert doc.all("title") and re.search(r"<title>VÁLKA Lonequest: win odds by Warband and policy</title>", text)
    # the stand-in data notice, as a highlighted blockquote
    assert NOTICE in doc.plain and re.search(r"<blockquote>\s*<p><strong>Stand-in card data\.</strong>", text)
    # plots embedded, nothing fetched from anywhere
    imgs = doc.all("img")
    assert len(imgs) == 3  # the skill ladder, win odds, Locations cleared
    for img in imgs:
        assert img["src"].startswith("data:image/png;base64,")
        png = base64.b64decode(img["src"].split(",", 1)[1])
        assert png.startswith(b"\x89PNG") and png == (site["page"].parent / img["data-file"]).read_bytes()
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", text, re.I)
    assert "@import" not in text and not re.search(r"url\(", text)
    assert not doc.all("link") and not [s for s in doc.all("script") if "src" in s]
    assert "default-src 'none'" in text  # the page forbids itself any request
    # the run manifest table
    assert re.search(r"<h2>Run</h2>", text)
    for field in ("game", "mode", "scenario_sha256", "root_seed", "simkit_version"):
        assert f"<td>{field}</td>" in text
    assert "<td>lonequest</td>" in text
    # tables: numbers right-aligned, text left, zebra rows in the CSS
    assert len(doc.all("table")) >= 5
    assert 'class="num"' in text and "tbody tr:nth-child(even)" in text
    assert not re.search(r"<td[^>]*class=\"num\"[^>]*>lonequest<", text)


def test_markdown_features(tmp_path):
    Image.new("RGB", (40, 20), (200, 30, 30)).save(tmp_path / "p.png")
    md = tmp_path / "r.md"
    md.write_text("# A *nice* `title`\n\n> **Note.** quoted\n\nSome **bold**, *italic* and `code`.\n\n"
                  "- one\n- two\n\n1. first\n2. second\n\n```\nx = 1 < 2\n```\n\n![a plot](p.png)\n\n"
                  "| name | p | n |\n|---|---|---|\n| troll | 0.770 [0.737, 0.801] | 5,100 |\n"
                  "| dragon | 27/50 ≈ 0.5400 | −3 |\n", encoding="utf-8")
    out = markdown_to_html(md)
    text = out.read_text(encoding="utf-8")
    assert out == tmp_path / "r.html"
    assert "<title>A nice title</title>" in text
    for snippet in ("<strong>bold</strong>", "<em>italic</em>", "<code>code</code>", "<li>one</li>",
                    "<ol>", "<blockquote>", "x = 1 &lt; 2", '<th class="num">p</th>', '<th>name</th>',
                    '<td class="num">5,100</td>', '<td class="num">−3</td>', "<td>troll</td>",
                    'src="data:image/png;base64,'):
        assert snippet in text, snippet
    (tmp_path / "p.png").unlink()
    with pytest.raises(FileNotFoundError, match="p.png"):
        markdown_to_html(md)
    md.write_text("# x\n\n![remote](https://example.org/p.png)\n", encoding="utf-8")
    with pytest.raises(ValueError, match="not a local file"):
        markdown_to_html(md)


def test_index_links_every_page_by_game(site):
    index = site["index"]
    assert index == site["reports"] / "index.html"
    text = index.read_text(encoding="utf-8")
    links = {a["href"] for a in Parsed(text).all("a")}
    assert links == {"lonequest/report.html", "chance-strike/report.html"}
    assert all((index.parent / href).is_file() for href in links)
    # one section per game, named as the game is (not a folder name): both pages are VÁLKA's
    assert re.findall(r"<h2>([^<]*)</h2>", text) == ["VÁLKA"]
    assert ">VÁLKA Lonequest: win odds by Warband and policy</a>" in text
    assert ">VÁLKA Chance Strike: simulated against exact</a>" in text
    assert html_for_reports([index, site["reports"] / "lonequest" / "win-odds.png"]) == []


PROBE = """<script>
addEventListener("load", () => {
  for (const img of document.images) {
    const r = img.getBoundingClientRect(), s = getComputedStyle(img);
    const bl = parseFloat(s.borderLeftWidth), bt = parseFloat(s.borderTopWidth);
    img.dataset.probe = [img.complete, img.naturalWidth, img.naturalHeight,
                         r.left + bl, r.top + bt, img.clientWidth, img.clientHeight].join(",");
  }
});
</script>
"""


def rendered_dom(site, page: Path) -> str:
    """The DOM chromium renders for ``page`` (a copy with a probe script noting where each image lands)."""
    probe = page.with_name(page.stem + "-probe.html")
    probe.write_text(page.read_text(encoding="utf-8").replace("</body>", PROBE + "</body>"), encoding="utf-8")
    try:
        return run_chromium(site["tmp"], "--dump-dom", probe.as_uri()).stdout
    finally:
        probe.unlink()


def image_boxes(dom: str) -> list[dict]:
    boxes = []
    for img in Parsed(dom).all("img"):
        complete, nw, nh, x, y, w, h = img.get("data-probe", "false,0,0,0,0,0,0").split(",")
        boxes.append({"file": img.get("data-file"), "complete": complete == "true", "nw": int(nw), "nh": int(nh),
                      "x": round(float(x)), "y": round(float(y)), "w": int(w), "h": int(h)})
    return boxes


def test_browser_renders_tables_and_plots(site):
    page = site["page"]
    plain = run_chromium(site["tmp"], "--dump-dom", page.as_uri()).stdout
    doc = Parsed(plain)
    assert NOTICE in doc.plain
    assert len(doc.all("table")) >= 5 and len(doc.all("td")) > 50
    imgs = doc.all("img")
    assert len(imgs) == 3 and all(img.get("data-loaded") == "1" for img in imgs), \
        "every plot must have been decoded by the browser (onload sets data-loaded)"
    boxes = image_boxes(rendered_dom(site, page))
    assert len(boxes) == 3
    for box in boxes:
        assert box["complete"] and box["nw"] > 100 and box["nh"] > 100 and box["w"] > 100 and box["h"] > 100
        assert box["w"] <= WIDTH  # scaled to the page, not overflowing it


def test_screenshot_shows_the_page_with_its_plot(site):
    page = site["page"]
    shot = site["tmp"] / "lonequest.png"
    run_chromium(site["tmp"], f"--screenshot={shot}", page.as_uri())
    img = Image.open(shot).convert("RGB")
    assert img.size == (WIDTH, HEIGHT)
    px = np.asarray(img, dtype=np.float64)
    assert px.std() > 20, "the screenshot is (nearly) blank"
    assert (px.min(axis=2) < 128).mean() > 0.01, "no dark pixels: no text rendered"

    box = next(b for b in image_boxes(rendered_dom(site, page)) if b["file"] == "skill-ladder.png")
    assert 0 <= box["y"] and box["y"] + box["h"] <= HEIGHT, f"the first plot is not in the screenshot: {box}"
    region = px[box["y"]:box["y"] + box["h"], box["x"]:box["x"] + box["w"]]
    nonwhite = (region.min(axis=2) < 235).mean()
    colourful = ((region.max(axis=2) - region.min(axis=2)) > 60).mean()
    assert nonwhite > 0.02 and colourful > 0.005, f"the plot's region looks empty ({nonwhite=:.3f}, {colourful=:.3f})"
    # ... and it is the report's plot: the source PNG scaled to the same box matches the pixels
    src = page.parent / box["file"]
    want = np.asarray(Image.open(src).convert("RGB").resize((box["w"], box["h"]), Image.LANCZOS), dtype=np.float64)
    diff = np.abs(region - want).mean()
    assert diff < 12, f"the rendered plot differs from {src.name} (mean abs difference {diff:.1f}/255)"


LAYOUT_PROBE = """<script>
// measured on load, after the page's own load handlers (the scroll bar above a long table): reading a size
// forces the layout they caused
addEventListener("load", () => {
  const vw = document.documentElement.clientWidth;
  const out = {vw, page: document.documentElement.scrollWidth, tables: [], images: [],
               gutter: getComputedStyle(document.documentElement).scrollbarGutter};
  for (const w of document.querySelectorAll(".table-wrap")) {
    const t = w.querySelector("table"), s = getComputedStyle(w);
    const r = w.getBoundingClientRect();
    // the cut-off part can be reached: scrolled to the end, the table's right edge is inside the box
    w.scrollLeft = w.scrollWidth;
    const reach = t.getBoundingClientRect().right - w.getBoundingClientRect().right;
    w.scrollLeft = 0;
    out.tables.push({wrap: w.clientWidth, table: t.scrollWidth, content: w.scrollWidth, overflow: s.overflowX,
                     left: r.left, right: r.right, scrollbar: w.offsetHeight - w.clientHeight, reach});
  }
  for (const img of document.images) {
    const r = img.getBoundingClientRect();
    out.images.push({left: r.left, right: r.right, w: r.width, nw: img.naturalWidth});
  }
  document.body.dataset.layout = JSON.stringify(out);
});
</script>
"""


def layout(site, page: Path, width: int) -> dict:
    import json

    probe = page.with_name(page.stem + f"-layout-{width}.html")
    probe.write_text(page.read_text(encoding="utf-8").replace("</body>", LAYOUT_PROBE + "</body>"), encoding="utf-8")
    profile = site["tmp"] / f"chromium-{width}"
    profile.mkdir(exist_ok=True)
    cmd = [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-extensions",
           "--force-device-scale-factor=1", f"--user-data-dir={profile}", f"--window-size={width},1200",
           "--dump-dom", probe.as_uri()]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
    finally:
        probe.unlink()
    assert proc.returncode == 0, proc.stderr[-2000:]
    body = next(a for t, a in Parsed(proc.stdout).tags if t == "body")
    return json.loads(body["data-layout"])


@pytest.mark.parametrize("width", [500, 1400])
def test_every_page_fits_a_narrow_and_a_wide_window(site, width):
    """No page is wider than the window; a table wider than its box scrolls (with a visible bar); every plot
    fits the window."""
    for page in [*site["pages"], site["index"]]:
        lay = layout(site, page, width)
        vw = lay["vw"]
        assert vw <= width + 20
        # the page bar's room is kept from the first layout; without it Chromium sometimes lays a table that
        # overflows by a few pixels out cut, with no scroll bar (7 of 95 renders of the Bounty Hunter page)
        assert lay["gutter"].startswith("stable"), f"{page.name}: the page's scroll bar has no reserved room"

        assert lay["page"] <= vw + 1, f"{page.name} at {width}px: the page is {lay['page']}px wide (clipped)"
        for t in lay["tables"]:
            assert t["left"] >= -1 and t["right"] <= vw + 1, (page.name, width, t)
            if max(t["table"], t["content"]) > t["wrap"] + 1:
                assert t["overflow"] in ("auto", "scroll") and t["scrollbar"] > 0, \
                    f"{page.name} at {width}px: a table is cut off without a visible scroll bar: {t}"
                assert t["reach"] <= 1, f"{page.name} at {width}px: scrolled to the end, a table is still cut off: {t}"
        for img in lay["images"]:
            assert img["left"] >= -1 and img["right"] <= vw + 1, (page.name, width, img)
    if width == 500:
        # the Lonequest report has tables wider than a phone: they must scroll, not be cut off
        lay = layout(site, site["page"], width)
        assert any(t["table"] > t["wrap"] + 1 for t in lay["tables"])


def test_index_shows_each_reports_headline_and_plot(site):
    text = site["index"].read_text(encoding="utf-8")
    doc = Parsed(text)
    cards = [a for a in doc.all("article") if a.get("class") == "card"]
    assert len(cards) == 2
    thumbs = [i for i in doc.all("img") if i.get("class") == "thumb"]
    assert len(thumbs) == 2 and all(i["src"].startswith("data:image/png;base64,") for i in thumbs)
    assert "Chi-square of the simulated outcomes" in doc.plain  # the Chance Strike report's answer
    assert doc.plain.count("Stand-in card data.") == 1


def test_plots_keep_legends_off_the_lines_and_labels_inside(monkeypatch, tmp_path):
    import numpy as np

    from simkit.core import plotting

    figs = []
    real_save = plotting._save

    def keep(fig, path):
        fig.canvas.draw()
        r = fig.canvas.get_renderer()
        figs.append({"axes": fig.axes[0].get_window_extent(r),
                     "legend": [lg.get_window_extent(r) for ax in fig.axes if (lg := ax.get_legend())],
                     "texts": [t.get_window_extent(r) for ax in fig.axes
                               for t in (ax.title, ax.xaxis.label, ax.yaxis.label) if t.get_text()],
                     "tight": fig.get_tightbbox(r).transformed(fig.dpi_scale_trans)})
        return real_save(fig, path)

    monkeypatch.setattr(plotting, "_save", keep)
    x = np.arange(1, 21)
    plotting.lines(tmp_path / "l.png", x, {f"series {i} with a long label": 1 - 0.9 ** (x + i) for i in range(8)},
                   title="t", xlabel="turn", ylabel="P")
    leg, = figs[0]["legend"]
    ax = figs[0]["axes"]
    assert leg.x0 >= ax.x1 or leg.y1 <= ax.y0 or leg.x1 <= ax.x0 or leg.y0 >= ax.y1, "the legend covers the plot"
    plotting.heatmap(tmp_path / "h.png", np.array([[0.2, 0.7]]), [3, 4], [5],
                     title="VÁLKA Chance Strike: P(attacker hits), Strike bonus +3", xlabel="attacker total Strike",
                     ylabel="defender total Shield", cbar_label="P(attacker deals 1 damage)")
    from PIL import Image

    w, h = Image.open(tmp_path / "h.png").size
    tight = figs[1]["tight"]
    for t in figs[1]["texts"]:  # the title and both axis labels lie inside the saved image
        assert t.x0 >= tight.x0 - 1 and t.x1 <= tight.x1 + 1 and t.y0 >= tight.y0 - 1 and t.y1 <= tight.y1 + 1
    assert w >= figs[1]["texts"][0].width  # the title is not cut



def test_card_names_that_start_with_a_number_stay_left_aligned(tmp_path):
    """A Buff named "+2 Health" is text: the column follows the Markdown alignment row that ``tables.render``
    writes, and an unaligned table's cells must be numbers through and through to be right-aligned."""
    from simkit.core.tables import render

    rows = [{"card": "+2 Health", "effect [95%]": "+0.012 [-0.004, +0.028]", "n": 783},
            {"card": "+3 Strike", "effect [95%]": "–", "n": 12}]
    md = tmp_path / "r.md"
    md.write_text("# t\n\n" + render(rows, "md") + "\n| name | n |\n|---|---|\n| +2 Health | 3 |\n| troll | 4 |\n",
                  encoding="utf-8")
    text = markdown_to_html(md).read_text(encoding="utf-8")
    assert "<td>+2 Health</td>" in text and "<td>+3 Strike</td>" in text and "<th>card</th>" in text
    # an estimate with its interval: two unbreakable parts, the interval free to wrap under the estimate
    assert '<td class="num iv"><span>+0.012</span> <span>[-0.004, +0.028]</span></td>' in text
    assert '<th class="num">n</th>' in text
    assert '<td class="num">–</td>' in text  # a blank in a number column lines up with the numbers
    assert text.count("<td>+2 Health</td>") == 2 and '<td class="num">4</td>' in text
    assert "text-align" not in text.split("<main", 1)[1]  # the alignment is the page's CSS class, not a style


def test_index_sections_are_games_and_no_two_cards_share_a_title(tmp_path):
    from simkit.core.html import _page, page_section

    games = {"valka": "VÁLKA", "valhalla": "Valhalla Solo Mode", "vi": "The Valkyrie Incident",
             "valeria": "Valeria: Card Kingdoms 2E (Herald, Monster Events)"}
    assert page_section("VÁLKA Duel: seats", games) == "valka"
    assert page_section("Valhalla Solo: how hard are the difficulty levels?", games) == "valhalla"
    assert page_section("The Valkyrie Incident: Emblem match-ups", games) == "vi"
    assert page_section("Valeria: Card Kingdoms 2E activation odds", games) == "valeria"
    assert page_section("The Other Game", games) is None  # one shared word ("the") is not a match
    pages = []
    for rel in ("multiplayer/bounty-hunter/report.html", "multiplayer/bounty-hunter-tables/report.html",
                "odds/chance-strike.html"):
        page = tmp_path / rel
        page.parent.mkdir(parents=True, exist_ok=True)
        title = "VÁLKA Chance Strike odds" if "odds" in rel else "VÁLKA Bounty Hunter: seats and cards"
        page.write_text(_page(title, f"<main><h1>{title}</h1><p>The answer in numbers, first.</p></main>"))
        pages.append(page)
    text = write_index(tmp_path, pages).read_text(encoding="utf-8")
    titles = re.findall(r"<h3><a [^>]*>([^<]*)</a></h3>", text)
    assert len(titles) == 3 and len(set(titles)) == 3, titles
    assert "VÁLKA Bounty Hunter: seats and cards (bounty hunter tables)" in titles
    assert re.findall(r"<h2>([^<]*)</h2>", text) == ["VÁLKA"]
    assert not re.search(r"<h2>[^<]*/</h2>", text)


CUT_PROBE = """<script>
addEventListener("load", () => {
  const out = [];
  for (const w of document.querySelectorAll(".table-wrap")) {
    const t = w.querySelector("table"), top = w.previousElementSibling;
    const bar = top !== null && top.classList.contains("scroll-top") ? top : null;
    out.push({wrap: w.clientWidth, table: t.scrollWidth, rows: t.rows.length,
              overflow: getComputedStyle(w).overflowX, scrollbar: w.offsetHeight - w.clientHeight,
              head: t.rows[0].innerText.slice(0, 80),
              top: bar === null ? null : {height: bar.offsetHeight, scroll: bar.scrollWidth,
                                          bottom: bar.getBoundingClientRect().bottom,
                                          wrapTop: w.getBoundingClientRect().top}});
  }
  document.body.dataset.cut = JSON.stringify(out);
});
</script>
"""


def committed_pages(tmp: Path) -> list[Path]:
    """Every committed report under reports/, its Markdown and plots copied and rendered with today's code."""
    out = tmp / "committed"
    pages = []
    for md in sorted((ROOT / "reports").rglob("*.md")):
        rel = md.relative_to(ROOT / "reports")
        dest = out / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        for f in md.parent.iterdir():
            if f.suffix.lower() in (".md", ".png", ".svg"):
                shutil.copy(f, dest.parent / f.name)
        pages.append(markdown_to_html(dest))
    return [*pages, write_index(out, pages)]


@pytest.mark.parametrize("width", [1400, 500])
def test_every_committed_page_has_no_cut_table(tmp_path, width):
    """At 1,400 px every table of every report page fits the page (issue 39: no column off screen; a wide one is
    split by the report or puts its intervals under their estimates). In a 500 px window a table wider than its
    box scrolls with a visible scroll bar, and a long one (more than 12 rows) has a second bar right above it that
    scrolls as far."""
    import json

    pages = committed_pages(tmp_path)
    assert len(pages) >= 10
    profile = tmp_path / "chromium-cut"
    profile.mkdir(exist_ok=True)
    scrolling = 0
    for page in pages:
        probe = page.with_name(page.stem + "-cut.html")
        probe.write_text(page.read_text(encoding="utf-8").replace("</body>", CUT_PROBE + "</body>"),
                         encoding="utf-8")
        cmd = [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
               "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
               "--disable-extensions", "--force-device-scale-factor=1", f"--user-data-dir={profile}",
               f"--window-size={width},1000", "--dump-dom", probe.as_uri()]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
        probe.unlink()
        assert proc.returncode == 0, proc.stderr[-2000:]
        body = next(a for t, a in Parsed(proc.stdout).tags if t == "body")
        for t in json.loads(body["data-cut"]):
            where = f"{page.relative_to(tmp_path)}: table '{t['head']}'"
            if width >= 1400:
                assert t["table"] <= t["wrap"] + 1, f"{where} is {t['table']} px wide in a {t['wrap']} px page"
            if t["table"] <= t["wrap"] + 1:
                assert t["top"] is None, f"{where} fits but has a second scroll bar"
                continue
            scrolling += 1
            assert t["overflow"] in ("auto", "scroll") and t["scrollbar"] > 0, f"{where} is cut: {t}"
            if t["rows"] > 12:
                top = t["top"]
                assert top is not None and top["height"] > 0, f"{where}: a long wide table without a bar above"
                assert abs(top["scroll"] - t["table"]) <= 2 and 0 <= top["wrapTop"] - top["bottom"] <= 4, (where, t)
    print(f"{scrolling} tables scroll sideways at {width:,} px")


def test_report_only_one_game_keeps_the_others_in_the_index(tmp_path):
    """``simkit report --bundled --only valeria --html`` writes Valeria's odds page and rebuilds the index with
    the pages already there (one game's reports can be redrawn alone); an unknown game is one line, exit 2."""
    from click.testing import CliRunner

    from simkit.cli import cli

    other = tmp_path / "elsewhere" / "report.md"
    other.parent.mkdir()
    other.write_text("# Another game: its report\n\nA headline.\n", encoding="utf-8")
    markdown_to_html(other)
    r = CliRunner().invoke(cli, ["report", "--bundled", "--only", "valeria", "--html", "--out", str(tmp_path)])
    assert r.exit_code == 0, r.output
    index = (tmp_path / "index.html").read_text(encoding="utf-8")
    assert 'href="elsewhere/report.html"' in index
    assert 'href="odds/valeria.html"' in index
    assert not (tmp_path / "lonequest").exists()
    bad = CliRunner().invoke(cli, ["report", "--bundled", "--only", "chess", "--out", str(tmp_path / "x")])
    assert bad.exit_code == 2
    assert "--only" in bad.output and "chess" in bad.output and "valeria" in bad.output
    assert not (tmp_path / "x").exists()


def test_index_card_cuts_a_long_headline_at_a_clause_never_inside_a_number(tmp_path):
    """A card shortens a long answer at the end of a sentence or clause, never inside an interval or before the
    number it names (the committed Valhalla card ended in "Level I − III = …", the Incident's in "worst …")."""
    from simkit.core.html import _page, cut_headline

    lead = ("The answer. Alpha wins 0.496 [0.480, 0.511] of standard games (draws 0.011 [0.009, 0.013]) and "
            "0.487 [0.480, 0.494] of blitz games. Emblems, standard: best ember wins 0.572 [0.561, 0.583] of its "
            "games, worst thorn 0.428 [0.418, 0.439]; blitz: best ember 0.772 [0.763, 0.781], worst tide 0.096 ")
    para = lead + "[0.090, 0.103], " + "and more words " * 30
    for limit in range(200, len(lead) + 20, 7):
        cut = cut_headline(para, limit)
        assert cut.endswith(" …") and len(cut) <= limit + 2
        body = cut[:-2]
        assert body.count("[") == body.count("]") and body.count("(") == body.count(")"), body
        assert body.endswith(".") or para[len(body)] in ";,", body  # a sentence or clause end, not a cut word
    assert cut_headline("Short answer 0.5 [0.4, 0.6].", 480) == "Short answer 0.5 [0.4, 0.6]."
    page = tmp_path / "r.html"
    page.write_text(_page("t", f"<main><h1>t</h1><p>{para}</p></main>"), encoding="utf-8")
    text = write_index(tmp_path, [page]).read_text(encoding="utf-8")
    shown = re.search(r'<p class="headline">(.*?)</p>', text, re.S).group(1)
    assert "worst thorn 0.428 [0.418, 0.439]" in shown and not shown.rstrip(" …").endswith(("[", ","))


def _cards(index_html: str) -> dict[str, str]:
    """{page href: the answer text of its card} of an index page (every p.headline of the card, " …" dropped)."""
    import html as _html

    out = {}
    for art in re.findall(r'<article class="card">(.*?)</article>', index_html, re.S):
        href = re.search(r'<h3><a href="([^"]+)">', art).group(1)
        parts = [_html.unescape(p) for p in re.findall(r'<p class="headline">(.*?)</p>', art, re.S)]
        out[href] = " ".join(p[:-2] if p.endswith(" …") else p for p in parts)
    return out


def test_a_long_answer_keeps_every_word_on_its_card(tmp_path):
    """A card shows the first 480 characters of a long answer and keeps the rest behind "the rest of the
    answer" (the committed cards lost the Incident's worst Emblem and Valeria's every table size); a short
    answer is shown whole, with no fold."""
    from simkit.core.html import _page, card_answer

    para = "Seat advantage 0.412 [0.396, 0.427]; " * 30 + "worst Emblem thorn 0.428 [0.418, 0.439]."
    card = card_answer(para)
    assert '<details class="more"><summary>the rest of the answer</summary>' in card
    assert len(re.search(r'<p class="headline">(.*?)</p>', card).group(1)) <= 482
    short = card_answer("Short answer 0.5 [0.4, 0.6].")
    assert short == '<p class="headline">Short answer 0.5 [0.4, 0.6].</p>'
    page = tmp_path / "r.html"
    page.write_text(_page("t", f"<main><h1>t</h1><p>{para}</p></main>"), encoding="utf-8")
    assert _cards(write_index(tmp_path, [page]).read_text(encoding="utf-8")) == {"r.html": para}


def test_every_committed_card_carries_its_pages_whole_answer():
    """reports/index.html: each card's answer, fold included, is its page's whole first paragraph."""
    from urllib.parse import unquote

    from simkit.core.html import page_headline

    cards = _cards((ROOT / "reports" / "index.html").read_text(encoding="utf-8"))
    assert len(cards) >= 13
    for href, answer in cards.items():
        assert answer == page_headline(ROOT / "reports" / unquote(href))[0], href


def test_a_pages_headline_is_its_one_sentence_lead(tmp_path):
    """Issue 39: a report page opens with "**In one sentence.** …" after the stand-in notice; its headline (the
    index card, the README's quotes) is that sentence without the marker, not the details below it."""
    from simkit.core.html import markdown_to_html, page_headline
    from simkit.core.report import DETAILS_MARKER, STAND_IN_NOTICE, lead_of, lead_paragraph

    lead = "Weakest Warband: goblins, winning 0.645 [0.636, 0.655] of Lonequests (`learned` policy, 1,500 games)."
    md = tmp_path / "report.md"
    md.write_text(f"# T\n\n{STAND_IN_NOTICE}\n\n{lead_paragraph(lead)}\n\n{DETAILS_MARKER} Long answer 0.5 [0.4, 0.6]."
                  "\n\n## Section\n\nText.\n", encoding="utf-8")
    assert lead_of(md.read_text(encoding="utf-8")) == lead
    head, _, notice = page_headline(markdown_to_html(md))
    assert head == lead.replace("`", "") and notice


def test_every_report_page_links_back_to_the_index(tmp_path):
    """The designer review: a report page had no way back to the index. write_index puts one link at the top of
    each page's main, relative to where the page sits, and writing the index again does not add a second."""
    pages = []
    for rel in ("lonequest/report.md", "multiplayer/duel/report.md"):
        md = tmp_path / rel
        md.parent.mkdir(parents=True)
        md.write_text("# A page\n\n**In one sentence.** Goblins win least of all, by far and away.\n")
        pages.append(markdown_to_html(md))
    for _ in range(2):
        index = write_index(tmp_path, pages)
    for page in pages:
        text = page.read_text()
        links = re.findall(r'<p class="back"><a href="([^"]+)">← All reports</a></p>', text)
        assert len(links) == 1 and (page.parent / links[0]).resolve() == index.resolve(), links
        assert text.index('<main class="report">') < text.index('class="back"') < text.index("<h1")
