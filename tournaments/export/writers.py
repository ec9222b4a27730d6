"""Where exported rows go: JSON lines, a parquet file, or a Hugging Face dataset on disk.

Every writer takes rows in batches and holds at most one batch: the parquet file grows a row
group per batch (``pyarrow.parquet.ParquetWriter``); the ``hf`` format stages that parquet
file and lets ``datasets`` build its Arrow table from it (a streaming builder) before
``save_to_disk``, so a run of any size exports in bounded memory.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path
from typing import Any, Literal, Protocol

Format = Literal["jsonl", "parquet", "hf"]
FORMATS: tuple[Format, ...] = ("jsonl", "parquet", "hf")
DATA_FILES = {"jsonl": "trajectories.jsonl", "parquet": "trajectories.parquet"}


def schema(god: bool = False) -> Any:
    """The Arrow schema of a row (:func:`tournaments.export.rows.match_rows`)."""
    import pyarrow as pa

    text, num, flag, real = pa.string(), pa.int64(), pa.bool_(), pa.float64()
    fields = [
        ("run_id", text),
        ("match_id", text),
        ("game", text),
        ("match_index", num),
        ("repeat", num),
        ("step", num),
        ("decision_index", num),
        ("seat_step", num),
        ("seat", num),
        ("name", text),
        ("agent", text),
        ("role", text),
        ("team", text),
        ("phase", text),
        ("decision_kind", text),
        ("observation", text),
        ("options", pa.list_(pa.struct([("id", text), ("label", text)]))),
        ("min_choices", num),
        ("max_choices", num),
        ("free_text", flag),
        (
            "known_facts",
            pa.list_(
                pa.struct(
                    [
                        ("owner", num),
                        ("kind", text),
                        ("key", text),
                        ("value", text),
                        ("public", flag),
                    ]
                )
            ),
        ),
        ("llm_calls", num),
        ("model", text),
        ("prompt", pa.list_(pa.struct([("role", text), ("content", text)]))),
        ("answer", text),
        ("tokens_in", num),
        ("tokens_out", num),
        ("latency_s", real),
        ("cost_usd", real),
        ("llm_status", text),
        ("action", text),
        ("action_choices", pa.list_(text)),
        ("action_text", text),
        ("invalid", num),
        ("invalid_errors", pa.list_(text)),
        ("fallback", flag),
        ("fallback_policy", text),
        ("memory_version", num),
        ("memory_insights", pa.list_(text)),
        ("match_status", text),
        ("outcome", text),
        ("result", text),
        ("reward", real),
    ]
    if god:
        fields += [("seed", num), ("ground_truth", text), ("spectator_view", text)]
    return pa.schema(fields)


class RowWriter(Protocol):
    def write(self, rows: list[dict[str, Any]]) -> None: ...

    def close(self) -> None: ...

    def abort(self) -> None:
        """Stop after a failure: release files, build nothing more."""


class JsonlWriter:
    """One JSON object per row and line (UTF-8, keys in schema order)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fh = open(path, "w", encoding="utf-8")  # noqa: SIM115

    def write(self, rows: list[dict[str, Any]]) -> None:
        for row in rows:
            self._fh.write(json.dumps(row, ensure_ascii=False))
            self._fh.write("\n")

    def close(self) -> None:
        self._fh.close()

    abort = close


class ParquetRowWriter:
    """A parquet file with one row group per batch."""

    def __init__(self, path: Path, god: bool) -> None:
        import pyarrow.parquet as pq

        self.path = path
        self.schema = schema(god)
        self.rows = 0
        self._writer = pq.ParquetWriter(str(path), self.schema, compression="zstd")

    def write(self, rows: list[dict[str, Any]]) -> None:
        import pyarrow as pa

        if rows:
            self._writer.write_table(pa.Table.from_pylist(rows, schema=self.schema))
            self.rows += len(rows)

    def close(self) -> None:
        self._writer.close()

    abort = close


class HfDatasetWriter:
    """A ``datasets.Dataset`` saved to ``out`` (``datasets.load_from_disk(out)`` reads it)."""

    def __init__(self, out: Path, god: bool) -> None:
        self.out = out
        self.god = god
        # staged beside the output: save_to_disk must not write where its source lives
        self._stage = Path(tempfile.mkdtemp(prefix=".export-", dir=out.parent))
        self._parquet = ParquetRowWriter(self._stage / DATA_FILES["parquet"], god)

    def write(self, rows: list[dict[str, Any]]) -> None:
        self._parquet.write(rows)

    def close(self) -> None:
        import datasets

        self._parquet.close()
        datasets.disable_progress_bars()  # the export shows its own progress
        try:
            features = datasets.Features.from_arrow_schema(self._parquet.schema)
            if self._parquet.rows:
                dataset = datasets.Dataset.from_parquet(
                    str(self._parquet.path),
                    features=features,
                    cache_dir=str(self._stage / "cache"),
                    keep_in_memory=False,
                )
            else:  # no rows: the parquet builder refuses an empty split
                dataset = datasets.Dataset(self._parquet.schema.empty_table())
            assert isinstance(dataset, datasets.Dataset)
            self.out.mkdir(parents=True, exist_ok=True)
            # an empty dataset saved in zero shards does not load again: one shard at least
            dataset.save_to_disk(str(self.out), num_shards=None if self._parquet.rows else 1)
            del dataset
        finally:
            shutil.rmtree(self._stage, ignore_errors=True)

    def abort(self) -> None:
        self._parquet.close()
        shutil.rmtree(self._stage, ignore_errors=True)


def open_writer(fmt: Format, out: Path, god: bool) -> RowWriter:
    """A writer of ``fmt`` into the (existing) directory ``out``."""
    if fmt == "jsonl":
        return JsonlWriter(out / DATA_FILES["jsonl"])
    if fmt == "parquet":
        return ParquetRowWriter(out / DATA_FILES["parquet"], god)
    return HfDatasetWriter(out, god)
