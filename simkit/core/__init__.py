"""Shared machinery: seeding, the parallel runner, results, statistics, exact odds.

Nothing in here imports a game; games are found through :mod:`simkit.core.registry`.
"""
