"""Learning in blocks: the matches of block ``b`` read the bank version left by the fold of
block ``b - 1``; when they have finished, their reflections are folded into the bank as one
transaction ending with a ``fold`` marker. Everything is in match-identity order and every
proposal of a fold sees the same version, so a run resumed after a crash reproduces the same
bank, version for version (the markers say which blocks are folded; a fold is all or nothing).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from arena.events import Event
from arena.memory.bank import Bank, Draft, Txn
from arena.memory.guard import PrivacyGuard
from arena.memory.inject import seat_namespace
from arena.memory.model import Op
from arena.memory.reflect import Reflector
from arena.memory.trajectory import trajectory
from arena.memory.update import (
    UpdateReport,
    UpdateSettings,
    plan_proposal,
    recent_rejections,
    warm_similarity,
)

BASE = -1  # the marker written when a learning run first starts: the version block 0 reads


@dataclass(frozen=True)
class FinishedMatch:
    match_id: str
    events: list[Event]
    seats: list[int]  # the seats that learn (played by a learning entry)


def folds(bank: Bank, run_id: str) -> dict[int, Op]:
    """The fold markers of one learning run, by block (``BASE``: the start marker)."""
    return {
        int(op.payload["block"]): op
        for op in bank.of_kind("fold")
        if op.payload.get("run_id") == run_id
    }


def start(bank: Bank, run_id: str, namespace: str) -> int:
    """The version block 0 reads: recorded once, so a resumed run reads the same one."""
    marker = folds(bank, run_id).get(BASE)
    if marker is None:
        (marker,) = bank.write(
            [Draft("fold", namespace, {"run_id": run_id, "block": BASE, "matches": []})]
        )
    return marker.version


def version_for(bank: Bank, run_id: str, block: int) -> int | None:
    """The version block ``block`` reads, or None when the previous block is not folded."""
    marker = folds(bank, run_id).get(block - 1)
    return marker.version if marker is not None else None


async def fold(
    bank: Bank,
    run_id: str,
    block: int,
    matches: Sequence[FinishedMatch],
    reflector: Reflector,
    namespace: str = "{game}/{role}",
    settings: UpdateSettings | None = None,
) -> list[UpdateReport]:
    """Reflect on every learning seat of ``matches`` (in the given order) and apply all the
    proposals, then the block's marker, in one transaction. A block already folded is a no-op."""
    settings = settings or UpdateSettings()
    if block in folds(bank, run_id):
        return []
    snap = bank.at()
    pending = []
    for m in matches:
        guard = PrivacyGuard(m.events, settings.privacy_threshold)
        for seat in m.seats:
            traj = trajectory(m.events, seat)
            ns = seat_namespace(namespace, traj.game, traj.role, seat)
            raw = await reflector.propose(
                traj, snap.insights(ns), settings.budget, recent_rejections(bank, ns)
            )
            pending.append((ns, raw, traj, guard))
    marker_ns = pending[0][0].key() if pending else "_learning"
    pool = [i for ns in {p[0] for p in pending} for i in snap.insights(ns)]
    comparable = warm_similarity(settings, [p[1] for p in pending], pool)

    def plan(txn: Txn) -> list[UpdateReport]:
        reports = [
            plan_proposal(
                txn,
                ns,
                raw,
                traj,
                guard,
                settings,
                reflector.name,
                comparable,  # shared: later seats compare with earlier seats' adds
            )
            for ns, raw, traj, guard in pending
        ]
        payload = {"run_id": run_id, "block": block, "matches": [m.match_id for m in matches]}
        txn.append(Draft("fold", marker_ns, payload))
        return reports

    reports, _ = bank.update(plan)
    return reports
