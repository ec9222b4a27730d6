"""Frozen reference opponents: a named, versioned pool of rule bots per game, and the gauntlet
config that rates one agent against it (``arena gauntlet --agent URL --game GAME``).

A pool never changes under its name: its bots, their ``slip`` levels, the rules and the master
seed are fixed, so two agents rated against ``werewolf-ref@1`` met the same opponents on the
same deals. The opponents' ratings are not fixed: the board rates them in the same fit as the
agent (the bots are frozen, not their μ), so every rank on it is an estimate with its interval.
A change is a new version (a new entry in ``POOLS``), never an edit of an old one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from arena import registry

POOL_VERSION = 1


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
    agent_name: str,
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
        **_seating(pool, agent_name, names),
        "matches": matches,
        "master_seed": pool.master_seed,
        "concurrency": concurrency,
        "policy": {"retries": 2, "fallback": "random_legal", "timeout_s": timeout_s},
        "output_dir": output_dir,
    }


def _seating(pool: Pool, agent: str, opponents: list[str]) -> dict[str, Any]:
    """Who sits where. A game of one seat per side: the agent against each opponent, sides
    swapped. A game of factions (Werewolf, Avalon): the agent takes one seat among copies of
    each opponent, its seat and role balanced across matches — were it given a whole faction,
    it would hold every role of that faction at once, and its per-role ratings could not differ."""
    engine = registry.engine_class(pool.game)(pool.rules, seed=pool.master_seed)
    teams = engine.teams()
    if len(set(teams.values())) == len(teams):
        return {"format": "gauntlet", "gauntlet": {"candidates": [agent], "baselines": opponents}}
    n = len(teams)
    lineups = [{agent: 1, opponent: n - 1} for opponent in opponents]
    return {"format": "round_robin", "lineups": lineups, "seating": "balanced"}
