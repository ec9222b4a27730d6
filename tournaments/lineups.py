"""The lineups of a round robin, as a config writes them, and their checks.

A lineup is one of four forms: a seat list (``[rule, rule, random, ...]``), seat counts
(``{rule: 4, random: 4}``), teams (``{village: rule, wolves: random}``) or a head to head
(``{vs: [rule, random]}``); any mapping form may add its own ``matches``. Each check returns
one message per problem; without the game's shape (an unknown game, bad rules) only a
lineup's form and its entry names are checked.
"""

from __future__ import annotations

from typing import Any

# (seats, team names) of the game; None when the game or its rules are unknown
Shape = tuple[int, set[str]]


def lineup_matches(lineup: Any, default: int) -> int:
    """The matches a lineup plays: its own ``matches`` when it gives one, else the run's."""
    count = lineup.get("matches") if isinstance(lineup, dict) else None
    return count if isinstance(count, int) and not isinstance(count, bool) else default


def check_lineup(i: int, lineup: Any, names: set[str], shape: Shape | None) -> list[str]:
    """A lineup's problems (``lineups.<i>...: message``)."""
    where = f"lineups.{i}"
    if isinstance(lineup, list):
        return _seat_list(where, lineup, names, shape)
    if not isinstance(lineup, dict) or not lineup or not all(isinstance(k, str) for k in lineup):
        return [
            f"{where}: a lineup is a seat list, {{entry: seats}}, {{team: entry}} or {{vs: [a, b]}}"
        ]
    problems: list[str] = []
    if "matches" in lineup:  # its own number of matches, in place of the run's ``matches``
        count = lineup["matches"]
        if not isinstance(count, int) or isinstance(count, bool) or count < 1:
            problems.append(f"{where}.matches: a whole number of matches >= 1, got {count!r}")
        lineup = {k: v for k, v in lineup.items() if k != "matches"}
        if not lineup:
            return [*problems, f"{where}: a lineup needs its seats besides its matches"]
    return problems + _mapping(where, lineup, names, shape)


def _mapping(where: str, lineup: dict[str, Any], names: set[str], shape: Shape | None) -> list[str]:
    if "vs" in lineup:
        return _head_to_head(where, lineup, names, shape)
    values = list(lineup.values())
    if all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return _seat_counts(where, lineup, names, shape)
    if all(isinstance(v, str) for v in values):
        return _teams(where, lineup, names, shape)
    return [
        f"{where}: mixes forms; {{entry: seats}} takes whole numbers, {{team: entry}} takes "
        f"entry names, not both (got {', '.join(f'{k}: {v!r}' for k, v in lineup.items())})"[:300]
    ]


def _seat_list(where: str, lineup: list[Any], names: set[str], shape: Shape | None) -> list[str]:
    if not all(isinstance(e, str) for e in lineup):
        return [f"{where}: a seat list names agent entries, one per seat"]
    problems: list[str] = []
    unknown = sorted(set(lineup) - names)
    if unknown:
        problems.append(f"{where}: unknown agent entry(ies) {unknown}")
    if shape is not None and len(lineup) != shape[0]:
        problems.append(f"{where}: {len(lineup)} seats given, the game has {shape[0]}")
    return problems


def _head_to_head(
    where: str, lineup: dict[str, Any], names: set[str], shape: Shape | None
) -> list[str]:
    pair = lineup["vs"]
    if (
        len(lineup) != 1
        or not isinstance(pair, list)
        or len(pair) != 2
        or not all(isinstance(e, str) for e in pair)
    ):
        return [f"{where}: a head-to-head is {{vs: [entry, entry]}}"]
    problems = [f"{where}.vs: unknown agent entry {e!r}" for e in pair if e not in names]
    if pair[0] == pair[1]:
        problems.append(f"{where}.vs: an entry cannot play itself head to head")
    if shape is not None and shape[0] < 2:
        problems.append(f"{where}: a head-to-head needs at least 2 seats")
    return problems


def _seat_counts(
    where: str, lineup: dict[str, int], names: set[str], shape: Shape | None
) -> list[str]:
    problems = [f"{where}.{e}: unknown agent entry" for e in lineup if e not in names]
    problems += [f"{where}.{e}: seat count must be >= 1" for e, c in lineup.items() if c < 1]
    total = sum(lineup.values())
    if shape is not None and total != shape[0]:
        problems.append(f"{where}: seat counts add up to {total}, the game has {shape[0]}")
    return problems


def _teams(where: str, lineup: dict[str, str], names: set[str], shape: Shape | None) -> list[str]:
    problems = [
        f"{where}.{team}: unknown agent entry {entry!r}"
        for team, entry in lineup.items()
        if entry not in names
    ]
    if shape is None:
        return problems
    teams = shape[1]
    extra, missing = sorted(set(lineup) - teams), sorted(teams - set(lineup))
    if extra:
        problems.append(f"{where}: unknown team(s) {extra}; this game has {sorted(teams)}")
    if missing and not extra:
        problems.append(f"{where}: no entry for team(s) {missing}")
    return problems
