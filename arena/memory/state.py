"""Replaying the log: the pure function from (state, op) to state, and the snapshot it yields.

The current bank is never stored; it is this replay of the log up to a version, so any past
version is materialised by replaying a prefix (``BankSnapshot`` is that result, immutable).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from typing import Any

from arena.memory.model import (
    GENESIS,
    Effect,
    Evidence,
    Insight,
    Namespace,
    Op,
    canonical,
)


class BankError(ValueError):
    """An operation the bank refuses (unknown id, wrong status, malformed payload)."""


class BankSnapshot:
    """The bank as of one version: every insight ever added, with its status at that version."""

    def __init__(
        self, version: int, head_hash: str, insights: dict[str, Insight], rejected: int = 0
    ) -> None:
        self.version = version
        self.head_hash = head_hash
        self._insights = insights
        self.rejected = rejected
        self._sorted: list[Insight] | None = None

    def get(self, insight_id: str) -> Insight:
        try:
            return self._insights[insight_id]
        except KeyError:
            raise BankError(f"no insight {insight_id!r} at version {self.version}") from None

    def __contains__(self, insight_id: object) -> bool:
        return insight_id in self._insights

    def all(self) -> list[Insight]:
        if self._sorted is None:  # a snapshot never changes: sort once
            self._sorted = sorted(self._insights.values(), key=lambda i: (i.created, i.id))
        return list(self._sorted)

    def insights(
        self, namespace: str | Namespace | None = None, status: str | None = "active"
    ) -> list[Insight]:
        """Insights applying to ``namespace`` (a seat's (game, role[, opponent]); wildcard
        entries included), with ``status`` (None: any), in creation order."""
        target = Namespace.parse(namespace) if namespace is not None else None
        covers: dict[str, bool] = {}
        out = []
        for ins in self.all():
            if status is not None and ins.status != status:
                continue
            if target is not None:
                ok = covers.get(ins.namespace)
                if ok is None:
                    ok = covers[ins.namespace] = Namespace.parse(ins.namespace).covers(target)
                if not ok:
                    continue
            out.append(ins)
        return out

    def namespaces(self) -> list[str]:
        return sorted({i.namespace for i in self._insights.values()})

    def to_data(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "head_hash": self.head_hash,
            "insights": [i.model_dump(mode="json") for i in self.all()],
        }

    def to_json(self) -> str:
        return canonical(self.to_data())

    def digest(self) -> str:
        """A hash of the materialised state: equal digests, byte-identical banks."""
        return hashlib.sha256(self.to_json().encode("utf-8")).hexdigest()


def _evidence(payload: dict[str, Any]) -> list[Evidence]:
    return [Evidence.model_validate(e) for e in payload.get("provenance") or []]


def _need(state: dict[str, Insight], payload: dict[str, Any], key: str = "id") -> Insight:
    iid = payload.get(key)
    if not isinstance(iid, str) or iid not in state:
        raise BankError(f"unknown insight id {iid!r}")
    return state[iid]


def apply_op(state: dict[str, Insight], op: Op) -> None:
    """Apply one op to ``state`` in place; raises BankError when the op is not applicable."""
    apply = _APPLY.get(op.op)
    if apply is None:  # pragma: no cover - OpKind is closed
        raise BankError(f"unknown op {op.op!r}")
    apply(state, op)


def _add(state: dict[str, Insight], op: Op) -> None:
    p = op.payload
    if p["id"] in state:
        raise BankError(f"insight id {p['id']!r} exists")
    state[p["id"]] = _new_insight(op, p["id"])


def _new_insight(op: Op, iid: str, **extra: Any) -> Insight:
    """The insight an op's text creates (``extra``: a merged record's status and links)."""
    p, v = op.payload, op.version
    return Insight(
        id=iid,
        namespace=op.namespace,
        text=p["text"],
        text_hash=p["text_hash"],
        created=v,
        updated=v,
        provenance=_evidence(p),
        created_by=p.get("created_by", ""),
        **extra,
    )


def _edit(state: dict[str, Insight], op: Op) -> None:
    p = op.payload
    ins = _need(state, p)
    if ins.status != "active":
        raise BankError(f"insight {ins.id} is {ins.status}: only active insights are edited")
    state[ins.id] = ins.model_copy(
        update={
            "text": p["text"],
            "text_hash": p["text_hash"],
            "version": ins.version + 1,
            "parent": ins.updated,
            "updated": op.version,
            "provenance": [*ins.provenance, *_evidence(p)],
        }
    )


def _retire(state: dict[str, Insight], op: Op) -> None:
    p = op.payload
    ins = _need(state, p)
    if ins.status != "active":
        raise BankError(f"insight {ins.id} is already {ins.status}")
    if not p.get("reason"):
        raise BankError("retiring needs a reason")
    state[ins.id] = ins.model_copy(
        update={"status": "retired", "reason": p["reason"], "updated": op.version}
    )


def _restore(state: dict[str, Insight], op: Op) -> None:
    p = op.payload
    ins = _need(state, p)
    if ins.status == "active":
        raise BankError(f"insight {ins.id} is active: nothing to restore")
    state[ins.id] = ins.model_copy(
        update={
            "status": "active",
            "reason": p.get("reason"),
            "merged_into": None,
            "updated": op.version,
        }
    )


def _merge(state: dict[str, Insight], op: Op) -> None:
    p, v = op.payload, op.version
    into = _need(state, p, "into")
    if into.status != "active":
        raise BankError(f"merge target {into.id} is {into.status}")
    support, evidence = into.support, list(into.provenance)
    for iid in p.get("ids") or []:
        src = _need(state, {"id": iid})
        if src.id == into.id or src.status != "active":
            raise BankError(f"cannot merge {iid} ({src.status}) into {into.id}")
        state[src.id] = src.model_copy(
            update={
                "status": "merged",
                "merged_into": into.id,
                "updated": v,
                "reason": p.get("reason") or "merged",
            }
        )
        support += src.support
        evidence += src.provenance
    if p.get("new_id"):  # a proposed near-duplicate, kept as a merged record
        if p["new_id"] in state:
            raise BankError(f"insight id {p['new_id']!r} exists")
        state[p["new_id"]] = _new_insight(
            op,
            p["new_id"],
            status="merged",
            merged_into=into.id,
            reason=p.get("reason") or "near-duplicate",
        )
        support += 1
        evidence += _evidence(p)
    state[into.id] = into.model_copy(
        update={"support": support, "provenance": evidence, "updated": v}
    )


def _support(state: dict[str, Insight], op: Op) -> None:
    p = op.payload
    ins = _need(state, p)
    state[ins.id] = ins.model_copy(
        update={
            "support": ins.support + 1,
            "updated": op.version,
            "provenance": [*ins.provenance, *_evidence(p)],
        }
    )


def _effect(state: dict[str, Insight], op: Op) -> None:
    p = op.payload
    ins = _need(state, p)
    # A group's effect (the insight ablated together with others) is the insight's effect
    # only until it is measured alone: it never replaces an effect already measured.
    in_group = len(p.get("group") or [ins.id]) > 1
    if not (in_group and ins.effect is not None):
        state[ins.id] = ins.model_copy(
            update={"effect": Effect.model_validate(p["effect"]), "updated": op.version}
        )


def _no_change(state: dict[str, Insight], op: Op) -> None:
    """The tabu log / a learning run's progress marker: chained, changes no insight."""


# Op kind -> how it changes the state (every OpKind has an entry).
_APPLY: dict[str, Callable[[dict[str, Insight], Op], None]] = {
    "add": _add,
    "edit": _edit,
    "retire": _retire,
    "restore": _restore,
    "merge": _merge,
    "support": _support,
    "effect": _effect,
    "reject": _no_change,
    "fold": _no_change,
}


def replay(ops: Iterable[Op]) -> BankSnapshot:
    state: dict[str, Insight] = {}
    version, head, rejected = 0, GENESIS, 0
    for op in ops:
        apply_op(state, op)
        version, head = op.version, op.hash
        rejected += op.op == "reject"
    return BankSnapshot(version, head, state, rejected)


def diff(old: BankSnapshot, new: BankSnapshot) -> list[dict[str, Any]]:
    """What changed from ``old`` to ``new``, per insight: added, or the fields that changed."""
    out: list[dict[str, Any]] = []
    fields = ("text", "status", "support", "version", "reason", "merged_into", "effect")
    for ins in new.all():
        if ins.id not in old:
            out.append(
                {
                    "id": ins.id,
                    "change": "added",
                    "namespace": ins.namespace,
                    "text": ins.text,
                    "status": ins.status,
                }
            )
            continue
        before = old.get(ins.id)
        changed = {
            f: [_plain(getattr(before, f)), _plain(getattr(ins, f))]
            for f in fields
            if getattr(before, f) != getattr(ins, f)
        }
        if changed:
            out.append({"id": ins.id, "change": "changed", "namespace": ins.namespace, **changed})
    return out


def _plain(value: Any) -> Any:
    return value.model_dump(mode="json") if hasattr(value, "model_dump") else value
