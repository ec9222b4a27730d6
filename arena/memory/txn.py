"""An update of a bank before it is committed: drafts get their version, hash and derived
fields here, and are applied one by one to the state they land on (:class:`Txn`)."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from arena.memory.model import (
    MAX_TEXT,
    Insight,
    Namespace,
    Op,
    OpKind,
    canonical,
    chain_hash,
    insight_id,
    normalise_text,
    text_hash,
)
from arena.memory.state import BankError, BankSnapshot, apply_op


@dataclass(frozen=True)
class Draft:
    """An operation before the bank gives it a version and a hash."""

    op: OpKind
    namespace: str
    payload: dict[str, Any]


def check_text(text: str) -> str:
    """The stored form of an insight's text; raises BankError when it is empty or too long."""
    clean = normalise_text(text)
    if not clean:
        raise BankError("insight text is empty")
    if len(clean) > MAX_TEXT:
        raise BankError(f"insight text is {len(clean)} characters (at most {MAX_TEXT})")
    return clean


def complete(d: Draft, prev: str) -> dict[str, Any]:
    """Fill in what the log derives: normalised text, its hash, and new ids."""
    Namespace.parse(d.namespace)
    p = dict(d.payload)
    if "text" in p and p["text"] is not None:
        p["text"] = check_text(p["text"])
        p["text_hash"] = text_hash(p["text"])
    if d.op == "add" and "id" not in p:
        p["id"] = insight_id(prev, d.namespace, p["text"])
    if d.op == "merge" and p.get("text") and "new_id" not in p:
        p["new_id"] = insight_id(prev, d.namespace, p["text"])
    return dict(json.loads(canonical(p)))  # what the row will hold, exactly


class Txn:
    """An update in progress: the state it started from plus what it appended so far."""

    def __init__(self, base: BankSnapshot, prev_hash: str) -> None:
        self.base_version = base.version
        self.state: dict[str, Insight] = {i.id: i for i in base.all()}
        self.prev_hash = prev_hash
        self.version = base.version
        self.ops: list[Op] = []
        self.ts = time.time()

    def snapshot(self) -> BankSnapshot:
        # append() replaces self.state instead of mutating it, so sharing it is safe
        return BankSnapshot(self.version, self.prev_hash, self.state)

    def append(self, draft: Draft) -> Op:
        """Give ``draft`` its version and hash and apply it; BankError leaves nothing changed."""
        payload = complete(draft, self.prev_hash)
        version = self.version + 1
        body = {
            "version": version,
            "op": draft.op,
            "namespace": draft.namespace,
            "payload": payload,
        }
        op = Op(**body, prev_hash=self.prev_hash, hash=chain_hash(self.prev_hash, body), ts=self.ts)
        trial = dict(self.state)
        apply_op(trial, op)
        self.state, self.version, self.prev_hash = trial, version, op.hash
        self.ops.append(op)
        return op
