"""The coordinating wolf bot (spec §13.7).

All wolf bots of a match compute the same night target from the same public/team view with a
team RNG seeded by (team seed, night number), then post it on the wolf channel and vote it, so
they agree without relying on the discussion. By day a wolf never votes for, accuses or defends
a partner; it accuses the player it intends to vote for.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any, ClassVar

from arena.seeding import derive_seed
from arena.types import Action, Decision
from games.werewolf.bot_base import WerewolfBot, say, seat_options, silent
from games.werewolf.suspicion import IS_WOLF, KILL, SEER_CLAIM, SUSPECT, View


class WolfBot(WerewolfBot):
    kind = "werewolf.wolf"
    PARAMS: ClassVar[tuple[str, ...]] = ("wolf_fake_claim_prob",)

    def __init__(self, name: str | None = None, **params: Any) -> None:
        super().__init__(name, **params)
        self._pick: dict[int, int] = {}  # day -> intended vote target (stable tie-break)

    def team_rng(self, *parts: object) -> random.Random:
        team_seed = self.context.team_seed if self.context else 0
        return random.Random(derive_seed(team_seed, "wolf-team", *parts))

    @property
    def v(self) -> View:
        assert self.view is not None
        return self.view

    def partners(self) -> set[int]:
        return self.v.wolves | {self.v.me}

    # -- night ---------------------------------------------------------------------------
    def night_target(self, targets: list[int]) -> int | None:
        """The team's choice among ``targets`` (identical for every wolf bot of the team)."""
        view = self.v
        wolves = self.partners()
        pool = sorted(t for t in targets if t not in wolves and t in view.alive)
        if not pool:
            return None
        claimants = [c for c in pool if c in view.seer_claims]
        protective = [c for c in pool if c in view.protective_claims]
        if claimants:
            tier = claimants
        elif protective:
            tier = protective
        else:
            against = Counter(v for (_, v, t) in view.ballots if t in wolves)
            top = max(against[c] for c in pool)
            tier = [c for c in pool if against[c] == top]
        return tier[0] if len(tier) == 1 else self.team_rng("night", view.night).choice(tier)

    def on_wolf_discuss(self, decision: Decision) -> Action:
        targets = [s for s in sorted(self.v.alive) if s != self.v.me]
        target = self.night_target(targets)
        if target is None:
            return silent(decision)
        return say(decision, KILL.format(name=self.v.names[target]))

    def on_wolf_target(self, decision: Decision) -> Action:
        target = self.night_target(seat_options(decision))
        if target is not None:
            return Action(choices=(str(target),))
        if "no_kill" in decision.option_ids:
            return Action(choices=("no_kill",))
        return Action(
            choices=(self.team_rng("fallback", self.v.night).choice(decision.option_ids),)
        )

    # -- day -----------------------------------------------------------------------------
    def fake_claim(self) -> int | None:
        """On day 1 the designated wolf (if any) fake-claims Seer and names this non-wolf."""
        p = float(self.params.get("wolf_fake_claim_prob", 0.0))
        view = self.v
        if p <= 0 or view.day != 1:
            return None
        rng = self.team_rng("fake-claim")
        if rng.random() >= p:
            return None
        wolves = sorted(self.partners())
        designated = wolves[rng.randrange(len(wolves))]
        others = sorted(s for s in view.alive if s not in self.partners())
        if designated != view.me or designated not in view.alive or not others:
            return None
        return rng.choice(others)

    def intended(self, candidates: list[int]) -> int | None:
        view = self.v
        pool = sorted(c for c in candidates if c not in self.partners())
        if not pool:
            return None
        claimed = self.fake_claim()
        if claimed is not None and claimed in pool:
            return claimed
        if self.v.rules.get("vote_mode") == "sequential" and view.today_ballots:
            counts = Counter(t for t in view.today_ballots.values() if t in pool)
            if counts:
                top = max(counts.values())
                tied = sorted(c for c, n in counts.items() if n == top)
                return tied[0] if len(tied) == 1 else self.rng.choice(tied)
        top = max(view.accused_today[c] for c in pool)
        tied = [c for c in pool if view.accused_today[c] == top]
        previous = self._pick.get(view.day)
        if previous in tied:
            return previous
        choice = tied[0] if len(tied) == 1 else self.rng.choice(tied)
        self._pick[view.day] = choice
        return choice

    def speech(self) -> str:
        view = self.v
        target = self.intended(sorted(s for s in view.alive if s != view.me))
        if target is None:
            return ""
        if self.fake_claim() == target:
            return f"{SEER_CLAIM} {IS_WOLF.format(name=view.names[target])}"
        return SUSPECT.format(name=view.names[target])

    def on_speak(self, decision: Decision) -> Action:
        text = self.speech()
        return say(decision, text) if text else silent(decision)

    on_last_words = on_speak

    def on_vote(self, decision: Decision) -> Action:
        targets = seat_options(decision)
        target = self.intended(targets)
        if target is None:  # only partners left on the ballot: abstain or self if allowed
            if "abstain" in decision.option_ids:
                return Action(choices=("abstain",))
            if self.v.me in targets:
                return Action(choices=(str(self.v.me),))
            target = self.rng.choice(targets) if targets else None
        if target is None:
            return silent(decision)
        return Action(choices=(str(target),))

    on_revote = on_vote
    on_poll = on_vote

    def on_bid(self, decision: Decision) -> Action:
        view = self.v
        bid = 4 if self.addressed() else (1 if view.spoke_on_day != view.day else 0)
        ids = decision.option_ids
        return Action(choices=(str(bid) if str(bid) in ids else ids[0],))

    def on_async_tick(self, decision: Decision) -> Action:
        if decision.free_text and self.v.spoke_on_day != self.v.day:
            text = self.speech()
            if text:
                return say(decision, text)
        return silent(decision)

    def on_belief(self, decision: Decision) -> Action:
        view = self.v
        return Action(
            belief={
                str(j): (1.0 if j in view.wolves else 0.0) for j in range(view.n) if j != view.me
            }
        )
