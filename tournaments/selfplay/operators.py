"""Operators that propose a child context from parents. Each is a pure function of its inputs
and a ``random.Random`` the caller seeds from (master seed, repeat, generation, slot), so a
resumed run proposes the same children.

* ``copy`` — keep a non-elite parent one more generation (a second look at an uncertain one);
* ``restyle`` — swap the style for another from the config's pool;
* ``rewrite`` (memory-guided) — change which bank insights the context reads, guided by the
  bank's evidence: drop the included insight with the weakest evidence (measured effect lower
  bound, then support) or add the excluded one with the strongest;
* ``crossover`` — the prompt of one parent with the insights of another (at the newer version);
* ``reflect`` — reflect on the parent's own *train* games (:func:`reflect_child`): the bank's
  reflector reads each trajectory as quoted, untrusted text and proposes operations; the child
  reads the parent's insights plus those drawn from these games.

A tabu log of rejected contexts is kept by the optimiser: an operator's proposal equal to a
tabu context (or to a current candidate) is redrawn, and the reflector is shown the tabu notes.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from typing import Any

from arena.memory.bank import Bank
from arena.memory.model import Insight
from arena.memory.reflect import SaysIfItCallsAModel
from tournaments.selfplay import candidate as cand
from tournaments.selfplay.candidate import Candidate


def _evidence(i: Insight) -> tuple[float, int, str]:
    lo = i.effect.lo if i.effect is not None else 0.0
    return (lo, i.support, i.id)


def restyle(parent: Candidate, styles: Sequence[str], rng: random.Random, gen: int) -> Candidate:
    pool = [s for s in styles if s != parent.style]
    style = rng.choice(pool) if pool else parent.style
    return _child(parent, gen, "restyle", style=style, note=f"style -> {style!r}")


def rewrite(
    parent: Candidate, insights: Sequence[Insight], rng: random.Random, gen: int
) -> Candidate:
    """Toggle one insight by the evidence: insights are the active ones at parent.version."""
    included = [i for i in insights if i.id in parent.insights]
    excluded = [i for i in insights if i.id not in parent.insights]
    moves = []
    if included:
        moves.append("drop")
    if excluded:
        moves.append("add")
    if not moves:
        return parent
    move = rng.choice(moves)
    if move == "drop":
        # weakest evidence first; among equals, a seeded pick keeps exploration going
        weakest = min(_evidence(i)[:2] for i in included)
        pick = rng.choice([i for i in included if _evidence(i)[:2] == weakest])
        ids = tuple(x for x in parent.insights if x != pick.id)
        return _child(parent, gen, "rewrite", insights=ids, note=f"drop {pick.id}: {pick.text}")
    strongest = max(_evidence(i)[:2] for i in excluded)
    pick = rng.choice([i for i in excluded if _evidence(i)[:2] == strongest])
    return _child(
        parent, gen, "rewrite", insights=(*parent.insights, pick.id), note=f"add {pick.id}"
    )


def crossover(a: Candidate, b: Candidate, active: dict[int, list[str]], gen: int) -> Candidate:
    """a's prompt with b's insights, at the newer of the two versions."""
    versions = [v for v in (a.version, b.version) if v is not None]
    version = max(versions) if versions else None
    return cand.make(
        style=a.style,
        extra_instructions=a.extra_instructions,
        bank=a.bank or b.bank,
        namespace=a.namespace,
        version=version,
        insights=b.insights,
        active=active.get(version, []) if version is not None else [],
        parents=(a.id, b.id),
        operator="crossover",
        generation=gen,
        note=f"prompt of {a.id}, insights of {b.id}",
        examples=a.examples,
    )


def _child(parent: Candidate, gen: int, operator: str, **change: Any) -> Candidate:
    active = [*parent.insights, *parent.exclude]
    return cand.make(
        style=change.get("style", parent.style),
        extra_instructions=change.get("extra_instructions", parent.extra_instructions),
        bank=parent.bank,
        namespace=parent.namespace,
        version=change.get("version", parent.version),
        insights=change.get("insights", parent.insights),
        active=change.get("active", active),
        parents=(parent.id,),
        operator=operator,
        generation=gen,
        note=change.get("note", ""),
        examples=parent.examples,
    )


def choose_operator(weights: dict[str, float], rng: random.Random) -> str:
    names = sorted(k for k, w in weights.items() if w > 0)
    return rng.choices(names, weights=[weights[n] for n in names])[0]


class TabuReflector:
    """Wraps a bank reflector: the tabu notes of the optimiser are shown with the bank's own
    recent rejections, and calls, answer characters and the wall time spent waiting for the
    reflector are counted for the budget (the rest of a reflection is the memory update).
    Only a reflector that calls a model (``llm``) spends LLM calls and tokens: a scripted rule
    spends wall time only."""

    def __init__(self, inner: Any, tabu: Sequence[str]) -> None:
        self.inner = inner
        self.name = inner.name
        # a reflector that does not say is assumed to call a model
        self.llm = bool(inner.llm) if isinstance(inner, SaysIfItCallsAModel) else True
        self.tabu = list(tabu)
        self.calls = 0  # seats reflected on
        self.chars_out = 0
        self.wall_s = 0.0

    @property
    def llm_calls(self) -> int:
        return self.calls if self.llm else 0

    @property
    def tokens_out(self) -> int:
        """Approximate (answer characters / 4): a reflector returns text only."""
        return self.chars_out // 4 if self.llm else 0

    async def propose(
        self, traj: Any, insights: list[Insight], budget: int, rejected: list[str]
    ) -> str:
        self.calls += 1
        started = time.monotonic()
        try:
            raw = str(await self.inner.propose(traj, insights, budget, [*rejected, *self.tabu]))
        finally:
            self.wall_s += time.monotonic() - started
        self.chars_out += len(raw)
        return raw


def drawn_from(snapshot_insights: Sequence[Insight], match_ids: set[str]) -> list[str]:
    """Active insights whose evidence includes one of ``match_ids`` (what a reflection on those
    games added or supported)."""
    return [i.id for i in snapshot_insights if any(e.match_id in match_ids for e in i.provenance)]


async def reflect_child(
    bank: Bank,
    parent: Candidate,
    finished: Sequence[Any],
    reflector: Any,
    fold_id: str,
    settings: Any,
    gen: int,
) -> Candidate:
    """Fold the reflections on ``finished`` (FinishedMatch items: the parent's train games)
    into the bank under the marker ``fold_id`` — a no-op when already folded (a resumed run) —
    and return the child reading the parent's insights plus those drawn from these games."""
    from arena.memory.learn import fold, folds

    await fold(bank, fold_id, 0, list(finished), reflector, parent.namespace, settings)
    version = folds(bank, fold_id)[0].version
    snap = bank.at(version)
    active = snap.insights()
    ids = {m.match_id for m in finished}
    new = drawn_from(active, ids)
    keep = [i for i in parent.insights if i in snap]
    return cand.make(
        style=parent.style,
        extra_instructions=parent.extra_instructions,
        bank=parent.bank,
        namespace=parent.namespace,
        version=version,
        insights=(*keep, *new),
        active=[i.id for i in active],
        parents=(parent.id,),
        operator="reflect",
        generation=gen,
        note=f"{len(new)} insight(s) from {len(ids)} game(s)",
        examples=parent.examples,
    )
