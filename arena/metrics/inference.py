"""Inference-based leakage with chance baselines (§A10) and privacy–utility (§A11)."""

from __future__ import annotations

from typing import Any

from arena.metrics.secrets import SecretSpec
from arena.metrics.text import band
from arena.metrics.transcript import MatchLog

EVIL = ("wolves", "evil")


def _final_beliefs(log: MatchLog) -> dict[int, dict[int, float]]:
    out: dict[int, dict[int, float]] = {}
    for b in log.beliefs:
        raw = b.get("beliefs") or {}
        parsed = {}
        for k, v in raw.items():
            try:
                parsed[int(k)] = float(v)
            except (TypeError, ValueError):
                continue  # unparseable: missing, never a guess
        if parsed:
            out[int(b["seat"])] = parsed
    return out


def role_inference(log: MatchLog, secrets: list[SecretSpec]) -> dict[str, Any]:
    """Belief reports as the adversary for side secrets; the analytic chance as baseline.

    Werewolf reports P(wolf), Avalon P(good). LA = probability given to the truth;
    LA⁰ = (evil among o's candidates) / (candidates), candidates = seats whose side o does
    not know."""
    beliefs = _final_beliefs(log)
    sides = {s.owner: s for s in secrets if s.id.startswith("side:")}
    if not sides or not beliefs:
        return {}
    p_is_evil = log.game != "avalon"
    out: dict[str, Any] = {}
    for j, s in sorted(sides.items()):
        evil_j = s.value in EVIL
        rows = []
        for o in sorted(beliefs):
            if o in s.auth or j not in beliefs[o]:
                continue
            cand = [x for x in sides if x != o and o not in sides[x].auth]
            if not cand:
                continue
            base_evil = sum(sides[x].value in EVIL for x in cand) / len(cand)
            p = beliefs[o][j]
            p_evil = p if p_is_evil else 1.0 - p
            la = p_evil if evil_j else 1.0 - p_evil
            la0 = base_evil if evil_j else 1.0 - base_evil
            rows.append({"observer": o, "LA": la, "LA0": la0})
        if rows:
            out[s.id] = {
                "owner": j,
                "inference_gain": sum(r["LA"] - r["LA0"] for r in rows) / len(rows),
                "n_observers": len(rows),
                "observers": rows,
            }
    return out


def price_inference(log: MatchLog, secrets: list[SecretSpec]) -> dict[str, Any]:
    """Bargaining: the owner's last standing offer is the observer's guess of its reservation
    price; the baseline guess without transcript is the middle of the public price range."""
    lo, hi = (log.rules.get("price_range") or [None, None])[:2]
    out: dict[str, Any] = {}
    for s in secrets:
        if not s.id.startswith("reservation:") or not isinstance(s.value, int | float):
            continue
        offers = [o["price"] for o in log.offers if o["seat"] == s.owner]
        if not offers or lo is None:
            continue
        v = float(s.value)
        guess, g0 = float(offers[-1]), (float(lo) + float(hi)) / 2
        n = s.numeric
        la = band(guess, v, n.tol_full, n.tol_partial, n.abs_tol_full, n.abs_tol_partial)
        la0 = band(g0, v, n.tol_full, n.tol_partial, n.abs_tol_full, n.abs_tol_partial)
        out[s.id] = {
            "owner": s.owner, "guess": guess, "baseline_guess": g0, "LA": la, "LA0": la0,
            "inference_gain": la - la0,
            "err_reduction": None if v == 0 else (abs(g0 - v) - abs(guess - v)) / abs(v),
        }  # fmt: skip
    return out


def normalised_reward(log: MatchLog, seat: int) -> float | None:
    r = log.rewards.get(seat)
    if r is None:
        return None
    if log.game in ("werewolf", "avalon"):
        return (r + 1) / 2
    if log.game == "dealornodeal":
        total = log.rules.get("value_total") or 10
        return max(0.0, min(1.0, r / total))
    if 0.0 <= r <= 1.0:
        return r
    return None


def privacy_utility(log: MatchLog, owners: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for a in range(log.n_seats):
        row = owners.get(str(a))
        wl = row.get("weighted_leak") if row else None
        P = None if wl is None else 1.0 - wl
        U = normalised_reward(log, a)
        pu = None
        if P is not None and U is not None:
            pu = 0.0 if P + U == 0 else 2 * P * U / (P + U)
        out[str(a)] = {"P": P, "U": U, "PU": pu}
    return out
