"""Self-contained HTML pages for the Markdown reports.

Every report is written as Markdown with its plots next to it; these helpers turn
each Markdown report into one HTML page that needs nothing else: the CSS is
inline and the plots are embedded as ``data:`` URIs, so the page makes no
requests and can be mailed or opened from anywhere. ``reports/index.html``
links the pages.
"""

from __future__ import annotations

import base64
import html
import mimetypes
import os
import re
import xml.etree.ElementTree as etree
from pathlib import Path

import markdown
from markdown.extensions import Extension
from markdown.treeprocessors import Treeprocessor

from simkit.core.tables import is_empty_cell, is_number_cell

CSS = """
:root { color-scheme: light; --fg: #1f2328; --muted: #59636e; --line: #d1d9e0; --zebra: #f6f8fa;
        --accent: #0969da; --note: #fff8c5; --note-line: #d4a72c; }
* { box-sizing: border-box; }
/* The page's vertical scroll bar has its room from the first layout: when it appeared mid-layout, Chromium froze
   the scroll bars of the boxes inside, and a table a few pixels wider than its box (once the page bar took its
   room) was sometimes laid out cut, with no scroll bar of its own (about 7% of renders; issue 37). */
html { -webkit-text-size-adjust: 100%; scrollbar-gutter: stable; }
body { margin: 0 auto; padding: 2rem 1.5rem 4rem; max-width: 100rem; color: var(--fg); background: #fff;
       font: 16px/1.6 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", "DejaVu Sans",
       "Liberation Sans", Arial, sans-serif; }
main { overflow-wrap: break-word; }  /* a long name or path wraps instead of widening a narrow page */
h1, h2, h3, h4 { line-height: 1.25; margin: 2rem 0 0.75rem; }
h1 { font-size: 2rem; margin-top: 0; padding-bottom: 0.3em; border-bottom: 1px solid var(--line); }
h2 { font-size: 1.5rem; padding-bottom: 0.25em; border-bottom: 1px solid var(--line); }
h3 { font-size: 1.2rem; }
p, ul, ol, blockquote, pre, .table-wrap, figure { margin: 0 0 1rem; }
figure img { margin: 0; }
p, li { max-width: 48rem; }
a { color: var(--accent); }
code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "DejaVu Sans Mono", monospace;
       font-size: 0.875em; background: var(--zebra); border-radius: 4px; padding: 0.1em 0.25em; }
pre { background: var(--zebra); border: 1px solid var(--line); border-radius: 6px; padding: 0.75rem 1rem;
      overflow-x: auto; }
pre code { background: none; padding: 0; font-size: 0.85em; }
blockquote { max-width: 48rem; padding: 0.6rem 1rem; color: var(--fg); background: var(--note);
             border-left: 4px solid var(--note-line); border-radius: 0 6px 6px 0; }
blockquote p:last-child { margin-bottom: 0; }
/* A wide table scrolls inside its box, and shows that it does: a visible scroll bar and a shadow at the
   edge that hides columns (the shadows are backgrounds that move with the scroll position). */
.table-wrap { overflow-x: auto; max-width: 100%; scrollbar-width: thin; scrollbar-color: #8c959f #f6f8fa;
              background: linear-gradient(to right, #fff 30%, rgba(255,255,255,0)) left / 2rem 100% no-repeat local,
                          linear-gradient(to left, #fff 30%, rgba(255,255,255,0)) right / 2rem 100% no-repeat local,
                          radial-gradient(farthest-side at 0 50%, rgba(0,0,0,.25), rgba(0,0,0,0)) left / 0.75rem 100% no-repeat scroll,
                          radial-gradient(farthest-side at 100% 50%, rgba(0,0,0,.25), rgba(0,0,0,0)) right / 0.75rem 100% no-repeat scroll; }
.table-wrap::-webkit-scrollbar { height: 10px; }
.table-wrap::-webkit-scrollbar-thumb { background: #8c959f; border-radius: 5px; }
.table-wrap::-webkit-scrollbar-track { background: #f6f8fa; }
.table-wrap table { background: transparent; }
/* A long table that scrolls sideways also gets a scroll bar above it (the script below adds it), so the bar
   is in sight where the table starts. */
.scroll-top { overflow-x: auto; overflow-y: hidden; height: 12px; margin: 0 0 2px; scrollbar-width: thin;
              scrollbar-color: #8c959f #f6f8fa; }
.scroll-top > div { height: 1px; }
.scroll-top::-webkit-scrollbar { height: 10px; }
.scroll-top::-webkit-scrollbar-thumb { background: #8c959f; border-radius: 5px; }
.scroll-top::-webkit-scrollbar-track { background: #f6f8fa; }
table { border-collapse: collapse; font-size: 0.875rem; font-variant-numeric: tabular-nums; }
th, td { padding: 0.3rem 0.55rem; border: 1px solid var(--line); text-align: left; vertical-align: top; }
th { overflow-wrap: normal; hyphens: auto; }
th { background: #eef1f4; font-weight: 600; }
tbody tr:nth-child(even) { background: var(--zebra); }
tbody tr:hover { background: #eaf2fc; }
td.num, th.num { text-align: right; }
td.num { white-space: nowrap; }
.back { font-size: 0.85rem; margin: 0 0 0.5rem; }
/* An estimate with its interval may put the interval under the estimate when the table would not fit the
   window ("0.873" over "[0.872, 0.874]"), as the terminal tables do; each part stays whole. */
td.num.iv { white-space: normal; }
td.num.iv > span { white-space: nowrap; }
img { display: block; max-width: 100%; height: auto; margin: 0 0 1rem; border: 1px solid var(--line);
      border-radius: 6px; }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(100%, 20rem), 1fr)); gap: 1rem;
         margin: 0 0 1.5rem; }
.card { border: 1px solid var(--line); border-radius: 8px; padding: 0.75rem 1rem; min-width: 0; }
.card h3 { margin: 0.25rem 0 0.5rem; font-size: 1.05rem; }
.card img.thumb { width: 100%; height: 9rem; object-fit: contain; margin: 0 0 0.5rem; background: #fff; }
.card p.headline { margin: 0 0 0.5rem; font-size: 0.9rem; overflow-wrap: anywhere; }
.card .path { color: var(--muted); font-size: 0.8em; }
nav.index ul { list-style: none; padding-left: 0; }
nav.index li { margin: 0.25rem 0; }
nav.index .path { color: var(--muted); font-size: 0.85em; margin-left: 0.5em; }
footer { margin-top: 3rem; color: var(--muted); font-size: 0.85rem; }
@media print { body { max-width: none; padding: 0; } tbody tr:hover { background: none; } }
"""

# Keeps a scroll bar above every long table that is wider than its box (and in step with the one below).
SCROLL_SCRIPT = """<script>
(() => {
  const LONG = 12;  // rows: a table this long gets a second scroll bar above it
  function bars() {
    for (const wrap of document.querySelectorAll(".table-wrap")) {
      const table = wrap.querySelector("table");
      let top = wrap.previousElementSibling;
      const has = top !== null && top.classList.contains("scroll-top");
      const need = table !== null && table.rows.length > LONG && wrap.scrollWidth > wrap.clientWidth + 1;
      if (need && !has) {
        top = document.createElement("div");
        top.className = "scroll-top";
        top.setAttribute("aria-hidden", "true");
        top.appendChild(document.createElement("div"));
        wrap.before(top);
        top.addEventListener("scroll", () => { wrap.scrollLeft = top.scrollLeft; });
        wrap.addEventListener("scroll", () => { top.scrollLeft = wrap.scrollLeft; });
      } else if (!need && has) {
        top.remove();
      }
      if (need) top.firstChild.style.width = wrap.scrollWidth + "px";
    }
  }
  addEventListener("load", bars);
  addEventListener("resize", bars);
})();
</script>"""


INDEX_CSS = """
.card details.more { margin: -0.25rem 0 0.5rem; font-size: 0.9rem; }
.card details.more summary { color: var(--muted); cursor: pointer; }
"""  # the index's own rules (the report pages' CSS stays as it is)


def _page(title: str, body: str, extra_css: str = "") -> str:
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        # Belt and braces for "no external requests": the page may only use what it carries.
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; img-src data:; "
        "style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\n"
        f"<title>{html.escape(title)}</title>\n<style>{CSS}{extra_css}</style>\n</head>\n<body>\n"
        f"{body}\n{SCROLL_SCRIPT}\n</body>\n</html>\n"
    )


def _text(el: etree.Element) -> str:
    return re.sub(r"\s+", " ", "".join(el.itertext())).strip()


def _split_interval(td: etree.Element) -> None:
    """A number cell "0.873 [0.872, 0.874]" (plain text) as two unbreakable parts with a breakable space between,
    so that a table too wide for the window can put the interval under the estimate (class ``iv``)."""
    text = td.text or ""
    if td.tag != "td" or len(td) or " [" not in text:
        return
    est, _, rest = text.strip().partition(" [")
    td.text = None
    first = etree.SubElement(td, "span")
    first.text = est
    first.tail = " "
    second = etree.SubElement(td, "span")
    second.text = "[" + rest
    td.set("class", "num iv")


class _ReportTree(Treeprocessor):
    """Embeds images, marks numeric table cells, wraps tables, records the title."""

    def __init__(self, md, base: Path):
        super().__init__(md)
        self.base = base
        self.title: str | None = None

    def run(self, root: etree.Element) -> None:
        for el in root.iter():
            if self.title is None and el.tag in ("h1", "h2", "h3", "h4", "h5", "h6"):
                self.title = _text(el)
            if el.tag == "img":
                self._embed(el)
        for p in root.iter("p"):
            # A plot on its own line becomes a figure: it may use the page's width, not the text column's.
            kids = list(p)
            if len(kids) == 1 and kids[0].tag == "img" and not (p.text or "").strip() \
                    and not (kids[0].tail or "").strip():
                p.tag = "figure"
        for table in list(root.iter("table")):
            self._align(table)
        self._wrap_tables(root)

    def _embed(self, img: etree.Element) -> None:
        src = img.get("src", "")
        if src.startswith("data:"):
            return
        if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:|^//", src):
            raise ValueError(f"{self.base}: image {src!r} is not a local file; a report page embeds its plots")
        path = (self.base / src).resolve()
        if not path.is_file():
            raise FileNotFoundError(f"{self.base}: the report shows {src!r}, but {path} does not exist")
        mime = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        img.set("src", f"data:{mime};base64," + base64.b64encode(path.read_bytes()).decode("ascii"))
        img.set("data-file", src)
        # Marks the image once the browser has decoded it (the browser test checks for it).
        img.set("onload", "this.dataset.loaded=1")
        if not img.get("title") and img.get("alt"):
            img.set("title", img.get("alt"))

    @staticmethod
    def _align(table: etree.Element) -> None:
        """Right-align the columns the Markdown alignment row marks ``---:`` (``tables.render`` marks the
        number columns); a table without alignment marks gets them from its cells (a number, not a word that
        starts with one: "+2 Health" stays left)."""
        rows = [tr for tr in table.iter("tr")]
        cells = [tr.findall("th") + tr.findall("td") for tr in rows]
        marked = any("text-align" in (c.get("style") or "") or c.get("align") for row in cells for c in row)
        numeric_cols: dict[int, bool] = {}
        for tr, row in zip(rows, cells):
            for i, c in enumerate(row):
                style = (c.get("style") or "") + " " + (c.get("align") or "")
                if marked:
                    numeric_cols[i] = "right" in style
                elif c.tag == "td" and not is_empty_cell(_text(c)):
                    numeric_cols[i] = numeric_cols.get(i, True) and is_number_cell(_text(c))
                c.attrib.pop("style", None)
                c.attrib.pop("align", None)
        for row in cells:
            for i, c in enumerate(row):
                if numeric_cols.get(i):
                    c.set("class", "num")
                    _split_interval(c)

    @staticmethod
    def _wrap_tables(root: etree.Element) -> None:
        for parent in list(root.iter()):
            for i, child in enumerate(list(parent)):
                if child.tag == "table":
                    wrap = etree.Element("div", {"class": "table-wrap"})
                    parent.remove(child)
                    wrap.append(child)
                    wrap.tail, child.tail = child.tail, None
                    parent.insert(i, wrap)


class _ReportExtension(Extension):
    def __init__(self, base: Path):
        super().__init__()
        self.base = base
        self.tree: _ReportTree | None = None

    def extendMarkdown(self, md) -> None:  # noqa: N802 (Python-Markdown's API)
        self.tree = _ReportTree(md, self.base)
        # After the inline processor (priority 20), so images and inline markup exist.
        md.treeprocessors.register(self.tree, "simkit_report", 5)


def render_markdown(text: str, base: Path) -> tuple[str, str | None]:
    """``(body HTML, first heading)`` of Markdown text whose images are relative to ``base``."""
    ext = _ReportExtension(Path(base))
    md = markdown.Markdown(extensions=["tables", "fenced_code", "sane_lists", ext], output_format="html")
    body = md.convert(text)
    return body, ext.tree.title if ext.tree else None


def markdown_to_html(md_path: str | Path) -> Path:
    """Write ``md_path`` as a self-contained HTML page next to it (same name, ``.html``)."""
    md_path = Path(md_path)
    body, title = render_markdown(md_path.read_text(encoding="utf-8"), md_path.parent)
    out = md_path.with_suffix(".html")
    out.write_text(_page(title or md_path.stem, f'<main class="report">\n{body}\n</main>'), encoding="utf-8")
    return out


def page_title(page: str | Path) -> str:
    """The ``<title>`` of an HTML page (its file name when it has none)."""
    page = Path(page)
    m = re.search(r"<title>(.*?)</title>", page.read_text(encoding="utf-8"), re.S | re.I)
    return html.unescape(m.group(1)).strip() if m and m.group(1).strip() else page.stem


_NOTICE_P = re.compile(r"<blockquote>.*?</blockquote>", re.S)


def cut_headline(para: str, limit: int = 480) -> str:
    """``para`` shortened to at most ``limit`` characters (plus " …") at the end of a sentence, or failing that of
    a clause ("; ", ", "), never inside an interval or a parenthesis: a card never ends in "[0.480," or "= …"."""
    if len(para) <= limit:
        return para
    last: dict[str, int] = {}  # the last sentence / clause end (outside brackets) within the limit
    depth = 0
    for i, ch in enumerate(para[:limit]):
        if ch in "[(":
            depth += 1
        elif ch in "])":
            depth = max(0, depth - 1)
        elif depth == 0 and ch in ".;," and para[i + 1:i + 2] == " " and i >= limit // 3:
            last[ch] = i
    for mark in (".", ";", ","):
        if mark in last:
            return para[:last[mark] + (mark == ".")] + " …"
    return para[:limit].rsplit(" ", 1)[0] + " …"


CARD_LIMIT = 480  # characters of a card's answer shown before "the rest of the answer"


def card_answer(para: str, limit: int = CARD_LIMIT) -> str:
    """A card's answer: the page's whole first paragraph, its first ``limit`` characters shown (cut at a
    sentence or clause end, :func:`cut_headline`) and the rest behind "the rest of the answer", so a card is
    short and loses none of its answer (the best and worst Emblem, the skill spread, every table size)."""
    short = cut_headline(para, limit)
    if short == para:
        return f'<p class="headline">{html.escape(para)}</p>'
    lead = short[:-2]  # without " …"; a clause's own mark stays with it ("…, worst thorn 0.428;")
    if para[len(lead):len(lead) + 1] in (";", ","):
        lead = para[:len(lead) + 1]
    rest = para[len(lead):].strip()
    return (f'<p class="headline">{html.escape(lead)} …</p><details class="more"><summary>the rest of the '
            f'answer</summary><p class="headline">{html.escape(rest)}</p></details>')


def page_headline(page: str | Path, limit: int | None = None) -> tuple[str, str | None, bool]:
    """``(headline, thumbnail data URI, has stand-in notice)`` of a report page: its first paragraph (the
    report's answer, before any detail: the lead sentence, its "In one sentence." marker left off; whole, or cut
    at a sentence or clause end after ``limit`` characters, :func:`cut_headline`) and its first plot."""
    from simkit.core.report import LEAD_MARKER

    text = Path(page).read_text(encoding="utf-8")
    main = text.split("<main", 1)[-1]
    notice = "Stand-in card data." in main
    body = _NOTICE_P.sub("", main)
    para = None
    for m in re.finditer(r"<p>(.*?)</p>", body, re.S):
        inner = m.group(1)
        if "<img" in inner:
            continue
        plain = html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", inner))).strip()
        if len(plain) > 20:
            para = plain.removeprefix(LEAD_MARKER.strip("*")).strip()  # the marker as the page shows it
            break
    if para and limit is not None:
        para = cut_headline(para, limit)
    img = re.search(r'<img[^>]*\ssrc="(data:image/[^"]+)"', main)
    return para or "", (img.group(1) if img else None), notice


def _words(text: str) -> list[str]:
    return [w.casefold() for w in re.findall(r"[^\W_]+", text)]


def page_section(title: str, games: dict[str, str]) -> str | None:
    """The game a report page is about: the registered game (``{name: title}``) whose title's leading words
    the page title starts with (the whole lead, or at least two words of it; the longest match wins)."""
    page = _words(title)
    best, best_len = None, 0
    for name, game_title in games.items():
        lead = _words(re.split(r"[:(,]", game_title, maxsplit=1)[0])
        n = 0
        while n < min(len(lead), len(page)) and lead[n] == page[n]:
            n += 1
        if (n == len(lead) or n >= 2) and n > best_len:
            best, best_len = name, n
    return best


def _game_titles() -> dict[str, str]:
    try:
        from simkit.core import registry

        return {g.name: g.title for g in registry.games().values()}
    except Exception:  # the index is still written (in one section) without the registry
        return {}


def _distinct_titles(entries: list[tuple[str, str]]) -> dict[str, str]:
    """``{rel: shown title}``: a title that two pages share gets the words of the page's path that tell them
    apart ("… (bounty hunter tables)"), so that no two cards read alike."""
    by_title: dict[str, list[str]] = {}
    for rel, title in entries:
        by_title.setdefault(title, []).append(rel)
    shown = {}
    for title, rels in by_title.items():
        if len(rels) == 1:
            shown[rels[0]] = title
            continue
        parts = [Path(r).with_suffix("").parts for r in rels]
        for rel, ps in zip(rels, parts):
            own = [p for p in ps if p not in ("report",) and sum(p in q for q in parts) < len(parts)]
            label = " ".join(own or ps).replace("-", " ").replace("_", " ")
            shown[rel] = f"{title} ({label})"
    return shown


def write_index(reports_dir: str | Path, pages: list[Path]) -> Path:
    """Write ``reports_dir/index.html``: every page as a card with its title, headline and first plot, in one
    section per game (the registered game the page title names), relative links; the stand-in notice once at
    the top. No two cards share a title."""
    reports_dir = Path(reports_dir)
    reports_dir.mkdir(parents=True, exist_ok=True)
    root = reports_dir.resolve()
    index = root / "index.html"
    entries = [(Path(os.path.relpath(page, root)).as_posix(), page_title(page))
               for page in sorted({Path(p).resolve() for p in pages if Path(p).resolve() != index})]
    shown = _distinct_titles(entries)
    games = _game_titles()
    groups: dict[str, list[tuple[str, str]]] = {}
    for rel, title in entries:
        game = page_section(title, games)
        groups.setdefault(games[game] if game else "Other reports", []).append((rel, shown[rel]))
    parts = ['<main class="index">', "<h1>simkit reports</h1>"]
    heads = {rel: page_headline(root / rel) for rel, _ in entries}
    if any(n for _, _, n in heads.values()):
        parts.append("<blockquote><p><strong>Stand-in card data.</strong> The rulebooks do not print the cards' "
                     "numbers; the bundled card data is a stand-in, so these reports show how the rules play "
                     "out, not the published cards.</p></blockquote>")
    if not groups:
        parts.append("<p>No reports.</p>")
    parts.append('<nav class="index">')
    for section in sorted(groups, key=lambda g: (g == "Other reports", g.casefold())):
        parts.append(f"<h2>{html.escape(section)}</h2>\n<div class=\"cards\">")
        for rel, title in sorted(groups[section], key=lambda e: e[0]):
            href = html.escape("/".join(_quote(s) for s in rel.split("/")), quote=True)
            headline, thumb, _ = heads[rel]
            card = ['<article class="card">']
            if thumb:
                card.append(f'<a href="{href}" tabindex="-1"><img class="thumb" src="{thumb}" '
                            f'alt="{html.escape(title, quote=True)}: first plot"></a>')
            card.append(f'<h3><a href="{href}">{html.escape(title)}</a></h3>')
            if headline:
                card.append(card_answer(headline))
            card.append(f'<span class="path">{html.escape(rel)}</span></article>')
            parts.append("".join(card))
        parts.append("</div>")
    parts.append("</nav>")
    parts.append("<footer>Each page is self-contained (plots embedded); the Markdown versions sit next to them."
                 "</footer>\n</main>")
    index.write_text(_page("simkit reports", "\n".join(parts), INDEX_CSS), encoding="utf-8")
    for rel, _ in entries:
        _link_back(root / rel, Path(os.path.relpath(index, (root / rel).parent)).as_posix())
    return reports_dir / "index.html"


BACK = re.compile(r'<p class="back">.*?</p>\n')


def _link_back(page: Path, href: str) -> None:
    """A link from a report page to the index above it, right at the top of its ``<main>`` (replaced, not added
    twice, when the index is written again)."""
    try:
        text = page.read_text(encoding="utf-8")
    except OSError:
        return
    if '<main class="report">' not in text:
        return
    link = f'<p class="back"><a href="{html.escape(href, quote=True)}">← All reports</a></p>\n'
    text = BACK.sub("", text).replace('<main class="report">\n', '<main class="report">\n' + link, 1)
    page.write_text(text, encoding="utf-8")


def _quote(segment: str) -> str:
    from urllib.parse import quote

    return quote(segment)


def html_for_reports(paths: list[Path]) -> list[Path]:
    """Convert every ``.md`` among ``paths`` (other files are ignored); return the HTML pages."""
    return [markdown_to_html(Path(p)) for p in paths if Path(p).suffix.lower() == ".md"]
