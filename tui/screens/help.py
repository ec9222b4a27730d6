"""The help overlay: the key bindings of the screen underneath."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static


class HelpScreen(ModalScreen[None]):
    BINDINGS = [
        Binding("escape", "dismiss", "close"),
        Binding("question_mark", "dismiss", "close"),
        Binding("q", "dismiss", "close"),
    ]

    def __init__(self, title: str, bindings: list[Any]) -> None:
        super().__init__()
        self.title_text = title
        self.rows = [
            (
                b.key if isinstance(b, Binding) else b[0],
                b.description if isinstance(b, Binding) else b[2],
            )
            for b in bindings
        ]

    def compose(self) -> ComposeResult:
        lines = [f"[b]{self.title_text} — keys[/b]", ""]
        for key, desc in self.rows:
            lines.append(f"  [bold cyan]{key:<16}[/] {desc}")
        lines += ["", "[dim]escape / ? closes this help[/dim]"]
        with Vertical(id="help-box"):
            yield Static("\n".join(lines), id="help-text")
