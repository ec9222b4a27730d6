"""Applying a reflector's proposal to the bank for one seat of a finished match: parse the
answer, warm the embeddings outside the write lock, then let :class:`ProposalPlan` (the rules
of :mod:`arena.memory.proposal_plan`) write each operation's outcome in one transaction."""

from __future__ import annotations

from collections.abc import Iterable

from arena.events import Event
from arena.memory.bank import Bank, Txn
from arena.memory.guard import PrivacyGuard
from arena.memory.inject import seat_namespace
from arena.memory.model import Evidence, Insight, Namespace, normalise_text
from arena.memory.proposal_plan import ProposalPlan
from arena.memory.proposal_plan import UpdateReport as UpdateReport  # re-exported: the callers'
from arena.memory.proposal_plan import UpdateSettings as UpdateSettings  # entry points live here
from arena.memory.reflect import AddOp, Reflector, parse_proposal
from arena.memory.similarity import uses_embeddings, warm
from arena.memory.trajectory import Trajectory, trajectory


def warm_similarity(
    settings: UpdateSettings, raws: Iterable[str], pool: list[Insight]
) -> set[str] | None:
    """Load the embedding model and embed the texts a proposal may be compared with *before*
    the write transaction: a model load or a long encode must never hold the bank's write lock.
    Returns the ids whose texts were embedded (None: no embeddings are used)."""
    if not uses_embeddings(settings.similarity):
        return None
    texts = []
    for raw in raws:
        proposal, _ = parse_proposal(raw)
        for op in proposal.operations if proposal is not None else []:
            if isinstance(op, AddOp):
                texts.append(normalise_text(op.text))
    return warm(pool, texts)


def plan_proposal(
    txn: Txn,
    namespace: Namespace,
    raw: str,
    traj: Trajectory,
    guard: PrivacyGuard | None,
    settings: UpdateSettings,
    created_by: str = "",
    comparable: set[str] | None = None,
) -> UpdateReport:
    """Append the outcome of one raw reflector answer to an open update; ``comparable`` (from
    :func:`warm_similarity`) limits the near-duplicate search to already embedded insights."""
    evidence = Evidence(run_id=traj.run_id, match_id=traj.match_id, seat=traj.seat, turns=traj.span)
    proposal, problem = parse_proposal(raw)
    report = UpdateReport(namespace.key(), traj.match_id, traj.seat, txn.version)
    p = ProposalPlan(txn, namespace, report, evidence, guard, settings, created_by)
    p.comparable = comparable
    if proposal is None:
        p.reject("unparseable", problem, {})
    else:
        p.run(proposal.operations)
    report.version_after = txn.version
    return report


def apply_proposal(
    bank: Bank,
    namespace: Namespace,
    raw: str,
    traj: Trajectory,
    guard: PrivacyGuard | None,
    settings: UpdateSettings | None = None,
    created_by: str = "",
) -> UpdateReport:
    """Apply one raw reflector answer for one seat, as one transaction."""
    settings = settings or UpdateSettings()
    comparable = warm_similarity(settings, [raw], bank.at().insights(namespace))
    report, _ = bank.update(
        lambda txn: plan_proposal(
            txn, namespace, raw, traj, guard, settings, created_by, comparable
        )
    )
    return report


def recent_rejections(bank: Bank, namespace: Namespace, n: int = 10) -> list[str]:
    """The latest rejected proposals of a namespace, as the reflector is shown them."""
    out = []
    for op in bank.latest("reject", namespace.key(), n):
        prop = op.payload.get("proposal") or {}
        what = prop.get("text") or prop.get("id") or "(text withheld)"
        out.append(f"{prop.get('op', '?')} {what!s:.120}: {op.payload.get('reason', '')}")
    return out


async def reflect_seat(
    bank: Bank,
    events: list[Event],
    seat: int,
    reflector: Reflector,
    namespace: str = "{game}/{role}",
    settings: UpdateSettings | None = None,
    guard: PrivacyGuard | None = None,
) -> UpdateReport:
    """Reflect on one seat of one finished match and apply the proposal to the bank."""
    settings = settings or UpdateSettings()
    traj = trajectory(events, seat)
    ns = seat_namespace(namespace, traj.game, traj.role, seat)
    insights = bank.at().insights(ns)
    raw = await reflector.propose(traj, insights, settings.budget, recent_rejections(bank, ns))
    guard = guard or PrivacyGuard(events, settings.privacy_threshold)
    return apply_proposal(bank, ns, raw, traj, guard, settings, reflector.name)


async def reflect_match(
    bank: Bank,
    events: list[Event],
    reflector: Reflector,
    seats: Iterable[int] | None = None,
    namespace: str = "{game}/{role}",
    settings: UpdateSettings | None = None,
) -> list[UpdateReport]:
    """Reflect on the given seats (default: all) of one match, in seat order."""
    settings = settings or UpdateSettings()
    guard = PrivacyGuard(events, settings.privacy_threshold)
    if seats is None:
        start = next(e for e in events if e.type == "match_start")
        seats = range(len(start.payload.get("names") or []))
    return [
        await reflect_seat(bank, events, s, reflector, namespace, settings, guard) for s in seats
    ]
