"""CPU cost per LLM call: the full agent path vs a bare AsyncOpenAI loop, same run, same server.

Starts ``arena serve --engine scripted`` as a subprocess on a free loopback port (so the
server's CPU is not counted), then measures process CPU time (time.process_time) per call:

* bare: ``AsyncOpenAI.chat.completions.create`` with the same messages and response_format;
* agent: ``LLMAgent.act`` (render the prompt, call, parse) + ``Decision.parse`` (validate) +
  the runner's accounting event (pop_call_records -> stamped Event).

Prints one JSON line per figure. Target: agent ≤ 1.25 × bare.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import time

from arena.agents.base import MatchContext
from arena.agents.llm_agent import LLMAgent
from arena.events import Event, GameEvent, Visibility
from arena.llm.server import free_port
from arena.types import Decision, Observation, Option

NAMES = ["Alice", "Bruno", "Chloe", "Dmitri", "Elena", "Farid", "Greta", "Hiro"]


def observation(seat: int = 0) -> Observation:
    """A ~3 KB prompt: a day of Werewolf talk as seat 0 saw it."""
    events = []
    for i in range(24):
        who = i % 8
        text = f"{NAMES[who]}: I think we should look closely at {NAMES[(who + 3) % 8]}; " + (
            "their story about last night does not add up. " * 1
        )
        events.append(
            Event(type="message", seq=i, actor=who, text=text, visibility=Visibility.public())
        )
    return Observation(
        game="bench", seat=seat, name=NAMES[seat], phase="day_1", text="", events=events
    )


DECISION = Decision(kind="vote", options=[Option(id=str(s), label=NAMES[s]) for s in range(1, 8)])


async def measure(url: str, n: int) -> dict[str, float]:
    from openai import AsyncOpenAI

    agent = LLMAgent(name="bench", backend={"base_url": url, "model": "scripted"})
    agent.reset(
        MatchContext(
            game="bench", match_id="m", seat=0, name=NAMES[0], names=NAMES, seed=1, team_seed=1
        )
    )
    obs = observation()
    request = agent.build_request(obs, DECISION)
    kwargs = agent._backend()._body(request)  # the exact same wire request
    prompt_bytes = sum(len(m["content"].encode()) for m in request.messages)
    client = AsyncOpenAI(base_url=url, api_key="none", max_retries=0)

    async def bare() -> None:
        resp = await client.chat.completions.create(**kwargs)
        assert resp.choices[0].message.content

    seq = 0

    async def full() -> None:
        nonlocal seq
        raw = await agent.act(obs, DECISION)
        DECISION.parse(raw, 0)
        for rec in agent.pop_call_records():
            draft = GameEvent(type="llm_call", actor=0, payload=rec, visibility=Visibility.god())
            Event.stamp(draft, run_id="r", match_id="m", seq=seq).model_dump_json()
            seq += 1

    for fn in (bare, full):  # warm-up (connections, imports)
        for _ in range(20):
            await fn()
    out: dict[str, float] = {"prompt_bytes": prompt_bytes}
    # interleave rounds so machine noise hits both equally
    totals = {"bare": 0.0, "agent": 0.0}
    rounds = 5
    for _ in range(rounds):
        for name, fn in (("bare", bare), ("agent", full)):
            c0 = time.process_time()
            for _ in range(n // rounds):
                await fn()
            totals[name] += time.process_time() - c0
    per = n // rounds * rounds
    out["bare_cpu_ms"] = totals["bare"] / per * 1000
    out["agent_cpu_ms"] = totals["agent"] / per * 1000
    await client.close()
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--calls", type=int, default=500)
    args = ap.parse_args()
    port = free_port()
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "app.cli",
            "serve",
            "--engine",
            "scripted",
            "--port",
            str(port),
            "--max-seconds",
            "600",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
    )
    try:
        assert server.stdout is not None
        server.stdout.readline()  # the banner: uvicorn starts right after
        url = f"http://127.0.0.1:{port}/v1"
        import httpx

        for _ in range(200):
            try:
                httpx.get(url + "/models", timeout=1)
                break
            except httpx.HTTPError:
                time.sleep(0.05)
        res = asyncio.run(measure(url, args.calls))
    finally:
        server.terminate()
        server.wait(timeout=10)
    ratio = res["agent_cpu_ms"] / res["bare_cpu_ms"]
    figures = [
        {"figure": "prompt_bytes", "value": res["prompt_bytes"], "unit": "bytes"},
        {"figure": "bare_asyncopenai_cpu_per_call", "value": round(res["bare_cpu_ms"], 3), "unit": "ms"},
        {"figure": "agent_path_cpu_per_call", "value": round(res["agent_cpu_ms"], 3), "unit": "ms"},
        {"figure": "agent_overhead_ratio", "value": round(ratio, 3), "unit": "x", "target": 1.25,
         "ok": ratio <= 1.25},
    ]  # fmt: skip
    for f in figures:
        print(json.dumps(f))
    return 0


if __name__ == "__main__":
    sys.exit(main())
