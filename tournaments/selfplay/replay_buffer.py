"""Prioritised replay of rare and decisive states.

Every finished game of a generation offers its non-terminal states to a buffer: the states
right before each decision of the candidate's seat after the first (the start state is just
another game). A state is keyed by its unit (env seed, seat, panel entry) and its **action
prefix** — the ``(seat, action)`` pairs applied since the deal. Rules engines are pure and
seeded, so (rules, seed, prefix) names one exact state, and the candidates of a generation
play the same units (common random numbers), so their games share prefixes until their
choices part.

Priority (PER-style, Schaul et al. 2016)::

    priority(s) = rare · n^(-1/2) + split · 4·p·(1 − p)      P(draw s) ∝ priority(s)^alpha

where ``n`` is the number of games that passed through ``s`` and ``p`` the share of them the
candidate's seat won: a prefix seen once is rare; one whose games both won and lost is
decisive (what happened after it decided the game). ``alpha = 0`` draws uniformly, a large
``alpha`` takes the top of the ranking. Draws are without replacement, seeded by the caller.

A replay starts from an engine :meth:`~arena.engine.RulesEngine.restore`\\ d from the
:meth:`~arena.engine.RulesEngine.snapshot` of the state. The match records keep no
snapshots, so the snapshot is taken after re-applying the prefix to a fresh engine built from
the seed (:func:`reach`): the same state the original game was in — the engine's ``rng`` has
made the same draws. Only the separate fallback stream (``fallback_rng``) may differ, when a
recorded fallback is re-applied as a plain action. Replayed games never count toward ratings
nor the gate; they feed reflection and, through their own outcomes, the buffer.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from arena import registry
from arena.engine import RulesEngine
from arena.types import Action
from tournaments.selfplay.units import Unit

# (seat, action summary) — the summary is :meth:`arena.types.Action.summary`, as recorded in
# the runner's ``decision`` events
Step = tuple[int, dict[str, Any]]


def decisions_of(events: Iterable[Any]) -> list[Step]:
    """The applied actions of one match record, in order (``decision`` events)."""
    out: list[Step] = []
    for e in events:
        kind = e.get("type") if isinstance(e, dict) else e.type
        if kind != "decision":
            continue
        actor = e.get("actor") if isinstance(e, dict) else e.actor
        payload = e.get("payload", {}) if isinstance(e, dict) else e.payload
        out.append((int(actor or 0), dict(payload.get("action") or {})))
    return out


def as_action(seat: int, summary: dict[str, Any]) -> Action:
    return Action(
        seat=seat,
        choices=tuple(str(c) for c in summary.get("choices", ())),
        text=summary.get("text"),
        belief=summary.get("belief"),
        fallback=summary.get("fallback"),
    )


def reach(game: str, rules: dict[str, Any], seed: int, prefix: Sequence[Step]) -> RulesEngine[Any]:
    """A fresh engine of ``game`` at ``seed`` with ``prefix`` applied: the state it names."""
    engine = registry.engine_class(game)(rules, seed=seed)
    for seat, summary in prefix:
        engine.apply(seat, as_action(seat, summary))
    return engine


def restored(game: str, rules: dict[str, Any], blob: bytes) -> RulesEngine[Any]:
    """An engine restored from a snapshot (what a replayed match starts from)."""
    engine = registry.engine_class(game)(rules, seed=0)
    engine.restore(blob)
    return engine


def prefix_key(unit_key: str, prefix: Sequence[Step]) -> str:
    data = json.dumps([unit_key, list(prefix)], sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(data.encode()).hexdigest()[:16]


@dataclass
class ReplayState:
    key: str
    unit: Unit  # the unit the state arose on (env seed, seat, panel entry)
    prefix: tuple[Step, ...]
    seen: int = 0  # games that passed through this state
    wins: int = 0  # of which the unit's seat won

    @property
    def win_share(self) -> float:
        return self.wins / self.seen if self.seen else 0.0

    def priority(self, rare: float, split: float) -> float:
        p = self.win_share
        return rare / math.sqrt(max(1, self.seen)) + split * 4.0 * p * (1.0 - p)


class ReplayBuffer:
    """Non-terminal states of finished games by action prefix, at most ``size`` of them (the
    oldest state is evicted first; a state seen again keeps its place)."""

    def __init__(self, size: int, rare: float = 1.0, split: float = 1.0, alpha: float = 1.0):
        self.size, self.rare, self.split, self.alpha = size, rare, split, alpha
        self.states: OrderedDict[str, ReplayState] = OrderedDict()

    def __len__(self) -> int:
        return len(self.states)

    def add_game(self, unit: Unit, steps: Sequence[Step], won: bool) -> None:
        """Offer one finished game: the states before each of ``unit.seat``'s decisions after
        its first, with the game's outcome for that seat."""
        for i, (seat, _) in enumerate(steps):
            if seat != unit.seat or i == 0:
                continue
            prefix = tuple(steps[:i])
            key = prefix_key(unit.key, prefix)
            state = self.states.get(key)
            if state is None:
                state = self.states[key] = ReplayState(key, unit, prefix)
                while len(self.states) > self.size:
                    self.states.popitem(last=False)
            state.seen += 1
            state.wins += int(won)

    def priority(self, state: ReplayState) -> float:
        return state.priority(self.rare, self.split)

    def ranked(self) -> list[ReplayState]:
        """Highest priority first, ties by key (never by arrival)."""
        return sorted(self.states.values(), key=lambda s: (-self.priority(s), s.key))

    def sample(self, n: int, rng: random.Random) -> list[ReplayState]:
        """``n`` distinct states drawn with P ∝ priority^alpha, without replacement
        (Efraimidis–Spirakis keys u^(1/w)); a state of zero weight only when nothing else is
        left."""
        draws = []
        for s in self.ranked():
            w = self.priority(s) ** self.alpha if self.alpha > 0 else 1.0
            u = max(rng.random(), 1e-300)  # log(0) is undefined
            draws.append((math.log(u) / w if w > 0 else -math.inf, s.key, s))
        draws.sort(key=lambda d: (-d[0], d[1]))
        return [s for _, _, s in draws[:n]]
