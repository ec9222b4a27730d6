"""Trajectories for training: ``arena export RUN_DIR`` writes one row per seat decision.

:mod:`tournaments.export.rows` builds the rows of a match from its event record,
:mod:`tournaments.export.writers` writes them (JSON lines, parquet, a Hugging Face dataset),
:mod:`tournaments.export.card` writes the dataset card, :mod:`tournaments.export.options` holds
what an export is asked to do and :mod:`tournaments.export.run`
streams a whole run directory through them. See docs/export.md.
"""

from tournaments.export.options import ExportOptions
from tournaments.export.rows import RowFilter, match_rows
from tournaments.export.run import ExportError, ExportSummary, export_run
from tournaments.export.writers import FORMATS, schema

__all__ = [
    "FORMATS",
    "ExportError",
    "ExportOptions",
    "ExportSummary",
    "RowFilter",
    "export_run",
    "match_rows",
    "schema",
]
