"""Budgets: live counters and hard limits per phase, a stop file, a dry-run estimate.

Counters: games, env steps (decisions), LLM calls, input/output tokens, USD and wall seconds,
each per phase (play, reflect, memory_update, replay, gate) and in total. A phase's wall
seconds are the time spent inside it (:meth:`Ledger.timed`); the total's are the run's own
clock (phases overlap nothing, but the loop's bookkeeping between them counts only there). A limit is checked
before each game (or reflection) starts, so no cap is overshot by more than the work in flight.
Counts come from the stored results and each match's ``llm_call`` events, so a resumed run
starts with the counters of the work already on disk.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tournaments.selfplay.config import LIMITS, PHASES, Budget, Limits


@dataclass
class Usage:
    games: int = 0
    env_steps: int = 0
    llm_calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    usd: float = 0.0
    wall_s: float = 0.0

    def add(self, other: Usage) -> None:
        for k in LIMITS:
            setattr(self, k, getattr(self, k) + getattr(other, k))

    def as_dict(self) -> dict[str, Any]:
        return {k: round(getattr(self, k), 6) for k in LIMITS}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Usage:
        return cls(**{k: type(getattr(cls(), k))(d.get(k, 0)) for k in LIMITS})


def exceeded(usage: Usage, limits: Limits) -> str | None:
    for k in LIMITS:
        cap = getattr(limits, k)
        if cap is not None and getattr(usage, k) >= cap:
            return k
    return None


@dataclass
class Ledger:
    """Spent resources per phase against the config's limits; ``stop_file`` halts admission."""

    budget: Budget
    stop_file: Path | None = None
    phases: dict[str, Usage] = field(default_factory=lambda: {p: Usage() for p in PHASES})
    earlier_wall_s: float = 0.0  # wall time of earlier sessions (a resumed run)
    started: float = field(default_factory=time.monotonic)
    ended: float | None = None  # set by finish(): the run's clock stops there
    stopped: str | None = None

    def total(self) -> Usage:
        out = Usage()
        for u in self.phases.values():
            out.add(u)
        out.wall_s = self.wall_s()
        return out

    def wall_s(self) -> float:
        end = self.ended if self.ended is not None else time.monotonic()
        return self.earlier_wall_s + end - self.started

    def finish(self) -> None:
        """The run is over: its wall time stops growing (a screen still showing the ledger
        read a finished run's time going up, past the report's)."""
        if self.ended is None:
            self.ended = time.monotonic()

    def admit(self, phase: str) -> bool:
        """Whether one more unit of work of ``phase`` may start."""
        if self.stopped is not None:
            return False
        if self.stop_file is not None and self.stop_file.exists():
            self.stopped = f"stop file {self.stop_file}"
            return False
        hit = exceeded(self.total(), self.budget)
        if hit is None and phase in self.budget.per_phase:
            usage = self.phases[phase]
            hit = exceeded(usage, self.budget.per_phase[phase])
            hit = f"{phase}.{hit}" if hit else None
        if hit is not None:
            self.stopped = f"budget: {hit}"
            return False
        return True

    def wall_left(self, phase: str) -> tuple[float, str] | None:
        """Seconds left before a wall-clock cap (the run's, or ``phase``'s as counted so far)
        is reached, and the cap's name; None when neither is capped. Admission alone cannot
        keep a wall cap: the games already in flight may run far past it, so the phase also
        ends them at this deadline (:func:`tournaments.selfplay.phase.play_phase`)."""
        left: list[tuple[float, str]] = []
        if self.budget.wall_s is not None:
            left.append((self.budget.wall_s - self.wall_s(), "wall_s"))
        per = self.budget.per_phase.get(phase)
        if per is not None and per.wall_s is not None:
            left.append((per.wall_s - self.phases[phase].wall_s, f"{phase}.wall_s"))
        return min(left) if left else None

    def stop(self, reason: str) -> None:
        """Stop admitting work (the first reason given is kept)."""
        if self.stopped is None:
            self.stopped = reason

    def record(self, phase: str, usage: Usage) -> None:
        self.phases[phase].add(usage)

    @contextlib.contextmanager
    def timed(self, phase: str) -> Iterator[None]:
        """Count the wall time of the block into ``phase`` (also when it raises)."""
        started = time.monotonic()
        try:
            yield
        finally:
            self.phases[phase].wall_s += time.monotonic() - started

    def resume_from(self, doc: dict[str, Any]) -> None:
        """Carry the wall time of earlier sessions (a ``budget.json``) into this one.

        Games, steps and LLM usage are recounted from the stored results and ``usage.jsonl``
        as the phases are replayed from disk; wall time is not stored anywhere else."""
        self.earlier_wall_s = float(doc.get("total", {}).get("wall_s", 0.0))
        for phase, usage in doc.get("phases", {}).items():
            if phase in self.phases:
                self.phases[phase].wall_s += float(usage.get("wall_s", 0.0))

    def as_dict(self) -> dict[str, Any]:
        return {
            "total": self.total().as_dict(),
            "phases": {p: u.as_dict() for p, u in self.phases.items()},
            "stopped": self.stopped,
        }


def usage_of_events(events: Iterable[Any]) -> Usage:
    """LLM usage of one match from its ``llm_call`` events (dicts or Event objects)."""
    u = Usage()
    for e in events:
        kind = e.get("type") if isinstance(e, dict) else e.type
        if kind != "llm_call":
            continue
        p = e.get("payload", {}) if isinstance(e, dict) else e.payload
        u.llm_calls += 1
        u.tokens_in += int(p.get("tokens_in") or 0)
        u.tokens_out += int(p.get("tokens_out") or 0)
        u.usd += float(p.get("cost_usd") or 0.0)
    return u


def estimate(
    population: int,
    elites: int,
    generations: int,
    train_units: int,
    select_units: int,
    gate_units: int,
    replay_games: int,
    steps_per_game: float,
    llm_share: float,
    llm_reflector: bool = True,
) -> dict[str, Any]:
    """The dry-run estimate: games and LLM calls per phase for the whole run, at most.

    Every generation plays its whole population on fresh train and select units; the gate
    plays the challenger (and, once, the incumbent) on every gate unit. ``llm_share`` is the
    fraction of decisions made by the candidate's seat. A reflection reads the parent's train
    games, one reflector call each; only a reflector that calls a model (``llm_reflector``;
    not a scripted rule) makes those LLM calls."""
    play = generations * population * (train_units + select_units)
    gate = gate_units * (generations + 1)
    replay = replay_games * generations
    games = {"play": play, "gate": gate, "replay": replay}
    calls = {k: round(v * steps_per_game * llm_share) for k, v in games.items()}
    reflections = (population - elites) * generations
    reflect_calls = reflections * train_units if llm_reflector else 0
    return {
        "games": games,
        "env_steps": {k: round(v * steps_per_game) for k, v in games.items()},
        "llm_calls": calls,
        "reflections": reflections,
        "reflect_calls": reflect_calls,
        "total_games": sum(games.values()),
        "total_llm_calls": sum(calls.values()) + reflect_calls,
    }
