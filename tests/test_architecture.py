"""Games are plug-ins: no module of ``arena/`` names a registered game or reaches into the games.

An AST scan of every module under ``arena/``. The forbidden names are derived from the registry
(game ids, PettingZoo env names, the packages that hold the engines), never written here.
Checked: string literals (docstrings excepted: documentation may cite a game as an example),
identifiers, attribute names and imports. Everything the core needs from a game comes through
its ``GameInfo`` (briefing, knowledge model, speech and event types).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from arena import registry

ROOT = Path(__file__).resolve().parent.parent
CORE = ROOT / "arena"


def shipped_games() -> list[registry.GameInfo]:
    """Registered games whose engines ship (test-only games like the toy live in ``tests``)."""
    return [i for i in registry.games().values() if not i.engine.startswith("tests.")]


def game_words() -> set[str]:
    """Every word that would name a concrete game: ids, env names and engine packages."""
    words: set[str] = set()
    for info in shipped_games():
        words.add(info.game)
        words.add(info.env_id.split("/")[-1].split("-")[0].lower())
        words.update(info.engine.partition(":")[0].split(".")[1:-1])
    return {w for w in words if w}


def game_packages() -> set[str]:
    """Top-level packages that hold the shipped engines (``games``)."""
    return {info.engine.split(".")[0] for info in shipped_games()}


def docstrings(tree: ast.AST) -> set[int]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                out.add(id(body[0].value))
    return out


def names_in(path: Path, words: set[str], packages: set[str], root: Path = ROOT) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    word = re.compile(
        r"(?<![a-z0-9])(" + "|".join(map(re.escape, sorted(words))) + r")(?![a-z0-9])"
    )
    tops = "|".join(map(re.escape, sorted(packages)))
    imported = re.compile(rf"^({tops})(\.|$)")
    referenced = re.compile(rf"^({tops})[.:][a-z_]")  # a module path in a string, not a word
    skip = docstrings(tree)
    found = []

    def hit(node: ast.AST, what: str, text: str) -> None:
        found.append(f"{path.relative_to(root)}:{getattr(node, 'lineno', 0)}: {what} in {text!r}")

    for node in ast.walk(tree):
        texts: list[str] = []
        modules: list[str] = []
        module = imported
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            texts = modules = [node.value]  # "games.x:y" handed to importlib is an import too
            module = referenced
        elif isinstance(node, ast.Name):
            texts = [node.id]
        elif isinstance(node, ast.Attribute):
            texts = [node.attr]
        elif isinstance(node, ast.Import):
            texts = modules = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            texts = modules = [node.module]
        for text in texts:
            m = word.search(text.lower())
            if m:
                hit(node, repr(m.group(1)), text)
        for text in modules:
            if module.match(text):
                hit(node, "a games module", text)
    return found


def test_the_forbidden_words_come_from_the_registry() -> None:
    words = game_words()
    assert {i.game for i in shipped_games()} <= words and "toy" not in words
    assert game_packages() == {"games"}


def test_no_core_module_names_a_game_or_imports_the_games() -> None:
    words, packages = game_words(), game_packages()
    found = [h for path in sorted(CORE.rglob("*.py")) for h in names_in(path, words, packages)]
    assert not found, "arena/ names concrete games:\n" + "\n".join(found)


def test_the_scan_catches_game_names_and_game_modules(tmp_path: Path) -> None:
    game = sorted(i.game for i in shipped_games())[0]
    (tmp_path / "bad.py").write_text(
        f'"""Docstrings may say {game}."""\n'
        f'if log.game == "{game}":\n'
        '    mod = load_object("games.catalog:GAMES")\n'
        "from games import catalog\n"
        "n_games = 0  # a count of games is no game\n"
    )
    hits = names_in(tmp_path / "bad.py", game_words(), game_packages(), tmp_path)
    assert sorted(h.split(":")[1] for h in hits) == ["2", "3", "4"]
