"""``simkit odds valhalla-battle``: one Valhalla Solo battle solved exactly, optimal play against the policies."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import click

from simkit.core.oddscli import (battle_mc_check, check_file_options, emit_battle, exact_text, first_choices,
                                   keys, mc_cells, odds_options)
from simkit.core.tables import render, fraction_str
from simkit.errors import InputError

SIDES = ("base", "plus40")
FIRST_ROLLS = 8  # the most likely first rolls shown with their optimal and heuristic choices
HEURISTICS = ("builder", "aggressive")  # the named heuristic presets (policies.PRESETS); random on request
# The most solver states a battle may have by its upper bound (``state_bound``), estimated from the position before
# anything is solved; over it the battle is refused at once (--max-work). The bound is loose (the README example's
# is 11 million against its 9,000 states), so the solver's own count (battle.MAX_STATES) still stops what the bound admits.
MAX_WORK = 20_000_000


def check_position(deck, team, hand, monster: str, card: int, side: str, jarl):
    """The card ids of ``team`` and ``hand`` (a key given twice takes two copies), with every choice checked
    (no numba: bad input fails fast); an ``InputError`` names the option, what is wrong and what is allowed."""
    if monster not in deck.monsters:
        raise InputError(f"--monster: unknown monster {monster!r}; allowed values: {', '.join(deck.monsters)}")
    mon = deck.monsters[monster]
    cards = mon.cards_plus40 if side == "plus40" else mon.cards_base
    if not 1 <= card <= len(cards):
        raise InputError(f"--card: no card {card}; allowed values: 1..{len(cards)} ({monster!r} has {len(cards)})")
    if jarl is not None and jarl not in deck.jarl_keys:
        raise InputError(f"--jarl: unknown Jarl {jarl!r}; allowed values: {', '.join(deck.jarl_keys)}")
    rows, used = deck.rows(), set()

    def pick(keys, option, kind, cls):
        ids = []
        for k in keys:
            found = [i for i, key in enumerate(deck.card_keys) if key == k]
            if not found:
                allowed = sorted({key for key, r in zip(deck.card_keys, rows) if type(r).__name__ == cls})
                raise InputError(f"{option}: unknown card {k!r}; allowed values: {kind} keys of the deck file "
                                 f"({', '.join(allowed[:6])}, …)")
            if type(rows[found[0]]).__name__ != cls:
                raise InputError(f"{option}: {k!r} is a {type(rows[found[0]]).__name__}; allowed values: {kind} keys")
            free = [i for i in found if i not in used]
            if not free:
                raise InputError(f"{option}: {k!r} is given {list(keys).count(k)} times but the deck holds "
                                 f"{len(found)}; allowed: at most {len(found)}")
            used.add(free[0])
            ids.append(free[0])
        return ids

    from simkit.games.valhalla.solo import layout as L  # plain constants, no numba

    team_ids = pick(list(team), "--team", "Warrior", "Warrior")
    hand_ids = pick(list(hand), "--hand", "Battle Tactic", "Tactic")
    if not 1 <= len(team_ids) <= L.MAX_TEAM:
        raise InputError(f"--team: {len(team_ids)} Warriors; allowed: 1..{L.MAX_TEAM}")
    if len(hand_ids) > L.MAX_CAND:
        raise InputError(f"--hand: {len(hand_ids)} Battle Tactics; allowed: at most {L.MAX_CAND}")
    return team_ids, hand_ids


def check_policies(names) -> None:
    """``--policies``: presets of the solo mode other than ``search`` (read without importing numba)."""
    from simkit.core.registry import literal_from_source

    presets = literal_from_source("simkit.games.valhalla.solo.policies", "PRESETS")
    allowed = [k for k, (kind, _) in presets.items() if kind != "search"]
    for name in names:
        if name not in allowed:
            raise InputError(f"--policies: {name!r} cannot be solved exactly; allowed values: {', '.join(allowed)}")


def state_bound(s0, env, plays: int) -> int:
    """An upper bound on the states the solver memoises for a battle (``s0``, ``env`` as ``position`` gives them),
    from the position alone, before anything is solved. A memoised state is a decision (dice, Weapon Deliveries,
    hand, free rerolls left, clan rerolls given, Ice Giant die rolled, Silence) or a reroll (the dice kept, how
    many are rerolled, and the rest of a decision's key), for each of ``plays`` (the optimum and each policy):
    the dice are a multiset of at most D dice of F faces (D: the dice rolled, the Jarl's extra die and an Ice
    Giant's; C(D + F, F) multisets of every size up to D), kept with 0..D rerolled (D + 1 choices, the decisions
    one more); the hand is a sub-multiset of the starting hand (at most 2^h; the Weapon Deliveries played follow
    from it); free rerolls 0..(the Jarl's + every reroll Battle Tactic's + one per Warrior); clan rerolls
    0..Warriors; the Ice Giant die and the Silence yes or no."""
    from math import comb

    from simkit.games.valhalla.solo import engine as E
    from simkit.games.valhalla.solo import layout as L

    cards, clan_ability, jarl_row, rules = env[0], env[6], env[7], env[9]
    faces = len({int(f) for f in env[8]})
    team = [int(s0[L.TEAM + i]) for i in range(int(s0[L.TEAM_N]))]
    hand = [int(s0[L.HAND + h]) for h in range(int(s0[L.HAND_N]))]
    dice = int(rules[E.R_DICE]) + (int(jarl_row[1]) if jarl_row[0] == L.J_EXTRA_DIE else 0)
    dice += any(E.is_ice_giant(cards, clan_ability, w) for w in team)
    dice = min(dice, L.MAX_DICE)
    free = int(jarl_row[1]) if jarl_row[0] == L.J_REROLL else 0
    free += sum(int(cards[c, L.C_VALUE]) for c in hand
                if cards[c, L.C_TYPE] == L.TACTIC and cards[c, L.C_EFFECT] == L.T_REROLL) + len(team)
    per_dice = comb(dice + faces, faces) * (dice + 2)
    return plays * per_dice * 2 ** len(hand) * (free + 1) * (len(team) + 1) * 2 * 2


def solve(deck, team, hand, monster, card, side, defend, glory, jarl, dice, wild_warriors, monster_powers,
          policy_names, max_work: int = MAX_WORK):
    """(solver, rows of P(win) per play, first-roll rows) of one battle; bad choices are InputErrors, and so is a
    battle whose :func:`state_bound` is over ``max_work`` (refused before the solver starts)."""
    from simkit.games.valhalla.solo import layout as L
    from simkit.games.valhalla.solo import policies as pol
    from simkit.games.valhalla.solo.battle import BattleSolver, TooLarge, describe_action, position

    check_policies(policy_names)
    s0, env = position(deck, team, hand, monster, card, side, not defend, glory, jarl, dice, wild_warriors,
                       monster_powers)
    bound = state_bound(s0, env, 1 + len(policy_names))
    if bound > max_work:
        raise InputError(f"--team/--hand/--dice: the battle is too large to solve exactly: up to {bound:,} solver "
                         f"states (an upper bound from the position, before solving), over the limit of "
                         f"{max_work:,}; raise the limit with --max-work, or solve with fewer dice, Battle Tactics, "
                         "Warriors or --policies")
    pols = {n: (pol.SEARCH_KINDS[pol.PRESETS[n][0]], pol.param_vector(pol.PRESETS[n][1])) for n in policy_names}
    solver = BattleSolver(s0, env, pols)
    try:
        values = {None: solver.value(None), **{n: solver.value(n) for n in policy_names}}
    except TooLarge as e:
        raise InputError(f"--team/--hand: the battle is too large to solve exactly ({e}); allowed: fewer dice "
                         "(--dice), free rerolls (--jarl, reroll Battle Tactics) or Weapon Deliveries") from None
    names = [*deck.symbols, "wild"]
    rows = []
    for n, v in values.items():
        row = {"play": "optimal" if n is None else n, "win": fraction_str(v), "win_p": float(v),
               "lost_vs_optimal": fraction_str(values[None] - v), "lost_vs_optimal_p": float(values[None] - v)}
        sil = solver.silence_choice() if n is None else solver.silence_of(n)
        if sil is not None:
            row["silence"] = bool(sil)
        rows.append(row)
    # the first roll: the most likely outcomes, the optimal choice and each heuristic's
    s = s0.copy()
    if s[L.PHASE] == L.PH_SILENCE:
        sil = solver.silence_choice()
        if sil:
            from simkit.games.valhalla.solo import engine as E

            E.play_tactic(s, E.hand_effect(s, env[0], L.T_SILENCE))
            s[L.B_SILENCED] = 1
        s[L.PHASE] = L.ST_ROLL
    merged: dict = {}
    for p, t in solver.first_roll(s):
        k = solver.key(t)
        if k in merged:
            merged[k][0] += p
        else:
            merged[k] = [p, t]
    first = []
    agree = {n: Fraction(0) for n in policy_names}
    for k, (p, t) in sorted(merged.items(), key=lambda kv: -kv[1][0]):
        from simkit.games.valhalla.solo import engine as E

        row = {"roll": " ".join(names[d] for d in k[0]), "probability": fraction_str(p), "probability_p": float(p)}
        options = bool(E.roll_has_options(t, env))
        if options:
            t[L.PHASE] = L.PH_ROLL
            best = solver.best_action(t)
            row["optimal"] = describe_action(best, t, env, names)
            opt_v = solver.decision(t, None)
        else:
            row["optimal"] = "(no choice)"
            opt_v = solver.terminal(t)
        row["optimal_win"] = float(opt_v)
        for n in policy_names:
            a = solver.policy_action(t, n) if options else None
            row[n] = "(no choice)" if a is None else describe_action(a, t, env, names)
            # the policy's choice, then optimal play: worth as much as the optimal choice?
            q = opt_v if a is None else solver.after(t, a, None)
            row[f"{n}_win"] = float(solver.decision(t, n) if options else solver.terminal(t, n))
            if q == opt_v:
                agree[n] += p
        first.append(row)
    return solver, rows, first, agree


def text_output(head: list[str], rows, first, agree, policy_names, fmt, mc_row=None) -> str:
    md = fmt == "md"
    lines = [("- " if md else "") + h for h in head]
    disp = []
    for r in rows:
        d = {"Play": r["play"], "P(win) exact": exact_text(Fraction(r["win"])),
             "Lost against optimal": f"{r['lost_vs_optimal_p']:.6f}"}
        if "silence" in r:
            d["Silence"] = "yes" if r["silence"] else "no"
        disp.append(mc_cells(d, r, mc_row))
    parts = ["\n".join(lines) + "\n", ("## " if md else "") + "P(win) of the battle\n\n" + render(disp, fmt)]
    parts.append(first_choices(first, FIRST_ROLLS, "roll", "First roll", "P(roll)", "rolls", policy_names, agree,
                               fmt))
    return "\n".join(parts)


@click.command("valhalla-battle")
@click.option("--team", required=True, help="The Warriors in the team: card keys of the deck file, comma-separated "
                                            "(1 to 4; a key given twice takes two copies).")
@click.option("--hand", default="", show_default=True,
              help="Battle Tactics in hand: card keys of the deck file, comma-separated.")
@click.option("--monster", default="troll", show_default=True, help="Monster key of the cards file.")
@click.option("--card", type=int, default=1, show_default=True, help="1-based index of the active monster card.")
@click.option("--side", type=click.Choice(SIDES), default="base", show_default=True, help="Monster card side.")
@click.option("--defend", is_flag=True, help="The monster attacks (defence: beat its strength by 1); default: the "
                                             "player attacks (match or exceed it).")
@click.option("--glory", type=click.IntRange(0, 60), default=0, show_default=True,
              help="Glory Points in the player's Valhalla (a constant strength bonus).")
@click.option("--jarl", default=None, help="Jarl key of the deck file (default: none).")
@click.option("--dice", type=click.IntRange(1, 8), default=6, show_default=True, help="Battle dice rolled.")
@click.option("--deck", "deck_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Deck file (default: the bundled stand-in scenarios/valhalla/deck.toml).")
@click.option("--cards", "cards_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Monster cards and die file (default: the bundled stand-in scenarios/valhalla/cards.toml).")
@click.option("--wild-warriors/--no-wild-warriors", default=True, show_default=True,
              help="Rule option: the ⊗ face activates any Warrior except Ice Giants.")
@click.option("--monster-powers/--no-monster-powers", default=True, show_default=True,
              help="Rule option: the monster card's special power applies.")
@click.option("--policies", "policies", default=",".join(HEURISTICS), show_default=True,
              help="Policies to solve beside the optimum (presets of the solo mode; 'random' too).")
@click.option("--max-work", type=click.IntRange(1, None), default=MAX_WORK, show_default=True,
              help="Refuse, before solving, a battle whose solver states are bounded above this (an upper bound "
                   "from the dice, faces, hand, rerolls and Warriors, for the optimum and each policy).")
@odds_options
def battle_cmd(team, hand, monster, card, side, defend, glory, jarl, dice, deck_path, cards_path, wild_warriors,
               monster_powers, policies, max_work, fmt, out, mc, seed, jobs, plot):
    """Valhalla Solo: one battle solved exactly, with best play and with each policy.

    A dynamic programme over the dice: at every roll the best of stopping, a Weapon Delivery, a free reroll or a
    basic reroll (discard 1 die to reroll any of the rest, repeatable), the Silence before an attack and the best
    commit of Battle Tactics; the Warriors are activated as the engine does (the most strength). Prints P(win)
    under optimal play and under each policy (exact fractions), the optimal choice on the likeliest first rolls,
    and with --mc N the optimum checked by the engine played N times by the optimal table. Rule text:
    valhalla-solo.txt, Battle. The bundled cards are STAND-IN data.
    """
    from simkit.games.valhalla.deck import load_deck

    check_file_options(deck=deck_path, cards=cards_path)
    policy_names = keys(policies)
    check_policies(policy_names)
    deck = load_deck(deck_path, cards_path)
    check_position(deck, keys(team), keys(hand), monster, card, side, jarl)
    solver, rows, first, agree = solve(deck, keys(team), keys(hand), monster, card, side, defend, glory, jarl,
                                       dice, wild_warriors, monster_powers, policy_names, max_work)
    mon = (deck.monsters[monster].cards_plus40 if side == "plus40" else deck.monsters[monster].cards_base)[card - 1]
    from simkit.games.valhalla.solo import engine as E

    attacking = not defend
    needed = int(E.monster_strength(solver.s0, solver.env, attacking, bool(solver.silence_choice()))) + int(defend)
    head = [f"Team: {', '.join(keys(team))}; hand: {', '.join(keys(hand)) or '(none)'}; Glory {glory}; "
            f"Jarl: {jarl or '(none)'}; {dice} dice",
            f"{'Defence against' if defend else 'Attack on'} {mon.name} (card {card} of {monster!r}, {side} side): "
            f"strength {mon.strength}" + (f", power {mon.power_effect} {mon.power_value}"
                                           if mon.power_effect != "none" else "")
            + f"; the player needs {needed}" + (" (with the Silence)" if solver.silence_choice() else ""),
            f"Optimal P(win) = {exact_text(Fraction(rows[0]['win']))}"]
    mc_row = None
    if mc:
        from simkit.games.valhalla.solo.battle import play

        mc_row = battle_mc_check(play, solver, mc, seed, rows)
    if plot:
        from simkit.core.plotting import bars

        bars(plot, [r["play"] for r in rows], [r["win_p"] for r in rows], ylabel="P(win the battle)",
             title=f"Valhalla Solo battle against {mon.name}: optimal play and the policies")
    emit_battle(fmt, out, rows, first, "first_rolls", agree,
                lambda: text_output(head, rows, first, agree, policy_names, fmt, mc_row))
