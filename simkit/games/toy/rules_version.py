"""The version of the rules this engine plays, recorded in every run's manifest (a module of its own, so that
the game's kernel modules read it without importing the package and its reports)."""

RULES_VERSION = "draw-to-ten-1"
