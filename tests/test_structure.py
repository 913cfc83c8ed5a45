"""The architecture rules: the core never imports a game; a game never imports another game."""

import ast
from pathlib import Path

import simkit
from simkit.core import registry

PKG = Path(simkit.__file__).parent


def _imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_core_and_cli_never_import_a_game():
    files = list((PKG / "core").glob("*.py")) + [PKG / "cli.py", PKG / "__init__.py", PKG / "results.py"]
    for f in files:
        bad = [m for m in _imports(f) if m.startswith("simkit.games")]
        assert not bad, f"{f} imports {bad}"


def test_games_never_import_each_other():
    for game_dir in (PKG / "games").iterdir():
        if not game_dir.is_dir() or game_dir.name.startswith("__"):
            continue
        for f in game_dir.rglob("*.py"):
            for m in _imports(f):
                if m.startswith("simkit.games."):
                    assert m.split(".")[2] == game_dir.name, f"{f} imports {m}"


def test_every_game_is_registered_through_entry_points():
    games = registry.games()
    assert {"valka", "valhalla", "valeria"} <= set(games)
    import tomllib

    declared = tomllib.loads((PKG.parent / "pyproject.toml").read_text())["project"]["entry-points"]["simkit.games"]
    assert registry.BUNDLED == declared  # the fast path of `bundled_games` names exactly the declared games
    assert all(registry.bundled_games()[name] is games[name] and games[name].name == name for name in declared)
    for g in games.values():
        assert g.rules_file.endswith(".txt") and g.rules_version and (g.modes or g.odds_commands)
        assert all(m.rules_file is None or m.rules_file.endswith(".txt") for m in g.modes)
    assert games["valhalla"].mode("multi").rules_file == "valhalla-valkyries.txt"  # not the solo rulebook


def _constants_assigned(tree: ast.Module) -> list[str]:
    """The upper-case names a module assigns at its top level, once per assignment."""
    names = []
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, (ast.AnnAssign, ast.AugAssign)) else []
        for t in targets:
            for n in ([t] if isinstance(t, ast.Name) else t.elts if isinstance(t, ast.Tuple) else []):
                if isinstance(n, ast.Name) and n.id.isupper():
                    names.append(n.id)
    return names


def test_no_module_assigns_a_constant_twice():
    """A layout's slot and an action code of one name: the Lonequest's state flag ``MK_RECRUIT`` was once
    assigned again as the Market's Recruit action, so the engine kept the flag in Marauder 3's damage slot."""
    for f in sorted(PKG.rglob("*.py")):
        names = _constants_assigned(ast.parse(f.read_text()))
        twice = sorted({n for n in names if names.count(n) > 1})
        assert not twice, f"{f.relative_to(PKG)} assigns {twice} more than once"


def test_the_constant_check_sees_a_second_assignment():
    tree = ast.parse("A = 1\nB, C = 2, 3\nA = B + 1\nc = 4\nc = 5\nC += 1\n")
    names = _constants_assigned(tree)
    assert sorted({n for n in names if names.count(n) > 1}) == ["A", "C"]
