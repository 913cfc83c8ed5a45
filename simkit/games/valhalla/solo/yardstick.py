"""The battle yardstick: how far each policy's battle play stands from the exact optimum, on battles of real games.

Games of the bundled Solo scenario are played by the engine under one policy (the kernel's streams: the deck
order from stream (g, 0), the choices from (g, 1), the dice from (g, 2) of block 0 of the seed), each in a cell
(monster, deck variant, level, Jarl) drawn from the seed. One battle is drawn uniformly from each game's
battles that reach a decision, so the battles are independent draws. Each is solved exactly
(``battle.BattleSolver``: P(win) under optimal play and under every policy) from its start, the state just
after ``begin_battle``; a battle whose solve exceeds ``max_states`` is skipped and counted. The first roll
decision (the dice the game rolled) gives each policy's choice its verdict: optimal when the choice, followed by
optimal play, wins as often as the optimal choice (within 1e-12, so ties count).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from simkit.core import yardstick
from simkit.core.stats import Estimate
from simkit.games.valhalla.solo import layout as L

SEED = 2030
BATTLES = 30  # battles in the sample (one per game)
# a battle with more memoised states (optimum and every policy) is skipped: on seed 2030 about 1 in 10 battles,
# each ~8 CPU-s spent before it is given up; a solved battle takes ~2 CPU-s
MAX_STATES = 10_000
TIE = 1e-12


@dataclass
class Yardstick:
    policy: str  # the policy that played the games
    seed: int
    games: int  # games played
    skipped: int  # battles drawn but too large to solve
    no_battle: int  # games with no battle reaching a decision
    policies: list[str]
    max_states: int = MAX_STATES
    rows: list[dict] = field(default_factory=list)  # one per battle: optimal and each policy's P(win), agreement


def battle_start(s, env) -> np.ndarray:
    """The battle's state just after ``begin_battle`` from a state at its first decision: a Silence decision is
    that state; at a roll or commit decision (no Tactic played yet) ``begin_battle`` is replayed on the game's
    fields, which the roll does not change."""
    from simkit.games.valhalla.solo import engine as E

    t = s.copy()
    if t[L.PHASE] != L.PH_SILENCE:
        E.begin_battle(t, env, int(t[L.B_ATTACK]), int(t[L.B_CTX]))
    return t


def _battles_done(s) -> int:
    return int(s[L.ATT_WON] + s[L.ATT_LOST] + s[L.DEF_WON] + s[L.DEF_LOST])


def play_battles(sim, policy: str, game: int, cell: tuple[int, int], key, solved=()) -> tuple[list, tuple]:
    """Game ``game`` of cell ``cell`` (group, cell index) of ``sim`` played by the engine under ``policy``:
    ([(start state, first PH_ROLL state or None)] of every battle that reaches a decision, the cell's env).
    ``solved``: the parameter vectors of the policies the battles will be solved for (the env carries the exact
    rolls' scratch when one of them, or ``policy``, rolls exactly)."""
    from simkit.core.policies import compile_policy
    from simkit.core.rng import seed_stream
    from simkit.games.valhalla.solo import engine as E
    from simkit.games.valhalla.solo import policies as pol
    from simkit.games.valhalla.solo.simulation import MAX_STEPS, cell_env

    gi, ci = cell
    spec = next(p for p in sim.policy_specs if p[0] == policy)
    kind, par, _, _ = compile_policy(spec[1], spec[2], pol.PARAMS)
    rows = [v for v in (par, *solved) if v.shape == par.shape]  # (a learned policy's vector is not a heuristic's)
    env = cell_env(sim, gi, ci, params=np.vstack(rows))  # the exact rolls' scratch only when needed
    deck_ids = sim.groups[gi]["deck_ids"]
    s = np.zeros(L.STATE_SIZE, np.int32)
    rng, prng, shuffler = (np.empty(4, np.uint64) for _ in range(3))
    seed_stream(shuffler, key, game, 0)
    seed_stream(prng, key, game, 1)
    seed_stream(rng, key, game, 2)
    E.new_game(s, rng, env, shuffler, deck_ids)
    buf = np.empty(L.MAX_ACTIONS, np.int64)
    out, seen, steps = [], -1, 0
    while s[L.DONE] == 0 and steps < MAX_STEPS:
        ph = s[L.PHASE]
        if ph in (L.PH_SILENCE, L.PH_ROLL, L.PH_COMMIT):
            if _battles_done(s) != seen:  # the first decision of a new battle
                seen = _battles_done(s)
                out.append([battle_start(s, env), None])
            if ph == L.PH_ROLL and out[-1][1] is None:
                out[-1][1] = s.copy()
        m = E.legal_actions(s, env, buf)
        a = pol.policy(kind, s, env, buf, m, par, prng)
        E.apply_action(s, rng, env, a)
        steps += 1
    return [(a, b) for a, b in out], env


def policy_table(sim, names) -> dict:
    """{name: (kind, parameter vector)} of the scenario's policies ``names``, as ``BattleSolver`` takes them."""
    from simkit.core.policies import compile_policy
    from simkit.games.valhalla.solo import policies as pol

    out = {}
    for name, kind, values in sim.policy_specs:
        if name in names:
            k, vec, _, _ = compile_policy(kind, values, pol.PARAMS)
            out[name] = (k, vec)
    return out


def solve_battle(s0, first, env, pols: dict, max_states: int = MAX_STATES) -> dict | None:
    """The exact numbers of one battle: P(win) optimal and per policy, the loss, and per policy whether its
    choice at ``first`` (None: no roll decision) is optimal. None when the solve exceeds ``max_states``."""
    from simkit.games.valhalla.solo.battle import BattleSolver, TooLarge

    solver = BattleSolver(s0, env, pols, max_states=max_states)
    try:
        opt = solver.value(None)
        row = {"optimal": opt}
        for n in pols:
            row[n] = solver.value(n)
            row[f"{n} lost"] = opt - row[n]
        if first is not None:
            best = solver.decision(first.copy(), None)
            for n in pols:
                a = solver.policy_action(first.copy(), n)
                q = solver.after(first.copy(), a, None)
                row[f"{n} agrees"] = bool(best - q <= TIE)
    except TooLarge:
        return None
    return row


def measure(sim, policy: str, names, n: int = BATTLES, seed: int = SEED, max_states: int = MAX_STATES,
            max_games: int | None = None) -> Yardstick:
    """``n`` battles of games played under ``policy`` (one drawn per game), solved for the policies ``names``."""
    from simkit.core.seeding import block_key

    key = block_key(seed, 0)
    pick = np.random.default_rng(seed)
    cells = [(gi, ci) for gi, g in enumerate(sim.groups) for ci, (_, _, p) in enumerate(g["cells"])
             if p[0] == policy]
    pols = policy_table(sim, names)
    y = Yardstick(policy, seed, 0, 0, 0, [p for p in names if p in pols], max_states)
    g = 0
    while len(y.rows) < n and g < (max_games or 4 * n):
        gi, ci = cells[int(pick.integers(len(cells)))]
        battles, env = play_battles(sim, policy, g, (gi, ci), key, [vec for _, vec in pols.values()])
        g += 1
        if not battles:
            y.no_battle += 1
            continue
        s0, first = battles[int(pick.integers(len(battles)))]
        row = solve_battle(s0, first, env, pols, max_states)
        if row is None:
            y.skipped += 1
            continue
        grp = sim.groups[gi]
        level, jarl, _ = grp["cells"][ci]
        row.update(game=g - 1, monster=grp["monster"], variant=grp["variant"], level=level, jarl=jarl,
                   attack=bool(s0[L.B_ATTACK]), card=int(s0[L.MON]) + 1)
        y.rows.append(row)
    y.games = g
    return y


def summary(y: Yardstick) -> dict[str, dict]:
    """Per policy, over the battles solved: :func:`simkit.core.yardstick.summary`."""
    return yardstick.summary(y.rows, y.policies)


def _iv(e: Estimate, d: int = 3) -> str:
    return f"{e.estimate:.{d}f} [{e.low:.{d}f}, {e.high:.{d}f}]"


def section(y: Yardstick) -> tuple[str, str, dict]:
    """``(headline sentence, Markdown section, summary)`` of the yardstick."""
    from simkit.core.tables import render

    sm = summary(y)
    n = len(y.rows)
    lead = y.policy if y.policy in sm else y.policies[0]
    e = sm[lead]["lost"]
    headline = (f"`{lead}` gives away **{e.estimate:.4f}** [{e.low:.4f}, {e.high:.4f}] P(win) per battle against "
                f"optimal battle play (mean over n = {n} battles of its own games, solved exactly), and its first "
                f"roll choice is optimal in {sm[lead]['agree'].estimate:.2f} [{sm[lead]['agree'].low:.2f}, "
                f"{sm[lead]['agree'].high:.2f}] of them.")
    rows = [{"policy": p, "P(win) optimal (mean)": _iv(s["optimal"]), "P(win) policy (mean)": _iv(s["policy"]),
             "lost per battle [95%]": _iv(s["lost"], 4),
             "first roll choice optimal [95%]": _iv(s["agree"], 2),
             "n (battles)": n, "n (first roll decisions)": s["decisions"]} for p, s in sm.items()]
    text = (
        "## How close the policies' battle play is to the optimum\n\n"
        + headline + "\n\n"
        f"{y.games} games of the bundled scenario played by `{y.policy}` (cells drawn at random, root seed "
        f"{y.seed}); from each, one battle drawn uniformly among those that reach a decision, so the {n} battles "
        "are independent. Each is solved exactly from its start (`simkit odds valhalla-battle`'s dynamic "
        "programme: the Silence, every reroll, Weapon Delivery and the commit) under optimal play and under each "
        "policy; `lost` is P(win optimal) − P(win policy), never negative. Means over battles carry a 95% "
        "Clopper–Pearson interval on their sum (every value lies in [0, 1], and a 0/1 value is the most variable "
        "such value, so it holds its level on skewed values; a normal interval, with most battles losing "
        "nothing, covers about 0.86 at this n). The first roll decision is the one the game reached (its own dice); a choice counts as optimal "
        "when, followed by optimal play, it wins as often as the optimal choice (ties included); Wilson 95%."
        + (f" {y.skipped} drawn battle{'s' if y.skipped != 1 else ''} exceeded the solver's budget "
           f"({y.max_states:,} states; the sample leans to the smaller battles) and {'were' if y.skipped != 1 else 'was'} skipped." if y.skipped else
           " No drawn battle exceeded the solver's budget.")
        + (f" {y.no_battle} game{'s' if y.no_battle != 1 else ''} had no battle with a decision." if y.no_battle
           else "") + "\n\n"
        + render(rows, "md") + "\n" + _alike_text(y, lead))
    return headline, text, sm


def battle_alike(y: Yardstick, lead: str) -> list[str]:
    """The policies that play every battle of the yardstick as ``lead`` does: the same exact P(win) in each, and
    the same verdict on its first roll choice."""
    keys = lambda p: [(r[p], r.get(f"{p} agrees")) for r in y.rows]  # noqa: E731
    return [p for p in y.policies if p != lead and y.rows and keys(p) == keys(lead)]


def _alike_text(y: Yardstick, lead: str) -> str:
    """Under the table: each group of policies that play every battle alike, named once after its first row (the
    lead's group first), so that repeated rows are explained."""
    text, named = "", set()
    for head in [lead, *(p for p in y.policies if p != lead)]:
        if head in named:
            continue
        named.add(head)
        alike = [p for p in battle_alike(y, head) if p not in named]
        named.update(alike)
        if alike:
            names = " and ".join(f"`{p}`" for p in alike)
            text += (f"\n{names} play{'s' if len(alike) == 1 else ''} every one of these {len(y.rows)} battles as "
                     f"`{head}` does (the same exact P(win) battle by battle, and the same first roll choice), so "
                     f"{'its row repeats' if len(alike) == 1 else 'their rows repeat'} `{head}`'s: these heuristics "
                     "battle alike and differ in when they attack and which cards they keep.\n")
    return text


def bundled(names=None, n: int = BATTLES, seed: int = SEED, scenario: str | Path | None = None,
            overrides=()) -> Yardstick:
    """The yardstick of the bundled scenario (with ``overrides``, ``--set`` values): games of its strongest
    heuristic (the first of ``play``), the ladder's heuristics solved."""
    from simkit.core import loader
    from simkit.core.registry import scenarios_dir

    sim = loader.load(Path(scenario) if scenario else scenarios_dir() / "valhalla" / "solo.toml",
                      list(overrides)).simulation
    heur = [name for name, kind, _ in sim.policy_specs if kind == "heuristic"]
    return measure(sim, heur[0], list(names) if names else heur, n, seed)
