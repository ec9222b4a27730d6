"""The leaderboard screen: every agent's live rating (TrueSkill, named on screen) with its μ
history as a sparkline."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import DataTable, Footer, Sparkline, Static

from tui.changes import LiveScreen
from tui.model import RunModel, rating_title
from tui.render import plain


def health_cells(health: dict[str, Any] | None) -> list[str]:
    """The harness health columns: shares of refused and fallback decisions and of forfeited
    matches, and ``ok`` / ``FLAG`` (/ ``unknown`` for records without counts)."""
    if not health:
        return ["-", "-", "-", "unknown"]
    cells = []
    for k in ("refused", "fallback", "forfeit"):
        share = (health.get(k) or {}).get("share")
        cells.append("-" if share is None else f"{share:.1%}")
    state = "FLAG" if health.get("flag") else ("unknown" if health.get("unknown_matches") else "ok")
    return [*cells, state]


class LeaderboardScreen(LiveScreen):
    BINDINGS = [
        Binding("escape", "back", "back"),
        Binding("question_mark", "help", "help"),
    ]

    def __init__(self, model: RunModel) -> None:
        super().__init__()
        self.model = model  # the run whose ratings it draws

    def compose(self) -> ComposeResult:
        yield Static(id="lb-title")
        yield DataTable(id="lb", cursor_type="row", zebra_stripes=True)
        yield Static(id="lb-agent")
        yield Sparkline([], id="lb-spark")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#lb", DataTable).add_columns(
            "#", "agent", "μ", "σ", "μ−3σ", "games", "wins", "draws", "losses", "win rate",
            "reward", "refused", "fallback", "forfeited", "health",
        )  # fmt: skip
        self.refresh_view()
        self.ready = True

    def refresh_view(self) -> None:
        title = f"Leaderboard — {rating_title(self.model.rating)}; factions as teams, μ−3σ ranks"
        self.query_one("#lb-title", Static).update(plain(title))
        table = self.query_one("#lb", DataTable)
        keep = table.cursor_row
        table.clear()
        for i, r in enumerate(self.model.leaderboard, 1):
            table.add_row(
                str(i),
                plain(r["agent"]),  # a Text: a DataTable parses a str cell as markup
                f"{r['mu']:.2f}",
                f"{r['sigma']:.2f}",
                f"{r['conservative']:.2f}",
                str(r["games"]),
                str(r["wins"]),
                str(r["draws"]),
                str(r["losses"]),
                f"{r['win_rate']:.3f}",
                f"{r.get('mean_reward', 0.0):.3f}",
                *health_cells(r.get("health")),
                key=r["agent"],
            )
        if table.row_count:
            table.move_cursor(row=min(keep, table.row_count - 1), animate=False)
        self._show_selected()

    def _show_selected(self) -> None:
        table = self.query_one("#lb", DataTable)
        if not table.row_count:
            self.query_one("#lb-agent", Static).update(plain(self.model.empty_board))
            return
        agent = str(table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value)
        hist = self.model.history.get(agent, [])
        label = f"{agent}: {self.model.rating} μ over the run"
        row = next((r for r in self.model.leaderboard if r["agent"] == agent), {})
        flag = (row.get("health") or {}).get("flag")
        if flag:
            label += f"; harness health flagged: {flag} (docs/leaderboards.md)"
        if hist:
            label += f" ({hist[0]:.2f} → {hist[-1]:.2f}, {len(hist)} points)"
        self.query_one("#lb-agent", Static).update(plain(label))
        self.query_one("#lb-spark", Sparkline).data = hist

    def on_data_table_row_highlighted(self, _event: DataTable.RowHighlighted) -> None:
        self._show_selected()

    def action_back(self) -> None:
        self.app.pop_screen()

    def action_help(self) -> None:
        from tui.screens.help import HelpScreen

        self.app.push_screen(HelpScreen("Leaderboard", list(self.BINDINGS)))
