"""The ``simkit`` command line.

Every error caused by bad input is one line on stderr and exit code 2.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from simkit import __version__
from simkit.core import registry
from simkit.core.tables import FORMATS, render, summary_rows
from simkit.errors import InputError


class SimkitGroup(click.Group):
    """A click group whose errors are one line, never a traceback."""

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        try:
            rv = super().main(args=args, prog_name=prog_name or "simkit", complete_var=complete_var,
                              standalone_mode=False, **extra)
        except InputError as exc:
            _fail(str(exc))
        except click.exceptions.NoArgsIsHelpError as exc:
            click.echo(exc.ctx.get_help() if exc.ctx else str(exc))
            sys.exit(0)
        except click.UsageError as exc:
            where = exc.ctx.command_path if exc.ctx else "simkit"
            _fail(f"{exc.format_message()} (see '{where} --help')")
        except click.ClickException as exc:
            _fail(exc.format_message())
        except click.exceptions.Abort:
            click.echo("simkit: aborted", err=True)
            sys.exit(130)
        except KeyboardInterrupt:
            click.echo("simkit: interrupted; finished blocks were kept", err=True)
            sys.exit(130)
        except click.exceptions.Exit as exc:
            sys.exit(exc.exit_code)
        if standalone_mode:
            sys.exit(rv if isinstance(rv, int) else 0)
        return rv


def _fail(message: str) -> None:
    message = " ".join(str(message).split())
    click.echo(f"simkit: error: {message}", err=True)
    sys.exit(2)


def format_option(default: str = "table"):
    return click.option("--format", "fmt", type=click.Choice(FORMATS), default=default, show_default=True,
                        help="Output format: aligned table, Markdown, CSV or JSON.")


@click.group(cls=SimkitGroup, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="simkit")
def cli():
    """simkit: Monte Carlo balance and exact odds for tabletop card and dice games.

    \b
    Typical use:
      simkit list                                  games, scenarios, options, policies
      simkit odds chance-strike --strike 0:6       exact dice odds (add --mc N to simulate too)
      simkit run scenarios/valka/chance_strike.toml --games 100000 --seed 1
      simkit report runs/<run-id>                  turn a run into Markdown + plots
      simkit bench                                 games per second per core
    """


@cli.command("list")
def list_cmd():
    """Show the registered games, their modes, scenarios, rule options and policies."""
    sdir = registry.scenarios_dir()
    for game in registry.games().values():
        click.secho(f"{game.name}: {game.title}", bold=True)
        click.echo(f"  rules: {game.rules_file} (rules version {game.rules_version})")
        for mode in game.modes:
            click.echo(f"  mode {mode.name}: {mode.title}")
            if mode.default_scenario:
                click.echo(f"    default scenario: scenarios/{mode.default_scenario}")
        files = sorted((sdir / game.name).glob("*.toml")) if (sdir / game.name).exists() else []
        if files:
            click.echo("  scenario files: " + ", ".join(str(f.relative_to(sdir.parent)) for f in files))
        if game.odds_commands:
            click.echo("  odds: " + ", ".join(f"simkit odds {c.name}" for c in game.odds_commands))
        if game.rule_options:
            click.echo("  rule options:")
            for name, desc in game.rule_options.items():
                click.echo(f"    {name}: {desc}")
        if game.policies:
            click.echo("  policies:")
            for name, desc in game.policies.items():
                click.echo(f"    {name}: {desc}")
        click.echo()


def _jobs_option(f):
    return click.option("--jobs", "-j", type=click.IntRange(min=0), default=0, show_default=True,
                        help="Worker processes (0 = all cores). Results do not depend on it.")(f)


@cli.command("run")
@click.argument("scenario", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--games", "-n", type=click.IntRange(min=1), default=None,
              help="Games per cell (default: the scenario's [run] games).")
@click.option("--seed", type=click.IntRange(min=0), default=None,
              help="Root seed; without it a 128-bit seed is drawn and recorded in the manifest.")
@_jobs_option
@click.option("--out", "out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Run folder to write (default: runs/<run-id>).")
@click.option("--block-size", type=click.IntRange(min=1), default=None,
              help="Games per block (per cell). Part of what makes a run reproducible: keep it fixed.")
@click.option("--precision", type=float, default=None,
              help="Add blocks until every rate's 95%% half-width is at most this (e.g. 0.005).")
@click.option("--max-games", type=click.IntRange(min=1), default=None, help="Cap on games per cell with --precision.")
@click.option("--backend", type=click.Choice(["loky", "threading", "dask"]), default="loky", show_default=True,
              help="joblib backend that runs the blocks.")
@click.option("--scheduler", default=None, help="Dask scheduler address (tcp://HOST:PORT) with --backend dask.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar and no summary table.")
@format_option()
def run_cmd(scenario, games, seed, jobs, out, block_size, precision, max_games, backend, scheduler, quiet, fmt):
    """Simulate a scenario file and write its results.

    Writes one Parquet row per game under the run folder, with manifest.json
    (what was run, the root seed) and summary.json (every rate with its 95%
    interval and count), then prints the summary.
    """
    from simkit.core import loader
    from simkit.core.runner import make_run_dir, run_simulation
    from simkit.core.seeding import normalize_seed

    sc = loader.load(scenario)
    root = normalize_seed(seed if seed is not None else sc.run.seed)
    run_dir = out if out is not None else make_run_dir("runs", sc.mode, root)
    show = not quiet and sys.stderr.isatty()
    res = run_simulation(
        sc.simulation, games if games is not None else (sc.run.games or 10_000), seed=root, jobs=jobs,
        block_size=block_size or sc.run.block_size, out=run_dir, progress=show, precision=precision,
        max_games=max_games, backend=backend, scheduler=scheduler,
        manifest_extra={"scenario": str(scenario), "scenario_sha256": sc.sha256},
    )
    if not quiet:
        click.echo(render(summary_rows(res.summary), fmt), nl=False)
    rate = res.games * sc.simulation.cells / max(res.wall_seconds, 1e-9)
    click.echo(f"{res.games:,} games per cell × {sc.simulation.cells} cells in {res.wall_seconds:.2f} s "
               f"({rate:,.0f} games/s); seed {root}", err=True)
    click.echo(f"results: {run_dir}", err=True)


@cli.command("report")
@click.argument("run_dir", required=False, type=click.Path(path_type=Path))
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Where to write the report (default: RUN_DIR/report, or reports/ with --bundled).")
@click.option("--bundled", is_flag=True, help="Write every registered game's bundled reports (what `make report` runs).")
@click.option("--quick", is_flag=True, help="With --bundled: fewer simulated games, for a fast check.")
@_jobs_option
def report_cmd(run_dir, out, bundled, quick, jobs):
    """Turn a run folder into a Markdown report with plots (or write all bundled reports)."""
    if bundled:
        out = out or Path("reports")
        written = []
        for game in registry.games().values():
            if game.bundled_reports:
                written += game.bundled_reports(Path(out), quick=quick, jobs=jobs or None)
        for p in written:
            click.echo(f"wrote {p}")
        return
    if run_dir is None:
        raise InputError("report: give a RUN_DIR, or --bundled for the bundled reports")
    from simkit.core import report

    files = report.report_run(run_dir, out)
    for p in files:
        click.echo(f"wrote {p}")


@cli.group("odds", cls=click.Group)
def odds_group():
    """Exact dice odds (fractions), optionally checked by Monte Carlo (--mc N)."""


@cli.command("bench")
@click.argument("game", required=False)
@click.option("--games", "-n", type=click.IntRange(min=1), default=None, help="Games per cell to time (default: per mode).")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None, help="Cores for the parallel run (default: all).")
def bench_cmd(game, games, jobs):
    """Time each simulator: games/s per core with --jobs 1, and the speed-up with all cores.

    GAME is a game or mode name (e.g. valka, chance-strike); default: all.
    """
    from simkit.core.bench import bench

    rows = bench(game, games=games, jobs=jobs)
    click.echo(render(rows, "table"), nl=False)


def _attach_odds_commands() -> None:
    for game in registry.games().values():
        for cmd in game.odds_commands:
            odds_group.add_command(cmd)


_attach_odds_commands()


def main():
    cli.main()


if __name__ == "__main__":  # pragma: no cover
    main()
