"""The TUI's view model of a run: pure data folded from events and status messages (no Textual
here). Its matches are :class:`tui.match_model.MatchModel`; the run adds progress, the live
leaderboard, arrival rates and the health of the feed.
"""

from __future__ import annotations

import json
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from arena.events import Event
from tui.match_model import ERROR_TYPES, MatchModel

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
    # what the leaderboard says while it has no rows (a self-play run rates nothing here)
    empty_board: str = "no finished matches yet"
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

    def fingerprint(self) -> tuple[Any, ...]:
        """What the screens draw from, in one comparable value: a source that folded something
        and left it equal changed nothing on screen (and tells no one). Events count through
        ``events_seen`` (a new event of any match moves it), a match seen with no event yet
        through the number of matches; time-driven figures (rates) are not in it."""
        return (
            self.events_seen, self.malformed, self.foreign, len(self.matches),
            self.run_id, self.name, self.game, self.status, self.connection,
            self.total, self.done, self.failed, self.running, self.nodes, self.bus,
            self.rating, self.leaderboard, self.history,
        )  # fmt: skip

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
