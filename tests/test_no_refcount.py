"""The game kernels' hot functions are compiled without numba's reference counting (``_nrt=False``).

perf showed numba's atomic reference counting (``NRT_incref`` / ``NRT_decref`` on every array and tuple of arrays
a function passes or takes apart) at about three quarters of a Valeria game's time; a function compiled with
``_nrt=False`` does none, and numba refuses to compile one that allocates. So every numba function of these
modules is either inlined into its caller or compiled with ``_nrt=False``, except the few that allocate (named
here with what they allocate) and those that call a function with reference counting (found from the code: numba
compiles a callee in its caller's context, so an ``_nrt=False`` caller cannot call one). A new function, or one that
starts to allocate, has to be placed on one side.
"""

from __future__ import annotations

import dis
import importlib
import types

import pytest
from numba.core.registry import CPUDispatcher

# module -> the functions that allocate (so keep reference counting), with what they allocate
ALLOCATE = {
    "simkit.core.rng": {},
    "simkit.games.valeria.engine": {
        "resample": "the face-down Domain and Duke pools", "invariants": "a seen-count array",
        "_resample_events": "the unseen Monster Event pool"},
    "simkit.games.valeria.actions": {},
    "simkit.games.valeria.events": {"setup_events": "the Monster Event orders to shuffle"},
    "simkit.games.valeria.roll": {},
    "simkit.games.valeria.end": {},
    "simkit.games.valeria.setup": {"new_game": "the Domain and Duke orders to shuffle"},
    "simkit.games.valhalla.battle": {},
    "simkit.games.valhalla.dice": {},
    "simkit.games.valhalla.glory": {},
    "simkit.games.valhalla.multi.engine": {
        "new_game": "calls setup", "resample": "the unseen-card and Jarl pools", "invariants": "count arrays"},
    "simkit.games.valhalla.multi.fight": {},
    "simkit.games.valhalla.multi.turn": {},
    "simkit.games.valhalla.multi.setup": {"setup": "the deck order and the Jarl order to shuffle"},
    "simkit.games.valhalla.multi.policies": {},
    "simkit.games.valhalla.multi.features": {},
    "simkit.games.valhalla.solo.battle_roll": {
        "outcome_tables": "the tables", "new_roll": "the tables, the memo and the stack",
        "no_roll": "its three (nearly) empty arrays"},
    "simkit.games.valhalla.solo.engine": {"setup": "the deck order", "invariants": "count arrays"},
    "simkit.games.valhalla.solo.features": {},
    "simkit.games.valhalla.solo.policies": {},
    "simkit.games.valkyrie_incident.features": {},
    "simkit.games.valkyrie_incident.engine": {
        "_resolve_war": "war counts", "_game_over": "scores", "apply_action": "a legal-action buffer",
        "resample": "the unseen-card pool", "heuristic": "Conflict leads and weights",
        "invariants": "count arrays"},
    "simkit.games.valka.combat": {},
    "simkit.games.valka.boons": {},
    "simkit.games.valka.lonequest.battle": {"run_batch": "a dice script and its stream"},
    "simkit.games.valka.lonequest.engine": {
        "setup": "the Quest and Fighter orders to shuffle", "invariants": "count arrays"},
    "simkit.games.valka.lonequest.features": {},
    "simkit.games.valka.lonequest.policies": {},
    "simkit.games.valka.multiplayer.view": {},
    "simkit.games.valka.multiplayer.features": {},
    "simkit.games.valka.multiplayer.policies": {},
    "simkit.games.valka.multiplayer.engine": {
        "matching_captures": "counts", "finish": "the best scores", "roll_off": "the candidates and rolls",
        "bolt": "the cards in a row", "attack": "the dice pool", "_shuffle_pool": "a sorted copy", "redistribute": "the card pool",
        "resample": "the unseen pool", "invariants": "count arrays"},
}


def _kernels(module):
    for name, obj in vars(module).items():
        # defined in this file (not the core's search and learned templates compiled into the module)
        if isinstance(obj, CPUDispatcher) and obj.py_func.__name__ == name \
                and obj.py_func.__code__.co_filename == module.__file__:
            yield name, obj


def _inline(k):
    return k.targetoptions.get("inline") == "always"


def _callees(k):
    """The numba functions ``k`` names: ``f(...)`` (a global) or ``module.f(...)`` (an attribute of a module it
    loads), read from the bytecode, so ``module.f`` is not mistaken for a global of the same name."""
    g = k.py_func.__globals__
    codes = [k.py_func.__code__]
    codes += [c for c in k.py_func.__code__.co_consts if isinstance(c, types.CodeType)]
    for code in codes:
        module = None
        for ins in dis.get_instructions(code):
            if ins.opname == "LOAD_GLOBAL":
                v = g.get(ins.argval)
                module = v if isinstance(v, types.ModuleType) else None
                if isinstance(v, CPUDispatcher):
                    yield v
            elif ins.opname in ("LOAD_ATTR", "LOAD_METHOD") and module is not None:
                w = getattr(module, ins.argval, None)
                module = w if isinstance(w, types.ModuleType) else None
                if isinstance(w, CPUDispatcher):
                    yield w
            else:
                module = None


def _counting_callees(k, seen=None):
    """The functions with reference counting that ``k`` calls, directly or through functions inlined into it."""
    seen = set() if seen is None else seen
    out = []
    for c in _callees(k):
        if id(c) not in seen:
            seen.add(id(c))
            if _inline(c):
                out += _counting_callees(c, seen)
            elif c.targetoptions.get("_nrt") is not False:
                out.append(c.py_func.__name__)
    return out


@pytest.mark.parametrize("module_name", sorted(ALLOCATE))
def test_hot_kernels_skip_reference_counting(module_name):
    module = importlib.import_module(module_name)
    allocate = ALLOCATE[module_name]
    kernels = dict(_kernels(module))
    assert kernels, f"{module_name}: no numba function found"
    unknown = set(allocate) - set(kernels)
    assert not unknown, f"{module_name}: named as allocating but not a numba function here: {sorted(unknown)}"
    for name, k in kernels.items():
        if _inline(k):
            continue
        counting = _counting_callees(k)
        if k.targetoptions.get("_nrt") is False:
            assert name not in allocate, f"{module_name}.{name}: _nrt=False but listed as allocating"
            # numba compiles a callee in its caller's context: one that needs reference counting fails there
            assert not counting, f"{module_name}.{name}: _nrt=False but calls {counting}"
        else:
            assert name in allocate or counting, \
                f"{module_name}.{name}: compiled with reference counting but allocates nothing and calls only " \
                "functions without it (add _nrt=False, or list what it allocates)"
