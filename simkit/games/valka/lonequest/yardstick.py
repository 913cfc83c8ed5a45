"""The battle yardstick: how far each policy's battle play stands from the exact optimum, on battles of real games.

Games of the bundled Lonequest scenario are played by the engine (the kernel's streams: the dice from stream
(g, 0), the policy's coin flips from (g, 1) of block 0 of the seed), game g by the ladder's policy g mod k in a
Warband drawn from the seed. A battle starts where the rules say: "Once you reveal a Marauder on a Map Location,
your Warband is engaged in battle!" (valka.txt, Lonequest Rules, Battle); the game is stopped just before each
such reveal (``advance_to_reveal``, the engine's own ``advance`` with that stop), and one of those battles is
drawn uniformly per game, so the battles are independent. The battle is the state there with the Location's
cards under its run of Marauders replaced by one card never revealed (``battle.DUMMY``): the question is
P(clearing those Marauders). Each is solved exactly (``battle.LonequestBattle``: optimal and every policy) within a
budget of engine runs; a battle beyond it is skipped and counted. The game's own first decision of the battle
(its dice, its Reinforcements) gives each policy's choice its verdict: optimal when the choice, followed by
optimal play, clears as often as the optimal choice (exact Fractions: ties count).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from numba import njit

from simkit.core import yardstick
from simkit.core.stats import Estimate
from simkit.games.valka.lonequest import engine as E
from simkit.games.valka.lonequest import layout as L

SEED = 2032
GAMES = 60  # games drawn (one battle each)
# engine runs (dice paths × deck prefixes) one battle may cost, the optimum and every policy together (about
# 70,000 a CPU-second): the Squire against The Old Gob costs 4,200; on seed 2032 one battle in 12 fits in 60,000,
# and two in 12 in 300,000 (each refusal ~5 CPU-s): the kept battles are the small ones
MAX_WORK = 60_000


@njit(cache=True, _nrt=False)
def advance_to_reveal(s, rng, env, resume):
    """``engine.advance``, stopping (True) just before the turn reveals a Marauder on the Location visited
    ("Explore! - Reveal the Top card"); ``resume``: the state is such a stop, reveal it and play on."""
    while s[L.DONE] == 0 and s[L.PHASE] == L.PH_NONE:
        if (s[L.BN_WARP] > 0 or s[L.BN_ROAR] > 0 or s[L.BN_STORM] > 0) and E.boon_pending(s, rng, env):
            pass
        elif s[L.EQ_PENDING]:
            s[L.EQ_PENDING] = 0
            if E.equip_any(s, env):
                s[L.PHASE] = L.PH_EQUIP
        elif s[L.RF_ACTIVE]:
            E.return_step(s, rng, env)
        elif s[L.MK_ACTIVE]:
            E.market_step(s, rng, env)
        elif s[L.B_ACTIVE]:
            E.battle_step(s, rng, env)
        elif s[L.Q_ACTIVE] >= 0:
            E.quest_step(s, rng, env)
        else:
            loc = s[L.LOC]
            if (not resume and s[L.T_STAGE] == L.T_EXPLORE
                    and s[L.LOC_CARDS + L.LOC_SIZE * loc + s[L.LOC_N + loc] - 1] >= 0):
                return True
            resume = False
            E.turn_step(s, rng, env)
    if s[L.DONE]:
        s[L.PHASE] = L.PH_NONE
    return False


def battle_state(t) -> tuple[np.ndarray, list[int]]:
    """(the battle's start state, its Marauders top first) from a game stopped before a Marauder's reveal: the
    Location keeps its run of Marauders from the top, with one card never revealed under them."""
    from simkit.games.valka.lonequest.battle import DUMMY

    u = t.copy()
    loc = int(u[L.LOC])
    base = L.LOC_CARDS + L.LOC_SIZE * loc
    cards = [int(u[base + i]) for i in range(int(u[L.LOC_N + loc]))][::-1]
    mar = []
    for c in cards:
        if c < 0:
            break
        mar.append(c)
    new = [DUMMY, *reversed(mar)]
    u[L.LOC_N + loc] = len(new)
    u[base:base + L.LOC_SIZE] = 0
    u[base:base + len(new)] = new
    return u, mar


def play_battles(env, kind, params, warband: int, game: int, key, final: bool = False):
    """Game ``game`` played by the engine under (``kind``, ``params``): [(state before the reveal, the game's
    first decision of that battle, or None when the battle ended before one)] of every Location Marauder's
    battle (``final``: and the game's last state)."""
    from simkit.core.rng import seed_stream
    from simkit.games.valka.lonequest import policies as pol

    s = np.zeros(L.STATE_SIZE, np.int32)
    rng, prng = np.empty(4, np.uint64), np.empty(4, np.uint64)
    seed_stream(rng, key, game, 0)
    seed_stream(prng, key, game, 1)
    E.setup(s, rng, env, warband)
    buf = np.empty(L.MAX_ACTIONS, np.int64)
    out, resume = [], False
    while True:
        stopped = advance_to_reveal(s, rng, env, resume)
        resume = stopped
        if stopped:
            out.append([s.copy(), None, int(s[L.BATTLES])])
            continue
        if out and out[-1][1] is None and s[L.BATTLES] == out[-1][2] + 1 and s[L.B_ACTIVE]:
            out[-1][1] = s.copy()  # (the battle's first decision: still in it)
        if s[L.DONE]:
            break
        n = E.legal_actions(s, env, buf)
        a = pol.policy(kind, s, env, buf, n, params, prng)
        E.apply_choice(s, rng, env, a)
    battles = [(a, b) for a, b, _ in out]
    return (battles, s) if final else battles


def policy_table(sim, names) -> dict:
    """{name: (kind, parameter vector)} of the scenario's policies ``names``, as ``LonequestBattle`` takes them."""
    from simkit.core.policies import compile_policy
    from simkit.games.valka.lonequest import policies as pol

    out = {}
    for name, kind, values in sim.policy_specs:
        if name in names:
            k, vec, _, _ = compile_policy(kind, values, pol.PARAMS)
            out[name] = (k, vec)
    return out


@dataclass
class Yardstick:
    seed: int
    games: int  # games played (one battle drawn from each)
    skipped: int  # battles drawn but beyond the budget
    policies: list[str]
    max_work: int = MAX_WORK
    rows: list[dict] = field(default_factory=list)  # one per kept battle
    drawn: list[dict] = field(default_factory=list)  # one per drawn battle: its size and whether kept


def solve_battle(s0, first, env, pols: dict, max_work: int = MAX_WORK) -> dict | None:
    """Exact numbers of one battle: P(clear) optimal and per policy, the loss, and per policy whether its choice
    at ``first`` (the game's first decision; None: none) is optimal. None beyond the budget."""
    from simkit.games.valka.lonequest.battle import Cyclic, LonequestBattle, TooLarge

    b = LonequestBattle(s0, env, pols, max_states=10 ** 9, max_work=max_work)
    try:
        opt = b.value(None)
        row = {"optimal": opt}
        for n in pols:
            row[n] = b.value(n)
            row[f"{n} lost"] = opt - row[n]
        if first is not None and b.terminal(first) is None and len(b.actions(first)) > 1:
            best = b.value_at(first.copy(), None)
            for n in pols:
                row[f"{n} agrees"] = b.q(first.copy(), b.policy_action(first, n), None) == best
    except (TooLarge, Cyclic):
        return None
    row["work"] = b.work
    return row


def measure(sim, names, games: int = GAMES, seed: int = SEED, max_work: int = MAX_WORK) -> Yardstick:
    """One battle drawn from each of ``games`` games (game g played by ``names[g % len(names)]``), solved for the
    policies ``names``."""
    from simkit.core.seeding import block_key
    from simkit.games.valka.cards import WARBANDS

    key = block_key(seed, 0)
    pick = np.random.default_rng(seed)
    pols = policy_table(sim, names)
    names = [p for p in names if p in pols]
    y = Yardstick(seed, games, 0, names, max_work)
    for g in range(games):
        player = names[g % len(names)]
        wname = sim.warband_names[int(pick.integers(len(sim.warband_names)))]
        battles = play_battles(sim.env, *pols[player], WARBANDS.index(wname), g, key)
        if not battles:
            continue
        t, first = battles[int(pick.integers(len(battles)))]
        s0, mar = battle_state(t)
        first = None if first is None else battle_state(first)[0]
        size = {"game": g, "played by": player, "warband": wname, "marauders": len(mar),
                "frontline": int(t[L.FRONT_N]), "fighter deck": int(L.deck_len(t, L.FD_HEAD)),
                "warband deck": int(L.deck_len(t, L.WB_HEAD)), "stamina": int(t[L.STAMINA]),
                "cards in hand": int((t[L.WHERE:L.WHERE + L.N_BUFFS + L.N_EVENTS] == L.HAND).sum())}
        row = solve_battle(s0, first, sim.env, pols, max_work)
        size["kept"] = row is not None
        y.drawn.append(size)
        if row is None:
            y.skipped += 1
            continue
        row.update(size)
        y.rows.append(row)
    return y


def summary(y: Yardstick) -> dict[str, dict]:
    """Per policy, over the battles solved: :func:`simkit.core.yardstick.summary`."""
    return yardstick.summary(y.rows, y.policies)


def _iv(e: Estimate, d: int = 3) -> str:
    return f"{e.estimate:.{d}f} [{e.low:.{d}f}, {e.high:.{d}f}]"


def _spread(rows, k) -> str:
    v = sorted(r[k] for r in rows)
    return f"{v[len(v) // 2]} (range {v[0]}–{v[-1]})" if v else "–"


def section(y: Yardstick, lead: str) -> tuple[str, str, dict]:
    """``(headline sentence, Markdown section, summary)`` of the yardstick, its sentence on policy ``lead``."""
    from simkit.core.tables import render

    sm = summary(y)
    n, drawn = len(y.rows), len(y.drawn)
    lead = lead if lead in sm else y.policies[0]
    e, a = sm[lead]["lost"], sm[lead]["agree"]
    headline = (f"`{lead}` plays the optimal choice at **{a.estimate:.0%}** [{a.low:.0%}, {a.high:.0%}] of the "
                f"battles' first decisions (n = {sm[lead]['decisions']}) and gives away **{e.estimate:.4f}** "
                f"[{e.low:.4f}, {e.high:.4f}] of P(clear) per battle against optimal play (n = {n} battles of real "
                f"games, solved exactly; {drawn - n} of the {drawn} drawn were too large to solve).")
    rows = [{"policy": p, "P(clear) optimal (mean)": _iv(s["optimal"]), "P(clear) policy (mean)": _iv(s["policy"]),
             "lost per battle [95%]": _iv(s["lost"], 4), "first choice optimal [95%]": _iv(s["agree"], 2),
             "n (battles)": n, "n (first decisions)": s["decisions"]} for p, s in sm.items()]
    kept = [d for d in y.drawn if d["kept"]]
    gone = [d for d in y.drawn if not d["kept"]]
    like = [{"battles": name, "n": len(ds), **{k: _spread(ds, k) for k in
             ("marauders", "frontline", "fighter deck", "warband deck", "cards in hand", "stamina")}}
            for name, ds in (("kept", kept), ("too large", gone)) if ds]
    text = (
        "## How close the policies' battle play is to the optimum\n\n"
        + headline + "\n\n"
        f"{y.games} games of the bundled scenario (root seed {y.seed}), game g played by the ladder's policy "
        f"g mod {len(y.policies)} ({', '.join(f'`{p}`' for p in y.policies)}) in a Warband drawn at random; from "
        "each, one battle drawn uniformly among its Location Marauders' battles (the game stopped just before the "
        "reveal), so the battles are independent. Each is solved exactly (`simkit odds lonequest-battle`'s "
        "expectimax on the engine: every d10, every card drawn from the Fighter and Warband decks) under optimal "
        "play and under each policy; P(clear) is the chance of defeating the Location's run of Marauders, `lost` "
        "is P(clear optimal) − P(clear policy), never negative. Means over battles carry a 95% Clopper–Pearson "
        "interval on their sum (values in [0, 1]). The first decision is the one the game reached (its own dice "
        "and draws); a choice counts as optimal when, followed by optimal play, it clears as often as the optimal "
        "choice (exact fractions, ties included); Wilson 95%; battles whose first decision has one choice, or "
        f"that end before one, have none. A battle costing more than {y.max_work:,} engine runs (dice paths and "
        f"deck draws, the optimum and every policy together) is skipped: {len(gone)} of {drawn}. **The kept "
        "battles are the small ones** (medians and ranges below): the verdict is on those, not on a battle "
        "drawn at random.\n\n"
        + render(rows, "md") + "\n\nWhat the drawn battles are like (median and range at the reveal):\n\n"
        + render(like, "md") + "\n")
    return headline, text, sm


def bundled(games: int = GAMES, seed: int = SEED, scenario: str | Path | None = None) -> Yardstick:
    """The yardstick of the bundled scenario: the ladder's policies but `random` (and `search`, too slow)."""
    from simkit.core import loader
    from simkit.core.registry import scenarios_dir

    sim = loader.load(Path(scenario) if scenario else scenarios_dir() / "valka" / "lonequest.toml").simulation
    names = [name for name, kind, _ in sim.policy_specs if kind not in ("random", "search")]
    return measure(sim, names, games, seed)
