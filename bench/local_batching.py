"""Tokens/s of the bundled SmolLM2-135M for N concurrent agents: batched vs one at a time.

Both modes send the same N requests (agent-like prompts, per-request max tokens) through
:class:`LocalBackend`; 'batched' lets the dynamic batcher group them (window, max_batch=N),
'sequential' answers them one after another (max_batch=1). Greedy decoding, so both produce
the same tokens. Prints one JSON line per figure. Target: batched ≥ 3 × sequential.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from arena.llm.backends.local import LocalBackend
from arena.llm.config import BackendConfig
from arena.llm.messages import ChatRequest

NAMES = ["Alice", "Bruno", "Chloe", "Dmitri", "Elena", "Farid", "Greta", "Hiro"]


def requests(n: int, max_tokens: int) -> list[ChatRequest]:
    out = []
    for i in range(n):
        talk = " ".join(
            f"{NAMES[(i + k) % 8]}: I suspect {NAMES[(i + k + 3) % 8]}." for k in range(6)
        )
        out.append(
            ChatRequest(
                [
                    {
                        "role": "system",
                        "content": f"You are {NAMES[i % 8]}, a villager in Werewolf.",
                    },
                    {"role": "user", "content": talk + "\nSay one sentence to the village."},
                ],
                max_tokens=max_tokens,
            )
        )
    return out


async def run(mode: str, n: int, max_tokens: int) -> tuple[float, int]:
    max_batch = n if mode == "batched" else 1
    backend = LocalBackend(
        BackendConfig(type="local", batch_window_s=0.05, max_batch=max_batch, concurrency=n)
    )
    await backend.load()
    await backend.complete(requests(1, 4)[0])  # warm-up
    reqs = requests(n, max_tokens)
    started = time.perf_counter()
    if mode == "batched":
        results = await asyncio.gather(*(backend.complete(r) for r in reqs))
    else:
        results = [await backend.complete(r) for r in reqs]
    elapsed = time.perf_counter() - started
    await backend.close()
    return elapsed, sum(r.tokens_out for r in results)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--agents", type=int, default=8)
    ap.add_argument("--max-tokens", type=int, default=32)
    ap.add_argument("--threads", type=int, default=None)
    args = ap.parse_args()
    if args.threads:
        import torch

        torch.set_num_threads(args.threads)
    seq_s, seq_tok = asyncio.run(run("sequential", args.agents, args.max_tokens))
    bat_s, bat_tok = asyncio.run(run("batched", args.agents, args.max_tokens))
    seq_tps, bat_tps = seq_tok / seq_s, bat_tok / bat_s
    figures = [
        {"figure": "sequential_tokens_per_s", "value": round(seq_tps, 2), "tokens": seq_tok,
         "seconds": round(seq_s, 2)},
        {"figure": "batched_tokens_per_s", "value": round(bat_tps, 2), "tokens": bat_tok,
         "seconds": round(bat_s, 2)},
        {"figure": "batching_speedup", "value": round(bat_tps / seq_tps, 2), "unit": "x",
         "target": 3.0, "ok": bat_tps / seq_tps >= 3.0, "agents": args.agents},
    ]  # fmt: skip
    for f in figures:  # the load average: on a shared machine timings are noisy
        print(json.dumps({**f, "load_avg_1m": round(os.getloadavg()[0], 2)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
