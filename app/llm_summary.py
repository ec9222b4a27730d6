"""The end-of-run summary of LLM calls: per agent entry and backend, the calls of the run's matches,
their latency, prompt and reply tokens, decode rate, KV reuse and refusals.

Read from the matches' records (``RUN_DIR/matches/<id>.jsonl``, god-only ``llm_call`` events),
so it is the same whichever executor played them; a run without LLM entries reads nothing.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class CallStats:
    """The calls of one agent entry on one backend."""

    agent: str
    backend: str
    model: str = ""
    latencies: list[float] = field(default_factory=list)
    queues: list[float] = field(default_factory=list)  # each call's wait in queues
    timed_out: int = 0  # calls stopped by the decision's time limit
    generated: int = 0  # replies sampled token by token (speech, beliefs)
    ranked: int = 0  # choices answered by ranking the legal options
    tokens_in: int = 0
    tokens_cached: int = 0
    gen_tokens_out: int = 0
    gen_latency_s: float = 0.0
    failed: int = 0
    refused: int = 0
    model_s: list[float] = field(default_factory=list)  # a local model's charged time per call

    def add(self, call: dict[str, Any]) -> None:
        self.latencies.append(float(call.get("latency_s") or 0.0))
        if call.get("model_s"):
            self.model_s.append(float(call["model_s"]))
        self.queues.append(float(call.get("queue_s") or 0.0))
        if not call.get("ok", True):
            self.failed += 1
            self.timed_out += call.get("status") == "timeout"
            return
        self.model = self.model or str(call.get("model") or "")
        self.tokens_in += int(call.get("tokens_in") or 0)
        self.tokens_cached += int(call.get("tokens_cached") or 0)
        if call.get("refused"):
            self.refused += 1
        if call.get("ranked"):
            self.ranked += 1
        else:
            self.generated += 1
            self.gen_tokens_out += int(call.get("tokens_out") or 0)
            self.gen_latency_s += float(call.get("latency_s") or 0.0)

    @property
    def calls(self) -> int:
        return len(self.latencies)

    def figures(self) -> dict[str, Any]:
        lat = sorted(self.latencies)
        ok = self.generated + self.ranked
        return {
            "agent": self.agent,
            "backend": self.backend,
            "model": self.model,
            "calls": self.calls,
            "generated": self.generated,
            "ranked": self.ranked,
            "failed": self.failed,
            "timeouts": self.timed_out,
            "refused": self.refused,
            "latency_mean_s": round(sum(lat) / len(lat), 3) if lat else 0.0,
            "latency_p50_s": round(_quantile(lat, 0.5), 3),
            "latency_p95_s": round(_quantile(lat, 0.95), 3),
            "queue_mean_s": round(sum(self.queues) / len(self.queues), 3) if self.queues else 0.0,
            "queue_max_s": round(max(self.queues), 3) if self.queues else 0.0,
            "model_mean_s": round(sum(self.model_s) / len(self.model_s), 3)
            if self.model_s
            else 0.0,
            "model_max_s": round(max(self.model_s), 3) if self.model_s else 0.0,
            "tokens_in_mean": round(self.tokens_in / ok, 1) if ok else 0.0,
            "cached_share": round(self.tokens_cached / self.tokens_in, 3)
            if self.tokens_in
            else 0.0,
            "tokens_out_mean": round(self.gen_tokens_out / self.generated, 1)
            if self.generated
            else 0.0,
            # a generated reply's tokens over its call's wall time (queue and prefill included)
            "tokens_per_s": round(self.gen_tokens_out / self.gen_latency_s, 2)
            if self.gen_latency_s > 0
            else 0.0,
        }


def _quantile(sorted_values: list[float], q: float) -> float:
    if not sorted_values:
        return 0.0
    k = max(0, math.ceil(q * len(sorted_values)) - 1)
    return sorted_values[k]


def llm_calls(run_dir: Path, match_ids: Iterable[str]) -> list[dict[str, Any]]:
    """The payloads of the ``llm_call`` events of those matches, in record order."""
    out: list[dict[str, Any]] = []
    for match_id in match_ids:
        path = run_dir / "matches" / f"{match_id}.jsonl"
        if not path.exists():
            continue
        with path.open(encoding="utf-8") as f:
            for line in f:
                if '"llm_call"' not in line:  # most lines are not: skip their JSON
                    continue
                event = json.loads(line)
                if event.get("type") == "llm_call":
                    out.append(event.get("payload") or {})
    return out


def summarise(calls: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """One figure set per (agent entry, backend), in first-seen order."""
    groups: dict[tuple[str, str], CallStats] = {}
    for call in calls:
        key = (str(call.get("agent") or "?"), str(call.get("backend") or "?"))
        if key not in groups:
            groups[key] = CallStats(*key)
        groups[key].add(call)
    return [g.figures() for g in groups.values()]


def summary_lines(figures: list[dict[str, Any]]) -> list[str]:
    """Human-readable lines, one or two per backend."""
    lines: list[str] = []
    for f in figures:
        head = (
            f"LLM calls of {f['agent']} ({f['backend']} {f['model'] or '?'}): {f['calls']} calls ({f['generated']} generated, "
            f"{f['ranked']} ranked"
            + (f", {f['failed']} failed" if f["failed"] else "")
            + (f" ({f['timeouts']} timed out)" if f["timeouts"] else "")
            + (f", {f['refused']} refused as not speech" if f["refused"] else "")
            + ")"
        )
        lines.append(head)
        detail = (
            f"  latency per call mean {f['latency_mean_s']:.2f} s, p50 {f['latency_p50_s']:.2f} s, "
            f"p95 {f['latency_p95_s']:.2f} s; prompt {f['tokens_in_mean']:.0f} tokens"
        )
        if f["cached_share"]:  # beside the prompt it is a share of
            detail += f" ({100 * f['cached_share']:.0f}% reused from the KV cache)"
        if f["queue_max_s"]:
            detail += (
                f"; waited in queues mean {f['queue_mean_s']:.2f} s, "
                f"max {f['queue_max_s']:.2f} s (not counted against the time limit)"
            )
        if f.get("model_max_s"):
            detail += (
                f"; the model's own time mean {f['model_mean_s']:.2f} s, "
                f"max {f['model_max_s']:.2f} s (what the time limit counted)"
            )
        if f["generated"]:
            detail += (
                f"; generated {f['tokens_out_mean']:.1f} tokens per reply at "
                f"{f['tokens_per_s']:.1f} tokens/s"
            )
        lines.append(detail)
    return lines


def run_summary(run_dir: Path, results: Iterable[Any]) -> list[str]:
    """The summary lines of a finished run (empty when no match made an LLM call)."""
    return summary_lines(summarise(llm_calls(run_dir, (r.match_id for r in results))))
