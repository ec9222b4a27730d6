"""The self-play report: per repeat the champion, its lineage and its paired improvement over
the seed context; across repeats the improvement's mean, sd, 95 % interval (Student t over the
R repeats) and RSE = (sd / √R) / mean. Per generation: how much a context and the bank changed
against their parents (:func:`churn`)."""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from tournaments.selfplay.config import SelfPlayConfig

# two-sided 97.5 % Student t quantiles by degrees of freedom (R - 1), then the normal
_T975 = {
    1: 12.706,
    2: 4.303,
    3: 3.182,
    4: 2.776,
    5: 2.571,
    6: 2.447,
    7: 2.365,
    8: 2.306,
    9: 2.262,
    10: 2.228,
    15: 2.131,
    20: 2.086,
    30: 2.042,
}


def churn(before: Iterable[str], after: Iterable[str]) -> dict[str, int]:
    """Insights added and removed going from ``before`` to ``after`` (ids), and the size after."""
    old, new = set(before), set(after)
    return {"size": len(new), "added": len(new - old), "removed": len(old - new)}


def t975(df: int) -> float:
    if df in _T975:
        return _T975[df]
    below = [d for d in _T975 if d <= df]
    return _T975[max(below)] if df < 30 else 1.96


def across(values: list[float]) -> dict[str, Any]:
    r = len(values)
    if r == 0:
        return {"n": 0, "mean": None, "sd": None, "ci": None, "rse": None}
    mean = float(np.mean(values))
    if r < 2:
        return {"n": r, "mean": mean, "sd": None, "ci": None, "rse": None}
    sd = float(np.std(values, ddof=1))
    half = t975(r - 1) * sd / math.sqrt(r)
    rse = (sd / math.sqrt(r)) / mean if mean != 0 else None
    return {"n": r, "mean": mean, "sd": sd, "ci": [mean - half, mean + half], "rse": rse}


def summarise(
    config: SelfPlayConfig, repeats: list[dict[str, Any]], budget: dict[str, Any]
) -> dict[str, Any]:
    deltas = [float(r["improvement"]["delta"]) for r in repeats]
    return {
        "name": config.name,
        "game": config.game,
        "metric": config.metric,
        "repeats": [
            {
                "repeat": r["repeat"],
                "seed_candidate": r["seed_candidate"],
                "champion": r["champion"]["id"],
                "champion_lineage": {
                    k: r["champion"][k] for k in ("operator", "generation", "parents", "note")
                },
                "improvement": r["improvement"],
                "promotions": sum(1 for d in r["decisions"] if d["promoted"]),
                "gate_tests": len(r["decisions"]),
                "stopped": r["stopped"],
            }
            for r in repeats
        ],
        "improvement": across(deltas),
        "promoted_repeats": sum(1 for r in repeats if any(d["promoted"] for d in r["decisions"])),
        "budget": budget,
    }


def generations(root: Path) -> list[dict[str, Any]]:
    """Every ``generation.json`` of a self-play directory, in (repeat, generation) order."""
    out = []
    for rdir in sorted(root.glob("r*"), key=lambda p: _number(p.name[1:])):
        if not rdir.is_dir() or _number(rdir.name[1:]) < 0:
            continue
        for path in sorted(rdir.glob("g*/generation.json")):
            out.append(json.loads(path.read_text(encoding="utf-8")))
    return out


def _number(text: str) -> int:
    return int(text) if text.isdigit() else -1


def series(gens: list[dict[str, Any]]) -> dict[int, dict[str, list[Any]]]:
    """What the plots draw, per repeat: the population's (μ, σ) per generation, the incumbent's
    win rate against the panel with its Wilson interval, and the budget spent by phase."""
    by_repeat: dict[int, dict[str, list[Any]]] = {}
    for g in gens:
        row = by_repeat.setdefault(
            int(g["repeat"]),
            {"generation": [], "population": [], "champion": [], "budget": []},
        )
        row["generation"].append(int(g["generation"]))
        row["population"].append(
            [
                (c["id"], c["mu"], c["sigma"])
                for c in g["candidates"]
                if c.get("mu") is not None and c.get("sigma") is not None
            ]
        )
        # the incumbent after this generation's gate: promoted challengers are in the rows too
        inc = next((c for c in g["candidates"] if c["id"] == g["incumbent"]), None)
        ci = (inc or {}).get("win_ci") or [None, None]
        row["champion"].append(
            {
                "id": g["incumbent"],
                "win_rate": (inc or {}).get("win_rate"),
                "low": ci[0],
                "high": ci[1],
            }
        )
        row["budget"].append(g["budget"])
    return by_repeat
