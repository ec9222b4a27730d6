"""Candidates are contexts: a system-prompt variant and a memory-bank version (with the subset
of its active insights the candidate reads), plus their lineage (parent, operator, generation).

A candidate's id is a hash of its context alone, so the same context proposed twice is the
same candidate (its rating carries on) and an elite copied into the next generation
keeps its id and its σ — the rating that MEMO resets by re-issuing ids.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from pydantic import BaseModel, ConfigDict

from arena.llm.examples import Example
from tournaments.selfplay.config import EntrySpec

# the seat name of a candidate's train games when the run explores (units.train_temperature)
EXPLORING = "@train"


def exploring(entry: dict[str, Any], temperature: float) -> dict[str, Any]:
    """``entry`` (an LLM agent entry) sampling its moves at ``temperature``: its backend's
    temperature, which also draws ranked moves from their likelihoods (arena.llm.rank_pick)."""
    params = dict(entry["params"])
    params["backend"] = {**dict(params.get("backend") or {}), "temperature": temperature}
    return {**entry, "params": params}


class Candidate(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    style: str | None = None
    extra_instructions: str | None = None
    bank: str | None = None
    namespace: str = "{game}/{role}"
    version: int | None = None
    insights: tuple[str, ...] = ()  # the active insights at ``version`` it reads
    exclude: tuple[str, ...] = ()  # the active insights at ``version`` it does not read
    # its own earlier moves, shown one by one beside the decisions they resemble (demonstrate)
    examples: tuple[Example, ...] = ()
    # lineage
    parents: tuple[str, ...] = ()
    operator: str = "seed"
    generation: int = 0
    note: str = ""  # what the operator changed, for the report and the TUI

    @property
    def parent(self) -> str | None:
        return self.parents[0] if self.parents else None

    def context(self) -> dict[str, Any]:
        return context_of(
            self.style,
            self.extra_instructions,
            self.bank,
            self.version,
            self.insights,
            self.examples,
        )

    def agent_entry(self, base: EntrySpec, name: str | None = None) -> dict[str, Any]:
        """The agent entry that plays this context (usable in any ``arena run`` config)."""
        params = dict(base.params)
        if self.style is not None:
            params["style"] = self.style
        if self.extra_instructions is not None:
            params["extra_instructions"] = self.extra_instructions
        if self.bank is not None and self.version is not None:
            params["memory"] = {
                "bank": self.bank,
                "namespace": self.namespace,
                "version": self.version,
                "select": "all",
                "k": None,
                "exclude": list(self.exclude),
            }
        if self.examples:
            params["examples"] = [e.model_dump() for e in self.examples]
        return {"name": name or self.id, "kind": base.kind, "params": params}

    def lineage(self) -> dict[str, Any]:
        return {
            "parents": list(self.parents),
            "operator": self.operator,
            "generation": self.generation,
            "note": self.note,
        }


def context_of(
    style: str | None,
    extra: str | None,
    bank: str | None,
    version: int | None,
    insights: tuple[str, ...],
    examples: tuple[Example, ...] = (),
) -> dict[str, Any]:
    ctx: dict[str, Any] = {
        "style": style,
        "extra_instructions": extra,
        "bank": bank,
        "version": version,
        "insights": sorted(insights),
    }
    if examples:  # absent when none, so a context without examples keeps its id
        ctx["examples"] = [[e.situation, e.answer] for e in examples]
    return ctx


def candidate_id(context: dict[str, Any]) -> str:
    """A hash of the context without the bank's path (the repeat's own bank; the version and
    the insight ids name its content), so the same run in another directory has the same ids."""
    data = json.dumps(
        {k: v for k, v in context.items() if k != "bank"}, sort_keys=True, separators=(",", ":")
    )
    return "c-" + hashlib.sha256(data.encode()).hexdigest()[:10]


def make(
    *,
    style: str | None,
    extra_instructions: str | None,
    bank: str | None,
    namespace: str,
    version: int | None,
    insights: tuple[str, ...],
    active: list[str],
    parents: tuple[str, ...] = (),
    operator: str = "seed",
    generation: int = 0,
    note: str = "",
    examples: tuple[Example, ...] = (),
) -> Candidate:
    """A candidate; ``active`` are the active insight ids at ``version`` (the rest of which it
    excludes)."""
    chosen = tuple(sorted(i for i in set(insights) if i in set(active)))
    ctx = context_of(style, extra_instructions, bank, version, chosen, examples)
    return Candidate(
        id=candidate_id(ctx),
        style=style,
        extra_instructions=extra_instructions,
        bank=bank,
        namespace=namespace,
        version=version,
        insights=chosen,
        exclude=tuple(sorted(set(active) - set(chosen))),
        examples=examples,
        parents=parents,
        operator=operator,
        generation=generation,
        note=note,
    )


def export_entry(candidate: Candidate, base: EntrySpec, name: str | None = None) -> dict[str, Any]:
    """``arena selfplay export``: the candidate as an agent entry, lineage kept as a comment
    field the tournament config ignores (``params`` only carries what plays)."""
    return candidate.agent_entry(base, name)


__all__ = ["Candidate", "candidate_id", "context_of", "export_entry", "make"]
