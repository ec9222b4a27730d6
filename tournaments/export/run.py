"""Export a finished run directory: matches streamed in plan order, rows written in batches.

Only the match ids are held for the whole run; results are read from the store a chunk at a
time and each match's JSONL record is read line by line, so memory does not grow with the
number of matches (``bench/export.py`` measures it).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.results import MatchResult
from arena.sinks import read_jsonl
from arena.store import DONE, Store
from tournaments.export.card import write_card
from tournaments.export.options import CHUNK, ExportOptions
from tournaments.export.rows import RowFilter, match_rows
from tournaments.export.writers import DATA_FILES, open_writer
from tournaments.rundir import RunDirectory, is_locked


class ExportError(ValueError):
    """The run directory cannot be exported as asked (the CLI exits 2 with the message)."""


@dataclass
class ExportSummary:
    out: Path
    matches: int
    rows: int
    skipped: int = 0  # matches without a record (could not start)


def check_run(root: Path, partial: bool = False) -> Store:
    """The run's store, once the directory is a finished run nobody is writing."""
    run = RunDirectory(root)
    if not root.is_dir():
        raise ExportError(f"{root}: no such directory")
    if not run.db.exists() or not run.matches.is_dir():
        raise ExportError(f"{root}: not a run directory (no arena.sqlite or matches/)")
    if is_locked(run.lock):
        holder = run.lock.read_text(encoding="utf-8").strip() or "?"
        raise ExportError(
            f"{root} is being run by another process (pid {holder}); export it once it ends"
        )
    store = Store(run.db)
    counts = store.counts()
    missing = sum(n for status, n in counts.items() if status not in DONE)
    if missing and not partial:
        store.close()
        planned = sum(counts.values())
        raise ExportError(
            f"{root}: {missing} of {planned} planned matches have no result (unfinished run); "
            f"finish it with `arena run --resume {root}`, or pass --partial to export the "
            "finished ones"
        )
    if store.run_info() is None:
        store.close()
        raise ExportError(f"{root}: the store records no run")
    return store


def done_ids(store: Store) -> list[str]:
    """Every match with a result, in plan order (the fold order of the leaderboard)."""
    marks = ",".join("?" * len(DONE))
    rows = store.db.execute(
        f"SELECT match_id FROM matches WHERE status IN ({marks}) ORDER BY idx, match_id", DONE
    )
    return [r[0] for r in rows]


def iter_results(store: Store, ids: list[str], chunk: int = CHUNK) -> Iterator[MatchResult]:
    for i in range(0, len(ids), chunk):
        yield from store.results(ids=ids[i : i + chunk])


def iter_rows(
    root: Path,
    store: Store,
    ids: list[str],
    keep: RowFilter,
    god: bool,
    on_match: Callable[[MatchResult, int], None] | None = None,
) -> Iterator[dict[str, Any]]:
    """Every row of the run's matches, match after match (``on_match(result, rows)`` after
    each)."""
    for result in iter_results(store, ids):
        n = 0
        if result.jsonl is not None:
            path = root / result.jsonl
            for row in match_rows(read_jsonl(path), result, keep, god):
                n += 1
                yield row
        if on_match is not None:
            on_match(result, n)


# Each filter: its RowFilter field, its flag, the SeatResult field it reads, the choices' name.
_FILTERS = (("agent", "--agent", "agent", "agents"), ("role", "--role", "role", "roles"),
            ("outcome", "--outcome", "result", "outcomes"), ("seat", "--seat", "seat", "seats"))  # fmt: skip


def _nothing_kept(store: Store, ids: list[str], keep: RowFilter) -> str | None:
    """Why the export would keep no seat (None when one is kept): the filters given and, for
    each, the values the run has."""
    values: dict[str, set[str]] = {name: set() for name, *_ in _FILTERS}
    for result in iter_results(store, ids):
        for seat in result.seats:
            if keep.keeps_seat(seat):
                return None
            for name, _, field_name, _ in _FILTERS:
                values[name].add(str(getattr(seat, field_name)))
    given = [f for f in _FILTERS if getattr(keep, f[0]) is not None]
    if not ids or not given:
        return "the run has no seat with a result: the export would have no rows"
    asked = " ".join(f"{flag} {getattr(keep, name)}" for name, flag, *_ in given)
    choices = "; ".join(
        f"{plural} in this run: {', '.join(sorted(values[name], key=_natural)) or '-'}"
        for name, _, _, plural in given
    )
    return f"no seat matches {asked}: the export would have no rows; {choices}"


def _natural(value: str) -> tuple[int, str]:
    """Seat numbers in numeric order (2 before 10), names alphabetically."""
    return (len(value), value) if value.isdigit() else (0, value)


def _remove_if_empty(out: Path) -> None:
    """Remove an output directory this export created, when nothing is left in it."""
    with contextlib.suppress(OSError):  # not empty (files a writer could not remove), or gone
        out.rmdir()


def _prepare_out(out: Path, force: bool) -> None:
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        ours = out.is_dir() and (out / "README.md").exists()
        if not force or not ours:
            hint = "; pass --force to replace it" if ours else "; choose another --out"
            raise ExportError(f"{out} already exists and is not empty{hint}")
        shutil.rmtree(out)
    out.mkdir(parents=True, exist_ok=True)


def _fingerprint(info: dict[str, Any], options: ExportOptions, ids: list[str]) -> str:
    """A name for the exported content: the run, what was kept, which matches."""
    keep = options.keep
    parts = [info.get("run_id"), keep.agent, keep.role, keep.outcome, keep.seat, options.god]
    digest = hashlib.sha256(json.dumps([*parts, len(ids), ids[-1:]], default=str).encode())
    return digest.hexdigest()[:16]


def export_run(
    root: Path,
    options: ExportOptions,
    on_start: Callable[[int], None] | None = None,
    on_match: Callable[[MatchResult, int], None] | None = None,
) -> ExportSummary:
    """Export ``root`` as ``options`` say; ``on_start(total matches)`` before the first."""
    store = check_run(root, options.partial)
    try:
        info = store.run_info() or {}
        ids = done_ids(store)[: options.max_matches]
        out = options.out or root / "export" / options.fmt
        nothing = _nothing_kept(store, ids, options.keep)
        if nothing is not None:  # before the output is touched: an earlier export stays
            raise ExportError(nothing)
        existed = out.exists()
        _prepare_out(out, options.force)
        if on_start is not None:
            on_start(len(ids))
        summary = ExportSummary(out=out, matches=0, rows=0)

        def counted(result: MatchResult, n: int) -> None:
            summary.matches += 1
            summary.skipped += result.jsonl is None
            if on_match is not None:
                on_match(result, n)

        writer = open_writer(options.fmt, out, options.god, _fingerprint(info, options, ids))
        try:
            batch: list[dict[str, Any]] = []
            for row in iter_rows(root, store, ids, options.keep, options.god, counted):
                batch.append(row)
                if len(batch) >= options.batch:
                    writer.write(batch)
                    summary.rows += len(batch)
                    batch = []
            writer.write(batch)
            summary.rows += len(batch)
            if summary.rows == 0:  # seats kept, but none of them decided anything
                raise ExportError(f"{root}: the export would have no rows (no seat decision)")
        except BaseException:  # Ctrl-C, a bad record or no rows: no half-built dataset
            writer.abort()
            if not existed:
                _remove_if_empty(out)
            raise
        writer.close()
        write_card(out, store, info, options, summary.rows, DATA_FILES.get(options.fmt))
        return summary
    finally:
        store.close()
