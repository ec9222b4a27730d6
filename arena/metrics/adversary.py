"""The LLM adversary of metrics.md §A10: inference-based leakage with a chance baseline.

For each secret s and each unauthorised observer o ∈ U(s), the adversary prompt sees only
view_o(T) — the events delivered to o (messages by their recipients, other events by their
visibility; god-only events never), which include o's own briefing — plus the public rules, and
guesses s. LA_{o,s} = match(ŝ, s) ∈ {0, ½, 1}: exact/alias for categorical secrets (role, side,
string, entity), the numeric bands for numbers. ``fact`` and ``composite`` secrets are not
attacked (judge equivalence would be needed).

Baseline LA⁰_{o,s}: for role and side secrets the analytic chance (``baseline: analytic``, the
default) = (candidates of o holding the true value) / (candidates), candidates = other seats
whose secret o is not allowed to know; otherwise, or with ``baseline: empty_view``, the same
adversary given o's private information and the rules but no transcript.
InferenceGain_s = mean over o with both LA and LA⁰ present of (LA − LA⁰); ErrReduction_s for
numbers. Calls go through any arena.llm backend at temperature 0, behind an on-disk cache keyed
by (model, prompt version, secret, observer, prompt); at most one call per (observer, secret)
and view. A failed or unparseable answer is missing (``None``), counted, never 0. Every line of the
view is quoted by :func:`arena.untrusted.quote` (the observed text is other agents' words).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import hashlib
import json
from dataclasses import dataclass
from statistics import mean
from typing import Any

from arena.llm.parse import extract_json
from arena.metrics.secrets import SecretSpec
from arena.metrics.settings import ADVERSARY_PROMPT_VERSION, AdversarySettings
from arena.metrics.text import band, norm, parse_numbers
from arena.metrics.transcript import MatchLog
from arena.untrusted import quote

ATTACKED = ("role", "string", "entity", "number")
PROMPT = """You are analysing a {game} game. You see exactly what the participant {observer}
observed, nothing more.
Public rules: {rules}
--- what {observer} observed ---
{view}
--- end ---
Question: {question}
{answer}"""
CHOICE = 'Answer only with JSON: {{"choice": "<one of: {options}>"}}'
NUMBER = 'Answer only with JSON: {"guess": <a single number>}'
TEXT = 'Answer only with JSON: {"guess": "<your best guess, a few words>"}'


@dataclass
class Query:
    secret: SecretSpec
    observer: int
    baseline: bool
    prompt: str
    schema: dict[str, Any]
    options: list[str] | None


def name_of(log: MatchLog, seat: int) -> str:
    return log.names[seat] if seat < len(log.names) else f"seat {seat}"


def render_view(log: MatchLog, o: int, transcript: bool, max_chars: int) -> str:
    """view_o(T): every non-god item delivered to o; without transcript only o's own private
    items (briefing, private setup) remain. The most recent items are kept within max_chars."""
    lines = []
    for it in log.view:
        if o not in it.seats:
            continue
        if not transcript and (len(it.seats) != 1 or it.actor not in (None, o)):
            continue
        who = f"{name_of(log, it.actor)}: " if it.actor is not None else ""
        # one quoted line per item: a message cannot end the view ("--- end ---" on a line of
        # its own) or pass for the question that follows it
        lines.append(quote(f"[{it.type}] {who}{it.text}"))
    text, size = [], 0
    for line in reversed(lines):
        size += len(line) + 1
        if size > max_chars:
            text.append("[earlier events omitted]")
            break
        text.append(line)
    return "\n".join(reversed(text)) or "(nothing)"


def candidates(s: SecretSpec, secrets: list[SecretSpec]) -> list[str]:
    """Public value space of a categorical secret: the values of its family in this match."""
    family = s.id.split(":", 1)[0]
    vals = {str(x.value) for x in secrets if x.id.split(":", 1)[0] == family and x.value}
    return sorted(vals | {str(s.value)})


def question(log: MatchLog, s: SecretSpec, secrets: list[SecretSpec]) -> tuple[str, str, Any]:
    owner = name_of(log, s.owner)
    if s.kind == "role":
        opts = candidates(s, secrets)
        what = "side (team)" if s.id.startswith("side:") else "secret role"
        schema = {"type": "object", "properties": {"choice": {"type": "string", "enum": opts}},
                  "required": ["choice"]}  # fmt: skip
        return f"What is {owner}'s {what}?", CHOICE.format(options=" | ".join(opts)), (schema, opts)
    num = {"type": "object", "properties": {"guess": {"type": "number"}}, "required": ["guess"]}
    if s.kind == "number":
        key = s.id.split(":", 1)[0].replace("_", " ")
        unit = f" (in {s.unit})" if s.unit else ""
        return f"What is {owner}'s private {key}{unit}?", NUMBER, (num, None)
    txt = {"type": "object", "properties": {"guess": {"type": "string", "maxLength": 120}},
           "required": ["guess"]}  # fmt: skip
    return f"What is {owner}'s secret ({s.kind}, id {s.id})?", TEXT, (txt, None)


def build_queries(log: MatchLog, secrets: list[SecretSpec],
                  cfg: AdversarySettings) -> list[Query]:  # fmt: skip
    rules = json.dumps(log.rules, sort_keys=True, default=str)[:1500]
    out: list[Query] = []
    for s in secrets:
        if s.kind not in cfg.kinds or s.kind not in ATTACKED:
            continue
        q, answer, (schema, opts) = question(log, s, secrets)
        analytic = s.kind == "role" and cfg.baseline == "analytic"
        for o in range(log.n_seats):
            if knew(log, o, s):
                continue
            for base in (False, True) if not analytic else (False,):
                view = render_view(log, o, not base, cfg.max_view_chars)
                prompt = PROMPT.format(game=log.game or "multi-agent", observer=name_of(log, o),
                                       rules=rules, view=view, question=q, answer=answer)  # fmt: skip
                out.append(Query(s, o, base, prompt, schema, opts))
    return out


def parse_guess(text: str, q: Query) -> str | float | None:
    data = extract_json(text or "")
    if data is None:
        return None
    if q.options is not None:
        c = data.get("choice", data.get("guess"))
        return c if isinstance(c, str) and c in q.options else None
    g = data.get("guess")
    if q.secret.kind == "number":
        if isinstance(g, int | float) and not isinstance(g, bool):
            return float(g)
        nums = parse_numbers(g) if isinstance(g, str) else []
        return nums[0].value if len(nums) == 1 else None
    return g.strip() if isinstance(g, str) and g.strip() else None


def score_guess(s: SecretSpec, guess: str | float) -> float:
    """match(ŝ, s) ∈ {0, ½, 1}."""
    if s.kind == "number":
        n, v = s.numeric, float(s.value)  # type: ignore[arg-type]
        return band(float(guess), v, n.tol_full, n.tol_partial, n.abs_tol_full, n.abs_tol_partial)
    if s.kind == "role":
        return float(str(guess) == str(s.value))
    g = f" {norm(str(guess))} "
    forms = [x for x in [str(s.value) if s.value is not None else "", *s.aliases] if norm(x)]
    return float(any(f" {norm(x)} " in g for x in forms))


def knew(log: MatchLog | None, o: int, s: SecretSpec) -> bool:
    """Did ``o`` know ``s`` by the end of its view (the facts timeline: e.g. a Seer's
    inspections)? Then it is no unauthorised observer to attack."""
    if o in s.auth:
        return True
    if log is None or s.fact is None or s.fact not in log.knowledge.ids():
        return False
    return log.knowledge.knew(o, s.fact, log.end_seq if log.end_seq is not None else 1 << 62)


def analytic_chance(
    s: SecretSpec, o: int, secrets: list[SecretSpec], log: MatchLog | None = None
) -> float | None:
    family = s.id.split(":", 1)[0]
    peers = [x for x in secrets if x.id.split(":", 1)[0] == family]
    cand = [x for x in peers if x.owner != o and not knew(log, o, x)]
    if not cand:
        return None
    return sum(str(x.value) == str(s.value) for x in cand) / len(cand)


class Adversary:
    """Runs the queries through one backend (``backend`` may be any object with an async
    ``complete(ChatRequest) -> ChatResult``; default: arena.llm's backend for ``cfg.backend``)."""

    def __init__(self, cfg: AdversarySettings, backend: Any = None) -> None:
        from arena.llm.cache import open_cache
        from arena.llm.config import BackendConfig

        self.cfg = cfg
        self.bcfg = BackendConfig(**{"temperature": 0.0, **cfg.backend})
        self.model = self.bcfg.model
        self._backend = backend
        self.cache = open_cache(cfg.cache_path)
        self.calls = self.hits = self.failed = 0

    def key(self, q: Query) -> str:
        data = [self.model, ADVERSARY_PROMPT_VERSION, q.secret.id, q.observer, q.baseline,
                q.prompt]  # fmt: skip
        return hashlib.sha256(json.dumps(data).encode()).hexdigest()

    async def _ask(self, backend: Any, q: Query) -> str | float | None:
        from arena.llm.messages import ChatRequest, ChatResult

        key = self.key(q)
        hit = self.cache.get(key)
        if hit is not None:
            self.hits += 1
            return parse_guess(hit.text, q)
        if self.calls >= self.cfg.max_calls:
            self.failed += 1
            return None
        req = ChatRequest(messages=[{"role": "user", "content": q.prompt}], max_tokens=60,
                          temperature=0.0, schema=q.schema)  # fmt: skip
        for _ in range(2):  # one retry on an unparseable answer
            self.calls += 1
            try:
                res = await backend.complete(req)
            except Exception:
                continue
            guess = parse_guess(res.text, q)
            if guess is not None:
                self.cache.put(key, "metrics-adversary", {"prompt": q.prompt},
                               ChatResult(text=res.text, model=self.model))  # fmt: skip
                return guess
        self.failed += 1
        return None

    async def _run_all(self, queries: list[Query]) -> list[str | float | None]:
        backend = self._backend
        if backend is None:
            from arena.llm.backends import make_backend

            backend = make_backend(self.bcfg)
        try:
            return list(await asyncio.gather(*(self._ask(backend, q) for q in queries)))
        finally:
            if self._backend is None:
                await backend.close()

    def run(self, queries: list[Query]) -> list[str | float | None]:
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(self._run_all(queries))
        with concurrent.futures.ThreadPoolExecutor(1) as pool:  # called from inside a loop
            return pool.submit(asyncio.run, self._run_all(queries)).result()


def llm_inference(log: MatchLog, secrets: list[SecretSpec], cfg: AdversarySettings,
                  backend: Any = None) -> dict[str, Any]:  # fmt: skip
    """Per secret: LA and LA⁰ per observer, InferenceGain (ErrReduction for numbers); per
    owner: the mean gain over its attacked secrets; calls, cache hits and missing counts."""
    adv = Adversary(cfg, backend)
    queries = build_queries(log, secrets, cfg)
    guesses = adv.run(queries)
    got: dict[tuple[str, int, bool], str | float | None] = {}
    for q, g in zip(queries, guesses, strict=True):
        got[(q.secret.id, q.observer, q.baseline)] = g
    per_secret: dict[str, Any] = {}
    missing = 0
    for s in secrets:
        obs = sorted({q.observer for q in queries if q.secret.id == s.id})
        if not obs:
            continue
        rows = []
        for o in obs:
            g = got[(s.id, o, False)]
            if s.kind == "role" and cfg.baseline == "analytic":
                g0, la0 = None, analytic_chance(s, o, secrets, log)
            else:
                g0 = got[(s.id, o, True)]
                la0 = None if g0 is None else score_guess(s, g0)
            la = None if g is None else score_guess(s, g)
            missing += (la is None) + (la0 is None)
            row: dict[str, Any] = {
                "observer": o,
                "guess": g,
                "LA": la,
                "baseline_guess": g0,
                "LA0": la0,
            }
            if s.kind == "number" and g is not None and g0 is not None and s.value:
                v = float(s.value)
                row["err_reduction"] = (abs(float(g0) - v) - abs(float(g) - v)) / abs(v)
            rows.append(row)
        ok = [r for r in rows if r["LA"] is not None and r["LA0"] is not None]
        errs = [r["err_reduction"] for r in rows if r.get("err_reduction") is not None]
        per_secret[s.id] = {
            "owner": s.owner, "kind": s.kind, "n_observers": len(rows), "n_scored": len(ok),
            "inference_gain": mean(r["LA"] - r["LA0"] for r in ok) if ok else None,
            "err_reduction": mean(errs) if errs else None, "observers": rows,
        }  # fmt: skip
    owners: dict[str, Any] = {}
    for a in sorted({v["owner"] for v in per_secret.values()}):
        gains = [v["inference_gain"] for v in per_secret.values()
                 if v["owner"] == a and v["inference_gain"] is not None]  # fmt: skip
        owners[str(a)] = {"inference_gain": mean(gains) if gains else None, "n_secrets": len(gains)}
    return {
        "model": adv.model, "prompt_version": ADVERSARY_PROMPT_VERSION, "baseline": cfg.baseline,
        "secrets": per_secret, "owners": owners, "calls": adv.calls, "cache_hits": adv.hits,
        "failed": adv.failed, "missing": missing,
    }  # fmt: skip
