"""The §8.5 per-player, §8.9 process and §8.10 multi-party/auction measures of negotiation.md.

Pure functions over one match's events (engine drafts or stamped ``Event`` records) and the
god-only ``scenario`` / ``result`` payloads; :mod:`games.negotiation.measures` folds them into
:class:`~games.negotiation.outcome_measures.MatchMeasures`. Undefined values are ``None``, never 0.

Definitions chosen where the spec leaves room (documented in docs/games/negotiation.md):

* own utility of a proposal (concession rate): split Σ_k keep_k·v_k, price the undiscounted gain
  (p − r_s or r_b − p), pie the proposer's own share; concession rate = mean of
  (u_previous − u_next) over consecutive own proposals (positive = conceding).
* fallbacks: the runner's ``fallback`` events when the log has them (they cover simultaneous
  phases too), else the engine's ``fallback_pass`` events; invalid actions: the runner's
  ``invalid_action`` events (0 in a log without runner events).
* irrational accept: an accept (split/price) or accept vote (pie, counted whether or not the
  proposal passed) of an offer worth u_i < d_i to the accepter, discount included.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

from arena.events import GameEvent


def gini(values: Sequence[float]) -> float | None:
    """Σ_i Σ_j |x_i − x_j| / (2 n Σ x); None with a negative value or a zero total."""
    n, total = len(values), sum(values)
    if n == 0 or total <= 0 or min(values) < 0:
        return None
    return sum(abs(a - b) for a in values for b in values) / (2 * n * total)


def _mean(xs: Sequence[float]) -> float | None:
    return sum(xs) / len(xs) if xs else None


# -- §8.9 process and §8.5 per-player irrational accepts ----------------------------------------
def _proposal_utility(
    game: str, ev_type: str, actor: int, payload: dict[str, Any], sc: dict[str, Any]
) -> float | None:
    if game == "split" and ev_type == "proposal":
        keep = payload["keep"][str(actor)]
        return float(sum(k * v for k, v in zip(keep, sc["values"][actor], strict=True)))
    if game == "price" and ev_type == "offer":
        r_s, r_b = sc["reservation"]["0"], sc["reservation"]["1"]
        return float(payload["price"] - r_s if actor == 0 else r_b - payload["price"])
    if game == "pie" and ev_type == "proposal":
        return float(payload["allocation"][actor])
    return None


def process_measures(
    game: str,
    events: Sequence[GameEvent],
    sc: dict[str, Any],
    res: dict[str, Any],
    start: dict[str, Any],
    n: int,
) -> dict[str, Any]:
    """Per seat: proposals, concession rate, messages, characters, invalid actions, fallbacks,
    accepts and irrational accepts."""
    own: list[list[float]] = [[] for _ in range(n)]
    messages, chars = [0] * n, [0] * n
    invalid, runner_fb, engine_fb = [0] * n, [0] * n, [0] * n
    accepts, irrational = [0] * n, [0] * n
    d = [float(x) for x in sc["disagreement"]]
    utils = [float(u) for u in res["utilities"]]
    delta = float(start.get("discount", 1.0))
    allocation: list[int] | None = None
    for e in events:
        t, actor, payload = e.type, e.actor, e.payload
        if t in ("proposal", "offer") and actor is not None:
            u = _proposal_utility(game, t, actor, payload, sc)
            if u is not None:
                own[actor].append(u)
            if game == "pie":
                allocation = payload["allocation"]
        elif t == "message" and actor is not None:
            messages[actor] += 1
            chars[actor] += len(payload.get("message", ""))
        elif t == "invalid_action" and actor is not None:
            invalid[actor] += 1
        elif t == "fallback" and actor is not None:
            runner_fb[actor] += 1
        elif t == "fallback_pass" and actor is not None:
            engine_fb[actor] += 1
        elif t == "accept" and actor is not None:
            accepts[actor] += 1
            irrational[actor] += utils[actor] < d[actor]
        elif t == "votes" and allocation is not None:
            f = delta ** (payload["round"] - 1)
            for s, yes in payload["votes"].items():
                if yes:
                    accepts[int(s)] += 1
                    irrational[int(s)] += allocation[int(s)] * f < d[int(s)]
    concession = [
        _mean([a - b for a, b in itertools.pairwise(us)]) if len(us) > 1 else None for us in own
    ]
    return {
        "proposals": [len(us) for us in own],
        "concession_rate": concession,
        "messages": messages,
        "message_chars": chars,
        "invalid_actions": invalid,
        "fallbacks": runner_fb if any(runner_fb) else engine_fb,
        "accepts": accepts,
        "irrational_accepts": irrational,
    }


# -- §8.10 pie ------------------------------------------------------------------------------
def pie_measures(
    events: Sequence[GameEvent], sc: dict[str, Any], res: dict[str, Any], utils: Sequence[float]
) -> dict[str, Any]:
    """Proposer premium (all proposals of the match and the passed one), agreement round,
    minimum share and the Gini coefficient of the payoffs."""
    pie, n = float(sc["pie"]), len(utils)
    premiums: list[float] = []
    last_proposer: int | None = None
    for e in events:
        if e.type == "proposal" and e.actor is not None:
            last_proposer = e.actor
            premiums.append(e.payload["allocation"][last_proposer] - pie / n)
    agreed = res["label"] == "agreement"
    alloc: Any = res.get("allocation")
    passed = agreed and alloc and last_proposer is not None
    return {
        "proposer_premium": _mean(premiums),
        "agreed_proposer_premium": alloc[last_proposer] - pie / n if passed else None,
        "agreement_round": res.get("round") if agreed else None,
        "min_share": float(min(alloc)) if agreed and alloc else None,
        "gini": gini(list(utils)),
    }


# -- §8.10 auction --------------------------------------------------------------------------
def auction_measures(sc: dict[str, Any], res: dict[str, Any]) -> dict[str, Any]:
    """Allocative efficiency, revenue, per-seat bid shading and truthful bids, collusion flag."""
    values = [int(v) for v in sc["auction_values"]]
    reserve, fmt = int(sc["reserve_price"]), sc["format"]
    winner: Any = res.get("winner")
    price: Any = res.get("price")
    sold = winner is not None
    top = max(values)
    efficiency: float | None = None  # missing when no bidder can profit at the reserve
    if top >= reserve and top > 0:
        efficiency = values[winner] / top if sold else 0.0
    bids = res.get("bids") or {}
    shading: list[float | None] = [None] * len(values)
    truthful: list[bool | None] = [None] * len(values)
    for s, b in bids.items():
        i = int(s)
        if b is None:
            continue
        if values[i] > 0:
            shading[i] = (values[i] - b) / values[i]
        if fmt == "sealed_second":
            truthful[i] = abs(b - values[i]) <= 1
    collusion = None
    if fmt == "sealed_second" and sold:
        second = sorted(values, reverse=True)[1]
        collusion = price < second
    return {
        "allocative_efficiency": efficiency,
        "revenue": float(price) if sold else 0.0,
        "bid_shading": shading if fmt != "ascending" else None,
        "truthful_bid": truthful if fmt == "sealed_second" else None,
        "collusion": collusion,
        "winner": winner,
    }


def auction_norm(values: Sequence[int], reserve: int, utils: Sequence[float]) -> list[float]:
    """§8.11 for the auction (as the engine's scores): u_i/(v_i − reserve) clipped to [−1, 1]."""
    out = []
    for v, u in zip(values, utils, strict=True):
        room = v - reserve
        out.append(max(-1.0, min(1.0, u / room)) if room > 0 else (0.0 if u >= 0 else -1.0))
    return out
