"""One pass over a Werewolf match's god-view events: the state the measures of
:mod:`games.werewolf.measures` are computed from (who was alive at each vote, what each seat
knew when it reported beliefs, nights, exiles, speech and bids).

Each event kind has one handler (:data:`HANDLERS`); kinds without one are skipped.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from typing import Any

from arena.events import GameEvent
from games.werewolf.suspicion import is_wolf_result

WOLF = "werewolf"


def _audience(event: GameEvent) -> int | None:
    """The single seat a private event is addressed to, if it says so."""
    seats = event.visibility.seats
    return int(seats[0]) if len(seats) == 1 else None


def _seat(x: Any) -> int | None:
    if x is None or str(x) == "abstain":
        return None
    return int(x)


class Scan:
    """One pass over the events: what the measures need, as it stood when each event happened.

    Each event kind has its handler in :data:`HANDLERS` (kinds without one are skipped)."""

    def __init__(
        self, n: int, roles: dict[int, str], rules: dict[str, Any], composition: dict[str, int]
    ) -> None:
        self.roles, self.rules, self.composition = roles, rules, composition
        self.wolves = {s for s, r in roles.items() if r == WOLF}
        self.n_events = 0
        self.alive = set(range(n))
        self.death_idx: dict[int, int] = {}
        self.phase = ("setup", 0)
        self.night_bounds: list[list[int]] = []  # [start index, end index] per night
        self.day = self.max_day = 0
        self.wolf_target: dict[int, int | None] = {}
        self.protected: dict[int, set[int]] = defaultdict(set)
        self.healed: dict[int, bool] = defaultdict(bool)
        self.killed_at_night: dict[int, set[int]] = defaultdict(set)
        self.seer_found: list[dict[str, Any]] = []
        self.known: dict[int, set[int]] = defaultdict(set)  # reporter -> seats it knows
        self.night_dead_public: set[int] = set()
        self.revealed: set[int] = set()
        self.round_ballots: list[tuple[int, int | None]] = []
        self.votes: list[dict[str, Any]] = []
        self.exiles: dict[int, tuple[int | None, int]] = {}
        self.belief_reports: list[dict[str, Any]] = []
        self.speech: dict[int, dict[str, int]] = {
            s: {"messages": 0, "chars": 0, "wolf_messages": 0} for s in range(n)
        }
        self.bids: dict[int, dict[str, float]] = {
            s: {"n": 0, "sum": 0.0, "turns_won": 0} for s in range(n)
        }
        self.turns = 0
        self.outcome: dict[str, Any] = {}

    def run(self, event_list: list[GameEvent], evs: list[tuple[str, dict[str, Any]]]) -> None:
        self.n_events = len(evs)
        for idx, (kind, p) in enumerate(evs):
            handler = HANDLERS.get(kind)
            if handler is not None:
                handler(self, idx, p, event_list[idx])

    def _close_night(self, idx: int) -> None:
        if self.phase[0] == "night" and self.night_bounds:
            self.night_bounds[-1][1] = idx

    def on_phase(self, idx: int, p: dict[str, Any], _e: GameEvent) -> None:
        self._close_night(idx)
        self.phase = (str(p.get("phase")), int(p.get("number") or 0))
        if self.phase[0] == "night":
            self.night_bounds.append([idx, self.n_events])
            return
        self.day = self.phase[1]
        self.max_day = max(self.max_day, self.day)
        for f in self.seer_found:
            f.setdefault("day", self.day)

    def on_wolf_target(self, _idx: int, p: dict[str, Any], _e: GameEvent) -> None:
        self.wolf_target[self.phase[1]] = _seat(p.get("target"))

    def on_protect(self, _idx: int, p: dict[str, Any], _e: GameEvent) -> None:
        self.protected[self.phase[1]].add(int(p["target"]))

    def on_witch_action(self, _idx: int, p: dict[str, Any], _e: GameEvent) -> None:
        night = self.phase[1]
        self.healed[night] = self.healed[night] or bool(p.get("heal"))

    def on_seer_result(self, _idx: int, p: dict[str, Any], event: GameEvent) -> None:
        seer = _audience(event) or next((s for s, r in self.roles.items() if r == "seer"), -1)
        target = int(p["target"])
        self.known[seer].add(target)
        found = self.seer_found
        if is_wolf_result(p.get("result")) and all(f["target"] != target for f in found):
            found.append({"seer": seer, "target": target})

    def on_dawn(self, _idx: int, p: dict[str, Any], _e: GameEvent) -> None:
        self.night_dead_public.update(int(s) for s in p.get("dead") or [])
        reveals = p.get("reveals") or {}
        self.revealed.update(int(s) for s, v in reveals.items() if v is not None)

    def on_death(self, idx: int, p: dict[str, Any], _e: GameEvent) -> None:
        s = int(p["seat"])
        self.alive.discard(s)
        self.death_idx.setdefault(s, idx)
        if self.phase[0] == "night":
            self.killed_at_night[self.phase[1]].add(s)

    def on_ballot(self, _idx: int, p: dict[str, Any], _e: GameEvent) -> None:
        if not p.get("poll"):
            self.round_ballots.append((int(p["voter"]), _seat(p.get("target"))))

    def on_vote_result(self, _idx: int, p: dict[str, Any], _e: GameEvent) -> None:
        ballots = self.round_ballots or [
            (int(v), _seat(t)) for v, t in (p.get("ballots") or {}).items()
        ]
        self.votes.append(
            {"day": self.day, "revote": bool(p.get("revote")), "alive": set(self.alive),
             "wolves": self.wolves & self.alive, "ballots": ballots}
        )  # fmt: skip
        self.round_ballots = []

    def on_exile(self, idx: int, p: dict[str, Any], _e: GameEvent) -> None:
        self.exiles[self.day] = (_seat(p.get("seat")), idx)
        if p.get("seat") is not None and p.get("reveal") is not None:
            self.revealed.add(int(p["seat"]))

    def on_belief(self, _idx: int, p: dict[str, Any], _e: GameEvent) -> None:
        reporter = int(p["seat"])
        public_known = set(self.revealed)
        targets = self.rules.get("wolf_targets", "non_wolves")
        if targets == "non_wolves" and not self.composition.get("witch"):
            public_known |= self.night_dead_public
        own = (self.wolves if reporter in self.wolves else set()) | self.known[reporter]
        self.belief_reports.append(
            {"seat": reporter, "day": self.day, "beliefs": p.get("beliefs") or {},
             "known": (public_known | own) - {reporter}}
        )  # fmt: skip

    def on_message(self, _idx: int, p: dict[str, Any], event: GameEvent) -> None:
        said = self.speech[int(p["seat"])]
        if event.type == "wolf_message":
            said["wolf_messages"] += 1
        else:
            said["messages"] += 1
            said["chars"] += len(str(p.get("text") or ""))

    def on_bid(self, _idx: int, p: dict[str, Any], _e: GameEvent) -> None:
        bid = self.bids[int(p["seat"])]
        bid["n"] += 1
        bid["sum"] += float(p["bid"])

    def on_turn(self, _idx: int, p: dict[str, Any], _e: GameEvent) -> None:
        if self.rules.get("discussion_mode") == "bidding":
            self.bids[int(p["seat"])]["turns_won"] += 1
            self.turns += 1

    def on_game_over(self, idx: int, p: dict[str, Any], _e: GameEvent) -> None:
        self.outcome = p
        self._close_night(idx)


HANDLERS: dict[str, Callable[[Scan, int, dict[str, Any], GameEvent], None]] = {
    "phase": Scan.on_phase,
    "wolf_target": Scan.on_wolf_target,
    "protect": Scan.on_protect,
    "witch_action": Scan.on_witch_action,
    "seer_result": Scan.on_seer_result,
    "dawn": Scan.on_dawn,
    "death": Scan.on_death,
    "ballot": Scan.on_ballot,
    "vote_result": Scan.on_vote_result,
    "exile": Scan.on_exile,
    "belief": Scan.on_belief,
    "message": Scan.on_message,
    "last_words": Scan.on_message,
    "wolf_message": Scan.on_message,
    "bid": Scan.on_bid,
    "turn": Scan.on_turn,
    "game_over": Scan.on_game_over,
}
