"""The demonstration operator: worked examples a small model can use, bootstrapped from the
candidate's own highest-scoring *train* games (DSPy's BootstrapFewShot, on game decisions) and
retrieved per decision (ExpeL's retrieval of similar trajectories).

A tiny model that answers by ranking the legal moves by likelihood copies what its context makes
likely. Shown a block of several of its good moves at once, SmolLM2-135M ranked the block's
commonest answer first in every situation (it passed on every turn); shown the one move it made
in the most similar situation, it makes that move. So the child carries its parent's best train
decisions as :class:`arena.llm.examples.Example` items — the start of each decision as the seat
was told it (its knowledge beside the choice: turn, values, the standing offer) and the move it
made — and the agent shows, before each decision, the one nearest to it
(:mod:`arena.llm.examples`): the conditioning on the situation is done by retrieval, not asked
of the model.

Examples come from the parent's best train games (highest score first, at least one point above
its worst, so the pool never holds what it did in its bad games). With exploring train games
(``units.train_temperature``) those can hold moves the greedy parent never makes. The pool
replaces the parent's; every example is game text, quoted as untrusted when it is shown.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from arena.events import Event
from arena.llm.examples import SITUATION_CHARS, Example
from tournaments.selfplay import candidate as cand
from tournaments.selfplay.candidate import Candidate

MAX_GAMES = 2
MAX_EXAMPLES = 32


def examples(events: Sequence[Event], seat: int, limit: int = MAX_EXAMPLES) -> list[Example]:
    """The seat's decisions with a move in one game, as examples."""
    out: list[Example] = []
    for e in events:
        if e.type != "decision" or e.actor != seat:
            continue
        p = e.payload
        choices = (p.get("action") or {}).get("choices") or []
        prompt = str(((p.get("shown") or {}).get("decision") or {}).get("prompt") or "").strip()
        if not choices or not prompt:
            continue
        key = "choice" if len(choices) == 1 else "choices"
        answer = {key: choices[0] if key == "choice" else list(choices)}
        out.append(Example(situation=prompt[:SITUATION_CHARS],
                           answer=json.dumps(answer, ensure_ascii=False)))  # fmt: skip
        if len(out) >= limit:
            break
    return out


Game = tuple[float, Sequence[Event], int]  # (score, events, seat) of one train game


def best(games: Sequence[Game]) -> list[Game]:
    """The highest-scoring games, at least one point above the worst (none when every score is
    equal: nothing to prefer)."""
    if not games:
        return []
    worst = min(s for s, _, _ in games)
    return sorted((g for g in games if g[0] >= worst + 1.0), key=lambda g: -g[0])[:MAX_GAMES]


def pool(games: Sequence[Game]) -> list[Example]:
    """The examples of the best of ``games``; none when no game stands out or none has a move
    to show."""
    out: list[Example] = []
    for _, events, seat in best(games):
        out += examples(events, seat, MAX_EXAMPLES - len(out))
    return out


def demonstrate(
    parent: Candidate,
    games: Sequence[Game],
    gen: int,
) -> Candidate | None:
    """The child reading the parent's context with the examples of ``games`` (the parent's
    train games as (score, events, seat)) in place of the parent's; None when there are none."""
    found = pool(games)
    if not found:
        return None
    scores = ", ".join(f"{s:g}" for s, _, _ in best(games))
    return cand.make(
        style=parent.style,
        extra_instructions=parent.extra_instructions,
        bank=parent.bank,
        namespace=parent.namespace,
        version=parent.version,
        insights=parent.insights,
        active=[*parent.insights, *parent.exclude],
        parents=(parent.id,),
        operator="demonstrate",
        generation=gen,
        note=f"{len(found)} example(s) from train games scored {scores}",
        examples=tuple(found),
    )
