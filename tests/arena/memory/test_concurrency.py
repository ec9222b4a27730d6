"""16 concurrent readers (8 threads, 8 processes) while a writer appends whole updates: every
reader sees only committed versions, each update complete, and the chain intact."""

from __future__ import annotations

import multiprocessing as mp
import threading
import time
from pathlib import Path
from typing import Any

from arena.memory import Bank, Draft

PER_UPDATE = 4  # adds per update, plus a support op for an insight of the previous update
UPDATES = 40


NS = "werewolf/villager"


def update(i: int, previous: str | None) -> list[Draft]:
    ops = [
        Draft("add", NS, {"text": f"batch {i} item {j}: keep notes."}) for j in range(PER_UPDATE)
    ]
    if previous is not None:
        ops.append(Draft("support", NS, {"id": previous}))
    return ops


def check(bank: Bank) -> tuple[int, str | None]:
    """(version read, problem or None) for one snapshot."""
    snap = bank.at()
    batches: dict[str, int] = {}
    for ins in snap.all():
        batch = ins.text.split(" item ")[0]
        batches[batch] = batches.get(batch, 0) + 1
    n = len(batches)
    if snap.version != (n * (PER_UPDATE + 1) - 1 if n else 0):
        return snap.version, f"version {snap.version} is inside an update ({n} batches)"
    broken = {b: k for b, k in batches.items() if k != PER_UPDATE}
    if broken:
        return snap.version, f"half-written batches {broken}"
    supported = [i for i in snap.all() if i.support == 2]
    if len(supported) != max(0, n - 1):
        return snap.version, "an update's support op is missing"
    if n and snap.head_hash != bank.ops(after=snap.version - 1, upto=snap.version)[0].hash:
        return snap.version, "head hash differs from the log"
    return snap.version, None


def read_until(path: str, ready: Any, stop: Any, out: Any) -> None:
    bank = Bank(path)
    seen: set[int] = set()
    problems: list[str] = []
    ready.release()
    while not stop.is_set():
        version, problem = check(bank)
        seen.add(version)
        if problem:
            problems.append(problem)
    version, problem = check(bank)  # once more after the last write
    seen.add(version)
    if problem:
        problems.append(problem)
    if not bank.verify().ok:
        problems.append("chain does not verify")
    out.put((sorted(seen), problems))


def test_sixteen_concurrent_readers_never_see_a_half_written_bank(tmp_path: Path) -> None:
    path = str(tmp_path / "bank.sqlite")
    Bank(path)
    ctx = mp.get_context("spawn")
    ready, stop, out = ctx.Semaphore(0), ctx.Event(), ctx.Queue()
    procs = [ctx.Process(target=read_until, args=(path, ready, stop, out)) for _ in range(8)]
    threads = [threading.Thread(target=read_until, args=(path, ready, stop, out)) for _ in range(8)]
    for w in [*procs, *threads]:
        w.start()
    for _ in range(16):
        assert ready.acquire(timeout=120), "a reader did not start"
    writer = Bank(path)
    previous: str | None = None
    for i in range(UPDATES):
        previous = writer.write(update(i, previous))[0].payload["id"]
        time.sleep(0.002)  # pacing so reads interleave with writes; nothing is timed
    stop.set()
    results = [out.get(timeout=120) for _ in range(16)]
    for p in procs:
        p.join(timeout=60)
    for t in threads:
        t.join(timeout=60)
    problems = [p for _, ps in results for p in ps]
    seen = {v for vs, _ in results for v in vs}
    assert problems == []
    assert max(seen) == UPDATES * (PER_UPDATE + 1) - 1
    assert len(seen) > 2, "readers should have seen the bank grow"
