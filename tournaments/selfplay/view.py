"""What the self-play screen shows, read from a self-play directory (``arena selfplay --tui``).

The directory is the truth (the run writes every generation, population and phase store as it
goes), so the screen shows the same thing for a running, a finished and a resumed run. Reading
is blocking file and SQLite work: the app does it in a thread.

Everything an agent (or a reflector) wrote — styles, instructions, insight texts, notes — is
untrusted: it leaves here escaped (:func:`arena.untrusted.printable`), and the screen renders it
as plain text, never as markup.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.untrusted import printable


@dataclass
class DiffLine:
    sign: str  # "+" (the champion has it), "-" (the seed had it), " " (a heading)
    text: str  # escaped


@dataclass
class SelfPlayView:
    name: str = ""
    game: str = ""
    repeats: int = 0
    generations: int = 0
    population_size: int = 0
    k: float = 2.0
    metric: str = "win"  # what μ, σ and the board rank by
    repeat: int = 0  # the repeat being played (or the last one)
    generation: int | None = None  # the last finished generation of that repeat
    done_generations: int = 0  # over all repeats
    phase: str = ""  # the phase being played: play / gate / replay ("" between phases)
    phase_done: int = 0
    phase_total: int = 0
    incumbent: str = ""
    seed: str = ""
    rows: list[dict[str, Any]] = field(default_factory=list)  # the population leaderboard
    diversity: float | None = None
    bank: dict[str, Any] = field(default_factory=dict)
    gate: dict[str, Any] | None = None
    budget: dict[str, Any] = field(default_factory=dict)
    diff: list[DiffLine] = field(default_factory=list)
    finished: bool = False
    stopped: str | None = None

    @property
    def total_generations(self) -> int:
        return self.repeats * self.generations


def _read(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None  # absent, or caught between write and rename


def _dirs(root: Path, prefix: str) -> list[Path]:
    found = [p for p in root.glob(f"{prefix}*") if p.is_dir() and p.name[1:].isdigit()]
    return sorted(found, key=lambda p: int(p.name[1:]))


def load(root: Path) -> SelfPlayView:
    import yaml

    view = SelfPlayView()
    try:
        config = yaml.safe_load((root / "config.yaml").read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError):
        return view
    view.name, view.game = str(config.get("name", "")), str(config.get("game", ""))
    view.repeats = int(config.get("repeats", 1))
    view.generations = int(config.get("generations", 1))
    view.population_size = int(config.get("population", 0))
    view.k = float((config.get("selection") or {}).get("k", 2.0))
    view.metric = str(config.get("metric", "win"))
    repeats = _dirs(root, "r")
    if not repeats:
        return view
    for rdir in repeats:
        view.done_generations += len(list(rdir.glob("g*/generation.json")))
    rdir = repeats[-1]
    view.repeat = int(rdir.name[1:])
    gens = sorted(rdir.glob("g*/generation.json"))
    summary = _read(gens[-1]) if gens else None
    if summary is not None:
        view.generation = int(summary["generation"])
        view.incumbent = str(summary["incumbent"])
        view.rows = list(summary["candidates"])
        view.diversity = summary.get("diversity")
        view.bank = dict(summary.get("bank") or {})
        view.gate = summary.get("gate")
        view.budget = dict(summary.get("budget") or {})
    budget = _read(root / "budget.json")
    if budget is not None and budget.get("total", {}).get("games", 0) >= view.budget.get(
        "total", {}
    ).get("games", 0):
        view.budget = budget
    view.stopped = (view.budget or {}).get("stopped")
    _phase(rdir, view)
    seed = _read(rdir / "seed.json")
    view.seed = str(seed["id"]) if seed else ""
    report = _read(root / "report.json")
    view.finished = report is not None
    if seed is not None and view.incumbent:
        champion = _candidate(rdir, view.incumbent) or seed
        view.diff = context_diff(seed, champion, rdir / "bank.sqlite")
    return view


def with_spent(view: SelfPlayView, spent: dict[str, Any]) -> SelfPlayView:
    """``view`` with the live counters of a run's ledger (``Ledger.as_dict()``): the files hold
    them only as of the last finished generation, so a screen fed only by them read "0 games ·
    0 LLM calls" through a whole first generation."""
    view.budget = spent
    view.stopped = spent.get("stopped")
    return view


def _phase(rdir: Path, view: SelfPlayView) -> None:
    """The phase being played: the newest phase store of the repeat, with its counts."""
    from arena.store import DONE, read_run

    stores = sorted(
        rdir.glob("g*/*/arena.sqlite"), key=lambda p: (p.parent.parent.name, p.stat().st_mtime)
    )
    if not stores:
        return
    db = stores[-1]
    try:
        found = read_run(db)
    except Exception:  # a store being created; the next poll reads it
        return
    if found is None:
        return
    info, counts = found
    view.phase = f"{db.parent.parent.name}/{db.parent.name}"
    view.phase_total = sum(counts.values())
    view.phase_done = sum(counts.get(s, 0) for s in DONE)
    if info.get("status") == "complete" and view.phase_done == view.phase_total:
        view.phase += " (done)"


def _candidate(rdir: Path, cid: str) -> dict[str, Any] | None:
    for path in sorted(rdir.glob("g*/population.json"), reverse=True):
        for row in _read(path) or []:
            if row.get("id") == cid:
                return dict(row)
    result = _read(rdir / "result.json")
    if result and result.get("champion", {}).get("id") == cid:
        return dict(result["champion"])
    return None


def context_diff(seed: dict[str, Any], champion: dict[str, Any], bank_path: Path) -> list[DiffLine]:
    """The champion's context against the seed's: prompt fields, then insights read."""
    out: list[DiffLine] = []
    for key, label in (("style", "style"), ("extra_instructions", "extra instructions")):
        a, b = seed.get(key), champion.get(key)
        if a == b:
            continue
        out.append(DiffLine(" ", label))
        if a:
            out.append(DiffLine("-", printable(str(a), newlines="mark")))
        if b:
            out.append(DiffLine("+", printable(str(b), newlines="mark")))
    out += _examples_diff(seed.get("examples") or [], champion.get("examples") or [])
    mine, theirs = set(champion.get("insights") or ()), set(seed.get("insights") or ())
    added, removed = sorted(mine - theirs), sorted(theirs - mine)
    if added or removed:
        out.append(DiffLine(" ", f"insights read: {len(theirs)} → {len(mine)}"))
        texts = _insight_texts(bank_path, [*added, *removed])
        for sign, ids in (("+", added), ("-", removed)):
            for i in ids:
                out.append(DiffLine(sign, printable(texts.get(i, i), newlines="mark")))
    if not out:
        out.append(DiffLine(" ", "the champion is the seed context"))
    return out


#: Worked examples listed in the diff before "… and N more".
EXAMPLES_SHOWN = 6


def _examples_diff(seed: list[dict[str, Any]], champion: list[dict[str, Any]]) -> list[DiffLine]:
    """The champion's worked examples against the seed's (each: its situation → its answer)."""
    if seed == champion:
        return []

    def line(e: dict[str, Any]) -> str:
        text = f"{e.get('situation', '')} → {e.get('answer', '')}"
        return printable(text, newlines="mark")

    out = [DiffLine(" ", f"worked examples: {len(seed)} → {len(champion)}")]
    gone = [e for e in seed if e not in champion]
    new = [e for e in champion if e not in seed]
    for sign, items in (("+", new), ("-", gone)):
        for e in items[:EXAMPLES_SHOWN]:
            out.append(DiffLine(sign, line(e)))
        if len(items) > EXAMPLES_SHOWN:
            out.append(DiffLine(sign, f"… and {len(items) - EXAMPLES_SHOWN} more"))
    return out


def _insight_texts(bank_path: Path, ids: list[str]) -> dict[str, str]:
    if not ids or not bank_path.exists():
        return {}
    from arena.memory.bank import open_reader

    try:  # a viewer only reads: nothing in or beside the file changes
        bank = open_reader(bank_path)
    except Exception:
        return {}
    try:
        everything = bank.at().all()  # every insight ever added, retired ones too
    except Exception:
        return {}
    finally:
        bank.close()
    wanted = set(ids)
    return {i.id: i.text for i in everything if i.id in wanted}
