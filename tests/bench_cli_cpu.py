"""The CPU cost of the fast commands (`--help`, `list`, input errors), for a person to read: not a test, since
a time depends on how busy the machine is (tests/test_cli_speed.py checks the cause, the imports, instead).

    .venv/bin/python tests/bench_cli_cpu.py      # one line per command: CPU seconds (user + system), best of 3
"""

from __future__ import annotations

import resource
import subprocess
import sys
from pathlib import Path

from test_cli_speed import CASES, ROOT

SIMKIT = str(Path(sys.executable).with_name("simkit"))


def cpu_seconds(args) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([SIMKIT, *args], capture_output=True, text=True, timeout=120, cwd=ROOT)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    for args in CASES:
        cpu_seconds(args)  # warm-up: byte-compiles the modules on a fresh checkout
        best = min(cpu_seconds(args) for _ in range(3))
        print(f"{best:6.3f} s  simkit {' '.join(args)}")


if __name__ == "__main__":
    main()
