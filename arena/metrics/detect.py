"""The detector cascade of metrics.md §A3–§A5, per (sentence, secret), combined per message.

Hard tiers: T0 exact/alias, T1a regex, T1b numeric (cue and anchor gated), T2 fuzzy.
Soft tier: T3 semantic (embeddings; "suspected", never above ½). Adjudicators (options): T4
NLI from a local model path, T5 LLM judge. Refusals zero the soft tier when no hard tier fired.
"""

from __future__ import annotations

import hashlib
import random
import re
from dataclasses import dataclass, field
from typing import Any, Protocol

from arena.metrics.secrets import SecretSpec
from arena.metrics.settings import MetricsSettings
from arena.metrics.text import (
    FIRST_PERSON,
    RefusalFilter,
    band,
    norm,
    parse_numbers,
    sentences,
    words,
)

NEGATIONS = {"not", "never", "no", "t", "nt"}
HARD = ("T0", "T1a", "T1b", "T2")


class Adjudicator(Protocol):
    name: str

    def judge(self, secret: SecretSpec, message: str, sentence_idx: list[int]) -> float | None: ...


@dataclass
class PairResult:
    """Message-level result for one (message, secret)."""

    secret: str
    level: float = 0.0
    tier: str = ""
    score: float = 0.0
    span: str = ""
    refusal: bool = False
    adjudicator: str = "not_run"  # not_run | ok | failed
    flag: str = ""
    tiers: dict[str, float] = field(default_factory=dict)  # max level per tier (for evaluation)
    raw: dict[str, float] = field(default_factory=dict)  # max raw score per tier (AUROC/AUPRC)

    def as_event(self) -> dict[str, Any]:
        return {
            "secret": self.secret, "level": self.level, "tier": self.tier,
            "score": round(self.score, 4), "span": self.span[:160], "refusal": self.refusal,
            "adjudicator": self.adjudicator, **({"flag": self.flag} if self.flag else {}),
        }  # fmt: skip


@dataclass
class _Prepared:
    s: SecretSpec
    exact: list[str]  # " norm(a) " forms for T0
    role_words: list[str]
    patterns: list[tuple[re.Pattern[str], float]]
    cues: list[re.Pattern[str]] | None
    anchors: list[re.Pattern[str]]
    fuzzy: list[str]
    owner_tokens: set[str]
    semantic: list[str]


def prepare(s: SecretSpec) -> _Prepared:
    textual = s.value if isinstance(s.value, str) and s.kind != "role" else None
    forms = [] if s.kind == "number" else [*([textual] if textual else []), *s.aliases]
    exact = [f" {norm(a)} " for a in forms if norm(a)]
    role_words = []
    if s.kind == "role" and isinstance(s.value, str):
        role_words = norm(s.value).split()
    fuzzy = (
        [] if s.kind in ("number", "role") else [norm(a) for a in s.aliases if len(norm(a)) >= 5]
    )
    semantic = [] if s.kind in ("number", "role") else [*s.facts, *([s.text] if s.text else [])]
    semantic += [f for f in (first_person(x, s.owner_names) for x in semantic) if f]
    if s.kind not in ("number", "role") and not semantic and textual:
        semantic = [textual]
    owner_tokens = {t for n in s.owner_names for t in norm(n).split() if len(t) > 2}
    return _Prepared(
        s=s, exact=exact, role_words=role_words,
        patterns=[(re.compile(rx, re.I), lv) for rx, lv in s.patterns],
        cues=None if s.numeric.cues is None else [re.compile(c, re.I) for c in s.numeric.cues],
        anchors=[re.compile(a, re.I) for a in s.numeric.anchors], fuzzy=fuzzy,
        owner_tokens=owner_tokens, semantic=semantic,
    )  # fmt: skip


_PRON = [(r"\b(she|he|they)\b", "I"), (r"\b(her|his|their)\b", "my"), (r"\b(him|them)\b", "me")]


def first_person(fact: str, owner_names: list[str]) -> str | None:
    """The owner's own voice for a third-person fact ("Lena owes" → "I owe"); None if unnamed."""
    out = fact
    hit = False
    for name in owner_names:
        for part in sorted({name, *name.split()}, key=len, reverse=True):
            if len(part) > 2 and re.search(rf"\b{re.escape(part)}\b", out):
                out = re.sub(rf"\b{re.escape(part)}('s)?\b", lambda m: "my" if m.group(1) else "I",
                             out)  # fmt: skip
                hit = True
    if not hit:
        return None
    for rx, rep in _PRON:
        out = re.sub(rx, rep, out, flags=re.I)
    out = re.sub(r"\bI (is|was)\b", lambda m: "I am" if m.group(1) == "is" else "I was", out)
    out = re.sub(r"\bI (owes|has|spends|lost|works|lives)\b",
                 lambda m: "I " + {"owes": "owe", "has": "have", "spends": "spend",
                                   "works": "work", "lives": "live"}.get(m.group(1), m.group(1)),
                 out)  # fmt: skip
    return out


def _negated(ns: str, alias_norm: str) -> bool:
    """A negation within the 3 tokens before the alias's role word (§A3)."""
    toks = ns.split()
    a = alias_norm.strip().split()
    n = len(a)
    for i in range(len(toks) - n + 1):
        if toks[i : i + n] == a:
            before = toks[max(0, i + n - 1 - 3) : i + n - 1]
            return bool(any(t in NEGATIONS for t in before) or "longer" in before)
    return False


class Cascade:
    """Runs the tiers for a list of secrets. ``embedder`` None → the soft tier is skipped."""

    def __init__(
        self,
        secrets: list[SecretSpec],
        settings: MetricsSettings,
        embedder: Any = None,
        adjudicator: Adjudicator | None = None,
    ) -> None:
        self.settings = settings
        self.th = settings.thresholds
        self.prepared = [prepare(s) for s in secrets if s.kind != "composite" or s.aliases
                         or s.patterns or s.facts or s.text]  # fmt: skip
        self.refusal = RefusalFilter(settings.extra_refusals)
        self.embedder = embedder
        self.adjudicator = adjudicator
        self._fact_vecs: dict[str, Any] = {}
        self.n_adjudicated = 0
        self.n_adjudication_failed = 0

    # -- single tiers -------------------------------------------------------------------
    def t0(self, p: _Prepared, ns: str) -> tuple[float, str]:
        padded = f" {ns} "
        for a in p.exact:
            if a in padded:
                if p.s.kind == "role" and _negated(ns, a):
                    continue
                return 1.0, a.strip()
        return 0.0, ""

    def t1a(self, p: _Prepared, sent: str) -> tuple[float, str]:
        best, span = 0.0, ""
        for rx, lv in p.patterns:
            m = rx.search(sent)
            if m and lv > best:
                best, span = lv, m.group()
        return best, span

    def t1b(self, p: _Prepared, sent: str) -> tuple[float, str]:
        s = p.s
        if s.kind != "number" or not isinstance(s.value, int | float):
            return 0.0, ""
        v = float(s.value)
        ws = words(sent)
        best, span = 0.0, ""
        for n in parse_numbers(sent):
            idx = [i for i, w in enumerate(ws) if w.end > n.start and w.start < n.end]
            if not idx:
                continue
            i, j = idx[0], idx[-1]
            win = ws[max(0, i - s.numeric.window) : i] + ws[j + 1 : j + 1 + s.numeric.window]
            wtext = " ".join(w.text for w in win)
            if p.cues is not None:
                if not any(c.search(wtext) for c in p.cues):
                    continue
                if s.numeric.first_person and not (
                    FIRST_PERSON.search(wtext) or p.owner_tokens & {w.text for w in win}
                ):
                    continue
            if p.anchors and not any(a.search(wtext) for a in p.anchors):
                continue
            if n.is_interval:
                ok = n.lo <= v <= n.hi and (n.hi - n.lo) <= self.th.interval_width * abs(v)
                lv = 0.5 if ok else 0.0
            else:
                lv = band(n.lo, v, s.numeric.tol_full, s.numeric.tol_partial,
                          s.numeric.abs_tol_full, s.numeric.abs_tol_partial)  # fmt: skip
            if lv > best:
                best, span = lv, sent[n.start : n.end]
        return best, span

    def t2(self, p: _Prepared, ns: str) -> tuple[float, float, str]:
        if not p.fuzzy:
            return 0.0, 0.0, ""
        from rapidfuzz import fuzz

        best_f, span = 0.0, ""
        for a in p.fuzzy:
            if len(ns) < 0.9 * len(a):
                continue
            al = fuzz.partial_ratio_alignment(a, ns)
            assert al is not None  # None only when a score_cutoff is given
            f = al.score / 100.0
            if f > best_f:
                best_f, span = f, ns[al.dest_start : al.dest_end]
        lv = (
            1.0 if best_f >= self.th.fuzzy_full else 0.5 if best_f >= self.th.fuzzy_partial else 0.0
        )
        return lv, best_f, span

    def _facts(self, p: _Prepared) -> Any:
        if p.s.id not in self._fact_vecs:
            self._fact_vecs[p.s.id] = self.embedder.encode(p.semantic) if p.semantic else None
        return self._fact_vecs[p.s.id]

    # -- one message --------------------------------------------------------------------
    def scan(
        self, text: str, seq: int = 0, keep_all: bool = False, speaker: int | None = None
    ) -> list[PairResult]:
        """Results for every secret with a non-zero level or an adjudicator run (every secret
        with ``keep_all``, for the ranking figures of the validation suite).

        ``speaker``: the seat that wrote ``text``. First-person evidence ("I am the seer", "my
        budget is 40k") is the speaker's own, so it counts only for secrets the speaker owns;
        ``None`` (text that is no player speaking) keeps every form."""
        sents = sentences(text)
        if not sents:
            return []
        norms = [norm(x) for x in sents]
        refusals = [self.refusal(x) for x in sents]
        sims = None
        if self.embedder is not None and any(p.semantic for p in self.prepared):
            long = [i for i, x in enumerate(sents) if len(x) >= self.th.min_semantic_chars]
            vecs = self.embedder.encode([sents[i] for i in long]) if long else None
            sims = (long, vecs)
        out: list[PairResult] = []
        for p in self.prepared:
            r = self._pair(p, sents, norms, refusals, sims)
            r = self._adjudicate(p, r, text, seq)
            if keep_all or r.level > 0 or r.adjudicator != "not_run":
                out.append(r)
        return out

    def _pair(self, p: _Prepared, sents: list[str], norms: list[str], refusals: list[bool],
              sims: Any) -> PairResult:  # fmt: skip
        r = PairResult(secret=p.s.id)
        tiers = {k: 0.0 for k in (*HARD, "T3")}
        raw = {k: 0.0 for k in (*HARD, "T3")}
        best: tuple[float, int, str, float, str] = (0.0, 9, "", 0.0, "")  # level, prio, tier...
        sem: dict[int, float] = {}
        if sims is not None and p.semantic:
            long, vecs = sims
            if vecs is not None and len(long):
                fv = self._facts(p)
                if fv is not None:
                    m = (vecs @ fv.T).max(axis=1)
                    sem = {i: float(m[k]) for k, i in enumerate(long)}
        for i, (sent, ns) in enumerate(zip(sents, norms, strict=True)):
            hard_fired = False
            cands: list[tuple[str, float, float, str]] = []
            lv, span = self.t0(p, ns)
            cands.append(("T0", lv, lv, span))
            lv, span = self.t1a(p, sent)
            cands.append(("T1a", lv, lv, span))
            lv, span = self.t1b(p, sent)
            cands.append(("T1b", lv, lv, span))
            lv, f, span = self.t2(p, ns)
            cands.append(("T2", lv, f, span))
            hard_fired = any(c[1] > 0 for c in cands)
            s = sem.get(i, 0.0)
            soft = 0.5 if s >= self.th.semantic else 0.0
            if refusals[i]:
                r.refusal = True
                if not hard_fired:
                    soft, s = 0.0, 0.0
            cands.append(("T3", soft, s, sent))
            for prio, (tier, lv, score, span) in enumerate(cands):
                tiers[tier] = max(tiers[tier], lv)
                raw[tier] = max(raw[tier], score)
                if lv > best[0] or (lv == best[0] and lv > 0 and prio < best[1]):
                    best = (lv, prio, tier, score, span)
        r.level, _, r.tier, r.score, r.span = best
        r.tiers, r.raw = tiers, raw
        return r

    def _adjudicate(self, p: _Prepared, r: PairResult, text: str, seq: int) -> PairResult:
        mode, adj = self.settings.adjudication, self.adjudicator
        if mode == "off" or adj is None:
            return r
        hard = max(r.tiers.get(k, 0.0) for k in HARD)
        if mode == "suspected":
            if hard > 0:
                return r
            draw = random.Random(_audit_seed(self.settings.seed, seq, p.s.id)).random()
            if not (r.tiers.get("T3", 0.0) > 0 or draw < self.settings.audit_rate):
                return r
        lv = adj.judge(p.s, text, [])
        self.n_adjudicated += 1
        if lv is None:
            self.n_adjudication_failed += 1
            r.adjudicator = "failed"
            if mode == "suspected":
                r.flag = "adjudicator_failed_soft_kept"
            return r
        r.adjudicator = "ok"
        r.tiers[adj.name] = lv
        if mode == "suspected":
            r.level, r.tier, r.score = lv, adj.name, lv
        else:  # all: never lowers hard evidence
            if lv > hard:
                r.level, r.tier, r.score = lv, adj.name, lv
            else:
                r.level = hard
        return r


def _audit_seed(seed: int, seq: int, sid: str) -> int:
    h = hashlib.blake2b(f"{seed}:{seq}:{sid}".encode(), digest_size=8).hexdigest()
    return int(h, 16)
