"""Insight-bank costs: retrieval + injection per decision at 1,000 insights (target < 2 ms),
and the bank update per reflected match, the reflector's LLM call excluded.

Retrieval is measured per selection: the bank version is already materialised (one replay per
process and version), the insight embeddings are built once per version, and each call ranks
every active insight of the namespace against a seat's briefing and renders the quoted block.
An agent makes one selection per seat and match and reuses it for every later decision: the
``per_selection`` figures are one selection, the ``per_decision`` figures spread it over the
decisions a Werewolf seat makes in a match (measured in the same run). "new match briefing"
embeds the sentences of the query not seen before (MiniLM on CPU); ``cold_ms`` is the first
call (model load, embedding all insights).

Prints one JSON line per figure. Run: .venv/bin/python bench/memory.py [--insights N]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
from pathlib import Path

from arena import registry
from arena.agents import factory
from arena.memory import Bank, Draft
from arena.memory.inject import choose, embeddings_available, relevance_query
from arena.memory.reflect import ScriptedReflector
from arena.memory.spec import MemorySpec
from arena.memory.update import UpdateSettings, reflect_match
from arena.results import MatchSpec
from arena.runner import MatchRunner

VERBS = ["vote", "speak", "accuse", "defend", "claim", "wait", "question", "protect"]
WHEN = ["on day one", "after a death", "when accused", "late in the game", "with few players"]


def fill(bank: Bank, n: int) -> None:
    drafts = [
        Draft(
            "add",
            "werewolf/villager",
            {"text": f"Tactic {i}: {VERBS[i % 8]} carefully {WHEN[i % 5]}, case {i // 40}."},
        )
        for i in range(n)
    ]
    bank.write(drafts)


def fig(name: str, value: float, **extra: object) -> None:
    print(json.dumps({"figure": name, "value": round(value, 4), **extra}))


NAMES = ["Sana", "Bruno", "Maya", "Viktor", "Greta", "Lars", "Kemi", "Wen", "Hiro", "Olga"]
RULES = (
    "Werewolf: two wolves hide among the villagers. Each night the wolves kill a player, the "
    "seer inspects one and the doctor protects one. Each day everyone speaks, then votes; the "
    "player with most votes is eliminated. Villagers win when both wolves are gone; wolves win "
    "when they equal the villagers. Answer every decision in the requested format."
)


def briefing(c: int, raw: bool = False) -> str:
    """A seat's relevance query in a new match: new names and seat, the same rules. The agent
    queries with ``relevance_query`` (names and numbers masked); ``raw`` keeps them (the cost
    before that change: new sentences to embed in every match)."""
    cast = [NAMES[(c + i) % len(NAMES)] for i in range(8)]
    text = f"You are {cast[c % 8]} (seat {c % 8}), a villager. Players: {', '.join(cast)}. {RULES}"
    return text if raw else relevance_query(text, cast)


def decisions_per_seat(seeds: int = 3) -> float:
    """How many decisions a Werewolf seat makes in one match (random players, classic rules)."""
    counts = []
    for seed in range(seeds):
        events = record(seed)
        n = 1 + max(e.actor for e in events if e.actor is not None)
        counts.append(sum(e.type == "decision" for e in events) / n)
    return statistics.mean(counts)


def retrieval(bank: Bank, n: int, calls: int) -> None:
    per_seat = decisions_per_seat()
    fig("werewolf_decisions_per_seat_and_match", per_seat)
    query = briefing(0)
    modes = [("lexical", "relevance"), ("lexical", "all")]
    if embeddings_available():
        modes.insert(0, ("embedding", "relevance"))
    version = bank.head()[0]
    for retrieval_mode, select in modes:
        spec = MemorySpec(bank=str(bank.path), k=5, select=select, retrieval=retrieval_mode)
        t = time.perf_counter()
        choose(spec, "werewolf", "villager", 1, query, version)
        cold = time.perf_counter() - t
        for fresh in (False, True, "raw"):
            if fresh == "raw" and retrieval_mode != "embedding":
                continue
            samples = []
            for c in range(calls):
                # fresh: every call a new match's query; "raw": names and numbers unmasked,
                # so the sentences naming the players are embedded anew every match
                q = briefing(c + 1, raw=fresh == "raw") if fresh else query
                t = time.perf_counter()
                choose(spec, "werewolf", "villager", 1, q, version)
                samples.append(time.perf_counter() - t)
            what = {False: "repeated briefing", True: "new match", "raw": "new match, unmasked"}[
                fresh
            ]
            median = 1000 * statistics.median(samples)
            p90 = round(1000 * sorted(samples)[int(0.9 * len(samples))], 4)
            fig(
                f"retrieval_injection_ms_per_selection ({retrieval_mode}/{select}, {what})",
                median,
                p90_ms=p90,
                cold_ms=round(1000 * cold, 2),
                insights=n,
            )
            # one selection per seat and match, kept for every decision of that seat
            fig(
                f"retrieval_injection_ms_per_decision ({retrieval_mode}/{select}, {what})",
                median / per_seat,
                decisions_per_seat=round(per_seat, 1),
                insights=n,
                target_ms=2.0,
            )


def record(seed: int) -> list:
    engine = registry.engine_class("werewolf")({}, seed=seed)
    agents = [factory.build(f"b{i}", "random", "werewolf") for i in range(engine.n_seats)]
    spec = MatchSpec(
        match_id=f"m{seed}",
        game="werewolf",
        seed=seed,
        seats=[f"b{i}" for i in range(engine.n_seats)],
    )
    runner = MatchRunner(spec, agents, engine=engine)
    asyncio.run(runner.run())
    return runner.recorder.events


def update(bank: Bank, matches: int, n: int) -> None:
    settings = UpdateSettings(cap=10_000)
    records = [record(seed) for seed in range(matches)]

    async def reflect_all() -> list[float]:
        out = []
        for events in records:
            t = time.perf_counter()
            await reflect_match(bank, events, ScriptedReflector(), settings=settings)
            out.append(time.perf_counter() - t)
        return out

    per_match = asyncio.run(reflect_all())
    fig(
        f"update_ms_per_reflected_match (8 seats, {n} insights, LLM call excluded)",
        1000 * statistics.median(per_match),
        matches=matches,
    )
    t = time.perf_counter()
    ok = bank.verify().ok
    fig("verify_ms", 1000 * (time.perf_counter() - t), n_ops=bank.head()[0], ok=ok)
    t = time.perf_counter()
    Bank(bank.path).at()
    fig("materialise_newest_version_ms (fresh process cache)", 1000 * (time.perf_counter() - t))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--insights", type=int, default=1000)
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--matches", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        bank = Bank(Path(tmp) / "bank.sqlite")
        t = time.perf_counter()
        fill(bank, args.insights)
        fig("fill_ms", 1000 * (time.perf_counter() - t), insights=args.insights)
        retrieval(bank, args.insights, args.calls)
        update(bank, args.matches, args.insights)


if __name__ == "__main__":
    main()
