"""Reports: Markdown with plots, per run folder or bundled per game."""

from __future__ import annotations

from pathlib import Path

from simkit.core import registry, results
from simkit.core.tables import render, summary_rows

STAND_IN_NOTICE = (
    "> **Stand-in card data.** The rulebooks do not print the cards' numbers; the bundled card data "
    "is a stand-in, so the numbers below show how the rules play out, not the published cards. "
    "Edit the files under `scenarios/` to enter real card data."
)


def manifest_section(man: dict) -> str:
    keys = ["game", "mode", "rules_version", "scenario", "scenario_sha256", "root_seed", "block_size",
            "games", "blocks", "simkit_version"]  # no wall time: reports stay byte-identical for a seed
    rows = [{"field": k, "value": man.get(k)} for k in keys if k in man]
    return "## Run\n\n" + render(rows, "md")


def write_markdown(path: Path, text: str) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def report_run(run_dir: str | Path, out: str | Path | None = None) -> list[Path]:
    """Write the report of a finished run (the mode's own report, or the generic summary)."""
    run_dir = Path(run_dir)
    man = results.manifest(run_dir)
    out_dir = Path(out) if out else run_dir / "report"
    _, mode = registry.get_mode(man.get("game", "?"), man.get("mode", "?"), where=f"{run_dir}/manifest.json: mode")
    if mode.report is not None:
        return mode.report(run_dir, out_dir)
    summ = results.summary(run_dir)
    text = f"# {mode.title}\n\n{STAND_IN_NOTICE}\n\n## Summary (95% intervals)\n\n"
    text += render(summary_rows(summ), "md") + "\n" + manifest_section(man)
    return [write_markdown(out_dir / "report.md", text)]
