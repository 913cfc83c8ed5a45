"""Reading finished runs: ``simkit.results.load(run_dir)`` returns the per-game rows."""

from simkit.core.results import load, manifest, scan, summary  # noqa: F401
