"""``simkit odds lonequest-battle``: one Lonequest battle solved exactly, optimal play against the policies."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import click

from simkit.core.oddscli import (battle_mc_check, check_file_options, emit_battle, exact_text, first_choices,
                                   keys, mc_cells, odds_options)
from simkit.core.tables import fraction_str, render
from simkit.errors import InputError
from simkit.games.valka.cards import BUFF_TYPES, EVENT_KINDS, WARBANDS

FIRST = 8  # the most likely first decisions shown with their optimal and policy choices
STANDING_NOTE = ("P(cleared) counts a battle in which the last Marauder and the last Fighter fall together as won; "
                 "P(cleared, Warband standing) counts it lost when no Fighter is left on the Frontline or in the "
                 "Warband Deck (the Lonequest then fails: \"If you have no Warband Fighters to draw or battle with, "
                 "you have failed\"). Each is the optimum for its own count; the first decisions below are those of "
                 "P(cleared).\n")
HEURISTICS = ("cautious", "aggressive", "greedy_trader")  # the Lonequest's heuristic presets; random on request
MAX_MARAUDERS = 4  # a Location holds 5 cards; the solver keeps one under the Marauders
STRONG_ENUF = ("sum", "each", "strongest")  # scenario.STRONG_ENUF (a test checks)
LONE_ONE = ("loses", "fails")


# The most solver states a battle may have by its upper bound (``state_bound``), computed from the position before
# anything is solved; over it the battle is refused at once (--max-work). The bound is loose (the Squire against The
# Old Gob bounds at 1.4e16 for its 24 states; with Stamina 2 and two Reinforcements, 3.2e22 for 253), so the solver's
# own count (battle.MAX_STATES) still stops what the bound admits.
MAX_WORK = 10**25
# The most engine runs (one per dice path and deck prefix replayed) the solver may make, counted while it solves:
# a battle the bound admits stops here, deterministically, within seconds (about 200,000-300,000 runs a
# second on one core of the 2-core development machine, 2026-12-05), rather than after minutes at the state cap.
MAX_RUNS = 1_000_000
MAGIC_STORM_POINTS = 3  # engine.MAGIC_STORM (a test checks)
# the engine's decision machinery at a memoised battle state, by the values each slot can hold: PHASE (16 decisions),
# T_STAGE (9 turn stages), B_ACTIVE (2), B_STAGE (7 battle stages), B_ATTACKING (2), B_NSPEC (0..8 special actions),
# B_TEAM (2), EQ_PENDING (2), TF_CTX (3), TF_HARMFUL (2), TF_RESULT (2); B_HITS is counted with the Marauders
MACHINERY = 16 * 9 * 2 * 7 * 2 * 9 * 2 * 2 * 3 * 2 * 2


def state_bound(cards, position_args, stamina: int, krone: int, boons: bool, plays: int) -> int:
    """An upper bound on the states the solver memoises for a battle, from the position alone (``position_args`` as
    ``check_position`` gives them), before anything is solved and without the engine. A memoised state is the
    engine state at a decision with counters and marks cleared and the decks as multisets, for each of ``plays``
    (the optimum and each policy). Its parts, each bounded by the values it can take, multiplied:

    - where each Fighter of the position is (the N of the Frontline, the decks and the Marauders): the Frontline,
      the Fighter deck, the Warband deck, the Graveyard (as yours or as a defeated Marauder), the Location or
      revealed: 7^N; the Frontline's order (at most min(4, N)!), the Location's and the revealed Marauders' orders
      (M! each, M Marauders);
    - per Frontline slot (min(4, N)): damage 0..H+2 (H: the largest Health of the position's Fighters, a Health Buff
      adds at most 3), attacked this Attack or not, and per Buff type none or one of the Buff cards that can reach
      it; per revealed Marauder: damage 0..H-1; the Strong Enuf blows pending 0..M; Marauders defeated 0..M;
    - the Buff cards of the position in hand, equipped or in the Loot deck (3 each) and its Events in hand, in the
      Loot deck or spent (4 each); every card of the Loot deck when a Weird Warp (two Brotherhood Fighters, Boons
      on) can draw from it;
    - Stamina 0..min(9, Stamina + M + 3), Krone 0..min(99, Krone + 10 M + 10), the offering made or not;
    - with Boons, per Warband of the Fighters: its Boon level (3), whether it is fresh (2), and the one-time Boons
      pending (0..N Weird Warps or Monstrous Roars, 0..3 N Magic Storm points) where that Warband is present;
    - the decision machinery (``MACHINERY``).
    Quests, Markets, marches and the Frontline's return never happen inside a solved battle (the card under the
    Marauders is never revealed, the solver explores, an escape is scored without being played)."""
    from math import factorial

    from simkit.games.valka.cards import JOKER

    _, front, hand_buffs, hand_events, marauders, fighter_deck, warband_deck = position_args
    pool = [f for f, _ in front] + list(fighter_deck) + list(warband_deck) + list(marauders)
    n, m = len(pool), len(marauders)
    slots = min(4, n)
    health = max(cards.fighters[f].health for f in pool)
    real = [cards.fighters[f].warband for f in pool if cards.fighters[f].warband != JOKER]
    jokers = sum(cards.fighters[f].warband == JOKER for f in pool)
    warbands = set(real)
    brotherhood = 1  # boons.BROTHERHOOD
    warp = boons and brotherhood in warbands and real.count(brotherhood) + jokers >= 2
    if warp:
        buff_cards = list(range(len(cards.buffs)))
        n_events = len(cards.events)
    else:
        buff_cards = [c for _, eq in front for c in eq] + list(hand_buffs)
        n_events = len(hand_events)
    per_type = [sum(cards.buffs[c].type == t for c in buff_cards) + 1 for t in range(3)]
    bound = plays * 7 ** n * factorial(slots) * factorial(m) ** 2
    bound *= ((health + 3) * 2 * per_type[0] * per_type[1] * per_type[2]) ** slots
    bound *= health ** m * (m + 1) ** 2
    bound *= 3 ** len(buff_cards) * 4 ** n_events
    bound *= (min(9, stamina + m + 3) + 1) * (min(99, krone + 10 * m + 10) + 1) * 2
    if boons:
        bound *= 3 ** len(warbands) * 2 ** len(warbands)
        for w, most in ((1, n), (4, n), (7, MAGIC_STORM_POINTS * n)):  # Brotherhood, Monsters, Wizards
            if w in warbands:
                bound *= most + 1
    return bound * MACHINERY


def _buff(text: str, option: str) -> tuple[int, int]:
    """``strike2`` -> (type 0, value 2)."""
    for t, name in enumerate(BUFF_TYPES):
        if text.startswith(name) and text[len(name):] in ("1", "2", "3"):
            return t, int(text[len(name):])
    raise InputError(f"{option}: unknown Buff {text!r}; allowed values: a type ({', '.join(BUFF_TYPES)}) and a "
                     "value 1-3, e.g. strike2")


def check_position(cards, warband, front, hand, marauders, fighter_deck, warband_deck):
    """Card ids of a position, every choice checked (no numba): (warband, [(fighter, [buff cards])], hand Buff
    cards, hand Event cards, Marauders, Fighter deck, Warband deck). A card key may be given once (one card
    each); an ``InputError`` names the option, what is wrong and what is allowed."""
    if warband not in WARBANDS:
        raise InputError(f"--warband: unknown Warband {warband!r}; allowed values: {', '.join(WARBANDS)}")
    keys = {f.key: i for i, f in enumerate(cards.fighters)}
    used: set[int] = set()

    def fighter(k, option):
        if k not in keys:
            raise InputError(f"{option}: unknown Fighter {k!r}; allowed values: Fighter keys of the cards file "
                             f"({', '.join(list(keys)[:6])}, …)")
        if keys[k] in used:
            raise InputError(f"{option}: Fighter {k!r} is given twice; allowed: each Fighter card once")
        used.add(keys[k])
        return keys[k]

    free_buffs = list(range(len(cards.buffs)))

    def buff_card(text, option):
        t, v = _buff(text, option)
        for c in free_buffs:
            if cards.buffs[c].type == t and cards.buffs[c].value == v:
                free_buffs.remove(c)
                return c
        raise InputError(f"{option}: no {text} Buff card left; allowed: as many as the cards file holds")

    if not 1 <= len(front) <= 4:
        raise InputError(f"--front: {len(front)} Fighters; allowed: 1..4")
    front_ids = []
    for item in front:
        name, *buffs = item.split("+")
        f = fighter(name, "--front")
        types = [_buff(b, "--front")[0] for b in buffs]
        if len(set(types)) < len(types):
            raise InputError(f"--front: {name!r} has two Buffs of one type; allowed: 1 of each type (core rules)")
        front_ids.append((f, [buff_card(b, "--front") for b in buffs]))
    hand_buffs, hand_events = [], []
    free_events = list(range(len(cards.events)))
    for item in hand:
        if item in EVENT_KINDS:
            e = next((e for e in free_events if cards.events[e].kind == EVENT_KINDS.index(item)), None)
            if e is None:
                raise InputError(f"--hand: no {item} Event card left; allowed: as many as the cards file holds")
            free_events.remove(e)
            hand_events.append(e)
        else:
            try:
                hand_buffs.append(buff_card(item, "--hand"))
            except InputError:
                raise InputError(f"--hand: unknown card {item!r}; allowed values: Events "
                                 f"({', '.join(EVENT_KINDS)}) or Buffs (e.g. shield1)") from None
    if not 1 <= len(marauders) <= MAX_MARAUDERS:
        raise InputError(f"--marauders: {len(marauders)} Marauders; allowed: 1..{MAX_MARAUDERS}")
    mar = [fighter(k, "--marauders") for k in marauders]
    fd = [fighter(k, "--fighter-deck") for k in fighter_deck]
    wb = [fighter(k, "--warband-deck") for k in warband_deck]
    return WARBANDS.index(warband), front_ids, hand_buffs, hand_events, mar, fd, wb


def check_policies(names) -> None:
    """``--policies``: Lonequest presets other than ``search`` (read without importing numba)."""
    from simkit.core.registry import literal_from_source

    presets = literal_from_source("simkit.games.valka.lonequest.policies", "PRESETS")
    allowed = [k for k, (kind, _) in presets.items() if kind != "search"]
    for name in names:
        if name not in allowed:
            raise InputError(f"--policies: {name!r} cannot be solved exactly; allowed values: {', '.join(allowed)}")


def _situation(t, names) -> str:
    """A decision state in words: the Frontline and the Marauders with their Health left."""
    from simkit.games.valka.lonequest import layout as L

    front = [names[int(t[L.FRONT + L.F_SIZE * i])] + f" ({int(t[L.FRONT + L.F_SIZE * i + L.F_DAMAGE])} dmg)"
             for i in range(t[L.FRONT_N])]
    mar = [names[int(t[L.MAR + 2 * j])] + f" ({int(t[L.MAR + 2 * j + 1])} dmg)" for j in range(t[L.MAR_N])]
    return f"{L.PHASES[t[L.PHASE]]}: " + ", ".join(front) + " vs " + ", ".join(mar)


def check_bound(cards, args, stamina, krone, boons, policy_names, max_work=MAX_WORK) -> None:
    """An ``InputError`` when the battle's :func:`state_bound` is over ``max_work`` (before anything is solved)."""
    bound = state_bound(cards, args, stamina, krone, boons, 1 + len(policy_names))
    if bound > max_work:
        raise InputError(f"--front/--marauders/--fighter-deck/--warband-deck/--hand: the battle is too large to solve "
                         f"exactly: up to {bound:.2e} solver states (an upper bound from the position, before "
                         f"solving), over the limit of {max_work:.2e}; raise the limit with --max-work, or solve with "
                         "fewer Fighters, deck cards, Events or --policies")


def solve(cards, position_args, rules, policy_names, max_work: int = MAX_WORK, boons: bool = True,
          max_runs: int = MAX_RUNS):
    """(solver, rows of P(win) per play, first-decision rows, agreement) of one battle; a battle whose
    :func:`state_bound` is over ``max_work`` is refused before the solver starts (``boons``: the rule option), one
    that needs more than ``max_runs`` engine runs (per count) when the solver reaches them."""
    *args, stamina, krone = position_args
    check_bound(cards, args, stamina, krone, boons, policy_names, max_work)
    from simkit.games.valka.lonequest import policies as pol
    from simkit.games.valka.lonequest.battle import Cyclic, LonequestBattle, TooLarge, describe_action, position
    from simkit.games.valka.lonequest.simulation import card_data

    s0, env = position(card_data(cards), rules, *position_args)
    pols = {n: (pol.RANDOM if pol.PRESETS[n][0] == "random" else pol.HEURISTIC, pol.param_vector(pol.PRESETS[n][1]))
            for n in policy_names}
    solver = LonequestBattle(s0, env, pols, max_work=max_runs)
    # the same battle scored "with the Warband standing": a clearing in which the last Fighter fell too (and none
    # is left to draw) is lost; its optimum is its own (the outcomes of each action are shared, not re-enumerated)
    standing = LonequestBattle(s0, env, pols, standing=True, shared=solver, max_work=max_runs)
    try:
        values = {None: solver.value(None), **{n: solver.value(n) for n in policy_names}}
        stand = {None: standing.value(None), **{n: standing.value(n) for n in policy_names}}
    except TooLarge as e:
        raise InputError(f"--marauders/--fighter-deck/--warband-deck: the battle is too large to solve exactly "
                         f"({e}); allowed: fewer Marauders, deck cards or Events in hand"
                         + (", or a higher --max-runs" if "engine runs" in str(e) else "")) from None
    except Cyclic as e:
        raise InputError(f"--no-defender-damage: {e} (a Chance Strike may deal no damage); allowed: "
                         "--defender-damage") from None
    rows = []
    for n, v in values.items():
        rows.append({"play": "optimal" if n is None else n, "win": fraction_str(v), "win_p": float(v),
                     "lost_vs_optimal": fraction_str(values[None] - v),
                     "lost_vs_optimal_p": float(values[None] - v),
                     "win_standing": fraction_str(stand[n]), "win_standing_p": float(stand[n])})
    names = [f.name for f in cards.fighters]
    first, agree = [], {n: Fraction(0) for n in policy_names}
    decided = Fraction(0)
    for p, t in sorted(solver.first(), key=lambda pt: -pt[0]):
        if solver.terminal(t) is not None:
            continue
        decided += p
        best = solver.best_action(t)
        opt_v = solver.value_at(t, None)
        row = {"situation": _situation(t, names), "probability": fraction_str(p), "probability_p": float(p),
               "optimal": describe_action(best, t, env, names), "optimal_win": float(opt_v)}
        for n in policy_names:
            a = solver.policy_action(t, n)
            row[n] = describe_action(a, t, env, names)
            row[f"{n}_win"] = float(solver.value_at(t, n))
            if solver.q(t, a, None) == opt_v:  # the policy's choice, then optimal play: worth the optimum?
                agree[n] += p
        first.append(row)
    if decided:
        agree = {n: v / decided for n, v in agree.items()}
    return solver, rows, first, agree


def text_output(head, rows, first, agree, policy_names, fmt, mc_row=None) -> str:
    md = fmt == "md"
    disp = []
    for r in rows:
        d = {"Play": r["play"], "P(cleared) exact": exact_text(Fraction(r["win"])),
             "Lost against optimal": f"{r['lost_vs_optimal_p']:.6f}",
             "P(cleared, Warband standing)": exact_text(Fraction(r["win_standing"]))}
        disp.append(mc_cells(d, r, mc_row))
    parts = ["\n".join(("- " if md else "") + h for h in head) + "\n",
             ("## " if md else "") + "P(clearing the Marauders)\n\n" + render(disp, fmt) + "\n" + STANDING_NOTE]
    if first:
        parts.append(first_choices(first, FIRST, "situation", "First decision", "P", "decisions", policy_names,
                                   agree, fmt))
    return "\n".join(parts)


@click.command("lonequest-battle")
@click.option("--front", required=True,
              help="The Frontline, left to right: Fighter keys of the cards file, comma-separated, each with its "
                   "equipped Buffs as +TYPEVALUE (e.g. lancer+strike2+health1,squire).")
@click.option("--marauders", required=True,
              help="The Location's Marauders: Fighter keys, comma-separated, the first revealed first (1 to 4).")
@click.option("--hand", default="", help="Cards in hand: Event kinds (fear, potion, fireblast, …) and Buffs "
                                         "(e.g. shield1), comma-separated.")
@click.option("--warband", default="knights", show_default=True, help="The player's Warband (its Boons).")
@click.option("--fighter-deck", default="", help="The Fighter deck Reinforcements come from: Fighter keys "
                                                 "(shuffled; default: empty).")
@click.option("--warband-deck", default="", help="The Warband deck (Rally, Reinforce, a new Fighter): Fighter keys "
                                                 "(shuffled; default: empty).")
@click.option("--stamina", type=click.IntRange(0, 9), default=3, show_default=True,
              help="Stamina (3 or more: you attack first).")
@click.option("--krone", type=click.IntRange(0, 99), default=0, show_default=True, help="Krone (the offering).")
@click.option("--strong-enuf", type=click.Choice(STRONG_ENUF), default="sum", show_default=True,
              help="Rule option: the Marauders' Strike against your combined Shield (docs/rules.md).")
@click.option("--lone-one", type=click.Choice(LONE_ONE), default="loses", show_default=True,
              help="Rule option: a lone natural 1 in a Chance Strike loses the combat or only fails.")
@click.option("--defender-damage/--no-defender-damage", default=True, show_default=True,
              help="Rule option: the winner of a Chance Strike deals the damage, defender too.")
@click.option("--boons/--no-boons", default=True, show_default=True, help="Rule option: Warband Boons.")
@click.option("--cards", "cards_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Cards file (default: the bundled scenarios/valka/cards.toml).")
@click.option("--policies", "policies", default=",".join(HEURISTICS), show_default=True,
              help="Policies to solve beside the optimum (Lonequest presets; 'random' too).")
@click.option("--max-work", type=click.IntRange(1, None), default=MAX_WORK, show_default=True,
              help="Refuse, before solving, a battle whose solver states are bounded above this (an upper bound "
                   "from the Fighters, decks, cards in hand, Stamina and Krone, for the optimum and each policy).")
@click.option("--max-runs", type=click.IntRange(1, None), default=MAX_RUNS, show_default=True,
              help="Stop, while solving, a battle that needs more engine runs than this (one per dice path and deck "
                   "card replayed; about 5 s per million on one core).")
@odds_options
def lonequest_battle_cmd(front, marauders, hand, warband, fighter_deck, warband_deck, stamina, krone, strong_enuf,
                         lone_one, defender_damage, boons, cards_path, policies, max_work, max_runs, fmt, out, mc,
                         seed, jobs, plot):
    """VÁLKA Lonequest: one battle solved exactly, with best play and with each policy.

    An expectimax over the Lonequest engine's own decisions (attacker, target and kind of Strike, Special Combat
    Actions and Events, Divine Aid, the offering, Equip and Boon targets), every d10 and every card drawn from
    the Fighter or Warband deck enumerated, memoised over the battle state. Prints P(clearing the Location's
    Marauders) under optimal play and under each policy (exact fractions), and the same with the Warband standing
    (a clearing in which the last Fighter falls too, none left to draw, counted lost), the optimal first choice, and with
    --mc N the optimum checked by the engine played N times by the optimal table. Rule text: valka.txt,
    Lonequest Rules, Battle.
    """
    from simkit.games.valka.cards import load_cards

    check_file_options(cards=cards_path)
    policy_names = keys(policies)
    check_policies(policy_names)
    cards = load_cards(cards_path)
    args = check_position(cards, warband, keys(front), keys(hand), keys(marauders), keys(fighter_deck),
                          keys(warband_deck))
    check_bound(cards, args, stamina, krone, boons, policy_names, max_work)
    from simkit.games.valka.lonequest.simulation import rules_vector

    rules = rules_vector(strong_enuf=strong_enuf, lone_one=lone_one, defender_deals_damage=defender_damage,
                         warband_boons=boons, step_cap=1_000_000)
    solver, rows, first, agree = solve(cards, (*args, stamina, krone), rules, policy_names, max_work, boons,
                                       max_runs)
    head = [f"Frontline: {', '.join(keys(front))}; hand: {', '.join(keys(hand)) or '(none)'}; Warband {warband}; "
            f"Stamina {stamina}, Krone {krone}",
            f"Marauders: {', '.join(keys(marauders))}; Fighter deck: {len(args[5])} cards; Warband deck: "
            f"{len(args[6])} cards",
            f"Optimal P(clearing the Marauders) = {exact_text(Fraction(rows[0]['win']))}; with the Warband "
            f"standing (a Fighter left on the Frontline or in the Warband Deck) = "
            f"{exact_text(Fraction(rows[0]['win_standing']))}"]
    mc_row = None
    if mc:
        from simkit.games.valka.lonequest.battle import play

        mc_row = battle_mc_check(play, solver, mc, seed, rows)
    if plot:
        from simkit.core.plotting import bars

        bars(plot, [r["play"] for r in rows], [r["win_p"] for r in rows], ylabel="P(clearing the Marauders)",
             title="Lonequest battle: optimal play and the policies")
    emit_battle(fmt, out, rows, first, "first_decisions", agree,
                lambda: text_output(head, rows, first, agree, policy_names, fmt, mc_row))
