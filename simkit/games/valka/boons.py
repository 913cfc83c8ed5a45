"""The eight VÁLKA Warband Boons ("Know Your Warbands"), shared by the multiplayer engine and the Lonequest
("Warbands also have an effect on the Lonequest").

    "As soon as you have 2 or more Fighters from the same Warband in your Frontline, their Warband Boon
    activates! ... Deadly Dyad (2 Exactly) If only 2 Fighters from the same Warband enter the Frontline
    together, their Boon will activate once or persist until the start of your next turn. (depending on the
    Boon) Horrible Horde (3 or more) If 3 or more Fighters from the same Warband enter the Frontline together
    OR are still in the Frontline at the start of your turn, their Boon will activate at the start of that
    player's turn or persist indefinitely. Persisting Warband Boons become inactive when your Frontline is
    reduced to 2 or fewer Fighters from the same Warband. If a Warband Boon is marked with an exclamation icon
    ... it happens as soon as they enter the Frontline then ends. If the Warband is Horrible these boons
    activate again at the start of each of their player's turns."

A Boon's *level* per player and Warband: ``OFF`` (0), ``DYAD`` (2), ``HORDE`` (3). The functions here are the
level transitions and the Joker rule; what a Boon does is the engine's (each engine has its own state), with
the effects listed in ``BOONS`` (``lonequest``: the meaning the Lonequest engine gives it; docs/rules.md).
Readings (see docs/rules.md, VÁLKA multiplayer): Jokers count for every Warband that has a real Fighter in the
Frontline (Jokers alone activate nothing); a Boon activates on an entry that leaves 2+ of the Warband with at
least ``need`` of them new (1: "newcomer", the default; 2: "together"; the Lonequest uses 1: its Fighters enter
one at a time).
"""

from __future__ import annotations

from dataclasses import dataclass

from numba import njit

from simkit.games.valka.cards import JOKER, WARBANDS

OFF, DYAD, HORDE = 0, 2, 3


@dataclass(frozen=True)
class Boon:
    warband: str
    name: str
    one_time: bool  # the red "!" Boons
    effect: str
    lonequest: str = ""  # its Lonequest meaning ("" if it has none)


BOONS = (
    Boon("barbarians", "Berserker Barrage", False, "True Strikes and Team Strikes deal 2 Damage",
         "a Barbarian's True Strike, or a Team Strike with one, deals 2 damage to a Marauder"),
    Boon("brotherhood", "Weird Warp", True,
         "Draw three cards from the draw pile or steal three cards from any opponent's hands at random",
         "draw three random cards from the Loot deck"),
    Boon("goblins", "Raging Raiders", False, "ALL of your Frontline Fighters have a +1 to Strike",
         "ALL of your Frontline Fighters have a +1 to Strike"),
    Boon("knights", "Valiant Courage", False, "ALL of your Frontline Fighters have a +1 to Shield",
         "ALL of your Frontline Fighters have a +1 to Shield"),
    Boon("monsters", "Monstrous Roar", True,
         "Choose an Enemy Frontline Fighter and discard all Buffs, then send the Fighter to its owner's hand",
         "send a revealed Marauder to the bottom of the Fighter deck (not defeated)"),
    Boon("reptilios", "Horde Strike", False,
         "Each turn, each of your face up Backline Fighters may participate in a Team Strike"),
    Boon("tree_beasts", "Nature's Wrath", False, "Your Frontline Fighters can only be targeted by Chance Strikes",
         "a Strong Enuf blow must land as a Chance Strike"),
    Boon("wizards", "Magic Storm", True, "Deal 3 damage among any Frontline enemies",
         "deal 3 damage among the revealed Marauders"),
)
assert tuple(b.warband for b in BOONS) == WARBANDS
ONE_TIME = tuple(b.one_time for b in BOONS)
BROTHERHOOD, MONSTERS, WIZARDS = 1, 4, 7


@njit(cache=True, _nrt=False)
def is_one_time(w):
    return w == BROTHERHOOD or w == MONSTERS or w == WIZARDS


@njit(cache=True, _nrt=False)
def tally(w, member, packed, new):
    """Fold one Frontline Fighter into the running count ``packed`` for Warband ``w`` (start from 0):
    ``member`` is its Warband (``JOKER`` for a Joker), ``new`` 1 if it just entered. The count is packed as
    ``natives * 4096 + new natives * 256 + jokers * 16 + new jokers``; read it with :func:`members`."""
    if member == JOKER:
        return packed + 16 + new
    if member == w:
        return packed + 4096 + 256 * new
    return packed


@njit(cache=True, _nrt=False)
def members(packed):
    """``count * 16 + new`` for a Warband from its packed tally: Jokers join only a Warband with a real Fighter."""
    natives, new_natives, jokers, new_jokers = packed // 4096, (packed // 256) % 16, (packed // 16) % 16, packed % 16
    if natives == 0:
        return 0
    return (natives + jokers) * 16 + new_natives + new_jokers


@njit(cache=True, _nrt=False)
def after_entry(level, count, new, need):
    """Fighters entered the Frontline: the Boon's new level and whether a one-time Boon happens now (-1 / 0/2/3
    packed as ``level * 2 + fires``)."""
    if count >= 2 and new >= need:
        lvl = HORDE if count >= 3 else (DYAD if level == OFF else level)
        return lvl * 2 + 1
    return level * 2


@njit(cache=True, _nrt=False)
def after_loss(level, count):
    """A Fighter left the Frontline: a Horde ends at 2 or fewer, a Dyad below 2."""
    if level == HORDE and count <= 2:
        return OFF
    if level == DYAD and count < 2:
        return OFF
    return level


@njit(cache=True, _nrt=False)
def at_turn_start(level, count):
    """The start of the owner's turn: 3+ is a Horde (its one-time Boon happens again); a Dyad ends. Packed as
    ``level * 2 + fires``."""
    if count >= 3:
        return HORDE * 2 + 1
    if level == DYAD:
        return OFF * 2
    return level * 2
