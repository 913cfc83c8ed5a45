"""The registry of games.

Games plug in through the ``simkit.games`` entry-point group (see
``pyproject.toml``); each entry point names a :class:`Game` object. The core
looks games up here and never imports a game module by name, so a new game is
added without touching the core.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from simkit.errors import InputError

ENTRY_POINT_GROUP = "simkit.games"


@dataclass
class Mode:
    """One simulator of a game (e.g. VÁLKA's Lonequest, or its Chance Strike dice check).

    ``build(fields, scenario)`` validates a scenario file and returns the
    :class:`~simkit.core.simulation.Simulation` to run. ``report(run_dir, out_dir)``
    writes the mode's report and returns the files it wrote.
    """

    name: str
    title: str
    build: Callable[..., Any]
    default_scenario: str | None = None
    report: Callable[..., list[Path]] | None = None
    bench_games: int = 100_000
    engine: Callable[..., Any] | None = None  # () -> simkit.core.decision.DecisionGame (decision-point engines)
    params: Callable[..., dict] | None = None  # () -> the policy parameter spec (name -> index, default, …, low, high)
    # scenario values that shrink the default scenario to one cell (e.g. one Warband): `simkit bench` times the
    # mode's slow `search` policy there, on a fixed small number of games
    one_cell: dict | None = None
    # label -> scenario values: extra `simkit bench` rows, each timing the default scenario with those values (e.g.
    # one table size and one heuristic: the figure a speed bar is stated in), labelled "MODE (label)"
    bench_cells: dict | None = None
    # "module:NAME" of the engine's feature names (a literal tuple; read without importing the module): the
    # mode can play `learned` policies, and a weights file trained on other features is refused
    features: str | None = None
    # the rule text this mode follows when it is not the game's (Valhalla multiplayer: valhalla-valkyries.txt)
    rules_file: str | None = None

    def feature_names(self) -> tuple[str, ...] | None:
        if self.features is None:
            return None
        module, name = self.features.split(":")
        return tuple(literal_from_source(module, name))

    def decision_kinds(self) -> tuple[str, ...]:
        """The kinds of decision the mode's features name (``CATEGORIES`` beside its ``FEATURES``, the order of
        ``Parts.kind``; read from the source, never imported: a scenario's errors stay fast); empty without."""
        if self.features is None:
            return ()
        return tuple(source_literal(self.features.split(":")[0], "CATEGORIES", ()))


@dataclass
class LazyCommand:
    """A ``simkit odds`` command named here and imported only when it runs (``--help`` and ``list`` stay fast).

    ``target`` is ``"package.module:attribute"`` of the click command.
    """

    name: str
    target: str
    short_help: str = ""

    def load(self):
        import importlib

        module, attr = self.target.split(":")
        return getattr(importlib.import_module(module), attr)


_MISSING = object()


def source_literal(module: str, name: str, default):
    """The literal value of ``NAME = {...}`` in a module's source, read without importing the module; ``default``
    when the module has no such plain literal."""
    import ast
    import importlib.util

    spec = importlib.util.find_spec(module)
    try:
        tree = ast.parse(Path(spec.origin).read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
                return ast.literal_eval(node.value)
    except (AttributeError, TypeError, ValueError, OSError, SyntaxError):
        pass
    return default


def literal_from_source(module: str, name: str):
    """The literal value of ``NAME = {...}`` in a module's source, read without importing the module (which
    may import numba); imports it when the value is not a plain literal."""
    import importlib

    value = source_literal(module, name, _MISSING)
    return getattr(importlib.import_module(module), name) if value is _MISSING else value


@dataclass
class Game:
    """A registered game: its modes, odds commands and bundled reports."""

    name: str
    title: str
    rules_file: str
    rules_version: str
    modes: list[Mode] = field(default_factory=list)
    odds_commands: list[Any] = field(default_factory=list)  # click commands (or LazyCommand) for `simkit odds`
    bundled_reports: Callable[..., list[Path]] | None = None  # (out_dir, quick) -> files
    rule_options: dict[str, str] = field(default_factory=dict)  # option -> one-line description
    # policy name -> description, or a function returning that mapping (called when `simkit list` shows it)
    policies: dict[str, str] | Callable[[], dict[str, str]] = field(default_factory=dict)
    # Monte Carlo dice checks timed by `simkit bench`: name -> () -> Simulation (aggregated rows)
    dice_checks: dict[str, Callable[[], Any]] = field(default_factory=dict)

    def policy_descriptions(self) -> dict[str, str]:
        return dict(self.policies() if callable(self.policies) else self.policies)

    def mode(self, name: str) -> Mode:
        for m in self.modes:
            if m.name == name:
                return m
        raise KeyError(name)


# The games that ship with simkit: the same names and targets as its own entry points in ``pyproject.toml``
# (a test checks that). A command that names one of them (``simkit odds chance-strike``) finds it here without
# ``importlib.metadata`` scanning every installed distribution, a tenth of a second at start-up.
BUNDLED = {
    "toy": "simkit.games.toy:GAME",
    "valeria": "simkit.games.valeria:GAME",
    "valhalla": "simkit.games.valhalla:GAME",
    "valka": "simkit.games.valka:GAME",
    "valkyrie-incident": "simkit.games.valkyrie_incident:GAME",
}

_GAMES: dict[str, Game] | None = None
_BUNDLED: dict[str, Game] = {}  # the bundled games loaded so far (``bundled_games``)


def bundled_games() -> dict[str, Game]:
    """The bundled games by name, imported directly (no scan of the installed distributions)."""
    import importlib

    for name, target in BUNDLED.items():
        if name not in _BUNDLED:
            module, attr = target.split(":")
            _BUNDLED[name] = getattr(importlib.import_module(module), attr)
    return _BUNDLED


def games() -> dict[str, Game]:
    """All registered games by name: the bundled ones, then any plug-in's from the entry points (loaded once)."""
    global _GAMES
    if _GAMES is None:
        import importlib.metadata

        found = dict(bundled_games())
        for ep in sorted(importlib.metadata.entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
            if ep.name not in BUNDLED:
                game = ep.load()
                found[game.name] = game
        _GAMES = dict(sorted(found.items()))
    return _GAMES


def register(game: Game) -> None:
    """Add a game at run time (for tests and notebooks; installed games use entry points)."""
    games()[game.name] = game


def get_game(name: str, *, where: str = "game") -> Game:
    all_games = games()
    if name not in all_games:
        raise InputError(f"{where}: unknown game {name!r}; allowed values: {', '.join(sorted(all_games))}")
    return all_games[name]


def get_mode(game: str, mode: str, *, where: str = "mode") -> tuple[Game, Mode]:
    g = get_game(game, where=where.replace("mode", "game"))
    try:
        return g, g.mode(mode)
    except KeyError:
        allowed = ", ".join(m.name for m in g.modes)
        raise InputError(f"{where}: unknown mode {mode!r} of game {game!r}; allowed values: {allowed}") from None


def all_modes() -> list[tuple[Game, Mode]]:
    return [(g, m) for g in games().values() for m in g.modes]


def scenarios_dir() -> Path:
    """The bundled ``scenarios/`` folder (beside the package in a source checkout)."""
    import os

    env = os.environ.get("SIMKIT_SCENARIOS")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[2] / "scenarios"
