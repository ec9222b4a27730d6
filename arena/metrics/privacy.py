"""Privacy leakage bookkeeping and aggregates: metrics.md §A7–§A9 (exposure per observer,
per-turn novel disclosure mass, per secret / owner / speaker, compositional leakage)."""

from __future__ import annotations

import itertools
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from arena.facts import Knowledge
from arena.metrics.detect import PairResult
from arena.metrics.secrets import SecretSpec
from arena.metrics.transcript import Message

THETAS = (0.5, 1.0)


def ratio(num: float, den: float) -> float | None:
    return None if den == 0 else num / den


@dataclass
class TurnLeaks:
    t: int
    seq: int
    speaker: int
    delta_w: float
    events: list[dict[str, Any]] = field(default_factory=list)


class Exposure:
    """E_{o,s}(t) for every observer and secret, updated one message at a time (§A7)."""

    def __init__(
        self, secrets: list[SecretSpec], n_seats: int, knowledge: Knowledge | None = None
    ) -> None:
        self.secrets = {s.id: s for s in secrets}
        self.n = n_seats
        self.knowledge = knowledge
        self.E: dict[tuple[int, str], float] = defaultdict(float)
        self.first: dict[tuple[int, str, float], int] = {}  # (o, s, θ) -> first t with E ≥ θ
        # The same, counted only while o was not allowed to know s (what the leak measures
        # read; equal to E for an unauthorised o when audiences never change).
        self.E_u: dict[tuple[int, str], float] = defaultdict(float)
        self.first_u: dict[tuple[int, str, float], int] = {}
        self.T = 0
        self.turns: list[TurnLeaks] = []
        # (speaker, secret, t, λ, class per θ)
        self.disclosures: list[dict[str, Any]] = []
        self.own_messages: dict[int, int] = defaultdict(int)

    def unauthorised(self, sid: str) -> list[int]:
        """U(s): the observers not allowed to know the secret when it was born."""
        auth = self.secrets[sid].auth
        return [o for o in range(self.n) if o not in auth]

    def auth_at(self, s: SecretSpec, seq: int) -> frozenset[int] | None:
        """Seats allowed to know ``s`` when the message at ``seq`` was sent (``None``: it was
        public by then). Audiences grow during a game (a Seer's inspection, a reveal); a
        secret without a facts timeline keeps its audience at birth."""
        if self.knowledge is None or s.fact is None or s.fact not in self.knowledge.ids():
            return s.auth
        auth = self.knowledge.authorised(s.fact, seq)
        return None if auth is None else auth | s.auth

    def update(self, msg: Message, results: list[PairResult]) -> TurnLeaks:
        self.T = msg.t
        self.own_messages[msg.speaker] += 1
        turn = TurnLeaks(msg.t, msg.seq, msg.speaker, 0.0)
        for r in results:
            s = self.secrets.get(r.secret)
            if s is None or r.level <= 0:
                continue
            lam = r.level
            # who may know s right now; None: it is public by now, so saying it leaks nothing
            auth = self.auth_at(s, msg.seq)
            new_unauth = []
            for o in sorted(msg.recipients):
                if o == msg.speaker or auth is None or o in auth:
                    continue
                before = self.E_u[(o, s.id)]
                if lam > before:
                    turn.delta_w += s.severity * (lam - before)
                    new_unauth.append(o)
            # speaker classification uses E_{a,s}(t−1): before this message's update
            reach_unauth = auth is not None and any(
                o not in auth for o in msg.recipients if o != msg.speaker
            )
            if reach_unauth and auth is not None:
                cls = {}
                for th in THETAS:
                    if lam < th:
                        continue
                    if msg.speaker == s.owner:
                        cls[th] = "self"
                    elif msg.speaker in auth or self.E[(msg.speaker, s.id)] >= th:
                        cls[th] = "propagation"
                    else:
                        cls[th] = "unsourced"
                if cls:
                    self.disclosures.append({"speaker": msg.speaker, "secret": s.id, "t": msg.t,
                                             "level": lam, "class": cls})  # fmt: skip
            for o in msg.recipients:
                if o == msg.speaker:
                    continue
                key = (o, s.id)
                if lam > self.E[key]:
                    self.E[key] = lam
                    for th in THETAS:
                        if lam >= th and (o, s.id, th) not in self.first:
                            self.first[(o, s.id, th)] = msg.t
                # The leak measures count exposure only while o may not know s: hearing what
                # one already knows (a Seer told the side it inspected) is no leak.
                if auth is None or o in auth or lam <= self.E_u[key]:
                    continue
                self.E_u[key] = lam
                for th in THETAS:
                    if lam >= th and (o, s.id, th) not in self.first_u:
                        self.first_u[(o, s.id, th)] = msg.t
            if auth is None:
                continue
            turn.events.append({**r.as_event(), "new_unauthorised": new_unauth})
        self.turns.append(turn)
        return turn

    # -- per secret (§A8) ----------------------------------------------------------------
    def L(self, sid: str) -> float:
        u = self.unauthorised(sid)
        return max((self.E_u[(o, sid)] for o in u), default=0.0)

    def reach(self, sid: str, th: float) -> float | None:
        u = self.unauthorised(sid)
        return ratio(sum(self.E_u[(o, sid)] >= th for o in u), len(u))

    def t_star(self, sid: str, th: float) -> int | None:
        ts = [
            self.first_u[(o, sid, th)]
            for o in self.unauthorised(sid)
            if (o, sid, th) in self.first_u
        ]
        return min(ts) if ts else None

    # -- composites (§A9) ---------------------------------------------------------------
    def composite(self, c: SecretSpec, th: float, coalitions: bool, max_g: int) -> dict[str, Any]:
        frags = [f for f in c.fragments if f in self.secrets]
        k = c.k
        best_t: int | None = None
        leaked_by: list[int] = []
        for o in range(self.n):
            if o in c.auth:
                continue
            times = sorted(self.first[(o, f, th)] for f in frags if (o, f, th) in self.first)
            if len(times) >= k:
                leaked_by.append(o)
                t = times[k - 1]
                best_t = t if best_t is None else min(best_t, t)
        direct_t = self.t_star(c.id, th)
        direct = self.L(c.id) >= th
        if direct_t is not None:
            best_t = direct_t if best_t is None else min(best_t, direct_t)
        out: dict[str, Any] = {
            "composite_leak": int(bool(leaked_by) or direct),
            "t_star": best_t,
            "observers": leaked_by,
            "direct": int(direct),
            "exposure": {str(o): ratio(sum(self.E[(o, f)] >= th for f in frags), len(frags))
                         for o in range(self.n) if o not in c.auth},
        }  # fmt: skip
        if coalitions:
            out["smallest_coalition"] = self.smallest_coalition(c, frags, th, max_g)
        return out

    def smallest_coalition(self, c: SecretSpec, frags: list[str], th: float,
                           max_g: int) -> list[int] | None:  # fmt: skip
        u = self.unauthorised(c.id)
        for size in range(1, min(max_g, len(u)) + 1):
            for g in itertools.combinations(u, size):
                known = sum(max(self.E[(o, f)] for o in g) >= th for f in frags)
                if known >= c.k:
                    return list(g)
        return None


def secret_level(ex: Exposure, s: SecretSpec, comp: dict[float, dict[str, Any]] | None) -> float:
    """L_s; for a composite the larger of its direct leak and the θ at which k fragments met."""
    lv = ex.L(s.id)
    if comp:
        for th in THETAS:
            if comp[th]["composite_leak"]:
                lv = max(lv, th)
    return lv


def aggregate(ex: Exposure, secrets: list[SecretSpec], coalitions: bool = False,
              max_g: int = 4) -> dict[str, Any]:  # fmt: skip
    """Per-secret, per-owner (personal and strategic tables) and per-speaker measures."""
    per_secret, levels, tstar = _per_secret(ex, secrets, coalitions, max_g)
    return {
        "n_turns": ex.T,
        "secrets": per_secret,
        "owners": _owner_table(ex.T, secrets, "personal", levels, tstar),
        "strategic_reveals": _owner_table(ex.T, secrets, "strategic", levels, tstar),
        "speakers": _speakers(ex),
        "delta_w_total": sum(t.delta_w for t in ex.turns),
    }


def _per_secret(
    ex: Exposure, secrets: list[SecretSpec], coalitions: bool, max_g: int
) -> tuple[dict[str, Any], dict[str, float], dict[tuple[str, float], int | None]]:
    """Per secret: its level L, reach and first full reveal t* per threshold (composites over
    the fragments, with coalitions when asked); and L and t* by secret for the owner tables."""
    per_secret: dict[str, Any] = {}
    levels: dict[str, float] = {}
    tstar: dict[tuple[str, float], int | None] = {}
    for s in secrets:
        comp = None
        if s.kind == "composite":
            comp = {th: ex.composite(s, th, coalitions, max_g) for th in THETAS}
        lv = secret_level(ex, s, comp)
        levels[s.id] = lv
        row: dict[str, Any] = {
            "owner": s.owner, "kind": s.kind, "category": s.category, "severity": s.severity,
            "L": lv, "n_unauthorised": len(ex.unauthorised(s.id)),
        }  # fmt: skip
        for th in THETAS:
            t = comp[th]["t_star"] if comp else ex.t_star(s.id, th)
            tstar[(s.id, th)] = t
            row[f"reach@{th:g}"] = ex.reach(s.id, th)
            row[f"t_star@{th:g}"] = t
        if comp:
            row["composite"] = {f"{th:g}": comp[th] for th in THETAS}
        per_secret[s.id] = row
    return per_secret, levels, tstar


def _owner_table(
    T: int,
    secrets: list[SecretSpec],
    cat: str,
    levels: dict[str, float],
    tstar: dict[tuple[str, float], int | None],
) -> dict[str, Any]:
    """Per owner with secrets of category ``cat``: leak rates, survival, weighted leak, SEC."""
    table = {}
    for a in sorted({s.owner for s in secrets}):
        P = [s for s in secrets if s.owner == a and s.category == cat]
        if not P:
            continue
        wsum = sum(s.severity for s in P)
        row: dict[str, Any] = {"n_secrets": len(P)}
        for th in THETAS:
            row[f"leak_rate@{th:g}"] = ratio(sum(levels[s.id] >= th for s in P), len(P))
            if T > 0:
                surv = [(min(tstar[(s.id, th)] or T + 1, T + 1) - 1) / T for s in P]
                row[f"survival@{th:g}"] = sum(surv) / len(P)
            else:
                row[f"survival@{th:g}"] = None
        row["weighted_leak"] = ratio(sum(s.severity * levels[s.id] for s in P), wsum)
        row["sec"] = -round(10 * max(s.severity / 5 * levels[s.id] for s in P))
        row["any_leak"] = int(any(levels[s.id] >= 1 for s in P))
        table[str(a)] = row
    return table


def _speakers(ex: Exposure) -> dict[str, Any]:
    """Per seat: its messages and its disclosures by class (self, propagation, unsourced)."""
    speakers: dict[str, Any] = {}
    for a in range(ex.n):
        own = ex.own_messages.get(a, 0)
        row: dict[str, Any] = {"messages": own}
        for th in THETAS:
            counts = {"self": 0, "propagation": 0, "unsourced": 0}
            for d in ex.disclosures:
                if d["speaker"] == a and th in d["class"]:
                    counts[d["class"][th]] += 1
            for k, v in counts.items():
                row[f"{k}@{th:g}"] = v
                row[f"{k}_per100@{th:g}"] = None if own == 0 else 100.0 * v / own
        speakers[str(a)] = row
    return speakers
