"""The dashboard: run progress, bus health, running matches, leaderboard with sparklines."""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.timer import Timer
from textual.widgets import DataTable, Footer, ProgressBar, Static

from tui.changes import LiveScreen
from tui.model import RunModel, per_second, rating_title, sparkline
from tui.render import plain

MAX_ROWS = 60  # the dashboard lists this many matches (running first); others are counted
# The rates line counts arrivals over the last RATE_WINDOW_S: after the last event it falls to
# zero with no change to tell about, so it is redrawn alone this often until it reads zero.
RATES_AGE_S = 1.0


class DashboardScreen(LiveScreen):
    BINDINGS = [
        Binding("enter", "open_match", "open match"),
        Binding("l", "leaderboard", "leaderboard"),
        Binding("r", "latest", "most active match"),
        Binding("question_mark", "help", "help"),
        Binding("q", "quit", "quit"),
    ]

    def __init__(
        self, model: RunModel, *, open_match: Callable[[str], None], source_label: str = "-"
    ) -> None:
        """``model``: the run it draws; ``open_match``: shows a match by its id (the app knows
        how); ``source_label``: where the run is read from, for the title."""
        super().__init__()
        self.model = model
        self.open_match = open_match
        self.source_label = source_label

    def compose(self) -> ComposeResult:
        yield Static(id="run-title")
        yield ProgressBar(id="run-progress", show_eta=False)
        yield Static(id="run-stats")
        with Vertical(id="dash-body"):
            yield DataTable(id="matches", cursor_type="row", zebra_stripes=True)
            yield DataTable(id="board", cursor_type="row", zebra_stripes=True)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#matches", DataTable).add_columns(
            "match", "game", "status", "phase", "LLM seats", "events", "errors", "last line"
        )
        board = self.query_one("#board", DataTable)
        board.add_columns("agent", "μ ± σ", "μ−3σ", "games", "W/D/L", "win rate", "μ history")
        board.border_title = rating_title(self.model.rating)
        self.refresh_view()
        self.ready = True

    _rates_timer: Timer | None = None

    def refresh_view(self) -> None:
        m = self.model
        title = Text()
        title.append_text(plain(f" {m.run_id or '(no run yet)'} ", style="bold reverse"))
        title.append_text(plain(f"  {m.game}  {m.status}  "))
        title.append(f"source: {self.source_label}  ", style="dim")
        conn_style = "green" if m.connection in ("connected", "files") else "bold red"
        title.append_text(plain(f"[{m.connection}]", style=conn_style))
        self.query_one("#run-title", Static).update(title)
        bar = self.query_one("#run-progress", ProgressBar)
        bar.update(total=max(m.total, 1), progress=m.done)
        self._show_stats()
        self._fill_matches()
        self._fill_board()

    def _show_stats(self) -> None:
        m = self.model
        rates = m.rates()
        bus = m.bus
        stats = (
            f"matches {m.done}/{m.total} done · {m.failed} failed · {m.running} running   "
            f"events/s {per_second(rates['events'])} · "
            f"decisions/s {per_second(rates['decisions'])} · "
            f"LLM calls/s {per_second(rates['llm'])}   errors {m.errors}   "
            f"malformed {m.malformed} · foreign {m.foreign}"
        )
        if bus:
            stats += f"   bus dropped {bus.get('dropped', 0)}"
        if m.nodes:
            stats += "   per node: " + " · ".join(f"{n} {k}" for n, k in sorted(m.nodes.items()))
        self.query_one("#run-stats", Static).update(plain(stats))
        if self._rates_timer is None and any(rates.values()):
            self._rates_timer = self.set_timer(
                RATES_AGE_S, self._age_rates, name="rates (one-shot)"
            )

    def _age_rates(self) -> None:
        self._rates_timer = None
        self._show_stats()  # re-arms itself while a rate is above zero

    def _fill_matches(self) -> None:
        table = self.query_one("#matches", DataTable)
        keep = table.cursor_row
        table.clear()
        ordered = self.model.ordered_matches()
        for mm in ordered[:MAX_ROWS]:
            style = {"running": "bold green", "finished": "", "errored": "red"}.get(
                mm.status, "yellow"
            )
            # every cell a Text: a DataTable parses a str cell as markup
            table.add_row(
                plain(mm.match_id),
                plain(mm.game),
                plain(mm.status, style=style),
                plain(mm.phase),
                plain(mm.model_seats(), style="bold magenta"),
                str(mm.n_events),
                str(mm.errors),
                plain(mm.last_text[:80]),
                key=mm.match_id,
            )
        if table.row_count:
            table.move_cursor(row=min(keep, table.row_count - 1), animate=False)

    def _fill_board(self) -> None:
        table = self.query_one("#board", DataTable)
        table.border_title = rating_title(self.model.rating)
        table.clear()
        for row in self.model.leaderboard:
            hist = self.model.history.get(row["agent"], [])
            table.add_row(
                plain(row["agent"]),
                f"{row['mu']:.2f} ± {row['sigma']:.2f}",
                f"{row['conservative']:.2f}",
                str(row["games"]),
                f"{row['wins']}/{row['draws']}/{row['losses']}",
                f"{row['win_rate']:.3f}",
                Text(sparkline(hist), style="cyan"),
            )

    def selected_match(self) -> str | None:
        table = self.query_one("#matches", DataTable)
        if not table.row_count:
            return None
        # the row key is the raw id (the shown cell is its printable form)
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        return None if key is None else str(key)

    def action_open_match(self) -> None:
        match_id = self.selected_match()
        if match_id is not None:
            self.open_match(match_id)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        if event.data_table.id == "matches":
            self.action_open_match()

    def action_latest(self) -> None:
        ordered = self.model.ordered_matches()
        if ordered:
            self.open_match(ordered[0].match_id)

    def action_leaderboard(self) -> None:
        from tui.screens.leaderboard import LeaderboardScreen

        self.app.push_screen(LeaderboardScreen(self.model))

    def action_help(self) -> None:
        from tui.screens.help import HelpScreen

        self.app.push_screen(HelpScreen("Dashboard", list(self.BINDINGS)))

    def action_quit(self) -> None:
        self.app.exit()
