"""``arena selfplay --tui``: the self-play screen and the arena app that shows it on top.

The screen: generation progress, the population leaderboard (μ, σ, μ − kσ of the run's metric,
the metric's mean on the generation's units, lineage) and the champion's context against the
seed's. The run's driver writes the self-play directory through files only, so the app reads it
(:mod:`tournaments.selfplay.view`) in a thread twice a second and tells the screen when what it
shows changed; ``d`` opens the dashboard of the games (as they are played, folded from the run's
events in process, each one telling the dashboard), ``s`` comes back.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import DataTable, Footer, ProgressBar, Static

from arena.events import Event
from tournaments.selfplay.config import PHASES
from tournaments.selfplay.view import SelfPlayView, load, with_spent
from tui.app import ArenaApp
from tui.changes import LiveScreen
from tui.model import RunModel
from tui.render import plain
from tui.screens.dashboard import DashboardScreen

POLL_S = 0.5
DIFF_STYLE = {"+": "green", "-": "red", " ": "bold"}


def _num(value: object, fmt: str = "{:.2f}") -> str:
    return "-" if value is None else fmt.format(value)


class SelfPlayScreen(LiveScreen):
    # a large population scrolls inside its table; the diff keeps the rest of the screen
    DEFAULT_CSS = """
    #sp-title { height: 1; background: $boost; }
    #sp-progress { height: 1; padding: 0 1; }
    #sp-board { height: auto; max-height: 60%; }
    #sp-diff { height: 1fr; padding: 1 0 0 0; }
    """
    BINDINGS = [
        Binding("d", "games", "games (dashboard)"),
        Binding("question_mark", "help", "help"),
        Binding("q", "quit", "quit"),
    ]

    def __init__(
        self, current: Callable[[], SelfPlayView], *, open_games: Callable[[], None]
    ) -> None:
        """``current``: the latest view of the self-play directory (the app re-reads it);
        ``open_games``: shows the dashboard of the games."""
        super().__init__()
        self.current = current
        self.open_games = open_games

    @property
    def view(self) -> SelfPlayView:
        return self.current()

    def compose(self) -> ComposeResult:
        yield Static(id="sp-title")
        yield ProgressBar(id="sp-progress", show_eta=False)
        yield Static(id="sp-stats")
        yield DataTable(id="sp-board", cursor_type="row", zebra_stripes=True)
        yield Static(id="sp-diff")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#sp-board", DataTable).add_columns(
            "#",
            "candidate",
            "operator",
            "gen",
            "parent",
            "μ",
            "σ",
            "μ−kσ",
            "metric [95% CI]",
            "win rate [95% CI]",
            "insights",
            "note",
        )
        self.refresh_view()
        self.ready = True

    def refresh_view(self) -> None:
        v = self.view
        title = Text()
        title.append_text(plain(f" {v.name or '(no self-play run yet)'} ", style="bold reverse"))
        state = "finished" if v.finished else ("stopped" if v.stopped else "running")
        title.append_text(plain(f"  {v.game}  self-play {state}"))
        if v.stopped:
            title.append_text(plain(f" ({v.stopped})", style="yellow"))
        self.query_one("#sp-title", Static).update(title)
        bar = self.query_one("#sp-progress", ProgressBar)
        bar.update(total=max(v.total_generations, 1), progress=v.done_generations)
        self.query_one("#sp-stats", Static).update(self._stats(v))
        self._fill_board(v)
        diff = Text("champion vs seed context\n", style="bold underline")
        for line in v.diff:
            diff.append(f"{line.sign} {line.text}\n", style=DIFF_STYLE.get(line.sign, ""))
        self.query_one("#sp-diff", Static).update(diff)

    def _stats(self, v: SelfPlayView) -> Text:
        gen = "0" if v.generation is None else str(v.generation + 1)  # none finished yet
        total = v.budget.get("total", {})
        parts = [
            f"repeat {v.repeat + 1}/{max(v.repeats, 1)} · generation {gen}/{v.generations} done "
            f"· {v.done_generations}/{v.total_generations} in all",
            f"phase {v.phase or '-'}: {v.phase_done}/{v.phase_total} games",
            f"spent: {total.get('games', 0)} games · {total.get('env_steps', 0)} steps · "
            f"{total.get('llm_calls', 0)} LLM calls · {_num(total.get('wall_s'), '{:.0f}')} s",
        ]
        phases = v.budget.get("phases", {})
        walls = [
            f"{p} {phases[p].get('wall_s', 0):.1f}s"
            for p in PHASES
            if phases.get(p, {}).get("wall_s", 0) > 0
        ]
        if walls:
            parts.append("wall by phase: " + " · ".join(walls))
        if v.bank:
            parts.append(
                f"bank v{v.bank.get('version')}: {v.bank.get('active', 0)} active "
                f"(+{v.bank.get('added', 0)} −{v.bank.get('removed', 0)} vs the last generation)"
                f" · diversity {_num(v.diversity)}"
            )
        if v.gate:
            verdict = "PROMOTED" if v.gate.get("promoted") else "kept the incumbent"
            parts.append(
                f"last gate: {verdict} (Δ {v.gate.get('mean_delta', 0):+.3f}, "
                f"lower bound {v.gate.get('lower', 0):+.3f})"
            )
        parts.append(
            f"ranked by μ − {v.k:g}σ of the metric ({v.metric}) · "
            f"incumbent {v.incumbent or '-'} · seed {v.seed or '-'}"
        )
        return Text("\n").join(plain(p) for p in parts)  # each line escaped on its own

    def _fill_board(self, v: SelfPlayView) -> None:
        table = self.query_one("#sp-board", DataTable)
        keep = table.cursor_row
        table.clear()
        for i, row in enumerate(v.rows, 1):
            ci = row.get("win_ci") or [None, None]
            wr = row.get("win_rate")
            rate = "-" if wr is None else f"{wr:.2f} [{_num(ci[0])}, {_num(ci[1])}]"
            sci = row.get("score_ci") or [None, None]
            sc = row.get("score")
            score = "-" if sc is None else f"{sc:.2f} [{_num(sci[0])}, {_num(sci[1])}]"
            parents = row.get("parents") or []
            mark = "★ " if row["id"] == v.incumbent else ""
            # every cell a Text: a DataTable parses a str cell as markup, and notes and ids
            # come from the run's files
            table.add_row(
                str(i),
                plain(mark + row["id"], style="bold" if mark else ""),
                plain(row.get("operator", "")),
                str(row.get("generation", "")),
                plain(parents[0] if parents else "-"),
                _num(row.get("mu")),
                _num(row.get("sigma")),
                _num(row.get("conservative")),
                score,
                rate,
                str(row.get("insights", "")),
                plain(str(row.get("note", ""))[:60]),
                key=row["id"],
            )
        if table.row_count:
            table.move_cursor(row=min(keep, table.row_count - 1), animate=False)

    def action_games(self) -> None:
        self.open_games()

    def action_help(self) -> None:
        from tui.screens.help import HelpScreen

        self.app.push_screen(HelpScreen("Self-play", list(self.BINDINGS)))

    def action_quit(self) -> None:
        self.app.exit()


class ModelFeed:
    """An event sink folding a game's events into the app's run model (the dashboard's matches)
    in the process that plays them: no broker round trip for the local screen. ``changed``
    tells the app that the model changed."""

    def __init__(self, model: RunModel, changed: Callable[[], None], match_id: str) -> None:
        self.model = model
        self.changed = changed
        self.match_id = match_id

    def write(self, event: Event) -> None:
        self.model.add_event(event.model_copy(update={"match_id": self.match_id}))
        self.changed()

    def close(self) -> None:
        pass


def games_status(view: SelfPlayView, model: RunModel, fallback_name: str) -> dict[str, Any]:
    """The dashboard's header for a self-play run's games: the run, its state, and the games
    seen so far (a self-play run plans its games phase by phase, so its total is those started)."""
    statuses = [m.status for m in model.matches.values()]
    running = statuses.count("running")
    failed = sum(1 for s in statuses if s not in ("running", "finished"))
    state = "running"
    if view.finished:
        state = f"stopped: {view.stopped}" if view.stopped else "finished"
    return {
        "run_id": view.name or fallback_name,
        "game": view.game,
        "status": state,
        "total": len(statuses),
        "done": len(statuses) - running - failed,
        "failed": failed,
        "running": running,
    }


class SelfPlayApp(ArenaApp):
    # on the games dashboard, `s` (shown in its footer) or escape goes back to self-play; a
    # screen's own escape (a match's "back") comes first
    BINDINGS = [
        *ArenaApp.BINDINGS,
        Binding("s", "selfplay", "back to self-play"),
        Binding("escape", "selfplay", "back to self-play", show=False),
    ]

    def __init__(
        self,
        root: Path,
        job: Callable[[], Awaitable[None]] | None = None,
        spent: Callable[[], dict[str, Any]] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(job=job, **kwargs)
        self.root = Path(root)
        # the live ledger of a run played in this process (None: the files only): its counters
        # move with every game and model call, the files' only per finished generation
        self.spent = spent
        self.source_label = f"self-play dir {self.root}"
        self.selfplay_view = SelfPlayView()
        # self-play's games are scored per candidate, not rated: say where the scores are
        self.model.empty_board = (
            "self-play games are not rated on this board: each candidate's score and interval "
            "are on the self-play screen (escape, then s)"
        )

    def set_up(self) -> None:  # the self-play screen first, not ArenaApp's dashboard
        self.push_screen(SelfPlayScreen(lambda: self.selfplay_view, open_games=self.open_games))
        if self.job is not None:
            self.run_worker(self._run_job(), name="job")
        self.run_worker(self._watch(), name="selfplay-files")

    async def _watch(self) -> None:
        while True:
            view = await asyncio.to_thread(load, self.root)
            if self.spent is not None:
                view = with_spent(view, self.spent())
            # the games dashboard's header (it shows an arena run's status otherwise)
            self.model.apply_status(games_status(view, self.model, self.root.name))
            if view != self.selfplay_view:  # a new generation, phase, game or model call
                self.selfplay_view = view
                self.run_changed()
            await asyncio.sleep(POLL_S)

    def feed(self, match_id: str) -> ModelFeed:
        return ModelFeed(self.model, self.run_changed, match_id)

    def open_games(self) -> None:
        self.push_screen(self.dashboard())

    def action_selfplay(self) -> None:
        if isinstance(self.screen, DashboardScreen):
            self.pop_screen()
