"""One seat's trajectory, read back from a match's events: what it saw, what it did, how it
ended and what the game revealed at the end — the reflector's only input.

The view is egocentric: an event is in it when it was delivered to the seat
(``Event.delivered_to``: the audience fixed at emission; the runner's god-only records are not,
except the seat's own decisions), rendered by the one transcript renderer
(:func:`arena.transcript.line`, the seat's own lines as "You"). Other agents' words stay tagged
as theirs, so the reflection prompt can quote them as untrusted data.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from arena import transcript
from arena.events import Event
from arena.facts import GROUND_TRUTH_EVENT, Knowledge
from arena.results import seat_results
from arena.sinks import read_jsonl

Source = Literal["self", "other", "game"]


@dataclass(frozen=True)
class Line:
    seq: int
    source: Source
    text: str


@dataclass
class Trajectory:
    run_id: str
    match_id: str
    game: str
    seat: int
    name: str
    role: str | None
    team: str | None
    lines: list[Line] = field(default_factory=list)
    decisions: list[dict[str, Any]] = field(default_factory=list)  # seq, phase, kind, action
    result: str = "none"  # win | loss | draw | none
    reward: float = 0.0
    outcome: str = ""
    revealed: list[dict[str, Any]] = field(default_factory=list)  # facts the seat knew at the end

    @property
    def span(self) -> tuple[int, int] | None:
        seqs = [ln.seq for ln in self.lines] + [d["seq"] for d in self.decisions]
        return (min(seqs), max(seqs)) if seqs else None


def load_events(path: str | Path) -> list[Event]:
    return list(read_jsonl(Path(path)))


def trajectory(events: Iterable[Event], seat: int) -> Trajectory:
    """The trajectory of ``seat`` in one match's events (in ``seq`` order)."""
    events = list(events)
    start = next((e for e in events if e.type == "match_start"), None)
    truth = next((e for e in events if e.type == GROUND_TRUTH_EVENT), None)
    end = next((e for e in events if e.type == "match_end"), None)
    if start is None:
        raise ValueError("no match_start event: not a match record")
    names = list(start.payload.get("names") or [])
    gt = truth.payload if truth is not None else {}
    team = (gt.get("teams") or {}).get(str(seat))
    knowledge = Knowledge(events)
    # The role is the seat's own role fact — what the agent saw at play time, so insights are
    # filed under the namespace the same seat will look them up in (None: the game deals none).
    role = next(
        (
            str(f["value"])
            for f in knowledge.initial()
            if f["kind"] == "role" and int(f["owner"]) == seat
        ),
        None,
    )
    traj = Trajectory(
        run_id=start.run_id,
        match_id=start.match_id,
        game=str(start.payload.get("game", "")),
        seat=seat,
        name=names[seat] if seat < len(names) else f"seat {seat}",
        role=role,
        team=team,
    )
    for e in events:
        if e.type == "decision" and e.actor == seat:
            traj.decisions.append(
                {
                    "seq": e.seq,
                    "phase": e.phase,
                    "kind": e.payload.get("kind"),
                    "action": e.payload.get("action"),
                }
            )
        elif e.text and e.type != "match_start" and e.delivered_to(seat):
            source: Source = (
                "self" if e.actor == seat else "other" if e.actor is not None else "game"
            )
            traj.lines.append(Line(e.seq, source, transcript.line(e, seat, names)))
    if end is not None:
        traj.outcome = str(end.payload.get("outcome", ""))
        rewards = {int(s): float(r) for s, r in (end.payload.get("rewards") or {}).items()}
        traj.reward = rewards.get(seat, 0.0)
        teams = {int(s): str(t) for s, t in (gt.get("teams") or {}).items()} or {seat: ""}
        status = str(end.payload.get("status"))
        # the result the store and the board record (arena.results.seat_results); a
        # forfeit is rated too, but a trajectory learns from finished matches only
        results = seat_results(status, teams, rewards, end.payload.get("winners") or [])
        traj.result = results.get(seat, "none") if status == "finished" else "none"
    traj.revealed = knowledge.known_by(seat)
    return traj
