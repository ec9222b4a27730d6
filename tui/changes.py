"""How the TUI's screens learn that the run they show changed: a message, not a clock.

A source (the run directory's watcher, the MQTT subscriber, the in-process feed of a self-play
run) folds what it read into the model and calls the app's :class:`ChangeSignal`. The signal
posts one :class:`RunChanged` to the app and no other until the app has taken it, so a burst of
events costs one message; the app then redraws the screen on top if it is a
:class:`LiveScreen`. Nothing redraws while nothing changes.
"""

from __future__ import annotations

import contextlib
import threading
from abc import abstractmethod
from collections.abc import Callable

from textual.css.query import NoMatches
from textual.message import Message
from textual.screen import Screen

# Redraws are at least this far apart: a run that plays thousands of events a second in the
# app's own process would otherwise redraw its tables on every turn of the event loop.
REDRAW_GAP_S = 0.1


class RunChanged(Message):
    """The run the app shows changed: new events, a match started or ended, new progress or
    ratings, a new self-play generation. Posted by :class:`ChangeSignal`, handled by the app."""


class ChangeSignal:
    """Tells the app that the run changed, at most one message in flight.

    Callable from any thread (the run directory is read in a worker thread): the message is
    posted with Textual's thread-safe ``post_message``."""

    def __init__(self, post: Callable[[Message], object]) -> None:
        self._post = post
        self._lock = threading.Lock()
        self._posted = False

    def __call__(self) -> None:
        with self._lock:
            if self._posted:
                return  # the message on its way covers this change too
            self._posted = True
        self._post(RunChanged())

    def taken(self) -> None:
        """The app took the message: a change from now on posts a new one."""
        with self._lock:
            self._posted = False


class LiveScreen(Screen[None]):
    """A screen drawn from the app's model: redrawn when the run changed, when it comes back on
    top (it was not drawn while covered) — never on a timer."""

    ready = False  # set at the end of on_mount: the widgets exist

    @abstractmethod
    def refresh_view(self) -> None:
        """Draw the current state of the model."""

    def show_change(self) -> None:
        if not self.ready:
            return
        # the screen's widgets may be being removed (the app is exiting, the screen is
        # leaving): a change in between has nothing to draw on, and must not end the app
        with contextlib.suppress(NoMatches):
            self.refresh_view()

    def on_screen_resume(self) -> None:
        self.show_change()
