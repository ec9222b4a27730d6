"""Where exported rows go: JSON lines, a parquet file, or a Hugging Face dataset on disk.

Every writer takes rows in batches and holds at most one batch: the parquet file grows a row
group per batch (``pyarrow.parquet.ParquetWriter``); the ``hf`` format streams Arrow shards
with ``datasets``' own writer and lays them out as ``save_to_disk`` does, so a run of any size
exports in bounded memory.
"""

from __future__ import annotations

import json
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
        ("agent_kind", text),
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
    """A ``datasets.Dataset`` written to ``out`` as ``save_to_disk`` lays it out (Arrow shards,
    ``state.json``, ``dataset_info.json``), so ``datasets.load_from_disk(out)`` reads it.

    The shards are streamed batch by batch with ``datasets``' own ``ArrowWriter``: staging a
    parquet file and calling ``save_to_disk`` reads the whole table back through memory maps,
    which put every page of it in the process's resident set (1.5 GB at 10,000 matches)."""

    SHARD_BYTES = 500 * 2**20  # save_to_disk's default shard size

    def __init__(self, out: Path, god: bool, fingerprint: str) -> None:
        import datasets

        self.out = out
        self.schema = schema(god)
        self.features = datasets.Features.from_arrow_schema(self.schema)
        self.fingerprint = fingerprint
        self.rows = 0
        self.bytes = 0
        self._shards: list[Path] = []
        self._writer: Any = None
        self._shard_bytes = 0

    def _open_shard(self) -> None:
        from datasets.arrow_writer import ArrowWriter

        path = self.out / f".shard-{len(self._shards):05d}.arrow"
        self._shards.append(path)
        self._writer = ArrowWriter(features=self.features, path=str(path))
        self._shard_bytes = 0

    def _close_shard(self) -> None:
        if self._writer is not None:
            _, size = self._writer.finalize()
            self.bytes += size
            self._writer.close()
            self._writer = None

    def write(self, rows: list[dict[str, Any]]) -> None:
        import pyarrow as pa

        if not rows and self._shards:
            return
        if self._writer is None or self._shard_bytes >= self.SHARD_BYTES:
            self._close_shard()
            self._open_shard()
        table = pa.Table.from_pylist(rows, schema=self.schema)
        self._writer.write_table(table)
        self._shard_bytes += table.nbytes
        self.rows += len(rows)

    def close(self) -> None:
        import datasets

        if not self._shards:
            self.write([])  # an empty dataset still has one (empty) shard
        self._close_shard()
        n = len(self._shards)
        files = []
        for i, path in enumerate(self._shards):
            name = f"data-{i:05d}-of-{n:05d}.arrow"
            path.rename(self.out / name)
            files.append({"filename": name})
        state: dict[str, Any] = {
            "_data_files": files,
            "_fingerprint": self.fingerprint,
            "_format_columns": None,
            "_format_kwargs": {},
            "_format_type": None,
            "_output_all_columns": False,
            "_split": "train",
        }
        (self.out / "state.json").write_text(
            json.dumps(state, indent=2, sort_keys=True), encoding="utf-8"
        )
        info = datasets.DatasetInfo(
            description="llm-arena trajectories: one row per seat decision (see README.md)",
            features=self.features,
            dataset_size=self.bytes,
        )
        info.write_to_directory(str(self.out))

    def abort(self) -> None:
        if self._writer is not None:
            self._writer.close()
            self._writer = None
        for path in self._shards:
            path.unlink(missing_ok=True)


def open_writer(fmt: Format, out: Path, god: bool, fingerprint: str = "") -> RowWriter:
    """A writer of ``fmt`` into the (existing) directory ``out``; ``fingerprint`` names the
    ``hf`` dataset's content (``datasets`` keys its caches by it)."""
    if fmt == "jsonl":
        return JsonlWriter(out / DATA_FILES["jsonl"])
    if fmt == "parquet":
        return ParquetRowWriter(out / DATA_FILES["parquet"], god)
    return HfDatasetWriter(out, god, fingerprint or "0" * 16)
