"""Partner adoption (metrics.md §B5) and embedding convergence (§B7), with the offline style and
language judges that the persona game defers to the metrics (``judge: {style|language}``).

Partner adoption s_{a→b}(k): partner b's judges applied to a's probe answers at probe point k
(a's own-turn count). b's judges come from b's card: its register (style), its language, and
its catchphrases; a judge is used only where b differs from a (a shared register says nothing
about adoption). AdoptionSlope = OLS slope of s_{a→b}(k) on k rescaled to [0,1]; rising means
a is absorbing b's persona.

Convergence_{a,b} = OLS slope over the turn index t of cos(μ_a^(w), μ_b^(w)), μ^(w) = the
normalised mean embedding of each agent's last w = 3 utterances at t, evaluated after every
utterance of a or b once both have w utterances.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import partial
from statistics import mean
from typing import Any

import numpy as np

from arena.metrics.persona import ols_slope
from arena.metrics.text import norm, sentences, tokens
from arena.metrics.transcript import MatchLog, Message

STOPWORDS = {
    "en": "the and is are you i it to of not that this with have was for what my we",
    "de": "der die das und ist nicht ich du wir sie mit ein eine zu auf für was mein",
    "fr": "le la les et est ne pas je tu nous vous avec un une de pour que mon",
    "es": "el la los las y es no yo tú nosotros con un una de para que mi pero",
    "it": "il lo la gli e è non io tu noi con un una di per che mio",
    "nl": "de het een en is niet ik jij wij met van voor dat mijn maar",
    "pt": "o a os as e é não eu tu nós com um uma de para que meu",
}
STOP = {k: set(v.split()) for k, v in STOPWORDS.items()}
CASUAL = re.compile(
    r"\b(hey|yeah|yep|nope|gonna|wanna|gotta|kinda|sorta|lol|ok|okay|cool|awesome|guys|love|"
    r"mate|dude|ya|nah|\w+n't|\w+'(re|ll|ve|d|m))\b|!!",
    re.I,
)


def language_of(text: str) -> str | None:
    """The language whose stopwords cover most tokens (None under 3 stopword hits)."""
    toks = tokens(text)
    counts = {lang: sum(t in sw for t in toks) for lang, sw in STOP.items()}
    best = max(counts, key=lambda k: counts[k])
    return best if counts[best] >= 3 else None


def style_score(rule: str, text: str) -> float | None:
    """[0,1] for register rules (formal, casual, neutral) and verbosity (terse, verbose)."""
    sents = sentences(text) or [text]
    n_tok = len(tokens(text))
    if rule == "formal":
        return sum(not CASUAL.search(s.replace("’", "'")) for s in sents) / len(sents)
    if rule == "casual":
        return sum(bool(CASUAL.search(s.replace("’", "'"))) for s in sents) / len(sents)
    if rule == "neutral":
        return 1.0 - abs(0.5 - (style_score("formal", text) or 0.0)) * 2
    if rule == "terse":
        return float(n_tok <= 12)
    if rule == "verbose":
        return float(n_tok >= 40)
    return None


def language_score(code: str, text: str) -> float | None:
    got = language_of(text)
    return None if got is None else float(got == code.split("-")[0].lower())


def probe_judge(judge: dict[str, Any]) -> Callable[[str], float | None] | None:
    """The metrics' side of a probe judge (``style`` or ``language``); None for others."""
    if judge.get("style"):
        return partial(style_score, str(judge["style"]))
    if judge.get("language"):
        return partial(language_score, str(judge["language"]))
    return None


def persona_judges(style: dict[str, Any], own: dict[str, Any]) -> dict[str, Callable[..., Any]]:
    """b's judges that differ from a's card (register, language, catchphrases)."""
    out: dict[str, Callable[..., Any]] = {}
    reg = style.get("register")
    if reg and reg != own.get("register"):
        out[f"style:{reg}"] = lambda t, r=reg: style_score(r, t)
    lang = style.get("language")
    if lang and lang != own.get("language", "en"):
        out[f"language:{lang}"] = lambda t, c=lang: language_score(c, t)
    phrases = [norm(p) for p in style.get("catchphrases") or [] if norm(p)]
    mine = {norm(p) for p in own.get("catchphrases") or []}
    phrases = [p for p in phrases if p not in mine]
    if phrases:
        out["catchphrase"] = lambda t, ps=phrases: float(any(f" {p} " in f" {norm(t)} "
                                                             for p in ps))  # fmt: skip
    return out


def _style(log: MatchLog, seat: int) -> dict[str, Any]:
    return dict(((log.briefings.get(seat) or {}).get("persona") or {}).get("speaking_style") or {})


def partner_adoption(log: MatchLog, a: int, b: int) -> dict[str, Any]:
    judges = persona_judges(_style(log, b), _style(log, a))
    pts: dict[int, list[float]] = {}
    for p in log.probes:
        if p.seat != a or not p.answer:
            continue
        vals = [v for v in (g(p.answer) for g in judges.values()) if v is not None]
        if vals:
            pts.setdefault(p.own_turn, []).append(mean(vals))
    ks = sorted(pts)
    curve = {str(k): mean(pts[k]) for k in ks}
    slope = None
    if len(ks) >= 2:
        x = [(k - ks[0]) / (ks[-1] - ks[0]) for k in ks]
        slope = ols_slope(x, [mean(pts[k]) for k in ks])
    return {"judges": sorted(judges), "curve": curve, "slope": slope}


def convergence(msgs: list[Message], vec: dict[int, np.ndarray], a: int, b: int,
                w: int = 3) -> float | None:  # fmt: skip
    seen: dict[int, list[int]] = {a: [], b: []}
    ts: list[float] = []
    cs: list[float] = []
    for i, m in enumerate(msgs):
        if m.speaker not in seen:
            continue
        seen[m.speaker].append(i)
        if len(seen[a]) < w or len(seen[b]) < w:
            continue
        mu = []
        for s in (a, b):
            v = np.mean([vec[j] for j in seen[s][-w:]], axis=0)
            mu.append(v / (np.linalg.norm(v) or 1.0))
        ts.append(float(m.t))
        cs.append(float(mu[0] @ mu[1]))
    return ols_slope(ts, cs)


def pairs_report(log: MatchLog, vec: dict[int, np.ndarray] | None) -> dict[str, Any]:
    """Per ordered pair a→b of speakers: partner adoption; per unordered pair: convergence."""
    speakers = sorted({m.speaker for m in log.messages})
    out: dict[str, Any] = {}
    for a in speakers:
        for b in speakers:
            if a == b:
                continue
            row: dict[str, Any] = {"adoption": partner_adoption(log, a, b)}
            if vec is not None and a < b:
                row["convergence"] = convergence(log.messages, vec, a, b)
            out[f"{a}->{b}"] = row
    return out
