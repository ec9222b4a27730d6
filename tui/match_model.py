"""One match of the TUI's view model: its events (bounded) and the seat panel as a view sees it.

Pure data folded from events (no Textual here), game-agnostic: it reads ``type``, ``actor``,
``phase``, ``text`` and ``visibility`` of events, and a few generic payload keys (``names``,
``roles``/``teams`` of the runner's ground truth, ``seat`` of death/exile-like events,
``deaths``/``dead`` lists, ``alive`` lists, ``beliefs``, ``ballots``/``votes``) when a game
provides them.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from arena.events import Event
from arena.narration import Cast, probabilities

DEATH_TYPES = ("death", "exile", "eliminated", "killed", "executed", "lynch", "elimination")
DEATH_KEYS = ("deaths", "dead", "killed", "eliminated", "executed")
ERROR_TYPES = ("error", "invalid_action", "fallback", "agent_close_error")
MAX_EVENTS_PER_MATCH = 20_000


@dataclass
class SeatView:
    seat: int
    name: str
    agent: str = ""  # the agent entry and its kind ("smollm2 (llm)"); "" where not to be known
    team: str = ""
    role: str = ""
    alive: bool = True
    facts: list[str] = field(default_factory=list)
    last_vote: str = ""
    belief: str = ""


def _as_seats(value: Any) -> list[int]:
    if isinstance(value, bool):
        return []
    if isinstance(value, int):
        return [value]
    if isinstance(value, list | tuple):
        return [v for v in value if isinstance(v, int) and not isinstance(v, bool)]
    if isinstance(value, dict):
        return [int(k) for k in value if str(k).isdigit()]
    return []


def _by_seat(value: Any) -> dict[int, str]:
    """``{"0": "rule", ...}`` as ``{0: "rule", ...}`` (other keys ignored)."""
    if not isinstance(value, dict):
        return {}
    return {int(k): str(v) for k, v in value.items() if str(k).isdigit()}


class MatchModel:
    """One match: its events (bounded) and what the seat panel shows."""

    def __init__(self, match_id: str, run_id: str = "") -> None:
        self.match_id = match_id
        self.run_id = run_id
        self.game = ""
        self.events: deque[Event] = deque(maxlen=MAX_EVENTS_PER_MATCH)
        self.names: list[str] = []
        # The seating: seat -> agent entry and its kind. ``agents``/``kinds`` are the public
        # seating of match_start (empty when the seating is secret: it would hint at roles);
        # ``secret_agents``/``secret_kinds`` come from the spectator-only ground truth.
        self.agents: list[str] = []
        self.kinds: list[str] = []
        self.secret_agents: dict[int, str] = {}
        self.secret_kinds: dict[int, str] = {}
        self.teams: dict[int, str] = {}
        self.roles: dict[int, str] = {}
        self.facts: dict[int, list[str]] = {}
        # seat -> the memory record of its first llm_call: bank version and injected insight ids
        self.insights: dict[int, dict[str, Any]] = {}
        self.status = "running"
        self.outcome = ""
        self.phase = ""
        self.n_events = 0
        self.errors = 0
        self.last_text = ""
        self.last_seq = -1
        self.gaps = 0
        self.updated = time.time()
        self.metrics: deque[Event] = deque(maxlen=MAX_EVENTS_PER_MATCH)
        self.last_metric_seq = -1

    def add(self, event: Event) -> bool:
        """Fold one event; duplicates (seq already seen) are ignored. True when new."""
        if event.type == "metric":  # the metrics stream numbers its own events
            if event.seq <= self.last_metric_seq:
                return False
            self.last_metric_seq = event.seq
            self.metrics.append(event)
            return True
        if event.seq <= self.last_seq:
            return False
        if event.seq != self.last_seq + 1:
            self.gaps += 1
        self.last_seq = event.seq
        self.events.append(event)
        self.n_events = event.seq + 1
        self.phase = event.phase or self.phase
        self.updated = time.time()
        p = event.payload
        if event.type == "match_start":
            self.game = str(p.get("game", ""))
            self.names = [str(n) for n in p.get("names", [])]
            seats = p.get("seats") or {}
            kinds = p.get("kinds") or {}
            self.agents = [str(seats.get(str(i), "")) for i in range(len(self.names))]
            self.kinds = [str(kinds.get(str(i), "")) for i in range(len(self.names))]
        elif event.type == "ground_truth":
            self.secret_agents = _by_seat(p.get("seats"))
            self.secret_kinds = _by_seat(p.get("kinds"))
            self.teams = {int(k): str(v) for k, v in (p.get("teams") or {}).items()}
            self.roles = {int(k): str(v) for k, v in (p.get("roles") or {}).items()}
            for f in p.get("facts") or []:
                if isinstance(f, dict) and isinstance(f.get("owner"), int):
                    self.facts.setdefault(f["owner"], []).append(f"{f.get('key')}={f.get('value')}")
        elif event.type == "llm_call" and isinstance(p.get("memory"), dict):
            if event.actor is not None:
                self.insights[event.actor] = p["memory"]
        elif event.type == "match_end":
            self.status = str(p.get("status", "finished"))
            self.outcome = str(p.get("outcome", ""))
        if event.type in ERROR_TYPES:
            self.errors += 1
        if event.text and event.visibility.scope == "public":
            self.last_text = event.text
        return True

    def visible(self, seat: int | None) -> list[Event]:
        """The events delivered to ``seat`` (their audience), all of them for a spectator."""
        return [e for e in self.events if e.delivered_to(seat)]

    @property
    def cast(self) -> Cast:
        """Names and game, for :mod:`arena.narration`'s readable lines."""
        return Cast(tuple(self.names), self.game)

    def agent(self, seat: int, view: int | None = None) -> str:
        """The agent entry of ``seat`` with its kind, as ``view`` may know it.

        A public seating is everyone's; a secret one (chosen from the dealt roles) only the
        spectator's and, for its own seat, a player's — never another seat's."""
        entry = self.agents[seat] if seat < len(self.agents) else ""
        kind = self.kinds[seat] if seat < len(self.kinds) else ""
        if not entry and (view is None or view == seat):
            entry = self.secret_agents.get(seat, "")
            kind = self.secret_kinds.get(seat, "")
        if not entry:
            return ""
        return f"{entry} ({kind})" if kind and kind != entry else entry

    def is_model(self, seat: int, view: int | None = None) -> bool:
        """Whether ``seat`` is played by an LLM agent, as ``view`` may know it."""
        kind = self.kinds[seat] if seat < len(self.kinds) else ""
        if not kind and (view is None or view == seat):
            kind = self.secret_kinds.get(seat, "")
        return kind == "llm"

    def model_seats(self, view: int | None = None) -> str:
        """The seats an LLM plays, as "Name (entry)", for a match list."""
        n = len(self.names)
        return ", ".join(
            f"{self.name(s)} ({self.agent(s, view).split(' (')[0]})"
            for s in range(n)
            if self.is_model(s, view)
        )

    def name(self, seat: int | None) -> str:
        if seat is None:
            return "narrator"
        return self.names[seat] if 0 <= seat < len(self.names) else f"seat {seat}"

    def insight_lines(self, view: int | None = None) -> list[str]:
        """Which insights each seat was given (``view``: only that seat's own)."""
        out = []
        for seat, rec in sorted(self.insights.items()):
            if view is not None and seat != view:
                continue
            ids = rec.get("ids") or []
            out.append(
                f"{self.name(seat)}: bank v{rec.get('version')} {rec.get('namespace', '')}"
                f" [{', '.join(ids) or 'none'}]"
            )
        return out

    def seats(self, view: int | None = None) -> list[SeatView]:
        """Seat panel as ``view`` sees it (``None``: spectator, with roles and secrets)."""
        n = max(len(self.names), (max(self.roles) + 1) if self.roles else 0)
        out = [
            SeatView(
                seat=s,
                name=self.name(s),
                agent=self.agent(s, view),
                team=self.teams.get(s, "") if view is None or view == s else "",
                role=self.roles.get(s, "") if view is None or view == s else "",
                facts=list(self.facts.get(s, [])) if view is None or view == s else [],
            )
            for s in range(n)
        ]
        for e in self.visible(view):
            p = e.payload
            dead: list[int] = []
            if e.type in DEATH_TYPES and "seat" in p:
                dead += _as_seats(p.get("seat"))
            for k in DEATH_KEYS:
                if k in p:
                    dead += _as_seats(p[k])
            if "alive" in p and isinstance(p["alive"], list):
                alive = set(_as_seats(p["alive"]))
                for sv in out:
                    sv.alive = sv.seat in alive
            for s in dead:
                if 0 <= s < n:
                    out[s].alive = False
            for key in ("ballots", "votes"):
                ballots = p.get(key)
                if isinstance(ballots, dict):
                    for voter, target in ballots.items():
                        if str(voter).isdigit() and int(voter) < n:
                            out[int(voter)].last_vote = (
                                self.name(target) if isinstance(target, int) else str(target)
                            )
            if e.type == "belief_report" and e.actor is not None and 0 <= e.actor < n:
                beliefs = p.get("beliefs")
                if isinstance(beliefs, dict):  # the two most likely, rounded
                    out[e.actor].belief = probabilities(beliefs, self.cast, top=2)
        return out
