"""The TUI's view model: pure data folded from events and status messages (no Textual here).

Game-agnostic: it reads ``type``, ``actor``, ``phase``, ``text`` and ``visibility`` of events,
and a few generic payload keys (``names``, ``roles``/``teams`` of the runner's ground truth,
``seat`` of death/exile-like events, ``deaths``/``dead`` lists, ``alive`` lists, ``beliefs``,
``ballots``/``votes``) when a game provides them.
"""

from __future__ import annotations

import json
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from arena.events import Event
from arena.narration import Cast, probabilities

DEATH_TYPES = ("death", "exile", "eliminated", "killed", "executed", "lynch", "elimination")
DEATH_KEYS = ("deaths", "dead", "killed", "eliminated", "executed")
ERROR_TYPES = ("error", "invalid_action", "fallback", "agent_close_error")
MAX_EVENTS_PER_MATCH = 20_000
RATE_WINDOW_S = 30.0  # long enough for a slow seat's calls to show as a rate, not as 0
RATE_KINDS = ("events", "decisions", "llm")
MAX_ARRIVALS = 100_000
# The rating family of a board, named on screen from its rows' ``fit``: the live board folds
# TrueSkill match by match, the finished run's leaderboard is a batch Bradley–Terry fit, and
# the two can differ (docs/ratings.md); every view says which one it shows.
FAMILIES = {"trueskill": "TrueSkill", "batch": "Bradley–Terry"}
FINAL_FIT = "`arena leaderboard` ranks the finished run by a batch Bradley–Terry fit"


def rating_title(family: str) -> str:
    """The board's heading: its rating family, and which fit the final leaderboard uses."""
    if family == FAMILIES["batch"]:
        return f"{family} μ ± σ, the fit `arena leaderboard` shows"
    return f"{family} μ ± σ, folded match by match (live); {FINAL_FIT}"


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


@dataclass
class RunModel:
    """A run: progress, matches, leaderboard and bus health."""

    run_id: str = ""
    name: str = ""
    game: str = ""
    status: str = "waiting"
    total: int = 0
    done: int = 0
    failed: int = 0
    running: int = 0
    nodes: dict[str, int] = field(default_factory=dict)  # matches running per node (Ray)
    matches: dict[str, MatchModel] = field(default_factory=dict)
    leaderboard: list[dict[str, Any]] = field(default_factory=list)
    rating: str = "TrueSkill"  # the family of the leaderboard's μ and σ (its rows' fit)
    history: dict[str, list[float]] = field(default_factory=dict)
    connection: str = "-"
    bus: dict[str, Any] = field(default_factory=dict)
    events_seen: int = 0
    malformed: int = 0
    foreign: int = 0
    latencies: list[float] = field(default_factory=list)
    track_latency: bool = False
    # arrival times of events, decisions and LLM calls (see rates); clock: injectable for tests
    clock: Callable[[], float] = time.monotonic
    _arrivals: dict[str, deque[float]] = field(
        default_factory=lambda: {k: deque(maxlen=MAX_ARRIVALS) for k in RATE_KINDS}
    )
    _born: float | None = None
    decisions: int = 0
    llm_calls: int = 0
    errors: int = 0

    def match(self, match_id: str) -> MatchModel:
        m = self.matches.get(match_id)
        if m is None:
            m = self.matches[match_id] = MatchModel(match_id, self.run_id)
        return m

    def add_event(self, event: Event) -> None:
        if not self.match(event.match_id).add(event) or event.type == "metric":
            return  # (a metric event scores a match event: it is not one of the match's)
        self.events_seen += 1
        now = self.clock()
        self._born = now if self._born is None else self._born
        self._arrivals["events"].append(now)
        if event.type == "decision":
            self.decisions += 1
            self._arrivals["decisions"].append(now)
        elif event.type == "llm_call":
            self.llm_calls += 1
            self._arrivals["llm"].append(now)
        if event.type in ERROR_TYPES:
            self.errors += 1
        if self.track_latency:
            self.latencies.append(time.time() - event.ts)

    def add_batch(self, payload: bytes | str) -> int:
        """A bus message ``{"v": 1, "events": [...]}``; bad input is counted, never raised."""
        try:
            data = json.loads(payload)
            raw = data["events"]
            if not isinstance(raw, list):
                raise TypeError("events is not a list")
        except (ValueError, TypeError, KeyError):
            self.malformed += 1
            return 0
        n = 0
        for item in raw:
            try:
                event = Event.model_validate(item)
            except (ValueError, TypeError):
                self.malformed += 1
                continue
            self.add_event(event)
            n += 1
        return n

    def apply_status(self, data: dict[str, Any]) -> None:
        self.run_id = str(data.get("run_id", self.run_id))
        self.name = str(data.get("name", self.name))
        self.game = str(data.get("game", self.game))
        self.status = str(data.get("status", self.status))
        for key in ("total", "done", "failed", "running"):
            if isinstance(data.get(key), int):
                setattr(self, key, data[key])
        if isinstance(data.get("bus"), dict):
            self.bus = data["bus"]
        nodes = data.get("nodes")
        if isinstance(nodes, dict):
            self.nodes = {str(k): v for k, v in nodes.items() if isinstance(v, int)}

    def apply_leaderboard(self, data: dict[str, Any]) -> None:
        rows = data.get("rows")
        if isinstance(rows, list):
            self.leaderboard = [r for r in rows if isinstance(r, dict) and "agent" in r]
            fits = {str(r.get("fit", "trueskill")) for r in self.leaderboard}
            if len(fits) == 1:
                fit = fits.pop()
                self.rating = FAMILIES.get(fit, fit)
        hist = data.get("history")
        if isinstance(hist, dict):
            self.history = {str(k): [float(x) for x in v] for k, v in hist.items()}

    def apply_summary(self, data: dict[str, Any]) -> None:
        m = self.match(str(data["match_id"]))
        m.game = str(data.get("game") or m.game)
        m.status = str(data.get("status", m.status))
        m.phase = m.phase if m.n_events > int(data.get("n_events", 0)) else str(data.get("phase"))
        m.n_events = max(m.n_events, int(data.get("n_events", 0)))
        m.errors = max(m.errors, int(data.get("errors", 0)))
        m.last_text = m.last_text or str(data.get("last", ""))
        if not m.names and isinstance(data.get("names"), list):
            m.names = [str(n) for n in data["names"]]
        if not m.secret_agents and isinstance(data.get("agents"), list):
            # the summary is the spectator's (a seat credential cannot read it): its seating
            # is shown where the ground truth's would be, never in a seat's view
            m.secret_agents = {i: str(a) for i, a in enumerate(data["agents"])}

    def rates(self, now: float | None = None) -> dict[str, float]:
        """Events, decisions and LLM calls per second that arrived over the last RATE_WINDOW_S.

        Counted from arrival times, not from samples taken when the screen redraws: a slow
        stream (a local LLM seat deciding every half minute) still reads as its real rate."""
        now = self.clock() if now is None else now
        if self._born is None:
            self._born = now
        span = max(min(RATE_WINDOW_S, now - self._born), 1.0)  # a young model: its age so far
        out = {}
        for kind, times in self._arrivals.items():
            while times and now - times[0] > RATE_WINDOW_S:
                times.popleft()
            out[kind] = sum(1 for t in times if t <= now) / span
        return out

    def ordered_matches(self) -> list[MatchModel]:
        """Running first (most recently active first), then the rest by id."""
        running = [m for m in self.matches.values() if m.status == "running"]
        others = [m for m in self.matches.values() if m.status != "running"]
        running.sort(key=lambda m: -m.updated)
        others.sort(key=lambda m: m.match_id)
        return running + others


SPARK = "▁▂▃▄▅▆▇█"


def per_second(rate: float) -> str:
    """A rate as read at a glance: whole numbers when fast, two decimals when slow (not 0)."""
    if rate >= 10:
        return f"{rate:.0f}"
    return f"{rate:.1f}" if rate >= 1 else f"{rate:.2f}"


def sparkline(values: list[float], width: int = 16) -> str:
    if not values:
        return ""
    vals = values[-width:]
    lo, hi = min(vals), max(vals)
    if hi - lo < 1e-9:
        return SPARK[3] * len(vals)
    return "".join(SPARK[round((v - lo) / (hi - lo) * (len(SPARK) - 1))] for v in vals)
