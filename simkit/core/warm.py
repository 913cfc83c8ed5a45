"""``simkit warm``: compile every game's kernels ahead, one process per core, and say what each cost.

The kernels are compiled the way ``simkit bench`` and the tests first call them: each bench target of a mode (its
heuristic and random policies, its `learned` and `search` policies, its extra bench cells, its dice checks) plays
a few games, and each decision-point engine plays one game from Python through the interface (``Fns``), as the
generic tests do. Targets that share an engine module run in one process, so no kernel is compiled twice at
once; the groups go to ``jobs`` processes, the costliest first. What lands in the numba cache
(``simkit._numba_cache``) is reused by every later command and test run.

``compile_cost`` measures a group's cold compile cost: the same work in a fresh process on an empty cache
(CPU seconds), then again on the cache it filled (what is left is the cost of playing, not compiling).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time

from simkit.core import registry

# the groups' order: the costliest first, so that the longest compile starts at once (cold CPU seconds measured
# by `simkit warm` on an empty cache, 2026-12-04: 203, 147, 96, 61, 43, 39, 10; a group not named here goes last)
ORDER = ("simkit.games.valhalla.solo", "simkit.games.valka.multiplayer", "simkit.games.valka.lonequest",
         "simkit.games.valkyrie_incident", "simkit.games.valhalla.multi", "simkit.games.valeria", "simkit.games.toy")


# a `search` target's rollouts per action while warming: its kernels are the same whatever the count (a number
# in the policy's configuration array), and one game of 4-player Annihilation at 16 rollouts costs 16 CPU-s
WARM_ROLLOUTS = 1


def _family(obj) -> str:
    """The package of the engine behind a simulation or dice check (its class's or function's module, less the
    module name)."""
    mod = getattr(obj, "__module__", None) or type(obj).__module__
    return mod.rsplit(".", 1)[0]


def groups(name: str | None = None) -> dict[str, list[str]]:
    """The groups (engine packages) of the bench targets that match ``name`` (a game, mode or dice check), the
    costliest first, each with the names (``game/mode`` or ``game/check``) of its targets, so that a worker
    builds only its own group's simulations."""
    from simkit.core.bench import _targets

    out: dict[str, list[str]] = {}
    for game, label, sim, _n, _slow in _targets(name, 1):
        names = out.setdefault(_family(sim), [])
        target = f"{game.name}/{label.split(' ')[0]}"  # a bench label starts with its mode's or check's name
        if target not in names:
            names.append(target)
    return dict(sorted(out.items(), key=lambda kv: ORDER.index(kv[0]) if kv[0] in ORDER else len(ORDER)))


def _play_engine(mode) -> None:
    """One game through the decision-point interface from Python, every seat's first bundled policy (the
    specialisations the generic tests call)."""
    import numpy as np

    from simkit.core.policies import RANDOM
    from simkit.core.rng import seed_stream

    game = mode.engine()
    s, rng, env = game.new_game(0)
    prng = np.empty(4, np.uint64)
    seed_stream(prng, np.array([0, 7], np.uint64), 0, 1)
    srng = prng.copy()
    buf = np.empty(game.max_actions, np.int64)
    kind, params = (RANDOM, np.zeros(1)) if not game.policies else next(iter(game.policies.values()))
    steps = 0
    while not game.fns.is_over(s) and steps < 20_000:
        n = game.fns.legal_actions(s, env, buf)
        seat = game.fns.to_move(s)
        other, orng = s.copy(), rng.copy()
        game.fns.resample(other, orng, env, seat, srng)
        a = game.fns.policy(kind, s, env, buf, n, params, prng)
        game.fns.policy(RANDOM, s, env, buf, n, params, prng)
        game.fns.apply_action(s, rng, env, int(a))
        steps += 1
    game.fns.reward(s, env, 0)
    if game.invariants is not None:
        game.invariants(s, env)


def warm_group(group: str, targets: list[str]) -> dict:
    """Compile (or load from the cache) the kernels of one group, playing its ``targets`` (names from
    :func:`groups`); returns its row: the group, the targets it played and the CPU seconds it took in this
    process."""
    from simkit.core.bench import _targets
    from simkit.core.runner import run_simulation

    t0 = time.process_time()
    played = 0
    for target in targets:
        for _game, _label, sim, _n, slow in _targets(target, 1, rollouts=WARM_ROLLOUTS):
            if _family(sim) != group:
                continue
            bs = 1 if slow else min(4, sim.default_block_size)
            run_simulation(sim, bs, seed=0, jobs=1, block_size=bs)
            played += 1
    for game, mode in registry.all_modes():
        if mode.engine is not None and f"{game.name}/{mode.name}" in targets:
            _play_engine(mode)
            played += 1
    return {"group": group.removeprefix("simkit.games."), "targets": played,
            "CPU s": f"{time.process_time() - t0:.1f}"}


def warm(name: str | None = None, jobs: int | None = None, progress=None) -> list[dict]:
    """Warm every group that matches ``name`` on ``jobs`` processes (default: every core); rows in group order."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    todo = groups(name)
    jobs = max(1, min(jobs or os.cpu_count() or 1, len(todo)))
    if progress is not None:
        progress(f"warming {len(todo)} kernel groups on {jobs} process{'es' if jobs > 1 else ''}: {', '.join(todo)}")
    if jobs == 1:
        return [warm_group(g, targets) for g, targets in todo.items()]
    # plain processes, each taking the next group as it frees (loky would restart a worker whose memory grew
    # while compiling, and warn about it)
    with ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
        return list(pool.map(warm_group, todo, todo.values()))


def compile_cost(name: str | None = None) -> list[dict]:
    """Each group's cold compile cost: its warm-up in a fresh process on an empty cache, then again on the
    cache that filled (CPU seconds of the child process: user + system), one group after another."""
    rows = []
    for group, targets in groups(name).items():
        with tempfile.TemporaryDirectory(prefix="simkit-compile-") as cache:
            env = {**os.environ, "SIMKIT_NUMBA_CACHE": cache}
            env.pop("NUMBA_CACHE_DIR", None)
            code = (f"from simkit.core.warm import warm_group; import json; "
                    f"print(json.dumps(warm_group({group!r}, {targets!r})))")
            costs = []
            for _ in range(2):
                before = os.times()
                subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True, text=True)
                after = os.times()
                costs.append(after.children_user + after.children_system - before.children_user
                             - before.children_system)
            files = sum(len(fs) for _, _, fs in os.walk(cache))
        rows.append({"group": group.removeprefix("simkit.games."), "cold CPU s": f"{costs[0]:.1f}",
                     "warm CPU s": f"{costs[1]:.1f}", "compiled": f"{costs[0] - costs[1]:.1f}",
                     "cache files": files})
    return rows
