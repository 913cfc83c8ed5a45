"""The Valkyrie Incident report: the 5x5 Emblem match-up matrix (standard and Blitz), the Alpha/Omega advantage,
the skill ladder, a per-card table, the score-margin distribution and game length.

``run_report(run_dir, out_dir)`` reports one run (either ruleset); ``bundled_report(out_dir)`` runs the bundled
scenarios (``scenarios/valkyrie_incident/{ladder,standard,blitz}.toml``) and writes
``out_dir/valkyrie-incident/report.md`` with its plots. The match-up matrices, Alpha/Omega, margins and the card
table of each ruleset use the policy of its scenario (a heuristic or a learned one) that wins most against the
field (``field.py``: the bundled heuristics, both seats, all 20 match-ups), in a mirror match (both seats); the
report says how far the
matrix moved from the strongest untuned preset's (issue 25), and whether the Emblem ranking changes with the
policy: every policy of each match-up run against the strongest (``sensitivity_part``, issue 18).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl

from simkit.core import results
from simkit.core.plotting import heatmap, lines
from simkit.core.report import (
    DETAILS_MARKER, STAND_IN_NOTICE, TABLE_KINDS, extreme, interval, lead_paragraph, manifest_section, run_bundled,
    shown_path, tie_words, toml_value, write_markdown,
)
from simkit.core.report import interval as _iv  # a rate with its 95% interval
from simkit.core.sensitivity import markdown as sens_markdown
from simkit.core.sensitivity import ranking_sentence, sensitivity
from simkit.core.stats import Estimate, clustered_mean, clustered_rate, overlapping, wilson
from simkit.core.tables import render

Z_LOPSIDED = 0.05  # family-wise level (Holm over the match-up cells) for calling a match-up lopsided




def _holm(p: list[float]) -> list[float]:
    order = np.argsort(p)
    m = len(p)
    out = np.empty(m)
    run = 0.0
    for rank, i in enumerate(order):
        run = max(run, min(1.0, (m - rank) * p[i]))
        out[i] = run
    return out.tolist()


def _binom_p(k: int, n: int, p0: float = 0.5) -> float:
    from scipy.stats import binomtest

    return float(binomtest(k, n, p0).pvalue) if n else 1.0


def _emblems(man: dict) -> list[str]:
    seen = []
    for a, o in man.get("matchups", []):
        for e in (a, o):
            if e not in seen:
                seen.append(e)
    return seen


def matchup_section(run_dir: Path, out_dir: Path, label: str, policy: str | None = None,
                    plot: bool = True) -> tuple[str, list[Path], dict]:
    """The match-up matrix of one run (Alpha win rate, row = Alpha's Emblem, column = Omega's) for ``policy``'s
    games (default: the run's first policy); ``plot=False``: no heat-map (the text still names its file)."""
    man = results.manifest(run_dir)
    frame = results.scan(run_dir)
    if policy not in man.get("policies", {}):
        policy = list(man.get("policies", {}))[0]
    counts = (frame.filter(pl.col("policy") == policy)
              .group_by("alpha_emblem", "omega_emblem").agg(n=pl.len(), k=pl.col("alpha_win").cast(pl.Int64).sum(),
                                                            d=pl.col("draw").cast(pl.Int64).sum())
              .collect())
    cells = {(r["alpha_emblem"], r["omega_emblem"]): (int(r["k"]), int(r["n"])) for r in counts.iter_rows(named=True)}
    draws = {(r["alpha_emblem"], r["omega_emblem"]): int(r["d"]) for r in counts.iter_rows(named=True)}
    names = sorted({a for a, _ in cells} | {o for _, o in cells}, key=lambda x: _emblems(man).index(x)
                   if x in _emblems(man) else 99)
    short = [n.replace("_emblem", "") for n in names]
    pvals = {key: _binom_p(k, n) for key, (k, n) in cells.items()}
    keys = list(pvals)
    holm = dict(zip(keys, _holm([pvals[k] for k in keys]))) if keys else {}
    mat = np.full((len(names), len(names)), np.nan)
    rows = []
    lopsided = []
    for i, a in enumerate(names):
        row = {"Alpha \\ Omega": short[i]}
        for j, o in enumerate(names):
            if (a, o) not in cells:
                row[short[j]] = "–"
                continue
            k, n = cells[(a, o)]
            e = wilson(k, n)
            mat[i, j] = e.estimate
            flag = " **!**" if holm[(a, o)] < Z_LOPSIDED else ""
            if flag:
                lopsided.append(f"{short[i]} (Alpha) v {short[j]} (Omega): {_iv(e)}")
            row[short[j]] = _iv(e, 2) + flag
        rows.append(row)
    # a match-up not played (an Emblem against itself) stays NaN: a blank cell, as "–" in the table
    png = out_dir / f"matchups-{label}.png"
    if plot:
        png = heatmap(png, mat, short, short, top_down=True,
                      title=f"Alpha win rate by Emblem match-up ({label}, {policy} v {policy})",
                      xlabel="Omega's Emblem", ylabel="Alpha's Emblem", cbar_label="P(Alpha wins)")
    # each Emblem over both seats and every opponent: win, draw, loss (the deal as the unit)
    outcomes = emblem_outcomes(cells, draws)
    rates = emblem_rates(frame.filter(pl.col("policy") == policy))
    emb_rows = []
    for i, e in enumerate(names):
        w, d, lost, n = outcomes[e]
        r = rates[e]
        emb_rows.append({"Emblem": short[i], "wins": _iv(r["wins"]), "draws": _iv(r["draws"]),
                         "losses": _iv(r["losses"]), "games": n, "deals": r["wins"].n})
    spread = np.nanmax(mat) - np.nanmin(mat) if np.isfinite(mat).any() else float("nan")
    n_cell = [n for _, n in cells.values()]
    text = (
        f"![{label} match-ups]({png.name})\n\n"
        f"P(Alpha wins) per match-up with its 95% Wilson interval; {min(n_cell) if n_cell else 0:,} games per "
        f"cell, `{policy}` in both seats. **!** marks a lopsided match-up: its interval's test against 0.5 stays "
        f"significant after a Holm correction over the {len(cells)} cells (family-wise {Z_LOPSIDED}). "
        f"Highest minus lowest cell: {spread:.3f}.\n\n" + render(rows, "md") + "\n"
        + ("Lopsided: " + "; ".join(lopsided) + ".\n\n" if lopsided else "No match-up is lopsided at this level.\n\n")
        + "Each Emblem pooled over both seats and all opponents: the share of its games it won, drew and lost "
          "(a draw is its own outcome, never a win of either seat; the three add up to 1). Every cell replays the "
          "same deals, so the deal is the unit: Wilson's interval on the effective number of games, the games over "
          "the design effect of the deals (`games` = rows, `deals` = clusters):\n\n" + render(emb_rows, "md") + "\n")
    return text, [png] if plot else [], {"spread": spread, "cells": cells, "draws": draws, "policy": policy,
                                         "outcomes": outcomes, "names": names, "rates": rates}


def _deal(frame) -> list:
    """The deal (cluster) columns of the per-game rows: ``(block, game)``, the same deal in every cell."""
    names = frame.collect_schema().names() if isinstance(frame, pl.LazyFrame) else frame.columns
    return [c for c in ("block", "game") if c in names]


def emblem_rates(frame) -> dict[str, dict]:
    """Per Emblem, over both seats and every opponent: its shares of games won, drawn and lost, each an
    :class:`Estimate` with the deal as the unit (:func:`clustered_rate` over ``(block, game)``: every cell replays
    the same deals, so one deal's games are not independent); ``n`` of each is the number of deals. A game the
    Omega seat neither lost nor drew is Omega's win; a draw is neither seat's win (valkyrie-incident.txt)."""
    keys = _deal(frame)
    f = frame.select(*keys, "alpha_emblem", "omega_emblem", a=pl.col("alpha_win").cast(pl.Int64),
                     d=pl.col("draw").cast(pl.Int64))
    f = (f.collect() if isinstance(f, pl.LazyFrame) else f).with_columns(o=1 - pl.col("a") - pl.col("d"))
    sides = pl.concat([
        f.select(*keys, emblem=pl.col("alpha_emblem"), w=pl.col("a"), dr=pl.col("d"), l=pl.col("o")),
        f.select(*keys, emblem=pl.col("omega_emblem"), w=pl.col("o"), dr=pl.col("d"), l=pl.col("a"))])
    per = sides.group_by("emblem", *keys).agg(w=pl.col("w").sum(), dr=pl.col("dr").sum(), l=pl.col("l").sum(),
                                               m=pl.len()).sort("emblem", *keys)
    out = {}
    for (e,), g in per.group_by(["emblem"], maintain_order=True):
        m = g["m"].to_numpy()
        out[e] = {k: clustered_rate(g[c].to_numpy(), m) for k, c in (("wins", "w"), ("draws", "dr"),
                                                                       ("losses", "l"))}
    return out


def emblem_outcomes(cells: dict, draws: dict) -> dict[str, tuple[int, int, int, int]]:
    """Per Emblem, over both seats and every opponent: (wins, draws, losses, games). ``cells[(alpha, omega)]`` is
    (Alpha wins, games) and ``draws[(alpha, omega)]`` the drawn games of the cell: the Omega seat wins the games
    that Alpha neither won nor drew ("the player with the most points wins"; equal points and Victory Cards is a
    draw, valkyrie-incident.txt)."""
    out: dict[str, list[int]] = {}
    for (a, o), (k, n) in cells.items():
        d = draws.get((a, o), 0)
        omega = n - k - d
        for e, w, lost in ((a, k, omega), (o, omega, k)):
            r = out.setdefault(e, [0, 0, 0, 0])
            r[0] += w
            r[1] += d
            r[2] += lost
            r[3] += n
    return {e: tuple(v) for e, v in out.items()}


ALPHA_NOTE = ("P(Alpha wins) and P(draw) over all match-ups per policy pair, 95% intervals with the deal as the "
              "unit: every cell replays the same deals, so one deal's games in the match-ups are not independent "
              "(Wilson's interval on the effective number of games, the games over the design effect of the deals; "
              "`games` = rows, `deals` = clusters):")


def alpha_rates(run_dir: Path) -> dict[str, dict]:
    """Per policy pair (``"A v B"``, Alpha's policy first) of the run: P(Alpha wins) and P(draw) over all
    match-ups, each :func:`clustered_rate` with the deal as the unit (every cell replays the same deals, so the
    20 match-ups of one deal are not 20 independent games); ``games`` = rows, ``deals`` = clusters."""
    frame = results.scan(run_dir)
    keys = _deal(frame)
    per = (frame.group_by("alpha_policy", "omega_policy", *keys)
           .agg(a=pl.col("alpha_win").cast(pl.Float64).sum(), d=pl.col("draw").cast(pl.Float64).sum(), m=pl.len())
           .sort("alpha_policy", "omega_policy", *keys).collect())
    out = {}
    for (ap, op), g in per.group_by(["alpha_policy", "omega_policy"], maintain_order=True):
        m = g["m"].to_numpy().astype(float)
        out[f"{ap} v {op}"] = {"alpha": clustered_rate(g["a"].to_numpy(), m),
                               "draw": clustered_rate(g["d"].to_numpy(), m),
                               "games": int(m.sum()), "deals": len(g), "alpha_policy": ap, "omega_policy": op}
    return out


def _alpha_rows(run_dir: Path, label: str) -> list[dict]:
    return [{"ruleset": label, "policies": key, "P(Alpha wins)": _iv(r["alpha"]), "P(draw)": _iv(r["draw"], 4),
             "games": r["games"], "deals": r["deals"]} for key, r in alpha_rates(run_dir).items()]


def distribution_section(runs: dict[str, Path], out_dir: Path, policy: str | dict | None = None
                         ) -> tuple[str, list[Path]]:
    """Score margins (Alpha − Omega) and game length for each ruleset (``policy``'s games, default the first; a
    dict gives each ruleset's policy)."""
    margins, turns, rows = {}, {}, []
    wanted = policy
    for label, run in runs.items():
        man = results.manifest(run)
        policy = wanted.get(label) if isinstance(wanted, dict) else wanted
        if policy not in man.get("policies", {}):
            policy = list(man.get("policies", {}))[0]
        scan = results.scan(run)
        f = scan.filter(pl.col("policy") == policy).select(*_deal(scan), "margin", "turns", "decisions",
                                                           "alpha_score", "omega_score").collect()
        m = f["margin"].to_numpy().astype(np.int64)
        t = f["turns"].to_numpy().astype(np.int64)
        margins[label], turns[label] = m, t
        # every cell replays the same deals: the deal is the unit of both means (clustered_mean)
        keys = _deal(f)
        ids = (np.unique(np.stack([f[k].to_numpy().astype(np.int64) for k in keys], axis=1), axis=0,
                         return_inverse=True)[1].reshape(-1) if keys else np.arange(len(f)))
        ones = np.bincount(ids, minlength=ids.max() + 1 if len(ids) else 0).astype(float)
        e = clustered_mean(np.bincount(ids, weights=np.abs(m).astype(float)), ones)
        te = clustered_mean(np.bincount(ids, weights=t.astype(float)), ones)
        q = np.percentile(m, [5, 25, 50, 75, 95])
        rows.append({"ruleset": label, "policy": policy, "mean abs. margin": _iv(e, 2),
                     "margin 5% / 25% / 50% / 75% / 95%": " / ".join(f"{x:.0f}" for x in q),
                     "mean score": f"{(f['alpha_score'].mean() + f['omega_score'].mean()) / 2:.1f}",
                     "War turns per game": _iv(te, 1), "decisions per game": f"{f['decisions'].mean():.0f}",
                     "games": len(m), "deals": e.n})
    lo = min(int(v.min()) for v in margins.values())
    hi = max(int(v.max()) for v in margins.values())
    xs = np.arange(lo, hi + 1)
    png_m = lines(out_dir / "score-margin.png", xs,
                  {k: np.bincount(v - lo, minlength=len(xs)) / len(v) for k, v in margins.items()},
                  title="Score margin, Alpha − Omega", xlabel="margin (points)", ylabel="share of games",
                  markers=False)
    tlo = min(int(v.min()) for v in turns.values())
    thi = max(int(v.max()) for v in turns.values())
    tx = np.arange(tlo, thi + 1)
    png_t = lines(out_dir / "game-length.png", tx,
                  {k: np.bincount(v - tlo, minlength=len(tx)) / len(v) for k, v in turns.items()},
                  title="Game length (War turns)", xlabel="War turns in the game", ylabel="share of games",
                  markers=False)
    text = (f"![Score margin]({png_m.name}) ![Game length]({png_t.name})\n\n"
            "Mean absolute margin and War turns with 95% intervals, the deal as the unit (Student's t on the "
            "cluster-robust variance over deals: every cell replays the same deals; `games` = rows, `deals` = "
            "clusters); margin quantiles in points.\n\n"
            + render(rows, "md") + "\n")
    return text, [png_m, png_t]


def card_rows(run_dir: Path, names: list[str], policy: str | None = None) -> tuple[list[dict], dict]:
    """Per card (over ``policy``'s games, default all the run's games): the games in which a seat owned it at
    the end (drafted), and how they ended for the owner: won, drawn, or won by the seat facing it (a draw is
    neither seat's win), each with the deal as the unit (:func:`card_table`)."""
    frame = results.scan(run_dir)
    if policy is not None:
        frame = frame.filter(pl.col("policy") == policy)
    f = frame.select(*_deal(frame), "winner", "alpha_cards_lo", "alpha_cards_hi", "omega_cards_lo",
                     "omega_cards_hi").collect()
    return card_table(f, names)


def card_table(f: pl.DataFrame, names: list[str]) -> tuple[list[dict], dict]:
    """:func:`card_rows` of the per-game rows ``f`` (``winner``, the four card bit words and the deal columns
    ``block``, ``game``; without them every row is its own deal).

    Every cell replays the same deals, so one deal's games are not independent: each share (owner wins, draws,
    facing seat wins) is :func:`clustered_rate` over the deals (``n`` = deals in which a seat owned the card).
    ``flag`` marks the cards whose owners win more (``high``) or less (``low``) often than the seat facing them:
    the exact sign-flip test (:func:`signflip_test`) of each deal's owner wins minus owner losses, the deal as the
    unit (with one game a deal it is the exact sign test), Holm-corrected over the cards (family-wise 0.05)."""
    from simkit.core.stats import signflip_test

    w = f["winner"].to_numpy()
    won = {"alpha": w == "alpha", "omega": w == "omega"}
    drew = w == "draw"
    keys = _deal(f)
    if keys:
        ids = np.unique(np.stack([f[k].to_numpy().astype(np.int64) for k in keys], axis=1), axis=0,
                        return_inverse=True)[1].reshape(-1)
    else:
        ids = np.arange(len(f))
    deals = int(ids.max()) + 1 if len(ids) else 0
    masks = {s: (f[f"{s}_cards_lo"].to_numpy().astype(np.int64), f[f"{s}_cards_hi"].to_numpy().astype(np.int64))
             for s in ("alpha", "omega")}
    stats, per_deal = [], []
    for c in range(len(names)):
        word, bit = (0, c) if c < 45 else (1, c - 45)
        own = {s: ((masks[s][word] >> bit) & 1).astype(bool) for s in ("alpha", "omega")}
        m = np.bincount(ids, weights=own["alpha"].astype(float) + own["omega"], minlength=deals)
        kw = np.bincount(ids, weights=(own["alpha"] & won["alpha"]).astype(float)
                         + (own["omega"] & won["omega"]), minlength=deals)
        kd = np.bincount(ids, weights=(own["alpha"] & drew).astype(float) + (own["omega"] & drew), minlength=deals)
        kl = m - kw - kd
        per_deal.append((m, kw, kd, kl))
        stats.append(tuple(int(round(x.sum())) for x in (m, kw, kd, kl)))
    tested = [c for c, (n, kw, _d, kl) in enumerate(stats) if kw + kl > 0]
    raw = {c: signflip_test(np.rint(per_deal[c][1] - per_deal[c][3]).astype(np.int64)) for c in tested}
    holm_p = dict(zip(tested, _holm([raw[c] for c in tested])))
    rows = []
    for c, (n, kw, kd, kl) in enumerate(stats):
        q = holm_p.get(c, 1.0)
        m, yw, yd, yl = per_deal[c]
        rows.append({"card": names[c], "owned in (games)": n, "deals": int((m > 0).sum()),
                     "owner wins": _iv(clustered_rate(yw, m)) if n else "–",
                     "draws": _iv(clustered_rate(yd, m)) if n else "–",
                     "facing it wins": _iv(clustered_rate(yl, m)) if n else "–",
                     "p (Holm)": _p_holm(q) if c in holm_p else "–",
                     "flag": ("high" if kw > kl else "low") if q < CARD_FAMILY else "", "_est": kw / n if n else 0.5})
    rows.sort(key=lambda r: -r["_est"])
    for r in rows:
        del r["_est"]
    tot = [sum(s[i] for s in stats) for i in range(4)]
    summary = {"owned": tot[0], "owner_wins": tot[1] / tot[0] if tot[0] else float("nan"),
               "draws": tot[2] / tot[0] if tot[0] else float("nan"),
               "facing_wins": tot[3] / tot[0] if tot[0] else float("nan"),
               "flagged": sum(1 for r in rows if r["flag"]), "tested": len(tested), "deals": deals}
    return rows, summary


def _p_holm(q: float) -> str:
    return "< 0.0001" if q < 1e-4 else f"{q:.4f}"


CARD_FAMILY = 0.05  # family-wise level (Holm over the cards) for flagging a card


def _alpha_rate(run_dir: Path, policy: str):
    """P(Alpha wins) and P(draw) over all match-ups for ``policy`` in both seats (:func:`alpha_rates`: the deal
    is the unit), or (None, None)."""
    r = alpha_rates(run_dir).get(f"{policy} v {policy}")
    return (r["alpha"], r["draw"]) if r else (None, None)


def _row_iv(r) -> str:
    return _iv(r) if r is not None else "–"


def _ranked(info: dict) -> list[tuple[str, object]]:
    """Every Emblem with its share of games won (both seats, all opponents), lowest first."""
    rates = info.get("rates") or {}
    return sorted(((e.replace("_emblem", ""), rates[e]["wins"] if e in rates else wilson(w, n))
                   for e, (w, _d, _l, n) in info["outcomes"].items()), key=lambda x: x[1].estimate)


def best_worst(info: dict) -> tuple[tuple[str, object], tuple[str, object]]:
    """The Emblems with the highest and the lowest share of games won (both seats, all opponents; Wilson)."""
    ranked = _ranked(info)
    return ranked[-1], ranked[0]


def level_with(info: dict) -> tuple[list[tuple[str, object]], list[tuple[str, object]]]:
    """The other Emblems the data cannot tell from the best, and from the worst: those whose 95% interval overlaps
    the best's (the worst's), nearest first (:func:`simkit.core.stats.overlapping`). A headline that names one best
    Emblem names these beside it, not as beaten."""
    ranked = _ranked(info)
    rates = dict(ranked)
    return tuple([(e, rates[e]) for e in overlapping(end, rates)] for end in (ranked[-1][0], ranked[0][0]))


def _alongside(level: list[tuple[str, object]]) -> str:
    return (" (intervals overlapping it: " + ", ".join(f"{e} {_iv(r)}" for e, r in level) + ")") if level else ""


def _extreme(cells: dict) -> int:
    return sum(1 for k, n in cells.values() if n and (k / n <= 0.02 or k / n >= 0.98))


def headline(policy: str, parts: list[tuple[str, Path, dict]]) -> str:
    """The report's answer: per ruleset, P(Alpha wins) and P(draw) over all match-ups with the ruleset's policy
    (``info["policy"]``, default ``policy``) in both seats, and the best and worst Emblem (share of games won);
    ``parts`` = (label, run, match-up info)."""
    alpha, emb = [], []
    pols = [info.get("policy", policy) for _, _, info in parts]
    # one ruleset: its policy named once, up front; two: each ruleset's rate names its own policy, even when the
    # policies agree, so that each ruleset's claim names the policy it was played with (the gate reads it so)
    one = len(parts) == 1
    for (label, run, info), pol in zip(parts, pols):
        a, d = _alpha_rate(run, pol)
        who = "" if one else f"`{pol}` in both seats, "
        r = alpha_rates(run).get(f"{pol} v {pol}")
        nn = f"; {r['games']:,} games on {r['deals']:,} deals, the deal the unit" if r else ""
        alpha.append(f"{_row_iv(a)} of {label} games ({who}draws {_row_iv(d)}{nn})" if d is not None else
                     f"{_row_iv(a)} of {label} games" + (f" (`{pol}` in both seats)" if not one else ""))
        (b, be), (w, we) = best_worst(info)
        lb, lw = level_with(info)
        emb.append(f"{label}: best {b} wins {_iv(be)} of its games{_alongside(lb)}, worst {w} {_iv(we)}"
                   f"{_alongside(lw)}"
                   + (f", {_extreme(info['cells'])} of {len(info['cells'])} match-ups at ≤ 0.02 or ≥ 0.98"
                      if _extreme(info["cells"]) else ""))
    lead = f"With `{pols[0]}` in both seats, Alpha" if one and pols else "Alpha"
    label, run, info = parts[0]
    return (lead_paragraph(lead_sentence(label, info, pols[0], alpha_rates(run).get(f"{pols[0]} v {pols[0]}")))
            + f"\n\n{DETAILS_MARKER} {lead} (the Start Player) wins " + " and ".join(alpha)
            + "; an even game gives Alpha half of the games that are not drawn. Emblems, " + "; ".join(emb) + ".")


def lead_sentence(label: str, info: dict, policy: str, games: dict | None = None) -> str:
    """The page's lead: the strongest and the weakest Emblem of ``label``'s games (share of games won, both seats,
    all opponents: the page's pooled table), each with the Emblems its interval cannot be told from as a tie;
    ``games``: the ``alpha_rates`` row of ``policy`` against itself (for n)."""
    rates = dict(_ranked(info))
    best, b_tied = extreme(rates)
    worst, w_tied = extreme(rates, worst=True)
    n = f", {games['games']:,} games" if games else ""
    if best in w_tied:  # every Emblem level with both ends: nothing to name
        return (f"No Emblem stands out in {label} games: shares of games won run from {interval(rates[worst])} "
                f"({worst}) to {interval(rates[best])} ({best}), intervals overlapping (`{policy}` in both seats{n}).")
    weak = tie_words(worst, w_tied, "", "weakest", first=False)
    return (f"{tie_words(best, b_tied, f'Emblem in {label} games', 'strongest')}, winning {interval(rates[best])} "
            f"of its games; {weak}, {interval(rates[worst])} (`{policy}` in both seats{n}).")


def blitz_section(blitz_run: Path, std_info: dict, blitz_info: dict, cards_path) -> str:
    """Why Blitz match-ups sit near 0 or 1, with the evidence: the Clan decks Blitz hands out whole (their
    Strength, the cards meeting the Emblem's Morale requirement, the chance that a 5-card hand allows a Morale
    Check), the same cells under each policy of the run, and the standard rules with the same cards."""
    from scipy.stats import hypergeom

    from simkit.games.valkyrie_incident.cards import load_cards

    try:
        cards = load_cards(cards_path) if cards_path else load_cards()
    except Exception:  # noqa: BLE001 - a moved cards file: the bundled cards
        cards = load_cards()
    outcomes = blitz_info["outcomes"]
    rows = []
    for e in cards.emblems:
        deck = [k for k in cards.cards if k.clan == e.clan and k.type in (0, 2)]  # its Valkyrie and Cogdrive cards
        typ, inc, min_str, own = e.morale
        meet = sum(1 for k in deck if (typ < 0 or k.type == typ) and (inc < 0 or k.incident == inc)
                   and k.strength >= min_str and (not own or k.clan == e.clan))
        p_morale = float(hypergeom(len(deck), meet, min(5, len(deck))).sf(2)) if deck else float("nan")
        w, _d, _l, n = outcomes.get(e.key, (0, 0, 0, 0))
        sw, _sd, _sl, sn = std_info["outcomes"].get(e.key, (0, 0, 0, 0))
        bw = blitz_info.get("rates", {}).get(e.key, {}).get("wins") or (wilson(w, n) if n else None)
        stw = std_info.get("rates", {}).get(e.key, {}).get("wins") or (wilson(sw, sn) if sn else None)
        rows.append({"Emblem": e.key.replace("_emblem", ""), "Blitz deck": len(deck),
                     "deck Strength": sum(k.strength for k in deck), "Emblem bonus": e.bonus,
                     "Morale cards (of the deck)": f"{meet} ({e.morale_text})",
                     "P(Morale Check, 5 cards)": f"{p_morale:.3f}",
                     "Blitz wins": _iv(bw) if bw else "–", "standard wins": _iv(stw) if stw else "–"})
    # the same cells under every policy of the Blitz run
    frame = results.scan(blitz_run).group_by("policy", "alpha_emblem", "omega_emblem").agg(
        r=pl.col("alpha_win").cast(pl.Float64).mean()).collect()
    per = {}
    for r in frame.iter_rows(named=True):
        per.setdefault(r["policy"], {})[(r["alpha_emblem"], r["omega_emblem"])] = r["r"]
    pols = sorted(per)
    counts = {p: sum(1 for v in per[p].values() if v <= 0.02 or v >= 0.98) for p in pols}
    diff = max((abs(per[a][k] - per[b][k]) for a in pols for b in pols for k in per[a] if k in per[b]), default=0.0)
    # Emblems whose Blitz decks are alike (the same Strengths, Morale cards and bonus): their match-ups show the seat
    same = []
    sig = {}
    for e in cards.emblems:
        deck = sorted(k.strength for k in cards.cards if k.clan == e.clan and k.type in (0, 2))
        rw = next(r for r in rows if r["Emblem"] == e.key.replace("_emblem", ""))
        sig.setdefault((tuple(deck), e.bonus, rw["Morale cards (of the deck)"].split(" ")[0]), []).append(e.key)
    cells = blitz_info["cells"]
    for keys in sig.values():
        for i, a in enumerate(keys):
            for o in keys[i + 1:]:
                if (a, o) not in cells or (o, a) not in cells:
                    continue
                ea, eo = wilson(*cells[(a, o)]), wilson(*cells[(o, a)])  # Alpha's wins, each Emblem as Alpha
                na, no = a.replace("_emblem", ""), o.replace("_emblem", "")
                both = f"{na} as Alpha v {no} wins {_iv(ea)}, {no} as Alpha v {na} {_iv(eo)}"
                edge = f"Alpha's edge over the two orders {(ea.estimate + eo.estimate) / 2 - 0.5:+.3f}"
                if ea.low > 0.5 and eo.high < 0.5 or ea.high < 0.5 and eo.low > 0.5:
                    win, lose = (na, no) if ea.estimate > 0.5 else (no, na)
                    same.append(f"{win} beats {lose} from either seat ({both}; {edge}): the Emblem splits them, "
                                "not the seat")
                elif ea.low > 0.5 and eo.low > 0.5 or ea.high < 0.5 and eo.high < 0.5:
                    seat = "Alpha" if ea.estimate > 0.5 else "Omega"
                    same.append(f"{seat} wins from either side ({both}; {edge}): the seat splits them")
                else:
                    same.append(f"{both} ({edge})")
    pol_text = "; ".join(f"`{p}` {counts[p]} of {len(per[p])}" for p in pols)
    text = (
        "Blitz deals each player his Clan's 10 Valkyrie and Cogdrive cards whole, so a Blitz match-up is a match-up "
        "of two fixed stand-in decks. The evidence, computed from the card data and the runs:\n\n"
        + render(rows, "md") + "\n"
        "- **Data.** `P(Morale Check, 5 cards)` is the exact (hypergeometric) chance that 5 cards drawn from the "
        "Blitz deck hold 3 that meet the Emblem's Morale requirement, a Victory Card each time. The Emblems that win "
        "Blitz have the stronger decks or the surer Morale Check (a requirement met by every card of the deck "
        "always succeeds); the stand-in decks of equal Strength and Morale differ only in their Emblem.\n"
        f"- **Policy.** Match-ups at ≤ 0.02 or ≥ 0.98 under each policy of the Blitz run: {pol_text}; the "
        f"policies' Alpha win rates differ by at most {diff:.3f} in any cell"
        + (" (the same cells are lopsided whoever plays, so it is not the policy)" if diff < 0.15 else
           " (the policy matters too)") + ".\n"
        f"- **Rules.** With the same cards and policy the standard rules (a drafted deck, no Clan deck) spread "
        f"{std_info['spread']:.3f} from the highest to the lowest cell, {_extreme(std_info['cells'])} cells at "
        f"≤ 0.02 or ≥ 0.98; Blitz spreads {blitz_info['spread']:.3f}."
        + (" Emblems with alike decks: " + "; ".join(same) + "." if same else "") + "\n\n"
        + ("Reading: the 0.00/1.00 cells come from the stand-in data (its Clan decks and Morale requirements), "
           "which Blitz, unlike the standard draft, passes on whole; with the real cards they may not appear.\n\n"
           if diff < 0.15 else
           "Reading: the policies disagree on some cells, so the policy shares the blame with the stand-in decks "
           "that Blitz passes on whole.\n\n"))
    return text


def matrix_change(old: dict, new: dict) -> dict:
    """How far the match-up matrix moved from one policy's (``old``, a :func:`matchup_section` info) to
    another's on the same deals: the largest move of a cell's Alpha win rate (cell, old, new), the mean absolute
    move, and the Spearman rank correlation of the Emblems' shares of games won (both seats; scipy.stats)."""
    from scipy.stats import spearmanr

    keys = [k for k in new["cells"] if k in old["cells"] and old["cells"][k][1] and new["cells"][k][1]]
    moves = {k: new["cells"][k][0] / new["cells"][k][1] - old["cells"][k][0] / old["cells"][k][1] for k in keys}
    big = max(keys, key=lambda k: abs(moves[k]))
    emblems = [e for e in new["outcomes"] if e in old["outcomes"]]
    share = {w: [info["outcomes"][e][0] / info["outcomes"][e][3] for e in emblems] for w, info in
             (("old", old), ("new", new))}
    rho = spearmanr(share["old"], share["new"])
    return {"cell": big, "old": old["cells"][big][0] / old["cells"][big][1],
            "new": new["cells"][big][0] / new["cells"][big][1], "move": moves[big],
            "mean_move": float(np.mean([abs(v) for v in moves.values()])), "cells": len(keys),
            "rho": float(rho.statistic), "rho_p": float(rho.pvalue), "emblems": len(emblems),
            "old_policy": old["policy"], "new_policy": new["policy"]}


def _change_text(label: str, c: dict) -> str:
    if c["old_policy"] == c["new_policy"]:
        return (f"{label.capitalize()}: the strongest heuristic is the untuned `{c['new_policy']}` itself, so this "
                f"is the matrix the untuned presets gave.")
    a, o = (x.replace("_emblem", "") for x in c["cell"])
    return (f"{label.capitalize()}: against the matrix of `{c['old_policy']}` (the strongest untuned preset) on "
            f"the same deals, the largest cell move is {a} (Alpha) v {o}, {c['old']:.3f} → {c['new']:.3f} "
            f"({c['move']:+.3f}); the {c['cells']} cells move {c['mean_move']:.3f} on average; the Spearman rank "
            f"correlation of the {c['emblems']} Emblems' shares of games won is {c['rho']:+.2f}.")


RULESETS = 2  # the field verdicts of both rulesets are one family: Bonferroni, FIELD_FAMILY / 2 in each


FIELD_FAMILY = 0.05  # family-wise level of the field verdicts over both rulesets


def strength_verdict(ranked: list[dict], rulesets: int = RULESETS):
    """The field ranking as a ladder (:func:`simkit.core.ladder.rungs_from` on the per-game shares: every policy
    on the same deals, so paired): which policies its selection-corrected verdict cannot tell apart from the
    best (step-down max statistic at FIELD_FAMILY / ``rulesets``, so family-wise 5% over every ruleset's
    verdicts together: Bonferroni over the rulesets), and the paired gap of each to the first."""
    from simkit.core.ladder import rungs_from

    return rungs_from({r["policy"]: np.asarray(r["per_game"], dtype=float) for r in ranked}, {},
                      alpha=FIELD_FAMILY / rulesets)


def _family_words(rulesets: int) -> str:
    return ("selection-corrected, family-wise 5%" if rulesets == 1 else
            f"selection-corrected, family-wise 5% over both rulesets: {FIELD_FAMILY / rulesets:.1%} in each")


def head_to_head_winner(h: dict | None) -> str | None:
    """The policy a head-to-head (:func:`field.head_to_head`) tells apart as the stronger, or None."""
    if not h:
        return None
    g = h["gap"]
    return h["top"] if g.low > 0 else h["other"] if g.high < 0 else None


def head_to_head_text(h: dict) -> str:
    """A tie's head-to-head sentence (:func:`field.head_to_head`): the two against the other one alone."""
    top, other, s, g = h["top"], h["other"], h["share"], h["gap"]
    told = ("told apart" if head_to_head_winner(h) else "not told apart")
    level = h.get("confidence", 0.95)
    family = "" if level == 0.95 else f"; a {level:.1%} interval, the head-to-heads of both rulesets one family"
    return (f" Head to head (each against `{other}` alone, both seats, all 20 match-ups, {h['games']:,} fresh deals, "
            f"paired): `{top}` wins {_iv(s[top])} of its games and `{other}` against itself {_iv(s[other])}, "
            f"{g.estimate:+.4f} [{g.low:+.4f}, {g.high:+.4f}] ({told}{family}).")


def strength_text(label: str, ranked: list[dict], rulesets: int = RULESETS, h2h: dict | None = None) -> str:
    """In words: the policy that plays the ruleset's tables, and whether the field told it apart from the rest
    (a tie is said, with how the report broke it: by ``h2h``, the two head to head, when that tells them apart,
    else by the higher estimate)."""
    rungs = strength_verdict(ranked, rulesets)
    top = rungs[0]
    tied = [r for r in rungs[1:] if not r.below_best]
    if not tied:
        second = rungs[1] if len(rungs) > 1 else None
        return (f"{label.capitalize()}: `{top.policy}` wins more against the field than every other policy"
                + (f" (paired on the same deals, the next `{second.policy}` {second.gap:+.4f} [{second.gap_low:+.4f}, "
                   f"{second.gap_high:+.4f}]; 'below best' for all, {_family_words(rulesets)})"
                   if second else "") + ", so it plays the tables.")
    gaps = "; ".join(f"`{r.policy}` {r.gap:+.4f} [{r.gap_low:+.4f}, {r.gap_high:+.4f}], p (adj.) {r.p_adj:.2g}"
                     for r in tied)
    said = (f"{label.capitalize()}: **a tie.** `{top.policy}` and {', '.join(f'`{r.policy}`' for r in tied)} are "
            f"not told apart against the field (paired on the same {top.games:,} deals: {gaps}; not 'below best', "
            f"{_family_words(rulesets)}).")
    rest = ("the match-up run plays every policy of the scenario, and the Policy line of the Blitz section compares "
            "their cells.")
    winner = head_to_head_winner(h2h)
    if winner:
        return said + head_to_head_text(h2h) + f" So the report plays `{winner}`, the stronger head to head; " + rest
    return (said + f" The report plays the higher estimate, `{top.policy}` ({top.value:.4f} against "
            f"{tied[0].value:.4f}), a choice the games do not support over the other; " + rest
            + (head_to_head_text(h2h) if h2h else ""))


SENS_FAMILY = 0.05  # family-wise level of the resolved Emblem flips over both rulesets (Holm in each at half of it)


def policy_table(run_dir: Path) -> dict[str, dict[str, Estimate]]:
    """``table[policy][emblem]`` for every policy of the run but ``random``: the Emblem's share of games won (both
    seats, all opponents, a draw no win; :func:`emblem_rates`, the deal the unit), Emblems in the run's order."""
    man = results.manifest(run_dir)
    frame = results.scan(run_dir)
    order = _emblems(man)
    table = {}
    for p, spec in man.get("policies", {}).items():
        if spec.get("kind") == "random":
            continue
        rates = emblem_rates(frame.filter(pl.col("policy") == p))
        if rates:
            keys = sorted(rates, key=lambda e: order.index(e) if e in order else len(order))
            table[p] = {e.replace("_emblem", ""): rates[e]["wins"] for e in keys}
    return table


def sensitivity_part(tables: dict[str, dict[str, dict[str, Estimate]]], best: dict[str, str]) -> tuple[str, str]:
    """The section "Does the Emblem ranking depend on the policy?" and the answer's sentences on it: per ruleset
    (``tables[label]``: :func:`policy_table`; ``best[label]`` the reference), every policy's Emblem ranking
    against the reference's (:func:`simkit.core.sensitivity.sensitivity`). The rulesets' flips are one family:
    Holm in each at SENS_FAMILY / (rulesets compared), so family-wise SENS_FAMILY over all (Bonferroni)."""
    compared = [lb for lb, t in tables.items() if best[lb] in t and len(t) > 1]
    alpha = SENS_FAMILY / max(len(compared), 1)
    comps = {lb: sensitivity(tables[lb], best[lb], alpha) for lb in compared}
    if len(compared) > 1:
        family = (f"the {len(compared)} rulesets' flips are one family, family-wise {SENS_FAMILY:.0%}: Holm at "
                  f"{alpha:.1%} within each ruleset, Bonferroni over the rulesets, as for the field verdicts")
        short = f"family-wise {SENS_FAMILY:.0%} over both rulesets, {alpha:.1%} in each"
    else:
        family = short = f"family-wise {SENS_FAMILY:.0%}"
    parts, said = [], []
    for lb, table in tables.items():
        ref = best[lb]
        c = comps.get(lb, [])
        said.append(f"{lb.capitalize()}: " + ranking_sentence(c, table, ref, "Emblem", alpha=alpha))
        pols = [ref] + [p for p in table if p != ref]
        rows = [{"Emblem": e, **{(f"`{p}` (strongest)" if p == ref else f"`{p}`"): _iv(table[p][e])
                                 for p in pols if e in table[p]}} for e in table.get(ref, {})]
        deals = sorted({x.n for row in table.values() for x in row.values()})
        n = f"{deals[0]:,}" if len(deals) == 1 else f"{deals[0]:,}–{deals[-1]:,}"
        parts.append(f"### {lb.capitalize()}\n\nEach Emblem's share of games won under each policy (both seats, "
                     f"all opponents; a draw is no win; 95% interval, the deal the unit, {n} deals):\n\n"
                     + (render(rows, "md") if rows else "(no games)\n") + "\n"
                     + (sens_markdown(c, ref, "Emblems", alpha) if c else
                        "Only one practical policy played, so the ranking is not compared.\n") + "\n")
    text = (
        "## Does the Emblem ranking depend on the policy?\n\n"
        "A balance conclusion holds for a game *and* a way of playing it. The match-up runs play every policy of "
        "the ruleset's scenario (its `play` list) on the same deals; each one's ranking of the Emblems (its share "
        "of games won per Emblem, as in the pooled tables above) is set against the ranking under the ruleset's "
        "strongest policy, the one that plays the tables (a tie broken as above): Spearman's "
        "rank correlation and the pairs of Emblems whose "
        "order flips. A flip is *resolved* when the games show both orders: the larger of the two policies' "
        "two-sided p-values for the pair's difference (normal, from the deal-clustered intervals; conservative, "
        "as the Emblems of one deal share it), Holm-corrected over every pair of every policy compared, is below "
        f"the level; {family}, so the chance of calling any flip where the orders truly agree is at most "
        f"{SENS_FAMILY:.0%}. `random`, if played, is left out.\n\n" + "".join(parts))
    lead = (f"Does the Emblem ranking change with the policy (every policy of the match-up run on the same deals "
            f"against the strongest; {short})? ")
    return text, lead + " ".join(said)


def strength_rows(label: str, ranked: list[dict]) -> list[dict]:
    """Table rows of :func:`field.strength` (strongest first)."""
    return [{"ruleset": label, "policy": f"`{r['policy']}`",
             "wins against the field": f"{r['estimate']:.3f} [{r['low']:.3f}, {r['high']:.3f}]",
             "games": f"{r['games']:,} × 120 cells"} for r in ranked]


def run_report(run_dir: str | Path, out_dir: str | Path) -> list[Path]:
    """The report of one run of either ruleset: its match-up matrix, Alpha/Omega rows, margins, cards."""
    run_dir, out_dir = Path(run_dir), Path(out_dir)
    man = results.manifest(run_dir)
    label = man.get("ruleset", man.get("mode", "run"))
    mtext, pngs, minfo = matchup_section(run_dir, out_dir, label)
    dtext, dpngs = distribution_section({label: run_dir}, out_dir)
    names = _card_names(man)
    crows, base = card_rows(run_dir, names)
    policy = minfo["policy"]
    text = (f"# The Valkyrie Incident ({label})\n\n{STAND_IN_NOTICE}\n\n{headline(policy, [(label, run_dir, minfo)])}"
            f"\n\n{_what(man)}\n\n## Emblem match-ups\n\n"
            + mtext + "## Alpha or Omega\n\n" + ALPHA_NOTE + "\n\n" + render(_alpha_rows(run_dir, label), "md") + "\n"
            + "## Score margin and game length\n\n" + dtext
            + f"## Cards\n\n{_card_note(base)}\n\n" + render(crows, "md") + "\n" + manifest_section(man))
    return [write_markdown(out_dir / "report.md", text), *pngs, *dpngs]


def _card_names(man: dict) -> list[str]:
    from simkit.games.valkyrie_incident.cards import load_cards

    path = man.get("cards") or None
    try:
        cards = load_cards(path)
    except Exception:  # noqa: BLE001 - a moved cards file: fall back to the bundled names
        cards = load_cards()
    return [f"{c.name} ({('V', 'A', 'C', 'S')[c.type]}, {cards.clans[c.clan]})" for c in cards.cards]


def _card_note(s: dict) -> str:
    return (f"Per Incident card (V Valkyrie, A Action, C Cogdrive, S Assault; its Clan): in how many games a seat "
            f"owned it at the end (Deck, Pile or hand: drafted at set-up or from the Barracks) and in how many of "
            f"the {s['deals']:,} deals, and how those games ended for the owner: won, drawn, or won by the seat "
            f"facing it (a draw is neither seat's win, so the three add up to 1). Every cell replays the same "
            f"deals, so the deal is the unit: each share has Wilson's interval on the effective number of games "
            f"(the games over the design effect of the deals, 95%). Over all cards an owning seat wins "
            f"{s['owner_wins']:.3f}, draws {s['draws']:.3f} and loses {s['facing_wins']:.3f}. `flag` marks the "
            f"cards whose owners win more (`high`) or less (`low`) often than the seat facing them: a two-sided "
            f"exact sign-flip test of each deal's owner wins minus owner losses (the deal as the unit; no effect: "
            f"as likely + as −), **Holm-corrected** over the {s['tested']} cards owned in some decided game "
            f"(family-wise {CARD_FAMILY}; `p (Holm)`); {s['flagged']} flagged. Owning a card is not random (strong hands draft more), so a "
            f"flag is a lead to look into, not a verdict on the card. A used Assault card is shuffled back into the "
            f"Incident Deck, so Assault cards are seldom owned at the end.")


def _what(man: dict) -> str:
    opts = man.get("rule_options", {})
    opt_text = ", ".join(f"`{k} = {toml_value(v)}`" for k, v in opts.items()) or "defaults"
    return (f"Ruleset `{man.get('ruleset')}`; rule options {opt_text} (docs/rules.md); card data "
            f"`{shown_path(man.get('cards', '?'))}`; {int(man.get('games', 0)):,} games per cell, root seed "
            f"{man.get('root_seed')}. Every cell replays the same deals (common random numbers).")


LADDER_GAMES = 100  # deals of the round-robin ladder (each policy: 5 opponents × 2 seats × 5 match-ups a deal)
FIELD_GAMES = 200  # games (× 120 cells) per policy in the report's ranking against the field
UNTUNED = ("balanced", "focused")  # the presets the report played before issue 25


def bundled_report(out_dir: str | Path, quick: bool = False, jobs=None) -> list[Path]:
    """Run the bundled scenarios (seed 2026) and write ``out_dir/valkyrie-incident/report.md``."""
    from simkit.core.ladder import VERDICT_NOTE, ladder, table_rows
    from simkit.core.registry import scenarios_dir
    from simkit.games.valkyrie_incident.field import head_to_head, scenario_path, strength

    base = Path(out_dir) / "valkyrie-incident"
    base.mkdir(parents=True, exist_ok=True)
    ladder_games = 10 if quick else LADDER_GAMES
    rungs = ladder(scenarios_dir() / "valkyrie_incident" / "ladder.toml", games=ladder_games, seed=2026,
                   jobs=jobs or 1)
    ladder_cells = (len(rungs) - 1) * 2 * 5
    games = 100 if quick else 1_000
    field_n = 20 if quick else FIELD_GAMES
    runs, best, old, ranked = {}, {}, {}, {}
    for label in ("standard", "blitz"):
        run = run_bundled(f"valkyrie_incident/{label}.toml", base / "run" / label, games, seed=2026, jobs=jobs)
        runs[label] = run
        # the strongest heuristic or learned policy of the scenario against the field (fresh seed 2027: not the
        # matrices' deals)
        heur = [p for p, v in results.manifest(run).get("policies", {}).items()
                if v.get("kind") in TABLE_KINDS]
        ranked[label] = strength(scenario_path(label), heur, field_n, seed=2027, jobs=jobs or 1)
        best[label] = ranked[label][0]["policy"]
        old[label] = next(r["policy"] for r in ranked[label] if r["policy"] in UNTUNED)
    # a tie at the top of the field ranking: the two that tie, head to head on fresh deals (seed 2028); when that
    # tells them apart, the stronger head to head plays the tables, else the higher estimate against the field
    second = {label: next((r.policy for r in strength_verdict(ranked[label], len(runs))[1:] if not r.below_best),
                          None) for label in runs}  # the policy tied with the top, if any
    # the tie-breaks are one family over the rulesets, as the field verdicts are (Bonferroni)
    h2h = {label: head_to_head(scenario_path(label), best[label], second[label], field_n, seed=2028, jobs=jobs or 1,
                               confidence=1 - FIELD_FAMILY / len(runs))
           for label in runs if second[label]}
    for label, h in h2h.items():
        best[label] = head_to_head_winner(h) or best[label]
    # the match-up runs play every policy of their scenario; the report uses each ruleset's strongest
    sections, files = [], []
    spreads, infos, changes = {}, {}, {}
    for label, run in runs.items():
        text, pngs, info = matchup_section(run, base, label, best[label])
        _, _, old_info = matchup_section(run, base, label, old[label], plot=False)
        changes[label] = matrix_change(old_info, info)
        sections.append(f"### {label.capitalize()}\n\n" + text + _change_text(label, changes[label]) + "\n\n")
        files += pngs
        spreads[label] = info["spread"]
        infos[label] = info
    answer = headline(best["standard"], [(label, runs[label], infos[label]) for label in runs])
    # does the Emblem ranking change with the policy? every policy of each run against its strongest
    sens_text, sens_said = sensitivity_part({label: policy_table(run) for label, run in runs.items()}, best)
    answer += " " + sens_said
    blitz = blitz_section(runs["blitz"], infos["standard"], infos["blitz"], results.manifest(runs["blitz"]).get("cards"))
    dtext, dpngs = distribution_section(runs, base, best)
    names = _card_names(results.manifest(runs["standard"]))
    crows, cbase = card_rows(runs["standard"], names, best["standard"])
    alpha = _alpha_rows(runs["standard"], "standard") + _alpha_rows(runs["blitz"], "blitz")
    ladder_rows = table_rows(rungs)
    strength_table = render(strength_rows("standard", ranked["standard"]) + strength_rows("blitz", ranked["blitz"]),
                            "md")
    how = {label: "" for label in runs}
    for label in h2h:
        how[label] = ("; a tie against the field, broken head to head" if head_to_head_winner(h2h[label])
                      else "; the higher estimate of a tie")
    chosen = " and ".join(f"**`{best[label]}`** ({label}{how[label]})" for label in runs)
    text = (
        "# The Valkyrie Incident: Emblem match-ups, Alpha or Omega, and Blitz\n\n"
        f"{STAND_IN_NOTICE}\n\n"
        f"{answer}\n\n"
        "## What was simulated\n\n"
        f"Each ruleset's policies (the `play` list of `scenarios/valkyrie_incident/standard.toml` and "
        f"`blitz.toml`: the bundled `balanced` and `focused`, their `simkit tune` versions and, in each ruleset, "
        f"`learned`, trained from game outcomes against that ruleset's `focused_tuned`) are ranked by their "
        f"win rate against the field of bundled heuristics (`balanced`, `focused`, `concentrated`), in both seats "
        f"and all 20 ordered Emblem match-ups on common deals, root seed 2027; the strongest, {chosen}, then plays "
        f"itself in all 20 ordered match-ups of different Emblems, {games:,} games each, under the standard rules "
        f"and the Blitz rules, root seed 2026: those games give the match-up matrices, the one-sentence answer, the "
        f"margins and the card table. "
        f"Rule options: the defaults (docs/rules.md).\n\n"
        "Against the field (a game's share of wins over its 120 cells; 95% normal interval, the game, a deal "
        "that all 120 cells replay, is the unit):\n\n" + strength_table + "\n"
        + "\n\n".join(strength_text(label, ranked[label], len(runs), h2h.get(label)) for label in runs) + "\n\n"
        "## Emblem match-ups\n\n" + "".join(sections)
        + f"Does Blitz keep the balance? Highest minus lowest match-up: standard {spreads['standard']:.3f}, "
          f"Blitz {spreads['blitz']:.3f}.\n\n"
        + "### Blitz match-ups near 0 or 1: data, policy or rules?\n\n" + blitz
        + sens_text
        + "## Alpha or Omega\n\n" + ALPHA_NOTE + "\n\n"
        + render(alpha, "md") + "\n"
        "## Skill ladder\n\n"
        f"A round robin of the bundled policies, standard rules (`scenarios/valkyrie_incident/ladder.toml`, "
        f"`opponent = \"others\"`; `simkit ladder`): every policy meets every other one of the ladder, never "
        f"itself, in both seats, in 5 match-ups in which each Emblem plays once as Alpha and once as Omega, "
        f"{ladder_games:,} deals (root seed 2026). A rung is the policy's share of wins (a draw is no win) over "
        f"its {ladder_cells} cells ({len(rungs) - 1} opponents × 2 seats × 5 match-ups), so it measures how the "
        f"policy fares against the rest of the ladder; `n` counts deals, the unit of every interval "
        f"({ladder_games * ladder_cells:,} games a rung). `search` is left out: at about 1 CPU-second a game a "
        f"round robin would play it in a third of the cells. " + VERDICT_NOTE + "\n\n"
        + render(ladder_rows, "md") + "\n"
        "## Score margin and game length\n\n" + dtext
        + f"## Cards (standard rules)\n\n{_card_note(cbase)}\n\n" + render(crows, "md") + "\n"
        + "## Runs\n\n" + "\n".join(manifest_section(results.manifest(r)).replace("## Run\n", f"### {lb.capitalize()}"
                                                                                       " run\n", 1)
                                       for lb, r in runs.items())
    )
    return [write_markdown(base / "report.md", text), *files, *dpngs]
