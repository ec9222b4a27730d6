"""The help overlay: the key bindings of the screen underneath, named as people type them."""

from __future__ import annotations

import re
from typing import Any

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

_SHIFT_LETTER = re.compile(r"shift\+([a-z])")


def key_name(key: str, app: App[Any]) -> str:
    """One bound key as it is typed: ``?`` for ``question_mark``, ``V`` for ``shift+v``."""
    letter = _SHIFT_LETTER.fullmatch(key)
    if letter:
        return letter.group(1).upper()
    return app.get_key_display(Binding(key, ""))


def keys_shown(keys: str, app: App[Any]) -> str:
    """A binding's keys (``"right,full_stop"``) as typed, ``"→ ."``."""
    shown = [key_name(k.strip(), app) for k in keys.split(",") if k.strip()]
    return " ".join(dict.fromkeys(shown))  # "V,shift+v" is one key typed: V


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

    def lines(self) -> list[tuple[str, str]]:
        """(keys as typed, what they do), one per binding."""
        return [(keys_shown(key, self.app), desc) for key, desc in self.rows]

    def compose(self) -> ComposeResult:
        # a Text, not markup: "[" and "]" are keys here
        text = Text(f"{self.title_text} — keys\n\n", style="bold")
        for keys, desc in self.lines():
            text.append(f"  {keys:<16}", style="bold cyan")
            text.append(f" {desc}\n")
        text.append("\nesc or ? closes this help", style="dim")
        with Vertical(id="help-box"):
            yield Static(text, id="help-text")
