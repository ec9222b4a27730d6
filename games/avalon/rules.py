"""The Avalon rules engine: phase machine of spec avalon.md §4 over the arena RulesEngine.

Phases: discuss_pre → propose → discuss_post → vote → quest → [belief] → [lady] → … →
[confer] → assassinate → [belief] → end. Views, private facts and the briefing live in
``games.avalon.views``; start knowledge in ``games.avalon.knowledge``.
"""

from __future__ import annotations

from typing import Any

from arena.engine import NAME_POOL, RulesEngine
from arena.events import Visibility
from arena.types import Action, InvalidAction
from games.avalon.config import (
    ROLE_TITLES,
    SETUP_TABLE,
    AvalonRules,
    fails_needed,
    side_of,
    team_size,
)
from games.avalon.decisions import AvalonDecisions
from games.avalon.endgame import AvalonEndgame
from games.avalon.knowledge import initial_audiences, start_knowledge
from games.avalon.views import AvalonViews


class AvalonEngine(AvalonDecisions, AvalonEndgame, AvalonViews, RulesEngine[AvalonRules]):
    game = "avalon"
    Rules = AvalonRules

    @property
    def n_seats(self) -> int:
        return self.rules.n_players

    # -- setup -----------------------------------------------------------------------
    def _setup(self) -> None:
        r, n = self.rules, self.rules.n_players
        self._names = list(NAME_POOL[:n])
        roles = r.role_list()
        self.rng.shuffle(roles)
        self.role_of: list[str] = roles
        self.side: list[str] = [side_of(x) for x in roles]
        self.knowledge = start_knowledge(roles, r, self.rng)
        self.side_known, self.role_known = initial_audiences(roles, self.knowledge)
        fl = r.first_leader
        self.leader: int = self.rng.randrange(n) if fl == "random" else int(fl)
        self.first_leader = self.leader
        self.quest, self.attempt = 1, 1
        self.proposals: list[dict[str, Any]] = []
        self.quests: list[dict[str, Any]] = []
        self.team: list[int] = []
        self.buffer: dict[int, str] = {}
        self.speakers: list[int] = []
        self.result: str | None = None
        self.after_belief = ""
        self.checkpoint = ""
        self.lady_holder: int | None = (self.leader - 1) % n if r.lady_of_the_lake else None
        self.lady_held: list[int] = [] if self.lady_holder is None else [self.lady_holder]
        self.lady_results: list[dict[str, Any]] = []
        self.conference: list[dict[str, Any]] = []
        self.target: int | None = None
        self.revealed = False
        good, evil, sizes = SETUP_TABLE[n]
        multiset = sorted(roles, key=lambda x: (side_of(x) != "good", x))
        self.emit(
            "setup",
            f"Avalon with {n} players ({good} good, {evil} evil). Players: "
            + ", ".join(f"{nm} (seat {i})" for i, nm in enumerate(self._names))
            + ". Roles in play: "
            + ", ".join(ROLE_TITLES[x] for x in multiset)
            + f". Team sizes per quest: {list(sizes)}; fails needed: "
            + f"{[fails_needed(n, q) for q in range(1, 6)]}. First leader: "
            + f"{self._names[self.leader]}.",
            n_players=n,
            names=self._names,
            roles_in_play=multiset,
            team_sizes=list(sizes),
            fails_needed=[fails_needed(n, q) for q in range(1, 6)],
            first_leader=self.leader,
            lady_holder=self.lady_holder,
            rules=r.model_dump(mode="json"),
        )
        self.emit("deal", "Roles dealt.", visibility=Visibility.god(), roles=dict(enumerate(roles)))
        for seat in range(n):
            self._emit_start_knowledge(seat)
        self._start_round()

    def _emit_start_knowledge(self, seat: int) -> None:
        role, k, nm = self.role_of[seat], self.knowledge[seat], self._names
        vis = Visibility.private(seat)
        self.emit(
            "role",
            f"You are {ROLE_TITLES[role]} ({self.side[seat]}).",
            visibility=vis,
            seat=seat,
            role=role,
            side=self.side[seat],
        )
        if k["evil"]:
            text = "You see as evil: " + ", ".join(nm[s] for s in k["evil"]) + "."
            if k["evil_roles"]:
                text += " Roles: " + ", ".join(
                    f"{nm[s]} is {ROLE_TITLES[x]}" for s, x in k["evil_roles"].items()
                )
            roles = {str(s): x for s, x in k["evil_roles"].items()}
            self.emit("sees_evil", text, visibility=vis, evil=list(k["evil"]), roles=roles)
        if k["merlin_candidates"]:
            c = k["merlin_candidates"]
            self.emit(
                "sees_merlin_candidates",
                "Merlin candidates (one is Merlin"
                + (", the other Morgana): " if len(c) > 1 else "): ")
                + ", ".join(nm[s] for s in c),
                visibility=vis,
                merlin_candidates=list(c),
            )

    # -- whose turn ------------------------------------------------------------------
    def pending(self) -> list[int]:
        p = self.phase
        if p in ("discuss_pre", "discuss_post", "confer"):
            return self.speakers[:1]
        if p == "propose":
            return [self.leader]
        if p == "vote" or p == "belief":
            return [s for s in range(self.n_seats) if s not in self.buffer]
        if p == "quest":
            return [s for s in self.team if s not in self.buffer]
        if p == "lady":
            return [self.lady_holder] if self.lady_holder is not None else []
        if p == "assassinate":
            return [self.assassin]
        return []

    @property
    def assassin(self) -> int:
        return self.role_of.index("assassin")

    # -- applying --------------------------------------------------------------------
    def _apply(self, seat: int, action: Action) -> None:
        belief = self._parse_belief(seat, action.belief) if action.belief else None
        kind = self.decision(seat).kind
        choice = action.choice
        if belief is not None:
            self._emit_belief(seat, belief, self.checkpoint if kind == "belief" else kind)
        p = self.phase
        if p in ("discuss_pre", "discuss_post", "confer"):
            self._speak(seat, action)
        elif p == "propose":
            self._propose(sorted(int(c) for c in action.choices))
        elif p in ("vote", "quest", "belief"):
            self.buffer[seat] = choice or "belief"
            if not self.pending():
                {"vote": self._resolve_vote, "quest": self._resolve_quest}.get(
                    p, self._resolve_belief
                )()
        elif p == "lady":
            self._lady(seat, int(choice or 0))
        elif p == "assassinate":
            self._assassinate(seat, int(choice or 0))

    def _parse_belief(self, seat: int, raw: dict[str, float]) -> dict[str, dict[str, float]]:
        """Belief keys are seats or names; ``merlin:<seat>`` is P(Merlin). Self is ignored."""
        lookup = {str(s): s for s in range(self.n_seats)}
        lookup.update({nm.lower(): s for s, nm in enumerate(self._names)})
        out: dict[str, dict[str, float]] = {"p_good": {}, "p_merlin": {}}
        for key, p in raw.items():
            k = key.strip().lower()
            field = "p_good"
            if k.startswith("merlin:"):
                field, k = "p_merlin", k.split(":", 1)[1].strip()
            if k not in lookup:
                raise InvalidAction(f"belief names unknown player {key!r}")
            if lookup[k] != seat:
                out[field][str(lookup[k])] = float(p)
        return out

    def _emit_belief(self, seat: int, belief: dict[str, dict[str, float]], checkpoint: str) -> None:
        self.emit(
            "belief",
            "",
            actor=seat,
            visibility=Visibility.god(),
            reporter=seat,
            checkpoint=checkpoint,
            quest=self.quest,
            attempt=self.attempt,
            p_good=belief["p_good"],
            p_merlin=belief["p_merlin"],
        )

    def _speak(self, seat: int, action: Action) -> None:
        if action.text:
            if self.phase == "confer":
                evil = [s for s in range(self.n_seats) if self.side[s] == "evil"]
                vis = Visibility.for_team("evil", evil)
                self.conference.append({"seat": seat, "text": action.text})
            else:
                vis = Visibility.public()
            self.emit_speech(
                "message",
                seat,
                action.text,
                visibility=vis,
                channel="evil" if self.phase == "confer" else "public",
                message=action.text,
            )
        self.speakers.pop(0)
        if not self.speakers:
            {"discuss_pre": self._enter_propose, "discuss_post": self._enter_vote}.get(
                self.phase, self._enter_assassinate
            )()

    def _discussion(self, phase: str, rounds: int, order: list[int], then: Any) -> None:
        if rounds == 0:
            then()
            return
        self.phase = phase
        self.speakers = order * rounds

    def _order_from_leader(self) -> list[int]:
        n = self.n_seats
        return [(self.leader + i) % n for i in range(n)]

    def _start_round(self) -> None:
        self.phase = "discuss_pre"
        self.emit(
            "round",
            f"Quest {self.quest}, proposal {self.attempt}/5: {self._names[self.leader]} leads "
            f"and will choose {team_size(self.n_seats, self.quest)} players.",
            quest=self.quest,
            attempt=self.attempt,
            leader=self.leader,
            team_size=team_size(self.n_seats, self.quest),
        )
        self._discussion(
            "discuss_pre", self.rules.discussion_pre_rounds, self._order_from_leader(),
            self._enter_propose,
        )  # fmt: skip

    def _enter_propose(self) -> None:
        self.phase = "propose"

    def _propose(self, team: list[int]) -> None:
        self.team = team
        auto = self.attempt == 5 and self.rules.fifth_proposal_rule == "auto_approve"
        self.emit(
            "proposal",
            f"{self._names[self.leader]} proposes {[self._names[s] for s in team]}"
            + (" (fifth proposal: approved automatically)." if auto else "."),
            actor=self.leader,
            quest=self.quest,
            attempt=self.attempt,
            leader=self.leader,
            team=list(team),
            auto_approved=auto,
        )
        if auto:
            self._record_proposal(None, approved=True, auto=True)
            self._enter_quest()
            return
        self._discussion(
            "discuss_post", self.rules.discussion_post_rounds, self._order_from_leader(),
            self._enter_vote,
        )  # fmt: skip

    def _enter_vote(self) -> None:
        self.phase, self.buffer = "vote", {}

    def _record_proposal(self, votes: dict[int, str] | None, approved: bool, auto: bool) -> None:
        self.proposals.append(
            {
                "quest": self.quest,
                "attempt": self.attempt,
                "leader": self.leader,
                "team": list(self.team),
                "votes": {str(s): v for s, v in sorted(votes.items())} if votes else None,
                "approvals": sum(v == "approve" for v in votes.values()) if votes else None,
                "approved": approved,
                "auto_approved": auto,
            }
        )
        self.leader = (self.leader + 1) % self.n_seats

    def _resolve_vote(self) -> None:
        votes, n = dict(self.buffer), self.n_seats
        self.buffer = {}
        ayes = sum(v == "approve" for v in votes.values())
        approved = ayes > n / 2
        named = self.rules.vote_reveal == "named"
        detail = (
            ", ".join(f"{self._names[s]}: {votes[s]}" for s in range(n))
            if named
            else f"{ayes} approve, {n - ayes} reject"
        )
        self.emit(
            "vote_result",
            f"Team {'approved' if approved else 'rejected'} ({detail}).",
            quest=self.quest,
            attempt=self.attempt,
            team=list(self.team),
            votes={str(s): votes[s] for s in range(n)} if named else None,
            approvals=ayes,
            rejections=n - ayes,
            approved=approved,
        )
        if not named:  # individual ballots stay in the record for metrics only
            self.emit("vote_ballots", "", visibility=Visibility.god(), quest=self.quest,
                      attempt=self.attempt, votes={str(s): votes[s] for s in range(n)})  # fmt: skip
        self._record_proposal(votes, approved=approved, auto=False)
        if approved:
            self._enter_quest()
        elif self.attempt == 5:
            self._decide("evil_win_hammer")
        else:
            self.attempt += 1
            self._start_round()
