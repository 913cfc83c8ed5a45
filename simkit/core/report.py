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


def shown_path(p: str) -> str:
    """A bundled file's path relative to the source checkout (no machine-specific prefix)."""
    try:
        return Path(p).resolve().relative_to(registry.scenarios_dir().resolve().parent).as_posix()
    except (ValueError, OSError):
        return p


def toml_value(v) -> str:
    """A value as it is written in a scenario file (for quoting rule options in reports)."""
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, str):
        return f'"{v}"'
    return str(v)


def run_bundled(scenario: str, run_folder: Path, games: int, seed: int = 2026, jobs=None) -> Path:
    """Run a bundled scenario (path under ``scenarios/``) into ``run_folder``, replacing an earlier run."""
    import shutil

    from simkit.core import loader
    from simkit.core.runner import run_simulation

    path = registry.scenarios_dir() / scenario
    sc = loader.load(path)
    run_folder = Path(run_folder)
    if run_folder.exists():
        shutil.rmtree(run_folder)
    run_simulation(sc.simulation, games, seed=seed, jobs=jobs, block_size=sc.run.block_size, out=run_folder,
                   manifest_extra={"scenario": shown_path(str(path)), "scenario_sha256": sc.sha256})
    return run_folder
