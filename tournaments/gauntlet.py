"""Frozen reference opponents: a named, versioned pool of rule bots per game, and the gauntlet
config that rates one agent against it (``arena gauntlet --agent URL --game GAME``).

A pool never changes under its name: its bots, their ``slip`` levels, the rules and the master
seed are fixed, so two agents rated against ``werewolf-ref@1`` met the same opponents on the
same deals. A change is a new version (a new entry in ``POOLS``), never an edit of an old one.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.results import MatchResult

POOL_VERSION = 1
TIMEOUT_PREFIX = "no answer within"  # how the runner words a time-out (invalid_action.error)


@dataclass(frozen=True)
class Pool:
    game: str
    version: int
    rules: dict[str, Any]
    # (entry name, kind, params): the frozen opponents
    entries: tuple[tuple[str, str, dict[str, Any]], ...]
    master_seed: int

    @property
    def name(self) -> str:
        return f"{self.game}-ref@{self.version}"


def _ladder(game: str, rule: str, random: str, rules: dict[str, Any], seed: int) -> Pool:
    """The standard pool: the rule bot at slip 0 and 0.5, and the random-legal bot."""
    entries: tuple[tuple[str, str, dict[str, Any]], ...] = (
        (f"ref{POOL_VERSION}-{rule}-slip0", f"{game}.{rule}", {"slip": 0.0}),
        (f"ref{POOL_VERSION}-{rule}-slip50", f"{game}.{rule}", {"slip": 0.5}),
        (f"ref{POOL_VERSION}-{random}", f"{game}.{random}", {}),
    )
    return Pool(game, POOL_VERSION, rules, entries, seed)


POOLS: dict[str, Pool] = {
    "werewolf": _ladder("werewolf", "rule", "random", {"preset": "classic8"}, 2801),
    "avalon": _ladder("avalon", "rule", "random", {"n_players": 5}, 2802),
    "dealornodeal": _ladder("dealornodeal", "rule", "random", {}, 2803),
    "bargaining": _ladder("bargaining", "rule", "random", {}, 2804),
    "price_bargaining": _ladder("price_bargaining", "rule", "random", {}, 2805),
    "pie_division": _ladder("pie_division", "rule", "random", {}, 2806),
    "auction": _ladder("auction", "rule", "random", {}, 2807),
    "persona_dialogue": _ladder("persona_dialogue", "card_reader", "evader", {}, 2808),
}


def gauntlet_config(
    pool: Pool,
    agent_url: str,
    agent_name: str = "agent",
    token_env: str | None = None,
    matches: int = 10,
    concurrency: int = 8,
    timeout_s: float = 30.0,
    output_dir: str = "runs",
    allow_remote_host: bool = False,
) -> dict[str, Any]:
    """The run config (as a mapping) of one agent against every opponent of ``pool``."""
    params: dict[str, Any] = {"url": agent_url}
    if token_env:
        params["token_env"] = token_env
    if allow_remote_host:
        params["allow_remote_host"] = True
    names = [name for name, _, _ in pool.entries]
    agents = [{"name": agent_name, "kind": "remote", "params": params}]
    agents += [{"name": n, "kind": k, "params": p} for n, k, p in pool.entries]
    return {
        "name": f"gauntlet-{pool.game}",
        "game": pool.game,
        "rules": dict(pool.rules),
        "agents": agents,
        "format": "gauntlet",
        "gauntlet": {"candidates": [agent_name], "baselines": names},
        "ratings": {"freeze": names},
        "matches": matches,
        "master_seed": pool.master_seed,
        "concurrency": concurrency,
        "policy": {"retries": 2, "fallback": "random_legal", "timeout_s": timeout_s},
        "output_dir": output_dir,
    }


def harness_health(results: list[MatchResult], matches_dir: Path) -> dict[str, dict[str, int]]:
    """Per agent entry: seats played, invalid answers, fallbacks, time-outs and forfeits
    (a forfeited match whose reward -1 is the entry's seat), from the results and records."""
    out: dict[str, Counter[str]] = {}
    for r in results:
        for s in r.seats:
            c = out.setdefault(s.agent, Counter())
            c["seats"] += 1
            c["invalid"] += s.invalid
            c["fallbacks"] += s.fallbacks
            if r.status == "forfeited" and s.reward < 0:
                c["forfeits"] += 1
        for entry in _timed_out(matches_dir / f"{r.match_id}.jsonl"):
            out.setdefault(entry, Counter())["timeouts"] += 1
    keys = ("seats", "invalid", "fallbacks", "timeouts", "forfeits")
    return {a: {k: c[k] for k in keys} for a, c in sorted(out.items())}


def _timed_out(path: Path) -> list[str]:
    """The agent entry of each time-out in one match record."""
    if not path.exists():
        return []
    seats: dict[str, str] = {}
    found: list[str] = []
    with path.open(encoding="utf-8") as f:
        for line in f:
            if '"ground_truth"' not in line and TIMEOUT_PREFIX not in line:
                continue  # most lines: no parse needed
            event = json.loads(line)
            payload = event.get("payload") or {}
            if event.get("type") == "ground_truth":
                seats = payload.get("seats") or {}
            elif event.get("type") == "invalid_action" and str(payload.get("error", "")).startswith(
                TIMEOUT_PREFIX
            ):
                found.append(seats.get(str(event.get("actor")), "?"))
    return found
