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
