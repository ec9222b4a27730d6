"""The `belief_servant` strategy (spec avalon.md §8.4): Loyal Servant and Percival.

Keeps weights over every side assignment A (a set of E evil seats among the other players)
consistent with start knowledge, Lady results and quest fail counts; sides are bitmasks.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

from games.avalon.config import fails_needed


def _mask(seats: Any) -> int:
    m = 0
    for s in seats:
        m |= 1 << int(s)
    return m


def _binom_like(k: int, f: int, p: float) -> float:
    if f > k:
        return 0.0
    from math import comb

    return comb(k, f) * p**f * (1 - p) ** (k - f)


class SideBelief:
    """Weighted side assignments for one good seat, rebuilt from the seat's state."""

    def __init__(self, st: dict[str, Any], evidence: str = "hard", p_fail: float = 0.7,
                 gamma: float = 1.0) -> None:  # fmt: skip
        self.n, self.seat = st["n_players"], st["seat"]
        self.resets = 0
        others = [j for j in range(self.n) if j != self.seat]
        must = _mask(st.get("known_evil", []))
        never = _mask(st.get("known_good", []))
        cands = st.get("merlin_candidates", [])
        prior = []
        for combo in combinations(others, st["n_evil"]):
            a = _mask(combo)
            if a & must != must or a & never:
                continue
            if len(cands) == 2 and bin(a & _mask(cands)).count("1") != 1:
                continue
            if len(cands) == 1 and a & _mask(cands):
                continue
            prior.append(a)
        if not prior:  # knowledge contradicts itself: keep every assignment
            prior = [_mask(c) for c in combinations(others, st["n_evil"])]
        self.hyp = {a: 1.0 for a in prior}
        for q in st.get("quests", []):
            self._quest(q, evidence, p_fail)
            if gamma != 1.0 and q["result"] == "fail":
                self._votes(st, q, gamma)
        if not any(self.hyp.values()):
            self.resets += 1
            self.hyp = {a: 1.0 for a in prior}
        self.total = sum(self.hyp.values())

    def _quest(self, q: dict[str, Any], evidence: str, p_fail: float) -> None:
        t, f = _mask(q["team"]), q["fails"]
        for a, w in self.hyp.items():
            k = bin(a & t).count("1")
            if evidence == "hard":
                self.hyp[a] = w if k >= f else 0.0
            else:
                self.hyp[a] = w * _binom_like(k, f, p_fail)

    def _votes(self, st: dict[str, Any], q: dict[str, Any], gamma: float) -> None:
        approved = [
            p for p in st.get("proposals", []) if p["quest"] == q["quest"] and p["approved"]
        ]
        if not approved or not approved[-1].get("votes"):
            return
        team = set(q["team"])
        ayes = [int(s) for s, v in approved[-1]["votes"].items() if v == "approve"]
        ayes = [s for s in ayes if s not in team]
        for a in self.hyp:
            for s in ayes:
                if a >> s & 1:
                    self.hyp[a] *= gamma

    def p_good(self, j: int) -> float:
        if j == self.seat:
            return 1.0
        bad = sum(w for a, w in self.hyp.items() if a >> j & 1)
        return 1.0 - bad / self.total

    def p_clean(self, team: Any) -> float:
        t = _mask(team)
        return sum(w for a, w in self.hyp.items() if not a & t) / self.total


def best_team(bel: SideBelief, st: dict[str, Any], size: int) -> list[int]:
    """Team with self maximising P_clean; ties: overlap with successful teams, then lexicographic."""
    others = [j for j in range(bel.n) if j != bel.seat]
    good_teams = [set(q["team"]) for q in st.get("quests", []) if q["result"] == "success"]
    best: tuple[float, int, tuple[int, ...]] | None = None
    for rest in combinations(others, size - 1):
        team = tuple(sorted((bel.seat, *rest)))
        overlap = sum(len(g & set(team)) for g in good_teams)
        key = (round(bel.p_clean(team), 12), overlap, tuple(-x for x in team))
        if best is None or key > best:
            best = key
    assert best is not None
    return sorted(-x for x in best[2])


def max_clean(bel: SideBelief, size: int) -> float:
    return max(bel.p_clean(t) for t in combinations(range(bel.n), size))


def best_with(bel: SideBelief, seat: int, size: int) -> float:
    """Highest P_clean over teams of ``size`` that contain ``seat``."""
    others = [j for j in range(bel.n) if j != seat]
    return max(bel.p_clean((seat, *rest)) for rest in combinations(others, size - 1))


def hammer_leader(st: dict[str, Any]) -> int:
    """Seat that leads the fifth proposal of the current quest (leader moves every proposal)."""
    return int(st["leader"] + 5 - st["attempt"]) % int(st["n_players"])


class ServantStrategy:
    """Loyal Servant / Percival: propose and approve the most likely clean team.

    ``hammer_aware``: on the fourth proposal (the last free vote: the fifth team is approved by
    good under ``hammer`` and automatically under ``auto_approve``) the reference is not the best
    team overall but the best team the fifth leader could propose, so a team at least about as
    likely clean as that forced team is approved instead of handing the choice to a suspect.
    """

    def __init__(self, rng: Any, delta: float = 0.05, evidence: str = "hard",
                 p_fail: float = 0.7, gamma: float = 1.0,
                 hammer_aware: bool = False) -> None:  # fmt: skip
        self.rng, self.delta = rng, delta
        self.evidence, self.p_fail, self.gamma = evidence, p_fail, gamma
        self.hammer_aware = hammer_aware

    def belief(self, st: dict[str, Any]) -> SideBelief:
        return SideBelief(st, self.evidence, self.p_fail, self.gamma)

    def propose(self, st: dict[str, Any], size: int) -> list[int]:
        return best_team(self.belief(st), st, size)

    def vote(self, st: dict[str, Any]) -> str:
        if st["leader"] == st["seat"]:
            return "approve"
        if st["attempt"] == 5 and st["rules"]["fifth_proposal_rule"] == "hammer":
            return "approve"
        bel = self.belief(st)
        size = len(st["team"])
        ref = max_clean(bel, size)
        if self.hammer_aware and st["attempt"] == 4:
            ref = min(ref, best_with(bel, hammer_leader(st), size))
        ok = bel.p_clean(st["team"]) >= ref - self.delta
        return "approve" if ok else "reject"

    def quest(self, st: dict[str, Any]) -> str:
        return "success"

    def discuss(self, st: dict[str, Any]) -> str:
        bel = self.belief(st)
        others = [j for j in range(bel.n) if j != bel.seat]
        suspect = min(others, key=lambda j: (bel.p_good(j), j))
        size = st["team_sizes"][st["quest"] - 1]
        team = best_team(bel, st, size)
        nm = st["names"]
        return (
            f"My top suspect is {nm[suspect]}. I would send "
            + ", ".join(nm[j] for j in team)
            + f" on quest {st['quest']}."
        )

    def lady(self, st: dict[str, Any], options: list[int]) -> int:
        bel = self.belief(st)
        return min(options, key=lambda j: (abs(bel.p_good(j) - 0.5), j))

    def report(self, st: dict[str, Any]) -> dict[str, float]:
        bel = self.belief(st)
        return {str(j): round(bel.p_good(j), 6) for j in range(bel.n) if j != bel.seat}


def fails_for(st: dict[str, Any]) -> int:
    return fails_needed(st["n_players"], st["quest"])
