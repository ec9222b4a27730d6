"""Widgets of the arena TUI."""

from __future__ import annotations

from textual.widgets import RichLog


class Transcript(RichLog):
    """The match transcript; scrolling back by hand turns the screen's follow mode off."""

    def _unfollow(self) -> None:
        unfollow = getattr(self.screen, "unfollow", None)
        if unfollow is not None:
            unfollow()

    def action_scroll_home(self) -> None:
        self._unfollow()
        super().action_scroll_home()

    def action_page_up(self) -> None:
        self._unfollow()
        super().action_page_up()

    def action_scroll_up(self) -> None:
        self._unfollow()
        super().action_scroll_up()
