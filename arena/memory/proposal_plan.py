"""Applying a reflector's proposal to the bank: validation, dedupe, merge, privacy, budget, cap.

Every proposed operation ends as exactly one outcome in the log, inside one transaction:

* applied as proposed (add, edit, retire, restore, merge, support);
* an exact duplicate (same text hash) of an active insight → ``support`` of it;
* a near-duplicate (embedding cosine, or word overlap without the metrics extra) → ``merge``
  linking the proposal's new id to the insight it duplicates;
* rejected, with a reason and a category (``invalid``, ``duplicate``, ``privacy``, ``budget``,
  ``cap``, ``unparseable``) as a ``reject`` row — the tabu list the next reflection is shown.
  A privacy rejection stores no text, only which secret it carried.

The operation budget counts proposals, rejections included, so a reflector cannot churn the
bank; the cap on active insights per namespace is enforced here, not by the reflector: when
full, a new insight displaces only an insight whose *measured* effect has an upper bound at or
below zero (lowest lower bound first); otherwise it is rejected. A reflector may not retire an
insight whose measured lower bound is above zero — only an ablation can.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from arena.memory.bank import Draft, Txn, check_text
from arena.memory.guard import PrivacyGuard
from arena.memory.model import Evidence, Insight, Namespace, text_hash
from arena.memory.reflect import AddOp, EditOp, MergeOp, RestoreOp, RetireOp, SupportOp
from arena.memory.similarity import nearest
from arena.memory.state import BankError


class UpdateSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    budget: int = Field(3, ge=1, le=50)  # proposed operations considered per reflected seat
    cap: int = Field(20, ge=1, le=10_000)  # active insights per namespace
    near_duplicate: float = Field(0.88, gt=0, le=1)  # embedding cosine
    overlap: float = Field(0.6, gt=0, le=1)  # word Jaccard (lexical fallback, MEMO's 60 %)
    similarity: Literal["auto", "embedding", "lexical"] = "auto"
    privacy_threshold: float = Field(1.0, gt=0, le=1)


@dataclass
class UpdateReport:
    namespace: str
    match_id: str
    seat: int
    version_before: int
    version_after: int = 0
    applied: list[dict[str, Any]] = field(default_factory=list)
    rejected: list[dict[str, Any]] = field(default_factory=list)

    def count(self, category: str) -> int:
        return sum(1 for r in self.rejected if r["category"] == category)

    def summary(self) -> dict[str, Any]:
        cats: dict[str, int] = {}
        for r in self.rejected:
            cats[r["category"]] = cats.get(r["category"], 0) + 1
        return {
            "namespace": self.namespace,
            "match_id": self.match_id,
            "seat": self.seat,
            "versions": [self.version_before, self.version_after],
            "applied": [a["op"] for a in self.applied],
            "rejected": cats,
        }


class ProposalPlan:
    """The outcome of each operation of one proposal, written into an open transaction."""

    def __init__(
        self,
        txn: Txn,
        ns: Namespace,
        report: UpdateReport,
        evidence: Evidence,
        guard: PrivacyGuard | None,
        settings: UpdateSettings,
        created_by: str,
    ) -> None:
        self.txn, self.ns, self.report, self.evidence = txn, ns, report, evidence
        self.guard, self.settings, self.created_by = guard, settings, created_by
        # near-duplicates are looked for among insights embedded before the transaction and
        # those this update creates (None: everything; the lexical measure costs nothing)
        self.comparable: set[str] | None = None

    @property
    def prov(self) -> list[dict[str, Any]]:
        return [self.evidence.model_dump(mode="json")]

    def active(self) -> list[Insight]:
        return self.txn.snapshot().insights(self.ns)

    def own(self) -> list[Insight]:
        """Active insights filed under exactly this namespace (what the cap counts)."""
        key = self.ns.key()
        return [i for i in self.active() if i.namespace == key]

    def reject(self, category: str, reason: str, proposal: dict[str, Any]) -> None:
        payload = {
            "category": category,
            "reason": reason,
            "proposal": proposal,
            "provenance": self.prov,
        }
        self.txn.append(Draft("reject", self.ns.key(), payload))
        self.report.rejected.append({"category": category, "reason": reason, **proposal})

    def write(self, op: str, payload: dict[str, Any], proposal: dict[str, Any]) -> bool:
        try:
            written = self.txn.append(Draft(op, self.ns.key(), payload))  # type: ignore[arg-type]
        except BankError as err:
            self.reject("invalid", str(err), proposal)
            return False
        self.report.applied.append({"op": op, "version": written.version, **written.payload})
        if self.comparable is not None and op == "add":
            self.comparable.add(str(written.payload["id"]))
        return True

    def target(self, iid: str, proposal: dict[str, Any]) -> Insight | None:
        snap = self.txn.snapshot()
        if iid not in snap:
            self.reject("invalid", f"unknown insight id {iid!r}", proposal)
            return None
        ins = snap.get(iid)
        if not Namespace.parse(ins.namespace).covers(self.ns):
            self.reject("invalid", f"insight {iid} is in {ins.namespace}, not {self.ns}", proposal)
            return None
        return ins

    def screen_text(self, text: str, proposal: dict[str, Any]) -> str | None:
        """The stored form of a proposed text, or None when it is rejected."""
        try:
            clean = check_text(text)
        except BankError as err:
            self.reject("invalid", str(err), proposal)
            return None
        if self.guard is not None:
            found = self.guard.check(clean)
            if found:
                withheld = {k: v for k, v in proposal.items() if k != "text"}
                withheld["text_hash"] = text_hash(clean)
                reason = "carries a secret of the match: " + ", ".join(
                    sorted({f.secret for f in found})
                )
                self.reject("privacy", reason, withheld)
                return None
        return clean

    def add(self, op: AddOp, proposal: dict[str, Any]) -> None:
        text = self.screen_text(op.text, proposal)
        if text is None or self.duplicate(text, proposal) or not self.make_room(proposal):
            return
        turns = op.turns or (self.evidence.turns)
        ev = self.evidence.model_copy(update={"turns": turns})
        self.write(
            "add",
            {
                "text": text,
                "provenance": [ev.model_dump(mode="json")],
                "created_by": self.created_by,
                "why": op.why,
            },
            proposal,
        )

    def duplicate(self, text: str, proposal: dict[str, Any]) -> bool:
        """Whether ``text`` is settled as a duplicate: support of an active insight with the
        same text (a rejection when that insight is not active), or a merge into its nearest
        active insight."""
        h = text_hash(text)
        same = [i for i in self.txn.snapshot().insights(self.ns, status=None) if i.text_hash == h]
        if same:
            ins = same[0]
            if ins.status == "active":
                self.write(
                    "support",
                    {"id": ins.id, "provenance": self.prov, "why": "exact duplicate"},
                    proposal,
                )
            else:
                self.reject("duplicate", f"same text as {ins.status} insight {ins.id}", proposal)
            return True
        pool = self.active()
        if self.comparable is not None:
            pool = [i for i in pool if i.id in self.comparable]
        st = self.settings
        near = nearest(text, pool, st.similarity, st.near_duplicate, st.overlap)
        if near is None:
            return False
        ins, score, label = near
        self.write(
            "merge",
            {
                "into": ins.id,
                "ids": [],
                "text": text,
                "provenance": self.prov,
                "created_by": self.created_by,
                "reason": f"near-duplicate ({label} {score:.2f})",
            },
            proposal,
        )
        return True

    def make_room(self, proposal: dict[str, Any]) -> bool:
        """Under the cap, or room made by retiring the insight measured least helpful (upper
        bound <= 0); False (rejected) when the namespace is full of insights not so measured."""
        own = self.own()
        if len(own) < self.settings.cap:
            return True
        weak = [i for i in own if i.effect is not None and i.effect.hi <= 0]
        if not weak:
            self.reject(
                "cap",
                f"namespace full ({self.settings.cap} active insights) and "
                "none measured unhelpful to displace",
                proposal,
            )
            return False
        out = min(weak, key=lambda i: (i.effect.lo if i.effect else 0.0, i.created))
        self.write(
            "retire",
            {"id": out.id, "reason": "cap: displaced, measured effect upper bound <= 0"},
            proposal,
        )
        return True

    def scrub(self, op: Any) -> Any:
        """Free-text reasons go into the log too: one that carries a secret is withheld."""
        if self.guard is None:
            return op
        update = {}
        for name in ("why", "reason"):
            value = getattr(op, name, "")
            if value and self.guard.check(value):
                update[name] = "(withheld: carried a secret of the match)"
        return op.model_copy(update=update) if update else op

    def run(self, ops: Iterable[Any]) -> None:
        for n, op in enumerate(ops):
            op = self.scrub(op)
            proposal = op.model_dump(mode="json")
            if n >= self.settings.budget:
                self.reject(
                    "budget", f"over the budget of {self.settings.budget} operations", proposal
                )
                continue
            if isinstance(op, AddOp):
                self.add(op, proposal)
                continue
            if isinstance(op, MergeOp):
                targets = [self.target(i, proposal) for i in [op.into, *op.ids]]
                if all(t is not None for t in targets):
                    self.write(
                        "merge",
                        {
                            "into": op.into,
                            "ids": op.ids,
                            "provenance": self.prov,
                            "reason": op.why or "merged by reflector",
                        },
                        proposal,
                    )
                continue
            ins = self.target(op.id, proposal)
            if ins is None:
                continue
            if isinstance(op, EditOp):
                text = self.screen_text(op.text, proposal)
                if text is not None:
                    self.write(
                        "edit",
                        {"id": op.id, "text": text, "provenance": self.prov, "why": op.why},
                        proposal,
                    )
            elif isinstance(op, RetireOp):
                if ins.effect is not None and ins.effect.lo > 0:
                    self.reject(
                        "invalid",
                        f"insight {ins.id} is measured helpful (lower bound "
                        f"{ins.effect.lo:+.3f}); only an ablation retires it",
                        proposal,
                    )
                else:
                    self.write("retire", {"id": op.id, "reason": op.reason}, proposal)
            elif isinstance(op, RestoreOp):
                self.write("restore", {"id": op.id, "reason": op.reason}, proposal)
            elif isinstance(op, SupportOp):
                self.write(
                    "support", {"id": op.id, "provenance": self.prov, "why": op.why}, proposal
                )
