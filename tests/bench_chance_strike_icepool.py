"""Whole-process CPU of `simkit odds chance-strike` (Strike 0-12 x Shield 0-12) against a plain script that imports
icepool and prints the same table with tabulate, for a person to read: not a test (a time depends on the load).

    .venv/bin/python tests/bench_chance_strike_icepool.py [REPEATS]   # median CPU seconds (user + system) of each

Both run in fresh interpreters with byte-code caching on (PYTHONDONTWRITEBYTECODE unset for the children), so
neither pays for compiling its modules again at every start.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SIMKIT = [str(Path(sys.executable).with_name("simkit")), "odds", "chance-strike", "--strike", "0:12", "--shield", "0:12"]
# the icepool script a new user would write for the same table: one icepool.map over two d10s per cell, with the
# rulebook's Chance Strike (1 and 1: both hurt; a lone 1 loses; a 10 wins, both 10 to the attacker; else the
# higher total, ties to the attacker), the four columns simkit prints, printed with tabulate
SCRIPT = r'''
import icepool
from tabulate import tabulate

def outcome(a, d, strike, shield):
    if a == 1 and d == 1:
        return "both"
    if a == 1:
        return "defender"
    if d == 1 or a == 10:
        return "attacker"
    if d == 10:
        return "defender"
    return "attacker" if a + strike >= d + shield else "defender"

rows = []
for strike in range(13):
    for shield in range(13):
        die = icepool.map(lambda a, d: outcome(a, d, strike, shield), icepool.d10, icepool.d10)
        p = {k: die.probability(k) for k in ("attacker", "defender", "both")}
        rows.append((strike, shield, p["attacker"], p["defender"], p["both"],
                     float(1 / (p["attacker"] + p["both"]))))
print(tabulate(rows, headers=["Strike", "Shield", "P(attacker hits)", "P(defender hits)", "P(both hurt)",
                              "E[strikes] to defeat H=1"]))
'''


def cpu_seconds(cmd) -> float:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=ROOT, env=env, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    cmds = {"simkit odds chance-strike": SIMKIT, "icepool script": [sys.executable, "-c", SCRIPT]}
    for cmd in cmds.values():
        cpu_seconds(cmd)  # warm-up: byte-compiles the modules once
    times = {name: [] for name in cmds}
    for _ in range(repeats):  # interleaved, so both see the same load
        for name, cmd in cmds.items():
            times[name].append(cpu_seconds(cmd))
    for name, ts in times.items():
        print(f"{statistics.median(ts):6.3f} s CPU (median of {repeats})  {name}")


if __name__ == "__main__":
    main()
