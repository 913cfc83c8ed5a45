"""Valhalla multiplayer simulator, 2–6 players, base deck or with the Valkyries expansion
(valhalla-valkyries.txt; the base game as the solo rulebook and issue 23 describe it).

Modules: ``layout`` (state vector, actions, card tables), ``setup`` (Jarls, starting Warriors, the opening hand),
``turn`` (parts A and B, the end), ``fight`` (the battle), ``engine`` (the decision-point interface),
``policies``, ``scenario``, ``simulation``. The battle, dice, reroll and Glory code is the family's
(``valhalla.battle``, ``valhalla.dice``, ``valhalla.glory``), shared with the solo engine.
"""
