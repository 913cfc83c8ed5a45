"""VÁLKA Lonequest report: win odds per Warband × policy, failure causes, progress and means.

Everything is aggregated from the run's per-game Parquet rows lazily with
polars (one ``group_by`` per table); no per-game rows are kept in memory.
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl

from simkit.core import results
from simkit.core.plotting import grouped_bars, lines
from simkit.core.report import (
    DETAILS_MARKER, STAND_IN_NOTICE, extreme, interval, lead_paragraph, manifest_section, run_bundled,
    search_words, shown_path, tie_words, toml_value, write_markdown,
)
from simkit.core.report import interval as _iv  # a rate with its 95% interval
from simkit.core.sensitivity import markdown as sens_markdown
from simkit.core.sensitivity import ranking_sentence, sensitivity
from simkit.core.stats import Estimate, clustered_rate, mean_interval, pooled_rate, wilson
from simkit.core.tables import render

OUTCOMES = ("won", "no_fighters", "no_stamina", "stranded", "cap")
OUTCOME_TEXT = {
    "won": "won (all six Locations cleared)",
    "no_fighters": "failed: no Warband Fighter left",
    "no_stamina": "failed: too tired to march",
    "stranded": "failed: no route to an uncleared Location",
    "cap": "stopped at the step cap",
}
MAX_LOCATIONS = 6
MEANS = (
    ("turns", "turns"),
    ("battles", "battles"),
    ("marauders_defeated", "Marauders defeated"),
    ("krone", "final Krone"),
    ("test_fates", "Test Fates made"),
    ("test_fates_won", "Test Fates won"),
)




def _order(declared, present) -> list[str]:
    """Declared order (from the manifest) first, then anything else present, sorted."""
    present = set(present)
    out = [x for x in (declared or []) if x in present]
    return out + sorted(present - set(out))


def _n_note(ns) -> str:
    ns = set(int(n) for n in ns)
    if len(ns) == 1:
        return f"n = {ns.pop():,} games per cell"
    return f"n = {min(ns):,}–{max(ns):,} games per cell (see the per-cell tables)"


def _outcome_counts(frame: pl.LazyFrame, by: list[str]) -> pl.DataFrame:
    return frame.group_by(by).agg(
        n=pl.len(),
        won=pl.col("won").cast(pl.Int64).sum(),
        **{c: (pl.col("cause") == c).cast(pl.Int64).sum() for c in OUTCOMES if c != "won"},
    ).collect()


def _pooled_outcome_rows(pooled: dict[str, dict], policies: list[str]) -> list[dict]:
    out = []
    for p in policies:
        r = pooled[p]
        out.append({"policy": p, **{c: _iv(_pooled_rate(r, c)) for c in OUTCOMES}, "n": int(r["n"])})
    return out


def _outcome_rows(counts: pl.DataFrame, keys: list[str], order: dict[str, list[str]]) -> list[dict]:
    rank = {k: {v: i for i, v in enumerate(order[k])} for k in keys}
    rows = sorted(counts.iter_rows(named=True), key=lambda r: tuple(rank[k][r[k]] for k in keys))
    out = []
    for r in rows:
        row = {k: r[k] for k in keys}
        for c in OUTCOMES:
            row[c] = _iv(wilson(int(r[c]), int(r["n"])))
        row["n"] = int(r["n"])
        out.append(row)
    return out


def _pooled_by_policy(frame: pl.LazyFrame) -> dict[str, dict]:
    """Per policy, all Warbands pooled with the game as the unit: the Warbands of one game replay its dice.

    For every count, the sum and sum of squares over games of each game's total over its ``c`` Warband rows.
    """
    counts = {"won": pl.col("won").cast(pl.Int64)}
    counts.update({c: (pl.col("cause") == c).cast(pl.Int64) for c in OUTCOMES if c != "won"})
    counts.update({f"loc{k}": (pl.col("locations_cleared") == k).cast(pl.Int64) for k in range(MAX_LOCATIONS + 1)})
    counts.update({col: pl.col(col).cast(pl.Int64) for col, _ in MEANS})
    per = frame.group_by("policy", "block", "game").agg(pl.len().alias("c"),
                                                          *[e.sum().alias(k) for k, e in counts.items()])
    aggs = [pl.len().alias("n"), pl.col("c").max().alias("c"), pl.col("c").sum().alias("rows")]
    for k in counts:
        aggs += [pl.col(k).sum().alias(f"{k}_s"), (pl.col(k) * pl.col(k)).sum().alias(f"{k}_ss")]
    return {r["policy"]: r for r in per.group_by("policy").agg(aggs).collect().iter_rows(named=True)}


def _pooled_rate(r: dict, key: str) -> Estimate:
    return pooled_rate(int(r["n"]), r[f"{key}_s"], r[f"{key}_ss"], int(r["c"]))


def lonequest_report(run_dir: str | Path, out_dir: str | Path, search_ladder: dict | None = None) -> list[Path]:
    """Write ``out_dir/report.md`` with ``skill-ladder.png``, ``win-odds.png`` and ``locations-cleared.png``;
    return the files.

    The report leads with the strongest policy of the run's skill ladder (every policy on the same games).
    ``search_ladder`` (optional): ``{"rungs": [Rung, …], "games": n, "warbands": k, "search": text}``, a second
    ladder on fewer games that includes the slow `search` policy."""
    from simkit.core import ladder

    run_dir, out_dir = Path(run_dir), Path(out_dir)
    man = results.manifest(run_dir)
    frame = results.scan(run_dir)
    kinds = {p: (v or {}).get("kind", "heuristic") for p, v in (man.get("policies") or {}).items()}
    rungs = ladder.rungs_from_rows(frame, kinds)
    best = rungs[0].policy

    # --- win odds and outcomes per Warband × policy (one pass over the rows) ---
    cell_counts = _outcome_counts(frame, ["warband", "policy"])
    warbands = _order(man.get("warbands"), cell_counts["warband"].to_list())
    policies = _order(list(man.get("policies", {})), cell_counts["policy"].to_list())
    order = {"warband": warbands, "policy": policies}
    cells = {(r["warband"], r["policy"]): r for r in cell_counts.iter_rows(named=True)}
    win = {key: wilson(int(r["won"]), int(r["n"])) for key, r in cells.items()}

    win_rows = []
    for w in warbands:
        row = {"Warband": w}
        for p in policies:
            row[p] = _iv(win[(w, p)]) if (w, p) in win else "–"
        win_rows.append(row)
    pooled = _pooled_by_policy(frame)
    pooled_win = {p: _pooled_rate(r, "won") for p, r in pooled.items()}
    win_rows.append({"Warband": "**all Warbands**",
                     **{p: _iv(pooled_win[p]) if p in pooled_win else "–" for p in policies}})

    png_win = grouped_bars(
        out_dir / "win-odds.png", warbands,
        {p: ([win[(w, p)].estimate if (w, p) in win else float("nan") for w in warbands],
             [win[(w, p)].low if (w, p) in win else float("nan") for w in warbands],
             [win[(w, p)].high if (w, p) in win else float("nan") for w in warbands]) for p in policies},
        "Lonequest win odds by Warband and policy (95% Wilson intervals)", "P(win)")

    # --- Locations cleared (0..6) per policy ---
    loc = frame.group_by("policy", "locations_cleared", "won").agg(k=pl.len()).collect()
    loc_n = {p: 0 for p in policies}
    all_cleared_lost = 0  # every Location cleared, yet the game ended in a failure
    for p, c, won, k in loc.select("policy", "locations_cleared", "won", "k").iter_rows():
        loc_n[p] += int(k)
        if c == MAX_LOCATIONS and not won:
            all_cleared_lost += int(k)
    loc_est = {p: [_pooled_rate(pooled[p], f"loc{c}") for c in range(MAX_LOCATIONS + 1)] for p in policies}
    loc_rows = [{"Locations cleared": str(c), **{p: _iv(loc_est[p][c]) for p in policies}}
                for c in range(MAX_LOCATIONS + 1)]
    loc_rows.append({"Locations cleared": "n: games (Warband games)",
                     **{p: f"{int(pooled[p]['n']):,} ({loc_n[p]:,})" for p in policies}})
    xs = list(range(MAX_LOCATIONS + 1))
    png_loc = lines(
        out_dir / "locations-cleared.png", xs,
        {p: [e.estimate for e in loc_est[p]] for p in policies},
        title="Locations cleared by the end of the game (all Warbands pooled)",
        xlabel="Locations cleared", ylabel="share of games",
        bands={p: ([e.low for e in loc_est[p]], [e.high for e in loc_est[p]]) for p in policies})

    # --- means per policy (all Warbands pooled; each game's mean over its Warbands is one observation) ---
    tf = frame.group_by("policy", "block", "game").agg(
        made=pl.col("test_fates").cast(pl.Int64).sum(), won=pl.col("test_fates_won").cast(pl.Int64).sum()).collect()
    tf_rate = {p: clustered_rate(g["won"].to_numpy(), g["made"].to_numpy()) for (p,), g in tf.group_by("policy")}
    mean_rows = []
    for p in policies:
        r = pooled[p]
        c = int(r["c"])
        row = {"policy": p}
        for col, label in MEANS:
            row[label] = _iv(mean_interval(int(r["n"]), r[f"{col}_s"] / c, r[f"{col}_ss"] / (c * c)), 2)
        made = int(r["test_fates_s"])
        row["won / made"] = _iv(tf_rate[p]) if made else "–"
        row["Test Fates (all)"] = f"{made:,}"
        row["games"] = int(r["n"])
        mean_rows.append(row)

    # --- the skill ladder (all Warbands pooled, the game as the unit) ---
    games_per_cell = int(pooled[best]["n"])
    png_ladder = ladder.plot(out_dir / "skill-ladder.png", rungs,
                             title="Lonequest skill ladder: P(win), all Warbands pooled", label="P(win)")
    ladder_text = ladder.markdown(rungs, games=games_per_cell, cells=len(warbands), label="P(win)")
    search_text = ""
    if search_ladder:
        sr = search_ladder["rungs"]
        top = sr[0]
        search_text = (
            f"### With `search` (a smaller sample)\n\n"
            f"`search` ({search_ladder.get('search', 'determinized rollouts of a heuristic')}) costs about half a "
            f"CPU-second a game, so it plays a smaller sample: every policy again, on the same "
            f"{search_ladder['games']:,} games in each of the {search_ladder['warbands']} Warbands (root seed "
            f"{search_ladder.get('seed', '?')}, not the games above). {supported(sr)}\n\n"
            + ladder.markdown(sr, games=search_ladder["games"], cells=search_ladder["warbands"], label="P(win)",
                              **({"precision": search_ladder["precision"], "cap": search_ladder["cap"],
                                  "block": search_ladder["block"]} if "precision" in search_ladder else {}))
            + "\n")

    # --- policy sensitivity: the Warband ranking under every policy against the strongest's ---
    table = {p: {w: win[(w, p)] for w in warbands if (w, p) in win} for p in policies if kinds.get(p) != "random"}
    sens_text = ""
    comps = sensitivity(table, best) if best in table and len(table) > 1 else []
    if comps:
        sens_text = (
            "## Does the Warband ranking depend on the policy?\n\n"
            f"A balance conclusion holds for a game *and* a way of playing it. Each policy's ranking of the "
            f"{len(warbands)} Warbands (its P(win) per Warband, {_n_note(r['n'] for r in cells.values())}) against "
            f"the ranking under the strongest policy, `{best}`: Spearman's rank correlation and the pairs of "
            "Warbands whose order flips; a flip is *resolved* when the games show both orders: the larger of the "
            "two policies' two-sided p-values for the pair's difference (normal, from the Wilson intervals; "
            "conservative, as the Warbands of a game share its dice), **Holm-corrected over every pair of every "
            f"policy compared** ({sum(c.pairs for c in comps)} pairs), is below 0.05, so the chance of calling any "
            "flip where the orders truly agree is at most 5%. `random` is left out. `search` plays too few games per Warband for a ranking of its own (see the "
            "ladder above).\n\n" + sens_markdown(comps, best, "Warbands") + "\n")

    # --- headline: the strongest policy's answer ---
    bw = {w: win[(w, best)] for w in warbands if (w, best) in win}
    by_w = sorted(bw, key=lambda w: -bw[w].estimate)
    rnd = next((r for r in rungs if r.kind == "random"), None)
    headline = (
        f"Played by the strongest practical policy, {named(best, kinds.get(best, ''))}, a Warband conquers the "
        f"Lonequest in **{_iv(pooled_win[best])}** of games (all {len(warbands)} Warbands pooled, 95% interval, "
        f"{games_per_cell:,} games). Best Warband: **{by_w[0]}** {_iv(bw[by_w[0]])}; worst: **{by_w[-1]}** "
        f"{_iv(bw[by_w[-1]])}."
        + (f" Random legal play wins {rnd.value:.3f} [{rnd.low:.3f}, {rnd.high:.3f}], so skill is worth "
           f"{-rnd.gap:+.3f} [{-rnd.gap_high:+.3f}, {-rnd.gap_low:+.3f}] (paired, `{rungs[0].policy}` − random)."
           if rnd else "")
        + (f" `search` wins {_rung(search_ladder['rungs'], 'search')} on a smaller sample "
           f"({search_ladder['games']:,} games × {search_ladder['warbands']} Warbands; "
           f"{_gap(search_ladder['rungs'], 'search', best)})."
           if search_ladder and any(r.policy == 'search' for r in search_ladder["rungs"]) else "")
        + " " + ranking_sentence(comps, table, best, "Warband")
    )

    lead = lead_sentence(bw, pooled_win[best], best, int(min(cells[(w, best)]["n"] for w in bw)))

    # --- text ---
    opts = man.get("rule_options", {})
    opt_text = ", ".join(f"`{k} = {toml_value(v)}`" for k, v in opts.items()) or "defaults"
    pol_text = ", ".join(f"`{p}`" for p in policies)
    n_cells = len(cells)
    # the per-Warband table answers the page's question: it comes first, right after the answer
    win_text = (
        "## Win odds\n\n"
        f"![Win odds]({png_win.name})\n\n"
        f"The strongest practical policy is `{best}` (see the skill ladder below). "
        f"P(win) per Warband (rows) and policy (columns) with its 95% Wilson interval; "
        f"{_n_note(r['n'] for r in cells.values())}. The last row pools all Warbands with the game as the unit "
        "(the Warbands of one game share its dice): Wilson on the effective number of games.\n\n"
        + render(win_rows, "md") + "\n")
    text = (
        "# VÁLKA Lonequest: win odds by Warband and policy\n\n"
        f"{STAND_IN_NOTICE}\n\n"
        f"{lead_paragraph(lead)}\n\n"
        f"{DETAILS_MARKER} {headline}\n\n"
        + win_text
        + "## Skill ladder\n\n"
        f"![Skill ladder]({png_ladder.name})\n\n"
        "How much does skill matter? Every policy on the same games, all Warbands pooled (a game's value is its "
        "mean over the Warbands, which replay its dice); the tuned heuristic comes from `simkit tune` (its "
        "parameters are in the scenario file).\n\n"
        + ladder_text + "\n" + search_text + sens_text
        + "## What was simulated\n\n"
        f"{len(warbands)} Warbands × {len(policies)} policies = {n_cells} cells, "
        f"{int(man.get('games', 0)):,} solo Lonequest games per cell (root seed {man.get('root_seed')}). "
        "Every cell replays the same shuffles and dice (common random numbers), so differences between "
        f"cells come from the Warband and the way of playing, not from luck. Policies: {pol_text} "
        "(`random` is the baseline that picks any legal move; the others are heuristics, see `simkit list`). "
        f"Rule options and set-up: {opt_text} (see docs/rules.md). "
        f"Card data: `{shown_path(man.get('cards', '?'))}`.\n\n"
        "All intervals are 95%: Wilson intervals for shares, normal intervals for means.\n\n"
        "## How games end\n\n"
        "A game ends when all six Locations are cleared (won), when no Warband Fighter is left "
        "(`no_fighters`), when the Warband is too tired to march on (`no_stamina`), when no arrow leads from "
        "where it may go to an uncleared Location (`stranded`; the rules do not cover this), or, in a game that "
        "never ends, at the step cap (`cap`). Shares with 95% Wilson intervals.\n\n"
        "### Per policy (all Warbands pooled)\n\n"
        "The Warbands of one game replay its dice, so the game is the unit here: `n` counts games, and each "
        "interval is Wilson's on the effective number of games (the rows divided by the design effect).\n\n"
        + render(_pooled_outcome_rows(pooled, policies), "md") + "\n"
        "### Per Warband and policy\n\n"
        + render(_outcome_rows(cell_counts, ["warband", "policy"], order), "md") + "\n"
        "## Locations cleared\n\n"
        f"![Locations cleared]({png_loc.name})\n\n"
        "Share of games ending with 0–6 Locations cleared (rows), per policy (columns), all Warbands pooled, with "
        "95% intervals: the Warbands of one game share its dice, so each is Wilson's on the effective number of "
        "games (the last row: `n`, the independent games, and in brackets the Warband games behind them); the "
        "plot's bands are the same intervals."
        f"{_cleared_note(all_cleared_lost, sum(loc_n.values()))}\n\n"
        + render(loc_rows, "md") + "\n"
        "## Means per game\n\n"
        "Per policy, all Warbands pooled, with 95% normal intervals over games (each game's mean over its "
        "Warbands is one observation); final Krone is what is left when the game "
        "ends. `won / made` is all Test Fates won over all Test Fates made (`Test Fates (all)`), with its 95% "
        "interval the game as the unit (the Test Fates of one game share its dice: Wilson's on the effective number "
        "of Test Fates, the cluster-robust design effect over games).\n\n"
        + render(mean_rows, "md") + "\n"
        + manifest_section(man)
    )
    return [write_markdown(out_dir / "report.md", text), png_ladder, png_win, png_loc]


def lead_sentence(by_warband: dict, pooled: Estimate, policy: str, games: int) -> str:
    """The page's lead: the Warband farthest from the pooled P(win) under ``policy`` (the weakest or the
    strongest; with the Warbands its interval cannot be told from, as a tie), against all Warbands pooled.
    ``by_warband``: Warband -> P(win) (the win-odds table's column of ``policy``); ``games``: games per Warband."""
    worst, w_tied = extreme(by_warband, worst=True)
    best, b_tied = extreme(by_warband)
    low_end = pooled.estimate - by_warband[worst].estimate >= by_warband[best].estimate - pooled.estimate
    pick, tied, word = (worst, w_tied, "weakest") if low_end else (best, b_tied, "strongest")
    return (f"{tie_words(pick, tied, 'Warband', word)}, winning {interval(by_warband[pick])} of Lonequests against "
            f"{interval(pooled)} for all {len(by_warband)} Warbands pooled (`{policy}` policy, {games:,} games per "
            "Warband).")


def named(policy: str, kind: str) -> str:
    """A policy in the headline: its name, and its kind where that says more than the name (not "`learned`
    (learned)")."""
    return f"**`{policy}`**" + (f" ({kind})" if kind and kind != policy else "")


def supported(rungs) -> str:
    """What a ladder's selection-corrected verdict supports about its top: the policies not told apart from the
    best (not 'below best'), or that every other policy is below it."""
    top, tied = rungs[0], [r.policy for r in rungs[1:] if not r.below_best]
    if tied:
        return (f"`{top.policy}` places first, but the ladder does not tell it apart from "
                f"{', '.join(f'`{p}`' for p in tied)} (not 'below best', family-wise 5%): any of them may be the "
                "strongest.")
    return (f"`{top.policy}` places first and every other policy is below it ('below best' for each, allowing "
            "for the best having been picked from the same games, family-wise 5%).")


def _rung(rungs, name: str) -> str:
    r = next(r for r in rungs if r.policy == name)
    return f"{r.value:.3f} [{r.low:.3f}, {r.high:.3f}]"


def _gap(rungs, name: str, other: str) -> str:
    """``name`` − ``other`` on a ladder's games (paired), or the ladder's own gap to the best."""
    a = next(r for r in rungs if r.policy == name)
    b = next((r for r in rungs if r.policy == other), None)
    if b is None:
        return "no paired comparison"
    if a is rungs[0]:
        verdict = ("below best" if b.below_best else "not told apart from it") + f", p adj. {b.p_adj:.2g}"
        return (f"`{other}` {b.value:.3f} on the same games: {a.policy} − {other} = {-b.gap:+.3f} "
                f"[{-b.gap_high:+.3f}, {-b.gap_low:+.3f}], p = {b.p:.2g}; `{other}` {verdict}")
    if b is rungs[0]:
        return (f"`{other}` {b.value:.3f} on the same games: {a.policy} − {other} = {a.gap:+.3f} "
                f"[{a.gap_low:+.3f}, {a.gap_high:+.3f}], p = {a.p:.2g}")
    return f"`{other}` {b.value:.3f} on the same games"


def _cleared_note(lost: int, n: int) -> str:
    if lost == 0:
        return " A game with all 6 cleared is a won game."
    return (f" {lost:,} of {n:,} games cleared all 6 Locations yet ended in a failure, not a win (see the "
            "outcome tables), so the share at 6 is slightly above the win odds.")


# the ladder with `search` (about half a CPU-second a game) is played in blocks of SEARCH_BLOCK games (in every
# Warband) until every rung's 95% interval is within ±SEARCH_PRECISION, at most SEARCH_CAP games
SEARCH_PRECISION = 0.09
SEARCH_BLOCK = 20
SEARCH_CAP = 80


# the report's lead policy, added to the scenario's play list: `learned` with a short search where it is unsure
# (scenarios/valka/lonequest.toml), as strong as `search` but too slow for the scenario's everyday list
REPORT_LEAD = "learned_search"


def bundled_lonequest(out_dir: str | Path, quick: bool = False, jobs=None) -> list[Path]:
    """Run the bundled Lonequest scenario (seed 2026) into ``out_dir/lonequest/run``, a smaller skill ladder with
    `search` (seed 2027), and write the report."""
    import os

    from simkit.core import loader, registry
    from simkit.core.ladder import ladder
    from simkit.core.scenario import read_toml

    base = Path(out_dir) / "lonequest"
    path = registry.scenarios_dir() / "valka" / "lonequest.toml"
    sim = loader.load(path).simulation
    play = [REPORT_LEAD, *(p for p, _, _ in sim.policy_specs if p != REPORT_LEAD)]
    run = run_bundled("valka/lonequest.toml", base / "run", 2_000 if quick else 10_000, seed=2026, jobs=jobs,
                      overrides=(f"play={json.dumps(play)}",))
    cap, block = (4, 2) if quick else (SEARCH_CAP, SEARCH_BLOCK)
    cores = jobs or os.cpu_count() or 1
    # blocks are a setting, never derived from the number of workers: the same games on any machine
    rungs = ladder(path, [*play, "search"], games=cap, seed=2027, jobs=cores, block_size=block,
                   precision=SEARCH_PRECISION)
    spec = loader.build(path, {**read_toml(path)[0], "play": ["search"]}).policy_specs[0][2]
    return lonequest_report(run, base, {"rungs": rungs, "games": rungs[0].games, "warbands": len(sim.warband_names),
                                        "seed": 2027, "search": search_words(spec), "precision": SEARCH_PRECISION,
                                        "cap": cap, "block": block})
