"""What a Werewolf bot knows, read only from its own observation, and the village suspicion S(j).

:class:`View` folds a seat's visible events (``obs.events``) and ``obs.state`` into plain
facts: names, own role, partners, revealed teams, Seer results, public claims, accusations and
ballots. Claims and accusations are parsed from message text with the fixed patterns the bots
themselves speak (spec §13.2); anything else is ignored. :class:`Suspicion` is the shared
village model S(j) of spec §13.2.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

from arena.events import GameEvent

WOLF_ROLE = "werewolf"
PROTECTIVE_ROLES = ("doctor", "guard", "witch")

# Templates spoken by the bots; the parser below reads exactly these shapes.
SEER_CLAIM = "I am the Seer."
IS_WOLF = "{name} is a wolf."
NOT_WOLF = "{name} is not a wolf."
SUSPECT = "I suspect {name}."
KILL = "Let us take {name} tonight."  # the wolves' night talk

_SEER_CLAIM_RE = re.compile(r"\bI\s+am\s+the\s+seer\b", re.IGNORECASE)
_PROTECT_CLAIM_RE = re.compile(r"\bI\s+am\s+the\s+(doctor|guard|witch)\b", re.IGNORECASE)


def team_of(value: str | None) -> str | None:
    """Map a revealed team-or-role string to "wolves" / "village" (None stays None)."""
    if value is None:
        return None
    v = str(value).lower()
    if v in ("wolves", "wolf", WOLF_ROLE, "werewolves"):
        return "wolves"
    return "village"


def is_wolf_result(result: Any) -> bool:
    return str(result).lower() in ("wolf", WOLF_ROLE, "wolves")


class MessageParser:
    """Fixed-pattern reader for claims and accusations over the match's player names."""

    def __init__(self, names: list[str]) -> None:
        self.names = list(names)
        alt = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True)) or "(?!)"
        self._is_wolf = re.compile(rf"\b({alt})\s+is\s+an?\s+(?:were)?wolf\b", re.IGNORECASE)
        self._not_wolf = re.compile(rf"\b({alt})\s+is\s+not\s+an?\s+(?:were)?wolf\b", re.IGNORECASE)
        self._suspect = re.compile(rf"\bI\s+suspect\s+({alt})\b", re.IGNORECASE)
        self._lower = {n.lower(): i for i, n in enumerate(names)}

    def seat(self, name: str) -> int:
        return self._lower[name.lower()]

    def parse(self, text: str) -> dict[str, Any]:
        """{"seer_claim": bool, "protective": role|None, "wolf": [seats], "not_wolf": [seats],
        "suspect": [seats]} found in ``text``."""
        return {
            "seer_claim": bool(_SEER_CLAIM_RE.search(text)),
            "protective": (m.group(1).lower() if (m := _PROTECT_CLAIM_RE.search(text)) else None),
            "wolf": [self.seat(m.group(1)) for m in self._is_wolf.finditer(text)],
            "not_wolf": [self.seat(m.group(1)) for m in self._not_wolf.finditer(text)],
            "suspect": [self.seat(m.group(1)) for m in self._suspect.finditer(text)],
        }


class View:
    """Everything one seat knows, updated incrementally from its (append-only) visible events."""

    def __init__(self, seat: int, names: list[str], rules: dict[str, Any] | None = None) -> None:
        self.me = seat
        self.names = list(names)
        self.n = len(names)
        self.rules: dict[str, Any] = dict(rules or {})
        self.parser = MessageParser(self.names)
        self.role: str | None = None
        self.team: str | None = None
        self.wolves: set[int] = set()  # known wolf partners (wolves only), self included
        self.composition: dict[str, int] = {}
        self.alive: set[int] = set(range(self.n))
        self.revealed: dict[int, str] = {}  # seat -> "wolves" / "village"
        self.night_killed: set[int] = set()
        self.seer_results: dict[int, bool] = {}  # own inspections: seat -> is wolf
        self.seer_found_night: dict[int, int] = {}
        self.seer_claimants: list[int] = []  # in claim order
        self.seer_claims: dict[int, dict[int, bool]] = {}  # claimant -> {target: is_wolf}
        self.protective_claims: dict[int, str] = {}
        self.ballots: list[tuple[int, int, int]] = []  # (day, voter, target), revealed ballots
        self.today_ballots: dict[int, int] = {}  # public ballots of the current vote round
        self.accused_today: Counter[int] = Counter()
        self.accusations: list[tuple[int, int, int]] = []  # (day, accuser, target)
        self.day = 0
        self.night = 0
        self.phase = ""
        self.last_message: tuple[int, str] | None = None
        self.spoke_on_day = -1
        self.witch_victim: int | None = None
        self.wolf_votes_tonight: dict[int, int | None] = {}
        self.seen = 0
        self.listeners: list[Any] = []  # callbacks(view, kind, **data) for S updates

    # -- incremental update --------------------------------------------------------------
    def update(self, events: Sequence[GameEvent], state: dict[str, Any]) -> None:
        for event in events[self.seen :]:
            self._absorb(event)
        self.seen = len(events)
        if state:
            if "alive" in state:
                self.alive = {int(s) for s in state["alive"]}
            self.day = int(state.get("day") or self.day)
            self.night = int(state.get("night") or self.night)
            self.phase = str(state.get("phase") or self.phase)
            if state.get("role") and self.role is None:
                self.role = str(state["role"])
                self.team = state.get("team") or ("wolves" if self.role == WOLF_ROLE else "village")
            if state.get("wolves"):
                self.wolves = {int(s) for s in state["wolves"]}
            for k, v in (state.get("seer_results") or {}).items():
                self.seer_results.setdefault(int(k), is_wolf_result(v))

    def _emit(self, kind: str, **data: Any) -> None:
        for callback in self.listeners:
            callback(self, kind, **data)

    def _absorb(self, event: GameEvent) -> None:
        kind = event.type
        p = event.payload
        if kind == "setup":
            self.composition = {str(k): int(v) for k, v in (p.get("composition") or {}).items()}
            if p.get("rules"):
                self.rules = {**self.rules, **p["rules"]}
        elif kind == "role" and int(p.get("seat", -1)) == self.me:
            self.role = str(p["role"])
            self.team = p.get("team") or ("wolves" if self.role == WOLF_ROLE else "village")
        elif kind == "wolf_team":
            self.wolves = {int(s) for s in p.get("wolves", [])}
        elif kind == "phase":
            number = int(p.get("number") or 0)
            if p.get("phase") == "night":
                self.night = number
                self.wolf_votes_tonight = {}
                self.witch_victim = None
            else:
                self.day = number
                self.accused_today = Counter()
            self.today_ballots = {}
        elif kind == "seer_result":
            target = int(p["target"])
            self.seer_results[target] = is_wolf_result(p.get("result"))
            self.seer_found_night.setdefault(target, self.night)
        elif kind == "witch_info":
            self.witch_victim = None if p.get("victim") is None else int(p["victim"])
        elif kind == "wolf_vote":
            t = p.get("target")
            self.wolf_votes_tonight[int(p["seat"])] = None if t is None else int(t)
        elif kind == "dawn":
            for s in p.get("dead") or []:
                self.alive.discard(int(s))
                self.night_killed.add(int(s))
            self._reveal(p.get("reveals") or {})
        elif kind == "exile":
            if p.get("seat") is not None:
                self.alive.discard(int(p["seat"]))
                if p.get("reveal") is not None:
                    self._reveal({p["seat"]: p["reveal"]})
        elif kind == "hunter_shot":
            if p.get("target") is not None:
                self.alive.discard(int(p["target"]))
        elif kind == "ballot":  # public only in sequential mode
            choice = p.get("target")
            if isinstance(choice, int) or (isinstance(choice, str) and choice.isdigit()):
                self.today_ballots[int(p["voter"])] = int(choice)
        elif kind == "vote_result":
            ballots = p.get("ballots") or {}
            for voter, target in ballots.items():
                if target is None or str(target) == "abstain":
                    continue
                self.ballots.append((self.day, int(voter), int(target)))
                self._emit("ballot", voter=int(voter), target=int(target))
            self.today_ballots = {}
        elif kind in ("message", "last_words"):
            self._read_message(int(p["seat"]), str(p.get("text") or ""))

    def _reveal(self, reveals: dict[Any, Any]) -> None:
        for seat, value in reveals.items():
            team = team_of(value)
            if team is not None:
                self.revealed[int(seat)] = team
                self._emit("reveal", seat=int(seat), team=team)

    def _read_message(self, speaker: int, text: str) -> None:
        self.last_message = (speaker, text)
        if speaker == self.me:
            self.spoke_on_day = self.day
        found = self.parser.parse(text)
        if found["seer_claim"] and speaker not in self.seer_claims:
            self.seer_claimants.append(speaker)
            self.seer_claims[speaker] = {}
            self._emit("seer_claim", seat=speaker)
        if found["protective"]:
            self.protective_claims[speaker] = found["protective"]
        targets = list(found["suspect"])
        if speaker in self.seer_claims:
            for t in found["wolf"]:
                self.seer_claims[speaker][t] = True
            for t in found["not_wolf"]:
                self.seer_claims[speaker][t] = False
        else:
            targets += found["wolf"]
        for t in dict.fromkeys(targets):
            if t != speaker:
                self.accused_today[t] += 1
                self.accusations.append((self.day, speaker, t))
                self._emit("accusation", accuser=speaker, target=t)

    # -- derived facts -----------------------------------------------------------------
    @property
    def n_wolves(self) -> int:
        return int(self.composition.get(WOLF_ROLE, 0)) or max(1, len(self.wolves))

    def wolves_cannot_be_night_killed(self) -> bool:
        """Night deaths are certainly village: wolves cannot target wolves and no poison exists."""
        return self.rules.get(
            "wolf_targets", "non_wolves"
        ) == "non_wolves" and not self.composition.get("witch")

    def known_team(self, seat: int) -> str | None:
        """The team of ``seat`` if this seat knows it for certain."""
        if seat == self.me:
            return self.team
        if self.team == "wolves" and self.wolves:
            return "wolves" if seat in self.wolves else "village"
        if seat in self.revealed:
            return self.revealed[seat]
        if seat in self.seer_results:
            return "wolves" if self.seer_results[seat] else "village"
        if seat in self.night_killed and self.wolves_cannot_be_night_killed():
            return "village"
        return None

    def known_village(self) -> set[int]:
        return {s for s in range(self.n) if self.known_team(s) == "village"}

    def consistent(self, claimant: int) -> bool:
        """Every result the claimant announced agrees with what this seat knows for certain."""
        for target, says_wolf in self.seer_claims.get(claimant, {}).items():
            truth = self.known_team(target) if target != self.me else self.team
            if truth is not None and (truth == "wolves") != says_wolf:
                return False
        return True

    def credible_seers(self) -> list[int]:
        """Credible Seer claimants (spec §13.2): live, not known wolves, and - when several
        claim - the only one whose results are consistent with what is known."""
        if self.role == "seer":
            return []  # the real Seer knows every other claimant is lying
        live = [
            c for c in self.seer_claimants if c in self.alive and self.known_team(c) != "wolves"
        ]
        if len(live) <= 1:
            return [c for c in live if self.consistent(c)]
        consistent = [c for c in live if self.consistent(c)]
        return consistent if len(consistent) == 1 else []


class Suspicion:
    """The shared village suspicion model S(j) (spec §13.2), fed by a :class:`View`."""

    W_CLAIM_WOLF = 3.0
    W_CLAIM_CLEAR = -2.0
    W_VOTE_VILLAGE = 0.5
    W_VOTE_WOLF = -1.0
    W_VOTE_CLEARED = 1.0
    W_ACCUSED = 0.5
    W_COUNTERCLAIM = 1.0
    W_LIAR = 3.0
    CLEARED = -2.0

    def __init__(self, view: View) -> None:
        self.view = view
        self.base: dict[int, float] = {j: 0.0 for j in range(view.n)}
        self.bumped: set[int] = set()
        view.listeners.append(self._on_event)

    def _on_event(self, view: View, kind: str, **d: Any) -> None:
        if kind == "ballot":
            voter, target = d["voter"], d["target"]
            if voter == view.me:
                return
            team = view.revealed.get(target)
            if team == "village":
                self.base[voter] += self.W_VOTE_VILLAGE
            elif team == "wolves":
                self.base[voter] += self.W_VOTE_WOLF
            elif self.cleared(target):
                self.base[voter] += self.W_VOTE_CLEARED
        elif kind == "reveal":
            # ballots on a player are judged when the player's team is revealed (at death)
            seat, team = d["seat"], d["team"]
            for _, voter, target in view.ballots:
                if target == seat and voter != view.me:
                    self.base[voter] += (
                        self.W_VOTE_VILLAGE if team == "village" else self.W_VOTE_WOLF
                    )
        elif kind == "accusation":
            accuser, target = d["accuser"], d["target"]
            if accuser != view.me and target != view.me and self.score(accuser) <= 0:
                self.base[target] += self.W_ACCUSED
        elif kind == "seer_claim":
            live = [c for c in view.seer_claimants if c in view.alive]
            if len(live) >= 2:
                for c in live:
                    if c not in self.bumped:
                        self.bumped.add(c)
                        self.base[c] += self.W_COUNTERCLAIM

    def score(self, j: int) -> float:
        view = self.view
        s = self.base[j]
        for c in view.credible_seers():
            said = view.seer_claims[c].get(j)
            if said is True:
                s += self.W_CLAIM_WOLF
            elif said is False:
                s += self.W_CLAIM_CLEAR
        if view.role == "seer" and j in view.seer_claimants:
            s += self.W_LIAR
        return s

    def cleared(self, j: int) -> bool:
        """Regarded as cleared: S <= -2, or known to be village."""
        return self.view.known_team(j) == "village" or self.score(j) <= self.CLEARED

    def scores(self, seats: list[int] | set[int]) -> dict[int, float]:
        return {j: self.score(j) for j in seats}

    def belief(self) -> dict[str, float]:
        """Belief report (spec §13.3): known teams exactly, softmax(S) scaled by unrevealed
        wolves for every other player whose team is unknown."""
        view = self.view
        out: dict[str, float] = {}
        unknown: list[int] = []
        known_wolves = 0
        for j in range(view.n):
            if j == view.me:
                continue
            team = view.known_team(j)
            if team is None:
                unknown.append(j)
            else:
                out[str(j)] = 1.0 if team == "wolves" else 0.0
                known_wolves += team == "wolves"
        w_u = max(0, view.n_wolves - known_wolves)
        if unknown:
            s = [self.score(j) for j in unknown]
            top = max(s)
            ex = [math.exp(x - top) for x in s]
            z = sum(ex)
            for j, e in zip(unknown, ex, strict=True):
                out[str(j)] = min(1.0, w_u * e / z)
        return out
