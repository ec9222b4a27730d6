"""The help overlay names keys as people type them."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static

from tui.app import ArenaApp
from tui.screens.help import HelpScreen
from tui.sources import replay_events


async def test_help_names_keys_as_typed_not_by_their_binding_names(record: Path) -> None:
    events, truncated = replay_events(record)
    app = ArenaApp(replay=events, truncated=truncated)
    async with app.run_test(size=(140, 50)) as pilot:
        await pilot.press("question_mark")
        screen = app.screen
        assert isinstance(screen, HelpScreen)
        keys = dict((desc, key) for key, desc in screen.lines())
        assert keys["help"] == "?" and keys["search"] == "/" and keys["spectator view"] == "V"
        assert keys["step"] == "→ ." and keys["seek +25"] == "]"
        text = str(screen.query_one("#help-text", Static).content)
        assert "Replay — keys" in text
        for name in ("question_mark", "slash", "shift+v", "full_stop", "square_bracket"):
            assert name not in text
        await pilot.press("escape")
