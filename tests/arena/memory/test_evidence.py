"""Banks as evidence: a reader writes nothing, a user refuses a broken chain, and a recorded
head shows rows cut off the end of a chain that still verifies."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest

from arena.memory import Bank, BankError
from arena.memory.bank import BrokenBank, open_bank, open_reader
from arena.memory.evidence import (
    HeadRecord,
    bank_problems,
    check_holds,
    load_expectation,
    read_heads,
    record_head,
    recorded_head_problems,
)
from arena.memory.model import GENESIS


def make(path: Path, texts: tuple[str, ...] = ("One.", "Two.", "Three.")) -> list[str]:
    bank = Bank(path)
    ids = [bank.add("toy", t) for t in texts]
    bank.close()
    return ids


def sql(path: Path, *statements: str) -> None:
    conn = sqlite3.connect(path)
    for statement in statements:
        conn.execute(statement)
    conn.commit()
    conn.close()


def snapshot(path: Path) -> tuple[str, list[str]]:
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    return digest, sorted(p.name for p in path.parent.iterdir())


def test_a_reader_writes_nothing_even_to_a_file_missing_its_triggers(tmp_path: Path) -> None:
    path = tmp_path / "b.sqlite"
    make(path)
    sql(path, "DROP TRIGGER ops_append_only_update", "DROP TRIGGER ops_append_only_delete")
    before = snapshot(path)
    reader = open_reader(path)
    result = reader.verify()
    assert result.ok and result.n_ops == 3 and len(result.warnings) == 1
    assert "append-only triggers are missing" in result.warnings[0]
    assert [i.text for i in reader.at().insights()] == ["One.", "Two.", "Three."]
    with pytest.raises(BankError, match="read-only"):
        reader.add("toy", "Four.")
    reader.close()
    assert snapshot(path) == before
    with pytest.raises(BankError, match="does not exist"):
        open_reader(tmp_path / "missing.sqlite")
    assert not (tmp_path / "missing.sqlite").exists()
    (tmp_path / "junk.sqlite").write_bytes(b"not a database at all, just text" * 40)
    with pytest.raises(BankError, match="not an insight bank"):
        open_reader(tmp_path / "junk.sqlite")


def test_a_user_of_a_bank_refuses_a_rewritten_row(tmp_path: Path) -> None:
    path = tmp_path / "b.sqlite"
    make(path)
    sql(
        path,
        "DROP TRIGGER ops_append_only_update",
        "UPDATE ops SET payload = replace(payload, 'Two.', 'Deux.') WHERE version = 2",
    )
    with pytest.raises(BrokenBank, match=r"broken at version 2: hash does not match"):
        open_bank(path)
    (problem,) = bank_problems([path, str(path)])  # one line per distinct bank
    assert str(path) in problem and "version 2" in problem and "arena memory verify" in problem
    assert bank_problems([tmp_path / "not-made-yet.sqlite"]) == []  # created when first written


def test_a_recorded_head_catches_cut_off_rows_a_plain_verify_passes(tmp_path: Path) -> None:
    path = tmp_path / "b.sqlite"
    make(path)
    bank = Bank(path)
    version, head = bank.head()
    record = HeadRecord(bank=str(path), version=version, head_hash=head, run_id="r", after="t")
    written = record_head(tmp_path / "run", "b", record)
    assert written == tmp_path / "run" / "banks" / "b.head.json"
    assert read_heads(tmp_path / "run") == [(written, record)]
    assert load_expectation(str(written)) == record
    assert load_expectation(head) == head
    with pytest.raises(BankError, match="neither a head record"):
        load_expectation("abc")
    bank.add("toy", "Four.")  # a bank that grew since the record still holds it
    assert check_holds(bank, version, head) is None
    assert check_holds(bank, 0, GENESIS) is None
    assert recorded_head_problems(tmp_path / "run") == []
    bank.close()
    sql(path, "DROP TRIGGER ops_append_only_delete", "DELETE FROM ops WHERE version >= 3")
    reader = open_reader(path)
    assert reader.verify().ok  # what is left still chains
    held = check_holds(reader, version, head)
    assert held is not None and "truncated (1 newest operations missing)" in held
    reader.close()
    (problem,) = recorded_head_problems(tmp_path / "run")
    assert "truncated" in problem and str(written) in problem
    # a log rebuilt to the same length with other rows is not the recorded one
    other = tmp_path / "other.sqlite"
    make(other, ("Uno.", "Dos.", "Tres."))
    held = check_holds(open_reader(other), version, head)
    assert held is not None and "not the log the record was taken from" in held
