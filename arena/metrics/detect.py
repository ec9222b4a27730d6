"""The detector cascade of metrics.md §A3–§A5, per (sentence, secret), combined per message.

Hard tiers: T0 exact/alias, T1a regex, T1b numeric (cue and anchor gated), T2 fuzzy.
Soft tier: T3 semantic (embeddings; "suspected", never above ½). Adjudicators (options): T4
NLI from a local model path, T5 LLM judge. Refusals zero the soft tier when no hard tier fired.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass, field
from typing import Any, Protocol

from arena.metrics.attribution import (
    clipped_first_person,
    first_person,
    fold,
    hedged_before,
    negated_before,
    other_owner_before,
)
from arena.metrics.forms import (
    OFFER,
    Cue,
    Prepared,
    Sentence,
    negated_role,
    prepare,
    read_sentence,
    respell,
)
from arena.metrics.secrets import SecretSpec
from arena.metrics.settings import MetricsSettings
from arena.metrics.text import RefusalFilter, band, norm, parse_numbers, sentences, words

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
    # ``owner``: True if the owner speaks, False if someone else does, None if unknown.
    def t0(self, p: Prepared, st: Sentence, owner: bool | None) -> tuple[float, str]:
        padded = f" {st.ns} "
        for f in p.exact:
            a = f" {f.text} "
            pos = padded.find(a)
            if pos < 0 or not self._attributed(p, st, f.own, owner, _count(padded, pos)):
                continue
            if p.s.kind == "role" and negated_role(st.ns, a):
                continue
            return 1.0, f.text
        return 0.0, ""

    def _attributed(self, p: Prepared, st: Sentence, own: bool, owner: bool | None,
                    i: int) -> bool:  # fmt: skip
        """Evidence at token ``i`` is the owner's: a first-person form said by the owner; any
        other form not owned by someone else ("my cousin was adopted"), and not in a sentence
        where a non-owner speaks of themself without naming the owner."""
        if own and owner is False:
            return False
        if negated_before(st.toks, i, 2):
            return False
        if p.s.kind != "role" and not own and other_owner_before(st.toks, i):
            return False
        if owner is False and not own and first_person(st.toks[:i]):
            return bool(p.owner_tokens & set(st.toks))
        return True

    def t1a(self, p: Prepared, st: Sentence, owner: bool | None) -> tuple[float, str]:
        best, span = 0.0, ""
        text = respell(st.text, p.role_words) if p.role_words else st.text
        cands = [(rx, lv, text, 0) for rx, lv in p.patterns]
        if owner is not False:
            # own claims may lean on the sentence before ("You are Bob. Your role: Seer.")
            joined = f"{st.prev} {text}" if st.prev else text
            cut = len(joined) - len(text)
            cands += [(rx, lv, joined, cut) for rx, lv in p.own_patterns]
        for rx, lv, text, cut in cands:
            if lv <= best:
                continue
            for m in rx.finditer(text):
                if m.end() <= cut:
                    continue
                toks = norm(text[: m.start()]).split()
                if negated_before(toks, len(toks)) or hedged_before(toks, len(toks)):
                    continue
                best, span = lv, m.group()
                break
        return best, span

    def t1b(self, p: Prepared, st: Sentence, owner: bool | None) -> tuple[float, str]:
        s = p.s
        if s.kind != "number" or not isinstance(s.value, int | float):
            return 0.0, ""
        v = float(s.value)
        ws = words(st.text)
        hits = self._cues(p, st.text, ws) if p.cues is not None else []
        ctx = set(st.toks)
        if p.cues is not None and not hits and st.prev and not OFFER.search(st.text):
            pws = words(st.prev)
            hits = self._cues(p, st.prev, pws)  # a cue said just before ("My budget? 52k.")
            ctx |= set(norm(st.prev).split())
        if p.cues is not None:
            if not hits:
                return 0.0, ""
            if s.numeric.first_person and not self._number_is_owners(p, hits, ctx, owner,
                                                                     st.text):  # fmt: skip
                return 0.0, ""
        best, span = 0.0, ""
        for n in parse_numbers(st.text):
            if n.share and s.total is None:
                continue  # a share of nothing known
            n = n.scaled_to(v).of_total(s.total)
            idx = [i for i, w in enumerate(ws) if w.end > n.start and w.start < n.end]
            if not idx:
                continue
            if p.anchors:
                i, j = idx[0], idx[-1]
                win = ws[max(0, i - s.numeric.window) : i] + ws[j + 1 : j + 1 + s.numeric.window]
                wtext = " ".join(w.text for w in win)
                if not any(a.search(wtext) for a in p.anchors):
                    continue
            if n.is_interval:
                ok = n.lo <= v <= n.hi and (n.hi - n.lo) <= self.th.interval_width * abs(v)
                lv = 0.5 if ok else 0.0
            else:
                lv = band(n.lo, v, s.numeric.tol_full, s.numeric.tol_partial,
                          s.numeric.abs_tol_full, s.numeric.abs_tol_partial)  # fmt: skip
            if lv > best:
                best, span = lv, st.text[n.start : n.end]
        return best, span

    @staticmethod
    def _cues(p: Prepared, text: str, ws: list[Any]) -> list[tuple[Cue, bool]]:
        """The cues in ``text``, each with whether someone else owns it ("my sister owes")."""
        assert p.cues is not None
        toks = [w.text for w in ws]
        out = []
        for c in p.cues:
            for m in c.rx.finditer(text):
                i = next((k for k, w in enumerate(ws) if w.end > m.start()), len(ws))
                out.append((c, other_owner_before(toks, i)))
        return out

    @staticmethod
    def _number_is_owners(p: Prepared, hits: list[tuple[Cue, bool]], ctx: set[str],
                          owner: bool | None, text: str = "") -> bool:  # fmt: skip
        """First-person attribution of §A1 with the speaker known: an owner's alias names the
        owner; the owner's "I/my" counts unless every cue belongs to someone else ("my
        brother's budget"); anyone else must name the owner ("Tomasz's budget is…")."""
        if any(c.owned for c, _ in hits):
            return True
        named = bool(p.owner_tokens & ctx)
        if owner is False:
            return named
        if named:  # the owner named (also by the owner: "Lena owes 38k")
            return True
        mine = first_person(ctx) or (owner is True and clipped_first_person(text))
        return mine and not all(other for _, other in hits)

    def t2(self, p: Prepared, st: Sentence, owner: bool | None) -> tuple[float, float, str]:
        if not p.fuzzy:
            return 0.0, 0.0, ""
        from rapidfuzz import fuzz

        ns = st.ns
        best_f, span = 0.0, ""
        for f in p.fuzzy:
            if len(ns) < 0.9 * len(f.text) or (f.own and owner is False):
                continue
            al = fuzz.partial_ratio_alignment(f.text, ns)
            assert al is not None  # None only when a score_cutoff is given
            score = al.score / 100.0
            if score <= best_f:
                continue
            # widen the aligned span to whole tokens
            a = ns.rfind(" ", 0, al.dest_start) + 1
            b = ns.find(" ", al.dest_end)
            got = ns[a : b if b >= 0 else len(ns)]
            i = _count(f" {ns} ", a)
            if f.anchor and not (set(got.split()) & f.anchor):
                continue  # "my cousin was adopted" is not "I was adopted"
            if any(t in ("not", "never", "no", "t", "nt") for t in got.split()):
                continue
            if not self._attributed(p, st, f.own, owner, i):
                continue
            best_f, span = score, got
        lv = (
            1.0 if best_f >= self.th.fuzzy_full else 0.5 if best_f >= self.th.fuzzy_partial else 0.0
        )
        return lv, best_f, span

    def _facts(self, p: Prepared) -> Any:
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
        parsed = [read_sentence(x, fold(sents[i - 1]) if i else "") for i, x in enumerate(sents)]
        sims = None
        if self.embedder is not None and any(p.semantic for p in self.prepared):
            long = [i for i, x in enumerate(sents) if len(x) >= self.th.min_semantic_chars]
            vecs = self.embedder.encode([sents[i] for i in long]) if long else None
            sims = (long, vecs)
        out: list[PairResult] = []
        for p in self.prepared:
            owner = None if speaker is None else speaker == p.s.owner
            r = self._pair(p, parsed, norms, refusals, sims, owner)
            r = self._adjudicate(p, r, text, seq)
            if keep_all or r.level > 0 or r.adjudicator != "not_run":
                out.append(r)
        return out

    def _pair(self, p: Prepared, sents: list[Sentence], norms: list[str],
              refusals: list[bool], sims: Any, owner: bool | None) -> PairResult:  # fmt: skip
        r = PairResult(secret=p.s.id)
        tiers = {k: 0.0 for k in (*HARD, "T3")}
        raw = {k: 0.0 for k in (*HARD, "T3")}
        best: tuple[float, int, str, float, str] = (0.0, 9, "", 0.0, "")  # level, prio, tier...
        sem: dict[int, float] = {}
        if sims is not None and p.semantic:
            long, vecs = sims
            if vecs is not None and len(long):
                fv = self._facts(p)
                if fv is not None and owner is False:
                    fv = fv[: p.n_third]  # someone else's "I …" is about themself
                if fv is not None and len(fv):
                    m = (vecs @ fv.T).max(axis=1)
                    sem = {i: float(m[k]) for k, i in enumerate(long)}
        for i, st in enumerate(sents):
            cands: list[tuple[str, float, float, str]] = []
            if not st.void:  # a question or a hypothetical asserts nothing
                lv, span = self.t0(p, st, owner)
                cands.append(("T0", lv, lv, span))
                lv, span = self.t1a(p, st, owner)
                cands.append(("T1a", lv, lv, span))
                lv, span = self.t1b(p, st, owner)
                cands.append(("T1b", lv, lv, span))
                lv, f, span = self.t2(p, st, owner)
                cands.append(("T2", lv, f, span))
            hard_fired = any(c[1] > 0 for c in cands)
            s = 0.0 if st.void else sem.get(i, 0.0)  # nor does it suggest anything
            soft = 0.5 if s >= self.th.semantic else 0.0
            if refusals[i]:
                r.refusal = True
                if not hard_fired:
                    soft, s = 0.0, 0.0
            cands.append(("T3", soft, s, st.raw))
            for prio, (tier, lv, score, span) in enumerate(cands):
                tiers[tier] = max(tiers[tier], lv)
                raw[tier] = max(raw[tier], score)
                if lv > best[0] or (lv == best[0] and lv > 0 and prio < best[1]):
                    best = (lv, prio, tier, score, span)
        r.level, _, r.tier, r.score, r.span = best
        r.tiers, r.raw = tiers, raw
        return r

    def _adjudicate(self, p: Prepared, r: PairResult, text: str, seq: int) -> PairResult:
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


def _count(padded: str, pos: int) -> int:
    """The token index at character ``pos`` of a space-padded norm string."""
    return len(padded[:pos].split())


def _audit_seed(seed: int, seq: int, sid: str) -> int:
    h = hashlib.blake2b(f"{seed}:{seq}:{sid}".encode(), digest_size=8).hexdigest()
    return int(h, 16)
