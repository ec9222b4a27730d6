"""What an export is asked to do: format, destination, filters, view, sizes.

Its own module so the dataset card (which records the options) and the run that writes the
export both read it without importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from tournaments.export.rows import RowFilter
from tournaments.export.writers import Format

CHUNK = 200  # results read from the store at a time
BATCH = 2000  # rows per written batch (a parquet row group)


@dataclass
class ExportOptions:
    fmt: Format = "parquet"
    out: Path | None = None  # default: RUN_DIR/export/<fmt>
    keep: RowFilter = field(default_factory=RowFilter)
    god: bool = False
    partial: bool = False  # export the finished matches of an unfinished run
    force: bool = False  # replace an earlier export at ``out``
    max_matches: int | None = None  # only the first N matches (plan order) with a result
    batch: int = BATCH
