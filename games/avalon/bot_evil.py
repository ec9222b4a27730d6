"""The `evil_aware` and `merlin` strategies (spec avalon.md §8.2, §8.3)."""

from __future__ import annotations

import random
import re
from typing import Any

from games.avalon.config import fails_needed

SEAT_RE = re.compile(r"seat (\d+)")


class EvilStrategy:
    """Assassin, Minion, Morgana, Mordred; ``oberon=True`` gives the Oberon variant."""

    def __init__(self, rng: random.Random, oberon: bool = False, p_cover: float = 0.0,
                 p_bide: float = 0.0) -> None:  # fmt: skip
        self.rng, self.oberon = rng, oberon
        self.p_cover, self.p_bide = p_cover, p_bide

    def known(self, st: dict[str, Any]) -> set[int]:
        if self.oberon:
            return {st["seat"]}
        return {st["seat"], *st.get("known_evil", [])}

    def propose(self, st: dict[str, Any], size: int) -> list[int]:
        me, k = st["seat"], self.known(st)
        f = fails_needed(st["n_players"], st["quest"])
        mates = sorted(k - {me})
        team = [me] + (self.rng.sample(mates, min(f - 1, len(mates))) if not self.oberon else [])
        outside = [j for j in range(st["n_players"]) if j not in k and j not in team]
        team += self.rng.sample(outside, size - len(team))
        return sorted(team)

    def vote(self, st: dict[str, Any]) -> str:
        k, team = self.known(st), st["team"]
        if self.oberon:
            return "approve" if st["seat"] in team else "reject"
        e = len(k & set(team))
        if e >= fails_needed(st["n_players"], st["quest"]):
            return "approve"
        if e == 0 and st["quest"] <= 2 and self.rng.random() < self.p_cover:
            return "approve"
        return "reject"

    def quest(self, st: dict[str, Any]) -> str:
        if self.oberon:
            return "fail"
        f = fails_needed(st["n_players"], st["quest"])
        ours = sorted(self.known(st) & set(st["team"]))
        if len(ours) < f or st["seat"] not in ours[:f]:
            return "success"
        if st["quest"] == 1 and self.rng.random() < self.p_bide:
            return "success"
        return "fail"

    def merlin_scores(self, st: dict[str, Any]) -> dict[int, float]:
        k = self.known(st)
        mordred = {int(j) for j, r in st.get("known_roles", {}).items() if r == "mordred"}
        km = k - mordred
        scores: dict[int, float] = {}
        for j in range(st["n_players"]):
            if j in k:
                continue
            informed = cast = led = clean_led = 0
            for p in st.get("proposals", []):
                dirty = bool(km & set(p["team"]))
                if p.get("votes") and str(j) in p["votes"]:
                    v = p["votes"][str(j)]
                    cast += 1
                    informed += (v == "approve" and not dirty) or (v == "reject" and dirty)
                if p["leader"] == j:
                    led += 1
                    clean_led += not dirty
            scores[j] = (informed / cast if cast else 0.0) + 0.5 * (clean_led / led if led else 0.0)
        return scores

    def top_candidate(self, st: dict[str, Any]) -> int:
        scores = self.merlin_scores(st)
        best = max(scores.values())
        return self.rng.choice(sorted(j for j, s in scores.items() if s == best))

    def confer(self, st: dict[str, Any]) -> str:
        j = self.top_candidate(st)
        return f"I think {st['names'][j]} (seat {j}) is Merlin."

    def assassinate(self, st: dict[str, Any], options: list[int]) -> int:
        own = self.top_candidate(st)
        votes: dict[int, int] = {own: 1}
        for m in st.get("conference", []):
            if m["seat"] == st["seat"]:
                continue
            hit = SEAT_RE.search(m["text"])
            if hit and int(hit.group(1)) in options:
                votes[int(hit.group(1))] = votes.get(int(hit.group(1)), 0) + 1
        top = max(votes.values())
        winners = [j for j, c in votes.items() if c == top]
        return own if own in winners and own in options else min(winners)

    def discuss(self, st: dict[str, Any]) -> str | None:
        if self.rng.random() < 0.5:
            return None
        j = self.top_candidate(st)
        return f"I am loyal to Arthur. I find {st['names'][j]} suspicious."

    def report(self, st: dict[str, Any]) -> dict[str, float]:
        n, me, k = st["n_players"], st["seat"], self.known(st)
        unknown = [j for j in range(n) if j not in k]
        spread = max(st["n_evil"] - len(k), 0) / len(unknown) if unknown else 0.0
        out = {str(j): (0.0 if j in k else round(1.0 - spread, 6)) for j in range(n) if j != me}
        scores = self.merlin_scores(st)
        total = sum(scores.values())
        for j, s in scores.items():
            out[f"merlin:{j}"] = round(s / total if total else 1.0 / len(scores), 6)
        return out


class MerlinStrategy:
    """Merlin: avoid the evil players it sees; sometimes hints in discussion."""

    def __init__(self, rng: random.Random, p_hint: float = 0.5, p_conceal: float = 0.0) -> None:
        self.rng, self.p_hint, self.p_conceal = rng, p_hint, p_conceal

    def propose(self, st: dict[str, Any], size: int) -> list[int]:
        me, v = st["seat"], set(st.get("known_evil", []))
        outside = [j for j in range(st["n_players"]) if j not in v and j != me]
        return sorted([me, *self.rng.sample(outside, size - 1)])

    def vote(self, st: dict[str, Any]) -> str:
        if st["attempt"] == 5 and st["rules"]["fifth_proposal_rule"] == "hammer":
            return "approve"
        bad = len(set(st.get("known_evil", [])) & set(st["team"]))
        if bad == 0:
            return "approve"
        if bad == 1 and st["quest"] == 1 and self.rng.random() < self.p_conceal:
            return "approve"
        return "reject"

    def quest(self, st: dict[str, Any]) -> str:
        return "success"

    def discuss(self, st: dict[str, Any]) -> str:
        nm, v = st["names"], sorted(st.get("known_evil", []))
        if v and self.rng.random() < self.p_hint:
            return f"I do not think {nm[self.rng.choice(v)]} is trustworthy."
        team = self.propose(st, st["team_sizes"][st["quest"] - 1])
        return "I would send " + ", ".join(nm[j] for j in team) + f" on quest {st['quest']}."

    def lady(self, st: dict[str, Any], options: list[int]) -> int:
        return self.rng.choice(options)

    def report(self, st: dict[str, Any]) -> dict[str, float]:
        n, me, v = st["n_players"], st["seat"], set(st.get("known_evil", []))
        unseen = [j for j in range(n) if j != me and j not in v]
        spread = max(st["n_evil"] - len(v), 0) / len(unseen) if unseen else 0.0
        return {str(j): (0.0 if j in v else round(1.0 - spread, 6)) for j in range(n) if j != me}
