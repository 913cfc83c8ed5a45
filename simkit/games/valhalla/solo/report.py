"""Valhalla Solo report: how hard is each difficulty level, per monster, deck variant, Jarl and policy.

Everything is aggregated from the run's per-game Parquet rows lazily with
polars; no per-game rows are kept in memory.

Common random numbers. Every cell of a run replays game ``(block, game)`` on
the same deck shuffle and dice streams, whatever its level, Jarl, monster or
policy. Levels are therefore compared *paired* (same shuffle, different
level), which removes most of the luck from the difference. The same sharing
also ties together the games of different Jarls (and monsters) with the same
``(block, game)``: they are not independent draws. Every number pooled over
several rows of one ``(block, game)`` thus gets a cluster-robust interval with
the game as the unit: a Wilson interval on the effective number of games
(Kish design effect, never below 1) for shares, and the normal interval of the
per-game means for paired differences and means. A cell with one row per game
(no pooling) gets the plain Wilson interval.
"""

from __future__ import annotations

import math
import statistics
from pathlib import Path

import polars as pl

from simkit.core import results
from simkit.core.plotting import bars, lines
from simkit.core.report import (
    DETAILS_MARKER, STAND_IN_NOTICE, interval, lead_paragraph, manifest_section, run_bundled, search_words,
    shown_path, toml_value, write_markdown,
)
from simkit.core.report import interval as _iv  # a rate with its 95% interval
from simkit.core.sensitivity import ALPHA, ranking_sentence, sensitivity
from simkit.core.sensitivity import markdown as sens_markdown
from simkit.core.stats import Estimate, holm, overlapping, paired_rate, wilson, z_value
from simkit.core.tables import render

ROMAN = {1: "I", 2: "II", 3: "III"}
# "Difficulty Level I … the player discards 2 cards from the deck", Level II 4, Level III 6
DISCARDS = {1: 2, 2: 4, 3: 6}
CAUSES = ("shields", "deck", "cap")
END_TEXT = {
    "won": "won (every monster card defeated)",
    "shields": "lost: the fourth shield (no shield left)",
    "deck": "lost: the deck ran out",
    "cap": "stopped at the turn cap",
}
MEANS = (
    ("turns", "turns"),
    ("glory", "Glory"),
    ("shields_left", "shields left"),
    ("attacks_won", "attacks won"),
    ("attacks_lost", "attacks lost"),
    ("defences_won", "defences won"),
    ("defences_lost", "defences lost"),
)
PAIR_KEYS = ["block", "game", "monster", "variant", "jarl", "policy"]
# what the level runs' policy is, in the page's words: the ladder's top heuristic, or (when that one solves
# battles exactly, too slow for the level runs' games) the strongest at heuristic speed
STRONGEST = "the strongest practical policy"
FASTEST_STRONG = "the strongest policy at heuristic speed"


def exact_words(spec: dict) -> str:
    """What a heuristic's exact-roll parameters make it do, in a few words ('' when it has none)."""
    if (spec or {}).get("exact_rolls", 0) > 0:
        return "plays every roll exactly"
    if (spec or {}).get("exact_last_stand", 0) > 0:
        return ("makes its last stands exactly: in a defence, where its rules would stop while the dice lose, it "
                "plays the roll that wins the battle most often")
    return ""


def rule_words(spec: dict) -> str:
    """What a heuristic's rule parameters beyond the tuned ones make it do, in a few words ('' when none)."""
    if (spec or {}).get("last_stand_reroll", 0) > 0:
        return ("rerolls its last stands: in a defence, where its rules would stop while the dice lose and some roll "
                "could still win, it rerolls every die (no battle solved)")
    return ""


# ---------------------------------------------------------------- helpers




def _siv(est: float, low: float, high: float) -> str:
    return f"{est:+.4f} [{low:+.4f}, {high:+.4f}]"


def _p(p: float) -> str:
    if math.isnan(p):
        return "–"
    return "< 0.0001" if p < 1e-4 else f"{p:.4f}"


def _lv(level) -> str:
    return ROMAN.get(int(level), str(level))


def _order(declared, present) -> list:
    present = set(present)
    out = [x for x in (declared or []) if x in present]
    return out + sorted(present - set(out))


def _policy_order(man: dict, present) -> list[str]:
    """Heuristic policies first (declared order), the random baseline(s) last."""
    declared = _order(list(man.get("policies", {})), present)
    kind = {p: (man.get("policies", {}).get(p) or {}).get("kind", "heuristic") for p in declared}
    return [p for p in declared if kind[p] != "random"] + [p for p in declared if kind[p] == "random"]


def _clustered(frame: pl.LazyFrame, by: list[str], values: dict[str, pl.Expr]) -> dict[tuple, dict]:
    """Per group of ``by``: rows, games (clusters ``(block, game)``) and, per value, its mean with a
    cluster-robust variance of that mean. Returns ``{group key tuple: {...}}``."""
    per = frame.group_by(["block", "game", *by]).agg(
        pl.len().alias("m"), *[e.cast(pl.Float64).sum().alias(f"{k}_s") for k, e in values.items()])
    aggs = [pl.col("m").sum().alias("n"), pl.len().alias("c"), (pl.col("m") * pl.col("m")).sum().alias("mm")]
    for k in values:
        s = pl.col(f"{k}_s")
        aggs += [s.sum().alias(f"{k}_t"), (s * s).sum().alias(f"{k}_ss"), (s * pl.col("m")).sum().alias(f"{k}_sm")]
    out = {}
    for r in per.group_by(by).agg(aggs).collect().iter_rows(named=True):
        n, c, mm = int(r["n"]), int(r["c"]), float(r["mm"])
        cell = {"n": n, "games": c, "pooled": c < n, "kish": n * n / mm if mm > 0 else float(c)}
        for k in values:
            mean = r[f"{k}_t"] / n
            resid = r[f"{k}_ss"] - 2 * mean * r[f"{k}_sm"] + mean * mean * mm
            var = c / (c - 1) * max(0.0, resid) / (n * n) if c > 1 else math.inf
            cell[k] = (mean, var, float(r[f"{k}_t"]))
        out[tuple(r[b] for b in by)] = cell
    return out


def _rate(cell: dict, key: str) -> Estimate:
    """Wilson interval for a share; with several rows per game, on the effective number of games, never more
    rows than games can vouch for: at a share of exactly 0 or 1 (no spread to measure) on Kish's effective number
    of games (Σm)² / Σm², as :func:`simkit.core.stats.clustered_rate` does."""
    mean, var, total = cell[key]
    n = cell["n"]
    if not cell["pooled"]:
        return wilson(int(round(total)), n)
    iid = mean * (1 - mean) / n
    floor = n / cell.get("kish", n)  # the design effect of games that are all wins or all losses
    deff = min(max(1.0, var / iid), floor) if iid > 0 and math.isfinite(var) else floor
    e = wilson(mean * n / deff, n / deff)  # type: ignore[arg-type]  # float counts: effective sample
    return Estimate(mean, e.low, e.high, n)


def _mean(cell: dict, key: str) -> Estimate:
    mean, var, _ = cell[key]
    half = z_value() * math.sqrt(var)
    return Estimate(mean, mean - half, mean + half, cell["n"])


def _deff(cell: dict, key: str) -> float:
    mean, var, _ = cell[key]
    iid = mean * (1 - mean) / cell["n"]
    return max(1.0, var / iid) if iid > 0 and math.isfinite(var) else 1.0


def _monster_sizes(man: dict) -> dict[tuple[str, str], int]:
    """Monster cards per monster and side, from the run's cards file (empty if it cannot be read)."""
    try:
        from simkit.games.valhalla import cards as cards_mod

        _, monsters = cards_mod.load_cards((man.get("files") or {}).get("cards"))
        return {(k, v): len(m.cards_plus40 if v == "plus40" else m.cards_base)
                for k, m in monsters.items() for v in ("base", "plus40")}
    except Exception:  # noqa: BLE001  (the file may have moved since the run; fall back to the rows)
        return {}


def _paired(frame: pl.LazyFrame, a: int, b: int) -> dict[tuple, dict]:
    """won(level a) − won(level b) over games paired on (block, game, monster, variant, jarl, policy).

    Rows of one (block, game) share their shuffle across Jarls, so the per-game mean over Jarls is
    the unit of the design effect handed to ``paired_rate`` (Newcombe on the effective counts)."""
    wa = frame.filter(pl.col("level") == a).select(*PAIR_KEYS, pl.col("won").cast(pl.Int64).alias("wa"))
    wb = frame.filter(pl.col("level") == b).select(*PAIR_KEYS, pl.col("won").cast(pl.Int64).alias("wb"))
    j = wa.join(wb, on=PAIR_KEYS, how="inner").with_columns(d=pl.col("wa") - pl.col("wb"),
                                                               ab=pl.col("wa") * pl.col("wb"))
    # integer sums per game and over games (exact, so the report is byte-identical run after run); a game's
    # value is its sum over its m paired Jarls divided by m
    per = j.group_by("block", "game", "monster", "variant", "policy").agg(
        pl.len().alias("m"), pl.col("d").sum(), pl.col("wa").sum(), pl.col("wb").sum(), pl.col("ab").sum())
    aggs = [pl.col("m").sum().alias("pairs"), pl.len().alias("games"), pl.col("m").max().alias("m_max"),
            pl.col("ab").sum().alias("ab_s")]
    for k in ("d", "wa", "wb"):
        aggs += [pl.col(k).sum().alias(f"{k}_s"), (pl.col(k) * pl.col(k)).sum().alias(f"{k}_ss")]
    out = {}
    z = z_value()
    for r in per.group_by("monster", "variant", "policy").agg(aggs).collect().iter_rows(named=True):
        c = int(r["games"])
        m = int(r["m_max"])
        rows = int(r["pairs"])
        # the paired 2×2 table over all (game, Jarl) pairs; Newcombe's interval on the effective counts
        n11 = float(r["ab_s"])
        n_hi, n_lo = float(r["wb_s"]) - n11, float(r["wa_s"]) - n11  # won only at the higher / the lower level
        theta = (n_lo - n_hi) / rows
        v_iid = ((n_lo + n_hi) / rows - theta * theta) / rows
        for k in ("d", "wa", "wb"):
            r[f"{k}_s"], r[f"{k}_ss"] = r[f"{k}_s"] / m, r[f"{k}_ss"] / (m * m)
        dmean = r["d_s"] / c
        v_cl = max(0.0, (r["d_ss"] - c * dmean * dmean) / (c - 1)) / c if c > 1 else math.nan
        deff = min(float(m), v_cl / v_iid) if v_iid > 0 and v_cl == v_cl else float(m)
        # "A" = the higher level, "B" = the lower: B − A = won(lower) − won(higher)
        pd = paired_rate(n11, n_hi, n_lo, rows - n11 - n_hi - n_lo, deff)

        def var_of_mean(k):
            if c < 2:
                return math.nan
            mean = r[f"{k}_s"] / c
            return max(0.0, (r[f"{k}_ss"] - c * mean * mean) / (c - 1)) / c

        unpaired = z * math.sqrt(var_of_mean("wa") + var_of_mean("wb"))
        out[(r["monster"], r["variant"], r["policy"])] = {
            "pd": pd, "pairs": int(r["pairs"]), "games": c,
            "wa": r["wa_s"] / c, "wb": r["wb_s"] / c,
            "ratio": (pd.high - pd.low) / 2 / unpaired if unpaired > 0 else math.nan,
        }
    return out


def _verdict(pd, p_holm: float) -> str:
    """Holm-corrected over every row of the paired tables (family-wise 5%)."""
    if p_holm < 0.05 and pd.estimate > 0:
        return "harder"
    if p_holm < 0.05 and pd.estimate < 0:
        return "easier?!"
    return "no clear difference"


# ---------------------------------------------------------------- the levels over all Jarls (the game a designer ships)


def _level_wide(frame: pl.LazyFrame, levels: list[int]) -> pl.LazyFrame:
    """One row per game and cell apart from the level (``PAIR_KEYS``): ``w{L}`` = won at level L; only rows played
    at every level."""
    return (frame.group_by(PAIR_KEYS)
            .agg(*[pl.col("won").filter(pl.col("level") == L_).cast(pl.Int64).sum().alias(f"w{L_}") for L_ in levels],
                 pl.col("level").n_unique().alias("nl"))
            .filter(pl.col("nl") == len(levels)))


def level_numbers(wide: pl.LazyFrame, by: list[str], levels: list[int]) -> dict[tuple, dict]:
    """Per group of ``by`` (``[]``: everything pooled): P(win) per level and the paired differences between levels,
    the game ``(block, game)`` as the unit. A game's rows are its cells of the group (Jarls, monster / deck sets);
    P(win) is :func:`clustered_rate` over games, a difference the normal interval of the per-game mean of
    won(a) − won(b) over its paired rows. ``games`` is the n of every number, ``rows`` the (game, cell) pairs."""
    from simkit.core.stats import clustered_rate, mean_interval

    per = (wide.group_by(["block", "game", *by])
           .agg(pl.len().alias("m"), *[pl.col(f"w{L_}").sum() for L_ in levels])
           .sort(["block", "game", *by]).collect())
    groups = [((), per)] if not by else sorted(per.group_by(by, maintain_order=True), key=lambda kv: kv[0])
    out = {}
    for key, g in groups:
        m = g["m"].to_numpy().astype(float)
        w = {L_: g[f"w{L_}"].to_numpy().astype(float) for L_ in levels}
        diffs = {}
        for a, b in ((a, b) for a in levels for b in levels if a < b):
            d = (w[a] - w[b]) / m
            diffs[(a, b)] = mean_interval(len(d), float(d.sum()), float((d * d).sum()))
        out[tuple(key)] = {"rates": {L_: clustered_rate(w[L_], m) for L_ in levels}, "diffs": diffs,
                           "games": len(m), "rows": int(m.sum())}
    return out


def _diff_p(e: Estimate) -> float:
    """Two-sided normal p-value of a difference from its normal 95% interval."""
    from scipy.stats import norm

    se = (e.high - e.estimate) / z_value() if e.high > e.estimate else 0.0
    return float(2 * norm.sf(abs(e.estimate) / se)) if se > 0 else (0.0 if e.estimate else 1.0)


def _twin_names(frame: pl.LazyFrame, jarls: list[str]) -> dict[str, str]:
    """``{jarl: shown name}``: Jarls that played every game of ``frame`` identically (the same result, turns,
    cards defeated and Glory in each game, set and level) share one name, "hodr ≡ esbjorn", in ``jarls`` order."""
    names = frame.collect_schema().names() if isinstance(frame, pl.LazyFrame) else frame.columns
    keys = [c for c in ("block", "game", "monster", "variant", "level") if c in names]
    trace = [c for c in ("won", "turns", "cards_defeated", "glory") if c in names]
    df = frame.select(["jarl", *keys, *trace])
    df = df.collect() if isinstance(df, pl.LazyFrame) else df
    groups: dict[int, list[str]] = {}
    for jl in jarls:
        jf = df.filter(pl.col("jarl") == jl).sort(keys).select(trace)
        groups.setdefault(hash(tuple(tuple(jf[c].to_list()) for c in trace)), []).append(jl)
    return {jl: " ≡ ".join(g) for g in groups.values() for jl in g}


def all_jarls_section(frame: pl.LazyFrame, policy: str, man: dict, deep: dict | None = None,
                      role: str = STRONGEST, aside: str = "") -> tuple[str, str, dict]:
    """``(headline, section, numbers)``: the levels over every Jarl, under ``policy`` (``role``: the strongest
    practical one, or the strongest at heuristic speed; ``aside``: sentences said right after the headline's first),
    pooled over Jarls and monster / deck sets and per set and per Jarl, the game as the unit. ``deep`` (optional):
    the one-Jarl level run's ``{"jarl", "games", "diff"}`` (its Level I − III), reconciled in words."""
    frame = frame.filter(pl.col("policy") == policy)
    levels = sorted(int(x) for x in frame.select(pl.col("level").unique()).collect()["level"].to_list())
    lo, hi = levels[0], levels[-1]
    wide = _level_wide(frame, levels)
    pooled = level_numbers(wide, [], levels)[()]
    if lo == hi:  # one level: nothing to compare
        e = pooled["rates"][lo]
        lead = (f"Only Level {_lv(lo)} was played: over all Jarls, monsters and decks P(win) is {interval(e)} "
                f"(`{policy}` policy, {pooled['games']:,} games).")
        return (f"Under {role}, **`{policy}`**, P(win) is **{e.estimate:.3f}** [{e.low:.3f}, "
                f"{e.high:.3f}] at Level {_lv(lo)}, the only level played (every Jarl, monster and deck pooled; "
                f"n = {pooled['games']:,} games).", "", {"policy": policy, "levels": levels, "pooled": pooled,
                                                          "games": pooled["games"], "run": man, "lead": lead})
    sets = level_numbers(wide, ["monster", "variant"], levels)
    per_jarl = level_numbers(wide, ["jarl"], levels)
    monsters = _order(man.get("monsters"), {k[0] for k in sets})
    variants = _order(man.get("variants"), {k[1] for k in sets})
    mvs = [(m, v) for m in monsters for v in variants if (m, v) in sets]
    jarls = _order(man.get("jarls"), {k[0] for k in per_jarl})
    steps = [(a, b) for a, b in zip(levels, levels[1:])]
    pairs = steps + ([(lo, hi)] if len(levels) > 2 else [])
    # one Holm family for every verdict of the section: the pooled steps, I − III per set and per Jarl
    fam = [("all", (), ab) for ab in pairs] + [("set", mv, (lo, hi)) for mv in mvs] + \
          [("jarl", (j,), (lo, hi)) for j in jarls]
    src = {"all": {(): pooled}, "set": sets, "jarl": per_jarl}
    raw = [_diff_p(src[kind][key]["diffs"][ab]) for kind, key, ab in fam]
    adj = dict(zip(fam, holm(raw)))
    raw = dict(zip(fam, raw))
    G = pooled["games"]
    n_text = f"n = {G:,} games"

    def verdict(kind, key, ab):
        return _verdict(src[kind][key]["diffs"][ab], adj[(kind, key, ab)])

    rows = [{"level": _lv(L_), "discards after a lost battle": DISCARDS.get(L_, "?"),
             "P(win) [95%]": _iv(pooled["rates"][L_]), "n (games)": G} for L_ in levels]
    drows = [{"levels": f"{_lv(a)} − {_lv(b)}", "P(win) difference [95%]": _siv(*_e3(pooled["diffs"][(a, b)])),
              "p-value": _p(raw[("all", (), (a, b))]), "p (Holm)": _p(adj[("all", (), (a, b))]),
              "verdict": verdict("all", (), (a, b)), "n (games)": G} for a, b in pairs]
    srows = []
    for m, v in mvs:
        c = sets[(m, v)]
        srows.append({"monster": m, "variant": v,
                      **{f"P(win) {_lv(L_)}": _iv(c["rates"][L_]) for L_ in levels},
                      f"{_lv(lo)} − {_lv(hi)} [95%]": _siv(*_e3(c["diffs"][(lo, hi)])),
                      "p (Holm)": _p(adj[("set", (m, v), (lo, hi))]), "verdict": verdict("set", (m, v), (lo, hi)),
                      "n (games)": c["games"]})
    by_drop = sorted(jarls, key=lambda j: -per_jarl[(j,)]["diffs"][(lo, hi)].estimate)
    twin = _twin_names(frame, jarls)
    jrows = []
    for j in by_drop:
        if twin[j] != j and twin[j].split(" ≡ ")[0] != j:
            continue  # a Jarl that played every game as an earlier one shares its row (listed once)
        c = per_jarl[(j,)]
        jrows.append({"Jarl": twin[j] + (" (the deep run's Jarl)" if deep and deep.get("jarl") in twin[j].split(" ≡ ") else ""),
                      f"P(win) {_lv(lo)}": _iv(c["rates"][lo]), f"P(win) {_lv(hi)}": _iv(c["rates"][hi]),
                      f"{_lv(lo)} − {_lv(hi)} [95%]": _siv(*_e3(c["diffs"][(lo, hi)])),
                      "p (Holm)": _p(adj[("jarl", (j,), (lo, hi))]), "verdict": verdict("jarl", (j,), (lo, hi)),
                      "n (games)": c["games"]})

    d = pooled["diffs"][(lo, hi)]
    step_words = []
    for a, b in steps:
        e = pooled["diffs"][(a, b)]
        v = verdict("all", (), (a, b))
        how = {"harder": "harder than", "no clear difference": "not told apart (after Holm) from"}.get(v, "easier than")
        step_words.append(f"Level {_lv(b)} is {how} Level {_lv(a)} ({_siv(*_e3(e))})")
    set_d = {mv: sets[mv]["diffs"][(lo, hi)] for mv in mvs}
    most = max(mvs, key=lambda mv: set_d[mv].estimate) if mvs else None
    least = min(mvs, key=lambda mv: set_d[mv].estimate) if mvs else None
    jd = {j: per_jarl[(j,)]["diffs"][(lo, hi)] for j in jarls}
    rows_d = {twin[j]: jd[j] for j in by_drop}  # one per row of the Jarls table (alike Jarls share one)
    headline = (
        f"**Over all {len(jarls)} Jarls** under {role}, **`{policy}`**, Level {_lv(lo)} − "
        f"{_lv(hi)} = **{_siv(*_e3(d))}** (95%) in P(win), which is "
        + ", ".join(f"**{pooled['rates'][L_].estimate:.3f}** [{pooled['rates'][L_].low:.3f}, "
                    f"{pooled['rates'][L_].high:.3f}] at Level {_lv(L_)}" for L_ in levels)
        + f" ({len(mvs)} monster / deck set{'s' if len(mvs) != 1 else ''} and the Jarls pooled; {n_text}, each "
        "played by every Jarl in every set at every level). "
        + (aside + " " if aside else "")
        + "; ".join(step_words) + ". "
        + (f"The levels bite hardest against {most[0]} / {most[1]} ({_lv(lo)} − {_lv(hi)} = "
           f"{_siv(*_e3(set_d[most]))}{_sets_alongside(most, set_d)}) and least against {least[0]} / {least[1]} "
           f"({_siv(*_e3(set_d[least]))}{_sets_alongside(least, set_d)}); "
           if most else "")
        + (f"per Jarl the drop runs from {_siv(*_e3(jd[by_drop[-1]]))} ({_jarl_alongside(twin[by_drop[-1]], rows_d)}) "
           f"to {_siv(*_e3(jd[by_drop[0]]))} ({_jarl_alongside(twin[by_drop[0]], rows_d)}), each on the same {G:,} games."
           if len(set(twin.values())) > 1 else ""))
    reconcile = ""
    if deep and deep.get("jarl") in jd and deep.get("diff") is not None:
        j = deep["jarl"]
        rank = by_drop.index(j) + 1
        dd, dj = deep["diff"], jd[j]
        z = z_value()
        se = math.hypot((dd.high - dd.low) / (2 * z), (dj.high - dj.low) / (2 * z))  # two runs, two seeds
        agree = se > 0 and abs(dd.estimate - dj.estimate) / se < z
        if dd.high < d.low:
            scope = "is below the all-Jarls drop: the one-Jarl figures understate the levels for the game as shipped"
        elif dd.low > d.high:
            scope = "is above the all-Jarls drop: the one-Jarl figures overstate the levels for the game as shipped"
        else:
            scope = "is not told apart from the all-Jarls drop"
        reconcile = (
            f"The one-Jarl deep run below ({j}, {deep['games']:,} games per level) measures Level {_lv(lo)} − "
            f"{_lv(hi)} = {_siv(*_e3(dd))} for {j} alone; here, on {G:,} games, {j} drops {_siv(*_e3(dj))} "
            f"(rank {rank} of {len(jarls)} from the largest drop), against {_siv(*_e3(d))} over all Jarls. The "
            f"two runs {'agree' if agree else 'disagree'} on {j} (difference {dd.estimate - dj.estimate:+.4f}, "
            f"{'within' if agree else 'beyond'} 1.96 standard errors of the two runs). {j} is one of the Jarls the "
            f"levels touch {'least' if rank > len(jarls) / 2 else 'most'}, and its deep-run drop {scope}. The "
            "answer for the game is the all-Jarls one above; the deep run shows the mechanism (the discards "
            "bite only when a game reaches the end of the deck) at a precision the all-Jarls run cannot reach for "
            "the small steps.")
    section = (
        "## The levels over all Jarls\n\n"
        f"Policy `{policy}` ({role}: the top heuristic of the skill ladder"
        + ("" if role == STRONGEST else " among those that never solve a battle exactly") + "), every Jarl "
        f"({len(jarls)}), every monster and deck variant ({len(mvs)} set{'s' if len(mvs) != 1 else ''}) and every "
        f"level, {G:,} games (root seed "
        f"{man.get('root_seed')}): game g of block b is played by every Jarl in every set at every level on the "
        "same shuffle and dice, so a game is the unit of every interval and `n` counts games "
        f"({pooled['rows']:,} (game, Jarl, set) rows per level behind the pooled rates). P(win): Wilson on the "
        "effective number of rows (the game a cluster of its rows); differences: the normal interval of the "
        "per-game mean of won(lower) − won(higher) over its paired rows. Verdicts: Holm over the "
        f"{len(fam)} differences of this section (the pooled steps, {_lv(lo)} − {_lv(hi)} per set and per "
        "Jarl), family-wise 5%.\n\n"
        + (reconcile + "\n\n" if reconcile else "")
        + "### Pooled over Jarls and sets\n\n" + render(rows, "md") + "\n" + render(drows, "md") + "\n"
        "### Per monster and deck variant (all Jarls)\n\n" + render(srows, "md") + "\n"
        f"### Per Jarl (every set), by the drop from Level {_lv(lo)} to {_lv(hi)}\n\n" + render(jrows, "md") + "\n"
    )
    numbers = {"policy": policy, "levels": levels, "pooled": pooled, "sets": sets, "jarls": per_jarl,
               "games": G, "run": man,
               "lead": lead_sentence(pooled["rates"][lo], pooled["rates"][hi], d, verdict("all", (), (lo, hi)),
                                     (_lv(lo), _lv(hi)), len(jarls), policy, G)}
    return headline, section, numbers


def lead_sentence(low: Estimate, high: Estimate, drop, verdict: str, names: tuple[str, str], jarls: int,
                  policy: str, games: int) -> str:
    """The page's lead: the easiest level against the hardest over every Jarl (the pooled table's P(win) at each,
    and their paired drop, as a size when its interval is all on one side of 0), in the words of the section's Holm
    verdict on the drop (``_verdict``)."""
    a, b = names
    says = {"harder": f"Level {b} is harder than Level {a}",
            "no clear difference": f"Levels {a} and {b} are not told apart"}.get(verdict, f"Level {b} is easier than "
                                                                               f"Level {a}")
    if drop.low > 0:  # a drop beyond the noise, said as a size: "a drop of 0.020 [0.017, 0.023]"
        change = f"a drop of {interval(drop)}"
    elif drop.high < 0:
        change = f"a rise of {interval(Estimate(-drop.estimate, -drop.high, -drop.low, drop.n))}"
    else:
        change = f"a difference of {interval(drop, signed=True)}"
    return (f"{says}: over all {jarls} Jarls P(win) goes from {interval(low)} at Level {a} to {interval(high)} at "
            f"Level {b}, {change} (`{policy}` policy, {games:,} games, each played by every Jarl).")


def _e3(e: Estimate) -> tuple[float, float, float]:
    return e.estimate, e.low, e.high


def _sets_alongside(pick, diffs: dict) -> str:
    """The (monster, deck) sets the data cannot tell from ``pick`` (:func:`simkit.core.stats.overlapping`)."""
    near = overlapping(pick, diffs)
    return ("; intervals overlapping it: " + ", ".join(f"{m} / {v} {_siv(*_e3(diffs[(m, v)]))}" for m, v in near)
            if near else "")


def _jarl_alongside(pick: str, diffs: dict) -> str:
    """A Jarl row named as the least or most affected, with the rows the data cannot tell from it as a tie."""
    from simkit.core.report import names

    near = overlapping(pick, diffs)
    return pick + (f", tied with {names(near, 3)} (intervals overlap)" if near else "")


# ---------------------------------------------------------------- the report


def search_verdict(rungs) -> str:
    """What a ladder supports about its best policy: the top rung and the policies its selection-corrected
    verdict cannot tell apart from it (not 'below best', ``ladder.below_best_p``), or that every other is below."""
    top = rungs[0].policy
    tied = [r.policy for r in rungs[1:] if not r.below_best]
    below = [r.policy for r in rungs[1:] if r.below_best]
    names = lambda ps: ", ".join(f"`{p}`" for p in ps)  # noqa: E731
    if not tied:
        return (f"Strongest here: **`{top}`**, every other policy below it (the selection-corrected verdict, "
                f"family-wise 5%).")
    return (f"Best here, by the selection-corrected verdict (family-wise 5%): **{names([top] + tied)}**, not told "
            f"apart on these games (`{top}` ranks first by its rate alone)"
            + (f"; below them: {names(below)}." if below else "."))


def _ranks(row: dict[str, Estimate]) -> dict[str, int]:
    """Rank 1 = the highest estimate; ties share the better rank."""
    return {g: 1 + sum(o.estimate > e.estimate for o in row.values()) for g, e in row.items()}


def ranking_rows(table: dict[str, dict[str, Estimate]], reference: str, label: str,
                 games: dict[str, int]) -> list[dict]:
    """One row per group, in the reference policy's order: every policy's P(win) [95%] and its rank there."""
    ranks = {p: _ranks(row) for p, row in table.items()}
    order = sorted(table[reference], key=lambda g: (ranks[reference][g], list(table[reference]).index(g)))
    return [{label: g, **{p: f"{_iv(table[p][g])} ({ranks[p][g]})" for p in table if g in table[p]},
             "n (games)": games[g]} for g in order]


def policy_sensitivity(rankings: list[dict], reference: str, note: str = "") -> tuple[str, str]:
    """``(headline sentences, section)``: does a ranking change with the policy? ``rankings``: one dict per ranking
    with ``heading``, ``intro``, ``label`` (the group column), ``what`` / ``plural`` (the words for a group),
    ``table`` (``{policy: {group: Estimate}}``) and ``games`` (``{group: n games}``); rankings with fewer than two
    groups or one policy are left out; ``note`` ends the introduction. Each ranking is Holm-corrected over its
    pairs × policies at 5% / the number of rankings (Bonferroni over the rankings: family-wise 5% over the
    section)."""
    shown = [r for r in rankings if len(r["table"]) > 1 and len(r["table"][reference]) > 1]
    if not shown:
        return "", ""
    alpha = ALPHA / len(shown)
    sentences, parts = [], []
    for r in shown:
        comps = sensitivity(r["table"], reference, alpha)
        sentences.append(ranking_sentence(comps, r["table"], reference, r["what"], r["plural"], alpha))
        parts.append(f"### {r['heading']}\n\n{r['intro']}\n\n"
                     + render(ranking_rows(r["table"], reference, r["label"], r["games"]), "md") + "\n"
                     + sens_markdown(comps, reference, r["plural"], alpha) + "\n")
    others = [p for p in shown[0]["table"] if p != reference]
    level = (f"is below {alpha:g} (5% split over the {len(shown)} rankings, Bonferroni), so the chance of calling "
             "any flip where the orders truly agree is at most 5% over the whole section" if len(shown) > 1 else
             "is below 0.05, so the chance of calling any flip where the orders truly agree is at most 5%")
    section = (
        "## Does the ranking depend on the policy?\n\n"
        "A balance conclusion holds for a game *and* a way of playing it. Each practical policy's ranking "
        f"({', '.join(f'`{p}`' for p in others)}; the random baseline is left out) against the ranking under the "
        f"strongest practical policy, `{reference}` (the skill ladder's top practical policy), on the main run's "
        "games: Spearman's rank correlation and the pairs whose order flips (rank 1 is the highest P(win)). A flip is "
        "*resolved* when the games show both orders: the larger of the two policies' two-sided p-values for the "
        "pair's difference (normal, from the 95% intervals shown; unpaired, so conservative: the groups of a game "
        "share its shuffle and dice), **Holm-corrected over every pair of every policy compared** within a "
        f"ranking, {level}.{' ' + note if note else ''}\n\n" + "".join(parts))
    return " ".join(sentences), section


def yard_section(y) -> str:
    """The battle yardstick's section (``yardstick.section``)."""
    from simkit.games.valhalla.solo.yardstick import section

    return section(y)[1]


def solo_report(run_dir: str | Path, out_dir: str | Path, levels_run: str | Path | None = None,
                search_ladder: dict | None = None, jarls_run: str | Path | None = None,
                yardstick=None) -> list[Path]:
    """Write ``out_dir/report.md`` with ``win-by-level.png``, ``jarls.png`` and ``skill-ladder.png``; return the
    files.

    The report opens with the levels over all Jarls (``all_jarls_section``), under the strongest practical policy:
    from ``jarls_run`` (optional: a run of that policy with every Jarl, monster, deck and level on more games) or
    else from the main run's rows of that policy. ``levels_run`` (optional): a run of the strongest policy with
    one Jarl and many games (``levels_section``), a supporting section reconciled with the all-Jarls answer.
    ``search_ladder`` (optional): ``{"rungs", "games", "cells", "seed", "search", "where"}``, a ladder on fewer
    games that includes the slow `search` policy. ``yardstick`` (optional): a ``yardstick.Yardstick``, the
    policies' battle play against the exact optimum on battles of real games."""
    from simkit.core import ladder

    run_dir, out_dir = Path(run_dir), Path(out_dir)
    man = results.manifest(run_dir)
    frame = results.scan(run_dir)
    specs = man.get("policies") or {}  # each policy's table as the main run played it
    lkinds = {p: (v or {}).get("kind", "heuristic") for p, v in specs.items()}
    rungs = ladder.rungs_from_rows(frame, lkinds)

    won = pl.col("won")
    ends = {"won": won, **{c: (pl.col("cause") == c) for c in CAUSES}}
    cell_keys = ["monster", "variant", "level", "policy"]
    cells = _clustered(frame, cell_keys, ends)
    monsters = _order(man.get("monsters"), {k[0] for k in cells})
    variants = _order(man.get("variants"), {k[1] for k in cells})
    levels = sorted({int(k[2]) for k in cells})
    policies = _policy_order(man, {k[3] for k in cells})
    kinds = {p: (man.get("policies", {}).get(p) or {}).get("kind", "heuristic") for p in policies}
    heuristics = [p for p in policies if kinds[p] != "random"]
    first = heuristics[0] if heuristics else policies[0]
    mvs = [(m, v) for m in monsters for v in variants if any(k[:2] == (m, v) for k in cells)]
    win = {k: _rate(c, "won") for k, c in cells.items()}
    deffs = [_deff(c, "won") for c in cells.values() if c["pooled"]]

    # --- difficulty tables: monster × variant (rows) by level (columns), one per policy ---
    difficulty = ""
    for p in policies:
        rows = []
        for m, v in mvs:
            row = {"monster": m, "variant": v}
            for lv in levels:
                e = win.get((m, v, lv, p))
                row[_lv(lv)] = _iv(e) if e else "–"
            rows.append(row)
        difficulty += f"### `{p}` ({kinds[p]})\n\n" + render(rows, "md") + "\n"

    # --- paired differences between levels ---
    pairs = [(a, b) for a, b in ((1, 2), (2, 3), (1, 3)) if a in levels and b in levels]
    paired_text = ""
    paired_all = {}
    for a, b in pairs:
        paired_all[(a, b)] = _paired(frame, a, b)
    # Holm over every verdict of the three tables
    keys = [(ab, k) for ab, pr in paired_all.items() for k in pr]
    adjusted = dict(zip(keys, holm([paired_all[ab][k]["pd"].p_value for ab, k in keys])))
    n_tests = len(keys)
    for a, b in pairs:
        pr = paired_all[(a, b)]
        rows, ratios = [], []
        for p in policies:
            for m, v in mvs:
                r = pr.get((m, v, p))
                if r is None:
                    continue
                pd = r["pd"]
                if not math.isnan(r["ratio"]):
                    ratios.append(r["ratio"])
                ph = adjusted[((a, b), (m, v, p))]
                rows.append({
                    "monster": m, "variant": v, "policy": p,
                    f"win {_lv(a)}": f"{r['wa']:.3f}", f"win {_lv(b)}": f"{r['wb']:.3f}",
                    f"{_lv(a)} − {_lv(b)} [95%]": _siv(pd.estimate, pd.low, pd.high),
                    "p-value": _p(pd.p_value), "p (Holm)": _p(ph), "verdict": _verdict(pd, ph),
                    "paired / unpaired width": f"{r['ratio']:.2f}" if not math.isnan(r["ratio"]) else "–",
                    "n (games)": r["games"],
                })
        paired_text += f"### Level {_lv(a)} → {_lv(b)}\n\n" + render(rows, "md") + "\n"
        if ratios:
            med = statistics.median(ratios)
            paired_text += (
                f"Paired intervals here are {med:.2f} times as wide as unpaired ones would be (median over "
                f"{len(ratios)} rows, range {min(ratios):.2f}–{max(ratios):.2f}): pairing is worth about "
                f"{1 / med ** 2:.1f} times as many independent games.\n\n")

    # --- plot: win rate by level for the first heuristic policy ---
    png_levels = lines(
        out_dir / "win-by-level.png", levels,
        {f"{m} / {v}": [win[(m, v, lv, first)].estimate if (m, v, lv, first) in win else math.nan
                        for lv in levels] for m, v in sorted(mvs)},  # sorted: each set styled as in levels-all-jarls
        title=f"Valhalla Solo: P(win) by difficulty level, policy {first} (all Jarls, 95% bands)",
        xlabel="difficulty level (1 = I, 2 = II, 3 = III)", ylabel="P(win)",
        bands={f"{m} / {v}": ([win[(m, v, lv, first)].low if (m, v, lv, first) in win else math.nan
                               for lv in levels],
                              [win[(m, v, lv, first)].high if (m, v, lv, first) in win else math.nan
                               for lv in levels]) for m, v in mvs})

    # --- Jarls at the lowest level, first heuristic policy ---
    base_level = levels[0]
    sub = frame.filter((pl.col("level") == base_level) & (pl.col("policy") == first))
    jcells = _clustered(sub, ["jarl", "monster", "variant"], {"won": won})
    jpooled = _clustered(sub, ["jarl"], {"won": won})
    jwin = {k[0]: _rate(c, "won") for k, c in jpooled.items()}
    jarls = sorted(_order(man.get("jarls"), jwin), key=lambda j: -jwin[j].estimate)
    # Jarls whose every game went exactly the same way (stand-in abilities that never change a decision)
    same_as: dict[str, list[str]] = {}
    names = sub.collect_schema().names() if isinstance(sub, pl.LazyFrame) else sub.columns
    keys = [c for c in ("block", "game", "monster", "variant") if c in names]
    trace = [c for c in ("won", "turns", "cards_defeated", "glory") if c in names]
    jtrace = sub.select(["jarl", *keys, *trace])
    jtrace = jtrace.collect() if isinstance(jtrace, pl.LazyFrame) else jtrace
    signature = {}
    for jl in jarls:
        jf = jtrace.filter(pl.col("jarl") == jl).sort(keys).select(trace)
        signature.setdefault(hash(tuple(tuple(jf[c].to_list()) for c in trace)), []).append(jl)
    for group in signature.values():
        for jl in group:
            same_as[jl] = [o for o in group if o != jl]
    twins = [g for g in signature.values() if len(g) > 1]
    twins_text = ""
    if twins:
        twins_text = (
            "A row marked `≡` stands for Jarls that played every game identically ("
            + "; ".join(" ≡ ".join(g) for g in twins)
            + f": the same result, turns, cards defeated and Glory in each of the paired games): with the "
            "bundled stand-in `deck.toml` their abilities never change a decision or a battle at this level with "
            f"policy `{first}`. Entering the printed Jarl cards (or different stand-in abilities) separates them.\n\n")
    jrows, listed, shown = [], set(), []
    for jl in jarls:
        if jl in listed:
            continue  # a Jarl that played every game as an earlier one shares its row (listed once)
        listed.update([jl, *same_as.get(jl, [])])
        row = {"Jarl": jl + (f" ≡ {' ≡ '.join(same_as[jl])}" if same_as.get(jl) else "")}
        shown.append((row["Jarl"], jl))
        for m, v in mvs:
            c = jcells.get((jl, m, v))
            row[f"{m} / {v}"] = _iv(_rate(c, "won")) if c else "–"
        row["pooled"] = _iv(jwin[jl])
        jrows.append(row)
    png_jarls = bars(  # one bar per row of the Jarls table (Jarls that played alike share one)
        out_dir / "jarls.png", [name for name, _ in shown], [jwin[j].estimate for _, j in shown],
        title=f"P(win) per Jarl, level {_lv(base_level)}, {first} (95%)",
        ylabel="P(win)", low=[jwin[j].low for _, j in shown], high=[jwin[j].high for _, j in shown])

    # --- policy sensitivity: the difficulty curve and the Jarls under every practical policy against the strongest ---
    practical = [p for p in heuristics if kinds[p] != "search"]
    best = next((r.policy for r in rungs if r.policy in practical), practical[0] if practical else first)
    # the answer's policy: the level runs' (the strongest at heuristic speed when the ladder's top heuristic solves
    # battles exactly), or else the main run's top heuristic
    if jarls_run is not None:
        jman = results.manifest(jarls_run)
        jframe = results.scan(jarls_run)
        top = _policy_order(jman, list(jman.get("policies", {})))[0]
    else:
        jman, jframe = man, frame
        top = next((r.policy for r in rungs if lkinds.get(r.policy, "heuristic") == "heuristic"), first)
    role = STRONGEST if top == best or best not in practical else FASTEST_STRONG
    stronger = ""  # the stronger policy the answer's is not, said with its paired gap on the main run
    if role == FASTEST_STRONG:
        rt = next((r for r in rungs if r.policy == top), None)
        paired = rt is not None and rungs[0].policy == best  # the ladder's gaps are to its top
        beats = paired and rt.gap_high < 0
        gap = (f" by {_siv(-rt.gap, -rt.gap_high, -rt.gap_low)} in P(win) (paired, the skill ladder below)"
               if paired else "")
        what = exact_words(specs.get(best))
        # (a capital first: the details' first sentence, which names the answer's policy, ends before it)
        mine = rule_words(specs.get(top))
        stronger = ((f"That policy, `{top}`, {mine}. " if mine else "")
                    + f"The stronger `{best}`{f' (it {what})' if what else ''} "
                    + ("beats" if beats else "ranks above (not told apart from)" if paired else "ranks above")
                    + f" `{top}` over the main run's cells{gap}, but solving battles costs it many times `{top}`'s "
                    f"CPU a game, too much for the level runs' games: it leads the tables of the main run below "
                    f"({int(man.get('games', 0)):,} games per cell)" + _drop_words(frame, best, top, levels) + ".")
    sens_head, sens_text = "", ""
    if len(practical) > 1:
        cname = {(m, v, lv): f"{m} / {v} at Level {_lv(lv)}" for m, v in mvs for lv in levels
                 if (m, v, lv, best) in cells}
        ctable = {p: {name: win[(*k, p)] for k, name in cname.items() if (*k, p) in win} for p in practical}
        jsub = frame.filter((pl.col("level") == base_level) & pl.col("policy").is_in(practical))
        pj = _clustered(jsub, ["policy", "jarl"], {"won": won})
        jorder = _order(man.get("jarls"), {k[1] for k in pj if k[0] == best})
        # Jarls that played every game alike under every practical policy are one group, "hodr ≡ esbjorn"
        alike = {p: _twin_names(jsub.filter(pl.col("policy") == p), jorder) for p in practical}
        jgroups: dict[tuple, list[str]] = {}
        for j in jorder:
            jgroups.setdefault(tuple(alike[p][j] for p in practical), []).append(j)
        jname = {" ≡ ".join(g): g[0] for g in jgroups.values()}
        jtable = {p: {name: _rate(pj[(p, j)], "won") for name, j in jname.items() if (p, j) in pj}
                  for p in practical}
        sets_text = f"{len(mvs)} monster / deck set{'s' if len(mvs) != 1 else ''}"
        same_table = (f" (whose `pooled` column is the `{best}` column here)" if first == best else "")
        sens_head, sens_text = policy_sensitivity([
            {"heading": "The difficulty curve: every monster, deck and level",
             "intro": (
                 f"P(win) of each (monster / deck, level) cell, all {len(jorder)} Jarls pooled: the numbers of the "
                 "difficulty tables below (n counts games, each played by every Jarl). This is the difficulty curve "
                 "a designer reads off those tables, so it is the ranking compared here: its pairs are each set's "
                 "levels (is Level III below Level I against this monster and deck under every policy?) and the "
                 f"sets against each other. The {len(levels)} levels pooled over every set would be only "
                 f"{len(levels)} groups, too few for a rank correlation to say much, and each step from one level "
                 "to the next is tested under each policy on paired games in \"Paired differences between "
                 "levels\" below, far more tightly than this unpaired test can."),
             "label": "(monster / deck, level)", "what": "(monster / deck, level)", "plural": "cells",
             "table": ctable, "games": {name: cells[(*k, best)]["games"] for k, name in cname.items()}},
            {"heading": f"The Jarls (Level {_lv(base_level)}, every monster and deck pooled)",
             "intro": (
                 f"P(win) per Jarl at Level {_lv(base_level)}, pooled over the {sets_text} with the game as the "
                 f"unit, as in the Jarls table below{same_table}. Jarls that played every game identically under "
                 "every practical policy share a row (`≡`)."),
             "label": "Jarl", "what": "Jarl", "plural": "Jarls",
             "table": jtable, "games": {name: pj[(best, j)]["games"] for name, j in jname.items()}},
        ], best, (f"`search` plays {search_ladder['games']:,} games in only {search_ladder['cells']} cell"
                  f"{'s' if search_ladder['cells'] != 1 else ''}, too few cells for a ranking of its own (see the "
                  "ladder above)." if search_ladder else ""))

    # --- how far players get: monster cards defeated (first heuristic policy) ---
    sizes = _monster_sizes(man)
    dist = (frame.filter(pl.col("policy") == first)
            .group_by("monster", "variant", "level", "cards_defeated").agg(k=pl.len()).collect())
    counts: dict[tuple, dict[int, int]] = {}
    for m, v, lv, cd, k in dist.select("monster", "variant", "level", "cards_defeated", "k").iter_rows():
        counts.setdefault((m, v, int(lv)), {})[int(cd)] = int(k)
    for (m, v, _), cnt in counts.items():
        sizes[(m, v)] = max(sizes.get((m, v), 0), max(cnt))
    kmax = max((sizes.get(mv, 0) for mv in mvs), default=0)
    cd_cells = _clustered(frame.filter(pl.col("policy") == first), ["monster", "variant", "level"],
                          {"cd": pl.col("cards_defeated")})
    dist_rows = []
    for m, v in mvs:
        for lv in levels:
            cnt = counts.get((m, v, lv))
            if not cnt:
                continue
            n = sum(cnt.values())
            row = {"monster": m, "variant": v, "level": _lv(lv)}
            for c in range(kmax + 1):
                row[str(c)] = f"{cnt.get(c, 0) / n:.3f}" if c <= sizes.get((m, v), kmax) else "–"
            row["mean [95%]"] = _iv(_mean(cd_cells[(m, v, lv)], "cd"), 2)
            row["n (games)"] = cd_cells[(m, v, lv)]["games"]
            dist_rows.append(row)

    # --- means per policy ---
    mcells = _clustered(frame, ["policy"], {col: pl.col(col) for col, _ in MEANS})
    mean_rows = []
    for p in policies:
        c = mcells[(p,)]
        mean_rows.append({"policy": p, **{label: _iv(_mean(c, col), 2) for col, label in MEANS},
                          "n (games)": c["games"]})

    # --- how games end ---
    ends_p = _clustered(frame, ["policy"], ends)
    ends_pl = _clustered(frame, ["policy", "level"], ends)
    end_rows, end_rows_lv = [], []
    for p in policies:
        c = ends_p[(p,)]
        end_rows.append({"policy": p, **{k: _iv(_rate(c, k)) for k in ends}, "n (games)": c["games"]})
        for lv in levels:
            c = ends_pl.get((p, lv))
            if c:
                end_rows_lv.append({"policy": p, "level": _lv(lv), **{k: _iv(_rate(c, k)) for k in ends},
                                    "n (games)": c["games"]})
    other_ends = sum(c["n"] - round(sum(c[k][2] for k in ends)) for c in cells.values())

    # --- the skill ladder: every policy on the same games, all cells pooled (the game as the unit) ---
    png_ladder = ladder.plot(out_dir / "skill-ladder.png", rungs,
                             title="Valhalla Solo skill ladder: P(win), all cells pooled", label="P(win)")
    n_cells_p = len(cells) // max(1, len(policies)) * max(1, len(man.get("jarls") or [1]))
    ladder_text = (
        "## Skill ladder\n\n"
        f"![Skill ladder]({png_ladder.name})\n\n"
        "How much does skill matter? Every policy on the same games of the main run, every monster, deck, level "
        "and Jarl pooled (a game's value is its mean over the cells, which replay its shuffle and dice); the tuned "
        "heuristic comes from `simkit tune` (its parameters are in the scenario file).\n\n"
        + ladder.markdown(rungs, games=int(man.get("games", 0)), cells=n_cells_p, label="P(win)") + "\n")
    if search_ladder:
        sr = search_ladder["rungs"]
        ladder_text += (
            "### With `search` (a smaller sample)\n\n"
            f"`search` ({search_ladder.get('search', 'determinized rollouts of a heuristic')}) costs seconds a "
            f"game, so it plays a smaller sample: every policy again on the same {search_ladder['games']:,} games "
            f"in {search_ladder['cells']} cell{'s' if search_ladder['cells'] != 1 else ''} "
            f"({search_ladder.get('where', '')}; root seed {search_ladder.get('seed', '?')}). "
            + (f"`vsearch` is the value-guided search ({search_ladder['vsearch']}; docs/strategy.md), at about a "
               "tenth of `search`'s cost. " if search_ladder.get("vsearch") else "")
            + (f"`learned_search` is the learned policy searching a battle's rolls ({search_ladder['learned_search']}"
               "; over all the cells it beats the tuned heuristic: docs/strategy.md), at about `search`'s cost. "
               if search_ladder.get("learned_search") else "")
            + (f"`{search_ladder['exact']}` is `builder_tuned` playing every roll exactly (`exact_rolls`: the "
               "stop, Weapon Delivery or reroll that wins the battle most often, solved exactly; no search), at "
               "about a quarter of a CPU-second a game. " if search_ladder.get("exact") else "")
            + f"{search_verdict(sr)} `search` is too slow for the level comparison's hundreds of thousands of "
            + ("games" if role == STRONGEST else "games, and so are the heuristics that solve battles exactly")
            + f", so the level question is answered under {role}, `{top}`.\n\n"
            + ladder.markdown(sr, games=search_ladder["games"], cells=search_ladder["cells"], label="P(win)",
                              **{k: search_ladder[k] for k in ("precision", "cap", "block") if k in search_ladder})
            + "\n")
    deep = None
    level_text, level_files = "", []
    if levels_run is not None:
        _, level_text, level_files, deep = levels_section(levels_run, out_dir, role)
    # the answer: the levels over all Jarls, under the strongest practical policy (the ladder's top heuristic), or
    # the strongest at heuristic speed with the stronger one named
    headline, jarls_text, jnum = all_jarls_section(jframe, top, jman, deep, role, stronger)
    if sens_head:  # the answer says up front whether the rankings change with the policy
        headline += (f" Ranked under every practical policy on the main run ({int(man.get('games', 0)):,} games per "
                     f"cell): {sens_head}")
    elif len(practical) == 1:
        headline += " " + ranking_sentence([], {}, best, "(monster / deck, level) and Jarl")
    png_all = None
    if jnum.get("sets") and len(jnum["levels"]) > 1:  # the answer's plot first: the page's (and card's) first plot
        lvs, sets = jnum["levels"], jnum["sets"]
        png_all = lines(
            out_dir / "levels-all-jarls.png", lvs,
            {f"{m} / {v}": [sets[(m, v)]["rates"][L_].estimate for L_ in lvs] for m, v in sorted(sets)},
            title=f"P(win) by level, {top}, all {len(jnum['jarls'])} Jarls pooled (95% bands, the game the unit)",
            xlabel="difficulty level (1 = I, 2 = II, 3 = III)", ylabel="P(win)",
            bands={f"{m} / {v}": ([sets[(m, v)]["rates"][L_].low for L_ in lvs],
                                  [sets[(m, v)]["rates"][L_].high for L_ in lvs]) for m, v in sets})
        jarls_text = jarls_text.replace("## The levels over all Jarls\n\n", "## The levels over all Jarls\n\n"
                                        f"![P(win) by level, all Jarls]({png_all.name})\n\n", 1)
    if jarls_run is not None and jarls_text:  # the answer's own run: what was played, where its rows are
        jarls_text += "### The all-Jarls run\n\n" + manifest_section(jman).replace("## Run\n\n", "") + "\n"
    main_note = ""
    if jarls_run is not None:
        main_note = (f" These tables come from the main run ({int(man.get('games', 0)):,} games, every policy); the "
                     f"all-Jarls level run above measures `{top}` on {jnum['games']:,} other games (root seed "
                     f"{jman.get('root_seed')}): read `{top}`'s levels there.")

    # --- text ---
    opts = man.get("rule_options", {})
    opt_text = ", ".join(f"`{k} = {toml_value(v)}`" for k, v in opts.items()) or "defaults"
    pol_text = ", ".join(f"`{p}` ({kinds[p]})" for p in policies)
    jarl_list = _order(man.get("jarls"), jwin) or jarls
    n_cells = man.get("cells") or len(cells) * max(1, len(jarl_list))
    games = int(man.get("games", 0))
    notice = man.get("cards_notice", "")
    deff_text = (f" Pooled over Jarls the games are not independent (the Jarls of one game share its shuffle), "
                 f"so those intervals use the effective number of games (design effect {min(deffs):.2f}–"
                 f"{max(deffs):.2f} over the cells)." if deffs else "")
    text = (
        "# Valhalla Solo: how hard are the difficulty levels?\n\n"
        f"{STAND_IN_NOTICE}\n\n"
        # the stand-in notice once: the card files' own notice only when it says something else
        + f"{lead_paragraph(jnum['lead'])}\n\n"
        + (f"Card data notice: {notice}\n\n" if notice and "stand-in" not in notice.lower() else "")
        + f"{DETAILS_MARKER} {headline}\n\n"
        + jarls_text
        + level_text
        + ladder_text
        + sens_text
        + (yard_section(yardstick) if yardstick is not None else "")
        + "## What was simulated\n\n"
        f"{len(monsters)} monsters ({', '.join(monsters)}) × {len(variants)} deck variants ({', '.join(variants)}) "
        f"× {len(levels)} levels ({', '.join(_lv(lv) for lv in levels)}) × {len(jarl_list)} Jarls × "
        f"{len(policies)} policies = {n_cells:,} cells, {games:,} solo games per cell "
        f"(root seed {man.get('root_seed')}). Policies: {pol_text}; `random` picks uniformly among the legal "
        "options and is the baseline. "
        f"Rule options: {opt_text} (see docs/rules.md). Card data: "
        f"`{shown_path((man.get('files') or {}).get('cards', '?'))}`, "
        f"`{shown_path((man.get('files') or {}).get('deck', '?'))}`.\n\n"
        "Common random numbers: game g of block b is played on the same deck shuffle and the same dice streams "
        "in every cell, so the rows with the same (block, game, monster, variant, Jarl, policy) and a different "
        "level are the same game played at another level. Level differences are therefore measured on paired "
        "games, which removes most of the luck from them.\n\n"
        "All intervals are 95%: Wilson intervals for shares, normal intervals for means and paired differences."
        f"{deff_text} Every `n` counts games: game g of block b is one game however many cells replay it.\n\n"
        "## Difficulty: P(win) by monster, deck variant and level\n\n"
        f"![P(win) by level]({png_levels.name})\n\n"
        f"P(win) (every monster card defeated) with its 95% interval, all {len(jarl_list)} Jarls pooled; "
        f"n = {cells[next(iter(cells))]['games']:,} games per entry, each played by every Jarl "
        f"({cells[next(iter(cells))]['n']:,} rows). The plot shows policy `{first}`.{main_note}\n\n"
        + difficulty
        + "## Paired differences between levels\n\n"
        "For each monster, variant and policy: the mean over paired games of won(lower level) − won(higher "
        "level), i.e. how much the win rate drops from one level to the next, with its 95% interval (Newcombe's "
        "hybrid score interval for paired proportions, on the effective number of pairs: the Jarls of one game "
        "share its shuffle, so the counts are divided by the game's design effect) and the two-sided exact "
        "McNemar p-value on the same effective counts. Verdicts are corrected for multiplicity with Holm's "
        f"method over all {n_tests} rows of the three tables (family-wise error rate 5%): `harder` when the "
        "Holm-adjusted p (`p (Holm)`) is below 0.05 and won(lower) − won(higher) is positive, `easier?!` when "
        "it is below 0.05 and the difference negative, otherwise `no clear difference`; `p-value` is the raw "
        "one. "
        "`paired / unpaired width` is the paired interval's half-width over the half-width two independent "
        "runs of the same size would give (from each level's own per-game variance)."
        + (f" With {games:,} games a cell these rows resolve only the largest steps; the level runs above answer "
           "the level question on many more games." if jarls_run is not None else "") + "\n\n"
        + paired_text
        + f"## Jarls (level {_lv(base_level)}, policy `{first}`)\n\n"
        f"![P(win) per Jarl]({png_jarls.name})\n\n"
        f"P(win) per Jarl at level {_lv(base_level)} with policy `{first}`, per monster and variant and pooled "
        "over them (last column, the plot), sorted by the pooled rate. The Jarls play the same shuffles, so "
        "their differences are paired too.\n\n"
        + render(jrows, "md") + "\n"
        + twins_text
        + "## How far players get\n\n"
        f"Share of games ending with 0–{kmax} monster cards defeated (policy `{first}`, Jarls pooled; `–` "
        "where the monster has fewer cards); the mean has its 95% interval. A game with every card defeated "
        "is a won game.\n\n"
        + render(dist_rows, "md") + "\n"
        "### Means per game\n\n"
        "Per policy, every monster, variant, level and Jarl pooled, with 95% intervals (the game as the "
        "unit).\n\n"
        + render(mean_rows, "md") + "\n"
        + "## How games end\n\n"
        + "; ".join(f"`{k}`: {t}" for k, t in END_TEXT.items()) + ". Shares with 95% intervals."
        + (f" {other_ends:,} games end some other way (not counted above)." if other_ends else "") + "\n\n"
        "### Per policy\n\n"
        + render(end_rows, "md") + "\n"
        "### Per policy and level\n\n"
        + render(end_rows_lv, "md") + "\n"
        + manifest_section(man)
    )
    return [write_markdown(out_dir / "report.md", text), *level_files, png_ladder, png_levels, png_jarls,
            *([png_all] if png_all else [])]


LEVEL_JARL = "sigurd"  # the level run's Jarl: one representative Jarl, the games spent on the level question
# games per level (and monster / deck set) of the level run: 30,000 left Level I − II and II − III unresolved
# under `builder_tuned` (paired differences about +0.0015, 95% half-width 0.0016); 80,000 (seed 2027) resolves
# both with their lower bounds near +0.0005 (about 3 standard errors), at 1,440,000 games (about 170 CPU-seconds)
LEVEL_GAMES = 80_000
# games per cell of the all-Jarls level run (the strongest heuristic, every Jarl, monster, deck and level: 306
# cells, seed 2029), which answers the level question for the game as shipped: 200 games gave the pooled steps
# a 95% half-width of about 0.0095 (I − II +0.017, II − III +0.005), 2,500 about 0.0027, at 765,000 games (about
# 1.1 times a one-Jarl game's cost: some 100 CPU-seconds against the one-Jarl run's 170)
JARLS_GAMES = 2_500
# the ladder with `search` (seconds a game): one cell, the one the README measures search on
SEARCH_CELL = {"monsters": ["dragon"], "variants": ["base"], "levels": [1], "jarls": [LEVEL_JARL]}
# its sample: blocks of SEARCH_BLOCK games until every rung's 95% interval is within ±SEARCH_PRECISION, at most
# SEARCH_CAP games (the blocks are a setting, never derived from the workers: the same games on any machine). The
# widest rung is `aggressive` (about 0.25 here: some 300 games); ±0.05 tells `search` (about 0.98 in this cell) from
# `builder_tuned` (about 0.91), which 30 games (±0.17, before 2026-12-07) could not
SEARCH_PRECISION = 0.05
SEARCH_BLOCK = 25
SEARCH_CAP = 400
EXACT = "builder_exact"  # the scenario's `builder_tuned` with exact rolls: a rung of the search ladder when defined
# the scenario's `builder_tuned` making its last stands exactly: played first in the main run when defined (the
# strongest policy that fills its tables; too slow for the level runs and for the scenario's own `play`)
LEAD = "builder_stand"
# the scenario's policies that reroll their last stands (heuristic speed): played after its own `play` in the main run
# when defined, so that the ladder ranks them and the level runs take the strongest of them
REROLL = ("builder_reroll", "learned_reroll")


def bundled_solo(out_dir: str | Path, quick: bool = False, jobs=None) -> list[Path]:
    """Run the bundled Solo scenario (seed 2026; ``LEAD`` first when the scenario defines it) into
    ``out_dir/valhalla/run``, the all-Jarls level run (the strongest heuristic at heuristic speed, every Jarl, seed
    2029) into ``out_dir/valhalla/jarls-run``, the one-Jarl level run (seed 2027) into ``out_dir/valhalla/levels-run``
    and a small ladder with `search` in one cell (seed 2028), and write the report."""
    import json
    import os

    from simkit.core import loader, registry
    from simkit.core.ladder import ladder, rungs_from_rows
    from simkit.core.scenario import read_toml

    base = Path(out_dir) / "valhalla"
    path = registry.scenarios_dir() / "valhalla" / "solo.toml"
    data = read_toml(path)[0]
    defined, own = data.get("policies") or {}, data.get("play", [])
    main_play = ([LEAD] if LEAD in defined and LEAD not in own else []) + own \
        + [p for p in REROLL if p in defined and p not in own]
    lead = [f"play={json.dumps(main_play)}"] if main_play != own else []
    run = run_bundled("valhalla/solo.toml", base / "run", 60 if quick else 300, seed=2026, jobs=jobs, overrides=lead)
    man = results.manifest(run)
    kinds = {p: (v or {}).get("kind", "heuristic") for p, v in (man.get("policies") or {}).items()}
    rungs = rungs_from_rows(results.scan(run), kinds)
    # the level runs' policy: the ladder's top heuristic that never solves a battle exactly (one that does costs
    # some 20 times as much a game: too slow for their 2,205,000 games)
    fast = next(r.policy for r in rungs if r.kind == "heuristic" and not exact_words(man["policies"][r.policy]))
    jarls_run = run_bundled("valhalla/solo.toml", base / "jarls-run", 100 if quick else JARLS_GAMES, seed=2029,
                            jobs=jobs, overrides=[f'play=["{fast}"]'])
    levels = run_bundled("valhalla/solo.toml", base / "levels-run", 1_000 if quick else LEVEL_GAMES, seed=2027,
                         jobs=jobs, overrides=[f'jarls=["{LEVEL_JARL}"]', f'play=["{fast}"]'])
    cap, block = (2, 2) if quick else (SEARCH_CAP, SEARCH_BLOCK)
    cores = jobs or os.cpu_count() or 1
    where = [f"{k}={json.dumps(v)}" for k, v in SEARCH_CELL.items()]
    play = list(man.get("policies", {}))
    # with the value-guided search of that cell (`vsearch`, issue 41), the learned policy searching a battle's
    # rolls (`learned_search`) and the tuned heuristic rolling exactly (`builder_exact`) when the scenario defines
    # them
    searches = ["search", *(p for p in ("vsearch", "learned_search", EXACT) if p in (data.get("policies") or {}))]
    srungs = ladder(path, [*play, *searches], games=cap, seed=2028, jobs=cores, overrides=where, block_size=block,
                    **({} if quick else {"precision": SEARCH_PRECISION}))
    n = srungs[0].games
    spec = lambda name: loader.build(path, {**data, "play": [name]}).policy_specs[0][2]  # noqa: E731
    what = search_words(spec("search"))
    vwhat = {"vsearch": search_words(spec("vsearch"), "this cell's positions")} if "vsearch" in searches else {}
    if "learned_search" in searches:
        vwhat["learned_search"] = search_words(spec("learned_search"))
    if EXACT in searches:
        vwhat["exact"] = EXACT
    cell = ", ".join(f"{k[:-1] if k.endswith('s') else k} {', '.join(map(str, v))}" for k, v in SEARCH_CELL.items())
    from simkit.games.valhalla.solo import yardstick

    yard = yardstick.bundled(n=5 if quick else yardstick.BATTLES, overrides=lead)
    return solo_report(run, base, levels, {"rungs": srungs, "games": n, "cells": 1, "seed": 2028, "search": what,
                                            "where": cell, **vwhat,
                                            **({} if quick else {"precision": SEARCH_PRECISION, "cap": cap,
                                                                 "block": block})},
                       jarls_run=jarls_run, yardstick=yard)


# ---------------------------------------------------------------- why levels barely matter (the level run)

ENDINGS = (
    ("won", "won (attacking)", (pl.col("won")) & (pl.col("final_attack") == 0)),
    ("won_final", "won by the final attack", (pl.col("won")) & (pl.col("final_attack") == 1)),
    ("shields", "lost: fourth shield", pl.col("cause") == "shields"),
    ("deck_early", "lost: deck ran out, monster cards left", (pl.col("cause") == "deck") & (pl.col("final_attack") == 0)),
    ("final_lost", "lost the final attack", (pl.col("cause") == "deck") & (pl.col("final_attack") == 2)),
    ("cap", "turn cap", pl.col("cause") == "cap"),
)


def _game_drops(frame: pl.LazyFrame, a: int, b: int, name: str = "d") -> pl.LazyFrame:
    """Per game (block, game): the mean of won(level a) − won(level b) over its rows paired on ``PAIR_KEYS``
    (the same monster, variant, Jarl and policy), as column ``name``."""
    wa = frame.filter(pl.col("level") == a).select(*PAIR_KEYS, pl.col("won").cast(pl.Int64).alias("wa"))
    wb = frame.filter(pl.col("level") == b).select(*PAIR_KEYS, pl.col("won").cast(pl.Int64).alias("wb"))
    return (wa.join(wb, on=PAIR_KEYS, how="inner").group_by("block", "game")
            .agg(((pl.col("wa") - pl.col("wb")).sum() / pl.len()).alias(name)))


def _mean_estimate(d) -> Estimate:
    """The normal interval of the mean of the per-game values ``d``."""
    from simkit.core.stats import mean_interval

    return mean_interval(len(d), float(d.sum()), float((d * d).sum()))


def _paired_levels(frame: pl.LazyFrame, a: int, b: int) -> Estimate:
    """won(level a) − won(level b), paired on (block, game, monster, variant, jarl, policy); each game's mean over
    its paired rows is one observation (normal interval)."""
    return _mean_estimate(_game_drops(frame, a, b).collect()["d"].to_numpy())


def policy_drops(frame: pl.LazyFrame, a: str, b: str, lo: int, hi: int) -> tuple[Estimate, Estimate, Estimate]:
    """Level ``lo`` − ``hi`` in P(win) under policy ``a``, under ``b``, and ``a``'s minus ``b``'s, each paired on
    the same games: a game's value is its mean over its (monster, variant, Jarl) cells (normal intervals)."""
    da, db = (_game_drops(frame.filter(pl.col("policy") == p), lo, hi, p) for p in (a, b))
    both = da.join(db, on=["block", "game"]).collect()
    x, y = both[a].to_numpy(), both[b].to_numpy()
    return _mean_estimate(x), _mean_estimate(y), _mean_estimate(x - y)


def _drop_words(frame: pl.LazyFrame, a: str, b: str, levels: list[int]) -> str:
    """The words on ``a``'s Level I − III drop against ``b``'s on the main run: ", where its … drop, …, is `b`'s
    … within the noise (paired difference …)"."""
    if len(levels) < 2:
        return ""
    lo, hi = levels[0], levels[-1]
    da, db, dd = policy_drops(frame, a, b, lo, hi)
    same = dd.low <= 0 <= dd.high
    return (f", where its Level {_lv(lo)} − {_lv(hi)} drop, {_siv(*_e3(da))}, is `{b}`'s {_siv(*_e3(db))} "
            + ("within the noise" if same else "beyond the noise") + f" (paired difference {_siv(*_e3(dd))}, "
            f"n = {dd.n:,} games)")


def more_games_note(more: float) -> str:
    """The parenthesis after an unresolved level difference: ``more`` = (half-width / |estimate|)², how many
    times as many games would shrink the interval to the estimate. Empty when it is not finite or ≤ 1."""
    if not math.isfinite(more) or more <= 1:
        return ""
    if more < 1.5:
        return " (a somewhat larger run would resolve a difference this small)"
    size = "twice" if more < 2.5 else f"{more:.0f} times"
    return f" (resolving a difference this small would take about {size} as many games)"


def levels_section(run_dir: str | Path, out_dir: str | Path,
                   role: str = STRONGEST) -> tuple[str, str, list[Path], dict]:
    """``(headline, section, files, deep)`` of the level run: one policy (``role``: the strongest practical one, or
    the strongest at heuristic speed), one Jarl,
    every monster, deck variant and level on the same games. Per level: P(win), paired differences, how games
    end, cards left in the deck and lost battles, and the words that explain them. ``deep``: ``{"jarl", "games",
    "diff"}`` (its lowest − highest level difference), for the report to reconcile with the all-Jarls answer."""
    run_dir, out_dir = Path(run_dir), Path(out_dir)
    man = results.manifest(run_dir)
    frame = results.scan(run_dir)
    policies = list(man.get("policies", {}))
    policy = policies[0] if policies else "?"
    jarls = man.get("jarls") or []
    ends = {k: e for k, _, e in ENDINGS}
    values = {"won_all": pl.col("won"), **ends, "cards_left": pl.col("cards_left"),
              "lost_battles": pl.col("attacks_lost") + pl.col("defences_lost"),
              "deck_out": pl.col("cards_left") == 0, "deck_lost": ends["deck_early"] | ends["final_lost"]}
    lv = _clustered(frame, ["level"], values)
    levels = sorted(int(k[0]) for k in lv)
    cell = {L_: lv[(L_,)] for L_ in levels}
    n_games = cell[levels[0]]["games"]
    mvs = len(man.get("monsters") or []) * len(man.get("variants") or [])

    rows = []
    for L_ in levels:
        c = cell[L_]
        row = {"level": _lv(L_), "discards after a lost battle": DISCARDS.get(L_, "?"),
               "P(win)": _iv(_rate(c, "won_all"))}
        for k, label, _ in ENDINGS:
            if k == "cap" and not any(cell[x]["cap"][2] for x in levels):
                continue
            row[label] = _iv(_rate(c, k))
        row["deck empty at the end"] = _iv(_rate(c, "deck_out"))
        row["cards left (mean)"] = _iv(_mean(c, "cards_left"), 1)
        row["lost battles (mean)"] = _iv(_mean(c, "lost_battles"), 2)
        row["n (games)"] = c["games"]
        rows.append(row)

    # paired differences between levels, pooled over the monster / deck sets (the game is the unit), Holm
    pairs = [(a, b) for a, b in ((1, 2), (2, 3), (1, 3)) if a in levels and b in levels]
    diffs = {ab: _paired_levels(frame, *ab) for ab in pairs}
    z = z_value()
    from scipy.stats import norm

    pvals = []
    for ab in pairs:
        e = diffs[ab]
        se = (e.high - e.estimate) / z if e.high > e.estimate else 0.0
        pvals.append(float(2 * norm.sf(abs(e.estimate) / se)) if se > 0 else (0.0 if e.estimate else 1.0))
    padj = holm(pvals)
    drows = []
    for ab, p, ph in zip(pairs, pvals, padj):
        e = diffs[ab]
        drows.append({"levels": f"{_lv(ab[0])} − {_lv(ab[1])}", "P(win) difference [95%]": _siv(e.estimate, e.low, e.high),
                      "p-value": _p(p), "p (Holm)": _p(ph), "verdict": _verdict(e, ph)})
    resolved = all(diffs[ab].low > 0 for ab in pairs if ab[1] == ab[0] + 1) and len(pairs) >= 2

    # per monster and deck variant
    mv = _clustered(frame, ["monster", "variant", "level"], values)
    mvrows = []
    for m in _order(man.get("monsters"), {k[0] for k in mv}):
        for v in _order(man.get("variants"), {k[1] for k in mv}):
            if (m, v, levels[0]) not in mv:
                continue
            row = {"monster": m, "variant": v}
            for L_ in levels:
                c = mv[(m, v, L_)]
                row[f"P(win) {_lv(L_)}"] = _iv(_rate(c, "won_all"))
            for L_ in levels:
                c = mv[(m, v, L_)]
                row[f"deck losses {_lv(L_)}"] = _iv(_rate(c, "deck_lost"))
            row["n (games)"] = mv[(m, v, levels[0])]["games"]
            mvrows.append(row)

    shown = {label: [_rate(cell[L_], k).estimate for L_ in levels] for k, label, _ in ENDINGS
             if any(cell[L_][k][2] for L_ in levels)}
    top = max((max(v) for v in shown.values()), default=0.0)
    rare = [max(v) for v in shown.values() if 0 < max(v) < top / 20]  # endings too rare to see on a linear axis
    png = lines(
        out_dir / "endings-by-level.png", levels, shown,
        title=f"How games end by level ({policy}, {', '.join(jarls) or 'all Jarls'})",
        xlabel="difficulty level", ylabel="share of games", xticklabels=[_lv(L_) for L_ in levels],
        bands={label: ([_rate(cell[L_], k).low for L_ in levels], [_rate(cell[L_], k).high for L_ in levels])
               for k, label, _ in ENDINGS if any(cell[L_][k][2] for L_ in levels)},
        small=10.0 ** math.floor(math.log10(min(rare))) if rare else None)

    # the words: what drives the difference
    lo, hi = levels[0], levels[-1]
    c_lo, c_hi = cell[lo], cell[hi]
    deck = {L_: cell[L_]["deck_early"][0] + cell[L_]["final_lost"][0] for L_ in levels}
    shields = {L_: cell[L_]["shields"][0] for L_ in levels}
    w = {L_: cell[L_]["won_all"][0] for L_ in levels}
    lost_b = c_lo["lost_battles"][0]
    trend = " → ".join(f"{w[L_]:.3f}" for L_ in levels)
    steps = []  # one verdict per step up in level, from its paired interval
    for a, b in ((x, y) for x, y in pairs if y == x + 1):
        e = diffs[(a, b)]
        if e.low > 0:
            steps.append(f"Level {_lv(b)} is harder than Level {_lv(a)} ({_siv(e.estimate, e.low, e.high)})")
        elif e.high < 0:
            steps.append(f"Level {_lv(b)} is *easier* than Level {_lv(a)} ({_siv(e.estimate, e.low, e.high)})")
        else:
            half = (e.high - e.low) / 2
            more = (half / abs(e.estimate)) ** 2 if e.estimate else math.inf
            steps.append(f"Levels {_lv(a)} and {_lv(b)} cannot be told apart: their paired difference is "
                         f"{_siv(e.estimate, e.low, e.high)}, so any true difference is below "
                         f"{max(abs(e.low), abs(e.high)):.4f}" + more_games_note(more))
    order_text = (("The ordering is resolved: " if resolved else "") + "; ".join(steps) + ".") if steps else ""
    words = (
        f"Levels change one thing only: how many cards a lost battle discards from the deck (2, 4 or 6). Under "
        f"`{policy}` a game loses {lost_b:.2f} battles on average at Level {_lv(lo)}, so Level {_lv(hi)} burns "
        f"about {(DISCARDS.get(hi, 0) - DISCARDS.get(lo, 0)) * lost_b:.0f} more cards a game: the mean number of "
        f"cards left at the end falls from {c_lo['cards_left'][0]:.1f} to {c_hi['cards_left'][0]:.1f}. That costs "
        f"games only when they reach the end of the deck: losses to the deck (ran out, or lost the final attack) "
        f"rise from {deck[lo]:.3f} to {deck[hi]:.3f}, while losses on shields "
        f"{'fall' if shields[hi] < shields[lo] else 'rise'} from {shields[lo]:.3f} to {shields[hi]:.3f} (some games "
        f"that would have lost their fourth shield now end by the deck first). Most games are decided by battles "
        f"long before the deck runs out, so P(win) moves only {trend} from Level {_lv(lo)} to {_lv(hi)}. {order_text}")
    headline = (
        f"Under {role}, **`{policy}`**, P(win) is "
        + ", ".join(f"**{w[L_]:.3f}** at Level {_lv(L_)}" for L_ in levels)
        + f" (Jarl {', '.join(jarls) or 'all'}, {mvs} monster / deck sets pooled, {n_games:,} paired games per "
        f"level); Level {_lv(lo)} − {_lv(hi)} = {_siv(diffs[(lo, hi)].estimate, diffs[(lo, hi)].low, diffs[(lo, hi)].high)}"
        f" (95%). {steps[0] if steps else ''}{'; ' + steps[1] if len(steps) > 1 else ''}. Levels only change the "
        f"discards after a lost battle, so they bite when a game reaches the end of the deck: deck losses "
        f"{deck[lo]:.3f} → {deck[hi]:.3f}." if (lo, hi) in diffs else "")
    jarl_name = ", ".join(jarls) or "all Jarls"
    section = (
        f"## One Jarl in depth: why the levels barely matter for {jarl_name}\n\n"
        f"![How games end by level]({png.name})\n\n"
        f"The level comparison is made under {role}, `{policy}` (the top of the skill ladder below without the "
        + ("slow `search`" if role == STRONGEST else "slow `search` and the heuristics that solve battles exactly")
        + f"), with one Jarl ({', '.join(jarls) or 'all'}) and every monster and deck "
        f"variant: {n_games:,} games per level, each played at every level in every monster / deck set on the same "
        f"shuffle and dice (root seed {man.get('root_seed')}). Rows pool the {mvs} monster / deck sets, with the "
        "game as the unit of every interval: `n` counts games.\n\n"
        + words + "\n\n"
        "### How games end, per level\n\n"
        "`won (attacking)`: the last monster card fell to an ordinary attack; `won by the final attack`: to the "
        "attack the rules allow when the last card leaves the deck; `lost: deck ran out, monster cards left`: the "
        "deck ran out while more than one monster card was left (an immediate loss); `lost the final attack`. "
        "`cards left` is the deck at the end of the game; `lost battles` counts lost attacks and defences.\n\n"
        + render(rows, "md") + "\n"
        "### Paired differences between levels\n\n"
        "P(win at the lower level) − P(win at the higher level) over the same games (normal interval of the "
        "per-game differences), Holm-corrected over the three rows.\n\n"
        + render(drows, "md") + "\n"
        "### Per monster and deck variant\n\n"
        "P(win) per level, and the share of games lost to the deck (ran out or lost the final attack).\n\n"
        + render(mvrows, "md") + "\n"
        "### The level run\n\n" + manifest_section(man).replace("## Run\n\n", "") + "\n"
    )
    deep = {"jarl": jarls[0] if len(jarls) == 1 else None, "games": n_games,
            "diff": diffs[(lo, hi)] if (lo, hi) in diffs else None}
    return headline, section, [png], deep
