"""VÁLKA multiplayer report: first-player advantage, the policies at the table, game length, Warbands and cards.

Reads a run's wide per-game rows (see ``simulation``): every seat of every game becomes one *seat row*
(order at the table, policy, won, opening-hand and played cards). Seats of one game are not independent (one
of them wins, and every cell replays the same deals and dice), so every table takes the game — a deal, the same
``(block, game)`` in every cell — as the unit: rates by ``clustered_rate``, differences by
``clustered_difference``, means by ``clustered_mean``. The per-policy table of the hero (one row per game and
cell) has exact Wilson intervals.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl

from simkit.core import results
from simkit.core.plotting import bars, lines
from simkit.core.report import (
    DETAILS_MARKER, STAND_IN_NOTICE, TABLE_KINDS, extreme, interval, lead_paragraph, manifest_section, run_bundled,
    shown_path, tie_words, toml_value, write_markdown,
)
from simkit.core.report import interval as _iv  # a rate with its 95% interval
from simkit.core.stats import Estimate, clustered_difference, clustered_mean, clustered_rate, holm, overlapping, wilson
from simkit.core.tables import render
from simkit.games.valka.cards import BUFF_TYPES, EVENT_KINDS, WARBANDS, load_cards
from simkit.games.valka.multiplayer.layout import BUFF0, EVENT0, N_CARDS

SEATS = 5




def seat_rows(frame: pl.DataFrame) -> pl.DataFrame:
    """One row per seat of every game: block, game, players, order, policy, won, eliminated, wb_*, open/played
    bit words."""
    parts = []
    for k in range(SEATS):
        cols = [c for c in frame.columns if c.startswith(f"seat{k}_")]
        if not cols:
            continue
        keys = [c for c in ("block", "game") if c in frame.columns]
        hero = [pl.col("policy").alias("hero")] if "policy" in frame.columns else []  # the cell's hero policy
        shared = [c for c in ("winners",) if c in frame.columns]  # how many seats won the game (a tie: shared)
        part = frame.select([*keys, "players", "turns", "stalled", *shared, *hero] + cols).rename(
            {c: c[len(f"seat{k}_"):] for c in cols}).filter(pl.col("order") >= 0)
        parts.append(part.with_columns(pl.lit(k).alias("seat")))
    return pl.concat(parts)


def deal_ids(frame: pl.DataFrame) -> np.ndarray:
    """The cluster of each row: its deal, ``(block, game)``, the same in every cell (0..n−1)."""
    keys = [c for c in ("block", "game") if c in frame.columns]
    if not keys:
        return np.arange(len(frame))
    cols = np.stack([frame[k].to_numpy().astype(np.int64) for k in keys], axis=1)
    return np.unique(cols, axis=0, return_inverse=True)[1].reshape(-1)


def _sums(ids: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Per deal, the sum of ``values`` over its rows (``ids`` from :func:`deal_ids`: every deal has a row)."""
    return np.bincount(ids, weights=np.asarray(values, dtype=float))


def win_share(seats: pl.DataFrame) -> np.ndarray:
    """Each seat row's share of its game's win: 1 for a win alone, 1/k for a win shared by k seats ("If there is
    still a tie, wow": the tie stands), 0 for a loss; so the places at one table add up to at most 1. Rows without
    a ``winners`` count take every win whole."""
    won = seats["won"].to_numpy() > 0
    if "winners" not in seats.columns:
        return won.astype(float)
    return won / np.maximum(seats["winners"].to_numpy(), 1)


def deal_rate(won: np.ndarray, ids: np.ndarray) -> Estimate:
    """The share of rows that won, the deal as the unit (:func:`clustered_rate`)."""
    return clustered_rate(_sums(ids, won), _sums(ids, np.ones(len(ids))))


def seat_policy_rows(seats: pl.DataFrame) -> list[dict]:
    """Every seat by its policy, per table size: the share of the wins its seat rows took (:func:`win_share`: a
    shared win split between its winners), the game (block, game) as
    the unit. A game gives a policy several seat rows (its seats at the table, in every cell that replays the
    game's deals and dice), and those rows are correlated, so the interval is :func:`clustered_rate` over games."""
    rows = []
    for (np_, policy), g in seats.sort("players", "policy").group_by("players", "policy", maintain_order=True):
        e = deal_rate(win_share(g), deal_ids(g))
        rows.append({"players": np_, "seat policy": policy, "win rate": _iv(e), "seats": len(g), "games": e.n})
    return rows


def card_labels(cards) -> list[str]:
    out = [f.name for f in cards.fighters]
    out += [f"+{b.value} {BUFF_TYPES[b.type].capitalize()}" for b in cards.buffs]
    out += [EVENT_KINDS[e.kind].replace("_", " ").title() for e in cards.events]
    return out


def _bits(seats: pl.DataFrame, prefix: str) -> np.ndarray:
    """A boolean matrix seat row × card from the three 32-bit words ``prefix0..2``."""
    words = np.stack([seats[f"{prefix}{w}"].to_numpy().astype(np.int64) & 0xFFFFFFFF for w in range(3)], axis=1)
    out = np.zeros((len(seats), N_CARDS), bool)
    for c in range(N_CARDS):
        out[:, c] = (words[:, c // 32] >> (c % 32)) & 1
    return out


def _effect(won: np.ndarray, mask: np.ndarray, ids: np.ndarray):
    """Win rate of the seat rows with and without ``mask`` and the difference, the deal (``ids``) as the unit:
    ``clustered_rate`` for each, ``clustered_difference`` (Student's t on the cluster-robust variance) for the
    difference."""
    if not mask.any() or mask.all():
        return None
    w = won.astype(float)
    y1, m1 = _sums(ids, w * mask), _sums(ids, mask)
    y0, m0 = _sums(ids, w * ~mask), _sums(ids, ~mask)
    d = clustered_difference(y1, m1, y0, m0)
    with_, without = clustered_rate(y1, m1), clustered_rate(y0, m0)
    return with_, without, d, int(m1.sum())


def _difference_p(y1, m1, y0, m0) -> float:
    """Two-sided p-value of the test that the clustered difference of two rates is 0: Student's t with n − 1
    degrees of freedom on the cluster-robust variance of :func:`clustered_difference` (the same statistic)."""
    from scipy.stats import t as student

    y1, m1, y0, m0 = (np.asarray(a, dtype=float) for a in (y1, m1, y0, m0))
    keep = (m1 + m0) > 0
    y1, m1, y0, m0 = y1[keep], m1[keep], y0[keep], m0[keep]
    n, r1, r0 = y1.size, m1.sum(), m0.sum()
    if n < 2 or r1 == 0 or r0 == 0:
        return 1.0
    p1, p0 = y1.sum() / r1, y0.sum() / r0
    u = (y1 - p1 * m1) / r1 - (y0 - p0 * m0) / r0
    se = float(np.sqrt(n / (n - 1) * (u * u).sum()))
    if se == 0:
        return 1.0 if p1 == p0 else 0.0
    return float(2 * student.sf(abs(p1 - p0) / se, n - 1))


FLAG_FAMILY = 0.05  # family-wise level (Holm over the cards of a table) for flagging a card's effect
MIN_SEATS = 100  # seats with the card (and without it) a card needs for its effect to be tested


def card_table(seats: pl.DataFrame, cards, prefix: str, policy: str | None = None,
               kinds: tuple[str, ...] | None = None) -> tuple[list[dict], int]:
    """Per card (identical Buffs and Events pooled), over the seats played by ``policy`` (all seats if None): the
    seat's win rate when the card was in its opening hand (``open``) or played by it (``played``) against when it
    was not, and the difference (the effect); a win shared by k seats counts 1/k (:func:`win_share`). ``flag``
    marks the effects that differ from zero by the clustered t-test of :func:`_difference_p`, Holm-corrected over
    the cards of the table (family-wise ``FLAG_FAMILY``):
    ``above zero`` or ``below zero``. A card the policy never played (or always played) has no effect: its row
    says so; nor has one with fewer than ``MIN_SEATS`` seats with it (or without it), too few for the test: "too
    few plays (n)", left out of the Holm family. ``kinds`` (Fighter, Buff, Event) keeps only those cards (their
    own family). Returns (rows, the number of cards flagged)."""
    if policy is not None:
        seats = seats.filter(pl.col("policy") == policy)
    who = f"`{policy}`" if policy else "any seat"
    bits = _bits(seats, prefix)
    won = win_share(seats)
    ids = deal_ids(seats)
    labels = card_labels(cards)
    groups: dict[str, list[int]] = {}
    for c, name in enumerate(labels):
        groups.setdefault(name, []).append(c)
    verb = "played" if prefix == "played" else "held in an opening hand"
    rows, missing = [], []
    for name, cs in groups.items():
        kind = "Fighter" if cs[0] < BUFF0 else ("Buff" if cs[0] < EVENT0 else "Event")
        if kinds is not None and kind not in kinds:
            continue
        mask = bits[:, cs].any(axis=1)
        e = _effect(won, mask, ids)
        if e is None or min(int(mask.sum()), int((~mask).sum())) < MIN_SEATS:
            what = (f"never {verb} by {who}" if not mask.any() else
                    f"{verb} in every seat of {who}: no comparison" if mask.all() else
                    f"too few plays ({int(mask.sum())})" if mask.sum() < MIN_SEATS else
                    f"too few seats without it ({int((~mask).sum())})")
            missing.append({"card": name, "type": kind, "copies": len(cs), "win with": "–", "win without": "–",
                            "effect": what, "seats with": int(mask.sum()), "flag": ""})
            continue
        w = won.astype(float)
        p = _difference_p(_sums(ids, w * mask), _sums(ids, mask), _sums(ids, w * ~mask), _sums(ids, ~mask))
        rows.append({"card": name, "type": kind, "copies": len(cs), "with": e[0], "without": e[1], "effect": e[2],
                     "seats": e[3], "p": p})
    holm_p = holm([r["p"] for r in rows]) if rows else []
    out = []
    for r, q in sorted(zip(rows, holm_p), key=lambda x: -x[0]["effect"].estimate):
        e = r["effect"]
        flag = ("above zero" if e.estimate > 0 else "below zero") if q < FLAG_FAMILY else ""
        out.append({"card": r["card"], "type": r["type"], "copies": r["copies"],
                    "win with": _iv(r["with"]), "win without": _iv(r["without"]),
                    "effect": _iv(e), "seats with": r["seats"], "flag": flag})
    return out + sorted(missing, key=lambda r: -r["seats with"]), sum(1 for r in out if r["flag"])


def warband_effects(seats: pl.DataFrame) -> dict[str, tuple]:
    """Per Warband, :func:`_effect` of holding 2 or more of its Fighters in the opening hand on the seat's win share
    (:func:`win_share`: a shared win counts 1/k), the deal as the unit: (with, without, effect, seats with)."""
    won, ids = win_share(seats), deal_ids(seats)
    out = {}
    for w in WARBANDS:
        if f"wb_{w}" in seats.columns:
            e = _effect(won, seats[f"wb_{w}"].to_numpy() >= 2, ids)
            if e is not None:
                out[w] = e
    return out


def policy_rankings(practical: pl.DataFrame, sizes: list[int]) -> dict[str, dict[str, dict[str, Estimate]]]:
    """The report's two rankings under each practical policy, from the seats that policy played: the Warbands by
    their effect (:func:`warband_effects`), and at each table size the places of the turn order by their win
    share; ``{ranking: {policy: {group: Estimate}}}``, the rankings "Warbands" and "N players"."""
    out: dict[str, dict[str, dict[str, Estimate]]] = {"Warbands": {}}
    for (policy,), g in practical.sort("policy").group_by("policy", maintain_order=True):
        effects = {w: e[2] for w, e in warband_effects(g).items()}
        if effects:
            out["Warbands"][policy] = effects
        for np_ in sizes:
            at = g.filter(pl.col("players") == np_)
            places = {}
            for k in range(np_):
                seat = at.filter(pl.col("order") == k)
                if seat.height:
                    places[f"place {k + 1}"] = deal_rate(win_share(seat), deal_ids(seat))
            if len(places) == np_:
                out.setdefault(f"{np_} players", {})[policy] = places
    return out


def sensitivity_section(rankings: dict, reference: str | None) -> tuple[str, str]:
    """The policy-sensitivity section and the headline's sentence: each ranking of :func:`policy_rankings` under
    every practical policy against ``reference``'s (:func:`simkit.core.sensitivity.sensitivity`, Holm over the
    pairs of each ranking). ("", "") when only one policy played."""
    from simkit.core.sensitivity import estimates_markdown, ranking_sentence, sensitivity
    from simkit.core.sensitivity import markdown as sens_markdown

    parts, sentence = [], ""
    for name, table in rankings.items():
        if reference not in table or len(table) < 2:
            continue
        comps = sensitivity(table, reference)
        if name == "Warbands":  # the effects themselves, per policy, before the pairs whose order they flip
            parts.append("### The Warbands (effect of 2+ in the opening hand)\n\nEach Warband's effect on P(win) "
                         "(95%; n: the deals in which a seat of the policy held 2+ of its Fighters) under each "
                         f"practical policy, the rows in the order of `{reference}`:\n\n"
                         + estimates_markdown(table, reference, "Warband", counted=True) + "\n"
                         + sens_markdown(comps, reference, "Warbands"))
            sentence = ranking_sentence(comps, table, reference, "Warband")
        else:
            parts.append(f"### Turn order, {name}\n\n" + sens_markdown(comps, reference, f"places at {name}"))
    if not parts:
        return "", ""
    text = (
        "## Does the ranking depend on the policy?\n\n"
        "A balance conclusion holds for a game *and* a way of playing it. The Warband ranking (each Warband's "
        "effect on the win share of the seats that held 2+ of its Fighters) and the ranking of the places in the "
        f"turn order, from the seats each practical policy played, against the rankings under `{reference}` (the "
        "policy of the card tables): Spearman's rank correlation and the pairs whose order flips. A flip is "
        "*resolved* when both policies separate the pair, in opposite directions: the larger of the two "
        "two-sided p-values, Holm-corrected over every pair of every policy compared within each ranking "
        "(family-wise 0.05 a ranking). A policy's seats meet the field of its own tables (its own policy at tables "
        "of equals; the hero's or the opponents' at mixed tables), so read a flip as \"this ranking is a property "
        "of the play\", not as a verdict on the policy. `random` is left out, and so is `search` (too few games "
        "for a ranking of its own).\n\n" + "\n".join(parts))
    return text, sentence


def card_policy(man: dict, rungs, mixed: bool) -> str | None:
    """The policy whose seats the card tables measure: the strongest heuristic or learned policy of the skill
    ladder (at mixed tables the run's own, at tables of equals the ladder against a field, ``rungs``, when there is
    one) that plays in the run; else the first heuristic of the scenario's ``play`` list."""
    kinds = {p: (v or {}).get("kind", "heuristic") for p, v in (man.get("policies") or {}).items()}
    for r in rungs or []:
        if r.kind in TABLE_KINDS and r.policy in kinds:
            return r.policy
    for p, k in kinds.items():
        if k == "heuristic":
            return p
    return None


def multiplayer_report(run_dir: str | Path, out_dir: str | Path, search_ladder: dict | None = None,
                       field_ladder: dict | None = None) -> list[Path]:
    """Write ``out_dir/report.md`` with ``seat-order.png`` and ``card-effects.png``; return the files.
    ``field_ladder`` (:func:`field_ladder`) gives tables of equals a ladder where the policies do meet."""
    run_dir, out_dir = Path(run_dir), Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    man = results.manifest(run_dir)
    frame = results.load(run_dir)
    cards_file = man.get("cards")
    try:
        cards = load_cards(cards_file) if cards_file else load_cards()
    except Exception:  # noqa: BLE001 - the report still works with the bundled cards
        cards = load_cards()
    seats = seat_rows(frame)
    variant = str(frame["variant"][0]) if len(frame) else man.get("mode", "?")
    sizes = sorted(int(x) for x in frame["players"].unique())
    files = []

    # the tables of the practical policies: where the random policy plays, its seats lose and the seats facing it
    # win whatever their turn order or hand, so those tables would only dilute the turn-order and Warband effects
    randoms = [p for p, v in (man.get("policies") or {}).items() if (v or {}).get("kind") == "random"]
    practical = seats.filter(~pl.col("policy").is_in(randoms))
    if "hero" in practical.columns:
        practical = practical.filter(~pl.col("hero").is_in(randoms))
    if practical.height == 0:
        practical, randoms = seats, []
    left_out = (f" (the tables where {', '.join(f'`{p}`' for p in randoms)} plays are left out: its seats lose, "
                "and the seats facing it win, whatever their turn order or hand)" if randoms else "")

    # --- first-player advantage: win rate by order at the table ---
    order_rows, series, bands = [], {}, {}
    for np_ in sizes:
        sub = practical.filter(pl.col("players") == np_)
        ests = []
        for k in range(np_):
            at = sub.filter(pl.col("order") == k)
            ids = deal_ids(at)
            e = deal_rate(win_share(at), ids)
            ests.append(e)
            both = (at["won"].to_numpy() > 0) & (at["winners"].to_numpy() > 1) if "winners" in at.columns else None
            order_rows.append({"players": np_, "turn order": k + 1, "win rate": _iv(e), "fair share": f"{1 / np_:.3f}",
                               **({"shared a win": _iv(deal_rate(both, ids))} if both is not None else {}),
                               "seats": len(at), "games": e.n})
        series[f"{np_} players"] = [e.estimate for e in ests] + [float("nan")] * (max(sizes) - np_)
        bands[f"{np_} players"] = ([e.low for e in ests] + [float("nan")] * (max(sizes) - np_),
                                   [e.high for e in ests] + [float("nan")] * (max(sizes) - np_))
    png_order = lines(out_dir / "seat-order.png", list(range(1, max(sizes) + 1)), series,
                      title="Win rate by turn order (1 = the first player), 95% intervals (the deal as the unit)",
                      xlabel="turn order", ylabel="P(win)", bands=bands,
                      reference={f"{np_} players": 1 / np_ for np_ in sizes}, connect=False)
    files.append(png_order)

    # --- the policies: the hero per game (exact), and every seat by its policy (mixed tables) ---
    hero = frame.group_by("players", "policy").agg(n=pl.len(), k=pl.col("won").cast(pl.Int64).sum()).sort(
        "players", "policy")
    hero_rows = [{"players": r["players"], "hero policy": r["policy"], "win rate": _iv(wilson(int(r["k"]), int(r["n"]))),
                  "fair share": f"{1 / r['players']:.3f}", "n": int(r["n"])} for r in hero.iter_rows(named=True)]
    # the skill ladder: every hero policy on the same deals and dice, paired game by game (Holm-corrected gaps);
    # only where the policies meet each other (mixed tables): at a table of equals every seat plays the hero's
    # policy, so each hero wins about 1/n whatever its skill and a ladder would measure nothing
    from simkit.core import ladder

    opp = man.get("opponents") or []
    mixed = bool(opp)
    kinds = {p: (v or {}).get("kind", "heuristic") for p, v in (man.get("policies") or {}).items()}
    rungs = ladder.rungs_from_rows(frame, kinds) if mixed else []
    if mixed:
        png_ladder = ladder.plot(out_dir / "skill-ladder.png", rungs, title="Skill ladder: the hero's P(win), 95%",
                                 label="P(hero wins)")
        files.append(png_ladder)
        ladder_text = (f"![Skill ladder]({png_ladder.name})\n\n"
                       + ladder.markdown(rungs, games=int(frame.group_by("block", "game").len().height),
                                         cells=len(sizes), label="P(hero wins)") + "\n")
    else:
        ladder_text = (
            "No skill ladder here: these are tables of equals (`opponents = []`), where every seat plays the hero's "
            "policy, so each hero wins about the fair share 1/n whatever its skill (the table below shows it). A "
            "ladder measures skill only where the policies meet each other: a hero against a field of other "
            "policies, rotated through every seat, as in the mixed-table reports (Bounty Hunter at 4 players, "
            "Duel)" + (f"; the ladder below is that, against a field of {_field_origin(field_ladder)}"
                       if field_ladder else "") + ".\n\n")
        if field_ladder:
            rungs_field = field_ladder["rungs"]
            ladder_text += (
                f"Skill against a field of **`{field_ladder['field']}`** (every other seat plays it, the hero in seat "
                f"`game % players`; {field_ladder['games']:,} games per table size and hero, root seed 2026, the "
                "same deals for every hero):\n\n"
                + ladder.markdown(rungs_field, games=field_ladder["games"], cells=len(sizes), label="P(hero wins)")
                + "\n")
    seat_pol_rows = seat_policy_rows(seats)

    # --- game length: the practical policies' tables (a random hero's table ends when its seats fall) ---
    length_rows = []
    practical_games = frame.filter(~pl.col("policy").is_in(randoms)) if randoms else frame
    for np_ in sizes:
        sub = practical_games.filter(pl.col("players") == np_)
        t = sub["turns"].to_numpy().astype(float)
        ids = deal_ids(sub)
        e = clustered_mean(_sums(ids, t), _sums(ids, np.ones(len(t))))
        q = np.percentile(t, [10, 50, 90]) if len(t) else [float("nan")] * 3
        st = deal_rate(sub["stalled"].to_numpy() > 0, ids)
        length_rows.append({"players": np_, "turns (mean)": _iv(e, 2), "rounds (mean)": f"{e.estimate / np_:.2f}",
                            "turns p10 / median / p90": f"{q[0]:.0f} / {q[1]:.0f} / {q[2]:.0f}",
                            "stalled": _iv(st), "games": len(t), "deals": e.n})

    # --- Warbands in the opening hand: the tables without the random policy (its seats lose whatever they hold,
    # and the seats facing it win whatever they hold, so its cells would only dilute every effect) ---
    wb_rows, wb_effects = [], {}
    for w, e in warband_effects(practical).items():
        wb_effects[w] = e[2]
        wb_rows.append({"Warband": w, "win with 2+ in the opening hand": _iv(e[0]), "without": _iv(e[1]),
                        "effect": _iv(e[2]), "seats with": e[3]})

    # --- cards: the seats of one practical policy (never the random policy's) ---
    card_rungs = rungs if mixed else (field_ladder or {}).get("rungs", [])
    cpol = card_policy(man, card_rungs, mixed)
    opened, n_open = card_table(seats, cards, "open", cpol)
    played, n_played = card_table(seats, cards, "played", cpol)
    events, n_events = card_table(seats, cards, "played", cpol, kinds=("Event",))
    measured = [r for r in played if r["effect"][:1] in "+-0123456789"]
    top = measured[:12] + measured[-12:] if len(measured) > 24 else measured
    eff = [[float(x) for x in r["effect"].replace("[", "").replace("]", "").replace(",", "").split()] for r in top]
    png_cards = bars(out_dir / "card-effects.png", [r["card"] for r in top], [e[0] for e in eff],
                     low=[e[1] for e in eff], high=[e[2] for e in eff], flagged=[bool(r["flag"]) for r in top],
                     title=f"Win-rate effect of playing a card, `{cpol}`'s seats (largest and smallest)",
                     ylabel="effect on P(win), 95% interval")
    files.append(png_cards)

    sens_text, sens_sentence = sensitivity_section(policy_rankings(practical, sizes), cpol)

    opts = man.get("rule_options", {})
    opt_text = ", ".join(f"`{k} = {toml_value(v)}`" for k, v in opts.items()) or "defaults"
    pols = man.get("policies", {})
    answer = headline(practical, frame, sizes, rungs or (field_ladder or {}).get("rungs", []), wb_effects,
                      field=None if mixed or not field_ladder else field_ladder["field"], search=search_ladder)
    text = (
        f"# {page_title(variant, sizes, mixed)}\n\n"
        f"{STAND_IN_NOTICE}\n\n"
        f"{lead_paragraph(lead_sentence(first_player_rates(practical, sizes), wb_effects))}\n\n"
        f"{answer}" + (f" {sens_sentence}" if sens_sentence else "") + "\n\n"
        "## What was simulated\n\n"
        f"{variant} at {', '.join(map(str, sizes))} players; {int(man.get('games', 0)):,} games per cell "
        f"(table size × hero policy), root seed {man.get('root_seed')}. Hero policies: "
        f"{', '.join(f'`{p}`' for p in pols if p not in opp or p in set(frame['policy'].unique().to_list()))}; "
        f"the hero sits in seat `game % players`, the other seats play "
        f"{', '.join(f'`{o}`' for o in opp) if opp else 'the hero policy too (tables of equals)'}. "
        "Every cell replays the same deals and dice (common random numbers). "
        f"Rule options: {opt_text} (see docs/rules.md, VÁLKA multiplayer). "
        f"Card data: `{shown_path(str(cards_file or '?'))}`.\n\n"
        "Intervals are 95%. Seat rows of one game are not independent (one seat wins, and every cell replays the "
        "same deals and dice), so every table takes the deal (the same game in every cell) as the unit: shares are "
        "Wilson's on the effective number of seats (the seats over the design effect of the deals), differences "
        "and means Student's t on the cluster-robust variance over deals (`games` / `deals` = clusters; `seats` = "
        "rows). The hero's table (one row per game and cell) is Wilson's.\n\n"
        "## Is the first player favoured?\n\n"
        f"![Win rate by turn order]({png_order.name})\n\n"
        "Win rate of the seat by its place in the turn order (1 = the player who won the roll-off); a fair game "
        "gives every place the fair share. A win shared by k players (a tie after every tie-breaker) counts 1/k to "
        "each of them, so the places of one table size add up to the share of games someone won, at most 1; "
        "`shared a win` is how often the place shared one. Over the practical policies' tables"
        + left_out + ".\n\n"
        + render(order_rows, "md") + "\n"
        + ("## Policies (the skill ladder at these tables)\n\n" if mixed else "## Policies (tables of equals)\n\n")
        + ladder_text
        + (_search_section(search_ladder) if search_ladder else "")
        + "The hero's win rate by table size, one row per game:\n\n" + render(hero_rows, "md") + "\n"
        + (("**Not a measure of skill:** who wins these tables, every seat by the policy it played. A policy's share "
            "here pools all its seats, as the hero and as an opponent in every cell, so each policy meets a "
            "different field (an opponent policy also sits at the random hero's tables, which it nearly always "
            "wins): read skill from the ladder above, where every hero meets the same field. A win shared by k "
            "seats counts 1/k to each. One game gives a "
            "policy several seats that share the deal and dice, so the game is the unit: the 95% interval is "
            "Wilson's on the effective number of seats (the cluster-robust design effect of the pooled rate, at its "
            "upper 90% bound; `games` = clusters).\n\n" + render(seat_pol_rows, "md") + "\n") if mixed else "")
        + 
        "## How long games last\n\n"
        "Turns are player turns begun (a round is one turn each), the turn in which the game ends included: counted "
        "the same way in every mode, whether the game ends inside a turn (Annihilation and Duel: the last "
        "player standing) or between turns (Bounty Hunter's endgame round). A game still running at the turn cap "
        "is stalled. Over the practical policies' tables" + (
            f" (the tables of the {', '.join(f'`{p}`' for p in randoms)} hero are left out: they end as its seats "
            "fall, not as practical players play)" if randoms else "") + ".\n\n"
        + render(length_rows, "md") + "\n"
        "## Warbands\n\n"
        "Win rate of seats whose opening hand held 2 or more Fighters of a Warband (a Deadly Dyad in waiting), "
        "against seats that did not, over the practical policies' tables" + left_out
        + "; a win shared by k seats counts 1/k, as above; the effect and its interval take the deal as the "
        "unit.\n\n"
        + (render(wb_rows, "md") if wb_rows else "(none)\n") + "\n"
        + (sens_text + "\n" if sens_text else "")
        + "## Cards\n\n"
        f"![Card effects]({png_cards.name})\n\n"
        f"For each card (identical Buffs and Events pooled), over the seats played by **`{cpol}`** ("
        + card_policy_reason(cpol, card_rungs, mixed, field_ladder, search_ladder)
        + "; the random policy's seats are left out, as they play cards no practical player would): the win rate "
        "of a seat that played it against a seat that did not (a shared win counted 1/k), and the difference "
        "(*effect*). A card that policy "
        f"never played says so instead of an effect, and one with fewer than {MIN_SEATS} seats that played it "
        "(or did not) says \"too few plays (n)\": too few for the test. `flag` marks effects that differ from zero "
        "by a clustered t-test (the deal as the unit), **Holm-corrected** over the cards of each table (family-wise "
        f"{FLAG_FAMILY}): {n_played} flagged when played, {n_open} in the opening hand. Playing a card is also a "
        "sign of the game going well or long; read effects as associations, not causes.\n\n"
        "### Events that swing games (played)\n\n"
        f"The Events played by `{cpol}` in at least {MIN_SEATS} seats, each tested against zero, Holm-corrected over "
        f"these Events alone (family-wise {FLAG_FAMILY}): "
        + (f"{n_events} swing{'s' if n_events == 1 else ''} games beyond the noise (marked in the `flag` column)"
           if n_events else "none swings games beyond the noise") + "; the others played too rarely for a test say "
        "\"too few plays (n)\".\n\n" + render(events, "md") + "\n"
        "### Every card, played\n\n" + render(played, "md") + "\n"
        "### Every card, in the opening hand\n\n" + render(opened, "md") + "\n"
        + manifest_section(man)
    )
    files.insert(0, write_markdown(out_dir / "report.md", text))
    return files


def page_title(variant: str, sizes: list[int], mixed: bool) -> str:
    """The page's title (and its index card's): the mode, the tables and the questions the page answers; a mode
    with mixed tables and one with tables of equals get different titles."""
    at = f"{sizes[0]}–{sizes[-1]}" if len(sizes) > 1 else f"{sizes[0]}"
    tables = f"mixed tables at {at} players" if mixed else f"tables of equals at {at} players"
    skill = "which policy is strongest" if mixed else "skill against a field"
    return (f"VÁLKA {variant.replace('-', ' ').title()}, {tables}: is the first player favoured, {skill}, which "
            "Warbands and cards win")


def card_policy_reason(cpol: str | None, rungs, mixed: bool, field_ladder: dict | None,
                       search_ladder: dict | None) -> str:
    """Why the card tables are played by ``cpol``: the strongest practical policy of the page's ladder, or why
    not (the ladder's top is not a heuristic of the run; `search` plays too few games)."""
    top = rungs[0] if rungs else None
    where = "the ladder" if mixed else (f"the ladder against a field of `{field_ladder['field']}`, here at its own "
                                         "tables of equals (every seat plays it)" if field_ladder else "")
    if top is None:
        text = "the first heuristic of the scenario: no ladder ranks the policies here"
    elif top.policy == cpol:
        tied = [r.policy for r in rungs[1:] if not r.below_best and r.kind in TABLE_KINDS]
        text = (f"the strongest policy of {where}" if not tied else
                f"the highest estimate of {where}, not told apart from {', '.join(f'`{p}`' for p in tied)}")
    else:
        text = (f"the strongest heuristic or learned policy of {where}; `{top.policy}` ranks above it but is a "
                f"{top.kind} policy without card rows here")
    if search_ladder:
        text += ("; `search`, stronger on its small ladder, plays too few games "
                 f"({search_ladder.get('games', '?')}) for a card table")
    return text


def headline(seats: pl.DataFrame, frame: pl.DataFrame, sizes: list[int], rungs, wb_effects: dict[str, Estimate],
             field: str | None = None, search: dict | None = None) -> str:
    """The report's answer, first: the first player's win rate against the fair share at each table size, the
    skill spread (strongest and weakest hero, with the paired gap) where policies meet, and the best and worst
    Warband in the opening hand; 95% intervals, the deal as the unit. ``seats``: the practical policies' seat rows
    (the tables where the random policy plays left out)."""
    parts = [f"{_iv(e)} at {np_} players (fair share {1 / np_:.3f})"
             for np_, e in first_player_rates(seats, sizes).items()]
    text = (f"{DETAILS_MARKER} At the practical policies' tables the first player wins (a shared win counted 1/k to "
            "each of its k winners) " + "; ".join(parts) + ".")
    if rungs:
        best, worst = rungs[0], rungs[-1]
        tied = [r.policy for r in rungs[1:] if not r.below_best]
        # a tie at the top crowns nobody: the highest estimate is named as such
        top = ("the strongest hero policy" if not tied else
               f"no single strongest hero policy ({', '.join(f'`{p}`' for p in [best.policy, *tied])} are not told "
               "apart); the highest estimate,")
        text += (f" Skill{f' (against a field of `{field}`)' if field else ''}: {top} "
                 f"`{best.policy}` wins {best.value:.3f} [{best.low:.3f}, {best.high:.3f}]"
                 + f", the weakest `{worst.policy}` {worst.value:.3f} "
                 f"[{worst.low:.3f}, {worst.high:.3f}]; spread {-worst.gap:.3f} "
                 f"[{-worst.gap_high:.3f}, {-worst.gap_low:.3f}] (paired, {best.games:,} games).")
    else:
        text += " Tables of equals: no skill ladder (every seat plays the same policy)."
    if search:
        text += " " + search_sentence(search)
    if wb_effects:
        ranked = sorted(wb_effects, key=lambda w: wb_effects[w].estimate)
        best, worst = ranked[-1], ranked[0]
        text += (f" Warbands (2+ in the opening hand): best {best} {_iv(wb_effects[best])}"
                 f"{_alongside(best, wb_effects)}, worst {worst} {_iv(wb_effects[worst])}"
                 f"{_alongside(worst, wb_effects)} on P(win).")
    return text


def first_player_rates(seats: pl.DataFrame, sizes: list[int]) -> dict[int, Estimate]:
    """Per table size, the first player's win share (a shared win 1/k), the deal as the unit."""
    out = {}
    for np_ in sizes:
        at = seats.filter((pl.col("players") == np_) & (pl.col("order") == 0))
        out[np_] = deal_rate(win_share(at), deal_ids(at))
    return out


def lead_sentence(first: dict[int, Estimate], wb_effects: dict[str, Estimate]) -> str:
    """The page's lead: the first player at the table size where its share is farthest from the fair 1/n (in
    proportion), and the Warband in the opening hand with the largest effect on P(win) (with the Warbands its
    interval cannot be told from, as a tie); at the practical policies' tables, n = the deals of that size."""
    np_ = max(first, key=lambda n: abs(first[n].estimate * n - 1))
    e, fair = first[np_], 1 / np_
    how = (" is favoured" if e.low > fair else " is at a disadvantage" if e.high < fair else
           "'s edge is within the noise")
    text = f"The first player{how}: at {np_} players they win {interval(e)} against a fair {fair:.3f}"
    if wb_effects:
        worst, w_tied = extreme(wb_effects, worst=True)
        best, b_tied = extreme(wb_effects)
        low = -wb_effects[worst].estimate >= wb_effects[best].estimate
        pick, tied, word = (worst, w_tied, "weakest") if low else (best, b_tied, "strongest")
        if best in w_tied:  # the two ends overlap: no Warband is told apart from the rest
            other = best if pick == worst else worst
            text += (f"; no opening Warband stands out (the intervals of {pick}, "
                     f"{interval(wb_effects[pick], signed=True)} on P(win), and {other} overlap)")
        else:
            named = tie_words(pick, tied, "opening Warband", word, first=False)
            text += f"; {named}, {interval(wb_effects[pick], signed=True)} on P(win)"
    return text + f" (practical policies, {e.n:,} deals)."


def _alongside(warband: str, effects: dict[str, Estimate]) -> str:
    """The Warbands the games cannot tell from ``warband`` (:func:`simkit.core.stats.overlapping`), as a clause."""
    near = overlapping(warband, effects)
    return (" (intervals overlapping it: " + ", ".join(f"{w} {_iv(effects[w])}" for w in near) + ")"
            if near else "")


def search_sentence(sl: dict) -> str:
    """The small `search` ladder in the answer: `search`'s win rate and its paired gap to the strongest other
    policy, with the interval, n and the ladder's selection-corrected verdict."""
    rungs = sl["rungs"]
    s = next((r for r in rungs if r.policy == "search"), None)
    if s is None:
        return ""
    head = f"With `search` as the hero ({sl['games']:,} games, {sl['search']}): {s.value:.3f} [{s.low:.3f}, {s.high:.3f}]"
    if s is rungs[0]:
        b = rungs[1]
        verdict = "below it" if b.below_best else "not told apart from it"
        return (head + f"; search − `{b.policy}` = {-b.gap:+.3f} [{-b.gap_high:+.3f}, {-b.gap_low:+.3f}] (paired, "
                f"n = {b.games:,}; `{b.policy}` {verdict}, p adj. {b.p_adj:.2g}).")
    top = rungs[0]
    return (head + f"; search − `{top.policy}` = {s.gap:+.3f} [{s.gap_low:+.3f}, {s.gap_high:+.3f}] (paired, "
            f"n = {s.games:,}; {'below best' if s.below_best else 'not told apart'}, p adj. {s.p_adj:.2g}).")


def _search_section(sl: dict) -> str:
    from simkit.core import ladder

    return ("With `search` (slow, so on fewer games: " f"{sl['games']:,} games, the same deals for every hero, root "
            f"seed 2026; `search` = {sl['search']}):\n\n"
            + ladder.markdown(sl["rungs"], games=sl["games"], label="P(hero wins)",
                              **{k: sl[k] for k in ("precision", "cap", "block") if k in sl}) + "\n")


# the hero policies of the small search ladder
SEARCH_LADDER = ["search", "learned", "balanced_tuned", "balanced", "random"]


# the search ladder is played in blocks of SEARCH_BLOCK deals until every rung's 95% interval is within
# ±SEARCH_PRECISION, at most SEARCH_CAP deals
SEARCH_PRECISION = 0.125
SEARCH_BLOCK = 5
SEARCH_CAP = 100


def search_ladder(path: Path, games: int, jobs: int = 1, precision: float | None = None) -> dict:
    """The small ladder with `search` as the hero (``SEARCH_LADDER`` on the same deals, root seed 2026, blocks of
    ``SEARCH_BLOCK`` games; ``games`` of them, or with ``precision`` at most ``games``, until every rung is within
    ±``precision``): ``{"rungs": …, "games": deals played, "search": what `search` plays}`` (and the precision,
    cap and block the page states), the description from the simulation the ladder played (its ``describe()``,
    so `search`'s defaults count)."""
    from simkit.core import ladder

    rungs, pols = ladder.described_ladder(path, SEARCH_LADDER, games=games, seed=2026, jobs=jobs,
                                          block_size=SEARCH_BLOCK, precision=precision)
    spec = pols.get("search", {})
    return {"search": f"{spec.get('rollouts')} rollouts per action of `{spec.get('base')}`", "rungs": rungs,
            "games": rungs[0].games,
            **({} if precision is None else {"precision": precision, "cap": games, "block": SEARCH_BLOCK})}


def field_ladder(path: Path, field: str, games: int, jobs: int = 1) -> dict:
    """The skill ladder of a scenario of tables of equals played instead against a field of the strongest
    heuristic (every other seat; ``opponents = [FIELD]``), the scenario's ``play`` list as the heroes, on the same
    ``games`` deals per table size, root seed 2026. The strongest is found by a first ladder against ``field``
    (the scenario's first heuristic): its top heuristic rung (the highest estimate, if tied); when that is not
    ``field`` the ladder is played again against it, so the field is the strongest play the scenario has."""
    from simkit.core import ladder

    def against(f):
        return ladder.ladder(path, games=games, seed=2026, jobs=jobs, overrides=[f'opponents=["{f}"]'])

    rungs = against(field)
    top = next((r.policy for r in rungs if r.kind == "heuristic"), field)
    if top == field:
        return {"field": field, "games": games, "rungs": rungs, "first": field}
    return {"field": top, "games": games, "rungs": against(top), "first": field, "first_rungs": rungs}


def _field_origin(fl: dict) -> str:
    """How the field ladder's field was chosen (:func:`field_ladder`)."""
    if fl.get("first", fl["field"]) == fl["field"]:
        return (f"the strongest heuristic, `{fl['field']}` (the scenario's first heuristic, and the top of the ladder "
                "against it)")
    return (f"the strongest heuristic, `{fl['field']}` (the top heuristic of a first ladder against the scenario's "
            f"first heuristic, `{fl['first']}`, on the same deals)")


def bundled_multiplayer(out_dir: str | Path, quick: bool = False, jobs=None) -> list[Path]:
    """Run the bundled multiplayer scenarios (seed 2026) under ``out_dir/multiplayer/<mode>`` with reports;
    4-player Bounty Hunter adds a small ladder with `search` as the hero; the tables of equals, a ladder of their
    heroes against a field of their strongest heuristic (:func:`field_ladder`)."""
    from simkit.core.registry import scenarios_dir

    files = []
    for scen, mode, games in (("valka/bounty_hunter.toml", "bounty-hunter", 2_000),
                              ("valka/bounty_hunter_tables.toml", "bounty-hunter-tables", 1_000),
                              ("valka/annihilation.toml", "annihilation", 1_000),
                              ("valka/duel.toml", "duel", 2_000)):
        base = Path(out_dir) / "multiplayer" / mode
        run = run_bundled(scen, base / "run", games // 5 if quick else games, seed=2026, jobs=jobs)
        sl = fl = None
        if mode == "bounty-hunter":
            sl = search_ladder(scenarios_dir() / scen, 4 if quick else SEARCH_CAP, jobs or 1,
                               None if quick else SEARCH_PRECISION)
        man = results.manifest(run)
        if not man.get("opponents"):  # tables of equals: the ladder against a field of the strongest heuristic
            field = card_policy(man, [], False)
            if field:
                fl = field_ladder(scenarios_dir() / scen, field, 40 if quick else 400, jobs or 1)
        files += multiplayer_report(run, base, search_ladder=sl, field_ladder=fl)
    return files
