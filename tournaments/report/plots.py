"""PNG charts of a run: rating history (μ ± σ per match) and win rates with 95% CIs (a
self-play run's charts are :mod:`tournaments.selfplay.plots`)."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")  # files only, never a window
import matplotlib.pyplot as plt
from matplotlib.figure import Figure

from arena.ratings.leaderboard import history, leaderboard
from arena.results import MatchResult
from arena.seeding import derive_seed


def plot_run(
    results: list[MatchResult], out: Path, by: str = "agent", config: dict[str, Any] | None = None
) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    config = config or {}
    paths = [plot_history(results, out / f"rating_history_{by}.png", by)]
    seed = derive_seed(config.get("master_seed", 0), "bootstrap") % 2**32
    paths.append(plot_win_rates(results, out / f"win_rate_{by}.png", by, seed))
    return paths


def plot_history(results: list[MatchResult], path: Path, by: str = "agent") -> Path:
    fig = history_figure(results, by)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def history_figure(results: list[MatchResult], by: str = "agent") -> Figure:
    """The rating history chart. It is TrueSkill folded match by match (a history needs an
    order), while ``arena leaderboard`` ranks by the order-free Bradley–Terry fit: the title
    says so, so that its last points are not read as the leaderboard's numbers."""
    points = history(results, by)  # type: ignore[arg-type]
    series: dict[str, list[tuple[int, float, float]]] = defaultdict(list)
    order: dict[str, int] = {}
    for p in points:
        order.setdefault(p.match_id, len(order))
        series[p.player].append((order[p.match_id], p.mu, p.sigma))
    fig, ax = plt.subplots(figsize=(9, 5))
    for player in sorted(series):
        xs, mus, sigmas = zip(*series[player], strict=True)
        line = ax.plot(xs, mus, label=player, linewidth=1.2)[0]
        lo = [m - s for m, s in zip(mus, sigmas, strict=True)]
        hi = [m + s for m, s in zip(mus, sigmas, strict=True)]
        ax.fill_between(xs, lo, hi, alpha=0.15, color=line.get_color())
    ax.set_xlabel("rated match (fold order)")
    ax.set_ylabel("TrueSkill μ (band: ± σ)")
    ax.set_title(
        f"TrueSkill rating history by {by}\n"
        "(the leaderboard ranks by a batch Bradley–Terry fit: `arena leaderboard`)",
        fontsize="medium",
    )
    if series:
        ax.legend(fontsize="small", loc="best")
    fig.tight_layout()
    return fig


def plot_win_rates(
    results: list[MatchResult], path: Path, by: str = "agent", seed: int = 0
) -> Path:
    rows = [r for r in leaderboard(results, by, detail=True, seed=seed) if r.games]  # type: ignore[arg-type]
    fig, ax = plt.subplots(figsize=(8, 0.5 * max(len(rows), 2) + 1.5))
    names = [r.agent for r in rows][::-1]
    wr = [r.win_rate for r in rows][::-1]
    lo = [r.win_rate - (r.wr_low if r.wr_low is not None else r.win_rate) for r in rows][::-1]
    hi = [(r.wr_high if r.wr_high is not None else r.win_rate) - r.win_rate for r in rows][::-1]
    ax.barh(names, wr, xerr=[lo, hi], capsize=4, color="#4c72b0", alpha=0.85)
    ax.axvline(0.5, color="grey", linewidth=0.8, linestyle="--")
    ax.set_xlim(0, 1)
    ax.set_xlabel("win rate (draws ½), 95% CI")
    ax.set_title(f"Win rate by {by}")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
