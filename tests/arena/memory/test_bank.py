"""The bank: append-only log, hash chain, exact past versions, tamper detection, import/export."""

from __future__ import annotations

import io
import json
import sqlite3
from pathlib import Path

import pytest

from arena.memory import Bank, BankError, Draft, Namespace
from arena.memory.model import Effect, chain_hash


def fill(bank: Bank) -> dict[str, str]:
    ids = {
        "vote": bank.add("werewolf/villager", "Vote with the majority on day one.", created_by="t"),
        "claim": bank.add("werewolf/seer", "Claim seer only when two checks agree."),
        "quiet": bank.add("werewolf/villager", "Speak briefly; long speeches draw suspicion."),
    }
    bank.change("edit", ids["vote"], text="Vote with the majority on day one unless accused.")
    bank.change("support", ids["claim"], provenance=[{"match_id": "m1", "seat": 2}])
    bank.change("retire", ids["quiet"], reason="measured harmful")
    return ids


def test_state_is_the_replay_of_every_operation(tmp_path: Path) -> None:
    bank = Bank(tmp_path / "b.sqlite")
    ids = fill(bank)
    snap = bank.at()
    assert snap.version == 6
    vote = snap.get(ids["vote"])
    assert vote.text.endswith("unless accused.") and vote.version == 2 and vote.parent == 1
    assert snap.get(ids["claim"]).support == 2
    assert snap.get(ids["claim"]).provenance[0].match_id == "m1"
    quiet = snap.get(ids["quiet"])
    assert quiet.status == "retired" and quiet.reason == "measured harmful"
    assert [i.id for i in snap.insights("werewolf/villager")] == [ids["vote"]]
    bank.change("restore", ids["quiet"], reason="ablation: helps after all")
    assert bank.at().get(ids["quiet"]).status == "active"
    assert bank.at(6).get(ids["quiet"]).status == "retired"


def test_nothing_is_ever_deleted_or_rewritten_in_place(tmp_path: Path) -> None:
    bank = Bank(tmp_path / "b.sqlite")
    fill(bank)
    conn = sqlite3.connect(bank.path)
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        conn.execute("DELETE FROM ops WHERE version = 1")
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        conn.execute("UPDATE ops SET payload = '{}' WHERE version = 1")
    assert bank.verify().ok


def test_any_past_version_is_materialised_byte_for_byte(tmp_path: Path) -> None:
    bank = Bank(tmp_path / "b.sqlite")
    seen: dict[int, str] = {}
    for i in range(30):
        ns = "dealornodeal/*" if i % 3 else "werewolf/wolf"
        iid = bank.add(ns, f"Insight number {i}: open with a fair split.")
        if i % 4 == 0:
            bank.change("support", iid)
        if i % 7 == 0:
            bank.change("retire", iid, reason=f"test {i}")
        snap = bank.at()
        seen[snap.version] = snap.to_json()
    fresh = Bank(tmp_path / "b.sqlite")  # no cache: pure replay from the log
    for version, data in seen.items():
        assert fresh.at(version).to_json() == data
        assert bank.at(version).to_json() == data
    with pytest.raises(BankError, match="does not exist"):
        fresh.at(10_000)


def test_the_same_updates_give_the_same_chain_and_ids(tmp_path: Path) -> None:
    a, b = Bank(tmp_path / "a.sqlite"), Bank(tmp_path / "b.sqlite")
    fill(a)
    fill(b)
    assert [o.hash for o in a.ops()] == [o.hash for o in b.ops()]
    assert a.at().digest() == b.at().digest()


def test_an_inapplicable_operation_aborts_the_whole_update(tmp_path: Path) -> None:
    bank = Bank(tmp_path / "b.sqlite")
    ids = fill(bank)
    before = bank.head()
    with pytest.raises(BankError, match="already retired"):
        bank.write(
            [
                Draft("add", "werewolf/villager", {"text": "A new one."}),
                Draft("retire", "werewolf/villager", {"id": ids["quiet"], "reason": "again"}),
            ]
        )
    assert bank.head() == before
    with pytest.raises(BankError, match="unknown insight"):
        bank.write([Draft("edit", "werewolf/villager", {"id": "in_nope", "text": "x"})])
    with pytest.raises(BankError, match="reason"):
        bank.write([Draft("retire", "werewolf/seer", {"id": ids["claim"], "reason": ""})])
    with pytest.raises(BankError, match="characters"):
        bank.add("werewolf/seer", "x" * 401)
    with pytest.raises(BankError, match="bank moved"):
        bank.write([Draft("add", "werewolf/seer", {"text": "y"})], expect_version=1)


def test_merge_links_both_ids_and_adds_support(tmp_path: Path) -> None:
    bank = Bank(tmp_path / "b.sqlite")
    a = bank.add("werewolf/wolf", "Never defend your partner openly.")
    b = bank.add("werewolf/wolf", "Do not defend your fellow wolf in public.")
    (op,) = bank.write(
        [
            Draft(
                "merge",
                "werewolf/wolf",
                {
                    "into": a,
                    "ids": [b],
                    "text": "Don't defend a wolf.",
                    "reason": "near-duplicate 0.91",
                },
            )
        ]
    )
    snap = bank.at()
    assert snap.get(b).status == "merged" and snap.get(b).merged_into == a
    new = snap.get(op.payload["new_id"])
    assert new.status == "merged" and new.merged_into == a
    assert snap.get(a).support == 3
    assert {o.op for o in bank.history(a)} == {"add", "merge"}


def test_verify_detects_an_edited_row(tmp_path: Path) -> None:
    bank = Bank(tmp_path / "b.sqlite")
    fill(bank)
    good = bank.verify()
    assert good.ok and good.n_ops == 6 and good.head_hash == bank.head()[1]
    conn = sqlite3.connect(bank.path)
    conn.execute("DROP TRIGGER ops_append_only_update")  # what a tamperer would do first
    conn.execute(
        "UPDATE ops SET payload = replace(payload, 'majority', 'minority') WHERE version = 1"
    )
    conn.commit()
    bad = Bank(tmp_path / "b.sqlite").verify()
    assert not bad.ok and bad.bad_version == 1 and "hash" in bad.reason


def test_verify_detects_a_rehashed_row_and_truncation_against_a_known_head(tmp_path: Path) -> None:
    bank = Bank(tmp_path / "b.sqlite")
    fill(bank)
    head = bank.head()[1]
    conn = sqlite3.connect(bank.path)
    conn.execute("DROP TRIGGER ops_append_only_update")
    # rewrite row 2 with a recomputed hash: row 3's prev_hash no longer matches
    row = conn.execute(
        "SELECT version, op, namespace, payload, prev_hash FROM ops WHERE version = 2"
    ).fetchone()
    payload = json.loads(row[3])
    payload["text"] = "Claim seer at once."
    body = {"version": 2, "op": row[1], "namespace": row[2], "payload": payload}
    conn.execute(
        "UPDATE ops SET payload = ?, hash = ? WHERE version = 2",
        (json.dumps(payload, sort_keys=True, separators=(",", ":")), chain_hash(row[4], body)),
    )
    conn.commit()
    assert Bank(bank.path).verify().bad_version == 3
    conn.execute("DROP TRIGGER ops_append_only_delete")  # opening a bank recreates it
    conn.execute("DELETE FROM ops WHERE version >= 2")
    conn.commit()
    truncated = Bank(bank.path).verify(expect_head=head)
    assert not truncated.ok and "head hash" in truncated.reason


def test_export_import_round_trip_and_fast_forward(tmp_path: Path) -> None:
    src = Bank(tmp_path / "a.sqlite")
    fill(src)
    buf = io.StringIO()
    assert src.export(buf) == 6
    dst = Bank(tmp_path / "b.sqlite")
    assert dst.import_log(io.StringIO(buf.getvalue())) == 6
    assert dst.at().to_json() == src.at().to_json()
    src.change(
        "effect",
        src.at().insights()[0].id,
        effect=Effect(metric="win_rate", delta=0.1, lo=0.02, hi=0.18, n=40).model_dump(),
    )
    buf2 = io.StringIO()
    src.export(buf2)
    assert dst.import_log(io.StringIO(buf2.getvalue())) == 1
    assert dst.verify().head_hash == src.verify().head_hash
    tampered = buf2.getvalue().replace("majority", "minority")
    with pytest.raises(BankError, match="hash chain"):
        Bank(tmp_path / "c.sqlite").import_log(io.StringIO(tampered))
    other = Bank(tmp_path / "d.sqlite")
    other.add("werewolf/seer", "Something else entirely.")
    with pytest.raises(BankError, match="prefix"):
        other.import_log(io.StringIO(buf2.getvalue()))


def test_namespaces_cover_wildcards_and_opponent_classes() -> None:
    seat = Namespace.parse("werewolf/seer/rule")
    assert Namespace.parse("werewolf").covers(seat)
    assert Namespace.parse("werewolf/seer").covers(seat)
    assert Namespace.parse("werewolf/seer/rule").covers(seat)
    assert not Namespace.parse("werewolf/seer/random").covers(seat)
    assert not Namespace.parse("werewolf/wolf").covers(seat)
    assert not Namespace.parse("avalon/seer").covers(seat)
    with pytest.raises(ValueError):
        Namespace.parse("werewolf/se er")
