"""Valhalla multiplayer report (issue 23): seat advantage at 2–6 players, Jarl balance, base deck against the
Valkyries deck, the blessings, Missions and Tactics against their holders' win share (an association) with the
Glory split by source, and the skill ladder.

Inputs: a run of the bundled scenario (``scenarios/valhalla/multi.toml``: every seat of a table plays the cell's
policy, one row per game per cell) and the rows of ``lineups.play_heroes`` (one hero policy against a field,
rotated through the seats). Every cell replays game ``(block, game)`` on the same streams, so rows of one
``(block, game)`` are not independent: every pooled number takes that *deal* as the unit (cluster-robust
intervals, ``stats.clustered_rate`` / ``clustered_mean``). A seat's *win share* is its reward: 1 for a sole win,
1/k for each of k seats sharing the most Glory, 0 otherwise, so the seats of a game sum to exactly 1 and the fair
share of a seat at n players is 1/n.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import polars as pl
from scipy import stats as st

from simkit.core import results
from simkit.core.ladder import games_for_precision
from simkit.core.report import names as word_list
from simkit.core.report import (
    DETAILS_MARKER, STAND_IN_NOTICE, TABLE_KINDS, extreme, interval, lead_paragraph, manifest_section, search_words,
    shown_path, tie_words, toml_value, write_markdown,
)
from simkit.core.stats import (Estimate, clustered_difference, clustered_difference_p, clustered_mean,
                               clustered_rate, holm)
from simkit.core.tables import render, render_parts
from simkit.games.valhalla.multi.simulation import BLESSINGS, MISSIONS, RECORDS, TACTICS

CAUSES = ("shields", "deck", "cap")
DEAL = ["block", "game"]  # the unit: every cell replays the same (block, game) streams
ALPHA = 0.05
SEED = 2026  # the bundled run
LINEUP_SEED = 2030  # the hero-against-a-field games
SEARCH_SEED = 2031  # the small ladder with `search`
GAMES = 1_000  # per cell of the bundled run (40 cells)
LINEUP_GAMES = 1_200  # per table size and hero (600-game blocks: every seat equally often)
# the ladder with `search` (per hero, 4 players): the fewest games, in whole rounds of the 4 seats, that keep every
# hero's 95% interval within ±SEARCH_PRECISION of win share whatever the share (76)
SEARCH_PRECISION = 0.11
SEARCH_PLAYERS = 4
FIELD = "builder"
# A Jarl kept in fewer deals than this is too few to judge: its share's 95% interval is wider than ±0.15 (Wilson,
# 30 deals at a share near 0.2), wider than any edge measured, so it would tie with the best and the worst at once.
# It stays in the Jarl table (with its seats and deals) but not in the lead, the range or the plot. The value table
# uses the same floor: an item is tested when at least this many deals have a seat with it and as many without.
MIN_DEALS = 30
VALUE_PLAYERS = 4  # the table size of the value table (the seats compared sit at the same table size)
VALUE_VARIANT = "valkyries"  # the deck that holds every blessing, Mission and Tactic


# ---------------------------------------------------------------- helpers


def _iv(e: Estimate, digits: int = 3, sign: bool = False) -> str:
    f = f"{{:{'+' if sign else ''}.{digits}f}}"
    if not (math.isfinite(e.low) and math.isfinite(e.high)):
        return f"{f.format(e.estimate)} [no interval: one deal]"
    return f"{f.format(e.estimate)} [{f.format(e.low)}, {f.format(e.high)}]"


def _p(p: float) -> str:
    if p != p:
        return "–"
    return "< 0.0001" if p < 1e-4 else f"{p:.4f}"


def _t_p(t: np.ndarray, m: np.ndarray, null: float) -> float:
    """Two-sided p of "the ratio Σt / Σm equals ``null``", clusters as the unit (the linearised variance of
    ``clustered_mean``, Student's t with n − 1 degrees of freedom)."""
    t, m = np.asarray(t, float), np.asarray(m, float)
    keep = m > 0
    t, m = t[keep], m[keep]
    n, rows = t.size, m.sum()
    if n < 2:
        return 1.0  # one deal: no variance, no evidence against the null
    mean = t.sum() / rows
    r = t - mean * m
    se = math.sqrt(n / (n - 1) * float((r * r).sum())) / rows
    if se == 0:  # every deal alike (a handful of rows): no spread to test against
        return 1.0
    return float(2 * st.t.sf(abs(mean - null) / se, n - 1))


def _verdict(e: Estimate, p_holm: float, null: float, up: str, down: str) -> str:
    if p_holm < ALPHA:
        return up if e.estimate > null else down
    return "not told apart"


def seat_rows(frame: pl.LazyFrame | pl.DataFrame) -> pl.DataFrame:
    """One row per seat of every game: ``block, game, players, variant, policy, seat, share`` (the seat's win
    share: ``win_k`` / the number of winners), ``win, glory, taken, jarl``, the seat's records where the rows have
    them (``simulation.RECORDS``: blessings scored, Missions completed, Tactics played, …) and the game's own
    columns."""
    frame = frame.lazy() if isinstance(frame, pl.DataFrame) else frame
    names = frame.collect_schema().names()
    seats = sorted(int(c.split("_")[1]) for c in names if c.startswith("win_"))
    winners = pl.sum_horizontal([pl.col(f"win_{k}").cast(pl.Int64).clip(0) for k in seats])
    keep = [c for c in ("block", "game", "players", "variant", "policy", "cause", "turns", "shared") if c in names]
    parts = []
    for k in seats:
        records = [pl.col(f"{c}_{k}").cast(pl.Int64).alias(c) for c in RECORDS if f"{c}_{k}" in names]
        parts.append(frame.filter(pl.col("players") > k).select(
            *keep, pl.lit(k, pl.Int8).alias("seat"), pl.col(f"win_{k}").cast(pl.Int64).alias("win"),
            (pl.col(f"win_{k}").cast(pl.Float64) / winners).alias("share"),
            pl.col(f"glory_{k}").cast(pl.Int64).alias("glory"), pl.col(f"taken_{k}").cast(pl.Int64).alias("taken"),
            pl.col(f"jarl_{k}").cast(pl.Int64).alias("jarl"), *records))
    return pl.concat(parts).collect()


def _by_deal(rows: pl.DataFrame, value: pl.Expr) -> tuple[np.ndarray, np.ndarray]:
    """(Σ value, rows) per deal (block, game), in deal order."""
    g = rows.group_by(DEAL).agg(value.cast(pl.Float64).sum().alias("t"), pl.len().alias("m")).sort(DEAL)
    return g["t"].to_numpy(), g["m"].to_numpy().astype(float)


def _rate(rows: pl.DataFrame, value: pl.Expr) -> Estimate:
    t, m = _by_deal(rows, value)
    return clustered_rate(t, m)


def _mean(rows: pl.DataFrame, value: pl.Expr) -> Estimate:
    t, m = _by_deal(rows, value)
    return clustered_mean(t, m)


# ---------------------------------------------------------------- seat advantage


def seat_table(seats: pl.DataFrame) -> list[dict]:
    """Win share by seat and table size against 1/n, the deal as the unit; Holm over every row."""
    out = []
    for np_ in sorted(seats["players"].unique().to_list()):
        for k in range(np_):
            sub = seats.filter((pl.col("players") == np_) & (pl.col("seat") == k))
            t, m = _by_deal(sub, pl.col("share"))
            out.append({"players": np_, "seat": k + 1, "e": clustered_rate(t, m), "fair": 1 / np_,
                        "p": _t_p(t, m, 1 / np_), "rows": sub.height, "deals": len(t)})
    for r, ph in zip(out, holm([r["p"] for r in out])):
        r["p_holm"] = ph
        r["verdict"] = _verdict(r["e"], ph, r["fair"], "favoured", "disfavoured")
    return out


def seat_display(rows: list[dict]) -> list[dict]:
    return [{"players": r["players"], "seat (turn order)": r["seat"], "win share [95%]": _iv(r["e"]),
             "fair share": f"{r['fair']:.3f}", "p": _p(r["p"]), "p (Holm)": _p(r["p_holm"]),
             "verdict": r["verdict"], "seat rows": r["rows"], "deals": r["deals"]} for r in rows]


# ---------------------------------------------------------------- the seat answers under the other rule readings

# The rule readings that could move the seat answers (docs/rules.md, Valhalla multiplayer): the name, what the
# other reading says, its ``--set`` overrides and the table sizes it is played at (None: every size of the run).
READINGS = (
    ("start_discard", "a set-up discard that falls with the table size, 20 cards at 5 players and 10 at 6",
     ["rules.start_discard={ 5 = 20, 6 = 10 }"], [5, 6]),
    ("game_end", "the game ending at the end of the round in which the deck ran out (every seat the same turns)",
     ['rules.game_end="round"'], None),
)


def reading_table(default: pl.DataFrame, other: pl.DataFrame) -> list[dict]:
    """Per table size and seat that ``other`` (seat rows of a run under another rule reading, ``seat_rows``)
    played: the seat's win share under the default reading and under the other, and their paired difference
    (the same deal, deck and seat: common random numbers), the deal as the unit; Holm over the rows."""
    key = [*DEAL, "players", "variant", "seat"]
    both = other.select(*key, pl.col("share").alias("other")).join(default.select(*key, "share"), on=key)
    out = []
    for n in sorted(both["players"].unique().to_list()):
        for k in range(n):
            sub = both.filter((pl.col("players") == n) & (pl.col("seat") == k))
            a, m = _by_deal(sub, pl.col("share"))
            b, _ = _by_deal(sub, pl.col("other"))
            d = b - a  # per deal, summed over its decks
            out.append({"players": n, "seat": k + 1, "default": clustered_rate(a, m), "other": clustered_rate(b, m),
                        "d": clustered_mean(d, m), "p": _t_p(d, m, 0.0), "deals": len(m)})
    for r, ph in zip(out, holm([r["p"] for r in out])):
        r["p_holm"] = ph
    return out


def reading_text(best: str, readings: dict[str, list[dict]]) -> str:
    """The section: per reading, one sentence (how many seat shares move beyond the noise, the largest move) and
    its table."""
    parts = [f"The seat answers above play the default reading of every rule the texts leave open (docs/rules.md). "
             f"Each reading that could move them is played here the other way, `{best}` in every seat, on the same "
             "deals, decks and dice as the main run (common random numbers), and each seat's win share is "
             "compared game by game with the main run's; Holm over the rows of each table (family-wise 5%).\n"]
    for name, desc, sets, _ in READINGS:
        rows = readings.get(name)
        if not rows:
            continue
        moved = [r for r in rows if r["p_holm"] < ALPHA]
        big = max(rows, key=lambda r: abs(r["d"].estimate))
        said = (f"**{desc.capitalize()}** (`--set {' '.join(repr(x) for x in sets)}`): "
                + (f"{len(moved)} of {len(rows)} seat shares {'moves' if len(moved) == 1 else 'move'} beyond the "
                   "noise; " if moved else
                   f"no seat share of the {len(rows)} moves beyond the noise; ")
                + f"the largest move is seat {big['seat']} at {big['players']} players, {_iv(big['default'])} "
                f"→ {_iv(big['other'])} ({_iv(big['d'], sign=True)}).")
        table = [{"players": r["players"], "seat": r["seat"], "win share, default [95%]": _iv(r["default"]),
                  "win share, other reading [95%]": _iv(r["other"]), "difference [95%]": _iv(r["d"], sign=True),
                  "p (Holm)": _p(r["p_holm"]), "deals": r["deals"]} for r in rows]
        parts.append(said + "\n\n" + render(table, "md"))
    return "\n".join(parts)


# ---------------------------------------------------------------- the ladder (hero against a field)


KINDS = {"random": "random", "search": "search", "learned": "learned"}  # a hero's kind by name (else heuristic)


def ladder_rungs(lineups: pl.DataFrame, players: int | None = None):
    """The skill ladder from hero-against-field rows: a game's value is the hero's win share over the fair
    share (n × share: 1 = fair), averaged over the table sizes that replay the same (block, game)."""
    from simkit.core import ladder

    sub = lineups if players is None else lineups.filter(pl.col("players") == players)
    per = (sub.with_columns(v=pl.col("hero_share") * pl.col("players").cast(pl.Float64))
           .group_by("hero", *DEAL).agg(pl.col("v").mean()).sort("hero", *DEAL))
    means = {h: per.filter(pl.col("hero") == h)["v"].to_numpy() for h in sorted(per["hero"].unique().to_list())}
    kinds = {h: KINDS.get(h, "heuristic") for h in means}
    rungs = ladder.rungs_from(means, kinds)
    for r in rungs:  # a win share is never negative: the interval cut to [0, ∞) keeps its coverage
        r.low = max(r.low, 0.0)
    return rungs


def ladder_display(rungs) -> list[dict]:
    from simkit.core.ladder import _p_adj

    return [{"rank": i + 1, "hero": r.policy, "kind": r.kind,
             "win share ÷ fair [95%]": f"{r.value:.3f} [{r.low:.3f}, {r.high:.3f}]",
             "vs best (paired)": "—" if i == 0 else f"{r.gap:+.3f} [{r.gap_low:+.3f}, {r.gap_high:+.3f}]",
             "p (adj.)": "—" if i == 0 else _p_adj(r.p_adj),
             "below best": "—" if i == 0 else ("yes" if r.below_best else "no"), "games": r.games}
            for i, r in enumerate(rungs)]


# ---------------------------------------------------------------- Jarls


def jarl_table(seats: pl.DataFrame, names: list[str]) -> list[dict]:
    """Per Jarl kept: win share, its mean fair share (1/n of the seats it sat in) and the edge share − 1/n, the
    deal as the unit; Holm over the Jarls."""
    seats = seats.with_columns(edge=pl.col("share") - 1.0 / pl.col("players").cast(pl.Float64))
    out = []
    for j in sorted(seats["jarl"].unique().to_list()):
        if j < 0:
            continue
        sub = seats.filter(pl.col("jarl") == j)
        t, m = _by_deal(sub, pl.col("edge"))
        share = _rate(sub, pl.col("share"))
        fair = float(sub["players"].cast(pl.Float64).pow(-1).mean())
        # the fair share of these rows is fixed by their table sizes, so the edge's interval is the share's
        # (Wilson's on the effective rows, honest near 0 and 1) moved by it
        edge = Estimate(share.estimate - fair, share.low - fair, share.high - fair, share.n)
        out.append({"jarl": names[j] if j < len(names) else str(j), "share": share, "fair": fair, "edge": edge,
                    "p": _t_p(t, m, 0.0), "rows": sub.height, "deals": len(t)})
    for r, ph in zip(out, holm([r["p"] for r in out])):
        r["p_holm"] = ph
        r["verdict"] = _verdict(r["edge"], ph, 0.0, "strong", "weak")
    out.sort(key=lambda r: -r["edge"].estimate)
    return out


def lead_sentence(edges: dict[str, Estimate], policy: str, games: int, checked: list | None = None) -> str:
    """The page's lead: the strongest and the weakest Jarl by edge over the fair share (the Jarl table's column),
    each with the Jarls its interval cannot be told from as a tie; ``games``: games per cell; ``checked``: the Jarl
    ranking's comparisons with the other practical policies (:func:`ranking_checks`), for :func:`jarl_clause`."""
    n = f"(`{policy}` at every seat, {games:,} games per cell)" + (jarl_clause(checked) if checked else "")
    if not edges:
        return f"No Jarl was kept in these games, so none is measured {n}."
    best, b_tied = extreme(edges)
    worst, w_tied = extreme(edges, worst=True)
    if best in w_tied or len(edges) < 2:
        return (f"No Jarl stands out: edges over the fair win share run from {interval(edges[worst], signed=True)} "
                f"({worst}) to {interval(edges[best], signed=True)} ({best}), intervals overlapping {n}.")
    weak = tie_words(worst, w_tied, "", "weakest", first=False)
    return (f"{tie_words(best, b_tied, 'Jarl', 'strongest')}, {interval(edges[best], signed=True)} above its fair win "
            f"share; {weak}, {interval(edges[worst], signed=True)} {n}.")


def jarl_display(rows: list[dict], abilities: dict[str, str]) -> list[dict]:
    return [{"Jarl": r["jarl"], "ability (stand-in)": abilities.get(r["jarl"], ""), "win share [95%]": _iv(r["share"]),
             "fair share": f"{r['fair']:.3f}", "edge = share − fair [95%]": _iv(r["edge"], sign=True),
             "p (Holm)": _p(r["p_holm"]), "verdict": r["verdict"], "seats": r["rows"], "deals": r["deals"]}
            for r in rows]


# ---------------------------------------------------------------- does the ranking depend on the policy?


def seat_pair_p(seats: pl.DataFrame, players: int):
    """``(a, b) -> p``: the two-sided p-value that seats ``a`` and ``b`` ("seat k") of one policy's rows take equal
    win shares at ``players``, paired deal by deal (a seat's win is another's loss, so the two shares are not
    independent): Student's t of the per-deal difference of their win shares (summed over the deal's decks),
    the deal as the unit (:func:`_t_p`)."""
    at = seats.filter(pl.col("players") == players)

    def p(a: str, b: str) -> float:
        ta, m = _by_deal(at.filter(pl.col("seat") == int(a.split()[1]) - 1), pl.col("share"))
        tb, _ = _by_deal(at.filter(pl.col("seat") == int(b.split()[1]) - 1), pl.col("share"))
        return _t_p(ta - tb, m, 0.0)

    return p


def policy_rankings(seats: pl.DataFrame, policies: list[str], names: list[str]) -> list[dict]:
    """The page's rankings under each of ``policies`` (each in every seat; ``seats``: :func:`seat_rows` of the run):
    the Jarls by their edge over the fair share (:func:`jarl_table`; the Jarls kept in at least ``MIN_DEALS``
    deals under every policy), and at each table size the seats by their win share (:func:`seat_table`). One dict
    per ranking: ``heading``, ``name`` (how the sentence names it), ``label`` (the group column), ``table``
    (``{policy: {group: Estimate}}``), ``n`` (``{policy: {group: deals}}``) and ``pair_p`` (the paired p-value of
    two seats, or None: the Jarls' are unpaired, from their intervals)."""
    out = []
    jarls = {p: {r["jarl"]: r for r in jarl_table(seats.filter(pl.col("policy") == p), names)} for p in policies}
    kept = [j for j in jarls[policies[0]] if all(j in jarls[p] and jarls[p][j]["deals"] >= MIN_DEALS
                                                   for p in policies)]
    if len(kept) > 1:
        key = [*DEAL, "players", "variant", "seat"]
        ref = seats.filter(pl.col("policy") == policies[0]).select(*key, "jarl")
        same = all(ref.join(seats.filter(pl.col("policy") == p).select(*key, "jarl"), on=key, suffix="_o")
                   .select((pl.col("jarl") == pl.col("jarl_o")).all()).item() for p in policies[1:])
        out.append({"heading": "The Jarls (edge over the fair share)", "name": "Jarls", "label": "Jarl",
                    "what": "Jarl", "plural": "Jarls", "signed": True, "same_jarls": same,
                    "table": {p: {j: jarls[p][j]["edge"] for j in kept} for p in policies},
                    "n": {p: {j: jarls[p][j]["deals"] for j in kept} for p in policies}, "pair_p": None})
    rows = {p: seat_table(seats.filter(pl.col("policy") == p)) for p in policies}
    for n in sorted(seats["players"].unique().to_list()):
        table = {p: {f"seat {r['seat']}": r["e"] for r in rows[p] if r["players"] == n} for p in policies}
        deals = {p: {f"seat {r['seat']}": r["deals"] for r in rows[p] if r["players"] == n} for p in policies}
        pairs = {p: seat_pair_p(seats.filter(pl.col("policy") == p), n) for p in policies}
        out.append({"heading": f"Seats, {n} players", "name": f"{n} players", "label": "seat", "what": "seat",
                    "plural": "seats", "signed": False, "table": table, "n": deals,
                    "pair_p": (lambda pp: lambda p, a, b: pp[p](a, b))(pairs)})
    return out


def ranking_checks(rankings: list[dict], reference: str) -> list[tuple[dict, list]]:
    """``[(ranking, comparisons)]``: each of the page's rankings (:func:`policy_rankings`) that two or more policies
    played, set against ``reference``'s through :func:`simkit.core.sensitivity.sensitivity`, Holm over every pair
    of every policy compared within a ranking at 5% / the number of rankings (Bonferroni over the rankings:
    family-wise 5% over the section and the lead)."""
    from simkit.core.sensitivity import sensitivity

    shown = [r for r in rankings if len(r["table"]) > 1 and len(r["table"].get(reference, {})) > 1]
    alpha = ALPHA / max(len(shown), 1)
    return [(r, sensitivity(r["table"], reference, alpha, pair_p=r["pair_p"])) for r in shown]


def jarl_clause(checked: list[tuple[dict, list]]) -> str:
    """The lead's word on the Jarl ranking under the other practical policies (``checked``: :func:`ranking_checks`):
    that it holds (no resolved flip: the policy section's test), or how many pairs of Jarls flip. The policies are
    counted, not named: the details name them, and a policy named in the lead is one the headline plays (the
    gate's baselines replay the policies a lead names)."""
    comps = next((c for r, c in checked if r["name"] == "Jarls"), None)
    if not comps:
        return ""
    count = {2: "two", 3: "three", 4: "four", 5: "five"}.get(len(comps), str(len(comps)))
    others = f"the other {count} practical policies" if len(comps) > 1 else "the other practical policy"
    flips = sum(len(c.resolved) for c in comps)
    if not flips:
        return f"; the Jarl ranking holds under {others}"
    return (f"; the Jarl ranking depends on the policy ({flips} pair{'s' if flips != 1 else ''} of Jarls "
            f"flip{'' if flips != 1 else 's'} under {others})")


def policy_section(checked: list[tuple[dict, list]], reference: str) -> tuple[str, str]:
    """``(sentence, section)``: do the page's rankings (:func:`policy_rankings`) change with the policy? ``checked``:
    each set against ``reference``'s (:func:`ranking_checks`, which the lead reads too). ("", "") with one
    policy."""
    from simkit.core.sensitivity import markdown as sens_markdown
    from simkit.core.sensitivity import ranking_sentence

    shown = [r for r, _ in checked]
    if not shown:
        return "", ""
    alpha = ALPHA / len(shown)
    others = [p for p in shown[0]["table"] if p != reference]
    jarls = [r for r in shown if r["name"] == "Jarls"]
    sentences, parts = [], []
    for r, comps in checked:
        table = r["table"]
        sentences.append(f"{r['name']}: " + ranking_sentence(comps, table, reference, r["what"], r["plural"], alpha))
        ranks = {p: {g: 1 + sum(o.estimate > e.estimate for o in row.values()) for g, e in row.items()}
                 for p, row in table.items()}
        order = sorted(table[reference], key=lambda g: (ranks[reference][g], list(table[reference]).index(g))) \
            if r["signed"] else list(table[reference])
        rows = [{r["label"]: g, **{f"`{p}`" + (" (strongest)" if p == reference else ""):
                                   f"{_iv(table[p][g], sign=r['signed'])} ({ranks[p][g]})" for p in table},
                 **{f"deals, `{p}`": r["n"][p][g] for p in table}} for g in order]
        parts.append(f"### {r['heading']}\n\n" + render(rows, "md") + "\n"
                     + sens_markdown(comps, reference, r["plural"] if r["signed"] else f"seats at {r['name']}", alpha)
                     + "\n")
    sentence = (f"Does the ranking change with the policy ({', '.join(f'`{p}`' for p in others)} at every seat on "
                f"the same deals, against `{reference}`; family-wise {ALPHA:g} over the {len(shown)} rankings, "
                f"{alpha:.3g} in each)? " + " ".join(sentences))
    section = (
        "## Does the ranking depend on the policy?\n\n"
        f"{sentence}\n\n"
        "A balance conclusion holds for a game *and* a way of playing it. The bundled run plays every practical "
        f"policy ({', '.join(f'`{p}`' for p in shown[0]['table'])}; the random baseline is left out) at every seat "
        "of every table, both decks, on the same deals and dice (common random numbers). Each one's ranking of the "
        "Jarls (edge over the fair share, as in the Jarl table above: the Jarls kept in at least "
        f"{MIN_DEALS} deals under every policy) and of the seats at each table size (win share, as in the seat "
        f"table) is set against the ranking under `{reference}` (the strongest practical policy, the top heuristic "
        "or learned policy of the ladder): Spearman's rank correlation and the pairs whose order flips (rank 1 is the highest). "
        + ("Every policy compared kept the same Jarl in the same seat of every deal (they share the Jarl choice), "
           "so where the two Jarl rankings differ, they differ by how the Jarl is played, not by which Jarl is kept. " if jarls and jarls[0].get("same_jarls")
           else "A Jarl is *kept* by the policy's own choice, so a policy's Jarl ranking is also a ranking of its "
           "choices. " if jarls else "")
        + "A flip is *resolved* when the games show both orders: the larger of the two policies' two-sided p-values "
        "for the pair's difference (two seats: paired deal by deal, Student's t of the per-deal difference of "
        "their win shares, as one seat's win is another's loss; two Jarls: normal, from the 95% intervals shown, "
        "unpaired), **Holm-corrected over every pair of every policy compared** within a ranking, is below "
        f"{alpha:.3g} (5% split over the {len(shown)} rankings, Bonferroni), so the chance of calling any flip "
        "where the orders truly agree is at most 5% over the whole section.\n\n" + "".join(parts))
    return sentence, section


# ---------------------------------------------------------------- base deck against Valkyries


def game_measures(frame: pl.LazyFrame | pl.DataFrame) -> pl.DataFrame:
    """One row per game with the report's per-game measures: ``turns``, ends (``end_shields``, ``end_deck``,
    ``end_cap``), ``margin`` (the most Glory minus the next seat's; 0 for a shared win), ``shared``, and per
    seat on average ``glory``, ``glory_shields`` (2 a shield taken), ``glory_jarl`` (a Jarl's starting Glory)
    and ``glory_valhalla`` (the rest: Warriors in Valhalla, their blessings and Missions)."""
    frame = frame.lazy() if isinstance(frame, pl.DataFrame) else frame
    names = frame.collect_schema().names()
    seats = sorted(int(c.split("_")[1]) for c in names if c.startswith("glory_"))
    df = frame.collect()
    glory = np.stack([df[f"glory_{k}"].to_numpy() for k in seats], axis=1).astype(float)
    present = glory >= 0
    srt = np.sort(np.where(present, glory, -np.inf), axis=1)
    taken = np.stack([df[f"taken_{k}"].to_numpy() for k in seats], axis=1).astype(float)
    n = present.sum(axis=1)
    return df.select(*DEAL, "players", "variant", "policy", "turns", pl.col("shared").cast(pl.Int8)).with_columns(
        end_shields=(df["cause"] == "shields").cast(pl.Int8), end_deck=(df["cause"] == "deck").cast(pl.Int8),
        end_cap=(df["cause"] == "cap").cast(pl.Int8),
        margin=pl.Series(srt[:, -1] - srt[:, -2]),
        glory=pl.Series(np.where(present, glory, 0).sum(axis=1) / n),
        glory_shields=pl.Series(2 * np.where(present, taken, 0).sum(axis=1) / n))


def jarl_glory(frame: pl.DataFrame, start: dict[int, int]) -> pl.Series:
    """Per game: the seats' mean starting Glory from their Jarls (``start``: Jarl index -> Glory)."""
    seats = sorted(int(c.split("_")[1]) for c in frame.columns if c.startswith("jarl_"))
    j = np.stack([frame[f"jarl_{k}"].to_numpy() for k in seats], axis=1)
    lut = np.zeros(max([int(j.max()), *start]) + 1)
    for k, v in start.items():
        lut[k] = v
    g = np.where(j >= 0, lut[np.clip(j, 0, None)], 0.0)
    return pl.Series(g.sum(axis=1) / (j >= 0).sum(axis=1))


MEASURES = (
    ("turns", "turns", "mean"), ("end_shields", "ended: shields", "rate"), ("end_deck", "ended: deck out", "rate"),
    ("end_cap", "ended: turn cap", "rate"), ("margin", "winner's margin (Glory)", "mean"),
    ("shared", "shared win", "rate"), ("glory", "Glory a seat", "mean"),
    ("glory_shields", "… from shields", "mean"), ("glory_jarl", "… from the Jarl", "mean"),
    ("glory_valhalla", "… Valhalla + Missions", "mean"),
)


def variant_table(games: pl.DataFrame, variants: list[str]) -> tuple[list[dict], list[dict]]:
    """Per deck: every measure pooled over table sizes and policies (the deal as the unit), and the paired
    difference Valkyries − base over the same (block, game, players, policy), Holm over the measures."""
    levels, diffs = [], []
    for v in variants:
        sub = games.filter(pl.col("variant") == v)
        row = {"deck": v}
        for col, label, kind in MEASURES:
            row[label] = (_rate if kind == "rate" else _mean)(sub, pl.col(col))
        row["games"] = sub.height
        row["deals"] = sub.select(DEAL).unique().height
        levels.append(row)
    if len(variants) == 2:
        key = [*DEAL, "players", "policy"]
        a = games.filter(pl.col("variant") == variants[0])
        b = games.filter(pl.col("variant") == variants[1])
        j = b.join(a, on=key, suffix="_a")
        for col, label, _ in MEASURES:
            d = (pl.col(col).cast(pl.Float64) - pl.col(f"{col}_a").cast(pl.Float64))
            t, m = _by_deal(j, d)
            diffs.append({"measure": label, "e": clustered_mean(t, m), "p": _t_p(t, m, 0.0), "pairs": j.height,
                          "deals": len(t)})
        for r, ph in zip(diffs, holm([r["p"] for r in diffs])):
            r["p_holm"] = ph
    return levels, diffs


# ---------------------------------------------------------------- blessings, Missions and Tactics


ITEMS = (  # (record column, kind, name in the rules' words, short name for the headline)
    ("bless_companions", "Valkyrie blessing", "+1: +1 for each other Warrior going with it", "the +1 blessing"),
    ("bless_clan", "Valkyrie blessing", "+2: a Warrior of the colour shown goes with it", "the +2 blessing"),
    ("bless_alone", "Valkyrie blessing", "+3: goes to Valhalla alone", "the +3 blessing"),
    ("mission_no_rerolls", "Valkyrie Mission", "Not using basic rerolls", "the Mission Not using basic rerolls"),
    ("mission_strength", "Valkyrie Mission", "Strength 5 higher", "the Mission Strength 5 higher"),
    ("mission_three", "Valkyrie Mission", "Three activated Warriors", "the Mission Three activated Warriors"),
    ("tactic_delivery", "Battle Tactic", "Weapon Delivery (one a card)", "Weapon Delivery"),
    ("tactic_path", "Battle Tactic", "Path to Valhalla", "Path to Valhalla"),
    ("tactic_silence", "Battle Tactic", "Silence (Jarl powers off)", "Silence"),
    ("tactic_strength", "Battle Tactic", "strength Tactics", "the strength Tactics"),
    ("tactic_smaller", "Battle Tactic", "\"smaller team\" Tactics", "the \"smaller team\" Tactics"),
    ("tactic_reroll", "Battle Tactic", "reroll Tactics", "the reroll Tactics"),
)
assert {c for c, _, _, _ in ITEMS} == {*BLESSINGS, *MISSIONS, *TACTICS}
VALUE_TEST = "Student's t on the cluster-robust variance of the difference"


def has_records(frame_names) -> bool:
    """Whether the rows carry the per-seat records (runs made before they existed do not)."""
    return all(f"{c}_0" in frame_names for c in RECORDS)


def value_table(seats: pl.DataFrame) -> list[dict]:
    """Per blessing kind, Mission and Tactic: the win share of the seats that scored, completed or played it at
    least once against the other seats of the same games, the deal as the unit (``stats.clustered_difference``;
    the rows given should be one table size, deck and policy); the flag is its t-test
    (``stats.clustered_difference_p``), Holm over the items tested. An item with a seat holding it (or a seat
    without it) in fewer than ``MIN_DEALS`` deals is shown, not tested."""
    out = []
    for col, kind, name, short in ITEMS:
        g = (seats.with_columns(h=(pl.col(col) > 0).cast(pl.Float64))
             .group_by(DEAL).agg((pl.col("share") * pl.col("h")).sum().alias("y1"), pl.col("h").sum().alias("m1"),
                                 (pl.col("share") * (1 - pl.col("h"))).sum().alias("y0"),
                                 (1 - pl.col("h")).sum().alias("m0"))
             .sort(DEAL))
        y1, m1, y0, m0 = (g[c].to_numpy().astype(float) for c in ("y1", "m1", "y0", "m0"))
        r = {"col": col, "kind": kind, "name": name, "short": short, "seats": seats.height, "with": int(m1.sum()),
             "count": float(seats[col].mean()) if seats.height else math.nan,
             "deals1": int((m1 > 0).sum()), "deals0": int((m0 > 0).sum()), "e": None, "p": math.nan,
             "p_holm": math.nan, "flag": ""}
        if m1.sum() > 0:
            r["share1"] = clustered_rate(y1[m1 > 0], m1[m1 > 0])
        if m0.sum() > 0:
            r["share0"] = clustered_rate(y0[m0 > 0], m0[m0 > 0])
        if min(r["deals1"], r["deals0"]) >= MIN_DEALS:
            r["e"] = clustered_difference(y1, m1, y0, m0)
            r["p"] = clustered_difference_p(y1, m1, y0, m0)
        out.append(r)
    tested = [r for r in out if r["e"] is not None]
    for r, ph in zip(tested, holm([r["p"] for r in tested])):
        r["p_holm"] = ph
        r["flag"] = ("higher" if r["e"].estimate > 0 else "lower") if ph < ALPHA else "not told apart"
    return out


def value_display(rows: list[dict]) -> list[dict]:
    out = []
    for r in rows:
        few = f"too few plays (a seat with it in {r['deals1']} deals, without in {r['deals0']}; {MIN_DEALS} needed)"
        out.append({"kind": r["kind"], "item": r["name"], "results column": f"`{r['col']}_k`",
                    "per seat": f"{r['count']:.3f}", "seats ≥ 1": f"{r['with'] / max(r['seats'], 1):.3f}",
                    "win share, ≥ 1 [95%]": _iv(r["share1"]) if "share1" in r else "–",
                    "win share, none [95%]": _iv(r["share0"]) if "share0" in r else "–",
                    "difference [95%]": _iv(r["e"], sign=True) if r["e"] is not None else few,
                    "p (Holm)": _p(r["p_holm"]), "flag": r["flag"] if r["e"] is not None else "–",
                    "deals": r["deals1"]})
    return out


GLORY_SOURCES = (("glory", "Glory a seat"), ("glory_warriors", "Warriors sent to Valhalla"),
                 ("glory_blessings", "blessings (Warriors drawn)"), ("glory_missions", "Missions (2 each)"),
                 ("glory_shields", "shields (2 each)"), ("glory_jarl", "the Jarl"))


def glory_sources(frame: pl.DataFrame, start: dict[int, int]) -> pl.DataFrame:
    """One row per game: the seats' mean Glory and its sources, ``glory_warriors`` (the Warriors' own Glory in
    Valhalla: ``valhalla_glory`` less ``bless_glory``), ``glory_blessings`` (the Warriors the blessings drew),
    ``glory_missions`` (2 a Mission completed), ``glory_shields`` (2 a shield taken) and ``glory_jarl`` (a Jarl's
    starting Glory); they add up to ``glory``."""
    seats = sorted(int(c.split("_")[1]) for c in frame.columns if c.startswith("win_"))

    def per_seat(f):
        a = np.stack([f(k) for k in seats], axis=1).astype(float)
        present = np.stack([frame[f"glory_{k}"].to_numpy() >= 0 for k in seats], axis=1)
        return pl.Series(np.where(present, a, 0).sum(axis=1) / present.sum(axis=1))

    col = lambda c, k: frame[f"{c}_{k}"].to_numpy()  # noqa: E731
    return frame.select(*DEAL, "players", "variant", "policy").with_columns(
        glory=per_seat(lambda k: col("glory", k)),
        glory_warriors=per_seat(lambda k: col("valhalla_glory", k) - col("bless_glory", k)),
        glory_blessings=per_seat(lambda k: col("bless_glory", k)),
        glory_missions=per_seat(lambda k: 2 * sum(col(c, k) for c in MISSIONS)),
        glory_shields=per_seat(lambda k: 2 * col("taken", k)),
        glory_jarl=jarl_glory(frame, start))


def glory_source_table(sources: pl.DataFrame, variants: list[str], policies: list[str]) -> list[dict]:
    """Per policy and deck, pooled over the table sizes: each source's mean Glory a seat, the deal as the unit."""
    rows = []
    for p in policies:
        for v in variants:
            sub = sources.filter((pl.col("policy") == p) & (pl.col("variant") == v))
            if sub.height:
                rows.append({"policy": p, "deck": v, **{label: _mean(sub, pl.col(c)) for c, label in GLORY_SOURCES},
                             "games": sub.height})
    return rows


# ---------------------------------------------------------------- the report


def _deck_info(man: dict):
    """Jarl names, abilities and starting Glory from the run's deck file (empty when it cannot be read)."""
    try:
        from simkit.games.valhalla.deck import load_deck

        files = man.get("files") or {}
        deck = load_deck(files.get("deck"), files.get("cards"))
        names = [j.name for j in deck.jarls]
        abil = {j.name: j.ability + (f" {j.value}" if j.value else "") for j in deck.jarls}
        start = {i: j.value for i, j in enumerate(deck.jarls) if j.ability == "glory_start"}
        return names, abil, start
    except Exception:  # noqa: BLE001  (the file may have moved since the run)
        return [], {}, {}


def top_practical(rungs, fallback: str) -> str:
    """What a page may call its strongest practical policy: the ladder's top heuristic or learned policy (not
    `search`, too slow to fill the tables; not random), or (no ladder) ``fallback``."""
    return next((r.policy for r in rungs if r.kind in TABLE_KINDS), fallback) if rungs else fallback


def multi_report(run_dir: str | Path, out_dir: str | Path, lineups: pl.DataFrame | None = None,
                 search_lineups: pl.DataFrame | None = None, lineup_info: dict | None = None,
                 reading_runs: dict[str, Path] | None = None) -> list[Path]:
    """Write ``out_dir/report.md`` with ``seat-advantage.png``, ``jarls.png`` and ``skill-ladder.png``.

    ``lineups``: rows of ``lineups.play_heroes`` (heroes against a field at each table size) for the ladder;
    ``search_lineups``: the same with `search` among the heroes, on a small sample; ``lineup_info``: their
    seeds and games, for the text. Without them the page says that no ladder was measured. ``reading_runs``:
    name (``READINGS``) -> a run of the best policy under that reading's other side, on the main run's seed."""
    from simkit.core import ladder
    from simkit.core.plotting import bars, lines

    run_dir, out_dir = Path(run_dir), Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    man = results.manifest(run_dir)
    frame = results.scan(run_dir).with_columns(pl.col(pl.Categorical).cast(pl.String))  # plain names
    info = lineup_info or {}
    names, abilities, start = _deck_info(man)
    kinds = {p: (v or {}).get("kind", "heuristic") for p, v in (man.get("policies") or {}).items()}
    practical = [p for p in kinds if kinds[p] not in ("random", "search")]
    variants = [v for v in man.get("variants", []) if v]
    players = list(man.get("players", []))
    games_per_cell = int(man.get("games", 0))

    # --- the ladder ---
    rungs, by_size, srungs = None, {}, None
    if lineups is not None and lineups.height:
        rungs = ladder_rungs(lineups)
        for n in sorted(lineups["players"].unique().to_list()):
            by_size[n] = ladder_rungs(lineups, n)
    if search_lineups is not None and search_lineups.height:
        srungs = ladder_rungs(search_lineups)
    first = (practical or list(kinds))[0]
    best = top_practical(rungs, first)
    who = "the strongest practical policy, " if rungs else ""
    why = "the top practical policy of the ladder below" if rungs else "the run's first policy: no ladder was played"
    decks = "both decks" if len(variants) == 2 else "the " + ", ".join(f"`{v}`" for v in variants) + " deck"
    png_ladder = ladder.plot(out_dir / "skill-ladder.png", rungs or [], label="win share ÷ fair share",
                             title=f"Valhalla multiplayer: hero against a field of {info.get('field', FIELD)}") \
        if rungs else None

    seats_all = seat_rows(frame)
    seat = seat_table(seats_all.filter(pl.col("policy") == best))
    reading_rows = {name: reading_table(seats_all.filter(pl.col("policy") == best),
                                        seat_rows(results.scan(run).with_columns(pl.col(pl.Categorical).cast(pl.String)))
                                        .filter(pl.col("policy") == best))
                    for name, run in (reading_runs or {}).items()}
    readings_section = ("\n### Do the seat shares depend on the rule readings?\n\n" + reading_text(best, reading_rows)
                        if reading_rows else "")
    n_off = sum(r["p_holm"] < ALPHA for r in seat)
    firsts = [r for r in seat if r["seat"] == 1]
    def seat_line(k, what):  # seat k + 1's win share over the fair share (n × share) at each table size
        return [next((getattr(r["e"], what) * n for r in seat if r["players"] == n and r["seat"] == k + 1),
                     math.nan) for n in players]

    png_seats = lines(
        out_dir / "seat-advantage.png", players,
        {f"seat {k + 1}": seat_line(k, "estimate") for k in range(max(players))},
        title=f"Valhalla multiplayer: win share by seat ({best}, {decks.replace('`', '')}, 95%)",
        xlabel="players", ylabel="win share ÷ fair share 1/n",
        bands={f"seat {k + 1}": (seat_line(k, "low"), seat_line(k, "high")) for k in range(max(players))},
        reference={"seat 1": 1.0}, reference_label="fair: a share of 1/n (ratio 1)", reference_named=False)

    # per policy and deck: the first seat (a compact view of whether the advantage holds for each)
    per_cell = []
    for p in kinds:
        for v in variants:
            for n in players:
                sub = seats_all.filter((pl.col("policy") == p) & (pl.col("variant") == v) & (pl.col("players") == n)
                                       & (pl.col("seat") == 0))
                if sub.height:
                    t, m = _by_deal(sub, pl.col("share"))
                    per_cell.append({"policy": p, "deck": v, "players": n, "e": clustered_rate(t, m),
                                     "p": _t_p(t, m, 1 / n), "n": sub.height})
    for r, ph in zip(per_cell, holm([r["p"] for r in per_cell])):
        r["p_holm"] = ph
    cell_rows = [{"policy": r["policy"], "deck": r["deck"], "players": r["players"],
                  "seat 1 win share [95%]": _iv(r["e"]), "fair share": f"{1 / r['players']:.3f}",
                  "p (Holm)": _p(r["p_holm"]),
                  "verdict": _verdict(r["e"], r["p_holm"], 1 / r["players"], "favoured", "disfavoured"),
                  "games": r["n"]} for r in per_cell]

    # --- Jarls under the strongest practical policy ---
    jrows = jarl_table(seats_all.filter(pl.col("policy") == best), names)
    j_off = [r for r in jrows if r["p_holm"] < ALPHA]
    ranked = [r for r in jrows if r["deals"] >= MIN_DEALS] or jrows  # Jarls kept in enough deals to judge
    few = [r for r in jrows if r not in ranked]
    png_jarls = bars(out_dir / "jarls.png", [r["jarl"] for r in ranked], [r["edge"].estimate for r in ranked],
                     title=f"Win share − fair share by Jarl kept ({best}, all tables, 95%)",
                     ylabel="edge over 1/n", low=[r["edge"].low for r in ranked],
                     high=[r["edge"].high for r in ranked])

    # --- do the rankings (the Jarls, the seats at each table size) depend on the policy? ---
    checked = ranking_checks(policy_rankings(seats_all, [best, *(p for p in practical if p != best)], names)
                             if best in practical else [], best)
    pol_sentence, pol_section = policy_section(checked, best)

    # --- base deck against Valkyries ---
    raw = frame.collect()
    games = game_measures(raw).with_columns(glory_jarl=jarl_glory(raw, start))
    games = games.with_columns(glory_valhalla=pl.col("glory") - pl.col("glory_shields") - pl.col("glory_jarl"))
    levels, diffs = variant_table(games.filter(pl.col("policy") == best), variants)
    vrows = []
    for p in practical:
        for r in (levels if p == best else variant_table(games.filter(pl.col("policy") == p), variants)[0]):
            vrows.append({"policy": p, "deck": r["deck"],
                          **{label: _iv(r[label], 3 if kind == "rate" else 2) for _, label, kind in MEASURES},
                          "games": r["games"], "deals": r["deals"]})
    drows = [{"measure": r["measure"], f"{variants[-1]} − {variants[0]} [95%]": _iv(r["e"], 3, sign=True),
              "p (Holm)": _p(r["p_holm"]),
              "verdict": ("higher" if r["e"].estimate > 0 else "lower") if r["p_holm"] < ALPHA else "not told apart",
              "paired games": r["pairs"], "deals": r["deals"]} for r in diffs]
    by_size_rows = []
    for n in players:
        for v in variants:
            sub = games.filter((pl.col("policy") == best) & (pl.col("variant") == v) & (pl.col("players") == n))
            if sub.height:
                by_size_rows.append({"players": n, "deck": v, "turns": _iv(_mean(sub, pl.col("turns")), 2),
                                     "ended: shields": _iv(_rate(sub, pl.col("end_shields"))),
                                     "ended: deck out": _iv(_rate(sub, pl.col("end_deck"))),
                                     "winner's margin": _iv(_mean(sub, pl.col("margin")), 2),
                                     "games": sub.height})

    # --- blessings, Missions and Tactics ---
    values, srows, value_text, value_head = [], [], "", ""
    if has_records(raw.columns):
        vseats = seats_all.filter((pl.col("policy") == best) & (pl.col("players") == VALUE_PLAYERS)
                                  & (pl.col("variant") == VALUE_VARIANT))
        values = value_table(vseats)
        sources = glory_sources(raw, start)
        srows = [{"policy": r["policy"], "deck": r["deck"],
                  **{label: _iv(r[label], 2) for _, label in GLORY_SOURCES}, "games": r["games"]}
                 for r in glory_source_table(sources, variants, practical)]
        tested = [r for r in values if r["e"] is not None]
        flagged = [r for r in tested if r["p_holm"] < ALPHA]
        kv = next((r for r in glory_source_table(sources, [VALUE_VARIANT], [best])), None)
        kinds_off = sorted({r["kind"] for r in tested} - {r["kind"] for r in flagged})
        value_head = (
            f" Blessings, Missions and Tactics (`{best}`, {VALUE_PLAYERS} players, `{VALUE_VARIANT}` deck; an "
            f"association, not a causal value): {len(flagged)} of {len(tested)} items tested go with a different "
            "win share for the seats that scored, completed or played them (Holm 5%)"
            + (": " + "; ".join(f"{r['short']} {_iv(r['e'], sign=True)}"
                                for r in sorted(flagged, key=lambda r: -r["e"].estimate)) if flagged else "")
            + (f"; no {' and no '.join(kinds_off)} is told apart" if kinds_off else "")
            + (f". A seat's {kv['Glory a seat'].estimate:.1f} Glory on that deck holds "
               f"{kv[GLORY_SOURCES[1][1]].estimate:.1f} from the Warriors it sent to Valhalla, "
               f"{kv[GLORY_SOURCES[2][1]].estimate:.1f} from the Warriors its blessings drew and "
               f"{kv[GLORY_SOURCES[3][1]].estimate:.1f} from Missions ({best}, all table sizes)" if kv else "")
            + ".")
        value_text = (
            "## Blessings, Missions and Tactics\n\n"
            "The rows record per seat how often each Valkyrie blessing scored (a bonus above 0 when its Warrior "
            "went to Valhalla), each Valkyrie Mission was completed and each Battle Tactic card was played "
            "(`bless_*_k`, `mission_*_k`, `tactic_*_k`), the Glory the blessings drew (`bless_glory_k`) and the "
            "Warriors' Glory in Valhalla (`valhalla_glory_k`). Below: the win share of the seats that scored, "
            "completed or played an item at least once against the other seats of the same games, every seat "
            f"playing `{best}`, {VALUE_PLAYERS} players, the `{VALUE_VARIANT}` deck ({vseats.height:,} seats of "
            f"{vseats.select(DEAL).unique().height:,} games), the game as the unit (the ratio of each kind per "
            f"game, cluster-robust variance). Flags: {VALUE_TEST}, Holm over the "
            f"{len(tested)} items tested (family-wise 5%); an item with a seat holding it, or a seat without it, "
            f"in fewer than {MIN_DEALS} games is shown but not tested.\n\n"
            "**This is an association, not the card's value.** A seat that wins battles sends more Warriors to "
            "Valhalla, so it scores more blessings and completes more Missions (a Mission needs a won battle); a "
            "seat that plays a Tactic first held it, and Path to Valhalla is played only when attacked. The "
            "difference says how much more often a seat that did it won, not how much doing it made it win.\n\n"
            + render(value_display(values), "md")
            + "\n### Where the Glory comes from\n\n"
            + "Per seat and game, pooled over the table sizes, the deal as the unit: the Warriors' own Glory in "
            "Valhalla, the Warriors the blessings drew from the discard pile, the Missions (2 Glory each), the "
            "shields taken (2 each) and a Jarl's starting Glory; together they make up a seat's Glory. (The `… "
            "Valhalla + Missions` column of the deck table above is Warriors + blessings + Missions.) The base deck has no "
            "blessings and no Missions.\n\n"
            + render(srows, "md"))
    else:
        value_head = " Blessings, Missions and Tactics are not measured: the rows do not record who held or played them."
        value_text = (
            "## Blessings, Missions and Tactics: not measured\n\n"
            + "This run's rows were made before the per-seat records (`bless_*_k`, `mission_*_k`, `tactic_*_k`) "
            "existed, so the value of each cannot be read from them.\n")

    # --- the answer ---
    d = {r["measure"]: r for r in diffs}

    def dtext(label, digits=2):
        r = d.get(label)
        return f"{_iv(r['e'], digits, sign=True)}" if r else "–"

    lv = {r["deck"]: r for r in levels}
    seat_text = "; ".join(f"{r['players']} players {_iv(r['e'])} (fair {r['fair']:.3f})" for r in firsts)
    lead_text = ""
    if by_size:
        tops = {n: rs[0].policy for n, rs in by_size.items()}
        same = len(set(tops.values())) == 1
        lead_text = (f" Against a field of `{info.get('field', FIELD)}` the leading hero is "
                     + (f"`{next(iter(tops.values()))}` at every table size" if same else
                        "; ".join(f"`{t}` at {n}" for n, t in tops.items()) + " (it changes with the table size)")
                     + f"; pooled, `{rungs[0].policy}` {rungs[0].value:.3f} [{rungs[0].low:.3f}, {rungs[0].high:.3f}]"
                     f" of the fair share, `random` "
                     + next((f"{r.value:.3f} [{r.low:.3f}, {r.high:.3f}]" for r in rungs if r.policy == "random"),
                            "–")
                     + f" ({rungs[0].games:,} deals per hero)"
                     + (f"; on {srungs[0].games} games at {SEARCH_PLAYERS} players `{srungs[0].policy}` leads with "
                        f"{srungs[0].value:.2f} [{srungs[0].low:.2f}, {srungs[0].high:.2f}] times the fair share" if srungs
                        else "") + ".")
    few_text = word_list([f"{r['jarl']} ({r['deals']} deal{'s' if r['deals'] != 1 else ''})" for r in few]) if few else ""
    jtext = (f" Jarls under `{best}`: {len(j_off)} of {len(jrows)} differ from their fair share (Holm 5%)"
             + (f"; edge over 1/n from {ranked[0]['jarl']} {_iv(ranked[0]['edge'], sign=True)} to "
                f"{ranked[-1]['jarl']} {_iv(ranked[-1]['edge'], sign=True)}" if ranked else "")
             + (f"; {few_text} {'is' if len(few) == 1 else 'are'} left out of the lead, this range and the plot: "
                f"kept in fewer than {MIN_DEALS} deals, too few to judge" if few else "") + ".")
    vtext = ""
    if len(variants) == 2 and all(v in lv for v in variants):
        b, k = lv[variants[0]], lv[variants[1]]
        vtext = (f" The Valkyries deck against the base deck (`{best}`, all table sizes): "
                 f"{k['turns'].estimate:.1f} against {b['turns'].estimate:.1f} turns (paired {dtext('turns')}), "
                 f"ended by shields {k['ended: shields'].estimate:.3f} against {b['ended: shields'].estimate:.3f} "
                 f"({dtext('ended: shields', 3)}), winner's margin {k[MEASURES[4][1]].estimate:.2f} against "
                 f"{b[MEASURES[4][1]].estimate:.2f} Glory ({dtext(MEASURES[4][1])}).")
    headline = (
        lead_paragraph(lead_sentence({r["jarl"]: r["edge"] for r in ranked}, best, games_per_cell, checked)) + "\n\n"
        f"{DETAILS_MARKER} Under {who}`{best}` at every seat, seat 1 (the first to play) "
        "takes a win share of " + seat_text + f" ({decks}; the deal as the unit); "
        f"{n_off} of {len(seat)} seat shares differ from 1/n (Holm 5%)." + lead_text + jtext + vtext
        + value_head + (" " + pol_sentence if pol_sentence else ""))

    # --- the page ---
    opts = man.get("rule_options") or {}
    files = man.get("files") or {}
    ladder_text = "No hero-against-a-field games were played for this page, so it has no skill ladder.\n"
    if rungs:
        ladder_text = (
            f"Each hero policy plays against a field of `{info.get('field', FIELD)}` (every other seat), in seat "
            f"`game % players`, on the Valkyries deck: {info.get('games', rungs[0].games):,} games per table size "
            f"and hero, root seed {info.get('seed', LINEUP_SEED)}, the same deals and dice for every hero. A game's "
            "value is the hero's win share divided by the fair share 1/n (1 = as good as the field), averaged "
            "over the table sizes that replay the same deal. Tables of equals (the bundled run) cannot show skill: "
            "every seat plays the same policy and wins about 1/n whatever it is.\n\n"
            + ladder.markdown(rungs, games=rungs[0].games, label="win share ÷ fair").split("\n\n", 1)[0]
            + "\n\n" + render(ladder_display(rungs), "md")
            + f"\n![Skill ladder]({png_ladder.name})\n\n"
            "### The leading hero at each table size\n\n"
            + render([{"players": n, **{f"rank {i + 1}": f"{r.policy} {r.value:.3f} [{r.low:.3f}, {r.high:.3f}]"
                                         + ("" if i == 0 else (" (below best)" if r.below_best else " (not below)"))
                                         for i, r in enumerate(rs)}, "games": rs[0].games}
                      for n, rs in by_size.items()], "md") + "\n")
        if srungs:
            sp = info.get("search_precision")  # set when the sample was sized by it (not the quick report's)
            ladder_text += (
                f"### With `search` ({SEARCH_PLAYERS} players, a small sample)\n\n"
                f"`search` ({info.get('search', '')}) is slow, so it meets the field on "
                f"{srungs[0].games:,} games at {SEARCH_PLAYERS} players only (root seed "
                f"{info.get('search_seed', SEARCH_SEED)}), the heuristics beside it on the same games"
                + ". With so few games only large gaps show. "
                + (f"The sample is set by the precision this table states: {srungs[0].games:,} games, the fewest "
                   f"(in whole rounds of the {SEARCH_PLAYERS} seats) that keep every hero's 95% interval within "
                   f"±{sp:g} of win share (±{sp * SEARCH_PLAYERS:.2f} on the ÷ fair scale) whatever the share "
                   "(the widest interval is at a share of 0.5)." if sp else "")
                + "\n\n" + render(ladder_display(srungs), "md") + "\n")
    text = (
        "# Valhalla multiplayer: seats, Jarls, the Valkyries deck and skill\n\n"
        + STAND_IN_NOTICE + "\n\n" + headline + "\n\n"
        "## What was simulated\n\n"
        f"The bundled scenario `{man.get('scenario', 'scenarios/valhalla/multi.toml')}`: "
        f"{', '.join(map(str, players))} players × decks {', '.join(f'`{v}`' for v in variants)} × policies "
        f"{', '.join(f'`{p}`' for p in kinds)}, every seat of a table playing the cell's policy; "
        f"{games_per_cell:,} games per cell, root seed {man.get('root_seed')}. Every cell replays the same deal "
        "streams game by game (common random numbers). Rule options: "
        + ", ".join(f"`{k} = {toml_value(v)}`" for k, v in opts.items())
        + " (docs/rules.md, Valhalla multiplayer). Card data: "
        + ", ".join(f"`{shown_path(p)}`" for p in files.values()) + ".\n\n"
        "Intervals are 95%. A seat's **win share** is 1 for a sole win and 1/k for each of k seats sharing the "
        "most Glory, so the seats of a game add up to exactly 1 and the fair share at n players is 1/n. Rows of "
        "one deal (the same `(block, game)` in every cell, and the seats of one game) are not independent, so "
        "every pooled number takes the deal as the unit: shares are Wilson's on the effective number of rows, "
        "means and differences Student's t on the cluster-robust variance (see *design effect* below); verdicts are Holm-corrected within each table (family-wise 5%).\n\n"
        "## Is there a seat advantage?\n\n"
        f"![Win share by seat]({png_seats.name})\n\n"
        f"Win share by seat (1 = the first player) at each table size, every seat playing {who or 'the policy '}"
        f"`{best}` ({why}), {decks}{' pooled' if len(variants) > 1 else ''}. The plot divides each share by "
        f"the fair 1/n, so that the table sizes share one axis (1 = fair); the table gives the shares. Holm over "
        f"the {len(seat)} rows. The first seat under every policy and deck follows.\n\n"
        + render(seat_display(seat), "md")
        + "\n### Seat 1 per policy and deck\n\nHolm over the rows of this table.\n\n" + render(cell_rows, "md")
        + readings_section
        + "\n## Skill ladder: a hero against a field\n\n" + ladder_text
        + f"\n## Are the Jarls balanced?\n\n![Jarls]({png_jarls.name})\n\n"
        f"Under {who or 'the policy '}**`{best}`** ({why.replace(' below', '')}), every seat's Jarl "
        f"against its fair share, over every table size and {decks} ({games_per_cell:,} games per cell). The "
        "edge is the win share minus 1/n of the table the Jarl sat at; Holm over the Jarls. A Jarl is *kept* "
        "from the 3 offered (the policy's choice), so a Jarl's edge mixes its power with the Jarls it was kept "
        "over; which Jarls were offered is not in the rows. Abilities are the stand-in solo abilities of "
        "`deck.toml`.\n\n"
        + render(jarl_display(jrows, abilities), "md")
        + ("\n" + pol_section.rstrip("\n") + "\n" if pol_section else "")
        + "\n## Base deck against the Valkyries deck\n\n"
        f"Per game, pooled over the table sizes, for each practical policy. `winner's margin`: the most Glory minus "
        "the next seat's (0 for a shared win). Glory a seat splits into shields (2 a shield taken), the Jarl's "
        "starting Glory (stand-in `glory_start` Jarls) and the rest: Warriors in Valhalla with their blessings "
        "and completed Missions (split in *Where the Glory comes from* below).\n\n"
        + "How long games last and what ends them:\n\n"
        + render_parts(vrows, ["policy", "deck"], [[label for _, label, _ in MEASURES[:4]]])
        + "\nThe winner's margin and the Glory:\n\n"
        + render_parts(vrows, ["policy", "deck"], [[label for _, label, _ in MEASURES[4:]] + ["games", "deals"]])
        + f"\n### The difference, game by game (`{best}`)\n\n{variants[-1] if variants else ''} − "
        f"{variants[0] if variants else ''} over the same (block, game, players, policy) (the deal streams are "
        "common; the decks differ, so the pairing is loose); Holm over the measures.\n\n"
        + (render(drows, "md") if drows else "Only one deck was run.\n")
        + f"\n### Per table size, `{best}`\n\n" + render(by_size_rows, "md")
        + "\n" + value_text + "\n"
        + manifest_section(man)
    )
    paths = [write_markdown(out_dir / "report.md", text), png_seats, png_jarls]
    return paths + ([png_ladder] if png_ladder else [])


def bundled_multi(out_dir: str | Path, quick: bool = False, jobs=None) -> list[Path]:
    """Run the bundled multiplayer scenario (seed 2026) into ``out_dir/valhalla-multi/run``, the heroes against
    a field of `builder` (seed 2030) and a small ladder with `search` (seed 2031) into
    ``out_dir/valhalla-multi/lineups-run``, and write the report."""
    from simkit.core import loader, registry
    from simkit.core.report import run_bundled
    from simkit.games.valhalla.multi.lineups import play_heroes

    base = Path(out_dir) / "valhalla-multi"
    run = run_bundled("valhalla/multi.toml", base / "run", 100 if quick else GAMES, seed=SEED, jobs=jobs)
    man = results.manifest(run)
    heroes = list(man.get("policies") or {})
    sim = loader.load(registry.scenarios_dir() / "valhalla" / "multi.toml",
                      [f"play={[*heroes, 'search']}".replace("'", '"')]).simulation
    n = 600 if quick else LINEUP_GAMES
    lineups = play_heroes(sim, heroes, FIELD, list(man.get("players") or [2, 3, 4, 5, 6]), "valkyries", n,
                          LINEUP_SEED)
    sp = None if quick else SEARCH_PRECISION  # the quick report's 6 games state no precision
    ns = 6 if quick else games_for_precision(sp, block=SEARCH_PLAYERS)
    search = play_heroes(sim, [*heroes, "search"], FIELD, [SEARCH_PLAYERS], "valkyries", ns, SEARCH_SEED)
    rows = base / "lineups-run"  # the rows behind the ladder, kept beside the run (not committed)
    rows.mkdir(parents=True, exist_ok=True)
    lineups.write_parquet(rows / "lineups.parquet")
    search.write_parquet(rows / "search.parquet")
    # the seat answers under the other side of each open rule reading, the best practical policy in every seat
    best = top_practical(ladder_rungs(lineups) if lineups.height else None, heroes[0])
    reading_runs = {}
    for name, _desc, sets, sizes in READINGS:
        over = [f'play=["{best}"]', *sets] + ([f"players={sizes}"] if sizes else [])
        reading_runs[name] = run_bundled("valhalla/multi.toml", base / f"run-{name}", 100 if quick else GAMES,
                                         seed=SEED, jobs=jobs, overrides=over)
    spec = next(v for name, kind, v in sim.policy_specs if name == "search")
    info = {"field": FIELD, "games": n, "seed": LINEUP_SEED, "search_seed": SEARCH_SEED, "search_precision": sp,
            "search": search_words(spec)}
    return multi_report(run, base, lineups, search, info, reading_runs)
