"""The versioned MQTT topic layout (documented in docs/live.md).

::

    arena/v1/runs/<run_id>/status                      retained  run progress and bus counters
    arena/v1/runs/<run_id>/leaderboard                 retained  TrueSkill rows + μ history
    arena/v1/runs/<run_id>/matches/<match_id>/summary  retained  one match's state in brief
    arena/v1/runs/<run_id>/matches/<match_id>/god      spectator stream: every event
    arena/v1/runs/<run_id>/matches/<match_id>/metrics  streaming metric events (spectators)
    arena/v1/runs/<run_id>/matches/<match_id>/seats/<seat>   what that seat may see

Event streams carry JSON ``{"v": 1, "events": [Event, ...]}`` batches in ``seq`` order: on
``god`` and ``seats`` each event is one line of the match's JSONL record, on ``metrics`` one
line of ``RUN_DIR/metrics/<match_id>.live.jsonl`` (its own ``seq``; ``payload.of_seq`` names
the record's event it scores).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

VERSION = 1
PREFIX = f"arena/v{VERSION}"
_SAFE = re.compile(r"[^A-Za-z0-9_.:@=-]")


def segment(name: str) -> str:
    """A topic level from an id: MQTT wildcards, separators and odd bytes become ``_``."""
    return _SAFE.sub("_", name) or "_"


def run_root(run_id: str) -> str:
    return f"{PREFIX}/runs/{segment(run_id)}"


def status(run_id: str) -> str:
    return f"{run_root(run_id)}/status"


def leaderboard(run_id: str) -> str:
    return f"{run_root(run_id)}/leaderboard"


def match_root(run_id: str, match_id: str) -> str:
    return f"{run_root(run_id)}/matches/{segment(match_id)}"


def summary(run_id: str, match_id: str) -> str:
    return f"{match_root(run_id, match_id)}/summary"


def god(run_id: str, match_id: str) -> str:
    return f"{match_root(run_id, match_id)}/god"


def metrics(run_id: str, match_id: str) -> str:
    return f"{match_root(run_id, match_id)}/metrics"


def seat(run_id: str, match_id: str, seat_no: int) -> str:
    return f"{match_root(run_id, match_id)}/seats/{int(seat_no)}"


def run_filter(run_id: str | None = None) -> str:
    """Subscription filter for everything of one run (or of every run)."""
    return f"{run_root(run_id) if run_id else PREFIX + '/runs/+'}/#"


@dataclass(frozen=True)
class TopicRef:
    """A parsed topic: ``kind`` is status, leaderboard, summary, god, metrics or seat."""

    run_id: str
    kind: str
    match_id: str | None = None
    seat: int | None = None


def parse(topic: str) -> TopicRef | None:
    """The meaning of a topic of this layout; ``None`` for foreign topics."""
    parts = topic.split("/")
    if len(parts) < 5 or "/".join(parts[:2]) != PREFIX or parts[2] != "runs":
        return None
    run_id = parts[3]
    rest = parts[4:]
    if rest in (["status"], ["leaderboard"]):
        return TopicRef(run_id, rest[0])
    if len(rest) == 3 and rest[0] == "matches" and rest[2] in ("summary", "god", "metrics"):
        return TopicRef(run_id, rest[2], rest[1])
    if len(rest) == 4 and rest[0] == "matches" and rest[2] == "seats" and rest[3].isdigit():
        return TopicRef(run_id, "seat", rest[1], int(rest[3]))
    return None
