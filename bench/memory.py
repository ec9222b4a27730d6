"""Insight-bank costs: retrieval + injection per decision at 1,000 insights (target < 2 ms),
and the bank update per reflected match, the reflector's LLM call excluded.

Retrieval is measured per selection: the bank version is already materialised (one replay per
process and version), the insight embeddings are built once per version, and each call ranks
every active insight of the namespace against a seat's briefing and renders the quoted block.
An agent makes one selection per seat and match and reuses it for every later decision, so
this is an upper bound per decision. "new briefing" includes embedding the query (MiniLM on
CPU); ``cold_ms`` is the first call (model load, embedding all insights).

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
from arena.memory.inject import choose, embeddings_available
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


def retrieval(bank: Bank, n: int, calls: int) -> None:
    query = "You are Sana (seat 1), a villager in Werewolf. Find the wolves by their votes."
    modes = [("lexical", "relevance"), ("lexical", "all")]
    if embeddings_available():
        modes.insert(0, ("embedding", "relevance"))
    version = bank.head()[0]
    for retrieval_mode, select in modes:
        spec = MemorySpec(bank=str(bank.path), k=5, select=select, retrieval=retrieval_mode)
        t = time.perf_counter()
        choose(spec, "werewolf", "villager", 1, query, version)
        cold = time.perf_counter() - t
        for fresh in (False, True):
            samples = []
            for c in range(calls):
                # fresh: every call a briefing never seen (its embedding is computed anew)
                q = f"{query} Round {c}." if fresh else query
                t = time.perf_counter()
                choose(spec, "werewolf", "villager", 1, q, version)
                samples.append(time.perf_counter() - t)
            what = "new briefing" if fresh else "repeated briefing"
            label = f"retrieval_injection_ms_per_decision ({retrieval_mode}/{select}, {what})"
            fig(
                label,
                1000 * statistics.median(samples),
                p90_ms=round(1000 * sorted(samples)[int(0.9 * len(samples))], 4),
                cold_ms=round(1000 * cold, 2),
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
