"""Banks as evidence: the checks a bank passes before it is used, and the heads a run records.

* **Before use.** :func:`bank_problems` verifies, read-only, every bank a config names; a broken
  one is a config problem (nothing runs), named with its first bad row.
* **After a fold.** A run that grows a bank (learning, self-play) writes the head its last fold
  left to ``RUN/banks/<name>.head.json`` (:func:`record_head`). A hash chain alone cannot show
  that its newest rows were cut off — what is left still verifies — so the record is the
  reference: ``arena memory verify BANK --expect RUN/banks/<name>.head.json`` checks the bank
  still holds that version with that hash (:func:`check_holds`). The bank may have grown since.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from arena.memory.bank import Bank, open_reader
from arena.memory.model import GENESIS
from arena.memory.state import BankError

HEADS_DIR = "banks"
HEAD_FORMAT: Literal["llm-arena-bank-head"] = "llm-arena-bank-head"


class HeadRecord(BaseModel):
    """The head a run left in a bank: version (= row count) and the hash of that row."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    format: Literal["llm-arena-bank-head"] = HEAD_FORMAT
    bank: str  # the bank file, absolute
    version: int
    head_hash: str
    run_id: str
    after: str  # what left this head, e.g. "fold of block 3"


def head_path(run_dir: str | Path, name: str) -> Path:
    return Path(run_dir) / HEADS_DIR / f"{name}.head.json"


def record_head(run_dir: str | Path, name: str, record: HeadRecord) -> Path:
    """Write ``record`` as ``RUN/banks/<name>.head.json`` (whole or not at all)."""
    path = head_path(run_dir, name)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(record.model_dump_json(indent=1) + "\n", encoding="utf-8")
    os.replace(tmp, path)
    return path


def read_heads(run_dir: str | Path) -> list[tuple[Path, HeadRecord]]:
    """The head records of a run directory, by file name."""
    folder = Path(run_dir) / HEADS_DIR
    if not folder.is_dir():
        return []
    return [
        (p, HeadRecord.model_validate_json(p.read_text(encoding="utf-8")))
        for p in sorted(folder.glob("*.head.json"))
    ]


def head_lines(run_dir: str | Path) -> list[str]:
    """What a run prints at its end about the banks it grew (one line per record)."""
    return [
        f"bank {r.bank}: head version {r.version} {r.head_hash} (after {r.after}); "
        f"recorded in {p}; check it later with: arena memory verify {r.bank} --expect {p}"
        for p, r in read_heads(run_dir)
    ]


def load_expectation(value: str) -> HeadRecord | str:
    """``--expect``: a head record file, or a literal head hash (BankError: neither)."""
    path = Path(value).expanduser()
    if path.is_file():
        try:
            return HeadRecord.model_validate_json(path.read_text(encoding="utf-8"))
        except (OSError, ValidationError, ValueError) as err:
            first = str(err).splitlines()[0]
            raise BankError(f"{value}: not a bank head record ({first})") from None
    if len(value) == 64 and all(c in "0123456789abcdef" for c in value):
        return value
    raise BankError(f"--expect {value!r}: neither a head record file nor a 64-hex head hash")


def check_holds(bank: Bank, version: int, head_hash: str) -> str | None:
    """None when the bank still holds ``version`` with ``head_hash`` (its chain verified
    first), else what is wrong: rows cut off, or a log that is not the recorded one."""
    newest = bank.head()[0]
    if newest < version:
        return (
            f"the bank ends at version {newest}, the record was taken at version {version} "
            f"with head {head_hash}: truncated ({version - newest} newest operations missing)"
        )
    have = GENESIS if version == 0 else bank.ops(after=version - 1, upto=version)[0].hash
    if have != head_hash:
        return (
            f"version {version} has hash {have}, the record says {head_hash}: not the log the "
            "record was taken from"
        )
    return None


def bank_problem(path: str | Path) -> str | None:
    """The problem of using the bank at ``path`` as it is (None: intact, or not made yet).
    Read-only: checking a bank never changes it."""
    if not Path(path).expanduser().exists():
        return None  # an empty bank, made when first written
    try:
        bank = open_reader(path)
    except BankError as err:
        return f"bank {path}: {err}"
    try:
        result = bank.verify()
    finally:
        bank.close()
    return result.problem(path) or None


def bank_problems(paths: Iterable[str | Path]) -> list[str]:
    """:func:`bank_problem` of each distinct bank, in the order given."""
    seen: set[str] = set()
    out = []
    for path in paths:
        key = str(Path(path).expanduser().resolve())
        if key in seen:
            continue
        seen.add(key)
        problem = bank_problem(path)
        if problem:
            out.append(problem)
    return out


def recorded_head_problems(run_dir: str | Path) -> list[str]:
    """Before a run resumes: each bank it recorded a head of must verify and still hold that
    head (a bank cut back or rewritten since is refused). Read-only."""
    out = []
    for path, record in read_heads(run_dir):
        problem = bank_problem(record.bank)
        if problem is None and Path(record.bank).exists():
            bank = open_reader(record.bank)
            try:
                held = check_holds(bank, record.version, record.head_hash)
            finally:
                bank.close()
            problem = f"bank {record.bank}: {held} (record {path})" if held else None
        elif problem is None:
            problem = f"bank {record.bank} is gone; {path} records its head"
        if problem:
            out.append(problem)
    return out
