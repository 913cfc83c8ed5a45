"""The Valeria: Card Kingdoms report: the seat advantage at 2 to 5 players, the 2E Herald against the 1E
consolation, the Monster Event variant, a Citizen and Domain value table and the skill ladder (issue 22).

``bundled_report(out_dir)`` plays, from root seed 2026: the skill ladder (``scenarios/valeria/ladder.toml``: a hero
in every seat against a field, for each practical field; then `search` on a small sample against the strongest
field), which names the strongest practical policy (the heuristic or learned policy with the best mean win rate
over the fields);
that policy in every seat at 2, 3, 4 and 5 players (``scenarios/valeria/players.toml``) under the 2E Herald and
under the 1E consolation, and with the Monster Event variant (``rules.monster_events = true``), on the same deals;
and the 4-player games again with what each seat owned at the end
(``ownership.py``). It writes ``out_dir/valeria/report.md`` and its plots. Seats are numbered in turn order from 1
(the first player; seat 0 in the rows). The deal (``block``, ``game``) is the unit of every interval.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl

from simkit.core import results
from simkit.core.report import (
    DETAILS_MARKER, STAND_IN_NOTICE, TABLE_KINDS, extreme, interval, lead_paragraph, manifest_section, run_bundled,
    tie_words, write_markdown,
)
from simkit.core.report import interval as _iv  # a rate with its 95% interval
from simkit.core.stats import (
    Estimate, clustered_difference, clustered_difference_p, clustered_mean, clustered_rate, holm, paired_difference,
    overlapping, paired_rate_difference,
)
from simkit.core.tables import render, render_parts

SEED = 2026
SEARCH_SEED = 2027
GAMES = 4_000  # deals per player count and rule set
LADDER_GAMES = 2_000  # games per cell (4 seats) of each heuristic ladder
# the ladder with `search` (about 0.04 CPU-s a game) is played in blocks of SEARCH_BLOCK deals until every rung's
# 95% interval is within ±SEARCH_PRECISION, at most SEARCH_CAP deals
SEARCH_PRECISION = 0.05
SEARCH_BLOCK = 10
SEARCH_CAP = 200
FIELDS = ("economy", "hunter", "hunter_tuned", "learned")  # the practical fields of the ladder
HEURISTICS = ("economy", "hunter", "hunter_tuned", "learned", "random")  # the ladder's policies but `search`
FAMILY = 0.05  # family-wise level of every Holm verdict
CARD_PLAYERS = 4
MIN_DEALS = 30  # a card is tested when at least this many deals have an owning seat and as many a seat without
CPU_NOTE = ("about 100 CPU-seconds with the numba kernels' compilation (a few minutes of wall time on the 2 cores "
            "of the development machine)")




def _pd(d, digits: int = 3) -> str:
    """A paired difference with its 95% interval, signed."""
    return _iv(d, digits, signed=True)


def _binom_p(k: int, n: int, p0: float) -> float:
    from scipy.stats import binomtest

    return float(binomtest(k, n, p0).pvalue) if n else 1.0


# ------------------------------------------------------------------------------------------- rows to numbers

def game_rows(frame) -> pl.DataFrame:
    """The per-seat rows of a mirror run (``opponent = "self"``: every seat of every game is a row), collected."""
    f = frame.collect() if isinstance(frame, pl.LazyFrame) else frame
    return f.with_columns(pl.col("won").cast(pl.Int64), pl.col("tie").cast(pl.Int64))


def seat_shares(rows: pl.DataFrame) -> list[dict]:
    """Per player count and seat: the seat's share of the **decided** games (a sole winner; a game whose win is
    shared after the tie-break counts for no seat and is left out, so the shares of a count add up to 1 and the
    fair share is 1/n), its 95% interval with the deal as the unit (:func:`clustered_rate`: one row per seat per
    deal), an exact binomial test against 1/n, and Holm's adjustment over every seat of every count."""
    out = []
    decided = rows.filter(pl.col("tie") == 0)
    for (n_p, seat), g in sorted(decided.group_by(["players", "seat"]), key=lambda x: x[0]):
        g = g.sort("block", "game")
        y = g["won"].to_numpy()
        e = clustered_rate(y, np.ones(len(y)))
        k, n = int(y.sum()), len(y)
        out.append({"players": int(n_p), "seat": int(seat), "k": k, "n": n, "share": e, "fair": 1 / int(n_p),
                    "p": _binom_p(k, n, 1 / int(n_p)),
                    "deals": int(rows.filter(pl.col("players") == n_p, pl.col("seat") == seat).height)})
    for r, q in zip(out, holm([r["p"] for r in out])):
        r["p_holm"] = q
        r["verdict"] = ("favoured" if r["share"].estimate > r["fair"] else "disfavoured") if q < FAMILY else "fair"
    return out


def per_game(rows: pl.DataFrame) -> pl.DataFrame:
    """One row per deal and player count: rounds, the luck gap (the income per round of the seat that harvested
    the most Resources per round less that of the seat that harvested the fewest) and the unluckiest harvester's
    win (the seat with the fewest Resources harvested per round won outright; seats tied for fewest share it)."""
    low = pl.col("income_per_round") == pl.col("income_per_round").min()
    return (rows.group_by("players", "block", "game")
            .agg(rounds=pl.col("rounds").first(),
                 gap=pl.col("income_per_round").max() - pl.col("income_per_round").min(),
                 unlucky=(pl.col("won").cast(pl.Float64) * low.cast(pl.Float64)).sum() / low.cast(pl.Float64).sum(),
                 decided=1 - pl.col("tie").first())
            .sort("players", "block", "game"))


def _mean(x: np.ndarray) -> Estimate:
    return clustered_mean(np.asarray(x, float), np.ones(len(x)))


def herald_rows(herald: pl.DataFrame, consolation: pl.DataFrame) -> tuple[list[dict], list[dict], dict]:
    """The 2E Herald against the 1E consolation on the same deals: per player count and seat (win share of the
    decided games, income per round, "any 1 Resource" gifts per roll) and per player count (rounds, the luck gap,
    the unluckiest harvester's win), each with the paired difference Herald − consolation over the deals."""
    by_seat = []
    sh, sc = ({(r["players"], r["seat"]): r for r in seat_shares(f)} for f in (herald, consolation))
    for key in sorted(sh):
        n_p, seat = key
        row = {"players": n_p, "seat": seat + 1}
        for label, f, shares in (("2E", herald, sh), ("1E", consolation, sc)):
            g = f.filter(pl.col("players") == n_p, pl.col("seat") == seat)
            row[f"win share {label}"] = _iv(shares[key]["share"])
            row[f"income/round {label}"] = _iv(_mean(g["income_per_round"].to_numpy()), 2)
            row[f"gifts/roll {label}"] = _iv(_mean(g["herald_per_roll"].to_numpy()))
        row["deals"] = int(herald.filter(pl.col("players") == n_p, pl.col("seat") == seat).height)
        by_seat.append(row)
    gh, gc = per_game(herald), per_game(consolation)
    both = gh.join(gc, on=["players", "block", "game"], suffix="_1e")
    by_count, info = [], {}
    for (n_p,), g in sorted(both.group_by(["players"]), key=lambda x: x[0]):
        n_p = int(n_p)
        cell = {}
        for col, name in (("rounds", "rounds"), ("gap", "luck gap"), ("unlucky", "unluckiest wins")):
            a, b = g[col].to_numpy().astype(float), g[f"{col}_1e"].to_numpy().astype(float)
            d = a - b
            cell[col] = (_mean(a), _mean(b), paired_difference(len(d), float(d.sum()), float((d * d).sum())))
        info[n_p] = cell
        by_count.append({
            "players": n_p,
            "rounds 2E": _iv(cell["rounds"][0], 2), "rounds 1E": _iv(cell["rounds"][1], 2),
            "rounds 2E − 1E": _pd(cell["rounds"][2], 2),
            "luck gap 2E": _iv(cell["gap"][0], 2), "luck gap 1E": _iv(cell["gap"][1], 2),
            "luck gap 2E − 1E": _pd(cell["gap"][2], 2),
            "unluckiest wins 2E": _iv(cell["unlucky"][0]), "unluckiest wins 1E": _iv(cell["unlucky"][1]),
            "unluckiest 2E − 1E": _pd(cell["unlucky"][2]),
            "deals": len(g)})
    return by_seat, by_count, info


# ------------------------------------------------------------------------------------------- Monster Events

END_KINDS = ("exhausted", "monsters", "domains", "capped")  # how a game ends: the conditions that held


def event_games(rows: pl.DataFrame) -> pl.DataFrame:
    """One row per deal and player count: turns, rounds, the end conditions (a 0/1 column per ``END_KINDS``),
    Monsters slain per round (Events included) and Events slain."""
    g = (rows.group_by("players", "block", "game")
         .agg(turns=pl.col("turns").first(), rounds=pl.col("rounds").first(), ended=pl.col("ended").cast(pl.String).first(),
              slain=pl.col("slain").first(), events_slain=pl.col("events_slain").first())
         .sort("players", "block", "game"))
    return g.with_columns(pace=pl.col("slain") / pl.max_horizontal(pl.col("rounds"), pl.lit(1)),
                          **{f"end_{k}": pl.col("ended").str.contains(k).cast(pl.Int64) for k in END_KINDS})


def event_rows(on: pl.DataFrame, off: pl.DataFrame) -> tuple[list[dict], list[dict], dict]:
    """The variant on against off on the same deals: per player count the turns, the pace (Monsters slain per
    round), the Events slain and how games end, each with the paired difference on − off over the deals (means:
    :func:`paired_difference`; 0/1 outcomes: :func:`paired_rate_difference`); per count and seat the win share of
    the decided games on and off (:func:`seat_shares`) and the paired difference of the seat's sole wins over all
    deals."""
    both = event_games(on).join(event_games(off), on=["players", "block", "game"], suffix="_off")
    by_count, info = [], {}
    for (n_p,), g in sorted(both.group_by(["players"]), key=lambda x: x[0]):
        n_p = int(n_p)
        cell = {}
        for col in ("turns", "pace", "events_slain"):
            a, b = g[col].to_numpy().astype(float), g[f"{col}_off"].to_numpy().astype(float)
            d = a - b
            cell[col] = (_mean(a), _mean(b), paired_difference(len(d), float(d.sum()), float((d * d).sum())))
        for k in END_KINDS:
            a, b = g[f"end_{k}"].to_numpy(), g[f"end_{k}_off"].to_numpy()
            cell[k] = (clustered_rate(a, np.ones(len(a))), clustered_rate(b, np.ones(len(b))),
                       paired_rate_difference(b, a))
        info[n_p] = cell
        by_count.append({
            "players": n_p, "turns on": _iv(cell["turns"][0], 1), "turns off": _iv(cell["turns"][1], 1),
            "turns on − off": _pd(cell["turns"][2], 2),
            "slain/round on": _iv(cell["pace"][0]), "slain/round off": _iv(cell["pace"][1]),
            "slain/round on − off": _pd(cell["pace"][2]),
            "Events slain on": _iv(cell["events_slain"][0], 2),
            **{f"ends: {k} on": _iv(cell[k][0]) for k in END_KINDS[:3]},
            **{f"ends: {k} off": _iv(cell[k][1]) for k in END_KINDS[:3]},
            "capped on/off": f"{cell['capped'][0].estimate:.3f}/{cell['capped'][1].estimate:.3f}",
            "deals": len(g)})
    s_on, s_off = ({(r["players"], r["seat"]): r for r in seat_shares(f)} for f in (on, off))
    by_seat = []
    for key in sorted(s_on):
        n_p, seat = key
        a = on.filter(pl.col("players") == n_p, pl.col("seat") == seat).sort("block", "game")["won"].to_numpy()
        b = off.filter(pl.col("players") == n_p, pl.col("seat") == seat).sort("block", "game")["won"].to_numpy()
        d = paired_rate_difference(b, a)
        info[n_p].setdefault("seats", {})[seat] = (s_on[key]["share"], s_off[key]["share"], d)
        by_seat.append({"players": n_p, "seat": seat + 1, "win share on": _iv(s_on[key]["share"]),
                        "win share off": _iv(s_off[key]["share"]), "fair": f"{1 / n_p:.3f}",
                        "sole wins on − off (paired)": _pd(d), "deals": len(a)})
    return by_count, by_seat, info


def event_sentence(policy: str, info: dict, games: int) -> str:
    """The variant in one paragraph, numbers first: game length in turns, the pace, how games end, and the first
    and the last seat's share, on against off at each count."""
    turns = "; ".join(f"{n}p {_iv(info[n]['turns'][0], 1)} against {_iv(info[n]['turns'][1], 1)} "
                      f"({_pd(info[n]['turns'][2], 2)})" for n in sorted(info))
    pace = "; ".join(f"{n}p {_iv(info[n]['pace'][0])} against {_iv(info[n]['pace'][1])}" for n in sorted(info))
    same = all(f"{info[n]['exhausted'][0].estimate:.3f}" == f"{info[n]['exhausted'][1].estimate:.3f}" for n in info)
    every = all(f"{info[n]['exhausted'][k].estimate:.3f}" == "1.000" for n in info for k in (0, 1))
    ends = ("all, on and off, at every count" if every else
            "; ".join(f"{n}p {info[n]['exhausted'][0].estimate:.3f} against {info[n]['exhausted'][1].estimate:.3f}"
                      for n in sorted(info)) + (" (the same on and off)" if same else ""))
    seats = []
    for n in sorted(info):
        ss = info[n]["seats"]
        first, last = ss[0], ss[max(ss)]
        seats.append(f"{n}p first seat {_iv(first[0])} against {_iv(first[1])}, last seat {_iv(last[0])} against "
                     f"{_iv(last[1])}")
    longer = [n for n in sorted(info) if info[n]["turns"][2].low > 0]
    shorter = [n for n in sorted(info) if info[n]["turns"][2].high < 0]
    moved = [f"{n}p seat {s + 1}" for n in sorted(info) for s, v in sorted(info[n]["seats"].items())
             if v[2].low > 0 or v[2].high < 0]
    read = ("Read: the variant " + ("lengthens the game at " + _counts(longer) if longer else "")
            + (" and " if longer and shorter else "") + ("shortens it at " + _counts(shorter) if shorter else "")
            + ("changes the game's length at no player count" if not longer and not shorter else "")
            + "; the seats whose sole-win rate moves (paired 95% interval excluding 0): "
            + (", ".join(moved) if moved else "none") + ".")
    return (f"**The Monster Event variant** (`{policy}` in every seat, the same {games:,} deals per count, variant "
            f"on against off, paired deal by deal): game length in turns {turns}; Monsters slain per round (Events "
            f"included) {pace}; games ended by the Exhausted stacks: {ends}; seat win shares (decided games) "
            + "; ".join(seats) + ". " + read)


# ------------------------------------------------------------------------------------------- the value table

def value_table(owned: dict, cards, policy: str, players: int = CARD_PLAYERS,
                estimates: dict | None = None) -> tuple[list[dict], int]:
    """Per Citizen (owned at least once at the end) and per Domain (built): the owning seats' win rate (sole wins)
    against the other seats', and the difference, the deal as the unit (:func:`clustered_difference`); the flag is
    its t-test (:func:`clustered_difference_p`), Holm-corrected over every Citizen and Domain with owners
    (family-wise ``FAMILY``). A card no seat owned says "never bought by POLICY" (a Domain: "never built"); one
    with owners (or seats without it) in fewer than ``MIN_DEALS`` deals is shown, not tested (the cluster-robust
    variance needs many clusters of each kind). ``estimates``, when given, receives each tested card's effect
    (``{card: Estimate}``, the ``effect`` column's numbers)."""
    keep = owned["players"] == players
    n_rows = int(keep.sum())
    mask = owned["winners"][keep]
    seats = np.arange(players)
    winners = (mask[:, None] >> seats[None, :]) & 1
    sole = winners.sum(axis=1) == 1
    won = (winners * sole[:, None]).astype(float)  # rows x seats
    items = []
    for k, c in enumerate(cards.kinds[:10]):
        has = owned["own"][keep][:, :players, k] > 0
        nums = "/".join(str(x) for x in c["numbers"])
        items.append(("Citizen", c["name"], f"{nums}; {c['cost']} Gold", has, owned["own"][keep][:, :players, k]))
    for d, x in enumerate(cards.domains):
        has = owned["domains"][keep][:, :players, d] > 0
        items.append(("Domain", x["name"], f"{x['cost']} Gold; {x['vp']} VP", has, None))
    rows, tested = [], []
    for kind, name, what, has, copies in items:
        m1 = has.sum(axis=1).astype(float)
        m0 = players - m1
        y1 = (won * has).sum(axis=1)
        y0 = (won * ~has).sum(axis=1)
        row = {"card": name, "type": kind, "numbers; cost": what,
               "seats owning": f"{m1.sum() / (players * n_rows):.3f}"}
        row["copies (owners)"] = f"{copies[has].mean():.2f}" if copies is not None and has.any() else "–"
        if not has.any() or has.all():
            verb = "bought" if kind == "Citizen" else "built"
            row.update({"win with": "–", "win without": "–",
                        "effect": f"never {verb} by `{policy}`" if not has.any() else "owned by every seat",
                        "p (Holm)": "–", "flag": ""})
            rows.append(row)
            continue
        row.update({"win with": _iv(clustered_rate(y1, m1)), "win without": _iv(clustered_rate(y0, m0))})
        deals1, deals0 = int((m1 > 0).sum()), int((m0 > 0).sum())
        if min(deals1, deals0) < MIN_DEALS:
            row.update({"effect": f"owners in {deals1} deals, others in {deals0}: too few to test",
                        "p (Holm)": "–", "flag": ""})
            rows.append(row)
            continue
        e = clustered_difference(y1, m1, y0, m0)
        if estimates is not None:
            estimates[name] = e
        row.update({"effect": _iv(e), "_p": clustered_difference_p(y1, m1, y0, m0), "_e": e.estimate})
        tested.append(row)
        rows.append(row)
    for r, q in zip(tested, holm([r["_p"] for r in tested])):
        r["p (Holm)"] = f"{q:.2g}" if q >= 0.001 else "< 0.001"
        r["flag"] = ("above zero" if r["_e"] > 0 else "below zero") if q < FAMILY else ""
    flagged = sum(1 for r in tested if r["flag"])
    for r in rows:
        r.pop("_p", None)
        r.pop("_e", None)
    return rows, flagged


# ------------------------------------------------------------------------------------------- the ladder

def field_ladders(games: int, seed: int, jobs: int = 1) -> dict[str, tuple[list, dict]]:
    """The heuristic ladder against each field of ``FIELDS`` (``ladder.toml`` with ``opponent`` set)."""
    from simkit.core.ladder import described_ladder
    from simkit.core.registry import scenarios_dir

    path = scenarios_dir() / "valeria" / "ladder.toml"
    return {f: described_ladder(path, list(HEURISTICS), games=games, seed=seed, jobs=jobs,
                                overrides=[f'opponent="{f}"'], block_size=500) for f in FIELDS}


def strongest(ladders: dict) -> tuple[str, dict[str, Estimate]]:
    """The practical policy (a heuristic or the learned policy; not random, not `search`) with the highest mean
    win rate over the fields, and every practical policy's mean (:func:`mean_over_fields`)."""
    means = mean_over_fields(ladders)
    return max(sorted(means), key=lambda p: means[p].estimate), means


def mean_over_fields(ladders: dict) -> dict[str, Estimate]:
    """Each practical policy's (heuristic or learned) mean win rate over the fields with its 95% interval (the
    fields are independent games: the mean's standard error is the root of the summed squared standard errors,
    over the number of fields)."""
    z = 1.959964
    rates: dict[str, list] = {}
    for rungs, _ in ladders.values():
        for r in rungs:
            if r.kind in TABLE_KINDS:
                rates.setdefault(r.policy, []).append(r)
    out = {}
    for p, rs in rates.items():
        m = float(np.mean([r.value for r in rs]))
        se = float(np.sqrt(sum(((r.high - r.low) / (2 * z)) ** 2 for r in rs))) / len(rs)
        out[p] = Estimate(m, m - z * se, m + z * se, sum(r.games for r in rs))
    return out


def field_plot(path: Path, ladders: dict, games: int) -> Path:
    """The skill ladder's plot: every policy's win rate in one seat against each field (three of one heuristic),
    one bar colour per field, 95% intervals: the whole table the strongest policy is named from."""
    from simkit.core.plotting import grouped_bars

    order = [r.policy for r in next(iter(ladders.values()))[0]]
    series = {}
    for f, (rungs, _) in ladders.items():
        by = {r.policy: r for r in rungs}
        series[f"against three {f}"] = ([by[p].value for p in order], [by[p].low for p in order],
                                        [by[p].high for p in order])
    return grouped_bars(path, order, series, title=f"Skill ladder: one seat against each field ({games:,} games "
                        "per cell)", ylabel="win rate of the one seat")


# ------------------------------------------------------------------------------------------- the policy check

def policy_tables(rows_by_policy: dict[str, pl.DataFrame]) -> dict[int, dict[str, dict[str, Estimate]]]:
    """The seat ranking under each policy: ``{players: {policy: {"seat k": share of decided games}}}`` from each
    policy's mirror rows (:func:`seat_shares`, the cells of the seat table)."""
    out: dict[int, dict[str, dict[str, Estimate]]] = {}
    for p, rows in rows_by_policy.items():
        for r in seat_shares(rows):
            out.setdefault(r["players"], {}).setdefault(p, {})[f"seat {r['seat'] + 1}"] = r["share"]
    return out


def seat_pair_p(rows: pl.DataFrame, players: int):
    """``(a, b) -> p``: the two-sided p-value that seats ``a`` and ``b`` ("seat k") win equal shares of the decided
    games at ``players``, paired deal by deal (a seat's win is the other's loss, so the two shares are not
    independent): Student's t of the per-deal difference of their sole wins over the decided deals."""
    from scipy.stats import t as student

    g = rows.filter((pl.col("players") == players) & (pl.col("tie") == 0)).sort("block", "game", "seat")
    won = g["won"].to_numpy().astype(float).reshape(-1, players)  # a mirror run: every seat of a game is a row

    def p(a: str, b: str) -> float:
        d = won[:, int(a.split()[1]) - 1] - won[:, int(b.split()[1]) - 1]
        n, mean = len(d), float(d.mean()) if len(d) else 0.0
        sd = float(d.std(ddof=1)) if n > 1 else 0.0
        if sd == 0:
            return 1.0 if mean == 0 else 0.0
        return float(2 * student.sf(abs(mean) / (sd / np.sqrt(n)), n - 1))

    return p


def policy_comparisons(rows_by_policy: dict[str, pl.DataFrame], reference: str) -> dict[int, tuple[dict, list]]:
    """``{players: (table, comparisons)}``: each player count's seat ranking under every policy
    (:func:`policy_tables`) and its :func:`simkit.core.sensitivity.sensitivity` against ``reference``'s (pairs
    paired deal by deal, :func:`seat_pair_p`; Holm within a count at ``FAMILY`` / the number of counts); the
    counts that ``reference`` and another policy both played."""
    from simkit.core.sensitivity import sensitivity

    tables = policy_tables(rows_by_policy)
    counts = [n for n in sorted(tables) if reference in tables[n] and len(tables[n]) > 1]
    out = {}
    for n in counts:
        table = tables[n]
        pair = {p: seat_pair_p(rows_by_policy[p], n) for p in table}
        out[n] = (table, sensitivity(table, reference, FAMILY / len(counts), pair_p=lambda p, a, b, pair=pair:
                                     pair[p](a, b)))
    return out


def policy_clause(n_p: int, table: dict[str, dict[str, Estimate]], comps: list) -> str:
    """The lead's word on the policy check at its player count ``n_p`` (``table``, ``comps``: that count's
    :func:`policy_comparisons`): for each other policy with a resolved flip of two seats, its own most and least
    favoured seat with their shares (the policy section's cells); with none, that the ranking holds."""
    changed = [c for c in comps if c.resolved]
    if not changed:
        return (f"; the seat ranking at {n_p} players holds under "
                f"{' and '.join(f'`{c.policy}`' for c in comps)} (no flip beyond the noise)")
    parts = []
    show = lambda g: f"the {_ord(int(g.split()[1]))}"  # noqa: E731  "seat 3" -> "the third"
    for c in changed:
        row = table[c.policy]
        hi, lo = max(row, key=lambda g: row[g].estimate), min(row, key=lambda g: row[g].estimate)
        parts.append(f"with `{c.policy}` in every seat the most favoured is {show(hi)}, {interval(row[hi])}, and "
                     f"the least {show(lo)}, {interval(row[lo])}")
    return "; the ranking depends on the policy: " + "; ".join(parts)


def policy_section(rows_by_policy: dict[str, pl.DataFrame], reference: str, games: int,
                   checked: dict | None = None) -> tuple[str, str]:
    """``(sentence, section)``: does the seat answer change with the policy? Each player count's seat ranking
    (:func:`policy_tables`) under every other policy of ``rows_by_policy`` (each in every seat, on the same deals)
    against ``reference``'s, through :func:`simkit.core.sensitivity.sensitivity`: a pair's p-value paired deal by
    deal (:func:`seat_pair_p`), Holm over every pair of every policy compared within a count at ``FAMILY`` / the
    number of counts (Bonferroni over the counts: family-wise ``FAMILY`` over the section). ("", "") with one
    policy. ``checked``: :func:`policy_comparisons` of the same rows, when the caller has it already (the lead
    reads it too)."""
    from simkit.core.sensitivity import markdown as sens_markdown
    from simkit.core.sensitivity import ranking_sentence

    if checked is None:
        checked = policy_comparisons(rows_by_policy, reference)
    if not checked:
        return "", ""
    counts = list(checked)
    alpha = FAMILY / len(counts)
    others = [p for p in rows_by_policy if p != reference]
    decided = {(p, r["players"]): r["n"] for p, rows in rows_by_policy.items() for r in seat_shares(rows)}
    sentences, parts = [], []
    for n in counts:
        table, comps = checked[n]
        sentences.append(f"{n} players: " + ranking_sentence(comps, table, reference, "seat", "seats", alpha))
        ranks = {p: {g: 1 + sum(o.estimate > e.estimate for o in row.values()) for g, e in row.items()}
                 for p, row in table.items()}
        rows = [{"seat": g, **{f"`{p}`" + (" (strongest)" if p == reference else ""):
                               f"{_iv(table[p][g])} ({ranks[p][g]})" for p in table},
                 **{f"decided games, `{p}`": decided[(p, n)] for p in table}, "deals": games}
                for g in table[reference]]
        parts.append(f"### {n} players\n\n" + render(rows, "md") + "\n"
                     + sens_markdown(comps, reference, f"seats at {n} players", alpha) + "\n")
    level = (f"{alpha:.3g} (5% split over the {len(counts)} player counts, Bonferroni)" if len(counts) > 1 else
             f"{alpha:.3g}")
    sentence = (f"Does the seat answer change with the policy ({', '.join(f'`{p}`' for p in others)} in every "
                f"seat on the same {games:,} deals per count, against `{reference}`; family-wise {FAMILY} over the "
                f"{len(counts)} player counts, {alpha:.3g} in each)? " + " ".join(sentences))
    section = (
        "## Does the seat ranking depend on the policy?\n\n"
        f"{sentence}\n\n"
        "A balance conclusion holds for a game *and* a way of playing it. The seat table above is played by "
        f"`{reference}` (the skill ladder's strongest practical policy) in every seat; here every other practical "
        f"policy of the ladder ({', '.join(f'`{p}`' for p in others)}; the random baseline is left out, and so is `search`: "
        f"too few games) plays every seat at {', '.join(map(str, counts))} players on the same {games:,} deals per "
        f"count (root seed {SEED}: the same set-up and the same streams of dice, common random numbers), 2E "
        "Herald. Each count's ranking of the seats by their share of the decided games (the seat table's cells; "
        f"rank 1 is the highest share) is set against `{reference}`'s: Spearman's rank correlation and the pairs "
        "of seats whose order flips. A flip is *resolved* when the games show both orders: the larger of the two "
        "policies' two-sided p-values for the pair's difference (each paired deal by deal, Student's t of the "
        "difference of the two seats' sole wins over the decided deals: one seat's win is the other's loss, so "
        "their shares are not independent), **Holm-corrected over every pair of every policy compared** within "
        f"a player count, is below {level}, so the chance of calling any flip where the orders truly agree is at "
        "most 5% over the whole section.\n\n" + "".join(parts))
    return sentence, section


# the Herald's measures (herald_rows' info keys), the column words, and a significant difference's word each way
HERALD_MEASURES = (("rounds", "rounds", "longer", "shorter"), ("gap", "luck gap", "wider", "narrower"),
                   ("unlucky", "unluckiest wins", "more", "fewer"))
# ... and in words: what the Herald does to it each way, and neither way
HERALD_WORDS = {"rounds": ("lengthens the game", "shortens the game", "the game's length"),
                "gap": ("widens the luck gap", "narrows the luck gap", "the luck gap"),
                "unlucky": ("raises the unluckiest harvester's wins", "lowers the unluckiest harvester's wins",
                            "the unluckiest harvester's wins")}


def herald_policy_check(infos: dict[str, dict], reference: str, alpha: float) -> tuple[list[dict], list[tuple]]:
    """Does the Herald's answer change with the policy? ``infos``: each policy's :func:`herald_rows` info (its own
    2E Herald and 1E consolation runs, each policy in every seat, on the same deals). Every policy's paired
    Herald − consolation difference of each measure at each player count is tested (its two-sided p), Holm over
    all of them at ``alpha``. Returns ``(rows, changes)``: a row per player count and measure with each policy's
    difference (the word of a Holm-significant one: "shorter", "narrower", ...), and the *resolved changes*
    ``(players, measure label, policy up, policy down)``: a measure at a count that two policies move beyond the
    noise in opposite directions."""
    policies = [reference, *(p for p in infos if p != reference)]
    counts = sorted(set.intersection(*(set(infos[p]) for p in policies)))
    keys = [(n, col, p) for n in counts for col, *_ in HERALD_MEASURES for p in policies]
    adj = dict(zip(keys, holm([infos[p][n][col][2].p_value for n, col, p in keys])))
    rows, changes = [], []
    for n in counts:
        for col, label, up, down in HERALD_MEASURES:
            row = {"players": n, "Herald − consolation": label}
            sign = {}
            for p in policies:
                d = infos[p][n][col][2]
                sig = adj[(n, col, p)] < alpha
                if sig:
                    sign[p] = 1 if d.estimate > 0 else -1
                row[f"_{p}_{col}"] = sign.get(p, 0)
                row[f"`{p}`" + (" (strongest)" if p == reference else "")] = (
                    _pd(d, 2 if col != "unlucky" else 3) + (f" {up if d.estimate > 0 else down}" if sig else ""))
            ups = [p for p, v in sign.items() if v > 0]
            downs = [p for p, v in sign.items() if v < 0]
            if ups and downs:
                changes.append((n, label, ups[0], downs[0]))
            rows.append(row)
    return rows, changes


def herald_policy_words(rows: list[dict], policy: str) -> str:
    """What the Herald does under ``policy`` in words, from :func:`herald_policy_check`'s rows (the Holm verdicts of
    its column)."""
    bits = []
    for col, *_ in HERALD_MEASURES:
        moved = {v: [r["players"] for r in rows if r.get(f"_{policy}_{col}") == v] for v in (1, -1)}
        said = [f"{HERALD_WORDS[col][i]} at {_counts(moved[v])}" for i, v in enumerate((1, -1)) if moved[v]]
        bits.append(" and ".join(said) if said else f"moves {HERALD_WORDS[col][2]} at no player count")
    return "the Herald " + "; ".join(bits)


def herald_policy_sentence(changes: list[tuple], tests: int, alpha: float) -> str:
    """The Herald check in words (:func:`herald_policy_check`'s changes)."""
    if not changes:
        return (f"**The Herald's effect does not change direction with the policy:** no measure at any player count "
                f"moves one way under one policy and the other way under another beyond the noise (Holm over all "
                f"{tests} paired differences, family-wise {alpha:.3g}).")
    return ("**The Herald's effect changes direction with the policy:** "
            + "; ".join(f"at {n} players the {label} moves up under `{a}` and down under `{b}`"
                        for n, label, a, b in changes)
            + f" (each beyond the noise: Holm over all {tests} paired differences, family-wise {alpha:.3g}).")


def answers_section(infos: dict[str, dict], effects: dict[str, dict[str, Estimate]], reference: str,
                    games: int) -> tuple[str, str]:
    """``(sentence, section)``: do the Herald's and the Citizens' answers change with the policy? The Herald's
    effects under each policy (:func:`herald_policy_check`), and the Citizens' and Domains' ranking by effect
    (owners' win rate less the other seats', :func:`value_table`) under each policy against ``reference``'s
    (:func:`simkit.core.sensitivity.sensitivity` over the cards tested under every policy; a pair's p-value from the
    two effects' intervals, unpaired). The two checks share family-wise ``FAMILY``, half each (Bonferroni). ("", "")
    with one policy."""
    from simkit.core.sensitivity import markdown as sens_markdown
    from simkit.core.sensitivity import ranking_sentence, sensitivity

    if len(infos) < 2:
        return "", ""
    alpha = FAMILY / 2
    others = [p for p in infos if p != reference]
    h_rows, changes = herald_policy_check(infos, reference, alpha)
    h_text = herald_policy_sentence(changes, len(h_rows) * len(infos), alpha)
    comps = sensitivity(effects, reference, alpha)
    cards = [g for g in effects[reference] if all(g in effects[p] for p in effects)]
    c_text = ranking_sentence(comps, {p: {g: t[g] for g in cards} for p, t in effects.items()}, reference, "card",
                              "cards", alpha)
    who = ", ".join(f"`{p}`" for p in others)
    sentence = (f"Do the Herald's and the Citizens' answers change with the policy ({who} in every seat on the same "
                f"deals, against `{reference}`; family-wise {FAMILY} over both, {alpha:.3g} each)? Herald: {h_text} "
                f"Citizens and Domains ({CARD_PLAYERS} players): {c_text}")
    ranks = {p: {g: 1 + sum(o.estimate > e.estimate for o in (t[h] for h in cards)) for g, e in t.items() if g in cards}
             for p, t in effects.items()}
    order = sorted(cards, key=lambda g: ranks[reference][g])
    c_rows = [{"card": g, **{f"`{p}`" + (" (strongest)" if p == reference else ""):
                             f"{_iv(effects[p][g])} ({ranks[p][g]})" for p in effects}} for g in order]
    verdicts = "".join(f"- under `{p}`: {herald_policy_words(h_rows, p)}.\n" for p in infos)
    h_shown = [{k: v for k, v in r.items() if not k.startswith("_")} for r in h_rows]
    section = (
        "## Do the Herald and the Citizens depend on the policy?\n\n"
        f"{sentence}\n\n"
        f"The Herald section and the Citizens and Domains table above are played by `{reference}` in every seat. "
        f"Here every other practical policy of the ladder ({who}) plays every seat on the same {games:,} deals "
        f"per count (root seed {SEED}), under the 2E Herald and under the 1E consolation, and its "
        f"{CARD_PLAYERS}-player Herald games are replayed for what each seat owned at the end.\n\n"
        "### The 2E Herald against the 1E consolation, under each policy\n\n"
        "Each cell is the paired difference 2E − 1E over the deals (as in the Herald section's table), with its word "
        "when the difference is beyond the noise: its two-sided p, **Holm-corrected over every cell of the table**, "
        f"below {alpha:.3g}. The answer *changes* with the policy where one policy moves a measure up and another "
        "down, both beyond the noise.\n\n"
        + render(h_shown, "md") + "\n"
        + "In words (the table's verdicts):\n\n" + verdicts + "\n"
        f"### Citizens and Domains, under each policy ({CARD_PLAYERS} players)\n\n"
        "Each cell is the card's effect (the owners' win rate less the other seats', as in the Citizens and Domains "
        "table) and its rank under that policy (1: the highest), for the cards tested under every policy. The "
        f"ranking under each policy is set against `{reference}`'s: Spearman's rank correlation and the pairs of "
        "cards whose order flips; a flip is *resolved* when the larger of the two policies' p-values for the pair's "
        "difference (normal, from the two effects' intervals), **Holm-corrected over every pair of every policy "
        f"compared**, is below {alpha:.3g}. An effect is an association under that policy, not the card's "
        "causal worth.\n\n"
        + render(c_rows, "md") + "\n"
        + sens_markdown(comps, reference, "cards", alpha) + "\n")
    return sentence, section


# ------------------------------------------------------------------------------------------- plots

def seat_plot(path: Path, shares: list[dict]) -> Path:
    """Win share of the decided games by seat, one panel line per player count, with 95% intervals and 1/n."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from simkit.core.plotting import _save

    fig, ax = plt.subplots(figsize=(7, 4), dpi=110)
    counts = sorted({r["players"] for r in shares})
    for i, n_p in enumerate(counts):
        rs = [r for r in shares if r["players"] == n_p]
        x = np.array([r["seat"] + 1 for r in rs]) + (i - 1.5) * 0.06
        y = np.array([r["share"].estimate for r in rs])
        err = np.array([[r["share"].estimate - r["share"].low for r in rs],
                        [r["share"].high - r["share"].estimate for r in rs]])
        line = ax.errorbar(x, y, yerr=err, marker="o", ms=4, capsize=3, lw=1.4, label=f"{n_p} players")
        ax.axhline(1 / n_p, color=line[0].get_color(), ls=":", lw=1)
    ax.set_xticks(range(1, max(counts) + 1))
    ax.set_xlabel("seat (1 = first player)")
    ax.set_ylabel("share of decided games won")
    ax.set_title("Seat advantage (dotted: the fair 1/n)")
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    return _save(fig, Path(path))


def herald_plot(path: Path, info: dict) -> Path:
    """The luck gap and the unluckiest harvester's win rate by player count, 2E Herald and 1E consolation."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from simkit.core.plotting import _save

    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6), dpi=110)
    counts = sorted(info)
    for ax, col, label in ((axes[0], "gap", "luck gap (Resources per round)"),
                           (axes[1], "unlucky", "unluckiest harvester's win rate")):
        for j, (rule, name) in enumerate(((0, "2E Herald"), (1, "1E consolation"))):
            es = [info[n][col][rule] for n in counts]
            y = np.array([e.estimate for e in es])
            err = np.array([[e.estimate - e.low for e in es], [e.high - e.estimate for e in es]])
            ax.errorbar(np.array(counts) + (j - 0.5) * 0.08, y, yerr=err, marker="os"[j], capsize=3, label=name)
        if col == "unlucky":
            ax.plot(counts, [1 / n for n in counts], ls=":", color="grey", label="1/n")
        ax.set_xticks(counts)
        ax.set_xlabel("players")
        ax.set_ylabel(label)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle("The 2E Herald against the 1E consolation")
    fig.tight_layout()
    return _save(fig, Path(path))


# ------------------------------------------------------------------------------------------- the page

def _ord(seat: int) -> str:
    return {1: "first", 2: "second", 3: "third", 4: "fourth", 5: "fifth"}[seat]


TITLE = ("# Valeria: Card Kingdoms: seat advantage, the 2E Herald, the Monster Event variant, Citizens and Domains, "
         "the skill ladder")


def page_top(policy: str, shares: list[dict], info: dict, games: int, cards_line: str = "", ladder_line: str = "",
             event_line: str = "", policy_line: str = "", checked: dict | None = None) -> str:
    """The page's title, the stand-in notice, the one-sentence lead (:func:`lead_sentence`, with the policy check
    ``checked`` of :func:`policy_comparisons`) and the details (:func:`headline`: a paragraph and the per-count
    table)."""
    return (f"{TITLE}\n\n{STAND_IN_NOTICE}\n\n{lead_paragraph(lead_sentence(policy, shares, games, checked))}\n\n"
            + headline(policy, shares, info, games, cards_line, ladder_line, event_line, policy_line))


def lead_sentence(policy: str, shares: list[dict], games: int, checked: dict | None = None) -> str:
    """The page's lead: at the player count whose most uneven seat is farthest from the fair 1/n (in proportion),
    the least and the most favoured seat (share of decided games, the seat table's cells), each with the seats its
    interval cannot be told from as a tie; then, when ``checked`` (:func:`policy_comparisons`) covers that count,
    whether the ranking changes with the policy (:func:`policy_clause`)."""
    far = max(shares, key=lambda r: abs(r["share"].estimate * r["players"] - 1))
    n_p = far["players"]
    rs = {r["seat"]: r["share"] for r in shares if r["players"] == n_p}
    low, l_tied = extreme(rs, worst=True)
    high, h_tied = extreme(rs)
    show = lambda s: f"the {_ord(s + 1)}"  # noqa: E731
    n = f"(`{policy}` in every seat, 2E Herald, {games:,} deals per count)"
    if checked and n_p in checked:
        n += policy_clause(n_p, *checked[n_p])
    if high in l_tied:
        return (f"No seat stands out at {n_p} players: shares of decided games run from {interval(rs[low])} "
                f"({show(low)}) to {interval(rs[high])} ({show(high)}) against a fair {1 / n_p:.3f} {n}.")
    # seats the data cannot tell from either end are named once, after both (a lead stays one short sentence)
    mid = [s for s in l_tied if s in h_tied]
    l_own, h_own = [s for s in l_tied if s not in mid], [s for s in h_tied if s not in mid]
    from simkit.core.report import names

    most = tie_words(high, h_own, "", "most favoured", show, first=False)
    both = f"; the {names([_ord(s + 1) for s in mid])} {'ties' if len(mid) == 1 else 'tie'} with both (intervals overlap)" \
        if mid else ""
    return (f"{tie_words(low, l_own, f'seat at {n_p} players', 'least favoured', show)}, winning {interval(rs[low])} "
            f"of decided games against a fair {1 / n_p:.3f}; {most}, {interval(rs[high])}{both} {n}.")


def answer_rows(shares: list[dict], info: dict) -> list[dict]:
    """The details' numbers, one row per player count: the first and the most favoured seat's share of decided
    games, and the Herald against the consolation (luck gap, game length, the unluckiest harvester's wins)."""
    out = []
    for n_p in sorted({r["players"] for r in shares} | set(info)):
        rs = [r for r in shares if r["players"] == n_p]
        row = {"players": n_p}
        if rs:
            first = rs[0]
            best = max(rs, key=lambda r: r["share"].estimate)
            row.update({"first seat": _iv(first["share"]),
                        "most favoured seat": "the first" if best is first else
                        f"the {_ord(best['seat'] + 1)} {_iv(best['share'])}",
                        "fair": f"{1 / n_p:.3f}", "decided games (first seat)": first["n"]})
        c = info.get(n_p)
        if c:
            row.update({"luck gap 2E": _iv(c["gap"][0], 2), "luck gap 1E": _iv(c["gap"][1], 2),
                        "rounds 2E − 1E (paired)": _pd(c["rounds"][2], 2),
                        "unluckiest wins 2E": _iv(c["unlucky"][0]), "unluckiest wins 1E": _iv(c["unlucky"][1])})
        out.append(row)
    return out


def headline(policy: str, shares: list[dict], info: dict, games: int, cards_line: str = "",
             ladder_line: str = "", event_line: str = "", policy_line: str = "") -> str:
    """The details, below the lead: the Holm verdicts on the seats and the Herald's effect in words, then the
    table of the numbers behind them at each count (:func:`answer_rows`: the first seat's share and the extreme
    seat, the luck gap, game length and the unluckiest harvester under the Herald and the consolation)."""
    off = [r for r in shares if r["verdict"] != "fair"]
    fair = [r for r in shares if r["verdict"] == "fair"]
    if 2 * len(off) > len(shares):
        off_text = "all but " + (", ".join(f"{r['players']}p seat {r['seat'] + 1}" for r in fair) or "none")
    else:
        off_text = ", ".join(f"{r['players']}p seat {r['seat'] + 1} {r['verdict']}" for r in off) or "none"
    n_deals = min(info[n]["gap"][0].n for n in info)
    return (f"{DETAILS_MARKER} **Seat advantage** (share of decided games won, `{policy}` in every seat, 2E Herald, "
            f"{games:,} deals per count, 95% intervals with the deal as the unit; each count in the table below): "
            f"Holm over the {len(shares)} seats (family-wise {FAMILY}): {len(off)} off the fair 1/n ({off_text}). "
            f"**2E Herald against the 1E consolation** (the same deals, n = {n_deals:,} per count; the luck gap is "
            "the best less worst harvester's Resources per round in a game, game length is paired): "
            + herald_verdict(info) + (" " + event_line if event_line else "") + (" " + cards_line if cards_line
                                                                                 else "")
            + (" " + ladder_line if ladder_line else "") + (" " + policy_line if policy_line else "")
            + "\n\n" + render(answer_rows(shares, info), "md"))


def cards_sentence(rows: list[dict], policy: str) -> str:
    """The value table in one sentence: the flagged cards, highest effect first."""
    up = [r for r in rows if r.get("flag") == "above zero"]
    down = [r for r in rows if r.get("flag") == "below zero"]
    never = [r["card"] for r in rows if str(r["effect"]).startswith("never")]
    key = lambda r: -float(r["effect"].split(" ")[0])  # noqa: E731
    text = (f"**Citizens and Domains** (4 players, `{policy}`; the owners' win rate less the other seats', Holm): "
            + (", ".join(f"{r['card']} {r['effect']}" for r in sorted(up, key=key)) or "none") + " above zero; "
            + (", ".join(f"{r['card']} {r['effect']}" for r in sorted(down, key=key)) or "none") + " below")
    return text + (f"; never bought: {', '.join(never)}." if never else ".")


def ladder_sentence(ladders: dict, s_rungs, best: str) -> str:
    """The ladder in one sentence: each hero's win share against each field, and `search`'s."""
    bits = []
    for f, (rungs, _) in ladders.items():
        bits.append(f"against three `{f}`: " + ", ".join(f"`{r.policy}` {r.value:.3f} [{r.low:.3f}, {r.high:.3f}]"
                                                    for r in rungs) + f" (n = {rungs[0].games:,})")
    sr = next(r for r in s_rungs if r.policy == "search")
    return (f"**Skill ladder** (one seat of 4 against three of a field, every seat in turn; fair 0.25): "
            + "; ".join(bits) + f"; `search` wins {sr.value:.3f} [{sr.low:.3f}, {sr.high:.3f}] against three "
            f"`{best}` (n = {sr.games}).")


def herald_verdict(info: dict) -> str:
    """In words: at which player counts the paired 95% interval of Herald − consolation excludes 0, per measure."""
    bits = []
    for col, up, down, none in (
            ("rounds", "lengthens the game", "shortens the game", "changes the game's length"),
            ("gap", "widens the luck gap", "narrows the luck gap", "moves the luck gap"),
            ("unlucky", "raises the unluckiest harvester's wins", "lowers the unluckiest harvester's wins",
             "moves the unluckiest harvester's wins")):
        ups = [n for n in sorted(info) if info[n][col][2].low > 0]
        downs = [n for n in sorted(info) if info[n][col][2].high < 0]
        said = [f"{up} at {_counts(ups)}"] if ups else []
        said += [f"{down} at {_counts(downs)}"] if downs else []
        bits.append(" and ".join(said) if said else f"{none} at no player count")
    return "Read: the Herald " + "; ".join(bits) + " (paired 95% intervals that exclude 0)."


def _counts(ns: list[int]) -> str:
    return ", ".join(str(n) for n in ns) + " players"


def bundled_report(out_dir: str | Path, quick: bool = False, jobs=None) -> list[Path]:
    """Play the report's games (seed 2026; `search` 2027) and write ``out_dir/valeria/report.md`` with its plots."""
    from simkit.core import loader
    from simkit.core.ladder import VERDICT_NOTE, described_ladder, precision_note, table_rows
    from simkit.core.registry import scenarios_dir
    from simkit.games.valeria.cards import load_cards
    from simkit.games.valeria.ownership import owned_games

    base = Path(out_dir) / "valeria"
    base.mkdir(parents=True, exist_ok=True)
    games = 200 if quick else GAMES
    ladder_games = 100 if quick else LADDER_GAMES
    search_cap, search_block = (4, 2) if quick else (SEARCH_CAP, SEARCH_BLOCK)
    j = jobs or 1
    ladders = field_ladders(ladder_games, SEED, j)
    best, means = strongest(ladders)
    path = scenarios_dir() / "valeria" / "ladder.toml"
    s_rungs, s_desc = described_ladder(path, [*HEURISTICS, "search"], games=search_cap, seed=SEARCH_SEED, jobs=j,
                                       overrides=[f'opponent="{best}"'], block_size=search_block,
                                       precision=SEARCH_PRECISION)
    search_games = s_rungs[0].games
    play = f'play=["{best}"]'
    run_h = run_bundled("valeria/players.toml", base / "run" / "herald", games, seed=SEED, jobs=jobs,
                        overrides=[play])
    run_c = run_bundled("valeria/players.toml", base / "run" / "consolation", games, seed=SEED, jobs=jobs,
                        overrides=[play, 'rules.herald="consolation"'])
    run_e = run_bundled("valeria/players.toml", base / "run" / "events", games, seed=SEED, jobs=jobs,
                        overrides=[play, "rules.monster_events=true"])
    herald, consolation = game_rows(results.scan(run_h)), game_rows(results.scan(run_c))
    events = game_rows(results.scan(run_e))
    ev_count, ev_seat, ev_info = event_rows(events, herald)
    event_line = event_sentence(best, ev_info, games)
    shares = seat_shares(herald)
    by_seat, by_count, info = herald_rows(herald, consolation)
    sim = loader.load(scenarios_dir() / "valeria" / "players.toml", [play, f"players=[{CARD_PLAYERS}]"]).simulation
    owned = owned_games(sim, games, SEED, block_size=500)
    cards = load_cards(scenarios_dir() / "valeria" / "cards.toml")
    effects = {best: {}}
    vrows, flagged = value_table(owned, cards, best, estimates=effects[best])
    png_seat = seat_plot(base / "seat-advantage.png", shares)
    png_herald = herald_plot(base / "herald.png", info)
    # the plot shows the ladder the section's first table holds (every heuristic against the strongest's field,
    # ladder_games per cell), not the small `search` sample below it
    png_ladder = field_plot(base / "skill-ladder.png", ladders, ladder_games)
    seat_table = [{"players": r["players"], "seat": r["seat"] + 1, "win share (decided games)": _iv(r["share"]),
                   "fair": f"{r['fair']:.3f}", "wins": r["k"], "decided games": r["n"], "deals": r["deals"],
                   "p (Holm)": f"{r['p_holm']:.2g}" if r["p_holm"] >= 0.001 else "< 0.001",
                   "verdict": r["verdict"]} for r in shares]
    tie = herald.group_by("players").agg(t=pl.col("tie").mean()).sort("players")
    tie_text = ", ".join(f"{int(a)}p {b:.3f}" for a, b in tie.iter_rows())
    lad_rows = []
    for f, (rungs, _) in ladders.items():
        lad_rows += [{"field": f"three `{f}`", **r} for r in table_rows(rungs)]
    search_cfg = {k: v for k, v in s_desc.get("search", {}).items() if k != "kind"}
    cards_line = cards_sentence(vrows, best)
    ladder_line = ladder_sentence(ladders, s_rungs, best)
    # the seat table again under every other practical policy of the ladder, each in every seat, on the same deals
    checks = {}
    for other in (h for h in HEURISTICS if h not in (best, "random")):
        checks[other] = run_bundled("valeria/players.toml", base / "run" / f"policy-{other}", games, seed=SEED,
                                    jobs=jobs, overrides=[f'play=["{other}"]'])
    by_policy = {best: herald, **{o: game_rows(results.scan(r)) for o, r in checks.items()}}
    checked = policy_comparisons(by_policy, best)  # the policy section's tests, which the lead reads too
    policy_line, policy_text = policy_section(by_policy, best, games, checked)
    # the Herald and the Citizens under every other practical policy: its consolation games on the same deals, and
    # its 4-player Herald games replayed for what each seat owned
    infos, cons = {best: info}, {}
    for other in checks:
        cons[other] = run_bundled("valeria/players.toml", base / "run" / f"policy-{other}-consolation", games,
                                  seed=SEED, jobs=jobs, overrides=[f'play=["{other}"]', 'rules.herald="consolation"'])
        infos[other] = herald_rows(by_policy[other], game_rows(results.scan(cons[other])))[2]
        o_sim = loader.load(scenarios_dir() / "valeria" / "players.toml",
                            [f'play=["{other}"]', f"players=[{CARD_PLAYERS}]"]).simulation
        effects[other] = {}
        value_table(owned_games(o_sim, games, SEED, block_size=500), cards, other, estimates=effects[other])
    answers_line, answers_text = answers_section(infos, effects, best, games)
    text = (
        page_top(best, shares, info, games, cards_line, ladder_line, event_line,
                 " ".join(x for x in (policy_line, answers_line) if x), checked) + "\n"
        "## What was simulated\n\n"
        f"Stand-in card data (`scenarios/valeria/cards.toml`), rule options at their defaults (docs/rules.md) but "
        f"`rules.herald`; at 5 players that is the published 5-player variant (`rules.five_player = \"variant\"`: "
        f"Citizen stacks of 6, Domain stacks of 4, the Monsters marked for 5 players, a Resting Player who does not "
        f"harvest). The skill ladder names the strongest practical policy: **`{best}`** (mean win rate over the "
        f"practical fields " + ", ".join(f"`{p}` {interval(e)}" for p, e in sorted(means.items()))
        + (f"; the intervals of {', '.join(f'`{p}`' for p in overlapping(best, means))} overlap `{best}`'s, so the "
           f"mean cannot tell them apart and the page plays the higher mean" if overlapping(best, means) else "")
        + "). "
        f"`{best}` then plays every seat at 2, 3, 4 and 5 players (`scenarios/valeria/players.toml --set "
        f"'{play}'`), {games:,} deals per count, root seed {SEED}, once with the 2E Herald and once with the 1E "
        f"consolation (`--set 'rules.herald=\"consolation\"'`): the same seeds, so the same set-up and the same "
        f"streams of dice (the games part where a different Resource changes a decision). The value table replays "
        f"the {CARD_PLAYERS}-player Herald games and reads what each seat owned at the end. Regenerating the "
        f"page takes {CPU_NOTE} (`simkit report --bundled --only valeria --out reports --html`).\n\n"
        "## Seat advantage\n\n"
        f"![Seat advantage]({png_seat.name})\n\n"
        "Seats in turn order (1 = the first player). A seat's share of the decided games: the games with a sole "
        "winner after the tie-break (a win still shared is nobody's; the shared-win rate is " + tie_text + "), so "
        "the shares of a count add up to 1 and the fair share is 1/n. The seats share a game, so the deal is the "
        "unit (`clustered_rate` over deals; one row per seat per deal); `p (Holm)` is the exact binomial test of "
        f"the share against 1/n, Holm-adjusted over all {len(shares)} seats; `verdict` at family-wise {FAMILY}.\n\n"
        + render(seat_table, "md") + "\n"
        + (policy_text if policy_text else "")
        + "## The 2E Herald against the 1E consolation\n\n"
        f"![Herald]({png_herald.name})\n\n"
        "Definitions. *Income per round*: the Resources a seat took in Harvest Phases (its Citizens' powers, the "
        "Thief's loot, and the Herald's or consolation's Resource), over the game's rounds (a round is one turn of "
        "every player). *Gifts per roll*: the seat's Herald activations (2E: when the roll activates none of its "
        "Citizens, and again on doubles) or consolations (1E: when none activates), per roll of the game. *Luck "
        "gap*: in each game, the income per round of the seat that harvested the most Resources per round less "
        "that of the seat that harvested the fewest (the luckiest and the unluckiest roller: the same policy "
        "plays every seat, so the gap is the dice, the deal and the seat); a mean over games. *Unluckiest wins*: "
        "the share of games the seat with the fewest Resources per round won outright (seats tied for fewest "
        "share the game). *Rounds*: the game's length. Means are Student's t over deals; differences 2E − 1E are "
        "paired deal by deal (the normal interval of the mean difference).\n\n"
        "By seat:\n\n" + render(by_seat, "md") + "\n"
        "By player count:\n\n" + render(by_count, "md") + "\n"
        "## The Monster Event variant\n\n"
        f"`{best}` in every seat at 2 to 5 players, 2E Herald, the same {games:,} deals (root seed {SEED}) with "
        "`--set 'rules.monster_events=true'` (variant on: 1 stand-in Monster Event per player shuffled on top of "
        "the Exhausted stack, docs/rules.md) and without (off: the Herald games above). The Events are shuffled "
        "after the rest of the set-up, so a deal is the same on and off up to the first Event (then the games "
        "part). *Turns*: every player's turns in the game. *Slain per round*: Monsters slain in the game (Events "
        "included) over its rounds. *Ends*: the share of games whose end was triggered with that condition "
        "holding (the Exhausted stacks reaching twice the players, all Monster areas slain, all Domains built; "
        "more than one can hold; capped: `rules.turn_cap` reached). Means are Student's t over deals; on − off "
        "differences are paired deal by deal (the normal interval of the mean difference; for 0/1 outcomes "
        "Newcombe's paired interval). Seat win shares are of the decided games, as above; the paired "
        "difference is of the seat's sole wins over all deals.\n\n"
        "By player count, the pace:\n\n"
        + render_parts(ev_count, ["players"], [[c for c in ev_count[0] if c.startswith(("turns", "slain", "Events"))]])
        + "\nBy player count, how games end:\n\n"
        + render_parts(ev_count, ["players"], [[c for c in ev_count[0] if c.startswith(("ends", "capped", "deals"))]])
        + "\nBy seat:\n\n" + render(ev_seat, "md") + "\n"
        "## Citizens and Domains\n\n"
        f"Under `{best}` in every seat, {CARD_PLAYERS} players, 2E Herald, the same {games:,} deals. For each "
        "Citizen, the seats that owned at least one at the end (`seats owning`: the share of all seats; "
        "`copies (owners)`: the mean copies an owner had), and for each Domain the seats that built it: the "
        "owners' win rate (sole wins), the other seats' (`win without`), and the difference (`effect`), the deal "
        "as the unit (the cluster-robust difference of two rates, Student's t over deals). `p (Holm)`: the t-test "
        f"of the difference (tested when at least {MIN_DEALS} deals have an owning seat and {MIN_DEALS} a seat "
        f"without the card), Holm-corrected over the {sum(1 for r in vrows if r['p (Holm)'] != '–')} cards with "
        f"owners; `flag` at family-wise {FAMILY} ({flagged} flagged). Owning is not random (a seat that is ahead "
        "buys and builds more), so an effect is the card's association with winning under this policy, a lead to "
        "look into, not its causal worth. The Starters (Peasant, Knight; every seat has them) have no row.\n\n"
        + render(vrows, "md") + "\n"
        + answers_text
        + "## Skill ladder\n\n"
        f"![Skill ladder]({png_ladder.name})\n\n"
        "Policies meet each other only as a **hero against a field**: the hero takes one seat of a 4-player game, "
        "the field the other three, and the hero is rotated through every seat (4 cells, the same deals in every "
        "cell; a game's value is the hero's win share over its 4 seats; `scenarios/valeria/ladder.toml`, "
        "`simkit ladder`). The fair share against an equal field is 0.25 (less the shared wins). "
        f"The practical policies and random against each practical field, {ladder_games:,} games per cell, seed {SEED}. "
        + VERDICT_NOTE + "\n\n" + render(lad_rows, "md") + "\n"
        f"With `search` ({', '.join(f'{k} = {v}' for k, v in search_cfg.items())}), against three `{best}`, "
        f"{search_games} games per cell (a small sample: a `search` game costs about 0.04 CPU-seconds, a heuristic "
        f"one a few hundred microseconds), seed "
        f"{SEARCH_SEED}. {precision_note(SEARCH_PRECISION, s_rungs, search_cap, search_block, 'deals')}\n\n"
        + render(table_rows(s_rungs), "md") + "\n"
        "## Runs\n\n"
        + manifest_section(results.manifest(run_h)).replace("## Run\n", "### 2E Herald run\n", 1) + "\n"
        + manifest_section(results.manifest(run_c)).replace("## Run\n", "### 1E consolation run\n", 1) + "\n"
        + manifest_section(results.manifest(run_e)).replace("## Run\n", "### Monster Event variant run\n", 1)
        + "".join("\n" + manifest_section(results.manifest(r)).replace("## Run\n", f"### `{o}` run (the policy "
                                                                        "check)\n", 1) for o, r in checks.items())
        + "".join("\n" + manifest_section(results.manifest(r)).replace(
            "## Run\n", f"### `{o}` 1E consolation run (the policy check)\n", 1) for o, r in cons.items())
    )
    return [write_markdown(base / "report.md", text), png_seat, png_herald, png_ladder]
