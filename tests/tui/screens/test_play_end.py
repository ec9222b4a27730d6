"""The screens around a human seat's turns let the players leave only once the run is over, as
the ``job_done`` they were handed says (their app's attributes are none of their business)."""

from __future__ import annotations

from textual.screen import Screen

from arena.results import MatchResult, SeatResult
from tests.tui.screens.bare import BareApp, until
from tui.screens.play import WaitScreen
from tui.screens.play_end import EndScreen


def _result() -> MatchResult:
    seat = SeatResult(seat=0, name="Ada", agent="human", team="town", role="seer", reward=1.0,
                      result="win")  # fmt: skip
    return MatchResult(match_id="m1", game="toy", seed=1, status="finished", outcome="town_win",
                       winners=["town"], seats=[seat])  # fmt: skip


async def _leaves_only_when_done(screen: Screen[None], done: list[bool]) -> None:
    app = BareApp(screen)
    async with app.run_test(size=(120, 30)) as pilot:
        await until(pilot, lambda: app.screen is screen and bool(getattr(screen, "ready", 0)))
        await pilot.press("q")  # the run goes on: q is not a way out yet
        assert app.return_code is None and app.screen is screen
        done.append(True)
        await pilot.press("q")
    assert app.return_code == 0


async def test_the_wait_and_end_screens_leave_when_the_job_they_were_handed_is_done() -> None:
    done: list[bool] = []
    await _leaves_only_when_done(WaitScreen(lambda: bool(done)), done)
    done.clear()
    await _leaves_only_when_done(
        EndScreen(_result(), [], frozenset({"human"}), job_done=lambda: bool(done)), done
    )
