"""Load and validate persona cards and scenarios from YAML.

A file holds one card/scenario (a mapping) or several (a list of mappings). Files under a
``personas/`` directory are cards, files under ``scenarios/`` are scenarios (elsewhere the content
decides: a mapping with ``characters`` is a scenario). Every problem is reported as
``file:line: field: message``; line numbers come from the YAML node marks (``yaml.compose``),
computed only when there is something to report.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from personas.scenario_refs import Loc, scenario_issues
from personas.schema import Persona, Scenario, Secret

LIBRARY_ROOT = Path(__file__).parent / "library"
Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass(frozen=True)
class Problem:
    file: str
    line: int | None
    field: str
    message: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        return f"{where}: {self.field or '(document)'}: {self.message}"


class LibraryError(ValueError):
    """Invalid library data; ``problems`` lists every problem found."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        self.problems = list(problems)
        super().__init__("\n".join(str(p) for p in self.problems))


@dataclass(frozen=True)
class Source:
    file: Path
    prefix: Loc  # where the object sits in its file: () for a lone mapping, (i,) in a list


@dataclass
class Library:
    personas: dict[str, Persona] = field(default_factory=dict)
    scenarios: dict[str, Scenario] = field(default_factory=dict)
    sources: dict[tuple[str, str], Source] = field(default_factory=dict)

    def persona(self, key: str) -> Persona:
        """A card by id or by character name."""
        if key in self.personas:
            return self.personas[key]
        for p in self.personas.values():
            if p.name == key:
                return p
        raise KeyError(f"unknown persona {key!r}")

    def scenario(self, key: str) -> Scenario:
        if key not in self.scenarios:
            known = ", ".join(sorted(self.scenarios)) or "none"
            raise KeyError(f"unknown scenario {key!r}; known: {known}")
        return self.scenarios[key]


# -- locating problems ---------------------------------------------------------------------
@functools.lru_cache(maxsize=64)
def _compose(path: str, mtime: float) -> yaml.Node | None:
    try:
        return yaml.compose(Path(path).read_text(encoding="utf-8"), Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return None


def line_of(path: Path, loc: Loc) -> int | None:
    """1-based line of the deepest node along ``loc`` (unknown parts are skipped)."""
    node = _compose(str(path), path.stat().st_mtime)
    if node is None:
        return None
    line = node.start_mark.line + 1
    for part in loc:
        nxt = None
        if isinstance(node, yaml.MappingNode):
            for k, v in node.value:
                if str(k.value) == str(part):
                    nxt, line = v, k.start_mark.line + 1
                    break
        elif (
            isinstance(node, yaml.SequenceNode)
            and isinstance(part, int)
            and 0 <= part < len(node.value)
        ):
            nxt = node.value[part]
            line = nxt.start_mark.line + 1
        if nxt is None:
            continue
        node = nxt
    return int(line)


def _problem(src: Source, label: str, loc: Loc, message: str) -> Problem:
    path = ".".join(str(p) for p in loc)
    return Problem(str(src.file), line_of(src.file, src.prefix + loc), f"{label}{path}", message)


def _pydantic_problems(src: Source, label: str, err: ValidationError) -> list[Problem]:
    out = []
    for e in err.errors():
        loc = tuple(p for p in e["loc"] if not (isinstance(p, str) and "[" in p))
        msg = "unknown field" if e["type"] == "extra_forbidden" else e["msg"]
        out.append(_problem(src, label, loc, msg.removeprefix("Value error, ")))
    return out


# -- reading -------------------------------------------------------------------------------
def yaml_files(paths: Iterable[str | Path]) -> list[Path]:
    out: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            out.extend(sorted(q for q in p.rglob("*") if q.suffix in (".yaml", ".yml")))
        else:
            out.append(p)
    return out


def _kind_of(path: Path, doc: Any) -> str:
    parts = set(path.parts[:-1])
    if "scenarios" in parts:
        return "scenario"
    if "personas" in parts and "characters" not in (doc if isinstance(doc, dict) else {}):
        return "persona"
    return "scenario" if isinstance(doc, dict) and "characters" in doc else "persona"


def read_file(path: Path, lib: Library, problems: list[Problem]) -> None:
    """Parse one file into ``lib``; problems (syntax, schema, duplicates) go to ``problems``."""
    try:
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=Loader)
    except FileNotFoundError:
        problems.append(Problem(str(path), None, "", "no such file"))
        return
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        line = mark.line + 1 if mark else None
        problems.append(Problem(str(path), line, "", f"not valid YAML: {err}"))
        return
    docs: list[tuple[Loc, Any]] = (
        [((i,), d) for i, d in enumerate(data)] if isinstance(data, list) else [((), data)]
    )
    for prefix, doc in docs:
        src = Source(path, prefix)
        label = f"[{prefix[0]}]." if prefix else ""
        if not isinstance(doc, dict):
            problems.append(_problem(src, label, (), "expected a mapping"))
            continue
        kind = _kind_of(path, doc)
        model: type[Scenario] | type[Persona] = Scenario if kind == "scenario" else Persona
        try:
            obj = model.model_validate(doc)
        except ValidationError as err:
            problems.extend(_pydantic_problems(src, label, err))
            continue
        table: dict[str, Any] = lib.scenarios if kind == "scenario" else lib.personas
        if obj.id in table:
            first = lib.sources[(kind, obj.id)]
            problems.append(
                _problem(
                    src, label, ("id",), f"duplicate {kind} id {obj.id!r} (first in {first.file})"
                )
            )
            continue
        table[obj.id] = obj
        lib.sources[(kind, obj.id)] = src


# -- cross references ----------------------------------------------------------------------
def check_personas(lib: Library, only: set[str] | None = None) -> list[Problem]:
    """Unique names; card secret audiences name existing personas."""
    problems: list[Problem] = []
    by_name: dict[str, list[str]] = {}
    for pid, p in lib.personas.items():
        by_name.setdefault(p.name, []).append(pid)
    keys = set(lib.personas) | set(by_name)
    for pid, p in lib.personas.items():
        src = lib.sources[("persona", pid)]
        label = f"persona {pid}: "
        if only is not None and pid not in only:
            continue
        holders = by_name[p.name]
        if len(holders) > 1 and (only is not None or holders[0] != pid):
            others = ", ".join(h for h in holders if h != pid)
            msg = f"duplicate name {p.name!r} (also {others})"
            problems.append(_problem(src, label, ("name",), msg))
        for i, s in enumerate(p.secrets):
            for j, who in enumerate(s.audience):
                if who not in keys:
                    problems.append(
                        _problem(
                            src, label, ("secrets", i, "audience", j), f"unknown character {who!r}"
                        )
                    )
            problems.extend(
                _check_fragments(src, label, ("secrets", i), s, {x.id for x in p.secrets})
            )
    return problems


def _check_fragments(src: Source, label: str, loc: Loc, s: Secret, ids: set[str]) -> list[Problem]:
    return [
        _problem(src, label, (*loc, "fragments", k), f"unknown secret id {f!r}")
        for k, f in enumerate(s.fragments)
        if f not in ids
    ]


def check_scenario(lib: Library, sid: str) -> list[Problem]:
    """A scenario's references: personas, characters, secrets, propositions, items."""
    src = lib.sources[("scenario", sid)]
    label = f"scenario {sid}: "
    issues = scenario_issues(lib.scenarios[sid], lib.personas)
    return [_problem(src, label, loc, msg) for loc, msg in issues]


def check_library(lib: Library, only: set[str] | None = None) -> list[Problem]:
    problems = check_personas(lib, only)
    for sid in lib.scenarios:
        problems.extend(check_scenario(lib, sid))
    return problems


def load_paths(
    paths: Iterable[str | Path], context: Library | None = None
) -> tuple[Library, list[Problem]]:
    """Read files into a library (on top of ``context``'s personas) and check it."""
    lib = Library()
    problems: list[Problem] = []
    for path in yaml_files(paths):
        read_file(path, lib, problems)
    own = set(lib.personas)
    if context is not None:
        for pid, p in context.personas.items():
            if pid not in lib.personas:
                lib.personas[pid] = p
                lib.sources[("persona", pid)] = context.sources[("persona", pid)]
    problems.extend(check_library(lib, only=own if context is not None else None))
    return lib, problems


@functools.lru_cache(maxsize=8)
def _load_cached(root: str, stamp: tuple[tuple[str, float], ...]) -> Library:
    lib, problems = load_paths([root])
    if problems:
        raise LibraryError(problems)
    return lib


def load_library(root: str | Path | None = None) -> Library:
    """The library under ``root`` (default: the shipped one), cached until a file changes."""
    base = Path(root) if root is not None else LIBRARY_ROOT
    if not base.exists():
        raise LibraryError([Problem(str(base), None, "", "no such library directory")])
    stamp = tuple((str(p), p.stat().st_mtime) for p in yaml_files([base]))
    return _load_cached(str(base), stamp)
