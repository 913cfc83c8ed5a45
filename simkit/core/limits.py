"""Limits shared by the command line and the runner (a light module: the CLI imports it for --help)."""

# The most games (or Monte Carlo trials) per cell a run may ask for: more would take days, and an absurd
# number must be an error that says the limit, not a run that grows its task list until memory runs out.
MAX_GAMES = 1_000_000_000

# Worker processes: more than this is a typo, not a machine (each worker is a process with its own memory).
MAX_JOBS = 512
