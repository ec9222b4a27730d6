"""The import graph points downward: app → tournaments, tui → games, personas → arena.

An AST scan of every module, lazy imports inside functions and ``TYPE_CHECKING`` blocks
included (a lazy import is still a dependency; it only hides until the line runs).
"""

from __future__ import annotations

import ast
from collections.abc import Collection
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


# -- modules: no import circles, and the wings of arena/ in a declared order ------------------
# The same AST scan, one level finer: an edge from module to module for every import, lazy and
# TYPE_CHECKING ones included (a circle hidden behind a lazy import is still two modules that
# cannot be read, tested or moved apart).

# Circles inside code another change is rewriting, by module-name prefix, with the reason; the
# list only shrinks. A circle is excused only when every one of its modules is listed here.
PENDING_CIRCLES: dict[str, str] = {}


def module_name(path: Path, root: Path = ROOT) -> tuple[str, bool]:
    """The dotted name of a source file, and whether it is a package's ``__init__``."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        return ".".join(parts[:-1]), True
    return ".".join(parts), False


def first_party_modules() -> dict[str, Path]:
    return {
        module_name(path)[0]: path
        for package in PACKAGES
        for path in (ROOT / package).rglob("*.py")
    }


def _owner(name: str, known: Collection[str]) -> str | None:
    """The longest known module that ``name`` is or lies in (``a.b.C`` -> ``a.b``)."""
    while name:
        if name in known:
            return name
        name = name.rpartition(".")[0]
    return None


def module_imports(path: Path, known: Collection[str], root: Path = ROOT) -> set[str]:
    """First-party modules ``path`` imports, lazy and TYPE_CHECKING imports included. In
    ``from M import N``, N is the submodule ``M.N`` when there is one, else a name in M."""
    name, is_package = module_name(path, root)
    package = name if is_package else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: resolved against the importing module's package
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(up + ([node.module] if node.module else []))
            targets = [
                f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names
            ]
        else:
            continue
        found.update(m for m in (_owner(t, known) for t in targets) if m is not None)
    found.discard(name)
    return found


def import_graph() -> dict[str, set[str]]:
    known = first_party_modules()
    return {name: module_imports(path, set(known)) for name, path in known.items()}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def _pending(module: str) -> bool:
    return any(module == p or module.startswith(p) for p in PENDING_CIRCLES)


def test_no_import_circles() -> None:
    unexcused = [c for c in circles(import_graph()) if not all(_pending(m) for m in c)]
    assert unexcused == []


def test_the_circle_scan_sees_lazy_and_type_checking_imports(tmp_path: Path) -> None:
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}) == [
        ["a", "b", "c"]
    ]
    (tmp_path / "pkg").mkdir()
    x = tmp_path / "pkg" / "x.py"
    x.write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.y import Y\n"
        "def f():\n    from . import z\n    import pkg.w.deep\n"
    )
    known = {"pkg", "pkg.x", "pkg.y", "pkg.z", "pkg.w"}
    assert module_imports(x, known, tmp_path) == {"pkg.y", "pkg.z", "pkg.w"}


# The wings inside arena/, lowest first. A module may import its own wing and the wings of lower
# tiers only. The kernel (flat arena/*.py and the Agent contract in agents/) stands below all;
# ratings and the transports only consume results and events; llm is a subsystem of its own;
# metrics judge with llm; memory reflects with llm and guards with metrics; the agent kinds at
# the top adapt a wing to the Agent contract.
ARENA_TIERS: tuple[tuple[str, ...], ...] = (
    ("kernel",),
    ("ratings",),
    ("live", "remote"),  # transports: events out over MQTT, agents over HTTP
    ("llm",),
    ("metrics",),
    ("memory",),
    ("agents.llm_params",),  # the llm kind's typed params, read by the kind above
    ("agents.llm_agent", "agents.remote"),
)
KERNEL_AGENTS = {"base", "factory", "human", "params", "random_agent", "slip"}


def arena_wing(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] != "arena":
        return None
    if len(parts) == 1 or (len(parts) == 2 and (ROOT / "arena" / f"{parts[1]}.py").exists()):
        return "kernel"
    if parts[1] == "agents":
        return "kernel" if len(parts) == 2 or parts[2] in KERNEL_AGENTS else f"agents.{parts[2]}"
    return parts[1]


def tier_of(wing: str) -> int:
    return next(i for i, tier in enumerate(ARENA_TIERS) if wing in tier)


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    out = []
    for module, imported in sorted(graph.items()):
        wing = arena_wing(module)
        if wing is None:
            continue
        for target in sorted(imported):
            other = arena_wing(target)
            if other is None or other == wing:
                continue
            if tier_of(other) >= tier_of(wing):
                out.append(f"{module} ({wing}) imports {target} ({other})")
    return out


def test_every_arena_wing_is_placed() -> None:
    wings = {arena_wing(m) for m in first_party_modules()} - {None}
    placed = {w for tier in ARENA_TIERS for w in tier}
    assert wings - placed == set()


def test_arena_wings_import_downward_only() -> None:
    assert upward_imports(import_graph()) == []


def test_the_wing_order_catches_an_upward_import() -> None:
    graph = {"arena.llm.prompt": {"arena.memory.spec", "arena.types"}, "arena.runner": set()}
    assert upward_imports(graph) == ["arena.llm.prompt (llm) imports arena.memory.spec (memory)"]
