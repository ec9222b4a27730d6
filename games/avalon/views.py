"""Per-seat views of an Avalon game: state summaries, private facts, briefings.

Mixed into :class:`games.avalon.rules.AvalonEngine`; every function here reads engine state
and returns only what the given seat may know (``None`` = spectator / god view).
"""

from __future__ import annotations

from typing import Any

from arena.types import PrivateFact
from games.avalon.config import ROLE_TITLES, SETUP_TABLE, fails_needed


class AvalonViews:
    """State/fact/briefing views; relies on attributes set by ``AvalonEngine._setup``."""

    role_of: list[str]
    side: list[str]
    knowledge: list[dict[str, Any]]
    side_known: list[set[int]]
    role_known: list[set[int]]
    _names: list[str]

    # -- teams / roles ---------------------------------------------------------------
    def teams(self) -> dict[int, str]:
        return dict(enumerate(self.side))

    def roles(self) -> dict[int, str]:
        return dict(enumerate(self.role_of))

    def max_options(self) -> int:
        return int(self.rules.n_players) + 4  # type: ignore[attr-defined]

    # -- private facts ---------------------------------------------------------------
    def private_facts(self) -> list[PrivateFact]:
        """Role and side of every seat with its exact audience; Percival's candidates."""
        out: list[PrivateFact] = []
        public = self.revealed  # type: ignore[attr-defined]
        for s, role in enumerate(self.role_of):
            out.append(
                PrivateFact(
                    owner=s,
                    kind="role",
                    key="role",
                    value=role,
                    audience=tuple(sorted(self.role_known[s])),
                    public=public,
                    aliases=(ROLE_TITLES[role],),
                )
            )
            out.append(
                PrivateFact(
                    owner=s,
                    kind="side",
                    key="side",
                    value=self.side[s],
                    audience=tuple(sorted(self.side_known[s])),
                    public=public,
                )
            )
        for seat, k in enumerate(self.knowledge):
            for c in k["merlin_candidates"]:
                out.append(
                    PrivateFact(
                        owner=c,
                        kind="merlin_candidate",
                        key="merlin_candidate",
                        value=True,
                        audience=tuple(sorted({seat, c})),
                        public=public,
                    )
                )
        return out

    # -- state -----------------------------------------------------------------------
    def state(self, seat: int | None) -> dict[str, Any]:
        """JSON-able summary of what ``seat`` may know (bots read this)."""
        st = self._table_state(seat)
        if seat is None:
            st["roles"] = {str(s): r for s, r in enumerate(self.role_of)}
            return st
        st.update(self._seat_knowledge(seat))
        return st

    def _table_state(self, seat: int | None) -> dict[str, Any]:
        """What every seat sees: the phase, the quests so far, the rule flags; ballots by name
        only under named votes (or for the god view)."""
        e: Any = self
        n = e.n_seats
        named = e.rules.vote_reveal == "named"
        proposals = []
        for p in e.proposals:
            q = dict(p)
            q["team"] = list(p["team"])
            q["votes"] = dict(p["votes"]) if (p["votes"] and (named or seat is None)) else None
            proposals.append(q)
        st: dict[str, Any] = {
            "phase": e.phase,
            "n_players": n,
            "names": list(e._names),
            "quest": e.quest,
            "attempt": e.attempt,
            "leader": e.leader,
            "team": list(e.team),
            "team_sizes": list(SETUP_TABLE[n][2]),
            "fails_needed": [fails_needed(n, q) for q in range(1, 6)],
            "n_good": SETUP_TABLE[n][0],
            "n_evil": SETUP_TABLE[n][1],
            "roles_in_play": sorted(e.role_of),
            "proposals": proposals,
            "quests": [dict(q, team=list(q["team"])) for q in e.quests],
            "lady_holder": e.lady_holder,
            "lady_held": list(e.lady_held),
            "lady_examinations": [
                {"holder": x["holder"], "target": x["target"]} for x in e.lady_results
            ],
            "assassination_target": e.target,
            "checkpoint": e.checkpoint if e.phase == "belief" else None,
            "rules": {
                "fifth_proposal_rule": e.rules.fifth_proposal_rule,
                "good_must_succeed": e.rules.good_must_succeed,
                "vote_reveal": e.rules.vote_reveal,
            },
        }
        if e.phase == "end":
            st["result"] = e.result
            if e.revealed:
                st["roles"] = {str(s): r for s, r in enumerate(self.role_of)}
        return st

    def _seat_knowledge(self, seat: int) -> dict[str, Any]:
        """What only ``seat`` knows: its role and side, the sides and roles it was shown, its
        Lady results and (evil, once it has begun) the conference."""
        e: Any = self
        n = e.n_seats
        st: dict[str, Any] = {"seat": seat, "role": self.role_of[seat], "side": self.side[seat]}
        st["known_evil"] = sorted(
            j
            for j in range(n)
            if j != seat and seat in self.side_known[j] and self.side[j] == "evil"
        )
        st["known_good"] = sorted(
            j
            for j in range(n)
            if j != seat and seat in self.side_known[j] and self.side[j] == "good"
        )
        st["known_roles"] = {
            str(j): self.role_of[j] for j in range(n) if j != seat and seat in self.role_known[j]
        }
        st["merlin_candidates"] = list(self.knowledge[seat]["merlin_candidates"])
        st["lady_results"] = [dict(x) for x in e.lady_results if x["holder"] == seat]
        if (self.side[seat] == "evil" and e.phase in ("confer", "assassinate")) or (
            self.side[seat] == "evil" and e.conference
        ):
            st["conference"] = [dict(m) for m in e.conference]
        return st

    # -- briefing --------------------------------------------------------------------
    def briefing(self, seat: int) -> str:
        e: Any = self
        nm, role = self._names, self.role_of[seat]
        n = e.n_seats
        good, evil, sizes = SETUP_TABLE[n]
        lines = [
            f"You are {nm[seat]} (seat {seat}) in a game of The Resistance: Avalon "
            f"with {n} players ({good} good, {evil} evil).",
            f"Your role: {ROLE_TITLES[role]} ({self.side[seat]}).",
            f"Team sizes per quest: {list(sizes)}. Fails needed per quest: "
            f"{[fails_needed(n, q) for q in range(1, 6)]}. Three successful quests win for "
            "good unless the Assassin then names Merlin; three failed quests win for evil.",
        ]
        if e.rules.fifth_proposal_rule == "hammer":
            lines.append("If five proposals in a row are rejected for one quest, evil wins.")
        else:
            lines.append("The fifth proposal of a quest is approved automatically.")
        st = self.state(seat)
        if st["known_evil"]:
            lines.append("You know these players are evil: " + ", ".join(
                nm[j] for j in st["known_evil"]) + ".")  # fmt: skip
        if st["known_good"]:
            lines.append("You know these players are good: " + ", ".join(
                nm[j] for j in st["known_good"]) + ".")  # fmt: skip
        for j, r in st["known_roles"].items():
            lines.append(f"You know {nm[int(j)]} is {ROLE_TITLES[r]}.")
        if st["merlin_candidates"]:
            lines.append("Merlin candidates (you cannot tell which is which): " + ", ".join(
                nm[j] for j in st["merlin_candidates"]) + ".")  # fmt: skip
        return "\n".join(lines)
