"""The import graph points downward: app → tournaments, tui → games, personas → arena.

An AST scan of every module, lazy imports inside functions and ``TYPE_CHECKING`` blocks
included (a lazy import is still a dependency; it only hides until the line runs).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("app", "arena", "games", "personas", "tournaments", "tui")

# What each package must never import. `personas` is the persona-card library (schema and
# loader over arena's types); the persona dialogue game is built on its cards, so games may
# use it, and it may not reach up into anything but the core.
FORBIDDEN: dict[str, set[str]] = {
    "arena": {"app", "tournaments", "tui", "personas", "games"},
    "games": {"app", "tournaments", "tui"},
    "personas": {"app", "tournaments", "tui", "games"},
    "tournaments": {"app", "tui"},
    "tui": {"app"},
    "app": set(),
}


def imported_packages(path: Path) -> set[tuple[str, int]]:
    """First-party top-level packages ``path`` imports, with the line of each import."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: set[tuple[str, int]] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        else:
            continue
        for name in names:
            top = name.split(".")[0]
            if top in PACKAGES:
                found.add((top, node.lineno))
    return found


def violations(package: str) -> list[str]:
    out = []
    for path in sorted((ROOT / package).rglob("*.py")):
        for top, line in sorted(imported_packages(path)):
            if top in FORBIDDEN[package]:
                out.append(f"{path.relative_to(ROOT)}:{line} imports {top}")
    return out


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_imports_point_downward(package: str) -> None:
    assert violations(package) == []


def test_the_scan_sees_lazy_imports(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    import tui.app\n"
        "def f():\n    from tournaments.executor import Tournament\n"
        "from . import sibling\n"
    )
    assert imported_packages(module) == {("tui", 3), ("tournaments", 5)}


def test_the_entry_point_is_the_app_layer() -> None:
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert 'arena = "app.cli:main"' in text


# --- inside the packages: one wing per feature, no circles, no reach-ins ------------------

SELFPLAY_WING = "tournaments/selfplay/"
# Self-play's only faces outside its wing: the command and the screen.
SELFPLAY_FACES = {"app/commands/selfplay.py", "tui/screens/selfplay.py"}


def source_files() -> list[Path]:
    return [p for package in PACKAGES for p in sorted((ROOT / package).rglob("*.py"))]


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(path: Path) -> set[str]:
    """Every first-party module ``path`` imports (lazy and ``TYPE_CHECKING`` ones too); for
    ``from a.b import c`` both ``a.b`` and ``a.b.c`` (``c`` may be a module)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return {name for name in found if name.split(".")[0] in PACKAGES}


def test_selfplay_lives_in_one_wing() -> None:
    outside = []
    for path in source_files():
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith(SELFPLAY_WING) or rel in SELFPLAY_FACES:
            continue
        if "selfplay" in path.name:
            outside.append(f"{rel}: a self-play module outside {SELFPLAY_WING}")
        uses = sorted(m for m in imported_modules(path) if m.startswith("tournaments.selfplay"))
        if uses:
            outside.append(f"{rel} imports {uses[0]}")
    assert outside == []


def cycles(modules: dict[str, set[str]]) -> list[list[str]]:
    """The import cycles among ``modules`` (module -> the modules it imports), one per
    strongly connected set of modules, found by Tarjan's algorithm."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out: list[list[str]] = []

    def visit(m: str) -> None:
        index[m] = low[m] = len(index)
        stack.append(m)
        for n in sorted(modules[m]):
            if n not in modules:
                continue
            if n not in index:
                visit(n)
                low[m] = min(low[m], low[n])
            elif n in stack:
                low[m] = min(low[m], index[n])
        if low[m] == index[m]:
            group = []
            while True:
                n = stack.pop()
                group.append(n)
                if n == m:
                    break
            if len(group) > 1 or m in modules[m]:
                out.append(sorted(group))

    for m in sorted(modules):
        if m not in index:
            visit(m)
    return out


def import_graph(package: str) -> dict[str, set[str]]:
    """Module -> the modules of ``package`` it imports; a package's ``__init__`` is left out
    (a face that re-exports its own modules is not a circle)."""
    graph = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        if path.name != "__init__.py":
            graph[module_name(path)] = imported_modules(path)
    return graph


def test_the_scan_finds_a_lazy_circle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_tournaments_has_no_import_circle() -> None:
    """Lazy and ``TYPE_CHECKING`` imports count: the run loop, its schedules, the export and
    self-play's parts each stand above what they import."""
    assert cycles(import_graph("tournaments")) == []


def private_names(path: Path, cls: str) -> set[str]:
    """The private methods and attributes (``self._x = ...``) of class ``cls`` in ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    node = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls)
    names = set()
    for item in ast.walk(node):
        if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
            names.add(item.name)
        elif isinstance(item, ast.Attribute) and isinstance(item.ctx, ast.Store):
            names.add(item.attr)
    return {n for n in names if n.startswith("_") and not n.startswith("__")}


def test_no_module_reaches_into_the_tournament() -> None:
    """Schedules, executors and self-play work through the tournament's public face
    (``run``, ``run_one``, ``next_priority``, ``memory_pins``), never its private parts."""
    private = private_names(ROOT / "tournaments" / "executor.py", "Tournament")
    assert private  # the scan sees the class
    reach = []
    for path in [*source_files(), *sorted((ROOT / "tests").rglob("*.py"))]:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and node.attr in private
                and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))
            ):
                reach.append(f"{path.relative_to(ROOT)}:{node.lineno} .{node.attr}")
    assert reach == []
