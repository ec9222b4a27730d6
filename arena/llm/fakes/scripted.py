"""The ``scripted`` engine of ``arena serve``: no model, deterministic legal replies.

Legal options are read from the request's JSON schema (``choice``/``choices`` enums) or, when
there is none, from the prompt's ``Legal ids: a | b`` line. The reply is a pure function of
the request and the engine seed. Latency follows a configurable distribution; faults (HTTP 500,
429 with Retry-After, a hang past the client timeout, a malformed or empty body, ``garbage``: a
well-formed reply whose answer no parser accepts, or ``fenced``: the right answer inside prose
and a code fence) are injected
from a queue (``/admin/faults``) or at random with configured rates.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections import deque
from dataclasses import dataclass, field
from typing import Any

FAULT_KINDS = ("500", "429", "hang", "malformed", "empty", "garbage", "fenced", "ok")
_LEGAL = re.compile(r"^Legal ids: (.+)$", re.M)
_BELIEF_KEY = re.compile(r'"(\d+)": p')


def parse_latency(spec: str) -> tuple[str, float, float]:
    """``const:S`` | ``uniform:A:B`` | ``exp:MEAN`` (seconds)."""
    kind, _, rest = spec.partition(":")
    nums = [float(x) for x in rest.split(":") if x] if rest else []
    if kind == "const" and len(nums) == 1:
        return ("const", nums[0], 0.0)
    if kind == "uniform" and len(nums) == 2:
        return ("uniform", nums[0], nums[1])
    if kind == "exp" and len(nums) == 1:
        return ("exp", nums[0], 0.0)
    raise ValueError(f"bad latency spec {spec!r}: use const:S, uniform:A:B or exp:MEAN")


@dataclass
class Fault:
    kind: str
    retry_after: float = 1.0


@dataclass
class ScriptedEngine:
    seed: int = 0
    latency: str = "const:0"
    fault_rates: dict[str, float] = field(default_factory=dict)
    retry_after_s: float = 1.0
    hang_s: float = 3600.0
    queue: deque[Fault] = field(default_factory=deque)
    served: int = 0
    requests: list[dict[str, Any]] = field(default_factory=list)
    keep_requests: bool = False

    def __post_init__(self) -> None:
        self._latency = parse_latency(self.latency)
        self._rng = random.Random(f"scripted:{self.seed}")
        for k in self.fault_rates:
            if k not in FAULT_KINDS:
                raise ValueError(f"unknown fault kind {k!r}; known: {', '.join(FAULT_KINDS)}")

    def delay(self) -> float:
        kind, a, b = self._latency
        if kind == "const":
            return a
        if kind == "uniform":
            return self._rng.uniform(a, b)
        return self._rng.expovariate(1.0 / a) if a > 0 else 0.0

    def next_fault(self) -> Fault | None:
        if self.queue:
            fault = self.queue.popleft()
            return None if fault.kind == "ok" else fault
        roll = self._rng.random()
        acc = 0.0
        for kind, rate in sorted(self.fault_rates.items()):
            acc += rate
            if roll < acc:
                return Fault(kind, self.retry_after_s)
        return None

    # -- replies -----------------------------------------------------------------------
    def reply(self, body: dict[str, Any]) -> tuple[str, int, int]:
        """(content, prompt_tokens, completion_tokens) for a chat completion request."""
        self.served += 1
        if self.keep_requests:
            self.requests.append(body)
        messages = body.get("messages") or []
        prompt = "\n".join(str(m.get("content") or "") for m in messages)
        digest = hashlib.sha256(
            f"{self.seed}\x1f{json.dumps(messages, sort_keys=True)}".encode()
        ).digest()
        pick = int.from_bytes(digest[:8], "big")
        schema = _schema_of(body)
        content = _answer(schema, prompt, pick)
        return content, max(1, len(prompt) // 4), max(1, len(content) // 4)


def _schema_of(body: dict[str, Any]) -> dict[str, Any] | None:
    fmt = body.get("response_format") or {}
    if fmt.get("type") == "json_schema":
        return (fmt.get("json_schema") or {}).get("schema")
    return None


def _answer(schema: dict[str, Any] | None, prompt: str, pick: int) -> str:
    props: dict[str, Any] = (schema or {}).get("properties") or {}
    required = set((schema or {}).get("required") or [])
    if schema is None:
        tail = prompt[prompt.rfind("Your decision") :] if "Your decision" in prompt else prompt
        m = list(_LEGAL.finditer(tail))
        ids = [x.strip() for x in m[-1].group(1).split("|")] if m else []
        if "belief" in tail and '"belief"' in tail:
            keys = _BELIEF_KEY.findall(tail) or ["0"]
            props = {"belief": {"properties": {k: {} for k in keys}}}
            required = {"belief"}
        elif '"text"' in tail and "choice" not in tail.split("Answer with", 1)[-1][:60]:
            props = {"text": {"maxLength": 200}}
        else:
            props = {"choice": {"enum": ids}} if ids else {"text": {"maxLength": 200}}
            required = {"choice"} if ids else set()
    out: dict[str, Any] = {}
    if "belief" in required and "belief" in props:
        keys = sorted((props["belief"].get("properties") or {}).keys()) or ["0"]
        out["belief"] = {k: round(((pick >> (i % 48)) % 100) / 100, 2) for i, k in enumerate(keys)}
        return json.dumps(out)
    if "choices" in props:
        spec = props["choices"]
        ids = list((spec.get("items") or {}).get("enum") or [])
        k = max(1, int(spec.get("minItems") or 1))
        rng = random.Random(pick)
        out["choices"] = rng.sample(ids, min(k, len(ids)))
        return json.dumps(out)
    if "choice" in props and ("choice" in required or "text" not in props):
        ids = list(props["choice"].get("enum") or [])
        if ids:
            out["choice"] = ids[pick % len(ids)]
            return json.dumps(out)
    if "text" in props:
        limit = int(props["text"].get("maxLength") or 200)
        lines = [
            "I have been listening carefully and have nothing certain yet.",
            "Let us compare what everyone said before we vote.",
            "I am on the side of the village; watch who changes their story.",
            "Nothing to add for now.",
        ]
        out["text"] = lines[pick % len(lines)][:limit]
        return json.dumps(out)
    return json.dumps({"choice": "pass"})
