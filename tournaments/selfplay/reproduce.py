"""Reproduction: the next generation's population of a self-play repeat.

The incumbent always survives (the gate compares against it), then the top elites by
mu - k*sigma, then (``selection.pareto``) candidates best in some (game, role); operators fill
the remaining slots from parents in optimistic order (mu + c*sigma). Every dropped or
gate-failed context enters the tabu log the reflector is shown. Each slot draws from its own
seeded ``random.Random`` (run, repeat, generation, slot), so a resumed run proposes the same
children.
"""

from __future__ import annotations

import json
import random
import time
from pathlib import Path
from typing import Any

from arena.seeding import derive_seed
from tournaments.selfplay import operators as ops
from tournaments.selfplay.budget import Usage
from tournaments.selfplay.candidate import Candidate
from tournaments.selfplay.select import Rating, optimistic_order, pareto_front, role_ratings
from tournaments.selfplay.select import survivors as select_survivors
from tournaments.selfplay.state import Context, RepeatState, record_bank_head, score


def tabu_entry(c: Candidate, g: int, reason: str) -> dict[str, Any]:
    return {
        "candidate": c.id,
        "generation": g,
        "operator": c.operator,
        "note": c.note,
        "reason": reason,
    }


async def reproduce(
    ctx: Context, state: RepeatState, g: int, order: list[str], table: dict[str, Rating], gdir: Path
) -> list[Candidate]:
    cfg = ctx.config
    # the incumbent always survives (the gate compares against it), then the top elites,
    # then (pareto) the candidates best in some (game, role) that the average drops
    front: list[str] = []
    if cfg.selection.pareto:
        tables = role_ratings(state.select_units)
        front = pareto_front([c.id for c in state.population], tables, cfg.selection.k)
    survivors = select_survivors(state.incumbent.id, order, cfg.elites, cfg.population, front)
    for c in state.population:
        if c.id not in survivors:
            mu = table.get(c.id)
            state.tabu.append(
                tabu_entry(
                    c,
                    g,
                    f"not an elite (mu-k*sigma {mu.conservative(cfg.selection.k):.2f})"
                    if mu
                    else "not an elite",
                )
            )
    # only a failed gate bars a context for good; a dropped one (a few unlucky games) may
    # be proposed again, its note stays in the log the reflector reads
    taboo = {t["candidate"] for t in state.tabu if t["reason"].startswith("failed")}
    # the first child grows from the incumbent (exploitation), the others from the most
    # optimistic candidates (mu + c*sigma: exploration of the uncertain)
    optimistic = optimistic_order([c.id for c in state.population], table, cfg.selection.explore)
    parents_order = list(dict.fromkeys([state.incumbent.id, *optimistic]))
    nxt = [state.known[i] for i in survivors]
    seen = set(survivors)
    proposals = []  # every attempt of every slot, and what came of it
    for slot in range(cfg.population - len(nxt)):
        child, tried = await _fill(ctx, state, g, slot, parents_order, seen, taboo)
        if child is not None:
            seen.add(child.id)
            state.known.setdefault(child.id, child)
            nxt.append(state.known[child.id])
        proposals.append({"slot": slot, "filled": child is not None, "attempts": tried})
    pdir = gdir.parent / f"g{g + 1:03d}"
    pdir.mkdir(parents=True, exist_ok=True)
    # why a slot stayed empty (a smaller population than configured) is on record
    (pdir / "proposals.json").write_text(json.dumps(proposals, indent=1), encoding="utf-8")
    (pdir / "population.json").write_text(
        json.dumps([c.model_dump(mode="json") for c in nxt], indent=1), encoding="utf-8"
    )
    return nxt


async def _fill(
    ctx: Context,
    state: RepeatState,
    g: int,
    slot: int,
    parents_order: list[str],
    seen: set[str],
    taboo: set[str],
) -> tuple[Candidate | None, list[dict[str, str]]]:
    """A new child for one slot (up to 6 seeded draws of an operator and a parent), and every
    attempt with its outcome; None when no draw proposed a new, untabooed context."""
    cfg = ctx.config
    rng = random.Random(derive_seed(cfg.master_seed, state.repeat, g, "slot", slot))
    tried: list[dict[str, str]] = []
    for attempt in range(6):
        op = ops.choose_operator(cfg.operators, rng)
        parent = state.known[parents_order[(slot + attempt) % len(parents_order)]]
        child = await _apply(
            ctx, op, parent, state, g, slot, attempt, parents_order, rng, state.bank
        )
        if child is None:
            outcome = f"nothing to propose: {NOTHING.get(op, 'no child')}"
        elif child.id in seen:
            outcome = f"{child.id} is already in the population"
        elif child.id in taboo and op != "copy":
            outcome = f"{child.id} failed a gate before"
        else:
            tried.append({"operator": op, "parent": parent.id, "outcome": f"child {child.id}"})
            return child, tried
        tried.append({"operator": op, "parent": parent.id, "outcome": outcome})
    return None, tried


#: Why an operator proposed no child (``_apply`` returned None).
NOTHING = {
    "demonstrate": "no train game of the parent scored a point above its worst "
    "(it needs at least two train games that differ)",
    "reflect": "the parent has no train games, or the reflect budget is spent",
    "rewrite": "the parent reads no memory bank",
    "crossover": "no other candidate to cross with",
}


async def _apply(
    ctx: Context,
    op: str,
    parent: Candidate,
    state: RepeatState,
    g: int,
    slot: int,
    attempt: int,
    order: list[str],
    rng: random.Random,
    bank: Any,
) -> Candidate | None:
    cfg = ctx.config
    if op == "copy":
        return parent.model_copy(update={})
    if op == "restyle":
        return ops.restyle(parent, cfg.styles, rng, g + 1)
    if op == "rewrite":
        if parent.version is None:
            return None
        return ops.rewrite(parent, bank.at(parent.version).insights(), rng, g + 1)
    if op == "crossover":
        others = [i for i in order if i != parent.id]
        if not others:
            return None
        other = state.known[rng.choice(others)]
        versions = {
            v: [i.id for i in bank.at(v).insights()]
            for v in (parent.version, other.version)
            if v is not None
        }
        return ops.crossover(parent, other, versions, g + 1)
    if op == "reflect":
        return await _reflect(ctx, parent, state, g, slot, attempt, bank)
    if op == "demonstrate":
        return _demonstrate(ctx, parent, state, g)
    raise ValueError(op)


def _demonstrate(ctx: Context, parent: Candidate, state: RepeatState, g: int) -> Candidate | None:
    from arena.memory.trajectory import load_events
    from tournaments.selfplay.demos import demonstrate

    games = []
    for unit, res, run_dir in state.train_results.get(parent.id, []):
        if res.status == "finished" and res.jsonl:
            events = load_events(run_dir / res.jsonl)
            games.append((score(ctx.config.metric, res, unit), events, unit.seat))
    return demonstrate(parent, games, g + 1)


async def _reflect(
    ctx: Context, parent: Candidate, state: RepeatState, g: int, slot: int, attempt: int, bank: Any
) -> Candidate | None:
    from arena.memory.learn import FinishedMatch
    from arena.memory.reflect import ClosingReflector, make_reflector
    from arena.memory.trajectory import load_events
    from arena.memory.update import UpdateSettings

    games = state.train_results.get(parent.id, [])
    if not games or not ctx.ledger.admit("reflect"):
        return None
    finished = []
    for unit, res, run_dir in games:
        if res.status != "finished" or not res.jsonl:
            continue
        events = load_events(run_dir / res.jsonl)
        finished.append(FinishedMatch(res.match_id, events, [unit.seat]))
    tabu = [
        f"context {t['note']} was rejected: {t['reason']}" for t in state.tabu[-10:] if t["note"]
    ]
    reflector = ops.TabuReflector(make_reflector(ctx.config.reflector), tabu)
    started = time.monotonic()
    fold_id = f"{state.run_id}:g{g}:s{slot}:a{attempt}"
    child = await ops.reflect_child(
        bank, parent, finished, reflector, fold_id, UpdateSettings(), g + 1
    )
    # the reflector's own time is the reflect phase; the fold around it, the memory update
    spent = time.monotonic() - started
    ctx.ledger.record(
        "reflect",
        Usage(
            llm_calls=reflector.llm_calls,  # none for a scripted rule
            tokens_out=reflector.tokens_out,
            wall_s=reflector.wall_s,
        ),
    )
    ctx.ledger.record("memory_update", Usage(wall_s=max(0.0, spent - reflector.wall_s)))
    record_bank_head(ctx, state, f"the reflect fold {fold_id}")
    if isinstance(reflector.inner, ClosingReflector):
        await reflector.inner.close()
    return child
