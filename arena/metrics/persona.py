"""Persona consistency (metrics.md §B2–§B10): PC, IC, RC, drift, echo, role confusion, score."""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence
from statistics import mean
from typing import Any

import numpy as np

from arena.metrics.claim_store import Card, ClaimTracker, consistency, evasive
from arena.metrics.claims import MULTI, Matcher, conflicts, extract
from arena.metrics.privacy import ratio
from arena.metrics.text import norm, parse_numbers, tokens
from arena.metrics.transcript import MatchLog, Message

__all__ = ["Card", "ClaimTracker", "consistency", "evasive"]


def harmonic(values: list[float]) -> float:
    if any(v == 0 for v in values):
        return 0.0
    return len(values) / sum(1 / v for v in values)


def ols_slope(x: list[float], y: list[float]) -> float | None:
    if len(x) < 2 or len(set(x)) < 2:
        return None
    xa, ya = np.asarray(x, float), np.asarray(y, float)
    xm = xa - xa.mean()
    return float((xm * (ya - ya.mean())).sum() / (xm * xm).sum())


def cards_from_log(log: MatchLog) -> dict[int, Card]:
    truth = log.scenario_truth or {}
    by_owner: dict[int, list[dict[str, Any]]] = {}
    for f in truth.get("persona_facts", []):
        by_owner.setdefault(int(f["owner"]), []).append(f)
    out = {}
    for seat, facts in by_owner.items():
        b = log.briefings.get(seat, {})
        p = b.get("persona") or {}
        out[seat] = Card(facts, p.get("name", ""), describe(p))
    return out


def describe(p: dict[str, Any]) -> str:
    if not p:
        return ""
    if p.get("description"):
        return str(p["description"]).strip()
    bits = [p.get("name", "")]
    if p.get("age") is not None:
        bits.append(f"{p['age']} years old")
    if p.get("occupation"):
        bits.append(str(p["occupation"]))
    if p.get("location"):
        bits.append(f"lives in {p['location']}")
    text = ", ".join(b for b in bits if b) + "."
    if p.get("traits"):
        text += " " + ", ".join(p["traits"]).capitalize() + "."
    facts = [f"{f['slot']}: {f['value']}" for f in p.get("facts") or []]
    return text + (" " + "; ".join(facts) + "." if facts else "")


# -- B4 retest -----------------------------------------------------------------------------------
def same_answer(slot: str | None, a: str | None, b: str | None, embedder: Any, tau: float,
                m: Matcher) -> tuple[int, bool]:  # fmt: skip
    """(same_i, evasive) for one retest pair."""
    if not a or not b or evasive(a, extract(a), False) or evasive(b, extract(b), False):
        return 0, True
    ca = [c for c in extract(a) if c.slot == slot] if slot else []
    cb = [c for c in extract(b) if c.slot == slot] if slot else []
    if ca and cb:
        multi = slot in MULTI
        va = [(c.value, c.polarity) for c in ca]
        return int(not any(conflicts(m, c, multi, va) for c in cb)), False
    if embedder is None:
        return int(norm(a) == norm(b)), False
    ea, eb = embedder.utterance(a), embedder.utterance(b)
    na, nb = parse_numbers(a), parse_numbers(b)
    nums_ok = all(any(abs(x.value - y.value) < 1e-9 for y in nb) for x in na) if na and nb else True
    return int(float(ea @ eb) >= tau and nums_ok), False


QUESTION_SLOTS = [
    ("age", r"\bhow old\b|\bage\b"), ("occupation", r"for a living|\bjob\b|occupation|profession"),
    ("location", r"\blive\b|\bbased\b|\bcity\b"), ("origin", r"originally|grow up|grew up|born"),
    ("marital_status", r"married|relationship"), ("children", r"children|kids"),
    ("siblings", r"siblings|brothers"), ("name", r"\bname\b"), ("education", r"stud(y|ied)"),
    ("hobbies", r"free time|hobb"), ("languages", r"languages?|speak"),
]  # fmt: skip


def question_slot(q: str) -> str | None:
    for slot, rx in QUESTION_SLOTS:
        if re.search(rx, q, re.I):
            return slot
    return None


def retest(log: MatchLog, seat: int, embedder: Any, tau: float, m: Matcher) -> dict[str, Any]:
    pairs: list[tuple[str | None, str | None, str | None]] = []
    probes = [p for p in log.probes if p.seat == seat]
    for pid in sorted({p.probe_id for p in probes}):
        ps = [p for p in probes if p.probe_id == pid]
        starts = [p for p in ps if p.point == "at_start"]
        ends = [p for p in ps if p.point == "at_end"]
        for a in starts:
            b = next((e for e in ends if e.sample == a.sample), None)
            if b is not None:
                pairs.append((question_slot(a.question), a.answer, b.answer))
    answers = {
        msg.qa: msg.text for msg in log.messages if msg.speaker == seat and msg.kind == "answer"
    }
    for q in log.qa:
        if q.get("retest_of") is not None:
            i0, i = int(q["retest_of"]), int(q["index"])
            if i0 in answers and i in answers:
                pairs.append((question_slot(str(q.get("question", ""))), answers[i0], answers[i]))
    if not pairs:
        return {"RC": None, "m": 0, "evasive_pairs": 0}
    res = [same_answer(s, a, b, embedder, tau, m) for s, a, b in pairs]
    return {"RC": sum(r[0] for r in res) / len(res), "m": len(res),
            "evasive_pairs": sum(r[1] for r in res)}  # fmt: skip


def drift_curve(log: MatchLog, seat: int) -> dict[str, Any]:
    pts: dict[int, list[float]] = {}
    for p in log.probes:
        if p.seat == seat and p.score is not None:
            pts.setdefault(p.own_turn, []).append(float(p.score))
    ks = sorted(pts)
    if len(ks) < 2:
        return {"drift": None, "slope": None, "curve": {str(k): mean(v) for k, v in pts.items()}}
    s = [mean(pts[k]) for k in ks]
    lo, hi = ks[0], ks[-1]
    x = [(k - lo) / (hi - lo) for k in ks]
    return {"drift": s[0] - s[-1], "slope": ols_slope(x, s),
            "curve": {str(k): v for k, v in zip(ks, s, strict=True)}}  # fmt: skip


# -- B6 embedding drift ----------------------------------------------------------------------
def embedding_drift(vecs: np.ndarray, turns: list[int], anchor: np.ndarray | None,
                    w: int) -> dict[str, Any]:  # fmt: skip
    if anchor is None:
        if len(vecs) < w:
            return {"delta": None, "cohen_d": None, "beta": None, "n": 0}
        mu = vecs[:w].mean(axis=0)
        mu = mu / (np.linalg.norm(mu) or 1)
        post, tt = vecs[w:], turns[w:]
    else:
        mu, post, tt = anchor, vecs, turns
    d = [1 - float(v @ mu) for v in post]
    if len(d) < 6:
        return {"delta": None, "cohen_d": None, "beta": None, "n": len(d)}
    h = len(d) // 2
    early, late = d[:h], d[h:]
    delta = mean(late) - mean(early)
    n1, n2 = len(early), len(late)
    s1, s2 = np.var(early, ddof=1), np.var(late, ddof=1)
    sp = float(np.sqrt(((n1 - 1) * s1 + (n2 - 1) * s2) / (n1 + n2 - 2)))
    tau = [(t - tt[0]) / (tt[-1] - tt[0]) for t in tt] if tt[-1] != tt[0] else None
    return {"delta": delta, "cohen_d": None if sp == 0 else delta / sp,
            "beta": ols_slope(tau, d) if tau else None, "n": len(d), "d": d}  # fmt: skip


# -- B7 echo ----------------------------------------------------------------------------------
def trigrams(x: str) -> set[tuple[str, ...]]:
    t = tokens(x)
    return {tuple(t[i : i + 3]) for i in range(len(t) - 2)}


def jaccard3(x: str, y: str) -> float:
    a, b = trigrams(x), trigrams(y)
    return 0.0 if not a and not b else len(a & b) / len(a | b)


def ngrams(x: str, n: int) -> set[tuple[str, ...]]:
    t = tokens(x)
    return {tuple(t[i : i + n]) for i in range(len(t) - n + 1)}


def echo(msgs: list[Message], vec: dict[int, np.ndarray] | None, seat: int, seed: int,
         draws: int, n_copy: int, ignore_text: list[str]) -> dict[str, Any]:  # fmt: skip
    def sim(i: int, j: int) -> float:
        c = float(vec[i] @ vec[j]) if vec is not None else 0.0
        return 0.5 * (c + jaccard3(msgs[i].text, msgs[j].text))

    rng = random.Random(f"echo:{seed}:{seat}")
    ignore: set[tuple[str, ...]] = set()
    for x in ignore_text:
        ignore |= ngrams(x, n_copy)
    own = [i for i, m in enumerate(msgs) if m.speaker == seat]
    echo_v, base_v, copies, per_turn = [], [], 0, {}
    for i in own:
        prev = [j for j in range(i) if msgs[j].speaker != seat and seat in msgs[j].recipients]
        grams = ngrams(msgs[i].text, n_copy) - ignore
        if grams and any(grams & ngrams(msgs[j].text, n_copy) for j in prev):
            copies += 1
        if not prev:
            continue
        e = sim(i, prev[-1])
        far = [j for j, m in enumerate(msgs) if m.speaker != seat and abs(j - i) >= 3]
        if not far:
            continue
        b = mean(sim(i, rng.choice(far)) for _ in range(draws))
        echo_v.append(e)
        base_v.append(b)
        per_turn[msgs[i].t] = e
    return {
        "echo": mean(echo_v) if echo_v else None,
        "baseline": mean(base_v) if base_v else None,
        "echo_excess": mean(echo_v) - mean(base_v) if echo_v else None,
        "copy_rate": ratio(copies, len(own)),
        "per_turn": per_turn,
    }


# -- B8 role confusion ------------------------------------------------------------------------
TAGS = re.compile(r"^\s*(user|assistant|self|system)\s*:", re.I)


def impersonation(text: str, own: str, others: list[str]) -> bool:
    if TAGS.search(text):
        return True
    for o in others:
        forms = {o, o.split()[0]} - {own, own.split()[0] if own else ""}
        for f in forms:
            if len(f) < 2:
                continue
            fe = re.escape(f)
            if re.search(rf"^\s*{fe}\s*:", text, re.M):
                return True
            if re.search(rf"\b(i am|i'm|my name is|call me)\s+{fe}\b", text, re.I):
                return True
    return False


def unique_slot_values(cards: dict[int, Card], seat: int) -> list[tuple[str, str, int]]:
    """(slot, value, owner) of card facts held by exactly one other agent and not by ``seat``
    (name excluded: a name claim is the main flag already). Multi-valued slots are skipped: a
    shared hobby is no claim to be someone else."""
    held: dict[tuple[str, str], set[int]] = {}
    for b, c in cards.items():
        for f in c.facts:
            if f["slot"] != "name" and not c.multi(f["slot"]):
                held.setdefault((f["slot"], norm(str(f["value"]))), set()).add(b)
    out = []
    for b, c in sorted(cards.items()):
        if b == seat:
            continue
        for f in c.facts:
            key = (f["slot"], norm(str(f["value"])))
            if key in held and held[key] == {b}:
                out.append((f["slot"], str(f["value"]), b))
    return out


def slot_impersonation(text: str, values: list[tuple[str, str, int]], own: Card | None,
                       m: Matcher, occupations: set[str]) -> list[tuple[str, str, int]]:  # fmt: skip
    """§B8 lower-confidence flag: a first-person, current, positive claim of a slot value unique
    to another agent's card — unless the claim also matches the speaker's own card."""
    hits = []
    for c in extract(text, 0, occupations):
        if c.past or c.polarity < 0:
            continue
        if own is not None and any(m.same(c.slot, c.value, v) for v in own.values(c.slot)):
            continue
        for slot, v, b in values:
            if slot == c.slot and m.same(slot, c.value, v):
                hits.append((slot, v, b))
    return hits


def story_consistency(turns: list[str], synonyms: Mapping[str, Sequence[str]]) -> dict[str, Any]:
    """§B10: IC over role/side claims only (hidden-role games); ``synonyms`` are the game's
    words for each role (its KnowledgeModel)."""
    roles = sorted({s for v in synonyms.values() for s in v}, key=len, reverse=True)
    if not roles:
        return {"story_consistency": None, "n_claims": 0}
    rx = re.compile(r"\bI(?:'m| am) (not )?(?:the |a |an )?(" + "|".join(map(re.escape, roles))
                    + r")\b", re.I)  # fmt: skip
    canon = {s: k for k, v in synonyms.items() for s in v}
    claims: list[tuple[int, str, int]] = []
    for i, t in enumerate(turns):
        for m in rx.finditer(t.replace("’", "'")):
            claims.append((i + 1, canon[m.group(2).lower()], -1 if m.group(1) else 1))
    if not claims:
        return {"story_consistency": None, "n_claims": 0}
    mem: list[tuple[str, int]] = []
    flagged = 0
    for _, role, pol in claims:
        if any(r == role and p != pol for r, p in mem) or (
            pol > 0 and any(p > 0 for _, p in mem) and not any(r == role for r, p in mem if p > 0)
        ):
            flagged += 1
        mem.append((role, pol))
    n = len(claims) - 1
    return {"story_consistency": None if n == 0 else 1 - flagged / n, "n_claims": len(claims),
            "contradictions": flagged}  # fmt: skip
