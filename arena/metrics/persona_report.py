"""The PersonaReport of one match (§B12): per agent, persona consistency against its card,
impersonation, embedding drift and identifiability, echo; the persona adjudicator's verdicts
when one is set; and the pairs' adoption report."""

from __future__ import annotations

import json
from statistics import mean
from typing import Any

import numpy as np

from arena import registry
from arena.metrics import persona as P
from arena.metrics.adoption import pairs_report, probe_judge
from arena.metrics.claims import Matcher
from arena.metrics.settings import MetricsSettings
from arena.metrics.transcript import MatchLog


def score_deferred_probes(log: MatchLog) -> None:
    """Style and language probe judges are left to the metrics by the persona game."""
    judges = {str(p.get("id")): p.get("judge") or {}
              for p in (log.scenario_truth or {}).get("probes") or []}  # fmt: skip
    for p in log.probes:
        g = probe_judge(judges.get(p.probe_id) or {})
        if p.score is None and p.answer and g is not None:
            p.score = g(p.answer)


def persona_report(log: MatchLog, settings: MetricsSettings, embedder: Any) -> dict[str, Any]:
    score_deferred_probes(log)
    cards = P.cards_from_log(log)
    msgs = log.messages
    vec = None
    if embedder is not None and msgs:
        arr = embedder.utterances([m.text for m in msgs])
        vec = {i: arr[i] for i in range(len(msgs))}
    desc = {s: c.description for s, c in cards.items() if c.description}
    desc_vec = None
    if embedder is not None and desc:
        keys = sorted(desc)
        dv = embedder.utterances([desc[k] for k in keys])
        desc_vec = {k: dv[i] for i, k in enumerate(keys)}
    model = registry.knowledge(log.game)
    ignore = list(log.public_text) + [json.dumps(b) for b in log.briefings.values()]
    agents: dict[str, Any] = {}
    own_turns: dict[int, tuple[list[str], P.Card]] = {}
    for a in range(log.n_seats):
        turns = _own_turns(log, a)
        if not turns:
            continue
        if model.hidden_roles:
            agents[str(a)] = {
                "story": P.story_consistency([t for t, _ in turns], model.role_synonyms)
            }
            continue
        row = _seat_row(log, a, turns, cards, settings, embedder)
        if vec is not None:
            row.update(_embedding_measures(log, a, vec, desc_vec, settings))
        row["echo"] = P.echo(msgs, vec, a, settings.seed, settings.echo_draws, settings.copy_n,
                             ignore)  # fmt: skip
        agents[str(a)] = row
        if a in cards:
            own_turns[a] = ([t for t, _ in turns], cards[a])
    out: dict[str, Any] = {"agents": agents}
    if settings.persona_adjudication != "off":
        out["adjudication"] = adjudicate_persona(own_turns, agents, settings)
    if not model.hidden_roles:
        out["pairs"] = pairs_report(log, vec)
    present = [int(k) for k, r in agents.items() if "retrieved_at_k" in r]
    if present:
        out["retrieval_accuracy"] = mean(agents[str(k)]["retrieved_at_k"] for k in present)
        out["retrieval_chance"] = settings.retrieval_k / len(desc)
    return out


def _own_turns(log: MatchLog, a: int) -> list[tuple[str, bool]]:
    """Seat ``a``'s turns (under interrogation its answers, when it gave any), each with
    whether the last message to it before was a question."""
    msgs = log.messages
    idx = [i for i, m in enumerate(msgs) if m.speaker == a]
    if log.rules.get("interrogation"):
        idx = [i for i in idx if msgs[i].kind == "answer"] or idx
    turns = []
    for i in idx:
        prev = [j for j in range(i) if msgs[j].speaker != a and a in msgs[j].recipients]
        turns.append((msgs[i].text, bool(prev) and msgs[prev[-1]].text.rstrip().endswith("?")))
    return turns


def _seat_row(
    log: MatchLog,
    a: int,
    turns: list[tuple[str, bool]],
    cards: dict[int, P.Card],
    settings: MetricsSettings,
    embedder: Any,
) -> dict[str, Any]:
    """Consistency against the card (PC, IC), the retest (RC), the persona score, and
    impersonation of another character by name (and, as an option, by slot value)."""
    msgs, card = log.messages, cards.get(a)
    occupations = {
        str(f["value"]) for c in cards.values() for f in c.facts if f["slot"] == "occupation"
    }
    cons = P.consistency(turns, card, settings.age_tol, occupations)
    m = Matcher(card.aliases if card else None, settings.age_tol)
    rc = P.retest(log, a, embedder, settings.thresholds.tau_rc, m)
    comps = {k: cons[k] for k in ("PC",)} | {"IC": cons["IC"], "RC": rc["RC"]}
    avail = [v for v in comps.values() if v is not None] if card is not None else []
    row: dict[str, Any] = dict(
        PC=cons["PC"], PC_claims=cons["PC_claims"], expression=cons["expression"],
        S_coop=cons["S_coop"], S_nc=cons["S_nc"], IC=cons["IC"], RC=rc["RC"],
        retest_pairs=rc["m"], evasive_pairs=rc["evasive_pairs"],
        persona_score=P.harmonic(avail) if avail else None,
        components_available=[k for k, v in comps.items() if v is not None],
        drift_curve=P.drift_curve(log, a), n_turns=cons["n_turns"],
        per_turn=cons["per_turn"],
    )  # fmt: skip
    all_own = [i for i, mm in enumerate(msgs) if mm.speaker == a]
    others = [n for s, n in enumerate(log.names) if s != a]
    own_name = log.names[a] if a < len(log.names) else ""
    flags = [P.impersonation(msgs[i].text, own_name, others) for i in all_own]
    if settings.impersonation_slot_values:  # §B8 option: lower confidence, counted apart
        uniq = P.unique_slot_values(cards, a)
        slot_hits = [P.slot_impersonation(msgs[i].text, uniq, card, m, occupations)
                     for i in all_own]  # fmt: skip
        row["impersonation_slot_flags"] = [
            {"t": msgs[i].t, "slot": h[0], "value": h[1], "of": h[2]}
            for i, hs in zip(all_own, slot_hits, strict=True) for h in hs
        ]  # fmt: skip
        row["impersonation_rate_names"] = sum(flags) / len(flags)
        flags = [f or bool(h) for f, h in zip(flags, slot_hits, strict=True)]
    row["impersonation_rate"] = sum(flags) / len(flags)
    return row


def _embedding_measures(
    log: MatchLog,
    a: int,
    vec: dict[int, Any],
    desc_vec: dict[int, Any] | None,
    settings: MetricsSettings,
) -> dict[str, Any]:
    """Embedding drift of seat ``a``'s messages and, with two or more card descriptions, how
    well its mean message picks out its own card (margin, retrieved in the top k)."""
    msgs = log.messages
    all_own = [i for i, mm in enumerate(msgs) if mm.speaker == a]
    out: dict[str, Any] = {}
    v = np.stack([vec[i] for i in all_own])
    anchor = None
    if settings.drift_anchor == "card" and desc_vec and a in desc_vec:
        anchor = desc_vec[a]
    ed = P.embedding_drift(v, [msgs[i].t for i in all_own], anchor, settings.anchor_w)
    ed.pop("d", None)
    out["embedding_drift"] = ed
    if desc_vec and a in desc_vec and len(desc_vec) > 1:
        ub = v.mean(axis=0)
        ub = ub / (np.linalg.norm(ub) or 1)
        sims = {b: float(ub @ e) for b, e in desc_vec.items()}
        out["identifiability_margin"] = sims[a] - max(x for b, x in sims.items() if b != a)
        ranked = sorted(sims, key=lambda b: -sims[b])
        out["retrieved_at_k"] = int(a in ranked[: settings.retrieval_k])
    return out


def adjudicate_persona(own_turns: dict[int, tuple[list[str], P.Card]], agents: dict[str, Any],
                       settings: MetricsSettings) -> dict[str, Any]:  # fmt: skip
    """The persona adjudicator (judge or NLI) on every own turn against the card and the agent's
    earlier turns: ``contra_judge`` per turn (None = failed), ``PC_judge`` per agent."""
    from arena.metrics.persona_judge import PersonaItem, make_persona_adjudicator

    adj, why = make_persona_adjudicator(settings)
    if adj is None:
        return {"available": False, "reason": why}
    items, where = [], []
    for a, (texts, card) in sorted(own_turns.items()):
        sheet = "; ".join(f"{f['slot']}: {f['value']}" for f in card.facts)
        for i, t in enumerate(texts):
            items.append(PersonaItem(card.name, sheet, t, texts[:i]))
            where.append((a, i))
    verdicts = adj.judge_all(items)
    for (a, i), v in zip(where, verdicts, strict=True):
        agents[str(a)]["per_turn"][i]["contra_judge"] = None if v is None else int(v)
    for a in own_turns:
        got = [t["contra_judge"] for t in agents[str(a)]["per_turn"] if t.get("contra_judge")
               is not None]  # fmt: skip
        agents[str(a)]["PC_judge"] = 1 - sum(got) / len(got) if got else None
    stats = adj.stats() if hasattr(adj, "stats") else {"failed": getattr(adj, "failed", 0)}
    return {"available": True, "tier": adj.name, "model": getattr(adj, "model", None),
            "items": len(items), **stats}  # fmt: skip
