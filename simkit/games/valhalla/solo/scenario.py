"""Reading a Valhalla Solo scenario: every field is checked here, before any numba kernel is imported, so a bad
scenario fails fast (``simkit run`` on a bad field costs a fraction of a second, not the kernels' import).

``read_solo(fields)`` returns the keyword arguments of ``simulation.SoloSim``.
"""

from __future__ import annotations

from simkit.core.policies import LEARNED_KINDS, read_policies
from simkit.core.registry import literal_from_source
from simkit.errors import InputError
from simkit.games.valhalla.solo import layout as L

VARIANTS = ("base", "plus40")
DISCARDS = {1: 2, 2: 4, 3: 6}  # "Difficulty Level I … discards 2 cards", II 4, III 6
PATH = ("unplayable", "own")


def read_solo(fields) -> dict:
    """Scenario ``mode = "solo"`` (see scenarios/valhalla/solo.toml): the checked ``SoloSim`` arguments."""
    from simkit.games.valhalla.deck import load_deck

    cards_path, deck_path = fields.file_path("cards", "cards.toml"), fields.file_path("deck", "deck.toml")
    deck = load_deck(deck_path, cards_path)  # reads and checks cards.toml too
    monsters = deck.monsters
    # the simulator's fixed-size state: at most 12 cards a monster side, 8 weapon symbols, 5 extra Phase B cards
    for key, m in monsters.items():
        for side, cards in (("base", m.cards_base), ("plus40", m.cards_plus40)):
            if len(cards) > L.MAX_MON:
                raise InputError(f"{cards_path}: monster {key!r} has {len(cards)} {side} cards; the simulator "
                                 f"allows at most {L.MAX_MON}")
    if len(deck.symbols) > L.MAX_SYM:
        raise InputError(f"{cards_path}: field 'die.symbols' lists {len(deck.symbols)} weapon symbols; the "
                         f"simulator allows at most {L.MAX_SYM}")
    jt = deck.arrays()
    for j, key in enumerate(deck.jarl_keys):
        if jt["jarl_ability"][j] == L.J_EXTRA_DIE and jt["jarl_value"][j] > 3:
            raise InputError(f"{deck_path}: field 'jarls[{j}].value' of {key!r} (extra_die) must be at most 3 "
                             f"(got {jt['jarl_value'][j]}); the simulator holds at most {L.MAX_DICE} dice")
        if jt["jarl_ability"][j] == L.J_DRAW and jt["jarl_value"][j] > 5:
            raise InputError(f"{deck_path}: field 'jarls[{j}].value' of {key!r} (draw_more) must be at most 5 "
                             f"(got {jt['jarl_value'][j]})")
    mk = fields.get("monsters", list, sorted(monsters))
    for i, m in enumerate(mk):
        if m not in monsters:
            raise fields.error(f"monsters[{i}]", f"must be one of {', '.join(map(repr, sorted(monsters)))} (got {m!r})")
    variants = fields.get("variants", list, ["base"])
    for i, v in enumerate(variants):
        if v not in VARIANTS:
            raise fields.error(f"variants[{i}]", f"must be one of 'base', 'plus40' (got {v!r})")
    levels = fields.get("levels", list, [1, 2, 3])
    for i, lv in enumerate(levels):
        if lv not in DISCARDS:
            raise fields.error(f"levels[{i}]", f"must be one of 1, 2, 3 (got {lv!r})")
    jarls = fields.get("jarls", list, deck.jarl_keys[:1])
    for i, j in enumerate(jarls):
        if j not in deck.jarl_keys:
            raise fields.error(f"jarls[{i}]", f"must be one of {', '.join(map(repr, deck.jarl_keys))} (got {j!r})")
    for name, value in (("monsters", mk), ("variants", variants), ("levels", levels), ("jarls", jarls)):
        if not value:  # an empty list has no cell to play (and used to fail deep in the kernels' set-up)
            raise fields.error(name, "must list at least one value (got [])")
    # the policies' presets and parameters, read from policies.py without importing it (it compiles kernels)
    presets = literal_from_source("simkit.games.valhalla.solo.policies", "PRESETS")
    params = literal_from_source("simkit.games.valhalla.solo.policies", "PARAMS")
    policies = read_policies(fields, presets, LEARNED_KINDS, params, ["builder", "aggressive"])
    r = fields.table("rules", default={})
    options = {
        "wild_warriors": r.get("wild_warriors", bool, True),
        "wild_monster": r.get("wild_monster", bool, False),
        "monster_powers": r.get("monster_powers", bool, True),
        "path_to_valhalla": r.get("path_to_valhalla", str, "unplayable", choices=PATH),
        "turn_cap": r.get("turn_cap", int, 400, min=10, max=100_000),
    }
    r.finish()
    fields.finish()  # an unknown top-level field is reported here, before the kernels are imported
    return {"deck": deck, "monsters": monsters, "monster_keys": mk, "variants": variants, "levels": levels,
            "jarl_keys": jarls, "policies": policies, "options": options,
            "files": {"cards": str(cards_path), "deck": str(deck_path)}}
