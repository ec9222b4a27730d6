"""PNG charts of a self-play run: the population's μ ± σ per generation, the champion's win
rate against the panel with its 95% interval, and the budget spent by phase."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")  # files only, never a window
import matplotlib.pyplot as plt
from matplotlib.ticker import MaxNLocator

from tournaments.selfplay.report import generations, series

SELFPLAY_PLOTS = ("selfplay_population.png", "selfplay_champion.png", "selfplay_budget.png")
PHASE_COLOURS = {
    "play": "#4c72b0",
    "gate": "#dd8452",
    "replay": "#55a868",
    "reflect": "#c44e52",
    "memory_update": "#8172b3",
}


def plot_selfplay(root: Path, out: Path | None = None) -> list[Path]:
    """The three self-play charts of the run in ``root`` (default: ``root/plots``)."""
    out = out or root / "plots"
    out.mkdir(parents=True, exist_ok=True)
    data = series(generations(root))
    names = [out / n for n in SELFPLAY_PLOTS]
    _population(data, names[0])
    _champion(data, names[1])
    _budget(data, names[2])
    return names


REPEAT_SHIFT = 0.08  # repeats side by side at each generation


def generation_limits(data: dict[int, dict[str, Any]]) -> tuple[float, float]:
    """The x range of a per-generation chart: half a generation either side of the generations
    drawn (and of the repeats' shifts). Left to autoscale, one generation drew an axis from
    −0.045 to 0.045 with no integer tick on it."""
    gens = [g for row in data.values() for g in row["generation"]] or [0]
    shift = REPEAT_SHIFT * max(len(data) - 1, 0)
    return (min(gens) - 0.5, max(gens) + shift + 0.5)


def _population(data: dict[int, dict[str, Any]], path: Path) -> None:
    fig, ax = plt.subplots(figsize=(9, 5))
    for n, (repeat, row) in enumerate(sorted(data.items())):
        shift = REPEAT_SHIFT * n
        xs, mus, sigmas = [], [], []
        for g, pop in zip(row["generation"], row["population"], strict=True):
            for _cid, mu, sigma in pop:
                xs.append(g + shift)
                mus.append(mu)
                sigmas.append(sigma)
        champ = [
            next((mu for cid, mu, _ in pop if cid == c["id"]), math.nan)
            for pop, c in zip(row["population"], row["champion"], strict=True)
        ]
        line = ax.errorbar(
            xs, mus, yerr=sigmas, fmt="o", alpha=0.55, capsize=3, label=f"repeat {repeat}"
        )
        ax.plot(
            [g + shift for g in row["generation"]],
            champ,
            "-",
            color=line[0].get_color(),
            linewidth=1.5,
        )
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlim(*generation_limits(data))
    ax.set_xlabel("generation")
    ax.set_ylabel("μ: the metric on an average unit (bars: ± σ; line: the incumbent)")
    ax.set_title("Population by generation")
    if data:
        ax.legend(fontsize="small", loc="best")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _champion(data: dict[int, dict[str, Any]], path: Path) -> None:
    fig, ax = plt.subplots(figsize=(9, 5))
    for n, (repeat, row) in enumerate(sorted(data.items())):
        points = [
            (g + REPEAT_SHIFT * n, c["win_rate"], c["low"], c["high"])
            for g, c in zip(row["generation"], row["champion"], strict=True)
            if c["win_rate"] is not None
        ]
        if not points:
            continue
        xs, wr, lo, hi = zip(*points, strict=True)
        ax.errorbar(
            xs,
            wr,
            yerr=[
                [w - a for w, a in zip(wr, lo, strict=True)],
                [b - w for w, b in zip(wr, hi, strict=True)],
            ],
            fmt="o-",
            capsize=4,
            label=f"repeat {repeat}",
        )
    ax.axhline(0.5, color="grey", linewidth=0.8, linestyle="--")
    ax.set_ylim(0, 1)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlim(*generation_limits(data))
    ax.set_xlabel("generation")
    ax.set_ylabel("win rate vs the panel (select units), Wilson 95% CI")
    ax.set_title("Champion against the panel")
    if data:
        ax.legend(fontsize="small", loc="best")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _budget(data: dict[int, dict[str, Any]], path: Path) -> None:
    fig, (games_ax, wall_ax) = plt.subplots(1, 2, figsize=(12, 5))
    # the budget is cumulative over the whole run, repeats in order
    budgets = [b for _, row in sorted(data.items()) for b in row["budget"]]
    labels = [f"r{r} g{g}" for r, row in sorted(data.items()) for g in row["generation"]]
    xs = list(range(len(budgets)))
    for ax, key, label in (
        (games_ax, "games", "games"),
        (wall_ax, "wall_s", "wall seconds"),
    ):
        bottom = [0.0] * len(budgets)
        for phase, colour in PHASE_COLOURS.items():
            values = [float(b["phases"].get(phase, {}).get(key, 0.0)) for b in budgets]
            if not any(values):
                continue
            ax.bar(xs, values, bottom=bottom, color=colour, label=phase)
            bottom = [a + v for a, v in zip(bottom, values, strict=True)]
        ax.set_xticks(xs, labels, rotation=45 if len(xs) > 8 else 0)
        ax.set_xlabel("repeat, generation")
        ax.set_ylabel(f"{label} spent so far")
        ax.set_title(f"Budget: {label} by phase")
        if budgets:
            ax.legend(fontsize="small", loc="upper left")
    calls = [int(b["total"].get("llm_calls", 0)) for b in budgets]
    if any(calls):
        twin = games_ax.twinx()
        twin.plot(xs, calls, "k.-", label="LLM calls")
        twin.set_ylabel("LLM calls so far")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
