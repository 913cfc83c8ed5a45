"""The ``simkit`` command line.

Every error caused by bad input is one line on stderr and exit code 2.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from simkit import __version__
from simkit.core import registry
from simkit.core.limits import MAX_GAMES, MAX_JOBS
from simkit.core.paths import OutPath, check_out_path, check_scheduler
from simkit.core.tables import FORMATS, render, summary_rows
from simkit.errors import InputError


class SimkitGroup(click.Group):
    """A click group whose errors are one line, never a traceback."""

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        try:
            rv = super().main(args=args, prog_name=prog_name or "simkit", complete_var=complete_var,
                              standalone_mode=False, **extra)
        except InputError as exc:
            for message in exc.messages[:-1]:  # every problem of a card file, one line each
                click.echo(f"simkit: error: {' '.join(str(message).split())}", err=True)
            _fail(exc.messages[-1])
        except click.exceptions.NoArgsIsHelpError as exc:
            click.echo(exc.ctx.get_help() if exc.ctx else str(exc))
            sys.exit(0)
        except click.UsageError as exc:
            where = exc.ctx.command_path if exc.ctx else "simkit"
            _fail(f"{exc.format_message()} (see '{where} --help')")
        except click.ClickException as exc:
            _fail(exc.format_message())
        except click.exceptions.Abort as exc:
            # click turns Ctrl-C into Abort; say what happened to the work
            if isinstance(exc.__context__, KeyboardInterrupt):
                # `simkit run` says where its finished blocks are; other commands keep no partial results
                click.echo("simkit: interrupted", err=True)
            else:
                click.echo("simkit: aborted", err=True)
            sys.exit(128 + getattr(exc.__context__, "signum", 2))  # 130 for Ctrl-C, 143 for SIGTERM
        except KeyboardInterrupt as exc:
            click.echo("simkit: interrupted", err=True)
            sys.exit(128 + getattr(exc, "signum", 2))
        except OSError as exc:
            # a path that cannot be written or read (under a file, /proc, a full disk): one line naming it
            where = exc.filename or "simkit"
            _fail(f"{where}: {exc.strerror or exc}")
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
      simkit balance SCENARIO --vary … --target …  the fewest card edits that meet target win rates
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
            if mode.rules_file and mode.rules_file != game.rules_file:
                click.echo(f"    rules: {mode.rules_file}")
            if mode.default_scenario:
                click.echo(f"    default scenario: scenarios/{mode.default_scenario}")
        files = sorted((sdir / game.name).glob("*.toml")) if (sdir / game.name).exists() else []
        if files:
            click.echo("  scenario files: " + ", ".join(str(f.relative_to(sdir.parent)) for f in files))
        if game.odds_commands:
            click.echo("  odds: " + ", ".join(f"simkit odds {c.name}" for c in game.odds_commands))
        descriptions = game.policy_descriptions()
        if game.rule_options:
            click.echo("  rule options:")
            for name, desc in game.rule_options.items():
                click.echo(f"    {name}: {desc}")
        if descriptions:
            click.echo("  policies:")
            for name, desc in descriptions.items():
                click.echo(f"    {name}: {desc}")
        click.echo()


def _jobs_option(f):
    return click.option("--jobs", "-j", type=click.IntRange(min=0, max=MAX_JOBS), default=0, show_default=True,
                        help="Worker processes (0 = all cores). Results do not depend on it.")(f)


def _cores(jobs: int) -> int:
    """--jobs as a count of workers: 0 means every core."""
    return jobs or os.cpu_count() or 1


def _serial_jobs_option(f):
    """--jobs for the searches (tune, balance, ladder): one worker unless asked, as their many short batches of
    games gain little from workers; 0 = all cores, as everywhere."""
    return click.option("--jobs", "-j", type=click.IntRange(min=0, max=MAX_JOBS), default=1, show_default=True,
                        help="Worker processes (0 = all cores). Results do not depend on it.")(f)


@cli.command("run")
@click.argument("scenario", required=False, type=click.Path(dir_okay=False, path_type=Path))
@click.option("--games", "-n", type=click.IntRange(min=1, max=MAX_GAMES), default=None,
              help="Games per cell (default: the scenario's [run] games).")
@click.option("--seed", type=click.IntRange(min=0), default=None,
              help="Root seed; without it a 128-bit seed is drawn and recorded in the manifest.")
@_jobs_option
@click.option("--out", "out", type=OutPath(file_okay=False, path_type=Path), default=None,
              help="Run folder to write (default: runs/<run-id>).")
@click.option("--block-size", type=click.IntRange(min=1, max=MAX_GAMES), default=None,
              help="Games per block (per cell). Part of what makes a run reproducible: keep it fixed.")
@click.option("--precision", type=float, default=None,
              help="Add blocks until every rate's 95%% half-width is at most this (e.g. 0.005).")
@click.option("--max-games", type=click.IntRange(min=1, max=MAX_GAMES), default=None,
              help="Cap on games per cell with --precision.")
@click.option("--backend", type=click.Choice(["loky", "threading", "dask"]), default="loky", show_default=True,
              help="joblib backend that runs the blocks.")
@click.option("--scheduler", default=None, help="Dask scheduler address (tcp://HOST:PORT) with --backend dask.")
@click.option("--set", "sets", multiple=True, metavar="PATH=VALUE",
              help="Change a scenario or card value, e.g. --set fighters.old_gob.health=4 (repeatable).")
@click.option("--resume", "resume", type=click.Path(file_okay=False, path_type=Path), default=None,
              metavar="RUN_DIR", help="Finish an interrupted or killed run from its manifest (same results as an "
                                      "uninterrupted run). Takes no SCENARIO.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar and no summary table.")
@click.option("--strict", is_flag=True, help="Refuse a learned policy trained on other card data or rules than "
                                             "the scenario's (without it: a warning, recorded in the manifest).")
@click.option("--all", "all_", is_flag=True,
              help="Print every number of the run, one per line (default for a table: the scenario's headline "
                   "metric as one compact table; md, csv and json always print every number).")
@format_option()
@click.pass_context
def run_cmd(ctx, scenario, games, seed, jobs, out, block_size, precision, max_games, backend, scheduler, sets,
            resume, quiet, strict, all_, fmt):
    """Simulate a scenario file and write its results.

    Writes one Parquet row per game under the run folder, with manifest.json
    (what was run, the root seed) and summary.json (every rate with its 95%
    interval and count), then prints the summary. `simkit run --resume RUN_DIR`
    finishes a run that was interrupted or killed.
    """
    if scheduler is not None and backend != "dask":
        raise InputError("--scheduler: only with --backend dask")
    if scheduler is not None:
        check_scheduler(scheduler)
    show = not quiet and _stderr_is_terminal()
    if resume is not None:
        given = [f"--{n.replace('_', '-')}" for n in ("games", "seed", "out", "block_size", "precision", "max_games")
                 if ctx.params[n] is not None] + (["--set"] if sets else []) + (["SCENARIO"] if scenario else [])
        if given:
            raise InputError(f"--resume: the run's manifest fixes what to run; drop {', '.join(given)}")
        from simkit.core.runner import resume_run

        try:
            res, sc = resume_run(resume, jobs=jobs, progress=show, backend=backend, scheduler=scheduler)
        except KeyboardInterrupt as exc:
            _interrupted(resume, exc)
        run_dir, root = resume, res.manifest["root_seed"]
    else:
        if scenario is None:
            raise InputError("run: give a SCENARIO file, or --resume RUN_DIR")
        if max_games is not None and precision is None:
            raise InputError("--max-games: only with --precision (it caps the games --precision adds)")
        if precision is not None and not 0 < precision < 0.5:
            raise InputError(f"--precision: must lie strictly between 0 and 0.5 (got {precision})")
        check_out_path(out)
        from simkit.core import loader

        sc = loader.load(scenario, list(sets), strict=strict)  # bad input fails here, before the heavy imports
        for w in sc.warnings:
            click.echo(f"simkit: warning: {scenario}: {w}", err=True)
        from simkit.core.runner import make_run_dir, run_simulation
        from simkit.core.seeding import normalize_seed

        root = normalize_seed(seed if seed is not None else sc.run.seed)
        run_dir = out if out is not None else make_run_dir("runs", sc.mode, root)
        try:
            res = run_simulation(
                sc.simulation, games if games is not None else (sc.run.games or 10_000), seed=root, jobs=jobs,
                block_size=block_size or sc.run.block_size, out=run_dir, progress=show, precision=precision,
                max_games=max_games, backend=backend, scheduler=scheduler,
                manifest_extra={"scenario": str(scenario), "scenario_path": str(Path(scenario).resolve()),
                                "scenario_sha256": sc.sha256, "overrides": sc.overrides,
                                **({"warnings": sc.warnings} if sc.warnings else {})},
            )
        except KeyboardInterrupt as exc:
            _interrupted(run_dir, exc)
    compact = not quiet and fmt == "table" and not all_ and sc.simulation.metrics
    if compact:
        _print_headline(res.summary, sc.simulation.metrics[0])
    elif not quiet:
        click.echo(render(summary_rows(res.summary), fmt), nl=False)
    cells = sc.simulation.games_per_index  # games per game index (Valeria writes a row per seat: not rows)
    rate = res.games * cells / max(res.wall_seconds, 1e-9)
    click.echo(f"{res.games:,} games per cell × {cells} cells in {res.wall_seconds:.2f} s "
               f"({rate:,.0f} games/s); seed {root}", err=True)
    click.echo(f"results: {run_dir}", err=True)
    if compact:
        more = len(res.summary) - sum(r["metric"] == sc.simulation.metrics[0].name for r in res.summary)
        if more:
            click.echo(f"{more:,} more numbers (every metric, with intervals) in {run_dir}/summary.json: read them "
                       f"with `simkit report {run_dir}`, or print them with --all", err=True)


def _print_headline(summary: list[dict], metric) -> None:
    """The headline metric as one compact table that fits 100 columns, with a line saying what it shows."""
    import textwrap

    from simkit.core.tables import headline_rows, terminal_width

    rows, across = headline_rows(summary, metric.name)
    if not rows:
        return
    width = min(terminal_width() or 100, 100)
    click.echo(render(rows, "table", width=width), nl=False)
    mine = [r for r in summary if r["metric"] == metric.name]
    wide = max(r["high"] - r["low"] for r in mine)
    ns = sorted({r["n"] for r in mine})
    n = f"{ns[0]:,}" if len(ns) == 1 else f"{ns[0]:,}–{ns[-1]:,}"
    keys = list(mine[0]["group"])
    layout = ""
    if across and len(keys) > 1:
        layout = f": {' × '.join(k for k in keys if k != across)} down, {across} across"
    elif across:
        layout = f": {across} across"
    click.echo(textwrap.fill(f"{metric.label or metric.name}{layout}; 95% intervals ≤ {wide:.3f} wide; "
                             f"{n} games per cell", width=width))


def _interrupted(run_dir, exc: KeyboardInterrupt) -> None:
    """Ctrl-C (exit 130) or SIGTERM (exit 143): the finished blocks are kept and the manifest says so."""
    signum = getattr(exc, "signum", 2)
    what = "interrupted" if signum == 2 else f"stopped by signal {signum} (SIGTERM)" if signum == 15 \
        else f"stopped by signal {signum}"
    click.echo(f"\nsimkit: {what}; finished blocks were kept in {run_dir} "
               f"(finish the run with: simkit run --resume {run_dir})", err=True)
    sys.exit(128 + signum)


@cli.command("report")
@click.argument("run_dir", required=False, type=click.Path(path_type=Path))
@click.option("--out", type=OutPath(file_okay=False, path_type=Path), default=None,
              help="Where to write the report (default: RUN_DIR/report, or reports/ with --bundled).")
@click.option("--bundled", is_flag=True, help="Write every registered game's bundled reports (what `make report` runs).")
@click.option("--quick", is_flag=True, help="With --bundled: fewer simulated games, for a fast check.")
@click.option("--html", is_flag=True, help="Also write each report as one self-contained HTML page, and an index.html.")
@click.option("--only", "only", multiple=True, metavar="GAME",
              help="With --bundled: only this game's reports (repeatable); the index.html still lists every page "
                   "already under --out.")
@_jobs_option
def report_cmd(run_dir, out, bundled, quick, html, only, jobs):
    """Turn a run folder into a Markdown report with plots (or write all bundled reports)."""
    check_out_path(out)
    if only and not bundled:
        raise InputError("--only: only with --bundled (a run folder is one report)")
    if bundled:
        if run_dir is not None:
            raise InputError(f"report: give RUN_DIR or --bundled, not both (got {run_dir})")
        out = Path(out or "reports")
        written = []
        reporters = [g for g in registry.games().values() if g.bundled_reports]
        if only:
            names = [g.name for g in reporters]
            bad = [o for o in only if o not in names]
            if bad:
                raise InputError(f"--only: unknown game {bad[0]!r}; allowed values: {', '.join(names)}")
            reporters = [g for g in reporters if g.name in only]
        for i, game in enumerate(reporters, 1):
            click.echo(f"[{i}/{len(reporters)}] {game.title}: bundled reports …", err=True)
            written += game.bundled_reports(out, quick=quick, jobs=jobs or None)
    else:
        if quick:
            raise InputError("--quick: only with --bundled (a run folder is reported as it is)")
        if run_dir is None:
            raise InputError("report: give a RUN_DIR, or --bundled for the bundled reports")
        if not run_dir.exists():  # before polars is imported: an input error stays cheap
            raise InputError(f"{run_dir}: run folder not found")
        from simkit.core import report, results

        written = report.report_run(run_dir, out)
        man = results.manifest(run_dir)
        notice = report.unfinished_notice(man, run_dir)
        if notice:
            click.echo("simkit: note: " + notice.replace("**", "").replace("`", "'"), err=True)
        out = Path(out) if out else Path(run_dir) / "report"
    if html:
        from simkit.core.html import html_for_reports, write_index

        pages = html_for_reports(written)
        listed = pages
        if only:  # the other games' pages stay as they were and stay in the index
            index = (Path(out) / "index.html").resolve()
            listed = sorted({p.resolve() for p in pages} | {p.resolve() for p in Path(out).rglob("*.html")
                                                             if p.resolve() != index})
        written += pages + [write_index(out, listed)]
    for p in written:
        click.echo(f"wrote {p}")


class OddsGroup(click.Group):
    """``simkit odds``: the games' odds commands, each imported only when it is used."""

    def _lazy(self, games=None) -> dict:
        found = {"dice": registry.LazyCommand("dice", "simkit.core.dice_cli:dice_cmd",
                                              "Exact odds of a dice expression (icepool): 2d6 >= 8, 4d6kh3, d10 vs d10.")}
        for game in (games or registry.games()).values():
            for cmd in game.odds_commands:
                found[cmd.name] = cmd
        return found

    def list_commands(self, ctx):
        return sorted(set(super().list_commands(ctx)) | set(self._lazy()))

    def get_command(self, ctx, name):
        cmd = super().get_command(ctx, name)
        if cmd is None:  # a bundled game's command is found without scanning the installed plug-ins
            cmd = self._lazy(registry.bundled_games()).get(name) or self._lazy().get(name)
            if isinstance(cmd, registry.LazyCommand):
                cmd = cmd.load()
        return cmd


@cli.group("odds", cls=OddsGroup)
def odds_group():
    """Exact dice odds (fractions), optionally checked by Monte Carlo (--mc N)."""


@cli.command("compare")
@click.argument("a", type=click.Path(path_type=Path))
@click.argument("b", required=False, type=click.Path(path_type=Path))
@click.option("--set", "sets", multiple=True, metavar="PATH=VALUE",
              help="Change applied to B (B = A with these changes when only A is given). Repeatable.")
@click.option("--games", "-n", type=click.IntRange(min=1, max=MAX_GAMES), default=None,
              help="Games per cell (default: the scenario's [run] games; the cap with --precision/--sprt).")
@click.option("--seed", type=click.IntRange(min=0), default=None, help="Root seed (drawn and printed when absent).")
@_jobs_option
@click.option("--block-size", type=click.IntRange(min=1, max=MAX_GAMES), default=None, help="Games per block (per cell).")
@click.option("--metric", "metrics", multiple=True, help="Compare only these metrics (repeatable; default: all).")
@click.option("--precision", type=float, default=None,
              help="Stop as soon as every difference's 95% half-width is at most this.")
@click.option("--sprt", is_flag=True, help="Stop as soon as a sequential test decides whether the change moved "
                                            "--sprt-metric (pooled over all cells) by at least --delta.")
@click.option("--sprt-metric", default=None, help="Metric for --sprt (default: the scenario's first metric).")
@click.option("--delta", type=float, default=0.02, show_default=True, help="The change --sprt looks for.")
@click.option("--alpha", type=float, default=0.05, show_default=True, help="--sprt: P(says 'moved' when it did not).")
@click.option("--beta", type=float, default=0.10, show_default=True, help="--sprt: P(says 'not moved' when it did).")
@click.option("--out", type=OutPath(file_okay=False, path_type=Path), default=None,
              help="Also write compare.md, compare.html, compare.png and compare.json here.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
@format_option()
@click.pass_context
def compare_cmd(ctx, a, b, sets, games, seed, jobs, block_size, metrics, precision, sprt, sprt_metric, delta, alpha,
                beta, out, quiet, fmt):
    """Compare two scenarios (or one with --set changes) on common random numbers, or two finished runs.

    Both are played on the same seeds, so the same shuffles and dice wherever
    they consume randomness alike; every number is reported for A, for B, and
    as the paired difference B − A with its 95% interval and p-value.
    Given two run folders (RUN_A RUN_B, each from `simkit run` with the same
    --seed), it pairs their games without playing any.

    \b
    Examples:
      simkit compare scenarios/valka/lonequest.toml --set fighters.old_gob.health=4 --games 20000
      simkit compare runs/old runs/new
    """
    check_out_path(out)
    if a.is_dir() or (b is not None and b.is_dir()):
        given = [f"--{n.replace('_', '-')}" for n in ("games", "seed", "block_size", "precision")
                 if ctx.params[n] is not None] + (["--set"] if sets else []) + (["--sprt"] if sprt else [])
        folders = [str(p) for p in (a, b) if p is not None and p.is_dir()]
        if given:
            raise InputError(f"compare: {' and '.join(folders)} {'is a folder' if len(folders) == 1 else 'are folders'}"
                             f" (run folders are compared as they were played); {', '.join(given)} only when "
                             "comparing scenario files")
        if b is None or not (a.is_dir() and b.is_dir()):
            raise InputError(f"compare: give two run folders RUN_A RUN_B (got {a}"
                             + (f" and {b}" if b is not None else " only") + ")")
        from simkit.core import compare as cmp

        res = cmp.compare_runs(a, b, list(metrics) or None)
        rows = res.rows
        lines = [cmp.summary_sentence(rows), cmp.efficiency_note(rows),
                 f"Two finished runs, paired game by game on their {res.blocks:,} common blocks "
                 f"({res.games:,} games per cell, root seed {res.seed}); nothing was re-simulated."]
        _compare_output(rows, lines, fmt, out, a, b, [], {"seed": res.seed, "games": res.games,
                                                           "blocks": res.blocks, "runs": True})
        click.echo(f"{res.games:,} games per cell, seed {res.seed}; A = {a}, B = {b} (finished runs)", err=True)
        return
    from simkit.core import loader

    check_out_path(out)
    sa = loader.load(a)
    sb = loader.load(b or a, list(sets))
    from simkit.core import compare as cmp
    from simkit.core.runner import run_simulation
    from simkit.core.seeding import normalize_seed

    if b is None and not sets:
        raise InputError("compare: give a second scenario B, or --set changes to compare against A")
    paired = cmp.PairedSim(sa.simulation, sb.simulation, list(metrics) or None)
    root = normalize_seed(seed if seed is not None else sa.run.seed)
    rule, test = None, None
    if sprt and precision is not None:
        raise InputError("compare: use --precision or --sprt, not both")
    if precision is not None:
        if not 0 < precision < 1:
            raise InputError(f"--precision: must lie between 0 and 1 (got {precision})")
        rule = cmp.precision_rule(precision, paired.kinds)
    if sprt:
        names = [m.name for m in sa.simulation.metrics if m.trials is None]
        test = cmp.SPRT(sprt_metric or names[0], delta, alpha, beta)
        if test.metric not in names:
            raise InputError(f"--sprt-metric: unknown metric {test.metric!r}; allowed values: {', '.join(names)}")
        if not (0 < alpha < 1 and 0 < beta < 1 and 0 < delta < 1):
            raise InputError("--sprt: --alpha, --beta and --delta must lie strictly between 0 and 1")
        test.kind = paired.kinds.get(test.metric, "rate")
        rule = test
    n = games if games is not None else (sa.run.games or 10_000)
    res = run_simulation(paired, n, seed=root, jobs=jobs, block_size=block_size or sa.run.block_size,
                         progress=not quiet and _stderr_is_terminal(), stop_when=rule, max_games=n if rule else None,
                         min_games=2 * (block_size or sa.run.block_size or paired.default_block_size) if rule else 0)
    rows = cmp.rows_from(res.accumulator, paired.kinds)
    lines = [cmp.summary_sentence(rows), cmp.efficiency_note(rows)]
    if test is not None:
        est, lo, hi = test.interval()
        lines.insert(0, f"Sequential test (SPRT) on {test.metric}, all cells pooled: {test.decision} after "
                        f"{res.games:,} games per cell (alpha {alpha:g}, beta {beta:g}, delta {delta:g}; Wald's "
                        "bounds on the per-game differences, their variance estimated as the games come in and "
                        + ("never below the least a change of delta allows" if test.kind == "rate" else
                           f"no decision before {test.min_discordant} games changed") + "). "
                        f"At the stop: B − A = {est:+.4f}, 95% confidence sequence [{lo:+.4f}, {hi:+.4f}] (valid "
                        "however the test stopped). The other intervals and p-values above are fixed-sample ones: "
                        "after a sequential stop they are too narrow and the estimates biased away from 0.")
    elif precision is not None:
        lines.append(f"Stopped when every half-width was at most {precision:g}: the estimates are fixed-sample "
                     "ones; stopping on the width biases rare rates slightly low.")
    _compare_output(rows, lines, fmt, out, a, b or a, list(sets), {
        "seed": str(root), "games": res.games,
        "sprt": None if test is None else {"metric": test.metric, "decision": test.decision, "delta": delta,
                                           "alpha": alpha, "beta": beta,
                                           "confidence_sequence": list(test.interval())}})
    click.echo(f"{res.games:,} games per cell, seed {root}; A = {a}, B = {b or a}"
               + (f" with {' '.join(sets)}" if sets else ""), err=True)


def _compare_output(rows, lines, fmt, out, a, b, sets, extra) -> None:
    """Print a comparison; with ``out``, also write compare.md (with its plot), compare.html, compare.png and
    compare.json."""
    import json

    from simkit.core import compare as cmp

    text = render(cmp.table_rows(rows), fmt)
    if fmt in ("table", "md"):
        text += "\n" + "\n".join(line for line in lines if line) + "\n"
    click.echo(text, nl=False)
    if out is None:
        return
    from simkit.core.html import markdown_to_html

    out.mkdir(parents=True, exist_ok=True)
    png = cmp.plot(out / "compare.png", rows)
    md = out / "compare.md"
    md.write_text(f"# Comparison: B − A\n\n{lines[0]}\n\nA: `{a}`  \nB: `{b}` {' '.join(sets)}\n\n"
                  f"![B − A with 95% intervals]({png.name})\n\n"
                  + render(cmp.table_rows(rows), "md") + "\n" + "\n\n".join(line for line in lines[1:] if line)
                  + "\n", encoding="utf-8")
    page = markdown_to_html(md)
    (out / "compare.json").write_text(json.dumps({
        "a": str(a), "b": str(b), "set": list(sets), **extra,
        "rows": [r.__dict__ for r in rows]}, indent=2, default=float) + "\n")
    click.echo(f"wrote {md}, {page.name}, {png.name} and compare.json", err=True)


@cli.command("sweep")
@click.argument("scenario", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--set", "sets", multiple=True, required=True, metavar="PATH=A:B",
              help="An axis (path=start:stop[:step] or path=v1,v2,…) or a fixed change (path=value). One or two axes.")
@click.option("--games", "-n", type=click.IntRange(min=1, max=MAX_GAMES), default=None, help="Games per cell at every point.")
@click.option("--seed", type=click.IntRange(min=0), default=None, help="Root seed, shared by every point.")
@_jobs_option
@click.option("--metric", "metrics", multiple=True, help="Metrics to tabulate and plot (repeatable; default: the first).")
@click.option("--where", "wheres", multiple=True, metavar="KEY=VALUE",
              help="Keep only groups with this value (e.g. --where policy=cautious). Repeatable.")
@click.option("--out", type=OutPath(file_okay=False, path_type=Path), default=Path("sweep"), show_default=True,
              help="Folder for sweep.md, sweep.csv and sweep.png.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
@format_option()
def sweep_cmd(scenario, sets, games, seed, jobs, metrics, wheres, out, quiet, fmt):
    """Run SCENARIO at every point of a grid of --set values, on common random numbers.

    \b
    Example: simkit sweep scenarios/valka/lonequest.toml --set fighters.old_gob.health=2:6 \\
               --metric win_rate --where policy=cautious --games 5000
    """
    from simkit.core import sweep as sw
    from simkit.core.seeding import normalize_seed

    parsed = [sw.parse_axis_or_fixed(t) for t in sets]
    axes = [p for p in parsed if isinstance(p, sw.Axis)]
    fixed = [p for p in parsed if not isinstance(p, sw.Axis)]
    if not 1 <= len(axes) <= 2:
        raise InputError(f"sweep: give one or two axes as --set path=start:stop (got {len(axes)})")
    paths = [p.path for p in parsed]
    for i, pth in enumerate(paths):
        if pth in paths[:i]:
            raise InputError(f"--set {parsed[i].text}: {'.'.join(pth)} is given twice; each value once")
    check_out_path(out)
    filters = []
    for w in wheres:
        if "=" not in w:
            raise InputError(f"--where {w!r}: expected KEY=VALUE, e.g. policy=cautious")
        filters.append(tuple(x.strip() for x in w.split("=", 1)))
    root = normalize_seed(seed)
    rows, chosen = sw.run_points(scenario, axes, fixed, games=games, seed=root, jobs=jobs, metrics=list(metrics),
                                 filters=filters, progress=not quiet and _stderr_is_terminal())
    if not rows:
        raise InputError("--where: no group matches; drop it or check the names (see the scenario's cells)")
    out.mkdir(parents=True, exist_ok=True)
    (out / "sweep.csv").write_text(render(rows, "csv"))
    pngs, notes = [], []
    for m in chosen:
        mrows = [r for r in rows if r["metric"] == m]
        groups = list(dict.fromkeys(r["group"] for r in mrows))
        name = "sweep.png" if len(chosen) == 1 else f"sweep-{m}.png"
        pngs.append(sw.sweep_plot(out / name, axes, mrows, m, groups[:12]))
        if len(axes) == 2 and len(groups) > 1:
            notes.append(f"the {m} heat-map shows {groups[0]}; pick a group with --where")
    (out / "sweep.md").write_text(f"# Sweep of {', '.join(chosen)}\n\n`{scenario}` with "
                                  + ", ".join(f"`{t}`" for t in sets) + f", seed {root}, 95% intervals.\n\n"
                                  + "".join(f"![{p.stem}]({p.name})\n\n" for p in pngs) + render(rows, "md"))
    click.echo(render(rows, fmt), nl=False)
    click.echo(f"wrote {out / 'sweep.md'}, {out / 'sweep.csv'}, " + ", ".join(str(p) for p in pngs)
               + (f" ({'; '.join(notes)})" if notes else "") + f"; seed {root}", err=True)


@cli.command("check")
@click.option("--baselines", type=OutPath(file_okay=False, path_type=Path), default=Path("reports/baseline"),
              show_default=True, help="Folder of baselines (NAME.json + NAME.npz).")
@click.option("--update", is_flag=True, help="Re-record the baselines at their games and settings (after an intended "
                                             "change).")
@click.option("--only", multiple=True, help="Check only these baselines (file names without .json).")
@click.option("--all", "show_all", is_flag=True,
              help="Print every number (old, new, paired difference, p-values, tolerance), not only the failing ones.")
@_jobs_option
@format_option()
def check_cmd(baselines, update, only, show_all, jobs, fmt):
    """Replay every baseline game by game; fail when a balance number moved.

    The baseline keeps each game's outcomes, and the same seed replays the
    same games, so every number is a paired comparison of new against old on
    the same games (exact McNemar / sign-flip tests, Newcombe's score
    interval). A number fails when its Holm-adjusted p-value is below the
    baseline's alpha AND it moved by more than its tolerance. Exit code 1 on
    any failure.
    """
    files = sorted(baselines.glob("*.json"))
    unknown = [o for o in only if o not in {f.stem for f in files}]
    if unknown and files:
        raise InputError(f"--only: no baseline {unknown[0]!r} in {baselines}; allowed values: "
                         + ", ".join(f.stem for f in files))
    if only:
        names = {f.stem for f in files}
        bad = [o for o in only if o not in names]
        if bad:
            raise InputError(f"--only: no baseline {bad[0]!r} in {baselines}; allowed values: "
                             f"{', '.join(sorted(names)) or '(none)'}")
        files = [f for f in files if f.stem in only]
    if not files:
        raise InputError(f"--baselines: no baselines in {baselines} (create one with `simkit baseline NAME SCENARIO`)")
    from simkit.core import check as ck

    root = Path.cwd()
    loaded = [(f, ck.load_baseline(f)) for f in files]  # validate every file before playing any game
    for f, data in loaded:
        if data["format"] < ck.FORMAT:
            click.echo(f"simkit: note: {f} is baseline format {data['format']}: its .npz carries no checksum of "
                       "the JSON's numbers yet; re-record it with `simkit baseline --all`", err=True)
    if update:
        for f, data in loaded:
            ck.record(f, data["scenario"], data["overrides"], data["seed"], data["games"], data["block_size"],
                      data["alpha"], data["power"], data["redeal"], data["_tolerances"], root, jobs or None)
            click.echo(f"updated {f} and {f.with_suffix('.npz').name}")
        return
    shown, failed, summary, broken = [], [], [], []
    for f, data in loaded:
        try:
            numbers = ck.run_check(data, root, jobs or None, str(f))
        except ck.CellsChanged as exc:
            broken.append(str(exc))
            continue
        bad = [x for x in numbers if x.status != "ok"]
        failed += [(f.stem, x) for x in bad]
        shown += [(f.stem, x) for x in (numbers if show_all else bad)]
        summary.append({"baseline": f.stem, "numbers": len(numbers), "failed": len(bad),
                        "largest move": f"{max((abs(x.diff) for x in numbers), default=0.0):.4f}",
                        "games per cell": data["games"], "verdict": "FAIL" if bad else "ok"})
    if shown:
        rows = [{"baseline": b, "metric": x.metric, "group": x.group, "old": f"{x.old:.4f}", "new": f"{x.new:.4f}",
                 "new − old [95%]": f"{x.diff:+.4f} [{x.low:+.4f}, {x.high:+.4f}]", "p": f"{x.p_value:.3g}",
                 "p (Holm)": f"{x.p_holm:.3g}", "tolerance": f"{x.tolerance:.4g}", "n": x.n, "verdict": x.status}
                for b, x in shown]
        click.echo(render(rows, fmt), nl=False)
    else:
        click.echo(render(summary, fmt), nl=False)
    for f, data in loaded:
        click.echo(ck.mde_line(f.stem, data), err=True)
    for line in broken:
        click.echo(f"check FAILED: {line}", err=True)
    total = sum(s["numbers"] for s in summary)
    if not failed and not broken:
        click.echo(f"check passed: {total} numbers in {len(files)} baseline(s) as recorded (paired on the same "
                   "games; Holm-adjusted p-values)", err=True)
        return
    if failed:
        click.echo(f"check FAILED: {len(failed)} of {total} numbers moved significantly (Holm-adjusted p below the "
                   "baseline's alpha) and by more than their tolerance, in "
                   f"{len({b for b, _ in failed})} baseline(s); if the change was intended, run "
                   "`simkit check --update`", err=True)
    sys.exit(1)


def _stderr_is_terminal() -> bool:
    """Whether stderr is a terminal (progress bars only then; tests monkeypatch this)."""
    return sys.stderr.isatty()


@cli.command("baseline")
@click.argument("name", required=False)
@click.argument("scenario", required=False, type=click.Path(dir_okay=False, path_type=Path))
@click.option("--all", "all_", is_flag=True,
              help="Re-record every baseline in --baselines from its own settings, sizing the games anew.")
@click.option("--games", "-n", type=click.IntRange(min=1, max=MAX_GAMES), default=None,
              help="Games per cell (default: sized so every number's MDE is at most its tolerance).")
@click.option("--max-games", type=click.IntRange(min=1), default=20_000, show_default=True,
              help="The most games per cell sizing may choose.")
@click.option("--seed", type=click.IntRange(min=0), default=1, show_default=True, help="Root seed.")
@click.option("--set", "sets", multiple=True, metavar="PATH=VALUE", help="Overrides recorded with the baseline.")
@click.option("--tolerance", default="0.02", show_default=True,
              help="Practical tolerance of rates (absolute, or N% of the metric's mean value): smaller moves "
                   "never fail.")
@click.option("--mean-tolerance", default="5%", show_default=True,
              help="Practical tolerance of means (N% of the metric's mean value over its groups, or absolute).")
@click.option("--metric-tolerance", "metric_tols", multiple=True, metavar="METRIC=TOL",
              help="Tolerance of one metric (e.g. turns=10%, win_rate=0.01). Repeatable.")
@click.option("--alpha", type=float, default=0.01, show_default=True,
              help="Family-wise error rate of the check (Holm over the baseline's numbers).")
@click.option("--power", type=float, default=0.8, show_default=True, help="Power at which the MDE is computed.")
@click.option("--redeal", type=float, default=0.35, show_default=True,
              help="MDE assumption: the share of games a change re-deals (plays differently from the change on).")
@click.option("--baselines", type=OutPath(file_okay=False, path_type=Path), default=Path("reports/baseline"),
              show_default=True, help="Folder of baselines.")
@click.option("--only", "only", multiple=True, metavar="NAME",
              help="With --all: re-record only these baselines (file names without .json; repeatable).")
@_jobs_option
def baseline_cmd(name, scenario, all_, games, max_games, seed, sets, tolerance, mean_tolerance, metric_tols, alpha,
                 power, redeal, baselines, only, jobs):
    """Record baseline NAME for `simkit check` from SCENARIO (NAME.json + NAME.npz).

    The games per cell are sized so that every number's minimum detectable
    effect (at --power, Holm --alpha, for a change re-dealing --redeal of the
    games) is at most its tolerance, or the command says it cannot.
    `simkit baseline --all` re-records every baseline from its own settings.
    """
    import json
    import re

    if name is not None and (not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,99}", name) or ".." in name):
        raise InputError(f"baseline NAME: {name!r} is not a plain name; use letters, digits, '-', '_' and '.' "
                         "(it becomes NAME.json in --baselines)")
    from simkit.core import check as ck

    root = Path.cwd()
    if all_:
        if name or scenario:
            raise InputError("baseline: give NAME and SCENARIO, or --all, not both")
        files = sorted(baselines.glob("*.json"))
        if not files:
            raise InputError(f"--baselines: no baselines in {baselines}")
        if only:
            stems = [f.stem for f in files]
            bad = [o for o in only if o not in stems]
            if bad:
                raise InputError(f"--only: no baseline {bad[0]!r} in {baselines}; allowed values: {', '.join(stems)}")
            files = [f for f in files if f.stem in only]
        specs = []
        for f in files:
            try:
                d = json.loads(f.read_text())
                d0 = {k: d[k] for k in ("scenario", "overrides", "seed")}
            except (OSError, ValueError, KeyError, TypeError) as exc:
                raise InputError(f"{f}: cannot read the baseline's scenario, overrides and seed ({exc})") from None
            tols = ck.Tolerances.from_json(d["tolerance"], str(f)) if isinstance(d.get("tolerance"), dict) \
                else ck.Tolerances(ck.Tolerance(float(d.get("tolerance", ck.DEFAULT_RATE_TOLERANCE))))
            specs.append((f, d0, d.get("block_size"), float(d.get("alpha", ck.DEFAULT_ALPHA))
                          if d.get("format") in ck.READABLE_FORMATS else ck.DEFAULT_ALPHA,
                          float(d.get("power", ck.DEFAULT_POWER)), float(d.get("redeal", ck.DEFAULT_REDEAL)), tols))
    else:
        if only:
            raise InputError("--only: only with --all (NAME already names the one baseline)")
        if not name or not scenario:
            raise InputError("baseline: give NAME and SCENARIO (or --all to re-record every baseline)")
        if not (0 < alpha < 0.5):
            raise InputError(f"--alpha: must lie between 0 and 0.5 (got {alpha})")
        if not (0.5 <= power < 1):
            raise InputError(f"--power: must lie between 0.5 and 1 (got {power})")
        if not (0 < redeal <= 1):
            raise InputError(f"--redeal: must lie in (0, 1] (got {redeal})")
        per = {}
        for t in metric_tols:
            k, sep, v = t.partition("=")
            if not sep or not k.strip():
                raise InputError(f"--metric-tolerance: expected METRIC=TOL, e.g. turns=10% (got {t!r})")
            per[k.strip()] = ck.parse_tolerance(v, f"--metric-tolerance {t}")
        tols = ck.Tolerances(ck.parse_tolerance(tolerance, "--tolerance"),
                             ck.parse_tolerance(mean_tolerance, "--mean-tolerance"), per)
        from simkit.core import loader

        sim = loader.load(scenario, list(sets)).simulation
        names = [m.name for m in sim.metrics if m.trials is None] + [x.name for x in ck.seat_numbers(sim)]
        bad = [k for k in per if k not in names]
        if bad:
            raise InputError(f"--metric-tolerance: unknown metric {bad[0]!r}; allowed values: {', '.join(names)}")
        specs = [(baselines / f"{name}.json", {"scenario": str(scenario), "overrides": list(sets), "seed": seed},
                  None, alpha, power, redeal, tols)]
    for f, d0, block_size, a, pw, rd, tols in specs:
        try:
            data = ck.record(f, d0["scenario"], d0["overrides"], d0["seed"], games, block_size, a, pw, rd, tols, root,
                             jobs or None, max_games=max_games, log=lambda s: click.echo(s, err=True),
                             progress=_stderr_is_terminal())  # a bar only on a terminal, never into a file
        except ck.CannotSize as exc:
            click.echo(f"simkit baseline: cannot size {exc}", err=True)
            sys.exit(1)
        click.echo(f"wrote {f} and {f.with_suffix('.npz').name} ({len(data['metrics'])} numbers, "
                   f"{f.with_suffix('.npz').stat().st_size:,} bytes of per-game outcomes)")
        click.echo(ck.mde_line(f.stem, data))


@cli.command("tune")
@click.argument("scenario", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--policy", "-p", required=True, help="The heuristic policy whose parameters to tune (a preset or a "
              "[policies.NAME] table of the scenario).")
@click.option("--budget", type=click.IntRange(min=1, max=10**10), default=20_000, show_default=True,
              help="Games per cell the search may play, summed over all candidates.")
@click.option("--seed", type=click.IntRange(min=0), default=1, show_default=True, help="Root seed of the search.")
@click.option("--metric", default="won", show_default=True, help="The per-game column to maximise.")
@click.option("--param", "params", multiple=True, help="Tune only these parameters (repeatable; default: every "
              "parameter with a declared range).")
@click.option("--games-per-candidate", type=click.IntRange(min=10, max=10**8), default=None,
              help="Games per cell each candidate plays (default: budget / (population × 20)).")
@click.option("--eval-games", type=click.IntRange(min=10, max=10**8), default=None,
              help="Games per cell of the final, fresh-seed comparison with the defaults.")
@click.option("--name", default=None, help="Name of the written policy table (default: POLICY_tuned).")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Append the [policies.NAME] table to this TOML file (default: print it).")
@click.option("--set", "sets", multiple=True, metavar="PATH=VALUE", help="Override a scenario value (repeatable).")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
@_serial_jobs_option
def tune_cmd(scenario, policy, budget, seed, metric, params, games_per_candidate, eval_games, name, out, sets, quiet,
             jobs):
    """Search a heuristic's parameters for the highest win rate (CMA-ES on common random numbers), then check the
    winner against the defaults on fresh seeds.

    \b
    Example:
      simkit tune scenarios/toy/draw.toml --policy timid --budget 40000 --seed 1
    """
    from simkit.core.tune import tune

    name = name or f"{policy}_tuned"
    if not name.replace("_", "").replace("-", "").isalnum():
        raise InputError(f"--name: {name!r} must be letters, digits, '_' or '-'")
    r = tune(scenario, policy, budget, seed=seed, metric=metric, params=list(params),
             games_per_candidate=games_per_candidate, eval_games=eval_games, jobs=_cores(jobs),
             overrides=sets, progress=not quiet and _stderr_is_terminal())  # no bar into a file or a pipe
    rows = [{"parameter": k, "default": f"{r.default[k]:.4g}", "tuned": f"{r.best[k]:.4g}"} for k in r.names]
    click.echo(render(rows, "table"))
    click.echo(f"{metric}: default {r.default_value:.4f}, tuned {r.best_value:.4f}; tuned − default "
               f"{r.difference:+.4f} [{r.low:+.4f}, {r.high:+.4f}] (95%, paired over {r.games:,} fresh games "
               f"× {r.cells} cell{'s' if r.cells != 1 else ''}; search used {r.search_games:,} games per cell)")
    best = max(f[metric] for f in r.finalists)
    click.echo(f"chosen: {r.chosen}, the best of {len(r.finalists)} finalists replayed on "
               f"{r.select_games:,} selection games ({metric} {best:.4f}; the final mean "
               f"{r.finalists[0][metric]:.4f})")
    text = r.toml(name)
    if out is None:
        click.echo("\n" + text, nl=False)
    else:
        try:
            with open(out, "a", encoding="utf-8") as fh:
                fh.write("\n" + text)
        except OSError as exc:
            raise InputError(f"--out: cannot write {out}: {exc.strerror}") from None
        click.echo(f"[policies.{name}] appended to {out}")


@cli.command("balance")
@click.argument("scenario", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--vary", "varies", multiple=True, metavar="PATH=RANGE",
              help="A value the search may change, addressed as --set addresses it: PATH=LO:HI (whole numbers stay "
                   "whole), PATH=LO:HI:STEP or PATH=A,B,C (repeatable).")
@click.option("--vary-file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="A file of PATH=RANGE lines (# comments), added to --vary.")
@click.option("--target", "targets", multiple=True, metavar="METRIC[GROUP]=VALUE±TOL",
              help="A per-game column's mean to bring into a band: won[warband=goblins]=0.8±0.04 (or +-), "
                   "won[warband]=0.75:0.85 (every Warband), first_won<=0.55, won[level=1]-won[level=3]>=0.05 "
                   "(repeatable; combined as the largest violation).")
@click.option("--policy", "-p", default=None, help="The policy every cell plays (default: the scenario's strongest "
              "practical one: its learned policy, else its tuned heuristic).")
@click.option("--budget", type=click.IntRange(min=1, max=10**10), default=20_000, show_default=True,
              help="Games per cell the search may play, summed over its candidates.")
@click.option("--max-edits", type=click.IntRange(min=1, max=32), default=3, show_default=True,
              help="The most fields a candidate may change.")
@click.option("--seed", type=click.IntRange(min=0), default=1, show_default=True, help="Root seed of the search.")
@click.option("--games-per-trial", type=click.IntRange(min=10, max=10**8), default=None,
              help="Games per cell each candidate plays (default: budget / 60, at least 100).")
@click.option("--eval-games", type=click.IntRange(min=10, max=10**8), default=None,
              help="Fresh games per cell of each check (default: enough for a half-width of half the narrowest "
                   "tolerance at a rate of 0.5).")
@click.option("--edit-cost", type=click.FloatRange(min=0.0), default=0.002, show_default=True,
              help="What one edit costs in the score, in the targets' units (its size costs half that per range).")
@click.option("--search-games", type=click.IntRange(min=0, max=10**6), default=0, show_default=True,
              help="Also check the result under the scenario's `search` policy on this many fresh games per cell.")
@click.option("--out", type=OutPath(file_okay=False, path_type=Path), default=None,
              help="Run folder to write (default: runs/balance-<stamp>-<seed>).")
@click.option("--set", "sets", multiple=True, metavar="PATH=VALUE",
              help="A fixed change the whole search plays under, e.g. --set 'jarls=[\"sigurd\"]' (repeatable; not "
                   "written into the edited copies).")
@click.option("--no-copies", is_flag=True, help="Write the edited files only into the run folder, not beside the "
              "originals.")
@click.option("--no-margin", is_flag=True, help="Aim the search at each band itself (default: inside it, by the "
              "half-width the fresh check's interval will have, so a result just inside is not left unclear).")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
@format_option()
@_serial_jobs_option
def balance_cmd(scenario, varies, vary_file, targets, policy, budget, max_edits, seed, games_per_trial, eval_games,
                edit_cost, search_games, sets, out, no_copies, no_margin, quiet, fmt, jobs):
    """Find the fewest, smallest edits to card data or rules that bring per-game rates into target bands, then
    verify them on fresh games.

    \b
    Example:
      simkit balance scenarios/toy/draw.toml --policy stop_at_8 --vary rules.win_low=6:10 \\
        --vary rules.win_high=9:12 --target "won[policy=stop_at_8]=0.45±0.03" --budget 6000
    """
    from simkit.core.balance import balance, read_vary_file, report_lines

    if fmt not in ("table", "md"):
        raise InputError(f"--format: balance prints tables and a diff; allowed values: table, md (got {fmt})")
    if not scenario.is_file():
        raise InputError(f"SCENARIO {scenario}: no such file")
    all_varies = list(varies) + (read_vary_file(vary_file) if vary_file else [])
    if out is not None:
        out = check_out_path(out)
    else:
        from simkit.core.runner import make_run_dir

        out = make_run_dir("runs", "balance", seed)
    if out.exists() and any(out.iterdir()):
        raise InputError(f"--out {out}: the folder exists and is not empty; name a new one")
    r = balance(scenario, all_varies, list(targets), policy=policy, budget=budget, max_edits=max_edits, seed=seed,
                games_per_trial=games_per_trial, eval_games=eval_games, edit_cost=edit_cost,
                search_games=search_games, sets=list(sets), jobs=_cores(jobs), out=out,
                beside=not no_copies, aim=not no_margin,
                progress=not quiet and _stderr_is_terminal(), argv=sys.argv[1:])
    for line in report_lines(r, fmt):
        click.echo(line)
    click.echo(f"Run folder: {out}")


@cli.command("train")
@click.argument("scenario", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--name", required=True, help="Name of the learned policy (its [policies.NAME] table and NAME.npz).")
@click.option("--out", "out", required=True, type=OutPath(file_okay=False, path_type=Path),
              help="Folder to write NAME.npz, each iteration's weights and scenario.toml (a copy of the scenario "
                   "that plays the learned policy).")
@click.option("--weights", type=OutPath(dir_okay=False, path_type=Path), default=None,
              help="Where to write the final weights (default: SCENARIO_STEM.NAME.npz next to the scenario).")
@click.option("--base", default=None, help="The heuristic the model starts from and the first teacher searches "
              "over (default: the first heuristic of the scenario's play list).")
@click.option("--teacher", "rollouts", type=click.IntRange(min=1, max=10_000), default=32, show_default=True,
              help="The teacher's rollouts per legal action (`search`, successive halving).")
@click.option("--teacher-base", type=click.Choice(["learned", "heuristic"]), default="learned", show_default=True,
              help="What the teacher searches over after the first iteration: the current learned policy (expert "
                   "iteration) or always the base heuristic.")
@click.option("--teacher-policy", default=None, metavar="NAME",
              help="--method expert: a `search` policy of the scenario ([policies.NAME]: its own rollouts, base, "
                   "depth and value) that labels every iteration's decisions and judges it, instead of `search` "
                   "over the current policy with --teacher rollouts.")
@click.option("--budget", type=click.IntRange(min=1, max=10**8), default=2000, show_default=True,
              help="Training games in all, split over the iterations.")
@click.option("--iterations", type=click.IntRange(min=1, max=100), default=3, show_default=True)
@click.option("--share", type=click.FloatRange(min=0.0, max=1.0, min_open=True), default=0.5, show_default=True,
              help="Share of the decisions (with two or more legal actions) the teacher labels.")
@click.option("--hidden", type=click.IntRange(min=0, max=64), default=0, show_default=True,
              help="Hidden tanh units of the scorer (0: a linear scorer).")
@click.option("--eval-games", type=click.IntRange(min=10, max=10**8), default=2000, show_default=True,
              help="Fresh games per cell judging each iteration against the base heuristic and the previous one.")
@click.option("--teacher-games", type=click.IntRange(min=0, max=10**6), default=40, show_default=True,
              help="Fresh games per cell judging each iteration against its teacher (0: skip).")
@click.option("--tolerance", type=click.FloatRange(min=0.0, max=1.0), default=0.02, show_default=True,
              help="Stop once the learned policy is shown within this of its teacher (95% lower bound of learned − "
                   "teacher above −tolerance), on at least 3 / tolerance teacher games (150 at 0.02): fewer never "
                   "stop the training.")
@click.option("--method", type=click.Choice(["expert", "outcomes", "value"]), default="expert", show_default=True,
              help="expert: expert iteration over `search` (labels: the teacher's choices); outcomes: a logistic "
                   "value of the action played fitted to how each game ended (labels free from every game); value: "
                   "the value of a policy's positions (--init weights, else --base), for a `search` whose rollouts "
                   "stop after --depth decisions.")
@click.option("--depth", type=click.IntRange(min=1, max=100_000), default=8, show_default=True,
              help="--method value: decisions each rollout of the written scenario's search plays before the value "
                   "scores its position.")
@click.option("--set", "sets", multiple=True, metavar="PATH=VALUE",
              help="--method value: override a scenario value while collecting (repeatable), e.g. one cell.")
@click.option("--epsilon", type=click.FloatRange(min=0.0, max=1.0), default=0.02, show_default=True,
              help="--method outcomes: share of the decisions played at random while collecting (exploration).")
@click.option("--window", type=click.IntRange(min=1, max=100), default=1, show_default=True,
              help="--method outcomes: iterations of games each fit sees (the latest; more than 1 only with "
                   "--target q: an advantage is over the policy that played the games).")
@click.option("--init", type=click.Path(dir_okay=False, exists=True, path_type=Path), default=None,
              help="--method outcomes: weights the first iteration plays (default: the base heuristic).")
@click.option("--reference", type=click.Path(dir_okay=False, exists=True, path_type=Path), default=None,
              help="--method outcomes: weights each iteration is also judged against (e.g. the committed ones).")
@click.option("--l2", type=click.FloatRange(min=0.0), default=1e-4, show_default=True,
              help="--method outcomes: L2 penalty of the fit (on standardised features).")
@click.option("--margin", type=click.FloatRange(min=0.0), default=0.0, show_default=True,
              help="--method outcomes, without --init: the first iteration leaves the base heuristic's action only "
                   "for a fitted advantage above this (logit units).")
@click.option("--opponent", "opponents", multiple=True, metavar="NAME",
              help="--method outcomes, games of two or more seats: a policy of the scenario the other seats play "
                   "in turn while collecting (repeatable), the learned policy only in the hero's seat (default: "
                   "every seat plays it).")
@click.option("--target", type=click.Choice(["advantage", "q"]), default="advantage", show_default=True,
              help="--method outcomes: what the fit learns: each explored action's advantage over the policy's "
                   "own (added to the policy's weights), or the outcome of the action played (q).")
@click.option("--search-games", type=click.IntRange(min=0, max=10**6), default=0, show_default=True,
              help="--method outcomes: fresh games per cell judging each iteration against `search` over the base "
                   "heuristic with --teacher rollouts (0: skip).")
@click.option("--keep", type=click.Choice(["best", "last"]), default="best", show_default=True,
              help="Which iteration's weights to write: the best, all iterations replayed on the same fresh games "
                   "(--eval-games more per iteration, only with two or more iterations), or the last.")
@click.option("--metric", default="won", show_default=True, help="The per-game column the judgement compares.")
@click.option("--seed", type=click.IntRange(min=0), default=1, show_default=True, help="Root seed.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
@_jobs_option
def train_cmd(scenario, name, out, weights, base, rollouts, teacher_base, teacher_policy, budget, iterations, share,
              hidden, eval_games, teacher_games, tolerance, method, depth, sets, epsilon, window, init, reference, l2,
              margin, opponents, target, search_games, keep, metric, seed, quiet, jobs):
    """Train a learned policy by expert iteration: `search` teaches, a scorer over the mover's features learns.

    Each iteration plays games with the current policy, asks the teacher (`search` over the current policy) at a
    share of the decisions, fits the scorer to every choice so far, and is judged on fresh seeds, paired, against
    the base heuristic, the previous iteration and its teacher. Reproducible from --seed (whatever --jobs).

    With --method outcomes no teacher: every decision of games played at heuristic speed (a share --epsilon of
    them at random) is labelled with how the game ended for the mover, and a logistic value of each explored
    action's advantage over the policy's own is fitted and added to the policy (docs/strategy.md).

    With --method value: the value of a policy's positions, fitted the same way to games it plays, for a `search`
    over it whose rollouts stop after --depth decisions and read the value there (more rollouts for the work).

    \b
    Examples:
      simkit train scenarios/toy/draw.toml --name learned --base timid --budget 400 --out runs/toy-learned
      simkit train scenarios/toy/draw.toml --name learned --base timid --method outcomes --epsilon 0.2 \
        --budget 4000 --iterations 2 --out runs/toy-outcomes
      simkit train scenarios/toy/draw.toml --name vsearch --base stop_at_8 --method value --depth 1 \
        --budget 4000 --out runs/toy-value
    """
    if sets and method != "value":
        raise InputError("--set: only with --method value (the other methods train on the whole scenario)")
    if teacher_policy is not None and method != "expert":
        raise InputError("--teacher-policy: only with --method expert (the other methods have no teacher)")
    if opponents and method != "outcomes":
        raise InputError("--opponent: only with --method outcomes (the other methods play the policy at every seat)")
    if method == "value":
        from simkit.core.value import train_value

        r = train_value(scenario, name, out, base=base, init=init, budget=budget, seed=seed, l2=l2, depth=depth,
                        rollouts=rollouts, jobs=_cores(jobs), weights=weights, metric=metric, overrides=sets)
        click.echo(render(r.rows(), "table"), nl=False)
        click.echo(f"the value of {r.policy}'s positions (held out: every fifth game); wrote {r.weights} and "
                   f"{r.scenario}, which plays {r.name}: search over {r.policy} with rollouts cut after {depth} "
                   "decisions")
        return
    if method == "outcomes":
        from simkit.core.value import train_outcomes

        r = train_outcomes(scenario, name, out, base=base, budget=budget, iterations=iterations, seed=seed,
                           epsilon=epsilon, window=window, eval_games=eval_games, search_games=search_games,
                           rollouts=rollouts, metric=metric, jobs=_cores(jobs), weights=weights, init=init,
                           reference=reference, target=target, l2=l2, margin=margin, opponents=opponents,
                           keep=keep,
                           progress=not quiet and _stderr_is_terminal(),
                           echo=lambda line: click.echo(line, err=True))
        click.echo(render(r.rows(), "table"), nl=False)
        click.echo(f"stopped: {r.stopped}; differences are paired over fresh games (95%); kept {r.chosen}; "
                   f"wrote {r.weights} and {r.scenario}")
        return
    from simkit.core.train import train

    r = train(scenario, name, out, base=base, rollouts=rollouts, budget=budget, iterations=iterations, seed=seed,
              hidden=hidden, share=share, eval_games=eval_games, teacher_games=teacher_games, metric=metric,
              jobs=_cores(jobs), teacher_base=teacher_base, weights=weights, tolerance=tolerance, keep=keep,
              teacher_policy=teacher_policy, progress=not quiet and _stderr_is_terminal())
    click.echo(render(r.rows(), "table"), nl=False)
    click.echo(f"stopped: {r.stopped}; differences are paired over fresh games (95%); kept {r.chosen}; "
               f"wrote {r.weights} and {r.scenario}")


@cli.command("ladder")
@click.argument("scenario", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--policy", "-p", "policies", multiple=True,
              help="Policies to rank (repeatable; default: the scenario's play list).")
@click.option("--games", "-n", type=click.IntRange(min=2, max=10**8), default=2000, show_default=True,
              help="Games per cell (the cap with --precision).")
@click.option("--precision", type=float, default=None,
              help="Play blocks until every rung's 95%% half-width is at most this (e.g. 0.05), at most --games.")
@click.option("--block-size", type=click.IntRange(min=1, max=10**8), default=None,
              help="Games per block (default: the scenario's); with --precision, the step between checks.")
@click.option("--seed", type=click.IntRange(min=0), default=1, show_default=True, help="Root seed.")
@click.option("--metric", default="won", show_default=True, help="The per-game column to rank by.")
@click.option("--set", "sets", multiple=True, metavar="PATH=VALUE", help="Override a scenario value (repeatable).")
@_serial_jobs_option
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
@format_option()
def ladder_cmd(scenario, policies, games, precision, block_size, seed, metric, sets, jobs, quiet, fmt):
    """The skill ladder: every policy on the same games, strongest first, with paired gaps to the best.

    \b
    Examples:
      simkit ladder scenarios/toy/draw.toml --games 5000
      simkit ladder scenarios/toy/draw.toml --precision 0.02 --games 20000 --block-size 500
    """
    from simkit.core.ladder import ladder, precision_note, table_rows

    if precision is not None and not 0 < precision < 0.5:
        raise InputError(f"--precision: must lie strictly between 0 and 0.5 (got {precision})")
    rungs = ladder(scenario, list(policies) or None, games=games, seed=seed, metric=metric, jobs=_cores(jobs),
                   overrides=sets, progress=not quiet and _stderr_is_terminal(), block_size=block_size,
                   precision=precision)
    click.echo(render(table_rows(rungs, metric), fmt))
    if fmt == "table" and precision is not None:
        click.echo(precision_note(precision, rungs, games, block_size or _ladder_block(scenario, sets)))
        games = rungs[0].games
    if fmt == "table":
        click.echo(f"{games:,} games per cell, the same games for every policy (seed {seed}); gaps are paired "
                   f"game by game; 'below best' (p adj.) allows for the best having been picked from the same games: each "
                   "policy against the best of the others, step-down max statistic, family-wise 5%.")


def _ladder_block(scenario, sets) -> int:
    """The block size a ladder of ``scenario`` plays by default (its simulation's)."""
    from simkit.core import loader

    return int(loader.load(scenario, list(sets)).simulation.default_block_size)


@cli.command("bench")
@click.argument("game", required=False)
@click.option("--games", "-n", type=click.IntRange(min=1, max=MAX_GAMES), default=None, help="Games per cell to time (default: per mode).")
@click.option("--jobs", "-j", type=click.IntRange(min=1, max=MAX_JOBS), default=None, help="Cores for the parallel run (default: all).")
@click.option("--compile", "compile_", is_flag=True,
              help="Instead: each engine's cold compile cost (CPU seconds in a fresh process on an empty kernel "
                   "cache, then on the cache it filled), one engine after another.")
def bench_cmd(game, games, jobs, compile_):
    """Time each simulator: games/s per core with --jobs 1, and the speed-up with all cores.

    GAME is a game or mode name (e.g. valka, chance-strike); default: all.
    """
    progress = (lambda line: click.echo(line, err=True)) if _stderr_is_terminal() else None
    if compile_:
        from simkit.core.warm import compile_cost, groups

        _check_target("bench", game, groups)
        click.echo(render(compile_cost(game), "table"), nl=False)
        return
    from simkit.core.bench import bench

    rows = bench(game, games=games, jobs=jobs, progress=progress)
    # rates and speed-ups as bench rounded them (1.3 games/s, a speed-up of 1.85), not at a rate's 4 decimals
    rows = [{k: f"{v:g}" if isinstance(v, float) else v for k, v in r.items()} for r in rows]
    click.echo(render(rows, "table"), nl=False)


def _check_target(command: str, game, groups) -> None:
    if game is not None and not groups(game):
        from simkit.core.bench import unknown

        raise unknown(command, game)


@cli.command("warm")
@click.argument("game", required=False)
@click.option("--jobs", "-j", type=click.IntRange(min=1, max=MAX_JOBS), default=None,
              help="Processes (default: every core); engines that share kernels compile in one.")
def warm_cmd(game, jobs):
    """Compile every game's kernels ahead into the kernel cache (make setup runs it).

    GAME is a game or mode name (e.g. valka, lonequest); default: all. Each engine's kernels compile once, in one
    process; a later command or test run loads them from the cache. Prints the CPU seconds each engine took
    (a second run, on a warm cache, only loads).
    """
    from simkit.core.warm import groups, warm

    _check_target("warm", game, groups)
    rows = warm(game, jobs=jobs, progress=lambda line: click.echo(line, err=True))
    click.echo(render(rows, "table"), nl=False)


def main():
    cli.main()


if __name__ == "__main__":  # pragma: no cover
    main()
