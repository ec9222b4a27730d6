"""amqtt plugins enforcing a run's credentials and topic rules (:mod:`arena.live.auth`).

Loaded by the embedded broker only (they import amqtt). Configured with the path of the run's
credentials file, read once when the broker starts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from amqtt.plugins.base import BaseAuthPlugin, BaseTopicPlugin

from arena.live.auth import PUBLISHER, Action, BusCredentials, allowed

ACTIONS: dict[str, Action] = {"publish": "publish", "subscribe": "subscribe", "receive": "receive"}


class RunAuthPlugin(BaseAuthPlugin):  # type: ignore[misc]
    """Only the run's credentials connect; anonymous clients and wrong passwords are refused.

    A client other than the publisher may not leave a will: the broker publishes wills
    without the topic check, so a will would be a way round it.
    """

    def __init__(self, context: Any) -> None:
        super().__init__(context)
        self.credentials = BusCredentials.load(self.config.credentials_file)

    async def authenticate(self, *, session: Any) -> bool:
        if session is None or not self.credentials.check(session.username, session.password):
            return False
        return not (session.will_flag and session.username != PUBLISHER)

    @dataclass
    class Config:
        credentials_file: str = ""


class RunTopicPlugin(BaseTopicPlugin):  # type: ignore[misc]
    """Publish, subscribe and receive as :func:`arena.live.auth.allowed` says."""

    def __init__(self, context: Any) -> None:
        super().__init__(context)
        self.run_id = BusCredentials.load(self.config.credentials_file).run_id

    async def topic_filtering(
        self, *, session: Any = None, topic: str | None = None, action: Any = None
    ) -> bool:
        if session is None or topic is None or action is None:
            return False
        kind = ACTIONS.get(str(getattr(action, "value", action)))
        return kind is not None and allowed(self.run_id, session.username, kind, topic)

    @dataclass
    class Config:
        credentials_file: str = ""
