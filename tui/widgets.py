"""Widgets of the arena TUI."""

from __future__ import annotations

from textual.message import Message
from textual.widgets import RichLog


class Transcript(RichLog):
    """The match transcript; scrolling back by hand tells its screen (follow mode goes off)."""

    class ScrolledBack(Message):
        """The reader scrolled the transcript back by hand."""

    def action_scroll_home(self) -> None:
        self.post_message(self.ScrolledBack())
        super().action_scroll_home()

    def action_page_up(self) -> None:
        self.post_message(self.ScrolledBack())
        super().action_page_up()

    def action_scroll_up(self) -> None:
        self.post_message(self.ScrolledBack())
        super().action_scroll_up()
