"""Goal scoring (spec §7): rule predicates over the event log, and the optional judge hook.

Rule predicates ``agreed`` and ``said`` are exact. ``learned``, ``kept`` and ``disclosed`` need an
exposure level; the engine's built-in estimate is the hard exact/alias tier of metrics.md §A3
(T0, plus a full-band numeric match for ``number`` secrets, gated by the secret's cue words in the
same sentence). The metrics issue computes the full cascade; this estimate never claims more.

Judge hook: ``rules.judge = "module:callable"``. The callable receives a :class:`JudgeRequest`
and returns a score in [0, 1] or ``None`` (missing — a failed or unparseable judgement is never 0).
It is called once per goal when the match ends.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict

from arena.events import GameEvent
from arena.registry import load_object
from games.persona_dialogue.cast import Cast
from personas.schema import Predicate, Secret

_NUM = re.compile(r"(?<![\w.])(\d{1,3}(?:[,\s_]\d{3})+|\d+(?:\.\d+)?)\s*(k|K|thousand)?\b")


@dataclass(frozen=True)
class Play:
    """What scoring reads of a game in progress: the cast, the event log and who agreed to what."""

    cast: Cast
    log: Sequence[GameEvent]
    agreed: dict[str, list[int]]


class JudgeRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    scenario: str
    seat: int
    character: str
    goal: str
    transcript: list[str]  # neutral lines of every delivered message, in order


def norm(text: str) -> str:
    return " ".join(re.sub(r"[^0-9a-z]+", " ", text.casefold()).split())


def _numbers(sentence: str) -> list[float]:
    out = []
    for m in _NUM.finditer(sentence):
        digits = re.sub(r"[,\s_]", "", m.group(1))
        try:
            n = float(digits)
        except ValueError:
            continue
        out.append(n * 1000 if m.group(2) else n)
    return out


def level(secret: Secret, text: str) -> float:
    """Hard-tier exposure level of one message for one secret (0 or 1)."""
    if secret.kind == "number":
        v = secret.numeric_value
        assert v is not None
        tol = secret.numeric.tol_full if secret.numeric else 0.005
        cues = secret.numeric.cues if secret.numeric else None
        for sent in re.split(r"(?<=[.!?])\s+|\n", text):
            if cues and not any(re.search(c, sent, re.I) for c in cues):
                continue
            if any(abs(n - v) <= tol * abs(v) for n in _numbers(sent)):
                return 1.0
        return 0.0
    forms = list(secret.aliases)
    if secret.kind != "fact" and isinstance(secret.value, str):
        forms.append(secret.value)
    hay = f" {norm(text)} "
    return 1.0 if any(f" {norm(a)} " in hay for a in forms if norm(a)) else 0.0


Delivery = tuple[int, tuple[int, ...], str]


def deliveries(log: Sequence[GameEvent]) -> list[Delivery]:
    """(speaker, recipients, text) of every delivered speech-like event."""
    out = []
    for e in log:
        if e.type in ("utterance", "act") and e.actor is not None:
            rec = tuple(int(s) for s in e.payload.get("recipient_seats", ()))
            out.append((e.actor, rec, str(e.payload.get("message", ""))))
    return out


def exposure(cast: Cast, said: list[Delivery], observer: int, secret: Secret) -> float:
    """How much of ``secret`` was delivered to ``observer`` by someone else (0, ½ or 1)."""
    if secret.kind == "composite":
        parts = [cast.secret(f) for f in secret.fragments]
        k = secret.k_of_n or len(parts)
        known = sum(exposure(cast, said, observer, p) >= 1.0 for p in parts if p is not None)
        if known >= k:
            return 1.0
    best = 0.0
    for speaker, rec, text in said:
        if observer in rec and speaker != observer:
            best = max(best, level(secret, text))
    return best


def predicate_true(play: Play, seat: int, pr: Predicate) -> bool:
    cast, said = play.cast, deliveries(play.log)
    if pr.agreed is not None:
        need = {cast.seat_of(c) for c in pr.agreed.by}
        return need <= set(play.agreed.get(pr.agreed.id, ()))
    if pr.said is not None:
        return any(s == seat and re.search(pr.said, t, re.I) for s, _, t in said)
    if pr.learned is not None:
        sec = cast.secret(pr.learned)
        return sec is not None and exposure(cast, said, seat, sec) >= 1.0
    if pr.kept is not None:
        sec = cast.secret(pr.kept)
        if sec is None:
            return False
        auth = set(cast.audience[sec.id])
        others = [s for s in range(len(cast.characters)) if s not in auth]
        return all(exposure(cast, said, o, sec) < 1.0 for o in others)
    if pr.disclosed is not None:
        item = next(x for x in cast.shareable if x.id == pr.disclosed.item)
        owner, to = cast.seat_of(item.owner), cast.seat_of(pr.disclosed.to)
        forms = [norm(a) for a in (item.fact, *item.aliases) if norm(a)]
        return any(
            s == owner and to in rec and any(f" {f} " in f" {norm(t)} " for f in forms)
            for s, rec, t in said
        )
    return False


def rule_score(play: Play, seat: int) -> tuple[float | None, dict[str, bool]]:
    goal = play.cast.characters[seat].goal
    if goal is None or not goal.all_predicates():
        return None, {}
    detail: dict[str, bool] = {}
    total = 0.0
    for i, (pr, w) in enumerate(zip(goal.all_predicates(), goal.weights(), strict=True)):
        ok = predicate_true(play, seat, pr)
        detail[f"{i}:{pr.name}"] = ok
        total += w if ok else 0.0
    return round(total, 6), detail


def judge_score(play: Play, ref: str | None, seat: int) -> tuple[float | None, Any]:
    """The configured judge's score (``ref`` = its import path) of ``seat``'s goal."""
    goal = play.cast.characters[seat].goal
    if not ref or goal is None:
        return None, None
    judge = load_object(ref)
    req = JudgeRequest(
        scenario=play.cast.scenario_id,
        seat=seat,
        character=play.cast.names[seat],
        goal=goal.text,
        transcript=[e.text for e in play.log if e.type in ("utterance", "act", "agree", "leave")],
    )
    try:
        raw = judge(req)
    except Exception as err:  # a failed judgement is missing, never 0
        return None, f"judge failed: {type(err).__name__}: {err}"
    if raw is None:
        return None, None
    try:
        value = float(raw)
    except (TypeError, ValueError):
        return None, f"unparseable judgement {raw!r}"
    if not 0.0 <= value <= 1.0:
        return None, f"judgement {value} outside [0, 1]"
    return value, raw


def goal_scores(
    play: Play, mode: str, ref: str | None
) -> tuple[dict[int, float], dict[str, dict[str, Any]]]:
    """Every seat's goal score under ``mode`` (rule, judge, both averaged, or none: 0), and
    the details the ``goal_result`` event records per seat."""
    rewards: dict[int, float] = {}
    details = {}
    for c in play.cast.characters:
        rule, detail = rule_score(play, c.seat) if "rule" in mode else (None, {})
        judge, raw = judge_score(play, ref, c.seat) if "judge" in mode else (None, None)
        parts = [x for x in (rule, judge) if x is not None]
        score = sum(parts) / len(parts) if parts else None
        if mode == "none":
            score = 0.0
        if score is not None:
            rewards[c.seat] = round(score, 6)
        details[str(c.seat)] = {"rule": rule, "predicates": detail, "judge": judge,
                                "judge_raw": raw, "score": score}  # fmt: skip
    return rewards, details
