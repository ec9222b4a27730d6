"""A match's outcome and transcript summary for ``arena show``, read from the store and JSONL."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from arena.ratings.batch import team_ranks
from arena.results import MatchResult, rated_result
from arena.sinks import read_jsonl
from arena.untrusted import quote

SKIP = {"decision", "ground_truth", "match_start", "match_end", "belief_report", "llm_call"}


def rated_results(result: MatchResult | None) -> dict[int, str]:
    """Each seat's win/loss/draw as the leaderboard counts it (team ranks by reward); empty
    when the match is not rated. ``arena show`` prints these, so it and the board agree."""
    if result is None:
        return {}
    ranks = team_ranks(result)
    if ranks is None:
        return {}
    return {s.seat: rated_result(ranks, s.team) for s in result.seats}


def summary(
    run_dir: Path, row: dict[str, Any], max_lines: int = 40, result: MatchResult | None = None
) -> str:
    spec = json.loads(row["spec"])
    rated = rated_results(result)
    lines = [
        f"match {row['match_id']}  ({row['game']}, seed {row['seed']}, repeat {row['repeat']})",
        f"status: {row['status']}"
        + (f" — {row['outcome']}" if row.get("outcome") else "")
        + (f" ({quote(row['reason'])})" if row.get("reason") else ""),
    ]
    if rated and result is not None:  # the result the leaderboard counts, one notion
        won = sorted({s.team for s in result.seats if rated[s.seat] == "win"})
        lines.append(f"winners (as rated, by reward): {', '.join(won) or 'none (draw)'}")
    elif row.get("winners"):
        lines.append(f"winners: {', '.join(json.loads(row['winners'])) or 'none (draw)'}")
    path = run_dir / (row.get("jsonl") or f"matches/{row['match_id']}.jsonl")
    if not path.exists():
        lines.append("seats: " + ", ".join(f"{s}: {e}" for s, e in enumerate(spec["seats"])))
        lines.append(f"(no event record at {path})")
        return "\n".join(lines)
    events = list(read_jsonl(path))
    truth = next((e for e in events if e.type == "ground_truth"), None)
    end = next((e for e in events if e.type == "match_end"), None)
    teams = truth.payload.get("teams", {}) if truth else {}
    roles = truth.payload.get("roles", {}) if truth else {}
    rewards = end.payload.get("rewards", {}) if end else {}
    start = next((e for e in events if e.type == "match_start"), None)
    names = start.payload.get("names", []) if start else []
    lines.append("seats:")
    for s, entry in enumerate(spec["seats"]):
        name = names[s] if s < len(names) else f"P{s}"
        lines.append(
            f"  {s} {name:<10} {entry:<16} team {teams.get(str(s), '?'):<10}"
            f" role {roles.get(str(s), '?'):<12} reward {rewards.get(str(s), '-')}"
            + (f"  {rated[s]}" if s in rated else "")
        )
    kinds = Counter(e.type for e in events)
    lines.append(
        f"events: {len(events)} ({', '.join(f'{k} {v}' for k, v in kinds.most_common())})"
        + ("" if end else "  [record incomplete: the match did not finish]")
    )
    public = [e for e in events if e.type not in SKIP and e.visibility.scope == "public" and e.text]
    lines.append(f"public transcript ({len(public)} lines, first {min(max_lines, len(public))}):")
    for e in public[:max_lines]:
        lines.append(f"  [{e.phase}] {quote(e.text)}")  # one line each, whatever was said
    if len(public) > max_lines:
        lines.append(f"  … {len(public) - max_lines} more (full record: {path})")
    return "\n".join(lines)
