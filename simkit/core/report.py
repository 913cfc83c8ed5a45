"""Reports: Markdown with plots, per run folder or bundled per game."""

from __future__ import annotations

from pathlib import Path

from simkit.core import registry, results
from simkit.core.tables import render, summary_rows
from simkit.errors import InputError

STAND_IN_NOTICE = (
    "> **Stand-in card data.** The rulebooks do not print the cards' numbers; the bundled card data "
    "is a stand-in, so the numbers below show how the rules play out, not the published cards. "
    "Edit the files under `scenarios/` to enter real card data."
)

# ---------------------------------------------------------------- the lead: one plain sentence first (issue 39)

LEAD_MARKER = "**In one sentence.**"  # the lead's paragraph, right after the stand-in notice, on every page
DETAILS_MARKER = "**The details.**"  # the long answer, below the lead
LEAD_WORDS = 45  # at most this many words in a lead (a number with its interval is three)
TABLE_KINDS = ("heuristic", "learned")  # the policy kinds that play every cell's games at a heuristic's speed: they
# can fill a report's tables (`search` plays a smaller ladder, `random` is the floor)


def interval(e, digits: int = 3, signed: bool = False) -> str:
    """An estimate with its 95% interval as a lead says it: ``0.645 [0.636, 0.655]`` (``+0.020 [+0.017, +0.023]``
    signed). ``e``: anything with ``estimate``, ``low`` and ``high``."""
    f = f"{{:{'+' if signed else ''}.{digits}f}}"
    return f"{f.format(e.estimate)} [{f.format(e.low)}, {f.format(e.high)}]"


def lead_paragraph(sentence: str) -> str:
    """The page's lead: one sentence a designer can act on, after :data:`LEAD_MARKER`."""
    return f"{LEAD_MARKER} {sentence.strip()}"


def lead_of(markdown: str) -> str:
    """A page's lead sentence (the marker left off), or ``""``: the first paragraph after the title and notices,
    if it carries :data:`LEAD_MARKER`."""
    for para in markdown.split("\n\n"):
        para = para.strip()
        if not para or para.startswith(("# ", ">")):
            continue
        return para[len(LEAD_MARKER):].strip() if para.startswith(LEAD_MARKER) else ""
    return ""


def lead_words(sentence: str) -> int:
    """The words of a lead (whitespace-separated; ``0.645 [0.636, 0.655]`` is three)."""
    return len(sentence.split())


STATISTICS_WORDS = ("Holm", "step-down", "max statistic", "design effect", "resolved flip", "hero", "field", "≡")


def lead_problems(sentence: str) -> list[str]:
    """What keeps ``sentence`` from being a lead (empty: none): more than :data:`LEAD_WORDS` words, more than
    one sentence, no final full stop, or a statistics word that belongs below the answer."""
    import re

    out = []
    if lead_words(sentence) > LEAD_WORDS:
        out.append(f"{lead_words(sentence)} words (at most {LEAD_WORDS})")
    if not sentence.endswith("."):
        out.append("no full stop at the end")
    if re.search(r"[.!?] [A-Z]", sentence[:-1]):
        out.append("more than one sentence")
    out += [f"the statistics word {w!r}" for w in STATISTICS_WORDS if w.casefold() in sentence.casefold()]
    return out


def names(items, limit: int = 4) -> str:
    """``a``; ``a and b``; ``a, b and c``; past ``limit``: ``a, b, c and 2 others``."""
    items = [str(i) for i in items]
    if len(items) > limit:
        items = items[:limit - 1] + [f"{len(items) - limit + 1} others"]
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def extreme(estimates: dict, worst: bool = False) -> tuple:
    """``(pick, tied)``: the key of ``estimates`` (key -> estimate with ``low`` / ``high``) with the highest
    estimate (the lowest, ``worst``) and the others the data cannot tell from it (their 95% intervals overlap its
    own, nearest first: :func:`simkit.core.stats.overlapping`). A lead names ``pick`` alone only when ``tied`` is
    empty; else it names them all as a tie."""
    from simkit.core.stats import overlapping

    pick = (min if worst else max)(estimates, key=lambda k: estimates[k].estimate)
    return pick, overlapping(pick, estimates)


def tie_words(pick, tied, what: str, superlative: str, show=str, first: bool = True) -> str:
    """How a lead names a best or worst: "Weakest Warband: goblins" or, when the data cannot tell it from others
    (``tied``, :func:`extreme`), "Weakest Warband: goblins, tied with wizards and knights (intervals overlap)";
    ``first=False``: a clause later in the sentence ("weakest: goblins")."""
    head = f"{superlative[:1].upper() if first else superlative[:1]}{superlative[1:]}{' ' + what if what else ''}: " \
           f"{show(pick)}"
    return head + (f", tied with {names([show(t) for t in tied], 3)} (intervals overlap)" if tied else "")


def manifest_section(man: dict) -> str:
    keys = ["game", "mode", "rules_version", "scenario", "overrides", "scenario_sha256", "root_seed", "block_size",
            "games", "blocks", "simkit_version"]  # no wall time: reports stay byte-identical for a seed
    rows = [{"field": k, "value": " ".join(f"--set '{o}'" for o in man[k]) if k == "overrides" else man.get(k)}
            for k in keys if k in man and (k != "overrides" or man[k])]
    return "## Run\n\n" + render(rows, "md")


GLOSSARY = Path(__file__).resolve().parents[2] / "docs" / "glossary.md"  # the site's glossary page


def glossary_entries(path: Path = GLOSSARY) -> list[tuple[list[str], str, str]]:
    """The glossary page's entries: (the words a ``## `` heading names, comma-separated; the heading; the text)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError:
        return []  # an installed copy without the docs: pages go without the section
    out = []
    for block in text.split("\n## ")[1:]:
        head, _, body = block.partition("\n")
        out.append(([w.strip() for w in head.split(", ") if w.strip()], head.strip(), " ".join(body.split())))
    return out


def glossary_section(text: str, path: Path = GLOSSARY) -> str:
    """``## Words on this page``: the glossary entries (``docs/glossary.md``, the site's glossary page) one of
    whose words the page uses, in the glossary's order; "" when it uses none."""
    import re

    used = []
    for words, head, body in glossary_entries(path):
        for w in words:
            pattern = re.escape(w) if not w[:1].isalnum() else rf"(?<![\w-]){re.escape(w)}(?![\w-])"
            if re.search(pattern, text, flags=re.IGNORECASE):
                used.append(f"**{head.rstrip('.')}.** {body}")
                break
    if not used:
        return ""
    return ("## Words on this page\n\nThe statistics words this page uses, from the glossary (`docs/glossary.md`, "
            "the Glossary page of the manual):\n\n" + "\n\n".join(used) + "\n")


def write_markdown(path: Path, text: str, glossary: bool = True) -> Path:
    """Write a page; with ``glossary``, end it with the glossary's entries for the statistics words it uses."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    words = glossary_section(text) if glossary else ""
    path.write_text(text.rstrip("\n") + "\n\n" + words if words else text)
    return path


def unfinished_notice(man: dict, run_dir: Path) -> str | None:
    """One plain sentence for a run that did not finish (None for a complete run)."""
    if not man.get("unfinished"):
        return None
    planned = results.blocks_planned(man)
    of = f" of {planned:,}" if planned else ""
    return (f"**Unfinished run** (status: {man.get('status', 'unknown')}): {man.get('blocks', 0):,}{of} blocks were "
            f"written, {man.get('games', 0):,} games per cell; every number below comes from those games only. "
            f"Finish it with `simkit run --resume {run_dir}`.")


def _mark_unfinished(paths: list[Path], notice: str) -> None:
    for p in paths:
        if Path(p).suffix.lower() != ".md":
            continue
        text = Path(p).read_text(encoding="utf-8")
        head, sep, rest = text.partition("\n\n")
        if head.startswith("# "):
            Path(p).write_text(f"{head}\n\n> {notice}\n\n{rest}", encoding="utf-8")
        else:
            Path(p).write_text(f"> {notice}\n\n{text}", encoding="utf-8")


def report_run(run_dir: str | Path, out: str | Path | None = None) -> list[Path]:
    """Write the report of a run (the mode's own report, or the generic summary).

    An unfinished run (killed or interrupted) is reported from the blocks it wrote, and every page says so.
    """
    run_dir = Path(run_dir)
    man = results.manifest(run_dir)
    out_dir = Path(out) if out else run_dir / "report"
    _, mode = registry.get_mode(man.get("game", "?"), man.get("mode", "?"), where=f"{run_dir}/manifest.json: mode")
    if man.get("unfinished") and not results.block_files(run_dir):
        raise InputError(f"{run_dir}: the run is unfinished (status: {man.get('status')}) and wrote no blocks yet; "
                         f"finish it with `simkit run --resume {run_dir}`")
    try:
        written = _report(run_dir, out_dir, man, mode)
    except (InputError, OSError):
        raise
    except Exception as exc:  # a damaged run folder (a block missing a column, a wrong type, garbage data)
        first = (str(exc).strip().splitlines() or [""])[0][:200]
        raise InputError(f"{run_dir}: the run folder does not hold what a {mode.name} run writes "
                         f"({type(exc).__name__}: {first})") from None
    notice = unfinished_notice(man, run_dir)
    if notice:
        _mark_unfinished(written, notice)
    return written


def _report(run_dir: Path, out_dir: Path, man: dict, mode) -> list[Path]:
    if mode.report is not None:
        return mode.report(run_dir, out_dir)
    summ = results.summary(run_dir)
    text = f"# {mode.title}\n\n{STAND_IN_NOTICE}\n\n## Summary (95% intervals)\n\n"
    text += render(summary_rows(summ), "md") + "\n" + manifest_section(man)
    return [write_markdown(out_dir / "report.md", text)]


def shown_path(p: str) -> str:
    """A bundled file's path relative to the source checkout (no machine-specific prefix)."""
    try:
        return Path(p).resolve().relative_to(registry.scenarios_dir().resolve().parent).as_posix()
    except (ValueError, OSError):
        return p


def search_words(spec: dict, whose: str = "its base policy's positions") -> str:
    """A `search` policy's table in words, for a page: its rollouts and base policy (and the kinds of decision it
    searches, if not all), and either how it spends them (``budget``) or, standing on a learned value, where its
    rollouts stop and which value scores them (``whose`` positions the value was fitted to)."""
    head = f"{spec.get('rollouts', '?')} rollouts per action of `{spec.get('base', '?')}`"
    if spec.get("decisions"):
        head += f" at its {', '.join(f'`{k}`' for k in spec['decisions'])} decisions only"
    if not spec.get("value"):
        return f"{head}, {spec.get('budget', '')}"
    return (f"{head}, each cut after {spec.get('depth', '?')} decisions and scored by the learned value of {whose} "
            f"(`{Path(str(spec['value'])).name}`)")


def toml_value(v) -> str:
    """A value as it is written in a scenario file (for quoting rule options in reports)."""
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, str):
        return f'"{v}"'
    return str(v)


def run_bundled(scenario: str, run_folder: Path, games: int, seed: int = 2026, jobs=None, overrides=()) -> Path:
    """Run a bundled scenario (path under ``scenarios/``) into ``run_folder``, replacing an earlier run;
    ``overrides``: ``--set`` values (``"path=value"``), recorded in the manifest."""
    import shutil

    from simkit.core import loader
    from simkit.core.runner import run_simulation

    path = registry.scenarios_dir() / scenario
    sc = loader.load(path, list(overrides))
    run_folder = Path(run_folder)
    if run_folder.exists():
        shutil.rmtree(run_folder)
    import sys

    run_simulation(sc.simulation, games, seed=seed, jobs=jobs, block_size=sc.run.block_size, out=run_folder,
                   progress=sys.stderr.isatty(),
                   manifest_extra={"scenario": shown_path(str(path)), "scenario_sha256": sc.sha256,
                                   **({"overrides": sc.overrides} if sc.overrides else {})})
    return run_folder
