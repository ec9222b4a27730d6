"""Per-seat KV reuse of the local backend: Werewolf seats' real prompts, with and without reuse.

The prompts are those an LLM seat was shown turn by turn in recorded classic8 Werewolf matches
(``bench/data/werewolf_seat_prompts.json``; re-record with ``--record``: rule bots play, and at
every decision of every seat the LLM agent's request for that observation is rendered and
kept, choice lists included, so the prompts are exactly what ``arena run`` sends the local
model). Each seat's turns are replayed through :class:`LocalBackend` with ``kv.reuse`` on and
off, at 1 seat (turns interleaved on/off, so both see the same machine load) and at N
concurrent seats (the batcher groups them; on and off runs alternate). Prints one JSON line
per figure: prefill tokens computed per turn, mean per-call latency from turn 5 on, tokens/s,
their ratio (target ≥ 3 x), and divergence: calls whose greedy output (text, or ranked order)
differs with reuse, per dtype. First it prints the machine's measured memory read bandwidth and,
per dtype, the decode bound it implies for the model's weights, one seat's measured decode rate
as a share of it (target ≥ 50%) through the fast decode steps and through the transformers
forward, whether the dtype's outputs on the recorded prompts diverge from float32's, for
float32 whole replies (``--reply-tokens``) of ``--reply-seats`` seats both ways (``same_replies``); then the
fastest dtype that does not diverge (``bench/decode_bound.py``). Only the decode figures:
``--skip-single --skip-batched``; none of them: ``--bound-dtypes ""``. Run it on an idle machine.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from arena.llm.backends.local import LocalBackend
from arena.llm.config import BackendConfig
from arena.llm.messages import ChatRequest, ChatResult
from arena.llm.prompt import stable_point
from bench.decode_bound import DECODE_STEPS
from bench.decode_bound import figures as bound_figures

DATA = Path(__file__).resolve().parent / "data" / "werewolf_seat_prompts.json"
# classic8 with three discussion rounds a day: a surviving seat gets 20 turns in most matches
RULES = {"preset": "classic8", "discussion_rounds": 3}
FROM_TURN = 5  # latency is compared from this turn on (1-based): the cache is warm by then


# -- recording ----------------------------------------------------------------------------
def record(path: Path, seats_wanted: int, turns: int, max_tokens: int, max_prompt: int) -> int:
    """Play seeded rule-bot matches and keep the LLM prompts of seats with ``turns`` turns."""
    from arena.agents.base import Agent, MatchContext
    from arena.agents.llm_agent import LLMAgent
    from arena.llm.prompt import choice_candidates, is_ranked_choice, wants_belief
    from arena.results import MatchSpec
    from arena.runner import MatchRunner
    from arena.types import Decision, Observation
    from games.werewolf.bots import BOTS

    class Recorder(Agent):
        """A rule bot that also renders the LLM agent's request for each decision."""

        def __init__(self, log: list[dict[str, Any]]) -> None:
            super().__init__("rule")
            self.inner = BOTS["rule"]()
            self.llm = LLMAgent(
                name="smollm2",
                backend={"type": "local", "max_tokens": max_tokens, "temperature": 0.0},
                max_prompt_tokens=max_prompt,
            )
            self.log = log

        def reset(self, context: MatchContext) -> None:
            super().reset(context)
            self.inner.reset(context)
            self.llm.reset(context)

        async def act(self, observation: Observation, decision: Decision) -> Any:
            req = self.llm.build_request(observation, decision)
            ranked = is_ranked_choice(decision) and not wants_belief(decision, self.llm.config)
            self.log.append(
                {
                    "messages": req.messages,
                    "choices": choice_candidates(decision) if ranked else None,
                    "max_tokens": req.max_tokens,
                }
            )
            return await self.inner.act(observation, decision)

    kept: list[dict[str, Any]] = []
    seed = 0
    while len(kept) < seats_wanted and seed < 200:
        logs: list[list[dict[str, Any]]] = [[] for _ in range(8)]
        spec = MatchSpec(match_id=f"ww-{seed}", game="werewolf", rules=RULES,
                         seed=seed, seats=["rule"] * 8)  # fmt: skip
        runner = MatchRunner(spec, lambda entry, seat, logs=logs: Recorder(logs[seat]))
        runner.play()
        for seat, log in enumerate(logs):
            if len(log) >= turns and len(kept) < seats_wanted:
                kept.append({"match": spec.match_id, "seat": seat, "turns": _delta(log[:turns])})
        seed += 1
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"max_prompt_tokens": max_prompt, "seats": kept}, indent=1))
    print(json.dumps({"figure": "recorded_seats", "value": len(kept), "path": str(path)}))
    return 0


def _delta(log: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each turn's user message as (characters kept from the previous one, the rest); the
    system message only when it changed."""
    out: list[dict[str, Any]] = []
    prev, prev_system = "", None
    for call in log:
        system, user = call["messages"][0]["content"], call["messages"][1]["content"]
        keep = 0
        while keep < min(len(prev), len(user)) and prev[keep] == user[keep]:
            keep += 1
        turn = {"keep": keep, "add": user[keep:], "choices": call["choices"],
                "max_tokens": call["max_tokens"]}  # fmt: skip
        if system != prev_system:
            turn["system"] = system
        out.append(turn)
        prev, prev_system = user, system
    return out


def load_seats(path: Path, n_seats: int, turns: int, max_tokens: int) -> list[list[ChatRequest]]:
    data = json.loads(path.read_text())
    seats = []
    for s in data["seats"][:n_seats]:
        reqs, prev, system = [], "", ""
        for t in s["turns"][:turns]:
            user = prev[: t["keep"]] + t["add"]
            prev, system = user, t.get("system", system)
            msgs = [{"role": "system", "content": system}, {"role": "user", "content": user}]
            reqs.append(ChatRequest(msgs, max_tokens=min(max_tokens, t["max_tokens"]),
                                    choices=t["choices"]))  # fmt: skip
        seats.append(reqs)
    return seats


# -- replay -------------------------------------------------------------------------------
def backend(reuse: bool, n_seats: int, dtype: str) -> LocalBackend:
    n = max(n_seats, 1)
    config = {"type": "local", "dtype": dtype, "device": "cpu", "batch_window_s": 0.05,
              "max_batch": n, "concurrency": n, "kv": {"reuse": reuse}}  # fmt: skip
    return LocalBackend(BackendConfig.model_validate(config))


def with_session(req: ChatRequest, session: str) -> ChatRequest:
    # as the LLM agent sends it: the seat's session, and where its prompt stops growing
    return ChatRequest(req.messages, max_tokens=req.max_tokens, choices=req.choices,
                       session=session, stable=stable_point(req.messages))  # fmt: skip


Calls = list[list[ChatResult]]  # per seat, per turn


async def replay_one_seat(seat: list[ChatRequest], dtype: str) -> tuple[Calls, Calls]:
    """One seat, its turns interleaved: off, on, off, on... (same load for both)."""
    off, on = backend(False, 1, dtype), backend(True, 1, dtype)
    await off.load()
    await on.load()
    await off.complete(ChatRequest([{"role": "user", "content": "hi"}], max_tokens=2))  # warm-up
    got_off, got_on = [], []
    for t, req in enumerate(seat, 1):
        got_off.append(await off.complete(with_session(req, "m:0")))
        got_on.append(await on.complete(with_session(req, "m:0")))
        a, b = got_off[-1], got_on[-1]
        print(f"turn {t}: in {a.tokens_in} cached {b.tokens_cached} off {a.latency_s:.2f}s "
              f"on {b.latency_s:.2f}s", file=sys.stderr, flush=True)  # fmt: skip
    await off.close()
    await on.close()
    return [got_off], [got_on]


async def replay_seats(seats: list[list[ChatRequest]], reuse: bool, dtype: str) -> Calls:
    """All seats concurrently, each its turns in order (a seat waits for its own reply)."""
    be = backend(reuse, len(seats), dtype)
    await be.load()

    async def play(i: int, reqs: list[ChatRequest]) -> list[ChatResult]:
        return [await be.complete(with_session(r, f"m:{i}")) for r in reqs]

    out = await asyncio.gather(*(play(i, s) for i, s in enumerate(seats)))
    await be.close()
    return list(out)


async def play_match(seed: int, reuse: bool, dtype: str, max_tokens: int, llm_seats: int) -> list:
    """A whole Werewolf match, rule bots plus ``llm_seats`` local-model seats; every reply."""
    from arena.agents.llm_agent import LLMAgent
    from arena.results import MatchSpec
    from arena.runner import MatchRunner
    from games.werewolf.bots import BOTS

    backend_cfg = {"type": "local", "device": "cpu", "dtype": dtype, "max_tokens": max_tokens,
                   "temperature": 0.0, "kv": {"reuse": reuse}}  # fmt: skip
    spec = MatchSpec(match_id=f"div-{seed}", game="werewolf", rules=RULES, seed=seed,
                     seats=["llm"] * llm_seats + ["rule"] * (8 - llm_seats))  # fmt: skip

    def make(entry: str, seat: int) -> Any:
        return LLMAgent(name="smollm2", backend=backend_cfg) if entry == "llm" else BOTS["rule"]()

    runner = MatchRunner(spec, make)
    await runner.run()
    calls = [e.payload for e in runner.recorder.events if e.type == "llm_call"]
    return [(c.get("reply"), c.get("tokens_out")) for c in calls]


def match_divergence(dtype: str, matches: int, max_tokens: int, llm_seats: int) -> dict:
    """Whole matches with reuse on and off: a match diverges at its first differing reply
    (after it the prompts differ too); greedy, so without divergence both play alike."""
    diverged, calls, first = 0, 0, []
    for seed in range(matches):
        off = asyncio.run(play_match(seed, False, dtype, max_tokens, llm_seats))
        on = asyncio.run(play_match(seed, True, dtype, max_tokens, llm_seats))
        same_until = next(
            (i for i, (a, b) in enumerate(zip(off, on, strict=False)) if a != b), None
        )
        if same_until is None and len(off) != len(on):
            same_until = min(len(off), len(on))
        calls += len(off)
        if same_until is not None:
            diverged += 1
            first.append(same_until)
    return {"figure": f"match_divergence_{dtype}", "value": diverged, "matches": matches,
            "rate": round(diverged / matches, 3), "llm_calls_off": calls,
            "first_divergent_call": first, "llm_seats": llm_seats}  # fmt: skip


def same(a: ChatResult, b: ChatResult) -> bool:
    return a.text == b.text and a.ranked == b.ranked


def figures(label: str, off: Calls, on: Calls, wall_off: float, wall_on: float) -> list[dict]:
    first = min(FROM_TURN, min(len(s) for s in off))  # tiny smoke runs have fewer turns

    def mean_latency(calls: Calls) -> float:
        return statistics.fmean(c.latency_s for seat in calls for c in seat[first - 1 :])

    def prefill(calls: Calls) -> list[float]:
        turns = max(len(s) for s in calls)
        return [round(statistics.fmean(s[t].tokens_in - s[t].tokens_cached for s in calls
                                       if t < len(s)), 1) for t in range(turns)]  # fmt: skip

    lat_off, lat_on = mean_latency(off), mean_latency(on)
    tok_off = sum(c.tokens_out for s in off for c in s)
    tok_on = sum(c.tokens_out for s in on for c in s)
    pairs = [(a, b) for so, sn in zip(off, on, strict=True) for a, b in zip(so, sn, strict=True)]
    diverged = sum(1 for a, b in pairs if not same(a, b))
    return [
        {"figure": f"prefill_tokens_per_turn_{label}", "reuse_off": prefill(off),
         "reuse_on": prefill(on)},
        {"figure": f"mean_call_latency_s_{label}", "reuse_off": round(lat_off, 3),
         "reuse_on": round(lat_on, 3), "from_turn": first},
        {"figure": f"tokens_per_s_{label}", "reuse_off": round(tok_off / wall_off, 2),
         "reuse_on": round(tok_on / wall_on, 2)},
        {"figure": f"reuse_latency_speedup_{label}", "value": round(lat_off / lat_on, 2),
         "unit": "x", "target": 3.0, "ok": lat_off / lat_on >= 3.0},
        {"figure": f"divergence_{label}", "value": diverged, "calls": len(pairs),
         "rate": round(diverged / len(pairs), 4)},
    ]  # fmt: skip


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--data", type=Path, default=DATA, help="recorded prompts (default: %(default)s)"
    )
    ap.add_argument("--record", action="store_true", help="re-record the prompts into --data")
    ap.add_argument("--turns", type=int, default=20, help="turns replayed per seat (default 20)")
    ap.add_argument("--seats", type=int, default=8, help="concurrent seats of the batched run")
    ap.add_argument("--max-tokens", type=int, default=32,
                    help="reply tokens per replayed turn (default 32; not the decode figures')")  # fmt: skip
    # for --record: the agent's default budget, so no turn's transcript is elided
    ap.add_argument("--max-prompt-tokens", type=int, default=6000, help="for --record")
    ap.add_argument("--dtypes", default="float32", help="comma-separated, e.g. float32,bfloat16")
    ap.add_argument("--skip-batched", action="store_true", help="skip the N-seat replay")
    ap.add_argument("--skip-single", action="store_true", help="skip the one-seat replay")
    ap.add_argument(
        "--matches",
        type=int,
        default=0,
        help="also play N whole matches per dtype with reuse on and off",
    )
    ap.add_argument("--llm-seats", type=int, default=2, help="local-model seats per match")
    ap.add_argument("--only-matches", action="store_true", help="skip the prompt replay")
    ap.add_argument("--bound-dtypes", default="float32,bfloat16,float16",
                    help="dtypes of the decode-bound figures (empty: skip them)")  # fmt: skip
    ap.add_argument(
        "--bound-prompts",
        type=int,
        default=8,
        help="recorded prompts (seat 0's turns) the dtypes' outputs are compared on",
    )
    ap.add_argument("--reply-seats", default="1,4,8",
                    help="batch sizes of the whole-reply figures (empty: skip them)")  # fmt: skip
    ap.add_argument("--reply-tokens", type=int, default=48,
                    help="tokens of each whole-reply figure's replies (default 48)")  # fmt: skip
    ap.add_argument("--decode-steps", type=int, default=DECODE_STEPS,
                    help="decode steps timed for the decode-bound figures")  # fmt: skip
    args = ap.parse_args()
    if args.record:
        return record(args.data, 8, args.turns, args.max_tokens, args.max_prompt_tokens)
    seats = load_seats(args.data, max(args.seats, 1), args.turns, args.max_tokens)
    if args.bound_dtypes:
        busy = os.getloadavg()[0]
        if busy >= 1.0:  # timings of memory-bound decoding mean little beside other work
            print(f"warning: 1-minute load {busy:.1f} on {os.cpu_count()} cores; the decode "
                  "figures need an idle machine", file=sys.stderr)  # fmt: skip
        prompts = seats[0][: args.bound_prompts]
        reply = tuple(int(n) for n in args.reply_seats.split(",") if n.strip())
        for f in bound_figures(args.bound_dtypes.split(","), prompts, args.decode_steps, reply,
                               args.reply_tokens):  # fmt: skip
            print(json.dumps({**f, "load_avg_1m": round(os.getloadavg()[0], 2)}), flush=True)
    for dtype in args.dtypes.split(","):
        if args.only_matches:
            f = match_divergence(dtype, args.matches, args.max_tokens, args.llm_seats)
            print(json.dumps({**f, "load_avg_1m": round(os.getloadavg()[0], 2)}))
            continue
        out = []
        if not args.skip_single:
            off, on = asyncio.run(replay_one_seat(seats[0], dtype))
            # interleaved, so no wall clock per mode: tokens/s from the calls' own latencies
            wall_off = sum(c.latency_s for c in off[0])
            wall_on = sum(c.latency_s for c in on[0])
            out += figures(f"1seat_{dtype}", off, on, wall_off, wall_on)
        if not args.skip_batched:
            t0 = time.perf_counter()
            boff = asyncio.run(replay_seats(seats, False, dtype))
            t1 = time.perf_counter()
            bon = asyncio.run(replay_seats(seats, True, dtype))
            t2 = time.perf_counter()
            out += figures(f"{len(seats)}seats_{dtype}", boff, bon, t1 - t0, t2 - t1)
        if args.matches:
            out.append(match_divergence(dtype, args.matches, args.max_tokens, args.llm_seats))
        for f in out:
            f["load_avg_1m"] = round(os.getloadavg()[0], 2)
            print(json.dumps(f))
    return 0


if __name__ == "__main__":
    sys.exit(main())
