"""Planning: turn a config into the full, deterministic list of match specs.

Seeds derive from the repeat's master seed and the match's identity (lineup, game number), so a
plan (and a resumed plan) is identical whatever order matches finish in, and adding a lineup
does not change the seeds of the others. Seats are resolved at plan time: for hidden-role
games the planner builds the engine with the match seed to see the deal, then seats entries so
that each gets every team/role equally often (``seating: balanced``) or fills its side.
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from arena import registry
from arena.engine import RulesEngine
from arena.ratings.coverage import Coverage, pair_coverage, summary
from arena.results import MatchSpec
from arena.seeding import derive_seed
from tournaments.config import RunConfig


@dataclass
class Lineup:
    """A normalised lineup: ``seats`` (multiset), ``teams`` (team -> entry) or ``vs`` (a, b)."""

    key: str
    kind: str
    entries: list[str] = field(default_factory=list)  # seats: the multiset; vs: [a, b]
    teams: dict[str, str] = field(default_factory=dict)


def n_seats(config: RunConfig) -> int:
    return registry.engine_class(config.game)(config.rules, seed=0).n_seats


def match_id(config: RunConfig, repeat: int, index: int) -> str:
    return f"{config.game}-r{repeat}-m{index:05d}"


def repeat_seed(config: RunConfig, repeat: int) -> int:
    """Each repeat has an independent master seed."""
    return derive_seed(config.master_seed, "repeat", repeat)


def match_seed(config: RunConfig, repeat: int, lineup_key: str, k: int) -> int:
    return derive_seed(repeat_seed(config, repeat), config.game, lineup_key, k)


def lineups(config: RunConfig) -> list[Lineup]:
    names = [a.name for a in config.agents]
    if config.format == "gauntlet":
        g = config.gauntlet
        assert g is not None
        return [vs(c, b) for c in g.candidates for b in g.baselines]
    if config.lineups == "pairs":
        return [vs(a, b) for i, a in enumerate(names) for b in names[i + 1 :]]
    if config.lineups is None:
        if config.seating == "by_team":
            return [Lineup(key="teams", kind="teams", teams=dict(config.teams or {}))]
        n = n_seats(config)
        if len(names) > n:  # more entries than seats: every n of them is a table of its own
            return [seat_list(list(c)) for c in combinations(names, n)]
        return [
            Lineup(key="default", kind="default", entries=[names[s % len(names)] for s in range(n)])
        ]
    out: list[Lineup] = []
    for raw in config.lineups:
        lu = normalise(raw)
        same = sum(1 for o in out if o.key.split("#")[0] == lu.key)
        if same:  # a repeated lineup gets its own seeds
            lu.key = f"{lu.key}#{same + 1}"
        out.append(lu)
    return out


def vs(a: str, b: str) -> Lineup:
    return Lineup(key=f"vs:{a}:{b}", kind="vs", entries=[a, b])


def seat_list(entries: list[str]) -> Lineup:
    return Lineup(key="seats:" + ",".join(entries), kind="seats", entries=list(entries))


def normalise(raw: Any) -> Lineup:
    """A lineup from its config form; its key (its content) names it in seeds."""
    if isinstance(raw, list):
        return seat_list(raw)
    if "vs" in raw:
        return vs(*raw["vs"])
    if all(isinstance(v, int) for v in raw.values()):
        entries = [e for e, c in raw.items() for _ in range(c)]
        return Lineup(key="count:" + ",".join(sorted(entries)), kind="seats", entries=entries)
    teams = dict(sorted(raw.items()))
    return Lineup(
        key="teams:" + ",".join(f"{t}={e}" for t, e in teams.items()), kind="teams", teams=teams
    )


class Seater:
    """Assigns the entries of one lineup to seats, match after match (keeps balance counts)."""

    def __init__(self, config: RunConfig, lineup: Lineup) -> None:
        self.config = config
        self.lineup = lineup
        self.engine_cls: type[RulesEngine[Any]] = registry.engine_class(config.game)
        self.names = [a.name for a in config.agents]
        self.by_role: dict[str, Counter[str]] = defaultdict(Counter)
        self.by_seat: dict[str, Counter[int]] = defaultdict(Counter)

    def deal(self, seed: int) -> tuple[dict[int, str], dict[int, str]]:
        engine = self.engine_cls(self.config.rules, seed=seed)
        return engine.teams(), engine.roles()

    def fields(self, k: int, seed: int, repeat: int) -> dict[str, Any]:
        """The seating fields of a MatchSpec. Seatings chosen from the dealt teams or roles are
        not public (``by_team`` / ``public_seating``): who sits where would hint at the deal."""
        seats = self.seats(k, seed, repeat)
        lu = self.lineup
        if lu.kind in ("teams", "vs"):
            teams, _ = self.deal(seed)
            if len(set(teams.values())) < len(teams):  # factions: an entry per team
                by_team = {teams[s]: seats[s] for s in range(len(seats))}
                return {"seats": seats, "by_team": by_team}
        if lu.kind in ("seats", "default") and self.config.seating == "balanced":
            return {"seats": seats, "public_seating": False}
        return {"seats": seats}

    def seats(self, k: int, seed: int, repeat: int) -> list[str]:
        lu, seating = self.lineup, self.config.seating
        if lu.kind == "teams":
            teams, _ = self.deal(seed)
            return [lu.teams[teams[s]] for s in range(len(teams))]
        if lu.kind == "vs":
            return self._head_to_head(k, seed)
        if lu.kind == "default" and seating in ("rotate", "random"):
            n, names = len(lu.entries), self.names  # legacy: entries cycle through seats
            seats = [names[(s + k) % len(names)] for s in range(n)]
            if seating == "random":
                random.Random(derive_seed(self.config.master_seed, "seating", repeat, k)).shuffle(
                    seats
                )
            return seats
        n = len(lu.entries)
        if seating == "rotate":
            return [lu.entries[(s + k) % n] for s in range(n)]
        if seating == "random":
            seats = list(lu.entries)
            random.Random(derive_seed(seed, "seating")).shuffle(seats)
            return seats
        return self._balanced(k, seed)

    def _head_to_head(self, k: int, seed: int) -> list[str]:
        a, b = self.lineup.entries
        first, second = (a, b) if k % 2 == 0 else (b, a)
        teams, _ = self.deal(seed)
        names = sorted(set(teams.values()))
        if len(names) == 2:
            return [first if teams[s] == names[0] else second for s in range(len(teams))]
        return [first if s % 2 == 0 else second for s in range(len(teams))]

    def _balanced(self, k: int, seed: int) -> list[str]:
        """Greedy: rarest roles first, each to the entry furthest below its fair share."""
        teams, roles = self.deal(seed)
        n = len(roles)
        left = Counter(self.lineup.entries)
        share = {e: c / n for e, c in left.items()}
        role_count = Counter(roles.values())
        order = sorted(range(n), key=lambda s: (role_count[roles[s]], roles[s], (s - k) % n))
        rank = {e: i for i, e in enumerate(self.names)}
        seats: list[str] = [""] * n
        for s in order:
            role = f"{teams[s]}/{roles[s]}"
            choices = [e for e in left if left[e] > 0]
            e = min(
                choices,
                key=lambda e: (
                    self.by_role[e][role] / share[e],
                    self.by_seat[e][s] / share[e],
                    (rank[e] - k) % len(rank),
                ),
            )
            seats[s] = e
            left[e] -= 1
            self.by_role[e][role] += 1
            self.by_seat[e][s] += 1
        return seats


def plan(config: RunConfig, run_id: str = "") -> list[MatchSpec]:
    """Every match of the run in fold order (repeat, lineup, game); rating_driven plans none."""
    if config.format == "rating_driven":
        return []
    specs: list[MatchSpec] = []
    all_lineups = lineups(config)
    for repeat in range(config.repeats):
        index = 0
        for lu in all_lineups:
            seater = Seater(config, lu)
            for k in range(config.matches):
                seed = match_seed(config, repeat, lu.key, k)
                specs.append(
                    MatchSpec(
                        match_id=match_id(config, repeat, index),
                        run_id=run_id,
                        game=config.game,
                        rules=config.rules,
                        seed=seed,
                        **seater.fields(k, seed, repeat),
                        index=len(specs),
                        repeat=repeat,
                    )
                )
                index += 1
    return specs


def total_planned(config: RunConfig) -> int:
    """The number of matches a run plays (rating_driven: at most)."""
    if config.format == "rating_driven":
        rd = config.rating_driven
        return (rd.budget if rd else 200) * config.repeats
    return len(lineups(config)) * config.matches * config.repeats


def coverage(config: RunConfig, specs: list[MatchSpec]) -> Coverage:
    """How often the planned matches seat each pair of the config's entries together."""
    return pair_coverage([a.name for a in config.agents], (s.seats for s in specs))


def coverage_note(config: RunConfig, specs: list[MatchSpec]) -> str:
    """The plan's coverage in one line (``arena run --check``)."""
    if config.format == "rating_driven":
        return (
            "coverage: rating_driven picks its pairs as results come in, so which pairs meet "
            "is not planned (the leaderboard reports it)"
        )
    return "coverage: " + summary(coverage(config, specs), "plan")
